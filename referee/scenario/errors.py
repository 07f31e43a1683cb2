"""The error of a deal or a view that no position of the game's rules agrees with."""

from __future__ import annotations

from referee.engine import EngineError


class ScenarioError(EngineError, ValueError):
    """A deal or a view that no position of the game's rules agrees with."""
