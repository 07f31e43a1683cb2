"""Game Flip Flop (rules F1–F14): 3–5 players, stakes, and three pots (game, flip, flop).

A Tonk-style round: antes by bankroll (F3), a five-card deal with the dealer's
last card face up (F4), optional 49/50 declarations (F5), the flip and flop
pots won by the lowest cards of two suits (F6), then turns of draw, spread,
lay off, discard (F7–F11) until someone goes out, drops, tunks out or the stock
runs dry. Hands are bit masks over card ids (``referee.cards``); spreads on
the table are numbered from 1 in the order they were laid down this round,
which is how a lay-off names its target. See ``docs/games/flip-flop.md``.

The modules, by concern:

- ``actions``: the action values, their text forms and parsing;
- ``tables``: the meld search, card masks, seat orders, event texts;
- ``stakes``: bankrolls and pots, and the rules that move stakes;
- ``deal``: the deal and what it settles at once (49/50 hands, reveals);
- ``legal``: the legal actions of a state (C7);
- ``views``: the view dataclasses and how a seat's view is made (C9);
- ``state``: the options, the match state and what each action does; registers
  the game.

Where each rule is played (docs/rules/flip-flop.md):

- F1 cards: ``tables.SEARCH``, ``tables.hand_value``
- F2 bankroll: ``stakes.Stakes``
- F3 antes: ``stakes.Stakes.ante``
- F4 deal: ``deal.deal_hands``, ``state.FlipFlop._start_round``; the deal passing
  left in ``state.FlipFlop._settle``
- F5 forty-nine and fifty: ``deal.deal_hands`` (who may declare),
  ``legal.legal_actions_of``, ``state.FlipFlop._next_declarer``; the set-aside
  stakes paid in ``stakes.Stakes.settle``
- F6 flip and flop: ``deal.deal_hands`` (reveals and winners; ``deal.reveals_due`` for
  a round under way, ``state.FlipFlop.at_position``), ``actions.reveal_plan``,
  ``state.FlipFlop._reveal``, ``state.FlipFlop._settle_side_pots``,
  ``stakes.Stakes.pay_side_pots``; reveals not yet made in ``state.FlipFlop._end_round``
- F7 turn: F7.1 drop, F7.2 draw: ``legal.legal_actions_of``,
  ``state.FlipFlop._apply_draw_stock``, ``state.FlipFlop._apply_draw_discard``.
  F7.3 tunk out, F7.4 spreads and lay-offs, F7.5 discard: ``legal.play_actions``,
  ``state.FlipFlop._apply_spread``, ``state.FlipFlop._apply_layoff``,
  ``state.FlipFlop._apply_discard``; going out in ``state.FlipFlop._went_out``
- F8 spreads: ``actions.SPREADS``, ``tables.extension_mask``
- F9 drop: ``state.FlipFlop._drop`` (the dropper's payment in ``stakes.Stakes.settle``)
- F10 tunk out: ``tables.tunk_split``, ``state.FlipFlop._tunk_out``
- F11 empty stock: ``state.FlipFlop._end_turn``, ``state.FlipFlop._showdown``
- F12 splitting, F13 elimination: ``stakes.Stakes.settle``
- F14 end of the match: ``state.FlipFlop._settle``, ``stakes.Stakes.ranks``
- C9 hidden information: ``views.flip_flop_view``; reveals as actions, ``actions.Reveal``
"""

from referee.games.flip_flop.actions import (
    DECLARES,
    DROP,
    SPREADS,
    TUNK_OUT,
    Declare,
    Drop,
    LayOff,
    Reveal,
    RevealPlan,
    Spread,
    TunkOut,
    layoff_action,
    parse_flip_flop_action,
    reveal_plan,
)
from referee.games.flip_flop.stakes import Stakes
from referee.games.flip_flop.state import SPEC, FlipFlop, FlipFlopOptions
from referee.games.flip_flop.tables import (
    CARD_VALUE,
    FLIP,
    FLOP,
    GAME,
    HAND_SIZE,
    POT_NAMES,
    SEARCH,
    extension_mask,
    hand_value,
    tunk_split,
)
from referee.games.flip_flop.views import (
    FlipFlopView,
    Phase,
    PlayerView,
    RevealView,
    RoundSummary,
    ShownHand,
    SpreadView,
)

__all__ = [
    "CARD_VALUE",
    "DECLARES",
    "DROP",
    "FLIP",
    "FLOP",
    "GAME",
    "HAND_SIZE",
    "POT_NAMES",
    "SEARCH",
    "SPEC",
    "SPREADS",
    "TUNK_OUT",
    "Declare",
    "Drop",
    "FlipFlop",
    "FlipFlopOptions",
    "FlipFlopView",
    "LayOff",
    "Phase",
    "PlayerView",
    "Reveal",
    "RevealPlan",
    "RevealView",
    "RoundSummary",
    "ShownHand",
    "Spread",
    "SpreadView",
    "Stakes",
    "TunkOut",
    "extension_mask",
    "hand_value",
    "layoff_action",
    "parse_flip_flop_action",
    "reveal_plan",
    "tunk_split",
]
