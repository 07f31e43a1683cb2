"""The bot SDK: the heuristic bot beats the random bot, the helpers, loading a
bot file, and the ten-line bot over a real socket."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.commands.bot_run import load_bot
from arena.errors import CommandError
from bots.examples.heuristic_bot import HeuristicBot
from bots.examples.minimal_bot import MinimalBot
from bots.examples.random_bot import RandomBot
from bots.sdk import Bot, Request, SeenCards, best_arrangement, deadwood
from bots.sdk.local import play_local
from referee.cards import parse_cards
from referee.games import get_game
from tests.referee_support import (
    EXAMPLES,
    ROOT,
    RefereeProcess,
    referee_fixture,
    start_bot,
    wait_all,
)


def test_h4_heuristic_beats_random_in_at_least_90_percent_of_hollywood_matches() -> None:
    matches = 60
    wins = 0
    for seed in range(matches):
        seat = seed % 2  # both seats, both first dealers
        bots: list[Bot] = [RandomBot(seed), RandomBot(seed)]
        bots[seat] = HeuristicBot()
        result = play_local("hollywood-gin", seed, bots)
        wins += result.ranks[seat] == 0 and result.ranks[1 - seat] == 1
    assert wins >= 0.9 * matches, f"heuristic won {wins} of {matches}"


@pytest.mark.parametrize(
    ("game", "options"),
    [("gin-three", {"max_hands": 6}), ("rummy-500", {"max_hands": 3}), ("flip-flop", {})],
)
def test_heuristic_beats_two_random_bots_more_often_than_chance(
    game: str, options: dict[str, int]
) -> None:
    matches = 30
    wins = 0
    for seed in range(matches):
        seat = seed % 3
        bots: list[Bot] = [RandomBot(seed * 3 + i) for i in range(3)]
        bots[seat] = HeuristicBot()
        wins += play_local(game, seed, bots, options).ranks[seat] == 0
    assert wins > matches / 2, f"{game}: heuristic won {wins} of {matches}"


def test_g5_helpers_give_best_arrangement_and_deadwood() -> None:
    hand = parse_cards("AS 2S 3S 7H 7D 7C KD QC 4H 9C")
    arrangement = best_arrangement(hand)
    assert sorted(str(m) for m in arrangement.melds) == ["7C 7D 7H", "AS 2S 3S"]
    assert deadwood(hand) == arrangement.deadwood_value == 10 + 10 + 4 + 9


def test_seen_cards_track_hand_and_discards() -> None:
    state = get_game("hollywood-gin").new_match(3)
    seen = SeenCards()
    view = state.view(0)
    cards = seen.update(view)
    assert view.hand is not None
    assert set(view.hand.hand) <= cards and view.hand.discard_pile[-1] in cards
    assert len(seen.unseen()) == 52 - 11


def test_request_view_is_decoded_lazily_from_the_wire() -> None:
    from referee import wire

    state = get_game("gin-three").new_match(4)
    seat = state.to_act()
    assert seat is not None
    legal = [str(a) for a in state.legal_actions()]
    msg = wire.decision_message(3, state.view(seat), legal, state.events_for(seat), 50, 70)
    request = Request.from_message(msg.decision, "gin-three")
    assert request._view is None
    assert request.view == state.view(seat)
    assert request.clock.decision_ms == 50 and request.clock.bank_ms == 70
    assert request.index(legal[-1]) == len(legal) - 1


def test_the_ten_line_bot_of_the_docs_is_the_example_file() -> None:
    doc = (ROOT / "docs" / "bots.md").read_text()
    shown = doc.split("## The ten-line bot", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    source = (EXAMPLES / "minimal_bot.py").read_text()
    code = source.split('"""', 2)[2].lstrip("\n")  # without its docstring
    assert shown == code, "docs/bots.md and bots/examples/minimal_bot.py show different bots"
    assert len([line for line in code.splitlines() if line.strip()]) <= 10


def test_load_bot_finds_the_bot_class(tmp_path: Path) -> None:
    assert isinstance(load_bot(EXAMPLES / "minimal_bot.py"), Bot)
    empty = tmp_path / "nobot.py"
    empty.write_text("x = 1\n")
    with pytest.raises(CommandError, match="one Bot subclass"):
        load_bot(empty)


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


def test_ten_line_bot_plays_over_a_socket(ref: RefereeProcess) -> None:
    m = ref.create("hollywood-gin", 2, seed=2, options={"max_hands": 1})
    procs = [
        start_bot(EXAMPLES / "minimal_bot.py", ref.address, m.tokens[0]),
        start_bot(EXAMPLES / "random_bot.py", ref.address, m.tokens[1], ARENA_BOT_SEED="1"),
    ]
    for code, out in wait_all(procs):
        assert code == 0 and "seat" in out, out
    record = ref.record(m.match_id)
    assert [s.status for s in record.seats] == ["ok", "ok"]
    assert isinstance(MinimalBot(), Bot)


def test_sdk_names_an_unreadable_referee_message() -> None:
    """A server on the Play method that answers with bytes that are no RefereeMessage:
    the SDK ends the session with an error that says so, instead of a decode trace."""
    import asyncio

    import grpc

    from bots.sdk.client import _PLAY, BotSessionError, play

    async def garbage(_requests: object, context: grpc.aio.ServicerContext) -> None:
        await context.read()  # the Join
        await context.write(b"\xff\xff\xff")

    async def main() -> str:
        server = grpc.aio.server()
        service, method = _PLAY.strip("/").split("/")
        handler = grpc.stream_stream_rpc_method_handler(garbage)
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(service, {method: handler}),)
        )
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            with pytest.raises(BotSessionError) as caught:
                await play(RandomBot(1), f"127.0.0.1:{port}", "token")
            return str(caught.value)
        finally:
            await server.stop(0)

    message = asyncio.run(main())
    assert "not a RefereeMessage" in message
    assert "same rummyarena.v1 protocol" in message
