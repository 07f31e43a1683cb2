"""What ``arena web`` serves: the API under ``/api/v1`` (:mod:`arena.api`) beside the
pages (:mod:`arena.web`), two front ends over one store that know nothing of each
other."""

from __future__ import annotations

from typing import Any, cast

from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.types import ASGIApp

from arena.api.app import PREFIX, create_api, error_response
from arena.web.app import create_app
from arena.web.inputs import CheckInputs
from worker.store import Store


def create_site(store: Store, *, redis_url: str | None = None) -> Starlette:
    """The pages and the API over ``store``. The API's paths and queries are checked as
    the pages' are (no control characters, no address over 8 KiB), and refused in its
    own JSON."""
    return Starlette(
        routes=[
            Mount(PREFIX, app=cast(ASGIApp, CheckInputs(create_api(store), refuse=_refuse))),
            Mount("/", app=create_app(store, redis_url=redis_url)),
        ]
    )


def _refuse(scope: dict[str, Any], status: int, message: str) -> Any:
    return error_response(status, "invalid" if status == 400 else "too_long", message)
