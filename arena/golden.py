"""Golden records: a few seeded random matches of every game, stored as text in
``tests/golden`` and compared by the tests; ``make golden`` rewrites them.

Each file lists every decision (seat, action, how many actions were legal) and
every event with who may see it, then the result, so any change in dealing,
legal-action generation, scoring or visibility shows up as a diff.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.engine import Event
from referee.games import game_names, get_game

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "tests" / "golden"
SEEDS = (1, 2)


@dataclass(frozen=True)
class Case:
    """One golden match."""

    game: str
    seats: int
    seed: int
    options: dict[str, Any]

    @property
    def filename(self) -> str:
        return f"{self.game}-{self.seats}p-seed{self.seed}.txt"


def cases() -> list[Case]:
    """The golden matches: per game, the fewest and most seats, two seeds each, with the
    game's first test variant (small caps keep the files short)."""
    out = []
    for name in game_names():
        spec = get_game(name)
        options = dict(spec.test_variants[0])
        for seats in sorted({spec.min_seats, spec.max_seats}):
            for seed in SEEDS:
                out.append(Case(name, seats, seed, options))
    return out


def _event_line(index: int, event: Event) -> str:
    who = "all" if event.visible_to is None else ",".join(str(s) for s in sorted(event.visible_to))
    return f"  {index:4d} [{who}] {event}"


def record_text(case: Case) -> str:
    """Play ``case`` with random.Random(seed) over the listed legal actions; return its text."""
    spec = get_game(case.game)
    state = spec.new_match(case.seed, seats=case.seats, options=case.options)
    rng = random.Random(case.seed)
    lines = [
        "# Rummy Arena golden record: regenerate with `make golden`",
        f"game: {case.game}",
        f"seats: {case.seats}",
        f"seed: {case.seed}",
        f"options: {json.dumps(case.options, sort_keys=True)}",
        "policy: random.Random(seed).choice over the legal actions in listed order",
        "",
    ]
    shown = 0
    while True:
        for i in range(shown, len(state.events)):
            lines.append(_event_line(i, state.events[i]))
        shown = len(state.events)
        seat = state.to_act()
        if seat is None:
            break
        legal = state.legal_actions()
        action = rng.choice(legal)
        lines.append(f"> seat {seat}: {action}  ({len(legal)} legal)")
        state.apply(action)
    result = state.result()
    assert result is not None
    lines += [
        "",
        f"ranks: {list(result.ranks)}",
        f"scores: {list(result.scores)}",
        f"detail: {json.dumps(result.detail, sort_keys=True, default=str)}",
    ]
    return "\n".join(lines) + "\n"


def regenerate(folder: str | Path = GOLDEN_DIR) -> list[Path]:
    """Rewrite every golden file (and remove stale ones); return the paths written."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    wanted = {c.filename: c for c in cases()}
    for old in root.glob("*.txt"):
        if old.name not in wanted:
            old.unlink()
    written = []
    for name, case in sorted(wanted.items()):
        path = root / name
        path.write_text(record_text(case))
        written.append(path)
    return written


def check(folder: str | Path = GOLDEN_DIR) -> list[str]:
    """Differences between the stored golden files and a fresh run, one line each."""
    root = Path(folder)
    problems = []
    for case in cases():
        path = root / case.filename
        if not path.exists():
            problems.append(f"{path}: missing (run `make golden` to create it)")
            continue
        expected = path.read_text().splitlines()
        got = record_text(case).splitlines()
        if expected != got:
            problems.append(f"{path}: {first_difference(expected, got)}")
    return problems


def first_difference(expected: list[str], got: list[str]) -> str:
    """Where two texts first differ, for a readable failure."""
    for i, (a, b) in enumerate(zip(expected, got, strict=False)):
        if a != b:
            return f"line {i + 1} differs: stored {a!r}, now {b!r}"
    return f"length differs: stored {len(expected)} lines, now {len(got)}"
