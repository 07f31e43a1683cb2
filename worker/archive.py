"""Bot archives: the one reader of what a user uploads and a worker unpacks
(``docs/sandbox.md``, "Archives").

A bot's files reach the platform as an uncompressed tar. :func:`read` is the only code
that reads one, at submission and again when a worker unpacks a version: a strict
reader of its own, not :mod:`tarfile`, so that no format is guessed (a gzip header
whose extra field holds a tar is not a tar here), no header is parsed past a bound
before its size is known (``tarfile``'s PAX regex is quadratic before Python 3.11.10),
and no flaw of the standard library's extraction filters can be reached. It takes
regular files and folders and refuses every other member (links, devices, sparse
files), every path outside the folder, and archives past :class:`Limits`.

What the platform stores is not the upload but :func:`pack` of what :func:`read` found:
ustar headers with normalized metadata, files and folders only. :func:`unpack` writes
members one by one under a folder it holds open, creating each file itself with
``O_CREAT | O_EXCL | O_NOFOLLOW`` relative to its parent's descriptor, so that no link,
old or new, is ever followed, and it counts the bytes it writes against the same limits.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

BLOCK = 512
_ZEROS = bytes(BLOCK)
_OCTAL = re.compile(rb"[0-7]+")
#: The first bytes of the compressed formats people send by mistake, to say which.
_COMPRESSED = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"PK\x03\x04", "zip"),
)
#: Member types by their tar type flag: what each is, for the refusal.
_OTHER_TYPES = {
    b"1": "a hard link",
    b"2": "a symbolic link",
    b"3": "a character device",
    b"4": "a block device",
    b"6": "a named pipe",
    b"K": "a long link name",
    b"S": "a sparse file",
    b"D": "a GNU dump folder",
    b"M": "a multi-volume part",
    b"V": "a volume label",
}


class ArchiveError(ValueError):
    """An archive the platform does not take; the message says why in one line."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What an archive may become: its files' bytes together, its members (files and
    folders), a path's length in bytes and its depth in folders, and the size of one
    extended (PAX) or long-name header."""

    max_bytes: int = 10 * 2**20
    max_entries: int = 1000
    max_path: int = 255
    max_depth: int = 16
    max_header: int = 4096

    @property
    def max_archive(self) -> int:
        """The most bytes an archive within these limits takes: its files, and for each
        member a header, a long-name header (paths are short) and padding; and the end
        blocks."""
        return self.max_bytes + self.max_entries * 4 * BLOCK + 20 * BLOCK


LIMITS = Limits()


@dataclass(frozen=True, slots=True)
class Member:
    """A file (its bytes in :attr:`data`; :attr:`executable` when its owner may run it)
    or a folder (:attr:`data` None) at :attr:`path`, relative and normalized."""

    path: str
    data: bytes | None = None
    executable: bool = False

    @property
    def is_file(self) -> bool:
        return self.data is not None


def read(archive: bytes, limits: Limits = LIMITS) -> list[Member]:
    """The members of the uncompressed tar ``archive``, in order; :class:`ArchiveError`
    naming the first thing wrong: a compressed or damaged archive, a member that is not a
    regular file or folder, a path outside the folder, too long or too deep, a path given
    twice, or an archive past ``limits`` (checked as it is read, before anything more is
    parsed)."""
    if len(archive) > limits.max_archive:
        raise ArchiveError(
            f"archive: {len(archive):,} bytes is over the limit of {limits.max_archive:,}"
        )
    if any(archive.startswith(magic) for magic, _ in _COMPRESSED):
        raise ArchiveError(
            _not_tar(archive)
        )  # a tar whose header is also one of these is not taken
    members: list[Member] = []
    given: set[str] = set()  # the paths of the members
    kinds: dict[str, bool] = {}  # path -> is a file, for members and the folders they imply
    total = 0
    offset = 0
    long_path: str | None = None  # the next member's path, from a PAX or GNU header
    while offset + BLOCK <= len(archive):
        header = archive[offset : offset + BLOCK]
        if header == _ZEROS:
            break
        _check_sum(header, offset, archive)
        flag = header[156:157]
        size = _number(header[124:136], "size", offset)
        start = offset + BLOCK
        offset = start + -(-size // BLOCK) * BLOCK
        if start + size > len(archive):
            raise ArchiveError(
                f"archive: cut short in the member whose header is at {start - BLOCK}"
            )
        if flag in (b"x", b"g", b"L"):
            if size > limits.max_header:
                raise ArchiveError(
                    f"archive: an extended header of {size:,} bytes at byte {start - BLOCK} "
                    f"(the most taken is {limits.max_header:,})"
                )
            body = archive[start : start + size]
            if flag == b"L":
                long_path = _text(body.rstrip(b"\x00"), start)
            elif flag == b"x":
                long_path = _pax_path(body, start) or long_path
            continue  # a global header ("g") sets nothing a bot's files need
        if flag in _OTHER_TYPES or flag not in (b"0", b"\x00", b"7", b"5"):
            what = _OTHER_TYPES.get(flag, f"a member of type {flag!r}")
            name = long_path or _name(header, start)
            raise ArchiveError(
                f"archive: {name!r:.80} is {what}; a bot holds plain files and folders"
            )
        name = long_path or _name(header, start)
        long_path = None
        folder = flag == b"5" or (flag == b"\x00" and name.endswith("/"))
        path = _path(name, limits)
        if folder and size:
            raise ArchiveError(f"archive: the folder {path!r:.80} has {size} bytes of content")
        if path in given:
            raise ArchiveError(f"archive: {path!r:.80} appears twice")
        if path in kinds and not folder:
            raise ArchiveError(f"archive: {path!r:.80} is a file and a folder")
        parents = path.split("/")[:-1]
        for depth in range(1, len(parents) + 1):
            parent = "/".join(parents[:depth])
            if kinds.setdefault(parent, False):
                raise ArchiveError(f"archive: {path!r:.80} is under {parent!r:.80}, a file")
        if len(given) >= limits.max_entries:
            raise ArchiveError(f"archive: more than {limits.max_entries} files and folders")
        given.add(path)
        kinds[path] = not folder
        if folder:
            members.append(Member(path))
            continue
        total += size
        if total > limits.max_bytes:
            raise ArchiveError(f"archive: its files are over {limits.max_bytes:,} bytes together")
        mode = _number(header[100:108], "mode", start - BLOCK)
        members.append(Member(path, archive[start : start + size], bool(mode & 0o100)))
    else:
        if offset < len(archive) or not members:
            raise ArchiveError(_not_tar(archive) if offset == 0 else "archive: cut short")
    return members


def pack(members: list[Member]) -> bytes:
    """The platform's own form of ``members``: ustar headers (a PAX header for a path
    past 100 bytes), mode 755 or 644 after :attr:`Member.executable` (folders 755), owner
    0, time 0: the same members always give the same bytes, which :func:`read` reads
    back as they were."""
    out = bytearray()
    for member in members:
        name = member.path + ("" if member.is_file else "/")
        if len(name.encode()) > 100:
            record = _pax_record("path", name)
            out += _header("././@PaxHeader", len(record), b"x", 0o644)
            out += record + bytes(-len(record) % BLOCK)
            name = name.encode()[:100].decode(errors="ignore")
        data = member.data or b""
        mode = 0o755 if member.executable or not member.is_file else 0o644
        out += _header(name, len(data), b"0" if member.is_file else b"5", mode)
        out += data + bytes(-len(data) % BLOCK)
    return bytes(out + bytes(2 * BLOCK))


def unpack(archive: bytes, folder: Path, limits: Limits = LIMITS) -> int:
    """Write the members of ``archive`` (read by :func:`read`) under ``folder``, an
    empty folder; returns the bytes written. Each folder is entered and each file made
    relative to its parent's descriptor, never following a link; a file is never
    opened twice. :class:`ArchiveError` when the archive is refused, or when writing it
    would pass ``limits``."""
    members = read(archive, limits)
    written = 0
    root = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        for member in members:
            *parents, leaf = member.path.split("/")
            if not member.is_file:
                os.close(_enter(root, [*parents, leaf]))
                continue
            data = member.data or b""
            written += len(data)
            if written > limits.max_bytes:
                raise ArchiveError(
                    f"archive: its files are over {limits.max_bytes:,} bytes together"
                )
            parent = _enter(root, parents)
            try:
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
                fd = os.open(leaf, flags, 0o600, dir_fd=parent)
            finally:
                os.close(parent)
            try:
                os.fchmod(fd, 0o755 if member.executable else 0o644)  # whatever the umask
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
    finally:
        os.close(root)
    return written


def _enter(root: int, parts: list[str]) -> int:
    """A new descriptor of the folder ``parts`` under ``root``, each folder made where
    missing (mode 755) and entered without following a link."""
    fd = os.dup(root)
    for part in parts:
        # a file or a link already there fails next: entered with O_NOFOLLOW | O_DIRECTORY
        with contextlib.suppress(FileExistsError):
            os.mkdir(part, 0o700, dir_fd=fd)
        try:
            inner = os.open(
                part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd
            )
        finally:
            os.close(fd)
        fd = inner
        os.fchmod(fd, 0o755)
    return fd


def _check_sum(header: bytes, offset: int, archive: bytes) -> None:
    stored = header[148:156].strip(b" \x00")
    counted = sum(header[:148]) + 8 * 32 + sum(header[156:])
    if not _OCTAL.fullmatch(stored) or int(stored, 8) != counted:
        raise ArchiveError(
            _not_tar(archive) if offset == 0 else f"archive: the header at byte {offset} is damaged"
        )


def _not_tar(archive: bytes) -> str:
    for magic, name in _COMPRESSED:
        if archive.startswith(magic):
            return (
                f"archive: a {name} file, not a plain tar; the platform takes an "
                "uncompressed tar (arena bot submit builds one)"
            )
    return "archive: not a tar archive (an uncompressed tar is taken, as arena bot submit builds)"


def _number(field: bytes, what: str, offset: int) -> int:
    digits = field.strip(b" \x00")
    if not digits:
        return 0
    if not _OCTAL.fullmatch(digits):  # base-256 sizes are for files far past the limits
        raise ArchiveError(f"archive: the header at byte {offset} has no octal {what}")
    return int(digits, 8)


def _text(raw: bytes, offset: int) -> str:
    try:
        return raw.decode()
    except UnicodeDecodeError:
        raise ArchiveError(f"archive: a path at byte {offset} is not UTF-8") from None


def _name(header: bytes, offset: int) -> str:
    name = header[:100].split(b"\x00", 1)[0]
    if header[257:263] == b"ustar\x00":  # POSIX: a prefix before the name
        prefix = header[345:500].split(b"\x00", 1)[0]
        if prefix:
            name = prefix + b"/" + name
    return _text(name, offset)


def _pax_path(body: bytes, offset: int) -> str | None:
    """The ``path`` of a PAX header's records (``LENGTH KEY=VALUE\\n``); sparse files
    refused, other keys ignored."""
    path = None
    at = 0
    while at < len(body):
        space = body.find(b" ", at, at + 20)
        if space < 0 or not body[at:space].isdigit():
            raise ArchiveError(f"archive: the extended header at byte {offset} is damaged")
        end = at + int(body[at:space])
        record = body[space + 1 : end]
        if end > len(body) or end <= space or not record.endswith(b"\n") or b"=" not in record:
            raise ArchiveError(f"archive: the extended header at byte {offset} is damaged")
        key, value = record[:-1].split(b"=", 1)
        if key.startswith(b"GNU.sparse"):
            raise ArchiveError("archive: it holds a sparse file; a bot holds plain files")
        if key == b"path":
            path = _text(value, offset)
        elif key == b"size":
            raise ArchiveError(f"archive: the extended header at byte {offset} sets a size")
        at = end
    return path


def _path(name: str, limits: Limits) -> str:
    """``name`` relative and normalized (``./a//b/`` is ``a/b``); :class:`ArchiveError`
    when it leaves the folder, names nothing, or is too long or deep."""
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if name.startswith("/") or ".." in parts or not parts or "\x00" in name:
        raise ArchiveError(f"archive: {name!r:.80} is outside the bot's folder")
    path = "/".join(parts)
    if len(path.encode()) > limits.max_path:
        raise ArchiveError(f"archive: a path of over {limits.max_path} bytes ({path[:60]!r}…)")
    if len(parts) > limits.max_depth:
        raise ArchiveError(
            f"archive: {path!r:.80} is {len(parts)} deep (at most {limits.max_depth})"
        )
    return path


def _pax_record(key: str, value: str) -> bytes:
    body = f" {key}={value}\n".encode()
    length = len(body) + 1
    while len(str(length)) + len(body) != length:
        length += 1
    return str(length).encode() + body


def _header(name: str, size: int, flag: bytes, mode: int) -> bytes:
    header = bytearray(BLOCK)
    header[0:100] = name.encode()[:100].ljust(100, b"\x00")
    header[100:108] = b"%07o\x00" % mode
    header[108:116] = b"0000000\x00"
    header[116:124] = b"0000000\x00"
    header[124:136] = b"%011o\x00" % size
    header[136:148] = b"00000000000\x00"
    header[148:156] = b" " * 8
    header[156:157] = flag
    header[257:265] = b"ustar\x0000"
    header[148:156] = b"%06o\x00 " % sum(header)
    return bytes(header)
