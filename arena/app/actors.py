"""Who asks, and what they may do (``docs/architecture.md``, decision 14; ``docs/api.md``).

An :class:`Actor` is anyone without a key, an owner (a user), an operator, or the platform
itself. :func:`authenticate` turns an API key into one; :func:`local_actor` says who a
command run on this machine acts as. The rule of who may do what is one table,
:data:`RULES` (one :class:`Rule` per :class:`Action`), which :func:`require` applies and
:func:`markdown_table` prints for ``docs/api.md``.
"""

from __future__ import annotations

import enum
import getpass
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.app.errors import AppError, Forbidden, Unauthorized
from referee import settings
from worker.store import PLATFORM_USER, KeyProblem, KeyRefused, Store, User
from worker.store.users import user_name_problem

#: The embedded platform's operator key, under ``ARENA_HOME`` (readable by its owner only).
KEY_FILE = "operator.key"
#: Who acts when the user name of this machine's account is no user name.
FALLBACK_OPERATOR = "operator"


class ActorKind(enum.Enum):
    """The kinds of who may ask."""

    ANONYMOUS = "anonymous"  # no key: reads only
    OWNER = "owner"  # a user: their own bots and keys
    OPERATOR = "operator"  # a user with the operator flag: everything
    PLATFORM = "platform"  # the platform itself (its tasks, its house bots): everything


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks: a kind and, but for anyone without a key, a user's name (the platform's
    is :data:`~worker.store.PLATFORM_USER`)."""

    kind: ActorKind
    name: str | None = None

    def __post_init__(self) -> None:
        if (self.kind is ActorKind.ANONYMOUS) != (self.name is None):
            raise ValueError(f"an actor of kind {self.kind.value} has a name: {self.name!r}")

    @classmethod
    def of(cls, user: User) -> Actor:
        """The actor a user's key makes: an operator or an owner."""
        return cls(ActorKind.OPERATOR if user.operator else ActorKind.OWNER, user.name)

    @property
    def is_operator(self) -> bool:
        """Whether this actor may do everything (an operator or the platform)."""
        return self.kind in (ActorKind.OPERATOR, ActorKind.PLATFORM)

    def owns(self, whose: str | None) -> bool:
        """Whether a thing of ``whose`` (a bot's owner, a key's user) is this actor's."""
        return self.name is not None and whose == self.name

    def __str__(self) -> str:
        if self.kind is ActorKind.ANONYMOUS:
            return "anyone without a key"
        if self.kind is ActorKind.PLATFORM:
            return "the platform"
        return f"{'operator' if self.kind is ActorKind.OPERATOR else 'user'} {self.name}"


ANONYMOUS = Actor(ActorKind.ANONYMOUS)
PLATFORM = Actor(ActorKind.PLATFORM, PLATFORM_USER)


# -- the rule ------------------------------------------------------------------------------


class Action(enum.Enum):
    """What an actor may ask for, as the rule's table lists it."""

    READ = "read"
    SUBMIT = "submit"
    RETIRE = "retire"
    ENTER = "enter"
    SEED = "seed"
    LADDER = "ladder"
    LOGS = "logs"
    ANALYSE = "analyse"
    CANCEL = "cancel"
    OPERATE = "operate"
    STATUS = "status"
    USERS = "users"
    KEYS = "keys"


#: A rule's check: may ``actor`` do it to a thing of ``whose`` (its owner's name; the
#: owner to be, for a bot not yet registered; None where nobody's is concerned)?
Check = Callable[[Actor, str | None], bool]


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the rule: the check, its cells in the docs' table (anyone without a key,
    an owner, an operator) and what a refusal tells the actor to do."""

    what: str
    anyone: str
    owner: str
    operator: str
    check: Check
    refusal: str


def _anyone(actor: Actor, whose: str | None) -> bool:
    return True


def _operators(actor: Actor, whose: str | None) -> bool:
    return actor.is_operator


def _their_own(actor: Actor, whose: str | None) -> bool:
    return actor.is_operator or (actor.kind is ActorKind.OWNER and actor.owns(whose))


def _their_own_and_house(actor: Actor, whose: str | None) -> bool:
    return _their_own(actor, whose) or (actor.kind is ActorKind.OWNER and whose == PLATFORM_USER)


#: Who may do what: the one table every front end's operations check.
RULES: dict[Action, Rule] = {
    Action.READ: Rule(
        "read leaderboards, tournaments and standings, bots' public pages, finished and "
        "released matches and their replays",
        "yes",
        "yes",
        "yes",
        _anyone,
        "",
    ),
    Action.SUBMIT: Rule(
        "submit a new version of a bot (a new name becomes its submitter's)",
        "no",
        "of their own bots",
        "of any bot, and for another user (`--owner`)",
        _their_own,
        "a bot takes new versions from its owner or an operator; submit yours under another name",
    ),
    Action.RETIRE: Rule(
        "retire a bot: it gets no new matches",
        "no",
        "their own",
        "any",
        _their_own,
        "a bot is retired by its owner or an operator",
    ),
    Action.ENTER: Rule(
        "enter bots in a tournament, gauntlet or duel",
        "no",
        "their own and the house bots",
        "any",
        _their_own_and_house,
        f"tournaments, gauntlets and duels take your own bots and the house bots (those "
        f"of the platform's user {PLATFORM_USER!r}); an operator may enter any",
    ),
    Action.SEED: Rule(
        "choose the seed of a tournament or duel (every deal comes from it); it is kept "
        "secret from everyone until the tournament ends",
        "no",
        "no",
        "yes",
        _operators,
        "whoever chooses the seed knows the deals before they are dealt: leave it out (the "
        "platform draws one, shown once the tournament ends) or ask an operator",
    ),
    Action.LADDER: Rule(
        "make a bot join a ladder or withdraw from it",
        "no",
        "their own",
        "any",
        _their_own,
        "a bot joins or leaves a ladder by its owner or an operator",
    ),
    Action.LOGS: Rule(
        "read what a bot wrote during a match or its qualification (its standard output and "
        "error): its private details",
        "no",
        "of their own bots",
        "any",
        _their_own,
        "a bot's log is its owner's and the operators' (others see that a seat failed, and "
        "why, in the match or the qualification's report)",
    ),
    Action.ANALYSE: Rule(
        "have the reference bot analyse every decision of a seat of a finished match (it "
        "takes seconds a decision; anyone may read an analysis once made)",
        "no",
        "of their own bots",
        "any",
        _their_own,
        "a seat's analysis is made for the owner of its bot or an operator; once made, "
        "anyone may read it",
    ),
    Action.CANCEL: Rule(
        "cancel a match, tournament, duel or ladder",
        "no",
        "no",
        "any",
        _operators,
        "cancelling is for an operator",
    ),
    Action.OPERATE: Rule(
        "run the platform's work: start and stop ladders, run tournaments and put their "
        "failed matches back, recompute the ratings",
        "no",
        "no",
        "yes",
        _operators,
        "running the platform's work is for an operator (a tournament you create is played "
        "by the platform's workers)",
    ),
    Action.STATUS: Rule(
        "see what runs: the workers and their hosts, referees and sandboxes, the queues, "
        "the failures (`arena status`)",
        "no",
        "no",
        "yes",
        _operators,
        "the platform's status is for its operators (a match's page shows how it went)",
    ),
    Action.USERS: Rule(
        "make users (operators too) and list them",
        "no",
        "no",
        "yes",
        _operators,
        "users are made and listed by an operator: ask one",
    ),
    Action.KEYS: Rule(
        "make, list and revoke API keys",
        "no",
        "their own",
        "anyone's",
        _their_own,
        "your own keys are yours to make, list and revoke; another user's are for an operator",
    ),
}


def allowed(actor: Actor, action: Action, whose: str | None = None) -> bool:
    """Whether ``actor`` may do ``action`` to a thing of ``whose``."""
    return RULES[action].check(actor, whose)


def require(actor: Actor, action: Action, *, whose: str | None = None, what: str) -> None:
    """:class:`Forbidden` unless ``actor`` may do ``action`` to a thing of ``whose``
    (:class:`Unauthorized` for anyone without a key);
    ``what`` says it for the refusal ("submit a version of bot 'x', which belongs to
    ann")."""
    if allowed(actor, action, whose):
        return
    if actor.kind is ActorKind.ANONYMOUS:  # who asks is unknown: a key would say
        raise Unauthorized(
            f"{what} needs an API key: without one you may only read (the API takes it "
            f"as `Authorization: Bearer KEY`, the command line from {settings.API_KEY})"
        )
    raise Forbidden(f"{actor} may not {what}: {RULES[action].refusal}")


def markdown_table() -> str:
    """:data:`RULES` as the table of ``docs/api.md``, "Who may do what"."""
    rows = [
        "| what | anyone, without a key | an owner | an operator |",
        "| --- | --- | --- | --- |",
    ]
    rows += [f"| {r.what} | {r.anyone} | {r.owner} | {r.operator} |" for r in RULES.values()]
    return "\n".join(rows) + "\n"


# -- keys ----------------------------------------------------------------------------------


def authenticate(store: Store, key: str, *, source: str = "the API key") -> Actor:
    """The actor whose API key ``key`` is (its last use recorded); :class:`Unauthorized`,
    naming ``source`` and what to do, when it is malformed, unknown, wrong or revoked."""
    try:
        return Actor.of(store.check_key(key))
    except KeyRefused as refused:
        raise Unauthorized(_refusal(refused, source)) from None


#: How long a web session lasts (hours).
WEB_SESSION_HOURS = 12.0


def sign_in(store: Store, key: str) -> tuple[Actor, str]:
    """Open a web session with the API key ``key``: its actor and the session's token;
    :class:`Unauthorized` as :func:`authenticate` says it."""
    try:
        user, token = store.open_web_session(key, WEB_SESSION_HOURS)
    except KeyRefused as refused:
        raise Unauthorized(_refusal(refused, "the key")) from None
    return Actor.of(user), token


def session_actor(store: Store, token: str | None) -> Actor:
    """Who a web session's token signs in: anyone without a key when there is none, or
    it has expired or its key was revoked."""
    user = None if not token else store.web_session_user(token)
    return ANONYMOUS if user is None else Actor.of(user)


def sign_out(store: Store, token: str) -> None:
    """End the web session of ``token`` (anyone holding it may)."""
    store.close_web_session(token)


def _refusal(refused: KeyRefused, source: str) -> str:
    if refused.problem is KeyProblem.MALFORMED:
        return (
            f"{source} is not an API key: a key reads PREFIX.SECRET (12 hex digits, a dot, "
            "43 letters, digits, '-' or '_'), as `arena user create` or `arena user key "
            "new` printed it"
        )
    if refused.problem is KeyProblem.REVOKED and refused.key is not None:
        key = refused.key
        when = "" if key.revoked_at is None else f" on {key.revoked_at:%Y-%m-%d %H:%M}"
        return (
            f"{source} (key {key.prefix} of {key.user}) was revoked{when}: ask an operator "
            "for a new one, or make one with a key of yours that works (arena user key new)"
        )
    return (
        f"{source} is no key of this platform (unknown, or its secret is wrong): check it, "
        "or ask an operator for a new one (arena user key new --user NAME)"
    )


# -- who a command run here acts as ----------------------------------------------------------


def local_actor(store: Store) -> Actor:
    """Who a command run on this machine acts as, on ``store``: the user whose key
    ``ARENA_API_KEY`` is; without a key, the operator, since holding the database's
    credentials (``ARENA_DATABASE_URL``) is holding everything, named after this
    machine's account. On the embedded platform (no ``ARENA_DATABASE_URL``) that account
    is made an operator on first need, its key kept in ``ARENA_HOME/operator.key``
    (readable by its owner only), so the demo and the README's commands need no set-up."""
    found = settings.load()
    if found.api_key is not None:
        return authenticate(store, found.api_key, source=settings.API_KEY)
    if found.database_url is not None:
        return Actor(ActorKind.OPERATOR, local_user_name())
    return _embedded_operator(store, found.home / KEY_FILE)


def local_user_name() -> str:
    """This machine's account name as a user name (characters a name may not hold become
    ``_``), or :data:`FALLBACK_OPERATOR`."""
    try:
        name = getpass.getuser()
    except (KeyError, OSError):  # no account name (a container with an unnamed uid)
        return FALLBACK_OPERATOR
    name = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:40].lstrip("._-")
    return FALLBACK_OPERATOR if user_name_problem(name) else name


def _embedded_operator(store: Store, path: Path) -> Actor:
    """The operator of the embedded platform: the key kept at ``path`` when it still works
    and is an operator's, else a new key of the local user, made an operator."""
    try:
        kept = path.read_text().strip()
    except FileNotFoundError:
        kept = ""
    except OSError as exc:
        raise _home_error(path, exc) from None
    if kept:
        try:
            actor = authenticate(store, kept, source=str(path))
        except Unauthorized:
            pass  # a database made anew, or the key revoked: make another
        else:
            if actor.is_operator:
                return actor
    user = store.ensure_operator(local_user_name())
    _keep(path, store.create_key(user.name).text)
    return Actor.of(user)


def _keep(path: Path, key: str) -> None:
    """Write ``key`` to ``path``, readable and writable by this account only, in one step
    (a reader finds the old key or the new, whole)."""
    part = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            os.fchmod(f.fileno(), 0o600)
            f.write(key + "\n")
        os.replace(part, path)
    except OSError as exc:
        raise _home_error(path, exc) from None


def _home_error(path: Path, exc: OSError) -> AppError:
    return AppError(
        f"cannot keep the embedded platform's operator key in {path} ({exc.strerror}): "
        f"point {settings.HOME} at a folder this user can write, or set {settings.API_KEY}"
    )
