"""What the application layer refuses, as exceptions each front end renders its own way:
the command line as one line and exit 2, the API as 401, 403, 404, 400 or 429."""

from __future__ import annotations


class AppError(Exception):
    """A request refused for a reason the asker can act on; the message says what to do."""


class Unauthorized(AppError):
    """The key given names nobody: malformed, unknown, wrong or revoked."""


class Forbidden(AppError):
    """The actor may not do this (``docs/api.md``, "Who may do what")."""


class NotFound(AppError):
    """The user, key or bot asked for does not exist."""


class Invalid(AppError):
    """The request cannot be done as asked (a name taken, a version for another game)."""


class RateLimited(AppError):
    """The actor has made as many writes of a kind this hour as the platform allows; they
    may try again in ``retry_after_s`` seconds."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class Held(AppError):
    """A match of a duplicate deal whose other matches are still being played: its record
    and results are held back until they finish (docs/architecture.md, decision 13)."""
