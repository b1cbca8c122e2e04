"""Vectorized environment throughput (issue 23), pytest-benchmark.

Run: ``pytest benches/bench_vec_env.py --benchmark-enable
--benchmark-group-by=group`` (after ``maturin develop --release``), or
``koudian bench --env`` for the same cases as one table with ratios. Each
case reports learner steps/s in ``extra_info["steps_per_s"]``; the
PettingZoo env (one table, one Python call per decision, first legal
action) is measured in the same run as the baseline. ``VecEnv`` cases:
N = 64, 1024, 8192 tables on 1 and 2 threads, learners = all seats and
seat 0 against native greedy, actions = ``masks.argmax(1)`` (the first
legal action, one numpy call), planes (uint8, encoding 2) and masks
written every step.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest
from koudian import VecEnv

STEPS = 30


def test_pettingzoo_env_steps(benchmark: Any) -> None:
    pytest.importorskip("pettingzoo")
    from koudian.env import KoudianEnv

    env = KoudianEnv("shanxi")
    env.reset(seed=0)
    n = 20_000

    def play() -> None:
        for _ in range(n):
            if env.terminations[env.agent_selection]:
                env.reset()
            obs, *_ = env.last()
            env.step(int(obs["action_mask"].argmax()))

    t0 = time.perf_counter()
    benchmark.pedantic(play, rounds=3, iterations=1)
    benchmark.extra_info["steps_per_s"] = 3 * n / (time.perf_counter() - t0)
    benchmark.group = "env steps"


@pytest.mark.parametrize("learners", ["all", 0])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", [64, 1024, 8192])
def test_vec_env_steps(benchmark: Any, n: int, threads: int, learners: str | int) -> None:
    env = VecEnv("shanxi", n, learners=learners, threads=threads, seed=1)
    env.reset()
    masks = env.action_masks()
    actions = np.zeros(n, np.int64)

    def play() -> None:
        for _ in range(STEPS):
            np.argmax(masks, axis=1, out=actions)
            env.step(actions)

    play()  # warm up
    t0 = time.perf_counter()
    benchmark.pedantic(play, rounds=3, iterations=1)
    benchmark.extra_info["steps_per_s"] = 3 * STEPS * n / (time.perf_counter() - t0)
    benchmark.group = "env steps"
