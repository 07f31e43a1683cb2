"""How a finished match is kept (migration 0018): its record packed with its game's
dictionary, and its Elo updates on its seats; what the release before writes during a
rolling upgrade still lands where it belongs."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import psycopg
import pytest

from referee.games import game_names
from tests.store_fixtures import finished_match, make_bots
from worker import db
from worker.store import CorruptRecord, FinishedMatch, Store, packing

pytest_plugins = ["tests.store_fixtures"]

GAME = "hollywood-gin"
MIGRATIONS = Path(db.__file__).with_name("migrations")

#: The release before's finish, verbatim (a worker of it runs beside the new ones during a
#: rolling upgrade): it writes the record as the referee wrote it, with its game, and one
#: line of ``rating_history`` per bot version.
PREVIOUS_FINISH_WRITE = """
    WITH numbered AS (
        UPDATE matches SET state = 'done', finished_at = now(), lease_holder = NULL,
            lease_expires = NULL, error = %(note)s, finish_seq = %(seq)s
        WHERE id = %(id)s),
    results AS (
        UPDATE match_seats s
        SET rank = u.rank, score = u.score, status = u.status, forfeit = u.forfeit
        FROM unnest(%(seats)s::int[], %(ranks)s::int[], %(scores)s::int[],
            %(statuses)s::text[], %(forfeits)s::boolean[]) AS u(seat, rank, score, status, forfeit)
        WHERE s.match_id = %(id)s AND s.seat = u.seat),
    stored AS (
        INSERT INTO match_records (match_id, game, format, record, record_sha256,
            num_actions, duration_ms)
        VALUES (%(id)s, %(game)s, %(format)s, %(record)b, %(sha)b, %(num_actions)s,
            %(duration_ms)s)),
    rerated AS (
        UPDATE ratings r SET rating = u.rating, games = r.games + 1, updated_at = now()
        FROM unnest(%(rated)s::bigint[], %(after)s::float8[]) AS u(v, rating)
        WHERE r.game = %(game)s AND r.bot_version_id = u.v)
    INSERT INTO rating_history (game, bot_version_id, match_id, finish_seq, k, rating_before,
        rating_after)
    SELECT %(game)s, u.v, %(id)s, %(seq)s, %(k)s, u.b, u.a
    FROM unnest(%(rated)s::bigint[], %(before)s::float8[], %(after)s::float8[]) AS u(v, b, a)"""


def finish_one(store: Store, versions: list[int], finished: FinishedMatch) -> int:
    """A Hollywood Gin match of ``versions`` queued, claimed and finished with ``finished``."""
    match = store.create_match(GAME, versions)
    store.claim_match("w", match_id=match.id)
    assert store.finish_match(match.id, "w", finished)
    return match.id


def stored(store: Store, match_id: int) -> tuple[str, bytes, str | None]:
    with psycopg.connect(store.url) as conn:
        row = conn.execute(
            "SELECT format, record, game FROM match_records WHERE match_id = %s", (match_id,)
        ).fetchone()
    assert row is not None
    return row[0], bytes(row[1]), row[2]


def test_a_record_is_kept_packed_and_read_back_as_the_referee_wrote_it(store: Store) -> None:
    finished = finished_match(GAME, [0, 1], [25, 0])
    match_id = finish_one(store, make_bots(store, 2), finished)
    format, data, game = stored(store, match_id)
    assert format == packing.PACKED and game is None  # the match's game is read instead
    assert len(data) < len(finished.record) / 2
    assert store.record(match_id) == finished.record
    [entry] = store.records([match_id])
    assert entry.value == finished.record and entry.error is None


def test_a_record_the_release_before_kept_as_written_reads_back(store: Store) -> None:
    finished = finished_match(GAME, [1, 0], [0, 30])
    match_id = finish_one(store, make_bots(store, 2), finished)
    with psycopg.connect(store.url) as conn:
        conn.execute(
            "UPDATE match_records SET format = %s, record = %s, game = %s WHERE match_id = %s",
            (packing.RAW, finished.record, GAME, match_id),
        )
    assert store.record(match_id) == finished.record


def test_packed_bytes_that_do_not_unpack_are_a_corrupt_record_naming_its_match(
    store: Store,
) -> None:
    versions = make_bots(store, 2)
    ids = [finish_one(store, versions, finished_match(GAME, [0, 1], [10, 0])) for _ in range(3)]
    broken, unknown, good = ids
    _, data, _ = stored(store, broken)
    with psycopg.connect(store.url) as conn:
        conn.execute(
            "UPDATE match_records SET record = %s WHERE match_id = %s", (data[:-3], broken)
        )
        conn.execute("UPDATE match_records SET format = 'zip' WHERE match_id = %s", (unknown,))
    with pytest.raises(CorruptRecord, match=rf"match {broken}: .*packed bytes"):
        store.record(broken)
    with pytest.raises(CorruptRecord, match=rf"match {unknown}: .*'zip' are not known"):
        store.record(unknown)
    entries = {e.match_id: e for e in store.records(ids)}
    assert "packed bytes" in (entries[broken].error or "")
    assert "'zip'" in (entries[unknown].error or "")
    assert entries[good].error is None and entries[good].value


def test_every_game_has_the_dictionary_its_records_are_packed_with() -> None:
    assert sorted(packing.DICTIONARY_SHA256) == game_names()
    for game in game_names():
        path = packing.DICTIONARIES / f"{game}.1.bin"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == packing.DICTIONARY_SHA256[game]
        n = 2 if game == GAME else 3
        record = finished_match(game, list(range(n)), [5] + [0] * (n - 1)).record
        assert packing.unpack(game, *packing.pack(game, record)) == record


def test_a_dictionary_that_changed_is_refused_naming_the_file_and_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(packing.DICTIONARIES, tmp_path, dirs_exist_ok=True)
    path = tmp_path / f"{GAME}.1.bin"
    path.write_bytes(path.read_bytes()[:-1] + b"?")
    monkeypatch.setattr(packing, "DICTIONARIES", tmp_path)
    packing.dictionary.cache_clear()
    try:
        with pytest.raises(packing.DictionaryError, match=rf"{path}.*reinstall arena"):
            packing.pack(GAME, b"record")
        path.unlink()
        with pytest.raises(packing.DictionaryError, match=rf"{path} cannot be read"):
            packing.pack(GAME, b"record")
    finally:
        packing.dictionary.cache_clear()


def test_an_elo_update_is_kept_on_the_first_seat_of_its_bot_version(store: Store) -> None:
    a, b = make_bots(store, 2, game="rummy-500")
    match = store.create_match("rummy-500", [b, a, b])
    store.claim_match("w")
    assert store.finish_match(match.id, "w", finished_match("rummy-500", [0, 1, 2], [9, 5, 0]))
    with psycopg.connect(store.url) as conn:
        seats = conn.execute(
            "SELECT seat, finish_seq, rating_before, rating_after FROM match_seats"
            " WHERE match_id = %s ORDER BY seat",
            (match.id,),
        ).fetchall()
    rating = {r.bot_version_id: r.rating for r in store.ratings("rummy-500")}
    assert seats == [
        (0, 1, 1500.0, rating[b]),
        (1, 1, 1500.0, rating[a]),
        (2, None, None, None),
    ]
    assert store.rating_history("rummy-500", b) == [(1, match.id, 1500.0, rating[b])]


def test_a_finish_of_the_release_before_keeps_its_elo_updates_on_the_seats(
    store: Store,
) -> None:
    """A worker of the release before writes its history to rating_history: a trigger moves
    each line onto its seat once the statement is done, as the new finish writes it."""
    a, b = make_bots(store, 2)
    new = store.create_match(GAME, [a, b])
    store.claim_match("w")
    assert store.finish_match(new.id, "w", finished_match(GAME, [0, 1], [20, 0]))
    old = store.create_match(GAME, [a, b])
    store.claim_match("old")
    finished = finished_match(GAME, [1, 0], [0, 12])
    before = {r.bot_version_id: r.rating for r in store.ratings(GAME)}
    after = {a: before[a] - 10.0, b: before[b] + 10.0}
    with psycopg.connect(store.url) as conn:
        seq = conn.execute("SELECT nextval('match_finish_seq')").fetchone()
        assert seq is not None
        conn.execute(
            PREVIOUS_FINISH_WRITE,
            {
                "id": old.id,
                "seq": seq[0],
                "game": GAME,
                "seats": [0, 1],
                "ranks": [1, 0],
                "scores": [0, 12],
                "statuses": ["ok", "ok"],
                "forfeits": [False, False],
                "format": packing.RAW,
                "record": finished.record,
                "sha": hashlib.sha256(finished.record).digest(),
                "num_actions": 0,
                "duration_ms": 5,
                "note": None,
                "rated": [a, b],
                "before": [before[a], before[b]],
                "after": [after[a], after[b]],
                "k": 24.0,
            },
        )
        assert conn.execute("SELECT count(*) FROM rating_history").fetchone() == (0,)
    assert store.seat_results(old.id)[1].rank == 0
    assert store.record(old.id) == finished.record
    assert store.rating_history(GAME, a) == [
        (1, new.id, 1500.0, before[a]),
        (seq[0], old.id, before[a], after[a]),
    ]
    assert store.rating_history(GAME, b, last=1) == [(seq[0], old.id, before[b], after[b])]


def test_0018_moves_the_history_onto_the_seats(empty_db_url: str, tmp_path: Path) -> None:
    for path in sorted(MIGRATIONS.glob("*.sql")):
        if path.name < "0018":
            shutil.copy(path, tmp_path)
    with psycopg.connect(empty_db_url) as conn:
        db.migrate(conn, tmp_path)
        conn.execute("INSERT INTO users (name) VALUES ('o')")
        bot = conn.execute(
            "INSERT INTO bots (name, owner) VALUES ('b', 'o') RETURNING id"
        ).fetchone()
        assert bot is not None
        version = conn.execute(
            "INSERT INTO bot_versions (bot_id, version, content_hash, archive, manifest, game,"
            " submitted_by) VALUES (%s, 1, repeat('a', 64), '', '{\"game\": \"g\","
            " \"command\": []}', 'g', 'o') RETURNING id",
            (bot[0],),
        ).fetchone()
        assert version is not None
        v = version[0]
        match = conn.execute(
            "INSERT INTO matches (game, seed, seed_salt, seed_commitment, num_seats, state,"
            " finish_seq) VALUES ('g', 1, '', repeat('x', 32)::bytea, 2, 'done', 7)"
            " RETURNING id"
        ).fetchone()
        assert match is not None
        m = match[0]
        conn.execute(
            "INSERT INTO match_seats (match_id, seat, bot_version_id, rank, score, status,"
            " forfeit) VALUES (%s, 0, %s, 0, 1, 'ok', false), (%s, 1, %s, 1, 0, 'ok', false)",
            (m, v, m, v),
        )
        conn.execute(
            "INSERT INTO rating_history (game, bot_version_id, match_id, finish_seq, k,"
            " rating_before, rating_after) VALUES ('g', %s, %s, 7, 24, 1500, 1500)",
            (v, m),
        )
        conn.commit()
        db.migrate(conn, MIGRATIONS)
        seats = conn.execute(
            "SELECT seat, finish_seq, rating_before, rating_after FROM match_seats"
            " WHERE match_id = %s ORDER BY seat",
            (m,),
        ).fetchall()
        assert seats == [(0, 7, 1500.0, 1500.0), (1, None, None, None)]
        assert conn.execute("SELECT count(*) FROM rating_history").fetchone() == (0,)
