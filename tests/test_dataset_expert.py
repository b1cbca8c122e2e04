"""The ``expert_values`` column (issue 37): the rows of an ``mc`` seat
carry its estimated values where it searched, written by the core's
recorder and read back exactly; a damaged column is refused, and a
dataset of the format before it (no column) still opens."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import koudian
import numpy as np
import pytest
from koudian import dataset
from koudian._core import N_ACTIONS, simulate_record

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

AGENTS = ["mc:budget=fast", "greedy", "greedy", "greedy"]
SHARD0 = "part-000000000000.parquet"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("expert")
    koudian.simulate("shanxi", AGENTS, hands=10, seed=9, threads=1, record=d)
    return d


def _copy(src: Path, dst: Path) -> Path:
    dst.mkdir(exist_ok=True)
    for f in src.iterdir():
        (dst / f.name).write_bytes(f.read_bytes())
    return dst


def _reseal(d: Path, table: Any, version: int) -> None:
    """Rewrites shard 0 as ``table`` and the manifest to agree with it."""
    pq.write_table(table, d / SHARD0)
    m = json.loads((d / "_manifest.json").read_text(encoding="utf-8"))
    data = (d / SHARD0).read_bytes()
    m["format_version"] = version
    m["shards"][0].update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    (d / "_manifest.json").write_text(json.dumps(m), encoding="utf-8")


def test_mc_rows_carry_its_values_read_back_exactly(recorded: Path) -> None:
    assert dataset.read_manifest(recorded)["format_version"] == 3
    batches = list(dataset.iter_batches(recorded))
    got = np.concatenate([b["expert_values"] for b in batches])
    seat = np.concatenate([b["seat"] for b in batches])
    _, rows, _ = simulate_record("shanxi", AGENTS, 10, seed=9, threads=1, seats=[0, 1, 2, 3])
    want = np.full((len(rows["seat"]), N_ACTIONS), np.nan, np.float32)
    has = rows["expert_len"] == N_ACTIONS
    want[has] = rows["expert"].reshape(-1, N_ACTIONS)
    assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()
    valued = ~np.isnan(got).all(1)
    assert valued.any() and (seat[valued] == 0).all()
    mask = np.concatenate([b["mask"] for b in batches])
    action = np.concatenate([b["action"] for b in batches])
    v = got[valued]
    assert (np.isnan(v) == ~mask[valued]).all()  # NaN exactly on the illegal actions
    assert (np.isfinite(v).sum(1) >= 2).all()
    assert np.isfinite(v[np.arange(len(v)), action[valued]]).all()
    # The stored column is the compact list: 141 values or none.
    lengths = dataset.open(recorded).to_table()["expert_values"].combine_chunks()
    assert set(np.diff(lengths.offsets.to_numpy()).tolist()) == {0, N_ACTIONS}


def test_a_row_of_another_length_is_refused(recorded: Path, tmp_path: Path) -> None:
    d = _copy(recorded, tmp_path / "bad")
    t = pq.read_table(d / SHARD0)
    values = t["expert_values"].to_pylist()
    values[0] = [1.0, 2.0, 3.0]
    i = t.schema.get_field_index("expert_values")
    t = t.set_column(i, "expert_values", pa.array(values, pa.list_(pa.float32())))
    _reseal(d, t, 3)
    with pytest.raises(koudian.KoudianError, match=rf"{SHARD0}.*0 or 141"):
        list(dataset.iter_batches(d))


def test_format_2_datasets_open_without_the_column(recorded: Path, tmp_path: Path) -> None:
    d = _copy(recorded, tmp_path / "old")
    t = pq.read_table(d / SHARD0).drop_columns(["expert_values"])
    _reseal(d, t, 2)
    b = next(dataset.iter_batches(d))
    assert "expert_values" not in b and len(b["action"]) > 0
    # The same shard under a format 3 manifest lacks its column: refused.
    _reseal(d, t, 3)
    with pytest.raises(koudian.KoudianError, match=rf"{SHARD0}.*schema"):
        dataset.open(d)
