"""Packaging a bot (docs/bots.md, "Registering a bot"): a bot file or folder made into
what a submission stores, a tar archive of its code built deterministically, so that the
same content is the same archive (and so the same version), and the command (and runtime)
its manifest names. The command line, the demo and the tests package bots here; the
limits are those of a submission (:mod:`arena.app.bots`), checked from the file system
before a file is read."""

from __future__ import annotations

import hashlib
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from arena.app import bots
from arena.app.errors import Invalid
from worker import archive
from worker.archive import Member

MANIFEST_FILE = "arena-bot.toml"
ARCHIVE_FORMAT = "tar"
# Left out of a folder's archive: what running the bot or a checkout leaves behind, and
# a JavaScript bot's packages (the platform's Node.js runtime has them: docs/bots.md).
SKIPPED_NAMES = frozenset(
    {"__pycache__", ".git", ".venv", ".mypy_cache", ".ruff_cache", "node_modules"}
)
#: The most a submission holds (arena.app.bots): checked here from the file system
#: before a file is read (the skipped ones left out), and by the application layer again.
MAX_BYTES = bots.MAX_BYTES
MAX_ENTRIES = bots.MAX_ENTRIES


@dataclass(frozen=True, slots=True)
class BotPackage:
    """What a submission stores: the archive bytes, and the command and runtime from the
    manifest (None: inferred from the command when submitted)."""

    archive: bytes
    command: list[str]
    runtime: str | None = None

    @property
    def content_hash(self) -> str:
        """sha256 of the archive, as the store computes it."""
        return hashlib.sha256(self.archive).hexdigest()


def _over_limit(what: str, limit: str) -> Invalid:
    return Invalid(
        f"{what}; a submission holds at most {limit}: leave out what the bot does not need "
        "to run (data, logs, build output) and submit again"
    )


_BYTES_LIMIT = f"{MAX_BYTES:,} bytes ({MAX_BYTES / 2**20:g} MiB)"
_ENTRIES_LIMIT = f"{MAX_ENTRIES:,} files and folders"


def _folder_files(root: Path) -> list[tuple[str, Path, int]]:
    """``(archive name, path, size)`` of each file under ``root``, in sorted order, from
    the file system alone: a symbolic link is refused, and the walk stops as soon as the
    entries (files and folders) pass :data:`MAX_ENTRIES` or the sizes :data:`MAX_BYTES`."""
    found: list[tuple[str, Path, int]] = []
    entries = total = 0
    folders = [root]
    while folders:
        with os.scandir(folders.pop()) as scan:
            for entry in scan:
                if entry.name in SKIPPED_NAMES:
                    continue
                path = Path(entry.path)
                if entry.is_symlink():
                    raise Invalid(f"{path} is a symbolic link; a bot folder holds plain files")
                entries += 1
                if entries > MAX_ENTRIES:
                    raise _over_limit(
                        f"{root} holds more than {_ENTRIES_LIMIT} (counting stopped at {path})",
                        _ENTRIES_LIMIT,
                    )
                if entry.is_dir(follow_symlinks=False):
                    folders.append(path)
                elif entry.is_file(follow_symlinks=False):
                    size = entry.stat(follow_symlinks=False).st_size
                    total += size
                    if total > MAX_BYTES:
                        raise _over_limit(
                            f"{root} holds more than {MAX_BYTES:,} bytes "
                            f"(counting stopped at {total:,} bytes, at {path})",
                            _BYTES_LIMIT,
                        )
                    found.append((path.relative_to(root).as_posix(), path, size))
    return sorted(found, key=lambda file: file[0])


def build_archive(files: list[tuple[str, Path, int]]) -> bytes:
    """The platform's own form of ``files`` (archive name, path, size found before):
    :func:`worker.archive.pack`, an uncompressed tar with normalized metadata (mtime 0,
    owner 0, mode 644 or 755 after the owner's execute bit), in the given order: the same
    names and contents always give the same bytes. A file is read no further than its
    size, so the limits checked hold."""
    members = []
    for name, path, size in files:
        with path.open("rb") as f:
            data = f.read(size + 1)
        if len(data) != size:
            raise Invalid(f"{path} changed while it was archived; submit again")
        members.append(Member(name, data, executable=bool(os.stat(path).st_mode & 0o100)))
    return archive.pack(members)


def read_manifest(manifest: Path) -> tuple[list[str], str | None]:
    """The ``command`` list and the ``runtime`` (None when absent) of a folder's manifest."""
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise Invalid(f"{manifest} is not valid TOML: {exc}") from exc
    runtime = data.get("runtime")
    if runtime is not None and runtime not in bots.RUNTIMES:
        raise Invalid(
            f"{manifest}: runtime = {runtime!r:.40} is not one the platform runs; set one of "
            + ", ".join(f'"{name}"' for name in bots.RUNTIMES)
        )
    command = data.get("command")
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(part, str) and part for part in command)
    ):
        raise Invalid(
            f'{manifest} must set command = ["program", "arg", ...] (a non-empty list of strings)'
        )
    return command, runtime


def package(path: Path) -> BotPackage:
    """The archive and command of a bot file (run with ``arena bot run``) or folder, within
    the limits of a submission."""
    if path.is_symlink():
        raise Invalid(
            f"{path} is a symbolic link; submit the file itself (a bot file is a plain file)"
        )
    if path.is_file():
        if path.suffix != ".py":
            raise Invalid(f"{path} is not a Python file (.py) or a bot folder")
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise _over_limit(f"{path} is {size:,} bytes", _BYTES_LIMIT)
        return BotPackage(
            build_archive([(path.name, path, size)]),
            ["python", "-m", "arena", "bot", "run", path.name],
            "python",
        )
    if path.is_dir():
        manifest = path / MANIFEST_FILE
        if not manifest.is_file():
            raise Invalid(f"{path} has no {MANIFEST_FILE} (it must set command = [...])")
        command, runtime = read_manifest(manifest)
        return BotPackage(build_archive(list(_folder_files(path))), command, runtime)
    raise Invalid(f"no bot file or folder {path}")
