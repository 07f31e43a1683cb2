"""The codec carries every game's view exactly (C9 is the engine's; the wire
must neither add nor lose anything): view -> protobuf -> view is the identity."""

from __future__ import annotations

import random

import pytest

from referee import codec
from referee.engine import game_names, get_game
from rummyarena.v1 import views_pb2


@pytest.mark.parametrize("game", game_names())
def test_c9_every_view_round_trips_through_protobuf(game: str) -> None:
    spec = get_game(game)
    for seats in range(spec.min_seats, spec.max_seats + 1):
        state = spec.new_match(seats * 13, seats=seats, options=spec.test_variants[0])
        rng = random.Random(seats)
        steps = 0
        while True:
            over = state.to_act() is None
            for seat in range(seats) if over or steps % 5 == 0 else ():
                view = state.view(seat)
                msg = views_pb2.PlayerView.FromString(codec.view_to_proto(view).SerializeToString())
                assert codec.view_game(msg) == game
                assert codec.view_from_proto(msg, view.legal_actions) == view
            if over:
                break
            state.apply(rng.choice(state.legal_actions()))
            steps += 1
