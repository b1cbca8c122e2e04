"""The Ray backend (koudian.cluster) against a real two-node Ray cluster
started here (one CPU and a 100 MB object store per node): the same
summary, logs and dataset rows as the local run whatever the task count,
and a task whose worker dies retried without losing or duplicating hands."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path

import koudian
import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("pyarrow")
from ray.cluster_utils import Cluster  # noqa: E402

AGENTS = ["greedy", "random", "greedy", "random"]
HANDS = 400
NODE = {"num_cpus": 1, "object_store_memory": 100 * 2**20}


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    # Ray starts workers at nice 15; on a busy machine they would starve.
    os.environ.setdefault("RAY_worker_niceness", "0")
    c = Cluster(
        initialize_head=True,
        head_node_args={**NODE, "include_dashboard": False},
    )
    c.add_node(**NODE)
    ray.init(address=c.address, include_dashboard=False, log_to_driver=False)
    try:
        c.wait_for_nodes()
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
        yield c
    finally:
        ray.shutdown()
        c.shutdown()


def _same(a: koudian.SimulationResult, b: koudian.SimulationResult) -> None:
    for name in ("kind", "winners", "self_draw", "from_seat", "ting", "deltas", "baohu"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(a.decisions, b.decisions)
    assert a.patterns == b.patterns
    assert a.summary().splitlines()[1:] == b.summary().splitlines()[1:]


def _rows(d: Path) -> object:
    t = koudian.dataset.open(d).to_table()
    return t.sort_by([("hand", "ascending"), ("step", "ascending")])


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> tuple[koudian.SimulationResult, Path, str]:
    d = tmp_path_factory.mktemp("local")
    log = io.StringIO()
    r = koudian.simulate("shanxi", AGENTS, HANDS, seed=3, threads=2, record=d, log=log, chunk=64)
    return r, d, log.getvalue()


@pytest.mark.parametrize("tasks", [1, 5])
def test_ray_gives_the_local_summary_logs_and_rows(
    cluster: Cluster, local: tuple[koudian.SimulationResult, Path, str], tmp_path: Path, tasks: int
) -> None:
    want, d, want_log = local
    log = io.StringIO()
    seen: list[int] = []
    r = koudian.cluster.run(
        koudian.Ruleset.preset("shanxi"),
        AGENTS,
        AGENTS,
        HANDS,
        seed=3,
        log=log,
        progress=seen.append,
        chunk=50,
        record=tmp_path,
        tasks=tasks,
    )
    _same(r, want)
    assert r.retried_tasks == 0
    assert log.getvalue() == want_log
    assert _rows(tmp_path).equals(_rows(d))
    assert sum(seen) == HANDS


def test_simulate_backend_ray_is_the_local_run(
    cluster: Cluster, local: tuple[koudian.SimulationResult, Path, str]
) -> None:
    r = koudian.simulate("shanxi", AGENTS, HANDS, seed=3, backend="ray")
    _same(r, local[0])


def test_a_killed_task_is_retried_and_the_result_is_the_clean_runs(
    cluster: Cluster,
    local: tuple[koudian.SimulationResult, Path, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    want, d, _ = local
    # Tasks of 100 hands in chunks of 50: the task from hand 100 dies
    # after writing its first shard.
    monkeypatch.setenv(koudian.cluster.KILL_ENV, "100")
    r = koudian.cluster.run(
        koudian.Ruleset.preset("shanxi"),
        AGENTS,
        AGENTS,
        HANDS,
        seed=3,
        chunk=50,
        record=tmp_path,
        tasks=4,
    )
    assert r.retried_tasks == 1
    _same(r, want)
    assert _rows(tmp_path).equals(_rows(d))
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_bad_backend_is_refused() -> None:
    with pytest.raises(koudian.KoudianError, match="backend"):
        koudian.simulate("shanxi", AGENTS, 2, backend="spark")
