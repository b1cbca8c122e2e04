"""The Ray backend (koudian.cluster) against a real two-node Ray cluster
started here (one CPU and a 100 MB object store per node): the same
summary, logs and dataset rows as the local run whatever the task count,
and a task whose worker dies retried without losing or duplicating hands.

The cluster runs on loopback only (docs/datasets.md, "The test cluster"):
every node is given 127.0.0.1, and the driver is kept from swapping
127.0.0.1 in its address for the machine's own address, which Ray does by
default for multi-node clusters. A test checks that every TCP socket of
this process and its descendants (GCS, raylets, agents, workers) is on
127.0.0.0/8."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# Read by Ray at import (ray._private.ray_constants) in this process and in
# every process it starts: with it off, Ray resolves "127.0.0.1" and its
# default node address to loopback instead of the address seen from outside.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"

import koudian
import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("pyarrow")
from koudian.arena import _COLUMNS, LUCK_WALLS  # noqa: E402
from ray._private import ray_constants  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

AGENTS = ["greedy", "random", "greedy", "random"]
HANDS = 400
LOOPBACK = "127.0.0.1"
NODE = {"num_cpus": 1, "object_store_memory": 100 * 2**20, "node_ip_address": LOOPBACK}


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    # Ray starts workers at nice 15; on a busy machine they would starve.
    os.environ.setdefault("RAY_worker_niceness", "0")
    # If Ray was imported before this module set the variable, its constant
    # is already fixed: set it for this process too (services.py reads it
    # as an attribute at each call).
    saved = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    c = Cluster(
        initialize_head=True,
        head_node_args={**NODE, "include_dashboard": False},
    )
    try:
        c.add_node(**NODE)
        ray.init(
            address=c.address,
            _node_ip_address=LOOPBACK,
            include_dashboard=False,
            log_to_driver=False,
        )
        c.wait_for_nodes()
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
        yield c
    finally:
        ray.shutdown()
        c.shutdown()
        ray_constants.ENABLE_RAY_CLUSTER = saved


def _descendants(root: int) -> set[int]:
    """``root`` and every process below it (from /proc/*/stat)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name is in parentheses and may hold spaces.
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    seen, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            todo.extend(children.get(pid, []))
    return seen


def _socket_inodes(pids: set[int]) -> set[str]:
    inodes = set()
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    return inodes


def _ip(hex_addr: str) -> str:
    """The address of a /proc/net/tcp{,6} field ``ADDR:PORT`` (hex, each
    32-bit word in host byte order, which is little-endian here)."""
    words = bytes.fromhex(hex_addr.split(":")[0])
    raw = b"".join(words[i : i + 4][::-1] for i in range(0, len(words), 4))
    if len(raw) == 16 and raw[:12] == b"\0" * 10 + b"\xff\xff":
        raw = raw[12:]  # IPv4-mapped IPv6 (::ffff:a.b.c.d)
    if len(raw) == 4:
        return ".".join(str(b) for b in raw)
    return ":".join(raw[i : i + 2].hex() for i in range(0, 16, 2))


def _tcp_sockets(inodes: set[str]) -> list[tuple[str, str, str | None]]:
    """(state, local address, remote address or None when unconnected) of
    the TCP sockets ``inodes``."""
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            next(f)
            for line in f:
                fields = line.split()
                if fields[9] in inodes:
                    state = "LISTEN" if fields[3] == "0A" else fields[3]
                    unconnected = fields[2].endswith(":0000")
                    out.append((state, _ip(fields[1]), None if unconnected else _ip(fields[2])))
    return out


def _loopback(ip: str) -> bool:
    return ip.startswith("127.") or ip == "0000:0000:0000:0000:0000:0000:0000:0001"


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


@pytest.mark.parametrize("ray_counts", [True, False])
def test_a_killed_task_is_retried_and_the_result_is_the_clean_runs(
    cluster: Cluster,
    local: tuple[koudian.SimulationResult, Path, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    ray_counts: bool,
) -> None:
    want, d, _ = local
    # The attempt from Ray's core worker, or (as where Ray does not say
    # it) counted by the progress actor.
    monkeypatch.setattr(koudian.cluster, "_ray_counts_attempts", lambda ray: ray_counts)
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


def test_proc_net_addresses_are_decoded() -> None:
    assert _ip("0100007F:1F90") == "127.0.0.1"
    assert _ip("0202A8C0:0050") == "192.168.2.2"
    assert _ip("0000000000000000FFFF00000100007F:1F90") == "127.0.0.1"
    assert _ip("00000000000000000000000001000000:0016") == "0000:0000:0000:0000:0000:0000:0000:0001"
    assert _loopback("127.0.0.1") and _loopback(_ip("00000000000000000000000001000000:0"))
    assert not _loopback("0.0.0.0") and not _loopback("192.0.2.2")


def test_the_cluster_listens_and_talks_on_loopback_only(
    cluster: Cluster, local: tuple[koudian.SimulationResult, Path, str]
) -> None:
    # Run a job first so that workers and their connections exist.
    r = koudian.simulate("shanxi", AGENTS, HANDS, seed=3, backend="ray")
    _same(r, local[0])
    assert {n["NodeManagerAddress"] for n in ray.nodes()} == {LOOPBACK}
    assert cluster.address.startswith(LOOPBACK + ":")
    pids = _descendants(os.getpid())
    sockets = _tcp_sockets(_socket_inodes(pids))
    listening = [s for s in sockets if s[0] == "LISTEN"]
    # GCS, two raylets (node manager, object manager) at least.
    assert len(listening) >= 5, sockets
    assert all(_loopback(local_ip) for _, local_ip, _ in sockets), sockets
    # Connections between the driver, GCS, raylets and workers.
    connected = [s for s in sockets if s[2] is not None]
    assert connected, sockets
    assert all(_loopback(remote) for _, _, remote in connected if remote), connected


def test_a_bad_backend_is_refused() -> None:
    with pytest.raises(koudian.KoudianError, match="backend"):
        koudian.simulate("shanxi", AGENTS, 2, backend="spark")


# -- the arena on Ray: split by deal range, the local run's records

LINEUP = ["random", "greedy", "greedy", "greedy"]
DEALS = 60


@pytest.fixture(scope="module")
def local_arena(tmp_path_factory: pytest.TempPathFactory) -> tuple[koudian.ArenaResult, Path]:
    d = tmp_path_factory.mktemp("arena")
    # "adjust": auto keeps the luck for random (docs/arena.md).
    run = koudian.arena(
        LINEUP, "shanxi", DEALS, seed=4, threads=2, record=d, chunk=10, luck="adjust"
    )
    return run, d


def _same_arena(a: koudian.ArenaResult, b: koudian.ArenaResult) -> None:
    # The luck of the wall is taken out on Ray as locally (1 vs 3 greedy).
    assert a.adjusted("random") and b.adjusted("random")
    for c in _COLUMNS:
        np.testing.assert_array_equal(a.records[c], b.records[c], err_msg=c)
    # Every statistic, the paired per-deal differences' intervals too.
    assert a.to_json() == b.to_json()
    assert a.summary() == b.summary()


@pytest.mark.parametrize("tasks", [1, 4])
def test_ray_arena_gives_the_local_records_statistics_and_rows(
    cluster: Cluster,
    local_arena: tuple[koudian.ArenaResult, Path],
    tmp_path: Path,
    tasks: int,
) -> None:
    want, d = local_arena
    seen: list[int] = []
    recs, retried = koudian.cluster.run_arena(
        koudian.Ruleset.preset("shanxi"),
        LINEUP,
        LINEUP,
        "duplicate",
        DEALS,
        seed=4,
        progress=lambda r: seen.append(len(r["deal"])),
        chunk=10,
        record=tmp_path,
        tasks=tasks,
        walls=LUCK_WALLS,
    )
    got = koudian.ArenaResult("shanxi", LINEUP, "duplicate", 4, DEALS, recs, walls=LUCK_WALLS)
    _same_arena(got, want)
    assert retried == 0
    assert seen == sorted(seen) and seen[-1] == len(want.records["deal"])
    assert _rows(tmp_path).equals(_rows(d))

    # The same rows and entries; the files' bytes (so their checksums) may
    # differ in Parquet's layout between the two ways of writing them.
    def entries(m: dict[str, Any]) -> dict[str, Any]:
        shards = [{k: v for k, v in s.items() if k not in ("bytes", "sha256")} for s in m["shards"]]
        return {**m, "shards": shards}

    manifest = koudian.dataset.read_manifest(tmp_path)
    assert entries(manifest) == entries(koudian.dataset.read_manifest(d))


def test_arena_backend_ray_is_the_local_run(
    cluster: Cluster, local_arena: tuple[koudian.ArenaResult, Path]
) -> None:
    seen: list[int] = []

    def progress(partial: koudian.ArenaResult) -> None:
        # Whichever tasks have finished, their deals make a valid arena.
        assert partial.pair_stats() and partial.hands == 5 * partial.deals
        seen.append(partial.deals)

    got = koudian.arena(
        LINEUP, "shanxi", DEALS, seed=4, backend="ray", progress=progress, luck="adjust"
    )
    _same_arena(got, local_arena[0])
    assert got.retried_tasks == 0 and seen == sorted(seen) and seen[-1] == DEALS


def test_a_killed_arena_task_is_retried_and_the_result_is_the_clean_runs(
    cluster: Cluster,
    local_arena: tuple[koudian.ArenaResult, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    want, d = local_arena
    # Tasks of 20 deals in chunks of 10: the task from deal 20 dies after
    # writing its first chunk's shards.
    monkeypatch.setenv(koudian.cluster.KILL_ENV, "20")
    got = koudian.arena(
        LINEUP, "shanxi", DEALS, seed=4, backend="ray", record=tmp_path, chunk=10, luck="adjust"
    )
    assert got.retried_tasks == 1
    _same_arena(got, want)
    assert _rows(tmp_path).equals(_rows(d))
    assert not list(tmp_path.glob(".*.tmp"))


def test_the_arena_cli_runs_on_ray(
    cluster: Cluster,
    local_arena: tuple[koudian.ArenaResult, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    from koudian.cli import main

    args = ["--deals", str(DEALS), "--seed", "4", "--quiet", "--cluster", "ray", "--luck", "adjust"]
    assert main(["arena", "--agents", ",".join(LINEUP), *args]) == 0
    assert capsys.readouterr().out.strip() == local_arena[0].summary()


@pytest.mark.parametrize(
    ("total", "cpus", "chunk"),
    [(200_000, 2, None), (60, 2, 10), (7, 3, None), (10**7, 100, None), (1, 4, None)],
)
def test_guided_ranges_cover_the_run_at_step_multiples_and_shrink(
    total: int, cpus: int, chunk: int | None
) -> None:
    ranges, step = koudian.cluster._plan(total, cpus, None, chunk, 2000)
    assert step == (chunk or min(2000, -(-total // (4 * cpus))))
    assert [s for s, _ in ranges] == [0, *np.cumsum([n for _, n in ranges])[:-1].tolist()]
    assert sum(n for _, n in ranges) == total
    assert all(s % step == 0 for s, _ in ranges)
    sizes = [n for _, n in ranges]
    assert sizes == sorted(sizes, reverse=True)
    # The first round takes about half the run; the last tasks are a step.
    assert sizes[0] <= -(-total // (2 * cpus)) + step
    if total >= 8 * cpus * step:
        assert sizes[-1] == step and len(ranges) < 40 * cpus
    # With tasks=N: N ranges (or fewer, a step each) of equal length.
    equal, _ = koudian.cluster._plan(total, cpus, 3, chunk, 2000)
    assert len({n for _, n in equal[:-1]}) <= 1 and len(equal) <= 3
