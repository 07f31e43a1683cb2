"""Duels (``docs/duels.md``): is bot A stronger than bot B? Making one checks everything
before anything is stored, as a tournament's creation does (the bots are the actor's own
or the house's, the game is played at the table's seat count, the test's settings hold;
at a table of more than two, A plays in one seat and B in all the others), then queues its
first matches; the platform plays it to its verdict (:mod:`worker.duel`), and
:func:`status` says where it stands, for anyone."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.app import limits
from arena.app.actors import Action, Actor, require
from arena.app.errors import Invalid, NotFound
from arena.app.tournaments import (
    Dispatch,
    check_clock,
    check_options,
    check_seed_choice,
    resolve_bots,
)
from referee.engine import EngineError
from referee.games import get_game
from worker import duel
from worker.store import Store, StoreError

#: The most a duel's hypotheses may say of A over B (Elo either way), the most matches it
#: keeps in flight, and its largest game limit.
MAX_ELO = 2000.0
MAX_BATCH = 1000
MAX_GAMES = 1_000_000
#: A duel's defaults (``worker.duel``).
BATCH = duel.BATCH
DEFAULT_MAX_GAMES = duel.MAX_GAMES


@dataclass(frozen=True, slots=True)
class Made:
    """A duel made: its tournament's id, the matches of its first batch, its game and
    the labels of A and B (``NAME@vN``)."""

    tournament: int
    matches: int
    game: str
    a: str
    b: str


def create(
    store: Store,
    actor: Actor,
    *,
    a: str,
    b: str,
    game: str,
    elo0: float = 0.0,
    elo1: float = 20.0,
    alpha: float = 0.05,
    beta: float = 0.05,
    duplicate: bool = False,
    batch: int = BATCH,
    max_games: int = DEFAULT_MAX_GAMES,
    options: Mapping[str, Any] | None = None,
    clock: Mapping[str, int] | None = None,
    seed: int | None = None,
    seats: int | None = None,
    dispatch: Dispatch | None = None,
) -> Made:
    """A duel of ``a`` against ``b`` (``NAME`` or ``NAME@vN``, bots ``actor`` may enter)
    in ``game`` at a table of ``seats`` (default: two where the game is played by two,
    else its smallest table), its first batch queued and sent with ``dispatch`` when given
    (the workers play it to its verdict). A duel counts as a tournament created in the
    rate limits."""
    try:
        spec = get_game(game)
    except EngineError as exc:
        raise Invalid(str(exc)) from None
    if seats is None:
        seats = max(2, spec.min_seats)
    if not spec.min_seats <= seats <= spec.max_seats:
        raise Invalid(f"seats: {game} is played by {spec.min_seats}–{spec.max_seats}, not {seats}")
    options = check_options(game, options or {})
    clock = check_clock(clock or {}, actor)
    seed_given = seed
    seed = seed if seed is not None else int.from_bytes(os.urandom(7), "big")
    if not 0 <= seed < 1 << 63:
        raise Invalid(f"seed: a whole number 0 ≤ seed < 2**63, not {seed}")
    if not (abs(elo0) <= MAX_ELO and abs(elo1) <= MAX_ELO):
        raise Invalid(f"elo0 and elo1 must lie within ±{MAX_ELO:g} Elo")
    if batch > MAX_BATCH or max_games > MAX_GAMES:
        raise Invalid(f"batch is at most {MAX_BATCH}, max_games at most {MAX_GAMES:,}")
    try:
        duel.Settings(0, 0, elo0, elo1, alpha, beta, duplicate, batch, max_games, seed, seats)
    except ValueError as exc:
        raise Invalid(str(exc)) from None
    version_a, version_b = resolve_bots(store, actor, game, [a, b])
    check_seed_choice(actor, seed_given)
    limits.check(store, actor, "tournaments")
    settings = duel.Settings(
        version_a, version_b, elo0, elo1, alpha, beta, duplicate, batch, max_games, seed, seats
    )
    labels = store.labels([version_a, version_b])
    with limits.counted(actor, "tournaments") as allowance:
        tournament_id = store.create_tournament(
            f"duel {labels[version_a]} vs {labels[version_b]}",
            game,
            [version_a, version_b],
            format="duel",
            options={"options": options, "clock": clock, **settings.as_options()},
            duplicate=duplicate,
            created_by=actor.name,
            allowance=allowance,
        )
    queued = duel.advance(store, tournament_id, dispatch or (lambda t, n: None))
    return Made(tournament_id, queued, game, labels[version_a], labels[version_b])


def status(store: Store, actor: Actor, tournament_id: int) -> dict[str, Any]:
    """Where the duel stands, for anyone: its state and match counts, A and B, the test
    re-run over its done matches (:meth:`Sprt.as_dict`), and once it is over its
    ``result`` (the verdict and the test when it decided, the matches cancelled then)."""
    require(actor, Action.READ, what=f"read duel {tournament_id}")
    try:
        tournament = store.tournament(tournament_id)
    except StoreError:
        raise NotFound(f"no duel {tournament_id} (see arena tournament list)") from None
    settings = duel.Settings.of(tournament)
    if settings is None:
        raise NotFound(f"tournament {tournament_id} is not a duel (arena tournament standings)")
    test = duel.run_test(settings, store.tournament_results(tournament_id))
    labels = store.labels([settings.a, settings.b])
    result = tournament.options.get("result")
    return {
        "tournament": tournament_id,
        "game": tournament.game,
        "a": labels.get(settings.a, str(settings.a)),
        "b": labels.get(settings.b, str(settings.b)),
        "seats": settings.seats,
        "state": tournament.state,
        "progress": store.tournament_progress(tournament_id),
        "verdict": result["verdict"] if isinstance(result, Mapping) else test.verdict,
        "decided": test.decided,
        "result": dict(result) if isinstance(result, Mapping) else None,
        **test.sprt.as_dict(),
    }
