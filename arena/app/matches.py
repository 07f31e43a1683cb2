"""Matches as anyone may see them (``docs/api.md``, "Who may do what"): a match's seats,
results and public events, its seed's commitment (and its seed and salt once revealed,
:mod:`arena.app.deals`), its record as documented JSON, and each step of its replay.
A match whose duplicate deal is still being played elsewhere shows no result and no
event (:class:`~arena.app.errors.Held`): they tell what the other matches are dealt
(``docs/architecture.md``, decision 13)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.app import deals, replay
from arena.app.actors import Action, Actor, allowed, require
from arena.app.errors import AppError, Held, Invalid, NotFound
from referee.matchlog import public_events
from referee.wire import decode_record
from worker.store import Store

HELD = (
    "(the record is held back until every match of its duplicate deal has finished: it "
    "shows the deal the others are still playing)"
)


def show(store: Store, actor: Actor, match_id: int) -> dict[str, Any]:
    """A match: its state, its seed's commitment (the seed and salt only once revealed,
    :func:`arena.app.deals.sealed`), seats with their results once it is done, and the
    public events of its record (a held match shows neither), as ``arena match show
    --json``."""
    require(actor, Action.READ, what=f"read match {match_id}")
    match = store.match(match_id)
    if match is None:
        raise NotFound(f"no match {match_id} in the store")
    labels = store.labels(match.seats)
    held = match.id in store.held_matches([match.id])  # one indexed query over its set
    seats = store.seat_results(match.id) if match.state == "done" and not held else []
    events: list[tuple[int | None, str]] = []
    if held:
        events.append((None, HELD))
    elif match.state == "done":
        record = decode_record(store.record(match.id))
        indexes = [a.index for a in record.actions]
        for e in public_events(
            record.game, record.seed, len(record.seats), record.options, indexes
        ):
            events.append((e.seat if e.HasField("seat") else None, e.text))
    return {
        "match": match.id,
        "game": match.game,
        "state": match.state,
        **deals.of(store, match).as_json(),
        "attempts": match.attempts,
        "tournament": match.tournament_id,
        "duplicate_set": match.duplicate_set,
        "held": held,
        "error": match.error,
        "seats": [
            {
                "seat": i,
                "bot": labels.get(v, str(v)),
                **(
                    {
                        "rank": seats[i].rank,
                        "score": seats[i].score,
                        "status": seats[i].status,
                        "forfeit": seats[i].forfeit,
                        "stopped_by": seats[i].stopped_by,
                    }
                    if seats
                    else {}
                ),
            }
            for i, v in enumerate(match.seats)
        ],
        "events": [{"seat": seat, "text": text} for seat, text in events],
    }


def stored(store: Store, actor: Actor, match_id: int) -> replay.StoredMatch:
    """The finished match with its record, for a replay or an export; :class:`NotFound`,
    :class:`Held` or :class:`Invalid` saying why there is none."""
    require(actor, Action.READ, what=f"read match {match_id}")
    try:
        return replay.load(store, match_id)
    except replay.Unavailable as exc:
        kind: type[AppError] = {"missing": NotFound, "held": Held}.get(exc.kind, Invalid)
        raise kind(str(exc)) from None


def record_bytes(store: Store, actor: Actor, match_id: int) -> bytes:
    """The finished match's record as stored (``arena verify`` checks it)."""
    return stored(store, actor, match_id).data


def export(store: Store, actor: Actor, match_id: int) -> dict[str, Any]:
    """The finished match's record as documented JSON (``docs/viewer.md``)."""
    return replay.export(stored(store, actor, match_id))


def step(
    store: Store, actor: Actor, match_id: int, step: int, seat: int | None = None
) -> dict[str, Any]:
    """One step of the replay: the table after ``step`` actions, as every seat's cards or
    as seat ``seat`` knew it."""
    found = stored(store, actor, match_id)
    if seat is not None and not 0 <= seat < len(found.record.seats):
        raise Invalid(f"match {match_id} has seats 0..{len(found.record.seats) - 1}")
    if not 0 <= step <= len(found.record.actions):
        raise Invalid(f"match {match_id} has steps 0..{len(found.record.actions)}")
    return replay.frame(found, step, seat)


def log(store: Store, actor: Actor, match_id: int, seat: int) -> dict[str, Any]:
    """What the bot in ``seat`` wrote while the match was played (the newest 16 KiB of
    its standard output and error), for its owner and operators only: ``{"match",
    "seat", "bot", "log"}``, ``log`` None when it wrote nothing."""
    match = store.match(match_id)
    if match is None:
        raise NotFound(f"no match {match_id} in the store")
    if not 0 <= seat < len(match.seats):
        raise Invalid(f"seat: match {match_id} has seats 0–{len(match.seats) - 1}, not {seat}")
    version = store.bot_version(match.seats[seat])
    bot = store.bot_by_name(version.bot_name)
    owner = None if bot is None else bot.owner
    require(
        actor,
        Action.LOGS,
        whose=owner,
        what=f"read the log of {version.label} in match {match_id}, which belongs to {owner}",
    )
    label = version.label
    return {"match": match_id, "seat": seat, "bot": label, "log": store.match_log(match_id, seat)}


def worker_log(store: Store, actor: Actor, match_id: int) -> list[dict[str, Any]]:
    """What the workers that played the match logged about it (its lines of WARNING and
    up, kept for each play that had something to say: it failed, was given back, or a
    seat's bot could not start), oldest play first: ``[{"attempt", "worker", "kept_at",
    "lines"}]``, each line ``{"time", "level", "logger", "message", "seat"}``. An
    operator reads every line; an owner the lines about their bots' seats; anyone else,
    none (the rule of bots' logs, :attr:`~arena.app.actors.Action.LOGS`)."""
    if actor.name is None:
        return []
    plays = store.worker_logs(match_id)  # one indexed query; most matches have none
    if not plays:
        return []
    owners: dict[int, str | None] = {}
    if not actor.is_operator:
        match = store.match(match_id)
        if match is None:
            raise NotFound(f"no match {match_id} in the store")
        for seat, version_id in enumerate(match.seats):
            bot = store.bot_by_name(store.bot_version(version_id).bot_name)
            owners[seat] = None if bot is None else bot.owner

    def readable(line: Mapping[str, Any]) -> bool:
        seat = line.get("seat")
        return allowed(
            actor, Action.LOGS, whose=owners.get(seat) if isinstance(seat, int) else None
        )

    shown = []
    for play in plays:
        lines = [dict(line) for line in play.lines if readable(line)]
        if lines:
            shown.append(
                {
                    "attempt": play.attempt,
                    "worker": play.worker,
                    "kept_at": play.kept_at.isoformat(),
                    "lines": lines,
                }
            )
    return shown
