"""The legal actions of a Flip Flop state (C7): the 49/50 question (F5), a reveal
with the first decision of a seat (F6), drop or draw (F7.1, F7.2), then tunk out,
spreads, lay-offs and discards (F7.3–F7.5, F8, F10). Reads the state, changes nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.actions import DISCARD_TABLES, DRAW_DISCARD, DRAW_STOCK, PASS
from referee.engine import Action
from referee.games.flip_flop.actions import (
    DECLARES,
    DROP,
    SPREADS,
    TUNK_OUT,
    Spread,
    layoff_action,
)
from referee.games.flip_flop.tables import SEARCH, hand_value, tunk_split
from referee.games.flip_flop.views import Phase
from referee.tables import BoundedCache

if TYPE_CHECKING:
    from referee.games.flip_flop.state import FlipFlop

_DRAW = Phase.DRAW
_PLAY = Phase.PLAY
_DRAWS = (DRAW_STOCK, DRAW_DISCARD, DROP)
_DRAWS_NO_PILE = (DRAW_STOCK, DROP)

#: SPREADS_AMONG[cards]: every spread made of the cards (a hand's meld candidates).
SPREADS_AMONG: BoundedCache[int, tuple[Spread, ...]] = BoundedCache(
    lambda cand: tuple(SPREADS[m.mask] for m in SEARCH.melds_in(cand)), 100_000
)


def legal_actions_of(s: FlipFlop) -> list[Action]:
    """Every legal action of the seat to act, in a stable order."""
    phase = s.phase
    if phase is _PLAY:
        return play_actions(s)
    if phase is _DRAW:
        plan = s.pending[s.turn]
        if plan is not None:
            return list(plan.with_discard if s.discard_pile else plan.without_discard)
        return list(_DRAWS if s.discard_pile else _DRAWS_NO_PILE)
    if phase is Phase.DECLARE:
        return [DECLARES[hand_value(s.hands[s.turn])], PASS]
    return []


def play_actions(s: FlipFlop) -> list[Action]:
    """After the draw: tunk out (F10), spreads and lay-offs (F7.4), discards (F7.5)."""
    mask = s.hands[s.turn]
    # F7.5 ruling: the card taken from the discard pile this turn may not be
    # discarded, so no spread or lay-off may leave it as the only card in hand:
    # neither the spread of all the ``rest`` of the hand nor the lay-off of its one
    # other card (``lone``). A hand holds at least two cards after a draw, so one
    # of the others can always be discarded.
    rest = mask
    lone = 0
    taken = s.taken
    if taken >= 0 and mask >> taken & 1:
        rest = mask ^ (1 << taken)
        if rest & (rest - 1) == 0:
            lone = rest
    out: list[Action] = []
    cand = SEARCH.candidates(mask)
    if cand:
        if cand == mask and mask.bit_count() == 6 and tunk_split(mask) is not None:
            out.append(TUNK_OUT)
        spreads = SPREADS_AMONG[cand]
        if rest != mask and rest in SPREADS:
            leaving_taken = SPREADS[rest]
            out.extend([a for a in spreads if a is not leaving_taken])
        else:
            out.extend(spreads)
    for i, ext in enumerate(s.spread_ext):
        hit = ext & mask & ~lone
        while hit:
            low = hit & -hit
            out.append(layoff_action(low.bit_length() - 1, i + 1))
            hit ^= low
    t = DISCARD_TABLES
    out += t[0][rest & 0x1FFF]
    out += t[1][(rest >> 16) & 0x1FFF]
    out += t[2][(rest >> 32) & 0x1FFF]
    out += t[3][(rest >> 48) & 0x1FFF]
    return out
