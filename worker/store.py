"""The repository layer over Postgres that the worker, the CLI and the web viewer share:
plain SQL through psycopg 3 and a psycopg_pool ConnectionPool (``docs/storage.md``).

The match state machine (ARCHITECTURE decision 6): ``queued → running → done | failed |
cancelled``. :meth:`Store.claim_match` takes a match in one atomic statement;
:meth:`Store.finish_match` checks a finished match against its record and its row, then
commits the record, the seat results and the Elo updates in one transaction, exactly once.
The store keeps a record as ``bytes`` (decision 7); to check a finish it reads the record's
header and result, and never re-runs the engine on it (``arena verify`` does).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import secrets
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, TypeVar

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from referee.clock import ClockRules
from referee.engine import OptionsError, UnknownGameError, get_game
from referee.record import FORMAT_VERSION, SOURCES, STATUSES, OptionScalar
from rummyarena.v1 import common_pb2, record_pb2
from worker import db, ratings
from worker.ratings import INITIAL_RATING, DuplicateStanding, PairwiseTally, Standing

T = TypeVar("T")

ELO_K_ENV = "ARENA_ELO_K"
MATCH_STATES = ("queued", "running", "done", "failed", "cancelled")
#: The only record format the store takes: the protobuf ``MatchRecord`` of referee.codec.
RECORD_FORMAT = "MatchRecord"
#: The range of an ``integer`` column (scores, action counts, durations).
_INT4_MIN, _INT4_MAX = -(2**31), 2**31 - 1


class StoreError(Exception):
    """A request the store refuses (unknown id, inconsistent results)."""


class UnknownMatch(StoreError):
    """A match id that names no match."""

    def __init__(self, match_id: int) -> None:
        super().__init__(f"no match {match_id}")
        self.match_id = match_id


class InvalidResult(StoreError):
    """A finished match the store refuses, naming the match and what is wrong: a record
    that does not parse, of an aborted match, with no result, inconsistent in itself or
    that does not fit the match, or a seat result that is out of range, of an unknown
    status, too large for its column, or not what the record says."""

    def __init__(self, match_id: int, reason: str) -> None:
        super().__init__(f"match {match_id}: {reason}")
        self.match_id = match_id
        self.reason = reason


class CorruptRecord(StoreError):
    """A stored record whose bytes no longer match their checksum, or that cannot be decoded."""

    def __init__(self, match_id: int, reason: str) -> None:
        super().__init__(f"match {match_id}: the stored record is corrupt ({reason})")
        self.match_id = match_id


def seed_commitment(seed: int, salt: bytes) -> bytes:
    """sha256(8-byte big-endian seed || salt): published before play, checked after."""
    return hashlib.sha256(seed.to_bytes(8, "big") + salt).digest()


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
    state: str
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
class SeatOutcome:
    """One seat's result: rank (0 = first), score, status (ok, timeout, invalid, crashed,
    disconnected) and whether it forfeited (a forfeit ranks last for ratings)."""

    seat: int
    rank: int
    score: int
    status: str = "ok"
    forfeit: bool = False


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    """What a worker hands in when a match ends: the encoded record and the seat results."""

    record: bytes
    results: Sequence[SeatOutcome]
    format: str = RECORD_FORMAT
    num_actions: int | None = None
    duration_ms: int | None = None


@dataclass(frozen=True, slots=True)
class RatingRow:
    """A bot version's online Elo in one game."""

    bot_version_id: int
    label: str
    rating: float
    games: int


@dataclass(frozen=True, slots=True)
class RecordEntry:
    """One record in a listing: the decoded value, or why it could not be read."""

    match_id: int
    value: Any = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class RecomputeStats:
    """What :meth:`Store.recompute_ratings` did."""

    matches: int
    players: int
    seconds: float
    ratings: dict[int, float] = field(default_factory=dict)


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
#: number (one new version of the row), the seat results, the record, the new ratings and
#: their history.
_FINISH_WRITE = """
    WITH numbered AS (
        UPDATE matches SET state = 'done', finished_at = now(), lease_holder = NULL,
            lease_expires = NULL, error = NULL, finish_seq = %(seq)s
        WHERE id = %(id)s),
    results AS (
        UPDATE match_seats s
        SET rank = u.rank, score = u.score, status = u.status, forfeit = u.forfeit
        FROM unnest(%(seats)s::int[], %(ranks)s::int[], %(scores)s::int[],
            %(statuses)s::text[], %(forfeits)s::boolean[]) AS u(seat, rank, score, status, forfeit)
        WHERE s.match_id = %(id)s AND s.seat = u.seat),
    stored AS (
        INSERT INTO match_records (match_id, game, format, record, record_sha256,
            bot_version_ids, winners, num_actions, duration_ms)
        VALUES (%(id)s, %(game)s, %(format)s, %(record)s, %(sha)s, %(players)s::bigint[],
            %(winners)s::bigint[], %(num_actions)s, %(duration_ms)s)),
    rerated AS (
        UPDATE ratings r SET rating = u.rating, games = r.games + 1, updated_at = now()
        FROM unnest(%(rated)s::bigint[], %(after)s::float8[]) AS u(v, rating)
        WHERE r.game = %(game)s AND r.bot_version_id = u.v)
    INSERT INTO rating_history (game, bot_version_id, match_id, finish_seq, k, rating_before,
        rating_after)
    SELECT %(game)s, u.v, %(id)s, %(seq)s, %(k)s, u.b, u.a
    FROM unnest(%(rated)s::bigint[], %(before)s::float8[], %(after)s::float8[]) AS u(v, b, a)"""


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


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: Seat status names by their value in the protobuf enum (UNSPECIFIED is none of them).
_SEAT_STATUS_NAMES = {
    common_pb2.SeatStatus.Value(f"SEAT_STATUS_{name.upper()}"): name for name in STATUSES
}
#: Games, numbers of seats and options (with their types) already found valid: a run of
#: matches shares a few, so each is checked against its game once. Kept small.
_VALID_OPTIONS: set[tuple[str, int, tuple[tuple[str, type, OptionScalar], ...]]] = set()
_VALID_OPTIONS_MAX = 256


def _check_options(match_id: int, game: str, num_seats: int, msg: record_pb2.MatchRecord) -> None:
    """Raise :class:`InvalidResult` unless the record's game is known, allows its number
    of seats, and takes its options: what starting the match checks, without dealing."""
    options: dict[str, OptionScalar] = {}
    for key, value in msg.options.items():  # as referee.codec reads them
        which = value.WhichOneof("value")
        options[key] = None if which is None else getattr(value, which)
    known = (game, num_seats, tuple(sorted((k, type(v), v) for k, v in options.items())))
    if known in _VALID_OPTIONS:
        return
    try:
        spec = get_game(game)
    except UnknownGameError:
        raise InvalidResult(match_id, f"the record's game {game!r} is not a known game") from None
    if not spec.min_seats <= num_seats <= spec.max_seats:
        raise InvalidResult(
            match_id,
            f"the record has {num_seats} seats; {game} is for {spec.min_seats}–{spec.max_seats}",
        )
    try:
        spec.options(options)
    except OptionsError as exc:
        raise InvalidResult(match_id, f"the record's options: {exc}") from exc
    if len(_VALID_OPTIONS) >= _VALID_OPTIONS_MAX:
        _VALID_OPTIONS.clear()
    _VALID_OPTIONS.add(known)


def _check_finished(match_id: int, finished: FinishedMatch) -> tuple[str, int]:
    """The game and number of seats of ``finished``'s record, once the finish is found
    sound. Raises :class:`InvalidResult` naming the match and the field otherwise.

    The record is checked from its header and its result, without re-running the engine
    on its actions (``arena verify`` does that): it parses as a ``MatchRecord`` of a
    format the referee writes; it has a result and the match was not aborted; its seat
    statuses, clock, game, number of seats and options are valid, and its action fields
    agree with each other. Then there must be one seat result per seat of the record,
    each in range, of a known status and fitting its column, with the rank, score,
    status and forfeit of the record's result (and of its seat list), and
    ``num_actions`` (if given) must be the record's action count. Whether the record fits
    the match row is checked by the finish itself."""
    if finished.format != RECORD_FORMAT:
        raise InvalidResult(match_id, f"format {finished.format!r} is not {RECORD_FORMAT}")
    try:
        msg = record_pb2.MatchRecord.FromString(bytes(finished.record))
    except Exception as exc:  # DecodeError on garbage; the protobuf runtime may raise others
        raise InvalidResult(match_id, f"the record does not decode ({exc})") from exc
    if msg.format_version not in (1, FORMAT_VERSION):
        raise InvalidResult(
            match_id,
            f"the record's format_version {msg.format_version} is not 1 or {FORMAT_VERSION}",
        )
    result = msg.result
    if msg.HasField("result") and result.status == common_pb2.MATCH_STATUS_ABORTED:
        raise InvalidResult(
            match_id,
            f"the match was aborted ({result.reason or 'no reason given'}): there is no "
            "result to store; play it again",
        )
    if result.status != common_pb2.MATCH_STATUS_COMPLETED:
        raise InvalidResult(match_id, f"the record's result status {result.status} is unknown")
    if not msg.HasField("result") or not result.detail_json:
        raise InvalidResult(
            match_id, "the record has no result (a match that did not end is failed, not finished)"
        )
    try:
        json.loads(result.detail_json)
    except ValueError as exc:
        raise InvalidResult(
            match_id, f"the record's result detail_json is not JSON ({exc})"
        ) from exc

    n = len(msg.seats)
    listed_statuses = []
    for i, entry in enumerate(msg.seats):
        if entry.status not in _SEAT_STATUS_NAMES:
            raise InvalidResult(
                match_id, f"the record's seat {i} status {entry.status} is not a seat status"
            )
        listed_statuses.append(_SEAT_STATUS_NAMES[entry.status])
    clock = msg.clock
    try:
        ClockRules(clock.decision_ms, clock.bank_ms, clock.strike_limit, clock.join_ms)
    except ValueError as exc:
        raise InvalidResult(match_id, f"the record's clock: {exc}") from exc
    _check_options(match_id, msg.game, n, msg)

    if msg.format_version == 1:
        num_actions = len(msg.actions)
        for i, action in enumerate(msg.actions):
            if action.seat >= n or not 0 <= action.source < len(SOURCES):
                raise InvalidResult(
                    match_id,
                    f"the record's action {i} names seat {action.seat} or source "
                    f"{action.source} out of range",
                )
    else:
        num_actions = len(msg.action_index)
        if len(msg.think_us) != num_actions:
            raise InvalidResult(
                match_id,
                f"the record has {num_actions} actions (action_index) but "
                f"{len(msg.think_us)} timings (think_us)",
            )
        for mark in msg.sources:
            if mark.action >= num_actions or not 0 <= mark.source < len(SOURCES):
                raise InvalidResult(
                    match_id,
                    f"the record's source mark for action {mark.action} (source {mark.source}) "
                    "is out of range",
                )

    if len(result.seats) != n:
        raise InvalidResult(
            match_id, f"the record has {n} seats but a result for {len(result.seats)}"
        )
    recorded = {s.seat: s for s in result.seats}
    if sorted(recorded) != list(range(n)):
        raise InvalidResult(
            match_id,
            f"the record's result is for seats {[s.seat for s in result.seats]}, not 0..{n - 1}",
        )
    seats = [r.seat for r in finished.results]
    if not all(_is_int(seat) for seat in seats) or sorted(seats) != list(range(n)):
        raise InvalidResult(
            match_id, f"results for seats {seats}, but the record has seats 0..{n - 1}"
        )
    for outcome in sorted(finished.results, key=lambda r: r.seat):
        seat = outcome.seat
        if not _is_int(outcome.rank) or not 0 <= outcome.rank < n:
            raise InvalidResult(
                match_id, f"seat {seat} rank {outcome.rank!r} is out of range 0..{n - 1}"
            )
        if outcome.status not in STATUSES:
            raise InvalidResult(
                match_id,
                f"seat {seat} status {outcome.status!r} is not one of {', '.join(STATUSES)}",
            )
        if not _is_int(outcome.score) or not _INT4_MIN <= outcome.score <= _INT4_MAX:
            raise InvalidResult(
                match_id,
                f"seat {seat} score {outcome.score!r} does not fit the score column "
                f"({_INT4_MIN}..{_INT4_MAX})",
            )
        if not isinstance(outcome.forfeit, bool):
            raise InvalidResult(match_id, f"seat {seat} forfeit {outcome.forfeit!r} is not a bool")
        entry_result = recorded[seat]
        status = _SEAT_STATUS_NAMES.get(entry_result.status)
        if status is None:
            raise InvalidResult(
                match_id,
                f"the record's result seat {seat} status {entry_result.status} "
                "is not a seat status",
            )
        for name, given, expected in (
            ("rank", outcome.rank, entry_result.rank),
            ("score", outcome.score, entry_result.score),
            ("status", outcome.status, status),
            ("forfeit", outcome.forfeit, entry_result.forfeited),
        ):
            if given != expected:
                raise InvalidResult(
                    match_id, f"seat {seat} {name} {given!r} differs from the record's {expected!r}"
                )
        listed = msg.seats[seat]
        if listed_statuses[seat] != status or listed.forfeited != entry_result.forfeited:
            raise InvalidResult(
                match_id,
                f"seat {seat}: the record's seat list (status {listed_statuses[seat]!r}, "
                f"forfeited {listed.forfeited}) differs from its result (status {status!r}, "
                f"forfeited {entry_result.forfeited})",
            )
    if finished.num_actions is not None and (
        not _is_int(finished.num_actions) or finished.num_actions != num_actions
    ):
        raise InvalidResult(
            match_id,
            f"num_actions {finished.num_actions!r} differs from the record's {num_actions}",
        )
    if finished.duration_ms is not None and (
        not _is_int(finished.duration_ms) or not 0 <= finished.duration_ms <= _INT4_MAX
    ):
        raise InvalidResult(
            match_id, f"duration_ms {finished.duration_ms!r} is out of range 0..{_INT4_MAX}"
        )
    return msg.game, n


@contextlib.contextmanager
def _one_trip_transaction(conn: psycopg.Connection) -> Iterator[None]:
    """A transaction on an autocommit (pooled) connection whose BEGIN, statements and
    COMMIT travel in pipeline mode: BEGIN goes with the first statement and COMMIT with the
    last writes, so a body that reads once and then writes costs two round trips. The
    COMMIT is sent only when the body returns, and the call returns only after the server
    answered it (a synchronous commit is durable by then). Any error rolls the whole
    transaction back."""
    try:
        with conn.pipeline():
            conn.execute("BEGIN")
            yield
            conn.execute("COMMIT")
    except BaseException:
        # A failed statement leaves the transaction aborted (the pipeline skipped the
        # COMMIT); an exception from the body leaves it open. Either way: roll back.
        if conn.info.transaction_status in (
            psycopg.pq.TransactionStatus.INTRANS,
            psycopg.pq.TransactionStatus.INERROR,
        ):
            with contextlib.suppress(psycopg.Error):
                conn.execute("ROLLBACK")
        raise


class Store:
    """Bots, matches, records and ratings in one Postgres database. Thread-safe: every call
    takes a connection from the pool. Calls that lose their connection are retried with
    backoff; when the server stays down they raise :class:`worker.db.StoreUnavailable`."""

    def __init__(self, pool: ConnectionPool, url: str, *, elo_k: float = ratings.DEFAULT_K):
        self.pool = pool
        self.url = url
        self.elo_k = elo_k
        self.retry_attempts = 5
        self.retry_delay = 0.1

    @classmethod
    def open(
        cls,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 8,
        migrate: bool = True,
        elo_k: float | None = None,
        attempts: int = 5,
    ) -> Store:
        """Connect to ``url`` (retrying), apply pending migrations, and open a pool."""
        # No per-checkout health check (a round trip per call): a connection found broken
        # fails its call, the pool discards it, and _run retries on a fresh one.
        with db.connect(url, attempts=attempts) as conn:
            if migrate:
                db.migrate(conn)
        pool = ConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            kwargs={"autocommit": True},
            open=False,
            name="arena-store",
        )
        try:
            db.with_retry(url, lambda: pool.open(wait=True, timeout=10), attempts=attempts)
        except BaseException:
            pool.close()
            raise
        if elo_k is None:
            elo_k = float(os.environ.get(ELO_K_ENV) or ratings.DEFAULT_K)
        return cls(pool, url, elo_k=elo_k)

    def close(self) -> None:
        """Close every pooled connection."""
        self.pool.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, operation: Callable[[psycopg.Connection], T]) -> T:
        def once() -> T:
            with self.pool.connection() as conn:
                return operation(conn)

        return db.with_retry(
            self.url,
            once,
            attempts=self.retry_attempts,
            delay=self.retry_delay,
            on_failure=self._discard_broken,
        )

    def _discard_broken(self) -> None:
        """After a lost connection, test the idle pooled ones and replace the broken: when
        the server restarted, every pooled connection is dead, and without this each retry
        would take the next dead one (a pool can hold more than the retry attempts)."""
        with contextlib.suppress(Exception):
            self.pool.check()

    # -- bots --------------------------------------------------------------------------

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

    # -- tournaments and ladders -------------------------------------------------------

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

    # -- matches -----------------------------------------------------------------------

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
        state: str | None = None,
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

    def claim_match(
        self, holder: str, *, lease_seconds: float = 60.0, match_id: int | None = None
    ) -> Match | None:
        """Take a queued match (or one whose lease expired) for ``holder``, in one atomic
        statement; None when there is none (or ``match_id`` is not claimable). A second
        caller never gets the same match while the lease holds."""
        only = "AND id = %(id)s" if match_id is not None else ""
        # The lowest claimable id is the smaller of the first queued match (an index scan
        # of matches_queued in id order that stops at the first row it can lock) and the
        # first match whose lease expired (matches_running_lease; normally none). One scan
        # over both conditions would read and sort every queued match on each claim.
        sql = f"""
            WITH claimed AS (
                UPDATE matches m
                SET state = 'running', attempts = m.attempts + 1, lease_holder = %(holder)s,
                    lease_expires = now() + %(lease)s * interval '1 second',
                    started_at = now()
                WHERE m.id = least(
                    (SELECT id FROM matches
                     WHERE state = 'queued' AND attempts < max_attempts {only}
                     ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED),
                    (SELECT id FROM matches
                     WHERE state = 'running' AND lease_expires < now()
                       AND attempts < max_attempts {only}
                     ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED))
                  AND (m.state = 'queued' OR (m.state = 'running' AND m.lease_expires < now()))
                RETURNING m.*)
            SELECT {_MATCH_COLUMNS}, {_SEATS_OF} AS seats FROM claimed m
            WHERE set_config('synchronous_commit', 'off', true) IS NOT NULL"""
        params = {"holder": holder, "lease": lease_seconds, "id": match_id}

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
        row = self._run(
            lambda conn: conn.execute(
                "UPDATE matches SET lease_expires = now() + %s * interval '1 second'"
                " WHERE id = %s AND state = 'running' AND lease_holder = %s RETURNING id",
                (lease_seconds, match_id, holder),
            ).fetchone()
        )
        return row is not None

    def fail_match(
        self, match_id: int, holder: str, error: str, *, retry: bool = True
    ) -> str | None:
        """Give up a running match: back to ``queued`` while attempts remain (and ``retry``),
        else ``failed``. Returns the new state, or None if the match was not ``holder``'s."""
        row = self._run(
            lambda conn: conn.execute(
                "UPDATE matches SET state = CASE WHEN %s AND attempts < max_attempts"
                " THEN 'queued' ELSE 'failed' END,"
                " lease_holder = NULL, lease_expires = NULL, error = %s,"
                " finished_at = CASE WHEN %s AND attempts < max_attempts THEN NULL ELSE now() END"
                " WHERE id = %s AND state = 'running' AND lease_holder = %s RETURNING state",
                (retry, error, retry, match_id, holder),
            ).fetchone()
        )
        return None if row is None else str(row[0])

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

    def requeue_expired(self) -> dict[int, str]:
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
        return {int(i): str(s) for i, s in rows}

    def finish_match(self, match_id: int, holder: str, finished: FinishedMatch) -> bool:
        """Commit a finished match held by ``holder``: its record, seat results and the Elo
        updates, in one transaction. True if this call finished it; False (and nothing
        changed) if it was already finished, cancelled, or is no longer ``holder``'s.
        Raises :class:`InvalidResult` (and changes nothing) when the record does not parse,
        is of an aborted match or has no result, is inconsistent in itself, is of another
        game or number of seats than the match, or a seat result is out of range, of an
        unknown status, too large for its column or not what the record's result says;
        :class:`UnknownMatch` when there is no match ``match_id``.

        Before the transaction the record's header and result are checked against the
        seat results (:func:`_check_finished`); the engine is not re-run on its actions,
        which is ``arena verify``'s job. Then two round trips and one durable commit: BEGIN
        and :data:`_FINISH_LOCK` (the match row and the rating rows locked, the ratings
        before, the completion number), then :data:`_FINISH_WRITE` (state ``done``,
        results, record, ratings, history) and COMMIT. The Elo arithmetic runs in Python in
        between, the same :func:`worker.ratings.elo_after` that the recompute replays. Only
        a refused finish costs one more statement, :data:`_FINISH_REFUSED`, to say why."""
        game, num_seats = _check_finished(match_id, finished)
        results = sorted(finished.results, key=lambda r: r.seat)
        lock = {"id": match_id, "holder": holder, "game": game, "num_seats": num_seats}

        def op(conn: psycopg.Connection) -> bool:
            with conn.cursor() as cur, _one_trip_transaction(conn):
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
                winners = [p for p, rank in zip(players, ranks, strict=True) if rank == min(ranks)]
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
                        "format": finished.format,
                        "record": finished.record,
                        "sha": hashlib.sha256(finished.record).digest(),
                        "players": players,
                        "winners": winners,
                        "num_actions": finished.num_actions,
                        "duration_ms": finished.duration_ms,
                        "rated": list(final),
                        "before": [current[p] for p in final],
                        "after": list(final.values()),
                        "k": self.elo_k,
                    },
                )
                return True

        return self._run(op)

    # -- records -----------------------------------------------------------------------

    def record(self, match_id: int) -> bytes:
        """The stored record of a finished match; CorruptRecord if its bytes changed."""
        row = self._run(
            lambda conn: conn.execute(
                "SELECT record, record_sha256 FROM match_records WHERE match_id = %s",
                (match_id,),
            ).fetchone()
        )
        if row is None:
            raise StoreError(f"match {match_id} has no stored record")
        data = bytes(row[0])
        if hashlib.sha256(data).digest() != bytes(row[1]):
            raise CorruptRecord(match_id, "its bytes do not match their sha256")
        return data

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
                "SELECT match_id, record, record_sha256 FROM match_records"
                " WHERE match_id = ANY(%s)",
                (list(match_ids),),
            ).fetchall()
        )
        found = {int(m): (bytes(r), bytes(h)) for m, r, h in rows}
        entries = []
        for match_id in match_ids:
            if match_id not in found:
                entries.append(RecordEntry(match_id, error=f"match {match_id}: no stored record"))
                continue
            data, digest = found[match_id]
            try:
                if hashlib.sha256(data).digest() != digest:
                    raise CorruptRecord(match_id, "its bytes do not match their sha256")
                try:
                    value = decode(data)
                except Exception as exc:
                    raise CorruptRecord(match_id, f"cannot decode: {exc}") from exc
            except CorruptRecord as exc:
                entries.append(RecordEntry(match_id, error=str(exc)))
            else:
                entries.append(RecordEntry(match_id, value=value))
        return entries

    def seat_results(self, match_id: int) -> list[SeatOutcome]:
        """The seat results of a finished match."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT seat, rank, score, status, forfeit FROM match_seats"
                " WHERE match_id = %s AND rank IS NOT NULL ORDER BY seat",
                (match_id,),
            ).fetchall()
        )
        return [SeatOutcome(*r) for r in rows]

    # -- ratings -----------------------------------------------------------------------

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

    def rating_history(self, game: str, bot_version_id: int) -> list[tuple[int, int, float, float]]:
        """``(finish_seq, match_id, before, after)`` of each Elo update of a bot version."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT finish_seq, match_id, rating_before, rating_after FROM rating_history"
                " WHERE game = %s AND bot_version_id = %s ORDER BY finish_seq",
                (game, bot_version_id),
            ).fetchall()
        )
        return [(int(s), int(m), float(b), float(a)) for s, m, b, a in rows]

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
                conn.execute("LOCK TABLE ratings, rating_history IN EXCLUSIVE MODE")
                conn.execute("DELETE FROM rating_history WHERE game = %s", (game,))
                with conn.cursor(name="recompute", binary=True) as source:
                    source.execute(
                        "SELECT m.id, m.finish_seq, s.bot_version_id, s.rank, s.forfeit"
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
                            seen: dict[int, float] = {}
                            for p, b in zip(players, before, strict=True):
                                seen.setdefault(p, b)
                            for p, a in zip(players, after, strict=True):
                                table[p] = a
                            for p, b in seen.items():
                                games[p] = games.get(p, 0) + 1
                                history.append((game, p, match_id, seq, k, b, table[p]))
                        if history:
                            with conn.cursor().copy(
                                "COPY rating_history (game, bot_version_id, match_id,"
                                " finish_seq, k, rating_before, rating_after) FROM STDIN"
                            ) as copy:
                                for item in history:
                                    copy.write_row(item)
                        if not batch:
                            break
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
    ) -> Iterator[tuple[int, int | None, list[tuple[int, int, int, bool]]]]:
        """(match id, duplicate set, [(bot version, rank, score, forfeit) per seat]) of done
        matches, in match id order (batch fits do not depend on completion order)."""
        with conn.cursor(name="results", binary=True) as cur:
            cur.itersize = 10_000
            cur.execute(
                "SELECT m.id, m.duplicate_set, s.bot_version_id, s.rank, s.score, s.forfeit"
                " FROM matches m JOIN match_seats s ON s.match_id = m.id"
                f" WHERE m.state = 'done' AND {where} ORDER BY m.id, s.seat",
                params,
            )
            for (match_id, dup), group in itertools.groupby(cur, key=lambda r: (r[0], r[1])):
                yield match_id, dup, [(r[2], r[3], r[4], r[5]) for r in group]

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
        where, params = self._scope(game, tournament_id, ladder_id)

        def op(conn: psycopg.Connection) -> PairwiseTally:
            tally = PairwiseTally()
            with conn.transaction():
                for _, _, seats in self._results(conn, where, params):
                    tally.add_match([ratings.SeatResult(v, r, f) for v, r, _, f in seats])
            return tally

        return ratings.bradley_terry(self._run(op), prior_draws=prior_draws)

    def duplicate_standings(
        self,
        *,
        game: str | None = None,
        tournament_id: int | None = None,
        ladder_id: int | None = None,
    ) -> list[DuplicateStanding]:
        """Each bot version's results over whole duplicate sets (decision 8)."""
        where, params = self._scope(game, tournament_id, ladder_id)
        where += " AND m.duplicate_set IS NOT NULL"

        def op(conn: psycopg.Connection) -> dict[Hashable, list[list[tuple[Hashable, float]]]]:
            sets: dict[Hashable, list[list[tuple[Hashable, float]]]] = {}
            with conn.transaction():
                for _, dup, seats in self._results(conn, where, params):
                    sets.setdefault(dup, []).append([(v, float(s)) for v, _, s, _ in seats])
            return sets

        return ratings.duplicate_standings(self._run(op))


@contextlib.contextmanager
def open_store(url: str | None = None, **kwargs: Any) -> Iterator[Store]:
    """A migrated store on ``url``, ``ARENA_DATABASE_URL`` or the embedded server (started
    for the ``with`` block and stopped after it)."""
    with db.database_url(url) as resolved, Store.open(resolved, **kwargs) as store:
        yield store
