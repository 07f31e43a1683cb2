"""Bots and their versions: a bot name with its owner (a user, ``users``), and each
submitted version's code archive and manifest, content-addressed (the same archive again
is the same version). A retired bot gets no new matches."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from referee.record import SeatStatus
from worker.store.base import Allowance, StoreBase, StoreError, spend
from worker.store.matches import MatchState

#: The most characters a bot name holds.
NAME_MAX = 40
#: What a bot name may hold, as refusals say it: nothing that ``NAME@vN``, a comma-separated
#: ``--bots`` list or a line of a listing would read otherwise (``@``, ``,``, whitespace,
#: control or bidi characters), and no leading ``-`` that reads as an option.
NAME_RULE = (
    f"a bot name is 1 to {NAME_MAX} ASCII letters, digits, '-', '_' or '.', "
    "starting with a letter or digit"
)
_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._-]{{0,{NAME_MAX - 1}}}")
# NAME@vN, split at the last "@v" so that a name stored before the rule may hold one.
_LABEL = re.compile(r"(.+)@v([0-9]+)", re.DOTALL)
#: A version's qualification (docs/bots.md, "Qualification"): vouched for by an operator
#: (or stored before qualification existed), waiting for or playing its qualification
#: matches, passed, or failed (its report says why).
QUALIFICATIONS = ("exempt", "qualifying", "qualified", "failed")
#: A version's label in SQL, over bot_versions v and bots b (:meth:`BotStore.labels`).
LABEL_SQL = "b.name || '@v' || v.version || CASE WHEN v.remote THEN ' (remote)' ELSE '' END"
#: The qualifications that let a version be seated in new matches.
PLAYABLE = ("exempt", "qualified")


def is_bot_name(name: str) -> bool:
    """Whether ``name`` keeps :data:`NAME_RULE`."""
    return _NAME.fullmatch(name) is not None


def bot_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a new bot, in one line (the name escaped and cut short),
    or None when it can."""
    if is_bot_name(name):
        return None
    shown = repr(name[:NAME_MAX])
    if len(name) > NAME_MAX:
        shown += f" (cut short: {len(name):,} characters)"
    return f"bot name {shown} is not allowed: {NAME_RULE}"


def parse_label(text: str) -> tuple[str, int | None]:
    """``(name, N)`` of ``NAME@vN``, ``(text, None)`` of a bare name: the inverse of
    :attr:`BotVersion.label`."""
    found = _LABEL.fullmatch(text)
    return (text, None) if found is None else (found[1], int(found[2]))


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
    submitted_at: datetime | None = None
    #: One of :data:`QUALIFICATIONS` (docs/bots.md, "Qualification").
    qualification: str = "exempt"

    @property
    def label(self) -> str:
        """``name@vN``, how listings name it."""
        return f"{self.bot_name}@v{self.version}"

    @property
    def playable(self) -> bool:
        """Whether it may be seated in new matches: qualified, or exempt."""
        return self.qualification in PLAYABLE


@dataclass(frozen=True, slots=True)
class Bot:
    """A registered bot name, its owner (a user's name) and, once retired, when."""

    id: int
    name: str
    owner: str
    created_at: datetime
    retired_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class BotSummary:
    """A bot in a listing: how many versions it has, its latest one, and that version's
    online Elo in its game (None while unrated)."""

    bot: Bot
    versions: int
    latest: BotVersion
    rating: float | None
    games: int


@dataclass(frozen=True, slots=True)
class RatedVersion:
    """A bot version with its online Elo in its game (None while unrated)."""

    version: BotVersion
    rating: float | None
    games: int


@dataclass(frozen=True, slots=True)
class SeatMatch:
    """A match a bot version was seated in: the match's state and, once it is done, the
    seat's result (rank 0 = first, the engine's; a seat that forfeited ranks last in the
    ratings whatever its rank)."""

    match_id: int
    game: str
    state: MatchState
    seat: int
    rank: int | None
    score: int | None
    status: SeatStatus | None
    created_at: datetime
    finished_at: datetime | None
    forfeit: bool | None = None


# The columns that make a BotVersion, for queries joining bot_versions v and bots b.
_VERSION_COLUMNS = (
    "v.id, v.bot_id, b.name, v.version, v.content_hash, v.game, v.manifest,"
    " v.submitted_by, v.submitted_at, v.qualification"
)
_WIDTH = 10  # how many they are


class BotStore(StoreBase):
    """The store's bots and bot versions."""

    def add_bot(self, name: str, owner: str) -> int:
        """Register a bot name (or return the id of the existing one of that owner); a
        name that breaks :data:`NAME_RULE` is refused, even one stored before the rule.
        An owner who is not yet a user becomes one (without a key): the store trusts its
        caller, and who may name which owner is the application layer's rule
        (``arena.app``)."""
        problem = bot_name_problem(name)
        if problem is not None:
            raise StoreError(problem)
        if not is_bot_name(owner):
            raise StoreError(f"owner {owner[:NAME_MAX]!r} is no user name: {NAME_RULE}")

        def op(conn: psycopg.Connection) -> int:
            # One statement: the owner's row is written by the CTE and seen by the
            # foreign key check, which runs when the statement ends.
            row = conn.execute(
                "WITH owner AS (INSERT INTO users (name) VALUES (%(owner)s)"
                "   ON CONFLICT (name) DO NOTHING)"
                " INSERT INTO bots (name, owner) VALUES (%(name)s, %(owner)s)"
                " ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name"
                " RETURNING id, owner",
                {"name": name, "owner": owner},
            ).fetchone()
            assert row is not None
            if row[1] != owner:
                raise StoreError(f"bot name {name!r} belongs to another owner")
            return int(row[0])

        return self._run(op)

    def remove_bot_without_versions(self, bot_id: int) -> None:
        """Remove the bot ``bot_id`` if it has no version (a name registered by a
        submission that was then refused)."""
        self._run(
            lambda conn: conn.execute(
                "DELETE FROM bots WHERE id = %s"
                " AND NOT EXISTS (SELECT 1 FROM bot_versions WHERE bot_id = %s)",
                (bot_id, bot_id),
            )
        )

    def add_bot_version(
        self,
        bot_id: int,
        archive: bytes,
        manifest: Mapping[str, Any],
        submitted_by: str,
        qualification: str = "exempt",
        *,
        allowance: Allowance | None = None,
    ) -> BotVersion:
        """Store a version of a bot: its code archive and manifest (``game`` and ``command``
        required), ``exempt`` or ``qualifying`` (:data:`QUALIFICATIONS`). Submitting the
        same archive again returns the existing version, as it is. With ``allowance``,
        :class:`AllowanceSpent` when its user has made theirs (counted and written in
        one transaction)."""
        if qualification not in ("exempt", "qualifying"):
            raise StoreError(f"a new version is exempt or qualifying, not {qualification!r}")
        for key in ("game", "command"):
            if key not in manifest:
                raise StoreError(f"the bot manifest must name {key!r}")
        content_hash = hashlib.sha256(archive).hexdigest()

        def op(conn: psycopg.Connection) -> BotVersion:
            with conn.transaction():
                spend(conn, allowance)
                conn.execute("SELECT 1 FROM bots WHERE id = %s FOR UPDATE", (bot_id,))
                conn.execute(
                    "INSERT INTO bot_versions"
                    " (bot_id, version, content_hash, archive, manifest, game, submitted_by,"
                    "  qualification)"
                    " SELECT %s, coalesce(max(version), 0) + 1, %s, %s, %s, %s, %s, %s"
                    " FROM bot_versions WHERE bot_id = %s"
                    " ON CONFLICT (bot_id, content_hash) DO NOTHING",
                    (
                        bot_id,
                        content_hash,
                        archive,
                        Jsonb(dict(manifest)),
                        str(manifest["game"]),
                        submitted_by,
                        qualification,
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

    def qualification_report(self, version_id: int) -> dict[str, Any] | None:
        """The report of a version's qualification (None until it has one)."""
        row = self._run(
            lambda conn: conn.execute(
                "SELECT qualification_report FROM bot_versions WHERE id = %s", (version_id,)
            ).fetchone()
        )
        return None if row is None else row[0]

    def finish_qualification(self, version_id: int, report: Mapping[str, Any]) -> bool:
        """Mark a qualifying version ``qualified`` or ``failed`` as ``report["qualified"]``
        says, keeping the report; False (nothing changed) if it was not qualifying (a
        second run of the same qualification found it decided)."""
        status = "qualified" if report.get("qualified") else "failed"
        row = self._run(
            lambda conn: conn.execute(
                "UPDATE bot_versions SET qualification = %s, qualification_report = %s"
                " WHERE id = %s AND qualification = 'qualifying' RETURNING id",
                (status, Jsonb(dict(report)), version_id),
            ).fetchone()
        )
        return row is not None

    def qualifications_to_send(self, stall_s: float) -> list[int]:
        """The qualifying versions whose qualification was never sent to the workers, or
        was sent more than ``stall_s`` seconds ago and has not ended (its task was lost
        with the broker, or with its worker): each is marked as sent now."""
        rows = self._run(
            lambda conn: conn.execute(
                "UPDATE bot_versions SET qualification_sent_at = now()"
                " WHERE qualification = 'qualifying' AND (qualification_sent_at IS NULL"
                "   OR qualification_sent_at < now() - make_interval(secs => %s))"
                " RETURNING id",
                (stall_s,),
            ).fetchall()
        )
        return sorted(int(r[0]) for r in rows)

    def mark_qualification_sent(self, version_id: int) -> None:
        """Note that a version's qualification was sent to the workers now."""
        self._run(
            lambda conn: conn.execute(
                "UPDATE bot_versions SET qualification_sent_at = now() WHERE id = %s",
                (version_id,),
            )
        )

    def remote_version(
        self, bot_id: int, game: str, submitted_by: str, qualification: str = "qualifying"
    ) -> BotVersion:
        """The version a remote bot of ``game`` plays as (docs/bots.md, "Running your bot
        from home"): it holds no code, only the manifest ``runtime = "remote"``; made on
        its first connection, ``qualifying`` (or ``exempt``)."""
        manifest = {"game": game, "command": [], "archive": "none", "runtime": "remote"}
        archive = f"remote bot of {game}".encode()  # content-addressed: one per game
        return self.add_bot_version(bot_id, archive, manifest, submitted_by, qualification)

    def set_remote_online(self, version_id: int, host: str, agent: str) -> None:
        """A remote bot's version is connected to ``host`` now (the newest connection
        wins: a bot holds one)."""
        self._run(
            lambda conn: conn.execute(
                "INSERT INTO remote_sessions (bot_version_id, host, agent) VALUES (%s, %s, %s)"
                " ON CONFLICT (bot_version_id) DO UPDATE SET host = EXCLUDED.host,"
                " agent = EXCLUDED.agent, connected_at = now(), seen_at = now()",
                (version_id, host, agent[:200]),
            )
        )

    def touch_remote(self, version_ids: Sequence[int], host: str) -> None:
        """``host`` still holds these remote bots' connections."""
        self._run(
            lambda conn: conn.execute(
                "UPDATE remote_sessions SET seen_at = now()"
                " WHERE host = %s AND bot_version_id = ANY(%s)",
                (host, list(version_ids)),
            )
        )

    def set_remote_offline(self, version_id: int, host: str) -> None:
        """A remote bot's connection to ``host`` ended (one to another host stays)."""
        self._run(
            lambda conn: conn.execute(
                "DELETE FROM remote_sessions WHERE bot_version_id = %s AND host = %s",
                (version_id, host),
            )
        )

    def remote_online(self, version_ids: Sequence[int]) -> dict[int, str]:
        """The host each of these remote bots' versions is connected to now, if any."""
        from worker.store.matches import REMOTE_ONLINE_S

        rows = self._run(
            lambda conn: conn.execute(
                "SELECT bot_version_id, host FROM remote_sessions"
                " WHERE bot_version_id = ANY(%s) AND seen_at > now() - make_interval(secs => %s)",
                (list(version_ids), REMOTE_ONLINE_S),
            ).fetchall()
        )
        return {int(v): str(h) for v, h in rows}

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
            f"SELECT {_VERSION_COLUMNS}"
            " FROM bot_versions v JOIN bots b ON b.id = v.bot_id WHERE v.id = %s",
            (version_id,),
        ).fetchone()
        if row is None:
            raise StoreError(f"no bot version with id {version_id}")
        return BotVersion(*row)

    def labels(self, version_ids: Sequence[int]) -> dict[int, str]:
        """``name@vN`` for each bot version id (``name@vN (remote)`` for a remote bot's:
        standings, records and replays mark its seats)."""
        rows = self._run(
            lambda conn: conn.execute(
                f"SELECT v.id, {LABEL_SQL} FROM bot_versions v"
                " JOIN bots b ON b.id = v.bot_id WHERE v.id = ANY(%s)",
                (list(version_ids),),
            ).fetchall()
        )
        return {int(i): str(label) for i, label in rows}

    def bot_by_name(self, name: str) -> Bot | None:
        """The bot of that name, or None (also for a name no text column can hold: one
        with a NUL, which Postgres would refuse as an error)."""
        if "\x00" in name:
            return None
        row = self._run(
            lambda conn: conn.execute(
                "SELECT id, name, owner, created_at, retired_at FROM bots WHERE name = %s",
                (name,),
            ).fetchone()
        )
        return None if row is None else Bot(*row)

    def set_retired(self, bot_id: int, retired: bool) -> Bot:
        """Retire a bot (it gets no new matches: ladders leave it out, tournaments refuse
        it), or bring it back; retiring a retired bot keeps its date."""
        row = self._run(
            lambda conn: conn.execute(
                "UPDATE bots SET retired_at = CASE WHEN %(retired)s"
                " THEN coalesce(retired_at, now()) END WHERE id = %(id)s"
                " RETURNING id, name, owner, created_at, retired_at",
                {"retired": retired, "id": bot_id},
            ).fetchone()
        )
        if row is None:
            raise StoreError(f"no bot with id {bot_id}")
        return Bot(*row)

    def list_bots(self) -> list[BotSummary]:
        """Every bot that has a version, by name: its version count, latest version and
        that version's Elo. One statement, so the count and the latest version agree."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT b.id, b.name, b.owner, b.created_at, b.retired_at, n.versions,"
                f" {_VERSION_COLUMNS}, r.rating, coalesce(r.games, 0)"
                " FROM bots b"
                " JOIN (SELECT bot_id, count(*) AS versions, max(version) AS latest"
                "       FROM bot_versions GROUP BY bot_id) n ON n.bot_id = b.id"
                " JOIN bot_versions v ON v.bot_id = b.id AND v.version = n.latest"
                " LEFT JOIN ratings r ON r.bot_version_id = v.id AND r.game = v.game"
                " ORDER BY b.name"
            ).fetchall()
        )
        return [
            BotSummary(
                Bot(*row[:5]),
                int(row[5]),
                BotVersion(*row[6 : 6 + _WIDTH]),
                None if row[6 + _WIDTH] is None else float(row[6 + _WIDTH]),
                int(row[7 + _WIDTH]),
            )
            for row in rows
        ]

    def bot_versions(self, bot_id: int) -> list[RatedVersion]:
        """Every version of a bot, oldest first, each with its Elo in its game."""
        rows = self._run(
            lambda conn: conn.execute(
                f"SELECT {_VERSION_COLUMNS}, r.rating, coalesce(r.games, 0)"
                " FROM bot_versions v JOIN bots b ON b.id = v.bot_id"
                " LEFT JOIN ratings r ON r.bot_version_id = v.id AND r.game = v.game"
                " WHERE v.bot_id = %s ORDER BY v.version",
                (bot_id,),
            ).fetchall()
        )
        return [
            RatedVersion(
                BotVersion(*row[:_WIDTH]),
                None if row[_WIDTH] is None else float(row[_WIDTH]),
                int(row[_WIDTH + 1]),
            )
            for row in rows
        ]

    def recent_matches(self, version_id: int, limit: int = 10) -> list[SeatMatch]:
        """The latest ``limit`` matches a bot version was seated in, newest first (a version
        seated twice in one match appears once per seat)."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT m.id, m.game, m.state, s.seat, s.rank, s.score, s.status,"
                " m.created_at, m.finished_at, s.forfeit"
                " FROM match_seats s JOIN matches m ON m.id = s.match_id"
                " WHERE s.bot_version_id = %s ORDER BY m.id DESC, s.seat LIMIT %s",
                (version_id, limit),
            ).fetchall()
        )
        return [SeatMatch(*row) for row in rows]
