"""The Starlette application of the web viewer: pages rendered on the server with Jinja2,
a JSON endpoint per match that the replay page's script draws, and the live view of a
running match (server-sent events from its referee). Store calls are synchronous, so the
page handlers are plain functions that Starlette runs in its thread pool."""

from __future__ import annotations

import functools
import json
import math
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
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

from arena.app import reads, replay
from arena.web import inputs
from referee.games import game_names, get_game
from worker.store import MATCH_STATES

if TYPE_CHECKING:
    from worker.ratings import BradleyTerryFit
    from worker.store import Match, SeatMatch, Store, Tournament

HERE = Path(__file__).parent
#: HTTP status of each reason a page cannot be shown.
STATUS = {
    "bad": 400,
    "missing": 404,
    "held": 403,
    "unfinished": 409,
    "corrupt": 422,
    "busy": 503,
}
#: Requests that re-run records (replay pages, frames, summaries, exports) served at once,
#: and how long one waits for a slot before it is answered 503 (docs/performance.md).
REPLAY_SLOTS = 4
REPLAY_WAIT_S = 10.0
#: Matches a listing shows.
LIST_LIMIT = 200
#: Rated matches a leaderboard's trend looks back over.
TREND_MATCHES = 10
#: Finished matches whose records the bot page reads for its decision times.
DECISION_MATCHES = 50
#: Action sources that were no decision of the bot (only one legal action, or forfeited).
NOT_DECIDED = frozenset({"forced", "forfeited"})
#: The longest a live stream waits for its match to start (queued, or claimed by a
#: worker that has not yet said where it plays), in seconds; then it says the live view
#: is unavailable and ends (docs/viewer.md).
LIVE_WAIT_S = 600.0
#: Live streams one client address may hold open at once; one more is answered 429.
LIVE_STREAMS_PER_CLIENT = 4
#: How often a waiting live stream looks at the match again, in seconds.
LIVE_POLL_S = 1.0
#: How often, at most, the stream of a match of a duplicate deal looks whether another
#: match of its deal is queued or running again before it sends the events that came.
LIVE_CHECK_S = 0.25
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
FAULTS = (
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


class Viewer:
    """The pages, over one store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.env = _env()
        #: Live streams open now, by client address (the event loop's alone: no lock).
        self.streams: Counter[str] = Counter()
        self.replay_slots = threading.BoundedSemaphore(REPLAY_SLOTS)

    def page(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        """Template ``name`` rendered with ``context``."""
        return HTMLResponse(self.env.get_template(name).render(**context), status_code=status)

    # -- pages -----------------------------------------------------------------------------

    def index(self, request: Request) -> Response:
        tournaments = self.store.list_tournaments(limit=10)
        return self.page(
            "index.html",
            tournaments=[(t, self.store.tournament_progress(t.id)) for t in tournaments],
            matches=self._match_rows(self.store.list_matches(limit=15)),
        )

    def leaderboard(self, request: Request) -> Response:
        from arena.app.reads import ladder_rows
        from worker import skill

        game = request.path_params.get("game") or game_names()[0]
        if game not in game_names():
            raise replay.Unavailable("missing", f"there is no game {game!r}")
        elo = self.store.ratings(game)
        trends = self.store.rating_trends(game, TREND_MATCHES)
        ladder, pool = ladder_rows(self.store, game)
        rows = []
        if ladder is not None:
            for r in pool:
                row: dict[str, Any] = {
                    "label": r.label,
                    "elo": r.elo,
                    "trend": _trend(trends.get(r.version)),
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
                    "trend": _trend(trends.get(r.bot_version_id)),
                    "games": r.games,
                }
                for r in elo
            ]
        return self.page(
            "leaderboard.html", game=game, ladder=ladder, rows=rows, trend_matches=TREND_MATCHES
        )

    def tournaments(self, request: Request) -> Response:
        items = self.store.list_tournaments(limit=200)
        return self.page(
            "tournaments.html",
            tournaments=[(t, self.store.tournament_progress(t.id)) for t in items],
        )

    def tournament(self, request: Request) -> Response:
        from worker.store import StoreError

        tid = request.path_params["id"]
        try:
            t = self.store.tournament(tid)
        except StoreError:
            raise replay.Unavailable("missing", f"there is no tournament {tid}") from None
        table, fit, held = reads.shown_standings(self.store, t)
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
        if fit is not None:
            labels = {line.version: line.label for line in table.lines}
            likelihoods = _likelihoods(fit, order, labels)
        return self.page(
            "tournament.html",
            t=t,
            settings=_settings(t.options),
            duel=_duel_test(self.store, t),
            progress=self.store.tournament_progress(tid),
            table=table,
            cross=cross,
            likelihoods=likelihoods,
            held=held,
            matches=self._match_rows(self.store.list_matches(tournament_id=tid, limit=50)),
        )

    def bots(self, request: Request) -> Response:
        return self.page("bots.html", bots=self.store.list_bots())

    def bot(self, request: Request) -> Response:
        name = request.path_params["name"]
        bot = self.store.bot_by_name(name)
        if bot is None:
            raise replay.Unavailable("missing", f"there is no bot named {name!r}")
        versions = self.store.bot_versions(bot.id)
        charts = []
        for v in versions:
            history = self.store.rating_history(v.version.game, v.version.id)
            charts.append((v, _chart(history)))
        latest = versions[-1].version if versions else None
        recent = self.store.recent_matches(latest.id, limit=200) if latest else []
        # a finished match of a duplicate deal still being played shows no result, and
        # its record is not read (docs/architecture.md, decision 13)
        held = self.store.held_matches([m.match_id for m in recent])
        health = Counter(m.status for m in recent if m.status is not None)
        return self.page(
            "bot.html",
            bot=bot,
            versions=versions,
            charts=charts,
            latest=latest,
            recent=recent[:20],
            held=held,
            health=sorted(health.items()),
            faults=[(name, health[status]) for status, name in FAULTS],
            played=sum(health.values()),
            times=_decision_times(self.store, [m for m in recent if m.match_id not in held]),
        )

    def matches(self, request: Request) -> Response:
        from worker.store import StoreError

        q = request.query_params
        game = q.get("game") or None
        if game is not None and game not in game_names():
            raise replay.Unavailable("missing", f"there is no game {inputs.shown(game)}")
        tournament = inputs.number(q, "tournament")
        if tournament is not None:
            try:
                self.store.tournament(tournament)
            except StoreError:
                raise replay.Unavailable(
                    "missing", f"there is no tournament {tournament}"
                ) from None
        state = inputs.choice(q, "state", MATCH_STATES)
        bot = (q.get("bot") or "").strip()
        found: list[Match] = []
        if bot:
            # NAME or NAME@vN (a name is split at its last "@v", as the CLI does)
            name, at, wanted = bot.rpartition("@v")
            if not at:
                name, wanted = bot, ""
            version = inputs.number({"version": wanted}, "version") if at else None
            if at and version is None:
                raise inputs.BadInput(f"bot={inputs.shown(bot)} names no version after @v")
            b = self.store.bot_by_name(name)
            if b is None:
                raise replay.Unavailable("missing", f"there is no bot named {inputs.shown(name)}")
            for v in self.store.bot_versions(b.id):
                if version is not None and v.version.version != version:
                    continue
                found += self.store.list_matches(
                    game=game,
                    state=state,
                    tournament_id=tournament,
                    bot_version_id=v.version.id,
                    limit=LIST_LIMIT,
                )
            found = sorted({m.id: m for m in found}.values(), key=lambda m: -m.id)[:LIST_LIMIT]
        else:
            found = self.store.list_matches(
                game=game, state=state, tournament_id=tournament, limit=LIST_LIMIT
            )
        return self.page(
            "matches.html",
            rows=self._match_rows(found),
            game=game or "",
            bot=bot,
            tournament=tournament,
            state=state or "",
            states=MATCH_STATES,
        )

    @_replay_work
    def match(self, request: Request) -> Response:
        match_id = request.path_params["id"]
        m = self.store.match(match_id)
        if m is not None and m.state in ("queued", "running"):
            return RedirectResponse(f"/matches/{match_id}/live", status_code=303)
        stored = replay.load(self.store, match_id)
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
        )

    def live(self, request: Request) -> Response:
        match_id = request.path_params["id"]
        m = self.store.match(match_id)
        if m is None:
            raise replay.Unavailable("missing", f"there is no match {match_id}")
        if m.state == "done":
            return RedirectResponse(f"/matches/{match_id}", status_code=303)
        if replay.held_back(self.store, m):
            raise _held_live(match_id)
        labels = self.store.labels(m.seats)
        return self.page("live.html", m=m, labels=[labels.get(v, str(v)) for v in m.seats])

    # -- JSON ------------------------------------------------------------------------------

    @_replay_work
    def api_match(self, request: Request) -> Response:
        stored = replay.load(self.store, request.path_params["id"])
        seat = inputs.number(request.query_params, "seat")
        if seat is not None and not 0 <= seat < len(stored.record.seats):
            raise replay.Unavailable("missing", f"match {stored.match.id} has no seat {seat}")
        return _json(replay.summary(stored, seat=seat))

    @_replay_work
    def api_step(self, request: Request) -> Response:
        stored = replay.load(self.store, request.path_params["id"])
        seat = inputs.number(request.query_params, "seat")
        return _json(replay.frame(stored, request.path_params["step"], seat))

    @_replay_work
    def api_export(self, request: Request) -> Response:
        return _json(replay.export(replay.load(self.store, request.path_params["id"])))

    async def live_events(self, request: Request) -> Response:
        """Server-sent events of a running match: its public events as its referee
        publishes them (WatchMatch), then ``end``. Refused (403) while another match of
        its duplicate deal is queued or running."""
        from starlette.concurrency import run_in_threadpool

        match_id = request.path_params["id"]
        client = request.client.host if request.client is not None else ""
        if self.streams[client] >= LIVE_STREAMS_PER_CLIENT:
            return PlainTextResponse(
                f"at most {LIVE_STREAMS_PER_CLIENT} live streams at once from one address",
                status_code=429,
                headers={"Retry-After": str(round(LIVE_POLL_S * 10))},
            )
        if await run_in_threadpool(self._held, match_id):
            raise _held_live(match_id)
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

    def _held(self, match_id: int) -> bool:
        return bool(self.store.held_matches([match_id]))

    async def _live_stream(self, match_id: int) -> AsyncIterator[str]:
        import asyncio

        from starlette.concurrency import run_in_threadpool

        loop = asyncio.get_running_loop()
        # a queued match has no referee yet: wait, a bounded time, for its worker to
        # record where it plays (in the match's row, under its claim: the app dials no
        # address from anywhere else)
        deadline = loop.time() + LIVE_WAIT_S
        while True:
            m = await run_in_threadpool(self.store.match, match_id)
            if m is None or m.state not in ("queued", "running"):
                yield _sse("end", {"state": "missing" if m is None else m.state})
                return
            if m.duplicate_set is not None and await run_in_threadpool(self._held, match_id):
                yield _sse("held", {"message": str(_held_live(match_id))})
                return
            where = None
            if m.state == "running":
                where = await run_in_threadpool(self.store.live_location, match_id)
            if where is not None:
                break
            if loop.time() >= deadline:
                yield _sse("unavailable", {"message": _UNAVAILABLE, "state": m.state})
                return
            yield ": waiting\n\n"
            await asyncio.sleep(LIVE_POLL_S)
        import grpc

        from referee.auth import SecretError, platform_secret, watch_metadata
        from rummyarena.v1 import match_pb2, match_pb2_grpc

        address, referee_match = where
        try:
            # the watch credential of this one match, never the platform's secret
            metadata = watch_metadata(platform_secret(), referee_match)
        except SecretError:
            yield _sse("unavailable", {"message": _UNAVAILABLE, "state": m.state})
            return
        duplicate = m.duplicate_set is not None
        async with grpc.aio.insecure_channel(address) as channel:
            stub = match_pb2_grpc.MatchesStub(channel)  # type: ignore[no-untyped-call]
            call = stub.WatchMatch(
                match_pb2.WatchMatchRequest(match_id=referee_match), metadata=metadata
            )
            updates: asyncio.Queue[Any] = asyncio.Queue()

            async def read() -> None:
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
                    if duplicate and await run_in_threadpool(self._held, match_id):
                        yield _sse("held", {"message": str(_held_live(match_id))})
                        return
                    for item in batch:
                        if isinstance(item, grpc.RpcError):
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
        # the record is stored a moment after the referee's result
        for _ in range(50):
            m = await run_in_threadpool(self.store.match, match_id)
            if m is None or m.state not in ("queued", "running"):
                break
            await asyncio.sleep(0.1)
        yield _sse("end", {"state": "missing" if m is None else m.state})

    # -- helpers ---------------------------------------------------------------------------

    def _match_rows(self, matches: list[Match]) -> list[dict[str, Any]]:
        """Rows of a match list: the match, its bots, and whether it is held back (no
        link to its replay or live view, no result: docs/architecture.md, decision 13)."""
        labels = self.store.labels(sorted({v for m in matches for v in m.seats}))
        held = self.store.held_matches([m.id for m in matches if m.duplicate_set is not None])
        return [
            {"m": m, "bots": [labels.get(v, str(v)) for v in m.seats], "held": m.id in held}
            for m in matches
        ]


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


def _held_live(match_id: int) -> replay.Unavailable:
    return replay.Unavailable(
        "held",
        f"match {match_id} is held back until every other match of its duplicate deal has "
        "finished: its events would show the cards they are playing",
    )


#: How a tournament page names the settings a tournament was made with, in the order it
#: shows them (any other by its key, after them).
SETTING_NAMES = {
    "options": "game options",
    "clock": "clock",
    "games": "games",
    "table_size": "table size",
    "seed": "seed",
}
#: What a duel page calls each outcome the test counts: A's single games, or pairs.
DUEL_OUTCOMES = {False: ("lost", "drew", "won"), True: ("LL", "LD", "DD/WL", "WD", "WW")}


def _settings(options: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A tournament's stored settings as (name, text) lines: a mapping as ``key=value``
    pairs (none: the defaults), a duel's test left out (its own section shows it)."""
    known = list(SETTING_NAMES)
    lines = []
    for key, value in sorted(
        options.items(), key=lambda kv: known.index(kv[0]) if kv[0] in known else len(known)
    ):
        if key == "sprt":
            continue
        if isinstance(value, Mapping):
            text = ", ".join(f"{k}={v}" for k, v in value.items()) or "the defaults"
        else:
            text = str(value)
        lines.append((SETTING_NAMES.get(key, key.replace("_", " ")), text))
    return lines


def _duel_test(store: Store, tournament: Tournament) -> dict[str, Any] | None:
    """A duel's test (``docs/duels.md``) re-run over its finished matches, as ``arena
    duel`` fed it: its settings, its figures over every result that may be shown, and
    its verdict, which is the first bound crossed in the order the matches were made (a
    sequential test stops there; matches already running when it stopped are counted in
    the figures, not in the verdict). A duplicate pair counts once both its games are
    done, so a game whose partner is still being played shows nothing (decision 13).
    None for a tournament that is not a duel, or whose test settings cannot be read."""
    from worker.ratings import SeatResult, effective_ranks
    from worker.sprt import Sprt, game_score

    stored = tournament.options.get("sprt")
    if tournament.format != "duel" or not isinstance(stored, Mapping) or not tournament.entries:
        return None
    try:
        sprt = Sprt(
            float(stored["elo0"]),
            float(stored["elo1"]),
            float(stored["alpha"]),
            float(stored["beta"]),
            pentanomial=bool(stored["pentanomial"]),
        )
    except (KeyError, TypeError, ValueError):
        return None
    a = tournament.entries[0]
    pairs: dict[int, list[float]] = {}
    verdict, decided_at = "continue", None
    for r in store.tournament_results(tournament.id):
        versions = [s.version for s in r.seats]
        if len(versions) != 2 or a not in versions:
            continue
        ranks = effective_ranks([SeatResult(s.version, s.rank, s.forfeit) for s in r.seats])
        mine = versions.index(a)
        score = game_score(ranks[mine], ranks[1 - mine])
        if sprt.pentanomial and r.duplicate_set is not None:
            pair = pairs.setdefault(r.duplicate_set, [])
            pair.append(score)
            if len(pair) < 2:
                continue
            sprt.add_pair(*pair)
        else:
            sprt.add_game(score)
        if decided_at is None and sprt.status() != "continue":
            verdict, decided_at = sprt.status(), sprt.games
    labels = store.labels(tournament.entries)
    lower, upper = sprt.bounds()
    return {
        "a": labels.get(a, str(a)),
        "b": labels.get(tournament.entries[-1], str(tournament.entries[-1])),
        "sprt": sprt,
        "llr": sprt.llr(),
        "lower": lower,
        "upper": upper,
        "elo": sprt.elo(),
        "counts": list(zip(DUEL_OUTCOMES[sprt.pentanomial], sprt.counts, strict=True)),
        "verdict": verdict,
        "decided_at": decided_at,
        "over": tournament.state in ("done", "cancelled"),
    }


def _json(data: Any) -> JSONResponse:
    return JSONResponse(data, headers={"Cache-Control": "no-store"})


def _sse(kind: str, data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"


def _chart(history: list[tuple[int, int, float, float]]) -> dict[str, Any]:
    """An Elo history (``rating_history`` rows) as an SVG polyline in a 600×160 box, from
    the first rating before to the last after, with its range."""
    if not history:
        return {"points": "", "low": None, "high": None, "n": 0}
    series = [history[0][2], *(after for _, _, _, after in history)]
    low, high = min(series), max(series)
    span = max(high - low, 1.0)
    step = 600 / max(len(series) - 1, 1)
    pts = [(i * step, 150 - (v - low) / span * 140) for i, v in enumerate(series)]
    return {
        "points": " ".join(f"{x:.1f},{y:.1f}" for x, y in pts),
        "low": math.floor(low),
        "high": math.ceil(high),
        "n": len(history),
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


def _percentile(ordered: list[int], q: float) -> int:
    """The nearest-rank ``q`` quantile (0 < q ≤ 1) of sorted values."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _decision_times(store: Store, recent: list[SeatMatch]) -> dict[str, Any] | None:
    """Percentiles of a bot version's thinking time per decision over its latest
    finished matches (``recent``, newest first; :data:`DECISION_MATCHES` of them), from
    their records' per-action times at its seats; actions it did not choose (forced,
    forfeited) are left out."""
    from referee.wire import decode_record

    seats: dict[int, set[int]] = {}
    for m in recent:
        if m.state == "done" and (m.match_id in seats or len(seats) < DECISION_MATCHES):
            seats.setdefault(m.match_id, set()).add(m.seat)
    if not seats:
        return None
    times: list[int] = []
    unreadable = 0
    for entry in store.records(list(seats), decode=decode_record):
        if entry.value is None:
            unreadable += 1
            continue
        mine = seats[entry.match_id]
        times += [
            a.think_us
            for a in entry.value.actions
            if a.seat in mine and a.source not in NOT_DECIDED
        ]
    times.sort()
    out: dict[str, Any] = {"matches": len(seats) - unreadable, "decisions": len(times)}
    out["unreadable"] = unreadable
    if times:
        for name, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99)):
            out[name] = _percentile(times, q) / 1000
    return out


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

    async def unavailable(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, replay.Unavailable)
        status = STATUS.get(exc.kind, 404)
        headers = {"Retry-After": "1"} if exc.kind == "busy" else None
        if request.url.path.startswith("/api/"):
            body = {"error": exc.kind, "message": str(exc)}
            return JSONResponse(body, status_code=status, headers=headers)
        page = viewer.page("error.html", status, kind=exc.kind, message=str(exc))
        page.headers.update(headers or {})
        return page

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
        Route("/matches/{id:id}/live/events", viewer.live_events),
        Route("/api/matches/{id:id}", viewer.api_match),
        Route("/api/matches/{id:id}/steps/{step:id}", viewer.api_step),
        Route("/api/matches/{id:id}/export", viewer.api_export),
        Route("/favicon.ico", favicon),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(
                inputs.CheckInputs, refuse=lambda scope, status, m: refuse(scope["path"], m, status)
            )
        ],
        exception_handlers={
            inputs.BadInput: bad_input,
            replay.Unavailable: unavailable,
            HTTPException: not_found,
            Exception: failure,
        },
    )
    app.state.viewer = viewer
    return app
