"""Datasets, compact logs and the Ray backend (issue 24): same-run ratios.

Run: ``python benches/bench_dataset.py [--hands N] [--ray-hands N]``
after ``maturin develop --release`` with ``koudian[data,ray]``. Prints,
beside the load average at each measurement:

* ``record``: greedy ×4 self-play on 2 threads, unrecorded vs recorded to
  Parquet (every seat, observation included), rates and their ratio, and
  the bytes per decision on disk;
* ``log``: the log as it was written before (native summary, then every
  hand replayed on one thread by ``simulate_logs``, written as plain JSON
  Lines) against the one-pass parallel log, plain, gzip and zstd;
* ``ray``: a local two-node Ray cluster (one CPU per node, as 2 threads
  locally) against the local native run on 2 threads, and whether the
  results are identical.

Rounds alternate between the cases so that load changes hit both sides.
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
from koudian._core import simulate_logs, simulate_native

AGENTS = ["greedy"] * 4


def _load() -> str:
    a, b, c = os.getloadavg()
    return f"load {a:.2f} {b:.2f} {c:.2f}"


def _best(f: Callable[[], object], rounds: int) -> float:
    """The shortest of ``rounds`` timings of ``f`` (seconds)."""
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def bench_record(hands: int, rounds: int, tmp: Path) -> None:
    out = tmp / "ds"

    def plain() -> None:
        koudian.simulate("shanxi", AGENTS, hands, seed=1, threads=2)

    def recorded() -> None:
        shutil.rmtree(out, ignore_errors=True)
        koudian.simulate("shanxi", AGENTS, hands, seed=1, threads=2, record=out)

    t_plain, t_rec = float("inf"), float("inf")
    for _ in range(rounds):
        t_plain = min(t_plain, _best(plain, 1))
        t_rec = min(t_rec, _best(recorded, 1))
    rows = koudian.dataset.read_manifest(out)["rows"]
    size = sum(p.stat().st_size for p in out.glob("part-*.parquet"))
    print(
        f"record: {hands} hands greedy x4, 2 threads: unrecorded {hands / t_plain:,.0f} hands/s, "
        f"recorded {hands / t_rec:,.0f} hands/s = {100 * t_plain / t_rec:.0f}% "
        f"({rows / t_rec:,.0f} decisions/s); {size / rows:.1f} bytes/decision on disk "
        f"({rows} decisions, {size / 2**20:.1f} MiB) [{_load()}]"
    )


def bench_log(hands: int, rounds: int, tmp: Path) -> None:
    def old() -> None:
        # What `--log` did before: the summary natively, then every hand
        # played again on one thread with recording on, written plain.
        simulate_native("shanxi", AGENTS, hands, seed=1, threads=2)
        with open(tmp / "old.jsonl", "w", encoding="utf-8") as f:
            for start in range(0, hands, 2000):
                n = min(2000, hands - start)
                for text in simulate_logs("shanxi", AGENTS, n, seed=1, start=start):
                    f.write(text)

    def new(name: str) -> Callable[[], None]:
        def run() -> None:
            with koudian.logs.open_log(tmp / name) as f:
                koudian.simulate("shanxi", AGENTS, hands, seed=1, threads=2, log=f)

        return run

    def parts() -> None:
        simulate_logs("shanxi", AGENTS, min(hands, 20000), seed=1)

    cases = {"old plain": old} | {
        f"one-pass {n}": new(n) for n in ("g.jsonl", "g.jsonl.gz", "g.jsonl.zst")
    }
    times = dict.fromkeys(cases, float("inf"))
    for _ in range(rounds):
        for name, f in cases.items():
            times[name] = min(times[name], _best(f, 1))
    t_native = _best(lambda: simulate_native("shanxi", AGENTS, hands, seed=1, threads=2), rounds)
    t_logs = _best(parts, 1) * hands / min(hands, 20000)
    print(
        f"log profile: native summary {t_native:.2f}s, simulate_logs (1 thread, "
        f"recording + JSON) {t_logs:.2f}s for {hands} hands [{_load()}]"
    )
    size = {n: (tmp / n).stat().st_size for n in ("g.jsonl", "g.jsonl.gz", "g.jsonl.zst")}
    for name, t in times.items():
        print(f"log: {name}: {hands / t:,.0f} hands/s [{_load()}]")
    print(
        "log sizes per hand: "
        + ", ".join(f"{n} {s / hands / 1024:.1f} KiB" for n, s in size.items())
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
