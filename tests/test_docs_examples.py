"""The examples in README.md and docs/*.md work as shown.

Every fenced block of those files is accounted for here: a command line (``arena …``,
``python …``, ``make …``) is either run (:data:`RUN`, some shortened, each saying why)
or listed as not run with the reason (:data:`NOT_RUN`); Python sessions (``>>>``) run as
doctests; a Python block that defines a bot is loaded, its one ``Bot`` subclass found and
played; a block ending in ``# <repr>`` is run and its last expression compared; any
other block is listed in :data:`BLOCKS_NOT_RUN`, or its shown output is compared with
what the code prints today (:data:`SHOWN_OUTPUTS`, and a command written ``$ arena …``
followed by its output). A new example that is none of these fails until it is sorted.

``.venv/bin/python -m tests.test_docs_examples --write`` rewrites the outputs the docs show
(the settings table of docs/operations.md, the output after each ``$ arena …`` line)
from what the code prints today; review the diff.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from referee import settings
from tests.store_fixtures import LOCAL_URL, create_database, drop_database
from worker.db import redact_url

pytest_plugins = ["tests.store_fixtures"]

ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
BIN = Path(sys.executable).parent
#: The URL the docs show for the database a command ran on.
SHOWN_URL = "postgresql://postgres@127.0.0.1:5432/arena"


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its tag (``sh``, ``python``, or empty), its lines."""

    path: Path
    line: int
    tag: str
    lines: tuple[str, ...]
    #: the paragraph line just before the block (a quoted file is introduced as ``path``:)
    before: str

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of ``path``, their indentation removed."""
    lines = path.read_text().splitlines()
    found, i = [], 0
    while i < len(lines):
        opening = re.fullmatch(r"(\s*)```(\w*)\s*", lines[i])
        if opening is None:
            i += 1
            continue
        indent, end = len(opening.group(1)), i + 1
        while not re.fullmatch(r"\s*```\s*", lines[end]):
            end += 1
        before = next((line for line in reversed(lines[:i]) if line.strip()), "")
        body = tuple(line[indent:] for line in lines[i + 1 : end])
        found.append(Block(path, i + 1, opening.group(2), body, before.strip()))
        i = end + 1
    return found


def all_blocks() -> list[Block]:
    return [b for path in DOCS for b in blocks(path)]


#: The tags of blocks whose lines may be commands (``$ …`` followed by its output).
SHELL = ("", "sh", "text", "console")
_COMMAND = re.compile(r"(\$ )?((?:[A-Z_]+=\S+ )*)(\.venv/bin/)?(arena|python|make)( .*)?")


def command(line: str) -> str | None:
    """The command a shell line runs, without its comment, ``$ `` and ``.venv/bin/``."""
    match = _COMMAND.fullmatch(re.sub(r"\s+#.*", "", line).strip())
    if match is None:
        return None
    return " ".join((match.group(2) + match.group(4) + (match.group(5) or "")).split())


@dataclass(frozen=True)
class Run:
    """How a documented command is run here, and what that checks."""

    why: str
    #: the command line that replaces the documented one, its program left out (``None``:
    #: as documented)
    argv: str | None = None
    #: run on an empty, migrated scratch database (``ARENA_DATABASE_URL``)
    database: bool = False
    #: files the command names, written first: name -> the doc block or file that holds it
    files: dict[str, str] = field(default_factory=dict)
    #: a check of the standard output
    check: Callable[[str], None] | None = None
    #: the command is shown refusing: it must fail, and its standard error is its output
    fails: bool = False


def _json_matches(out: str) -> None:
    data = json.loads(out)
    assert len(data["matches"]) == 3 and len(data["bots"]) == 3, data


#: The commands run here, by their text in the docs.
RUN: dict[str, Run] = {
    "arena --help": Run("every command's name and help line"),
    "arena sheet --seed 7": Run("one Hollywood Gin match in-process prints its score sheet"),
    "arena play bots/examples/random_bot.py bots/examples/heuristic_bot.py --games 10": Run(
        "local matches between the example bots (2 games instead of 10)",
        "play bots/examples/random_bot.py bots/examples/heuristic_bot.py --games 2",
    ),
    "arena play mybot.py bots/examples/heuristic_bot.py --games 20": Run(
        "the ten-line bot of docs/bots.md as mybot.py (2 games instead of 20)",
        "play mybot.py bots/examples/heuristic_bot.py --games 2",
        files={"mybot.py": "bots.md: The ten-line bot"},
    ),
    "arena play a.py b.py c.py --game gin-three --games 9 --duplicate --seed 7 --json": Run(
        "three example bots as a.py, b.py, c.py (one rotation of one-hand matches)",
        "play a.py b.py c.py --game gin-three --games 3 --option max_hands=1 --duplicate --seed 7"
        " --json",
        files={
            "a.py": "bots/examples/random_bot.py",
            "b.py": "bots/examples/minimal_bot.py",
            "c.py": "bots/examples/heuristic_bot.py",
        },
        check=_json_matches,
    ),
    "arena play bots/examples/heuristic_bot.py bots/examples/random_bot.py --deal deal.toml"
    " --games 2": Run(
        "two matches from the chosen deal of docs/bots.md",
        files={"deal.toml": "bots.md: Chosen deals"},
    ),
    "arena bot check bots/examples/heuristic_bot.py --deal deal.toml": Run(
        "the heuristic bot's qualification, and the chosen deal of docs/bots.md at both seats",
        files={"deal.toml": "bots.md: Chosen deals"},
    ),
    "arena play a.py b.py --option max_hands=0": Run(
        "a bad option is refused in one line (output compared)",
        files={"a.py": "bots/examples/random_bot.py", "b.py": "bots/examples/minimal_bot.py"},
        fails=True,
    ),
    "python -m worker.sprt": Run(
        "the SPRT simulation's table (5 duels a row instead of 400)",
        "-m worker.sprt --duels 5",
    ),
    "python -m worker.sprt --elo1 20 --duels 200": Run(
        "the same with elo1 20 (5 duels a row instead of 200)",
        "-m worker.sprt --elo1 20 --duels 5",
    ),
    "arena db migrate": Run("migrates an empty database (output compared)", database=True),
    "arena bot submit bots/examples/heuristic_bot.py --game hollywood-gin": Run(
        "stores a bot version in a scratch database", database=True
    ),
    "arena bot list": Run("lists the bots of a scratch database", database=True),
    "arena leaderboard --game hollywood-gin": Run("an empty leaderboard", database=True),
    "arena ratings show --game hollywood-gin": Run("an empty Elo table", database=True),
    "arena ladder status": Run("no ladders in a scratch database", database=True),
    "arena user create ann": Run("makes a user and prints their key, once", database=True),
    "arena user create ops --operator --json": Run("makes an operator", database=True),
    "arena user list": Run("the platform's own user alone in a scratch database", database=True),
}

#: Commands not run here, by how they start, and why.
NOT_RUN: dict[str, str] = {
    "make demo": "the whole platform, four tournaments (tests/test_platform.py runs the demo)",
    "make test": "the whole suite and its gates",
    "make golden": "rewrites tests/golden/",
    "make bench": "benchmarks, and installs OpenSpiel",
    "arena bench": "benchmarks that take seconds to minutes (tests/test_bench_cli.py runs them "
    "shortened)",
    "python - <<": "a benchmark of the rating fits: seven fits of 400 players",
    "python -m worker.pairing": "simulates ladders of 12 pools until they settle: minutes",
    "arena tournament": "needs Redis and a worker: a server and minutes "
    "(tests/test_tournament_cli.py plays tournaments)",
    "arena gauntlet": "needs Redis and a worker, and plays many matches",
    "arena duel": "needs Redis and a worker, and plays until the SPRT decides",
    "arena match log": "needs a match played by a worker's hosted bot "
    "(tests/test_match_logs.py reads one)",
    "arena ladder start": "runs a ladder until stopped (or for a minute) with Redis and a worker",
    "arena status": "an illustration of a platform of two hosts; tests/test_status.py checks it",
    "arena ladder stop": "stops a running ladder",
    "arena worker": "a server: runs until stopped",
    "arena web": "a server: runs until stopped",
    "arena up": "a platform: runs until stopped (tests/test_up.py runs it)",
    "arena replay": "needs a played match in the store",
    "arena export": "needs a played match in the store",
    "arena analyse": "needs a played match in the store (tests/test_analysis.py analyses one "
    "with the command)",
    "arena scheduler": "a server: runs until stopped",
    "arena referee": "a server: runs until stopped",
    "arena match create": "needs a running referee",
    "arena match get": "needs a running referee and a match on it",
    "arena match show": "needs a played match in the store",
    "arena bot run": "needs a running referee and a seat token or session key",
    "arena bot new": "writes the reader's folder; tests/test_starter_bot.py runs it and plays "
    "what it writes",
    "ARENA_REFEREE=": "needs a running referee and a seat token or session key",
    "arena verify": "needs a record fetched from a referee (`arena match get`) or a finished "
    "match in the store (tests/test_deals.py verifies matches)",
    "arena bot show": "needs the submitted bot's name in the store; `arena bot submit` is run",
    "arena bot submit mybot.py": "the reader's own bot; the example bots' submit is run",
    "arena bot submit ./mybot": "the reader's own bot folder",
    "arena bot submit bots/examples/": "the tournament walk-through's first step; the README's "
    "`arena bot submit` of an example bot is run",
    "arena bot check": "the reader's own bot; tests/test_bot_check.py checks bots that pass, "
    "crash, never answer and do not compile, and bots on chosen deals",
    "arena bot retire": "needs the reader's bot in the store (tests/test_users.py retires bots)",
    "arena user key": "needs a user made first (tests/test_users.py makes, lists and revokes keys)",
    "arena login": "needs a platform served by `arena web` and a key (tests/test_remote.py "
    "logs in to one)",
    "ARENA_API_KEY=": "KEY stands for a key `arena user create` printed (tests/test_users.py "
    "submits with keys)",
    "ARENA_PLATFORM=": "needs a platform served by `arena web` and its workers "
    "(tests/test_remote.py submits with --wait to one)",
}

#: Blocks that are neither commands nor runnable code, and why they are not checked here.
BLOCKS_NOT_RUN: dict[tuple[str, str], str] = {
    ("engine.md", "state = (state"): "pseudo-code of SplitMix64; tests/test_cards.py checks "
    "its published outputs",
    ("engine.md", "r = rng.below("): "a fragment of SplitMix64.shuffle (its variables come "
    "from around it); tests/test_cards.py writes the algorithm out a second time",
    ("bots.md", 'command = ["python"'): "a fragment of a bot folder's manifest",
    ("bots.md", 'game = "hollywood-gin"'): "the deal file that the next block's `arena play "
    "--deal deal.toml` plays (RUN writes it)",
    ("operations.md", "pg_dump --format"): "a backup of a server's database; "
    "tests/test_operations.py runs the same pg_dump and pg_restore and compares the platform "
    "before and after",
    ("operations.md", "createdb -h"): "a restore on a server; tests/test_operations.py "
    "runs the same pg_restore",
    ("protocol.md", "bot  "): "a diagram",
    ("protocol.md", "platform  "): "a diagram",
    ("protocol.md", "seat 1 -> referee"): "checked by tests/test_protocol_transcript.py",
    ("protocol.md", "platform -> referee"): "checked by tests/test_protocol_transcript.py",
    ("performance.md", "# PYTHONHASHSEED=0 valgrind"): "measured under valgrind (callgrind)",
    ("performance.md", "git worktree add /tmp/refold"): "alternating benches of two checkouts "
    "(minutes of measuring, on a quiet machine)",
    ("performance.md", "for pair in 1 2 3 4 5; do for tree in /tmp/before"): "alternating "
    "engine benches of two checkouts (minutes of measuring, on a quiet machine)",
    ("duels.md", "24 games"): "the output of an `arena duel` on the platform",
    ("viewer.md", "{"): "the export of a played match (`arena export`)",
    ("api.md", '{"error": {"code": "invalid"'): "an API error; tests/test_api.py checks "
    "this one's code, field and message (test_errors_name_the_field_and_nothing_is_stored)",
    ("api.md", "curl -s http://127.0.0.1:8000"): "needs `arena web` serving a platform; "
    "tests/test_api.py makes these requests",
}


def _closed_port_error(env: dict[str, str]) -> str:
    """`arena db migrate` on a server that is not there, as the docs show it: its URL,
    and the data folder under ``~``."""
    env = {k: v for k, v in env.items() if k not in ("ARENA_HOME", "XDG_DATA_HOME")}
    env["ARENA_DATABASE_URL"] = "postgresql://arena:secret@127.0.0.1:9/arena"
    done = _run(["arena", "db", "migrate"], env, ROOT, expect_failure=True)
    shown = done.replace("127.0.0.1:9/", "127.0.0.1:5432/")
    return shown.replace(str(settings.default_home()), "~/.local/share/rummy-arena")


#: Blocks that show an output, by (doc, first line): what makes that output today.
SHOWN_OUTPUTS: dict[tuple[str, str], Callable[[dict[str, str]], str]] = {
    ("storage.md", "arena db migrate: cannot reach Postgres"): _closed_port_error,
}


def _key(block: Block) -> tuple[str, str] | None:
    first = block.lines[0] if block.lines else ""
    for table in (BLOCKS_NOT_RUN, SHOWN_OUTPUTS):
        for key in table:
            if block.path.name == key[0] and first.startswith(key[1]):
                return key
    return None


def _not_run_reason(cmd: str) -> str | None:
    starts = [p for p in NOT_RUN if cmd.startswith(p)]
    return NOT_RUN[max(starts, key=len)] if starts else None


def _commands() -> Iterator[tuple[Block, int, str]]:
    """(block, index of the line, command) for each command line of a shell block."""
    for block in all_blocks():
        if block.tag not in SHELL or _key(block) is not None:
            continue
        prompted = any(line.startswith("$ ") for line in block.lines)
        for i, line in enumerate(block.lines):
            cmd = command(line)
            # in a block of `$ command` lines and their output, only those lines are commands
            if cmd is not None and (line.startswith("$ ") or not prompted):
                yield block, i, cmd


def _shown_output(block: Block, i: int) -> str | None:
    """The output shown after a ``$ command`` line, up to the next command."""
    if not block.lines[i].startswith("$ "):
        return None
    rest = []
    for line in block.lines[i + 1 :]:
        if line.startswith("$ "):
            break
        rest.append(line)
    return "\n".join(rest) + "\n"


def _same(shown: str, actual: str) -> bool:
    """``actual`` is what ``shown`` shows: the same words, ``…`` standing for any text."""
    parts = [re.escape(" ".join(p.split())) for p in shown.split("…")]
    return re.fullmatch(r"\s*" + ".*?".join(parts) + r"\s*", " ".join(actual.split())) is not None


# -- the bookkeeping ------------------------------------------------------------------------


def test_every_command_in_the_docs_is_run_or_listed_with_a_reason() -> None:
    unsorted = [
        f"{block.name}: {cmd}"
        for block, _i, cmd in _commands()
        if cmd not in RUN and _not_run_reason(cmd) is None
    ]
    assert not unsorted, (
        "commands in the docs that this test neither runs (RUN) nor lists as not run "
        "(NOT_RUN, with the reason):\n  " + "\n  ".join(unsorted)
    )
    shown = {cmd for _b, _i, cmd in _commands()}
    assert not set(RUN) - shown, f"RUN lists commands no doc shows: {set(RUN) - shown}"


def test_every_other_block_is_checked_or_listed_with_a_reason() -> None:
    unsorted = []
    for block in all_blocks():
        if _key(block) is not None or block.tag == "python":
            continue
        if block.tag in SHELL and any(command(line) for line in block.lines):
            continue
        unsorted.append(f"{block.name}: {block.lines[0] if block.lines else ''}")
    assert not unsorted, "blocks neither checked nor listed (BLOCKS_NOT_RUN):\n  " + "\n  ".join(
        unsorted
    )
    keys = {_key(b) for b in all_blocks()}
    stale = (set(BLOCKS_NOT_RUN) | set(SHOWN_OUTPUTS)) - keys
    assert not stale, f"listed blocks no doc shows any more: {stale}"


def test_commands_run_with_the_projects_python() -> None:
    # a bare `python` is whichever the reader's shell finds, without the project's packages
    bare = [
        f"{block.name}: {block.lines[i]}"
        for block, i, cmd in _commands()
        if re.match(r"([A-Z_]+=\S+ )*python\b", cmd) and ".venv/bin/python" not in block.lines[i]
    ]
    assert not bare, "write `.venv/bin/python` (or `arena bot run`):\n  " + "\n  ".join(bare)


def test_the_settings_table_lists_every_setting() -> None:
    text = (ROOT / "docs" / "operations.md").read_text()
    assert settings.markdown_table() in text, (
        "docs/operations.md's settings table is not referee.settings.VARIABLES: rewrite it "
        "with `.venv/bin/python -m tests.test_docs_examples --write`"
    )


def test_the_readme_layout_names_every_folder() -> None:
    text = (ROOT / "README.md").read_text()
    table = text[text.index("## Layout") :]
    named = set(re.findall(r"^\| `([\w.-]+)/` \|", table, re.M))
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    folders = {p.split("/")[0] for p in tracked if "/" in p and not p.startswith(".")}
    assert named == folders, f"README's layout names {sorted(named)}, the repository has " + str(
        sorted(folders)
    )
    for path in re.findall(r"`([\w./-]+/)`", table):
        assert (ROOT / path).is_dir(), f"README's layout names {path}, which does not exist"


def test_links_between_the_docs_resolve() -> None:
    broken = []
    for path in DOCS:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text()):
            if "://" not in target and not (path.parent / target).exists():
                broken.append(f"{path.relative_to(ROOT)}: {target}")
    assert not broken, "links to nothing:\n  " + "\n  ".join(broken)


# -- Python ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_python_sessions_run_as_shown(path: Path) -> None:
    sessions = [b for b in blocks(path) if b.tag == "python" and b.text.lstrip().startswith(">>>")]
    if not sessions:
        return
    globs: dict[str, object] = {}  # one session per doc: later blocks use earlier imports
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    report: list[str] = []
    for block in sessions:
        test = parser.get_doctest(block.text, globs, block.name, str(path), block.line)
        runner.run(test, out=report.append, clear_globs=False)
        globs = test.globs
    assert not runner.failures, "".join(report)


def _python_blocks() -> list[Block]:
    return [
        b
        for b in all_blocks()
        if b.tag == "python"
        and not b.text.lstrip().startswith(">>>")
        and _key(b) not in BLOCKS_NOT_RUN
    ]


@pytest.mark.parametrize("block", _python_blocks(), ids=lambda b: b.name)
def test_python_blocks_run(block: Block) -> None:
    from bots.examples.random_bot import RandomBot
    from bots.sdk import Bot
    from bots.sdk.local import play_local

    last = block.lines[-1]
    if last.startswith("# ") and re.fullmatch(r"# \w+\(.*\)", last):
        # the block's last expression, and its repr shown in a comment
        *body, expression = [line for line in block.lines[:-1] if line.strip()]
        scope: dict[str, object] = {}
        exec("\n".join(body), scope)
        assert repr(eval(expression, scope)) == last[2:], f"{block.name} shows {last[2:]}"
        return
    scope = {"__name__": "docs_example"}
    exec(block.text, scope)
    bots = [v for v in scope.values() if isinstance(v, type) and issubclass(v, Bot) and v != Bot]
    assert len(bots) == 1, f"{block.name} should define one Bot subclass, defines {bots}"
    result = play_local("hollywood-gin", 7, [bots[0](), RandomBot(seed=1)], {"max_hands": 1})
    assert sorted(result.ranks)[0] == 0
    quoted = re.fullmatch(r"`([\w/.]+\.py)`:", block.before)
    if quoted:
        assert block.text in (ROOT / quoted.group(1)).read_text(), (
            f"{block.name} quotes {quoted.group(1)}, which says otherwise now"
        )


# -- commands -------------------------------------------------------------------------------


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env.update(ARENA_HOME=str(tmp_path / "home"), OPENBLAS_NUM_THREADS="1", COLUMNS="120")
    return env


def _run(argv: list[str], env: dict[str, str], cwd: Path, *, expect_failure: bool = False) -> str:
    """Run ``argv`` (``arena …`` or ``python …``, the project's); its standard output, or
    its standard error when it is expected to fail."""
    done = subprocess.run(
        [str(BIN / argv[0]), *argv[1:]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if expect_failure:
        assert done.returncode != 0, f"{argv} should fail"
        return done.stderr
    assert done.returncode == 0, f"{shlex.join(argv)} failed ({done.returncode}):\n{done.stderr}"
    return done.stdout


def _source(name: str, tag: str = "python") -> str:
    """A file of the repository, or ``DOC: HEADING``: the first block tagged ``tag``
    under that heading of ``docs/DOC``."""
    if ": " not in name:
        return (ROOT / name).read_text()
    doc, heading = name.split(": ")
    after = (ROOT / "docs" / doc).read_text().split(f"## {heading}\n", 1)[1]
    return next(b for b in blocks(ROOT / "docs" / doc) if b.tag == tag and b.text in after).text


@pytest.fixture
def scratch_db(pg_admin_url: str) -> Iterator[str]:
    name, url = create_database(pg_admin_url)
    try:
        yield url
    finally:
        drop_database(pg_admin_url, name)


@pytest.mark.parametrize("cmd", list(RUN), ids=lambda c: c[:60])
def test_documented_commands_run(cmd: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    run = RUN[cmd]
    url = request.getfixturevalue("scratch_db") if run.database else None
    out = _perform(cmd, tmp_path, url)
    if run.check is not None:
        run.check(out)
    for block, i, shown_cmd in _commands():
        shown = _shown_output(block, i)
        if shown_cmd == cmd and shown is not None:
            assert _same(shown, out), (
                f"{block.name} shows\n{shown}\n`{cmd}` prints today\n{out}\nrewrite it with "
                "`.venv/bin/python -m tests.test_docs_examples --write` and review the diff"
            )


def _perform(cmd: str, work: Path, database_url: str | None) -> str:
    """Run a command of :data:`RUN` in ``work``; what it prints (its standard error when
    it is shown failing), the database's URL written as the docs show it."""
    run = RUN[cmd]
    env = _env(work)
    if database_url is not None:
        env["ARENA_DATABASE_URL"] = database_url
    argv = shlex.split(cmd)
    if run.argv is not None:
        argv = argv[:1] + shlex.split(run.argv)
    cwd = ROOT
    if run.files:  # the files it names, beside the repository's bots/
        cwd = work
        (work / "bots").symlink_to(ROOT / "bots")
        for name, source in run.files.items():
            (work / name).write_text(
                _source(source, "toml" if name.endswith(".toml") else "python")
            )
    return _normalise_url(_run(argv, env, cwd, expect_failure=run.fails), database_url)


def _normalise_url(out: str, url: str | None) -> str:
    if url is None:
        return out
    return out.replace(redact_url(url), SHOWN_URL).replace(url, SHOWN_URL)


@pytest.mark.parametrize("key", list(SHOWN_OUTPUTS), ids=lambda k: f"{k[0]}: {k[1]}")
def test_shown_outputs_are_what_the_code_prints(key: tuple[str, str], tmp_path: Path) -> None:
    block = next(b for b in all_blocks() if _key(b) == key)
    actual = SHOWN_OUTPUTS[key](_env(tmp_path))
    assert _same(block.text, actual), f"{block.name} shows\n{block.text}\nthe code prints\n{actual}"


# -- rewriting ------------------------------------------------------------------------------


def write() -> None:
    """Rewrite the outputs the docs show from what the code prints today."""
    operations = ROOT / "docs" / "operations.md"
    text = operations.read_text()
    start = text.index("| variable | default | meaning |")
    end = text.index("\n\n", start) + 1
    operations.write_text(text[:start] + settings.markdown_table() + text[end:])
    admin = os.environ.get(settings.TEST_DATABASE_URL) or LOCAL_URL
    # from the end, so that a rewritten output does not move the blocks still to rewrite
    for block, i, cmd in sorted(_commands(), key=lambda c: (c[0].path, -c[0].line)):
        shown = _shown_output(block, i)
        if shown is None or cmd not in RUN:
            continue
        name, url = create_database(admin) if RUN[cmd].database else (None, None)
        try:
            with tempfile.TemporaryDirectory() as work:
                out = _perform(cmd, Path(work), url)
        finally:
            if name is not None:
                drop_database(admin, name)
        lines = block.path.read_text().splitlines(keepends=True)
        first = block.line + i + 1  # after the command (block.line counts from 1: the fence)
        indent = re.match(r"\s*", lines[first - 1]).group()  # type: ignore[union-attr]
        shown_lines = [indent + line + "\n" for line in out.rstrip("\n").splitlines()]
        lines[first : first + len(shown.splitlines())] = shown_lines
        block.path.write_text("".join(lines))
    print("rewrote the settings table and the shown outputs; review `git diff docs`")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.test_docs_examples --write")
    write()
