"""How the store keeps a record's bytes: packed with DEFLATE and a dictionary of the
record's game (``docs/storage.md``, "Records").

A one-hand Hollywood Gin record is about 470 bytes, most of them its header: the
game's option names, the seats' names, the clock, the result's JSON. Those repeat from
one record to the next, but a record is too small for a compressor to find them in it
alone (plain DEFLATE saves a fifth). A dictionary holds them once, and the compressor
refers to it: the record comes to about 165 bytes. Postgres compresses only values of
2 KB and more, so the store does it itself.

``format`` (a column of ``match_records``) says how the bytes were kept:

- ``MatchRecord``: as the referee wrote them (records finished before migration 0018,
  and any a worker of the release before writes);
- ``MatchRecord+d1``: raw DEFLATE with the game's dictionary 1
  (``dictionaries/GAME.1.bin``).

A dictionary never changes once records are packed with it: its sha256 is written here,
and a file that differs stops the store from packing or unpacking with it. A better
dictionary is a new number beside the old. ``record_sha256`` is always of the record as
the referee wrote it, so a read checks the unpacking too.

``python -m worker.store.packing`` writes the dictionaries of games that have none: from
records of matches played in process, at every number of seats, with the default
options and one hand, between seats named as bots are.
"""

from __future__ import annotations

import functools
import hashlib
import zlib
from pathlib import Path

from worker.store.base import StoreError

#: The format of a record kept as the referee wrote it.
RAW = "MatchRecord"
#: The format the store packs records in now.
PACKED = "MatchRecord+d1"
#: Where each dictionary is, and the sha256 it must have: the bytes packed records need.
DICTIONARIES = Path(__file__).with_name("dictionaries")
DICTIONARY_SHA256: dict[str, str] = {
    "flip-flop": "877637e336ac513185e7101be586d9db4e6e50dd3975095146c1d7937624941f",
    "gin-three": "4d63d1031227909754ebe3f1d11e2b08c89198baa76ba7de87541fa627ae8971",
    "hollywood-gin": "9716a6eea099c55b3d871ac47398a8b94f9c9c0d9d66acccef913886222d0c2c",
    "rummy-500": "8c4dce5ae85b1164671cffa298497646dea902a009fb7427eeb16c1d11c10a7b",
}
#: How long a dictionary is: its last bytes are the ones a record refers to most cheaply,
#: and past 4 KB the records shrink by a few bytes more while each packing costs more.
DICTIONARY_BYTES = 4096
_LEVEL = 6
_WINDOW = -15  # raw DEFLATE: the sha256 beside it checks the bytes, not an Adler-32


class PackingError(StoreError):
    """A record the store cannot unpack: an unknown format, or bytes that do not inflate."""


class DictionaryError(PackingError):
    """A dictionary that is missing or not the one records were packed with: a fault of
    the install, not of a record."""


@functools.cache
def dictionary(game: str) -> bytes:
    """The dictionary records of ``game`` are packed with, checked against its sha256."""
    want = DICTIONARY_SHA256.get(game)
    path = DICTIONARIES / f"{game}.1.bin"
    if want is None:
        raise DictionaryError(f"no record dictionary for game {game!r}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DictionaryError(
            f"the record dictionary {path} cannot be read ({exc.strerror}): reinstall arena"
        ) from exc
    if hashlib.sha256(data).hexdigest() != want:
        raise DictionaryError(
            f"the record dictionary {path} is not the one records are packed with"
            " (its sha256 differs): reinstall arena; a new dictionary takes a new number"
        )
    return data


def pack(game: str, record: bytes) -> tuple[str, bytes]:
    """``(format, bytes)`` to keep ``record``, a record of ``game``, as."""
    packer = zlib.compressobj(
        _LEVEL, zlib.DEFLATED, _WINDOW, 9, zlib.Z_DEFAULT_STRATEGY, dictionary(game)
    )
    return PACKED, packer.compress(record) + packer.flush()


def unpack(game: str, format: str, data: bytes) -> bytes:
    """The record as the referee wrote it, from the bytes kept in ``format``."""
    if format == RAW:
        return data
    if format != PACKED:
        raise PackingError(f"records kept as {format!r} are not known to this arena")
    unpacker = zlib.decompressobj(_WINDOW, dictionary(game))
    try:
        record = unpacker.decompress(data) + unpacker.flush()
    except zlib.error as exc:
        raise PackingError(f"the packed bytes do not inflate ({exc})") from exc
    if not unpacker.eof:
        raise PackingError("the packed bytes end before the record does")
    return record


# -- making dictionaries (a maintainer's tool, run once per new dictionary) --------------

#: Seat names as bots have them, for the records a dictionary is made from.
_NAMES = ("random", "heuristic", "search", "greedy", "alice", "bob", "carol", "dave", "gin-master")


def make_dictionary(game: str, seed: int = 1, each: int = 8, size: int = DICTIONARY_BYTES) -> bytes:
    """A dictionary for ``game``: records of matches played by random legal choices, eight at
    each number of seats, with the default options and with one hand, the most common
    last (two seats, one hand), cut to :data:`DICTIONARY_BYTES` from the end."""
    import itertools
    import random

    from referee.games import get_game
    from referee.record import ActionEntry, MatchRecord, SeatEntry, options_dict
    from referee.wire import encode_record

    spec = get_game(game)
    rng = random.Random(seed)
    records = []
    for options in ({}, {"max_rounds" if game == "flip-flop" else "max_hands": 1}):
        for seats, _ in itertools.product(
            range(spec.max_seats, spec.min_seats - 1, -1), range(each)
        ):
            deal = rng.getrandbits(63)
            state = spec.new_match(deal, seats=seats, options=options)
            actions: list[ActionEntry] = []
            while (seat := state.to_act()) is not None and len(actions) < 5000:
                legal = state.legal_actions()
                action = legal[rng.randrange(len(legal))]
                state.apply(action)
                actions.append(ActionEntry(seat, str(action), rng.randrange(100, 30_000)))
            result = state.result()
            if result is None:
                continue
            names = rng.sample(_NAMES, seats)
            records.append(
                encode_record(
                    MatchRecord(
                        game=game,
                        options=options_dict(state.options),
                        seed=deal,
                        seats=tuple(SeatEntry(f"{n}-{game}@v{rng.randrange(1, 4)}") for n in names),
                        actions=tuple(actions),
                        result=result,
                        match_id=str(rng.randrange(1, 10**6)),
                        started_unix_ms=1_765_000_000_000 + rng.randrange(10**9),
                    )
                )
            )
    return b"".join(records)[-size:]


def main() -> None:
    """Write the dictionary of each game that has none yet, and print every sha256."""
    from referee.games import game_names

    DICTIONARIES.mkdir(exist_ok=True)
    for game in game_names():
        path = DICTIONARIES / f"{game}.1.bin"
        if not path.exists():
            path.write_bytes(make_dictionary(game))
        print(f'    "{game}": "{hashlib.sha256(path.read_bytes()).hexdigest()}",')


if __name__ == "__main__":
    main()
