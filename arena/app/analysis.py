"""Where did my bot lose? The reference bot (``bots/examples/search_bot.py``) weighs
every decision one seat made in a finished match, from what that seat knew then: its
view and the events it had been sent, never the state (docs/bots.md, "Where did my bot
lose?"). An analysis takes seconds a decision, so it is kept in the store and made once.

The JSON form, as ``arena analyse --json`` prints it and the store keeps it::

    {"match": 12, "seat": 0, "bot": "mine@v3", "game": "hollywood-gin", "budget_ms": 200,
     "decisions": [{"step": 3, "played": "discard 9D", "played_value": -2.5,
                    "best": "discard KC", "best_value": 4.0, "loss": 6.5,
                    "choices": 5, "playouts": 41, "forced": false, "flagged": true}, ...],
     "lost": 11.5}

``step`` is the number of actions before the decision (the replay's step), values are the
seat's expected margin at the end of the hand in the game's points, ``loss`` is
``best_value - played_value``, and the decisions that lost the most are ``flagged``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from arena.app.actors import Action, Actor, allowed, require
from arena.app.errors import Invalid, NotFound
from arena.app.matches import stored
from bots.examples import search_bot
from referee.engine import Event
from referee.record import MatchRecord, new_state, replay
from worker.store import Store

#: The reference bot's time per decision unless asked otherwise.
DEFAULT_BUDGET_MS = 200
#: The most decisions flagged, and the least loss (in the game's points) to be flagged.
FLAGGED = 3
FLAG_AT = 1.0

Evaluate = Callable[..., list[search_bot.ActionValue]]


def decisions(record: MatchRecord, seat: int) -> Iterator[tuple[int, Any, list[Event], str]]:
    """Each decision ``seat`` made in the match: the step (actions before it), the seat's
    view, every event the seat had been sent since the match began, and the action it
    played. Only the seat's own view and events leave this function."""
    state = new_state(record)
    for step, entry in enumerate(record.actions):
        if state.to_act() == seat:
            yield step, state.view(seat), state.events_for(seat), entry.text
        for _ in replay(state, [entry.index]):
            pass


def walk(
    record: MatchRecord,
    seat: int,
    budget_ms: int,
    *,
    seed: str,
    evaluate: Evaluate = search_bot.evaluate,
) -> dict[str, Any]:
    """The analysis of ``seat``'s decisions in ``record`` (the module doc's
    ``decisions`` and ``lost``), reproducible from ``seed``."""
    rng = random.Random(seed)
    options = dict(record.options)
    out: list[dict[str, Any]] = []
    for step, view, events, played in decisions(record, seat):
        legal = list(view.legal_actions)
        if len(legal) == 1:
            out.append({"step": step, "played": played, "forced": True, "choices": 1})
            continue
        weighed = search_bot.candidates(view)
        if played not in weighed:
            weighed = [a for a in legal if a in weighed or a == played]
        values = evaluate(view, events, options, budget_ms=budget_ms, rng=rng, actions=weighed)
        best = max(values, key=lambda v: v.value)
        mine = next(v for v in values if v.action == played)
        out.append(
            {
                "step": step,
                "played": played,
                "played_value": round(mine.value, 2),
                "best": best.action,
                "best_value": round(best.value, 2),
                "loss": round(best.value - mine.value, 2),
                "choices": len(legal),
                "playouts": mine.playouts,
                "forced": False,
            }
        )
    weighed_out = [d for d in out if not d["forced"]]
    worst = sorted(weighed_out, key=lambda d: -d["loss"])[:FLAGGED]
    for d in out:
        d["flagged"] = any(d is w for w in worst) and d["loss"] >= FLAG_AT
    return {
        "game": record.game,
        "seat": seat,
        "budget_ms": budget_ms,
        "decisions": out,
        "lost": round(sum(d["loss"] for d in weighed_out), 2),
    }


def analysis(store: Store, actor: Actor, match_id: int, seat: int) -> dict[str, Any] | None:
    """The kept analysis of ``seat`` in the finished match, or None if none was made."""
    found = stored(store, actor, match_id)  # who may read the match may read its analysis
    _check_seat(found.record, match_id, seat)
    kept = store.analysis(match_id, seat)
    return None if kept is None else {"match": match_id, "bot": found.labels[seat], **kept}


def may_analyse(store: Store, actor: Actor, match_id: int, seat: int) -> bool:
    """Whether ``actor`` may have ``seat`` of the match analysed (the owner of its bot,
    an operator), so that a page offers it."""
    match = store.match(match_id)
    if match is None or not 0 <= seat < len(match.seats):
        return False
    return allowed(actor, Action.ANALYSE, _owner(store, match.seats[seat]))


def _owner(store: Store, version_id: int) -> str | None:
    """The owner of the bot of which ``version_id`` is a version."""
    bot = store.bot_by_name(store.bot_version(version_id).bot_name)
    return None if bot is None else bot.owner


def analyse(
    store: Store,
    actor: Actor,
    match_id: int,
    seat: int,
    budget_ms: int = DEFAULT_BUDGET_MS,
    *,
    evaluate: Evaluate = search_bot.evaluate,
) -> dict[str, Any]:
    """The analysis of ``seat`` in the finished match: the kept one, else made now (for
    the owner of the seat's bot or an operator) and kept."""
    kept = analysis(store, actor, match_id, seat)
    if kept is not None:
        return kept
    if not 1 <= budget_ms <= 60_000:
        raise Invalid(f"budget_ms: the time per decision is 1 to 60000 ms, not {budget_ms}")
    found = stored(store, actor, match_id)
    version = store.bot_version(found.match.seats[seat])
    owner = _owner(store, version.id)
    require(
        actor,
        Action.ANALYSE,
        whose=owner,
        what=f"analyse {version.label} in match {match_id}, which belongs to {owner}",
    )
    made = walk(found.record, seat, budget_ms, seed=f"{match_id}:{seat}", evaluate=evaluate)
    store.keep_analysis(match_id, seat, made, budget_ms, actor.name or "")
    return {"match": match_id, "bot": found.labels[seat], **made}


def _check_seat(record: MatchRecord, match_id: int, seat: int) -> None:
    if not 0 <= seat < len(record.seats):
        raise Invalid(f"seat: match {match_id} has seats 0–{len(record.seats) - 1}, not {seat}")
    if not record.actions:
        raise NotFound(f"match {match_id} has no decisions to analyse")
