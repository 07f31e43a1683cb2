"""Remote bots as the application layer admits them (docs/bots.md, "Running your bot
from home"): a bot process on its author's machine dials a worker host's referee with
its owner's API key, its bot's name and its game; the worker asks :func:`admit` whether
it may play, and as which version, on connecting and again while it stays connected (a
revoked key ends its session)."""

from __future__ import annotations

from arena.app.actors import Action, authenticate, require
from arena.app.errors import AppError, Invalid, Unauthorized
from referee.engine import UnknownGameError
from referee.games import get_game
from worker.remote import Admit, Refused
from worker.store import BotVersion, Store
from worker.store.bots import bot_name_problem


def admitter(store: Store) -> Admit:
    """:func:`admit` as a worker host asks it (:mod:`worker.remote`): a refusal is
    :class:`~worker.remote.Refused`, UNAUTHENTICATED for a key that is not one."""

    def ask(key: str, bot: str, game: str) -> BotVersion:
        try:
            return admit(store, key, bot, game)
        except Unauthorized as exc:
            raise Refused(str(exc), "UNAUTHENTICATED") from None
        except AppError as exc:
            raise Refused(str(exc)) from None

    return ask


def admit(store: Store, key: str, bot: str, game: str) -> BotVersion:
    """The version the remote bot ``bot`` of ``game`` plays as, for the holder of ``key``:
    their own bot (a new name becomes theirs, as a submission's does) or, for an
    operator, anyone's. :class:`~arena.app.errors.Unauthorized` for a key that is not
    one, :class:`~arena.app.errors.Forbidden` for another owner's bot,
    :class:`~arena.app.errors.Invalid` for a bad name, an unknown game or a retired bot."""
    actor = authenticate(store, key, source="the bot's API key (ARENA_API_KEY)")
    problem = bot_name_problem(bot)
    if problem is not None:
        raise Invalid(f"{problem}; give the bot's name with --name")
    try:
        get_game(game)
    except UnknownGameError as exc:
        raise Invalid(str(exc)) from None
    found = store.bot_by_name(bot)
    owner = actor.name if found is None else found.owner
    require(
        actor,
        Action.SUBMIT,
        whose=owner,
        what=f"play bot {bot!r}" + ("" if found is None else f", which belongs to {owner}"),
    )
    if found is not None and found.retired_at is not None:
        raise Invalid(
            f"bot {bot} is retired: it plays no new matches (a new version, arena bot "
            "submit, brings it back)"
        )
    assert owner is not None and actor.name is not None  # require refused the anonymous
    # as a submission's: an operator vouches for their own, a user's qualifies first
    qualification = "exempt" if actor.is_operator else "qualifying"
    return store.remote_version(store.add_bot(bot, owner), game, actor.name, qualification)
