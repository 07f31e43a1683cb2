"""The platform's credential for the match service (ARCHITECTURE decision 13).

Only the platform creates, watches, fetches and releases matches: every call to
the ``Matches`` service carries the metadata ``authorization: Bearer SECRET``,
compared in constant time. The secret is ``ARENA_REFEREE_SECRET`` when set, else
the one kept in ``ARENA_HOME/referee.secret`` (made there, readable by its owner
only, the first time the embedded platform needs it). The bots' ``Play`` service
and health checking stay open: a seat token is a bot's credential.
"""

from __future__ import annotations

import hmac
import os
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc

from referee import settings

SECRET_ENV = settings.REFEREE_SECRET
HOME_ENV = settings.HOME
SECRET_FILE = "referee.secret"


class SecretError(RuntimeError):
    """The platform's secret cannot be read or made."""


def arena_home() -> Path:
    """The data folder: ``ARENA_HOME``, default the user's data folder
    (``~/.local/share/rummy-arena`` on Linux)."""
    return settings.load().home


def platform_secret() -> str:
    """``ARENA_REFEREE_SECRET``, else the secret kept under ``ARENA_HOME`` (made when
    missing)."""
    secret = settings.load().referee_secret
    if secret:
        return secret
    path = arena_home() / SECRET_FILE
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_urlsafe(32) + "\n")
        secret = path.read_text().strip()
    except FileExistsError:  # made by another process at the same moment
        secret = path.read_text().strip()
    except OSError as exc:
        raise SecretError(
            f"cannot read or make the referee's secret {path}: {exc}; "
            f"set {SECRET_ENV} or point {HOME_ENV} at a writable folder"
        ) from exc
    if not secret:
        raise SecretError(f"{path} is empty: delete it to make a new secret, or set {SECRET_ENV}")
    return secret


def secret_source() -> str:
    """Where :func:`platform_secret` takes the secret from, for the logs."""
    if settings.load().referee_secret:
        return SECRET_ENV
    return str(arena_home() / SECRET_FILE)


def call_metadata(secret: str) -> tuple[tuple[str, str], ...]:
    """The metadata that carries the platform's credential on a call."""
    return (("authorization", f"Bearer {secret}"),)


def _denied(code: grpc.StatusCode, message: str, streaming: bool) -> grpc.RpcMethodHandler:
    async def unary(_request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        await context.abort(code, message)

    async def stream(_request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await context.abort(code, message)
        yield  # pragma: no cover - abort raises

    if streaming:
        return grpc.unary_stream_rpc_method_handler(stream)
    return grpc.unary_unary_rpc_method_handler(unary)


class PlatformAuth(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Refuses calls to the services named by ``prefixes`` (full method names start
    with them) that do not carry the platform's secret."""

    def __init__(self, secret: str, prefixes: tuple[str, ...], streaming: frozenset[str]):
        self._expected = f"Bearer {secret}".encode()
        self._prefixes = prefixes
        self._streaming = streaming  # the guarded methods that answer with a stream

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        """Pass the call on, or answer it with UNAUTHENTICATED."""
        method = details.method
        if not method.startswith(self._prefixes):
            return await continuation(details)
        given = None
        for key, value in details.invocation_metadata or ():
            if key == "authorization":
                given = value.encode() if isinstance(value, str) else bytes(value)
        if given is not None and hmac.compare_digest(given, self._expected):
            return await continuation(details)
        problem = "carries no credential" if given is None else "carries a wrong credential"
        return _denied(
            grpc.StatusCode.UNAUTHENTICATED,
            f"this call to the match service {problem}: send the metadata "
            f"'authorization: Bearer SECRET' with the referee's secret ({SECRET_ENV}, or "
            f"the file {SECRET_FILE} under {HOME_ENV})",
            method in self._streaming,
        )
