"""How every role logs (``docs/operations.md``, "Logs"): one handler on standard error, in
plain text or as one JSON object a line (``ARENA_LOG_FORMAT``), each record carrying the
id of the match being played in its context; and, in a worker, what it logged about each
play of a match, kept for that match's page.

The match id is a context variable that :func:`about_match` sets while a worker plays a
match (:meth:`worker.host.Host.play`); :class:`MatchIdFilter` copies it onto every
record made in that context. The same play's records of WARNING and up are gathered by a
handler of the root logger (newest :data:`KEPT_LINES`, each cut to
:data:`MESSAGE_CHARS`) for the worker to store with the match. A record about one seat
says so with ``extra={"seat": n}``: the owner of that seat's bot may read it.

Celery configures logging itself unless a receiver of its ``setup_logging`` signal does
it; :func:`keep_celery_out` connects one that leaves this configuration as it is (Celery
then neither replaces the root logger's handlers nor redirects standard output).
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import logging
import sys
import threading
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

from pythonjsonlogger.json import JsonFormatter

from referee import settings

#: The match being played in this context (thread, or task), if any.
MATCH_ID: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "arena_match_id", default=None
)
#: How many of a play's records a worker keeps with the match (the newest).
KEPT_LINES = 50
#: How much of one record's message (and traceback) is kept (characters).
MESSAGE_CHARS = 2000
#: The text form's lines.
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s%(match)s %(message)s"
#: The levels ``--loglevel`` takes.
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class MatchIdFilter(logging.Filter):
    """Puts the id of the match in play (:data:`MATCH_ID`) on a record that has none."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "match_id", None) is None:
            match_id = MATCH_ID.get()
            if match_id is not None:
                record.match_id = match_id
        return True


class TextFormatter(logging.Formatter):
    """``time LEVEL logger [match N] message``."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        match_id = getattr(record, "match_id", None)
        record.match = "" if match_id is None else f" [match {match_id}]"
        return super().format(record)


class _JsonLines(JsonFormatter):
    """python-json-logger's formatter, the record's time first."""

    def add_fields(
        self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]
    ) -> None:
        log_data["time"] = _when(record)
        super().add_fields(log_data, record, message_dict)


def json_formatter() -> logging.Formatter:
    """One JSON object a line: ``time`` (ISO 8601, UTC, milliseconds), ``level``,
    ``logger``, ``message``, ``match_id`` and ``seat`` when the record has them,
    ``exc_info`` (the traceback) when it carries one, and any other ``extra`` the record
    was given."""
    return _JsonLines(
        "%(levelname)s %(name)s %(message)s",
        rename_fields={"levelname": "level", "name": "logger"},
    )


def _when(record: logging.LogRecord) -> str:
    return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")


@dataclass
class Said:
    """What was logged about one play of a match (WARNING and up), as the store keeps
    it: ``time``, ``level``, ``logger``, ``message`` and ``seat`` (None: not about one
    seat) of each record, the newest :data:`KEPT_LINES`."""

    match_id: int
    lines: collections.deque[dict[str, Any]] = field(
        default_factory=lambda: collections.deque(maxlen=KEPT_LINES)
    )


class _Keeper(logging.Handler):
    """Gathers the records about the matches in play in this process (:func:`about_match`)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.addFilter(MatchIdFilter())
        self.open: dict[int, Said] = {}
        self.guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        match_id = getattr(record, "match_id", None)
        said = None if match_id is None else self.open.get(match_id)
        if said is None:
            return
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            message += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip()
        if len(message) > MESSAGE_CHARS:
            message = message[: MESSAGE_CHARS - 1] + "…"
        seat = getattr(record, "seat", None)
        line = {
            "time": _when(record),
            "level": record.levelname,
            "logger": record.name,
            "message": message.replace("\0", "\ufffd"),  # text cannot hold NUL
            "seat": seat if isinstance(seat, int) else None,
        }
        with self.guard:
            said.lines.append(line)


_KEEPER = _Keeper()


@contextlib.contextmanager
def about_match(match_id: int) -> Iterator[Said]:
    """While the block runs, records made in this context carry ``match_id``, and those of
    WARNING and up are gathered in the :class:`Said` it gives (when :func:`configure_logging`
    set up this process's logging)."""
    said = Said(match_id)
    token = MATCH_ID.set(match_id)
    with _KEEPER.guard:
        _KEEPER.open[match_id] = said
    try:
        yield said
    finally:
        with _KEEPER.guard:
            if _KEEPER.open.get(match_id) is said:
                del _KEEPER.open[match_id]
        MATCH_ID.reset(token)


def configure_logging(level: str | int = logging.WARNING) -> str:
    """Log records of ``level`` and up to standard error, as ``ARENA_LOG_FORMAT`` says
    (``text`` or ``json``), with the match id of the match in play; gather what is said
    about each match in play (:func:`about_match`); log Python's warnings, and in JSON an
    uncaught exception too, so that every line is an object. Replaces the root logger's
    handlers. Returns the format."""
    form = settings.load().log_format
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(MatchIdFilter())
    handler.setFormatter(json_formatter() if form == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.addHandler(_KEEPER)
    root.setLevel(level.upper() if isinstance(level, str) else level)
    logging.captureWarnings(True)
    if form == "json":
        sys.excepthook = _log_uncaught
        threading.excepthook = _log_uncaught_in_thread
    return form


def keep_celery_out() -> None:
    """Tell Celery that logging is configured (:func:`configure_logging`): it then leaves
    the root logger's handlers and standard output alone."""
    from celery.signals import setup_logging

    setup_logging.connect(_configured, weak=False)


def _configured(**_: Any) -> None:
    """Celery's ``setup_logging`` receiver: logging is set up already."""


def _log_uncaught(
    kind: type[BaseException], value: BaseException, tb: TracebackType | None
) -> None:
    logging.getLogger("arena").critical("uncaught exception", exc_info=(kind, value, tb))


def _log_uncaught_in_thread(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit or args.exc_value is None:
        return
    logging.getLogger("arena").error(
        "uncaught exception in thread %s",
        getattr(args.thread, "name", "?"),
        exc_info=(args.exc_type, args.exc_value, args.exc_traceback),
    )
