"""``arena bench scale``: what the platform's reads and writes cost as finished matches
pile up. It fills a scratch database, in stages (10k, 100k, 1M matches by default), with
finished matches of the four games — real records played by the engines, many bots and
versions, round robins and a ladder — and after each stage measures the finish
transaction, a ladder tick, the pages and API calls people use most, and the bytes kept
per match (``docs/performance.md``, "A million matches").

The matches are written as the store writes them, only in bulk: each record passes the
store's own check (:func:`worker.store.finished.check_finished`), which gives the seat
results stored beside it; rows go in with ``COPY``; the Elo ratings and their history are
then rebuilt by the store's own replay (:meth:`Store.recompute_ratings`), the same
arithmetic as the finishes it stands for. Every measured finish and tick afterwards goes
through the store's ordinary code, on top of all that."""

from __future__ import annotations

import hashlib
import random
import secrets
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from psycopg.types.json import Jsonb

from arena.bench.sample import ONE_HAND  # one hand (or round) per match, as a ladder plays Gin

if TYPE_CHECKING:
    from starlette.testclient import TestClient

    from worker.store import Store

#: The stages at which the figures are taken (those below the total; the total itself too).
STAGES = (10_000, 100_000, 1_000_000)
#: The share of each game among the matches (Hollywood Gin, the platform's busiest, most),
#: and how many seats its matches have.
MIX = {"hollywood-gin": 0.7, "gin-three": 0.1, "rummy-500": 0.1, "flip-flop": 0.1}
SEATS = {"hollywood-gin": (2,), "gin-three": (3,), "rummy-500": (2, 3, 4), "flip-flop": (3, 4, 5)}
#: Records played per game and number of seats; the stored matches reuse them in turn.
RECORDS_PER_KIND = 40
OWNERS, BOTS_PER_GAME, VERSIONS_PER_BOT = 20, 30, 2
#: Shares of the matches played in round robins (of :data:`TOURNAMENT_MATCHES` each, among
#: :data:`TOURNAMENT_ENTRIES` bots) and in the ladder (Hollywood Gin); the rest are duels
#: and single matches.
TOURNAMENT_SHARE, LADDER_SHARE = 0.4, 0.1
TOURNAMENT_MATCHES, TOURNAMENT_ENTRIES = 2_000, 8
LADDER_GAME = "hollywood-gin"
#: Matches written per COPY transaction.
CHUNK = 20_000
#: The goals the figures are read against (the table marks a figure that misses one).
P50_LIMIT_MS, GROWTH_LIMIT, GIN_HAND_LIMIT_BYTES = 100.0, 2.0, 1024


@dataclass(frozen=True)
class Played:
    """A played record and what the store's check read from it."""

    game: str
    seed: int
    record: bytes
    sha: bytes
    #: How the store keeps it (:func:`worker.store.packing.pack`).
    format: str
    packed: bytes
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    num_actions: int


def play_records(per_kind: int = RECORDS_PER_KIND, seed: int = 1) -> dict[str, list[Played]]:
    """Records of one-hand matches of every game and number of seats, played in process
    (Hollywood Gin by :func:`bots.policies.gin_greedy`, a bot's way of playing it, the
    others by seeded random legal choices) and checked as the store checks a finish."""
    from bots.policies import gin_greedy
    from referee.games import get_game
    from referee.record import ActionEntry, ActionSource, MatchRecord, SeatEntry, options_dict
    from referee.wire import encode_record
    from worker.store.finished import FinishedMatch, check_finished
    from worker.store.packing import pack

    out: dict[str, list[Played]] = {game: [] for game in MIX}
    rng = random.Random(seed)
    for game in MIX:
        for n in SEATS[game]:
            for i in range(per_kind):
                deal = seed * 1_000_003 + i * 31 + n
                state = get_game(game).new_match(deal, seats=n, options=ONE_HAND[game])
                actions = []
                while (seat := state.to_act()) is not None:
                    legal = state.legal_actions()
                    if game == "hollywood-gin":
                        action = gin_greedy(state.view(seat), legal)
                    else:
                        action = legal[rng.randrange(len(legal))]
                    state.apply(action)
                    source: ActionSource = "forced" if len(legal) == 1 else "bot"
                    think = rng.randrange(50, 20_000)
                    actions.append(ActionEntry(seat, str(action), think, source))
                result = state.result()
                assert result is not None
                record = encode_record(
                    MatchRecord(
                        game=game,
                        options=options_dict(state.options),
                        seed=deal,
                        seats=tuple(
                            SeatEntry(f"{game}-bot-{(i + s) % BOTS_PER_GAME}@v{1 + s % 2}")
                            for s in range(n)
                        ),
                        actions=tuple(actions),
                        result=result,
                        match_id=str(i),
                        started_unix_ms=1_700_000_000_000 + i,
                    )
                )
                checked = check_finished(0, FinishedMatch(record))
                out[game].append(
                    Played(
                        game,
                        deal,
                        record,
                        hashlib.sha256(record).digest(),
                        *pack(game, record),
                        tuple(r.rank for r in checked.results),
                        tuple(r.score for r in checked.results),
                        checked.num_actions,
                    )
                )
    return out


@dataclass
class Population:
    """Who plays: the bot versions of each game (newest last per bot), the round robins
    being filled, and the ladder."""

    versions: dict[str, list[int]]
    names: dict[int, str]
    ladder_id: int
    ladder_pool: list[int]
    tournaments: dict[str, tuple[int, list[int], int]]  # game → (id, entries, matches so far)
    made: int = 0
    #: The first round robin of the ladder's game: full from the first stage on, it is
    #: the one whose pages are measured.
    measured_tournament: int | None = None


def populate(store: Store) -> Population:
    """Owners, bots and versions of every game, and the ladder with its pool."""
    for i in range(OWNERS):
        store.create_user(f"owner-{i}")
    versions: dict[str, list[int]] = {}
    names: dict[int, str] = {}
    newest: list[int] = []
    for game in MIX:
        versions[game] = []
        for b in range(BOTS_PER_GAME):
            name = f"{game}-bot-{b}"
            bot = store.add_bot(name, f"owner-{b % OWNERS}")
            for v in range(VERSIONS_PER_BOT):
                manifest = {"game": game, "command": ["python", "bot.py"]}
                archive = f"{name} v{v}".encode()
                version = store.add_bot_version(bot, archive, manifest, f"owner-{b % OWNERS}").id
                versions[game].append(version)
                names[version] = name
            if game == LADDER_GAME:
                newest.append(versions[game][-1])
    ladder = store.start_ladder(
        LADDER_GAME, "scale", {"in_flight": 4, "options": ONE_HAND[LADDER_GAME]}
    )
    for version in newest:
        store.join_ladder(ladder.id, version)
    return Population(versions, names, ladder.id, newest, {})


def _reserve(conn: Any, sequence: str, count: int) -> int:
    """The first of ``count`` consecutive values taken from ``sequence`` at once."""
    query = "SELECT setval(%s, nextval(%s) + %s - 1) - %s + 1"
    return int(_one(conn, query, (sequence, sequence, count, count))[0])


def _tournament(store: Store, population: Population, game: str, rng: random.Random) -> int:
    """The round robin of ``game`` being filled, a new one when the last is full."""
    current = population.tournaments.get(game)
    if current is not None and current[2] < TOURNAMENT_MATCHES:
        tid, entries, played = current
        population.tournaments[game] = (tid, entries, played + 1)
        return tid
    entries = rng.sample(population.versions[game], TOURNAMENT_ENTRIES)
    population.made += 1
    tid = store.create_tournament(f"{game} round robin {population.made}", game, entries)
    if game == LADDER_GAME and population.measured_tournament is None:
        population.measured_tournament = tid
    with store.pool.connection() as conn:
        conn.execute("UPDATE tournaments SET state = 'done' WHERE id = %s", (tid,))
    population.tournaments[game] = (tid, entries, 1)
    return tid


def load(
    store: Store,
    population: Population,
    played: dict[str, list[Played]],
    count: int,
    rng: random.Random,
    *,
    ends: datetime,
) -> None:
    """Write ``count`` finished matches, the last finished just before ``ends``, then
    rebuild every game's ratings and refresh the planner's statistics."""
    games, weights = list(MIX), list(MIX.values())
    written = 0
    while written < count:
        size = min(CHUNK, count - written)
        with store.pool.connection() as conn, conn.transaction():
            first_id = _reserve(conn, "matches_id_seq", size)
            first_seq = _reserve(conn, "match_finish_seq", size)
            matches, seats, records = [], [], []
            for i in range(size):
                match_id, seq = first_id + i, first_seq + i
                game = rng.choices(games, weights)[0]
                record = played[game][rng.randrange(len(played[game]))]
                n = len(record.ranks)
                tournament = ladder = None
                draw = rng.random()
                if game == LADDER_GAME and draw < LADDER_SHARE / MIX[LADDER_GAME]:
                    ladder = population.ladder_id
                    players = rng.sample(population.ladder_pool, n)
                elif draw > 1 - TOURNAMENT_SHARE:
                    tournament = _tournament(store, population, game, rng)
                    players = rng.sample(population.tournaments[game][1], n)
                else:
                    players = rng.sample(population.versions[game], n)
                finished = ends - timedelta(seconds=(count - written - i) * 3)
                salt = secrets.token_bytes(16)
                commitment = hashlib.sha256(record.seed.to_bytes(8, "big") + salt).digest()
                matches.append(
                    (
                        match_id, game, Jsonb(ONE_HAND[game]), record.seed, salt, commitment, n,
                        tournament, ladder, "done", 1, seq,
                        finished - timedelta(seconds=2), finished - timedelta(seconds=1),
                        finished, ladder is not None,
                    )
                )  # fmt: skip
                for seat, player in enumerate(players):
                    rank, score = record.ranks[seat], record.scores[seat]
                    seats.append((match_id, seat, player, rank, score, "ok", False))
                records.append(
                    (
                        match_id, record.format, record.packed, record.sha,
                        record.num_actions, rng.randrange(200, 3_000),
                    )
                )  # fmt: skip
            _copy(
                conn,
                "matches (id, game, options, seed, seed_salt, seed_commitment, num_seats,"
                " tournament_id, ladder_id, state, attempts, finish_seq, created_at, started_at,"
                " finished_at, ladder_counted)",
                matches,
            )
            _copy(
                conn,
                "match_seats (match_id, seat, bot_version_id, rank, score, status, forfeit)",
                seats,
            )
            _copy(
                conn,
                "match_records (match_id, format, record, record_sha256, num_actions, duration_ms)",
                records,
            )
            # what the tick's trigger counts as it marks a ladder's match rated
            rated = sum(1 for row in matches if row[8] is not None)
            conn.execute(
                "UPDATE ladders SET rated_matches = rated_matches + %s WHERE id = %s",
                (rated, population.ladder_id),
            )
        written += size
    for game in MIX:
        store.recompute_ratings(game)
    with store.pool.connection() as conn:
        conn.autocommit = True
        # The recompute wrote each new seat's Elo update, leaving its first version dead,
        # which a live store's vacuum reuses as it goes: the seats are compacted here, as
        # every other table was written once.
        conn.execute("VACUUM (FULL) match_seats")
        conn.execute("VACUUM (ANALYZE)")


def _one(conn: Any, query: str, params: Sequence[Any] = ()) -> tuple[Any, ...]:
    row = conn.execute(query, params).fetchone()
    assert row is not None
    return tuple(row)


def _copy(conn: Any, target: str, rows: Sequence[tuple[Any, ...]]) -> None:
    with conn.cursor().copy(f"COPY {target} FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _percentiles(times_ms: list[float]) -> dict[str, float]:
    """The median and 90th percentile of ``times_ms``, as every timed figure has them."""
    ordered = sorted(times_ms)
    return {
        "p50_ms": round(statistics.median(ordered), 2),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 2),
    }


def _p50(work: Callable[[], Any], repeats: int) -> dict[str, float]:
    """The median and 90th percentile time of ``repeats`` calls of ``work()`` (ms), after
    one untimed call."""
    work()
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        work()
        out.append((time.perf_counter() - t) * 1000)
    return _percentiles(out)


def _finish_times(
    store: Store, played: dict[str, list[Played]], versions: list[int], repeats: int
) -> dict[str, float]:
    """The finish transaction of Hollywood Gin matches (the record check, the result, the
    Elo update and its history), each match queued and claimed first, untimed."""
    from worker.store import FinishedMatch

    records = played[LADDER_GAME]
    out = []
    for i in range(repeats + 1):
        record = records[i % len(records)]
        match = store.create_match(LADDER_GAME, random.Random(i).sample(versions, 2))
        claimed = store.claim_match("bench-scale", match_id=match.id)
        assert claimed is not None
        t = time.perf_counter()
        assert store.finish_match(match.id, "bench-scale", FinishedMatch(record.record))
        if i:  # the first warms the statements
            out.append((time.perf_counter() - t) * 1000)
    return _percentiles(out)


def _tick_times(
    store: Store, played: dict[str, list[Played]], ladder_id: int, repeats: int
) -> dict[str, float]:
    """A ladder tick as the scheduler runs it: the matches the last tick queued are played
    (claimed and finished, untimed), then the tick rates them and queues the next."""
    from worker import ladder
    from worker.store import FinishedMatch

    rng = random.Random(5)
    records = played[LADDER_GAME]

    def tick() -> list[int]:
        return store.tick_ladder(
            ladder_id,
            lambda lad, pool, results, flight: ladder.plan(lad, pool, results, flight, rng),
        )

    queued = tick()
    out = []
    for i in range(repeats):
        for match_id in queued:
            assert store.claim_match("bench-scale", match_id=match_id) is not None
            record = records[(i + match_id) % len(records)]
            assert store.finish_match(match_id, "bench-scale", FinishedMatch(record.record))
        t = time.perf_counter()
        queued = tick()
        out.append((time.perf_counter() - t) * 1000)
    return _percentiles(out)


def _reads(
    client: TestClient, store: Store, population: Population, repeats: int
) -> Iterator[tuple[str, dict[str, float]]]:
    """The pages and API calls: each one of a busy bot, a full round robin and a match
    finished in the middle of the history."""
    game = LADDER_GAME
    busy = population.ladder_pool[0]
    name = population.names[busy]
    tid = population.measured_tournament
    with store.pool.connection() as conn:
        row = conn.execute(
            "SELECT id, (SELECT num_actions FROM match_records WHERE match_id = m.id)"
            " FROM matches m WHERE game = %s AND finish_seq IS NOT NULL"
            " ORDER BY id OFFSET (SELECT count(*) / 2 FROM matches) LIMIT 1",
            (game,),
        ).fetchone()
    assert row is not None
    match_id, steps = int(row[0]), int(row[1])

    def get(url: str) -> Callable[[], None]:
        def fetch() -> None:
            client.get(url).raise_for_status()

        return fetch

    for figure, url in (
        ("leaderboard_page", f"/leaderboard/{game}"),
        ("leaderboard_api", f"/api/v1/leaderboard/{game}"),
        ("bot_page", f"/bots/{name}"),
        ("bot_api", f"/api/v1/bots/{name}"),
        ("matches_by_bot_page", f"/matches?bot={name}"),
        ("tournament_page", f"/tournaments/{tid}"),
        ("tournament_api", f"/api/v1/tournaments/{tid}"),
        ("replay_page", f"/matches/{match_id}?step={steps // 2}"),
        ("replay_step_api", f"/api/v1/matches/{match_id}/steps/{steps // 2}"),
        ("match_api", f"/api/v1/matches/{match_id}"),
        ("ladders_api", "/api/v1/ladders"),
    ):
        yield figure, _p50(get(url), repeats)


def _sizes(store: Store, base_bytes: int, matches: int) -> dict[str, float]:
    """Bytes per match: the database's growth over the empty one, and what one Hollywood
    Gin hand takes (its match row, two seats with their Elo updates, and its record, each
    with its share of the table's indexes and free space)."""
    with store.pool.connection() as conn:
        size = int(_one(conn, "SELECT pg_database_size(current_database())")[0])
        per_row = {}
        for table in ("matches", "match_seats", "match_records"):
            total, rows = _one(
                conn, f"SELECT pg_total_relation_size('{table}'), (SELECT count(*) FROM {table})"
            )
            per_row[table] = int(total) / max(int(rows), 1)
        records_all, records_gin = _one(
            conn,
            "SELECT avg(pg_column_size(r.record)),"
            " avg(pg_column_size(r.record)) FILTER (WHERE m.game = %s)"
            " FROM match_records r JOIN matches m ON m.id = r.match_id",
            (LADDER_GAME,),
        )
    gin_hand = (
        per_row["matches"]
        + 2 * per_row["match_seats"]
        + per_row["match_records"]
        - float(records_all)
        + float(records_gin)
    )
    return {
        "db_bytes_per_match": round((size - base_bytes) / matches),
        "gin_hand_bytes": round(gin_hand),
        "gin_record_bytes": round(float(records_gin)),
        **{f"{table}_bytes_per_row": round(b) for table, b in per_row.items()},
    }


def stages(total: int, at: Sequence[int] = STAGES) -> list[int]:
    """The stages of a run to ``total`` matches: those of ``at`` below it, and itself."""
    return sorted({s for s in at if s < total} | {total})


def run(
    *,
    matches: int = STAGES[-1],
    repeats: int = 20,
    seed: int = 1,
    at: Sequence[int] = STAGES,
    url: str | None = None,
) -> dict[str, Any]:
    """Fill a scratch database (beside the one at ``url``, else the configured or embedded
    one) to each stage and measure there; the figures of every stage, and each figure's
    growth from the first stage to the last."""
    from starlette.testclient import TestClient

    from arena.bench.store import ScratchDatabase
    from arena.commands.db import local_database
    from arena.site import create_site
    from worker import db
    from worker.store import Store

    rng = random.Random(seed)
    built_at = time.perf_counter()
    played = play_records(seed=seed)
    out: dict[str, Any] = {"matches": matches, "repeats": repeats, "stages": []}
    with local_database(url) as server, ScratchDatabase(server) as scratch:
        with db.connect(scratch) as conn:
            db.migrate(conn)
        with Store.open(scratch, max_size=4) as store:
            population = populate(store)
            with store.pool.connection() as conn:
                base = int(_one(conn, "SELECT pg_database_size(current_database())")[0])
            ends = datetime.now(UTC) - timedelta(hours=2)
            loaded = 0
            for stage in stages(matches, at):
                started = time.perf_counter()
                load(store, population, played, stage - loaded, rng, ends=ends)
                figures: dict[str, Any] = {
                    "matches": stage,
                    "load_s": round(time.perf_counter() - started, 1),
                }
                figures.update(_sizes(store, base, stage))
                loaded = stage
                figures["finish"] = _finish_times(
                    store, played, population.versions[LADDER_GAME], repeats
                )
                figures["ladder_tick"] = _tick_times(store, played, population.ladder_id, repeats)
                with TestClient(create_site(store)) as client:
                    figures.update(_reads(client, store, population, repeats))
                out["stages"].append(figures)
                # what the timed finishes and ticks added stays: the next stage builds on it
                with store.pool.connection() as conn:
                    loaded = int(_one(conn, "SELECT count(*) FROM matches")[0])
    out["growth"] = growth(out["stages"])
    out["build_s"] = round(time.perf_counter() - built_at, 1)
    return out


def timed_figures(stage: dict[str, Any]) -> list[str]:
    """The names of a stage's timed figures (those with a p50)."""
    return [k for k, v in stage.items() if isinstance(v, dict) and "p50_ms" in v]


def growth(stages: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Each timed figure's p50 at the last stage over its p50 at the first."""
    first, last = stages[0], stages[-1]
    return {
        name: round(last[name]["p50_ms"] / max(first[name]["p50_ms"], 1e-3), 2)
        for name in timed_figures(last)
    }


def misses(figures: dict[str, Any]) -> list[str]:
    """The goals the figures miss (none over 100 ms at p50, none growing more than 2×,
    a Gin hand in under 1 KB), each said in a line."""
    out = []
    last = figures["stages"][-1]
    for name in timed_figures(last):
        if last[name]["p50_ms"] > P50_LIMIT_MS:
            out.append(f"{name}: p50 {last[name]['p50_ms']} ms is over {P50_LIMIT_MS:.0f} ms")
    for name, ratio in figures["growth"].items():
        if ratio > GROWTH_LIMIT:
            out.append(f"{name}: its p50 grew {ratio}× (the goal: at most {GROWTH_LIMIT:.0f}×)")
    if last["gin_hand_bytes"] > GIN_HAND_LIMIT_BYTES:
        out.append(f"a Gin hand takes {last['gin_hand_bytes']} bytes (the goal: under 1 KB)")
    return out
