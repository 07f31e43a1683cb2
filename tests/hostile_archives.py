"""Hostile bot archives, as an attacker with an account uploads them (docs/sandbox.md,
"Archives"): each is refused at submission, and none unpacks on a worker."""

from __future__ import annotations

import gzip
import io
import struct
import tarfile
from pathlib import Path

BOT = b"from bots.sdk import Bot, run\n"


def tar_of(*members: tuple[tarfile.TarInfo, bytes | None], fmt: int = tarfile.PAX_FORMAT) -> bytes:
    """A tar of ``members`` (a file's data, None for other kinds), written by tarfile."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=fmt, encoding="latin-1") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return out.getvalue()


def file(name: str, data: bytes = BOT, mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.mode = mode
    return info, data


def special(name: str, kind: bytes, target: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info, None


def polyglot(hidden: bytes) -> bytes:
    """One file, two archives: read as a plain tar it holds a filler member (whose name
    is the gzip header) and ``bot.py``; read as gzip (tarfile's automatic mode tries
    gzip first) it is ``hidden``. The plain tar sits in the gzip header's extra field,
    which gzip readers skip."""

    def build(extra_length: int) -> bytes:
        # magic, deflate, FEXTRA; a time and flags with no NUL; the extra field's length
        head = b"\x1f\x8b\x08\x04\x01\x01\x01\x01\x02\x03" + struct.pack("<H", extra_length)
        return tar_of(
            file(head.decode("latin-1") + "filler", b"#" * 100),
            file("bot.py"),
            fmt=tarfile.USTAR_FORMAT,
        )

    outer = build(0)
    outer = build(len(outer) - 12)
    return outer + gzip.compress(hidden, mtime=0)[10:]  # the deflate stream and trailer


def escape_through(target: Path) -> bytes:
    """A tar that, unpacked by a reader that follows links, writes ``target/planted``."""
    return tar_of(
        file("bot.py"),
        special("out", tarfile.SYMTYPE, str(target)),
        file("out/planted", b"owned\n"),
    )


def gzip_bomb(mib: int = 200) -> bytes:
    """A gzip of a tar of ``mib`` MiB of zeros and a symlink: a few hundred KB."""
    zeros = tar_of(
        file("bot.py"), special("link", tarfile.SYMTYPE, "/etc"), file("zeros", bytes(mib << 20))
    )
    return gzip.compress(zeros, 9, mtime=0)


def links_in_gzip(target: Path) -> bytes:
    """Symbolic and hard links inside a compressed layer."""
    return gzip.compress(
        tar_of(
            file("bot.py"),
            special("sym", tarfile.SYMTYPE, str(target)),
            special("hard", tarfile.LNKTYPE, str(target / "secret")),
        ),
        mtime=0,
    )


def long_link_chain() -> bytes:
    """The layout of CVE-2025-4517: folders of long names, a symlink at each step
    pointing back through them, then a link out of the tree and a file through it
    (which ``tarfile``'s ``data`` filter let pass before Python 3.11.13)."""
    members: list[tuple[tarfile.TarInfo, bytes | None]] = [file("bot.py")]
    step = "d" * 247
    path = ""
    for i in range(16):
        folder = tarfile.TarInfo(path + step)
        folder.type = tarfile.DIRTYPE
        members.append((folder, None))
        members.append(special(path + chr(ord("a") + i), tarfile.SYMTYPE, step))
        path += step + "/"
    members.append(special("escape", tarfile.SYMTYPE, "/".join("a" * 16) + "/.." * 16))
    members.append(file("escape/root/.bashrc", b"owned\n"))
    return tar_of(*members)


def pax_megabytes(mib: int = 2) -> bytes:
    """A tar whose first member is a PAX header of ``mib`` MiB of digits: CVE-2024-6232,
    a regex over it quadratic in its size before Python 3.11.10."""
    digits = b"9" * (mib << 20)
    body = b"%d %s\n" % (len(digits) + 3, digits)
    info = tarfile.TarInfo("././@PaxHeader")
    info.type = tarfile.XHDTYPE
    info.size = len(body)
    return (
        info.tobuf(tarfile.USTAR_FORMAT) + body + bytes(-len(body) % 512) + tar_of(file("bot.py"))
    )
