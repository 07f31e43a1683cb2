"""``arena bot check PATH --game GAME``: the qualification a bot must pass, run on this
machine before submitting it (docs/bots.md, "Checking a bot"). No database.

The bot is packed as ``arena bot submit`` packs it and checked as a submission is (its
manifest, entry point, files, limits), then hosted as a worker hosts it: a bot pool, in
the sandbox (or unconfined where ``ARENA_SANDBOX=off``), with a referee of its own. It
plays one short match at each seat count its game allows, at seat 0, against the random
bot at the other seats, with the platform's clock. It passes when it joined and every
one of its seats ended ``ok``: it answered every decision legally and in time. A failure
is reported with the referee's status for the seat, the decision it failed on (its view
and the legal actions it was given) and the tail of what the bot wrote to its standard
error."""

from __future__ import annotations

import argparse
import dataclasses
import json
import secrets
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.app import bots as app_bots
from arena.app.errors import Invalid
from arena.cli import CommandError
from arena.commands import add_command, bot_actions, examples, game_argument, json_argument

if TYPE_CHECKING:
    from arena.commands.bot import BotPackage

RANDOM_BOT = Path(__file__).resolve().parents[2] / "bots" / "examples" / "random_bot.py"
#: The longest a qualification match may take (seconds), and the tail of the bot's
#: standard error a failure shows (characters).
MATCH_S = 300.0
STDERR_SHOWN = 4000
#: The options of a qualification match: one hand (one round of Flip Flop) is enough to
#: see a bot join, answer and finish.
SHORT = {"flip-flop": {"max_rounds": 1}}
ONE_HAND = {"max_hands": 1}


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena bot check``."""
    check = add_command(
        bot_actions(sub),
        "check",
        help="run a bot's qualification here before submitting it: one match at each seat "
        "count, against the random bot, hosted as a worker hosts it",
        examples=examples(
            "arena bot check mybot/ --game hollywood-gin",
            "arena bot check my_bot.py --game rummy-500 --json",
        ),
    )
    check.add_argument("path", type=Path, help="a Python bot file, or a folder with a manifest")
    game_argument(check)
    json_argument(check, "the qualification report")
    check.set_defaults(func=cmd_check)


@dataclasses.dataclass(frozen=True, slots=True)
class _Version:
    label: str
    manifest: dict[str, Any]


class _Versions:
    """The two versions a check hosts: the bot (1) and the random bot (2)."""

    def __init__(self, archive: bytes, command: list[str], random: BotPackage) -> None:
        self.archives: dict[int, bytes] = {1: archive, 2: random.archive}
        self.versions = {
            1: _Version("candidate", {"command": command}),
            2: _Version("random_bot", {"command": random.command}),
        }

    def bot_version(self, version_id: int) -> _Version:
        return self.versions[version_id]

    def bot_archive(self, version_id: int) -> bytes:
        return self.archives[version_id]


def cmd_check(args: argparse.Namespace) -> int:
    """Qualify the bot at ``args.path``; exit 0 when it passes, 1 when it fails."""
    from arena.commands.bot import package
    from referee.engine import UnknownGameError
    from referee.games import get_game

    try:
        spec = get_game(args.game)
    except UnknownGameError as exc:
        raise CommandError(str(exc)) from None
    bot = package(args.path)
    try:  # the checks of a submission, with their words
        app_bots.check_command(bot.command)
        app_bots.check_entry_point(bot.command, app_bots.check_archive(bot.archive))
    except Invalid as exc:
        raise CommandError(str(exc)) from None
    report = qualify(bot.archive, bot.command, args.game, range(spec.min_seats, spec.max_seats + 1))
    if args.json:
        print(json.dumps(report))
    else:
        print_report(report)
    return 0 if report["qualified"] else 1


def qualify(archive: bytes, command: list[str], game: str, seat_counts: range) -> dict[str, Any]:
    """Host the bot and play its qualification matches; the report (docs/bots.md)."""
    from arena.commands.bot import package
    from referee import settings
    from referee.clock import ClockRules
    from referee.wire import decode_record
    from worker import sandbox
    from worker.pool import BotPool, BotStartError
    from worker.referee_link import LocalReferee, RefereeLink

    try:
        box = sandbox.configure(settings.sandbox_mode())
    except sandbox.SandboxUnavailable as exc:
        raise CommandError(str(exc)) from None
    versions = _Versions(archive, command, package(RANDOM_BOT))
    referee = LocalReferee()
    link = RefereeLink(referee.address, referee.secret, referee.socket)
    matches: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="arena-check-") as root:
        pool = BotPool(versions, link, root=Path(root), sandbox=box)
        try:
            for seats in seat_counts:
                match_id = f"check-{seats}-{secrets.token_hex(4)}"
                names = ["candidate", *(f"random_bot {i}" for i in range(1, seats))]
                try:
                    sessions = [pool.session(1), *(pool.session(2) for _ in range(1, seats))]
                    faults = [""] * seats
                except BotStartError as exc:  # the bot cannot start: its seat forfeits
                    sessions = ["", *(pool.session(2) for _ in range(1, seats))]
                    faults = [str(exc), *([""] * (seats - 1))]
                mark = pool.log_mark(1)
                link.create_match(
                    match_id,
                    game,
                    SHORT.get(game, ONE_HAND),
                    secrets.randbits(63),
                    names,
                    sessions,
                    ClockRules(),
                    faults,
                )
                reply = link.wait(match_id, MATCH_S)
                record = decode_record(reply.record_data)
                link.release(match_id)
                matches.append(_match_report(record, seats, faults[0], pool, mark))
                if not matches[-1]["ok"]:
                    break  # one failure is the report: the next matches would repeat it
        finally:
            pool.close()
            link.close()
            referee.stop()
    return {
        "game": game,
        "qualified": bool(matches) and all(m["ok"] for m in matches),
        "sandbox": box.mode,
        "matches": matches,
    }


def _match_report(
    record: Any, seats: int, fault: str, pool: Any, mark: int | None
) -> dict[str, Any]:
    """One qualification match: its seat 0's status and, when not ``ok``, why."""
    seat = record.seats[0]
    out: dict[str, Any] = {"seats": seats, "status": seat.status, "ok": seat.status == "ok"}
    if out["ok"]:
        return out
    out["reason"] = fault or _reason(seat.status, pool.exit_note(1))
    out["decision"] = _failed_decision(record)
    out["stderr"] = pool.log_since(1, mark)[-STDERR_SHOWN:]
    return out


def _reason(status: str, exit_note: str | None) -> str:
    said = {
        "timeout": "it did not answer a decision within its time",
        "invalid": "it answered a decision with an action that is not legal",
        "crashed": "it reported an error instead of an answer",
        "disconnected": "it never joined its match, or left it before the end",
    }.get(status, status)
    return said + (f" ({exit_note})" if exit_note else "")


def _failed_decision(record: Any) -> dict[str, Any] | None:
    """The first decision seat 0 did not answer well: its view and legal actions, found
    by re-running the engine on the record to that point; None if it failed before any
    decision (it never joined)."""
    from google.protobuf.json_format import MessageToDict

    from referee.record import new_state, replay
    from referee.wire.views import view_to_proto

    position = next(
        (
            i
            for i, a in enumerate(record.actions)
            if a.seat == 0 and a.source != "bot" and a.source != "forced"
        ),
        None,
    )
    if position is None:
        return None
    state = new_state(record)
    for _ in replay(state, (a.index for a in record.actions[:position])):
        pass
    return {
        "action": position,
        "view": MessageToDict(view_to_proto(state.view(0))),
        "legal_actions": [str(a) for a in state.legal_actions()],
        "referee_chose": record.actions[position].text,
        "source": record.actions[position].source,
    }


def print_report(report: dict[str, Any]) -> None:
    """The report as text: a line per match, and what went wrong."""
    for m in report["matches"]:
        print(f"{m['seats']} seats: {m['status']}")
        if m["ok"]:
            continue
        print(f"  why: {m['reason']}")
        decision = m.get("decision")
        if decision is not None:
            print(f"  failed on action {decision['action']} ({decision['source']}); it was given:")
            print("  view: " + json.dumps(decision["view"], sort_keys=True))
            print("  legal actions: " + ", ".join(decision["legal_actions"]))
        if m["stderr"]:
            print("  its standard error ended:")
            for line in m["stderr"].rstrip().splitlines()[-20:]:
                print(f"    {line}")
    if report["qualified"]:
        print(f"qualified for {report['game']}: it may be submitted")
    else:
        print(f"not qualified for {report['game']}: fix it, check it again, then submit")
