"""koudian.train and ``koudian train``: a tiny training end to end whose
loss falls, the same seed giving the same weights, the model file
written and read back, and the core's forward pass (``nn`` agent)
equal to JAX's. Needs the ``train`` extra (JAX, optax, safetensors):
skipped without it, except in CI, which installs it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import koudian
import numpy as np
import pytest
from koudian.train import setup

setup()  # one CPU thread, before JAX's first import
pytest.importorskip("pyarrow")
try:
    import jax  # noqa: F401
    import optax  # noqa: F401
    import safetensors  # noqa: F401
except ImportError:
    if os.environ.get("CI"):
        raise
    pytest.skip("the train extra (JAX, optax) is not installed", allow_module_level=True)

from koudian._core import N_ACTIONS, KoudianError  # noqa: E402
from koudian.train import data, export, imitate, improve, model  # noqa: E402


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small recorded dataset with an mc seat (soft targets) and greedy."""
    d = tmp_path_factory.mktemp("mcdata")
    koudian.simulate(
        "shanxi",
        ["mc:budget=fast", "greedy", "greedy", "greedy"],
        hands=24,
        seed=5,
        record=str(d),
        threads=1,
    )
    return d


def _train(dataset: Path, seed: int, epochs: int = 3) -> tuple[model.Params, list[dict]]:
    rows = data.load([dataset])
    tr, held = data.split(rows, 0.2, seed)
    cfg = imitate.ImitateConfig(hidden=(32, 16), epochs=epochs, batch=128, lr=3e-3, seed=seed)
    return imitate.imitate(tr, held, cfg)


def test_rows_carry_mcs_values_as_soft_targets(dataset: Path) -> None:
    rows = data.load([dataset])
    assert rows.expert is not None
    valued = ~np.isnan(rows.expert).all(1)
    assert valued.any()
    t = imitate.policy_targets(rows.action, rows.expert, 0.5, 2.0)
    np.testing.assert_allclose(t.sum(1), 1.0, rtol=1e-5)
    # Where mc valued candidates, part of the target goes to them, never
    # to an action it did not play out; elsewhere the played action's one-hot.
    for i in np.flatnonzero(valued)[:20]:
        finite = np.isfinite(rows.expert[i])
        assert (t[i][~finite] == 0).all()
        assert t[i][rows.action[i]] >= 0.5
    plain = np.flatnonzero(~valued)[:20]
    assert (t[plain, rows.action[plain]] == 1.0).all()


def test_a_family_soft_share_applies_to_that_familys_rows_only() -> None:
    # Two rows with the same values, one of each family: shanxi's target
    # mixes in the values' softmax, sichuan's (share 0) is the played
    # action's one-hot.
    expert = np.full((2, N_ACTIONS), np.nan, np.float32)
    expert[:, 3] = 1.0
    expert[:, 7] = 0.0
    action = np.array([7, 7], np.int64)
    cfg = imitate.ImitateConfig(soft=0.9, temperature=1.0, family_soft={"sichuan": 0.0})
    fam = np.array([model.FAMILIES.index("shanxi"), model.FAMILIES.index("sichuan")])
    shares = cfg.softs(fam)
    assert shares.tolist() == pytest.approx([0.9, 0.0])
    t = imitate.policy_targets(action, expert, shares, 1.0)
    assert t[0, 3] == pytest.approx(0.9 / (1 + np.exp(-1.0)), rel=1e-5)
    assert t[1].tolist() == np.eye(N_ACTIONS)[7].tolist()
    # One share for every row equals the scalar call.
    same = imitate.policy_targets(action, expert, np.array([0.9, 0.9], np.float32), 1.0)
    np.testing.assert_allclose(same, imitate.policy_targets(action, expert, 0.9, 1.0))
    assert imitate.family_values("sichuan=0, linxian=0.5") == {"sichuan": 0.0, "linxian": 0.5}
    for bad in ("sichuan", "sichuan=1.5", "sichuan=x", "riichi=1", "sichuan=-0.1"):
        with pytest.raises(KoudianError):
            imitate.family_values(bad)


def test_tiny_imitation_loss_falls(dataset: Path) -> None:
    params, curve = _train(dataset, seed=1, epochs=4)
    assert curve[-1]["loss"] < curve[1]["loss"]
    assert curve[-1]["held_loss"] < curve[0]["held_loss"]
    assert model.hidden_sizes(params) == [32, 16]


def test_same_seed_same_weights(dataset: Path) -> None:
    a, _ = _train(dataset, seed=3, epochs=1)
    b, _ = _train(dataset, seed=3, epochs=1)
    c, _ = _train(dataset, seed=4, epochs=1)
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    assert any(not np.array_equal(a[k], c[k]) for k in a if k != "input_scale")


def test_model_file_round_trip(tmp_path: Path) -> None:
    p = model.init(0, (16,), np.full(model.INPUTS, 0.25, np.float32))
    path = tmp_path / "m.safetensors"
    stored = export.save(p, path, {"recipe": "test", "seed": 0})
    got, meta = export.load(path)
    for k in p:
        np.testing.assert_array_equal(got[k], p[k])
        np.testing.assert_array_equal(stored[k], p[k])
    assert meta["format"] == "koudian-nn" and meta["format_version"] == 1
    assert meta["encoding_version"] == 3 and meta["planes"] == 79 and meta["actions"] == 141
    assert meta["hidden"] == [16] and meta["families"] == ["shanxi", "linxian", "sichuan"]
    assert meta["extra_inputs"] == ["family_shanxi", "family_linxian", "family_sichuan"]
    assert meta["provenance"]["recipe"] == "test"
    # The safetensors header as the format defines it: 8-byte length, JSON.
    raw = path.read_bytes()
    header = json.loads(raw[8 : 8 + int.from_bytes(raw[:8], "little")])
    assert header["hidden.0.weight"] == {
        "dtype": "F32",
        "shape": [16, model.INPUTS],
        "data_offsets": header["hidden.0.weight"]["data_offsets"],
    }
    assert json.loads(header["__metadata__"]["koudian"]) == meta
    half = export.save(p, tmp_path / "h.safetensors", dtype="f16")
    assert (tmp_path / "h.safetensors").stat().st_size < path.stat().st_size * 0.6
    np.testing.assert_array_equal(
        export.load(tmp_path / "h.safetensors")[0]["policy.weight"], half["policy.weight"]
    )
    (tmp_path / "bad.safetensors").write_bytes(raw[:100])
    with pytest.raises(koudian.KoudianError, match=r"bad\.safetensors"):
        export.load(tmp_path / "bad.safetensors")


def test_jax_forward_is_the_numpy_definition(dataset: Path) -> None:
    params, _ = _train(dataset, seed=2, epochs=1)
    rows = data.load([dataset])
    x = rows.inputs(np.arange(64, dtype=np.int64))
    lj, vj = model.forward(params, x)
    ln, vn = model.forward_numpy(params, x)
    np.testing.assert_allclose(np.asarray(lj), ln, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(vj), vn, rtol=1e-4, atol=1e-4)


def test_rust_forward_equals_jax(dataset: Path, tmp_path: Path) -> None:
    nn_model = getattr(koudian._core, "NnModel", None)
    if nn_model is None:
        pytest.skip("the core's nn agent (NnModel) is not in this build yet (branch nn-core)")
    params, _ = _train(dataset, seed=2, epochs=1)
    assert np.abs(params["kinds.weight"]).max() > 0  # the per-kind head trained
    plain = {k: v for k, v in params.items() if k != "kinds.weight"}
    for dtype, p in (("f32", params), ("f16", params), ("f32", plain)):
        path = tmp_path / f"m-{dtype}-{len(p)}.safetensors"
        stored = export.save(p, path, {"recipe": "parity"}, dtype=dtype)
        core = nn_model(str(path))
        assert core.header["kind_head"] == ("kinds.weight" in p)
        rng = np.random.default_rng(0)
        rows = data.load([dataset])
        real = rows.inputs(np.arange(min(256, len(rows)), dtype=np.int64))
        rand = rng.integers(0, 5, size=(64, model.INPUTS)).astype(np.float32)
        for x in (real, rand):
            lr, vr = core.forward(np.ascontiguousarray(x))
            lj, vj = model.forward(stored, x)
            np.testing.assert_allclose(lr, np.asarray(lj), rtol=1e-4, atol=1e-4)
            np.testing.assert_allclose(vr, np.asarray(vj), rtol=1e-4, atol=1e-4)


def test_improve_runs_seeded_and_stays_near(dataset: Path) -> None:
    params, _ = _train(dataset, seed=1, epochs=1)
    cfg = improve.ImproveConfig(iterations=2, envs=8, steps=8, minibatch=32, seed=7)
    a, curve = improve.improve(params, ["shanxi"], cfg)
    b, _ = improve.improve(params, ["shanxi"], cfg)
    assert len(curve) == 2 and all(c["kl"] >= 0 for c in curve)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    assert any(not np.array_equal(a[k], params[k]) for k in a if k != "input_scale")


def test_cli_imitate_and_improve(dataset: Path, tmp_path: Path) -> None:
    from koudian.cli import main

    out = tmp_path / "cli.safetensors"
    curve = tmp_path / "curve.jsonl"
    args = ["train", "imitate", str(dataset), "-o", str(out), "--epochs", "2"]
    args += ["--hidden", "16", "--batch", "64", "--seed", "1", "--curve", str(curve), "--quiet"]
    assert main([*args, "--value-coef", "0.05"]) == 0
    entries = [json.loads(line) for line in curve.read_text().splitlines()]
    assert [e.get("epoch") for e in entries[1:]] == [0, 1, 2]
    meta = export.load(out)[1]
    assert meta["provenance"]["seed"] == 1 and "imitate" in meta["provenance"]["recipe"]
    assert '"value_coef": 0.05' in meta["provenance"]["recipe"]
    for bad in ("-1", "nan", "inf", "x"):  # refused before any work
        with pytest.raises(SystemExit) as e:
            main([*args, "--value-coef", bad])
        assert e.value.code == 2
    better = tmp_path / "better.safetensors"
    args = ["train", "improve", str(out), "-o", str(better), "--iterations", "1", "--envs", "4"]
    assert main([*args, "--steps", "4", "--quiet"]) == 0
    assert "improve" in export.load(better)[1]["provenance"]["recipe"]
    assert main(["train", "imitate", str(tmp_path / "none"), "-o", str(out)]) == 2
