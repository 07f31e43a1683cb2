"""Ladders as their users act on them (``docs/api.md``, "Who may do what"): an operator
starts and stops a ladder; a bot's owner withdraws it from a ladder's pool or lets it
join again (every bot of the ladder's game is in the pool unless withdrawn or
retired)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.app.actors import Action, Actor, require
from arena.app.errors import Invalid, NotFound
from worker.store import Ladder, Store, StoreError


@dataclass(frozen=True, slots=True)
class Membership:
    """Whether a bot is in a ladder's pool now, and whether this call changed it."""

    ladder: str
    bot: str
    member: bool
    changed: bool


def _ladder(store: Store, name: str) -> Ladder:
    found = next((lad for lad in store.ladders() if lad.name == name), None)
    if found is None:
        raise NotFound(f"no ladder named {name!r} (see arena ladder status)")
    return found


def set_member(store: Store, actor: Actor, ladder: str, bot: str, member: bool) -> Membership:
    """Let the bot ``bot`` join the ladder ``ladder`` (``member``) or withdraw it; its
    matches already queued still play, and its finished ones stay rated."""
    found = _ladder(store, ladder)
    owned = store.bot_by_name(bot)
    if owned is None:
        raise NotFound(f"no bot named {bot!r} (see arena bot list)")
    verb = "enter bot" if member else "withdraw bot"
    require(
        actor,
        Action.LADDER,
        whose=owned.owner,
        what=f"{verb} {bot!r} of {owned.owner} {'in' if member else 'from'} ladder {ladder!r}",
    )
    games = {v.version.game for v in store.bot_versions(owned.id)}
    if found.game not in games:
        raise Invalid(f"bot {bot!r} has no version for {found.game}, the game of ladder {ladder!r}")
    changed = store.set_withdrawn(found.id, owned.id, not member)
    return Membership(found.name, owned.name, member, changed)


def start(store: Store, actor: Actor, game: str, name: str, settings: Mapping[str, Any]) -> Ladder:
    """Start the ladder ``name`` of ``game`` (or run it again with new ``settings``)."""
    require(actor, Action.OPERATE, what=f"start ladder {name!r}")
    try:
        return store.start_ladder(game, name, settings)
    except StoreError as exc:
        raise Invalid(str(exc)) from None


def stop(store: Store, actor: Actor, name: str) -> None:
    """Stop the ladder ``name``: no new matches (those queued still play)."""
    require(actor, Action.OPERATE, what=f"stop ladder {name!r}")
    if not store.stop_ladder(name):
        raise NotFound(f"no running ladder named {name!r} (see `arena ladder status`)")


def status(store: Store, actor: Actor) -> list[dict[str, Any]]:
    """Every ladder: its game, whether it runs, its matches by state and how many it keeps
    in flight, as ``arena ladder status --json``."""
    require(actor, Action.READ, what="read the ladders")
    return [
        {
            "id": lad.id,
            "name": lad.name,
            "game": lad.game,
            "running": lad.active,
            "progress": store.ladder_progress(lad.id),
            "in_flight_limit": lad.settings.get("in_flight"),
        }
        for lad in store.ladders()
    ]
