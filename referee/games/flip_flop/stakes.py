"""The stakes of a Flip Flop match: bankrolls, set-aside stakes and the three pots
(F2), and the rules that move them: the antes (F3), the flip and flop pots paid out
(F6), set-aside stakes paid into the game pot (F5, F9, F10), splitting (F12),
elimination (F13) and the final ranking (F14). Stakes only ever move between bankrolls and pots,
so their total stays the starting total (F2)."""

from __future__ import annotations

from collections.abc import Sequence

from referee.cards import Card
from referee.games.flip_flop.tables import ANTE_PHRASE, FLIP, FLOP, FULL_ANTES, GAME, SEAT_ORDERS


class Stakes:
    """Per seat: the bankroll (its set-aside stake included), the set-aside stake, the
    pots it may win this round (``eligible``: 0 when out of the round, else 1 to 3 for
    game, flip, flop; F3) and the round it was eliminated in (F13); and the game, flip
    and flop ``pots``."""

    __slots__ = ("bankroll", "eligible", "eliminated_in", "pots", "set_aside")

    def __init__(self, seats: int, starting: int) -> None:
        self.bankroll = [starting] * seats
        self.set_aside = [0] * seats
        self.pots = [0, 0, 0]
        self.eligible = [0] * seats
        self.eliminated_in: list[int | None] = [None] * seats

    def copy(self) -> Stakes:
        """An independent copy."""
        other = Stakes.__new__(Stakes)
        other.bankroll = list(self.bankroll)
        other.set_aside = list(self.set_aside)
        other.pots = list(self.pots)
        other.eligible = list(self.eligible)
        other.eliminated_in = list(self.eliminated_in)
        return other

    def ante(self, dealer: int) -> tuple[list[int], list[str]]:
        """Every seat still in the game antes by its bankroll (F3), from the dealer's
        left: the seats in the round in that order, and the text of each ante."""
        bankroll = self.bankroll
        n = len(bankroll)
        pots = self.pots
        if min(bankroll) >= 4:  # the usual round: everyone antes in full
            pots[0] += n
            pots[1] += n
            pots[2] += n
            self.bankroll = [b - 3 for b in bankroll]
            self.set_aside = [1] * n
            self.eligible = [3] * n
            return list(SEAT_ORDERS[n][dealer]), FULL_ANTES[n][dealer]
        eligible = self.eligible
        set_aside = self.set_aside
        antes = []
        order = []
        games = flips = flops = 0
        for seat in SEAT_ORDERS[n][dealer]:
            b = bankroll[seat]
            if b <= 0:
                eligible[seat] = set_aside[seat] = 0
                continue
            if b >= 4:  # into game, flip, flop in turn; one more set aside
                pays, aside = 3, 1
            elif b >= 2:
                pays, aside = b - 1, 1
            else:
                pays, aside = 1, 0  # all in
            games += 1
            if pays > 1:
                flips += 1
                if pays > 2:
                    flops += 1
            bankroll[seat] = b - pays
            set_aside[seat] = aside
            eligible[seat] = pays
            order.append(seat)
            antes.append(ANTE_PHRASE[seat][pays][aside])
        pots[0] += games
        pots[1] += flips
        pots[2] += flops
        return order, antes

    def pay_side_pots(self, winners: Sequence[tuple[Card, int] | None]) -> tuple[int, int]:
        """The flip and flop pots go to their winners (F6): ``winners`` holds the
        (card, seat) that wins each, or None for a pot nobody may claim, which carries
        over. Returns the stakes in each pot, paid out or left."""
        pots = self.pots
        flip, flop = pots[FLIP], pots[FLOP]
        best = winners[0]
        if best is not None:
            self.bankroll[best[1]] += flip
            pots[FLIP] = 0
        best = winners[1]
        if best is not None:
            self.bankroll[best[1]] += flop
            pots[FLOP] = 0
        return flip, flop

    def settle(
        self, winners: Sequence[int], payers: Sequence[int], seats: Sequence[int], round_no: int
    ) -> tuple[list[tuple[int, int]], int, int, list[int]]:
        """Settle the game pot at the end of round ``round_no``: each payer's set-aside
        stake goes into it (F5, F9, F10), the winners share it in whole stakes, the
        remainder staying in it (F12), the ``seats`` left with no stakes are eliminated
        (F13), and the set-aside stakes not paid are free again. Returns the payments
        (seat, stake), the pot shared, each winner's share and the seats eliminated."""
        bankroll = self.bankroll
        pots = self.pots
        paid = []
        if payers:
            set_aside = self.set_aside
            for s in payers:
                aside = set_aside[s]
                if aside:
                    bankroll[s] -= aside
                    pots[GAME] += aside
                    paid.append((s, aside))
        pot = pots[GAME]
        share = pot // len(winners)
        for w in winners:
            bankroll[w] += share
        pots[GAME] = pot - share * len(winners)
        out = []
        if 0 in bankroll:
            out = [s for s in seats if bankroll[s] == 0]
            for s in out:
                self.eliminated_in[s] = round_no
        self.set_aside = [0] * len(bankroll)
        return paid, pot, share, out

    def end_match(self) -> None:
        """The match is over: no seat may win anything."""
        self.eligible = [0] * len(self.bankroll)

    def seats_left(self) -> int:
        """How many seats still have stakes (a bankroll never goes below zero, F13)."""
        return len(self.bankroll) - self.bankroll.count(0)

    def ranks(self) -> tuple[int, ...]:
        """The final ranking (F14): survivors by bankroll, then the eliminated, later
        eliminations first; equal keys share a place."""
        keys = [
            (1, b, 0) if out is None else (0, 0, out)
            for b, out in zip(self.bankroll, self.eliminated_in, strict=True)
        ]
        return tuple(sum(1 for o in keys if o > k) for k in keys)
