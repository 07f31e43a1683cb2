"""Sampled and chosen positions of the two Gin games: Hollywood Gin (G1–G10, H1–H5) and
Gin Rummy for three (T1–T6).

What a seat of a Gin hand knows (C9): its own ten or eleven cards, the discard pile, the
stock's size, and the cards its opponent was seen taking from the pile and still holds
(G4; ``opponent_known``). The sitter of Gin for three is shown the captain's hand (T3),
so its one hidden hand is the box's. Every card the seat cannot see is in the other
hand or the stock, and any split of them is reachable: the opponent's discards were
visible and its draws from the stock were not, so a deal can be found for each. The
sample is therefore uniform over those splits, with one exception: while the knocker
arranges (G6), the knocker's hidden hand must allow two or more arrangements within
the knock limit, and the sample draws until one does.

The one thing a Gin view does not say is whether the opponent, now deciding what to
discard, took its card from the pile: G4 forbids discarding that card. The seat was
told (``draw discard C``), so the events say it; without events the sample assumes the
stock.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from referee.cards import STANDARD_CARDS, Card, CardError, SplitMix64, mask_of, parse_card
from referee.engine import Event, EventLog, GameState
from referee.games.gin_hand import (
    HAND_SIZE,
    PHASE_ARRANGE,
    PHASE_DISCARD,
    SEARCH,
    GinHand,
    Phase,
    parse_gin_action,
)
from referee.games.gin_three import GinThree, Roles
from referee.games.gin_views import HandView
from referee.games.hollywood_gin import HollywoodGin
from referee.scenario.deals import card_list, fill_from_seed
from referee.scenario.errors import ScenarioError

#: The keys a Gin deal may name (docs/bots.md, "Chosen deals").
DEAL_KEYS = ("dealer", "roles", "hands", "upcard", "stock")
#: Draws of a knocker's hidden hand before the sample gives up (G6; a hand within the
#: knock limit with two arrangements comes about once in a few hundred draws).
KNOCKER_DRAWS = 100_000


# -- sampling ------------------------------------------------------------------------------


def sample(view: Any, events: list[Event], rng: random.Random, options: Any) -> GameState:
    """A state of the match ``view`` sees, the hidden hand and the stock at random."""
    three = view.game == "gin-three"
    hand_view: HandView | None = (view.hand or view.advising) if three else view.hand
    if hand_view is None:
        raise ScenarioError("the match is over: there is nothing hidden to sample")
    seat = view.seat
    known_player = hand_view.player  # the hand this seat sees: its own, or the captain's
    hidden = hand_view.opponent
    if three:
        hand_turn = view.roles.captain if view.to_act == view.roles.sitter else view.to_act
    else:
        hand_turn = view.to_act
    phase = Phase(hand_view.phase)
    taken = _taken(hand_view, events, hidden, hand_turn, phase)

    seen = mask_of(hand_view.hand) | mask_of(hand_view.discard_pile)
    opponent_known = mask_of(hand_view.opponent_known)
    unseen = [c for c in STANDARD_CARDS if not (seen | opponent_known) >> c & 1]
    missing = hand_view.opponent_hand_size - len(hand_view.opponent_known)
    if missing < 0 or missing + hand_view.stock_size != len(unseen):
        raise ScenarioError(
            f"seat {seat}'s view does not add up: {len(unseen)} unseen cards for a hidden "
            f"hand of {hand_view.opponent_hand_size} and a stock of {hand_view.stock_size}"
        )
    rules = options.hand_rules()
    for _ in range(KNOCKER_DRAWS):
        rng.shuffle(unseen)
        hidden_mask = opponent_known | mask_of(unseen[:missing])
        if not (phase is PHASE_ARRANGE and hand_turn == hidden) or _can_arrange(
            hidden_mask, rules.knock_limit
        ):
            break
    else:
        raise ScenarioError(f"no hand of seat {hidden} agrees with its knock (G6)")

    audience = GinThree.audience(view.roles) if three else None
    hand = GinHand.at_position(
        rules,
        hand_view.dealer,
        hand_view.dealer ^ known_player ^ hidden,  # the other of the two
        {known_player: mask_of(hand_view.hand), hidden: hidden_mask},
        list(hand_view.discard_pile),
        unseen[missing:],
        phase,
        hand_turn,
        EventLog(),
        known={
            known_player: _known_of(view, hand_view, events, known_player),
            hidden: opponent_known,
        },
        taken=taken,
        turns=hand_view.turns,
        audience=audience,
    )
    seed = rng.getrandbits(64)
    if not three:
        return HollywoodGin.at_position(
            options,
            seed,
            hand,
            columns=view.columns,
            wins=view.wins,
            hands_played=view.hand_number - 1,
            last_hand=view.last_hand,
        )
    advised = view.to_act == view.roles.captain
    return GinThree.at_position(
        options,
        seed,
        hand,
        roles=view.roles,
        scores=view.scores,
        hands_played=view.hand_number - 1,
        advised=advised,
        advice=_advice(view, events) if advised else None,
        last_hand=view.last_hand,
    )


def _taken(hand: HandView, events: list[Event], hidden: int, turn: int, phase: Phase) -> int:
    """The card the player to discard took from the pile this turn (G4), or -1."""
    if phase is not PHASE_DISCARD:
        return -1
    if turn != hidden:
        return -1 if hand.taken_from_discard is None else int(hand.taken_from_discard)
    for event in reversed(events):
        if event.seat == hidden:
            verb = "draw discard "
            return int(parse_card(event.text[len(verb) :])) if event.text.startswith(verb) else -1
    return -1


def _known_of(view: Any, hand: HandView, events: list[Event], player: int) -> int:
    """The cards ``player`` (the seat, or the captain the sitter advises) was seen taking
    from the pile and still holds: what the opponent's view shows of them (G4). The
    seat's view shows its own hand, not which of it the opponent knows, so they are
    read from the public ``draw discard`` events of this hand, less those discarded."""
    known = 0
    held = mask_of(hand.hand)
    for event in _this_hand(events):
        if event.seat != player:
            continue
        for verb in ("draw discard ", "discard ", "knock "):
            if event.text.startswith(verb):
                try:
                    card = parse_card(event.text[len(verb) :])
                except CardError:
                    break
                known = known | 1 << card if verb == "draw discard " else known & ~(1 << card)
                break
    return known & held


def _this_hand(events: Sequence[Event]) -> Sequence[Event]:
    """The events since the current hand's deal (its ``hand N:`` event)."""
    for i in range(len(events) - 1, -1, -1):
        if events[i].seat is None and events[i].text.startswith("hand "):
            return events[i + 1 :]
    return events


def _advice(view: Any, events: list[Event]) -> Any:
    """The sitter's advice for the captain's current decision (T3), when the seat saw it."""
    if view.advice is not None:
        return parse_gin_action(view.advice)
    for event in reversed(events):
        if event.seat == view.roles.sitter:
            text = event.text
            return parse_gin_action(text[len("advise ") :]) if text.startswith("advise ") else None
    return None


def _can_arrange(mask: int, limit: int) -> bool:
    """Whether a knocker holding ``mask`` has the choice the knocker's phase offers (G6)."""
    return SEARCH.deadwood_value(mask) <= limit and len(SEARCH.all_arrangements(mask, limit)) > 1


# -- chosen deals --------------------------------------------------------------------------


def deal(spec: dict[str, Any], options: Any, seats: int, seed: int) -> GameState:
    """The first hand of a new match as ``spec`` names it (G2, H1, T1, T2)."""
    three = seats == 3
    if three:
        if "dealer" in spec:
            raise ScenarioError("Gin for three names its roles (T1), not a dealer: the box deals")
        roles = _roles(spec.get("roles"))
        dealer, non_dealer = roles.box, roles.captain
    else:
        if "roles" in spec:
            raise ScenarioError("Hollywood Gin has no roles; name the first dealer (H1)")
        dealer = spec.get("dealer", SplitMix64(seed).below(2))
        if dealer not in (0, 1):
            raise ScenarioError(f"the dealer is seat 0 or 1, not {dealer!r}")
        non_dealer = 1 - dealer
    hands = spec.get("hands", [])
    if not isinstance(hands, list) or len(hands) > seats:
        raise ScenarioError(f"'hands' is a list of at most {seats} hands, one per seat")
    hands = [card_list(h, f"seat {s}'s hand") for s, h in enumerate(hands)]
    hands += [[] for _ in range(seats - len(hands))]
    if three and hands[roles.sitter]:
        raise ScenarioError(f"seat {roles.sitter} sits out the hand (T2): its hand is empty")
    for s in (dealer, non_dealer):
        if len(hands[s]) not in (0, HAND_SIZE):
            raise ScenarioError(
                f"seat {s}'s hand has {len(hands[s])} cards; a Gin hand has {HAND_SIZE} (G2), "
                "or none to be dealt from the seed"
            )
    upcard = card_list(spec.get("upcard", []), "the upcard")
    if len(upcard) > 1:
        raise ScenarioError("'upcard' is one card")
    stock = card_list(spec.get("stock", []), "the stock")
    named = [*hands[non_dealer], *hands[dealer], *upcard, *stock]
    rest = fill_from_seed(named, STANDARD_CARDS, seed)
    nd, dl = hands[non_dealer] or rest.take(HAND_SIZE), hands[dealer] or rest.take(HAND_SIZE)
    up = upcard or rest.take(1)
    deck = [c for pair in zip(nd, dl, strict=True) for c in pair] + up + stock + rest.take()
    if three:
        return GinThree(options, seed, seats, [deck], roles=roles)
    return HollywoodGin(options, seed, seats, [deck], dealer=dealer)


def _roles(value: Any) -> Roles:
    if value is None:
        raise ScenarioError(
            "a Gin-for-three deal names its roles: roles = {box=0, captain=1, sitter=2}"
        )
    if not isinstance(value, dict) or set(value) != {"box", "captain", "sitter"}:
        raise ScenarioError(
            "'roles' names the box, the captain and the sitter (T1), "
            "e.g. {box=0, captain=1, sitter=2}"
        )
    if sorted(value.values()) != [0, 1, 2]:
        raise ScenarioError(f"the roles give each of the seats 0, 1 and 2 one role, not {value}")
    return Roles(value["box"], value["captain"], value["sitter"])


__all__ = ["DEAL_KEYS", "Card", "deal", "sample"]
