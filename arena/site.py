"""What ``arena web`` serves: the API under ``/api/v1`` (:mod:`arena.api`) beside the
pages (:mod:`arena.web`), two front ends over one store that know nothing of each
other."""

from __future__ import annotations

import logging
from typing import Any, cast

from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.types import ASGIApp

from arena.api.app import PREFIX, create_api, error_response
from arena.web.app import create_app
from arena.web.inputs import CheckInputs
from worker.store import Store

log = logging.getLogger(__name__)


def create_site(store: Store, *, redis_url: str | None = None) -> Starlette:
    """The pages and the API over ``store``. The API's paths and queries are checked as
    the pages' are (no control characters, no address over 8 KiB), and refused in its
    own JSON. With ``redis_url`` (the platform's broker), a tournament made through the
    API is sent to the workers at once."""
    api = create_api(store, dispatch=None if redis_url is None else _dispatcher(store, redis_url))
    return Starlette(
        routes=[
            Mount(PREFIX, app=cast(ASGIApp, CheckInputs(api, refuse=_refuse))),
            Mount("/", app=create_app(store, redis_url=redis_url)),
        ]
    )


def _refuse(scope: dict[str, Any], status: int, message: str) -> Any:
    return error_response(status, "invalid" if status == 400 else "too_long", message)


def _dispatcher(store: Store, redis_url: str) -> Any:
    """Send a new tournament's drain tasks over the broker at ``redis_url``. Work that
    cannot be sent (the broker away) is not lost: the tournament is marked as sent for,
    so the scheduler's sweep sends it again (``worker.tasks.start_drains``)."""
    from worker import tasks
    from worker.app import configure

    configure(redis_url)

    def dispatch(tournament_id: int, matches: int) -> None:
        try:
            tasks.start_drains(store, tournament_id, matches)
        except Exception:  # the broker is away: the sweep sends the work later
            log.exception("tournament %d: its work could not be sent now", tournament_id)

    return dispatch
