"""The dataset integrity suite (issue 35, items 1-4): a dataset is read
exactly as its manifest lists it or refused with a ``KoudianError`` naming
the file — a second run into the same folder, deleted, added, renamed and
bit-flipped shards, edited and malformed manifests, shards of another
schema, null values, interrupted runs. Never silently different data."""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import sys
import warnings
from pathlib import Path
from typing import Any

import koudian
import pytest
from koudian.simulation import SimulationInterrupted

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

AGENTS = ["greedy", "random", "greedy", "random"]
SHARD0 = "part-000000000000.parquet"


def _record(d: Path, rules: str = "shanxi", hands: int = 60, **kw: Any) -> Any:
    return koudian.simulate(rules, AGENTS, hands=hands, seed=5, threads=2, record=d, chunk=20, **kw)


def _table(d: Path) -> Any:
    t = koudian.dataset.open(d).to_table()
    return t.sort_by([("hand", "ascending"), ("step", "ascending")])


def _batches(d: Path) -> int:
    return sum(len(b["action"]) for b in koudian.dataset.iter_batches(d, batch_size=500))


def _manifest(d: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((d / "_manifest.json").read_text(encoding="utf-8"))
    return loaded


def _write_manifest(d: Path, m: Any) -> None:
    (d / "_manifest.json").write_text(json.dumps(m), encoding="utf-8")


def _reseal(d: Path, name: str) -> None:
    """Makes the manifest's entry for shard ``name`` agree with the file's
    bytes and rows, as if whoever changed the file also rewrote the
    manifest: only the checks inside the file can then catch it."""
    m = _manifest(d)
    data = (d / name).read_bytes()
    for s in m["shards"]:
        if s["file"] == name:
            s["bytes"] = len(data)
            s["sha256"] = hashlib.sha256(data).hexdigest()
            old, s["rows"] = s["rows"], pq.ParquetFile(d / name).metadata.num_rows
            m["rows"] += s["rows"] - old
    _write_manifest(d, m)


def _refused(d: Path, match: str) -> None:
    with pytest.raises(koudian.KoudianError, match=match):
        _table(d)
    with pytest.raises(koudian.KoudianError, match=match):
        _batches(d)


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any, Any]:
    d = tmp_path_factory.mktemp("orig") / "ds"
    r = _record(d)
    return d, r, _table(d)


@pytest.fixture
def ds(original: tuple[Path, Any, Any], tmp_path: Path) -> Path:
    d = tmp_path / "ds"
    shutil.copytree(original[0], d)
    return d


# ------------------------------------------------------------ item 1


def test_second_run_into_same_folder_is_refused(tmp_path: Path) -> None:
    d = tmp_path / "ds"
    _record(d, "shanxi")
    before = sorted(p.name for p in d.iterdir())
    with pytest.raises(koudian.KoudianError, match=r"already holds a dataset.*overwrite"):
        _record(d, "sichuan", hands=40)
    assert sorted(p.name for p in d.iterdir()) == before
    assert koudian.dataset.read_manifest(d)["rules"] == koudian.Ruleset.preset("shanxi").to_toml()


def test_a_folder_with_only_shards_is_refused_too(tmp_path: Path) -> None:
    d = tmp_path / "ds"
    _record(d)
    (d / "_manifest.json").unlink()
    with pytest.raises(koudian.KoudianError, match="already holds a dataset"):
        _record(d)


def test_overwrite_replaces_the_dataset_whole(tmp_path: Path) -> None:
    d = tmp_path / "ds"
    _record(d, "shanxi", hands=100)
    (d / "notes.txt").write_text("mine")
    r = _record(d, "sichuan", hands=30, overwrite=True)
    m = koudian.dataset.read_manifest(d)
    assert m["rules"] == koudian.Ruleset.preset("sichuan").to_toml()
    shards = sorted(p.name for p in d.glob("*.parquet"))
    assert shards == sorted(s["file"] for s in m["shards"]) and len(shards) == 2
    assert _table(d).num_rows == int(r.decisions.sum()) == m["rows"]
    assert (d / "notes.txt").read_text() == "mine"  # not ours: left alone


def test_the_cli_refuses_a_used_folder_unless_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from koudian.cli import main

    d = tmp_path / "ds"
    args = ["simulate", "--agents", "greedy", "--hands", "20", "--quiet", "--record", str(d)]
    assert main(args) == 0
    assert main([*args, "--rules", "sichuan"]) == 2
    assert "already holds a dataset" in capsys.readouterr().err
    assert main([*args, "--rules", "sichuan", "--overwrite"]) == 0
    m = koudian.dataset.read_manifest(d)
    assert m["rules"] == koudian.Ruleset.preset("sichuan").to_toml()


def test_a_deleted_shard_is_refused(ds: Path) -> None:
    (ds / SHARD0).unlink()
    _refused(ds, SHARD0)


def test_added_shards_are_not_read(ds: Path, original: tuple[Path, Any, Any]) -> None:
    """A shard copied in (at the top or in a subfolder) is not the
    dataset's: the manifest's shards are read, and only them."""
    other = ds.parent / "other"
    koudian.simulate("sichuan", AGENTS, hands=30, seed=9, record=other, chunk=30)
    shutil.copy(other / SHARD0, ds / "part-000000099999.parquet")
    (ds / "sub").mkdir()
    shutil.copy(other / SHARD0, ds / "sub" / SHARD0)
    assert _table(ds).equals(original[2])
    assert _batches(ds) == original[2].num_rows


def test_a_renamed_shard_is_refused(ds: Path) -> None:
    (ds / SHARD0).rename(ds / "part-000000000001.parquet")
    _refused(ds, SHARD0)


def test_swapped_shards_are_refused(ds: Path) -> None:
    a, b = ds / SHARD0, ds / "part-000000000020.parquet"
    a.rename(ds / "x")
    b.rename(a)
    (ds / "x").rename(b)
    _refused(ds, "part-0000000000[02]0.parquet")


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda m: m.update(format_version=999), "format_version 999"),
        (lambda m: m.update(rows=5), "rows"),
        (
            lambda m: (
                m.update(rows=m["rows"] - m["shards"][1]["rows"] + 5)
                or m["shards"][1].update(rows=5)
            ),
            "part-000000000020.parquet: .* rows, the manifest",
        ),
        (lambda m: m["encoding"].update(version=9), "encoding"),
        (lambda m: m["encoding"].update(obs_bytes=12), "obs_bytes"),
        (lambda m: m["shards"][0].update(file="../elsewhere.parquet"), "file"),
        (lambda m: m["shards"][0].update(sha256="0" * 64), "checksum"),
        (lambda m: m["shards"][0].update(bytes=1), "size"),
        (lambda m: m["shards"].append(dict(m["shards"][0])), "twice"),
        (lambda m: m.update(complete="yes"), "complete"),
        (lambda m: m.update(seats=["a"]), "seats"),
        (lambda m: m.update(rows=True), "rows"),
        (lambda m: m.update(format="parquet"), "not a koudian dataset"),
    ],
)
def test_an_edited_manifest_is_refused(ds: Path, edit: Any, match: str) -> None:
    m = _manifest(ds)
    edit(m)
    _write_manifest(ds, m)
    _refused(ds, match)


# ------------------------------------------------------------ item 2


def test_bit_flips_anywhere_in_a_shard_are_refused_or_read_exactly(
    original: tuple[Path, Any, Any], tmp_path: Path
) -> None:
    """Single-bit flips at 150 places spread over a shard, its footer and
    magic bytes included: every read raises a KoudianError naming the
    shard or gives the original rows — never different ones."""
    src, _, want = original
    size = (src / SHARD0).stat().st_size
    positions = sorted({*range(0, size, max(1, size // 120)), *range(size - 30, size)})
    d = tmp_path / "ds"
    shutil.copytree(src, d)
    clean = (src / SHARD0).read_bytes()
    for k, at in enumerate(positions):
        data = bytearray(clean)
        data[at] ^= 1 << (k % 8)
        (d / SHARD0).write_bytes(bytes(data))
        try:
            got = _table(d)
        except koudian.KoudianError as e:
            assert SHARD0 in str(e)
        else:
            assert got.equals(want), f"bit flip at {at} read back different rows"


def _all_batches(source: Any) -> dict[str, Any]:
    import numpy as np

    parts = list(koudian.dataset.iter_batches(source, batch_size=500))
    return {k: np.concatenate([b[k] for b in parts]) for k in parts[0]}


def test_bit_flips_without_the_sha256_are_refused_by_the_pages_or_read_exactly(
    original: tuple[Path, Any, Any], tmp_path: Path
) -> None:
    """``open(verify=False)`` skips the file checksum: the page checksums,
    the schema and the row counts still leave no flip read as other data
    through ``iter_batches`` (a KoudianError naming the shard instead)."""
    import numpy as np

    src = original[0]
    want = _all_batches(src)
    clean = (src / SHARD0).read_bytes()
    d = tmp_path / "ds"
    shutil.copytree(src, d)
    for k, at in enumerate(range(0, len(clean), max(1, len(clean) // 150))):
        data = bytearray(clean)
        data[at] ^= 1 << (k % 8)
        (d / SHARD0).write_bytes(bytes(data))
        try:
            got = _all_batches(koudian.dataset.open(d, verify=False))
        except koudian.KoudianError as e:
            assert SHARD0 in str(e)
        else:
            for key, value in want.items():
                np.testing.assert_array_equal(got[key], value, err_msg=f"flip at {at}: {key}")


def test_page_checksums_are_written_and_verified(ds: Path) -> None:
    """A flip inside a data page, with the manifest resealed to the
    flipped file: the page's own checksum refuses it."""
    meta = pq.ParquetFile(ds / SHARD0).metadata
    obs = next(
        meta.row_group(0).column(i)
        for i in range(meta.num_columns)
        if meta.row_group(0).column(i).path_in_schema == "obs"
    )
    data = bytearray((ds / SHARD0).read_bytes())
    data[obs.data_page_offset + obs.total_compressed_size // 2] ^= 0x10
    (ds / SHARD0).write_bytes(bytes(data))
    _reseal(ds, SHARD0)
    with pytest.raises(koudian.KoudianError, match=f"{SHARD0}.*CRC checksum"):
        _batches(ds)
    # A pyarrow dataset's own scan reports it in pyarrow's words.
    with pytest.raises(OSError, match="CRC checksum verification failed"):
        _table(ds)


# ------------------------------------------------------------ item 3


def test_an_interrupted_record_leaves_a_partial_manifest_of_the_finished_shards(
    tmp_path: Path,
) -> None:
    d = tmp_path / "ds"
    done: list[int] = []

    def progress(n: int) -> None:
        done.append(n)
        if len(done) == 2:
            raise KeyboardInterrupt

    with pytest.raises(SimulationInterrupted) as e:
        _record(d, hands=200, progress=progress)
    played = e.value.result
    m = koudian.dataset.read_manifest(d)
    assert m["complete"] is False and m["hands"] == played.hands == 40
    assert sorted(p.name for p in d.glob("part-*.parquet")) == [s["file"] for s in m["shards"]]
    assert m["rows"] == int(played.decisions.sum())
    with pytest.warns(koudian.dataset.PartialDatasetWarning, match="partial"):
        assert _table(d).num_rows == m["rows"]
    assert koudian.dataset.read_manifest(d)["complete"] is not True


def test_a_failed_record_leaves_a_partial_manifest(tmp_path: Path) -> None:
    d = tmp_path / "ds"
    done: list[int] = []

    def progress(n: int) -> None:
        done.append(n)
        if len(done) == 3:
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        _record(d, hands=200, progress=progress)
    m = koudian.dataset.read_manifest(d)
    assert m["complete"] is False and m["hands"] == 60
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _table(d).column("hand").to_pylist() == sorted(_table(d).column("hand").to_pylist())
        assert max(_table(d).column("hand").to_pylist()) < 60


def test_a_complete_record_says_so(original: tuple[Path, Any, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _table(original[0])
    assert koudian.dataset.read_manifest(original[0])["complete"] is True


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_in_the_cli_leaves_a_partial_dataset(tmp_path: Path) -> None:
    import os
    import subprocess
    import time

    d = tmp_path / "ds"
    env = {**os.environ, "PYTHONPATH": str(Path(koudian.__file__).parent.parent)}
    cmd = [sys.executable, "-m", "koudian", "simulate", "--agents", "greedy"]
    cmd += ["--hands", "100000000", "--quiet", "--threads", "1", "--record", str(d)]
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not list(d.glob("part-*.parquet")) and time.monotonic() < deadline:
            time.sleep(0.1)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 130, err
    m = koudian.dataset.read_manifest(d)
    assert m["complete"] is False and m["shards"]
    assert sorted(p.name for p in d.glob("part-*.parquet")) == [s["file"] for s in m["shards"]]
    with pytest.warns(koudian.dataset.PartialDatasetWarning):
        assert _table(d).num_rows == m["rows"]


# ------------------------------------------------------------ item 4


@pytest.mark.parametrize(
    "raw",
    [
        b"{not json",
        b"\xff\xfe\x00garbage",
        b"[1, 2]",
        b'{"format": "koudian-dataset"}',
        b'{"format": "koudian-dataset", "format_version": NaN}',
        b"",
    ],
)
def test_a_malformed_manifest_is_a_koudian_error_naming_it(ds: Path, raw: bytes) -> None:
    (ds / "_manifest.json").write_bytes(raw)
    _refused(ds, "_manifest.json")
    with pytest.raises(koudian.KoudianError, match=r"_manifest\.json"):
        koudian.dataset.read_manifest(ds)


@pytest.mark.parametrize(
    "edit",
    [
        lambda m: m.update(shards="x"),
        lambda m: m.update(shards=[1]),
        lambda m: m["shards"][0].update(file=7),
        lambda m: m["shards"][0].pop("rows"),
        lambda m: m.update(encoding=[]),
        lambda m: m.pop("agents"),
        lambda m: m.update(hands=-1),
    ],
)
def test_manifests_of_the_wrong_shape_are_koudian_errors(ds: Path, edit: Any) -> None:
    m = _manifest(ds)
    edit(m)
    _write_manifest(ds, m)
    _refused(ds, "_manifest.json")


def test_a_shard_of_another_schema_is_refused(ds: Path) -> None:
    pq.write_table(pa.table({"hand": pa.array(range(5), pa.uint64())}), ds / SHARD0)
    _reseal(ds, SHARD0)
    _refused(ds, f"{SHARD0}.*schema")


def test_a_shard_that_is_not_parquet_is_refused(ds: Path) -> None:
    (ds / SHARD0).write_bytes(b"hello")
    _reseal_bytes_only(ds, SHARD0)
    _refused(ds, SHARD0)


def _reseal_bytes_only(d: Path, name: str) -> None:
    m = _manifest(d)
    data = (d / name).read_bytes()
    for s in m["shards"]:
        if s["file"] == name:
            s["bytes"], s["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    _write_manifest(d, m)


def test_null_obs_values_are_refused(ds: Path) -> None:
    t = pq.read_table(ds / SHARD0)
    i = t.schema.get_field_index("obs")
    obs = t.column("obs").combine_chunks()
    nulls = pa.array([k % 7 == 0 for k in range(len(obs))])
    import pyarrow.compute as pc

    t = t.set_column(i, "obs", pc.if_else(nulls, pa.scalar(None, obs.type), obs))
    pq.write_table(t, ds / SHARD0)
    _reseal(ds, SHARD0)
    with pytest.raises(koudian.KoudianError, match=f"{SHARD0}.*null"):
        _batches(ds)
