"""Hostile archives through the real path (docs/sandbox.md, "Archives"): uploaded to the
API with an ordinary user's key, each is refused at submission in one line and nothing
is stored; none is read before its key and name are checked; and a hostile archive that
is already stored (from before these checks) does not unpack on a worker with the
sandbox on. Judged from outside: the store's rows and the files beside the folders."""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.site import create_site
from tests import hostile_archives as hostile
from worker import archive, sandbox
from worker.pool import BotPool, BotStartError
from worker.referee_link import LocalReferee, RefereeLink
from worker.store import PLATFORM_USER, Store

pytest_plugins = ["tests.store_fixtures"]

API = "/api/v1"
GAME = "hollywood-gin"
COMMAND = ["python", "bot.py"]

#: Each hostile upload, built to write into ``target`` were it unpacked by a reader that
#: follows links or guesses formats.
CASES: dict[str, Callable[[Path], bytes]] = {
    "polyglot: gzip around a plain tar": lambda t: hostile.polyglot(hostile.escape_through(t)),
    "gzip bomb with a symlink": lambda t: hostile.gzip_bomb(200),
    "links inside a compressed layer": hostile.links_in_gzip,
    "long symlink chain (CVE-2025-4517)": lambda t: hostile.long_link_chain(),
    "PAX header of megabytes (CVE-2024-6232)": lambda t: hostile.pax_megabytes(2),
    "a link out of the folder": hostile.escape_through,
}


@pytest.fixture
def api(store: Store) -> Iterator[TestClient]:
    with store.pool.connection() as conn:
        conn.execute("DELETE FROM users WHERE name <> %s", (PLATFORM_USER,))
    with TestClient(create_site(store)) as client:
        yield client


def key_of(store: Store, name: str) -> dict[str, str]:
    store.create_user(name)
    return {"authorization": f"Bearer {store.create_key(name).text}"}


def upload(data: bytes) -> dict[str, Any]:
    return {"game": GAME, "command": COMMAND, "archive": base64.b64encode(data).decode()}


@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_archive_is_refused_at_submission_in_one_line(
    api: TestClient, store: Store, tmp_path: Path, case: str
) -> None:
    target = tmp_path / "target"
    target.mkdir()
    sent = api.post(
        f"{API}/bots/evil/versions",
        json=upload(CASES[case](target)),
        headers=key_of(store, "mallory"),
    )
    assert sent.status_code == 400, sent.text
    message = sent.json()["error"]["message"]
    assert message.startswith("archive: ") and "\n" not in message, message
    assert store.bot_by_name("evil") is None  # nothing stored, not even the name
    assert list(target.iterdir()) == []


def test_no_archive_is_read_before_its_key_and_name_are_checked(
    api: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The PAX header of megabytes, sent with no key, a wrong key, and a key that may
    not submit to that name: 401, 401, 403, and the archive reader never ran."""
    reads: list[int] = []
    real_read = archive.read
    monkeypatch.setattr(
        archive, "read", lambda data, *a: reads.append(len(data)) or real_read(data, *a)
    )
    ann = key_of(store, "ann")
    mine = api.post(
        f"{API}/bots/anns/versions",
        json=upload(hostile.tar_of(hostile.file("bot.py"))),
        headers=ann,
    )
    assert mine.status_code == 201, mine.text
    assert len(reads) == 1
    body = upload(hostile.pax_megabytes(2))
    assert api.post(f"{API}/bots/evil/versions", json=body).status_code == 401
    wrong = {"authorization": "Bearer 0123456789ab." + "A" * 43}
    assert api.post(f"{API}/bots/evil/versions", json=body, headers=wrong).status_code == 401
    theirs = api.post(f"{API}/bots/anns/versions", json=body, headers=key_of(store, "mallory"))
    assert theirs.status_code == 403, theirs.text
    assert len(reads) == 1


def test_what_is_stored_is_the_platforms_own_form_of_what_was_checked(
    api: TestClient, store: Store
) -> None:
    """The upload's own headers (owner names, times, a GNU long name) are not kept: the
    store holds :func:`worker.archive.pack` of the members the check read."""
    uploaded = hostile.tar_of(
        hostile.file("bot.py"), hostile.file("lib/" + "x" * 120 + ".py", b"y = 2\n")
    )
    sent = api.post(
        f"{API}/bots/anns/versions", json=upload(uploaded), headers=key_of(store, "ann")
    )
    assert sent.status_code == 201, sent.text
    bot = store.bot_by_name("anns")
    assert bot is not None
    stored = store.bot_archive(store.bot_versions(bot.id)[-1].version.id)
    assert stored != uploaded and stored == archive.pack(archive.read(uploaded))


class StoredVersions:
    """Versions whose archives were stored before the platform checked them."""

    def __init__(self) -> None:
        self.archives: dict[int, bytes] = {}

    def bot_version(self, version_id: int) -> Any:
        return SimpleNamespace(
            label=f"old@v{version_id}", manifest={"command": COMMAND, "runtime": "python"}
        )

    def bot_archive(self, version_id: int) -> bytes:
        return self.archives[version_id]


@pytest.fixture
def pool(tmp_path: Path) -> Iterator[tuple[BotPool, StoredVersions]]:
    box = sandbox.configure("on")  # fails here, saying why, where it cannot confine
    referee = LocalReferee()
    link = RefereeLink(referee.address, referee.secret, referee.socket)
    versions = StoredVersions()
    (tmp_path / "pool").mkdir()
    bots = BotPool(versions, link, root=tmp_path / "pool", sandbox=box)
    try:
        yield bots, versions
    finally:
        bots.close()
        link.close()
        referee.stop()


@pytest.mark.parametrize("case", list(CASES))
def test_a_stored_hostile_archive_does_not_unpack_on_a_worker(
    pool: tuple[BotPool, StoredVersions], tmp_path: Path, case: str
) -> None:
    bots, versions = pool
    target = tmp_path / "target"
    target.mkdir()
    versions.archives[1] = CASES[case](target)
    with pytest.raises(BotStartError, match="old@v1's files do not unpack: archive: "):
        bots.session(1)
    assert list(target.iterdir()) == []
    assert list(bots.root.iterdir()) == []  # its folder removed, nothing left beside it
