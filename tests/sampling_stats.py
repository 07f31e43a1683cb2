"""What the sampler tests share: the chi-square critical value they compare against."""

from __future__ import annotations

import math


def chi_square_critical(df: int, z: float = 3.09) -> float:
    """The chi-square statistic exceeded with probability about 0.001 (z = 3.09) at
    ``df`` degrees of freedom (Wilson–Hilferty; within 1% for df >= 10)."""
    a = 2 / (9 * df)
    return df * (1 - a + z * math.sqrt(a)) ** 3
