"""Sampled and chosen positions of Game Flip Flop (F1–F14).

What a seat knows (C9): its own hand; of every seat the bankroll, set-aside stake,
eligible pots (F3), hand size and face-up cards (the flip card, reveals, cards taken
from the discard pile, a declared hand); the table, the discard pile, the pots, the
reveals; and, from the events of the round, what each seat did: its 49/50 answer
(F5), its draws, what it played. Rounds are dealt afresh (F4), so only this round's
events matter. The cards it cannot see are the pack less all of that; they lie in
the other hands (beyond their face-up cards) and the stock.

They are not dealt uniformly among the hidden places, because the round told the
table things about each opening hand, and the sample is uniform over the deals that
agree with all of them:

- F6: a seat that made its reveal shows, for each pot it may win, its lowest card of
  that suit when it beats the best shown before it; so its opening hand held no card
  of the suit below the card it showed, or, when it showed none, below the best
  before it (none of the suit at all when nothing was shown yet). The revealed cards
  and the dealer's flip card (F4) were in the opening hand.
- F7: a card a seat played that it was not seen to hold was in its opening hand or
  among the cards it drew from the stock before playing it.
- F5: the seats asked about 49 or 50 held five cards adding up to 49 or 50; the
  others did not (the referee asks every such seat, from the dealer's left).

A hidden card of a suit a seat's opening hand lacked must be one it drew, so a seat
with few stock draws is unlikely to hold many. The sample counts, per seat, the ways
its cards of unknown origin (those it played, those it holds unseen) can sit in its
opening hand and its draws (``_Seat.ways``); that number depends only on how many of
its hidden cards its opening hand cannot have held, so the hidden hands are drawn
exactly from those weights over the categories of cards the seats exclude
(``_Split``). The hidden cards of a seat known to hold 49 or 50 that has not acted
yet are drawn exactly among such hands (``_Asked``). Each other opening hand is then
drawn among its ways, and the whole deal is drawn again when one breaks a 49/50
answer: rejection, which keeps the sample exact.

The sample needs the round's events: with none, it raises :class:`ScenarioError`.

A chosen deal starts a match (F2: every seat with the option's ``starting_stakes``;
the rules give no other start): ``dealer``, ``hands`` (per seat five cards in the order
dealt, the dealer's fifth the flip card, F4; an empty hand is dealt from the seed) and
the top of the ``stock``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any

from referee.cards import (
    RANK_BITS,
    STANDARD_CARDS,
    SUIT_MASK,
    Card,
    SplitMix64,
    card_tuple,
    make_deck,
    mask_of,
    parse_card,
    parse_cards,
)
from referee.engine import Event, GameState
from referee.games.flip_flop import HAND_SIZE, POT_NAMES, FlipFlop, FlipFlopOptions, Phase
from referee.games.flip_flop.deal import declarable
from referee.games.flip_flop.tables import CARD_VALUE, SEAT_ORDERS, TEN_VALUED
from referee.scenario.deals import card_list, fill_from_seed
from referee.scenario.errors import ScenarioError

#: The keys a Flip Flop deal may name (docs/bots.md, "Chosen deals").
DEAL_KEYS = ("dealer", "hands", "stock")
#: Deals drawn before the sample gives up on one that agrees with the 49/50 answers
#: (F5). They seldom fail, except for a seat that passed on 49 or 50 and has played
#: since (about one deal in 200 then); those that have not are drawn exactly.
FACT_DRAWS = 200_000
_POT_WON = re.compile(r"wins the (flip|flop) pot \((?P<stakes>\d+)\) with (?P<card>\w\w)")
_UNCLAIMED = re.compile(r"(flip|flop) pot unclaimed: \d+")
_NINES = sum(1 << c for c in STANDARD_CARDS if CARD_VALUE[c] == 9)


# -- what the round told the table ---------------------------------------------------------


@dataclass
class _Seat:
    """What the table knows of one other seat's round."""

    seat: int
    opening: int = 0  # cards known to be in its opening hand: the flip card, reveals
    in_hand: int = 0  # the cards all can see in its hand
    draws: int = 0  # cards it drew from the stock
    # cards it played of unknown origin, each with the stock draws it had made by then
    played: list[tuple[Card, int]] = field(default_factory=list)
    asked: bool = False  # about 49 or 50 (F5)
    taken: Card | None = None  # its last draw, when from the discard pile
    excluded: int = 0  # cards its opening hand cannot have held (F6)
    hidden: int = 0  # cards in its hand nobody else sees
    fact: bool | None = None  # its opening hand adds up to 49 or 50, or not; None: unknown
    started: bool = False  # has taken its first action (so made its reveal, F6)

    @property
    def free(self) -> int:
        """The places of its opening hand not taken by cards known to be there."""
        return HAND_SIZE - self.opening.bit_count()

    def items(self, hidden: Sequence[Card]) -> list[tuple[int, bool, Card]]:
        """Its cards of unknown origin, as (stock draws by the time it had it, whether
        its opening hand cannot have held it, card), by the first."""
        out = [(k, bool(self.excluded >> c & 1), c) for c, k in self.played]
        out += [(self.draws, bool(self.excluded >> c & 1), c) for c in hidden]
        out.sort(key=lambda item: item[0])
        return out

    def ways(self, items: Sequence[tuple[int, bool, Card]]) -> list[list[int]]:
        """Counts of the ways its cards of unknown origin sit in the free places of its
        opening hand and its stock draws (F6, F7), over the first t items with j of them
        in the opening hand: ``table[t][j]``. An item in the opening hand may not be
        excluded; one drawn took one of the draws made by its time, the earlier items
        drawn having taken some of those (their times are no later: a chain)."""
        free = self.free
        row = [1] + [0] * free
        table = [row]
        for t, (k, excluded, _) in enumerate(items):
            nxt = [0] * (free + 1)
            for j, w in enumerate(row):
                if w:
                    drawn_places = k - (t - j)
                    if drawn_places > 0:
                        nxt[j] += w * drawn_places
                    if not excluded and j < free:
                        nxt[j + 1] += w
            row = nxt
            table.append(row)
        return table

    def weights(self, excluded_pool: Sequence[Card], other_pool: Sequence[Card]) -> list[int]:
        """The ways for each number f of its hidden cards its opening hand cannot have
        held (cards of one kind are alike: only f matters)."""
        out = []
        for f in range(self.hidden + 1):
            if f > len(excluded_pool) or self.hidden - f > len(other_pool):
                out.append(0)
                continue
            hidden = [*excluded_pool[:f], *other_pool[: self.hidden - f]]
            out.append(self.ways(self.items(hidden))[-1][self.free])
        return out

    def opening_hand(self, hidden: Sequence[Card], rng: random.Random) -> int:
        """An opening hand drawn among the ways its cards can have come (``ways``)."""
        items = self.items(hidden)
        table = self.ways(items)
        j = self.free
        opening = self.opening
        for t in range(len(items), 0, -1):
            k, excluded, card = items[t - 1]
            drawn = table[t - 1][j] * max(k - (t - 1 - j), 0)
            held = 0 if excluded or j == 0 else table[t - 1][j - 1]
            if rng.randrange(drawn + held) >= drawn:
                opening |= 1 << card
                j -= 1
        return opening


def _round_events(view: Any, events: Sequence[Event]) -> list[Event]:
    """The events of the round in play, after the one that opened it."""
    opened = f"round {view.round}: "
    for i in range(len(events) - 1, -1, -1):
        if events[i].seat is None and events[i].text.startswith(opened):
            return list(events[i + 1 :])
    raise ScenarioError(
        f"Flip Flop's sample needs the events of round {view.round} (F5 answers, F6 "
        "reveals, F7 draws): pass the events the seat was sent"
    )


def _read_round(
    view: Any, events: Sequence[Event]
) -> tuple[dict[int, _Seat], list[tuple[int | None, Card | None, int]]]:
    """Per other seat in the round, what its events said; and the flip and flop
    payments once made (F6), as ``FlipFlop.at_position`` takes them."""
    me = view.seat
    players = view.players
    others = {p.seat: _Seat(p.seat) for p in players if p.in_round and p.seat != me}
    if view.dealer in others:
        flip_bit = 1 << view.flip_card
        others[view.dealer].opening = others[view.dealer].in_hand = flip_bit
    side: list[tuple[int | None, Card | None, int]] = []
    for e in _round_events(view, events):
        text = e.text
        won = _POT_WON.fullmatch(text)
        if won:
            side.append((e.seat, parse_card(won["card"]), int(won["stakes"])))
        elif _UNCLAIMED.fullmatch(text):
            side.append((None, None, int(text.rsplit(" ", 1)[1])))
        if e.seat not in others:
            continue
        s = others[e.seat]
        verb, _, rest = text.partition(" ")
        played: list[Card] = []
        if text == "pass":
            s.asked = True
        elif verb == "declare":
            s.asked = True
            s.in_hand = mask_of(parse_cards(rest.split(":", 1)[1]))
        elif verb == "reveal":
            shown = mask_of(parse_cards(rest))
            s.opening |= shown
            s.in_hand |= shown
        elif text == "draw stock":
            s.draws += 1
            s.taken = None
        elif text.startswith("draw discard "):
            s.taken = parse_card(text[13:])
            s.in_hand |= 1 << s.taken
        elif verb == "discard":
            played = [parse_card(rest)]
        elif verb == "spread":
            played = parse_cards(rest[: rest.rindex(" (")])
        elif text.startswith("lay off "):
            played = [parse_card(text.split()[2])]
        for card in played:
            if s.in_hand >> card & 1:
                s.in_hand ^= 1 << card  # seen there: its origin is known
            else:
                s.played.append((card, s.draws))
    return others, side


def _learn(view: Any, others: dict[int, _Seat]) -> None:
    """Check the events against the view, and work out what F5 and F6 say of each
    other seat's opening hand."""
    players = view.players
    order = [s for s in SEAT_ORDERS[len(players)][view.dealer] if players[s].in_round]
    declaring = view.phase == Phase.DECLARE.value
    # a seat reveals with the first action of its first turn (F6)
    acted = 0 if declaring else view.turns + (view.phase == Phase.PLAY.value)
    shift = (view.flip_card >> 4) * RANK_BITS
    shifts = (shift, shift ^ (3 * RANK_BITS))  # the flip suit, the flop suit
    levels = [len(p.eligible) for p in players]
    best: list[int | None] = [view.flip_card if levels[view.dealer] >= 2 else None, None]
    shown = {(r.seat, r.pot): r.card for r in view.reveals}
    asker = order.index(view.to_act) if declaring else len(order)
    for i, seat in enumerate(order):
        for pot in range(levels[seat] - 1):  # level 2 may win the flip, 3 the flop too
            card = shown.get((seat, POT_NAMES[pot + 1]))
            if seat in others and i < acted:
                # no card of the suit below the one shown, or below the best before
                bound = card if card is not None else best[pot]
                below = SUIT_MASK if bound is None else (1 << (bound & 15)) - 1
                others[seat].excluded |= below << shifts[pot]
            if card is not None:
                best[pot] = card
        s = others.get(seat)
        if s is None:
            continue
        s.started = i < acted
        # F5: every 49/50 hand is asked, from the dealer's left; those after the seat
        # asked now are not yet
        s.fact = None if i > asker else s.asked or i == asker
        face_up = mask_of(players[seat].face_up)
        if face_up != s.in_hand:
            raise ScenarioError(
                f"the events do not match the view: they leave seat {seat} holding "
                f"{' '.join(map(str, card_tuple(s.in_hand))) or 'no card'} face up"
            )
        s.hidden = players[seat].hand_size - face_up.bit_count()
        if len(s.played) + s.hidden != s.free + s.draws:
            raise ScenarioError(
                f"the events do not match the view: seat {seat} holds {s.hidden} unseen "
                f"cards and played {len(s.played)} of its own, but was dealt {s.free} "
                f"unseen and drew {s.draws} from the stock"
            )


# -- sampling ------------------------------------------------------------------------------


class _Split:
    """The hidden hands of the seats some of whose hidden cards their opening hands
    cannot have held, drawn exactly: the chance of a split is the product over those
    seats of its ``weights``, for the number of such cards each gets. Cards are grouped
    by the set of these seats that exclude them; seat by seat, the number taken from
    each group is drawn from its weight times the total weight of the seats after it
    (worked out once per group counts, ``total``), then the cards at random."""

    def __init__(self, seats: list[_Seat], pool: Sequence[Card]) -> None:
        self.seats = seats
        self.groups: dict[int, list[Card]] = {}
        for c in pool:
            key = sum(1 << i for i, s in enumerate(seats) if s.excluded >> c & 1)
            self.groups.setdefault(key, []).append(c)
        self.weights = []
        for s in seats:
            excluded = [c for c in pool if s.excluded >> c & 1]
            other = [c for c in pool if not s.excluded >> c & 1]
            self.weights.append(s.weights(excluded, other))
        self._totals: dict[tuple[int, tuple[int, ...]], int] = {}
        counts = [0] * (1 << len(seats))
        for key, cards in self.groups.items():
            counts[key] = len(cards)
        self.counts = tuple(counts)
        if not self.total(0, self.counts):
            raise ScenarioError("no deal agrees with what the round showed (F6, F7)")

    def choices(self, i: int, counts: tuple[int, ...]) -> list[tuple[int, list[int]]]:
        """Each way seat i can take its hidden cards from groups of these ``counts`` (by
        the seats from i on that exclude them), with its weight."""
        need = self.seats[i].hidden
        weights = self.weights[i]
        out = []

        def take(v: int, left: int, taken: list[int], ways: int, excluded: int) -> None:
            if v == len(counts):
                if left == 0:
                    rest = [n - x for n, x in zip(counts, taken, strict=True)]
                    later = [0] * (len(counts) // 2)
                    for key, n in enumerate(rest):
                        later[key >> 1] += n
                    w = ways * weights[excluded] * self.total(i + 1, tuple(later))
                    if w:
                        out.append((w, list(taken)))
                return
            for x in range(min(counts[v], left) + 1):
                taken.append(x)
                # bit 0 of a group's key: seat i excludes its cards
                take(v + 1, left - x, taken, ways * comb(counts[v], x), excluded + x * (v & 1))
                taken.pop()

        take(0, need, [], 1, 0)
        return out

    def total(self, i: int, counts: tuple[int, ...]) -> int:
        """The total weight of the hands of seats i on from groups of these counts."""
        if i == len(self.seats):
            return 1
        key = (i, counts)
        if key not in self._totals:
            self._totals[key] = sum(w for w, _ in self.choices(i, counts))
        return self._totals[key]

    def draw(self, rng: random.Random) -> list[list[Card]]:
        """The seats' hidden hands, drawn."""
        groups = [list(self.groups.get(key, ())) for key in range(len(self.counts))]
        hands = []
        for i in range(len(self.seats)):
            counts = tuple(len(g) for g in groups)
            options = self.choices(i, counts)
            pick = rng.randrange(sum(w for w, _ in options))
            for w, taken in options:  # noqa: B007 - the choice drawn is the one kept
                if pick < w:
                    break
                pick -= w
            hand = []
            for g, x in zip(groups, taken, strict=True):
                rng.shuffle(g)
                hand += g[:x]
                del g[:x]
            hands.append(hand)
            merged: list[list[Card]] = [[] for _ in range(len(groups) // 2)]
            for key, g in enumerate(groups):
                merged[key >> 1] += g
            groups = merged
        return hands


class _Asked:
    """The hidden cards of the seats known to hold 49 or 50 that have not acted yet,
    whose hands are still their opening hands (F5): five tens or court cards, or four
    and a nine. Drawn exactly: the kinds of card each takes, by their number of ways,
    then the cards."""

    def __init__(self, seats: list[_Seat]) -> None:
        self.seats = seats
        self.kinds: list[list[tuple[int, int]]] = []  # per seat: its (tens, nines)
        for s in seats:
            tens = (s.in_hand & TEN_VALUED).bit_count()
            nines = (s.in_hand & _NINES).bit_count()
            if tens + nines < s.in_hand.bit_count():
                self.kinds.append([])  # a card worth 8 or less shows: no 49 (cannot be)
            else:
                self.kinds.append([(s.hidden - k, k) for k in range(2 - nines) if k <= s.hidden])

    def ways(self, tens: int, nines: int, i: int = 0) -> int:
        """The ways seats i on can take their hidden cards from so many of each kind."""
        if i == len(self.seats):
            return 1
        return sum(
            comb(tens, t) * comb(nines, k) * self.ways(tens - t, nines - k, i + 1)
            for t, k in self.kinds[i]
        )

    def draw(self, tens: list[Card], nines: list[Card], rng: random.Random) -> list[list[Card]]:
        """Each seat's hidden cards, taken from ``tens`` and ``nines`` (shuffled)."""
        rng.shuffle(tens)
        rng.shuffle(nines)
        hands = []
        for i in range(len(self.seats)):
            options = [
                (
                    comb(len(tens), t)
                    * comb(len(nines), k)
                    * self.ways(len(tens) - t, len(nines) - k, i + 1),
                    t,
                    k,
                )
                for t, k in self.kinds[i]
            ]
            pick = rng.randrange(sum(w for w, _, _ in options))
            for w, t, k in options:  # noqa: B007 - the choice drawn is the one kept
                if pick < w:
                    break
                pick -= w
            hands.append(tens[:t] + nines[:k])
            del tens[:t], nines[:k]
        return hands


def sample(view: Any, events: list[Event], rng: random.Random, options: Any) -> GameState:
    """A state of the match ``view`` sees, the cards it cannot see dealt at random."""
    if view.phase == Phase.OVER.value:
        raise ScenarioError("the match is over: there is nothing hidden to sample")
    me = view.seat
    n = len(view.players)
    others, side = _read_round(view, events)
    _learn(view, others)
    seen = mask_of(view.hand) | mask_of(view.discard_pile)
    for p in view.players:
        seen |= mask_of(p.face_up)
    for sv in view.spreads:
        seen |= mask_of(sv.cards)
    pool = [c for c in STANDARD_CARDS if not seen >> c & 1]
    if sum(s.hidden for s in others.values()) + view.stock_size != len(pool):
        raise ScenarioError(
            f"seat {me}'s view does not add up: {len(pool)} unseen cards for hidden hands "
            f"of {sum(s.hidden for s in others.values())} cards and a stock of "
            f"{view.stock_size}"
        )
    pool_mask = mask_of(pool)
    bound = [s for s in others.values() if s.excluded & pool_mask]
    split = _Split(bound, pool)
    asked = _Asked([s for s in others.values() if s.fact and not s.started and s.hidden])
    loose = [s for s in others.values() if s not in bound and s not in asked.seats]
    for s in loose:
        if s.started and not s.weights([], pool)[0]:
            raise ScenarioError(f"no deal agrees with what seat {s.seat} played (F7)")
    # the asked seats' share is drawn after the others', with a chance in proportion to
    # its number of ways (at most ``most``): so every deal keeps its weight
    most = asked.ways((pool_mask & TEN_VALUED).bit_count(), (pool_mask & _NINES).bit_count())
    if not most:
        raise ScenarioError("no deal gives the seats asked about 49 or 50 such a hand (F5)")
    for _ in range(FACT_DRAWS):
        hidden = dict(zip((s.seat for s in bound), split.draw(rng), strict=True))
        used = mask_of(c for h in hidden.values() for c in h)
        rest = [c for c in pool if not used >> c & 1]
        tens = [c for c in rest if TEN_VALUED >> c & 1]
        nines = [c for c in rest if _NINES >> c & 1]
        if rng.randrange(most) >= asked.ways(len(tens), len(nines)):
            continue
        for s, h in zip(asked.seats, asked.draw(tens, nines, rng), strict=True):
            hidden[s.seat] = h
        used = mask_of(c for h in hidden.values() for c in h)
        rest = [c for c in rest if not used >> c & 1]
        rng.shuffle(rest)
        for s in loose:
            hidden[s.seat], rest = rest[: s.hidden], rest[s.hidden :]
        # a seat that has not acted still holds its opening hand
        if all(
            s.fact is None
            or declarable(
                s.opening_hand(hidden[s.seat], rng)
                if s.started
                else s.in_hand | mask_of(hidden[s.seat])
            )
            == s.fact
            for s in others.values()
        ):
            break
    else:
        raise ScenarioError("no deal found that agrees with the 49/50 answers (F5)")

    hands = [
        list(view.hand) if seat == me else [*p.face_up, *hidden.get(seat, ())]
        for seat, p in enumerate(view.players)
    ]
    taken = None  # the card the seat to act took from the pile this turn (F7.5)
    if view.phase == Phase.PLAY.value:
        taken = view.taken_from_discard if view.to_act == me else others[view.to_act].taken
    return FlipFlop.at_position(
        options,
        rng.getrandbits(64),
        n,
        bankrolls=[p.bankroll for p in view.players],
        set_aside=[p.set_aside for p in view.players],
        eligible=[len(p.eligible) for p in view.players],
        eliminated_in=[p.eliminated_in_round for p in view.players],
        pots=view.pots,
        round_no=view.round,
        dealer=view.dealer,
        flip_card=view.flip_card,
        hands=hands,
        face_up=[p.face_up for p in view.players],
        stock=rest,
        discard_pile=view.discard_pile,
        spreads=[(sv.owner, sv.cards) for sv in view.spreads],
        phase=Phase(view.phase),
        turn=view.to_act,
        turns=view.turns,
        taken=taken,
        declared=[p.declared for p in view.players],
        reveals=[(r.seat, r.pot, r.card) for r in view.reveals],
        side_result=side,
        last_round=view.last_round,
    )


# -- chosen deals --------------------------------------------------------------------------


def deal(spec: dict[str, Any], options: FlipFlopOptions, seats: int, seed: int) -> GameState:
    """A new match from the deal ``spec`` names (F2, F4): the hands dealt one card at a
    time from the dealer's left, the dealer's fifth card the flip card, then the stock."""
    dealer = spec.get("dealer", SplitMix64(seed).below(seats))
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < seats:
        raise ScenarioError(f"the dealer is a seat 0..{seats - 1}, not {dealer!r}")
    hands = spec.get("hands", [])
    if not isinstance(hands, list) or len(hands) > seats:
        raise ScenarioError(f"'hands' is a list of at most {seats} hands, one per seat")
    named = [card_list(h, f"seat {s}'s hand") for s, h in enumerate(hands)]
    named += [[] for _ in range(seats - len(named))]
    for s, cards in enumerate(named):
        if cards and len(cards) != HAND_SIZE:
            raise ScenarioError(
                f"seat {s}'s hand has {len(cards)} cards; each player is dealt {HAND_SIZE} "
                "(F4), or none named to deal them from the seed"
            )
    stock = card_list(spec.get("stock", []), "the stock")
    rest = fill_from_seed([*(c for h in named for c in h), *stock], make_deck(), seed)
    order = SEAT_ORDERS[seats][dealer]
    held = {s: named[s] or rest.take(HAND_SIZE) for s in order}
    deck = [held[s][i] for i in range(HAND_SIZE) for s in order]
    deck += stock + rest.take()
    return FlipFlop(options, seed, seats, [deck], dealer=dealer)


__all__ = ["DEAL_KEYS", "deal", "sample"]
