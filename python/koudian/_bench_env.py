"""``koudian bench --env``: environment steps per second, measured in one
run so that the ratios meet the same machine load.

* PettingZoo: ``koudian.env.KoudianEnv``, one Python call per decision,
  the first legal action from the mask, ``reset`` at every hand's end.
* ``koudian.VecEnv`` at N = 64, 1024, 8192 tables on 1 and 2 threads,
  learners = all seats and learners = seat 0 against native greedy
  opponents, actions = the first legal action of each mask
  (``masks.argmax(1)``, one vectorized numpy call), planes and masks
  written every step. A rate counts learner decisions (N per step).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

__all__ = ["EnvRate", "env_report", "run_env_bench"]

SIZES = (64, 1024, 8192)
THREADS = (1, 2)


@dataclass
class EnvRate:
    """One case: learner steps per second, best of the rounds."""

    case: str
    rate: float


def _pettingzoo_rate(rules: str, steps: int) -> float:
    from koudian.env import KoudianEnv

    env = KoudianEnv(rules)
    env.reset(seed=0)
    t0 = time.perf_counter()
    for _ in range(steps):
        if env.terminations[env.agent_selection]:
            env.reset()
        obs, *_ = env.last()
        env.step(int(obs["action_mask"].argmax()))
    return steps / (time.perf_counter() - t0)


def _vec_rate(rules: str, n: int, threads: int, learners: str | int, seconds: float) -> float:
    from koudian import VecEnv

    env = VecEnv(rules, n, learners=learners, threads=threads, seed=1)
    env.reset()
    masks = env.action_masks()
    actions = np.zeros(n, np.int64)
    for _ in range(3):  # warm up: pools started, buffers at size
        np.argmax(masks, axis=1, out=actions)
        env.step(actions)
    steps = 0
    t0 = time.perf_counter()
    while True:
        np.argmax(masks, axis=1, out=actions)
        env.step(actions)
        steps += 1
        dt = time.perf_counter() - t0
        if dt >= seconds and steps >= 3:
            return steps * n / dt


def run_env_bench(
    rules: str = "shanxi",
    *,
    seconds: float = 0.5,
    repeat: int = 3,
    pz_steps: int = 20_000,
    sizes: tuple[int, ...] = SIZES,
) -> list[EnvRate]:
    """Every case ``repeat`` times (rounds interleaved), best kept."""
    cases: list[tuple[str, object]] = [("PettingZoo AEC env (1 table)", None)]
    for learners in ("all", 0):
        for n in sizes:
            for threads in THREADS:
                who = "all seats" if learners == "all" else "seat 0 vs greedy"
                cases.append((f"VecEnv N={n:<5} threads={threads} {who}", (n, threads, learners)))
    best: dict[str, float] = {}
    for _ in range(repeat):
        for name, spec in cases:
            if spec is None:
                r = _pettingzoo_rate(rules, pz_steps)
            else:
                n, threads, learners = spec  # type: ignore[misc]
                r = _vec_rate(rules, n, threads, learners, seconds)
            best[name] = max(best.get(name, 0.0), r)
    return [EnvRate(name, best[name]) for name, _ in cases]


def env_report(results: list[EnvRate]) -> str:
    """A table of rates with each one's ratio to the PettingZoo env."""
    base = results[0].rate
    lines = [f"{'case':<42} {'learner steps/s':>16} {'vs PettingZoo':>14}", "-" * 74]
    for r in results:
        lines.append(f"{r.case:<42} {r.rate:>16,.0f} {r.rate / base:>13.1f}x")
    return "\n".join(lines)
