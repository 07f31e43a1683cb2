"""Ratings as stored: the online Elo table of each game and its history, rebuilt from the
stored results on demand, and the batch standings of a game, tournament or ladder. The
arithmetic is :mod:`worker.ratings`; this is the SQL around it (``docs/storage.md``)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg

from worker import ratings
from worker.ratings import (
    INITIAL_RATING,
    BradleyTerryFit,
    DuplicateStanding,
    PairwiseTally,
    Standing,
)
from worker.store.base import StoreBase, StoreError


@dataclass(frozen=True, slots=True)
class RatingRow:
    """A bot version's online Elo in one game."""

    bot_version_id: int
    label: str
    rating: float
    games: int


@dataclass(frozen=True, slots=True)
class RecomputeStats:
    """What :meth:`RatingStore.recompute_ratings` did."""

    matches: int
    players: int
    seconds: float
    ratings: dict[int, float] = field(default_factory=dict)


class RatingStore(StoreBase):
    """The store's ratings: Elo tables and history, their recompute, and batch standings."""

    def ratings(self, game: str) -> list[RatingRow]:
        """The online Elo table of ``game``, best first."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT r.bot_version_id, coalesce(b.name || '@v' || v.version, '?'),"
                " r.rating, r.games FROM ratings r"
                " LEFT JOIN bot_versions v ON v.id = r.bot_version_id"
                " LEFT JOIN bots b ON b.id = v.bot_id"
                " WHERE r.game = %s ORDER BY r.rating DESC, r.bot_version_id",
                (game,),
            ).fetchall()
        )
        return [RatingRow(int(i), str(label), float(r), int(g)) for i, label, r, g in rows]

    def rating_history(
        self, game: str, bot_version_id: int, *, last: int | None = None
    ) -> list[tuple[int, int, float, float]]:
        """``(finish_seq, match_id, before, after)`` of each Elo update of a bot version, in
        completion order; with ``last``, only its newest ``last`` (read backwards along
        ``match_seats_history``, so as cheap for a version of a million games as for one of
        ten)."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT s.finish_seq, s.match_id, s.rating_before, s.rating_after"
                " FROM match_seats s JOIN matches m ON m.id = s.match_id"
                " WHERE s.bot_version_id = %s AND s.rating_after IS NOT NULL AND m.game = %s"
                " ORDER BY s.finish_seq DESC LIMIT %s",
                (bot_version_id, game, last),
            ).fetchall()
        )
        return [(int(s), int(m), float(b), float(a)) for s, m, b, a in reversed(rows)]

    def rating_trends(self, game: str, last: int = 10) -> dict[int, tuple[float, int]]:
        """Each rated bot version's Elo change over its last ``last`` updates in ``game``
        (its latest rating less its rating before the earliest of them), with how many
        updates that is: one index walk per version, not a scan of the game's history."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT r.bot_version_id, t.change, t.n FROM ratings r CROSS JOIN LATERAL ("
                " SELECT (array_agg(h.rating_after ORDER BY h.finish_seq DESC))[1]"
                " - (array_agg(h.rating_before ORDER BY h.finish_seq))[1] AS change,"
                " count(*) AS n FROM (SELECT s.finish_seq, s.rating_before, s.rating_after"
                " FROM match_seats s JOIN matches m ON m.id = s.match_id"
                " WHERE s.bot_version_id = r.bot_version_id AND s.rating_after IS NOT NULL"
                " AND m.game = r.game ORDER BY s.finish_seq DESC LIMIT %s) h) t"
                " WHERE r.game = %s AND t.n > 0",
                (last, game),
            ).fetchall()
        )
        return {int(v): (float(change), int(n)) for v, change, n in rows}

    def recompute_ratings(
        self, game: str, *, k: float | None = None, batch_size: int = 50_000
    ) -> RecomputeStats:
        """Rebuild the Elo table and history of ``game`` from the stored results, replayed
        in completion order with the same arithmetic as the online updates, streamed with
        a server-side cursor. Holds an exclusive lock on the ratings while it runs."""
        k = self.elo_k if k is None else k

        def op(conn: psycopg.Connection) -> RecomputeStats:
            started = time.perf_counter()
            table: dict[int, float] = {}
            games: dict[int, int] = {}
            count = 0
            with conn.transaction():
                # finishes lock their rating rows first: they wait for the recompute
                conn.execute("LOCK TABLE ratings IN EXCLUSIVE MODE")
                conn.execute(
                    "CREATE TEMP TABLE recomputed (match_id bigint, seat int, finish_seq bigint,"
                    " rating_before float8, rating_after float8) ON COMMIT DROP"
                )
                with conn.cursor(name="recompute", binary=True) as source:
                    source.execute(
                        "SELECT m.id, m.finish_seq, s.bot_version_id, s.rank, s.forfeit, s.seat"
                        " FROM matches m JOIN match_seats s ON s.match_id = m.id"
                        " WHERE m.game = %s AND m.finish_seq IS NOT NULL"
                        " ORDER BY m.finish_seq, s.seat",
                        (game,),
                    )
                    carry: list[tuple[Any, ...]] = []
                    while True:
                        # A batch from the server-side cursor, then one COPY of its history
                        # (a connection cannot fetch while a COPY is open). The last match of
                        # a batch may continue in the next one, so it is carried over.
                        batch = source.fetchmany(batch_size)
                        rows_in = carry + batch
                        if batch:
                            last = rows_in[-1][0]
                            cut = len(rows_in)
                            while cut > 0 and rows_in[cut - 1][0] == last:
                                cut -= 1
                            rows_in, carry = rows_in[:cut], rows_in[cut:]
                        else:
                            carry = []
                        history = []
                        for (match_id, seq), group in itertools.groupby(
                            rows_in, key=lambda r: (r[0], r[1])
                        ):
                            rows = list(group)
                            count += 1
                            n = len(rows)
                            players = [r[2] for r in rows]
                            ranks = [n if r[4] else r[3] for r in rows]
                            before = [table.get(p, INITIAL_RATING) for p in players]
                            after = ratings.elo_after(players, ranks, before, k)
                            seen: dict[int, tuple[int, float]] = {}  # version → first seat
                            for row, b in zip(rows, before, strict=True):
                                seen.setdefault(row[2], (row[5], b))
                            for p, a in zip(players, after, strict=True):
                                table[p] = a
                            for p, (seat, b) in seen.items():
                                games[p] = games.get(p, 0) + 1
                                history.append((match_id, seat, seq, b, table[p]))
                        if history:
                            with conn.cursor().copy(
                                "COPY recomputed (match_id, seat, finish_seq, rating_before,"
                                " rating_after) FROM STDIN"
                            ) as copy:
                                for item in history:
                                    copy.write_row(item)
                        if not batch:
                            break
                # the seats' updates that changed, and those no update is on any longer
                conn.execute(
                    "UPDATE match_seats s SET finish_seq = t.finish_seq,"
                    " rating_before = t.rating_before, rating_after = t.rating_after"
                    " FROM recomputed t WHERE s.match_id = t.match_id AND s.seat = t.seat"
                    " AND (s.finish_seq, s.rating_before, s.rating_after)"
                    " IS DISTINCT FROM (t.finish_seq, t.rating_before, t.rating_after)"
                )
                conn.execute(
                    "UPDATE match_seats s SET rating_before = NULL, rating_after = NULL"
                    " FROM matches m WHERE m.id = s.match_id AND m.game = %s"
                    " AND s.rating_after IS NOT NULL AND NOT EXISTS (SELECT 1 FROM recomputed t"
                    " WHERE t.match_id = s.match_id AND t.seat = s.seat)",
                    (game,),
                )
                conn.execute("DELETE FROM ratings WHERE game = %s", (game,))
                with conn.cursor().copy(
                    "COPY ratings (game, bot_version_id, rating, games) FROM STDIN"
                ) as copy:
                    for p, r in table.items():
                        copy.write_row((game, p, r, games[p]))
            return RecomputeStats(count, len(table), time.perf_counter() - started, dict(table))

        return self._run(op)

    def _results(
        self, conn: psycopg.Connection, where: str, params: Sequence[Any]
    ) -> Iterator[tuple[int, tuple[int | None, int] | None, list[tuple[int, int, int, bool]]]]:
        """(match id, duplicate set, [(bot version, rank, score, forfeit) per seat]) of done
        matches, in match id order (batch fits do not depend on completion order). A set is
        named by its tournament and number, since each tournament numbers its own sets."""
        with conn.cursor(name="results", binary=True) as cur:
            cur.itersize = 10_000
            cur.execute(
                "SELECT m.id, m.tournament_id, m.duplicate_set,"
                " s.bot_version_id, s.rank, s.score, s.forfeit"
                " FROM matches m JOIN match_seats s ON s.match_id = m.id"
                f" WHERE m.state = 'done' AND {where} ORDER BY m.id, s.seat",
                params,
            )
            for (match_id, tournament, dup), group in itertools.groupby(
                cur, key=lambda r: (r[0], r[1], r[2])
            ):
                key = None if dup is None else (tournament, dup)
                yield match_id, key, [(r[3], r[4], r[5], r[6]) for r in group]

    def _scope(
        self, game: str | None, tournament_id: int | None, ladder_id: int | None
    ) -> tuple[str, list[Any]]:
        where, params = [], []
        for column, value in (
            ("m.game", game),
            ("m.tournament_id", tournament_id),
            ("m.ladder_id", ladder_id),
        ):
            if value is not None:
                where.append(f"{column} = %s")
                params.append(value)
        if not where:
            raise StoreError("give a game, a tournament or a ladder")
        return " AND ".join(where), params

    def _tally(
        self, game: str | None, tournament_id: int | None, ladder_id: int | None
    ) -> PairwiseTally:
        """The pairwise games of a pool's stored results. The games of one match, or of one
        duplicate set, form one cluster (they are correlated, which the intervals account
        for)."""
        where, params = self._scope(game, tournament_id, ladder_id)

        def op(conn: psycopg.Connection) -> PairwiseTally:
            tally = PairwiseTally()
            with conn.transaction():
                for match_id, dup, seats in self._results(conn, where, params):
                    cluster = ("match", match_id) if dup is None else ("set", dup)
                    tally.add_match([ratings.SeatResult(v, r, f) for v, r, _, f in seats], cluster)
            return tally

        return self._run(op)

    def standings(
        self,
        *,
        game: str | None = None,
        tournament_id: int | None = None,
        ladder_id: int | None = None,
        prior_draws: float = 1.0,
    ) -> list[Standing]:
        """Batch Bradley–Terry ratings over every stored result of a game, tournament or
        ladder (a pool), with 95% intervals; independent of completion order."""
        tally = self._tally(game, tournament_id, ladder_id)
        return ratings.bradley_terry(tally, prior_draws=prior_draws)

    def bradley_terry_fit(
        self,
        *,
        game: str | None = None,
        tournament_id: int | None = None,
        ladder_id: int | None = None,
        prior_draws: float = 1.0,
    ) -> BradleyTerryFit:
        """The batch fit behind :meth:`standings`: every player's strength relative to the
        pool mean and their covariance, for comparing any two players."""
        tally = self._tally(game, tournament_id, ladder_id)
        return ratings.fit_bradley_terry(tally, prior_draws=prior_draws)

    def duplicate_standings(
        self,
        *,
        game: str | None = None,
        tournament_id: int | None = None,
        ladder_id: int | None = None,
    ) -> list[DuplicateStanding]:
        """Each bot version's results over whole duplicate sets (docs/architecture.md,
        decision 8)."""
        where, params = self._scope(game, tournament_id, ladder_id)
        where += " AND m.duplicate_set IS NOT NULL"

        def op(conn: psycopg.Connection) -> dict[Hashable, list[list[tuple[Hashable, float]]]]:
            sets: dict[Hashable, list[list[tuple[Hashable, float]]]] = {}
            with conn.transaction():
                for _, dup, seats in self._results(conn, where, params):
                    sets.setdefault(dup, []).append([(v, float(s)) for v, _, s, _ in seats])
            return sets

        return ratings.duplicate_standings(self._run(op))
