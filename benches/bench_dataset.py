"""Datasets, compact logs and the Ray backend (issue 24): same-run ratios.

Run: ``python benches/bench_dataset.py [--hands N] [--ray-hands N]``
after ``maturin develop --release`` with ``koudian[data,ray]``. Prints,
beside the load average at each measurement:

* ``record``: greedy ×4 self-play on 2 threads, unrecorded vs recorded to
  Parquet (every seat, observation included), rates and their ratio, and
  the bytes per decision on disk;
* ``log``: unlogged against logged to plain, gzip and zstd JSON Lines,
  rates, their ratio to the unlogged rate and to the 3,700 hands/s
  ``--log`` ran at before (the 10x aim), and the bytes per hand;
* ``ray``: a local two-node Ray cluster (one CPU per node, as 2 threads
  locally) against the local native run on 2 threads, and whether the
  results are identical.

Rounds alternate between the cases so that load changes hit both sides;
each case's best round is kept, with the process CPU time (all threads)
of that round: on a loaded machine the CPU times' ratio is the steadier
figure (the wall clock then measures the scheduler's share).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import koudian
import numpy as np

AGENTS = ["greedy"] * 4


def _load() -> str:
    a, b, c = os.getloadavg()
    return f"load {a:.2f} {b:.2f} {c:.2f}"


def _timed(f: Callable[[], object]) -> tuple[float, float]:
    """Wall and process CPU seconds (every thread) of one call of ``f``."""
    t, c = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - t, time.process_time() - c


def _cases(cases: dict[str, Callable[[], object]], rounds: int) -> dict[str, tuple[float, float]]:
    """The best wall time and the CPU time of that round of each case, the
    cases alternating round by round so that load changes hit them all."""
    best = dict.fromkeys(cases, (float("inf"), float("inf")))
    for _ in range(rounds):
        for name, f in cases.items():
            best[name] = min(best[name], _timed(f))
    return best


def bench_record(hands: int, rounds: int, tmp: Path) -> None:
    out = tmp / "ds"

    def plain() -> None:
        koudian.simulate("shanxi", AGENTS, hands, seed=1, threads=2)

    def recorded() -> None:
        shutil.rmtree(out, ignore_errors=True)
        koudian.simulate("shanxi", AGENTS, hands, seed=1, threads=2, record=out)

    t = _cases({"plain": plain, "recorded": recorded}, rounds)
    (w_plain, c_plain), (w_rec, c_rec) = t["plain"], t["recorded"]
    rows = koudian.dataset.read_manifest(out)["rows"]
    size = sum(p.stat().st_size for p in out.glob("part-*.parquet"))
    print(
        f"record: {hands} hands greedy x4, 2 threads: unrecorded {hands / w_plain:,.0f} hands/s "
        f"({1e6 * c_plain / hands:.1f} us CPU a hand), recorded {hands / w_rec:,.0f} hands/s "
        f"({1e6 * c_rec / hands:.1f} us CPU) = {100 * w_plain / w_rec:.0f}% of the unrecorded "
        f"rate ({100 * c_plain / c_rec:.0f}% by CPU time; aim 25%); "
        f"{size / rows:.1f} bytes/decision on disk (aim 100; {rows} decisions, "
        f"{size / 2**20:.1f} MiB) [{_load()}]"
    )


TODAY = 3700
"""The --log rate the issue measured before (hands/s), the 10x aim's base."""


def bench_log(hands: int, rounds: int, tmp: Path) -> None:
    def unlogged() -> None:
        koudian.simulate("shanxi", AGENTS, hands, seed=1, threads=2)

    def logged(name: str) -> Callable[[], None]:
        def run() -> None:
            with koudian.logs.open_log(tmp / name) as f:
                koudian.simulate("shanxi", AGENTS, hands, seed=1, threads=2, log=f)

        return run

    names = ("g.jsonl", "g.jsonl.gz", "g.jsonl.zst")
    t = _cases({"unlogged": unlogged} | {n: logged(n) for n in names}, rounds)
    w0, c0 = t["unlogged"]
    print(
        f"log: {hands} hands greedy x4, 2 threads: unlogged {hands / w0:,.0f} hands/s "
        f"({1e6 * c0 / hands:.1f} us CPU a hand) [{_load()}]"
    )
    for n in names:
        w, c = t[n]
        size = (tmp / n).stat().st_size
        print(
            f"log: {n}: {hands / w:,.0f} hands/s = {hands / w / TODAY:.1f}x the {TODAY:,} "
            f"before (aim 10x), {100 * w0 / w:.0f}% of the unlogged rate "
            f"({100 * c0 / c:.0f}% by CPU time, {1e6 * c / hands:.1f} us CPU a hand); "
            f"{size / hands / 1024:.2f} KiB a hand [{_load()}]"
        )


def bench_ray(hands: int, rounds: int) -> None:
    # The loopback two-node cluster of benches/bench_ray.py (which also
    # times the arena and prints each round).
    from bench_ray import two_node_cluster

    with two_node_cluster():
        # Warm the workers (imports) before timing.
        koudian.simulate("shanxi", AGENTS, 2000, seed=2, backend="ray")
        t_local = t_ray = float("inf")
        for _ in range(rounds):
            t = time.perf_counter()
            local = koudian.simulate("shanxi", AGENTS, hands, seed=1, threads=2)
            t_local = min(t_local, time.perf_counter() - t)
            t = time.perf_counter()
            remote = koudian.simulate("shanxi", AGENTS, hands, seed=1, backend="ray")
            t_ray = min(t_ray, time.perf_counter() - t)
        same = (
            all(
                np.array_equal(getattr(local, k), getattr(remote, k))
                for k in ("kind", "winners", "deltas", "decisions", "baohu", "ting")
            )
            and local.summary().splitlines()[1:] == remote.summary().splitlines()[1:]
        )
        print(
            f"ray: {hands} hands greedy x4: local 2 threads {hands / t_local:,.0f} hands/s, "
            f"two-node Ray {hands / t_ray:,.0f} hands/s = {100 * t_local / t_ray:.0f}%, "
            f"identical results: {same} [{_load()}]"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=20000)
    ap.add_argument("--ray-hands", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", choices=["record", "log", "ray"], default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        if args.only in (None, "record"):
            bench_record(args.hands, args.rounds, tmp)
        if args.only in (None, "log"):
            bench_log(args.hands, args.rounds, tmp)
    if args.only in (None, "ray"):
        bench_ray(args.ray_hands, args.rounds)


if __name__ == "__main__":
    main()
