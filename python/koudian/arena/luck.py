"""The statistics of the arena's luck correction (docs/arena.md, "The luck
of the wall"): the weight the correction enters with, fitted so that the
interval stays honest on few deals, and where ``luck="auto"`` pays for it.

Per deal the correction ``c = played - adjusted`` has mean zero, so the
advantage ``played - w c`` has the same mean for any fixed ``w``; the
weight that spreads the values least is the control-variate coefficient
``cov(played, c) / var(c)``. Fitted on the deals it then corrects, it
also fits their noise: on two deals the two corrected values came out
equal and the interval ``± 0.00``. So the weight is **cross-fitted**: the
deals are split into ``LUCK_FOLDS`` folds (deal ``i`` of the run, in deal
order, in fold ``i % LUCK_FOLDS``) and each fold is corrected with the
weight fitted on the other folds, which never saw its deals; and below
``MIN_LUCK_DEALS`` deals the advantage is reported as played.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = [
    "AUTO_KEEPS",
    "LUCK_FOLDS",
    "MIN_LUCK_DEALS",
    "auto_adjusts",
    "cross_fitted",
    "fit_weight",
    "too_few_deals",
]

MIN_LUCK_DEALS = 20
"""Fewest deals whose advantage has the luck of the wall taken out; on
fewer, the advantage as played. Over 200 runs of 20 deals of a search
agent against three greedy, the cross-fitted 95% intervals covered the
mean of all 4,000 deals 94.5% of the time (as played: 94%; the weight
fitted in-sample: 92.5%, and 89.5% on runs of 10 deals);
``tests/test_arena_luck.py`` checks it."""

LUCK_FOLDS = 10
"""Folds of the cross-fitted weight: each is corrected with the weight
fitted on the other nine tenths of the deals (at ``MIN_LUCK_DEALS``, on
18 deals)."""

AUTO_KEEPS = frozenset({"random"})
"""Built-in lone agents for which ``luck="auto"`` keeps the luck: the
correction costs 2 x ``LUCK_WALLS`` greedy rollouts (about 6 ms) a
departure, and ``random`` departs at almost every decision for
microseconds of its own, so the correction made its arena hundreds of
times slower for an interval 8% narrower (300 deals: 50-88 s against
0.04-0.08 s, +15.11 ± 0.56 against ± 0.61; its weight is small, its
departures' own noise adding up; docs/arena.md). For ``mc`` the cost hides in its search;
a Python or ``cmd:`` bot's cost per decision is not known to the arena,
and it gets the correction (``luck="keep"`` for a bot that plays
near-randomly and fast)."""


def fit_weight(raw: npt.NDArray[np.float64], adj: npt.NDArray[np.float64]) -> float:
    """The weight ``w`` in ``0 .. 1`` of the per-deal correction ``raw -
    adj`` (mean zero) that leaves ``raw - w (raw - adj)`` the least spread
    over these deals: the control-variate coefficient. ``w = 1`` is the
    adjusted advantage itself (a search agent's few departures), smaller
    weights keep part of the played luck where the correction's own noise
    is large (random play departs at almost every decision)."""
    c = raw - adj
    if len(c) < 2:
        return 1.0
    var = float(c.var(ddof=1))
    if var == 0.0:
        return 1.0
    cov = float(np.cov(raw, c, ddof=1)[0, 1])
    return min(1.0, max(0.0, cov / var))


def cross_fitted(
    raw: npt.NDArray[np.float64], adj: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], float] | None:
    """Per deal (in deal order), the advantage with the luck correction at
    the weight fitted on the other folds, and the folds' mean weight; None
    below ``MIN_LUCK_DEALS`` deals (report the advantage as played). Each
    fold's weight is independent of its deals, so each value has the mean
    of ``raw``."""
    n = len(raw)
    if n < MIN_LUCK_DEALS:
        return None
    fold = np.arange(n) % LUCK_FOLDS
    c = raw - adj
    values = np.array(raw, dtype=np.float64)
    weights = []
    for k in range(LUCK_FOLDS):
        out = fold == k
        w = fit_weight(raw[~out], adj[~out])
        values[out] = raw[out] - w * c[out]
        weights.append(w)
    return values, float(np.mean(weights))


def too_few_deals(deals: int) -> str:
    """The note of a run whose rows carry the correction but whose deals
    are too few to fit its weight."""
    return (
        f"luck of the wall kept: {deals} deals, fewer than {MIN_LUCK_DEALS} "
        "(the correction's weight is fitted on other deals than it corrects)"
    )


def auto_adjusts(lone: str) -> bool:
    """Whether ``luck="auto"`` takes the luck out of a 1-vs-3 run against
    greedy whose lone agent has the key ``lone`` (a built-in spec, or
    ``python:NAME`` for any other agent): everywhere but ``AUTO_KEEPS``."""
    return lone not in AUTO_KEEPS
