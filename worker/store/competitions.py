"""Tournaments and ladders: the pools of one game whose matches are rated together."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from worker.store.base import StoreBase


class CompetitionStore(StoreBase):
    """The store's tournaments and ladders and the bot versions entered in them."""

    def create_tournament(
        self,
        name: str,
        game: str,
        entries: Sequence[int] = (),
        *,
        format: str = "round-robin",
        options: Mapping[str, Any] | None = None,
        duplicate: bool = False,
    ) -> int:
        """A tournament of ``game`` with its entered bot versions."""

        def op(conn: psycopg.Connection) -> int:
            with conn.transaction():
                row = conn.execute(
                    "INSERT INTO tournaments (name, game, format, options, duplicate)"
                    " VALUES (%s, %s, %s, %s, %s) RETURNING id",
                    (name, game, format, Jsonb(dict(options or {})), duplicate),
                ).fetchone()
                assert row is not None
                conn.cursor().executemany(
                    "INSERT INTO tournament_entries (tournament_id, bot_version_id)"
                    " VALUES (%s, %s)",
                    [(row[0], v) for v in entries],
                )
                return int(row[0])

        return self._run(op)

    def create_ladder(
        self, name: str, game: str, *, options: Mapping[str, Any] | None = None
    ) -> int:
        """A ladder (an open-ended pool) of ``game``."""
        row = self._run(
            lambda conn: conn.execute(
                "INSERT INTO ladders (name, game, options) VALUES (%s, %s, %s) RETURNING id",
                (name, game, Jsonb(dict(options or {}))),
            ).fetchone()
        )
        assert row is not None
        return int(row[0])

    def join_ladder(self, ladder_id: int, version_id: int) -> None:
        """Enter a bot version in a ladder (idempotent)."""
        self._run(
            lambda conn: conn.execute(
                "INSERT INTO ladder_entries (ladder_id, bot_version_id) VALUES (%s, %s)"
                " ON CONFLICT DO NOTHING",
                (ladder_id, version_id),
            )
        )
