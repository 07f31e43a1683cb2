"""Tournaments and gauntlets: choosing the bot versions to enter (each one the actor may
enter), checking the game, its options, the clock and the table before anything is
stored, and scheduling the matches (``docs/api.md``, "Who may do what")."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from arena.app import limits
from arena.app.actors import Action, Actor, require
from arena.app.bots import check_entry, check_playable
from arena.app.errors import Invalid, NotFound
from referee import settings
from referee.clock import ClockRules
from referee.engine import EngineError
from referee.games import get_game
from worker.schedule import MAX_MATCHES, ScheduleError, gauntlet, round_robin, tables_count
from worker.store import ScheduledMatch, Store, StoreError
from worker.store.bots import parse_label

#: How a tournament pairs its bots: everyone against everyone, or the first bot against
#: each of the others.
Format = Literal["round-robin", "gauntlet"]
FORMATS: tuple[Format, ...] = ("round-robin", "gauntlet")
#: How a platform starts a tournament's matches: ``dispatch(tournament id, matches)``
#: sends its workers work (``worker.tasks.start_drains``).
Dispatch = Callable[[int, int], object]
#: The clock's settings a tournament may set (referee/clock.py).
CLOCK_KEYS = ("decision_ms", "bank_ms", "strike_limit", "join_ms")


@dataclass(frozen=True, slots=True)
class Created:
    """A tournament made: its id and how many matches were queued."""

    tournament: int
    matches: int
    game: str


def clock_bounds() -> dict[str, int]:
    """The most a user (not an operator) may give each clock setting: the operator's
    ``ARENA_MAX_*`` (docs/tournaments.md, "How long a match may take")."""
    limits = settings.load()
    return {
        "decision_ms": limits.max_decision_ms,
        "bank_ms": limits.max_bank_ms,
        "strike_limit": limits.max_strikes,
        "join_ms": limits.max_join_ms,
    }


#: The variable that sets each clock setting's bound.
BOUND_VARIABLES = {
    "decision_ms": settings.MAX_DECISION_MS,
    "bank_ms": settings.MAX_BANK_MS,
    "strike_limit": settings.MAX_STRIKES,
    "join_ms": settings.MAX_JOIN_MS,
}


def check_clock(clock: Mapping[str, int], actor: Actor | None = None) -> dict[str, int]:
    """``clock`` if it is a valid clock (keys of :data:`CLOCK_KEYS`, values in range)
    and, for ``actor`` when it is a user rather than an operator, within the operator's
    bounds (:func:`clock_bounds`); :class:`Invalid` naming what is wrong, and the bounds."""
    unknown = sorted(set(clock) - set(CLOCK_KEYS))
    if unknown:
        raise Invalid(
            f"clock: unknown setting {unknown[0]!r}; the settings are {', '.join(CLOCK_KEYS)}"
        )
    try:
        ClockRules(**clock)
    except (TypeError, ValueError) as exc:  # "clock decision_ms must be 0..3600000 ms, …"
        raise Invalid(str(exc)) from None
    if actor is not None and not actor.is_operator:
        bounds = clock_bounds()
        over = [key for key in CLOCK_KEYS if clock.get(key, 0) > bounds[key]]
        if over:
            named = ", ".join(f"{key} {bounds[key]}" for key in CLOCK_KEYS)
            raise Invalid(
                f"clock {over[0]} {clock[over[0]]} is more than a user may give (at most "
                f"{named}; the operator sets them, {BOUND_VARIABLES[over[0]]} for this one)"
            )
    return dict(clock)


def check_options(game: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` if ``game`` exists and takes them; :class:`Invalid` naming what is
    wrong and where the game's options are listed."""
    try:
        get_game(game).options(dict(options))
    except (EngineError, TypeError, ValueError) as exc:
        raise Invalid(f"{exc} (see docs/rules/{game}.md)" if _known(game) else str(exc)) from None
    return dict(options)


def _known(game: str) -> bool:
    try:
        get_game(game)
    except EngineError:
        return False
    return True


def check_table_size(game: str, size: int) -> int:
    """``size`` if ``game`` is played by that many; :class:`Invalid` naming the range."""
    spec = get_game(game)
    if not spec.min_seats <= size <= spec.max_seats:
        raise Invalid(f"{game} is played by {spec.min_seats}–{spec.max_seats} players, not {size}")
    return size


def resolve_bots(store: Store, actor: Actor, game: str, names: Sequence[str]) -> list[int]:
    """Bot version ids for ``NAME`` (its latest version of ``game`` that may play:
    qualified or exempt) or ``NAME@vN``, each of a bot that ``actor`` may enter and not
    retired, and each qualified or exempt."""
    versions = []
    for entry in names:
        name, wanted = parse_label(entry)
        bot = store.bot_by_name(name)
        if bot is None:
            raise NotFound(f"no bot named {name!r}; register it with `arena bot submit`")
        check_entry(actor, bot)
        of_game = [v.version for v in store.bot_versions(bot.id) if v.version.game == game]
        if wanted is not None:
            chosen = [v for v in of_game if v.version == wanted]
            if not chosen:
                raise NotFound(f"bot {name} has no version v{wanted} for {game}")
        else:
            if not of_game:
                raise NotFound(f"bot {name} has no version for {game}")
            # the newest that may play; else the newest, whose refusal says why
            chosen = [v for v in of_game if v.playable][-1:] or of_game[-1:]
        check_playable(chosen[0])
        versions.append(chosen[0].id)
    if len(set(versions)) != len(versions):
        raise Invalid("a bot version is entered twice")
    return versions


def create(
    store: Store,
    actor: Actor,
    *,
    game: str,
    bots: Sequence[str],
    games: int = 1,
    table_size: int | None = None,
    duplicate: bool = False,
    options: Mapping[str, Any] | None = None,
    clock: Mapping[str, int] | None = None,
    name: str | None = None,
    seed: int | None = None,
    format: Format = "round-robin",
    dispatch: Dispatch | None = None,
) -> Created:
    """Schedule a round robin, or with ``format="gauntlet"`` the first bot against each of
    the others, of bots ``actor`` may enter, each pairing played ``games`` times, and
    ``dispatch`` it to the platform's workers when given (the command line runs its own
    with ``--run``). Every check is made before anything is stored."""
    if format not in FORMATS:
        raise Invalid(f"format {format!r}: a tournament is one of {', '.join(FORMATS)}")
    if len(bots) < 2:
        raise Invalid("a tournament needs at least two bots")
    if games < 1:
        raise Invalid(f"games: each pairing plays at least once, not {games}")
    options = check_options(game, options or {})
    clock = check_clock(clock or {}, actor)
    if name is not None and not (0 < len(name) <= 200 and name.isprintable()):
        raise Invalid("name: a tournament's name is 1–200 printable characters")
    spec = get_game(game)
    versions = resolve_bots(store, actor, game, bots)
    size = check_table_size(
        game, table_size or min(spec.default_seats, max(len(versions), spec.min_seats))
    )
    check_seed_choice(actor, seed)
    limits.check(store, actor, "tournaments")
    seed = seed if seed is not None else int.from_bytes(os.urandom(7), "big")
    if not 0 <= seed < 1 << 63:
        raise Invalid(f"seed: a whole number 0 ≤ seed < 2**63, not {seed}")
    if tables_count(len(versions), size) > MAX_MATCHES:  # before listing them all
        raise Invalid(
            f"{len(versions)} bots make more than {MAX_MATCHES:,} tables of {size}; enter "
            "fewer bots or give a larger table size"
        )
    try:
        schedule = gauntlet if format == "gauntlet" else round_robin
        pairings = schedule(len(versions), size, games, duplicate=duplicate, seed=seed)
    except ScheduleError as exc:
        raise Invalid(str(exc)) from None
    settings = {
        "options": options,
        "clock": clock,
        "games": games,
        "table_size": size,
        "seed": seed,
    }
    with limits.counted(actor, "tournaments") as allowance:
        tournament_id = store.create_tournament(
            name or f"{game} {format.replace('-', ' ')}",
            game,
            versions,
            format=format,
            options=settings,
            duplicate=duplicate,
            created_by=actor.name,
            allowance=allowance,
        )
    store.schedule_matches(
        tournament_id,
        game,
        options,
        [
            ScheduledMatch(tuple(versions[i] for i in p.seats), p.seed, p.duplicate_set, p.rotation)
            for p in pairings
        ],
    )
    if dispatch is not None:
        dispatch(tournament_id, len(pairings))
    return Created(tournament_id, len(pairings), game)


def check_seed_choice(actor: Actor, seed: int | None) -> None:
    """Refuse a seed chosen by anyone but an operator (:data:`Action.SEED`)."""
    if seed is not None:
        require(actor, Action.SEED, what="choose the seed")


def _known_tournament(store: Store, tournament_id: int) -> None:
    try:
        store.tournament(tournament_id)
    except StoreError:
        raise NotFound(f"no tournament {tournament_id} (see arena tournament list)") from None


def retry(store: Store, actor: Actor, tournament_id: int) -> list[int]:
    """Put the tournament's failed matches back in the queue with fresh attempts (a
    second call finds none); their ids."""
    require(actor, Action.OPERATE, what=f"put tournament {tournament_id}'s failed matches back")
    _known_tournament(store, tournament_id)
    return store.retry_failed(tournament_id)


def cancel(store: Store, actor: Actor, tournament_id: int) -> list[int]:
    """Cancel the tournament: its queued matches are cancelled (those running finish);
    their ids."""
    require(actor, Action.CANCEL, what=f"cancel tournament {tournament_id}")
    _known_tournament(store, tournament_id)
    return store.cancel_tournament(tournament_id)


def may_run(store: Store, actor: Actor, tournament_id: int) -> None:
    """Refuse ``actor`` running the tournament's matches on workers of their own (the
    platform's workers play the tournaments it is given)."""
    require(actor, Action.OPERATE, what=f"run tournament {tournament_id}")
    _known_tournament(store, tournament_id)
