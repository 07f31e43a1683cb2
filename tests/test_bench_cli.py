"""The benchmark commands run and print their figures (speed itself is never tested:
see docs/performance.md)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.bench.sample import ONE_HAND

ROOT = Path(__file__).resolve().parent.parent


def _arena(*args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "arena", *args, "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    figures: dict[str, object] = json.loads(done.stdout)
    return figures


def test_bench_referee_alternates_the_phases_and_reports_medians() -> None:
    figures = _arena("bench", "referee", "--matches", "2", "--seconds", "0.3", "--repeats", "2")
    runs = figures["runs"]
    assert isinstance(runs, list) and len(runs) == 2
    for run in runs:
        assert run["decisions_per_s"] > 0 and run["pingpong_per_s"] > 0
        assert run["ratio"] == run["decisions_per_s"] / run["pingpong_per_s"]
    ratios = sorted(r["ratio"] for r in runs)
    assert figures["ratio"] == (ratios[0] + ratios[1]) / 2  # the median of two runs
    assert figures["ratio_min"] == ratios[0] and figures["ratio_max"] == ratios[1]
    for key in ("referee_cpu_us", "bots_cpu_us", "echo_server_cpu_us", "echo_clients_cpu_us"):
        value = figures[key]  # None when the window saw no round trip (runs this short)
        assert value is None or (isinstance(value, float) and value > 0), (key, value)


def test_cpu_is_read_per_process_from_proc() -> None:
    """The CPU per round trip the bench prints comes from each process's own CPU time."""
    import os
    import time

    from arena.bench.referee import cpu_seconds

    before = cpu_seconds(os.getpid())
    assert before is not None
    end = time.process_time() + 0.2
    while time.process_time() < end:  # use some CPU
        pass
    after = cpu_seconds(os.getpid())
    assert after is not None and after - before >= 0.1
    assert cpu_seconds(2**22 + 12345) is None  # no such process


def test_bench_referee_refuses_nonsense_arguments() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena", "bench", "referee", "--repeats", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--repeats" in done.stderr


def test_bench_engine_prints_both_engines_figures() -> None:
    figures = _arena("bench", "engine", "--game", "flip-flop", "--seconds", "0.2", "--repeats", "1")
    assert figures["game"] == "flip-flop" and figures["players"] == 4
    assert figures["reference"] == "hollywood-gin"
    assert figures["decisions_per_s"] > 0 and figures["reference_decisions_per_s"] > 0


def test_bench_sample_times_a_sample_and_a_playout_against_a_fresh_deal() -> None:
    figures = _arena(
        "bench", "sample", "--game", "hollywood-gin", "--positions", "3", "--repeats", "2"
    )
    (gin,) = figures
    assert gin["game"] == "hollywood-gin" and gin["positions"] == 3
    # two timings measured apart: their order is the machine's load, not the code's
    assert gin["sample_us"] > 0 and gin["sample_and_playout_us"] > 0
    assert gin["playout_actions"] > 0 and gin["deal_and_playout_us"] > 0
    ratio = gin["sample_and_playout_us"] / gin["deal_and_playout_us"]
    assert abs(gin["ratio_to_a_fresh_hand"] - ratio) < 0.01


def test_bench_codec_times_every_game_and_hollywood_gins_state_writer() -> None:
    figures = _arena("bench", "codec", "--matches", "1", "--decisions", "40", "--repeats", "3")
    assert sorted(figures) == ["flip-flop", "gin-three", "hollywood-gin", "rummy-500"]
    for game, f in figures.items():
        assert isinstance(f, dict)
        ways = ["state", "view"] if game == "hollywood-gin" else ["view"]
        assert sorted(f["runs"]) == ways, game
        for way in ways:
            runs = f["runs"][way]
            assert len(runs) == 3 and all(x > 0 for x in runs)
            assert f[f"{way}_us"] == sorted(runs)[1]  # the median of three passes


def test_bench_tournament_gives_up_when_no_match_finishes(monkeypatch: Any) -> None:
    """A platform that takes matches but finishes none (a worker that cannot play them)
    ends the bench with a line naming the workers' logs, not a wait of 15 minutes."""
    import pytest

    from arena.bench import tournament

    class Store:
        def tournament_progress(self, tournament_id: int) -> dict[str, int]:
            return {"queued": 3, "running": 2, "done": 0}

    class Running:
        workers = (object(),)
        logs = "/tmp/arena-logs"

        def dead_workers(self) -> list[object]:
            return []

    monkeypatch.setattr(tournament, "STALL_S", 0.2)
    with pytest.raises(
        RuntimeError, match=r"finished in 0 s \(3 queued, 2 running\); see .* \/tmp\/arena-logs"
    ):
        tournament._wait_done(Store(), 1, Running())


@pytest.mark.multihost
def test_bench_tournament_over_hosts_counts_each_phase_and_each_host() -> None:
    """``--hosts`` plays a round robin over one worker host, then over two, and each
    worker's own count of its matches adds up to the round robin."""
    from arena.bench import hosts

    reason = hosts.unavailable()
    if reason is not None:
        pytest.skip(f"multi-host test did not run (bench tournament --hosts): {reason}")
    figures = _arena("bench", "tournament", "--hosts", "--matches", "6", "--concurrency", "1")
    one, two = figures["hosts_1"], figures["hosts_2"]
    assert isinstance(one, dict) and isinstance(two, dict)
    assert one["matches_by_host"] == {"w1": 6}
    assert set(two["matches_by_host"]) == {"w1", "w2"}
    assert sum(two["matches_by_host"].values()) == 6
    assert one["matches_per_s"] > 0 and two["matches_per_s"] > 0


def test_bench_ceiling_plays_each_deal_in_every_seat() -> None:
    figures = _arena("bench", "ceiling", "--game", "flip-flop", "--seats", "4", "--deals", "2")
    assert figures["games"] == 8 and figures["seats"] == 4
    assert isinstance(figures["score"], float) and 0 <= figures["score"] <= 1
    assert figures["by_role"] == {}


def test_t4_the_sitter_scores_a_quarter_of_a_one_hand_match_whatever_it_sees() -> None:
    """What caps a one-hand Gin for three duel at 75%: the seat sitting out never scores
    (T4), so it shares the loser's place, half a game against the loser and none against
    the winner, even when it sees every card."""
    from arena.bench import ceiling

    figures = ceiling.run("gin-three", 3, deals=4)
    roles = figures["by_role"]
    assert roles["sitter"] == 0.25
    mean = (roles["box"] + roles["captain"] + roles["sitter"]) / 3
    assert figures["score"] == pytest.approx(mean, abs=1e-3)
    assert figures["score"] <= 0.75


@pytest.mark.parametrize(("game", "seats"), [("hollywood-gin", 2), ("flip-flop", 3)])
def test_knowing_the_hands_the_search_plays_the_same_whatever_the_stocks_order(
    game: str, seats: int
) -> None:
    """``arena bench ceiling --knowing hands`` bounds what inferring the hidden hands can
    gain, so the search must not see the stock's order: with the real stock put in
    another order, every decision of a hand is the same."""
    from arena.bench import ceiling
    from referee.games import get_game

    decided = 0
    for deal in range(3):
        state = get_game(game).new_match(deal, seats=seats, options=ONE_HAND[game])
        while (seat := state.to_act()) is not None:
            action = ceiling.rounds_choice(state, seat, random.Random(deal), "hands")
            other = state.clone()
            holder, field = (other.hand, "deck") if game != "flip-flop" else (other, "stock")
            rest = getattr(holder, field)[holder.stock_pos :]
            random.Random(7).shuffle(rest)
            setattr(holder, field, getattr(holder, field)[: holder.stock_pos] + rest)
            assert ceiling.rounds_choice(other, seat, random.Random(deal), "hands") == action
            decided += len(state.legal_actions()) > 1
            state.apply_checked(action)
    assert decided > 5


def test_knowing_the_hands_is_for_the_gin_games() -> None:
    command = ("bench", "ceiling", "--game", "rummy-500", "--knowing", "hands")
    done = subprocess.run(
        [sys.executable, "-m", "arena", *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "--knowing hands" in done.stderr and "not rummy-500" in done.stderr


def test_knowing_the_hands_at_some_decisions_only() -> None:
    """``--hands-at`` gives the search the hands at the Gin decisions it names and the
    view at the others; each kind of decision of a real hand is one of those named."""
    from arena.bench import ceiling
    from referee.games import get_game

    kinds = set()
    state = get_game("hollywood-gin").new_match(3, options=ONE_HAND["hollywood-gin"])
    while (seat := state.to_act()) is not None:
        legal = [str(a) for a in state.legal_actions()]
        kind = ceiling.decision_kind(legal)
        kinds.add(kind)
        assert kind in (*ceiling.DECISIONS, "other")
        if kind == "knock":
            assert any(t.startswith("knock ") for t in legal)
        state.apply_checked(state.view(seat).legal_actions[0] if kind == "other" else legal[-1])
    assert {"draw", "discard"} <= kinds
    figures = _arena(
        "bench", "ceiling", "--game", "hollywood-gin", "--deals", "1", "--knowing", "view",
        "--hands-at", "discard,knock",
    )  # fmt: skip
    assert figures["hands_at"] == ["discard", "knock"] and figures["games"] == 2


@pytest.mark.parametrize(
    ("more", "said"),
    [
        (("--knowing", "view", "--hands-at", "discards"), "not discards"),
        (("--hands-at", "discard"), "add --knowing view"),
        (("--knowing", "view", "--hands-at", "draw", "--game", "rummy-500"), "not rummy-500"),
        (("--reveal", "3"), "--knowing view"),
        (("--knowing", "view", "--reveal", "3", "--game", "gin-three"), "--game hollywood-gin"),
        (("--knowing", "view", "--reveal", "11"), "from 0 to 10, not 11"),
    ],
)
def test_hands_at_says_what_it_takes(more: tuple[str, ...], said: str) -> None:
    game = () if "--game" in more else ("--game", "hollywood-gin")
    done = subprocess.run(
        [sys.executable, "-m", "arena", "bench", "ceiling", *game, *more],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert said in done.stderr


def test_revealed_cards_of_the_opponent_are_in_every_sample() -> None:
    """``--reveal N`` shows the search N more of the opponent's real cards: every sample
    holds them in the opponent's hand, and the share of its hidden cards the samples
    place right is all of them when the whole hand is shown, and less when none is."""
    from arena.bench import ceiling
    from bots.examples import search_bot
    from referee import scenario
    from referee.cards import mask_of
    from referee.games import get_game

    options = ONE_HAND["hollywood-gin"]
    state = get_game("hollywood-gin").new_match(5, options=options)
    for _ in range(8):  # four turns of the heuristic: a hand with a history
        seat = state.to_act()
        assert seat is not None
        state.apply_checked(search_bot.heuristic(state.view(seat)))
    seat = state.to_act()
    assert seat is not None
    view, events = state.view(seat), state.events_for(seat)
    opponent = view.hand.opponent
    real = state.hand.hands[opponent]
    shown = ceiling.revealed(state, view, 4, random.Random(1))
    extra = mask_of(shown.hand.opponent_known) & ~mask_of(view.hand.opponent_known)
    assert extra.bit_count() == 4 and extra & ~real == 0
    for seed in range(20):
        sample = scenario.sample(shown, events, random.Random(seed), options=options)
        assert sample.hand.hands[opponent] & extra == extra
    whole = ceiling.revealed(state, view, 10, random.Random(1))
    assert mask_of(whole.hand.opponent_known) == real
    rng = random.Random(2)
    sampled = scenario.sample(whole, events, rng, options=options)
    assert ceiling.placed_right(state, sampled, view) == 1.0
    blind = [
        ceiling.placed_right(state, scenario.sample(view, events, rng, options=options), view)
        for _ in range(20)
    ]
    assert max(blind) < 1.0
    figures = _arena(
        "bench", "ceiling", "--game", "hollywood-gin", "--deals", "1", "--knowing", "view",
        "--reveal", "10",
    )  # fmt: skip
    assert figures["reveal"] == 10 and figures["placed_right"] == 1.0
