"""The standings' table as a terminal shows it: the faults column, and a compact form
that a live display uses on a narrow terminal so the table never folds."""

from __future__ import annotations

from rich.console import Console

from arena.commands.tournament_standings import standings_table
from worker.standings import standings
from worker.store import SeatResultRow, TableResult

LABELS = {1: "heuristic-hollywood-gin@v1", 2: "minimal-hollywood-gin@v1", 3: "crash@v1"}


def _table() -> object:
    results = [
        TableResult(
            i,
            None,
            (
                SeatResultRow(a, 0, 10, "ok", False),
                SeatResultRow(b, 1, 0, "crashed" if b == 3 else "ok", b == 3),
            ),
        )
        for i, (a, b) in enumerate([(1, 2), (1, 3), (2, 3)] * 3)
    ]
    return standings(list(LABELS), LABELS, results, {1: 1540.0, 2: 1500.0, 3: 1460.0})


def _render(compact: bool, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None)
    console.print(standings_table(_table(), compact=compact))  # type: ignore[arg-type]
    return console.export_text().splitlines()


def test_compact_table_fits_an_80_column_terminal_unfolded() -> None:
    lines = _render(compact=True, width=80)
    assert all(len(line) <= 80 for line in lines)
    for label in LABELS.values():  # each bot on one line, its name whole
        assert sum(label in line for line in lines) == 1, lines
    header = next(line for line in lines if "faults" in line)
    assert "batch" not in header  # the wide columns are left out


def test_faults_count_the_matches_a_bot_did_not_play_cleanly() -> None:
    lines = _render(compact=False, width=200)
    header = [c.strip() for c in next(line for line in lines if "faults" in line).split("┃")]
    crash = [c.strip() for c in next(line for line in lines if "crash@v1" in line).split("│")]
    assert crash[header.index("faults")] == "6"
