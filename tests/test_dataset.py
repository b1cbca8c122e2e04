"""Self-play datasets (koudian.dataset) and compressed multi-hand logs
(koudian.logs): rows legal under their masks, replaying to the hands'
logs, independent of the thread count, readable by pyarrow, polars and
DuckDB; logs read back whatever their compression."""

from __future__ import annotations

import gzip
from pathlib import Path

import koudian
import numpy as np
import pytest
from koudian import Action, Game

pa = pytest.importorskip("pyarrow")

AGENTS = ["greedy", "random", "greedy", "random"]


def _rows(d: Path) -> pa.Table:
    t = koudian.dataset.open(d).to_table()
    return t.sort_by([("hand", "ascending"), ("step", "ascending")])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, koudian.SimulationResult]:
    d = tmp_path_factory.mktemp("ds")
    r = koudian.simulate("shanxi", AGENTS, hands=120, seed=5, threads=2, record=d, chunk=50)
    return d, r


def test_every_decision_is_a_row_with_its_manifest(recorded: tuple[Path, object]) -> None:
    d, r = recorded
    t = _rows(d)
    assert t.num_rows == int(r.decisions.sum())  # type: ignore[attr-defined]
    assert sorted(p.name for p in d.glob("part-*.parquet")) == [
        "part-000000000000.parquet",
        "part-000000000050.parquet",
        "part-000000000100.parquet",
    ]
    m = koudian.dataset.read_manifest(d)
    assert m["agents"] == AGENTS and m["seed"] == 5 and m["hands"] == 120
    assert m["rows"] == t.num_rows and m["encoding"]["obs_bytes"] == koudian._core.OBS_BYTES
    assert m["encoding"]["version"] == 3 and m["encoding"]["planes"] == 79
    assert m["encoding"]["version"] == koudian._core.OBS_ENCODING_VERSION
    assert m["rules"] == koudian.Ruleset.preset("shanxi").to_toml()
    assert (d / "_metadata").exists()
    agents = t.column("agent").to_pylist()
    seats = t.column("seat").to_pylist()
    assert all(a == AGENTS[s] for a, s in zip(agents, seats, strict=True))


def test_every_recorded_action_is_legal_under_its_recorded_mask(
    recorded: tuple[Path, object],
) -> None:
    d, _ = recorded
    for b in koudian.dataset.iter_batches(d, batch_size=1000):
        assert b["mask"][np.arange(len(b["action"])), b["action"]].all()
        assert b["obs"].shape == (len(b["action"]), 79, 34) and b["obs"].dtype == np.uint8


def test_a_hands_rows_replay_to_its_log_and_observations(recorded: tuple[Path, object]) -> None:
    d, _ = recorded
    t = _rows(d)
    hand = t.column("hand").to_numpy()
    logs = koudian._core._testing.simulate_logs("shanxi", AGENTS, 120, seed=5)
    obs = koudian.dataset.unpack_obs(t.column("obs"))
    mask = koudian.dataset.unpack_mask(t.column("mask"))
    counts = koudian.dataset._fixed_bytes(t.column("counts").combine_chunks(), 34)
    for h in [0, 1, 37, 119]:
        idx = np.flatnonzero(hand == h)
        g = Game("shanxi", seed=int(t.column("seed")[idx[0]].as_py()), dealer=h % 4)
        assert int(t.column("seed")[idx[0]].as_py()) == koudian.mix_seed(5, h)
        for step, i in enumerate(idx):
            seat = int(t.column("seat")[i].as_py())
            assert int(t.column("step")[i].as_py()) == step
            assert g.to_act == seat
            np.testing.assert_array_equal(obs[i], g.observe(seat).planes(3, "uint8"))
            np.testing.assert_array_equal(mask[i], g.legal_mask(seat))
            np.testing.assert_array_equal(counts[i], g.observe(seat).counts)
            g.step(Action.from_index(int(t.column("action")[i].as_py())))
        assert g.done and g.log == logs[h]
        res = g.result
        assert res is not None
        for i in idx:
            seat = int(t.column("seat")[i].as_py())
            assert t.column("delta")[i].as_py() == res.deltas[seat]
            assert t.column("won")[i].as_py() == (seat in res.winners)
            assert koudian.simulation.END_KINDS[t.column("end")[i].as_py()] == res.kind


def test_a_dataset_does_not_depend_on_the_thread_count_or_chunks(
    recorded: tuple[Path, object], tmp_path: Path
) -> None:
    d, r = recorded
    one = koudian.simulate("shanxi", AGENTS, hands=120, seed=5, threads=1, record=tmp_path)
    assert _rows(tmp_path).equals(_rows(d))
    np.testing.assert_array_equal(one.deltas, r.deltas)  # type: ignore[attr-defined]


def test_pieces_are_the_rows_in_order_and_write_the_same_shard(tmp_path: Path) -> None:
    from koudian._core import simulate_record

    rules = koudian.Ruleset.preset("shanxi")
    kw = {"seed": 3, "threads": 2, "start": 7, "seats": [0, 1, 2, 3]}
    _, parts, _ = simulate_record(rules, AGENTS, 41, pieces=True, **kw)
    _, whole, _ = simulate_record(rules, AGENTS, 41, **kw)
    assert isinstance(parts, list) and len(parts) == 2 and isinstance(whole, dict)
    for k, v in whole.items():
        np.testing.assert_array_equal(np.concatenate([p[k] for p in parts]), v, err_msg=k)
    order = np.lexsort((whole["step"], whole["hand"]))
    np.testing.assert_array_equal(order, np.arange(len(order)))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = koudian.dataset.write_shard(tmp_path / "a", 7, parts, AGENTS)
    b = koudian.dataset.write_shard(tmp_path / "b", 7, whole, AGENTS)
    # The same rows; the bytes (and so the checksums) follow the pieces'
    # chunking of the pages.
    same = ("file", "start", "rows")
    assert {k: a[k] for k in same} == {k: b[k] for k in same} and a["rows"] == len(whole["seat"])
    pq = pytest.importorskip("pyarrow.parquet")
    assert pq.read_table(tmp_path / "a" / a["file"]).equals(
        pq.read_table(tmp_path / "b" / b["file"])
    )
    # zstd at ZSTD_LEVEL by default: level 1 writes other (smaller) bytes.
    meta = pq.read_metadata(tmp_path / "a" / a["file"]).row_group(0)
    assert {meta.column(i).compression for i in range(meta.num_columns)} == {"ZSTD"}
    (tmp_path / "c").mkdir()
    koudian.dataset.write_shard(tmp_path / "c", 7, whole, AGENTS, compression_level=1)
    size = [(tmp_path / x / a["file"]).stat().st_size for x in "ac"]
    assert koudian.dataset.ZSTD_LEVEL == -1 and size[1] < size[0], size


def test_shards_are_written_two_at_a_time_and_listed_in_order(tmp_path: Path) -> None:
    from koudian._core import simulate_record

    rules = koudian.Ruleset.preset("shanxi")
    w = koudian.dataset.ShardWriter(tmp_path, AGENTS)
    queued = []
    for start in range(0, 50, 10):
        _, parts, _ = simulate_record(
            rules, AGENTS, 10, seed=3, threads=2, start=start, seats=[0, 1, 2, 3], pieces=True
        )
        w.write(start, parts)
        queued.append(len(w._pending))
    entries = w.close()
    # Never more than WRITERS shards waiting: memory stays bounded.
    assert max(queued) == koudian.dataset.ShardWriter.WRITERS == 2
    assert [e["start"] for e in entries] == [0, 10, 20, 30, 40]
    one = koudian.simulate("shanxi", AGENTS, hands=50, seed=3, threads=2, record=tmp_path / "d")
    assert one.hands == 50
    rows = pytest.importorskip("pyarrow.parquet").read_table
    assert (
        sum(rows(tmp_path / e["file"]).num_rows for e in entries) == _rows(tmp_path / "d").num_rows
    )


def test_record_seats_keeps_only_those_seats(tmp_path: Path) -> None:
    koudian.simulate("sichuan", AGENTS, hands=20, seed=2, record=tmp_path, record_seats=[1])
    t = _rows(tmp_path)
    assert t.num_rows > 0 and set(t.column("seat").to_pylist()) == {1}
    with pytest.raises(koudian.RulesetError, match="record_seats"):
        koudian.simulate("shanxi", AGENTS, hands=2, record=tmp_path, record_seats=[4])


class _First:
    """A Python agent: the first legal action."""

    def act(self, observation: object, legal_actions: list[Action]) -> Action:
        return legal_actions[0]


def test_record_needs_builtin_agents(tmp_path: Path) -> None:
    with pytest.raises(koudian.RulesetError, match="built-in agents"):
        koudian.simulate("shanxi", [_First()] * 4, hands=2, record=tmp_path)


def test_polars_and_duckdb_read_the_shards_as_they_are(recorded: tuple[Path, object]) -> None:
    d, r = recorded
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    df = pl.read_parquet(d / "part-*.parquet")
    assert df.height == int(r.decisions.sum())  # type: ignore[attr-defined]
    assert df["obs"].dtype == pl.Binary and len(df["obs"][0]) == koudian._core.OBS_BYTES
    [(n, wins)] = duckdb.sql(
        f"SELECT count(*), count(DISTINCT hand) FILTER (WHERE won) FROM '{d}/part-*.parquet'"
    ).fetchall()
    assert n == df.height
    assert wins == int((r.kind == 0).sum())  # type: ignore[attr-defined]


def test_unpack_obs_refuses_a_wrong_shape() -> None:
    with pytest.raises(koudian.KoudianError, match="shape"):
        koudian.dataset.unpack_obs(np.zeros((2, 7), np.uint8))
    with pytest.raises(koudian.KoudianError, match="bytes wide"):
        koudian.dataset.unpack_obs(pa.array([b"x" * 7], pa.binary(7)))


def test_version_1_rows_still_unpack_to_their_planes() -> None:
    """Datasets recorded before version 2 (201-byte rows of the 29 float32
    planes) unpack as they did: the v1 layout, packed here by hand from
    observations (bits, nibbles, constant bytes; plane 24 as the count)."""
    g = Game("linxian", seed=3)
    rows, want = [], []
    while not g.done:
        seat = g.to_act
        assert seat is not None
        p = g.observe(seat).planes()
        out = bytearray()
        for k, plane in enumerate(p):
            if k in (*range(5, 13), 14):
                v = plane.astype(np.uint8)
                out += bytes(int(v[i]) | int(v[i + 1]) << 4 for i in range(0, 34, 2))
            elif k >= 16:
                out.append(round(float(plane[0]) * (136 if k == 24 else 1)))
            else:
                out += np.packbits(plane.astype(np.uint8), bitorder="little").tobytes()
        rows.append(bytes(out))
        want.append(p)
        g.step(g.legal_actions()[0])
    column = pa.array(rows, pa.binary(koudian._core.OBS_BYTES_V1))
    got = koudian.dataset.unpack_obs(column)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.stack(want))
    np.testing.assert_array_equal(koudian.dataset.unpack_obs(column, np.float64), np.stack(want))


def test_open_refuses_a_directory_without_manifest(tmp_path: Path) -> None:
    with pytest.raises(koudian.KoudianError, match="not a koudian dataset"):
        koudian.dataset.open(tmp_path)


@pytest.mark.parametrize("name", ["g.jsonl", "g.jsonl.gz", "g.jsonl.zst"])
def test_compressed_logs_read_back_hand_by_hand(tmp_path: Path, name: str) -> None:
    if name.endswith(".zst"):
        pytest.importorskip("zstandard")
    path = tmp_path / name
    with koudian.logs.open_log(path) as f:
        koudian.simulate("shanxi", AGENTS, hands=30, seed=9, log=f, chunk=7)
    want = koudian._core._testing.simulate_logs("shanxi", AGENTS, 30, seed=9)
    got = list(koudian.read_logs(path))
    assert got == want
    assert koudian.replay(got[3]).log == want[3]
    # The compression is told by the first bytes, not the name.
    renamed = tmp_path / "renamed.log"
    path.rename(renamed)
    assert list(koudian.read_logs(renamed)) == want


@pytest.mark.parametrize("name", ["g.jsonl.gz", "g.jsonl.zst"])
def test_a_compact_log_holds_the_plain_logs_bytes_and_every_hand_replays(
    tmp_path: Path, name: str
) -> None:
    """The compact log decompresses to the very bytes of the plain log of
    the same run (2 threads, chunks cut mid-way), which are the hands'
    ``Game.log`` one after another; ``koudian.replay`` reads every hand."""
    if name.endswith(".zst"):
        zstandard = pytest.importorskip("zstandard")
    plain, packed = tmp_path / "g.jsonl", tmp_path / name
    for path in (plain, packed):
        with koudian.logs.open_log(path) as f:
            koudian.simulate("sichuan", AGENTS, hands=45, seed=3, threads=2, log=f, chunk=20)
    raw = packed.read_bytes()
    if name.endswith(".gz"):
        text = gzip.decompress(raw)
    else:
        text = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True).read()
    assert text == plain.read_bytes()
    want = koudian._core._testing.simulate_logs("sichuan", AGENTS, 45, seed=3)
    assert text.decode() == "".join(want)
    hands = list(koudian.read_logs(packed))
    assert len(hands) == 45
    for h in hands:
        assert koudian.replay(h).log == h


def test_a_failing_log_file_fails_the_run(tmp_path: Path) -> None:
    """A write error on the background writer reaches the caller."""

    class Full:
        def __init__(self) -> None:
            self.buffer = self

        def flush(self) -> None:
            pass

        def write(self, data: bytes) -> int:
            raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        koudian.simulate("shanxi", AGENTS, hands=10, seed=1, log=Full(), chunk=4)  # type: ignore[arg-type]


def test_read_logs_refuses_what_is_not_a_log(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"deal"}\n')
    with pytest.raises(koudian.KoudianError, match="line 1"):
        list(koudian.read_logs(bad))
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(gzip.compress(b'{"type":"header"}\n')[:-6])
    with pytest.raises(koudian.KoudianError, match="truncated file"):
        list(koudian.read_logs(broken))


def test_the_cli_records_and_writes_a_compressed_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from koudian.cli import main

    d, log = tmp_path / "ds", tmp_path / "g.jsonl.gz"
    args = ["simulate", "--agents", "greedy", "--hands", "40", "--seed", "4", "--quiet"]
    assert main([*args, "--record", str(d), "--record-seats", "0,2", "--log", str(log)]) == 0
    assert "dataset:" in capsys.readouterr().out
    assert set(_rows(d).column("seat").to_pylist()) == {0, 2}
    assert log.read_bytes()[:2] == b"\x1f\x8b"
    want = koudian._core._testing.simulate_logs("shanxi", ["greedy"] * 4, 40, seed=4)
    assert list(koudian.read_logs(log)) == want
    assert main([*args, "--record", str(d), "--record-seats", "x"]) == 2
    assert "record-seats" in capsys.readouterr().err
