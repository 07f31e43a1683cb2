"""The platform's settings: every ``ARENA_*`` environment variable the code reads, with
its default, read by :func:`load` when called (so a test or a command that sets one
before the call is heard), and checked there once.

It sits in the lowest package, which every other imports, and imports only the
standard library and ``platformdirs``: the referee, the bot SDK, the worker and the
command line read their settings here.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import platformdirs

HOME = "ARENA_HOME"
DATABASE_URL = "ARENA_DATABASE_URL"
TEST_DATABASE_URL = "ARENA_TEST_DATABASE_URL"
REDIS_URL = "ARENA_REDIS_URL"
REDIS_PREFIX = "ARENA_REDIS_PREFIX"
REFEREE_SECRET = "ARENA_REFEREE_SECRET"
LEASE_S = "ARENA_LEASE_S"
SWEEP_S = "ARENA_SWEEP_S"
LADDER_TICK_S = "ARENA_LADDER_TICK_S"
DRAIN_S = "ARENA_DRAIN_S"
STALL_S = "ARENA_STALL_S"
RETRY_S = "ARENA_RETRY_S"
ELO_K = "ARENA_ELO_K"
REFEREE = "ARENA_REFEREE"
TOKEN = "ARENA_TOKEN"
SESSION_KEY = "ARENA_SESSION_KEY"
BOT_SEED = "ARENA_BOT_SEED"
API_KEY = "ARENA_API_KEY"
PLATFORM = "ARENA_PLATFORM"
SUBMISSIONS_PER_HOUR = "ARENA_SUBMISSIONS_PER_HOUR"
TOURNAMENTS_PER_HOUR = "ARENA_TOURNAMENTS_PER_HOUR"
MAX_DECISION_MS = "ARENA_MAX_DECISION_MS"
MAX_BANK_MS = "ARENA_MAX_BANK_MS"
MAX_JOIN_MS = "ARENA_MAX_JOIN_MS"
MAX_STRIKES = "ARENA_MAX_STRIKES"
MAX_MATCH_S = "ARENA_MAX_MATCH_S"
SANDBOX = "ARENA_SANDBOX"
TLS = "ARENA_TLS"
TLS_CA = "ARENA_TLS_CA"
TLS_CERT = "ARENA_TLS_CERT"
TLS_KEY = "ARENA_TLS_KEY"
LOG_FORMAT = "ARENA_LOG_FORMAT"

#: The name of the data folder under the user's data directory.
APP_NAME = "rummy-arena"
#: The defaults of the numeric settings (seconds, and the Elo K factor).
DEFAULT_LEASE_S = 30.0
DEFAULT_SWEEP_S = 10.0
DEFAULT_LADDER_TICK_S = 5.0
DEFAULT_DRAIN_S = 60.0
DEFAULT_STALL_S = 30.0
DEFAULT_RETRY_S = 2.0
DEFAULT_ELO_K = 24.0
#: The writes a user (not an operator) may make per hour (docs/api.md, "Rate limits").
DEFAULT_SUBMISSIONS_PER_HOUR = 60
DEFAULT_TOURNAMENTS_PER_HOUR = 30
#: The longest clock a user (not an operator) may give a tournament, gauntlet or duel
#: (docs/tournaments.md, "How long a match may take"): a few times the clock's defaults
#: (``referee.clock.ClockRules``: 1 s a decision, a 10 s bank, 3 strikes, 30 s to join).
DEFAULT_MAX_DECISION_MS = 10_000
DEFAULT_MAX_BANK_MS = 60_000
DEFAULT_MAX_JOIN_MS = 120_000
DEFAULT_MAX_STRIKES = 10
#: The longest any match is played, whatever its clock and game allow (seconds).
DEFAULT_MAX_MATCH_S = 1800.0
#: The referee that `arena match` and `arena bot run` call when none is given (where
#: `arena referee` listens by default).
DEFAULT_REFEREE = "127.0.0.1:50051"


class SettingsError(ValueError):
    """An ``ARENA_*`` variable holds a value the platform cannot use."""


@dataclass(frozen=True, slots=True)
class Variable:
    """One environment variable as the docs list it: its name, default and meaning."""

    name: str
    default: str
    meaning: str


#: Every variable :func:`load` reads, in the order ``docs/operations.md`` lists them.
VARIABLES: tuple[Variable, ...] = (
    Variable(
        DATABASE_URL,
        "embedded Postgres under `ARENA_HOME`",
        "the Postgres server (`postgresql://user:pw@host/db`)",
    ),
    Variable(
        REDIS_URL,
        "private Redis on a Unix socket under `ARENA_HOME/redis/`",
        "the broker (`redis://host:6379/0`)",
    ),
    Variable(
        REDIS_PREFIX,
        "empty",
        "prefix of every Redis key and channel: several platforms (or test runs) on one server",
    ),
    Variable(
        HOME,
        "the user data folder (`~/.local/share/rummy-arena` on Linux)",
        "data folder: embedded servers, the referee's secret, logs of local workers "
        "(`logs/`), the beat schedule",
    ),
    Variable(
        REFEREE_SECRET,
        "the file `referee.secret` under `ARENA_HOME` (made on first need)",
        "the platform's credential for the referee's match service (`protocol.md`)",
    ),
    Variable(
        LEASE_S,
        f"{DEFAULT_LEASE_S:g}",
        "how long a worker's claim on a match holds without renewal (renewed every third of it)",
    ),
    Variable(
        SWEEP_S,
        f"{DEFAULT_SWEEP_S:g}",
        "how often `arena scheduler` re-queues expired leases and sends work for stranded matches",
    ),
    Variable(
        DRAIN_S,
        f"{DEFAULT_DRAIN_S:g}",
        "how long one drain task plays a tournament's matches before handing over to a fresh task",
    ),
    Variable(
        STALL_S,
        f"{DEFAULT_STALL_S:g}",
        "a queued match that no task has touched for this long is stranded (its task was "
        "lost with the broker): the sweep sends work for it again",
    ),
    Variable(
        RETRY_S,
        f"{DEFAULT_RETRY_S:g}",
        "the wait before a match that could not be played is tried again; doubled at "
        "each attempt, at most a minute",
    ),
    Variable(
        LADDER_TICK_S,
        f"{DEFAULT_LADDER_TICK_S:g}",
        "how often `arena scheduler` ticks the ladders",
    ),
    Variable(ELO_K, f"{DEFAULT_ELO_K:g}", "Elo K (`storage.md`)"),
    Variable(
        REFEREE,
        f"`{DEFAULT_REFEREE}`",
        "a bot's referee, `HOST:PORT` (`bots.md`)",
    ),
    Variable(TOKEN, "none", "a bot's seat token, for one match"),
    Variable(SESSION_KEY, "none", "a bot's session key: it plays every match it is seated in"),
    Variable(
        TLS,
        "0",
        "`1`: a bot dials its referee over TLS, trusting the system's certificate "
        'authorities (`bots.md`, "Connecting over TLS")',
    ),
    Variable(
        TLS_CA,
        "none",
        "a PEM file of the certificate authority a bot trusts for its referee (a "
        "self-signed platform); implies `ARENA_TLS=1`",
    ),
    Variable(
        TLS_CERT,
        "none: plain TCP",
        "the PEM certificate (chain) `arena referee` serves TLS with on its TCP port, "
        "with `ARENA_TLS_KEY`",
    ),
    Variable(TLS_KEY, "none", "the PEM private key of `ARENA_TLS_CERT`"),
    Variable(BOT_SEED, "none (unseeded)", "the seed of `bots/examples/random_bot.py`"),
    Variable(
        API_KEY,
        "none: holding the database's credentials, `arena` acts as the operator",
        "the API key of the user `arena` acts as (`api.md`)",
    ),
    Variable(
        PLATFORM,
        "none: `arena` works on this machine's store",
        "a platform's web address (`https://arena.example.org`): the user commands go "
        'through its API with `ARENA_API_KEY` (`api.md`, "Remote use")',
    ),
    Variable(
        SUBMISSIONS_PER_HOUR,
        f"{DEFAULT_SUBMISSIONS_PER_HOUR}",
        "bot versions a user (not an operator) may submit per hour",
    ),
    Variable(
        TOURNAMENTS_PER_HOUR,
        f"{DEFAULT_TOURNAMENTS_PER_HOUR}",
        "tournaments, gauntlets and duels a user (not an operator) may create per hour",
    ),
    Variable(
        MAX_DECISION_MS,
        f"{DEFAULT_MAX_DECISION_MS}",
        "the longest `decision_ms` a user (not an operator) may give a clock "
        '(`tournaments.md`, "How long a match may take")',
    ),
    Variable(
        MAX_BANK_MS,
        f"{DEFAULT_MAX_BANK_MS}",
        "the longest `bank_ms` a user (not an operator) may give a clock",
    ),
    Variable(
        MAX_JOIN_MS,
        f"{DEFAULT_MAX_JOIN_MS}",
        "the longest `join_ms` a user (not an operator) may give a clock",
    ),
    Variable(
        MAX_STRIKES,
        f"{DEFAULT_MAX_STRIKES}",
        "the highest `strike_limit` a user (not an operator) may give a clock",
    ),
    Variable(
        MAX_MATCH_S,
        f"{DEFAULT_MAX_MATCH_S:g}",
        "the longest any match is played, in seconds: a match's wall-clock cap is the "
        "longest play its clock and game allow, at most this; give workers and their "
        'referees the same value (`tournaments.md`, "How long a match may take")',
    ),
    Variable(
        SANDBOX,
        "on",
        "`on`: a worker runs hosted bots confined (docs/sandbox.md), and refuses to start "
        "where it cannot; `off`: unconfined, with the worker's rights (a machine that "
        "runs nobody else's code)",
    ),
    Variable(
        LOG_FORMAT,
        "text",
        "how the platform's processes log to standard error: `text`, or `json` (one JSON "
        'object a line, with the match id of the match in play; operations.md, "Logs")',
    ),
    Variable(
        TEST_DATABASE_URL,
        "the server on 127.0.0.1:5432 when it answers, else an embedded one",
        "tests only: a server where the tests may create and drop databases",
    ),
)


def markdown_table() -> str:
    """:data:`VARIABLES` as the Markdown table of ``docs/operations.md``."""
    rows = ["| variable | default | meaning |", "| --- | --- | --- |"]
    rows += [f"| `{v.name}` | {v.default} | {v.meaning} |" for v in VARIABLES]
    return "\n".join(rows) + "\n"


@dataclass(frozen=True, slots=True)
class Settings:
    """The values of :data:`VARIABLES`, made by :func:`load`; ``None`` where a variable is
    unset and the caller decides (as its meaning says)."""

    home: Path
    database_url: str | None
    test_database_url: str | None
    redis_url: str | None
    redis_prefix: str
    referee_secret: str | None
    lease_s: float
    sweep_s: float
    ladder_tick_s: float
    drain_s: float
    stall_s: float
    retry_s: float
    elo_k: float
    referee: str | None
    token: str | None
    session_key: str | None
    tls: bool
    tls_ca: str | None
    tls_cert: str | None
    tls_key: str | None
    bot_seed: int | None
    api_key: str | None
    platform: str | None
    submissions_per_hour: int
    tournaments_per_hour: int
    max_decision_ms: int
    max_bank_ms: int
    max_join_ms: int
    max_strikes: int
    max_match_s: float
    sandbox: Literal["on", "off"]
    log_format: Literal["text", "json"]


@functools.cache
def default_home() -> Path:
    """The data folder when ``ARENA_HOME`` is unset: the user's data directory (found
    once: :func:`load` runs several times per match in a worker, and asking platformdirs
    each time was a twentieth of the worker's own time)."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def arena_home() -> Path:
    """The data folder: ``ARENA_HOME``, default the user's data folder
    (``~/.local/share/rummy-arena`` on Linux)."""
    return load().home


def load(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings from ``environ`` (default: the process's environment, now); raises
    :class:`SettingsError` naming the first variable whose value is not usable. An empty
    variable counts as unset."""
    env = os.environ if environ is None else environ

    def text(name: str) -> str | None:
        return env.get(name) or None

    secret = (env.get(REFEREE_SECRET) or "").strip()
    return Settings(
        home=Path(text(HOME) or default_home()).expanduser(),
        database_url=text(DATABASE_URL),
        test_database_url=text(TEST_DATABASE_URL),
        redis_url=text(REDIS_URL),
        redis_prefix=env.get(REDIS_PREFIX, ""),
        referee_secret=secret or None,
        lease_s=_positive(env, LEASE_S, DEFAULT_LEASE_S),
        sweep_s=_positive(env, SWEEP_S, DEFAULT_SWEEP_S),
        ladder_tick_s=_positive(env, LADDER_TICK_S, DEFAULT_LADDER_TICK_S),
        drain_s=_positive(env, DRAIN_S, DEFAULT_DRAIN_S),
        stall_s=_positive(env, STALL_S, DEFAULT_STALL_S),
        retry_s=_positive(env, RETRY_S, DEFAULT_RETRY_S),
        elo_k=_positive(env, ELO_K, DEFAULT_ELO_K),
        referee=text(REFEREE),
        token=text(TOKEN),
        session_key=text(SESSION_KEY),
        tls=_flag(env, TLS) or bool(text(TLS_CA)),
        tls_ca=text(TLS_CA),
        tls_cert=text(TLS_CERT),
        tls_key=text(TLS_KEY),
        bot_seed=_integer(env, BOT_SEED),
        api_key=text(API_KEY),
        platform=text(PLATFORM),
        submissions_per_hour=_count(env, SUBMISSIONS_PER_HOUR, DEFAULT_SUBMISSIONS_PER_HOUR),
        tournaments_per_hour=_count(env, TOURNAMENTS_PER_HOUR, DEFAULT_TOURNAMENTS_PER_HOUR),
        max_decision_ms=_count(env, MAX_DECISION_MS, DEFAULT_MAX_DECISION_MS),
        max_bank_ms=_count(env, MAX_BANK_MS, DEFAULT_MAX_BANK_MS),
        max_join_ms=_count(env, MAX_JOIN_MS, DEFAULT_MAX_JOIN_MS),
        max_strikes=_count(env, MAX_STRIKES, DEFAULT_MAX_STRIKES),
        max_match_s=_positive(env, MAX_MATCH_S, DEFAULT_MAX_MATCH_S),
        sandbox=_switch(env, SANDBOX),
        log_format=_log_format(env),
    )


def sandbox_mode(environ: Mapping[str, str] | None = None) -> Literal["on", "off"]:
    """``ARENA_SANDBOX`` alone (default: the process's environment): whether this
    platform's workers confine hosted bots, which every bot's page says when they do
    not."""
    return _switch(os.environ if environ is None else environ, SANDBOX)


def _switch(env: Mapping[str, str], name: str) -> Literal["on", "off"]:
    raw = (env.get(name) or "on").strip().lower()
    if raw not in ("on", "off"):
        raise SettingsError(f"{name} must be on or off, not {env.get(name)!r}")
    return "on" if raw == "on" else "off"


def _log_format(env: Mapping[str, str]) -> Literal["text", "json"]:
    raw = (env.get(LOG_FORMAT) or "text").strip().lower()
    if raw not in ("text", "json"):
        raise SettingsError(f"{LOG_FORMAT} must be text or json, not {env.get(LOG_FORMAT)!r}")
    return "json" if raw == "json" else "text"


def _flag(env: Mapping[str, str], name: str) -> bool:
    raw = (env.get(name) or "0").strip()
    if raw not in ("0", "1"):
        raise SettingsError(f"{name} must be 1 or 0, not {env.get(name)!r}")
    return raw == "1"


def _positive(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise SettingsError(f"{name}={raw!r}: it takes a positive number (default {default:g})")
    return value


def _integer(env: Mapping[str, str], name: str) -> int | None:
    raw = env.get(name)
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r}: it takes a whole number") from None


def _count(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise SettingsError(
            f"{name}={raw!r}: it takes a whole number, 0 or more (default {default})"
        )
    return value
