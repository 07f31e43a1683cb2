"""Users and their API keys: making users (operators only), making, listing and revoking
keys (a user's own, or anyone's for an operator). A key's text is returned once, when it
is made; the store keeps only its hash."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.app.actors import Action, Actor, require
from arena.app.errors import Invalid, NotFound
from arena.app.reads import iso
from worker.store import PLATFORM_USER, ApiKey, NewKey, Store, User, UserSummary
from worker.store.users import user_name_problem


def create_user(store: Store, actor: Actor, name: str, *, operator: bool = False) -> NewKey:
    """Make the user ``name`` (an operator with ``operator``) and their first key."""
    require(actor, Action.USERS, what=f"make user {name!r}")
    problem = user_name_problem(name)
    if problem is not None:
        raise Invalid(problem)
    if store.user(name) is not None:
        raise Invalid(f"there is a user named {name!r} already (see arena user list)")
    store.create_user(name, operator=operator)
    return store.create_key(name)


def list_users(store: Store, actor: Actor) -> list[UserSummary]:
    """Every user, with their working keys and their bots."""
    require(actor, Action.USERS, what="list the users")
    return store.users()


def _user(store: Store, actor: Actor, name: str | None) -> User:
    """The user ``name``, who must exist (None only for the anonymous, whom
    :func:`require` refused before)."""
    assert name is not None
    found = store.user(name)
    if found is None:
        mine = name == actor.name
        raise NotFound(
            f"no user named {name!r}"
            + (
                f": you act as the operator without being a user; make yourself one with "
                f"arena user create {name} --operator, or give --user NAME"
                if mine
                else " (see arena user list)"
            )
        )
    return found


def new_key(store: Store, actor: Actor, user: str | None = None) -> NewKey:
    """A new key of ``user`` (default: the actor)."""
    name = user or actor.name
    require(actor, Action.KEYS, whose=name, what=f"make a key of {name or 'a user'}")
    found = _user(store, actor, name)
    if found.name == PLATFORM_USER:
        raise Invalid(
            f"the platform's user {PLATFORM_USER!r} holds no key: it owns the house bots, "
            "which operators manage"
        )
    return store.create_key(found.name)


def list_keys(store: Store, actor: Actor, user: str | None = None) -> list[ApiKey]:
    """The keys of ``user`` (default: the actor), by prefix, never their secrets."""
    name = user or actor.name
    require(actor, Action.KEYS, whose=name, what=f"list the keys of {name or 'a user'}")
    return store.keys(_user(store, actor, name).name)


@dataclass(frozen=True, slots=True)
class Revoked:
    """A revoked key, and whether it was revoked already (its date kept)."""

    key: ApiKey
    already: bool


def revoke_key(store: Store, actor: Actor, prefix: str) -> Revoked:
    """Revoke the key of ``prefix``: it is refused from then on."""
    key = store.key_by_prefix(prefix)
    if key is None:
        raise NotFound(f"no API key with prefix {prefix!r} (see arena user key list)")
    require(actor, Action.KEYS, whose=key.user, what=f"revoke key {prefix} of {key.user}")
    return Revoked(store.revoke_key(prefix), already=key.revoked_at is not None)


# -- as JSON -------------------------------------------------------------------------------


def user_dict(summary: UserSummary) -> dict[str, Any]:
    """A user of a listing as ``arena user list --json`` and the API give it."""
    user = summary.user
    return {
        "name": user.name,
        "operator": user.operator,
        "keys": summary.keys,
        "bots": summary.bots,
        "created_at": iso(user.created_at),
    }


def key_dict(key: ApiKey) -> dict[str, Any]:
    """A key by its prefix and dates, never its secret."""
    return {
        "prefix": key.prefix,
        "user": key.user,
        "created_at": iso(key.created_at),
        "last_used_at": iso(key.last_used_at),
        "revoked_at": iso(key.revoked_at),
    }


def new_key_dict(made: NewKey) -> dict[str, Any]:
    """A key just made, its text included (shown this once)."""
    return {
        "user": made.key.user,
        "key": made.text,
        "prefix": made.key.prefix,
        "created_at": iso(made.key.created_at),
    }
