"""The Ray backend against the local native run, in one run (issue 24).

Run: ``python benches/bench_ray.py [--hands 200000] [--rounds 5]`` after
``maturin develop --release`` with ``koudian[data,ray]``. Starts a local
two-node Ray cluster on 127.0.0.1 (one CPU per node, as the local run's
2 threads; as the tests' cluster, docs/datasets.md "The test cluster"),
warms its workers once (each imports koudian on its first task), then
alternates rounds of the same ``simulate`` (greedy x4, shanxi) locally
on 2 threads and on the cluster, and the same for an arena
(``random`` vs three ``greedy``, duplicate). Prints each round's rates
with the load average, the ratio of the best rates, the median of the
rounds' ratios, and whether the results are identical.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import koudian
import numpy as np

AGENTS = ["greedy"] * 4
LINEUP = ["random", "greedy", "greedy", "greedy"]


def _load() -> str:
    a, b, c = os.getloadavg()
    return f"load {a:.2f} {b:.2f} {c:.2f}"


@contextmanager
def two_node_cluster(object_store: int = 150 * 2**20) -> Iterator[Any]:
    """A two-node Ray cluster on loopback, connected; shut down after."""
    # Ray reads this at import, here and in every process it starts.
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    # Ray starts workers at nice 15: on a shared machine they would lose
    # the CPU to every other process, and the comparison would measure that.
    os.environ["RAY_worker_niceness"] = "0"
    import ray
    from ray._private import ray_constants
    from ray.cluster_utils import Cluster

    ray_constants.ENABLE_RAY_CLUSTER = False  # in case Ray was imported earlier
    node = {"num_cpus": 1, "object_store_memory": object_store, "node_ip_address": "127.0.0.1"}
    c = Cluster(initialize_head=True, head_node_args={**node, "include_dashboard": False})
    try:
        c.add_node(**node)
        ray.init(
            address=c.address,
            _node_ip_address="127.0.0.1",
            include_dashboard=False,
            log_to_driver=False,
        )
        c.wait_for_nodes()
        yield c
    finally:
        ray.shutdown()
        c.shutdown()


def _rounds(
    name: str, rounds: int, units: int, local: Callable[[], Any], remote: Callable[[], Any]
) -> tuple[Any, Any]:
    """Alternating timed rounds; prints them and the ratios."""
    t_local, t_ray, ratios = [], [], []
    a = b = None
    for i in range(rounds):
        t = time.perf_counter()
        a = local()
        t_local.append(time.perf_counter() - t)
        t = time.perf_counter()
        b = remote()
        t_ray.append(time.perf_counter() - t)
        ratios.append(t_local[-1] / t_ray[-1])
        print(
            f"{name} round {i + 1}: local {units / t_local[-1]:,.0f}/s, "
            f"Ray {units / t_ray[-1]:,.0f}/s = {100 * ratios[-1]:.0f}% [{_load()}]"
        )
    print(
        f"{name}: best local {units / min(t_local):,.0f}/s, best Ray {units / min(t_ray):,.0f}/s"
        f" = {100 * min(t_local) / min(t_ray):.0f}%; median of the rounds' ratios "
        f"{100 * statistics.median(ratios):.0f}%"
    )
    return a, b


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=200_000)
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with two_node_cluster():
        import ray

        cpus = int(ray.cluster_resources().get("CPU", 0))
        print(f"cluster: {len(ray.nodes())} nodes, {cpus} CPUs; host {os.uname().nodename}")
        # Warm the workers once (their first task imports koudian), as the
        # first run of a driver (a CLI run) does; then the same run warm.
        cold = []
        for _ in range(2):
            t = time.perf_counter()
            koudian.simulate("shanxi", AGENTS, 4000, seed=2, backend="ray")
            cold.append(time.perf_counter() - t)
        print(
            f"first run of the driver (4,000 hands; its workers start): "
            f"{cold[0]:.2f} s; the same run warm {cold[1]:.2f} s [{_load()}]"
        )
        koudian.arena(LINEUP, "shanxi", 200, seed=2, backend="ray")
        h = args.hands
        a, b = _rounds(
            f"simulate {h} hands greedy x4 (hands/s)",
            args.rounds,
            h,
            lambda: koudian.simulate("shanxi", AGENTS, h, seed=1, threads=2),
            lambda: koudian.simulate("shanxi", AGENTS, h, seed=1, backend="ray"),
        )
        same = all(
            np.array_equal(getattr(a, k), getattr(b, k))
            for k in ("kind", "winners", "self_draw", "from_seat", "deltas", "decisions", "baohu")
        ) and (a.summary().splitlines()[1:] == b.summary().splitlines()[1:])
        print(f"simulate: identical results: {same}")
        d = args.deals
        a, b = _rounds(
            f"arena {d} deals random vs 3 greedy (deals/s)",
            max(1, args.rounds // 2),
            d,
            lambda: koudian.arena(LINEUP, "shanxi", d, seed=1, threads=2),
            lambda: koudian.arena(LINEUP, "shanxi", d, seed=1, backend="ray"),
        )
        print(f"arena: identical results: {a.to_json() == b.to_json()}")


if __name__ == "__main__":
    main()
