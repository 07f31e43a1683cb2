"""Sampled and chosen positions of Rummy 500 (R1–R10).

What a seat knows (C9): its own hand, every meld on the table and who played each of
its cards, the discard pile (kept spread, R3), the size of every hand and of the stock,
and per seat the cards it was seen taking from the pile and still holds (``known``).
The view holds all of that, so the events the seat was sent add nothing. The cards it
cannot see are the pack(s) (R1) less all of those; each other hand holds its known
cards and some of them, the stock the rest. Any split is reachable (a hand's other
cards came from the stock unseen, and every card that left a hand is face up), so the
sample deals them uniformly, with one condition: while another player owes a card
drawn deep from the pile (R4), that player's hand lets it be melded, as the engine
keeps it; the sample draws until it does.

A chosen deal names a new hand: the dealer, the hands, the upcard and the top of the
stock (R3). With any of ``discard_pile``, ``melds``, ``turn``, ``phase``, ``scores``
or ``hands_played`` it names a hand in play instead, checked against what play can
reach: every card of the pack once; melds that are melds (R5); no hand smaller than
it was dealt less the cards it put on the table (R3, R4: only melding shrinks a
hand); no stock larger than the deal left it; scores only from hands played (R8).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from referee.cards import JOKER, Card, SplitMix64, parse_card
from referee.engine import Event, GameState, IllegalActionError
from referee.games.rummy500 import (
    DRAW,
    PHASE_NAMES,
    PLAY,
    NewMeld,
    Rummy500,
    Rummy500Options,
    deck_for,
    parse_rummy500_action,
)
from referee.games.rummy500.melds import meldable
from referee.games.rummy500.state import dealt_size
from referee.scenario.deals import card_list, fill_from_seed
from referee.scenario.errors import ScenarioError

#: The keys a Rummy 500 deal may name (docs/bots.md, "Chosen deals"): a new hand's,
#: then those that make it a hand in play.
NEW_HAND_KEYS = ("dealer", "hands", "upcard", "stock")
IN_PLAY_KEYS = ("discard_pile", "melds", "turn", "phase", "scores", "hands_played")
DEAL_KEYS = NEW_HAND_KEYS + IN_PLAY_KEYS
#: The phases a chosen hand in play may be in: about to draw, or drawn from the stock.
CHOSEN_PHASES = {"draw": DRAW, "play": PLAY}
#: Draws of the hidden hands before the sample gives up on one that can meld a card
#: its player owes (R4): some hand of the right size can, since the real one does.
OWED_DRAWS = 100_000


# -- sampling ------------------------------------------------------------------------------


def sample(view: Any, events: list[Event], rng: random.Random, options: Any) -> GameState:
    """A state of the match ``view`` sees, the cards it cannot see dealt at random."""
    hand = view.hand
    if hand is None:
        raise ScenarioError("the match is over: there is nothing hidden to sample")
    seat = view.seat
    n = len(view.scores)
    unseen = Counter(deck_for(options, n))
    seen = [*hand.hand, *hand.discard_pile, *(p.card for m in hand.melds for p in m.cards)]
    seen += [c for s, cards in enumerate(hand.known) if s != seat for c in cards]
    unseen.subtract(seen)
    for card, count in unseen.items():
        if count < 0:
            raise ScenarioError(
                f"seat {seat}'s view shows {card} more often than the pack holds it"
            )
    pool = list(unseen.elements())
    missing = [0 if s == seat else hand.hand_sizes[s] - len(hand.known[s]) for s in range(n)]
    if min(missing) < 0 or sum(missing) + hand.stock_size != len(pool):
        raise ScenarioError(
            f"seat {seat}'s view does not add up: {len(pool)} unseen cards for hidden hands "
            f"of {sum(missing)} cards and a stock of {hand.stock_size}"
        )
    phase = PHASE_NAMES.index(hand.phase)
    table = [[(p.stands_for, p.card, p.seat) for p in m.cards] for m in hand.melds]
    owed = hand.must_meld if phase == PLAY and hand.turn != seat else None

    for _ in range(OWED_DRAWS):
        rng.shuffle(pool)
        hands, pos = [], 0
        for s in range(n):
            hidden = pool[pos : pos + missing[s]]
            hands.append(list(hand.hand) if s == seat else [*hand.known[s], *hidden])
            pos += missing[s]
        state = Rummy500.at_position(
            options,
            rng.getrandbits(64),
            n,
            dealer=hand.dealer,
            hands=hands,
            discard_pile=hand.discard_pile,
            stock=pool[pos:],
            turn=hand.turn,
            phase=phase,
            table=table,
            known=hand.known,
            melded=hand.melded_points,
            must_meld=hand.must_meld,
            must_meld_now=hand.must_meld_now,
            may_not_discard=hand.may_not_discard,
            asked=view.to_act,
            turns=hand.turns,
            scores=view.scores,
            hands_played=view.hands_played,
            last_hand=view.last_hand,
        )
        if owed is None or _can_meld(state, hand.turn, owed):
            return state
    raise ScenarioError(f"no hand of seat {hand.turn} can meld the {owed} it owes (R4)")


def _can_meld(state: Rummy500, seat: int, card: Card) -> bool:
    """Whether ``seat`` can still meld ``card`` this turn (R4): the condition the engine
    offers a deep draw on and keeps while the card is owed."""
    jokers = state.jokers_held[seat] - (card == JOKER)  # an owed joker is not its own partner
    return meldable(card, state.held[seat], jokers, state.accept, state.joker_ok, state.runs)


# -- chosen deals --------------------------------------------------------------------------


def deal(spec: dict[str, Any], options: Rummy500Options, seats: int, seed: int) -> GameState:
    """A match from the hand ``spec`` names: a new one (R3) or one in play."""
    pack = deck_for(options, seats)
    size = dealt_size(seats)
    dealer = _seat(spec.get("dealer", SplitMix64(seed).below(seats)), "the dealer", seats)
    hands = spec.get("hands", [])
    if not isinstance(hands, list) or len(hands) > seats:
        raise ScenarioError(f"'hands' is a list of at most {seats} hands, one per seat")
    named = [_hand(h, s) for s, h in enumerate(hands)]
    named += [None] * (seats - len(named))
    stock = card_list(spec.get("stock", []), "the stock")
    if not any(key in spec for key in IN_PLAY_KEYS):
        return _first_hand(spec, options, seats, seed, dealer, named, stock)

    if "upcard" in spec and "discard_pile" in spec:
        raise ScenarioError(
            "name the discard pile (bottom first) or its one card, the upcard, not both"
        )
    pile = card_list(spec.get("discard_pile", spec.get("upcard", [])), "the discard pile")
    melds = _melds(spec.get("melds", []), seats)
    turn = _seat(spec.get("turn", (dealer + 1) % seats), "the turn", seats)
    phase_name = spec.get("phase", "draw")
    if phase_name not in CHOSEN_PHASES:
        raise ScenarioError(
            f"the phase is 'draw' (to draw) or 'play' (drawn from the stock), not {phase_name!r}"
        )
    phase = CHOSEN_PHASES[phase_name]
    scores, hands_played = _history(spec, options, seats)

    on_table = [there for meld, _ in melds for _, there in _slots(meld)]
    cards = [c for h in named if isinstance(h, list) for c in h]
    rest = fill_from_seed([*cards, *pile, *on_table, *stock], pack, seed)
    held = [h if isinstance(h, list) else rest.take(size if h is None else h) for h in named]
    if "upcard" not in spec and "discard_pile" not in spec:
        pile = rest.take(1)  # as the deal turns it up
    stock += rest.take()

    table = []
    placed = [0] * seats  # the cards each seat put on the table
    for meld, owners in melds:
        table.append([(card, there, owners[card]) for card, there in _slots(meld)])
        for card in meld.slots:
            placed[owners[card]] += 1
    for s in range(seats):
        drawn = phase == PLAY and s == turn
        if len(held[s]) < size - placed[s] + drawn:
            raise ScenarioError(
                f"seat {s} holds {len(held[s])} cards, fewer than the {size} it was dealt "
                f"(R3) less the {placed[s]} it put on the table"
                f"{' plus the card it drew' if drawn else ''}: only melding shrinks a hand (R4)"
            )
        if not held[s] and not options.floating:
            raise ScenarioError(f"seat {s} holds no cards: the hand would have ended (R7)")
    most_stock = len(pack) - seats * size - 1
    if len(stock) > most_stock:
        raise ScenarioError(
            f"the stock has {len(stock)} cards; the deal leaves it {most_stock} (R3) "
            "and only draws take from it"
        )
    return Rummy500.at_position(
        options,
        seed,
        seats,
        dealer=dealer,
        hands=held,
        discard_pile=pile,
        stock=stock,
        turn=turn,
        phase=phase,
        table=table,
        scores=scores,
        hands_played=hands_played,
    )


def _first_hand(
    spec: dict[str, Any],
    options: Rummy500Options,
    seats: int,
    seed: int,
    dealer: int,
    named: list[list[Card] | int | None],
    stock: list[Card],
) -> GameState:
    """The first hand of a match, dealt as R3 deals it (one card at a time from the
    dealer's left, then the upcard, then the stock)."""
    size = dealt_size(seats)
    for s, h in enumerate(named):
        count = len(h) if isinstance(h, list) else h
        if count not in (None, size):
            raise ScenarioError(
                f"seat {s}'s hand has {count} cards; each player is dealt {size} (R3) "
                "with this many players"
            )
    upcard = card_list(spec.get("upcard", []), "the upcard")
    if len(upcard) > 1:
        raise ScenarioError("'upcard' is one card")
    cards = [c for h in named if isinstance(h, list) for c in h]
    rest = fill_from_seed([*cards, *upcard, *stock], deck_for(options, seats), seed)
    order = [(dealer + k) % seats for k in range(1, seats + 1)]
    held = {}
    for s in order:
        h = named[s]
        held[s] = h if isinstance(h, list) else rest.take(size)
    deck = [held[s][i] for i in range(size) for s in order]
    deck += upcard or rest.take(1)
    deck += stock + rest.take()
    return Rummy500(options, seed, seats, [deck], dealer=dealer)


def _hand(value: Any, seat: int) -> list[Card] | int | None:
    """An entry of ``hands``: its cards; a count of cards dealt from the seed; or, when
    empty, None: as many as the deal gives (R3), from the seed."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise ScenarioError(f"seat {seat}'s hand: {value} is no number of cards")
        return value
    cards = card_list(value, f"seat {seat}'s hand")
    return cards or None


def _seat(value: Any, what: str, seats: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < seats:
        raise ScenarioError(f"{what} is a seat 0..{seats - 1}, not {value!r}")
    return value


def _melds(value: Any, seats: int) -> list[tuple[NewMeld, dict[Card, int]]]:
    """The ``melds`` on the table, in the order they were made: each names its
    ``cards`` as ``meld`` does (``JK=7H`` a joker standing for 7H) and the ``seat``
    that made it, or the seat that played each card in the order written."""
    if not isinstance(value, list):
        raise ScenarioError("'melds' is a list of melds such as {seat = 0, cards = \"5H 6H 7H\"}")
    out = []
    for number, meld in enumerate(value, 1):
        if not isinstance(meld, dict) or set(meld) != {"seat", "cards"}:
            raise ScenarioError(
                f'meld {number} names its seat and its cards, e.g. {{seat = 0, cards = "5H 6H 7H"}}'
            )
        tokens = meld["cards"] if isinstance(meld["cards"], list) else str(meld["cards"]).split()
        text = " ".join(map(str, tokens))
        try:
            action = parse_rummy500_action("meld " + text)
        except IllegalActionError as exc:
            raise ScenarioError(f"meld {number}: {exc}") from exc
        assert isinstance(action, NewMeld)
        written = [parse_card(t[3:] if t.upper().startswith("JK=") else t) for t in text.split()]
        seat = meld["seat"]
        owners = seat if isinstance(seat, list) else [seat] * len(written)
        if len(owners) != len(written):
            raise ScenarioError(f"meld {number} has {len(written)} cards and {len(owners)} seats")
        for s in owners:
            _seat(s, f"the seat of meld {number}", seats)
        out.append((action, dict(zip(written, owners, strict=True))))
    return out


def _slots(meld: NewMeld) -> list[tuple[Card, Card]]:
    """Each slot of a meld: the card it stands for and the card lying there."""
    return [(c, JOKER if meld.jokers >> i & 1 else c) for i, c in enumerate(meld.slots)]


def _history(spec: dict[str, Any], options: Rummy500Options, seats: int) -> tuple[list[int], int]:
    """The scores before this hand and the hands played (R8, R9)."""
    hands_played = spec.get("hands_played", 0)
    if (
        isinstance(hands_played, bool)
        or not isinstance(hands_played, int)
        or not (0 <= hands_played < options.max_hands)
    ):
        raise ScenarioError(
            f"'hands_played' counts the hands before this one, 0..{options.max_hands - 1} "
            f"(option max_hands, R9), not {hands_played!r}"
        )
    scores = spec.get("scores", [0] * seats)
    if (
        not isinstance(scores, list)
        or len(scores) != seats
        or any(isinstance(s, bool) or not isinstance(s, int) for s in scores)
    ):
        raise ScenarioError(f"'scores' is a list of {seats} whole numbers, one per seat")
    if hands_played == 0 and any(scores):
        raise ScenarioError(
            "the scores are all 0 before the first hand: they come from hands played (R8)"
        )
    top = max(scores)
    if top >= options.target and scores.count(top) == 1:
        raise ScenarioError(
            f"a seat has {top}, the highest and at least the target {options.target}: "
            "the match would be over (R9)"
        )
    return scores, hands_played


__all__ = ["DEAL_KEYS", "deal", "sample"]
