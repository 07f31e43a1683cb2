"""``arena tournament standings | list``: what tournaments say of the bots, and how far
they are (``docs/tournaments.md``)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from arena.commands import (
    add_command,
    arena_command,
    examples,
    json_argument,
    print_table,
    tournament_actions,
    wide_console,
)
from arena.commands.db import with_store
from arena.remote import remote

if TYPE_CHECKING:
    from worker.standings import Standings
    from worker.store import Store


def register(sub: Any, bench_sub: Any) -> None:
    """Add ``arena tournament standings`` and ``list``."""
    tsub = tournament_actions(sub)
    s = add_command(
        tsub,
        "standings",
        help="cross-table, points, W/D/L, Elo, batch ratings",
        examples=examples("arena tournament standings 1", "arena tournament standings 1 --json"),
    )
    s.add_argument("id", type=int)
    json_argument(s, "the standings")
    s.set_defaults(func=cmd_standings)

    ls = add_command(
        tsub,
        "list",
        help="the newest tournaments and their progress",
        examples=examples("arena tournament list", "arena tournament list --json"),
    )
    json_argument(ls, "the tournaments")
    ls.set_defaults(func=cmd_list)


def standings_of(store: Store, tournament_id: int) -> Standings:
    """The tournament's standings from the store: results, online Elo and batch fit."""
    from worker.ratings import NoFiniteFit
    from worker.standings import standings

    tournament = store.tournament(tournament_id)
    results = store.tournament_results(tournament_id)
    labels = store.labels(tournament.entries)
    elo = {r.bot_version_id: r.rating for r in store.ratings(tournament.game)}
    try:
        batch = store.standings(tournament_id=tournament_id) if results else []
    except NoFiniteFit:
        batch = []
    return standings(tournament.entries, labels, results, elo, batch)


#: The columns of the standings' table; the compact form (a narrow terminal) keeps the
#: first of them and drops the batch fit and the cross-table.
COLUMNS = ("#", "bot", "matches", "W", "D", "L", "faults", "points", "Elo", "batch (95%)", "P>next")
COMPACT = 9
#: Below this many columns a live display shows the compact table.
WIDE_ENOUGH = 120


def standings_table(table: Standings, title: str = "", *, compact: bool = False) -> Any:
    """The standings as a rich table; ``compact`` for a narrow terminal (the first
    :data:`COMPACT` columns, no batch fit, no cross-table)."""
    return rows_table(table.as_dict(), title, compact=compact)


def report(store: Store, tournament_id: int, *, json_out: bool) -> int:
    """Print the standings (and, with duplicate deals, the results over whole deals)."""
    from arena.app import reads
    from arena.app.actors import local_actor

    return print_report(
        reads.standings(store, local_actor(store), tournament_id), json_out=json_out
    )


def print_report(data: dict[str, Any], *, json_out: bool) -> int:
    """Print a tournament's standings as :func:`arena.app.reads.standings` gives them."""
    if json_out:
        print(json.dumps(data, indent=2))
        return 0
    console = wide_console()
    counts = data["progress"]
    kind = data["format"].replace("-", " ")
    if data["duplicate"]:
        kind += ", duplicate deals (each deal played once per seat rotation)"
    held = f"; {data['held']} held back until their deals are played" if data["held"] else ""
    print_table(
        rows_table(
            data,
            f"tournament {data['tournament']}: {data['name']} — {data['game']}, {kind}; "
            f"{counts['done']} done, {counts['failed']} failed{held}",
        )
    )
    if data["duplicate_sets"]:
        console.print(
            "over whole deals (luck cancelled): "
            + ", ".join(
                f"{d['bot']} {d['set_points']:g} set points" for d in data["duplicate_sets"]
            )
        )
    console.print(
        "W/D/L: matches won, shared first place, lost; faults: matches in which the bot "
        "timed out, answered illegally, crashed or disconnected; points: 1 per opponent "
        "beaten, ½ per tie; batch: Bradley–Terry over this tournament, 95% interval, "
        "'settled' when its place is 95% sure both ways; P>next: the probability it is "
        "stronger than the bot below; i/j: points/games against bot j"
    )
    if data["first_match"] is not None:
        console.print(
            f"look at a match: {arena_command()} match show {data['first_match']}  ·  every "
            f"match: {arena_command()} tournament standings {data['tournament']} --json"
        )
    return 0


def rows_table(data: dict[str, Any], title: str = "", *, compact: bool = False) -> Any:
    """The standings of :func:`arena.app.reads.standings` (or ``Standings.as_dict``) as a
    rich table; ``compact`` for a narrow terminal (the first :data:`COMPACT` columns, no
    batch fit, no cross-table)."""
    from rich.table import Table

    t = Table(title=title or None)
    for column in COLUMNS[:COMPACT] if compact else COLUMNS:
        t.add_column(column, justify="left" if column == "bot" else "right", no_wrap=True)
    lines = data["standings"]
    labels = [line["bot"] for line in lines]
    if not compact:
        for i in range(len(labels)):
            t.add_column(str(i + 1), justify="right")
    cross = data["cross_table"]
    for i, line in enumerate(lines):
        batch = (
            f"{line['batch_rating']:.0f} [{line['batch_low']:.0f}, {line['batch_high']:.0f}]"
            + (" settled" if line["settled"] else "")
            if line["batch_rating"] is not None
            else "–"
        )
        beats_next = (
            "–" if line["p_stronger_than_next"] is None else f"{line['p_stronger_than_next']:.2f}"
        )
        cells = []
        for other in labels:
            if other == line["bot"]:
                cells.append("·")
            else:
                pair = cross.get(line["bot"], {}).get(other)
                cells.append(
                    f"{pair['points']:g}/{pair['games']}" if pair and pair["games"] else "–"
                )
        row = (
            str(i + 1),
            line["bot"],
            str(line["matches"]),
            str(line["wins"]),
            str(line["draws"]),
            str(line["losses"]),
            str(line["faults"]),
            f"{line['points']:g}",
            "–" if line["elo"] is None else f"{line['elo']:.0f}",
            batch,
            beats_next,
            *cells,
        )
        t.add_row(*(row[:COMPACT] if compact else row))
    return t


def cmd_standings(args: argparse.Namespace) -> int:
    platform = remote()
    if platform is not None:
        with platform:
            return print_report(platform.get(f"/tournaments/{args.id}"), json_out=args.json)
    return with_store(lambda store: report(store, args.id, json_out=args.json))


def cmd_list(args: argparse.Namespace) -> int:
    from arena.app import reads
    from arena.app.actors import local_actor

    platform = remote()
    if platform is not None:
        with platform:
            newest = platform.get("/tournaments", limit=50)["items"]  # as the store lists them
            return print_list(newest, json_out=args.json)
    return with_store(
        lambda store: print_list(reads.tournaments(store, local_actor(store)), json_out=args.json)
    )


def print_list(rows: list[dict[str, Any]], *, json_out: bool) -> int:
    """Print the tournaments as :func:`arena.app.reads.tournaments` gives them."""
    if json_out:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("no tournaments yet: arena tournament create --game GAME --bots A,B")
        return 0
    from rich.table import Table

    table = Table()
    for column in ("id", "game", "state", "bots", "done", "failed", "by", "name"):
        table.add_column(column, justify="right" if column in ("id", "bots") else "left")
    for r in rows:
        p = r["progress"]
        table.add_row(
            str(r["id"]),
            r["game"],
            r["state"],
            str(r["bots"]),
            f"{p['done']}/{sum(p.values()) - p['cancelled']}",
            str(p["failed"]),
            r["created_by"] or "",
            r["name"],
        )
    print_table(table)
    return 0
