"""The errors every ``arena`` command may raise, and the exit codes they end with
(docs/cli.md, "Exit codes"): a module of their own, which the commands import and
:mod:`arena.cli` prints."""

from __future__ import annotations

#: Exit codes (docs/cli.md): done; the thing checked failed; usage or bad input; a server
#: (Postgres, Redis, a referee) could not be reached.
OK, CHECK_FAILED, USAGE, UNREACHABLE = 0, 1, 2, 3


class CommandError(Exception):
    """A command failed for a reason the user can act on; printed as one line, without a
    traceback, and the command exits with :attr:`exit_code`."""

    exit_code = USAGE


class Failed(CommandError):
    """What the command ran did not all succeed (matches of a tournament failed, a worker
    had to stop): exit 1."""

    exit_code = CHECK_FAILED


class ServerUnavailable(CommandError):
    """A server the command needs (Postgres, Redis, a referee) does not answer."""

    exit_code = UNREACHABLE
