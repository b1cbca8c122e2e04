"""Arena and ladder runs as a user runs them: Ctrl-C in the middle of a
long run (a real process, a real SIGINT), and every agent fault counted
in the results and the ``--json``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import koudian
import pytest
from koudian.cli import main
from koudian.faults import FAULT_KINDS

BOTS = Path(__file__).parent / "bots"
# The koudian under test (the installed wheel in CI, not the checkout's
# python/, which has no compiled core there), for the child processes.
INSTALLED = str(Path(koudian.__file__).resolve().parent.parent)
STOP_BOUND = 10.0
"""Seconds a run may take to end after SIGINT: it aims at one (a native
call of about a quarter of a second, a deal at least); generous for an
unoptimised build of the core on a loaded machine, where one deal with
the luck of the wall taken out takes seconds."""
posix_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="sends SIGINT to a child process"
)


def bot(name: str) -> str:
    return f"cmd:{sys.executable} {BOTS / name}"


# ------------------------------------------------------------ fault counts


def test_every_fault_of_every_agent_is_in_the_results_and_the_json(tmp_path: Path) -> None:
    res = koudian.arena([bot("illegal_bot.py"), "greedy", "greedy", "greedy"], "shanxi", 2)
    data = res.to_json()
    by_agent = {a["agent"]: a["faults"] for a in data["agents"]}
    illegal = by_agent[res.agents[0]]
    assert set(illegal) == set(FAULT_KINDS)
    assert illegal["illegal"] == len(res.faults) > 0
    assert sum(illegal.values()) == illegal["illegal"]
    assert by_agent["greedy"] == dict.fromkeys(FAULT_KINDS, 0)
    stats = {a.agent: a for a in res.agent_stats()}
    assert stats[res.agents[0]].faults == illegal
    # Each fault names where it happened: the bot's own seats.
    for f in res.faults:
        assert res.agents[f.entry] == res.agents[0] and f.fault.kind == "illegal"
    assert data["fault_hands"] > 0


def test_a_crashing_bot_counts_crash_and_dead_in_the_cli_json(tmp_path: Path) -> None:
    out = tmp_path / "arena.json"
    agents = f"{bot('crash_bot.py')},greedy,greedy,greedy"
    code = main(["arena", "--agents", agents, "--deals", "2", "--json", str(out), "--quiet"])
    assert code == 0
    data = json.loads(out.read_text())
    faults = next(a["faults"] for a in data["agents"] if a["agent"].startswith("cmd:"))
    assert faults["crash"] >= 1 and faults["dead"] >= 1


def test_the_ladder_json_counts_faults_per_agent() -> None:
    res = koudian.ladder([bot("illegal_bot.py"), "greedy"], "shanxi", 2, reference="greedy")
    rungs = {r["agent"]: r["faults"] for r in res.to_json()["agents"]}
    lone = next(a for a in rungs if a != "greedy")
    assert rungs[lone]["illegal"] > 0 and rungs["greedy"] == dict.fromkeys(FAULT_KINDS, 0)
    assert "faults of" in res.summary()


# ------------------------------------------------------------------ Ctrl-C


def interrupt(args: list[str], after: float = 4.0) -> tuple[int, str, str, float]:
    """Runs ``koudian ARGS`` in a child process, sends it SIGINT after
    ``after`` seconds; its exit code, stdout, stderr and the seconds it
    took to end after the signal (killed, and the test failed, past
    ``STOP_BOUND`` + 30)."""
    env = {**os.environ, "PYTHONPATH": INSTALLED}
    proc = subprocess.Popen(
        [sys.executable, "-m", "koudian", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    time.sleep(after)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    t = time.monotonic()
    try:
        out, err = proc.communicate(timeout=STOP_BOUND + 30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"SIGINT ignored: still running {STOP_BOUND + 30} s later\n{err[-2000:]}")
    return proc.returncode, out, err, time.monotonic() - t


def strict(path: Path) -> Any:
    """The JSON at ``path``, refusing ``NaN`` and ``Infinity``."""

    def refuse(name: str) -> None:
        raise AssertionError(f"{path}: {name} is not JSON")

    return json.loads(path.read_text(), parse_constant=refuse)


def check_stopped(code: int, out: str, err: str, took: float) -> None:
    assert "Traceback" not in err and "PanicException" not in err, err[-3000:]
    assert code == 130, err[-3000:]
    assert took < STOP_BOUND, took
    assert "interrupted:" in out


@posix_only
@pytest.mark.parametrize("luck", ["auto", "keep"])
def test_ctrl_c_stops_a_long_native_arena_with_its_summary_and_json(
    tmp_path: Path, luck: str
) -> None:
    out_json = tmp_path / "arena.json"
    agents = "random,greedy,greedy,greedy"
    args = ["arena", "--agents", agents, "--deals", "100000", "--luck", luck]
    code, out, err, took = interrupt([*args, "--json", str(out_json), "--quiet"])
    check_stopped(code, out, err, took)
    data = strict(out_json)  # strict JSON, whole
    assert data["interrupted"] is True and data["requested_deals"] == 100000
    assert 0 < data["deals"] < 100000
    assert data["hands"] == 5 * data["deals"]
    assert f"{data['deals']} of 100000 deals finished" in out
    assert {a["hands"] for a in data["agents"]} == {4 * data["deals"], 12 * data["deals"]}


@posix_only
def test_ctrl_c_stops_a_recording_arena_with_a_partial_manifest(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    from koudian.dataset import read_manifest

    data_dir, out_json = tmp_path / "data", tmp_path / "arena.json"
    args = ["arena", "--agents", "greedy,random,random,random", "--deals", "100000"]
    args += ["--record", str(data_dir), "--json", str(out_json), "--quiet"]
    code, out, err, took = interrupt(args)
    check_stopped(code, out, err, took)
    data = strict(out_json)
    manifest = read_manifest(data_dir)
    # One flag, the dataset's own: open() warns of the partial dataset.
    assert manifest["complete"] is False and "partial" not in manifest
    with pytest.warns(koudian.dataset.PartialDatasetWarning, match="partial"):
        assert koudian.dataset.open(data_dir).count_rows() == manifest["rows"]
    assert manifest["arena"]["deals"] == data["deals"] > 0
    assert manifest["arena"]["requested_deals"] == 100000
    assert manifest["hands"] == data["hands"]
    import pyarrow.parquet as pq

    rows = 0
    for shard in manifest["shards"]:
        assert (data_dir / shard["file"]).exists()
        rows += pq.read_metadata(data_dir / shard["file"]).num_rows
    assert rows == manifest["rows"] > 0
    # Exactly the finished deals' hands are in the shards.
    deals = {d for s in manifest["shards"] for d in pq.read_table(data_dir / s["file"])["deal"]}
    assert {int(d.as_py()) for d in deals} == set(range(data["deals"]))


@posix_only
def test_ctrl_c_stops_an_arena_of_an_external_bot(tmp_path: Path) -> None:
    out_json = tmp_path / "arena.json"
    agents = f"{bot('first_legal_bot.py')},greedy,greedy,greedy"
    args = ["arena", "--agents", agents, "--deals", "100000", "--json", str(out_json)]
    code, out, err, took = interrupt([*args, "--luck", "keep", "--quiet"])
    check_stopped(code, out, err, took)
    data = strict(out_json)
    assert data["interrupted"] and 0 < data["deals"] < 100000
    assert data["hands"] == 5 * data["deals"]


@posix_only
def test_ctrl_c_stops_the_ladder_with_the_agents_measured(tmp_path: Path) -> None:
    out_json = tmp_path / "ladder.json"
    args = ["arena", "--ladder", "greedy,random,mc", "--deals", "100000"]
    code, out, err, took = interrupt([*args, "--json", str(out_json), "--quiet"])
    check_stopped(code, out, err, took)
    data: dict[str, Any] = strict(out_json)
    assert data["interrupted"] is True and 0 < data["deals"] < 100000
    measured = {a["agent"] for a in data["agents"]}
    assert "greedy" in measured and "random" in measured
    assert data["unmeasured"] == ["mc"]
    assert "not measured (interrupted): mc" in out


def test_an_interrupted_arena_result_is_consistent() -> None:
    calls = []

    def progress(partial: koudian.ArenaResult) -> None:
        calls.append(partial.deals)
        if len(calls) == 2:
            signal.raise_signal(signal.SIGINT)  # as Ctrl-C, in the main thread

    from koudian.arena import ArenaInterrupted

    with pytest.raises(ArenaInterrupted) as e:
        koudian.arena(["random", "greedy", "greedy", "greedy"], "shanxi", 100000, progress=progress)
    res = e.value.result
    assert res.interrupted and res.requested == 100000 and res.deals == calls[-1]
    assert res.hands == 5 * res.deals
    assert "interrupted:" in res.summary()


@posix_only
def test_ctrl_c_during_the_first_native_call_is_a_keyboard_interrupt_not_a_panic() -> None:
    # rust-numpy reads numpy's C API on its first array; a Ctrl-C pending
    # then (it arrived during the long call) made that read fail and panic.
    script = (
        "import os, signal, threading\n"
        "import koudian._core as c\n"
        "r = c.Ruleset.preset('shanxi')\n"
        "threading.Timer(0.1, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n"
        "try:\n"
        # Long enough that the signal lands during the call on the release
        # wheel too (about 1-2 s there; 3,000 hands ended before it).
        "    c.simulate_record(r, ['greedy'] * 4, 20000, threads=1, seats=[0], logs=False,"
        " pieces=False, log_compress='none')\n"
        "except KeyboardInterrupt:\n"
        "    print('KeyboardInterrupt')\n"
    )
    env = {**os.environ, "PYTHONPATH": INSTALLED}
    r = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert "PanicException" not in r.stderr and "panicked" not in r.stderr, r.stderr[-2000:]
    assert r.stdout.strip() == "KeyboardInterrupt"


def test_the_json_of_one_deal_is_strict(tmp_path: Path) -> None:
    # A run stopped after one deal has intervals without bounds: null,
    # never Infinity (which a strict parser refuses).
    out = tmp_path / "one.json"
    args = ["arena", "--agents", "greedy,random,random,random", "--deals", "1"]
    assert main([*args, "--json", str(out), "--quiet"]) == 0
    data = strict(out)
    assert data["agents"][0]["ci95"] == [None, None]


def test_short_native_calls_still_make_shards_of_many_deals(tmp_path: Path) -> None:
    # The calls are short so that Ctrl-C is prompt; the shards are not.
    pytest.importorskip("pyarrow")
    from koudian.arena.chunks import ARENA_CHUNK
    from koudian.dataset import read_manifest

    koudian.arena(["greedy", "random", "random", "random"], "shanxi", 700, record=str(tmp_path))
    manifest = read_manifest(tmp_path)
    assert manifest["complete"] is True and "partial" not in manifest
    assert manifest["hands"] == 5 * 700 and "requested_deals" not in manifest["arena"]
    starts = sorted({int(s["start"]) // 5 for s in manifest["shards"]})
    assert starts[0] == 0
    sizes = [b - a for a, b in zip(starts, [*starts[1:], 700], strict=True)]
    assert all(ARENA_CHUNK // 2 <= n <= ARENA_CHUNK for n in sizes[:-1]), sizes


# ------------------------------------- a local arena recording (issue 35)


def _listed_now(d: Path) -> dict[str, Any]:
    """The manifest of the dataset being recorded in ``d``: every shard it
    lists is on disk whole (its size the manifest's)."""
    from koudian.dataset import read_manifest

    m = read_manifest(d)
    for s in m["shards"]:
        assert (d / s["file"]).stat().st_size == s["bytes"]
    assert m["rows"] == sum(s["rows"] for s in m["shards"])
    return m


def test_a_local_arena_recording_is_incomplete_until_it_ends(tmp_path: Path) -> None:
    # The manifest is kept current as the shards are written, "complete":
    # false; Ctrl-C leaves it so, listing exactly the finished shards.
    pytest.importorskip("pyarrow")
    from koudian.arena import ArenaInterrupted
    from koudian.arena.chunks import arena_object

    seen: list[dict[str, Any]] = []
    lineup = ["greedy", "random", "random", "random"]

    def progress(partial: koudian.ArenaResult) -> None:
        seen.append(_listed_now(tmp_path))
        if partial.deals >= 30:
            signal.raise_signal(signal.SIGINT)  # as Ctrl-C, in the main thread

    with pytest.raises(ArenaInterrupted) as e:
        koudian.arena(lineup, "shanxi", 1000, record=tmp_path, chunk=10, progress=progress)
    assert all(m["complete"] is False and "partial" not in m for m in seen)
    # Listed as they are written: the first call's shards by its progress.
    assert seen[0]["shards"] and len(seen[-1]["shards"]) > len(seen[0]["shards"])
    res = e.value.result
    m = _listed_now(tmp_path)
    assert m["complete"] is False and "partial" not in m
    assert m["hands"] == res.hands == 5 * res.deals
    assert m["arena"] == arena_object(lineup, "duplicate", res.deals, 1000, False)
    with pytest.warns(koudian.dataset.PartialDatasetWarning, match="partial"):
        assert koudian.dataset.open(tmp_path).count_rows() == m["rows"]
    import pyarrow.parquet as pq

    deals = set()
    for s in m["shards"]:
        deals |= {int(d) for d in pq.read_table(tmp_path / s["file"])["deal"].to_pylist()}
    assert deals == set(range(res.deals))


def test_the_arena_object_has_one_owner(tmp_path: Path) -> None:
    # The local and the Ray recordings write the arena object of
    # koudian.arena.chunks.arena_object (the Ray one is checked against
    # the local one in tests/test_cluster.py).
    pytest.importorskip("pyarrow")
    from koudian import cluster
    from koudian.arena.chunks import arena_object
    from koudian.dataset import read_manifest

    lineup = ["greedy", "random", "random", "random"]
    koudian.arena(lineup, "shanxi", 20, record=tmp_path, chunk=10)
    want = arena_object(lineup, "duplicate", 20, 20, True)
    assert read_manifest(tmp_path)["arena"] == want
    assert want == {
        "format": "duplicate",
        "deals": 20,
        "tables": [[0, 1, 2, 3], [3, 0, 1, 2], [2, 3, 0, 1], [1, 2, 3, 0], [1, 1, 1, 1]],
        "hand": "deal * 5 + table",
    }
    assert "requested_deals" not in want
    assert arena_object(lineup, "duplicate", 3, 20, False)["requested_deals"] == 20
    assert not hasattr(cluster, "_arena_recording")


# --------------------------------------------- recording into a used folder


def test_arena_record_refuses_a_used_folder_unless_overwrite(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    from koudian.dataset import read_manifest

    lineup = ["greedy", "random", "random", "random"]
    koudian.arena(lineup, "shanxi", 30, record=tmp_path, chunk=10, seed=1)
    first = read_manifest(tmp_path)
    with pytest.raises(koudian.KoudianError, match="already holds a dataset"):
        koudian.arena(lineup, "shanxi", 10, record=tmp_path, seed=2)
    assert read_manifest(tmp_path) == first  # untouched
    koudian.arena(lineup, "shanxi", 10, record=tmp_path, seed=2, overwrite=True)
    m = read_manifest(tmp_path)
    # Replaced whole: only the new run's shards are in the folder.
    assert m["seed"] == 2 and m["arena"]["deals"] == 10 and m["complete"] is True
    assert sorted(f.name for f in tmp_path.glob("part-*.parquet")) == sorted(
        s["file"] for s in m["shards"]
    )
    assert koudian.dataset.open(tmp_path).count_rows() == m["rows"]


def test_the_arena_cli_overwrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyarrow")
    from koudian.dataset import read_manifest

    d = tmp_path / "ds"
    args = ["arena", "--agents", "greedy,random,random,random", "--quiet", "--record", str(d)]
    assert main([*args, "--deals", "20", "--seed", "1"]) == 0
    assert main([*args, "--deals", "5", "--seed", "2"]) == 2
    assert "already holds a dataset" in capsys.readouterr().err
    assert read_manifest(d)["seed"] == 1
    assert main([*args, "--deals", "5", "--seed", "2", "--overwrite"]) == 0
    m = read_manifest(d)
    assert m["seed"] == 2 and m["hands"] == 25 and m["complete"] is True
    assert len(list(d.glob("part-*.parquet"))) == len(m["shards"])
