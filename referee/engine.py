"""The engine interface every game implements (the registry of games by name is
``referee.games``, over the engines).

Engines are pure (docs/architecture.md, decision 1): a match is determined by its game,
options, seed (or stacked decks) and the actions applied. No I/O, no clocks,
no protobuf here. See ``docs/engine.md`` for a worked example.

A state changes in place through :meth:`GameState.apply` (the referee holds
one state per match and never needs the old one); :meth:`GameState.clone`
gives an independent copy when a caller does.

What every engine does alike, this module does once: the event log
(:class:`EventLog`), the dispatch of ``apply`` to one method per kind of action
(:func:`applies`), and ``clone`` from the fields each engine declares it changes in
place (``GameState.copied``).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple, TypeVar

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


#: An event logged before its text is made: (seat, text, args, visible_to). With
#: ``args`` None, ``text`` is the text; else it is a function that makes the text from
#: ``args``, called only when someone reads the log (random playouts never do).
Deferred = tuple[int | None, Any, "tuple[Any, ...] | None", "frozenset[int] | None"]


class EventLog(list[Event | Deferred]):
    """The events of a match, in order: what every engine logs to.

    The log is the list of its entries as logged: an engine appends an :class:`Event`
    (often one made once and shared: events are immutable) or a :data:`Deferred` entry
    with the list's own ``append``, which costs no more than any list's on the hot
    path. Readers get :class:`Event` values only, from :meth:`made`."""

    __slots__ = ("_made",)

    def __init__(self, events: Sequence[Event] = ()) -> None:
        super().__init__(events)
        self._made: list[Event] = list(events)  # the events of self[:len(made)]

    def made(self) -> list[Event]:
        """Every event so far, in order, texts made (the list is the log's own: read it)."""
        made = self._made
        if len(made) < len(self):
            for entry in self[len(made) :]:
                if isinstance(entry, Event):
                    made.append(entry)
                else:
                    seat, text, args, visible = entry
                    made.append(Event(seat, text if args is None else text(*args), visible))
        return made

    def drop(self, count: int) -> None:
        """Forget the first ``count`` events."""
        self.made()  # the two lists stay in step
        del self._made[:count]
        del self[:count]

    def copy(self) -> EventLog:
        """An independent copy (the entries themselves are immutable and shared)."""
        other = EventLog()
        other.extend(self)
        other._made = self._made[:]
        return other

    def __copy__(self) -> EventLog:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> EventLog:
        return self.copy()


_Handler = TypeVar("_Handler", bound=Callable[..., None])


def applies(*kinds: type[Action]) -> Callable[[_Handler], _Handler]:
    """Mark an engine's method as what ``apply`` does with an action of ``kinds``: the
    class's :class:`Dispatch` table is built from the marks, so each kind of action has
    one method and ``apply`` is one look-up."""

    def mark(method: _Handler) -> _Handler:
        method.applies = kinds  # type: ignore[attr-defined]
        return method

    return mark


class Dispatch:
    """``apply`` by the kind of the action, through the methods marked :func:`applies`:
    the table, ``handlers``, is made once per class (inherited marks included), and
    so is ``apply`` unless the class writes its own."""

    __slots__ = ()
    handlers: ClassVar[dict[type, Callable[[Any, Any], None]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        table: dict[type, Callable[[Any, Any], None]] = {}
        for klass in reversed(cls.__mro__):
            for method in vars(klass).values():
                for kind in getattr(method, "applies", ()):
                    table[kind] = method
        cls.handlers = table
        if table and "apply" not in vars(cls):
            cls.apply = _dispatcher(table)  # type: ignore[method-assign,assignment]

    def apply(self, action: Action) -> None:
        """Apply a legal action of the seat to act. Trusts its caller: see
        :meth:`GameState.apply_checked` for untrusted input."""
        raise IllegalActionError(f"{action} is not a {type(self).__name__} action")


def _dispatcher(table: dict[type, Callable[[Any, Any], None]]) -> Callable[[Any, Action], None]:
    """The ``apply`` of a class whose handlers are ``table`` (one look-up in a local
    table and the call: ``apply`` is the engines' hottest method)."""
    get = table.__getitem__

    def apply(self: Any, action: Action) -> None:
        """Apply a legal action of the seat to act (the method marked for its kind).
        Trusts its caller: see :meth:`GameState.apply_checked` for untrusted input."""
        try:
            handler = get(type(action))
        except KeyError:
            raise IllegalActionError(f"{action} is not a {type(self).__name__} action") from None
        handler(self, action)

    return apply


Copier = Callable[[Any], Any]


def copied_fields(base: Mapping[str, Copier], **copiers: Copier) -> Mapping[str, Copier]:
    """An engine's ``copied``: its base class's, and ``copiers`` by field name."""
    return types.MappingProxyType({**base, **copiers})


def copy_each(items: list[Any]) -> list[Any]:
    """A list of copies of ``items`` (each with its own ``copy``): a ``copied`` field's
    copier for a list of mutable things."""
    return [item.copy() for item in items]


def copy_dicts(items: list[dict[Any, Any]]) -> list[dict[Any, Any]]:
    """A list of copies of the dicts ``items``: a ``copied`` field's copier."""
    return [dict(item) for item in items]


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


_State = TypeVar("_State", bound="GameState")


class GameState(Dispatch, ABC):
    """One match of one game. Subclasses are the per-game engines.

    An engine's ``apply`` is the :class:`Dispatch` table of its methods marked
    :func:`applies`, unless the engine says otherwise (the Gin games hand each action to
    their hand in play). Its ``clone`` copies the fields named in ``copied``, each with
    its copier; every other field is shared with the clone, so an engine names there
    every field it changes in place, and ``shared`` the mutable ones it never changes
    (the conformance suite checks that no list, dict or set is in neither)."""

    game: ClassVar[str]
    num_seats: int
    seed: int
    options: Any
    log: EventLog
    _rng: SplitMix64
    _decks: list[list[Card]]

    #: the fields ``apply`` changes in place, and how ``clone`` copies each
    copied: ClassVar[Mapping[str, Copier]] = copied_fields(
        {},
        log=EventLog.copy,
        _rng=SplitMix64.copy,
        _decks=list.copy,  # the hands still to deal are popped off; each deck is read only
    )
    #: mutable fields the engine never changes in place once made, shared by clones
    shared: ClassVar[frozenset[str]] = frozenset()

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
        self.log = EventLog()
        self._rng = SplitMix64(seed)
        self._decks = [check_stacked_deck(d, full_deck) for d in decks]

    @abstractmethod
    def to_act(self) -> int | None:
        """The seat that must decide now, or None when the match is over."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act (C7), in a stable order."""

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

    @property
    def events(self) -> list[Event]:
        """Every event so far, in order (the log's own list: read it, never change it)."""
        return self.log.made()

    def events_for(self, seat: int, since: int = 0) -> list[Event]:
        """The events from index ``since`` on that ``seat`` may see."""
        return [e for e in self.events[since:] if e.visible(seat)]

    def drop_events(self, count: int) -> None:
        """Forget the first ``count`` events (the referee has sent them to everyone who
        may see them): ``events`` then starts with the next one."""
        self.log.drop(count)

    def clone(self: _State) -> _State:
        """An independent copy of this state: the fields in ``copied`` copied, the rest
        (immutable, or ``shared``) shared."""
        other = object.__new__(type(self))
        fields = other.__dict__
        fields.update(self.__dict__)
        for name, copier in self.copied.items():
            fields[name] = copier(fields[name])
        return other


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
    #: The most actions a match of these options and seats can take, bots' and the
    #: referee's alike: the game's caps (C8) bound every hand, and the match's
    #: wall-clock cap is made from it (``referee.walltime``).
    most_actions: Callable[[Any, int], int]
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
