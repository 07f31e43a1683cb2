"""What the web pages show (``docs/viewer.md``), read with who asks as every operation is
(``docs/architecture.md``, decision 14): the front page, leaderboards, tournaments with
their standings and duel tests, bots with their health, match lists, and what a
match's replay and live view may show. Anyone may read them.

A match of a duplicate deal whose other matches are still queued or running shows no
result, no record and no live event (decision 13): each function here applies that
before it returns, with the store's ``held_matches``. The values are the store's rows in
small dataclasses, for the pages' templates to lay out; :mod:`arena.app.reads` gives
the JSON that the commands print and the API answers."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

from arena.app import deals, replay
from arena.app.actors import Action, Actor, allowed, require
from arena.app.errors import Held, NotFound
from arena.app.reads import ladder_rows, qualification_report, shown_settings, shown_standings
from referee import settings
from referee.games import game_names
from referee.record import SeatStatus
from worker.store import (
    Bot,
    BotSummary,
    BotVersion,
    Ladder,
    LadderStanding,
    Match,
    MatchState,
    RatedVersion,
    RatingRow,
    SeatMatch,
    Store,
    StoreError,
    Tournament,
)

if TYPE_CHECKING:
    from worker.ratings import BradleyTerryFit
    from worker.sprt import Sprt
    from worker.standings import Standings

#: Action sources that were no decision of the bot (only one legal action, or forfeited).
NOT_DECIDED = frozenset({"forced", "forfeited"})
#: What a two-seat duel's test counts, by whether it counts pairs: A's single games
#: (lost, drew, won), or A's pairs of games over one deal.
DUEL_OUTCOMES = {False: ("lost", "drew", "won"), True: ("LL", "LD", "DD/WL", "WD", "WW")}


def duel_outcomes(sprt: Sprt) -> tuple[str, ...]:
    """The names of a duel's outcome bins: :data:`DUEL_OUTCOMES` at two seats, else A's
    score of each (``score 3/4``: its mean against B's seats, over a set if duplicate)."""
    if sprt.opponents == 1:
        return DUEL_OUTCOMES[sprt.pentanomial]
    return tuple(f"score {Fraction(j, sprt.steps)}" for j in range(sprt.steps + 1))


#: A rating history as ``Store.rating_history`` gives it: (match, step, Elo before, after).
History = list[tuple[int, int, float, float]]


def quoted(text: str) -> str:
    """``text``, a name or value someone typed, quoted for a message, cut to 40
    characters (no bot or game name is longer)."""
    return repr(text[:40] + ("…" if len(text) > 40 else ""))


# -- match lists ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A match of a listing, its bots' labels by seat, and whether it is held back (it
    shows no result and links to no replay or live view)."""

    m: Match
    bots: list[str]
    held: bool


def _match_rows(store: Store, matches: Sequence[Match]) -> list[MatchRow]:
    labels = store.labels(sorted({v for m in matches for v in m.seats}))
    held = store.held_matches([m.id for m in matches if m.duplicate_set is not None])
    return [MatchRow(m, [labels.get(v, str(v)) for v in m.seats], m.id in held) for m in matches]


def matches(
    store: Store,
    actor: Actor,
    *,
    game: str | None = None,
    state: MatchState | None = None,
    tournament: int | None = None,
    bot: str | None = None,
    version: int | None = None,
    limit: int,
) -> list[MatchRow]:
    """The newest ``limit`` matches, of ``game``, in ``state``, of ``tournament``, with a
    version of the bot named ``bot`` seated (only its version number ``version``, if
    given) as the filters that are not None ask; :class:`NotFound` for a game,
    tournament or bot that does not exist."""
    require(actor, Action.READ, what="list the matches")
    if game is not None and game not in game_names():
        raise NotFound(f"there is no game {quoted(game)}")
    if tournament is not None:
        try:
            store.tournament(tournament)
        except StoreError:
            raise NotFound(f"there is no tournament {tournament}") from None
    if bot is None:
        found = store.list_matches(game=game, state=state, tournament_id=tournament, limit=limit)
        return _match_rows(store, found)
    named = store.bot_by_name(bot)
    if named is None:
        raise NotFound(f"there is no bot named {quoted(bot)}")
    by_id: dict[int, Match] = {}
    for v in store.bot_versions(named.id):
        if version is not None and v.version.version != version:
            continue
        for m in store.list_matches(
            game=game,
            state=state,
            tournament_id=tournament,
            bot_version_id=v.version.id,
            limit=limit,
        ):
            by_id[m.id] = m
    return _match_rows(store, sorted(by_id.values(), key=lambda m: -m.id)[:limit])


# -- the front page, tournaments, leaderboards ----------------------------------------------


class TournamentRow(NamedTuple):
    """A tournament of a listing with its matches counted by state."""

    tournament: Tournament
    progress: dict[str, int]


@dataclass(frozen=True, slots=True)
class Front:
    """The front page: the newest tournaments and matches."""

    tournaments: list[TournamentRow]
    matches: list[MatchRow]


def tournaments(store: Store, actor: Actor, *, limit: int) -> list[TournamentRow]:
    """The newest ``limit`` tournaments, with their progress."""
    require(actor, Action.READ, what="list the tournaments")
    return [
        TournamentRow(t, store.tournament_progress(t.id)) for t in store.list_tournaments(limit)
    ]


def front(store: Store, actor: Actor, *, tournaments: int, matches: int) -> Front:
    """The newest ``tournaments`` tournaments and ``matches`` matches."""
    require(actor, Action.READ, what="read the front page")
    return Front(
        [
            TournamentRow(t, store.tournament_progress(t.id))
            for t in store.list_tournaments(tournaments)
        ],
        _match_rows(store, store.list_matches(limit=matches)),
    )


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """A game's leaderboard: its ladder and the ladder's pool, best first, when the game
    has one, else the online Elo of every rated version (``ratings``); and each
    version's Elo change over its latest rated matches (``trends``: change, matches)."""

    game: str
    ladder: Ladder | None
    pool: list[LadderStanding]
    ratings: list[RatingRow]
    trends: dict[int, tuple[float, int]]


def leaderboard(store: Store, actor: Actor, game: str, *, trend_matches: int) -> Leaderboard:
    """The leaderboard of ``game``, its trends over the last ``trend_matches`` rated
    matches of each version; :class:`NotFound` for a game that does not exist."""
    require(actor, Action.READ, what=f"read the leaderboard of {game}")
    if game not in game_names():
        raise NotFound(f"there is no game {game!r}")
    trends = store.rating_trends(game, trend_matches)
    ladder, pool = ladder_rows(store, game)
    ratings = store.ratings(game) if ladder is None else []
    return Leaderboard(game, ladder, pool, ratings, trends)


@dataclass(frozen=True, slots=True)
class TournamentPage:
    """A tournament: its progress, its standings and batch fit over the results that may
    be shown, how many finished matches are held back from them, a duel's test (None
    for other formats) and its newest matches."""

    tournament: Tournament
    progress: dict[str, int]
    table: Standings
    fit: BradleyTerryFit | None
    held: int
    duel: dict[str, Any] | None
    matches: list[MatchRow]


def tournament(store: Store, actor: Actor, tournament_id: int, *, matches: int) -> TournamentPage:
    """The tournament ``tournament_id`` with its newest ``matches`` matches;
    :class:`NotFound` for one that does not exist."""
    require(actor, Action.READ, what=f"read tournament {tournament_id}")
    try:
        t = store.tournament(tournament_id)
    except StoreError:
        raise NotFound(f"there is no tournament {tournament_id}") from None
    table, fit, held = shown_standings(store, t)
    return TournamentPage(
        dataclasses.replace(t, options=shown_settings(t)),
        store.tournament_progress(tournament_id),
        table,
        fit,
        held,
        _duel_test(store, t),
        _match_rows(store, store.list_matches(tournament_id=tournament_id, limit=matches)),
    )


def _duel_test(store: Store, tournament: Tournament) -> dict[str, Any] | None:
    """A duel's test (``docs/duels.md``) re-run over its finished matches
    (:func:`worker.duel.run_test`): its settings, its figures over every done match, and
    its verdict, which is the one the platform kept when it stopped the duel, else the
    first bound crossed in the order the matches were made (matches still running when
    it stopped are counted in the figures, not in the verdict). A duplicate pair counts
    once both its games are done, so a game whose partner is still being played shows
    nothing (decision 13). None for a tournament that is not a duel, or whose test
    settings cannot be read."""
    from worker import duel

    settings = duel.Settings.of(tournament)
    if settings is None:
        return None
    test = duel.run_test(settings, store.tournament_results(tournament.id))
    sprt = test.sprt
    kept = tournament.options.get("result")
    decided = kept if isinstance(kept, Mapping) and kept.get("games") is not None else test.decided
    verdict = str(kept["verdict"]) if isinstance(kept, Mapping) else test.verdict
    labels = store.labels([settings.a, settings.b])
    lower, upper = sprt.bounds()
    return {
        "a": labels.get(settings.a, str(settings.a)),
        "b": labels.get(settings.b, str(settings.b)),
        "sprt": sprt,
        "llr": sprt.llr(),
        "lower": lower,
        "upper": upper,
        "elo": sprt.elo(),
        "counts": list(zip(duel_outcomes(sprt), sprt.counts, strict=True)),
        "seats": settings.seats,
        "set": "pair" if settings.seats == 2 else "set",
        "verdict": verdict,
        "decided_at": None if decided is None else decided["games"],
        "over": tournament.state in ("done", "cancelled"),
    }


# -- bots ----------------------------------------------------------------------------------


def bots(store: Store, actor: Actor) -> list[BotSummary]:
    """Every bot, with its latest version and that one's Elo."""
    require(actor, Action.READ, what="list the bots")
    return store.list_bots()


@dataclass(frozen=True, slots=True)
class BotPage:
    """A bot: its versions with their newest Elo updates (by version id, up to
    :data:`CHART_UPDATES` each), its latest version and that one's newest matches
    (newest first; those in ``held`` show no result), its seat statuses counted over
    those that may be shown, and its thinking time per decision over them
    (:func:`_decision_times`)."""

    bot: Bot
    versions: list[RatedVersion]
    histories: dict[int, History]
    latest: BotVersion | None
    recent: list[SeatMatch]
    held: set[int]
    health: Counter[SeatStatus]
    times: dict[str, Any] | None
    #: Whether this platform's workers run hosted bots unconfined (``ARENA_SANDBOX=off``).
    unconfined: bool = False
    #: The qualification reports of the versions that failed, by version id (what the
    #: bot wrote to its standard error only for its owner and the operators).
    failures: dict[int, dict[str, Any]] = dataclasses.field(default_factory=dict)


#: The Elo updates of each version a bot's page draws: its newest (the page says how many
#: it has in all), so that the page costs the same after a million games as after ten.
CHART_UPDATES = 300


def bot(store: Store, actor: Actor, name: str, *, recent: int, decisions_over: int) -> BotPage:
    """The bot named ``name``, with the newest ``recent`` matches of its latest version
    and its decision times over the newest ``decisions_over`` finished ones that may be
    shown; :class:`NotFound` for a bot that does not exist."""
    require(actor, Action.READ, what=f"read bot {name!r}")
    found = store.bot_by_name(name)
    if found is None:
        raise NotFound(f"there is no bot named {name!r}")
    versions = store.bot_versions(found.id)
    histories = {
        v.version.id: store.rating_history(v.version.game, v.version.id, last=CHART_UPDATES)
        for v in versions
    }
    latest = versions[-1].version if versions else None
    played = store.recent_matches(latest.id, limit=recent) if latest else []
    # a finished match of a duplicate deal still being played shows no result, and its
    # record is not read
    held = store.held_matches([m.match_id for m in played])
    shown = [m for m in played if m.match_id not in held]
    health = Counter(m.status for m in shown if m.status is not None)
    times = _decision_times(store, shown, decisions_over)
    unconfined = settings.sandbox_mode() == "off"
    logs = allowed(actor, Action.LOGS, found.owner)
    failures = {
        v.version.id: report
        for v in versions
        if v.version.qualification == "failed"
        and (report := qualification_report(store, v.version, logs=logs)) is not None
    }
    return BotPage(
        found, versions, histories, latest, played, held, health, times, unconfined, failures
    )


def _percentile(ordered: list[int], q: float) -> int:
    """The nearest-rank ``q`` quantile (0 < q ≤ 1) of sorted values."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _decision_times(store: Store, recent: list[SeatMatch], over: int) -> dict[str, Any] | None:
    """Percentiles of a bot version's thinking time per decision over its latest
    ``over`` finished matches (``recent``, newest first), from their records'
    per-action times at its seats, in milliseconds; actions it did not choose (forced,
    forfeited) are left out. None when it has finished none."""
    from referee.wire import decode_record

    seats: dict[int, set[int]] = {}
    for m in recent:
        if m.state == "done" and (m.match_id in seats or len(seats) < over):
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


# -- a match: its replay, its live view ------------------------------------------------------


def stored(store: Store, actor: Actor, match_id: int) -> replay.StoredMatch:
    """The finished match ``match_id`` with its record, for its replay, its frames and
    its export; :class:`~arena.app.replay.Unavailable` saying why there is none
    (missing, unfinished, held back, corrupt)."""
    require(actor, Action.READ, what=f"read match {match_id}")
    return replay.load(store, match_id)


def replay_page(store: Store, actor: Actor, match_id: int) -> replay.StoredMatch | None:
    """What the page of match ``match_id`` shows: as :func:`stored` once it is finished;
    None while it is queued or running (its page is then its live view)."""
    require(actor, Action.READ, what=f"read match {match_id}")
    m = store.match(match_id)
    if m is not None and m.state in ("queued", "running"):
        return None
    return replay.load(store, match_id)


def deal(store: Store, actor: Actor, match_id: int) -> deals.Deal:
    """The seed commitment of match ``match_id`` that its page shows, with its seed and
    salt once they are revealed (:func:`arena.app.deals.sealed`)."""
    return deals.opened(store, actor, match_id)


def held_live(match_id: int) -> Held:
    """Why the live view of match ``match_id`` shows nothing: another match of its deal
    is queued or running."""
    return Held(
        f"match {match_id} is held back until every other match of its duplicate deal has "
        "finished: its events would show the cards they are playing"
    )


@dataclass(frozen=True, slots=True)
class Live:
    """A match as its live page shows it: its row and its bots' labels by seat."""

    match: Match
    labels: list[str]


def live(store: Store, actor: Actor, match_id: int) -> Live:
    """The match ``match_id`` for its live page; :class:`NotFound` for none, and, unless
    it is finished (its page is then its replay, which says what it may show),
    :class:`Held` while another match of its duplicate deal is queued or running."""
    require(actor, Action.READ, what=f"watch match {match_id}")
    m = store.match(match_id)
    if m is None:
        raise NotFound(f"there is no match {match_id}")
    if m.state != "done" and replay.held_back(store, m):
        raise held_live(match_id)
    labels = store.labels(m.seats)
    return Live(m, [labels.get(v, str(v)) for v in m.seats])


def held(store: Store, actor: Actor, match_id: int) -> bool:
    """Whether match ``match_id`` shares its duplicate deal with another match queued or
    running, so that its live events are not to be shown. One indexed query."""
    require(actor, Action.READ, what=f"watch match {match_id}")
    return bool(store.held_matches([match_id]))


@dataclass(frozen=True, slots=True)
class Watch:
    """What the live stream of a match may do now: its state (``missing`` for no match),
    whether it is of a duplicate deal, whether it is held back (:func:`held`), and,
    while it runs and is not held, where its referee plays it ((address, the referee's
    match id), recorded by its worker under its claim; None until the worker says)."""

    state: str
    duplicate: bool
    held: bool
    where: tuple[str, str] | None


def watch(store: Store, actor: Actor, match_id: int) -> Watch:
    """Where the live stream of match ``match_id`` stands (:class:`Watch`). A match no
    longer queued or running is not looked at further."""
    require(actor, Action.READ, what=f"watch match {match_id}")
    m = store.match(match_id)
    if m is None:
        return Watch("missing", False, False, None)
    duplicate = m.duplicate_set is not None
    if m.state not in ("queued", "running"):
        return Watch(m.state, duplicate, False, None)
    if duplicate and match_id in store.held_matches([match_id]):
        return Watch(m.state, duplicate, True, None)
    where = store.live_location(match_id) if m.state == "running" else None
    return Watch(m.state, duplicate, False, where)
