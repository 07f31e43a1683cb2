"""Engine commands: ``arena sheet``, ``arena golden``, ``arena bench engine`` and
``arena bench codec``."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.console import Console
from rich.table import Table

from arena import golden
from arena.bench.engine import bench_engine
from arena.commands import (
    add_command,
    examples,
    game_argument,
    json_argument,
    option_argument,
    print_table,
)
from arena.errors import CommandError
from bots.policies import gin_greedy, gin_patient, play_match
from referee.engine import OptionsError
from referee.games import get_game, new_match
from referee.games.hollywood_gin import HollywoodGin


def register(sub: Any, bench_sub: Any) -> None:
    sheet = add_command(
        sub,
        "sheet",
        help="play one seeded Hollywood Gin match in this process and print its sheet",
        examples=examples("arena sheet", "arena sheet --seed 7"),
    )
    sheet.add_argument("--seed", type=int, default=2026, help="match seed (default 2026)")
    sheet.set_defaults(func=run_sheet)

    gold = add_command(
        sub,
        "golden",
        help="golden match records (tests/golden): regenerate them, or check them (exit 1 "
        "when one differs)",
        examples=examples("arena golden check", "arena golden regenerate"),
    )
    gold.add_argument("action", choices=["regenerate", "check"])
    gold.add_argument("--dir", default=str(golden.GOLDEN_DIR), help="golden folder")
    gold.set_defaults(func=run_golden)

    bench = add_command(
        bench_sub,
        "engine",
        help="random legal play: hands/s and decisions/s (vs a reference)",
        examples=examples(
            "arena bench engine --game hollywood-gin",
            "arena bench engine --game rummy-500 --players 3 --seconds 5 --json",
        ),
    )
    game_argument(bench)
    bench.add_argument("--players", type=int, default=None, help="seats (default: the game's)")
    bench.add_argument("--seconds", type=float, default=3.0, help="seconds per run (default 3)")
    bench.add_argument("--repeats", type=int, default=3, help="runs per engine (default 3)")
    option_argument(bench)
    bench.add_argument("--no-reference", action="store_true", help="skip the reference engine")
    json_argument(bench, "one JSON object")
    bench.set_defaults(func=run_bench_engine)

    codec = add_command(
        bench_sub,
        "codec",
        help="the view and its decision message per decision, every game, in process",
        examples=examples("arena bench codec", "arena bench codec --matches 5 --json"),
    )
    codec.add_argument(
        "--matches", type=int, default=20, help="random matches per pass (default 20)"
    )
    codec.add_argument(
        "--decisions", type=int, default=3000, help="decisions timed per match (default 3000)"
    )
    codec.add_argument("--repeats", type=int, default=5, help="passes per way (default 5)")
    json_argument(codec, "one JSON object")
    codec.set_defaults(func=run_bench_codec)


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """``key=value`` pairs; values are read as JSON when they parse (ints, bools), else text."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CommandError(f"option {pair!r} must look like key=value")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def game_options(game: str, pairs: list[str]) -> dict[str, Any]:
    """The ``--option`` pairs of ``game``, parsed and checked before anything starts: a
    bad one is one line naming it, what is allowed, and where the options are listed."""
    options = parse_options(pairs)
    try:
        get_game(game).options(options)
    except OptionsError as exc:
        raise CommandError(f"--option: {exc} (see docs/rules/{game}.md)") from None
    return options


def clock_rules(pairs: list[str]) -> dict[str, int]:
    """The ``--clock KEY=VALUE`` pairs as a clock (checked by the application layer)."""
    from arena.app.errors import Invalid
    from arena.app.tournaments import CLOCK_KEYS, check_clock

    clock: dict[str, int] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or key not in CLOCK_KEYS:
            raise CommandError(
                f"--clock {pair!r}: give KEY=VALUE with KEY one of {', '.join(CLOCK_KEYS)}"
            )
        try:
            clock[key] = int(value)
        except ValueError:
            raise CommandError(f"--clock {pair!r}: {value!r} is not a whole number") from None
    try:
        return check_clock(clock)
    except Invalid as exc:
        raise CommandError(f"--clock: {exc}") from None


def table_size(game: str, size: int) -> int:
    """``size`` if ``game`` is played by that many; else one line naming the range."""
    spec = get_game(game)
    if not spec.min_seats <= size <= spec.max_seats:
        raise CommandError(
            f"{game} is played by {spec.min_seats}–{spec.max_seats} players, not {size}"
        )
    return size


def run_sheet(args: argparse.Namespace) -> int:
    console = Console()
    state = new_match("hollywood-gin", args.seed)
    assert isinstance(state, HollywoodGin)
    names = ["greedy", "patient"]
    console.print(
        f"[bold]Hollywood Gin[/bold], seed {args.seed}: seat 0 [cyan]greedy[/cyan] "
        "(knocks as soon as it can) vs seat 1 [magenta]patient[/magenta] (knocks at 3 or less)"
    )
    play_match(state, [gin_greedy, gin_patient])
    table = Table(title="Score sheet (points per column: greedy / patient)")
    for col in ("hand", "dealer", "result", "winner", "points", "G1", "G2", "G3"):
        table.add_column(col, justify="right" if col in ("hand", "points") else "left")
    for line in state.sheet:
        winner = "-" if line.winner is None else names[line.winner]
        cols = [f"{a} / {b}" for a, b in line.columns]
        table.add_row(
            str(line.number), names[line.dealer], line.kind, winner, str(line.points), *cols
        )
    print_table(table)
    result = state.result()
    assert result is not None
    won = result.detail["columns_won"]
    if result.ranks[0] == result.ranks[1]:
        console.print(f"Drawn match after {result.detail['hands']} hands.")
    else:
        best = result.ranks.index(0)
        console.print(
            f"[bold]{names[best]}[/bold] wins the match, {won[best]} columns to "
            f"{won[1 - best]}, after {result.detail['hands']} hands."
        )
    return 0


def run_golden(args: argparse.Namespace) -> int:
    console = Console()
    if args.action == "regenerate":
        for path in golden.regenerate(args.dir):
            console.print(f"wrote {path}")
        return 0
    problems = golden.check(args.dir)
    for problem in problems:
        console.print(f"[red]{problem}[/red]")
    if problems:
        console.print("If the change is intended, run `make golden` and review the diff.")
        return 1
    console.print("golden records match")
    return 0


def run_bench_codec(args: argparse.Namespace) -> int:
    from arena.bench.codec import bench_codec

    if min(args.matches, args.decisions, args.repeats) < 1:
        raise CommandError("--matches, --decisions and --repeats must be at least 1")
    figures = bench_codec(matches=args.matches, decisions=args.decisions, repeats=args.repeats)
    if args.json:
        print(json.dumps(figures))
        return 0
    table = Table(
        title=f"arena bench codec --matches {args.matches} --decisions {args.decisions} "
        f"(µs per decision, median of {args.repeats} passes)"
    )
    for col in ("game", "seats", "view and message", "from the state"):
        table.add_column(col, justify="left" if col == "game" else "right")
    for game, f in figures.items():
        state = f.get("state_us")
        table.add_row(
            game, str(f["seats"]), f"{f['view_us']:.2f}", "" if state is None else f"{state:.2f}"
        )
    print_table(table)
    return 0


def run_bench_engine(args: argparse.Namespace) -> int:
    options = game_options(args.game, args.option)
    report = bench_engine(
        args.game,
        seconds=args.seconds,
        repeats=args.repeats,
        seats=args.players,
        options=options,
        reference=not args.no_reference,
    )
    if args.json:
        print(json.dumps(report.as_dict()))
        return 0
    console = Console()
    table = Table(
        title=f"arena bench engine --game {args.game} --players {report.seats} "
        f"(median of {report.repeats} runs of {report.seconds:g} s)"
    )
    for col in ("engine", "hands/s", "decisions/s"):
        table.add_column(col, justify="left" if col == "engine" else "right")
    table.add_row(
        f"rummy-arena {args.game}", f"{report.hands_per_s:,.0f}", f"{report.decisions_per_s:,.0f}"
    )
    if report.reference and report.reference_hands_per_s is not None:
        table.add_row(
            report.reference,
            f"{report.reference_hands_per_s:,.0f}",
            f"{report.reference_decisions_per_s or 0:,.0f}",
        )
    print_table(table)
    if report.ratio is not None:
        console.print(
            f"ratio ({report.ratio_metric}, ours / {report.reference}): {report.ratio:.2f}"
        )
    elif args.game in ("hollywood-gin", "gin-three") and not args.no_reference:
        console.print("OpenSpiel is not installed: `make bench` installs it (extra 'bench').")
    return 0
