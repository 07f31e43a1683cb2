"""C9 at the wire: record every byte the referee sends to each seat over real
sockets, then re-run the match and check that nothing names a card the seat
may not know."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from referee.cards import cards_of
from referee.engine import GameState
from referee.record import new_state
from rummyarena.v1 import bot_pb2
from tests.referee_support import (
    CAPS_FOR_TESTS,
    SEATS_FOR_TESTS,
    RefereeProcess,
    play_raw_seat,
    referee_fixture,
)

CARD = re.compile(r"(?<![A-Za-z0-9])(?:[A2-9TJQK][CDHS]|JK)(?![A-Za-z0-9])")


@pytest.fixture(scope="module")
def ref() -> Iterator[RefereeProcess]:
    yield from referee_fixture()


def strings(msg: Any) -> Iterator[str]:
    """Every string inside a message, recursively."""
    for _, value in msg.ListFields():
        if hasattr(value, "values"):  # a map field
            items = list(value.values())
        elif isinstance(value, (str, int, float)) or hasattr(value, "ListFields"):
            items = [value]
        else:
            items = list(value)  # a repeated field
        for item in items:
            if isinstance(item, str):
                yield item
            elif hasattr(item, "ListFields"):
                yield from strings(item)


def tokens(texts: Iterator[str] | list[str]) -> set[str]:
    return {t for text in texts for t in CARD.findall(text)}


def gin_hidden(state: GameState, s: int) -> set[str]:
    """Cards in a Gin hand that seat ``s`` may not know now: the stock and the other
    players' cards not seen taken (the sitter sees the captain's hand, T3)."""
    hand = getattr(state, "hand", None)
    if hand is None or state.to_act() is None:
        return set()
    roles = getattr(state, "roles", None)
    hidden = {str(c) for c in hand.deck[hand.stock_pos :]}
    for p in (hand.dealer, hand.non_dealer):
        if p == s or (roles is not None and s == roles.sitter and p == roles.captain):
            continue
        hidden |= {str(c) for c in cards_of(hand.hands[p] & ~hand.known[p])}
    return hidden


def check_seat(state: GameState, s: int, msg: bot_pb2.RefereeMessage) -> None:
    allowed = tokens([repr(state.view(s))] + [e.text for e in state.events_for(s, 0)])
    sent = tokens(list(strings(msg)))
    assert sent <= allowed, f"seat {s} was sent {sorted(sent - allowed)}"
    if msg.HasField("decision"):
        view = bot_pb2.Decision()
        view.CopyFrom(msg.decision)
        del view.events[:]
        for which in ("hollywood_gin", "gin_three"):
            if view.view.HasField(which):
                getattr(view.view, which).ClearField("last_hand")
        leaked = tokens(list(strings(view))) & gin_hidden(state, s)
        assert not leaked, f"seat {s} was shown hidden cards {sorted(leaked)}"


@pytest.mark.parametrize("game", sorted(SEATS_FOR_TESTS))
def test_c9_nothing_hidden_reaches_a_seat_on_the_wire(ref: RefereeProcess, game: str) -> None:
    from referee.engine import game_names

    if game not in game_names():
        pytest.fail(f"{game} is not registered")
    n = SEATS_FOR_TESTS[game]
    m = ref.create(game, n, seed=17, options=CAPS_FOR_TESTS[game])

    async def everyone() -> list[list[bytes]]:
        return await asyncio.gather(
            *(play_raw_seat(ref.address, tok, random.Random(i)) for i, tok in enumerate(m.tokens))
        )

    sent = asyncio.run(everyone())
    record = ref.record(m.match_id)
    by_decision: dict[int, list[tuple[int, bot_pb2.RefereeMessage]]] = {}
    ends = []
    for s, raws in enumerate(sent):
        for raw in raws:
            msg = bot_pb2.RefereeMessage.FromString(raw)
            if msg.HasField("decision"):
                by_decision.setdefault(msg.decision.decision_id, []).append((s, msg))
            elif msg.HasField("match_end"):
                ends.append((s, msg))
    assert len(ends) == n
    state = new_state(record)
    decision = 0  # the decisions sent, in order (the referee's own moves, C7, had none)
    for entry in record.actions:
        if entry.source != "forced":
            for s, msg in by_decision.get(decision, []):
                assert s == entry.seat
                check_seat(state, s, msg)
            decision += 1
        state.apply_checked(entry.text)
    assert sum(len(v) for v in by_decision.values()) == decision
    for s, msg in ends:
        check_seat(state, s, msg)


def test_the_wire_check_catches_a_leak() -> None:
    from referee import codec
    from referee.engine import get_game

    state = get_game("hollywood-gin").new_match(5)
    s = state.to_act()
    assert s is not None
    hidden = sorted(gin_hidden(state, s))
    assert len(hidden) == 52 - 11  # all but the seat's ten cards and the upcard
    legal = [str(a) for a in state.legal_actions()]
    clean = codec.decision_message(0, state.view(s), legal, state.events_for(s), 100, 100)
    check_seat(state, s, clean)
    leaky = codec.decision_message(0, state.view(s), legal, state.events_for(s), 100, 100)
    leaky.decision.view.hollywood_gin.hand.opponent_known.append(hidden[0])
    with pytest.raises(AssertionError, match=r"hidden cards|was sent"):
        check_seat(state, s, leaky)
