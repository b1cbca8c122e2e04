"""Shared seeded hands for the pytest-benchmark files.

Run: ``pytest benches/ --benchmark-enable --benchmark-group-by=group``.
Every case processes the same ``N`` hands per round, so the groups'
timings compare engines directly (ratio = time of one / time of other);
``extra_info["hands_per_s"]`` records the rate.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from koudian._bench import make_counts, peer_inputs

N = int(os.environ.get("KOUDIAN_BENCH_HANDS", "100000"))


@pytest.fixture(scope="session")
def h14() -> np.ndarray:
    return make_counts(N, size=14)


@pytest.fixture(scope="session")
def h13() -> np.ndarray:
    return make_counts(N, size=13)


@pytest.fixture(scope="session")
def p14(h14: np.ndarray) -> dict[str, list[Any]]:
    return peer_inputs(h14)


@pytest.fixture(scope="session")
def p13(h13: np.ndarray) -> dict[str, list[Any]]:
    return peer_inputs(h13)


def run(benchmark: Any, fn: Callable[[], object], n: int) -> None:
    """Times ``fn`` (which processes ``n`` hands) and records hands/s."""
    benchmark.pedantic(fn, rounds=5, iterations=1, warmup_rounds=1)
    if benchmark.stats is not None:
        benchmark.extra_info["hands_per_s"] = n / benchmark.stats.stats.min
