"""``koudian bench --env``: environment steps per second, measured in one
run so that the ratios meet the same machine load.

* PettingZoo: ``koudian.env.KoudianEnv``, one Python call per decision,
  the first legal action from the mask, ``reset`` at every hand's end.
* ``koudian.VecEnv`` at N = 64, 1024, 8192 tables on 1 and 2 threads,
  learners = all seats and learners = seat 0 against native greedy
  opponents, actions = the first legal action of each mask
  (``masks.argmax(1)``, one vectorized numpy call), planes and masks
  written every step. A rate counts learner decisions (N per step).
* The host's ceiling for ``threads=2`` in the same run: two independent
  one-thread VecEnvs of N tables stepped at once, each from its own Python
  thread (``step`` releases the GIL), their summed rate over one such env
  alone. Below the target's 1.8x, the second CPU was busy (or the host has
  one core) and ``threads=2`` cannot be judged.
* The row writer (``koudian_core::simd``'s ``vec_env`` kernel: each
  table's observation row and mask) on the process's instruction set over
  the scalar path, when they differ: a self-play VecEnv of 256 tables, one
  thread, stepped in Rust (``_core._bench.time_env``: the same positions
  both ways) for each encoding and dtype. Every other round runs the cases
  in reverse, so that neither path always runs first.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np

__all__ = ["EnvRate", "env_report", "run_env_bench"]

#: The case name's suffix of the host-ceiling cases.
PAIR = "2 envs at once"

SIZES = (64, 1024, 8192)
THREADS = (1, 2)

#: The row writer's cases: (encoding version, dtype, steps a round).
WRITER = (
    (1, "float32", 1500),
    (2, "uint8", 1500),
    (2, "float32", 1000),
    (3, "uint8", 300),
    (3, "float32", 300),
)

#: Tables of the row writer's cases.
WRITER_TABLES = 256

#: The case name's suffix of the row writer's baseline.
SCALAR_PATH = "writer, scalar path"


@dataclass
class EnvRate:
    """One case: learner steps per second, best of the rounds, and each
    round's rate (rounds interleaved: a round's cases met the same load)."""

    case: str
    rate: float
    round_rates: tuple[float, ...] = field(default=())


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


def _vec_rate(
    rules: str,
    n: int,
    threads: int,
    learners: str | int,
    seconds: float,
    start: threading.Barrier | None = None,
) -> float:
    from koudian import VecEnv

    env = VecEnv(rules, n, learners=learners, threads=threads, seed=1)
    env.reset()
    masks = env.action_masks()
    actions = np.zeros(n, np.int64)
    for _ in range(3):  # warm up: pools started, buffers at size
        np.argmax(masks, axis=1, out=actions)
        env.step(actions)
    if start is not None:
        start.wait()
    steps = 0
    t0 = time.perf_counter()
    while True:
        np.argmax(masks, axis=1, out=actions)
        env.step(actions)
        steps += 1
        dt = time.perf_counter() - t0
        if dt >= seconds and steps >= 3:
            return steps * n / dt


def _pair_rate(rules: str, n: int, learners: str | int, seconds: float) -> float:
    """Two one-thread envs stepped at once from two threads: their summed
    rate (each timed over its own loop, started together)."""
    start = threading.Barrier(2)
    rates = [0.0, 0.0]

    def one(k: int) -> None:
        rates[k] = _vec_rate(rules, n, 1, learners, seconds, start)

    other = threading.Thread(target=one, args=(1,))
    other.start()
    one(0)
    other.join()
    return sum(rates)


def writer_isa() -> str:
    """The instruction set of the row writer in this process."""
    from koudian import _core

    return dict(_core._bench.kernels()).get("vec_env", "scalar")


def _writer_rate(rules: str, version: int, dtype: str, steps: int, isa: str) -> float:
    from koudian import _core

    secs = _core._bench.time_env(
        WRITER_TABLES, steps, version=version, dtype=dtype, rules=rules, isa=isa
    )
    return steps * WRITER_TABLES / secs


def run_env_bench(
    rules: str = "shanxi",
    *,
    seconds: float = 0.5,
    repeat: int = 3,
    pz_steps: int = 20_000,
    sizes: tuple[int, ...] = SIZES,
    writer_scale: float = 1.0,
) -> list[EnvRate]:
    """Every case ``repeat`` times (rounds interleaved, every other one in
    reverse), best kept; the row writer's cases run ``writer_scale`` times
    their steps."""
    cases: list[tuple[str, Callable[[], float]]] = [
        ("PettingZoo AEC env (1 table)", partial(_pettingzoo_rate, rules, pz_steps))
    ]
    for learners in ("all", 0):
        who = "all seats" if learners == "all" else "seat 0 vs greedy"
        for n in sizes:
            for threads in THREADS:
                one = partial(_vec_rate, rules, n, threads, learners, seconds)
                cases.append((f"VecEnv N={n:<5} threads={threads} {who}", one))
            cases.append(
                (f"VecEnv N={n:<5} {PAIR} {who}", partial(_pair_rate, rules, n, learners, seconds))
            )
    isa = writer_isa()
    for version, dtype, steps in WRITER if isa != "scalar" else ():
        k = max(1, round(steps * writer_scale))
        for path, suffix in ((isa, f"writer, {isa}"), ("scalar", SCALAR_PATH)):
            name = f"VecEnv N={WRITER_TABLES} v{version} {dtype:<7} {suffix}"
            cases.append((name, partial(_writer_rate, rules, version, dtype, k, path)))
    rounds: dict[str, list[float]] = {name: [] for name, _ in cases}
    for i in range(repeat):
        for name, rate in cases if i % 2 == 0 else cases[::-1]:
            rounds[name].append(rate())
    return [EnvRate(name, max(rounds[name]), tuple(rounds[name])) for name, _ in cases]


def _by_round(a: EnvRate, b: EnvRate) -> float:
    """The median over rounds of ``a``'s rate over ``b``'s in that round."""
    if not a.round_rates or len(a.round_rates) != len(b.round_rates):
        return a.rate / b.rate
    return statistics.median(x / y for x, y in zip(a.round_rates, b.round_rates, strict=True))


def _scaling(results: list[EnvRate]) -> list[str]:
    """``threads=2`` over ``threads=1`` for each VecEnv case, beside the
    host's ceiling of the same run (two one-thread envs at once over one)."""
    by = {r.case: r for r in results}
    out: list[str] = []
    for r in results:
        if " threads=2 " not in r.case:
            continue
        one = by.get(r.case.replace(" threads=2 ", " threads=1 "))
        pair = by.get(r.case.replace(" threads=2 ", f" {PAIR} "))
        if one is None:
            continue
        name = " ".join(r.case.replace(" threads=2 ", " ").split())
        line = (
            f"{name:<34} threads=2 / threads=1: {r.rate / one.rate:5.2f}x best,"
            f" {_by_round(r, one):5.2f}x by round"
        )
        if pair is not None:
            line += (
                f"   (host ceiling, {PAIR} / 1 env: {pair.rate / one.rate:5.2f}x best,"
                f" {_by_round(pair, one):5.2f}x by round)"
            )
        out.append(line)
    if out:
        out[:0] = [
            "",
            "thread scaling (same run): best = the best rounds' rates,"
            " by round = the median of each round's own ratio",
        ]
    return out


def _writer(results: list[EnvRate]) -> list[str]:
    """The row writer's lines: each encoding and dtype on the process's
    instruction set over the scalar path, measured in the same run."""
    by = {r.case: r for r in results}
    out: list[str] = []
    for r in results:
        if not r.case.endswith(SCALAR_PATH):
            continue
        head = r.case.removesuffix(SCALAR_PATH)
        fast = next(
            (x for c, x in by.items() if c.startswith(head + "writer, ") and x is not r), None
        )
        if fast is None:
            continue
        isa = fast.case.removeprefix(head + "writer, ")
        what = " ".join(head.split()[2:])
        out.append(
            f"{what:<12} {isa} writer / scalar path: {fast.rate / r.rate:5.2f}x best,"
            f" {_by_round(fast, r):5.2f}x by round"
            f"   ({fast.rate:,.0f} vs {r.rate:,.0f} steps/s)"
        )
    if out:
        out[:0] = [
            "",
            f"SIMD row writer (same run): VecEnv N={WRITER_TABLES}, 1 thread, all seats,"
            " stepped in Rust, observation rows and masks on the instruction set over the same"
            " on the scalar path",
        ]
    return out


def env_report(results: list[EnvRate]) -> str:
    """A table of rates with each one's ratio to the PettingZoo env."""
    base = results[0].rate
    lines = [f"{'case':<44} {'learner steps/s':>16} {'vs PettingZoo':>14}", "-" * 76]
    for r in results:
        lines.append(f"{r.case:<44} {r.rate:>16,.0f} {r.rate / base:>13.1f}x")
    return "\n".join(lines + _scaling(results) + _writer(results))
