"""Registering bots: ``arena bot submit|list|show|retire`` (docs/bots.md, "Registering a
bot"); ``arena bot run`` is ``bot_run.py``'s. Who may submit or retire which bot is
:mod:`arena.app.bots`' to say.

A bot is stored as a version: a tar archive of its code, built deterministically so that
the same content is the same archive (and so the same version), and a manifest naming the
game and the command that starts it from the unpacked archive (:mod:`arena.app.packaging`
makes both)."""

from __future__ import annotations

import argparse
import base64
import json
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from arena.app import bots as app_bots
from arena.app import reads
from arena.app.actors import local_actor
from arena.app.packaging import ARCHIVE_FORMAT, MANIFEST_FILE, BotPackage, package
from arena.commands import (
    add_command,
    arena_command,
    bot_actions,
    examples,
    game_argument,
    json_argument,
    place,
    plain_table,
    print_table,
)
from arena.commands.db import with_store
from arena.errors import CommandError
from arena.remote import remote
from worker.store import BotVersion, Store
from worker.store.bots import bot_name_problem, is_bot_name

HASH_SHOWN = 12
#: What a bot's page says where hosted bots are not confined (docs/sandbox.md).
UNCONFINED = (
    "WARNING: this platform runs hosted bots unconfined (ARENA_SANDBOX=off): each has "
    "its worker's rights, and may read or change anything the worker can"
)
RECENT_MATCHES = 10


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena bot submit``, ``list``, ``show`` and ``retire``."""
    actions = bot_actions(sub)
    submit = add_command(
        actions,
        "submit",
        help="store a bot file or folder as a new version",
        examples=examples(
            "arena bot submit bots/examples/heuristic_bot.py --game hollywood-gin",
            "arena bot submit my_bot/ --game rummy-500 --name mine --json",
        ),
    )
    submit.add_argument(
        "path", type=Path, help=f"a Python bot file, or a folder with an {MANIFEST_FILE}"
    )
    submit.add_argument("--name", help="the bot's name (default: the file or folder stem)")
    game_argument(submit)
    submit.add_argument(
        "--owner",
        default=None,
        metavar="USER",
        help="operators only: register a new bot for this user (default: the acting user, "
        "whose key ARENA_API_KEY is; without a key, the operator)",
    )
    submit.add_argument(
        "--qualify",
        action="store_true",
        help="operators only: qualify the version as a user's is (an operator's is exempt)",
    )
    submit.add_argument(
        "--wait",
        action="store_true",
        help="on a remote platform: wait for the version's qualification and show its report "
        "(on this machine the command qualifies it itself)",
    )
    json_argument(submit, "the stored version and its qualification")
    submit.set_defaults(func=cmd_submit)

    listing = add_command(
        actions,
        "list",
        help="every bot: versions, latest, game, Elo",
        examples=examples("arena bot list", "arena bot list --json"),
    )
    json_argument(listing, "the bots")
    listing.set_defaults(func=cmd_list)

    show = add_command(
        actions,
        "show",
        help="a bot's versions, ratings and recent matches",
        examples=examples("arena bot show heuristic_bot", "arena bot show heuristic_bot --json"),
    )
    show.add_argument("name")
    json_argument(show, "the bot")
    show.set_defaults(func=cmd_show)

    retire = add_command(
        actions,
        "retire",
        help="retire a bot: ladders leave it out, tournaments refuse it (owner or operator)",
        examples=examples("arena bot retire mybot", "ARENA_API_KEY=KEY arena bot retire mybot"),
    )
    retire.add_argument("name")
    retire.set_defaults(func=cmd_retire)

    new = add_command(
        actions,
        "new",
        help="write a starter bot folder to edit, then submit",
        examples=examples(
            "arena bot new mybot --game hollywood-gin",
            "arena bot new mybot --game rummy-500 --lang javascript",
        ),
    )
    new.add_argument("folder", type=Path, help="the folder to write (new, or empty)")
    game_argument(new)
    new.add_argument(
        "--lang",
        choices=tuple(STARTERS),
        default="python",
        help="the bot's language: python (bot.py), or javascript (bot.js, run by Node.js)",
    )
    new.set_defaults(func=cmd_new)


# -- commands ------------------------------------------------------------------------------


def _shown(name: str) -> str:
    """A bot name for a line of text: quoted and escaped when it was stored before the
    name rule and breaks it, so a newline or a bidi mark cannot garble the table."""
    return name if is_bot_name(name) else repr(name)


def _rating_text(rating: float | None, games: int) -> str:
    return "unrated" if rating is None else f"{rating:.1f} ({games} games)"


def store_version(store: Store, bot: BotPackage, name: str, game: str, owner: str) -> BotVersion:
    """Store ``bot`` as a version of the bot ``name`` (made for ``owner`` if new) playing
    ``game``: the same content again is the same version. No one's permission is asked:
    for the platform's own tools on a database of their own (the benchmarks); commands
    submit through :func:`arena.app.bots.submit`."""
    bot_id = store.add_bot(name, owner)
    runtime = app_bots.check_runtime(bot.runtime, bot.command)
    manifest = {"game": game, "command": bot.command, "archive": ARCHIVE_FORMAT, "runtime": runtime}
    return store.add_bot_version(bot_id, bot.archive, manifest, owner)


STARTER = '''"""A starter bot for {game}, written by `arena bot new`: it plays a legal action at
random. Make it better in `decide` (docs/bots.md shows the view and the helpers), try it
on this machine with `arena play` (docs/bots.md, "Quick play"), and submit the folder:

    arena bot submit {folder} --game {game}
"""

import random

from bots.sdk import Bot, Request, run


class StarterBot(Bot):
    def decide(self, request: Request) -> int | str:
        # request.view is what this seat sees; request.legal_actions what it may do now
        return random.randrange(len(request.legal_actions))


if __name__ == "__main__":
    run(StarterBot())  # one match, from ARENA_REFEREE and ARENA_TOKEN
'''
STARTER_MANIFEST = """# What the platform starts, in this folder (docs/bots.md): `arena bot run`
# loads bot.py and serves the matches the platform seats it in.
runtime = "python"
command = ["python", "-m", "arena", "bot", "run", "bot.py"]
"""
STARTER_JS = """// A starter bot for {game}, written by `arena bot new --lang javascript`: it plays
// a legal action at random. Make it better in `decide` (docs/bots.md, "A bot in
// JavaScript", shows what a decision holds), and submit the folder:
//
//     arena bot submit {folder} --game {game}
//
// The platform runs it with Node.js, where require("rummy-arena") is its SDK.
"use strict";

const {{ run }} = require("rummy-arena");

// decision.view is what this seat sees; decision.legal the texts of what it may do now.
// Return the index of one of them (or its text).
function decide(decision) {{
  return Math.floor(Math.random() * decision.legal.length);
}}

run(decide); // every match the platform seats it in (ARENA_REFEREE, ARENA_SESSION_KEY)
"""
STARTER_JS_MANIFEST = """# What the platform starts, in this folder (docs/bots.md): Node.js runs
# bot.js, which serves the matches the platform seats it in.
runtime = "node"
command = ["node", "bot.js"]
"""
#: What ``arena bot new --lang`` writes: the bot's file, its text and its manifest's.
STARTERS = {
    "python": ("bot.py", STARTER, STARTER_MANIFEST),
    "javascript": ("bot.js", STARTER_JS, STARTER_JS_MANIFEST),
}


def cmd_new(args: argparse.Namespace) -> int:
    """Write a starter bot folder: ``bot.py`` (or ``bot.js``) and its manifest."""
    from referee.engine import UnknownGameError
    from referee.games import get_game

    try:
        get_game(args.game)
    except UnknownGameError as exc:
        raise CommandError(str(exc)) from None
    folder: Path = args.folder
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise CommandError(f"{folder} exists and is not an empty folder: name a new one")
    name, text, manifest = STARTERS[args.lang]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text.format(game=args.game, folder=folder))
        (folder / MANIFEST_FILE).write_text(manifest)
    except OSError as exc:
        raise CommandError(f"cannot write {folder}: {exc.strerror}") from None
    print(f"wrote {folder / name} and {folder / MANIFEST_FILE}")
    print(f"check it with: {arena_command()} bot check {folder} --game {args.game}")
    print(f"submit it with: {arena_command()} bot submit {folder} --game {args.game}")
    return 0


def cmd_submit(args: argparse.Namespace) -> int:
    """Store a bot version; says whether the content was new."""
    path: Path = args.path
    name = args.name or (path.stem if path.is_file() else path.resolve().name)
    problem = bot_name_problem(name)
    if problem is not None:
        raise CommandError(problem if args.name else f"{problem}; give one with --name")
    bot = package(path)
    platform = remote()
    if platform is not None:
        with platform:
            done = platform.post(
                f"/bots/{name}/versions",
                {
                    "game": args.game,
                    "command": bot.command,
                    "archive": base64.b64encode(bot.archive).decode(),
                    "archive_format": ARCHIVE_FORMAT,
                    "owner": args.owner,
                    "runtime": bot.runtime,
                    "qualify": args.qualify,
                },
            )
            if args.wait and done["qualification"] == "qualifying":
                done = _wait_qualified(platform, name, done)
        return _print_submitted(done, json_out=args.json)

    def body(store: Store) -> int:
        actor = local_actor(store)
        submitted = app_bots.submit(
            store,
            actor,
            name=name,
            game=args.game,
            archive=bot.archive,
            command=bot.command,
            archive_format=ARCHIVE_FORMAT,
            owner=args.owner,
            runtime=bot.runtime,
            qualify=args.qualify,
        )
        version = submitted.version
        said = False
        if submitted.new and version.qualification == "qualifying":  # here: qualify it now
            if not args.json:
                print(_stored_line({**reads.version_dict(version), "new": True}))
                print(f'{version.label}: qualifying it here (docs/bots.md, "Qualification")')
                said = True
            _qualify_here(store, version.id)
            version = store.bot_version(version.id)
        done = {**reads.version_dict(version), "new": submitted.new}
        done["qualification_report"] = reads.qualification_report(store, version, logs=True)
        return _print_submitted(done, json_out=args.json, stored_said=said)

    return with_store(body)


def _qualify_here(store: Store, version_id: int) -> None:
    from worker import qualify
    from worker.sandbox import SandboxUnavailable

    try:
        qualify.run(store, version_id)
    except SandboxUnavailable as exc:
        raise CommandError(
            f"{exc}; the version is stored and stays qualifying: a worker that can confine "
            "it qualifies it (arena scheduler sends it)"
        ) from None


def _wait_qualified(platform: Any, name: str, done: dict[str, Any]) -> dict[str, Any]:
    """The submitted version as the platform shows it once its qualification is decided."""
    deadline = time.monotonic() + WAIT_S
    told, asked = "", 0.0
    while time.monotonic() < deadline:
        if time.monotonic() >= asked:  # whether anything will qualify it: said when it changes
            asked = time.monotonic() + PLAYING_EVERY_S
            playing = platform.get("/playing")
            line = playing["said"] if playing["workers"] == 0 else ""
            if line != told:
                print(f"{done['label']}: {line or 'a worker answers now'}", file=sys.stderr)
                told = line
        time.sleep(1.0)
        shown = platform.get(f"/bots/{quote(name, safe='')}")
        version = next(v for v in shown["versions"] if v["version"] == done["version"])
        if version["qualification"] != "qualifying":
            return {**done, **{k: version[k] for k in ("qualification", "qualification_report")}}
    raise CommandError(
        f"{done['label']} is still qualifying after {WAIT_S:.0f} s: are the platform's workers "
        f"running? arena bot show {name} says when it has qualified"
    )


def _stored_line(done: dict[str, Any]) -> str:
    """What was stored: a new version, or the same one again."""
    if done["new"]:
        return (
            f"stored {done['label']} ({done['game']}), sha256 "
            f"{done['content_hash'][:HASH_SHOWN]}: a new version"
        )
    return (
        f"{done['label']} ({done['game']}) already holds this content, sha256 "
        f"{done['content_hash'][:HASH_SHOWN]}: the same version, nothing stored"
    )


def _print_submitted(done: dict[str, Any], *, json_out: bool, stored_said: bool = False) -> int:
    """The submitted version (its stored line unless ``stored_said``); exit 1 when it
    failed its qualification."""
    failed = done["qualification"] == "failed"
    if json_out:
        print(json.dumps(done))
        return 1 if failed else 0
    if not stored_said:
        print(_stored_line(done))
    report = done.get("qualification_report")
    if done["new"] and report is not None:
        print_report(report, verdict=False)
    print(f"{done['label']}: {QUALIFICATION_SAID[done['qualification']]}")
    return 1 if failed else 0


#: How long ``arena bot submit --wait`` waits for a qualification (seconds).
WAIT_S = 900.0
#: How often it asks whether the platform's workers answer (seconds).
PLAYING_EVERY_S = 30.0
#: What each qualification means for the version, as ``arena bot submit`` and ``show`` say it.
QUALIFICATION_SAID = {
    "exempt": "exempt from qualification (an operator's): it plays",
    "qualifying": "qualifying: it plays once it has passed (arena bot show tells)",
    "qualified": "qualified: it plays",
    "failed": "failed its qualification: it plays no matches (fix it, check it with "
    "arena bot check, submit again)",
}


def cmd_retire(args: argparse.Namespace) -> int:
    """Retire a bot (its owner or an operator)."""
    platform = remote()
    if platform is not None:
        with platform:
            return _print_retired(platform.post(f"/bots/{quote(args.name, safe='')}/retire"))

    def body(store: Store) -> int:
        retired = app_bots.retire(store, local_actor(store), args.name)
        when = retired.bot.retired_at
        return _print_retired(
            {
                "name": retired.bot.name,
                "retired_at": None if when is None else when.isoformat(timespec="seconds"),
                "already": retired.already,
            }
        )

    return with_store(body)


def _print_retired(done: dict[str, Any]) -> int:
    when = done["retired_at"]
    since = "" if when is None else f", on {when[:16].replace('T', ' ')}"
    if done["already"]:
        print(f"{_shown(done['name'])} was retired already{since}")
    else:
        print(
            f"retired {_shown(done['name'])}: ladders leave it out and new tournaments "
            "refuse it (matches already queued still play); a new version brings it back"
        )
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """Print every bot with its versions count, latest version, game and Elo."""
    platform = remote()
    if platform is not None:
        with platform:
            return print_bots(list(platform.items("/bots")), json_out=args.json)
    return with_store(
        lambda store: print_bots(reads.bots(store, local_actor(store)), json_out=args.json)
    )


def print_bots(bots: list[dict[str, Any]], *, json_out: bool) -> int:
    """Print the bots as :func:`arena.app.reads.bots` gives them."""
    if json_out:
        print(json.dumps(bots))
        return 0
    if not bots:
        print("no bots yet (arena bot submit PATH --game GAME)")
        return 0
    print_table(
        plain_table(
            ("bot", "versions", "latest", "game", "elo"),
            (
                (
                    _shown(b["name"]),
                    str(b["versions"]),
                    f"v{b['latest']}",
                    b["game"],
                    _rating_text(b["elo"], b["games"]),
                )
                for b in bots
            ),
        )
    )
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """Print a bot's versions with their Elo, and its recent matches."""
    platform = remote()
    if platform is not None:
        with platform:
            return print_bot(platform.get(f"/bots/{quote(args.name, safe='')}"), json_out=args.json)
    return with_store(
        lambda store: print_bot(reads.bot(store, local_actor(store), args.name), json_out=args.json)
    )


def print_bot(bot: dict[str, Any], *, json_out: bool) -> int:
    """Print a bot's page as :func:`arena.app.reads.bot` gives it."""
    if json_out:
        print(json.dumps(bot))
        return 0
    marks = [f"owner {bot['owner']}"]
    if bot["house"]:
        marks.append("a house bot")
    if bot["retired_at"] is not None:
        marks.append(f"retired {bot['retired_at'][:10]}")
    print(f"{_shown(bot['name'])} ({', '.join(marks)})")
    if bot.get("sandbox") == "off":
        print(UNCONFINED)
    print_table(
        plain_table(
            ("version", "sha256", "game", "submitted", "by", "qualification", "elo"),
            (_version_row(v) for v in bot["versions"]),
        )
    )
    for v in bot["versions"]:  # why a version failed: its report (stderr for its owner)
        report = v.get("qualification_report")
        if v["qualification"] == "failed" and report is not None:
            print(f"v{v['version']} failed its qualification:")
            print_report(report, verdict=False)
    recent = sorted(
        ((v["version"], m) for v in bot["versions"] for m in v["recent_matches"]),
        key=lambda vm: (-vm[1]["match"], vm[1]["seat"]),
    )[:RECENT_MATCHES]
    if not recent:
        print("no matches yet")
        return 0
    print("recent matches:")
    print_table(
        plain_table(
            ("match", "version", "game", "state", "seat", "place", "score", "status"),
            (
                (
                    str(m["match"]),
                    f"v{v}",
                    m["game"],
                    m["state"],
                    str(m["seat"]),
                    "" if m["rank"] is None else "forfeited" if m["forfeit"] else place(m["rank"]),
                    "" if m["score"] is None else str(m["score"]),
                    m["status"] or "",
                )
                for v, m in recent
            ),
        )
    )
    return 0


def _version_row(v: dict[str, Any]) -> tuple[str, ...]:
    when = v["submitted_at"]
    return (
        f"v{v['version']}",
        v["content_hash"][:HASH_SHOWN],
        v["game"],
        "" if when is None else when[:16].replace("T", " "),
        v["submitted_by"],
        v["qualification"],
        _rating_text(v["elo"], v["games"]),
    )


def print_report(report: dict[str, Any], *, verdict: bool = True) -> None:
    """The report as text: a line per match (a chosen deal's by its file and the bot's
    seat), what went wrong and (``verdict``) whether the bot may be submitted."""
    shown = [(f"{m['seats']} seats", m) for m in report["matches"]]
    shown += [(f"{m['deal']}, seat {m['seat']}", m) for m in report.get("deals", ())]
    for label, m in shown:
        print(f"{label}: {m['status']}")
        if m["ok"]:
            continue
        print(f"  why: {m['reason']}")
        decision = m.get("decision")
        if decision is not None:
            print(f"  failed on action {decision['action']} ({decision['source']}); it was given:")
            print("  view: " + json.dumps(decision["view"], sort_keys=True))
            print("  legal actions: " + ", ".join(decision["legal_actions"]))
        if m.get("stderr"):
            print("  its standard error ended:")
            for line in m["stderr"].rstrip().splitlines()[-20:]:
                print(f"    {line}")
    if not verdict:
        return
    if report["qualified"]:
        print(f"qualified for {report['game']}: it may be submitted")
    else:
        print(f"not qualified for {report['game']}: fix it, check it again, then submit")
