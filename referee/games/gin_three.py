"""Gin Rummy for three players (rules T1–T6 over Gin hands G1–G10): the player
in the box against the captain, advised by the player sitting out.

Where each rule is played (docs/rules/gin-three.md):

- G1–G10, one hand: ``referee.games.gin_hand`` (its docstring indexes them)
- T1 roles for the first hand: ``GinThree._draw_roles``, ``order_by_draw``
- T2 deal: ``GinThree._deal``
- T3 advice: ``GinThree.legal_actions``, ``GinThree.apply``, ``GinThree.view``;
  the captain's private events shown to the sitter in ``GinThree._deal``
- T4 scoring, T5 rotation, T6 winning: ``GinThree._score``; T6 ranks in
  ``GinThree.result``
- C9 hidden information: ``GinThree.view``
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from referee.actions import split_verb
from referee.cards import Card, make_deck, shuffled_deck
from referee.engine import (
    Action,
    Event,
    GameSpec,
    GameState,
    IllegalActionError,
    Result,
    copied_fields,
    ranks_from_scores,
)
from referee.games.gin_hand import (
    PHASE_OVER,
    GinHand,
    GinMatchOptions,
    HandOutcome,
    parse_gin_action,
)
from referee.games.gin_views import HandView, OutcomeView, hand_view, outcome_view

#: what a Gin hand does with each kind of action (its ``apply`` table)
PLAY = GinHand.handlers


@dataclass(frozen=True, slots=True)
class GinThreeOptions(GinMatchOptions):
    """Options of Gin Rummy for three (G6, G9, G10, T4, T6: ``target``, ``max_hands``)."""


@dataclass(frozen=True, slots=True)
class Advise(Action):
    """The sitter's suggestion of one of the captain's legal actions (T3)."""

    action: Action

    def __str__(self) -> str:
        return f"advise {self.action}"


@dataclass(frozen=True, slots=True)
class NoAdvice(Action):
    """The sitter offers no advice for this decision (T3)."""

    def __str__(self) -> str:
        return "no advice"


NO_ADVICE = NoAdvice()


@dataclass(frozen=True, slots=True)
class Roles:
    """Who is in the box (and deals), who is captain, who sits out (T1, T5)."""

    box: int
    captain: int
    sitter: int

    def of(self, seat: int) -> str:
        """The role name of ``seat``."""
        return "box" if seat == self.box else "captain" if seat == self.captain else "sitter"


@dataclass(frozen=True, slots=True)
class GinThreeView:
    """What one seat may know of a Gin-for-three match (C9, T3)."""

    game: str
    seat: int
    to_act: int | None
    role: str
    roles: Roles
    scores: tuple[int, int, int]
    hand_number: int
    hand: HandView | None  # the seat's own hand (box and captain)
    advising: HandView | None  # the sitter is shown the captain's view (T3)
    advice: str | None  # the captain sees the sitter's advice for this decision
    last_hand: OutcomeView | None
    legal_actions: tuple[str, ...]


def order_by_draw(players: list[int], draw: Callable[[int], Card]) -> list[int]:
    """T1: players ordered by the rank each draws, king high, ace low; players who
    tie for a place draw again among themselves."""
    drawn = {p: draw(p) for p in players}
    out: list[int] = []
    for rank in sorted({c.rank for c in drawn.values()}, reverse=True):
        tied = [p for p in players if drawn[p].rank == rank]
        out.extend(tied if len(tied) == 1 else order_by_draw(tied, draw))
    return out


class GinThree(GameState):
    """A match of Gin Rummy for three."""

    game = "gin-three"
    options: GinThreeOptions
    copied = copied_fields(GameState.copied, scores=list.copy)  # and the hand: see clone

    def __init__(
        self,
        options: GinThreeOptions,
        seed: int,
        seats: int,
        decks: list[list[Card]],
        *,
        roles: Roles | None = None,
    ):
        """A new match; ``roles`` names the first hand's roles of a chosen deal, else
        the seed's role draw makes them (T1)."""
        self._start(options, seed, seats, decks, make_deck())
        self._rules = options.hand_rules()
        self.scores = [0, 0, 0]
        self.hands_played = 0
        self.last_outcome: HandOutcome | None = None
        self._last_view: OutcomeView | None = None  # the showdown, made once per hand
        self.over = False
        self.advice: Action | None = None
        self.advised = False  # the sitter has answered for the captain's current decision
        self.roles = self._draw_roles() if roles is None else roles
        self.hand = self._deal()

    @classmethod
    def at_position(
        cls,
        options: GinThreeOptions,
        seed: int,
        hand: GinHand,
        *,
        roles: Roles,
        scores: tuple[int, int, int],
        hands_played: int,
        advised: bool,
        advice: Action | None = None,
        last_hand: OutcomeView | None = None,
    ) -> GinThree:
        """A match in play at a position: the hand in play (its log becomes the
        match's log; built with the audience :meth:`audience` gives), the roles (T1,
        T5), the scores (T4), the hands played, whether the sitter has answered for
        the captain's current decision and with what (T3), the last showdown. The
        hands after it are shuffled from ``seed``."""
        self = cls.__new__(cls)
        self._start(options, seed, 3, [], make_deck())
        self.log = hand.log
        self._rules = options.hand_rules()
        self.scores = list(scores)
        self.hands_played = hands_played
        self.last_outcome = None
        self._last_view = last_hand
        self.over = False
        self.advised, self.advice = advised, advice
        self.roles = roles
        self.hand = hand
        return self

    @staticmethod
    def audience(roles: Roles) -> dict[int, frozenset[int]]:
        """Who may see each player's private events: the sitter sees the captain's (T3)."""
        return {
            roles.box: frozenset((roles.box,)),
            roles.captain: frozenset((roles.captain, roles.sitter)),
        }

    def _draw_roles(self) -> Roles:
        """T1: the role draw, from a deck shuffled from the seed."""
        deck = shuffled_deck(self._rng)

        def draw(player: int) -> Card:
            nonlocal deck
            if not deck:
                deck = shuffled_deck(self._rng)
            card = deck.pop(0)
            self.log.append(Event(player, f"draws {card} for roles"))
            return card

        box, captain, sitter = order_by_draw([0, 1, 2], draw)
        return Roles(box, captain, sitter)

    def _deal(self) -> GinHand:
        roles = self.roles
        deck = self._decks.pop(0) if self._decks else shuffled_deck(self._rng)
        self.log.append(
            Event(
                None,
                f"hand {self.hands_played + 1}: box seat {roles.box}, captain seat "
                f"{roles.captain}, sitting out seat {roles.sitter}",
            )
        )
        self.advice, self.advised = None, False
        # T2: the box deals; the captain is the non-dealer.
        return GinHand(self._rules, roles.box, roles.captain, deck, self.log, self.audience(roles))

    def clone(self) -> GinThree:
        other = super().clone()
        other.hand = self.hand.copy(other.log)  # the hand logs to the clone's log
        return other

    def _sitter_to_advise(self) -> bool:
        return self.hand.turn == self.roles.captain and not self.advised

    # -- the interface ---------------------------------------------------------------------

    def to_act(self) -> int | None:
        if self.over:
            return None
        return self.roles.sitter if self._sitter_to_advise() else self.hand.turn

    def legal_actions(self) -> list[Action]:
        if self.over:
            return []
        captain_actions = self.hand.legal_actions()
        if self._sitter_to_advise():
            return [NO_ADVICE, *(Advise(a) for a in captain_actions)]
        return list(captain_actions)

    def parse_action(self, text: str) -> Action:
        verb, rest = split_verb(text)
        if verb == "no" and rest.strip().lower() == "advice":
            return NO_ADVICE
        if verb == "advise":
            if not rest.strip():
                raise IllegalActionError("'advise' needs the captain's action, e.g. 'advise pass'")
            return Advise(parse_gin_action(rest))
        return parse_gin_action(text)

    def apply(self, action: Action) -> None:
        roles = self.roles
        if self._sitter_to_advise():
            if not isinstance(action, Advise | NoAdvice):
                raise IllegalActionError(f"{action} is not advice (T3)")
            self.advised = True
            self.advice = action.action if isinstance(action, Advise) else None
            eyes = frozenset((roles.captain, roles.sitter))
            self.log.append(Event(roles.sitter, str(action), eyes))
            return
        hand = self.hand
        was_captain = hand.turn == roles.captain
        try:  # the hand's apply, one call fewer
            play = PLAY[type(action)]
        except KeyError:
            raise IllegalActionError(f"{action} is not a Gin action") from None
        play(hand, action)
        if was_captain:
            self.advice, self.advised = None, False
        if hand.phase is PHASE_OVER:
            assert hand.outcome is not None
            self._score(hand.outcome)

    def _score(self, outcome: HandOutcome) -> None:
        """T4 scoring, T6 end of match, T5 rotation."""
        self.hands_played += 1
        self.last_outcome = outcome
        self._last_view = outcome_view(outcome)
        roles = self.roles
        winner = outcome.winner
        if winner is not None:
            self.scores[winner] += outcome.points
        if (winner is not None and self.scores[winner] >= self.options.target) or (
            self.hands_played >= self.options.max_hands
        ):
            self.over = True
            self.log.append(Event(None, "match over"))
            return
        if winner == roles.box:
            self.roles = Roles(roles.box, roles.sitter, roles.captain)
        elif winner == roles.captain:
            self.roles = Roles(roles.captain, roles.sitter, roles.box)
        self.hand = self._deal()

    def view(self, seat: int) -> GinThreeView:
        roles = self.roles
        playing = not self.over
        return GinThreeView(
            game=self.game,
            seat=seat,
            to_act=self.to_act(),
            role=roles.of(seat),
            roles=roles,
            scores=(self.scores[0], self.scores[1], self.scores[2]),
            hand_number=self.hands_played + (1 if playing else 0),
            hand=hand_view(self.hand, seat) if playing and seat != roles.sitter else None,
            advising=hand_view(self.hand, roles.captain)
            if playing and seat == roles.sitter
            else None,
            advice=str(self.advice)
            if seat == roles.captain and self.advised and self.advice is not None
            else None,
            last_hand=self._last_view,
            legal_actions=self._legal_texts() if self.to_act() == seat else (),
        )

    def _legal_texts(self) -> tuple[str, ...]:
        """The texts of the legal actions, from the hand's texts made once per decision."""
        texts = self.hand.texts()
        if self._sitter_to_advise():
            return (str(NO_ADVICE), *("advise " + t for t in texts))
        return texts

    def result(self) -> Result | None:
        if not self.over:
            return None
        scores = tuple(self.scores)
        return Result(
            ranks=ranks_from_scores(scores),
            scores=scores,
            detail={"hands": self.hands_played, "scores": list(scores)},
        )


SPEC = GameSpec(
    name="gin-three",
    title="Gin Rummy for three",
    min_seats=3,
    max_seats=3,
    options_type=GinThreeOptions,
    factory=GinThree,
    deck=lambda options, seats: make_deck(),
    # the hand cap (T6) over hands of at most most_hand_actions each, every one of the
    # captain's preceded by the sitter's advice (T3)
    most_actions=lambda options, seats: options.max_hands * 2 * options.most_hand_actions(),
    test_variants=(
        {"max_hands": 4},
        {"max_hands": 4, "knock_limit": 0, "gin_bonus": 20, "undercut_bonus": 25},
        {"target": 30, "max_turns": 12, "knock_limit": 20},
    ),
    default_seats=3,
)
