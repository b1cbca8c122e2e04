"""The luck of the wall taken out of a 1-vs-3 arena against greedy
(docs/arena.md, "The luck of the wall"): the same hands, the same mean, a
narrower interval; refused where it cannot be done."""

from __future__ import annotations

import json
import math
from pathlib import Path

import koudian
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from koudian._core import ArenaLuck, arena_adjustable, arena_native
from koudian.arena import _COLUMNS, LUCK_WALLS, _luck_weight, _mean_ci
from koudian.cli import main
from wrapped import Wrapped

MC = ["mc:budget=fast", "greedy", "greedy", "greedy"]


@pytest.fixture(scope="module")
def runs() -> tuple[koudian.ArenaResult, koudian.ArenaResult]:
    """The same 60 deals with the luck taken out and kept."""
    adjusted = koudian.arena(MC, "shanxi", 60, seed=1, threads=2)
    kept = koudian.arena(MC, "shanxi", 60, seed=1, threads=2, luck="keep")
    return adjusted, kept


def test_the_same_hands_are_played_and_only_the_lone_rows_are_adjusted(
    runs: tuple[koudian.ArenaResult, koudian.ArenaResult],
) -> None:
    adjusted, kept = runs
    for c in ("deal", "table", "seat", "entry", "delta", "won", "ting", "fault"):
        np.testing.assert_array_equal(adjusted.records[c], kept.records[c], err_msg=c)
    r = adjusted.records
    lone = (r["entry"] == 0) & (r["table"] < 4)
    assert not np.isnan(r["adjusted"][lone]).any()
    assert np.isnan(r["adjusted"][~lone]).all()
    assert np.isnan(kept.records["adjusted"]).all()
    assert adjusted.walls == LUCK_WALLS and kept.walls == 0
    assert adjusted.adjusted("mc:budget=fast") and not kept.adjusted("mc:budget=fast")
    # The agents' own statistics are of the hands as played.
    assert adjusted.agent_stats() == kept.agent_stats()


def test_the_luck_taken_out_keeps_the_mean_and_narrows_the_interval(
    runs: tuple[koudian.ArenaResult, koudian.ArenaResult],
) -> None:
    adjusted, kept = runs
    (p,) = adjusted.pair_stats()
    (q,) = kept.pair_stats()
    assert (p.luck, q.luck) == ("adjusted", "kept")
    assert q.played is None and q.note() is None
    # As played: the kept run's pair, exactly.
    assert p.played == (q.diff, q.ci95)
    raw = adjusted._played("mc:budget=fast")
    adj = adjusted._played("mc:budget=fast", "adjusted")
    # The same mean: the correction's per-deal mean is within three
    # standard errors of 0.
    c = raw - adj
    assert abs(c.mean()) < 3 * c.std(ddof=1) / math.sqrt(len(c))
    assert p.weight is not None and 0.5 < p.weight <= 1.0
    # A search agent's few departures: a clearly narrower interval.
    assert (p.ci95[1] - p.ci95[0]) < 0.8 * (q.ci95[1] - q.ci95[0])
    note = p.note()
    assert note is not None and "as played" in note
    assert note in adjusted.summary()


def test_the_pair_is_the_weighted_correction_computed_by_hand() -> None:
    # Two deals, mc at seat r of rotation r; the reference table scores 0.
    rows: dict[str, list[float]] = {c: [] for c in _COLUMNS}
    raw = {0: [4.0, 0.0, 0.0, 0.0], 1: [0.0, 0.0, -8.0, 0.0], 2: [2.0, 2.0, 2.0, 2.0]}
    adj = {0: [1.0, 0.0, 0.0, 0.0], 1: [0.0, 0.0, -2.0, 0.0], 2: [2.0, 2.0, 2.0, 2.0]}
    for d in range(3):
        for t in range(5):
            for s in range(4):
                entry = 1 if t == 4 else (s - t) % 4
                lone = t < 4 and entry == 0
                rows["deal"].append(d)
                rows["table"].append(t)
                rows["seat"].append(s)
                rows["entry"].append(entry)
                rows["delta"].append(int(raw[d][t]) if lone else 0)
                rows["adjusted"].append(adj[d][t] if lone else math.nan)
    recs = {c: np.asarray(v) for c, v in rows.items()}
    for c in ("won", "self_draw", "ting", "dealt_in", "baohu_paid", "fault"):
        recs[c] = np.zeros(len(recs["deal"]), bool)
    res = koudian.ArenaResult("shanxi", ["a", "b", "b", "b"], "duplicate", 0, 3, recs, walls=8)
    # Per deal: raw 1, -2, 2; adjusted 0.25, -0.5, 2; correction 0.75, -1.5, 0.
    r = np.array([1.0, -2.0, 2.0])
    corr = np.array([0.75, -1.5, 0.0])
    w = float(np.cov(r, corr)[0, 1] / corr.var(ddof=1))
    assert res.luck_weight("a") == pytest.approx(min(1.0, w))
    (p,) = res.pair_stats()
    mean, lo, hi = _mean_ci(r - min(1.0, w) * corr)
    assert p.diff == pytest.approx(mean) and p.ci95 == pytest.approx((lo, hi))
    assert p.played is not None
    assert p.played[0] == pytest.approx(1 / 3)
    assert p.played[1] == pytest.approx(_mean_ci(r)[1:])
    data = res.to_json()
    assert data["walls"] == 8
    assert data["pairs"][0]["luck"] == "adjusted"
    assert data["pairs"][0]["played"]["diff"] == pytest.approx(1 / 3)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(-50, 50, allow_nan=False),
            st.floats(-50, 50, allow_nan=False),
        ),
        min_size=3,
        max_size=40,
    )
)
def test_the_fitted_weight_spreads_least(pairs: list[tuple[float, float]]) -> None:
    raw = np.array([p[0] for p in pairs])
    adj = np.array([p[1] for p in pairs])
    w = _luck_weight(raw, adj)
    assert 0.0 <= w <= 1.0
    best = float((raw - w * (raw - adj)).var(ddof=1))
    for v in np.linspace(0.0, 1.0, 21):
        assert best <= float((raw - v * (raw - adj)).var(ddof=1)) * (1 + 1e-9) + 1e-9


@pytest.mark.parametrize(
    ("agents", "fmt", "why"),
    [
        (["greedy", "random", "random", "random"], "duplicate", "not one agent against three"),
        (["random", "random", "greedy", "greedy"], "duplicate", "not one agent against three"),
        (MC, "single", "single format"),
    ],
)
def test_adjust_is_refused_where_the_luck_cannot_be_taken_out(
    agents: list[str], fmt: str, why: str
) -> None:
    with pytest.raises(koudian.KoudianError, match=why):
        koudian.arena(agents, "shanxi", 2, format=fmt, luck="adjust")
    # "auto" plays them with the luck kept.
    res = koudian.arena(agents, "shanxi", 2, format=fmt)
    assert res.walls == 0 and all(p.luck == "kept" for p in res.pair_stats())


@pytest.mark.parametrize("lone", ["random", "mc:budget=fast"])
def test_a_python_agent_has_the_luck_taken_out_as_a_native_one(lone: str) -> None:
    # The Python game loop watches the departures with the core's own
    # watcher and the same shuffles: the same values, to the bit.
    agents = [lone, "greedy", "greedy", "greedy"]
    native = koudian.arena(agents, "shanxi", 6, seed=3, threads=2)
    python = koudian.arena([Wrapped(lone), *agents[1:]], "shanxi", 6, seed=3, luck="adjust")
    assert python.walls == LUCK_WALLS and python.adjusted(lone)
    for c in _COLUMNS:
        np.testing.assert_array_equal(native.records[c], python.records[c], err_msg=c)
    assert native.to_json() == python.to_json()


def test_adjust_is_refused_without_built_in_greedy_and_for_bad_values() -> None:
    with pytest.raises(koudian.KoudianError, match="three built-in greedy"):
        koudian.arena(["mc:budget=fast", *[Wrapped("greedy")] * 3], "shanxi", 1, luck="adjust")
    with pytest.raises(koudian.KoudianError, match="luck"):
        koudian.arena(MC, "shanxi", 1, luck="sometimes")
    for walls in (0, 100_001):
        with pytest.raises(koudian.KoudianError, match="walls"):
            ArenaLuck(walls)


def test_the_native_arena_checks_walls() -> None:
    assert arena_adjustable(MC)
    assert not arena_adjustable(["greedy", "random", "random", "random"])
    for walls in (-1, 2**32, 100_001):
        with pytest.raises(koudian.KoudianError, match="walls"):
            arena_native("shanxi", MC, 1, walls=walls)
    with pytest.raises(koudian.KoudianError, match="three"):
        arena_native("shanxi", ["greedy", "random", "random", "random"], 1, walls=4)
    with pytest.raises(TypeError):
        arena_native("shanxi", MC, 1, walls="64")  # type: ignore[arg-type]


def test_the_recorded_run_carries_the_adjusted_column(tmp_path: Path) -> None:
    agents = ["random", "greedy", "greedy", "greedy"]
    plain = koudian.arena(agents, "shanxi", 6, seed=2, threads=1)
    recorded = koudian.arena(agents, "shanxi", 6, seed=2, threads=2, record=tmp_path, chunk=4)
    assert plain.adjusted("random")
    np.testing.assert_array_equal(plain.records["adjusted"], recorded.records["adjusted"])
    assert plain.to_json() == recorded.to_json()


def test_the_cli_takes_luck_and_reports_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "a.json"
    base = ["arena", "--agents", ",".join(MC), "--deals", "4", "--quiet", "--seed", "3"]
    assert main([*base, "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "luck of the wall taken out" in text and "as played" in text
    pair = json.loads(out.read_text())["pairs"][0]
    assert pair["luck"] == "adjusted" and pair["played"] is not None
    assert main([*base, "--luck", "keep", "--json", str(out)]) == 0
    assert "luck of the wall" not in capsys.readouterr().out
    pair = json.loads(out.read_text())["pairs"][0]
    assert pair["luck"] == "kept" and pair["played"] is None
    single = ["arena", "--agents", ",".join(MC), "--deals", "2", "--quiet", "--format", "single"]
    assert main([*single, "--luck", "adjust"]) == 2
    assert "single format" in capsys.readouterr().err


def test_the_ladder_takes_the_luck_out_against_greedy() -> None:
    lad = koudian.ladder(["greedy", "mc:budget=fast"], "shanxi", 8, seed=5)
    kept = koudian.ladder(["greedy", "mc:budget=fast"], "shanxi", 8, seed=5, luck="keep")
    run = lad.runs["mc:budget=fast"]
    assert run.adjusted("mc:budget=fast")
    np.testing.assert_allclose(lad.advantage("mc:budget=fast"), run._advantage("mc:budget=fast"))
    np.testing.assert_array_equal(
        kept.advantage("mc:budget=fast"), run._advantage("mc:budget=fast", luck=False)
    )
    assert "mc:budget=fast: luck of the wall taken out" in lad.summary()
    rung = next(x for x in lad.to_json()["agents"] if x["agent"] == "mc:budget=fast")
    assert rung["luck"] == "adjusted"
    assert next(r for r in kept.rungs() if r.agent == "mc:budget=fast").luck == "kept"
    assert "luck of the wall" not in kept.summary()


def test_the_stubs_example_of_arena_luck_runs() -> None:
    import ast
    import doctest

    stub = Path(koudian.__file__).with_name("_core.pyi")
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ArenaLuck")
    doc = ast.get_docstring(cls)
    assert doc is not None
    test = doctest.DocTestParser().get_doctest(doc, {"ArenaLuck": ArenaLuck}, "ArenaLuck", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.tries > 0 and runner.failures == 0
