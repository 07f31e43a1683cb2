"""The legal actions of a Rummy 500 state (C7): the draws (R4.1, R7), the melds,
lay-offs and discards of a turn (R4.2, R4.3, R10), what an owed card allows (R4, R6)
and the calls of "Rummy!" (R6).

Each function reads the state's public fields (see :class:`Rummy500`) and changes
nothing. The scans inline :func:`meldable` with bit-mask shortcuts;
``tests/test_rummy500_fast_paths.py`` checks them against the plain calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from referee.actions import DISCARD_TABLES, DISCARDS, DRAW_DISCARD, DRAW_STOCK
from referee.engine import Action
from referee.games.rummy500.actions import (
    DECLINE,
    JK,
    LayOff,
    NewMeld,
    call_rummy,
    deep_draw,
    holds,
)
from referee.games.rummy500.melds import (
    NEIGHBOURS,
    RANK13,
    SET_MATES,
    SHAPES,
    WINDOW_MASKS,
    chain_reaches,
    forms_meld,
    joker_forms_meld,
    meldable,
    run_accept,
    set_accept,
)
from referee.games.rummy500.tables import MELD_CARDS, meld_actions

if TYPE_CHECKING:
    from referee.games.rummy500.state import Rummy500


def draw_actions(s: Rummy500) -> list[Action]:
    """R4.1 draws, deep draws only where the card can be melded this turn; R7 decline."""
    seat = s.turn
    out: list[Action] = []
    stock_left = s.stock_pos < len(s.stock)
    if stock_left:
        out.append(DRAW_STOCK)
    pile = s.pile
    if pile:
        top = pile[-1]
        # a player with no cards could neither meld nor discard a lone top card
        if s.size[seat] or (s.joker_ok if top == JK else s.accept >> top & 1):
            out.append(DRAW_DISCARD)
        if len(pile) > 1:
            pool = s.held[seat]
            jokers = s.jokers_held[seat]
            if top == JK:
                jokers += 1
            else:
                pool |= 1 << top
            accept, ends, near2 = s.accept, s.run_ends, s.run_near2
            for depth, c in enumerate(pile[-2::-1], 2):
                if c == JK:
                    if s.joker_ok or joker_forms_meld(pool, jokers):
                        out.append(deep_draw(depth, c))
                    jokers += 1
                    continue
                # meldable() inlined: a lay-off, a new meld, or a chain of lay-offs
                if jokers >= 2 or accept >> c & 1:
                    out.append(deep_draw(depth, c))
                elif jokers:  # one joker: any card it can share a meld with
                    if pool & NEIGHBOURS[c] or (
                        # else a chain fills one gap with the joker: the card is
                        # two places beyond a run's end
                        near2 >> c & 1 and chain_reaches(c, pool, 1, s.runs)
                    ):
                        out.append(deep_draw(depth, c))
                elif pool & NEIGHBOURS[c]:
                    if (pool & SET_MATES[c]).bit_count() >= 2:
                        out.append(deep_draw(depth, c))
                    else:
                        for w in WINDOW_MASKS[c]:
                            if pool & w == w:
                                out.append(deep_draw(depth, c))
                                break
                        else:  # a chain starts with the card next to a run's end
                            if pool & ends & RANK13 << (c & 0x30) and chain_reaches(
                                c, pool, 0, s.runs
                            ):
                                out.append(deep_draw(depth, c))
                pool |= 1 << c
    if not stock_left:
        out.append(DECLINE)
    return out


def play_actions(s: Rummy500) -> list[Action]:
    """R4.2 melds and lay-offs, then R4.3 discards (R10 unplayable_final_discard)."""
    seat = s.turn
    m = s.held[seat]
    jokers = s.jokers_held[seat]
    melds: Sequence[NewMeld] = meld_actions(m, jokers)
    lays: Sequence[LayOff] = ()
    hits = s.accept & m
    if hits or jokers:
        lays = []
        natural = s.natural_layoffs
        while hits:
            low = hits & -hits
            lays.extend(natural[low.bit_length() - 1])
            hits ^= low
        if jokers:
            lays.extend(s.joker_lay_offs())
    if s.must_meld >= 0:
        return owed_actions(s, melds, lays)
    forbidden = s.may_not_discard
    if forbidden >= 0:
        if (forbidden == JK and jokers >= 2) or (
            forbidden != JK and s.held_twice[seat] >> forbidden & 1
        ):
            forbidden = -1  # a second copy may go (R4 forbids only the card drawn)
        elif melds or lays:
            melds, lays = keep_drawn_card_playable(s, forbidden, melds, lays)
    c = DISCARD_TABLES
    if forbidden < 0 and not s.options.unplayable_final_discard:
        out: list[Action] = [
            *melds,
            *lays,
            *c[0][m & RANK13],
            *c[1][(m >> 16) & RANK13],
            *c[2][(m >> 32) & RANK13],
            *c[3][(m >> 48) & RANK13],
        ]
        if jokers:
            out.append(DISCARDS[JK])
        return out
    last = s.size[seat] == 1 and s.options.unplayable_final_discard
    d = m
    if forbidden >= 0 and forbidden != JK:
        d &= ~(1 << forbidden)
    if last:
        d &= ~s.accept
    out = [
        *melds,
        *lays,
        *c[0][d & RANK13],
        *c[1][(d >> 16) & RANK13],
        *c[2][(d >> 32) & RANK13],
        *c[3][(d >> 48) & RANK13],
    ]
    if jokers and forbidden != JK and not (last and s.joker_ok):
        out.append(DISCARDS[JK])
    return out


def owed_actions(s: Rummy500, melds: Sequence[NewMeld], lays: Sequence[LayOff]) -> list[Action]:
    """The melds and lay-offs open while a deep-drawn or called card is owed: those
    placing it, or (unless it must be placed now) leaving it meldable (R4, R6)."""
    pending = s.must_meld
    if s.must_meld_now:
        return [a for a in [*melds, *lays] if holds(a, pending)]
    out: list[Action]
    if s.joker_ok if pending == JK else s.accept >> pending & 1:
        out = [*melds]  # a new meld leaves the table that takes the card as it is
    else:
        out = [a for a in melds if holds(a, pending) or still_meldable(s, a, pending)]
    out.extend([a for a in lays if holds(a, pending) or still_meldable(s, a, pending)])
    return out


def keep_drawn_card_playable(
    s: Rummy500, forbidden: int, melds: Sequence[NewMeld], lays: Sequence[LayOff]
) -> tuple[Sequence[NewMeld], Sequence[LayOff]]:
    """Never leave the lone card drawn from the pile as the whole hand unless it can
    then be laid off: it could neither be discarded nor melded (R4)."""
    keep = s.size[s.turn] - 1  # an action placing this many cards leaves one
    if keep == 1:
        if lays:
            lays = [a for a in lays if holds(a, forbidden) or still_meldable(s, a, forbidden)]
    elif melds:
        melds = [
            a
            for a in melds
            if len(a.slots) != keep or holds(a, forbidden) or still_meldable(s, a, forbidden)
        ]
    return melds, lays


def still_meldable(s: Rummy500, action: Action, card: int) -> bool:
    """Whether ``card``, held and not placed by ``action``, can still be melded this
    turn after ``action`` (R4)."""
    seat = s.turn
    m1, m2, jokers = s.held[seat], s.held_twice[seat], s.jokers_held[seat]
    if card == JK:
        # the hand's other jokers: the owed one cannot be its own partner in a meld
        jokers -= 1
    if isinstance(action, NewMeld):
        naturals, used = MELD_CARDS[action]
        jokers -= used
        m1 &= ~(naturals & ~m2)  # a card held twice stays in m1
        # the melds already on the table stay as they are
        if card == JK:
            if s.joker_ok:
                return True
        elif s.accept >> card & 1:
            return True
    else:
        assert isinstance(action, LayOff)
        c = action.card
        if action.joker:
            jokers -= 1
        elif m2 >> c & 1:
            m2 ^= 1 << c
        else:
            m1 ^= 1 << c
    # what the hand can do alone, whatever the table (see meldable)
    if card == JK:
        if joker_forms_meld(m1, jokers):
            return True
    elif jokers >= 2 or (m1 & NEIGHBOURS[card] and forms_meld(card, m1, jokers)):
        return True
    # the table after the action: what it takes, and its runs
    runs: Sequence[tuple[int, int, int]] = s.runs
    if isinstance(action, NewMeld):
        is_run, key, lo, hi, suits = SHAPES[action.slots]
        if is_run:
            runs = [*runs, (key, lo, hi)]
            accept = s.accept | run_accept(key, lo, hi)
        else:
            accept = s.accept | set_accept(key, suits)
    else:
        tm = s.table[action.meld - 1]
        takers = s.takers
        accept = s.accept
        old = tm.accept
        while old:  # drop the cards only this meld took
            bit = old & -old
            old ^= bit
            if takers[bit.bit_length() - 1] == 1:
                accept ^= bit
        if tm.is_run:
            lo, hi = tm.bounds_after(action.card)
            runs = list(runs)
            runs[tm.run_pos] = (tm.key, lo, hi)
            accept |= run_accept(tm.key, lo, hi)
        else:
            accept |= set_accept(tm.key, tm.suits | 1 << (action.card >> 4))
    return meldable(card, m1, jokers, accept, accept != 0, runs)


def rummy_calls(s: Rummy500) -> tuple[Action, ...]:
    """The discard-pile cards that can be melded with no card from a hand: laid
    off on a table meld as it lies, or in a new meld with cards above them (R6)."""
    pool = 0
    jokers = 0
    accept = s.accept
    out: list[Action] = []
    for depth, c in enumerate(reversed(s.pile), 1):
        if c == JK:
            if s.joker_ok or joker_forms_meld(pool, jokers):
                out.append(call_rummy(depth, c))
            jokers += 1
            continue
        # meldable() inlined, without chains (no hand cards to lay off)
        if jokers >= 2 or accept >> c & 1:
            out.append(call_rummy(depth, c))
        elif pool & NEIGHBOURS[c]:
            if jokers or (pool & SET_MATES[c]).bit_count() >= 2:
                out.append(call_rummy(depth, c))
            else:
                for w in WINDOW_MASKS[c]:
                    if pool & w == w:
                        out.append(call_rummy(depth, c))
                        break
        pool |= 1 << c
    return tuple(out)
