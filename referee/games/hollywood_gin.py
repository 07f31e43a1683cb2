"""Hollywood Gin (rules G1–G10 per hand, H1–H5 for the match): two players,
three game columns scored at once.

Where each rule is played (docs/rules/hollywood-gin.md):

- G1–G10, one hand: ``referee.games.gin_hand`` (its docstring indexes them)
- H1 dealer: ``HollywoodGin.__init__`` (the first dealer), ``HollywoodGin._score``
- H2 three games at once: ``ScoreSheet.enter_win``
- H3 closing a column: ``ScoreSheet.enter_win``
- H4 match result: ``HollywoodGin._score`` (two columns, the hand cap),
  ``HollywoodGin.result``
- H5 the example: ``tests/test_hollywood_gin.py`` replays it on ``ScoreSheet``
- C9 hidden information: ``HollywoodGin.view``
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.cards import Card, make_deck, shuffled_deck
from referee.engine import (
    Action,
    Event,
    GameSpec,
    GameState,
    IllegalActionError,
    Result,
    copied_fields,
)
from referee.games.gin_hand import (
    PHASE_OVER,
    GinHand,
    GinMatchOptions,
    HandOutcome,
    parse_gin_action,
)
from referee.games.gin_views import HandView, OutcomeView, hand_view, outcome_view

COLUMNS = 3
#: what a Gin hand does with each kind of action (its ``apply`` table)
PLAY = GinHand.handlers


@dataclass(frozen=True, slots=True)
class HollywoodOptions(GinMatchOptions):
    """Options of Hollywood Gin (G6, G9, G10, H3: ``target``, H4: ``max_hands``)."""


class ScoreSheet:
    """The three game columns of a Hollywood match (H2, H3)."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.columns = [[0, 0] for _ in range(COLUMNS)]
        self.column_winners: list[int | None] = [None] * COLUMNS
        self.wins = [0, 0]

    def copy(self) -> ScoreSheet:
        """An independent copy."""
        other = ScoreSheet.__new__(ScoreSheet)
        other.target = self.target
        other.columns = [list(c) for c in self.columns]
        other.column_winners = list(self.column_winners)
        other.wins = list(self.wins)
        return other

    def enter_win(self, winner: int, points: int) -> list[int]:
        """Enter a hand won by ``winner``; return the columns it closed. The k-th win
        goes into every open column j <= min(k, 3), else the lowest open one (H2)."""
        self.wins[winner] += 1
        k = self.wins[winner]
        open_cols = [j for j in range(COLUMNS) if self.column_winners[j] is None]
        chosen = [j for j in range(min(k, COLUMNS)) if j in open_cols] or open_cols[:1]
        closed = []
        for j in chosen:
            self.columns[j][winner] += points
            if self.columns[j][winner] >= self.target:
                self.column_winners[j] = winner
                closed.append(j)
        return closed

    def columns_won(self, seat: int) -> int:
        """How many columns ``seat`` has won."""
        return self.column_winners.count(seat)

    def totals(self) -> tuple[tuple[int, int], ...]:
        """The points per column, per seat."""
        return tuple((a, b) for a, b in self.columns)

    def view(self) -> tuple[Column, ...]:
        """The columns as the players see them."""
        return tuple(
            Column((a, b), winner)
            for (a, b), winner in zip(self.columns, self.column_winners, strict=True)
        )


@dataclass(frozen=True, slots=True)
class Column:
    """One game column of the score sheet as the players see it (H2, H3)."""

    points: tuple[int, int]  # per seat
    winner: int | None  # the seat that closed the column, once one has


@dataclass(frozen=True, slots=True)
class SheetLine:
    """One hand on the score sheet."""

    number: int
    dealer: int
    kind: str
    winner: int | None
    points: int
    columns: tuple[tuple[int, int], ...]  # the totals after this hand


@dataclass(frozen=True, slots=True)
class HollywoodView:
    """What one seat may know of a Hollywood Gin match (C9)."""

    game: str
    seat: int
    to_act: int | None
    hand_number: int
    hand: HandView | None  # None once the match is over
    columns: tuple[Column, ...]
    wins: tuple[int, int]  # hands won so far (H2)
    last_hand: OutcomeView | None
    legal_actions: tuple[str, ...]


class HollywoodGin(GameState):
    """A Hollywood Gin match."""

    game = "hollywood-gin"
    options: HollywoodOptions
    # and the hand in play, which logs to the match's log: see clone
    copied = copied_fields(GameState.copied, score_sheet=ScoreSheet.copy, sheet=list.copy)

    def __init__(
        self,
        options: HollywoodOptions,
        seed: int,
        seats: int,
        decks: list[list[Card]],
        *,
        dealer: int | None = None,
    ):
        """A new match; ``dealer`` names the first dealer of a chosen deal, else the
        seed draws it (H1)."""
        self._start(options, seed, seats, decks, make_deck())
        self._rules = options.hand_rules()
        self.score_sheet = ScoreSheet(options.target)
        self.sheet: list[SheetLine] = []
        self.last_outcome: HandOutcome | None = None
        # what the views show of the finished hands, made once per hand
        self._last_view: OutcomeView | None = None  # the last showdown
        self._columns_view = self.score_sheet.view()
        self._wins_view = (0, 0)
        self.over = False
        if dealer is None:
            dealer = self._rng.below(2)  # H1: the first dealer is random
        self.log.append(Event(None, f"seat {dealer} deals first"))
        self.hand = self._deal(dealer)

    @classmethod
    def at_position(
        cls,
        options: HollywoodOptions,
        seed: int,
        hand: GinHand,
        *,
        columns: tuple[Column, ...],
        wins: tuple[int, int],
        hands_played: int,
        last_hand: OutcomeView | None = None,
    ) -> HollywoodGin:
        """A match in play at a position: the hand in play (its log becomes the
        match's log), the score sheet's columns and hands won as the players see them
        (H2, H3), the hands played before it and the last showdown. The hands after it
        are shuffled from ``seed``. The sheet of earlier hands keeps only their count:
        a position knows the columns, not how each earlier hand made them."""
        self = cls.__new__(cls)
        self._start(options, seed, 2, [], make_deck())
        self.log = hand.log
        self._rules = options.hand_rules()
        sheet = self.score_sheet = ScoreSheet(options.target)
        sheet.columns = [list(c.points) for c in columns]
        sheet.column_winners = [c.winner for c in columns]
        sheet.wins = list(wins)
        totals = sheet.totals()
        self.sheet = [SheetLine(n + 1, -1, "", None, 0, totals) for n in range(hands_played)]
        self.last_outcome = None
        self._last_view = last_hand
        self._columns_view = sheet.view()
        self._wins_view = (wins[0], wins[1])
        self.over = False
        self.hand = hand
        return self

    def _deal(self, dealer: int) -> GinHand:
        deck = self._decks.pop(0) if self._decks else shuffled_deck(self._rng)
        self.log.append(Event(None, f"hand {len(self.sheet) + 1}: seat {dealer} deals"))
        return GinHand(self._rules, dealer, 1 - dealer, deck, self.log)

    def clone(self) -> HollywoodGin:
        other = super().clone()
        other.hand = self.hand.copy(other.log)
        return other

    # -- the interface ---------------------------------------------------------------------

    def to_act(self) -> int | None:
        return None if self.over else self.hand.turn

    def legal_actions(self) -> list[Action]:
        return [] if self.over else list(self.hand.legal_actions())

    def parse_action(self, text: str) -> Action:
        return parse_gin_action(text)

    def apply(self, action: Action) -> None:
        hand = self.hand
        try:  # the hand's apply, one call fewer
            play = PLAY[type(action)]
        except KeyError:
            raise IllegalActionError(f"{action} is not a Gin action") from None
        play(hand, action)
        if hand.phase is PHASE_OVER:
            assert hand.outcome is not None
            self._score(hand, hand.outcome)

    def _score(self, hand: GinHand, outcome: HandOutcome) -> None:
        """Enter a finished hand on the sheet (H2, H3), end the match (H4), or deal (H1)."""
        self.last_outcome = outcome
        self._last_view = outcome_view(outcome)
        winner = outcome.winner
        sheet = self.score_sheet
        if winner is not None:
            for j in sheet.enter_win(winner, outcome.points):
                self.log.append(Event(None, f"column {j + 1} won by seat {winner}"))
        self._columns_view = sheet.view()
        self._wins_view = (sheet.wins[0], sheet.wins[1])
        self.sheet.append(
            SheetLine(
                len(self.sheet) + 1,
                hand.dealer,
                outcome.kind,
                winner,
                outcome.points,
                sheet.totals(),
            )
        )
        if (
            max(sheet.columns_won(0), sheet.columns_won(1)) >= 2
            or len(self.sheet) >= self.options.max_hands
        ):
            self.over = True
            self.log.append(Event(None, "match over"))
            return
        # H1: the winner deals next; after a drawn hand the same dealer deals again.
        self.hand = self._deal(hand.dealer if winner is None else winner)

    @property
    def last_hand(self) -> OutcomeView | None:
        """The showdown of the last finished hand, as both players saw it."""
        return self._last_view

    def view(self, seat: int) -> HollywoodView:
        over = self.over
        return HollywoodView(
            game=self.game,
            seat=seat,
            to_act=self.to_act(),
            hand_number=len(self.sheet) + (0 if over else 1),
            hand=None if over else hand_view(self.hand, seat),
            columns=self._columns_view,
            wins=self._wins_view,
            last_hand=self._last_view,
            legal_actions=self.hand.texts() if not over and self.hand.turn == seat else (),
        )

    def result(self) -> Result | None:
        if not self.over:
            return None
        sheet = self.score_sheet
        won = [sheet.columns_won(s) for s in (0, 1)]
        points = [sum(col[s] for col in sheet.columns) for s in (0, 1)]
        key = [(won[s], points[s]) for s in (0, 1)]  # H4: columns, then points
        ranks = tuple(1 if key[s] < key[1 - s] else 0 for s in (0, 1))
        return Result(
            ranks=ranks,
            scores=(points[0], points[1]),
            detail={
                "columns": [list(c) for c in sheet.columns],
                "column_winners": list(sheet.column_winners),
                "columns_won": won,
                "hands": len(self.sheet),
            },
        )


SPEC = GameSpec(
    name="hollywood-gin",
    title="Hollywood Gin",
    min_seats=2,
    max_seats=2,
    options_type=HollywoodOptions,
    factory=HollywoodGin,
    deck=lambda options, seats: make_deck(),
    # the hand cap (H4) over hands of at most most_hand_actions each
    most_actions=lambda options, seats: options.max_hands * options.most_hand_actions(),
    test_variants=(
        {"max_hands": 4},
        {"max_hands": 4, "knock_limit": 0, "gin_bonus": 20, "undercut_bonus": 25},
        {"target": 30, "max_turns": 12, "knock_limit": 20},
    ),
    default_seats=2,
)
