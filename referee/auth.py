"""The platform's credential for the match service (docs/architecture.md, decision 13).

Only the platform creates, watches, fetches and releases matches: every call to
the ``Matches`` service carries the metadata ``authorization: Bearer SECRET``,
compared in constant time. The secret is ``ARENA_REFEREE_SECRET`` when set, else
the one kept in ``ARENA_HOME/referee.secret`` (made there, readable by its owner
only, the first time the embedded platform needs it). The bots' ``Play`` service
and health checking stay open: a seat token is a bot's credential.

A spectator's front end follows a running match with less: a watch credential,
``authorization: Watch MAC`` where MAC is an HMAC-SHA256 of the referee's match id
under the secret (:func:`watch_credential`). WatchMatch accepts it for that match
only, and no other call accepts it, so a server that is handed one by mistake can
watch one match's public events and do nothing else.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import secrets
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import grpc

from referee import settings

SECRET_ENV = settings.REFEREE_SECRET
HOME_ENV = settings.HOME
SECRET_FILE = "referee.secret"
#: The scheme of a watch credential in the ``authorization`` metadata.
WATCH_SCHEME = "Watch"


class SecretError(RuntimeError):
    """The platform's secret cannot be read or made."""


def platform_secret() -> str:
    """``ARENA_REFEREE_SECRET``, else the secret kept under ``ARENA_HOME`` (made when
    missing)."""
    secret = settings.load().referee_secret
    if secret:
        return secret
    path = settings.arena_home() / SECRET_FILE
    try:
        if not path.exists():
            _make_secret(path)
        secret = path.read_text().strip()
    except OSError as exc:
        raise SecretError(
            f"cannot read or make the referee's secret {path}: {exc}; "
            f"set {SECRET_ENV} or point {HOME_ENV} at a writable folder"
        ) from exc
    if not secret:
        raise SecretError(f"{path} is empty: delete it to make a new secret, or set {SECRET_ENV}")
    return secret


def _make_secret(path: Path) -> None:
    """Write a new secret at ``path`` unless one is there: written in full to a file
    of its own, then linked into place, so a process starting at the same moment reads
    either no file or the whole secret (never one made but not yet written), and the
    first link wins."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, draft = tempfile.mkstemp(prefix=f".{SECRET_FILE}.", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(32) + "\n")
        with contextlib.suppress(FileExistsError):  # another process linked its own first
            os.link(draft, path)
    finally:
        os.unlink(draft)


def secret_source() -> str:
    """Where :func:`platform_secret` takes the secret from, for the logs."""
    if settings.load().referee_secret:
        return SECRET_ENV
    return str(settings.arena_home() / SECRET_FILE)


def call_metadata(secret: str) -> tuple[tuple[str, str], ...]:
    """The metadata that carries the platform's credential on a call."""
    return (("authorization", f"Bearer {secret}"),)


def watch_credential(secret: str, match_id: str) -> str:
    """The credential that lets WatchMatch follow the referee's match ``match_id`` (and
    nothing else): HMAC-SHA256 of the id under the referee's ``secret``, in hex."""
    key = b"rummy-arena watch\0" + secret.encode()
    return hmac.new(key, match_id.encode(), "sha256").hexdigest()


def watch_metadata(secret: str, match_id: str) -> tuple[tuple[str, str], ...]:
    """The metadata that carries the watch credential of ``match_id`` on a WatchMatch."""
    return (("authorization", f"{WATCH_SCHEME} {watch_credential(secret, match_id)}"),)


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
    with them) that do not carry the platform's secret. The methods of ``watching``
    (server-streaming, each with a function from its request to the match id it
    watches) also take that match's watch credential, checked against the request."""

    def __init__(
        self,
        secret: str,
        prefixes: tuple[str, ...],
        streaming: frozenset[str],
        watching: Mapping[str, Callable[[Any], str]] | None = None,
    ):
        self._secret = secret
        self._expected = f"Bearer {secret}".encode()
        self._prefixes = prefixes
        self._streaming = streaming  # the guarded methods that answer with a stream
        self._watching = dict(watching or {})

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
        watched = self._watching.get(method)
        if watched is not None and given is not None and given.startswith(b"Watch "):
            return self._watch_only(await continuation(details), watched, given[6:])
        problem = "carries no credential" if given is None else "carries a wrong credential"
        return _denied(
            grpc.StatusCode.UNAUTHENTICATED,
            f"this call to the match service {problem}: send the metadata "
            f"'authorization: Bearer SECRET' with the referee's secret ({SECRET_ENV}, or "
            f"the file {SECRET_FILE} under {HOME_ENV})",
            method in self._streaming,
        )

    def _watch_only(
        self, handler: grpc.RpcMethodHandler, watched: Callable[[Any], str], mac: bytes
    ) -> grpc.RpcMethodHandler:
        """``handler`` (a server-streaming method) behind a check that ``mac`` is the
        watch credential of the match its request names (the request is only known
        once read, so the check runs in the call)."""
        inner = handler.unary_stream
        secret = self._secret

        async def checked(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            expected = watch_credential(secret, watched(request)).encode()
            if not hmac.compare_digest(mac, expected):
                await context.abort(
                    grpc.StatusCode.PERMISSION_DENIED,
                    "this watch credential is not the one of the match the call names",
                )
            stream: AsyncIterator[Any] = inner(request, context)
            async for item in stream:
                yield item

        return grpc.unary_stream_rpc_method_handler(
            checked,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
