"""Registering bots through the CLI (docs/bots.md, "Registering a bot"): content-addressed
versions of a file or a folder with an ``arena-bot.toml``, listings with Elo, and matches."""

from __future__ import annotations

import hashlib
import json
import shutil
import time
import tracemalloc
from pathlib import Path

import pytest
from psycopg.types.json import Jsonb

from arena.app.actors import local_user_name
from arena.app.packaging import MANIFEST_FILE, package
from arena.cli import main
from arena.commands.tournament import resolve_bots
from tests.store_fixtures import finished_match
from worker.store import Store, StoreError

pytest_plugins = ["tests.store_fixtures"]

GAME = "hollywood-gin"
EXAMPLES = Path(__file__).resolve().parent.parent / "bots" / "examples"


@pytest.fixture
def cli_store(store: Store, store_db_url: str, monkeypatch: pytest.MonkeyPatch) -> Store:
    """An emptied store that ``arena`` commands reach through ARENA_DATABASE_URL."""
    monkeypatch.setenv("ARENA_DATABASE_URL", store_db_url)
    return store


def a_user(store: Store, name: str) -> None:
    """The user ``name``, made unless an earlier test made them (users outlive a test)."""
    if store.user(name) is None:
        store.create_user(name)


def arena(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``arena ARGV``; its exit code, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def submit_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    code, out, err = arena(capsys, "bot", "submit", *argv, "--json")
    assert code == 0, err
    result: dict[str, object] = json.loads(out)
    return result


def test_same_file_twice_is_the_same_version(
    cli_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "mybot.py"
    shutil.copy(EXAMPLES / "minimal_bot.py", bot)
    a_user(cli_store, "ann")  # an operator (no key here) registers the bot for ann
    code, out, err = arena(capsys, "bot", "submit", str(bot), "--game", GAME, "--owner", "ann")
    assert code == 0, err
    assert out.startswith("stored mybot@v1 (hollywood-gin), sha256 ") and "a new version" in out
    code, out, _ = arena(capsys, "bot", "submit", str(bot), "--game", GAME, "--owner", "ann")
    assert code == 0
    assert "mybot@v1" in out and "the same version, nothing stored" in out

    bot.write_bytes(bot.read_bytes() + b"\n")
    second = submit_json(capsys, str(bot), "--game", GAME, "--owner", "ann")
    assert second["version"] == 2 and second["new"] is True
    assert second["command"] == ["python", "-m", "arena", "bot", "run", "mybot.py"]
    bot_row = cli_store.bot_by_name("mybot")
    assert bot_row is not None and bot_row.owner == "ann"
    versions = cli_store.bot_versions(bot_row.id)
    assert [v.version.version for v in versions] == [1, 2]
    assert versions[0].version.content_hash != versions[1].version.content_hash
    assert all(v.version.submitted_by == local_user_name() for v in versions)


def test_name_defaults_to_the_stem_and_owner_to_the_os_user(
    cli_store: Store, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("getpass.getuser", lambda: "osuser")
    result = submit_json(capsys, str(EXAMPLES / "random_bot.py"), "--game", GAME)
    assert result["label"] == "random_bot@v1" and result["submitted_by"] == "osuser"
    named = submit_json(capsys, str(EXAMPLES / "random_bot.py"), "--game", GAME, "--name", "rb")
    assert named["label"] == "rb@v1"


def test_folder_with_manifest_is_stored_with_a_stable_hash(
    cli_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "folderbot"
    (folder / "lib").mkdir(parents=True)
    (folder / MANIFEST_FILE).write_text('command = ["python", "main.py"]\n')
    (folder / "main.py").write_text("print('hi')\n")
    (folder / "lib" / "util.py").write_text("X = 1\n")
    first = package(folder)
    # Another build after the files' times change, and a cache the bot's run left behind.
    for path in folder.rglob("*"):
        path.touch()
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    assert package(folder).archive == first.archive
    assert first.command == ["python", "main.py"]

    result = submit_json(capsys, str(folder), "--game", "rummy-500")
    assert result["label"] == "folderbot@v1" and result["content_hash"] == first.content_hash
    assert result["command"] == ["python", "main.py"]
    bot_row = cli_store.bot_by_name("folderbot")
    assert bot_row is not None
    stored = cli_store.bot_archive(cli_store.bot_versions(bot_row.id)[0].version.id)
    assert stored == first.archive
    again = submit_json(capsys, str(folder), "--game", "rummy-500")
    assert again["version"] == 1 and again["new"] is False


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bots/examples/minimal_bot.py", "--game", "chess"], "unknown game 'chess'; games: "),
        (["no/such/bot.py", "--game", GAME], "no bot file or folder no/such/bot.py"),
        (["bots/examples", "--game", GAME], f"has no {MANIFEST_FILE}"),
    ],
)
def test_bad_submissions_fail_with_one_line(
    cli_store: Store, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = arena(capsys, "bot", "submit", *argv)
    assert code == 2 and out == ""
    assert err.startswith("arena bot submit: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_bad_manifest_and_same_content_for_another_game(
    cli_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / MANIFEST_FILE).write_text("command = 'python main.py'\n")
    code, _, err = arena(capsys, "bot", "submit", str(tmp_path), "--game", GAME)
    assert code == 2 and "must set command = [" in err
    bot = EXAMPLES / "minimal_bot.py"
    submit_json(capsys, str(bot), "--game", GAME)
    code, _, err = arena(capsys, "bot", "submit", str(bot), "--game", "gin-three")
    assert code == 2 and "already minimal_bot@v1, submitted for hollywood-gin" in err


def test_example_bots_list_and_show(cli_store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    examples = sorted(EXAMPLES.glob("*_bot.py"))
    assert len(examples) == 4  # random, minimal, heuristic, search
    a_user(cli_store, "tester")
    for path in examples:
        submit_json(capsys, str(path), "--game", GAME, "--owner", "tester")

    code, out, _ = arena(capsys, "bot", "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["bot", "versions", "latest", "game", "elo"]
    assert [line.split() for line in lines[1:]] == [
        [p.stem, "1", "v1", GAME, "unrated"] for p in examples
    ]

    code, out, _ = arena(capsys, "bot", "show", "minimal_bot")
    assert code == 0
    assert out.splitlines()[0] == "minimal_bot (owner tester)"
    assert "v1" in out and "unrated" in out and out.rstrip().endswith("no matches yet")

    # Two of them play a match, which finishes and rates them.
    labels = {p.stem: p for p in examples}
    ids = {}
    for name in labels:
        bot_row = cli_store.bot_by_name(name)
        assert bot_row is not None
        ids[name] = cli_store.bot_versions(bot_row.id)[0].version.id
    match = cli_store.create_match(GAME, [ids["minimal_bot"], ids["random_bot"]], seed=3)
    claimed = cli_store.claim_match("worker-1")
    assert claimed is not None and claimed.id == match.id
    assert cli_store.finish_match(match.id, "worker-1", finished_match(GAME, [0, 1], [25, 0]))
    queued = cli_store.create_match(GAME, [ids["random_bot"], ids["minimal_bot"]], seed=4)

    code, out, _ = arena(capsys, "bot", "list", "--json")
    listing = {row["name"]: row for row in json.loads(out)}
    assert listing["minimal_bot"]["elo"] > 1500 > listing["random_bot"]["elo"]
    assert listing["minimal_bot"]["games"] == 1
    assert listing["heuristic_bot"]["elo"] is None

    code, out, _ = arena(capsys, "bot", "show", "minimal_bot")
    assert code == 0
    assert "(1 games)" in out and "recent matches:" in out
    rows = [line.split() for line in out.splitlines()[out.splitlines().index("recent matches:") :]]
    assert rows[1] == ["match", "version", "game", "state", "seat", "place", "score", "status"]
    assert rows[2] == [str(queued.id), "v1", GAME, "queued", "1"]
    assert rows[3] == [str(match.id), "v1", GAME, "done", "0", "1st", "25", "ok"]

    code, out, _ = arena(capsys, "bot", "show", "random_bot", "--json")
    shown = json.loads(out)
    assert shown["name"] == "random_bot" and len(shown["versions"]) == 1
    version = shown["versions"][0]
    assert version["elo"] < 1500 and version["submitted_by"] == local_user_name()
    assert [(m["match"], m["state"], m["rank"]) for m in version["recent_matches"]] == [
        (queued.id, "queued", None),
        (match.id, "done", 1),
    ]

    code, _, err = arena(capsys, "bot", "show", "nobody")
    assert code == 2 and "no bot named 'nobody'" in err


def test_a_listing_to_a_pipe_is_never_folded(
    cli_store: Store, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Printed to a file or a pipe (here: captured), a table keeps each row on one line
    whatever width the environment claims, so that scripts can read it."""
    monkeypatch.setenv("COLUMNS", "30")
    a_user(cli_store, "tester")
    name = "a" * 40  # the longest a bot name may be
    stored = submit_json(capsys, str(EXAMPLES / "random_bot.py"), "--game", GAME, "--name", name)
    code, out, _ = arena(capsys, "bot", "list")
    assert code == 0
    assert [line.split() for line in out.splitlines()] == [
        ["bot", "versions", "latest", "game", "elo"],
        [name, "1", "v1", GAME, "unrated"],
    ]
    code, out, _ = arena(capsys, "bot", "show", name)
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split() == [
        *("version", "sha256", "game", "submitted", "by", "qualification", "elo")
    ]
    version = lines[2].split()  # the date and the time of its submission are two words
    assert version[:3] == ["v1", str(stored["content_hash"])[:12], GAME]
    assert len(version) == 8 and version[-2:] == ["exempt", "unrated"]
    assert lines[3:] == ["no matches yet"]


def test_empty_registry(cli_store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    assert arena(capsys, "bot", "list")[1].startswith("no bots yet")
    assert arena(capsys, "bot", "list", "--json")[1].strip() == "[]"


# -- what a submission may hold (docs/bots.md, "What a submission may hold") ---------------

#: The documented limits of a submission.
LIMIT_BYTES = 10 * 2**20
LIMIT_ENTRIES = 1000


def assert_refused(err: str, code: int, out: str, *fragments: str) -> None:
    """A one-line usage error (exit 2) holding each fragment."""
    assert code == 2 and out == "", err
    assert err.startswith("arena bot submit: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


def test_symlinked_file_is_refused(
    cli_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "real_bot.py"
    shutil.copy(EXAMPLES / "minimal_bot.py", target)
    link = tmp_path / "linked_bot.py"
    link.symlink_to(target)
    code, out, err = arena(capsys, "bot", "submit", str(link), "--game", GAME)
    assert_refused(err, code, out, f"{link} is a symbolic link")
    assert cli_store.list_bots() == [] and cli_store.bot_by_name("linked_bot") is None


def test_too_large_file_is_refused_before_it_is_read(
    cli_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big_bot.py"
    with big.open("wb") as f:  # sparse: 200 MB on paper, nothing on disk
        f.truncate(200 * 10**6)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        code, out, err = arena(capsys, "bot", "submit", str(big), "--game", GAME)
        elapsed = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert_refused(err, code, out, "200,000,000 bytes", f"{LIMIT_BYTES:,}", "10 MiB")
    assert elapsed < 2.0 and peak < 5 * 2**20, (elapsed, peak)
    assert cli_store.list_bots() == [] and cli_store.bot_by_name("big_bot") is None


def test_too_large_folder_is_refused(
    cli_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "bigfolder"
    folder.mkdir()
    (folder / MANIFEST_FILE).write_text('command = ["python", "main.py"]\n')
    for name in ("a.bin", "b.bin"):  # each under the limit, together over it
        with (folder / name).open("wb") as f:
            f.truncate(LIMIT_BYTES // 2 + 1)
    code, out, err = arena(capsys, "bot", "submit", str(folder), "--game", GAME)
    assert_refused(err, code, out, "more than", f"{LIMIT_BYTES:,} bytes")
    assert cli_store.list_bots() == [] and cli_store.bot_by_name("bigfolder") is None


def test_too_many_files_are_refused_and_the_limit_itself_is_kept(
    cli_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "manyfiles"
    (folder / "lib").mkdir(parents=True)
    (folder / MANIFEST_FILE).write_text('command = ["python", "lib/m0.py"]\n')
    # The manifest, the folder lib and 998 files in it: 1,000 entries, the most allowed.
    for i in range(LIMIT_ENTRIES - 2):
        (folder / "lib" / f"m{i}.py").write_text(f"X = {i}\n")
    result = submit_json(capsys, str(folder), "--game", GAME)
    assert result["label"] == "manyfiles@v1"

    (folder / "lib" / "one_more.py").write_text("\n")
    code, out, err = arena(capsys, "bot", "submit", str(folder), "--game", GAME)
    assert_refused(err, code, out, f"more than {LIMIT_ENTRIES:,} files and folders")
    bot_row = cli_store.bot_by_name("manyfiles")
    assert bot_row is not None and len(cli_store.bot_versions(bot_row.id)) == 1


@pytest.mark.parametrize(
    "name",
    [
        "a" * 41,
        "x" * 10_000,
        "two\nlines",
        "right\u202eleft",
        "a,b",
        "evil@v1",
        "with space",
        "-looks-like-a-flag",
        ".hidden",
        "caf\u00e9",
        "tab\there",
    ],
    ids=[
        "41-chars",
        "10000-chars",
        "newline",
        "rtl-override",
        "comma",
        "at-version",
        "space",
        "leading-dash",
        "leading-dot",
        "non-ascii",
        "tab",
    ],
)
def test_bad_names_are_refused_and_nothing_is_stored(
    cli_store: Store, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    bot = str(EXAMPLES / "minimal_bot.py")
    code, out, err = arena(capsys, "bot", "submit", bot, "--game", GAME, f"--name={name}")
    assert_refused(err, code, out, "1 to 40 ASCII letters, digits")
    assert len(err) < 400
    assert cli_store.list_bots() == [] and cli_store.bot_by_name(name) is None


def test_bad_names_are_refused_by_the_store_too(cli_store: Store) -> None:
    for name in ("a,b", "evil@v1", "two\nlines", ""):
        with pytest.raises(StoreError, match="1 to 40 ASCII letters, digits"):
            cli_store.add_bot(name, "ann")
    assert cli_store.bot_by_name("a,b") is None


def test_a_file_stem_that_is_no_name_asks_for_name(
    cli_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "my bot.py"
    shutil.copy(EXAMPLES / "minimal_bot.py", bot)
    code, out, err = arena(capsys, "bot", "submit", str(bot), "--game", GAME)
    assert_refused(err, code, out, "'my bot'", "--name")
    assert cli_store.list_bots() == []


@pytest.mark.parametrize(
    "name", ["heuristic-hollywood-gin", "minimal-rummy-500", "heuristic_bot", "v1.2", "A" * 40]
)
def test_good_names_are_stored(
    cli_store: Store, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    bot = str(EXAMPLES / "minimal_bot.py")
    result = submit_json(capsys, bot, "--game", GAME, "--name", name)
    assert result["label"] == f"{name}@v1"


def test_names_stored_before_the_rule_still_list_show_and_resolve(
    cli_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = Jsonb({"game": GAME, "command": ["python", "bot.py"], "archive": "tar"})
    with cli_store.pool.connection() as conn:  # as an older platform stored them
        conn.execute("INSERT INTO users (name) VALUES ('old') ON CONFLICT DO NOTHING")
        for name in ("evil@v1", "two\nlines"):
            bot_id = conn.execute(
                "INSERT INTO bots (name, owner) VALUES (%s, 'old') RETURNING id", (name,)
            ).fetchone()
            assert bot_id is not None
            conn.execute(
                "INSERT INTO bot_versions"
                " (bot_id, version, content_hash, archive, manifest, game, submitted_by)"
                " VALUES (%s, 1, %s, %s, %s, %s, 'old')",
                (
                    bot_id[0],
                    hashlib.sha256(name.encode()).hexdigest(),
                    name.encode(),
                    manifest,
                    GAME,
                ),
            )
    code, out, _ = arena(capsys, "bot", "list")
    assert code == 0
    assert [line.split() for line in out.splitlines()[1:]] == [
        ["'evil@v1'", "1", "v1", GAME, "unrated"],
        ["'two\\nlines'", "1", "v1", GAME, "unrated"],
    ]
    code, out, _ = arena(capsys, "bot", "show", "evil@v1")
    assert code == 0 and out.splitlines()[0] == "'evil@v1' (owner old)"
    legacy = cli_store.bot_by_name("evil@v1")
    assert legacy is not None
    version = cli_store.bot_versions(legacy.id)[0].version.id
    assert resolve_bots(cli_store, GAME, ["evil@v1@v1"]) == [version]


def test_python_that_does_not_compile_is_refused_naming_file_and_line(
    cli_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A syntax error is found at submission, by file and line, and nothing is stored:
    before, the version was stored and forfeited its first match with no word of why."""
    broken = tmp_path / "broken_bot.py"
    broken.write_text("from bots.sdk import Bot\n\nclass B(Bot)\n    pass\n")
    code, out, err = arena(capsys, "bot", "submit", str(broken), "--game", GAME)
    assert_refused(err, code, out, "broken_bot.py does not compile (line 3")
    assert "expected ':'" in err
    folder = tmp_path / "folder_bot"
    (folder / "lib").mkdir(parents=True)
    (folder / "arena-bot.toml").write_text('command = ["python", "main.py"]\n')
    (folder / "main.py").write_text("import lib.helper\n")
    (folder / "lib" / "helper.py").write_text("def f(:\n    return 1\n")
    code, out, err = arena(capsys, "bot", "submit", str(folder), "--game", GAME)
    assert_refused(err, code, out, "lib/helper.py does not compile (line 1")
    assert cli_store.list_bots() == []
    (folder / "lib" / "helper.py").write_text("def f():\n    return 1\n")
    code, out, err = arena(capsys, "bot", "submit", str(folder), "--game", GAME)
    assert code == 0, err


def test_a_command_naming_a_file_the_bot_lacks_or_outside_its_folder_is_refused(
    cli_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The manifest's entry point is checked at submission: a missing file, or one
    outside the bot's folder, is refused naming it, and nothing is stored."""
    folder = tmp_path / "folder_bot"
    folder.mkdir()
    (folder / "main.py").write_text("print('hi')\n")
    for command, expected in (
        (
            '["python", "mian.py"]',
            "'mian.py' is not a file of the bot (it holds arena-bot.toml, main.py)",
        ),
        ('["python", "../other/bot.py"]', "'../other/bot.py' is outside the bot's folder"),
        ('["python", "/srv/bots/bot.py"]', "'/srv/bots/bot.py' is outside the bot's folder"),
        ('["./run.sh"]', "'./run.sh' is not a file of the bot"),
        ('["node", "src/bot.js"]', "'src/bot.js' is not a file of the bot"),
    ):
        (folder / "arena-bot.toml").write_text(f"command = {command}\n")
        code, out, err = arena(capsys, "bot", "submit", str(folder), "--game", GAME)
        assert_refused(err, code, out, expected)
    assert cli_store.list_bots() == []
    (folder / "arena-bot.toml").write_text('command = ["python", "-u", "./main.py"]\n')
    code, out, err = arena(capsys, "bot", "submit", str(folder), "--game", GAME)
    assert code == 0, err


def test_bot_new_writes_a_starter_that_submits_as_it_says(
    cli_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "starter"
    code, out, err = arena(capsys, "bot", "new", str(folder), "--game", GAME)
    assert code == 0, err
    assert sorted(p.name for p in folder.iterdir()) == ["arena-bot.toml", "bot.py"]
    hint = out.strip().splitlines()[-1]
    assert hint.endswith(f"bot submit {folder} --game {GAME}"), hint
    result = submit_json(capsys, str(folder), "--game", GAME)
    assert result["label"] == "starter@v1"
    code, out, err = arena(capsys, "bot", "new", str(folder), "--game", GAME)
    assert code == 2 and out == "" and "exists and is not an empty folder" in err
    code, out, err = arena(capsys, "bot", "new", str(tmp_path / "x"), "--game", "chess")
    assert code == 2 and "chess" in err


def test_a_manifest_runtime_is_checked_and_stored_and_inferred_when_absent(
    cli_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``runtime`` in arena-bot.toml is one of python, node and binary: another is refused
    naming them, by the CLI and by the application (the API's path), and nothing is
    stored; absent, it is inferred from the command."""
    from arena.app import bots as app_bots
    from arena.app.actors import local_actor
    from arena.app.errors import Invalid

    folder = tmp_path / "js_bot"
    folder.mkdir()
    (folder / "bot.js").write_text("console.log('hi');\n")
    (folder / MANIFEST_FILE).write_text('runtime = "ruby"\ncommand = ["node", "bot.js"]\n')
    code, out, err = arena(capsys, "bot", "submit", str(folder), "--game", GAME)
    assert_refused(err, code, out, "runtime = 'ruby' is not one", '"python", "node", "binary"')
    archive = package(EXAMPLES / "minimal_bot.py").archive
    with pytest.raises(
        Invalid, match=r"'ruby' is not one the platform runs; .* python, node, binary"
    ):
        app_bots.submit(
            cli_store, local_actor(cli_store), name="js_bot", game=GAME,
            archive=archive, command=["python", "minimal_bot.py"], runtime="ruby",
        )  # fmt: skip
    assert cli_store.list_bots() == []
    (folder / MANIFEST_FILE).write_text('command = ["node", "bot.js"]\n')
    assert submit_json(capsys, str(folder), "--game", GAME)["label"] == "js_bot@v1"
    (folder / MANIFEST_FILE).write_text('runtime = "binary"\ncommand = ["node", "bot.js"]\n')
    assert submit_json(capsys, str(folder), "--game", GAME)["label"] == "js_bot@v2"
    submit_json(capsys, str(EXAMPLES / "minimal_bot.py"), "--game", GAME)
    runtimes = {}
    for name in ("js_bot", "minimal_bot"):
        bot = cli_store.bot_by_name(name)
        assert bot is not None
        for rated in cli_store.bot_versions(bot.id):
            runtimes[rated.version.label] = rated.version.manifest["runtime"]
    assert runtimes == {"js_bot@v1": "node", "js_bot@v2": "binary", "minimal_bot@v1": "python"}


def test_bot_new_javascript_writes_a_node_starter(
    cli_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "jsstarter"
    code, _, err = arena(capsys, "bot", "new", str(folder), "--game", GAME, "--lang", "javascript")
    assert code == 0, err
    assert sorted(p.name for p in folder.iterdir()) == ["arena-bot.toml", "bot.js"]
    assert 'require("rummy-arena")' in (folder / "bot.js").read_text()
    manifest = (folder / MANIFEST_FILE).read_text()
    assert 'runtime = "node"' in manifest and 'command = ["node", "bot.js"]' in manifest
    assert submit_json(capsys, str(folder), "--game", GAME)["label"] == "jsstarter@v1"
