"""Tournaments and ladders: the pools of one game whose matches are rated together."""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal, get_args

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from referee.record import SeatStatus
from worker.store.base import Allowance, StoreBase, StoreError, spend
from worker.store.matches import MATCH_STATES, seed_commitment

#: Where a tournament stands, as the ``tournaments.state`` column spells it (its CHECK,
#: migration 0001, allows these and nothing else).
TournamentState = Literal["open", "running", "done", "cancelled"]
TOURNAMENT_STATES: tuple[TournamentState, ...] = get_args(TournamentState)


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament row and its entered bot versions."""

    id: int
    name: str
    game: str
    format: str
    options: Mapping[str, Any]
    duplicate: bool
    state: TournamentState
    created_at: datetime
    entries: tuple[int, ...]
    created_by: str | None = None  # its creator's user name (None: made before users)


@dataclass(frozen=True, slots=True)
class ScheduledMatch:
    """A match to queue: the bot version per seat, the seed, and its duplicate set and
    rotation (None outside duplicate deals)."""

    seats: tuple[int, ...]
    seed: int
    duplicate_set: int | None = None
    rotation: int | None = None


@dataclass(frozen=True, slots=True)
class SeatResultRow:
    """One seat of a done match: the bot version and its result."""

    version: int
    rank: int
    score: int
    status: SeatStatus
    forfeit: bool


@dataclass(frozen=True, slots=True)
class TableResult:
    """A done match of a tournament with its seats' results, in seat order."""

    match_id: int
    duplicate_set: int | None
    seats: tuple[SeatResultRow, ...]


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
        created_by: str | None = None,
        allowance: Allowance | None = None,
    ) -> int:
        """A tournament of ``game`` with its entered bot versions, made by the user
        ``created_by``; with ``allowance``, :class:`AllowanceSpent` when its user has made
        theirs (counted and written in one transaction)."""

        def op(conn: psycopg.Connection) -> int:
            with conn.transaction():
                spend(conn, allowance)
                row = conn.execute(
                    "INSERT INTO tournaments (name, game, format, options, duplicate,"
                    " created_by) VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
                    (name, game, format, Jsonb(dict(options or {})), duplicate, created_by),
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

    def tournament(self, tournament_id: int) -> Tournament:
        """A tournament and its entries; StoreError if there is none."""
        return self._run(lambda conn: _tournament(conn, tournament_id))

    def list_tournaments(self, limit: int = 50, *, offset: int = 0) -> list[Tournament]:
        """The newest tournaments, from the ``offset``-th newest on."""
        ids = self._run(
            lambda conn: conn.execute(
                "SELECT id FROM tournaments ORDER BY id DESC LIMIT %s OFFSET %s", (limit, offset)
            ).fetchall()
        )
        return [self.tournament(int(i)) for (i,) in ids]

    def schedule_matches(
        self,
        tournament_id: int,
        game: str,
        options: Mapping[str, Any],
        matches: Sequence[ScheduledMatch],
        *,
        max_attempts: int = 3,
    ) -> list[int]:
        """Queue a tournament's matches in one transaction (all or none), each with its
        seed committed to, and mark the tournament ``running``; returns their ids in the
        order given. Enqueue their tasks after this returns."""

        def op(conn: psycopg.Connection) -> list[int]:
            with conn.transaction():
                return _insert_matches(conn, tournament_id, game, options, matches, max_attempts)

        return self._run(op)

    def advance_duel(
        self,
        tournament_id: int,
        step: Callable[[Tournament, list[TableResult], dict[str, int]], DuelStep],
    ) -> list[int]:
        """One step of a duel (``worker.duel``), in one transaction under its tournament's
        row lock (a step running elsewhere is waited for, and this one then sees its
        work): ``step`` is given the duel, its done matches (match id order) and how many
        of its matches are in each state, and returns the matches to queue, or the test's
        result. With a result, the duel's queued matches are cancelled and it is marked
        ``done``, the result (with how many were cancelled) kept in its options under
        ``result``. A tournament that is not a duel, or no longer runs, is left alone.
        Returns the ids of the matches queued (enqueue their tasks after this returns)."""

        def op(conn: psycopg.Connection) -> list[int]:
            with conn.transaction():
                locked = conn.execute(
                    "SELECT id FROM tournaments WHERE id = %s AND format = 'duel'"
                    " AND state IN ('open', 'running') FOR UPDATE",
                    (tournament_id,),
                ).fetchone()
                if locked is None:
                    return []
                duel = _tournament(conn, tournament_id)
                decided = step(duel, _results(conn, tournament_id), _progress(conn, tournament_id))
                if decided.result is None:
                    game_options = duel.options.get("options") or {}
                    return _insert_matches(conn, duel.id, duel.game, game_options, decided.matches)
                cancelled = conn.execute(
                    "UPDATE matches SET state = 'cancelled', finished_at = now()"
                    " WHERE tournament_id = %s AND state = 'queued' RETURNING id",
                    (tournament_id,),
                ).fetchall()
                conn.execute(
                    "UPDATE tournaments SET state = 'done',"
                    " options = options || jsonb_build_object('result', %s::jsonb)"
                    " WHERE id = %s",
                    (Jsonb({**decided.result, "cancelled": len(cancelled)}), tournament_id),
                )
                return []

        return self._run(op)

    def running_duels(self) -> list[int]:
        """The ids of the duels still running (``worker.duel.tick`` steps each)."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT id FROM tournaments WHERE format = 'duel'"
                " AND state IN ('open', 'running') ORDER BY id"
            ).fetchall()
        )
        return [int(r[0]) for r in rows]

    def tournament_progress(self, tournament_id: int) -> dict[str, int]:
        """How many of the tournament's matches are in each state (every state named)."""
        return self._run(lambda conn: _progress(conn, tournament_id))

    def set_tournament_state(self, tournament_id: int, state: TournamentState) -> None:
        """Mark a tournament ``open``, ``running``, ``done`` or ``cancelled``."""
        self._run(
            lambda conn: conn.execute(
                "UPDATE tournaments SET state = %s WHERE id = %s", (state, tournament_id)
            )
        )

    def tournament_results(
        self, tournament_id: int, *, known: Collection[int] = ()
    ) -> list[TableResult]:
        """Every done match of the tournament but those in ``known`` (match ids a caller
        has read already): its id, duplicate set, and per seat the bot version, rank,
        score, status and forfeit, in match id order."""
        return self._run(lambda conn: _results(conn, tournament_id, known))


@dataclass(frozen=True, slots=True)
class DuelStep:
    """What a duel's step decided: the matches to queue, or (the test over) its result."""

    matches: Sequence[ScheduledMatch] = ()
    result: Mapping[str, Any] | None = None


def _tournament(conn: psycopg.Connection, tournament_id: int) -> Tournament:
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            "SELECT t.*, (SELECT coalesce(array_agg(e.bot_version_id"
            " ORDER BY e.bot_version_id), '{}') FROM tournament_entries e"
            " WHERE e.tournament_id = t.id) AS entries"
            " FROM tournaments t WHERE t.id = %s",
            (tournament_id,),
        ).fetchone()
    if row is None:
        raise StoreError(f"no tournament {tournament_id}")
    return Tournament(
        id=row["id"],
        name=row["name"],
        game=row["game"],
        format=row["format"],
        options=row["options"],
        duplicate=row["duplicate"],
        state=row["state"],
        created_at=row["created_at"],
        entries=tuple(int(v) for v in row["entries"]),
        created_by=row["created_by"],
    )


def _insert_matches(
    conn: psycopg.Connection,
    tournament_id: int,
    game: str,
    options: Mapping[str, Any],
    matches: Sequence[ScheduledMatch],
    max_attempts: int = 3,
) -> list[int]:
    """Insert the matches (within the caller's transaction) and mark the tournament
    ``running``; their ids in the order given."""
    ids = []
    with conn.cursor() as cur:
        for m in matches:
            salt = secrets.token_bytes(16)
            row = cur.execute(
                "INSERT INTO matches (game, options, seed, seed_salt, seed_commitment,"
                " num_seats, tournament_id, duplicate_set, rotation, max_attempts)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
                (
                    game,
                    Jsonb(dict(options)),
                    Decimal(m.seed),
                    salt,
                    seed_commitment(m.seed, salt),
                    len(m.seats),
                    tournament_id,
                    m.duplicate_set,
                    m.rotation,
                    max_attempts,
                ),
            ).fetchone()
            assert row is not None
            ids.append(int(row[0]))
        cur.executemany(
            "INSERT INTO match_seats (match_id, seat, bot_version_id) VALUES (%s, %s, %s)",
            [
                (match_id, seat, version)
                for match_id, m in zip(ids, matches, strict=True)
                for seat, version in enumerate(m.seats)
            ],
        )
        cur.execute("UPDATE tournaments SET state = 'running' WHERE id = %s", (tournament_id,))
    return ids


def _progress(conn: psycopg.Connection, tournament_id: int) -> dict[str, int]:
    rows = conn.execute(
        "SELECT state, count(*) FROM matches WHERE tournament_id = %s GROUP BY state",
        (tournament_id,),
    ).fetchall()
    counts: dict[str, int] = dict.fromkeys(MATCH_STATES, 0)
    counts.update({str(s): int(n) for s, n in rows})
    return counts


def _results(
    conn: psycopg.Connection, tournament_id: int, known: Collection[int] = ()
) -> list[TableResult]:
    rows = conn.execute(
        "SELECT m.id, m.duplicate_set, s.bot_version_id, s.rank, s.score, s.status,"
        " s.forfeit FROM matches m JOIN match_seats s ON s.match_id = m.id"
        " WHERE m.tournament_id = %s AND m.state = 'done' AND m.id <> ALL(%s::bigint[])"
        " ORDER BY m.id, s.seat",
        (tournament_id, list(known)),
    ).fetchall()
    out: list[TableResult] = []
    for (match_id, dup), group in itertools.groupby(rows, key=lambda r: (r[0], r[1])):
        out.append(
            TableResult(
                int(match_id),
                None if dup is None else int(dup),
                tuple(SeatResultRow(int(v), r, sc, st, f) for _, _, v, r, sc, st, f in group),
            )
        )
    return out
