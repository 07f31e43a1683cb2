"""Rummy 500 (rules R1–R10): 2–8 players, melds and lay-offs scored as they are
played, deep draws from the spread discard pile, and calls of "Rummy!".

Text forms of the actions (docs/games/rummy-500.md):

    draw stock | draw discard | draw discard N C | decline
    meld 5H 6H JK=7H | lay off 8H on 2 | lay off JK=8H on 2 | discard C
    rummy N C | no rummy

``N`` counts discard-pile cards from the top (1 is the top card): ``draw discard
3 KH`` takes the three top cards, the deepest being KH. Melds on the table are
numbered from 1 in the order they were made this hand, which is how a lay-off
names its target (as Flip Flop numbers its spreads).

The modules, by concern:

- ``actions``: the action values, their text forms and parsing;
- ``melds``: melds as bit masks (shapes, templates, what a meld accepts), the
  meld on the table;
- ``tables``: the new melds of a hand by suit pattern, event texts;
- ``legal``: the legal actions of a state (C7);
- ``views``: the view dataclasses and how a seat's view is made (C9);
- ``state``: the options, the match state and what each action does; registers
  the game.

Where each rule is played (docs/rules/rummy-500.md):

- R1 cards: ``state.deck_for``
- R2 values: ``melds.RANK_VALUES``; the low ace in ``state.Rummy500._place``;
  cards left in hand in ``state.Rummy500.hand_value``
- R3 deal: ``state.Rummy500._deal`` (the first dealer in ``Rummy500.__init__``)
- R4 turn: R4.1 draw: ``legal.draw_actions``, ``state.Rummy500._draw_stock``,
  ``_draw_discard``, ``_draw_deep``, ``state.Rummy500._take_from_pile``; the deep-drawn card owed:
  ``legal.owed_actions``, ``legal.still_meldable``.
  R4.2 meld: ``tables.meld_actions``, ``legal.play_actions``,
  ``state.Rummy500._place``, ``state.Rummy500._table_changed``.
  R4.3 discard: ``legal.play_actions``, ``legal.keep_drawn_card_playable``,
  ``state.Rummy500._discard``
- R5 melds: ``melds.run_templates``, ``melds.set_templates``,
  ``melds.canonical_slots``, ``melds.TableMeld``; ``actions.parse_rummy500_action``
- R6 calling rummy: ``legal.rummy_calls``, ``state.Rummy500._end_turn``,
  ``state.Rummy500._call_rummy``, ``_no_rummy``, ``legal.owed_actions``
- R7 end of a hand: ``state.Rummy500._end_hand``; declining in
  ``legal.draw_actions``, ``state.Rummy500._decline``; the turn cap in ``state.Rummy500._end_turn``
- R8 scoring: ``state.Rummy500._place`` (melded points), ``state.Rummy500._end_hand``
- R9 winning: ``state.Rummy500._end_hand``, ``state.Rummy500.result``
- R10 options: ``state.Rummy500Options``; floating in ``state.Rummy500._place``;
  ``unplayable_final_discard`` in ``legal.play_actions``
- C9 hidden information: ``views.rummy500_view``
"""

from referee.games.rummy500.actions import (
    DECLINE,
    JK,
    MOST_CARDS,
    MOST_MELDS,
    NO_RUMMY,
    CallRummy,
    Decline,
    DrawDeep,
    LayOff,
    NewMeld,
    NoRummy,
    call_rummy,
    deep_draw,
    holds,
    lay_off,
    parse_rummy500_action,
)
from referee.games.rummy500.melds import TableMeld
from referee.games.rummy500.state import (
    SCORINGS,
    SPEC,
    Rummy500,
    Rummy500Options,
    deck_for,
)
from referee.games.rummy500.tables import meld_actions
from referee.games.rummy500.views import (
    CALL,
    DRAW,
    PHASE_NAMES,
    PLAY,
    HandView,
    MeldView,
    OutcomeView,
    PlacedView,
    Rummy500View,
)

__all__ = [
    "CALL",
    "DECLINE",
    "DRAW",
    "JK",
    "MOST_CARDS",
    "MOST_MELDS",
    "NO_RUMMY",
    "PHASE_NAMES",
    "PLAY",
    "SCORINGS",
    "SPEC",
    "CallRummy",
    "Decline",
    "DrawDeep",
    "HandView",
    "LayOff",
    "MeldView",
    "NewMeld",
    "NoRummy",
    "OutcomeView",
    "PlacedView",
    "Rummy500",
    "Rummy500Options",
    "Rummy500View",
    "TableMeld",
    "call_rummy",
    "deck_for",
    "deep_draw",
    "holds",
    "lay_off",
    "meld_actions",
    "parse_rummy500_action",
]
