"""One client for what a user asks of a platform (docs/cli.md, "Local and remote"): a
command parses its arguments, asks the client, and prints the answer, by one path
whichever platform it talks to. Each client has two implementations returning the same
typed results: one over the application layer and this machine's store, one over a
platform's HTTP API (``ARENA_PLATFORM``, or ``arena login``).

So far: users and their API keys (:class:`Users`, :func:`users`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Protocol
from urllib.parse import quote

from arena.app import users as app_users
from arena.app.actors import Actor, local_actor
from arena.app.users import Revoked
from arena.commands.db import local_database, store_errors
from arena.remote import Platform, remote
from worker.store import ApiKey, NewKey, Store, User, UserSummary


class Users(Protocol):
    """Users and their API keys (docs/api.md, "API keys"), as the key's user may ask."""

    def create_user(self, name: str, *, operator: bool) -> NewKey: ...
    def list_users(self) -> list[UserSummary]: ...
    def new_key(self, user: str | None) -> NewKey: ...
    def list_keys(self, user: str | None) -> list[ApiKey]: ...
    def revoke_key(self, prefix: str) -> Revoked: ...
    def me(self) -> str | None:
        """The name of the user the client acts as (None: the platform itself)."""
        ...


class LocalUsers:
    """:class:`Users` over the application layer and this machine's store."""

    def __init__(self, store: Store, actor: Actor) -> None:
        self.store, self.actor = store, actor

    def create_user(self, name: str, *, operator: bool) -> NewKey:
        return app_users.create_user(self.store, self.actor, name, operator=operator)

    def list_users(self) -> list[UserSummary]:
        return app_users.list_users(self.store, self.actor)

    def new_key(self, user: str | None) -> NewKey:
        return app_users.new_key(self.store, self.actor, user)

    def list_keys(self, user: str | None) -> list[ApiKey]:
        return app_users.list_keys(self.store, self.actor, user)

    def revoke_key(self, prefix: str) -> Revoked:
        return app_users.revoke_key(self.store, self.actor, prefix)

    def me(self) -> str | None:
        return self.actor.name


class RemoteUsers:
    """:class:`Users` over a platform's API: the same operations, the same refusals
    (the API's errors are the application layer's), the answers read back into the
    same types (a key's and a user's row ids are the platform's own: 0 here)."""

    def __init__(self, platform: Platform) -> None:
        self.platform = platform

    def create_user(self, name: str, *, operator: bool) -> NewKey:
        return _new_key(self.platform.post("/users", {"name": name, "operator": operator}))

    def list_users(self) -> list[UserSummary]:
        return [_user(u) for u in self.platform.get("/users")]

    def new_key(self, user: str | None) -> NewKey:
        return _new_key(self.platform.post("/keys", {"user": user}))

    def list_keys(self, user: str | None) -> list[ApiKey]:
        return [_key(k) for k in self.platform.get("/keys", user=user)]

    def revoke_key(self, prefix: str) -> Revoked:
        done = self.platform.call("DELETE", f"/keys/{quote(prefix, safe='')}")
        return Revoked(_key(done), bool(done["already"]))

    def me(self) -> str | None:
        name = self.platform.get("/me").get("name")
        return None if name is None else str(name)


@contextmanager
def users() -> Iterator[Users]:
    """The users-and-keys client: the platform's when one is set, else this machine's."""
    platform = remote()
    if platform is not None:
        with platform:
            yield RemoteUsers(platform)
        return
    with store_errors(redis=False), local_database() as url, Store.open(url) as store:
        yield LocalUsers(store, local_actor(store))


def _when(text: Any) -> datetime | None:
    return None if text is None else datetime.fromisoformat(str(text))


def _key(data: dict[str, Any]) -> ApiKey:
    created = _when(data["created_at"])
    assert created is not None
    return ApiKey(
        0,
        str(data["user"]),
        str(data["prefix"]),
        created,
        _when(data.get("last_used_at")),
        _when(data.get("revoked_at")),
    )


def _new_key(data: dict[str, Any]) -> NewKey:
    return NewKey(_key(data), str(data["key"]))


def _user(data: dict[str, Any]) -> UserSummary:
    created = _when(data["created_at"])
    assert created is not None
    user = User(0, str(data["name"]), bool(data["operator"]), created)
    return UserSummary(user, int(data["keys"]), int(data["bots"]))
