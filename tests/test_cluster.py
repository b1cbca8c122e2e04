"""The Ray backend (koudian.cluster) against a real two-node Ray cluster
started here (one CPU and a 100 MB object store per node): the same
summary, logs and dataset rows as the local run whatever the task count,
a task whose worker dies retried without losing or duplicating hands, and
a recording stopped by Ctrl-C or a failed task left as a partial dataset
of exactly the finished tasks' shards (issue 35, item 3).

The cluster runs on loopback only (docs/datasets.md, "The test cluster"):
every node is given 127.0.0.1, and the driver is kept from swapping
127.0.0.1 in its address for the machine's own address, which Ray does by
default for multi-node clusters. A test checks that every TCP socket of
this process and its descendants (GCS, raylets, agents, workers) is on
127.0.0.0/8."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
import warnings
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
from koudian.arena import LUCK_WALLS  # noqa: E402
from koudian.arena.results import COLUMNS  # noqa: E402
from koudian.simulation import SimulationInterrupted  # noqa: E402
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
    for c in COLUMNS:
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


# -- an interrupted or failed Ray recording (issue 35, item 3): a partial
# manifest listing exactly the shards of the tasks that finished


def _listed(d: Path) -> dict[str, Any]:
    """The shards of a partial dataset, as ``open`` reads them."""
    m = koudian.dataset.read_manifest(d)
    assert m["complete"] is False
    names = [s["file"] for s in m["shards"]]
    assert all((d / n).is_file() for n in names)
    with pytest.warns(koudian.dataset.PartialDatasetWarning, match="partial"):
        assert koudian.dataset.open(d).count_rows() == m["rows"]
    return m


def _rows_of_hands(d: Path, hands: set[int]) -> Any:
    import pyarrow
    import pyarrow.compute as pc

    t = _rows(d)
    return t.filter(pc.is_in(t.column("hand"), value_set=pyarrow.array(sorted(hands), "uint64")))


def _partial_rows(d: Path) -> Any:
    with pytest.warns(koudian.dataset.PartialDatasetWarning):
        return _rows(d)


def test_an_interrupted_ray_recording_leaves_a_partial_manifest_of_its_finished_shards(
    cluster: Cluster,
    local: tuple[koudian.SimulationResult, Path, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    want, d, _ = local
    write = koudian.dataset.write_manifest

    def write_manifest(*args: Any, **kw: Any) -> Any:
        # Ctrl-C in the driver just after the first manifest listing a
        # shard is written (on the old path, the complete one at the end).
        m = write(*args, **kw)
        if m["shards"]:
            monkeypatch.undo()
            raise KeyboardInterrupt
        return m

    monkeypatch.setattr(koudian.dataset, "write_manifest", write_manifest)
    seen: list[int] = []
    with pytest.raises(KeyboardInterrupt) as e:
        koudian.cluster.run(
            koudian.Ruleset.preset("shanxi"),
            AGENTS,
            AGENTS,
            HANDS,
            seed=3,
            progress=seen.append,
            chunk=50,
            record=tmp_path,
            tasks=4,
        )
    m = _listed(tmp_path)
    # Shards of 50 hands, listed as each is written.
    assert m["shards"] and all(s["hands"] == 50 for s in m["shards"])
    hands = {h for s in m["shards"] for h in range(s["start"], s["start"] + s["hands"])}
    # hands: the run's first hands all listed, as a local partial run says.
    assert set(range(m["hands"])) <= hands and m["hands"] not in hands
    # Exactly those hands' rows, the local run's.
    assert _partial_rows(tmp_path).equals(_rows_of_hands(d, hands))
    # The summary (a Ctrl-C): the hands 0 .. n of the tasks that returned;
    # the dataset may hold more, shards finished by a task stopped.
    assert isinstance(e.value, SimulationInterrupted)
    played = e.value.result
    assert played.interrupted and played.requested == HANDS and played.hands <= m["hands"]
    assert played.hands % 100 == 0
    np.testing.assert_array_equal(played.deltas, want.deltas[: played.hands])


def test_a_failed_ray_recording_leaves_a_partial_manifest_of_the_shards_written(
    cluster: Cluster,
    local: tuple[koudian.SimulationResult, Path, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, d, _ = local
    # The task from hand 100 dies after writing (and reporting) its first
    # shard, and is not retried: the run fails, its second shard never
    # written. The first, whole, is listed; nothing of the second.
    monkeypatch.setenv(koudian.cluster.KILL_ENV, "100")
    monkeypatch.setattr(koudian.cluster, "_MAX_RETRIES", 0)
    with pytest.raises(ray.exceptions.RayError):
        koudian.cluster.run(
            koudian.Ruleset.preset("shanxi"),
            AGENTS,
            AGENTS,
            HANDS,
            seed=3,
            chunk=50,
            record=tmp_path,
            tasks=4,
        )
    m = _listed(tmp_path)
    names = [s["file"] for s in m["shards"]]
    assert "part-000000000100.parquet" in names
    assert "part-000000000150.parquet" not in names and m["hands"] <= 150
    hands = {h for s in m["shards"] for h in range(s["start"], s["start"] + s["hands"])}
    assert _partial_rows(tmp_path).equals(_rows_of_hands(d, hands))


def test_a_complete_ray_recording_says_so(
    cluster: Cluster, local: tuple[koudian.SimulationResult, Path, str], tmp_path: Path
) -> None:
    koudian.cluster.run(
        koudian.Ruleset.preset("shanxi"), AGENTS, AGENTS, 100, seed=3, chunk=50, record=tmp_path
    )
    m = koudian.dataset.read_manifest(tmp_path)
    assert m["complete"] is True and m["hands"] == 100
    assert [(s["start"], s["hands"]) for s in m["shards"]] == [(0, 50), (50, 50)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _rows(tmp_path).equals(_rows_of_hands(local[1], set(range(100))))


def test_an_interrupted_ray_arena_recording_leaves_a_partial_manifest(
    cluster: Cluster, local_arena: tuple[koudian.ArenaResult, Path], tmp_path: Path
) -> None:
    want, d = local_arena
    tables = 5  # 1 vs 3: four rotations and the reference table

    def progress(recs: dict[str, Any]) -> None:
        # Ctrl-C once a task has finished (its shards are listed by then).
        raise KeyboardInterrupt

    with pytest.raises(koudian.cluster.ArenaStopped) as e:
        koudian.cluster.run_arena(
            koudian.Ruleset.preset("shanxi"),
            LINEUP,
            LINEUP,
            "duplicate",
            DEALS,
            seed=4,
            progress=progress,
            chunk=10,
            record=tmp_path,
            tasks=3,
        )
    m = _listed(tmp_path)
    # Each shard: one table's 10 deals; hand id deal * tables + table.
    hands = set()
    for s in m["shards"]:
        first_deal, table = divmod(s["start"], tables)
        hands |= {(first_deal + i) * tables + table for i in range(10)}
    assert hands
    # A chunk's 10 deals are listed for every table, or not at all.
    assert len(m["shards"]) % tables == 0
    deals = m["arena"]["deals"]
    assert m["hands"] == deals * tables and set(range(m["hands"])) <= hands
    assert m["arena"]["requested_deals"] == DEALS
    assert _partial_rows(tmp_path).equals(_rows_of_hands(d, hands))
    # For the caller's summary: the records of the deals 0 .. n of the
    # tasks that returned (20 deals each; none if the first has not), the
    # local run's.
    n, recs = e.value.deals, e.value.records
    assert n <= deals and n % 20 == 0 and (recs is None) == (n == 0)
    if recs is not None:
        mask = want.records["deal"] < n
        for c in ("deal", "table", "seat", "entry", "delta"):
            np.testing.assert_array_equal(recs[c], want.records[c][mask], err_msg=c)


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")
def test_ctrl_c_in_the_ray_cli_leaves_a_partial_dataset(cluster: Cluster, tmp_path: Path) -> None:
    d = tmp_path / "ds"
    env = {**os.environ, "PYTHONPATH": str(Path(koudian.__file__).parent.parent)}
    cmd = [sys.executable, "-m", "koudian", "simulate", "--agents", "greedy", "--quiet"]
    cmd += ["--hands", "1000000", "--record", str(d), "--cluster", f"ray:{cluster.address}"]
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Ctrl-C once the tasks are writing shards (none has finished:
        # its first range is a quarter of the run).
        deadline = time.monotonic() + 120
        while not list(d.glob("part-*.parquet")) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert p.poll() is None
        p.send_signal(signal.SIGINT)
        t0 = time.monotonic()
        out, err = p.communicate(timeout=60)
        stopped = time.monotonic() - t0
    finally:
        p.kill()
    assert p.returncode == 130, err
    print(f"stopped {stopped:.2f} s after SIGINT")
    assert stopped < 30  # a generous bound: it stops, it does not finish the run
    assert "hands" in out and "(partial" in out, out
    m = koudian.dataset.read_manifest(d)
    assert m["complete"] is False and m["rows"] == sum(s["rows"] for s in m["shards"])
    # The tasks were cancelled: no more shards appear, none is listed
    # that is not on disk, and the dataset reads as its manifest says.
    files = sorted(f.name for f in d.glob("part-*.parquet"))
    assert set(s["file"] for s in m["shards"]) <= set(files)
    time.sleep(2)
    assert sorted(f.name for f in d.glob("part-*.parquet")) == files
    with pytest.warns(koudian.dataset.PartialDatasetWarning):
        assert koudian.dataset.open(d).count_rows() == m["rows"]


def test_ctrl_c_in_a_ray_arena_raises_arena_interrupted_with_the_deals_finished(
    cluster: Cluster, local_arena: tuple[koudian.ArenaResult, Path], tmp_path: Path
) -> None:
    # As the local arena: the result of the deals 0 .. n of the tasks that
    # returned, marked interrupted, and a partial dataset.
    from koudian.arena import ArenaInterrupted

    want = local_arena[0]

    def progress(partial: koudian.ArenaResult) -> None:
        raise KeyboardInterrupt  # Ctrl-C once a task has finished

    with pytest.raises(ArenaInterrupted) as e:
        koudian.arena(
            LINEUP,
            "shanxi",
            DEALS,
            seed=4,
            backend="ray",
            progress=progress,
            chunk=10,
            record=tmp_path,
            luck="adjust",
        )
    # The deals 0 .. n of the tasks that returned: none if the task from
    # deal 0 had not (whichever returned first raised the Ctrl-C).
    res = e.value.result
    assert res.interrupted and res.requested == DEALS and 0 <= res.deals < DEALS
    assert res.hands == 5 * res.deals and "interrupted:" in res.summary()
    mask = want.records["deal"] < res.deals
    for c in ("deal", "table", "seat", "entry", "delta"):
        np.testing.assert_array_equal(res.records[c], want.records[c][mask], err_msg=c)
    m = _listed(tmp_path)
    assert res.deals <= m["arena"]["deals"] and m["arena"]["requested_deals"] == DEALS


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")
def test_ctrl_c_in_the_ray_arena_cli_prints_the_summary_and_json(
    cluster: Cluster, tmp_path: Path
) -> None:
    d, out_json = tmp_path / "ds", tmp_path / "arena.json"
    env = {**os.environ, "PYTHONPATH": str(Path(koudian.__file__).parent.parent)}
    cmd = [sys.executable, "-m", "koudian", "arena", "--agents", ",".join(LINEUP), "--quiet"]
    cmd += ["--deals", "1000000", "--record", str(d), "--json", str(out_json)]
    cmd += ["--luck", "keep", "--cluster", f"ray:{cluster.address}"]
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Ctrl-C once the tasks are writing shards.
        deadline = time.monotonic() + 120
        while not list(d.glob("part-*.parquet")) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert p.poll() is None, p.communicate()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert "Traceback" not in err, err[-3000:]
    assert p.returncode == 130, err[-3000:]
    assert "interrupted:" in out and "of 1000000 deals finished" in out, out
    import json

    data = json.loads(out_json.read_text())
    assert data["interrupted"] is True and data["requested_deals"] == 1000000
    assert data["hands"] == 5 * data["deals"]
    m = koudian.dataset.read_manifest(d)
    assert m["complete"] is False and m["arena"]["requested_deals"] == 1000000
