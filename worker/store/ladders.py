"""Ladders: an open-ended pool of one game in which the newest version of every bot plays
on, its Plackett–Luce rating (μ, σ) kept per ladder (``ladder_ratings``) and brought up to
date by the scheduler's tick, in completion order."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from worker.store.base import StoreBase, StoreError
from worker.store.bots import LABEL_SQL
from worker.store.competitions import ScheduledMatch, SeatResultRow, TableResult
from worker.store.matches import MATCH_STATES, REMOTE_ONLINE_S, seed_commitment


@dataclass(frozen=True, slots=True)
class Ladder:
    """A ladder row: its game, settings (game options, clock, matches in flight,
    placement games, table size), and whether it runs."""

    id: int
    name: str
    game: str
    settings: Mapping[str, Any]
    active: bool
    created_at: datetime


@dataclass(frozen=True, slots=True)
class LadderStanding:
    """A bot version of a ladder's pool: its label, ladder rating and games, when it last
    played, and its online Elo in the game."""

    version: int
    label: str
    mu: float | None
    sigma: float | None
    games: int
    last_played_at: datetime | None
    elo: float | None


@dataclass(frozen=True, slots=True)
class TickPlan:
    """What one tick decided for a ladder: the new ratings, and the matches to queue."""

    ratings: Mapping[int, tuple[float, float]]
    played: Mapping[int, int]  # ladder games added per bot version
    matches: Sequence[ScheduledMatch]


def _ladder(row: Mapping[str, Any]) -> Ladder:
    return Ladder(
        id=row["id"],
        name=row["name"],
        game=row["game"],
        settings=row["options"],
        active=row["active"],
        created_at=row["created_at"],
    )


#: The newest playable (qualified or exempt) version of every bot of the ladder's game,
#: with its ladder rating and Elo; a retired bot, or one withdrawn from the ladder, leaves
#: the pool (its finished matches are still rated), and so does a remote bot while it is
#: not connected (:data:`~worker.store.matches.REMOTE_ONLINE_S`).
_POOL = f"""
    SELECT DISTINCT ON (v.bot_id) v.id, {LABEL_SQL}, lr.mu, lr.sigma,
        coalesce(lr.games, 0), lr.last_played_at, r.rating
    FROM bot_versions v JOIN bots b ON b.id = v.bot_id
    LEFT JOIN ladder_ratings lr ON lr.ladder_id = %(ladder)s AND lr.bot_version_id = v.id
    LEFT JOIN ratings r ON r.game = v.game AND r.bot_version_id = v.id
    WHERE v.game = %(game)s AND b.retired_at IS NULL
      AND v.qualification IN ('exempt', 'qualified')
      AND (NOT v.remote OR EXISTS (SELECT 1 FROM remote_sessions rs
                                   WHERE rs.bot_version_id = v.id
                                     AND rs.seen_at > now() - make_interval(secs => %(online)s)))
      AND NOT EXISTS (SELECT 1 FROM ladder_withdrawals w
                      WHERE w.ladder_id = %(ladder)s AND w.bot_id = b.id)
    ORDER BY v.bot_id, v.version DESC"""


class LadderStore(StoreBase):
    """The store's ladders, their pools and their ratings."""

    def start_ladder(self, game: str, name: str, settings: Mapping[str, Any]) -> Ladder:
        """Create the ladder ``name`` of ``game``, or make it run again with new
        ``settings``; StoreError if that name is a ladder of another game."""

        def op(conn: psycopg.Connection) -> Ladder:
            with conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
                row = cur.execute(
                    "INSERT INTO ladders (name, game, options) VALUES (%s, %s, %s)"
                    " ON CONFLICT (name) DO UPDATE SET active = true, options = excluded.options"
                    " WHERE ladders.game = excluded.game RETURNING *",
                    (name, game, Jsonb(dict(settings))),
                ).fetchone()
                if row is None:
                    raise StoreError(f"ladder {name!r} is a ladder of another game")
                return _ladder(row)

        return self._run(op)

    def stop_ladder(self, name: str) -> bool:
        """Stop scheduling the ladder's matches (those queued still play); False if no
        such running ladder."""
        row = self._run(
            lambda conn: conn.execute(
                "UPDATE ladders SET active = false WHERE name = %s AND active RETURNING id",
                (name,),
            ).fetchone()
        )
        return row is not None

    def ladders(self, *, game: str | None = None, active: bool | None = None) -> list[Ladder]:
        """Ladders, oldest first, filtered by game and by whether they run."""

        def op(conn: psycopg.Connection) -> list[Ladder]:
            with conn.cursor(row_factory=dict_row) as cur:
                rows = cur.execute(
                    "SELECT * FROM ladders WHERE (%(game)s::text IS NULL OR game = %(game)s)"
                    " AND (%(active)s::boolean IS NULL OR active = %(active)s) ORDER BY id",
                    {"game": game, "active": active},
                ).fetchall()
            return [_ladder(r) for r in rows]

        return self._run(op)

    def set_withdrawn(self, ladder_id: int, bot_id: int, withdrawn: bool) -> bool:
        """Withdraw the bot from the ladder's pool, or let it join again; whether that
        changed anything."""
        sql = (
            "INSERT INTO ladder_withdrawals (ladder_id, bot_id) VALUES (%s, %s)"
            " ON CONFLICT DO NOTHING RETURNING bot_id"
            if withdrawn
            else "DELETE FROM ladder_withdrawals WHERE ladder_id = %s AND bot_id = %s"
            " RETURNING bot_id"
        )
        row = self._run(lambda conn: conn.execute(sql, (ladder_id, bot_id)).fetchone())
        return row is not None

    @staticmethod
    def _pool_params(ladder: Ladder) -> dict[str, Any]:
        return {"ladder": ladder.id, "game": ladder.game, "online": REMOTE_ONLINE_S}

    def ladder_standings(self, ladder: Ladder) -> list[LadderStanding]:
        """The ladder's pool (the newest version of each bot of its game)."""
        rows = self._run(lambda conn: conn.execute(_POOL, self._pool_params(ladder)).fetchall())
        return [
            LadderStanding(int(v), str(label), mu, sigma, int(games), last, elo)
            for v, label, mu, sigma, games, last, elo in rows
        ]

    def ladder_progress(self, ladder_id: int) -> dict[str, int]:
        """How many of the ladder's matches are in each state: those done are the ones its
        ticks have rated, counted as they were (migration 0016), and those not rated yet."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT state, count(*) FROM matches"
                " WHERE ladder_id = %(id)s AND state <> 'done' GROUP BY state"
                " UNION ALL SELECT 'done', l.rated_matches + (SELECT count(*) FROM matches m"
                "   WHERE m.ladder_id = l.id AND m.state = 'done' AND NOT m.ladder_counted)"
                " FROM ladders l WHERE l.id = %(id)s",
                {"id": ladder_id},
            ).fetchall()
        )
        counts: dict[str, int] = dict.fromkeys(MATCH_STATES, 0)
        counts.update({str(s): int(n) for s, n in rows})
        return counts

    def tick_ladder(
        self,
        ladder_id: int,
        plan: Callable[[Ladder, list[LadderStanding], list[TableResult], int], TickPlan],
    ) -> list[int]:
        """One tick of a ladder, in one transaction: lock its row (a tick already
        running elsewhere skips it), read its pool, its matches finished since the last
        tick (completion order) and how many are queued or running; ``plan`` returns the
        new ratings and the matches to queue; store both. Returns the queued match ids
        (enqueue them after this returns)."""

        def op(conn: psycopg.Connection) -> list[int]:
            with conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
                row = cur.execute(
                    "SELECT * FROM ladders WHERE id = %s FOR UPDATE SKIP LOCKED",
                    (ladder_id,),
                ).fetchone()
                if row is None:
                    return []
                ladder = _ladder(row)
                pool = [
                    LadderStanding(int(v), str(label), mu, sigma, int(g), last, elo)
                    for v, label, mu, sigma, g, last, elo in conn.execute(
                        _POOL, self._pool_params(ladder)
                    ).fetchall()
                ]
                results = _not_yet_rated(conn, ladder.id)
                flight = conn.execute(
                    "SELECT count(*) FROM matches WHERE ladder_id = %s"
                    " AND state IN ('queued', 'running')",
                    (ladder.id,),
                ).fetchone()
                decided = plan(ladder, pool, results, int(flight[0] if flight else 0))
                conn.execute("UPDATE ladders SET ticked_at = now() WHERE id = %s", (ladder.id,))
                if results:
                    conn.execute(
                        "UPDATE matches SET ladder_counted = true WHERE id = ANY(%s)",
                        ([r.match_id for r in results],),
                    )
                if decided.ratings:
                    conn.cursor().executemany(
                        "INSERT INTO ladder_ratings AS lr (ladder_id, bot_version_id, mu, sigma,"
                        " games, last_played_at) VALUES (%s, %s, %s, %s, %s, now())"
                        " ON CONFLICT (ladder_id, bot_version_id) DO UPDATE SET mu = excluded.mu,"
                        " sigma = excluded.sigma, games = lr.games + excluded.games,"
                        " last_played_at = now()",
                        [
                            (ladder.id, v, mu, sigma, decided.played.get(v, 0))
                            for v, (mu, sigma) in decided.ratings.items()
                        ],
                    )
                return _queue(conn, ladder, decided.matches)

        return self._run(op)


#: The most finished matches one tick rates: the oldest; the next tick takes the rest, in
#: the same completion order (a ladder that was stopped for a while catches up in a few
#: ticks of bounded length, not one long transaction).
TICK_RATES = 2_000


def _not_yet_rated(conn: psycopg.Connection, ladder_id: int) -> list[TableResult]:
    """The ladder's oldest :data:`TICK_RATES` finished matches that no tick has rated yet,
    in completion order (the tick that reads them marks them in the same transaction)."""
    rows = conn.execute(
        "SELECT m.id, s.bot_version_id, s.rank, s.score, s.status, s.forfeit"
        " FROM (SELECT id, finish_seq FROM matches"
        "       WHERE ladder_id = %s AND state = 'done' AND NOT ladder_counted"
        "       ORDER BY finish_seq LIMIT %s) m"
        " JOIN match_seats s ON s.match_id = m.id ORDER BY m.finish_seq, s.seat",
        (ladder_id, TICK_RATES),
    ).fetchall()
    out: dict[int, list[SeatResultRow]] = {}
    for match_id, v, rank, score, status, forfeit in rows:
        out.setdefault(int(match_id), []).append(
            SeatResultRow(int(v), rank, score, status, forfeit)
        )
    return [TableResult(m, None, tuple(seats)) for m, seats in out.items()]


def _queue(
    conn: psycopg.Connection, ladder: Ladder, matches: Sequence[ScheduledMatch]
) -> list[int]:
    import secrets

    ids = []
    options = Jsonb(dict(ladder.settings.get("options") or {}))
    for m in matches:
        salt = secrets.token_bytes(16)
        row = conn.execute(
            "INSERT INTO matches (game, options, seed, seed_salt, seed_commitment, num_seats,"
            " ladder_id) VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (
                ladder.game,
                options,
                Decimal(m.seed),
                salt,
                seed_commitment(m.seed, salt),
                len(m.seats),
                ladder.id,
            ),
        ).fetchone()
        assert row is not None
        ids.append(int(row[0]))
        conn.cursor().executemany(
            "INSERT INTO match_seats (match_id, seat, bot_version_id) VALUES (%s, %s, %s)",
            [(row[0], seat, v) for seat, v in enumerate(m.seats)],
        )
    return ids
