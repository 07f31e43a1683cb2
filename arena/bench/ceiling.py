"""What a seat could score against the heuristic bot if it saw every card: the reference
bot's search (``bots/examples/search_bot.py``) given the real state instead of samples,
the other hands and the stock's order included (``docs/performance.md``, "The reference
bot").

This is not a bot: no seat can see what it sees. It bounds what the search can gain by
inferring the hidden cards better, and what is left is the deal's luck. Each deal is
played once with the seeing seat in each seat and the heuristic in the others, as a
duplicate duel plays it (``docs/duels.md``), and scored as a duel scores a table: the
seat's mean pairwise score against the heuristic's seats (``worker.sprt.table_score``).
One playout per candidate action decides, since the real state leaves nothing to
sample: the same playout, from the same state, as the reference bot's."""

from __future__ import annotations

import math
import random
import statistics
import time
from dataclasses import replace
from typing import Any

from arena.bench.sample import ONE_HAND
from referee import scenario
from referee.cards import card_tuple, cards_of, mask_of

#: The Gin games: their decisions are what ``hands_at`` names.
GIN_GAMES = ("hollywood-gin", "gin-three")
#: The games ``knowing="hands"`` is for: every card not in a hand or on the table is in
#: the stock, which :func:`reshuffled` puts in another order (Rummy 500's stock of one
#: hand is not the only thing hidden: its later hands are dealt from the seed).
HANDS_GAMES = (*GIN_GAMES, "flip-flop")


def reshuffled(state: Any, rng: random.Random) -> Any:
    """A clone of ``state`` whose stock (still to be drawn) is in an order from ``rng``:
    the hands as they are, the stock's order unknown."""
    sample = state.clone()
    holder, field = (sample.hand, "deck") if state.game in GIN_GAMES else (sample, "stock")
    deck = getattr(holder, field)
    rest = sorted(deck[holder.stock_pos :])  # the cards, not their order
    rng.shuffle(rest)
    setattr(holder, field, deck[: holder.stock_pos] + rest)  # the real list is shared
    return sample


def _choices(state: Any, seat: int) -> tuple[Any, str, list[str]]:
    """``seat``'s view, the heuristic's action, and the actions the search weighs (its
    candidates and the heuristic's; none when the only legal action is the one returned)."""
    from bots.examples import search_bot

    view = state.view(seat)
    legal = list(view.legal_actions)
    if len(legal) == 1:
        return view, str(legal[0]), []
    preferred = search_bot.heuristic(view)
    tried = search_bot.candidates(view)
    if preferred not in tried:
        tried.append(preferred)
    return view, preferred, tried


def seeing_choice(state: Any, seat: int) -> str:
    """The action the search plays for ``seat`` knowing ``state`` itself: the best of its
    candidates by one playout each from a clone of the real state, the heuristic's
    action on a tie."""
    from bots.examples import search_bot

    view, preferred, tried = _choices(state, seat)
    if not tried:
        return preferred
    perspective = search_bot._perspective(view)
    rng = random.Random(0)
    values = {a: search_bot.playout(state.clone(), a, perspective, rng) for a in tried}
    return max(tried, key=lambda a: (values[a], a == preferred))


#: What the seeing seat is given: every card (the hands and the stock's order); the
#: hands only, the stock's order sampled (the Gin games and Flip Flop: the bound of
#: inferring the hidden hands, with the luck of the draws left in); or only what the seat
#: knows,
#: sampled as the reference bot samples (the bot itself, at a fixed number of rounds
#: instead of a time budget: the same harness's figure for what it infers now).
KNOWING = ("everything", "hands", "view")
#: Sampled rounds per decision when not everything is known.
ROUNDS = 16
#: The kinds of a Gin decision that ``hands_at`` may name: taking the upcard or not
#: (``draw``), a discard when no knock is legal (``discard``), and a discard when one is
#: (``knock``: knock, or play on). It gives the seat the hands at those decisions only,
#: and its view at the others: where knowing the opponent's hand is worth the most.
DECISIONS = ("draw", "discard", "knock")


def decision_kind(legal: list[str]) -> str:
    """Which of :data:`DECISIONS` a Gin decision with these legal actions is ("other":
    none of them, an arrangement, say)."""
    if any(t.startswith("draw ") or t == "pass" for t in legal):
        return "draw"
    if any(t.startswith("knock ") for t in legal):
        return "knock"
    if any(t.startswith("discard ") for t in legal):
        return "discard"
    return "other"


def revealed(state: Any, view: Any, cards: int, rng: random.Random) -> Any:
    """Hollywood Gin: ``view`` with ``cards`` more cards of the opponent's real hand (at
    random among those the view does not show) shown as cards it is known to hold, as
    if it had taken them from the pile."""
    hand_view = view.hand
    real = state.hand.hands[hand_view.opponent]
    known = mask_of(hand_view.opponent_known)
    hidden = cards_of(real & ~known)
    shown = known | mask_of(rng.sample(hidden, min(cards, len(hidden))))
    return replace(view, hand=replace(hand_view, opponent_known=card_tuple(shown)))


def placed_right(state: Any, sample: Any, view: Any) -> float:
    """Hollywood Gin: the share of the opponent's cards hidden from ``view`` that
    ``sample`` puts in its hand (a uniform deal puts about a third there, the real
    state all)."""
    opponent = view.hand.opponent
    hidden = state.hand.hands[opponent] & ~mask_of(view.hand.opponent_known)
    count = hidden.bit_count()
    return (sample.hand.hands[opponent] & hidden).bit_count() / count if count else 1.0


def rounds_choice(
    state: Any,
    seat: int,
    rng: random.Random,
    knowing: str,
    reveal: int = 0,
    placed: list[float] | None = None,
) -> str:
    """The action the search plays for ``seat`` knowing the hands of ``state`` (not the
    order of its stock), or only its view: the reference bot's own choice rule (the best
    mean margin, kept only when it beats the heuristic's action by ``CONFIDENCE``
    standard errors), over ``ROUNDS`` samples, every action of a round played on a
    clone of the same sample. Knowing the view of a Hollywood Gin seat, ``reveal`` more
    of the opponent's cards are shown to it (:func:`revealed`), and ``placed`` is given
    each sample's :func:`placed_right`."""
    from bots.examples import search_bot

    view, preferred, tried = _choices(state, seat)
    if not tried:
        return preferred
    perspective = search_bot._perspective(view)
    events = state.events_for(seat) if knowing == "view" else []
    seen = view  # what the seat really sees, which ``placed`` is measured against
    if knowing == "view" and reveal:
        view = revealed(state, view, reveal, rng)
    values: dict[str, list[float]] = {a: [] for a in tried}
    for _ in range(ROUNDS):
        if knowing == "view":
            options = ONE_HAND[state.game]
            seed = search_bot.likely_seed(view, events, options, rng)
            sample = scenario.sample(view, events, random.Random(seed), options=options)
            if placed is not None and state.game == "hollywood-gin":
                placed.append(placed_right(state, sample, seen))
        else:
            sample = reshuffled(state, rng)
        for action in tried:
            values[action].append(search_bot.playout(sample.clone(), action, perspective, rng))
    mean = {a: statistics.fmean(v) for a, v in values.items()}
    best = max(tried, key=lambda a: (mean[a], a == preferred))
    stderr = search_bot._paired_stderr(values[best], values[preferred])
    if mean[best] - mean[preferred] <= search_bot.CONFIDENCE * stderr:
        return preferred
    return best


def play_deal(
    game: str,
    seats: int,
    deal: int,
    seeing: int,
    knowing: str = "everything",
    hands_at: tuple[str, ...] = (),
    reveal: int = 0,
    placed: list[float] | None = None,
) -> tuple[list[int], str]:
    """The ranks of one match of ``deal`` with the seeing seat at ``seeing`` and the
    heuristic bot everywhere else, and the seeing seat's role in Gin for three's hand
    (box, captain or sitter; else ""). At the decisions of the kinds ``hands_at`` names
    the seeing seat knows the hands (:data:`DECISIONS`), at the others ``knowing``;
    ``reveal`` and ``placed`` are :func:`rounds_choice`'s."""
    from bots.examples import search_bot
    from referee.games import get_game

    state = get_game(game).new_match(deal, seats=seats, options=ONE_HAND[game])
    rng = random.Random(deal)
    role = ""
    if game == "gin-three":
        roles = state.view(seeing).roles
        role = {roles.box: "box", roles.captain: "captain", roles.sitter: "sitter"}[seeing]
    while (seat := state.to_act()) is not None:
        if seat == seeing and hands_at:
            kind = decision_kind(list(state.view(seat).legal_actions))
            if kind in hands_at:
                action = rounds_choice(state, seat, rng, "hands")
            else:
                action = rounds_choice(state, seat, rng, knowing, reveal, placed)
        elif seat == seeing and knowing != "everything":
            action = rounds_choice(state, seat, rng, knowing, reveal, placed)
        elif seat == seeing:
            action = seeing_choice(state, seat)
        else:
            action = search_bot.heuristic(state.view(seat))
        state.apply_checked(action)
    result = state.result()
    assert result is not None
    return list(result.ranks), role


def run(
    game: str,
    seats: int,
    deals: int,
    seed: int = 1,
    knowing: str = "everything",
    hands_at: tuple[str, ...] = (),
    reveal: int = 0,
) -> dict[str, Any]:
    """Play ``deals`` deals in every seat; the seeing seat's score and its spread. With
    ``hands_at`` (``knowing`` being ``view``), the seat knows the hands at those kinds
    of decision (:data:`DECISIONS`). With ``reveal`` (Hollywood Gin, knowing the view),
    that many more of the opponent's cards are shown to it at each decision; knowing
    the view of Hollywood Gin, ``placed_right`` is the share of the opponent's hidden
    cards its samples put in its hand (:func:`placed_right`)."""
    if knowing not in KNOWING:
        raise ValueError(f"knowing is one of {', '.join(KNOWING)}, not {knowing!r}")
    if knowing == "hands" and game not in HANDS_GAMES:
        raise ValueError(f"knowing the hands is for {', '.join(HANDS_GAMES)}, not {game}")
    if hands_at and game not in GIN_GAMES:
        raise ValueError(f"hands_at is for {' and '.join(GIN_GAMES)}, not {game}")
    if hands_at and (knowing != "view" or not set(hands_at) <= set(DECISIONS)):
        raise ValueError(f"hands_at names some of {', '.join(DECISIONS)}, knowing the view")
    if reveal and (knowing != "view" or game != "hollywood-gin" or reveal < 0):
        raise ValueError("reveal shows a Hollywood Gin opponent's cards to a seat knowing its view")
    from worker.sprt import score_to_elo, table_score

    started = time.perf_counter()
    sets = []
    by_role: dict[str, list[float]] = {}
    placed: list[float] = []
    for i in range(deals):
        deal = seed * 1_000_003 + i
        scores = []
        for seat in range(seats):
            ranks, role = play_deal(game, seats, deal, seat, knowing, hands_at, reveal, placed)
            scores.append(table_score(ranks, seat))
            if role:
                by_role.setdefault(role, []).append(scores[-1])
        sets.append(scores)
    means = [statistics.fmean(s) for s in sets]
    score = statistics.fmean(means)
    stderr = statistics.stdev(means) / math.sqrt(len(means)) if len(means) > 1 else 0.0
    return {
        "game": game,
        "seats": seats,
        "knowing": knowing,
        "hands_at": list(hands_at),
        "reveal": reveal,
        "deals": deals,
        "games": deals * seats,
        "score": round(score, 4),
        "stderr": round(stderr, 4),
        "elo": round(score_to_elo(score), 1) if 0 < score < 1 else None,  # JSON has no inf
        # sets in which the seat scored the same wherever it sat: the deal decided
        "sets_same_in_every_seat": sum(1 for s in sets if max(s) == min(s)),
        # Gin for three: its score in each role of the hand
        "by_role": {role: round(statistics.fmean(v), 4) for role, v in sorted(by_role.items())},
        # Hollywood Gin knowing the view: the share of the opponent's hidden cards that
        # the samples put in its hand
        "placed_right": round(statistics.fmean(placed), 4) if placed else None,
        "seconds": round(time.perf_counter() - started, 1),
    }
