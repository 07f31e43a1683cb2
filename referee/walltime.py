"""How long a match may take by the wall clock (docs/tournaments.md, "How long a match
may take"): its cap, the longest play its clock and game allow with a margin, and at
most the platform's ``ARENA_MAX_MATCH_S``. The runner ends a match at its cap
(:meth:`referee.runner.Match.run`); the worker waiting for it gives up on it
:data:`FINISH_S` later (``worker/host.py``), so no match holds a worker past it.

The longest play is every seat joining at the last moment, every action the game can
take (``GameSpec.most_actions``, which its caps bound: C8) being a decision that takes
its whole ``decision_ms``, every seat's bank spent, and every write the referee waits
on that is not a decision (the welcome, a notice per strike, the end of the match)
taking its whole :data:`WRITE_S`. Nothing a seat does within the rules takes longer:
a cap below it is the platform's ceiling, or a referee that is not keeping its clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.clock import ClockRules
from referee.games import get_game

#: The deadline of a write that is not a decision (welcome, notice, end of match), in
#: seconds: a seat that takes no bytes for this long is cut off (``referee.runner``).
WRITE_S = 5.0
#: The referee's own time allowed per action (the engine, the encoding, other matches
#: on its event loop), in milliseconds: many times what it takes (docs/performance.md).
REFEREE_MS = 1.0
#: The margin over the longest play: a quarter more, and a minute.
MARGIN = 1.25
SLACK_S = 60.0
#: How long the referee may take to play a match out with the default policy once its
#: time is up, in seconds, before it aborts it instead (a game whose caps let the
#: default play on for longer).
PLAYOUT_S = 10.0
#: How long after a match's cap its worker waits for the referee's answer, in seconds:
#: the play-out, the writes of its end, and the answer.
FINISH_S = PLAYOUT_S + 3 * WRITE_S + 5.0


def longest_s(game: str, options: Mapping[str, Any] | Any, seats: int, clock: ClockRules) -> float:
    """The longest a match of ``game`` with ``options`` (a mapping or the game's options
    value), ``seats`` seats and ``clock`` can take within the rules, with the margin, in
    seconds."""
    spec = get_game(game)
    actions = spec.most_actions(spec.options(options), seats)
    writes = 2 + seats * (clock.strike_limit + 1)  # welcome and end, a notice per strike
    ms = (
        clock.join_ms
        + actions * (clock.decision_ms + REFEREE_MS)
        + seats * clock.bank_ms
        + writes * WRITE_S * 1000
    )
    return ms / 1000 * MARGIN + SLACK_S


def cap_s(
    game: str,
    options: Mapping[str, Any] | Any,
    seats: int,
    clock: ClockRules,
    max_match_s: float,
) -> float:
    """A match's wall-clock cap, in seconds: its :func:`longest_s`, at most
    ``max_match_s`` (the platform's ``ARENA_MAX_MATCH_S``)."""
    return min(longest_s(game, options, seats, clock), max_match_s)
