"""The clock rules of a match (docs/architecture.md, decision 4): a per-decision limit plus a
time bank per seat, measured at the referee. A value both sides need: the referee's
runner (a seat's running clock is :class:`referee.seats.SeatClock`), the wire, the
store and the command line."""

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
