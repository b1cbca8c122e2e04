"""The arena's intervals: 95% normal intervals of per-deal values (paired
by deal, so each deal's luck cancels) and how they print."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = ["Z95", "mean_ci", "plus_minus"]

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""


def plus_minus(mean: float, half: float) -> str:
    """``+1.30 ± 0.40``: two decimals, more where the half-width would
    print as 0.00 (Sichuan's small edges)."""
    places = 2
    while 0 < half < 0.5 * 10.0**-places and places < 5:
        places += 1
    return f"{mean:+.{places}f} ± {half:.{places}f}"


def mean_ci(values: npt.NDArray[np.float64]) -> tuple[float, float, float]:
    """Mean and 95% normal interval of per-deal values."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = float(values.mean())
    if n < 2:
        return (m, -math.inf, math.inf)
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(n)
    return (m, m - half, m + half)
