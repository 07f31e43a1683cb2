"""``arena bench store``: how fast the store finishes matches, fetches records and recomputes
Elo, measured in a scratch database that is dropped afterwards (``docs/performance.md``)."""

from __future__ import annotations

import random
import secrets
import statistics
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any

from psycopg import sql
from psycopg.conninfo import make_conninfo

from worker import db
from worker.store import FinishedMatch, Store

GAME = "hollywood-gin"


@dataclass
class StoreBench:
    """The figures of one run."""

    matches: int
    workers: int
    finished_per_s_one_worker: float
    finished_per_s: float
    record_bytes_mean: float
    record_bytes_max: int
    actions_mean: float
    random_play_record_bytes_mean: float
    random_play_actions_mean: float
    record_codec: str
    fetch_p50_ms: float
    fetch_p99_ms: float
    recompute_matches: int
    recompute_generate_s: float
    recompute_s: float
    recompute_matches_per_s: float

    def as_dict(self) -> dict[str, Any]:
        """The figures as a JSON-ready mapping."""
        return asdict(self)


def play_records(
    count: int, seed: int = 1, *, policy: str = "greedy"
) -> tuple[list[tuple[bytes, int]], str]:
    """Encoded records of ``count`` seeded one-hand Hollywood Gin matches, both seats played
    by ``policy`` ("greedy": bots.policies.gin_greedy, or "random" legal actions):
    (record, actions) each, and which codec made them."""
    from bots.policies import gin_greedy
    from referee.games import new_match
    from referee.record import ActionEntry, MatchRecord, SeatEntry, options_dict
    from referee.wire import encode_record

    rng = random.Random(seed)
    out = []
    for i in range(count):
        state = new_match(GAME, seed + i, options={"max_hands": 1})
        actions = []
        while (seat := state.to_act()) is not None:
            legal = state.legal_actions()
            if policy == "random":
                action = rng.choice(legal)
            else:
                action = gin_greedy(state.view(seat), legal)
            state.apply(action)
            actions.append(ActionEntry(seat, str(action), think_us=rng.randrange(50, 5000)))
        result = state.result()
        assert result is not None
        record = MatchRecord(
            game=GAME,
            options=options_dict(state.options),
            seed=seed + i,
            seats=(SeatEntry("bench-a"), SeatEntry("bench-b")),
            actions=tuple(actions),
            result=result,
            match_id=str(i),
            started_unix_ms=1_700_000_000_000 + i,
        )
        out.append((encode_record(record), len(actions)))
    return out, "referee.wire.encode_record (protobuf MatchRecord)"


@dataclass
class ScratchDatabase:
    """A throw-away database beside the one at ``url``."""

    url: str
    name: str = ""
    scratch_url: str = ""

    def __enter__(self) -> str:
        self.name = f"arena_bench_{secrets.token_hex(4)}"
        with db.connect(self.url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(self.name)))
        self.scratch_url = make_conninfo(self.url, dbname=self.name)
        return self.scratch_url

    def __exit__(self, *exc: object) -> None:
        with db.connect(self.url, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(self.name))
            )


def _work(store: Store, holder: str, played: list[tuple[bytes, int]]) -> None:
    """One bench worker: claim and finish matches until none is queued."""
    i = 0
    while (claimed := store.claim_match(holder)) is not None:
        record, _ = played[i % len(played)]
        i += 1
        finished = FinishedMatch(record)
        assert store.finish_match(claimed.id, holder, finished)


def bench_store(
    url: str, *, matches: int = 2000, recompute: int = 0, workers: int = 4, fetches: int = 1000
) -> StoreBench:
    """Run the store benchmark against a scratch database on the server at ``url``."""
    with ScratchDatabase(url) as scratch, Store.open(scratch, max_size=workers + 1) as store:
        played, codec = play_records(min(matches, 300))
        bots = []
        for i in range(10):
            bot = store.add_bot(f"bench{i}", "bench")
            manifest = {"game": GAME, "command": ["python", "bot.py"]}
            bots.append(store.add_bot_version(bot, f"bench {i}".encode(), manifest, "bench").id)
        rng = random.Random(3)
        ids: list[int] = []
        rates = {}
        for count in sorted({1, workers}):
            ids += [store.create_match(GAME, rng.sample(bots, 2)).id for _ in range(matches)]
            started = time.perf_counter()
            threads = [
                threading.Thread(target=_work, args=(store, f"bench-{w}", played))
                for w in range(count)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            rates[count] = matches / (time.perf_counter() - started)
        sizes = [len(r) for r, _ in played]
        random_played, _ = play_records(100, policy="random")
        timings = []
        for _ in range(fetches):
            match_id = rng.choice(ids)
            t0 = time.perf_counter()
            store.record(match_id)
            timings.append((time.perf_counter() - t0) * 1000.0)
        timings.sort()
        generate_s = recompute_s = 0.0
        if recompute:
            generate_s = generate_results(store, recompute, bots)
            stats = store.recompute_ratings(GAME)
            recompute_s = stats.seconds
            assert stats.matches == recompute + len(ids)
    return StoreBench(
        matches=matches,
        workers=workers,
        finished_per_s_one_worker=rates[1],
        finished_per_s=rates[workers],
        record_bytes_mean=statistics.fmean(sizes),
        record_bytes_max=max(sizes),
        actions_mean=statistics.fmean(a for _, a in played),
        random_play_record_bytes_mean=statistics.fmean(len(r) for r, _ in random_played),
        random_play_actions_mean=statistics.fmean(a for _, a in random_played),
        record_codec=codec,
        fetch_p50_ms=timings[len(timings) // 2],
        fetch_p99_ms=timings[min(len(timings) - 1, int(len(timings) * 0.99))],
        recompute_matches=recompute,
        recompute_generate_s=generate_s,
        recompute_s=recompute_s,
        recompute_matches_per_s=(recompute + len(ids)) / recompute_s if recompute_s else 0.0,
    )


def generate_results(store: Store, count: int, bots: list[int]) -> float:
    """Insert ``count`` finished two-player matches with random results, server-side with
    generate_series (no records: the recompute reads results only); returns the seconds."""
    started = time.perf_counter()
    with store.pool.connection() as conn, conn.transaction():
        conn.execute(
            "CREATE TEMP TABLE gen ON COMMIT DROP AS"
            " SELECT g, nextval('matches_id_seq') AS id, nextval('match_finish_seq') AS seq,"
            " (%s::bigint[])[1 + floor(random() * %s)::int] AS a,"
            " floor(random() * 3)::int AS outcome"
            " FROM generate_series(1, %s) AS g",
            (bots, len(bots), count),
        )
        conn.execute(
            "INSERT INTO matches (id, game, seed, seed_salt, seed_commitment, num_seats, state,"
            " attempts, finish_seq, started_at, finished_at)"
            " SELECT id, %s, g, '\\x00', sha256(int8send(g)), 2, 'done', 1, seq, now(), now()"
            " FROM gen",
            (GAME,),
        )
        conn.execute(
            "INSERT INTO match_seats (match_id, seat, bot_version_id, rank, score, status, forfeit)"
            " SELECT id, 0, a, CASE outcome WHEN 0 THEN 0 WHEN 1 THEN 1 ELSE 0 END, 0, 'ok', false"
            " FROM gen"
            " UNION ALL"
            " SELECT id, 1, (%s::bigint[])[1 + (array_position(%s::bigint[], a) %% %s)],"
            " CASE outcome WHEN 0 THEN 1 WHEN 1 THEN 0 ELSE 0 END, 0, 'ok', false FROM gen",
            (bots, bots, len(bots)),
        )
    with store.pool.connection() as conn:
        conn.execute("ANALYZE matches")
        conn.execute("ANALYZE match_seats")
    return time.perf_counter() - started
