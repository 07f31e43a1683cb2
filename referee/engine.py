"""The engine interface every game implements (the registry of games by name is
``referee.games``, over the engines).

Engines are pure (docs/architecture.md, decision 1): a match is determined by its game,
options, seed (or stacked decks) and the actions applied. No I/O, no clocks,
no protobuf here. See ``docs/engine.md`` for a worked example.

A state changes in place through :meth:`GameState.apply` (the referee holds
one state per match and never needs the old one); :meth:`GameState.clone`
gives an independent copy when a caller does.
"""

from __future__ import annotations

import copy
import dataclasses
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from referee.cards import Card, SplitMix64, check_stacked_deck


class EngineError(Exception):
    """Base class of the errors an engine raises on bad input."""


class OptionsError(EngineError, ValueError):
    """An unknown option, or an option value outside its allowed range."""


class IllegalActionError(EngineError, ValueError):
    """An action that is not among the legal actions at this decision."""


class UnknownGameError(EngineError, KeyError):
    """A game name that no engine has."""

    def __str__(self) -> str:
        return str(self.args[0])


class Action:
    """Base of every action: a small frozen dataclass whose ``str`` is its one text form."""

    __slots__ = ()

    def __str__(self) -> str:  # pragma: no cover - every action overrides
        raise NotImplementedError


class Event(NamedTuple):
    """Something that happened, and who may see it (``visible_to`` None: everyone).

    A named tuple rather than a dataclass: engines make one or two per decision."""

    seat: int | None
    text: str
    visible_to: frozenset[int] | None = None

    def visible(self, seat: int) -> bool:
        """Whether ``seat`` may see this event."""
        return self.visible_to is None or seat in self.visible_to

    def __str__(self) -> str:
        who = "referee" if self.seat is None else f"seat {self.seat}"
        return f"{who}: {self.text}"


@dataclass(frozen=True, slots=True)
class Result:
    """The end of a match: rank per seat (0 = first, equal ranks share a place),
    the score per seat, and game-specific detail."""

    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    detail: Mapping[str, Any] = field(default_factory=dict)


def ranks_from_scores(scores: Sequence[int]) -> tuple[int, ...]:
    """Competition ranks, highest score first; equal scores share a place."""
    return tuple(sum(1 for o in scores if o > s) for s in scores)


class GameState(ABC):
    """One match of one game. Subclasses are the per-game engines."""

    game: ClassVar[str]
    num_seats: int
    seed: int
    options: Any
    events: list[Event]
    _rng: SplitMix64
    _decks: list[list[Card]]

    def _start(
        self,
        options: Any,
        seed: int,
        seats: int,
        decks: Sequence[Sequence[Card]],
        full_deck: Sequence[Card],
    ) -> None:
        """What every engine starts with: its options, seed and seats, an empty event
        log, the seed's random stream (C6), and the stacked decks, each checked to hold
        exactly the cards of ``full_deck``."""
        self.options = options
        self.seed = seed
        self.num_seats = seats
        self.events = []
        self._rng = SplitMix64(seed)
        self._decks = [check_stacked_deck(d, full_deck) for d in decks]

    @abstractmethod
    def to_act(self) -> int | None:
        """The seat that must decide now, or None when the match is over."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act (C7), in a stable order."""

    @abstractmethod
    def apply(self, action: Action) -> None:
        """Apply a legal action of the seat to act. Trusts its caller: see
        :meth:`apply_checked` for untrusted input."""

    @abstractmethod
    def view(self, seat: int) -> Any:
        """Everything ``seat`` may know now and nothing more (C9), as a dataclass."""

    @abstractmethod
    def result(self) -> Result | None:
        """The result once the match is over, else None."""

    @abstractmethod
    def parse_action(self, text: str) -> Action:
        """The action of this game written as ``text`` (its one text form). The text
        comes from a seat, so any text that is no action of this game raises
        IllegalActionError, never another exception."""

    def is_over(self) -> bool:
        """Whether the match has ended."""
        return self.to_act() is None

    def apply_checked(self, action: Action | str) -> Action:
        """Apply an action given as a value or text after checking it is legal."""
        if isinstance(action, str):
            action = self.parse_action(action)
        legal = self.legal_actions()
        if action not in legal:
            seat = self.to_act()
            if seat is None:
                raise IllegalActionError(f"{action} is not legal: the match is over")
            shown = ", ".join(str(a) for a in legal[:12]) + (" …" if len(legal) > 12 else "")
            raise IllegalActionError(f"{action} is not legal for seat {seat} now; legal: {shown}")
        self.apply(action)
        return action

    def events_for(self, seat: int, since: int = 0) -> list[Event]:
        """The events from index ``since`` on that ``seat`` may see."""
        return [e for e in self.events[since:] if e.visible(seat)]

    def drop_events(self, count: int) -> None:
        """Forget the first ``count`` events (the referee has sent them to everyone who
        may see them): ``events`` then starts with the next one. An engine that logs its
        events in another form first must drop them there too."""
        del self.events[:count]

    def clone(self) -> GameState:
        """An independent copy of this state."""
        return copy.deepcopy(self)


# -- options -------------------------------------------------------------------------------


def build_options(options_type: type[Any], values: Mapping[str, Any] | None) -> Any:
    """Build a frozen options dataclass from a mapping, naming any unknown or ill-typed key."""
    if values is None:
        return options_type()
    if dataclasses.is_dataclass(values) and isinstance(values, options_type):
        return values
    fields, hints = _option_fields(options_type)
    kwargs = {}
    for key, value in values.items():
        if key not in fields:
            raise OptionsError(
                f"unknown option {key!r} for {options_type.__name__}; "
                f"options are: {', '.join(sorted(fields))}"
            )
        kwargs[key] = _coerce(key, value, hints[key])
    try:
        return options_type(**kwargs)
    except OptionsError:
        raise
    except (TypeError, ValueError) as exc:
        raise OptionsError(str(exc)) from exc


_OPTION_FIELDS: dict[type[Any], tuple[dict[str, Any], dict[str, Any]]] = {}


def _option_fields(options_type: type[Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The fields and resolved type hints of an options dataclass (resolved once)."""
    found = _OPTION_FIELDS.get(options_type)
    if found is None:
        fields = {f.name: f for f in dataclasses.fields(options_type)}
        found = _OPTION_FIELDS[options_type] = (fields, typing.get_type_hints(options_type))
    return found


def _coerce(key: str, value: Any, hint: Any) -> Any:
    allowed = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    if typing.get_origin(hint) is typing.Literal:
        if value not in typing.get_args(hint):
            raise OptionsError(
                f"option {key!r} must be one of {typing.get_args(hint)}, not {value!r}"
            )
        return value
    for typ in allowed:
        if typ is bool and isinstance(value, bool):
            return value
        if typ is int and isinstance(value, int) and not isinstance(value, bool):
            return value
        if typ is str and isinstance(value, str):
            return value
        if typ is type(None) and value is None:
            return value
    names = " or ".join(getattr(t, "__name__", str(t)) for t in allowed)
    raise OptionsError(f"option {key!r} must be {names}, not {value!r}")


def check_range(name: str, value: int, low: int, high: int) -> None:
    """Raise OptionsError unless ``low <= value <= high``."""
    if not low <= value <= high:
        raise OptionsError(f"option {name!r} must be between {low} and {high}, not {value}")


# -- a game, as the registry lists it -------------------------------------------------------


@dataclass(frozen=True)
class GameSpec:
    """A registered game: its name, seat counts, options type, and how to start it."""

    name: str
    title: str
    min_seats: int
    max_seats: int
    options_type: type[Any]
    factory: Callable[..., GameState]
    deck: Callable[[Any, int], list[Card]]
    default_seats: int = 2
    #: Option sets the conformance suite plays (each at every seat count); small
    #: caps keep random playouts short, and each option of the game is switched on.
    test_variants: tuple[Mapping[str, Any], ...] = ({},)

    def options(self, values: Mapping[str, Any] | None = None) -> Any:
        """Validated options for this game."""
        return build_options(self.options_type, values)

    def new_match(
        self,
        seed: int,
        *,
        seats: int | None = None,
        options: Mapping[str, Any] | Any = None,
        decks: Sequence[Sequence[Card]] | None = None,
    ) -> GameState:
        """A new match from a seed, or from stacked decks (one per hand, top card
        first; hands beyond the given decks are shuffled from the seed)."""
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise OptionsError(f"a match seed is an integer in 0..2**64-1, not {seed!r}")
        n = self.default_seats if seats is None else seats
        if not self.min_seats <= n <= self.max_seats:
            raise OptionsError(
                f"{self.name} is for {self.min_seats}–{self.max_seats} players, not {n}"
            )
        opts = self.options(options)
        return self.factory(opts, seed, n, [list(d) for d in decks] if decks else [])
