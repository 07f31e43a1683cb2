"""Matches: the state machine ``queued → running → done | failed | cancelled``
(docs/architecture.md, decision 6), and the record and seat results of each finished match.
:meth:`MatchStore.claim_match` takes a match in one atomic statement;
:meth:`MatchStore.finish_match` checks a finished match against its record and its row, then
commits the record, the seat results and the Elo updates in one transaction, exactly once.
A record is kept as ``bytes`` (decision 7)."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal, get_args

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from worker import ratings
from worker.store import packing
from worker.store.base import StoreBase, StoreError, one_trip_transaction
from worker.store.finished import FinishedMatch, InvalidResult, SeatOutcome, check_finished

#: Where a match stands in the state machine, as the ``matches.state`` column spells it
#: (its CHECK, migration 0001, allows these and nothing else).
MatchState = Literal["queued", "running", "done", "failed", "cancelled"]
MATCH_STATES: tuple[MatchState, ...] = get_args(MatchState)


class UnknownMatch(StoreError):
    """A match id that names no match."""

    def __init__(self, match_id: int) -> None:
        super().__init__(f"no match {match_id}")
        self.match_id = match_id


class CorruptRecord(StoreError):
    """A stored record whose bytes no longer match their checksum, or that cannot be decoded."""

    def __init__(self, match_id: int, reason: str) -> None:
        super().__init__(f"match {match_id}: the stored record is corrupt ({reason})")
        self.match_id = match_id


def _unpacked(match_id: int, game: str, format: str, data: Any, digest: Any) -> bytes:
    """A stored record as the referee wrote it; :class:`CorruptRecord` if it does not
    unpack or its bytes do not match their sha256."""
    try:
        record = packing.unpack(game, format, bytes(data))
    except packing.DictionaryError:  # the install's fault, not the record's
        raise
    except packing.PackingError as exc:
        raise CorruptRecord(match_id, str(exc)) from exc
    if hashlib.sha256(record).digest() != bytes(digest):
        raise CorruptRecord(match_id, "its bytes do not match their sha256")
    return record


def referee_match_id(match_id: int, attempt: int, holder: str) -> str:
    """The referee's id of one play of a match: the match, its attempt and the end of the
    holder's name (``m12a1-3f9c2e``). :meth:`MatchStore.claim_match` writes the same into
    the row's live location (``_LIVE_MATCH``)."""
    return f"m{match_id}a{attempt}-{holder[-6:]}"


#: :func:`referee_match_id` in SQL, of the claimed row (its attempt once incremented).
_LIVE_MATCH = "'m' || m.id || 'a' || (m.attempts + 1) || '-' || right(%(holder)s, 6)"


def seed_commitment(seed: int, salt: bytes) -> bytes:
    """sha256(8-byte big-endian seed || salt): published before play, checked after."""
    return hashlib.sha256(seed.to_bytes(8, "big") + salt).digest()


#: How recently a remote bot's host must have seen it connected for it to be online
#: (seconds): the host refreshes it every third of that (:mod:`worker.remote`).
REMOTE_ONLINE_S = 15.0
#: A claim's condition on a match's remote seats: each is connected to the claiming host.
_REMOTE_SEATS_HERE = """NOT EXISTS (
    SELECT 1 FROM match_seats rs JOIN bot_versions rv ON rv.id = rs.bot_version_id
    WHERE rs.match_id = matches.id AND rv.remote
      AND NOT EXISTS (SELECT 1 FROM remote_sessions r
                      WHERE r.bot_version_id = rv.id AND r.host = %(remote_host)s
                        AND r.seen_at > now() - make_interval(secs => %(online)s)))"""


@dataclass(frozen=True, slots=True)
class Match:
    """A match row and the bot version in each seat."""

    id: int
    game: str
    options: Mapping[str, Any]
    seed: int
    seed_salt: bytes
    seed_commitment: bytes
    seats: tuple[int, ...]
    state: MatchState
    attempts: int
    max_attempts: int
    lease_holder: str | None
    lease_expires: datetime | None
    tournament_id: int | None
    ladder_id: int | None
    duplicate_set: int | None
    rotation: int | None
    error: str | None
    finish_seq: int | None
    created_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class WorkerLog:
    """What a worker logged about one play of a match (:meth:`MatchStore.keep_worker_log`):
    the attempt, the worker (its host and pid), when it was kept, and its lines, each
    ``{"time", "level", "logger", "message", "seat"}`` (``seat`` None: about no one seat)."""

    attempt: int
    worker: str
    kept_at: datetime
    lines: tuple[Mapping[str, Any], ...]


#: The plays of a match whose worker's lines are kept: the newest.
WORKER_LOGS_KEPT = 10


@dataclass(frozen=True, slots=True)
class RecordEntry:
    """One record in a listing: the decoded value, or why it could not be read."""

    match_id: int
    value: Any = None
    error: str | None = None


_MATCH_COLUMNS = (
    "m.id, m.game, m.options, m.seed, m.seed_salt, m.seed_commitment, m.state, m.attempts,"
    " m.max_attempts, m.lease_holder, m.lease_expires, m.tournament_id, m.ladder_id,"
    " m.duplicate_set, m.rotation, m.error, m.finish_seq, m.created_at, m.finished_at"
)
_SEATS_OF = (
    "(SELECT array_agg(s.bot_version_id ORDER BY s.seat) FROM match_seats s"
    " WHERE s.match_id = m.id)"
)

#: The first half of a finish, one statement: lock the match row if it is ``running``
#: under its holder and of the record's game and number of seats (no row: it was not
#: theirs, or the record does not fit it, and nothing else happens; a concurrent
#: finisher of the same match waits here, then finds it ``done``), then lock the
#: rating rows of its bot versions in bot-version order (so concurrent finishers never
#: deadlock), creating missing ones at 1500: ON CONFLICT DO UPDATE locks an existing row,
#: waiting for a concurrent finisher, and returns its latest committed rating. The
#: completion number is drawn last, once the aggregate over ``locked`` has consumed every
#: locked row: among matches sharing a bot, finish_seq order is the order in which their
#: rating updates were applied. Returns (game, seated bot versions by seat, locked bot
#: versions, their ratings before, finish_seq).
_FINISH_LOCK = """
    WITH done AS (
        SELECT id, game FROM matches
        WHERE id = %(id)s AND state = 'running' AND lease_holder = %(holder)s
            AND game = %(game)s AND num_seats = %(num_seats)s
        FOR UPDATE),
    seated AS (
        SELECT s.seat, s.bot_version_id FROM done d JOIN match_seats s ON s.match_id = d.id),
    locked AS (
        INSERT INTO ratings AS r (game, bot_version_id)
        SELECT d.game, p.v FROM done d, (SELECT DISTINCT bot_version_id AS v FROM seated) p
        ORDER BY p.v
        ON CONFLICT (game, bot_version_id) DO UPDATE SET rating = r.rating
        RETURNING r.bot_version_id, r.rating),
    rated AS (
        SELECT array_agg(bot_version_id) AS versions, array_agg(rating) AS before FROM locked)
    SELECT d.game, (SELECT array_agg(bot_version_id ORDER BY seat) FROM seated),
        rated.versions, rated.before, nextval('match_finish_seq')
    FROM done d, rated"""

#: Why a finish found no row to lock, read only then: no such match, a record of another
#: game or number of seats, or else the match is not ``running`` under the holder. It
#: takes no lock, and that is safe: a match's game and number of seats never change and
#: its id is never reused, so the answer holds whatever happened to the match since.
_FINISH_REFUSED = "SELECT game, num_seats FROM matches WHERE id = %s"

#: The second half of a finish, one statement: the match ``done`` with its completion
#: number (one new version of the row), the seat results with the Elo update each bot
#: version went through (on its first seat), the record (packed), and the new ratings.
_FINISH_WRITE = """
    WITH numbered AS (
        UPDATE matches SET state = 'done', finished_at = now(), lease_holder = NULL,
            lease_expires = NULL, error = %(note)s, finish_seq = %(seq)s
        WHERE id = %(id)s),
    results AS (
        UPDATE match_seats s
        SET rank = u.rank, score = u.score, status = u.status, forfeit = u.forfeit,
            finish_seq = CASE WHEN u.after IS NOT NULL THEN %(seq)s::bigint END,
            rating_before = u.before, rating_after = u.after
        FROM unnest(%(seats)s::int[], %(ranks)s::int[], %(scores)s::int[],
            %(statuses)s::text[], %(forfeits)s::boolean[], %(befores)s::float8[],
            %(afters)s::float8[]) AS u(seat, rank, score, status, forfeit, before, after)
        WHERE s.match_id = %(id)s AND s.seat = u.seat),
    stored AS (
        INSERT INTO match_records (match_id, format, record, record_sha256, num_actions,
            duration_ms)
        VALUES (%(id)s, %(format)s, %(record)b, %(sha)b, %(num_actions)s, %(duration_ms)s))
    UPDATE ratings r SET rating = u.rating, games = r.games + 1, updated_at = now()
    FROM unnest(%(rated)s::bigint[], %(after)s::float8[]) AS u(v, rating)
    WHERE r.game = %(game)s AND r.bot_version_id = u.v"""


def _match(row: Mapping[str, Any]) -> Match:
    seed = row["seed"]
    return Match(
        id=row["id"],
        game=row["game"],
        options=row["options"],
        seed=int(seed) if isinstance(seed, Decimal) else seed,
        seed_salt=bytes(row["seed_salt"]),
        seed_commitment=bytes(row["seed_commitment"]),
        seats=tuple(row["seats"] or ()),
        state=row["state"],
        attempts=row["attempts"],
        max_attempts=row["max_attempts"],
        lease_holder=row["lease_holder"],
        lease_expires=row["lease_expires"],
        tournament_id=row["tournament_id"],
        ladder_id=row["ladder_id"],
        duplicate_set=row["duplicate_set"],
        rotation=row["rotation"],
        error=row["error"],
        finish_seq=row["finish_seq"],
        created_at=row["created_at"],
        finished_at=row["finished_at"],
    )


class MatchStore(StoreBase):
    """The store's matches, from queued to done, and their records."""

    def create_match(
        self,
        game: str,
        seats: Sequence[int],
        *,
        options: Mapping[str, Any] | None = None,
        seed: int | None = None,
        tournament_id: int | None = None,
        ladder_id: int | None = None,
        duplicate_set: int | None = None,
        rotation: int | None = None,
        max_attempts: int = 3,
    ) -> Match:
        """Queue a match: the bot version in each seat; a random seed unless given. The seed
        commitment is stored with it, before any play. Enqueue its task after this returns
        (the row is committed)."""
        if not seats:
            raise StoreError("a match needs at least one seat")
        if seed is None:
            seed = secrets.randbits(64)
        salt = secrets.token_bytes(16)

        def op(conn: psycopg.Connection) -> Match:
            with conn.transaction():
                row = conn.execute(
                    "INSERT INTO matches (game, options, seed, seed_salt, seed_commitment,"
                    " num_seats, tournament_id, ladder_id, duplicate_set, rotation, max_attempts)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
                    (
                        game,
                        Jsonb(dict(options or {})),
                        Decimal(seed),
                        salt,
                        seed_commitment(seed, salt),
                        len(seats),
                        tournament_id,
                        ladder_id,
                        duplicate_set,
                        rotation,
                        max_attempts,
                    ),
                ).fetchone()
                assert row is not None
                conn.cursor().executemany(
                    "INSERT INTO match_seats (match_id, seat, bot_version_id) VALUES (%s, %s, %s)",
                    [(row[0], seat, version) for seat, version in enumerate(seats)],
                )
                found = self._get_match(conn, int(row[0]))
                assert found is not None
                return found

        try:
            return self._run(op)
        except psycopg.errors.ForeignKeyViolation as exc:
            raise StoreError(f"unknown bot version or tournament: {exc}") from exc

    def match(self, match_id: int) -> Match | None:
        """A match by id, or None."""
        return self._run(lambda conn: self._get_match(conn, match_id))

    def _get_match(self, conn: psycopg.Connection, match_id: int) -> Match | None:
        with conn.cursor(row_factory=dict_row) as cur:
            row = cur.execute(
                f"SELECT {_MATCH_COLUMNS}, {_SEATS_OF} AS seats FROM matches m WHERE m.id = %s",
                (match_id,),
            ).fetchone()
        return None if row is None else _match(row)

    def list_matches(
        self,
        *,
        game: str | None = None,
        state: MatchState | None = None,
        bot_version_id: int | None = None,
        tournament_id: int | None = None,
        limit: int = 100,
    ) -> list[Match]:
        """Matches, newest first, filtered by game, state, bot version or tournament. Reads
        no record, so a corrupt record never breaks a listing."""
        where, params = ["true"], []
        for column, value in (
            ("m.game", game),
            ("m.state", state),
            ("m.tournament_id", tournament_id),
        ):
            if value is not None:
                where.append(f"{column} = %s")
                params.append(value)
        if bot_version_id is not None:
            where.append(
                "EXISTS (SELECT 1 FROM match_seats s WHERE s.match_id = m.id"
                " AND s.bot_version_id = %s)"
            )
            params.append(bot_version_id)
        params.append(limit)

        def op(conn: psycopg.Connection) -> list[Match]:
            with conn.cursor(row_factory=dict_row) as cur:
                rows = cur.execute(
                    f"SELECT {_MATCH_COLUMNS}, {_SEATS_OF} AS seats FROM matches m"
                    f" WHERE {' AND '.join(where)} ORDER BY m.id DESC LIMIT %s",
                    params,
                ).fetchall()
            return [_match(r) for r in rows]

        return self._run(op)

    def seats_remote_bot(self, match_id: int) -> bool:
        """Whether the queued match ``match_id`` seats a remote bot."""
        row = self._run(
            lambda conn: conn.execute(
                "SELECT 1 FROM matches m JOIN match_seats s ON s.match_id = m.id"
                " JOIN bot_versions v ON v.id = s.bot_version_id"
                " WHERE m.id = %s AND m.state = 'queued' AND v.remote LIMIT 1",
                (match_id,),
            ).fetchone()
        )
        return row is not None

    def claim_match(
        self,
        holder: str,
        *,
        lease_seconds: float = 60.0,
        match_id: int | None = None,
        tournament_id: int | None = None,
        remote_host: str | None = None,
        live_referee: str | None = None,
    ) -> Match | None:
        """Take a queued match (or one whose lease expired) for ``holder``, in one atomic
        statement; None when there is none (or ``match_id`` is not claimable, or the
        tournament ``tournament_id`` has none). A second caller never gets the same match
        while the lease holds. A match seating a remote bot is claimed only by the host
        its bot is connected to (``remote_host``, :data:`REMOTE_ONLINE_S`). With
        ``live_referee`` (the referee address the play will run on) the claim also
        records the live location, as :meth:`set_live` would, the referee's match id
        being :func:`referee_match_id` of the claim."""
        only = "AND id = %(id)s" if match_id is not None else ""
        if tournament_id is not None:
            only += " AND tournament_id = %(tournament)s"
        only += f" AND {_REMOTE_SEATS_HERE}"
        # The lowest claimable id is the smaller of the first queued match (an index scan
        # of matches_queued in id order that stops at the first row it can lock) and the
        # first match whose lease expired (matches_running_lease; normally none). One scan
        # over both conditions would read and sort every queued match on each claim.
        sql = f"""
            WITH claimed AS (
                UPDATE matches m
                SET state = 'running', attempts = m.attempts + 1, lease_holder = %(holder)s,
                    lease_expires = now() + %(lease)s * interval '1 second',
                    started_at = now(), live_referee = %(live)s::text,
                    live_match = CASE WHEN %(live)s::text IS NOT NULL THEN {_LIVE_MATCH} END
                WHERE m.id = least(
                    (SELECT id FROM matches
                     WHERE state = 'queued' AND attempts < max_attempts {only}
                       AND (not_before IS NULL OR not_before <= now())
                     ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED),
                    (SELECT id FROM matches
                     WHERE state = 'running' AND lease_expires < now()
                       AND attempts < max_attempts {only}
                     ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED))
                  AND (m.state = 'queued' OR (m.state = 'running' AND m.lease_expires < now()))
                RETURNING m.*)
            SELECT {_MATCH_COLUMNS}, {_SEATS_OF} AS seats FROM claimed m
            WHERE set_config('synchronous_commit', 'off', true) IS NOT NULL"""
        params = {
            "holder": holder,
            "lease": lease_seconds,
            "id": match_id,
            "tournament": tournament_id,
            "remote_host": remote_host,
            "online": REMOTE_ONLINE_S,
            "live": live_referee,
        }

        def op(conn: psycopg.Connection) -> Match | None:
            # A claim need not survive a server crash: if it is lost, the match is claimable
            # again and the holder's finish is refused, so its commit skips the wait for the
            # WAL flush. The statement is its own transaction (the connection is in
            # autocommit) and sets synchronous_commit = off for that transaction only
            # (set_config(..., true) is SET LOCAL), once it has claimed a row: one round trip.
            with conn.cursor(row_factory=dict_row) as cur:
                row = cur.execute(sql, params).fetchone()
            return None if row is None else _match(row)

        return self._run(op)

    def renew_lease(self, match_id: int, holder: str, lease_seconds: float = 60.0) -> bool:
        """Extend the lease of a running match held by ``holder``; False if it is no longer
        theirs."""
        return match_id in self.renew_leases([(match_id, holder)], lease_seconds)

    def renew_leases(
        self, held: Sequence[tuple[int, str]], lease_seconds: float = 60.0
    ) -> set[int]:
        """Extend the leases of the running matches in ``held`` (match id, holder), in one
        statement; returns the ids renewed (a match missing from it is no longer its
        holder's)."""
        if not held:
            return set()
        rows = self._run(
            lambda conn: conn.execute(
                "UPDATE matches m SET lease_expires = now() + %s * interval '1 second'"
                " FROM unnest(%s::bigint[], %s::text[]) AS h(id, holder)"
                " WHERE m.id = h.id AND m.state = 'running' AND m.lease_holder = h.holder"
                " RETURNING m.id",
                (lease_seconds, [m for m, _ in held], [h for _, h in held]),
            ).fetchall()
        )
        return {int(r[0]) for r in rows}

    def fail_match(
        self,
        match_id: int,
        holder: str,
        error: str,
        *,
        retry: bool = True,
        started: bool = True,
        wait_s: float = 0.0,
    ) -> MatchState | None:
        """Give up a running match: back to ``queued`` while attempts remain (and ``retry``),
        not claimed again for ``wait_s`` seconds (a retry's back-off), else ``failed``.
        A play that never ``started`` (the platform failed before the deal: its referee
        gone, say) gives its attempt back: attempts count only plays that started.
        Returns the new state, or None if the match was not ``holder``'s."""
        row = self._run(
            lambda conn: conn.execute(
                "UPDATE matches SET attempts = attempts - CASE WHEN %(started)s THEN 0 ELSE 1 END,"
                " state = CASE WHEN %(retry)s AND (attempts < max_attempts OR NOT %(started)s)"
                " THEN 'queued' ELSE 'failed' END,"
                " lease_holder = NULL, lease_expires = NULL, error = %(error)s,"
                " not_before = now() + %(wait)s * interval '1 second',"
                " finished_at = CASE WHEN %(retry)s AND (attempts < max_attempts"
                " OR NOT %(started)s) THEN NULL ELSE now() END"
                " WHERE id = %(id)s AND state = 'running' AND lease_holder = %(holder)s"
                " RETURNING state",
                {
                    "started": started,
                    "retry": retry,
                    "error": error,
                    "wait": wait_s,
                    "id": match_id,
                    "holder": holder,
                },
            ).fetchone()
        )
        if row is None:
            return None
        state: MatchState = row[0]
        return state

    def retry_failed(self, tournament_id: int, attempts: int = 3) -> list[int]:
        """Put the tournament's failed matches back in the queue, each with ``attempts``
        more attempts; returns their ids (none the second time: a queued, running or
        finished match is left as it is)."""
        rows = self._run(
            lambda conn: conn.execute(
                "UPDATE matches SET state = 'queued', max_attempts = attempts + %s,"
                " finished_at = NULL, not_before = NULL, dispatched_at = now()"
                " WHERE tournament_id = %s AND state = 'failed' RETURNING id",
                (attempts, tournament_id),
            ).fetchall()
        )
        return sorted(int(r[0]) for r in rows)

    def next_claim_in(
        self, tournament_id: int | None = None, *, match_id: int | None = None
    ) -> float | None:
        """Seconds until a queued match of the tournament (or the match ``match_id``) may
        be claimed: 0 if one may now, more while they wait out a retry's back-off; None
        when none is queued."""
        row = self._run(
            lambda conn: conn.execute(
                "SELECT extract(epoch FROM min(coalesce(not_before, now())) - now())"
                " FROM matches WHERE state = 'queued' AND attempts < max_attempts"
                " AND (%(t)s::bigint IS NULL OR tournament_id = %(t)s)"
                " AND (%(m)s::bigint IS NULL OR id = %(m)s)",
                {"t": tournament_id, "m": match_id},
            ).fetchone()
        )
        return None if row is None or row[0] is None else max(0.0, float(row[0]))

    def mark_dispatched(self, tournament_id: int) -> None:
        """Note that work (drain tasks) was sent for the tournament now: from then on the
        sweep sends it again whenever the tournament is stranded (:meth:`stranded`)."""
        self._run(
            lambda conn: conn.execute(
                "UPDATE tournaments SET dispatched_at = now() WHERE id = %s", (tournament_id,)
            )
        )

    def stranded(self, idle_s: float) -> tuple[dict[int, int], list[int]]:
        """Queued matches that no task is working on, found from Postgres alone (the
        broker may have lost its tasks): (tournament id → its claimable matches, lone
        match ids). A tournament that was sent work (:meth:`mark_dispatched`) is stranded
        when it has claimable queued matches, none running, and none of its matches was
        created, claimed or finished, nor work sent for it, in the last ``idle_s``
        seconds; a match of no tournament when it is claimable and was queued, tried or
        sent for that long ago. Each is marked as sent for (``dispatched_at``) in the same
        transaction, so its work is enqueued once per ``idle_s`` at most."""
        # Driven by the queued matches (the partial index matches_queued): the cost
        # follows the work waiting, not the tournaments and matches ever played.
        tournaments = """
            WITH waiting AS (
                SELECT tournament_id AS id, count(*) AS claimable FROM matches
                WHERE state = 'queued' AND tournament_id IS NOT NULL
                  AND attempts < max_attempts AND (not_before IS NULL OR not_before <= now())
                GROUP BY tournament_id),
            stuck AS (
                SELECT t.id, w.claimable FROM tournaments t JOIN waiting w ON w.id = t.id
                WHERE t.dispatched_at < now() - %(idle)s * interval '1 second'
                  AND NOT EXISTS (
                    SELECT 1 FROM matches a WHERE a.tournament_id = t.id
                      AND (a.state = 'running'
                           OR greatest(a.started_at, a.finished_at, a.created_at)
                              >= now() - %(idle)s * interval '1 second'))
                FOR UPDATE OF t SKIP LOCKED)
            UPDATE tournaments t SET dispatched_at = now() FROM stuck
            WHERE t.id = stuck.id RETURNING t.id, stuck.claimable"""
        singles = """
            UPDATE matches SET dispatched_at = now()
            WHERE id IN (
                SELECT id FROM matches
                WHERE state = 'queued' AND tournament_id IS NULL
                  AND attempts < max_attempts AND (not_before IS NULL OR not_before <= now())
                  AND greatest(dispatched_at, started_at, not_before, created_at)
                      < now() - %(idle)s * interval '1 second'
                ORDER BY id FOR UPDATE SKIP LOCKED)
            RETURNING id"""

        def op(conn: psycopg.Connection) -> tuple[dict[int, int], list[int]]:
            with conn.transaction():
                found = conn.execute(tournaments, {"idle": idle_s}).fetchall()
                lone = conn.execute(singles, {"idle": idle_s}).fetchall()
            return {int(t): int(n) for t, n in found}, sorted(int(r[0]) for r in lone)

        return self._run(op)

    def cancel_tournament(self, tournament_id: int) -> list[int]:
        """Cancel the tournament's queued matches (those running finish) and mark it
        ``cancelled``, in one transaction; returns the cancelled matches' ids."""

        def op(conn: psycopg.Connection) -> list[int]:
            with conn.transaction():
                rows = conn.execute(
                    "UPDATE matches SET state = 'cancelled', finished_at = now()"
                    " WHERE tournament_id = %s AND state = 'queued' RETURNING id",
                    (tournament_id,),
                ).fetchall()
                conn.execute(
                    "UPDATE tournaments SET state = 'cancelled' WHERE id = %s", (tournament_id,)
                )
            return sorted(int(r[0]) for r in rows)

        return self._run(op)

    def cancel_match(self, match_id: int) -> bool:
        """Cancel a queued or running match; False if it had already ended."""
        row = self._run(
            lambda conn: conn.execute(
                "UPDATE matches SET state = 'cancelled', lease_holder = NULL,"
                " lease_expires = NULL, finished_at = now()"
                " WHERE id = %s AND state IN ('queued', 'running') RETURNING id",
                (match_id,),
            ).fetchone()
        )
        return row is not None

    def requeue_expired(self) -> dict[int, MatchState]:
        """Sweep running matches whose lease expired: back to ``queued``, or ``failed`` when
        out of attempts. Returns match id → new state."""
        rows = self._run(
            lambda conn: conn.execute(
                "UPDATE matches SET state = CASE WHEN attempts < max_attempts"
                " THEN 'queued' ELSE 'failed' END,"
                " error = 'lease expired (attempt ' || attempts || ' of ' || max_attempts || ')',"
                " finished_at = CASE WHEN attempts < max_attempts THEN NULL ELSE now() END,"
                " lease_holder = NULL, lease_expires = NULL"
                " WHERE state = 'running' AND lease_expires < now() RETURNING id, state"
            ).fetchall()
        )
        return {int(i): s for i, s in rows}

    def finish_match(self, match_id: int, holder: str, finished: FinishedMatch) -> bool:
        """Commit a finished match held by ``holder``: its record, seat results and the Elo
        updates, in one transaction. True if this call finished it; False (and nothing
        changed) if it was already finished, cancelled, or is no longer ``holder``'s.
        Raises :class:`InvalidResult` (and changes nothing) when the record does not parse,
        is of an aborted match or has no result, is inconsistent in itself, is of another
        game or number of seats than the match, or a seat's result is out of range, of an
        unknown status or too large for its column; :class:`UnknownMatch` when there is no
        match ``match_id``.

        Before the transaction the record's header and result are checked, and the seat
        results to store read from it (:func:`check_finished`); the engine is not re-run on
        its actions,
        which is ``arena verify``'s job. Then two round trips and one durable commit: BEGIN
        and :data:`_FINISH_LOCK` (the match row and the rating rows locked, the ratings
        before, the completion number), then :data:`_FINISH_WRITE` (state ``done``,
        results with each version's Elo update, the record packed by
        :mod:`worker.store.packing`, ratings) and COMMIT. The Elo arithmetic runs in Python in
        between, the same :func:`worker.ratings.elo_after` that the recompute replays. Only
        a refused finish costs one more statement, :data:`_FINISH_REFUSED`, to say why."""
        checked = check_finished(match_id, finished)
        game, num_seats, results = checked.game, checked.num_seats, checked.results
        packed_format, packed = packing.pack(game, finished.record)
        lock = {"id": match_id, "holder": holder, "game": game, "num_seats": num_seats}

        def op(conn: psycopg.Connection) -> bool:
            with conn.cursor() as cur, one_trip_transaction(conn):
                row = cur.execute(_FINISH_LOCK, lock).fetchone()
                if row is None:
                    known = cur.execute(_FINISH_REFUSED, (match_id,)).fetchone()
                    if known is None:
                        raise UnknownMatch(match_id)
                    if known[0] != game:
                        raise InvalidResult(
                            match_id, f"the record is of game {game!r}, the match of {known[0]!r}"
                        )
                    if known[1] != num_seats:
                        raise InvalidResult(
                            match_id, f"the record has {num_seats} seats, the match {known[1]}"
                        )
                    return False
                _, seated, locked, before_locked, finish_seq = row
                players = [int(p) for p in seated or ()]
                if len(players) != num_seats:  # match_seats holds one row per seat
                    raise StoreError(
                        f"match {match_id}: {len(players)} seated bot versions "
                        f"for {num_seats} seats"
                    )
                current = {int(v): float(r) for v, r in zip(locked, before_locked, strict=True)}
                ranks = ratings.effective_ranks(
                    [
                        ratings.SeatResult(p, r.rank, r.forfeit)
                        for p, r in zip(players, results, strict=True)
                    ]
                )
                before = [current[p] for p in players]
                after = ratings.elo_after(players, ranks, before, self.elo_k)
                final = dict(zip(players, after, strict=True))
                # each version's update goes on its first seat (a version may fill several)
                first = {p: seat for seat, p in reversed(list(enumerate(players)))}
                befores = [current[p] if first[p] == s else None for s, p in enumerate(players)]
                afters = [final[p] if first[p] == s else None for s, p in enumerate(players)]
                cur.execute(
                    _FINISH_WRITE,
                    {
                        "id": match_id,
                        "seq": finish_seq,
                        "game": game,
                        "seats": [r.seat for r in results],
                        "ranks": [r.rank for r in results],
                        "scores": [r.score for r in results],
                        "statuses": [r.status for r in results],
                        "forfeits": [r.forfeit for r in results],
                        "befores": befores,
                        "afters": afters,
                        "format": packed_format,
                        "record": packed,
                        "sha": hashlib.sha256(finished.record).digest(),
                        "num_actions": checked.num_actions,
                        "duration_ms": finished.duration_ms,
                        "note": finished.note,
                        "rated": list(final),
                        "after": list(final.values()),
                    },
                )
                return True

        return self._run(op)

    def keep_match_logs(self, match_id: int, logs: Mapping[int, str]) -> None:
        """Keep what each seat's bot wrote during the match (seat → text; NUL bytes,
        which text cannot hold, become U+FFFD)."""
        if not logs:
            return
        rows = [(match_id, seat, text.replace("\0", "\ufffd")) for seat, text in logs.items()]
        self._run(
            lambda conn: conn.cursor().executemany(
                "INSERT INTO match_logs (match_id, seat, log) VALUES (%s, %s, %s)"
                " ON CONFLICT (match_id, seat) DO UPDATE SET log = excluded.log",
                rows,
            )
        )

    def keep_worker_log(
        self, match_id: int, attempt: int, worker: str, lines: Sequence[Mapping[str, Any]]
    ) -> None:
        """Keep what ``worker`` logged about its play of the match (attempt ``attempt``),
        and of the match's plays only the newest :data:`WORKER_LOGS_KEPT`, in one
        transaction."""

        def op(conn: psycopg.Connection) -> None:
            with conn.transaction():
                conn.execute(
                    "INSERT INTO match_worker_logs (match_id, attempt, worker, lines)"
                    " VALUES (%s, %s, %s, %s)",
                    (match_id, attempt, worker, Jsonb(list(lines))),
                )
                conn.execute(
                    "DELETE FROM match_worker_logs WHERE match_id = %(id)s AND id <= ("
                    " SELECT id FROM match_worker_logs WHERE match_id = %(id)s"
                    " ORDER BY id DESC OFFSET %(kept)s LIMIT 1)",
                    {"id": match_id, "kept": WORKER_LOGS_KEPT},
                )

        self._run(op)

    def worker_logs(self, match_id: int) -> list[WorkerLog]:
        """What the workers that played the match logged about it, oldest play first."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT attempt, worker, kept_at, lines FROM match_worker_logs"
                " WHERE match_id = %s ORDER BY id",
                (match_id,),
            ).fetchall()
        )
        return [WorkerLog(int(a), str(w), k, tuple(lines)) for a, w, k, lines in rows]

    def match_log(self, match_id: int, seat: int) -> str | None:
        """What the seat's bot wrote during the match, or None if nothing was kept."""
        row = self._run(
            lambda conn: conn.execute(
                "SELECT log FROM match_logs WHERE match_id = %s AND seat = %s", (match_id, seat)
            ).fetchone()
        )
        return None if row is None else str(row[0])

    def keep_analysis(
        self, match_id: int, seat: int, analysis: Mapping[str, Any], budget_ms: int, made_by: str
    ) -> None:
        """Keep the analysis of one seat of a finished match (the first one kept stays)."""
        self._run(
            lambda conn: conn.execute(
                "INSERT INTO match_analyses (match_id, seat, budget_ms, made_by, analysis)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (match_id, seat) DO NOTHING",
                (match_id, seat, budget_ms, made_by, Jsonb(dict(analysis))),
            )
        )

    def analysis(self, match_id: int, seat: int) -> dict[str, Any] | None:
        """The kept analysis of one seat of a match, or None."""
        row = self._run(
            lambda conn: conn.execute(
                "SELECT analysis FROM match_analyses WHERE match_id = %s AND seat = %s",
                (match_id, seat),
            ).fetchone()
        )
        return None if row is None else dict(row[0])

    # -- records -----------------------------------------------------------------------

    def record(self, match_id: int) -> bytes:
        """The stored record of a finished match; CorruptRecord if its bytes changed."""
        row = self._run(
            lambda conn: conn.execute(
                "SELECT m.game, r.format, r.record, r.record_sha256 FROM match_records r"
                " JOIN matches m ON m.id = r.match_id WHERE r.match_id = %s",
                (match_id,),
            ).fetchone()
        )
        if row is None:
            raise StoreError(f"match {match_id} has no stored record")
        return _unpacked(match_id, *row)

    def records(
        self,
        match_ids: Sequence[int],
        decode: Callable[[bytes], Any] = bytes,
    ) -> list[RecordEntry]:
        """The records of ``match_ids`` decoded with ``decode``; a record that is missing,
        corrupt or fails to decode becomes an entry with an error naming its match, and the
        others are still returned."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT r.match_id, m.game, r.format, r.record, r.record_sha256"
                " FROM match_records r JOIN matches m ON m.id = r.match_id"
                " WHERE r.match_id = ANY(%s)",
                (list(match_ids),),
            ).fetchall()
        )
        found = {int(row[0]): row[1:] for row in rows}
        entries = []
        for match_id in match_ids:
            if match_id not in found:
                entries.append(RecordEntry(match_id, error=f"match {match_id}: no stored record"))
                continue
            try:
                data = _unpacked(match_id, *found[match_id])
                try:
                    value = decode(data)
                except Exception as exc:
                    raise CorruptRecord(match_id, f"cannot decode: {exc}") from exc
            except CorruptRecord as exc:
                entries.append(RecordEntry(match_id, error=str(exc)))
            else:
                entries.append(RecordEntry(match_id, value=value))
        return entries

    def mark_stopped_by(self, match_id: int, limits: Mapping[int, str]) -> None:
        """Note which limit of the sandbox stopped each of these seats' bots."""
        if not limits:
            return
        self._run(
            lambda conn: conn.cursor().executemany(
                "UPDATE match_seats SET stopped_by = %s WHERE match_id = %s AND seat = %s",
                [(limit, match_id, seat) for seat, limit in limits.items()],
            )
        )

    def seat_results(self, match_id: int) -> list[SeatOutcome]:
        """The seat results of a finished match."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT seat, rank, score, status, forfeit, stopped_by FROM match_seats"
                " WHERE match_id = %s AND rank IS NOT NULL ORDER BY seat",
                (match_id,),
            ).fetchall()
        )
        return [SeatOutcome(*r) for r in rows]

    # -- what spectators may see -------------------------------------------------------

    def set_live(self, match_id: int, holder: str, referee: str, referee_match: str) -> bool:
        """Record where the running match held by ``holder`` is played (its referee's
        address and the referee's id of the match), for the live view; False if the
        match is not running under ``holder``. Leaving ``running`` or changing hands clears
        it (migration 0004), so only the play that holds the claim can name an address.
        Like a claim, it does not wait for its commit to reach the disk: a location lost
        in a server crash only leaves the live view to wait for the match's end."""
        row = self._run(
            lambda conn: conn.execute(
                "UPDATE matches SET live_referee = %s, live_match = %s"
                " WHERE id = %s AND state = 'running' AND lease_holder = %s"
                " AND set_config('synchronous_commit', 'off', true) IS NOT NULL RETURNING id",
                (referee, referee_match, match_id, holder),
            ).fetchone()
        )
        return row is not None

    def clear_live(self, match_id: int, holder: str) -> None:
        """The play of ``holder`` no longer serves the match's live view."""
        self._run(
            lambda conn: conn.execute(
                "UPDATE matches SET live_referee = NULL, live_match = NULL"
                " WHERE id = %s AND lease_holder = %s AND live_referee IS NOT NULL",
                (match_id, holder),
            )
        )

    def live_location(self, match_id: int) -> tuple[str, str] | None:
        """Where a running match is played, as its worker recorded it under its claim:
        (referee address, referee's match id); None when it is not running, its worker
        has not said, or the claim's lease has expired (the worker may be gone)."""
        row = self._run(
            lambda conn: conn.execute(
                "SELECT live_referee, live_match FROM matches WHERE id = %s"
                " AND state = 'running' AND live_referee IS NOT NULL AND lease_expires > now()",
                (match_id,),
            ).fetchone()
        )
        return None if row is None else (str(row[0]), str(row[1]))

    def held_matches(self, match_ids: Sequence[int]) -> set[int]:
        """Those of ``match_ids`` that share their duplicate deal (decision 8: the set of
        their tournament) with another match still queued or running: what they show,
        live or replayed, reveals the hands and stock that the other is playing
        (decision 13). One statement; each match's own set is found through the index
        on ``duplicate_set``, so the cost does not grow with the tournament."""
        if not match_ids:
            return set()
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT m.id FROM matches m WHERE m.id = ANY(%s::bigint[])"
                " AND m.duplicate_set IS NOT NULL AND EXISTS ("
                " SELECT 1 FROM matches o WHERE o.duplicate_set = m.duplicate_set"
                " AND o.tournament_id IS NOT DISTINCT FROM m.tournament_id"
                " AND o.id <> m.id AND o.state IN ('queued', 'running'))",
                (list(match_ids),),
            ).fetchall()
        )
        return {int(r[0]) for r in rows}
