"""Positions a seat could be in: sampling what a seat cannot see, and chosen deals.

Two things built on the engines' own rules, so that neither can disagree with the
referee (docs/bots.md, "Search and chosen deals"):

- :func:`sample` — from what one seat knows (its view and the events it was sent:
  exactly what a bot process has), a full game state that agrees with all of it, the
  cards the seat cannot see dealt at random among the deals still possible. It is the
  one primitive a search bot needs (determinized Monte Carlo, information-set MCTS).
  It is never given the state, so it cannot leak what the seat does not know.
- :func:`deal` — a state from a deal a test or a bot author names: the hands, the
  upcard or flip card, the stock order, the dealer (and Gin-for-three roles), checked
  to be one the rules can reach. :func:`load_deal` reads the TOML or JSON form that
  ``arena play --deal FILE`` takes (docs/bots.md, "Chosen deals").

One module per game family holds both halves: ``gin`` (Hollywood Gin and Gin Rummy
for three), ``rummy500``, ``flip_flop``. Each builds states through the engine's own
position constructor, so a sampled or chosen state plays on exactly as a dealt one.
"""

from __future__ import annotations

import importlib
import json
import random
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from referee.engine import EngineError, Event, GameState
from referee.scenario.errors import ScenarioError


def _module(game: str) -> ModuleType:
    # imported here: each module imports its engine, and a bot that plays one game
    # need not import the others
    modules = {
        "hollywood-gin": "gin",
        "gin-three": "gin",
        "rummy-500": "rummy500",
        "flip-flop": "flip_flop",
    }
    if game not in modules:
        from referee.games import get_game

        get_game(game)  # raises UnknownGameError naming the games
    return importlib.import_module(f"referee.scenario.{modules[game]}")


def sample(
    view: Any,
    events: Sequence[Event] = (),
    rng: random.Random | None = None,
    *,
    options: Mapping[str, Any] | Any = None,
) -> GameState:
    """A full state agreeing with everything ``view.seat`` knows, the rest at random.

    ``view`` is the seat's view (``request.view`` in a bot); ``events`` the events the
    seat was sent since the match started (optional for every game whose view already
    holds what the seat saw); ``options`` the match's options as ``on_start`` gave them
    (the game's defaults when None). The state's own random stream, which deals the
    hands after this one, is seeded from ``rng``. Raises :class:`ScenarioError` when no
    position agrees with the view.
    """
    rng = rng if rng is not None else random.Random()
    state: GameState = _module(view.game).sample(
        view, list(events), rng, _options(view.game, options)
    )
    return state


def deal(
    game: str,
    spec: Mapping[str, Any],
    *,
    options: Mapping[str, Any] | Any = None,
    seats: int | None = None,
    seed: int = 0,
) -> GameState:
    """A new match of ``game`` from the deal ``spec`` names (docs/bots.md, "Chosen
    deals"); what it leaves out (the rest of the stock, later hands) is shuffled from
    ``seed``. Raises :class:`ScenarioError` naming what the rules do not allow."""
    from referee.games import get_game

    game_spec = get_game(game)
    n = game_spec.default_seats if seats is None else seats
    if not game_spec.min_seats <= n <= game_spec.max_seats:
        raise ScenarioError(
            f"{game} is for {game_spec.min_seats}–{game_spec.max_seats} players, not {n}"
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ScenarioError(f"a seed is an integer in 0..2**64-1, not {seed!r}")
    unknown = set(spec) - set(_module(game).DEAL_KEYS)
    if unknown:
        raise ScenarioError(
            f"unknown key {sorted(unknown)[0]!r} in a {game} deal; "
            f"keys are: {', '.join(_module(game).DEAL_KEYS)}"
        )
    state: GameState = _module(game).deal(dict(spec), _options(game, options), n, seed)
    return state


def load_deal(path: str | Path) -> dict[str, Any]:
    """The deal file at ``path`` (TOML, or JSON when it ends in ``.json``) as a mapping
    with ``game``, ``deal`` and optionally ``seats``, ``seed`` and ``options``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot read the deal file {path}: {exc.strerror}") from exc
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise ScenarioError(
            f"{path} is not valid {'JSON' if path.suffix == '.json' else 'TOML'}: {exc}"
        ) from exc
    if not isinstance(data, dict) or "game" not in data or "deal" not in data:
        raise ScenarioError(f"{path}: a deal file names the game and has a [deal] table")
    extra = set(data) - {"game", "seats", "seed", "options", "deal"}
    if extra:
        raise ScenarioError(
            f"{path}: unknown key {sorted(extra)[0]!r}; keys are: game, seats, seed, options, deal"
        )
    return data


def deal_from_file(path: str | Path) -> GameState:
    """The match the deal file at ``path`` describes."""
    data = load_deal(path)
    try:
        return deal(
            data["game"],
            data["deal"],
            options=data.get("options"),
            seats=data.get("seats"),
            seed=data.get("seed", 0),
        )
    except EngineError as exc:
        raise ScenarioError(f"{path}: {exc}") from exc


def _options(game: str, options: Mapping[str, Any] | Any) -> Any:
    from referee.games import get_game

    return get_game(game).options(options)


__all__ = ["ScenarioError", "deal", "deal_from_file", "load_deal", "sample"]
