"""What the viewer takes from a request, checked once at the boundary: every value of the
path and the query is a name or a number, so a request whose text could be neither
(not UTF-8, or holding a control or format character: NUL, escapes, bidi marks) is
refused with 400 before any page sees it (:class:`CheckInputs`, which also answers 414
to an address over :data:`MAX_URL_BYTES`); ids in the path are
at most 18 digits (``{id:id}``, below bigint's limit: longer ones match no route, 404);
and each query value is read by its kind's parser (:func:`number`, :func:`choice`),
which refuses what is not of that kind with :class:`BadInput` (400)."""

from __future__ import annotations

import unicodedata
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any, TypeVar
from urllib.parse import unquote_to_bytes

from starlette.convertors import Convertor, register_url_convertor

from arena.app.pages import quoted

#: A value a query may choose (a status ``Literal``'s, say).
Choice = TypeVar("Choice", bound=str)

#: The most digits of a number the viewer reads (below 2^63, Postgres' bigint).
MAX_DIGITS = 18
#: The longest address (path and query, as sent) the viewer reads; its own links are a
#: few dozen bytes. Longer: 414 (``arena.serving`` answers those the server cannot
#: even buffer).
MAX_URL_BYTES = 8 * 1024

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[Any]]
Send = Callable[[Any], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BadInput(Exception):
    """A request value that is not of its kind (400); the message says which, in one
    sentence."""


class IdConvertor(Convertor[int]):
    """A path id: 1 to :data:`MAX_DIGITS` ASCII digits."""

    regex = f"[0-9]{{1,{MAX_DIGITS}}}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("id", IdConvertor())


def text_problem(raw: bytes) -> str | None:
    """Why the percent-encoded ``raw`` (a path, a query name or value) cannot be a name
    or a number: not UTF-8 once decoded, or a control, format, surrogate or private-use
    character in it; None when it may be."""
    try:
        text = unquote_to_bytes(raw.replace(b"+", b" ")).decode("utf-8")
    except UnicodeDecodeError:
        return "it is not UTF-8 text"
    for ch in text:
        if unicodedata.category(ch).startswith("C"):
            return f"it holds the character U+{ord(ch):04X}, which no name or number has"
    return None


def request_problem(scope: Scope) -> tuple[int, str] | None:
    """Why the request's address is refused, with the status to answer: 414 when longer
    than :data:`MAX_URL_BYTES`, 400 when its path or query holds a value that is no name
    and no number; None when it may be read."""
    path = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogateescape")
    query: bytes = scope.get("query_string", b"")
    if len(path) + len(query) > MAX_URL_BYTES:
        return 414, f"the address is longer than {MAX_URL_BYTES} bytes"
    problem = text_problem(path)
    if problem is not None:
        return 400, f"the address cannot be read: {problem}"
    for part in query.split(b"&"):
        for piece in part.split(b"=", 1):
            problem = text_problem(piece)
            if problem is not None:
                return 400, f"the query cannot be read: {problem}"
    return None


class CheckInputs:
    """ASGI middleware: an HTTP request that fails :func:`request_problem` gets
    ``refuse(scope, status, message)`` (a response) and never reaches the pages."""

    def __init__(self, app: ASGIApp, refuse: Callable[[Scope, int, str], Any]) -> None:
        self.app = app
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            problem = request_problem(scope)
            if problem is not None:
                await self.refuse(scope, *problem)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def number(params: Mapping[str, str], name: str) -> int | None:
    """The query value ``name`` as a number: None when absent, empty or ``all`` (a form's
    "any"); :class:`BadInput` unless 1 to :data:`MAX_DIGITS` ASCII digits."""
    text = params.get(name)
    if text is None or text in ("", "all"):
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS):
        raise BadInput(f"{name}={quoted(text)} is not a number")
    return int(text)


def choice(params: Mapping[str, str], name: str, allowed: Collection[Choice]) -> Choice | None:
    """The query value ``name``, one of ``allowed`` (and typed as they are: a status
    ``Literal``'s values give that ``Literal``): None when absent or empty;
    :class:`BadInput` for anything else."""
    text = params.get(name)
    if not text:
        return None
    for value in allowed:
        if value == text:
            return value
    raise BadInput(f"{name}={quoted(text)} is none of {', '.join(sorted(allowed))}")
