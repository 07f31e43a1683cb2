"""Users and their API keys (docs/architecture.md, decision 14).

A key is ``PREFIX.SECRET``: twelve hex digits that listings show and lookups use, then
32 random bytes (URL-safe base64). The store keeps the secret only as its SHA-256, so the
key is shown once, when it is made. A slow, salted hash is for a password a person
chose, which can be guessed; 256 random bits cannot be, so one fast hash keeps a stolen
table from being read back as keys as well, and a check costs a microsecond rather than
0.1 s of a thread (which let a flood of made-up keys hold up everyone else's). A key is
checked in the order that costs a caller with no key least: its form (a malformed key is
refused at once), its prefix looked up (an unknown one is refused without hashing
anything), then its secret hashed once and compared with the stored hash in constant
time (:func:`hmac.compare_digest`). The prefix is no secret: it only names the key.

A key made before migration 0019 was kept as a salted scrypt hash. Its next successful
check, the one that hashes it with scrypt, stores its SHA-256 too; from then on it is
checked as any other. (The scrypt hash stays for the release before, during a rolling
upgrade.) Who may make or revoke which key is the application layer's rule
(``arena/app``).
"""

from __future__ import annotations

import base64
import enum
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime

import psycopg

from worker.store.base import StoreBase, StoreError, writes_since
from worker.store.bots import NAME_MAX, is_bot_name

#: The platform's own user: it owns the house bots (those ``arena demo`` registers),
#: which anyone may play against. Made by migration 0006; it holds no key.
PLATFORM_USER = "arena"
#: What a user name may hold: the bot name rule (names appear in the same listings).
USER_NAME_RULE = (
    f"a user name is 1 to {NAME_MAX} ASCII letters, digits, '-', '_' or '.', "
    "starting with a letter or digit"
)
PREFIX_BYTES = 6
SECRET_BYTES = 32
#: The cost of the scrypt hashes that keys made before migration 0019 were kept as:
#: 2**14 blocks of 128·r bytes (16 MiB), about 0.1 s a check here. The parameters are
#: stored with each hash.
SCRYPT_LOG_N, SCRYPT_R, SCRYPT_P = 14, 8, 1
SALT_BYTES = 16
HASH_BYTES = 32
_KEY = re.compile(r"([0-9a-f]{12})\.([A-Za-z0-9_-]{43})")
_HASH = re.compile(r"\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+=*)\$([A-Za-z0-9+/]+=*)")


class KeyProblem(enum.Enum):
    """Why a key was refused."""

    MALFORMED = "malformed"  # not PREFIX.SECRET at all
    UNKNOWN = "unknown"  # no key of that prefix, or the secret does not match it
    REVOKED = "revoked"  # the right secret of a revoked key


class KeyRefused(StoreError):
    """A key that names no user: :attr:`problem` says why, :attr:`key` is the refused key
    (for :attr:`KeyProblem.REVOKED` only: it is told only to whoever holds its secret)."""

    def __init__(self, problem: KeyProblem, key: ApiKey | None = None) -> None:
        super().__init__(f"API key refused: {problem.value}")
        self.problem = problem
        self.key = key


@dataclass(frozen=True, slots=True)
class User:
    """A user: their name (a bot's owner is one) and whether they are an operator."""

    id: int
    name: str
    operator: bool
    created_at: datetime


@dataclass(frozen=True, slots=True)
class UserSummary:
    """A user in a listing, with their keys that still work and the bots they own."""

    user: User
    keys: int
    bots: int


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A key as listings show it: its user, public prefix and dates, never its secret."""

    id: int
    user: str
    prefix: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


@dataclass(frozen=True, slots=True)
class NewKey:
    """A key just made: :attr:`text` (``PREFIX.SECRET``) is all the platform will ever show
    of it."""

    key: ApiKey
    text: str


def user_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a new user, in one line, or None when it can."""
    if is_bot_name(name):
        return None
    return f"user name {name[:NAME_MAX]!r} is not allowed: {USER_NAME_RULE}"


def secret_digest(secret: str) -> str:
    """What is kept of a key's secret, or of a web session's token: its SHA-256, in hex
    (256 random bits need no salt)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def scrypt_hash(secret: str, *, salt: bytes | None = None, log_n: int = SCRYPT_LOG_N) -> str:
    """The form keys made before migration 0019 were kept in:
    ``$scrypt$ln=N,r=R,p=P$SALT$HASH`` (base64)."""
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    digest = _scrypt(secret, salt, log_n, SCRYPT_R, SCRYPT_P)
    b64 = base64.b64encode
    return (
        f"$scrypt$ln={log_n},r={SCRYPT_R},p={SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"
    )


def scrypt_matches(secret: str, stored: str) -> bool:
    """Whether ``secret`` hashes to the scrypt hash ``stored`` (compared in constant time)."""
    found = _HASH.fullmatch(stored)
    if found is None:
        return False
    log_n, r, p = (int(found[i]) for i in (1, 2, 3))
    salt, digest = base64.b64decode(found[4]), base64.b64decode(found[5])
    return hmac.compare_digest(_scrypt(secret, salt, log_n, r, p, len(digest)), digest)


def _scrypt(secret: str, salt: bytes, log_n: int, r: int, p: int, size: int = HASH_BYTES) -> bytes:
    n = 1 << log_n
    return hashlib.scrypt(
        secret.encode(), salt=salt, n=n, r=r, p=p, dklen=size, maxmem=2 * 128 * r * n * p
    )


_KEY_COLUMNS = "k.id, u.name, k.prefix, k.created_at, k.last_used_at, k.revoked_at"


class UserStore(StoreBase):
    """The store's users and API keys."""

    def create_user(self, name: str, *, operator: bool = False) -> User:
        """Make the user ``name``; StoreError when the name breaks the rule or is taken."""
        problem = user_name_problem(name)
        if problem is not None:
            raise StoreError(problem)
        row = self._run(
            lambda conn: conn.execute(
                "INSERT INTO users (name, operator) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING"
                " RETURNING id, name, operator, created_at",
                (name, operator),
            ).fetchone()
        )
        if row is None:
            raise StoreError(f"there is a user named {name!r} already (see arena user list)")
        return User(*row)

    def ensure_operator(self, name: str) -> User:
        """The user ``name`` as an operator: made if new, made an operator if not one
        (the embedded platform's local user: holding its data folder is holding it all)."""
        problem = user_name_problem(name)
        if problem is not None:
            raise StoreError(problem)
        row = self._run(
            lambda conn: conn.execute(
                "INSERT INTO users (name, operator) VALUES (%s, true)"
                " ON CONFLICT (name) DO UPDATE SET operator = true"
                " RETURNING id, name, operator, created_at",
                (name,),
            ).fetchone()
        )
        assert row is not None
        return User(*row)

    def writes_since(self, user: str, kind: str, since: datetime) -> list[datetime]:
        """When ``user`` made each of their writes of ``kind`` (``"submissions"``: bot
        versions submitted, ``"tournaments"``: tournaments, gauntlets and duels created)
        since ``since``, oldest first: what the API's rate limits count."""
        return self._run(lambda conn: writes_since(conn, user, kind, since))

    def user(self, name: str) -> User | None:
        """The user of that name, or None."""
        row = self._run(
            lambda conn: conn.execute(
                "SELECT id, name, operator, created_at FROM users WHERE name = %s", (name,)
            ).fetchone()
        )
        return None if row is None else User(*row)

    def users(self) -> list[UserSummary]:
        """Every user by name, with their keys not revoked and the bots they own."""
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT u.id, u.name, u.operator, u.created_at,"
                " (SELECT count(*) FROM api_keys k WHERE k.user_id = u.id"
                "  AND k.revoked_at IS NULL),"
                " (SELECT count(*) FROM bots b WHERE b.owner = u.name)"
                " FROM users u ORDER BY u.name"
            ).fetchall()
        )
        return [UserSummary(User(*row[:4]), int(row[4]), int(row[5])) for row in rows]

    def create_key(self, user_name: str) -> NewKey:
        """A new key of the user ``user_name`` (StoreError when there is no such user);
        its text is returned here once and stored only as a hash."""

        def op(conn: psycopg.Connection) -> NewKey:
            for _ in range(5):  # a prefix already taken: 2**-48 a key, tried again
                prefix = secrets.token_hex(PREFIX_BYTES)
                secret = secrets.token_urlsafe(SECRET_BYTES)
                row = conn.execute(
                    "INSERT INTO api_keys (user_id, prefix, secret_sha256)"
                    " SELECT id, %s, %s FROM users WHERE name = %s"
                    " ON CONFLICT (prefix) DO NOTHING RETURNING id",
                    (prefix, secret_digest(secret), user_name),
                ).fetchone()
                if row is not None:
                    return NewKey(_key(conn, "k.id = %s", int(row[0])), f"{prefix}.{secret}")
                if self._user_missing(conn, user_name):
                    raise StoreError(f"no user named {user_name!r} (see arena user list)")
            raise StoreError("could not draw an unused key prefix; try again")

        return self._run(op)

    def keys(self, user_name: str | None = None) -> list[ApiKey]:
        """The keys of ``user_name`` (every user's when None), oldest first."""
        rows = self._run(
            lambda conn: conn.execute(
                f"SELECT {_KEY_COLUMNS} FROM api_keys k JOIN users u ON u.id = k.user_id"
                " WHERE %(user)s::text IS NULL OR u.name = %(user)s ORDER BY k.id",
                {"user": user_name},
            ).fetchall()
        )
        return [ApiKey(*row) for row in rows]

    def key_by_prefix(self, prefix: str) -> ApiKey | None:
        """The key of that prefix, or None."""
        return self._run(lambda conn: _key_or_none(conn, "k.prefix = %s", prefix))

    def revoke_key(self, prefix: str) -> ApiKey:
        """Revoke the key of that prefix (a revoked key stays revoked, its date kept);
        StoreError when there is none."""

        def op(conn: psycopg.Connection) -> ApiKey:
            conn.execute(
                "UPDATE api_keys SET revoked_at = now() WHERE prefix = %s AND revoked_at IS NULL",
                (prefix,),
            )
            found = _key_or_none(conn, "k.prefix = %s", prefix)
            if found is None:
                raise StoreError(f"no API key with prefix {prefix!r} (see arena user key list)")
            return found

        return self._run(op)

    def check_key(self, text: str) -> User:
        """The user whose key ``text`` is, its last use set to now; :class:`KeyRefused`
        when it is malformed, unknown, wrong or revoked. Refused for its form, then for
        its prefix, before any hashing; then its secret hashed once and compared in
        constant time (a key still kept as scrypt only: checked by scrypt, and its
        SHA-256 stored)."""
        found = _KEY.fullmatch(text.strip())
        if found is None:
            raise KeyRefused(KeyProblem.MALFORMED)
        prefix, secret = found[1], found[2]
        row = self._run(
            lambda conn: conn.execute(
                "SELECT id, secret_sha256, secret_hash, revoked_at IS NOT NULL"
                " FROM api_keys WHERE prefix = %s",
                (prefix,),
            ).fetchone()
        )
        if row is None:
            raise KeyRefused(KeyProblem.UNKNOWN)
        key_id, stored, scrypt_stored, revoked = int(row[0]), row[1], row[2], bool(row[3])
        digest = secret_digest(secret)
        if stored is not None:
            if not hmac.compare_digest(digest, str(stored)):
                raise KeyRefused(KeyProblem.UNKNOWN)
        elif scrypt_stored is None or not scrypt_matches(secret, str(scrypt_stored)):
            raise KeyRefused(KeyProblem.UNKNOWN)

        def op(conn: psycopg.Connection) -> tuple[User, ApiKey]:
            if stored is None:
                # The secret matched its scrypt hash: from now on it is checked by its
                # SHA-256. A check beside this one may have stored it already.
                conn.execute(
                    "UPDATE api_keys SET secret_sha256 = %s"
                    " WHERE id = %s AND secret_sha256 IS NULL",
                    (digest, key_id),
                )
            # Revoked between the read and now: the update finds no row to touch.
            conn.execute(
                "UPDATE api_keys SET last_used_at = now() WHERE id = %s AND revoked_at IS NULL",
                (key_id,),
            )
            user = conn.execute(
                "SELECT u.id, u.name, u.operator, u.created_at"
                " FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.id = %s",
                (key_id,),
            ).fetchone()
            assert user is not None
            return User(*user), _key(conn, "k.id = %s", key_id)

        user, key = self._run(op)
        if revoked or key.revoked_at is not None:
            raise KeyRefused(KeyProblem.REVOKED, key)
        return user

    def open_web_session(self, key_text: str, hours: float) -> tuple[User, str]:
        """Check the key ``key_text`` (:meth:`check_key`) and open a web session of its
        user for ``hours``: the user and the session's token (only its hash is kept)."""
        user = self.check_key(key_text)
        prefix = key_text.strip().split(".", 1)[0]
        token = secrets.token_urlsafe(32)

        def op(conn: psycopg.Connection) -> None:
            conn.execute("DELETE FROM web_sessions WHERE expires_at < now()")
            conn.execute(
                "INSERT INTO web_sessions (token_hash, key_id, expires_at)"
                " SELECT %s, id, now() + make_interval(secs => %s) FROM api_keys"
                " WHERE prefix = %s",
                (secret_digest(token), hours * 3600, prefix),
            )

        self._run(op)
        return user, token

    def web_session_user(self, token: str) -> User | None:
        """The user of an open web session: None if the token is no session's, or its
        session expired, or the key it was opened with was revoked."""
        row = self._run(
            lambda conn: conn.execute(
                "SELECT u.id, u.name, u.operator, u.created_at FROM web_sessions s"
                " JOIN api_keys k ON k.id = s.key_id JOIN users u ON u.id = k.user_id"
                " WHERE s.token_hash = %s AND s.expires_at > now() AND k.revoked_at IS NULL",
                (secret_digest(token),),
            ).fetchone()
        )
        return None if row is None else User(*row)

    def close_web_session(self, token: str) -> None:
        """End a web session (signing out)."""
        self._run(
            lambda conn: conn.execute(
                "DELETE FROM web_sessions WHERE token_hash = %s", (secret_digest(token),)
            )
        )

    @staticmethod
    def _user_missing(conn: psycopg.Connection, name: str) -> bool:
        return conn.execute("SELECT 1 FROM users WHERE name = %s", (name,)).fetchone() is None


def _key_or_none(conn: psycopg.Connection, where: str, value: object) -> ApiKey | None:
    row = conn.execute(
        f"SELECT {_KEY_COLUMNS} FROM api_keys k JOIN users u ON u.id = k.user_id WHERE {where}",
        (value,),
    ).fetchone()
    return None if row is None else ApiKey(*row)


def _key(conn: psycopg.Connection, where: str, value: object) -> ApiKey:
    found = _key_or_none(conn, where, value)
    assert found is not None
    return found
