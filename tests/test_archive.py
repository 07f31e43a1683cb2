"""The one archive reader (worker/archive.py, docs/sandbox.md "Archives"): what it takes
is read back the same by every tar writer people use, what it refuses is named in one
line, and unpacking never follows a link nor writes past the limits."""

from __future__ import annotations

import gzip
import io
import os
import tarfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import hostile_archives as hostile
from tests.hostile_archives import file, special, tar_of
from worker import archive
from worker.archive import ArchiveError, Limits, Member


def refusal(data: bytes, limits: Limits = archive.LIMITS) -> str:
    with pytest.raises(ArchiveError) as caught:
        archive.read(data, limits)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("archive:"), message
    return message


@pytest.mark.parametrize("fmt", [tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT, tarfile.PAX_FORMAT])
def test_every_tar_format_people_write_reads_back_its_files(fmt: int) -> None:
    deep = "src/" + "a" * 90 + "/main_module_of_the_bot.py"  # past ustar's 100 bytes
    folder = tarfile.TarInfo("src")
    folder.type = tarfile.DIRTYPE
    data = tar_of(
        (folder, None),
        file("bot.py"),
        file("run.sh", b"#!/bin/sh\n", 0o755),
        file(deep, b"print()\n"),
        fmt=fmt,
    )
    assert archive.read(data) == [
        Member("src"),
        Member("bot.py", hostile.BOT),
        Member("run.sh", b"#!/bin/sh\n", executable=True),
        Member(deep, b"print()\n"),
    ]


paths = st.lists(
    st.text("abcé_-.", min_size=1, max_size=12).filter(lambda p: p.strip(".")),
    min_size=1,
    max_size=5,
).map("/".join)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(paths, st.tuples(st.binary(max_size=700), st.booleans()), max_size=8))
def test_the_platforms_own_form_reads_back_as_it_was_written(
    files: dict[str, tuple[bytes, bool]],
) -> None:
    members = [Member(path, data, executable) for path, (data, executable) in files.items()]
    # a path that is also another's folder cannot be a file: keep the deepest
    names = set(files)
    members = [m for m in members if not any(n.startswith(m.path + "/") for n in names)]
    packed = archive.pack(members)
    assert archive.read(packed) == members
    assert archive.pack(archive.read(packed)) == packed
    with tarfile.open(fileobj=io.BytesIO(packed), mode="r:") as tar:  # a standard tar too
        assert [m.name for m in tar] == [m.path for m in members]


def test_a_gzip_around_a_plain_tar_is_refused_as_gzip(tmp_path: Path) -> None:
    """The polyglot: a plain tar of ``bot.py`` to ``tarfile``'s ``r:``, a tar with a
    link out of the folder to its automatic mode. Here it is a gzip file, and refused."""
    both = hostile.polyglot(hostile.escape_through(tmp_path))
    with tarfile.open(fileobj=io.BytesIO(both), mode="r:") as tar:
        assert tar.getnames()[-1] == "bot.py"
    with tarfile.open(fileobj=io.BytesIO(both)) as tar:
        assert tar.getnames() == ["bot.py", "out", "out/planted"]
    assert "a gzip file, not a plain tar" in refusal(both)


def test_a_gzip_bomb_is_refused_without_being_inflated() -> None:
    bomb = gzip.compress(tar_of(file("zeros", bytes(50 * 2**20))), 9)
    assert len(bomb) < 100_000
    assert "a gzip file, not a plain tar" in refusal(bomb)


@pytest.mark.parametrize(
    ("kind", "what"),
    [
        (tarfile.SYMTYPE, "a symbolic link"),
        (tarfile.LNKTYPE, "a hard link"),
        (tarfile.CHRTYPE, "a character device"),
        (tarfile.BLKTYPE, "a block device"),
        (tarfile.FIFOTYPE, "a named pipe"),
    ],
)
def test_links_and_devices_are_refused(kind: bytes, what: str) -> None:
    message = refusal(tar_of(file("bot.py"), special("other", kind, "bot.py")))
    assert f"'other' is {what}; a bot holds plain files and folders" in message


def test_the_long_symlink_chain_that_escapes_tarfiles_data_filter_is_refused() -> None:
    assert "is a symbolic link" in refusal(hostile.long_link_chain())


def test_a_pax_header_of_megabytes_is_refused_before_it_is_parsed() -> None:
    """CVE-2024-6232 is a quadratic regex over a PAX header's records: the header's size
    is bounded before a byte of it is read."""
    message = refusal(hostile.pax_megabytes(2))
    assert "an extended header of 2,097,161 bytes at byte 0" in message


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("/etc/passwd", "outside the bot's folder"),
        ("../up.py", "outside the bot's folder"),
        ("a/../../up.py", "outside the bot's folder"),
        ("/".join("d" * 17) + ".py", "deep"),
    ],
)
def test_paths_outside_the_folder_or_too_deep_are_refused(name: str, said: str) -> None:
    assert said in refusal(tar_of(file(name), fmt=tarfile.GNU_FORMAT))


def test_a_path_given_twice_or_as_file_and_folder_is_refused() -> None:
    assert "appears twice" in refusal(tar_of(file("bot.py"), file("./bot.py", b"other")))
    assert "under 'a', a file" in refusal(tar_of(file("a"), file("a/b.py")))
    assert "a file and a folder" in refusal(tar_of(file("a/b.py"), file("a")))


def test_the_limits_on_what_an_archive_becomes_hold_as_it_is_read() -> None:
    small = Limits(max_bytes=1000, max_entries=3)
    assert "over 1,000 bytes together" in refusal(
        tar_of(file("a", bytes(600)), file("b", bytes(600))), small
    )
    many = tar_of(*(file(f"f{i}") for i in range(4)))
    assert "more than 3 files and folders" in refusal(many, small)
    assert "over the limit" in refusal(bytes(small.max_archive + 1), small)


def test_damaged_and_cut_archives_are_refused() -> None:
    data = bytearray(tar_of(file("bot.py", bytes(2000))))
    assert "cut short" in refusal(bytes(data[:1024]))
    data[700] ^= 0xFF  # inside the content: not a header
    assert archive.read(bytes(data))
    data[10] ^= 0x01
    assert "not a tar archive" in refusal(bytes(data))
    assert "not a tar archive" in refusal(b"print('hello')\n")


def test_unpacking_writes_plain_files_with_their_modes(tmp_path: Path) -> None:
    packed = archive.pack(
        [Member("src"), Member("src/bot.py", b"x\n"), Member("run", b"#!\n", executable=True)]
    )
    os.umask(0o077)  # a worker's umask does not take the bot's read access
    try:
        assert archive.unpack(packed, tmp_path) == 5
    finally:
        os.umask(0o022)
    assert (tmp_path / "src" / "bot.py").read_bytes() == b"x\n"
    assert (tmp_path / "src").stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "src" / "bot.py").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "run").stat().st_mode & 0o777 == 0o755


def test_unpacking_never_follows_a_link_it_finds(tmp_path: Path) -> None:
    """Were a link already in the folder (it never is: each start has a new one), the
    unpacking fails on it rather than writing where it points."""
    folder, outside = tmp_path / "bot", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / "src").symlink_to(outside)
    (folder / "bot.py").symlink_to(outside / "planted.py")
    with pytest.raises(OSError):
        archive.unpack(archive.pack([Member("src/x.py", b"owned")]), folder)
    with pytest.raises(OSError):
        archive.unpack(archive.pack([Member("bot.py", b"owned")]), folder)
    assert list(outside.iterdir()) == []


def test_unpacking_enforces_the_limits_again(tmp_path: Path) -> None:
    packed = archive.pack([Member("a", bytes(600)), Member("b", bytes(600))])
    with pytest.raises(ArchiveError, match="over 1,000 bytes"):
        archive.unpack(packed, tmp_path, Limits(max_bytes=1000))
    assert not (tmp_path / "b").exists()
