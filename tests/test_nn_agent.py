"""The learned agent ``nn`` (issue 37): model files written here from
seeded random weights by a plain safetensors writer (the format is public:
an 8-byte header length, the JSON header, the tensors' bytes), read by the
core's reader; its forward pass against numpy's; its decisions legal and
reproducible everywhere an agent spec is taken; every refusal a
``ModelError`` naming the file."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import koudian
import numpy as np
import numpy.typing as npt
import pytest
from koudian import KoudianError, ModelError, NativeAgent, NnModel
from koudian._core import nn_default_models
from koudian._presets import names as preset_names

INPUTS = 66 * 34 + 3
FAMILIES = ("shanxi", "linxian", "sichuan")


def model_tensors(hidden: tuple[int, ...], seed: int) -> dict[str, npt.NDArray[np.float32]]:
    rng = np.random.default_rng(seed)
    t: dict[str, npt.NDArray[np.float32]] = {"input_scale": np.full(INPUTS, 0.125, np.float32)}
    width = INPUTS
    layers = [(f"hidden.{i}", h) for i, h in enumerate(hidden)]
    for name, out in [*layers, ("policy", 141), ("value", 1)]:
        b = 1 / math.sqrt(width)
        t[f"{name}.weight"] = rng.uniform(-b, b, (out, width)).astype(np.float32)
        t[f"{name}.bias"] = rng.uniform(-b, b, out).astype(np.float32)
        if name.startswith("hidden"):
            width = out
    return t


def header(hidden: tuple[int, ...], families: tuple[str, ...] = FAMILIES) -> dict[str, Any]:
    return {
        "format": "koudian-nn",
        "format_version": 1,
        "arch": "mlp",
        "encoding_version": 2,
        "planes": 66,
        "extra_inputs": ["family_shanxi", "family_linxian", "family_sichuan"],
        "hidden": list(hidden),
        "actions": 141,
        "families": list(families),
        "value_scale": 10.0,
        "provenance": {"recipe": "random weights (tests)"},
    }


def safetensors_bytes(
    tensors: dict[str, npt.NDArray[Any]], meta: dict[str, Any] | None, dtype: str = "F32"
) -> bytes:
    np_dtype = {"F32": "<f4", "F16": "<f2", "I32": "<i4", "F64": "<f8"}[dtype]
    head: dict[str, Any] = {}
    if meta is not None:
        head["__metadata__"] = {"koudian": json.dumps(meta)}
    blobs, offset = [], 0
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name]).astype(np_dtype).tobytes()
        head[name] = {
            "dtype": dtype,
            "shape": list(tensors[name].shape),
            "data_offsets": [offset, offset + len(data)],
        }
        blobs.append(data)
        offset += len(data)
    h = json.dumps(head).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + b"".join(blobs)


def model_bytes(
    hidden: tuple[int, ...] = (32, 16), seed: int = 0, families: tuple[str, ...] = FAMILIES
) -> bytes:
    return safetensors_bytes(model_tensors(hidden, seed), header(hidden, families))


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("nn") / "random.safetensors"
    p.write_bytes(model_bytes())
    return p


def reference(t: dict[str, npt.NDArray[np.float32]], x: npt.NDArray[np.float32]) -> Any:
    a = x.astype(np.float64) * t["input_scale"]
    i = 0
    while f"hidden.{i}.weight" in t:
        a = np.maximum(a @ t[f"hidden.{i}.weight"].T.astype(np.float64) + t[f"hidden.{i}.bias"], 0)
        i += 1
    logits = a @ t["policy.weight"].T.astype(np.float64) + t["policy.bias"]
    value = a @ t["value.weight"].T.astype(np.float64) + t["value.bias"]
    return logits, value[:, 0]


def observation_rows(n: int) -> npt.NDArray[np.float32]:
    """Real observations (encoding 2) with the family one-hot."""
    rows: list[npt.NDArray[np.float32]] = []
    g = koudian.Game("shanxi", seed=3)
    agent = NativeAgent("greedy")
    while len(rows) < n and not g.done:
        seat = g.to_act
        assert seat is not None
        o = g.observe(seat)
        rows.append(np.concatenate([o.planes(version=2).ravel(), [1.0, 0.0, 0.0]]))
        g.step(agent.act(o))
    return np.asarray(rows, np.float32)


def test_forward_equals_numpy_on_random_and_real_inputs() -> None:
    t = model_tensors((48, 24), 5)
    m = NnModel(safetensors_bytes(t, header((48, 24))))
    assert (m.inputs, m.file) == (INPUTS, "<bytes>")
    assert m.header["hidden"] == [48, 24]
    rng = np.random.default_rng(1)
    random_rows = rng.integers(0, 5, (17, INPUTS)).astype(np.float32)
    for x in (random_rows, observation_rows(40)):
        logits, value = m.forward(x)
        want_l, want_v = reference(t, x)
        assert logits.shape == (len(x), 141) and value.shape == (len(x),)
        np.testing.assert_allclose(logits, want_l, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(value, want_v, rtol=1e-4, atol=1e-4)
        # A row alone gives the same bits as in its batch.
        one_l, one_v = m.forward(x[3:4])
        assert np.array_equal(one_l[0], logits[3]) and one_v[0] == value[3]


def test_forward_refuses_bad_arrays(model_path: Path) -> None:
    m = NnModel(model_path)
    assert m.file == str(model_path)
    for bad in (
        np.zeros((2, INPUTS - 1), np.float32),
        np.zeros((2, INPUTS), np.float64),
        np.zeros(INPUTS, np.float32),
        [[0.0] * INPUTS],
    ):
        with pytest.raises(KoudianError):
            m.forward(bad)  # type: ignore[arg-type]


def _edited(edit: str) -> bytes:
    t = model_tensors((8,), 1)
    h = header((8,))
    if edit == "encoding":
        h["encoding_version"] = 1
    elif edit == "shape":
        t["policy.bias"] = t["policy.bias"][:140]
    elif edit == "missing":
        del t["value.bias"]
    elif edit == "extra":
        t["hidden.5.weight"] = np.zeros((1, 1), np.float32)
    elif edit == "nan":
        t["hidden.0.weight"][0, 7] = np.nan
    elif edit == "format":
        h["format"] = "onnx"
    if edit == "dtype":
        return safetensors_bytes(t, h, dtype="I32")
    return safetensors_bytes(t, None if edit == "metadata" else h)


@pytest.mark.parametrize(
    ("edit", "kind"),
    [
        ("truncated", "not_safetensors"),
        ("corrupted", "not_safetensors"),
        ("metadata", "metadata"),
        ("format", "format"),
        ("encoding", "encoding"),
        ("shape", "tensor"),
        ("missing", "tensor"),
        ("extra", "tensor"),
        ("dtype", "dtype"),
        ("nan", "non_finite"),
    ],
)
def test_bad_model_files_are_refused_naming_the_file(tmp_path: Path, edit: str, kind: str) -> None:
    good = model_bytes((8,), 1)
    data = {
        "truncated": good[: len(good) // 2],
        "corrupted": good[:9] + b"X" + good[10:],
    }.get(edit) or _edited(edit)
    path = tmp_path / f"bad-{edit}.safetensors"
    path.write_bytes(data)
    for make in (lambda: NnModel(path), lambda: NativeAgent(f"nn:{path}")):
        with pytest.raises(ModelError) as e:
            make()
        assert isinstance(e.value, KoudianError)
        assert e.value.kind == kind, str(e.value)
        assert e.value.file == str(path) and str(path) in str(e.value)
    with pytest.raises(ModelError):
        koudian.simulate("shanxi", [f"nn:{path}", "greedy", "greedy", "greedy"], 2, threads=1)


def test_a_missing_file_and_bad_specs(tmp_path: Path, model_path: Path) -> None:
    with pytest.raises(ModelError, match=r"nope\.safetensors") as e:
        NativeAgent(f"nn:{tmp_path / 'nope.safetensors'}")
    assert e.value.kind == "unreadable"
    for spec in (f"nn:{model_path}:temp=hot", f"nn:{model_path}:depth=2", "nn:temp=-1"):
        with pytest.raises(KoudianError):
            NativeAgent(spec)
    if not nn_default_models():
        # No default model embedded in this build: "nn" says what to do.
        with pytest.raises(ModelError, match="nn:PATH"):
            NativeAgent("nn")


def test_a_family_the_model_was_not_trained_for_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "shanxi-only.safetensors"
    path.write_bytes(model_bytes((8,), 2, families=("shanxi",)))
    spec = f"nn:{path}"
    assert koudian.simulate("shanxi", [spec] * 4, 2, threads=1).hands == 2
    with pytest.raises(ModelError, match="sichuan") as e:
        koudian.simulate("sichuan", [spec] * 4, 2, threads=1)
    assert e.value.kind == "family" and e.value.file == str(path)
    g = koudian.Game("sichuan", seed=1)
    seat = g.to_act
    assert seat is not None
    with pytest.raises(ModelError, match="sichuan"):
        NativeAgent(spec).act(g.observe(seat))
    with pytest.raises(ModelError, match="sichuan"):
        koudian.rank_actions(g, seat, agent=spec)


@pytest.mark.parametrize("preset", preset_names())
def test_decisions_are_legal_and_reproducible_on_every_preset(
    preset: str, model_path: Path
) -> None:
    specs = [f"nn:{model_path}", f"nn:{model_path}:temp=1.5"]
    for spec in specs:
        runs = [koudian.simulate(preset, [spec] * 4, 48, seed=2, threads=t) for t in (1, 2)]
        assert not runs[0].faults and not runs[0].fault_hands.any()
        assert np.array_equal(runs[0].scores, runs[1].scores)
    # Thousands of positions, each decision legal (a NativeAgent acting on
    # observations, the ranking led by the action it plays).
    assert play_legal(specs[0], preset, 4000, rank_every=50) >= 2000


def play_legal(spec: str, preset: str, limit: int, rank_every: int = 0) -> int:
    """Plays ``spec`` at every seat of hands of ``preset`` through a
    NativeAgent acting on observations, each action checked legal (and
    every ``rank_every`` decisions the ranking checked to lead with it),
    up to ``limit`` decisions; returns how many were checked."""
    agent = NativeAgent(spec)
    checked = 0
    for seed in range(600):
        g = koudian.Game(preset, seed=seed)
        while not g.done and checked < limit:
            seat = g.to_act
            assert seat is not None
            a = agent.act(g.observe(seat))
            assert a in g.legal_actions(seat)
            if rank_every and checked % rank_every == 0:
                ranked = koudian.rank_actions(g, seat, agent=spec)
                assert ranked[0].action == a
                assert abs(sum(r.numbers["probability"] for r in ranked) - 1) < 1e-9
            g.step(a)
            checked += 1
        if checked >= limit:
            break
    return checked


def test_nn_plays_in_the_arena_match_vec_env_and_review(model_path: Path) -> None:
    spec = f"nn:{model_path}"
    res = koudian.arena([spec, "greedy", "greedy", "greedy"], "shanxi", 8, seed=1, threads=2)
    again = koudian.arena([spec, "greedy", "greedy", "greedy"], "shanxi", 8, seed=1, threads=1)
    assert set(res.records) == set(again.records)
    for k in res.records:
        np.testing.assert_array_equal(res.records[k], again.records[k])
    m = koudian.Match("linxian", [spec, "greedy", spec, "random"], hands=3, seed=4)
    while m.play_hand() is not None:
        pass
    env = koudian.VecEnv("sichuan", 4, learners=0, opponents=spec, seed=3, threads=1)
    env.reset()
    for _ in range(200):
        masks = env.action_masks()
        *_, info = env.step(masks.argmax(axis=1))
        assert not np.asarray(info["fault"]).any()
    from koudian.web.review import review_hand

    g = koudian.Game("shanxi", seed=5)
    koudian.play(g, ["greedy"] * 4)
    out = review_hand(g.log, 0, spec)
    assert out["summary"]["decisions"] > 0


def test_nn_opponents_and_hints_at_a_web_table(model_path: Path) -> None:
    from koudian.web.tables import Table, TableConfig, offered_opponents

    spec = f"nn:{model_path}"
    offered = offered_opponents(["greedy", spec], {})
    assert offered == {"greedy": "greedy", spec: spec}
    table = Table(TableConfig(offered, client_seeds=True))
    replies = table.handle(json.dumps({"type": "new", "opponents": [spec] * 3, "seed": 3}))
    assert all(r["type"] != "error" for r in replies), replies
    for _ in range(40):
        if table.game is None or table.game.done:
            break
        hint = table.handle(json.dumps({"type": "hint", "agent": spec}))[0]
        assert hint["type"] == "hint", hint
        best = hint["ranked"][0]
        assert set(best) >= {"action", "value"}
        replies = table.handle(json.dumps({"type": "act", **best["action"]}))
        assert all(r["type"] != "error" for r in replies), replies
    table.close()


@pytest.mark.parametrize("preset", preset_names())
def test_the_shipped_model_plays_every_preset(preset: str) -> None:
    """The model the wheel ships (rust/core/models/, embedded): one net for
    the three families over encoding version 3 with the per-kind head,
    F16 and small; "nn" plays it, every decision legal on thousands of
    positions of each preset, the same hands on one thread and two."""
    names = nn_default_models()
    assert names == ["nn.safetensors"], names
    shipped = Path(__file__).resolve().parents[1] / "rust" / "core" / "models" / names[0]
    assert shipped.stat().st_size < 2_000_000
    header = koudian.NnModel(str(shipped)).header
    assert header["encoding_version"] == 3 and header["kind_head"] is True
    assert header["families"] == ["shanxi", "linxian", "sichuan"]
    g0 = koudian.Game(preset, seed=0)
    assert g0.to_act is not None
    assert koudian.rank_actions(g0, g0.to_act, agent="nn")  # answers for this family
    runs = [koudian.simulate(preset, ["nn"] * 4, 40, seed=3, threads=t) for t in (1, 2)]
    assert not runs[0].faults and not runs[0].fault_hands.any()
    assert np.array_equal(runs[0].scores, runs[1].scores)
    assert play_legal("nn", preset, 3000, rank_every=500) == 3000
