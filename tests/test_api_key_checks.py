"""How an API key is checked (docs/api.md, "API keys"): a new key is kept as the SHA-256
of its secret and checked by one hash; a malformed key and an unknown prefix are refused
before anything is hashed; a key kept as scrypt (made before migration 0019) works,
checked by scrypt once, and is checked by its SHA-256 from then on, through the store,
the command line's actor and the API's bearer check alike."""

from __future__ import annotations

import hashlib
import types
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.app.actors import authenticate
from arena.site import create_site
from worker.store import PLATFORM_USER, KeyProblem, KeyRefused, Store
from worker.store import users as users_module
from worker.store.users import scrypt_hash

pytest_plugins = ["tests.store_fixtures"]


@pytest.fixture
def users(store: Store) -> Store:
    """The store with no users but the platform's."""
    with store.pool.connection() as conn:
        conn.execute("DELETE FROM users WHERE name <> %s", (PLATFORM_USER,))
    return store


@pytest.fixture
def hashing(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Every hash the key store computes, counted by kind (``sha256``, ``scrypt``)."""
    counted: Counter[str] = Counter()

    def counting(name: str) -> Callable[..., Any]:
        real = getattr(hashlib, name)

        def hash_(*args: Any, **kwargs: Any) -> Any:
            counted[name] += 1
            return real(*args, **kwargs)

        return hash_

    spy = types.SimpleNamespace(sha256=counting("sha256"), scrypt=counting("scrypt"))
    monkeypatch.setattr(users_module, "hashlib", spy)
    yield counted


def stored_forms(store: Store, prefix: str) -> tuple[str | None, str | None]:
    """A key's (SHA-256, scrypt hash) as its row holds them."""
    with store.pool.connection() as conn:
        row = conn.execute(
            "SELECT secret_sha256, secret_hash FROM api_keys WHERE prefix = %s", (prefix,)
        ).fetchone()
    assert row is not None
    return row[0], row[1]


def made_before_0019(store: Store, user: str) -> str:
    """A key of ``user`` kept as a key made before migration 0019 was: its secret's salted
    scrypt hash, and no SHA-256."""
    key = store.create_key(user).text
    prefix, _, secret = key.partition(".")
    with store.pool.connection() as conn:
        conn.execute(
            "UPDATE api_keys SET secret_sha256 = NULL, secret_hash = %s WHERE prefix = %s",
            (scrypt_hash(secret), prefix),
        )
    return key


def test_a_new_key_is_kept_as_the_sha256_of_its_secret_and_checked_by_one_hash(
    users: Store, hashing: Counter[str]
) -> None:
    users.create_user("ann")
    key = users.create_key("ann").text
    prefix, _, secret = key.partition(".")
    assert stored_forms(users, prefix) == (hashlib.sha256(secret.encode()).hexdigest(), None)
    hashing.clear()
    assert users.check_key(key).name == "ann"
    assert hashing == Counter(sha256=1)
    hashing.clear()
    with pytest.raises(KeyRefused) as refused:  # a wrong secret of a real prefix
        users.check_key(f"{prefix}.{'A' * len(secret)}")
    assert refused.value.problem is KeyProblem.UNKNOWN
    assert hashing == Counter(sha256=1)


def test_a_malformed_key_or_an_unknown_prefix_is_refused_before_any_hashing(
    users: Store, hashing: Counter[str]
) -> None:
    users.create_user("ann")
    made_before_0019(users, "ann")  # an unknown prefix hashes no decoy, not even scrypt's
    secret = users.create_key("ann").text.partition(".")[2]
    hashing.clear()
    for text, problem in (
        ("hunter2", KeyProblem.MALFORMED),
        ("0123456789ab." + "x" * 42, KeyProblem.MALFORMED),
        ("0" * 12 + "." + secret, KeyProblem.UNKNOWN),
        ("fedcba987654." + "y" * 43, KeyProblem.UNKNOWN),
    ):
        with pytest.raises(KeyRefused) as refused:
            users.check_key(text)
        assert refused.value.problem is problem, text
    assert hashing == Counter(), "a key refused for its form or prefix was hashed"


def test_a_key_kept_as_scrypt_works_once_by_scrypt_and_is_then_kept_as_its_sha256(
    users: Store, hashing: Counter[str]
) -> None:
    users.create_user("ann")
    key = made_before_0019(users, "ann")
    prefix, _, secret = key.partition(".")
    with pytest.raises(KeyRefused):  # a wrong secret stores nothing
        users.check_key(f"{prefix}.{'A' * len(secret)}")
    assert stored_forms(users, prefix)[0] is None
    hashing.clear()
    assert users.check_key(key).name == "ann"
    assert hashing["scrypt"] == 1
    sha, scrypt = stored_forms(users, prefix)
    assert sha == hashlib.sha256(secret.encode()).hexdigest()
    assert scrypt is not None and scrypt.startswith("$scrypt$")  # for the release before
    # from now on its scrypt hash is not read: one that no longer matches changes nothing
    with users.pool.connection() as conn:
        conn.execute(
            "UPDATE api_keys SET secret_hash = %s WHERE prefix = %s",
            (scrypt_hash("another secret"), prefix),
        )
    hashing.clear()
    assert users.check_key(key).name == "ann"
    assert hashing == Counter(sha256=1)
    with pytest.raises(KeyRefused):
        users.check_key(f"{prefix}.{'A' * len(secret)}")


def test_the_api_and_the_actor_check_a_key_kept_as_scrypt_and_keep_it_as_its_sha256(
    users: Store, hashing: Counter[str]
) -> None:
    users.create_user("ann")
    users.create_user("bob")
    by_api, by_actor = made_before_0019(users, "ann"), made_before_0019(users, "bob")
    hashing.clear()
    with TestClient(create_site(users)) as client:
        for _ in range(2):
            reply = client.get("/api/v1/me", headers={"authorization": f"Bearer {by_api}"})
            assert reply.status_code == 200, reply.text
            assert reply.json()["name"] == "ann"
        refused = client.get("/api/v1/me", headers={"authorization": "Bearer 0123456789ab.x"})
        assert refused.status_code == 401
    assert authenticate(users, by_actor).name == "bob"
    assert authenticate(users, by_actor).name == "bob"
    assert hashing["scrypt"] == 2  # once for each key, on its first use
    for key in (by_api, by_actor):
        prefix, _, secret = key.partition(".")
        assert stored_forms(users, prefix)[0] == hashlib.sha256(secret.encode()).hexdigest()
