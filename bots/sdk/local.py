"""Playing bots in-process against the engine, without a referee (for quick
experiments and statistical tests; the referee remains the authority)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bots.sdk.bot import Bot, Clock, Request
from referee.engine import Result
from referee.games import get_game

_CLOCK = Clock(0, 0)


def play_local(
    game: str,
    seed: int,
    bots: Sequence[Bot],
    options: Mapping[str, Any] | None = None,
) -> Result:
    """Play one match between ``bots`` (one per seat) through their ``decide``."""
    state = get_game(game).new_match(seed, seats=len(bots), options=options)
    seen = [0] * len(bots)
    for i, bot in enumerate(bots):
        bot.on_start(game, i, len(bots), dict(options or {}))
    decision = 0
    while (seat := state.to_act()) is not None:
        legal = state.legal_actions()
        if len(legal) == 1:  # no choice: no decision (C7), as with the referee
            state.apply(legal[0])
            continue
        texts = [str(a) for a in legal]
        view = state.view(seat)
        events = state.events_for(seat, seen[seat])
        seen[seat] = len(state.events)
        request = Request(
            decision, game, texts, _CLOCK, getattr(view, "advice", None), events, view
        )
        choice = bots[seat].decide(request)
        state.apply(legal[choice] if isinstance(choice, int) else legal[texts.index(choice)])
        decision += 1
    result = state.result()
    assert result is not None
    return result
