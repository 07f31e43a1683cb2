"""Bots and their versions: a bot name with its owner, and each submitted version's code
archive and manifest, content-addressed (the same archive again is the same version)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from worker.store.base import StoreBase, StoreError


@dataclass(frozen=True, slots=True)
class BotVersion:
    """A submitted version of a bot (without its archive)."""

    id: int
    bot_id: int
    bot_name: str
    version: int
    content_hash: str
    game: str
    manifest: Mapping[str, Any]
    submitted_by: str

    @property
    def label(self) -> str:
        """``name@vN``, how listings name it."""
        return f"{self.bot_name}@v{self.version}"


class BotStore(StoreBase):
    """The store's bots and bot versions."""

    def add_bot(self, name: str, owner: str) -> int:
        """Register a bot name (or return the id of the existing one of that owner)."""

        def op(conn: psycopg.Connection) -> int:
            row = conn.execute(
                "INSERT INTO bots (name, owner) VALUES (%s, %s)"
                " ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name"
                " RETURNING id, owner",
                (name, owner),
            ).fetchone()
            assert row is not None
            if row[1] != owner:
                raise StoreError(f"bot name {name!r} belongs to another owner")
            return int(row[0])

        return self._run(op)

    def add_bot_version(
        self, bot_id: int, archive: bytes, manifest: Mapping[str, Any], submitted_by: str
    ) -> BotVersion:
        """Store a version of a bot: its code archive and manifest (``game`` and ``command``
        required). Submitting the same archive again returns the existing version."""
        for key in ("game", "command"):
            if key not in manifest:
                raise StoreError(f"the bot manifest must name {key!r}")
        content_hash = hashlib.sha256(archive).hexdigest()

        def op(conn: psycopg.Connection) -> BotVersion:
            with conn.transaction():
                conn.execute("SELECT 1 FROM bots WHERE id = %s FOR UPDATE", (bot_id,))
                conn.execute(
                    "INSERT INTO bot_versions"
                    " (bot_id, version, content_hash, archive, manifest, game, submitted_by)"
                    " SELECT %s, coalesce(max(version), 0) + 1, %s, %s, %s, %s, %s"
                    " FROM bot_versions WHERE bot_id = %s"
                    " ON CONFLICT (bot_id, content_hash) DO NOTHING",
                    (
                        bot_id,
                        content_hash,
                        archive,
                        Jsonb(dict(manifest)),
                        str(manifest["game"]),
                        submitted_by,
                        bot_id,
                    ),
                )
                row = conn.execute(
                    "SELECT id FROM bot_versions WHERE bot_id = %s AND content_hash = %s",
                    (bot_id, content_hash),
                ).fetchone()
            assert row is not None
            return self._bot_version(conn, int(row[0]))

        try:
            return self._run(op)
        except psycopg.errors.ForeignKeyViolation as exc:
            raise StoreError(f"no bot with id {bot_id}") from exc

    def bot_version(self, version_id: int) -> BotVersion:
        """A bot version by id."""
        return self._run(lambda conn: self._bot_version(conn, version_id))

    def bot_archive(self, version_id: int) -> bytes:
        """The code archive of a bot version."""
        row = self._run(
            lambda conn: conn.execute(
                "SELECT archive FROM bot_versions WHERE id = %s", (version_id,)
            ).fetchone()
        )
        if row is None:
            raise StoreError(f"no bot version with id {version_id}")
        return bytes(row[0])

    def _bot_version(self, conn: psycopg.Connection, version_id: int) -> BotVersion:
        row = conn.execute(
            "SELECT v.id, v.bot_id, b.name, v.version, v.content_hash, v.game, v.manifest,"
            " v.submitted_by FROM bot_versions v JOIN bots b ON b.id = v.bot_id WHERE v.id = %s",
            (version_id,),
        ).fetchone()
        if row is None:
            raise StoreError(f"no bot version with id {version_id}")
        return BotVersion(*row)

    def labels(self, version_ids: Sequence[int]) -> dict[int, str]:
        """``name@vN`` for each bot version id."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT v.id, b.name || '@v' || v.version FROM bot_versions v"
                " JOIN bots b ON b.id = v.bot_id WHERE v.id = ANY(%s)",
                (list(version_ids),),
            ).fetchall()
        )
        return {int(i): str(label) for i, label in rows}
