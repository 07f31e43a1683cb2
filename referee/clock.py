"""The referee's clocks (ARCHITECTURE decision 4): a per-decision limit plus a
time bank per seat, measured at the referee."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ClockRules:
    """How a match times its seats, in milliseconds; faults past ``strike_limit`` forfeit."""

    decision_ms: int = 1000
    bank_ms: int = 10_000
    strike_limit: int = 3
    join_ms: int = 30_000

    def __post_init__(self) -> None:
        for name in ("decision_ms", "bank_ms", "join_ms"):
            value = getattr(self, name)
            if not 0 <= value <= 3_600_000:
                raise ValueError(f"clock {name} must be 0..3600000 ms, not {value}")
        if not 0 <= self.strike_limit <= 1000:
            raise ValueError(f"clock strike_limit must be 0..1000, not {self.strike_limit}")
        if self.decision_ms + self.bank_ms == 0:
            raise ValueError("clock decision_ms and bank_ms cannot both be 0")


class SeatClock:
    """One seat's clock: the bank left, and the time the seat has used."""

    __slots__ = ("bank_ms", "rules", "used_ms")

    def __init__(self, rules: ClockRules) -> None:
        self.rules = rules
        self.bank_ms = float(rules.bank_ms)
        self.used_ms = 0.0

    def allowance_s(self) -> float:
        """The longest this decision may take, in seconds (decision limit plus bank)."""
        return (self.rules.decision_ms + self.bank_ms) / 1000.0

    def charge(self, elapsed_ms: float) -> bool:
        """Record a decision that took ``elapsed_ms``; False when it ran out of time."""
        self.used_ms += elapsed_ms
        over = elapsed_ms - self.rules.decision_ms
        if over <= 0:
            return True
        if over <= self.bank_ms:
            self.bank_ms -= over
            return True
        self.bank_ms = 0.0
        return False
