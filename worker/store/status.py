"""What the store says about the running platform, for ``arena status``
(``docs/operations.md``, "What runs"): the matches in play by the worker holding them,
the counts of the queue and of the last hour, the ladders with their last tick, the bot
versions that failed qualification and the remote bots connected. Every count reads an
index (migration 0014), so status costs the same at a million matches as at ten."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import psycopg

from worker.store.base import StoreBase
from worker.store.matches import REMOTE_ONLINE_S


@dataclass(frozen=True, slots=True)
class HeldMatches:
    """The running matches of one worker process (its leases' holder prefix,
    ``hostname/pid``): their ids, and how many of its leases have expired (a worker that
    vanished, until the sweep re-queues them)."""

    worker: str
    match_ids: tuple[int, ...]
    expired: int


@dataclass(frozen=True, slots=True)
class LadderTick:
    """A ladder, whether it runs, when it was last ticked and its matches in flight."""

    name: str
    game: str
    active: bool
    ticked_at: datetime | None
    in_flight: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class FailedVersion:
    """A bot's newest version, which failed its qualification (and is seated nowhere)."""

    bot: str
    version: int
    owner: str
    reason: str


@dataclass(frozen=True, slots=True)
class StoreStatus:
    """The store's part of ``arena status``."""

    held: tuple[HeldMatches, ...]
    queued: int
    waiting: int  # of the queued, those backing off before a retry
    done_last_hour: int
    failed_last_hour: int
    ladders: tuple[LadderTick, ...]
    failed_qualification: tuple[FailedVersion, ...]
    remote_bots: int


class StatusStore(StoreBase):
    """The platform's state as ``arena status`` shows it."""

    def status(self) -> StoreStatus:
        """One snapshot, read in one transaction."""

        def op(conn: psycopg.Connection) -> StoreStatus:
            with conn.transaction():
                held = conn.execute(
                    "SELECT split_part(lease_holder, '/', 1) || '/' || split_part(lease_holder,"
                    " '/', 2) AS worker, array_agg(id ORDER BY id),"
                    " count(*) FILTER (WHERE lease_expires < now())"
                    " FROM matches WHERE state = 'running' GROUP BY 1 ORDER BY 1"
                ).fetchall()
                queued, waiting = conn.execute(
                    "SELECT count(*), count(*) FILTER (WHERE not_before > now())"
                    " FROM matches WHERE state = 'queued'"
                ).fetchone() or (0, 0)
                done, failed = conn.execute(
                    "SELECT count(*) FILTER (WHERE state = 'done'),"
                    " count(*) FILTER (WHERE state = 'failed') FROM matches"
                    " WHERE finished_at IS NOT NULL AND finished_at > now() - interval '1 hour'"
                ).fetchone() or (0, 0)
                ladders = conn.execute(
                    "SELECT l.name, l.game, l.active, l.ticked_at,"
                    " (SELECT count(*) FROM matches m WHERE m.ladder_id = l.id"
                    "  AND m.state IN ('queued', 'running')), l.created_at"
                    " FROM ladders l ORDER BY l.name"
                ).fetchall()
                failing = conn.execute(
                    "SELECT b.name, v.version, b.owner,"
                    " coalesce(v.qualification_report ->> 'reason', (SELECT m ->> 'reason'"
                    "  FROM jsonb_array_elements(v.qualification_report -> 'matches') m"
                    "  WHERE m ->> 'reason' IS NOT NULL LIMIT 1), '')"
                    " FROM bot_versions v JOIN bots b ON b.id = v.bot_id"
                    " WHERE v.qualification = 'failed' AND b.retired_at IS NULL"
                    " AND v.version = (SELECT max(version) FROM bot_versions w"
                    "  WHERE w.bot_id = b.id)"
                    " ORDER BY b.name, v.version"
                ).fetchall()
                remote = conn.execute(
                    "SELECT count(*) FROM remote_sessions"
                    " WHERE seen_at > now() - %s * interval '1 second'",
                    (REMOTE_ONLINE_S,),
                ).fetchone()
            return StoreStatus(
                held=tuple(HeldMatches(str(w), tuple(ids), int(x)) for w, ids, x in held),
                queued=int(queued),
                waiting=int(waiting),
                done_last_hour=int(done),
                failed_last_hour=int(failed),
                ladders=tuple(
                    LadderTick(str(n), str(g), bool(a), t, int(f), c)
                    for n, g, a, t, f, c in ladders
                ),
                failed_qualification=tuple(
                    FailedVersion(str(b), int(v), str(o), str(r)) for b, v, o, r in failing
                ),
                remote_bots=int(remote[0]) if remote else 0,
            )

        return self._run(op)
