"""The API against its own OpenAPI description (docs/api.md): a property-based run of
every route with any input the description allows and many it does not (schemathesis),
without a key and with an operator's, finds no server error, and every answer is of a
status and shape the description names."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from arena.app import tournaments
from arena.app.actors import Actor, ActorKind
from arena.commands.demo import register_examples
from arena.site import create_site
from tests.store_fixtures import create_database, drop_database
from worker import db
from worker.store import Store

pytest_plugins = ["tests.store_fixtures"]

_keys: dict[str, str] = {}


@pytest.fixture(scope="module")
def api_schema(pg_admin_url: str) -> Iterator[Any]:
    name, url = create_database(pg_admin_url)
    with psycopg.connect(url) as conn:
        db.migrate(conn)
    store = Store.open(url, max_size=4)
    try:
        store.create_user("ops", operator=True)
        _keys["ops"] = store.create_key("ops").text
        ops = Actor(ActorKind.OPERATOR, "ops")  # the house bots and a tournament of them
        names = register_examples(store, "hollywood-gin", ops)
        tournaments.create(store, ops, game="hollywood-gin", bots=names, options={"max_hands": 1})
        yield schemathesis.openapi.from_asgi("/api/v1/openapi.json", create_site(store))
    finally:
        store.close()
        drop_database(pg_admin_url, name)


RUN = settings(
    max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None
)


def _run_every_operation(schema: Any, headers: dict[str, str]) -> int:
    """Each operation of ``schema`` with :data:`RUN`'s examples, every answer checked
    (schemathesis' own checks: no server error, a documented status, content type and
    shape, invalid data refused; but for "data the description allows is accepted": an
    archive that is base64 but no tar, or a bot that does not exist, is refused with
    400 or 404 by design); returns how many operations ran."""
    ran = 0
    for found in schema.get_all_operations():
        operation = found.ok()

        @given(case=operation.as_strategy())
        @RUN
        def check(case: Any) -> None:
            case.call_and_validate(headers=headers, excluded_checks=[positive_data_acceptance])

        check()
        ran += 1
    return ran


def test_no_route_fails_without_a_key(api_schema: Any) -> None:
    assert _run_every_operation(api_schema, {}) >= 10


def test_no_route_fails_with_an_operators_key(api_schema: Any) -> None:
    assert _run_every_operation(api_schema, {"authorization": f"Bearer {_keys['ops']}"}) >= 10
