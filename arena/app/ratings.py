"""The ratings as an operator manages them (``docs/api.md``, "Who may do what"):
recomputing a game's Elo from its matches in completion order."""

from __future__ import annotations

from arena.app.actors import Action, Actor, require
from worker.store import RecomputeStats, Store


def recompute(store: Store, actor: Actor, game: str, k: float | None = None) -> RecomputeStats:
    """Recompute the online Elo of ``game`` from its rated matches (K = ``k``, default the
    platform's)."""
    require(actor, Action.OPERATE, what=f"recompute the ratings of {game}")
    return store.recompute_ratings(game, k=k)
