"""What ``arena web`` serves: the API under ``/api/v1`` (:mod:`arena.api`) beside the
pages (:mod:`arena.web`), two front ends over one store that know nothing of each
other."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, cast

from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.types import ASGIApp

from arena.api.app import PREFIX, create_api, error_response
from arena.app.status import broker_probe
from arena.web.app import create_app
from arena.web.inputs import CheckInputs
from worker.store import Store

log = logging.getLogger(__name__)


def create_site(
    store: Store, *, redis_url: str | None = None, qualify: Callable[[int], object] | None = None
) -> Starlette:
    """The pages and the API over ``store``. The API's paths and queries are checked as
    the pages' are (no control characters, no address over 8 KiB), and refused in its
    own JSON. With ``redis_url`` (the platform's broker), a tournament made through the
    API, or a new version's qualification, is sent to the workers at once (without it, the
    scheduler's sweep sends a qualification); ``qualify(version id)`` runs a new version's
    qualification otherwise (in this process: for tests), and the operators' status asks the
    workers through it."""
    if redis_url is None:
        api = create_api(store, qualify=qualify)
    else:
        api = create_api(
            store,
            dispatch=_dispatcher(store, redis_url),
            qualify=qualify or _qualifier(store, redis_url),
            probe=broker_probe(redis_url),
        )
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


def _qualifier(store: Store, redis_url: str) -> Any:
    """Send a new version's qualification over the broker at ``redis_url``; one that
    cannot be sent now is sent by the scheduler's sweep."""
    from worker import tasks
    from worker.app import configure

    configure(redis_url)

    def qualify(version_id: int) -> None:
        try:
            tasks.send_qualification(store, version_id)
        except Exception:  # the broker is away: the sweep sends it later
            log.exception("bot version %d: its qualification could not be sent now", version_id)

    return qualify
