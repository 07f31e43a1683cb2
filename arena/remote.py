"""``arena`` used remotely (``docs/api.md``, "Remote use"): with ``ARENA_PLATFORM`` (or
the file ``arena login`` writes) the user commands call a platform's API instead of a
store of their own. A refusal comes back as the application layer's own error
(:class:`~arena.app.errors.Unauthorized`, :class:`~arena.app.errors.Forbidden`, …), so
a command prints it and exits as it would have locally."""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import platformdirs

from arena.app.errors import (
    AppError,
    Forbidden,
    Held,
    Invalid,
    NotFound,
    RateLimited,
    Unauthorized,
)
from arena.errors import ServerUnavailable
from referee import settings

#: Where ``arena login`` keeps the platform's address and the key (readable by its owner).
CONFIG_FILE = "platform.toml"
PREFIX = "/api/v1"
TIMEOUT_S = 60.0
#: Items asked for per page when a command lists everything.
PAGE = 200
_ERRORS: dict[str, type[AppError]] = {
    "unauthorized": Unauthorized,
    "forbidden": Forbidden,
    "not_found": NotFound,
    "held": Held,
    "invalid": Invalid,
}


class Unreachable(ServerUnavailable):
    """The platform does not answer (or answers with no API): exit 3."""


def config_path() -> Path:
    """The file ``arena login`` writes, under the user's config folder."""
    return Path(platformdirs.user_config_dir(settings.APP_NAME, appauthor=False)) / CONFIG_FILE


@dataclass(frozen=True, slots=True)
class Login:
    """A platform's address and the key to use there."""

    platform: str
    api_key: str | None


def login_settings() -> Login | None:
    """The remote platform to use: ``ARENA_PLATFORM`` (with ``ARENA_API_KEY``), else the
    file ``arena login`` wrote, else None (work on this machine's store)."""
    found = settings.load()
    if found.platform is not None:
        return Login(found.platform.rstrip("/"), found.api_key)
    path = config_path()
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise Invalid(f"{path} cannot be read ({exc}): run `arena login` again") from None
    platform = data.get("platform")
    if not isinstance(platform, str) or not platform:
        raise Invalid(f"{path} names no platform: run `arena login URL` again")
    key = found.api_key or data.get("api_key")
    return Login(platform.rstrip("/"), key if isinstance(key, str) else None)


def save_login(login: Login) -> Path:
    """Write ``login`` to :func:`config_path`, readable and writable by this user only."""
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(f"platform = {json.dumps(login.platform)}\n")
        if login.api_key:
            f.write(f"api_key = {json.dumps(login.api_key)}\n")
    os.replace(part, path)
    return path


class Platform:
    """A remote platform's API, called as the key's user."""

    def __init__(self, login: Login) -> None:
        self.url = login.platform
        headers = {"authorization": f"Bearer {login.api_key}"} if login.api_key else {}
        self.client = httpx.Client(base_url=self.url + PREFIX, headers=headers, timeout=TIMEOUT_S)

    def __enter__(self) -> Platform:
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.close()

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        """The answer's JSON; the application layer's error for a refusal."""
        reply = self._send(method, path, **kwargs)
        try:
            return reply.json()
        except ValueError:
            raise Unreachable(
                f"{self.url} answered {path} with no JSON: is it a Rummy Arena platform "
                "(`arena web`)?"
            ) from None

    def raw(self, path: str) -> bytes:
        """The answer's bytes (a record); the application layer's error for a refusal."""
        return self._send("GET", path).content

    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            reply = self.client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise Unreachable(
                f"the platform at {self.url} does not answer ({exc}); check "
                f"{settings.PLATFORM} or run `arena login URL` again"
            ) from None
        if reply.is_success:
            return reply
        try:
            body = reply.json()
        except ValueError:
            body = None
        error = body.get("error") if isinstance(body, dict) else None
        if not isinstance(error, dict):
            raise Unreachable(
                f"{self.url} answered {reply.status_code} with no API error: is it a Rummy "
                f"Arena platform (`arena web`)?"
            )
        message = str(error.get("message", reply.reason_phrase))
        if error.get("code") == "rate_limited":
            raise RateLimited(message, int(reply.headers.get("retry-after", "60")))
        raise _ERRORS.get(str(error.get("code")), AppError)(message)

    def get(self, path: str, **params: Any) -> Any:
        return self.call("GET", path, params={k: v for k, v in params.items() if v is not None})

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        return self.call("POST", path, json=body or {})

    def items(self, path: str) -> Iterator[dict[str, Any]]:
        """Every item of a paged list."""
        offset: int | None = 0
        while offset is not None:
            page = self.get(path, limit=PAGE, offset=offset)
            yield from page["items"]
            offset = page["next_offset"]


def remote() -> Platform | None:
    """The remote platform to call, when one is set (:func:`login_settings`)."""
    login = login_settings()
    return None if login is None else Platform(login)
