"""A tournament's standings from its results (pure): per bot its matches, wins, draws and
losses, points from the pairwise games its results imply (a win 1, a draw ½: a
multiplayer result counts as a game against each other seat, as the ratings read it),
and the cross-table of points between every two bots. The ratings (online Elo and the
batch fit) come from the store and are joined here for display."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from worker.ratings import SeatResult, Standing, effective_ranks, pairwise_scores
from worker.store import TableResult


@dataclass(slots=True)
class Line:
    """One bot's line of the standings."""

    version: int
    label: str
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    pair_games: int = 0
    faults: int = 0
    elo: float | None = None
    batch: Standing | None = None

    def as_dict(self) -> dict[str, Any]:
        """The line as JSON-ready values."""
        batch = self.batch
        return {
            "bot_version_id": self.version,
            "bot": self.label,
            "matches": self.matches,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "points": self.points,
            "pairwise_games": self.pair_games,
            "faults": self.faults,
            "elo": self.elo,
            "batch_rating": None if batch is None else round(batch.rating, 1),
            "batch_low": None if batch is None else round(batch.low, 1),
            "batch_high": None if batch is None else round(batch.high, 1),
            "p_stronger_than_next": None
            if batch is None or batch.p_stronger_than_next is None
            else round(batch.p_stronger_than_next, 4),
            "settled": None if batch is None else batch.settled,
        }


@dataclass(slots=True)
class Standings:
    """Every entrant's line, best first, and the cross-table ``cross[a][b]``: a's points
    against b over their pairwise games (``games[a][b]`` of them)."""

    lines: list[Line]
    cross: dict[int, dict[int, float]] = field(default_factory=dict)
    games: dict[int, dict[int, int]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: the lines and the cross-table keyed by bot label."""
        label = {line.version: line.label for line in self.lines}
        return {
            "standings": [line.as_dict() for line in self.lines],
            "cross_table": {
                label[a]: {
                    label[b]: {"points": self.cross[a][b], "games": self.games[a][b]}
                    for b in self.cross[a]
                }
                for a in self.cross
            },
        }


def standings(
    entries: Sequence[int],
    labels: Mapping[int, str],
    results: Sequence[TableResult],
    elo: Mapping[int, float] | None = None,
    batch: Sequence[Standing] = (),
) -> Standings:
    """The standings of ``entries`` over ``results``, in the order of the batch fit
    ``batch`` when it rates every entrant (so each line's "stronger than next" is about
    the line below), else by points, then wins. A win is a match finished alone in first
    place, a draw one shared first place, a loss any other; a forfeit ranks last."""
    lines = {v: Line(v, labels.get(v, f"version {v}")) for v in entries}
    cross: dict[int, dict[int, float]] = {a: {b: 0.0 for b in entries if b != a} for a in entries}
    games: dict[int, dict[int, int]] = {a: dict.fromkeys(cross[a], 0) for a in entries}
    for table in results:
        seats = [SeatResult(s.version, s.rank, s.forfeit) for s in table.seats]
        ranks = effective_ranks(seats)
        best = min(ranks)
        first = ranks.count(best)
        for seat, rank in zip(table.seats, ranks, strict=True):
            line = lines.get(seat.version)
            if line is None:
                continue
            line.matches += 1
            line.faults += seat.status != "ok"
            if rank == best and first == 1:
                line.wins += 1
            elif rank == best:
                line.draws += 1
            else:
                line.losses += 1
        for i, j, score in pairwise_scores(seats):
            a, b = table.seats[i].version, table.seats[j].version
            if a not in lines or b not in lines:
                continue
            for x, y, s in ((a, b, score), (b, a, 1.0 - score)):
                lines[x].points += s
                lines[x].pair_games += 1
                cross[x][y] += s
                games[x][y] += 1
    for v, rating in (elo or {}).items():
        if v in lines:
            lines[v].elo = rating
    for fit in batch:
        version = int(fit.player)  # type: ignore[call-overload]
        if version in lines:
            lines[version].batch = fit
    if batch and all(line.batch is not None for line in lines.values()):
        # the batch fit's order, so that "stronger than next" is about the line below
        place = {fit.player: i for i, fit in enumerate(batch)}
        order = sorted(lines.values(), key=lambda x: place[x.version])
    else:
        order = sorted(lines.values(), key=lambda x: (-x.points, -x.wins, x.label))
    return Standings(order, cross, games)
