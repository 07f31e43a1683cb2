"""The Starlette application of the web viewer: pages rendered on the server with Jinja2,
a JSON endpoint per match that the replay page's script draws, and the live view of a
running match (server-sent events from its referee). Every page reads through the
application layer (:mod:`arena.app.pages`, :mod:`arena.app.replay`) as anyone without a
key, never the store itself; those reads are synchronous, so the page handlers are plain
functions that Starlette runs in its thread pool."""

from __future__ import annotations

import contextvars
import functools
import json
import logging
import math
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from statistics import NormalDist
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from arena.app import analysis, deals, matches, pages, replay
from arena.app.actors import (
    ANONYMOUS,
    WEB_SESSION_HOURS,
    Actor,
    session_actor,
    sign_in,
    sign_out,
)
from arena.app.errors import AppError, Forbidden, Held, Invalid, NotFound, Unauthorized
from arena.web import inputs
from referee.games import game_names, get_game
from referee.record import SeatStatus
from worker.store import MATCH_STATES

if TYPE_CHECKING:
    from worker.ratings import BradleyTerryFit
    from worker.store import Store

HERE = Path(__file__).parent
log = logging.getLogger(__name__)
#: HTTP status of each reason a page cannot be shown.
STATUS = {
    "bad": 400,
    "missing": 404,
    "held": 403,
    "forbidden": 403,
    "unfinished": 409,
    "corrupt": 422,
    "busy": 503,
}
#: The reason a page gives for each refusal of the application layer (a key of STATUS);
#: any other refusal is ``bad``.
REFUSALS: tuple[tuple[type[AppError], str], ...] = (
    (NotFound, "missing"),
    (Held, "held"),
    (Forbidden, "forbidden"),
    (Unauthorized, "forbidden"),
)
#: Requests that re-run records (replay pages, frames, summaries, exports) served at once,
#: and how long one waits for a slot before it is answered 503 (docs/performance.md).
REPLAY_SLOTS = 4
#: The reference bot's time per decision when a seat is analysed from its page (the page
#: waits for it: a one-hand match is a few seconds; ``arena analyse`` takes any budget).
WEB_ANALYSIS_MS = 100
REPLAY_WAIT_S = 10.0
#: Tournaments or matches a listing shows.
LIST_LIMIT = 200
#: Matches a tournament's page lists.
TOURNAMENT_MATCHES = 50
#: Rated matches a leaderboard's trend looks back over.
TREND_MATCHES = 10
#: A bot page's matches of its latest version: those its health counts, and those it
#: lists.
HEALTH_MATCHES = 200
RECENT_SHOWN = 20
#: Finished matches whose records the bot page reads for its decision times.
DECISION_MATCHES = 50
#: The longest a live stream waits for its match to start (queued, or claimed by a
#: worker that has not yet said where it plays), in seconds; then it says the live view
#: is unavailable and ends (docs/viewer.md).
LIVE_WAIT_S = 600.0
#: Live streams one client may hold open at once (an IPv4 address, an IPv6 /64, as the
#: referee counts a source); one more is answered 429.
LIVE_STREAMS_PER_CLIENT = 4
#: Live streams the app holds open at once, from everyone: each is a WatchMatch stream
#: on a referee; one more is answered 503.
LIVE_STREAMS = 256
#: How often a waiting live stream looks at the match again, in seconds.
LIVE_POLL_S = 1.0
#: How often, at most, the stream of a match of a duplicate deal looks whether another
#: match of its deal is queued or running again before it sends the events that came.
LIVE_CHECK_S = 0.25
#: How long the live view keeps asking a referee that does not have the match yet
#: (seconds): its worker creates it there a moment after the claim names the referee.
LIVE_MISSING_S = 10.0
_UNAVAILABLE = (
    "the live view is unavailable: no referee is known to play this match now"
    " (it has not started, or its worker has not said where it plays)"
)
#: Pixels between the lines of a course chart, so that equal series are all seen; the
#: room on the chart's right for the name at each line's end, and the least distance
#: between two of those names.
COURSE_DODGE = 3.0
COURSE_LABEL_ROOM = 44
COURSE_LABEL_GAP = 9.0
#: The seat statuses a bot page counts as faults, with what each is called there.
FAULTS: tuple[tuple[SeatStatus, str], ...] = (
    ("timeout", "timeouts"),
    ("invalid", "illegal actions"),
    ("crashed", "crashes"),
    ("disconnected", "disconnections"),
)


def _env() -> Environment:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["games"] = game_names()
    env.globals["commitment"] = deals.COMMITMENT
    env.globals["title_of"] = lambda g: get_game(g).title if g in game_names() else g
    env.filters["num"] = lambda x, d=0: "–" if x is None else f"{x:.{d}f}"
    env.filters["signed"] = _signed
    env.filters["when"] = lambda t: "–" if t is None else t.strftime("%Y-%m-%d %H:%M:%S")
    return env


def _signed(x: float | None) -> str:
    """A signed whole number of Elo: ``+20``, ``−5``, ``+∞``; a dash for None."""
    if x is None:
        return "–"
    if math.isinf(x):
        return "+∞" if x > 0 else "−∞"
    return f"{x:+.0f}".replace("-", "−")


def _replay_work(
    handler: Callable[[Viewer, Request], Response],
) -> Callable[[Viewer, Request], Response]:
    """A page handler that re-runs records, run in one of the viewer's replay slots:
    :data:`REPLAY_SLOTS` at once; a request that finds none free within
    :data:`REPLAY_WAIT_S` is answered 503 (``busy``). Handlers run in Starlette's thread
    pool (they are plain functions), so the engine never holds up the event loop."""

    @functools.wraps(handler)
    def run(viewer: Viewer, request: Request) -> Response:
        if not viewer.replay_slots.acquire(timeout=REPLAY_WAIT_S):
            raise replay.Unavailable(
                "busy", "the viewer is busy replaying other matches: try again in a moment"
            )
        try:
            return handler(viewer, request)
        finally:
            viewer.replay_slots.release()

    return run


#: Who the request being answered signed in as (:class:`SignedIn`): anyone, by default.
_SIGNED_IN: contextvars.ContextVar[Actor] = contextvars.ContextVar("signed_in", default=ANONYMOUS)
#: The cookie that holds a web session's token (docs/viewer.md, "Signing in").
SESSION_COOKIE = "arena_session"
#: The most a sign-in form's body may hold (bytes): a key is 56 characters.
SIGN_IN_BYTES = 4096


class SignedIn:
    """ASGI middleware: the actor a request's session cookie signs in, for the pages to
    read as (anyone without a key when there is none, or it ended)."""

    def __init__(self, app: ASGIApp, store: Store) -> None:
        self.app, self.store = app, store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = Request(scope).cookies.get(SESSION_COOKIE)
        actor = ANONYMOUS
        if token:
            actor = await run_in_threadpool(session_actor, self.store, token)
        reset = _SIGNED_IN.set(actor)
        try:
            await self.app(scope, receive, send)
        finally:
            _SIGNED_IN.reset(reset)


class Viewer:
    """The pages, over one store."""

    @property
    def actor(self) -> Actor:
        """Who the pages read as: the signed-in user, else anyone."""
        return _SIGNED_IN.get()

    def __init__(self, store: Store) -> None:
        self.store = store
        self.env = _env()
        #: Live streams open now, by client (:func:`referee.sessions.source_of_address`;
        #: the event loop's alone: no lock).
        self.streams: Counter[str] = Counter()
        self.replay_slots = threading.BoundedSemaphore(REPLAY_SLOTS)

    def page(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        """Template ``name`` rendered with ``context`` (and who is signed in)."""
        context.setdefault("signed_in", self.actor.name)
        return HTMLResponse(self.env.get_template(name).render(**context), status_code=status)

    # -- signing in --------------------------------------------------------------------

    async def sign_in(self, request: Request) -> Response:
        """The form (GET); a key given (POST) opens a session kept in a cookie."""
        if request.method == "GET":
            return self.page("signin.html")
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > SIGN_IN_BYTES:
                return self.page("signin.html", 413, message="the form is too long")
        key = (parse_qs(body.decode("utf-8", "replace")).get("key") or [""])[0]
        try:
            actor, token = await run_in_threadpool(sign_in, self.store, key)
        except Unauthorized as exc:
            return self.page("signin.html", 401, message=str(exc))
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(
            SESSION_COOKIE,
            token,
            max_age=int(WEB_SESSION_HOURS * 3600),
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
        )
        log.info("%s signed in to the pages", actor)
        return response

    async def sign_out(self, request: Request) -> Response:
        """End the session of the cookie, and the cookie."""
        token = request.cookies.get(SESSION_COOKIE)
        if token:
            await run_in_threadpool(sign_out, self.store, token)
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(SESSION_COOKIE)
        return response

    # -- pages -----------------------------------------------------------------------------

    def index(self, request: Request) -> Response:
        front = pages.front(self.store, self.actor, tournaments=10, matches=15)
        return self.page("index.html", tournaments=front.tournaments, matches=front.matches)

    def leaderboard(self, request: Request) -> Response:
        from worker import skill

        game = request.path_params.get("game") or game_names()[0]
        board = pages.leaderboard(self.store, self.actor, game, trend_matches=TREND_MATCHES)
        rows = []
        if board.ladder is not None:
            for r in board.pool:
                row: dict[str, Any] = {
                    "label": r.label,
                    "elo": r.elo,
                    "trend": _trend(board.trends.get(r.version)),
                    "games": r.games,
                    "last": r.last_played_at,
                    "rating": None,
                }
                if r.mu is not None and r.sigma is not None:
                    value, low, high = skill.display(r.mu, r.sigma)
                    row.update(
                        rating=value, low=low, high=high, provisional=skill.provisional(r.sigma)
                    )
                rows.append(row)
        else:
            rows = [
                {
                    "label": r.label,
                    "elo": r.rating,
                    "trend": _trend(board.trends.get(r.bot_version_id)),
                    "games": r.games,
                }
                for r in board.ratings
            ]
        return self.page(
            "leaderboard.html",
            game=game,
            ladder=board.ladder,
            rows=rows,
            trend_matches=TREND_MATCHES,
        )

    def tournaments(self, request: Request) -> Response:
        listed = pages.tournaments(self.store, self.actor, limit=LIST_LIMIT)
        return self.page("tournaments.html", tournaments=listed)

    def tournament(self, request: Request) -> Response:
        found = pages.tournament(
            self.store, self.actor, request.path_params["id"], matches=TOURNAMENT_MATCHES
        )
        table = found.table
        order = [line.version for line in table.lines]
        cross = []
        for line in table.lines:
            cells = []
            for other in order:
                games = table.games.get(line.version, {}).get(other, 0)
                points = table.cross.get(line.version, {}).get(other, 0.0)
                if other == line.version or not games:
                    cells.append({"text": "·" if other == line.version else "–", "style": ""})
                    continue
                share = points / games
                cells.append(_heat(share, f"{points:g}/{games}", f"{share:.0%} of the points"))
            cross.append(cells)
        likelihoods = None
        if found.fit is not None:
            labels = {line.version: line.label for line in table.lines}
            likelihoods = _likelihoods(found.fit, order, labels)
        return self.page(
            "tournament.html",
            t=found.tournament,
            settings=_settings(found.tournament.options),
            duel=found.duel,
            progress=found.progress,
            table=table,
            cross=cross,
            likelihoods=likelihoods,
            held=found.held,
            matches=found.matches,
        )

    def bots(self, request: Request) -> Response:
        return self.page("bots.html", bots=pages.bots(self.store, self.actor))

    def bot(self, request: Request) -> Response:
        found = pages.bot(
            self.store,
            self.actor,
            request.path_params["name"],
            recent=HEALTH_MATCHES,
            decisions_over=DECISION_MATCHES,
        )
        return self.page(
            "bot.html",
            bot=found.bot,
            versions=found.versions,
            charts=[(v, _chart(found.histories[v.version.id], v.games)) for v in found.versions],
            latest=found.latest,
            recent=found.recent[:RECENT_SHOWN],
            held=found.held,
            health=sorted(found.health.items()),
            faults=[(name, found.health[status]) for status, name in FAULTS],
            played=sum(found.health.values()),
            times=found.times,
            unconfined=found.unconfined,
            failures=found.failures,
        )

    def matches(self, request: Request) -> Response:
        q = request.query_params
        game = q.get("game") or None
        tournament = inputs.number(q, "tournament")
        state = inputs.choice(q, "state", MATCH_STATES)
        bot = (q.get("bot") or "").strip()
        name: str | None = None
        version = None
        if bot:
            # NAME or NAME@vN (a name is split at its last "@v", as the CLI does)
            name, at, wanted = bot.rpartition("@v")
            if not at:
                name, wanted = bot, ""
            version = inputs.number({"version": wanted}, "version") if at else None
            if at and version is None:
                raise inputs.BadInput(f"bot={pages.quoted(bot)} names no version after @v")
        rows = pages.matches(
            self.store,
            self.actor,
            game=game,
            state=state,
            tournament=tournament,
            bot=name,
            version=version,
            limit=LIST_LIMIT,
        )
        return self.page(
            "matches.html",
            rows=rows,
            game=game or "",
            bot=bot,
            tournament=tournament,
            state=state or "",
            states=MATCH_STATES,
        )

    @_replay_work
    def match(self, request: Request) -> Response:
        match_id = request.path_params["id"]
        try:
            stored = pages.replay_page(self.store, self.actor, match_id)
        except replay.Unavailable as exc:
            if exc.kind == "unfinished":  # failed or cancelled: no replay, but why
                return self._ended(match_id)
            if exc.kind != "held":
                raise
            deal = pages.deal(self.store, self.actor, match_id)
            return self.page("error.html", STATUS["held"], kind="held", message=str(exc), deal=deal)
        if stored is None:
            return RedirectResponse(f"/matches/{match_id}/live", status_code=303)
        seat = inputs.number(request.query_params, "seat")
        if seat is not None and not 0 <= seat < len(stored.record.seats):
            raise replay.Unavailable("missing", f"match {match_id} has no seat {seat}")
        step = inputs.number(request.query_params, "step") or 0
        step = max(0, min(step, len(stored.record.actions)))
        info = replay.summary(stored, seat=seat)
        return self.page(
            "replay.html",
            m=stored.match,
            info=info,
            seat=seat,
            step=step,
            course=_course_chart(info["course"], step),
            deal=pages.deal(self.store, self.actor, match_id),
            logs=self._logs(match_id, len(stored.record.seats)),
            said=matches.worker_log(self.store, self.actor, match_id),
            analysis=None
            if seat is None
            else analysis.analysis(self.store, self.actor, match_id, seat),
            may_analyse=seat is not None
            and analysis.may_analyse(self.store, self.actor, match_id, seat),
        )

    @_replay_work
    def analyse(self, request: Request) -> Response:
        """Have the reference bot analyse one seat of the match (``?seat=N``), then show
        it beside that seat's view: for the seat's owner or an operator."""
        match_id = request.path_params["id"]
        seat = inputs.number(request.query_params, "seat")
        if seat is None:
            raise Invalid("seat: say which seat to analyse, ?seat=N")
        analysis.analyse(self.store, self.actor, match_id, seat, WEB_ANALYSIS_MS)
        return RedirectResponse(f"/matches/{match_id}?seat={seat}", status_code=303)

    def _ended(self, match_id: int) -> Response:
        """The page of a match that ended without a result (failed or cancelled): its seats,
        why it ended, and what the worker said about it to those who may read it."""
        try:
            found = pages.live(self.store, self.actor, match_id)
        except Held as exc:
            deal = pages.deal(self.store, self.actor, match_id)
            return self.page("error.html", STATUS["held"], kind="held", message=str(exc), deal=deal)
        return self.page(
            "ended.html",
            m=found.match,
            labels=found.labels,
            deal=pages.deal(self.store, self.actor, match_id),
            said=matches.worker_log(self.store, self.actor, match_id),
        )

    def _logs(self, match_id: int, seats: int) -> dict[int, str]:
        """What each seat's bot wrote that the signed-in user may read (their own bots';
        an operator's, all)."""
        if self.actor.name is None:
            return {}
        logs = {}
        for seat in range(seats):
            try:
                text = matches.log(self.store, self.actor, match_id, seat)["log"]
            except Forbidden:
                continue
            if text:
                logs[seat] = text
        return logs

    def live(self, request: Request) -> Response:
        match_id = request.path_params["id"]
        try:
            found = pages.live(self.store, self.actor, match_id)
        except Held as exc:
            deal = pages.deal(self.store, self.actor, match_id)
            return self.page("error.html", STATUS["held"], kind="held", message=str(exc), deal=deal)
        if found.match.state not in ("queued", "running"):  # done, failed or cancelled
            return RedirectResponse(f"/matches/{match_id}", status_code=303)
        deal = pages.deal(self.store, self.actor, match_id)
        said = matches.worker_log(self.store, self.actor, match_id)
        return self.page("live.html", m=found.match, labels=found.labels, deal=deal, said=said)

    # -- JSON ------------------------------------------------------------------------------

    @_replay_work
    def api_match(self, request: Request) -> Response:
        stored = pages.stored(self.store, self.actor, request.path_params["id"])
        seat = inputs.number(request.query_params, "seat")
        if seat is not None and not 0 <= seat < len(stored.record.seats):
            raise replay.Unavailable("missing", f"match {stored.match.id} has no seat {seat}")
        return _json(replay.summary(stored, seat=seat))

    @_replay_work
    def api_step(self, request: Request) -> Response:
        stored = pages.stored(self.store, self.actor, request.path_params["id"])
        seat = inputs.number(request.query_params, "seat")
        return _json(replay.frame(stored, request.path_params["step"], seat))

    @_replay_work
    def api_export(self, request: Request) -> Response:
        stored = pages.stored(self.store, self.actor, request.path_params["id"])
        return _json(replay.export(stored))

    async def live_events(self, request: Request) -> Response:
        """Server-sent events of a running match: its public events as its referee
        publishes them (WatchMatch), then ``end``. Refused (403) while another match of
        its duplicate deal is queued or running."""
        from starlette.concurrency import run_in_threadpool

        from referee.sessions import source_of_address

        match_id = request.path_params["id"]
        client = source_of_address(request.client.host) if request.client is not None else ""
        retry = {"Retry-After": str(round(LIVE_POLL_S * 10))}
        if self.streams[client] >= LIVE_STREAMS_PER_CLIENT:
            return PlainTextResponse(
                f"at most {LIVE_STREAMS_PER_CLIENT} live streams at once from one address",
                status_code=429,
                headers=retry,
            )
        if self.streams.total() >= LIVE_STREAMS:
            return PlainTextResponse(
                f"the live view is full: at most {LIVE_STREAMS} live streams at once; the "
                "replay shows every finished match",
                status_code=503,
                headers=retry,
            )
        if await run_in_threadpool(pages.held, self.store, self.actor, match_id):
            raise pages.held_live(match_id)
        self.streams[client] += 1

        def release() -> None:
            self.streams[client] -= 1
            if not self.streams[client]:
                del self.streams[client]

        return _Stream(
            self._live_stream(match_id),
            release,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store"},
        )

    async def _live_stream(self, match_id: int) -> AsyncIterator[str]:
        import asyncio

        from starlette.concurrency import run_in_threadpool

        loop = asyncio.get_running_loop()
        # a queued match has no referee yet: wait, a bounded time, for its worker to
        # record where it plays (in the match's row, under its claim: the app dials no
        # address from anywhere else)
        deadline = loop.time() + LIVE_WAIT_S
        while True:
            now = await run_in_threadpool(pages.watch, self.store, self.actor, match_id)
            if now.state not in ("queued", "running"):
                yield _sse("end", {"state": now.state})
                return
            if now.held:
                yield _sse("held", {"message": str(pages.held_live(match_id))})
                return
            if now.where is not None:
                break
            if loop.time() >= deadline:
                yield _sse("unavailable", {"message": _UNAVAILABLE, "state": now.state})
                return
            yield ": waiting\n\n"
            await asyncio.sleep(LIVE_POLL_S)
        import grpc

        from referee.auth import SecretError, platform_secret, watch_metadata
        from rummyarena.v1 import match_pb2, match_pb2_grpc

        address, referee_match = now.where
        try:
            # the watch credential of this one match, never the platform's secret
            metadata = watch_metadata(platform_secret(), referee_match)
        except SecretError:
            yield _sse("unavailable", {"message": _UNAVAILABLE, "state": now.state})
            return
        duplicate = now.duplicate
        # The referee may not have the match: not yet (the claim records where the match
        # will be played just before its worker creates it there), or no longer (the
        # worker took the record and had it released; it is being stored). Either way
        # the row tells, a moment later.
        missing_until = loop.time() + LIVE_MISSING_S
        while True:
            missing = False
            async with grpc.aio.insecure_channel(address) as channel:
                stub = match_pb2_grpc.MatchesStub(channel)  # type: ignore[no-untyped-call]
                call = stub.WatchMatch(
                    match_pb2.WatchMatchRequest(match_id=referee_match), metadata=metadata
                )
                updates: asyncio.Queue[Any] = asyncio.Queue()

                async def read(call: Any = call, updates: asyncio.Queue[Any] = updates) -> None:
                    try:
                        async for update in call:
                            await updates.put(update)
                    except grpc.RpcError as exc:
                        await updates.put(exc)
                    finally:
                        await updates.put(None)

                reader = asyncio.ensure_future(read())
                try:
                    n = 0  # the event's place: a browser that reconnects is sent them all again
                    ended = False
                    while not ended:
                        batch = [await updates.get()]
                        if duplicate:
                            # a failed sibling may be queued again while this one runs: no
                            # event goes out unless a look after it came found none (at most
                            # one look per LIVE_CHECK_S, the events gathering meanwhile)
                            await asyncio.sleep(LIVE_CHECK_S)
                        while not updates.empty():
                            batch.append(updates.get_nowait())
                        if duplicate and await run_in_threadpool(
                            pages.held, self.store, self.actor, match_id
                        ):
                            yield _sse("held", {"message": str(pages.held_live(match_id))})
                            return
                        for item in batch:
                            if (
                                isinstance(item, grpc.RpcError)
                                and n == 0
                                and item.code() == grpc.StatusCode.NOT_FOUND
                            ):
                                missing = True
                            elif isinstance(item, grpc.RpcError):
                                code = item.code()
                                message = f"the referee stopped answering: {code}"
                                yield _sse("error", {"message": message})
                            if item is None or isinstance(item, grpc.RpcError):
                                ended = True
                                break
                            if item.HasField("event"):
                                e = item.event
                                seat = e.seat if e.HasField("seat") else None
                                yield _sse("event", {"n": n, "seat": seat, "text": e.text})
                                n += 1
                            elif item.HasField("result"):
                                ended = True
                                break
                finally:
                    reader.cancel()
                    call.cancel()
            if not missing:
                break
            if loop.time() >= missing_until:
                message = "the referee does not have this match"
                yield _sse("error", {"message": message})
                break
            await asyncio.sleep(LIVE_CHECK_S)
            now = await run_in_threadpool(pages.watch, self.store, self.actor, match_id)
            if now.state != "running" or now.where != (address, referee_match):
                break
        # the record is stored a moment after the referee's result
        for _ in range(50):
            now = await run_in_threadpool(pages.watch, self.store, self.actor, match_id)
            if now.state not in ("queued", "running"):
                break
            await asyncio.sleep(0.1)
        yield _sse("end", {"state": now.state})


class _Stream(StreamingResponse):
    """A streaming response that calls ``release`` once it is over, however it ends
    (finished, the client gone, the server stopping)."""

    def __init__(self, content: AsyncIterator[str], release: Callable[[], None], **kw: Any):
        super().__init__(content, **kw)
        self.release = release

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.release()


#: How a tournament page names the settings a tournament was made with, in the order it
#: shows them (any other by its key, after them).
SETTING_NAMES = {
    "options": "game options",
    "clock": "clock",
    "games": "games",
    "table_size": "table size",
    "seed": "seed",
    "batch": "matches in flight",
    "max_games": "game limit",
}


def _settings(options: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A tournament's stored settings as (name, text) lines: a mapping as ``key=value``
    pairs (none: the defaults), a duel's test and its bots left out (its own section
    shows them)."""
    known = list(SETTING_NAMES)
    lines = []
    for key, value in sorted(
        options.items(), key=lambda kv: known.index(kv[0]) if kv[0] in known else len(known)
    ):
        if key in ("sprt", "a", "b", "result"):  # a duel's own section shows its test
            continue
        if key == "seed" and value is None:
            lines.append(("seed", "kept secret until the tournament ends (its deals come from it)"))
            continue
        if isinstance(value, Mapping):
            text = ", ".join(f"{k}={v}" for k, v in value.items()) or "the defaults"
        else:
            text = str(value)
        lines.append((SETTING_NAMES.get(key, key.replace("_", " ")), text))
    return lines


def _json(data: Any) -> JSONResponse:
    return JSONResponse(data, headers={"Cache-Control": "no-store"})


def _sse(kind: str, data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"


def _chart(history: list[tuple[int, int, float, float]], total: int) -> dict[str, Any]:
    """An Elo history (``Store.rating_history``, the newest of ``total``) as an SVG polyline
    in a 600×160 box, from the first rating before to the last after, with its range."""
    if not history:
        return {"points": "", "low": None, "high": None, "n": 0, "shown": 0}
    series = [history[0][2], *(after for _, _, _, after in history)]
    low, high = min(series), max(series)
    span = max(high - low, 1.0)
    step = 600 / max(len(series) - 1, 1)
    pts = [(i * step, 150 - (v - low) / span * 140) for i, v in enumerate(series)]
    return {
        "points": " ".join(f"{x:.1f},{y:.1f}" for x, y in pts),
        "low": math.floor(low),
        "high": math.ceil(high),
        "n": max(total, len(history)),
        "shown": len(history),
    }


def _trend(change: tuple[float, int] | None) -> dict[str, Any] | None:
    """A leaderboard's trend (``rating_trends``: Elo change, rated matches) as an arrow,
    the signed change and how many matches it spans."""
    if change is None:
        return None
    delta, n = change
    rounded = round(delta)
    kind = "up" if rounded > 0 else "down" if rounded < 0 else "flat"
    arrow = {"up": "▲", "down": "▼", "flat": "▶"}[kind]
    return {"arrow": arrow, "text": f"{rounded:+d}", "kind": kind, "n": n}


def _heat(share: float, text: str, title: str) -> dict[str, str]:
    """A heat-map cell: red for a share of 0, through yellow, to green for 1."""
    hue = round(120 * share)
    return {"text": text, "style": f"background:hsl({hue},70%,80%)", "title": title}


def _likelihoods(
    fit: BradleyTerryFit, order: list[int], labels: dict[int, str]
) -> list[list[dict[str, str]]]:
    """For each pair of ``order`` (bot versions) the probability that the line's bot is
    stronger than the column's under the batch fit, ``Φ((θa − θb) / sd(θa − θb))``, as
    heat-map cells (a bot the fit does not rate gets dashes)."""
    normal = NormalDist()
    index = {player: i for i, player in enumerate(fit.players)}
    rows = []
    for a in order:
        cells = []
        for b in order:
            i, j = index.get(a), index.get(b)
            if a == b or i is None or j is None:
                cells.append({"text": "·" if a == b else "–", "style": "", "title": ""})
                continue
            diff, sd = float(fit.strength[i] - fit.strength[j]), fit.difference_sd(i, j)
            p = normal.cdf(diff / sd) if sd > 0 else 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5
            title = f"P({labels.get(a, a)} stronger than {labels.get(b, b)}) = {p:.3f}"
            cells.append(_heat(p, f"{p:.2f}", title))
        rows.append(cells)
    return rows


def _course_chart(course: dict[str, Any] | None, step: int) -> dict[str, Any] | None:
    """A match's course (``replay.course``) as SVG polylines, one small chart per panel
    in a 320×100 box, x by step so that a cursor can mark the step shown. The lines of a
    panel are drawn a few pixels apart (:data:`COURSE_DODGE`) and each is named at its
    end, so that equal series (Flip Flop's three pots, seats tied at 0) lie side by side
    instead of hiding each other; a point's title keeps its exact value."""
    if course is None or len(course["points"]) < 2:
        return None
    width, height = 320, 100
    steps = max(course["steps"], 1)
    xs = [p["step"] / steps * width for p in course["points"]]
    panels = []
    for panel in course["panels"]:
        values = [v for series in panel["series"] for v in series["values"]]
        low, high = min(values), max(values)
        span = max(high - low, 1)
        count = len(panel["series"])
        # at most 9 px between the outer lines: the 5 px margins hold them
        dodge = min(COURSE_DODGE, 9 / max(count - 1, 1))
        series = []
        for k, line in enumerate(panel["series"]):
            shift = (k - (count - 1) / 2) * dodge
            ys = [height - (v - low) / span * (height - 10) - 5 - shift for v in line["values"]]
            series.append(
                {
                    "name": line["name"],
                    "colour": k,
                    "points": " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True)),
                    "dots": [
                        (x, y, f"{p['label']}: {line['name']} {v}")
                        for x, y, v, p in zip(xs, ys, line["values"], course["points"], strict=True)
                    ],
                    "label_y": ys[-1],
                }
            )
        _spread_labels(series, height)
        panels.append({"title": panel["title"], "low": low, "high": high, "series": series})
    return {
        "width": width,
        "height": height,
        "label_room": COURSE_LABEL_ROOM,
        "steps": course["steps"],
        "cursor": step / steps * width,
        "hands": len(course["points"]) - 1,
        "panels": panels,
    }


def _spread_labels(series: list[dict[str, Any]], height: int) -> None:
    """Move the end labels of a chart's lines (``label_y``) apart, keeping their order,
    until each is :data:`COURSE_LABEL_GAP` from the next and all lie within the chart."""
    order = sorted(series, key=lambda s: s["label_y"])
    gap = COURSE_LABEL_GAP
    top = gap / 2
    for s in order:  # downwards: each at least a gap below the one above
        s["label_y"] = top = max(s["label_y"], top)
        top += gap
    bottom = height - gap / 2
    for s in reversed(order):  # upwards: back inside the chart, the gaps kept
        s["label_y"] = bottom = min(s["label_y"], bottom)
        bottom -= gap


async def favicon(request: Request) -> Response:
    """``/favicon.ico``, which browsers ask for whatever a page links: the icon in
    ``static/``."""
    return RedirectResponse("/static/favicon.svg", status_code=301)


def create_app(store: Store, *, redis_url: str | None = None) -> Starlette:
    """The viewer's application over ``store``. ``redis_url`` is accepted for the callers
    that still pass it and not used: the live view finds a running match's referee in
    its row, never in Redis (``docs/viewer.md``)."""
    from worker import db
    from worker.store import StoreError

    viewer = Viewer(store)

    def not_shown(request: Request, kind: str, message: str) -> Response:
        status = STATUS.get(kind, 404)
        headers = {"Retry-After": "1"} if kind == "busy" else None
        if request.url.path.startswith("/api/"):
            body = {"error": kind, "message": message}
            return JSONResponse(body, status_code=status, headers=headers)
        page = viewer.page("error.html", status, kind=kind, message=message)
        page.headers.update(headers or {})
        return page

    async def unavailable(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, replay.Unavailable)
        return not_shown(request, exc.kind, str(exc))

    async def refused(request: Request, exc: Exception) -> Response:
        kind = next((k for t, k in REFUSALS if isinstance(exc, t)), "bad")
        return not_shown(request, kind, str(exc))

    def refuse(path: str, message: str, status: int = 400) -> Response:
        if path.startswith("/api/"):
            return JSONResponse({"error": "bad", "message": message}, status_code=status)
        return viewer.page("error.html", status, kind="bad", message=message)

    async def bad_input(request: Request, exc: Exception) -> Response:
        return refuse(request.url.path, str(exc))

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 404
        message = "there is no such page" if status == 404 else str(exc)
        return viewer.page("error.html", status, kind="missing", message=message)

    async def failure(request: Request, exc: Exception) -> Response:
        if isinstance(exc, db.StoreUnavailable):
            message = "the database does not answer; try again in a moment"
            return viewer.page("error.html", 503, kind="unavailable", message=message)
        if isinstance(exc, StoreError):
            return viewer.page("error.html", 404, kind="missing", message=str(exc))
        return viewer.page(
            "error.html", 500, kind="error", message=f"the page failed: {type(exc).__name__}"
        )

    routes = [
        Route("/", viewer.index),
        Route("/leaderboard", viewer.leaderboard),
        Route("/leaderboard/{game}", viewer.leaderboard),
        Route("/tournaments", viewer.tournaments),
        Route("/tournaments/{id:id}", viewer.tournament),
        Route("/bots", viewer.bots),
        Route("/bots/{name}", viewer.bot),
        Route("/matches", viewer.matches),
        Route("/matches/{id:id}", viewer.match),
        Route("/matches/{id:id}/live", viewer.live),
        Route("/matches/{id:id}/analyse", viewer.analyse, methods=["POST"]),
        Route("/matches/{id:id}/live/events", viewer.live_events),
        Route("/api/matches/{id:id}", viewer.api_match),
        Route("/api/matches/{id:id}/steps/{step:id}", viewer.api_step),
        Route("/api/matches/{id:id}/export", viewer.api_export),
        Route("/signin", viewer.sign_in, methods=["GET", "POST"]),
        Route("/signout", viewer.sign_out, methods=["POST"]),
        Route("/favicon.ico", favicon),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(
                inputs.CheckInputs, refuse=lambda scope, status, m: refuse(scope["path"], m, status)
            ),
            Middleware(SignedIn, store=store),
        ],
        exception_handlers={
            inputs.BadInput: bad_input,
            replay.Unavailable: unavailable,
            AppError: refused,
            HTTPException: not_found,
            Exception: failure,
        },
    )
    app.state.viewer = viewer
    return app
