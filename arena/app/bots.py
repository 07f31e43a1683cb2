"""Bots: submitting a version (under the actor's name, or an operator's choice of
owner), retiring a bot, and the check made on each bot a tournament, gauntlet or duel
is to seat (``docs/api.md``, "Who may do what")."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from arena.app.actors import Action, Actor, require
from arena.app.errors import Invalid, NotFound
from worker.store import Bot, BotVersion, Store
from worker.store.bots import bot_name_problem


@dataclass(frozen=True, slots=True)
class Submitted:
    """A submission's outcome: the version that holds the content, and whether it is new
    (the same content again is the same version)."""

    version: BotVersion
    new: bool


@dataclass(frozen=True, slots=True)
class Retired:
    """A retired bot, and whether it was retired already (its date kept)."""

    bot: Bot
    already: bool


def submit(
    store: Store,
    actor: Actor,
    *,
    name: str,
    game: str,
    archive: bytes,
    command: Sequence[str],
    archive_format: str = "tar",
    owner: str | None = None,
) -> Submitted:
    """Store ``archive`` as a version of the bot ``name`` playing ``game``. A new name is
    registered for ``owner`` (default: the actor, who alone may name another user when an
    operator); an existing name takes versions from its owner or an operator only. Nothing
    is stored when the submission is refused. A new version of a retired bot brings it
    back."""
    problem = bot_name_problem(name)
    if problem is not None:
        raise Invalid(problem)
    existing = store.bot_by_name(name)
    if existing is not None:
        require(
            actor,
            Action.SUBMIT,
            whose=existing.owner,
            what=f"submit a version of bot {name!r}, which belongs to {existing.owner}",
        )
        if owner is not None and owner != existing.owner:
            raise Invalid(f"bot {name!r} belongs to {existing.owner}; it cannot go to {owner}")
        owner = existing.owner
    else:
        owner = owner or actor.name
        require(
            actor,
            Action.SUBMIT,
            whose=owner,
            what=f"register bot {name!r}"
            + ("" if owner is None or owner == actor.name else f" for {owner}"),
        )
        if owner is not None and owner != actor.name and store.user(owner) is None:
            raise NotFound(f"no user named {owner!r}: make them first (arena user create {owner})")
    submitter = actor.name
    assert owner is not None and submitter is not None  # require refused the anonymous
    content_hash = hashlib.sha256(archive).hexdigest()
    if existing is not None:
        for rated in store.bot_versions(existing.id):
            if rated.version.content_hash == content_hash:
                if rated.version.game != game:
                    raise Invalid(
                        f"this content is already {rated.version.label}, submitted for "
                        f"{rated.version.game}; a version plays one game"
                    )
                return Submitted(rated.version, new=False)
    bot_id = store.add_bot(name, owner)
    manifest = {"game": game, "command": list(command), "archive": archive_format}
    version = store.add_bot_version(bot_id, archive, manifest, submitter)
    if existing is not None and existing.retired_at is not None:
        store.set_retired(bot_id, False)
    return Submitted(version, new=True)


def retire(store: Store, actor: Actor, name: str) -> Retired:
    """Retire the bot ``name``: ladders leave it out and tournaments, gauntlets and duels
    refuse it from now on (matches already queued still play)."""
    bot = store.bot_by_name(name)
    if bot is None:
        raise NotFound(f"no bot named {name!r} (see arena bot list)")
    require(actor, Action.RETIRE, whose=bot.owner, what=_theirs(f"retire bot {name!r}", bot))
    return Retired(store.set_retired(bot.id, True), already=bot.retired_at is not None)


def check_entry(actor: Actor, bot: Bot) -> None:
    """Refuse ``bot`` for a new tournament, gauntlet or duel that ``actor`` makes: one
    retired, or one that is neither the actor's nor a house bot (but to an operator)."""
    require(actor, Action.ENTER, whose=bot.owner, what=_theirs(f"enter bot {bot.name!r}", bot))
    if bot.retired_at is not None:
        raise Invalid(
            f"bot {bot.name} is retired (since {bot.retired_at:%Y-%m-%d}): it plays no new "
            "matches; a new version (arena bot submit) brings it back"
        )


def _theirs(what: str, bot: Bot) -> str:
    return f"{what}, which belongs to {bot.owner}"
