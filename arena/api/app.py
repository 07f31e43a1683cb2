"""The API's routes (``docs/api.md``): FastAPI over the application layer. Each route
finds the actor (:func:`actor_of`: no key is anyone, a bad key is 401), calls one
operation of :mod:`arena.app` and returns its values; a refusal of the application layer
becomes a JSON error with a stable code (:data:`ERRORS`). The store is synchronous, so
the routes are plain functions, which FastAPI runs in its thread pool."""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
from collections.abc import Callable
from typing import Annotated, Any, Literal

import psycopg
from fastapi import Body, Depends, FastAPI, Path, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from arena.app import bots as app_bots
from arena.app import duels, ladders, matches, reads, status, tournaments, users
from arena.app.actors import ANONYMOUS, Actor, authenticate
from arena.app.errors import (
    AppError,
    Forbidden,
    Held,
    Invalid,
    NotFound,
    RateLimited,
    Unauthorized,
)
from worker.store import Store, StoreError
from worker.store.bots import NAME_MAX, is_bot_name

#: The API's version, and where it is served.
VERSION = "1"
PREFIX = "/api/v1"
#: The largest id a path may name (ids are Postgres bigints).
MAX_ID = 2**63 - 1
#: Lists answer at most this many items a page.
MAX_LIMIT = 200

#: The largest request body the API reads (bytes): a submission's archive at its limit,
#: in base64, with room for the rest of its JSON. A larger one is refused (413) before
#: it is read, from its Content-Length, or as soon as a body without one passes it.
MAX_BODY = app_bots.ARCHIVE_LIMITS.max_archive * 4 // 3 + 2**20

#: Each refusal of the application layer: its HTTP status and its stable code.
ERRORS: dict[type[AppError], tuple[int, str]] = {
    Unauthorized: (401, "unauthorized"),
    Forbidden: (403, "forbidden"),
    NotFound: (404, "not_found"),
    Held: (409, "held"),
    Invalid: (400, "invalid"),
    RateLimited: (429, "rate_limited"),
}


class ErrorBody(BaseModel):
    """What was refused: a stable ``code``, a ``message`` that says what to do, and the
    request's ``field`` that was wrong, when one was."""

    code: str
    message: str
    field: str | None = None


class ErrorReply(BaseModel):
    error: ErrorBody


def error_response(
    status: int, code: str, message: str, field: str | None = None, **headers: str
) -> JSONResponse:
    body = ErrorReply(error=ErrorBody(code=code, message=message, field=field))
    return JSONResponse(body.model_dump(), status_code=status, headers=headers or None)


class BodyLimit:
    """ASGI middleware: a request whose body is over ``limit`` bytes gets 413, without
    the body being read (from its Content-Length), or as soon as the bytes read pass
    the limit (a body sent in chunks: the route is told the client left, and what it
    answers is dropped); nothing of it reaches the store."""

    def __init__(self, app: Any, limit: int = MAX_BODY) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or ()).get(b"content-length", b"")
        if length.isdigit() and int(length) > self.limit:
            await self._refuse(scope, receive, send, int(length))
            return
        read = 0
        refused = False

        async def counted() -> Any:
            nonlocal read, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            read += len(message.get("body", b""))
            if read > self.limit:
                refused = True
                await self._refuse(scope, receive, send, None)
                return {"type": "http.disconnect"}
            return message

        async def sending(message: Any) -> None:
            if not refused:
                await send(message)

        with contextlib.suppress(ClientDisconnect):
            await self.app(scope, counted, sending)

    async def _refuse(self, scope: Any, receive: Any, send: Any, length: int | None) -> None:
        said = f"{length:,} bytes" if length is not None else "more than that"
        reply = error_response(
            413,
            "too_large",
            f"the request's body is {said}; the API reads at most {self.limit:,} bytes "
            f"(a bot's archive holds at most {app_bots.MAX_BYTES:,} bytes of files)",
            Connection="close",
        )
        await reply(scope, receive, send)


# -- who asks --------------------------------------------------------------------------------

_bearer = HTTPBearer(auto_error=False, description="an API key: `Authorization: Bearer KEY`")


def actor_of(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Actor:
    """Who asks: no key is anyone; a key that is no bearer key, or names nobody, is 401."""
    if credentials is None:
        if request.headers.get("authorization"):
            raise Unauthorized(
                "the Authorization header is not a bearer key: send `Authorization: "
                "Bearer KEY` with a key that `arena user key new` printed"
            )
        return ANONYMOUS
    store: Store = request.app.state.store
    return authenticate(store, credentials.credentials, source="the bearer key")


#: A route's actor (module-level: FastAPI reads the routes' annotations from here).
Who = Annotated[Actor, Depends(actor_of)]


# -- what is sent ----------------------------------------------------------------------------

#: A bot's or user's name (worker.store.bots.NAME_RULE).
NAME = rf"^[A-Za-z0-9][A-Za-z0-9._-]{{0,{NAME_MAX - 1}}}$"
Name = Annotated[
    str, Path(pattern=NAME, description="a bot's name", examples=["random-hollywood-gin"])
]
LadderName = Annotated[str, Path(pattern=NAME, examples=["hollywood-gin"])]
Id = Annotated[int, Path(ge=1, le=MAX_ID, examples=[1])]
Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description="items per page")]
Offset = Annotated[int, Query(ge=0, le=MAX_ID, description="items skipped")]


class Page(BaseModel):
    """One page of a list: its items, and the offset of the next page (None at the end)."""

    items: list[dict[str, Any]]
    limit: int
    offset: int
    next_offset: int | None


def _page(rows: list[dict[str, Any]], limit: int, offset: int) -> Page:
    """A page from ``rows`` fetched with one item more than ``limit``."""
    more = len(rows) > limit
    return Page(
        items=rows[:limit], limit=limit, offset=offset, next_offset=offset + limit if more else None
    )


class Submission(BaseModel):
    """A bot version: its game, the command that starts it from the unpacked archive,
    and the archive (base64 of a tar, as `arena bot submit` builds it)."""

    game: str = Field(min_length=1, max_length=64)
    command: list[Annotated[str, Field(min_length=1, max_length=app_bots.MAX_WORD)]] = Field(
        min_length=1, max_length=app_bots.MAX_COMMAND_WORDS
    )
    archive: str = Field(
        description="base64 of the archive",
        max_length=app_bots.ARCHIVE_LIMITS.max_archive * 4 // 3 + 4,
    )
    archive_format: Literal["tar"] = "tar"
    owner: str | None = Field(
        None, max_length=40, description="for an operator: the owner of a new bot"
    )
    runtime: str | None = Field(
        None,
        max_length=40,
        description="what the command runs on: python, node or binary (default: inferred "
        "from the command)",
    )
    qualify: bool = Field(
        False,
        description="for an operator: qualify the version as a user's is, rather than "
        "vouch for it (exempt)",
    )


class NewTournament(BaseModel):
    """A round robin or gauntlet: the bots (``NAME`` or ``NAME@vN``) and how they play."""

    game: str = Field(min_length=1, max_length=64)
    bots: list[Annotated[str, Field(min_length=1, max_length=210)]] = Field(
        min_length=2, max_length=64
    )
    games: int = Field(1, ge=1, le=10_000, description="matches per table")
    format: tournaments.Format = "round-robin"
    duplicate: bool = False
    table_size: int | None = Field(None, ge=2, le=16)
    options: dict[str, bool | int | str] = Field(default_factory=dict)
    clock: dict[str, int] = Field(default_factory=dict)
    name: str | None = Field(None, min_length=1, max_length=200)
    seed: int | None = Field(None, ge=0, le=MAX_ID)


class NewDuel(BaseModel):
    """A duel: is A stronger than B (``NAME`` or ``NAME@vN``)? Its test's hypotheses
    (Elo of A over B), error rates, and how it plays (``docs/duels.md``)."""

    a: str = Field(min_length=1, max_length=210)
    b: str = Field(min_length=1, max_length=210)
    game: str = Field(min_length=1, max_length=64)
    elo0: float = Field(0.0, ge=-duels.MAX_ELO, le=duels.MAX_ELO, allow_inf_nan=False)
    elo1: float = Field(20.0, ge=-duels.MAX_ELO, le=duels.MAX_ELO, allow_inf_nan=False)
    alpha: float = Field(0.05, gt=0, lt=1, allow_inf_nan=False)
    beta: float = Field(0.05, gt=0, lt=1, allow_inf_nan=False)
    duplicate: bool = False
    batch: int = Field(duels.BATCH, ge=1, le=duels.MAX_BATCH)
    max_games: int = Field(duels.DEFAULT_MAX_GAMES, ge=1, le=duels.MAX_GAMES)
    options: dict[str, bool | int | str] = Field(default_factory=dict)
    clock: dict[str, int] = Field(default_factory=dict)
    seed: int | None = Field(None, ge=0, le=MAX_ID)
    seats: int | None = Field(
        None, ge=2, le=8, description="the table: A in one seat, B in the others"
    )


class NewUser(BaseModel):
    name: str = Field(pattern=NAME)
    operator: bool = False


class KeyRequest(BaseModel):
    user: str | None = Field(None, pattern=NAME, description="default: yourself")


class AnalysisRequest(BaseModel):
    budget_ms: int = Field(
        200, ge=1, le=60_000, description="the reference bot's time per decision"
    )


# -- the app ---------------------------------------------------------------------------------


def create_api(
    store: Store,
    *,
    dispatch: tournaments.Dispatch | None = None,
    qualify: Callable[[int], object] | None = None,
    probe: status.Probe | None = None,
) -> FastAPI:
    """The API over ``store``, to be mounted at :data:`PREFIX`; ``dispatch`` sends the
    platform's workers the tournaments it creates, ``qualify`` the new versions'
    qualifications (without them they wait for the scheduler's sweep); ``probe`` asks the
    workers and the broker for the operators' status."""
    api = FastAPI(
        title="Rummy Arena",
        version=VERSION,
        description="Bots, tournaments and standings of a Rummy Arena platform (docs/api.md).",
        servers=[{"url": PREFIX}],
        openapi_url="/openapi.json",
        docs_url="/docs",
        redoc_url=None,
        responses={
            400: {
                "model": ErrorReply,
                "description": "the request is not valid: `field` says where",
            },
            401: {"model": ErrorReply, "description": "the key is malformed, unknown or revoked"},
            403: {"model": ErrorReply, "description": "the key's user may not do this"},
            404: {"model": ErrorReply, "description": "no such thing"},
            409: {
                "model": ErrorReply,
                "description": "held back while its duplicate deal is played",
            },
            413: {"model": ErrorReply, "description": "the request's body is too large"},
            429: {"model": ErrorReply, "description": "too many writes this hour; see Retry-After"},
            503: {"model": ErrorReply, "description": "the platform's database is unreachable"},
        },
    )
    api.state.store = store
    api.add_middleware(BodyLimit)
    _key_optional_in_description(api)

    @api.exception_handler(AppError)
    def refused(request: Request, exc: AppError) -> JSONResponse:
        status, code = next((v for k, v in ERRORS.items() if isinstance(exc, k)), (400, "invalid"))
        headers: dict[str, str] = {}
        if isinstance(exc, Unauthorized):
            headers["WWW-Authenticate"] = "Bearer"
        if isinstance(exc, RateLimited):
            headers["Retry-After"] = str(exc.retry_after_s)
        return error_response(status, code, str(exc), **headers)

    @api.exception_handler(RequestValidationError)
    def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        where = [
            str(part) for part in first.get("loc", ()) if part not in ("body", "query", "path")
        ]
        field = ".".join(where) or None
        message = f"{field}: {first.get('msg')}" if field else str(first.get("msg"))
        return error_response(400, "invalid", message, field)

    @api.exception_handler(HTTPException)
    def httperror_response(request: Request, exc: HTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "error")
        return error_response(exc.status_code, code, str(exc.detail))

    @api.exception_handler(psycopg.DataError)
    def unstorable(request: Request, exc: Exception) -> JSONResponse:
        return error_response(400, "invalid", f"a value of the request cannot be stored: {exc}")

    @api.exception_handler(psycopg.OperationalError)
    @api.exception_handler(StoreError)
    def unavailable(request: Request, exc: Exception) -> JSONResponse:
        return error_response(
            503,
            "unavailable",
            f"the platform's database cannot be reached ({exc}); try again later",
        )

    # -- who am I ---------------------------------------------------------------------------

    @api.get("/me", summary="Who the key is")
    def me(actor: Who) -> dict[str, Any]:
        return {"kind": actor.kind.value, "name": actor.name}

    # -- bots ---------------------------------------------------------------------------------

    @api.get("/bots", summary="Every bot", response_model=Page)
    def list_bots(actor: Who, limit: Limit = 50, offset: Offset = 0) -> Page:
        return _page(reads.bots(store, actor, limit=limit + 1, offset=offset), limit, offset)

    @api.get("/bots/{name}", summary="A bot's page")
    def show_bot(name: Name, actor: Who) -> dict[str, Any]:
        if not is_bot_name(name):
            raise NotFound(f"no bot named {name!r} (see GET {PREFIX}/bots)")
        return reads.bot(store, actor, name)

    @api.post(
        "/bots/{name}/versions",
        summary="Submit a version of a bot (a new name becomes yours)",
        status_code=201,
        responses={200: {"description": "the same content is that version: nothing stored"}},
    )
    def submit(
        name: Name, submission: Annotated[Submission, Body()], actor: Who, response: Response
    ) -> dict[str, Any]:
        try:
            archive = base64.b64decode(submission.archive, validate=True)
        except (binascii.Error, ValueError):
            raise Invalid("archive: not base64") from None
        done = app_bots.submit(
            store,
            actor,
            name=name,
            game=submission.game,
            archive=archive,
            command=submission.command,
            archive_format=submission.archive_format,
            owner=submission.owner,
            runtime=submission.runtime,
            qualify=submission.qualify,
        )
        if done.new and done.version.qualification == "qualifying" and qualify is not None:
            qualify(done.version.id)
        if not done.new:
            response.status_code = 200
        return {**reads.version_dict(done.version), "new": done.new}

    @api.post("/bots/{name}/retire", summary="Retire a bot: it gets no new matches")
    def retire(name: Name, actor: Who) -> dict[str, Any]:
        if not is_bot_name(name):
            raise NotFound(f"no bot named {name!r} (see GET {PREFIX}/bots)")
        done = app_bots.retire(store, actor, name)
        when = done.bot.retired_at
        return {
            "name": done.bot.name,
            "retired_at": None if when is None else when.isoformat(timespec="seconds"),
            "already": done.already,
        }

    # -- tournaments --------------------------------------------------------------------------

    @api.get("/tournaments", summary="The newest tournaments", response_model=Page)
    def list_tournaments(actor: Who, limit: Limit = 50, offset: Offset = 0) -> Page:
        return _page(reads.tournaments(store, actor, limit=limit + 1, offset=offset), limit, offset)

    @api.post("/tournaments", summary="Create a tournament or gauntlet", status_code=201)
    def create_tournament(request: Annotated[NewTournament, Body()], actor: Who) -> dict[str, Any]:
        made = tournaments.create(
            store,
            actor,
            game=request.game,
            bots=request.bots,
            games=request.games,
            table_size=request.table_size,
            duplicate=request.duplicate,
            options=request.options,
            clock=request.clock,
            name=request.name,
            seed=request.seed,
            format=request.format,
            dispatch=dispatch,
        )
        return {"tournament": made.tournament, "matches": made.matches, "game": made.game}

    @api.get(
        "/tournaments/{tournament_id}", summary="A tournament's settings, progress and standings"
    )
    def standings(tournament_id: Id, actor: Who) -> dict[str, Any]:
        return reads.standings(store, actor, tournament_id)

    @api.post(
        "/tournaments/{tournament_id}/retry", summary="Put its failed matches back (operators)"
    )
    def retry_tournament(tournament_id: Id, actor: Who) -> dict[str, Any]:
        again = tournaments.retry(store, actor, tournament_id)
        if again and dispatch is not None:
            dispatch(tournament_id, len(again))
        return {"tournament": tournament_id, "queued_again": again}

    @api.post("/tournaments/{tournament_id}/cancel", summary="Cancel a tournament (operators)")
    def cancel_tournament(tournament_id: Id, actor: Who) -> dict[str, Any]:
        return {
            "tournament": tournament_id,
            "cancelled": tournaments.cancel(store, actor, tournament_id),
        }

    # -- duels ---------------------------------------------------------------------------------

    @api.post(
        "/duels", summary="Make a duel: the platform plays it to its verdict", status_code=201
    )
    def create_duel(request: Annotated[NewDuel, Body()], actor: Who) -> dict[str, Any]:
        made = duels.create(store, actor, dispatch=dispatch, **request.model_dump())
        return dataclasses.asdict(made)

    @api.get("/duels/{tournament_id}", summary="A duel's state, its test and its verdict")
    def show_duel(tournament_id: Id, actor: Who) -> dict[str, Any]:
        return duels.status(store, actor, tournament_id)

    # -- matches and the leaderboard ----------------------------------------------------------

    @api.get("/matches/{match_id}", summary="A match: its seats, results and public events")
    def show_match(match_id: Id, actor: Who) -> dict[str, Any]:
        return matches.show(store, actor, match_id)

    @api.get(
        "/matches/{match_id}/seats/{seat}/log",
        summary="What a seat's bot wrote during the match (its owner and operators)",
    )
    def match_log(
        match_id: Id, seat: Annotated[int, Path(ge=0, le=64)], actor: Who
    ) -> dict[str, Any]:
        return matches.log(store, actor, match_id, seat)

    @api.post(
        "/matches/{match_id}/seats/{seat}/analysis",
        summary="Where a seat lost: the kept analysis, else made now (its owner, operators)",
    )
    def analyse_seat(
        match_id: Id,
        seat: Annotated[int, Path(ge=0, le=64)],
        request: Annotated[AnalysisRequest, Body()],
        actor: Who,
    ) -> dict[str, Any]:
        from arena.app import analysis

        return analysis.analyse(store, actor, match_id, seat, request.budget_ms)

    @api.get("/matches/{match_id}/record", summary="A finished match's record as JSON")
    def match_record(match_id: Id, actor: Who) -> dict[str, Any]:
        return matches.export(store, actor, match_id)

    @api.get(
        "/matches/{match_id}/record.bin",
        summary="A finished match's record as stored (arena verify checks it)",
        response_class=Response,
        responses={200: {"content": {"application/octet-stream": {}}}},
    )
    def match_record_bytes(match_id: Id, actor: Who) -> Response:
        data = matches.record_bytes(store, actor, match_id)
        return Response(data, media_type="application/octet-stream")

    @api.get("/matches/{match_id}/steps/{step}", summary="One step of a finished match's replay")
    def match_step(
        match_id: Id,
        step: Annotated[int, Path(ge=0, le=10**7)],
        actor: Who,
        seat: Annotated[int | None, Query(ge=0, le=15, description="one seat's view")] = None,
    ) -> dict[str, Any]:
        return matches.step(store, actor, match_id, step, seat)

    @api.get("/leaderboard/{game}", summary="A game's leaderboard, best first")
    def leaderboard(
        game: Annotated[str, Path(pattern=NAME, examples=["hollywood-gin"])], actor: Who
    ) -> list[dict[str, Any]]:
        return reads.leaderboard(store, actor, game)

    # -- ladders ------------------------------------------------------------------------------

    @api.get("/ladders", summary="Every ladder: its game, whether it runs, its matches")
    def list_ladders(actor: Who) -> list[dict[str, Any]]:
        return ladders.status(store, actor)

    @api.post("/ladders/{ladder}/bots/{name}", summary="Let a bot join a ladder's pool again")
    def join_ladder(ladder: LadderName, name: Name, actor: Who) -> dict[str, Any]:
        return dataclasses.asdict(ladders.set_member(store, actor, ladder, name, True))

    @api.delete("/ladders/{ladder}/bots/{name}", summary="Withdraw a bot from a ladder's pool")
    def withdraw_from_ladder(ladder: LadderName, name: Name, actor: Who) -> dict[str, Any]:
        return dataclasses.asdict(ladders.set_member(store, actor, ladder, name, False))

    # -- the platform ----------------------------------------------------------------------

    @api.get("/status", summary="What runs: workers, queues, failures (operators)")
    def platform_status(actor: Who) -> dict[str, Any]:
        return status.status(store, actor, probe)

    @api.get(
        "/playing",
        summary="Whether the platform plays now: how many workers answer",
        response_model=status.Playing,
    )
    def platform_playing(actor: Who) -> status.Playing:
        return status.playing(probe)

    # -- users and keys -----------------------------------------------------------------------

    @api.get("/users", summary="Every user (operators)")
    def list_users(actor: Who) -> list[dict[str, Any]]:
        return [users.user_dict(u) for u in users.list_users(store, actor)]

    @api.post("/users", summary="Make a user and their first key (operators)", status_code=201)
    def create_user(request: Annotated[NewUser, Body()], actor: Who) -> dict[str, Any]:
        made = users.create_user(store, actor, request.name, operator=request.operator)
        return {**users.new_key_dict(made), "operator": request.operator}

    @api.get("/keys", summary="A user's keys, by prefix")
    def list_keys(
        actor: Who, user: Annotated[str | None, Query(pattern=NAME)] = None
    ) -> list[dict[str, Any]]:
        return [users.key_dict(k) for k in users.list_keys(store, actor, user)]

    @api.post("/keys", summary="A new key (shown once)", status_code=201)
    def new_key(request: Annotated[KeyRequest, Body()], actor: Who) -> dict[str, Any]:
        made = users.new_key(store, actor, request.user)
        return users.new_key_dict(made)

    @api.delete("/keys/{prefix}", summary="Revoke a key")
    def revoke_key(
        prefix: Annotated[str, Path(pattern="^[0-9a-f]{12}$", description="the key's prefix")],
        actor: Who,
    ) -> dict[str, Any]:
        done = users.revoke_key(store, actor, prefix)
        return {**users.key_dict(done.key), "already": done.already}

    return api


def _key_optional_in_description(api: FastAPI) -> None:
    """Say in the OpenAPI description that every route takes a bearer key or none: no
    key is anyone, who may read (FastAPI lists the key as required)."""
    make = api.openapi

    def openapi() -> dict[str, Any]:
        if api.openapi_schema is None:
            spec = make()
            for path in spec.get("paths", {}).values():
                for operation in path.values():
                    if operation.get("security") and {} not in operation["security"]:
                        operation["security"].append({})
            api.openapi_schema = spec
        return api.openapi_schema

    api.openapi = openapi  # type: ignore[method-assign]
