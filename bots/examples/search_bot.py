"""A reference bot for every game: determinized Monte Carlo over ``referee.scenario``.

At each decision, until its time budget is spent, it repeats one round:

1. **Sample** a full state that agrees with everything this seat knows — its view and
   the events it was sent — with the cards it cannot see dealt at random
   (``referee.scenario.sample``). The sampler never sees the real state, so neither
   does the search.
2. For **each legal action**, play it on that sample, then **play the hand out** with
   the heuristic bot's policy for every seat, and note the seat's margin at the end of
   the hand: the points it gained minus the most any other seat gained. Every action
   of a round is tried on the same sample and the same playout dice, so the round
   compares the actions and not the luck of two deals.

It then plays the action with the best average margin, if it beats the heuristic's own
choice by more than the noise of the samples (two standard errors of the difference),
else the heuristic's choice: a short budget plays at least as the heuristic does. Ways to make it
stronger are in docs/bots.md: a smarter playout policy, more playouts on the actions
that look best (UCB), or a tree over the seat's own later decisions (ISMCTS).

Run it as any bot: ``python -m bots.examples.search_bot`` with ``ARENA_REFEREE`` and
``ARENA_TOKEN`` set; ``ARENA_SEARCH_MS`` caps the time it thinks per decision.
"""

from __future__ import annotations

import math
import os
import random
import statistics
import time
from dataclasses import dataclass
from typing import Any

from bots.examples.heuristic_bot import HeuristicBot
from bots.sdk import Bot, Clock, Request, gin_hand, run
from referee import scenario
from referee.actions import DrawDiscard, DrawStock, Pass
from referee.cards import mask_of, parse_card
from referee.engine import Event, GameState
from referee.games.gin_hand import Arrange, Knock
from referee.games.gin_three import NoAdvice
from referee.melds import meld_search

#: The most it thinks per decision unless ``ARENA_SEARCH_MS`` says otherwise.
DEFAULT_BUDGET_MS = 100
#: The share of the referee's free time per decision it may use (the rest is margin).
CLOCK_SHARE = 0.5
#: The Gin discards a decision weighs: those that leave the least deadwood.
GIN_DISCARDS = 4
#: Points a playout's margin gains for winning the hand (loses for losing it): a hand
#: won by a little is worth more than a big gamble that loses more often.
WIN_WEIGHT = 20
#: How many standard errors an action must beat the heuristic's choice by to be played
#: instead: a short search otherwise mistakes the luck of its samples for an edge.
CONFIDENCE = 2.0
#: Samples per turn played of which the likeliest opponent hand is kept (Gin), and the
#: most drawn for one round (see :func:`likely_seed`).
OPPONENT_SHAPING = 2
MAX_DRAWS = 16
#: A playout that has not finished its hand after this many actions stops there.
PLAYOUT_CAP = 600
_HEURISTIC = HeuristicBot().policies
_GIN = meld_search()
_DEADWOOD = _GIN.deadwood_value
_VALUE = _GIN.card_value
_NO_CLOCK = Clock(0, 0)


@dataclass(frozen=True, slots=True)
class ActionValue:
    """One legal action and what the search thinks of it."""

    action: str  # the action's text
    value: float  # the seat's average margin at the end of the hand, in the game's points
    playouts: int
    #: the standard error of ``value`` minus the heuristic's action's value, over the
    #: same samples (0 for the heuristic's action itself, or with one round)
    stderr: float = 0.0


def evaluate(
    view: Any,
    events: list[Event],
    options: Any,
    *,
    budget_ms: float,
    rng: random.Random,
    actions: list[str] | None = None,
) -> list[ActionValue]:
    """The value of each of ``actions`` (texts of legal actions of ``view.seat``; by
    default its :func:`candidates`, in the order of ``view.legal_actions``), from as
    many sampled rounds as ``budget_ms`` allows (one at least). Made from the seat's
    view and events only."""
    legal = candidates(view) if actions is None else list(actions)
    baseline = heuristic(view)
    tried = legal if baseline in legal else [*legal, baseline]
    values: list[list[float]] = [[] for _ in tried]
    deadline = time.perf_counter() + budget_ms / 1000
    perspective = _perspective(view)
    while not values[0] or time.perf_counter() < deadline:
        seed = likely_seed(view, events, options, rng)
        sampled = scenario.sample(view, events, random.Random(seed), options=options)
        for i, action in enumerate(tried):
            # the same sample and dice for every action of the round (common random
            # numbers): each action is played on a clone of the one sample
            values[i].append(playout(sampled.clone(), action, perspective, random.Random(seed)))
    base = values[tried.index(baseline)]
    return [
        ActionValue(a, statistics.fmean(v), len(v), _paired_stderr(v, base))
        for a, v in zip(legal, values, strict=False)
    ]


def _paired_stderr(values: list[float], base: list[float]) -> float:
    """The standard error of the mean of ``values`` minus ``base``, round by round."""
    if len(values) < 2:
        return 0.0
    return statistics.stdev(a - b for a, b in zip(values, base, strict=True)) / math.sqrt(
        len(values)
    )


def likely_seed(view: Any, events: list[Event], options: Any, rng: random.Random) -> int:
    """The seed of this round's sample. The sampler deals the hidden cards uniformly, but
    an opponent keeps the cards that fit its melds: by mid-hand a real Gin opponent holds
    about 20 points of deadwood where a uniform hand holds 50 (measured with the
    heuristic bot), and a search that thinks its opponent far from knocking waits too
    long. So in Gin the bot draws ``1 + OPPONENT_SHAPING * turns`` samples and keeps the
    one whose hidden hand has the least deadwood, which matches the measured figures
    turn by turn, among those in which the opponent's last discard was a card it could
    spare (no other discard of its eleven cards would have left less deadwood). This is
    the bot's opponent model, not the sampler's: the sampler stays uniform."""
    hand = gin_hand(view)
    draws = 1 if hand is None else min(1 + OPPONENT_SHAPING * hand.turns, MAX_DRAWS)
    seeds = [rng.getrandbits(64) for _ in range(draws)]
    if hand is None or draws == 1:
        return seeds[0]
    hidden = hand.opponent
    last = _last_discard(events, hidden)

    def unlikely(seed: int) -> tuple[bool, int]:
        state: Any = scenario.sample(view, events, random.Random(seed), options=options)
        held = state.hand.hands[hidden]
        deadwood = int(_DEADWOOD(held))
        if last is None:
            return False, deadwood
        # it discarded ``last`` from these eleven cards: was that a card it could spare?
        before = held | 1 << last
        spared = min(_DEADWOOD(before & ~(1 << c)) for c in _cards(before))
        return deadwood > spared, deadwood

    return min(seeds, key=unlikely)


def _last_discard(events: list[Event], seat: int) -> int | None:
    """The card ``seat`` discarded last in this hand, if it has and has not acted since."""
    for event in reversed(events):
        if event.seat is None and event.text.startswith("hand "):
            return None
        if event.seat == seat:
            text = event.text
            return int(parse_card(text.split()[-1])) if text.startswith("discard ") else None
    return None


def choose(
    view: Any, events: list[Event], options: Any, *, budget_ms: float, rng: random.Random
) -> str:
    """The action the reference bot plays: the best valued, the heuristic's on a tie."""
    legal: list[str] = list(view.legal_actions)
    if len(legal) == 1:
        return legal[0]
    values = evaluate(view, events, options, budget_ms=budget_ms, rng=rng)
    preferred = heuristic(view)
    best = max(values, key=lambda v: (v.value, v.action == preferred))
    base = next((v for v in values if v.action == preferred), None)
    # leave the heuristic's choice only for one the samples show better beyond their noise
    if base is not None and best.value - base.value <= CONFIDENCE * best.stderr:
        return preferred
    return best.action


def candidates(view: Any) -> list[str]:
    """The actions worth a playout. Every legal action, except a Gin discard: only the
    ``GIN_DISCARDS`` that leave the least deadwood, and every knock (G6) — the search
    time goes to the choices that could be best."""
    legal = list(view.legal_actions)
    hand = gin_hand(view)
    if hand is None or not any(t.startswith("discard ") for t in legal):
        return legal
    mask = mask_of(hand.hand)
    discards = sorted(
        (t for t in legal if t.startswith("discard ")),
        key=lambda t: (_GIN.deadwood_value(mask & ~(1 << _card_of(t))), -_card_of(t)),
    )[:GIN_DISCARDS]
    return [t for t in legal if t in discards or not t.startswith("discard ")]


def heuristic(view: Any) -> str:
    """The heuristic bot's choice for a seat with this view."""
    request = Request(0, view.game, list(view.legal_actions), _NO_CLOCK, view=view)
    return str(_HEURISTIC[view.game](request))


def playout(state: GameState, first: str, perspective: tuple[int, int | None], rng: Any) -> float:
    """Play ``first``, then the heuristic for every seat to the end of the hand; the
    margin of ``perspective`` (a seat, and the one seat it plays against, or None for
    all the others) at that end. ``rng`` is unused by the heuristic, which is
    deterministic; it is kept so that a random playout policy can be swapped in."""
    seat, against = perspective
    before = standing(state.view(seat))
    state.apply_checked(first)
    if state.game in ("hollywood-gin", "gin-three"):
        _gin_playout(state)
    else:
        _view_playout(state, before[0])
    after = standing(state.view(seat))[1]
    gained = [a - b for a, b in zip(after, before[1], strict=True)]
    if against is not None:
        margin = gained[seat] - gained[against]
    else:
        margin = gained[seat] - max(g for s, g in enumerate(gained) if s != seat)
    return margin + WIN_WEIGHT * ((margin > 0) - (margin < 0))


def _view_playout(state: GameState, hand: int) -> None:
    """The heuristic bot for every seat, through each seat's view, to the hand's end."""
    for _ in range(PLAYOUT_CAP):
        actor = state.to_act()
        if actor is None:
            return
        view = state.view(actor)
        if standing(view)[0] != hand:
            return
        choice = heuristic(view)
        state.apply(state.legal_actions()[view.legal_actions.index(choice)])


def _gin_playout(state: Any) -> None:
    """The heuristic's Gin play for every seat to the hand's end, read from the sampled
    hand itself (a playout may look at the whole sample: it is the bot's own guess)
    rather than through views and action texts, which is four times faster."""
    hand = state.hand
    for _ in range(PLAYOUT_CAP):
        if state.to_act() is None or state.hand is not hand:
            return
        legal = state.legal_actions()
        first = legal[0]
        if isinstance(first, NoAdvice):  # the sitter: the captain plays what it would
            state.apply(first)
            continue
        if getattr(state, "advised", False) and state.advice is not None:
            state.apply(state.advice)  # the captain follows the advice being searched
            continue
        mask = hand.hands[hand.turn]
        if isinstance(first, Arrange) or len(legal) == 1:
            state.apply(first)  # arrangements are listed least deadwood first
        elif isinstance(first, DrawStock | DrawDiscard | Pass):
            up = hand.discard_pile[-1]
            now = _DEADWOOD(mask)
            with_up = mask | 1 << up
            take = any(_DEADWOOD(with_up & ~(1 << c)) < now for c in _cards(mask))
            wanted = DrawDiscard if take else (DrawStock, Pass)
            state.apply(next(a for a in legal if isinstance(a, wanted)))
        else:
            knocks = [a for a in legal if isinstance(a, Knock)]
            if knocks:
                state.apply(min(knocks, key=lambda a: _DEADWOOD(mask & ~(1 << a.card))))
            else:
                state.apply(
                    min(legal, key=lambda a: (_DEADWOOD(mask & ~(1 << a.card)), -_VALUE[a.card]))
                )


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def standing(view: Any) -> tuple[int, tuple[int, ...]]:
    """Which hand (or round) of the match ``view`` is in, and each seat's points."""
    game = view.game
    if game == "hollywood-gin":  # points over the three columns (H2)
        return view.hand_number, tuple(sum(c.points[s] for c in view.columns) for s in (0, 1))
    if game == "gin-three":
        return view.hand_number, view.scores
    if game == "rummy-500":
        return view.hands_played, view.scores
    return view.round, tuple(p.bankroll for p in view.players)  # flip-flop: stakes


def _card_of(text: str) -> int:
    return int(parse_card(text.rsplit(None, 1)[1]))


def _perspective(view: Any) -> tuple[int, int | None]:
    """Whose margin the seat plays for: its own; the sitter of Gin for three advises
    the captain, and the box is the one it plays against (T3, T5)."""
    if view.game == "gin-three" and view.role == "sitter":
        return view.roles.captain, view.roles.box
    return view.seat, None


class SearchBot(Bot):
    """Determinized Monte Carlo for every game (see the module docstring)."""

    name = "search"

    def __init__(self, budget_ms: float | None = None, seed: int | None = None) -> None:
        env = os.environ.get("ARENA_SEARCH_MS")
        self.budget_ms = budget_ms if budget_ms is not None else float(env or DEFAULT_BUDGET_MS)
        self.rng = random.Random(seed)
        self.options: dict[str, Any] = {}
        self.events: list[Event] = []

    def on_start(self, game: str, seat: int, seats: int, options: dict[str, Any]) -> None:
        """Keep the options (the sampler needs them) and start a new event log."""
        self.options = options
        self.events = []

    def decide(self, request: Request) -> int | str:
        """Search within the budget and the clock (never past half the free time)."""
        self.events.extend(request.events)
        clock = request.clock
        budget = self.budget_ms
        if clock.decision_ms:
            budget = min(budget, clock.decision_ms * CLOCK_SHARE)
        return choose(request.view, self.events, self.options, budget_ms=budget, rng=self.rng)


if __name__ == "__main__":
    os.environ.setdefault("ARENA_BOT", "search")
    run(SearchBot())
