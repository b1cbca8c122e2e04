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
from koudian.arena import LUCK_WALLS, MIN_LUCK_DEALS
from koudian.arena.luck import LUCK_FOLDS, cross_fitted, fit_weight
from koudian.arena.results import COLUMNS
from koudian.arena.stats import mean_ci
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


def synthetic_run(raw: list[float], adj: list[float], walls: int = 8) -> koudian.ArenaResult:
    """A 1-vs-3 run whose lone agent "a" has the per-deal advantage
    ``raw[d]`` (at seat 0 of rotation 0; the reference table scores 0)
    and the adjusted one ``adj[d]``."""
    rows: dict[str, list[float]] = {c: [] for c in COLUMNS}
    for d in range(len(raw)):
        for t in range(5):
            for s in range(4):
                entry = 1 if t == 4 else (s - t) % 4
                lone = t < 4 and entry == 0
                first = t == 0
                rows["deal"].append(d)
                rows["table"].append(t)
                rows["seat"].append(s)
                rows["entry"].append(entry)
                rows["delta"].append(4 * raw[d] if lone and first else 0)
                rows["adjusted"].append((4 * adj[d] if first else 0.0) if lone else math.nan)
    recs = {c: np.asarray(v) for c, v in rows.items()}
    recs["delta"] = recs["delta"].astype(np.int64)
    for c in ("won", "self_draw", "ting", "dealt_in", "baohu_paid", "fault"):
        recs[c] = np.zeros(len(recs["deal"]), bool)
    n = len(raw)
    return koudian.ArenaResult("shanxi", ["a", "b", "b", "b"], "duplicate", 0, n, recs, walls=walls)


def test_the_pair_is_the_cross_fitted_correction_computed_by_hand() -> None:
    rng = np.random.default_rng(5)
    n = MIN_LUCK_DEALS + 7
    raw = rng.integers(-20, 20, n).astype(float)
    adj = raw - rng.integers(-8, 8, n) + 0.25
    res = synthetic_run(list(raw), list(adj))
    np.testing.assert_array_equal(res._played("a"), raw)
    # Deal d is in fold d % LUCK_FOLDS; its correction's weight is fitted
    # on the other folds only.
    c = raw - adj
    values = raw.copy()
    weights = []
    for k in range(LUCK_FOLDS):
        out = np.arange(n) % LUCK_FOLDS == k
        rest_raw, rest_c = raw[~out], c[~out]
        w = float(np.cov(rest_raw, rest_c)[0, 1] / rest_c.var(ddof=1))
        w = min(1.0, max(0.0, w))
        values[out] = raw[out] - w * c[out]
        weights.append(w)
    assert res.luck_weight("a") == pytest.approx(float(np.mean(weights)))
    (p,) = res.pair_stats()
    mean, lo, hi = mean_ci(values)
    assert p.luck == "adjusted"
    assert p.diff == pytest.approx(mean) and p.ci95 == pytest.approx((lo, hi))
    assert p.played is not None
    assert p.played[0] == pytest.approx(raw.mean())
    assert p.played[1] == pytest.approx(mean_ci(raw)[1:])
    data = res.to_json()
    assert data["walls"] == 8
    assert data["pairs"][0]["luck"] == "adjusted"
    assert data["pairs"][0]["played"]["diff"] == pytest.approx(raw.mean())


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-60, 60), st.integers(-60, 60)),
        min_size=MIN_LUCK_DEALS,
        max_size=60,
    ),
    st.integers(-200, 200),
)
def test_a_deal_never_fits_its_own_weight(pairs: list[tuple[int, int]], change: int) -> None:
    # Whatever deal 0 holds, the weight its correction gets is the same:
    # it is fitted on the other folds (in-sample, two deals fitted their
    # own weight exactly and the interval collapsed to ± 0.00).
    raw = np.array([float(p[0]) for p in pairs])
    adj = np.array([float(p[1]) for p in pairs])
    fitted = cross_fitted(raw, adj)
    assert fitted is not None
    values, w = fitted
    assert 0.0 <= w <= 1.0
    raw2, adj2 = raw.copy(), adj.copy()
    raw2[0] += change
    adj2[0] -= change
    again = cross_fitted(raw2, adj2)
    assert again is not None
    c, c2 = raw[0] - adj[0], raw2[0] - adj2[0]
    own = (raw[0] - values[0]) / c if c else None
    own2 = (raw2[0] - again[0][0]) / c2 if c2 else None
    if own is not None and own2 is not None:
        assert own == pytest.approx(own2, abs=1e-9)
    # Every value is its own deal's correction at a weight in [0, 1]:
    # between the advantage as played and the adjusted one.
    for v, r, a in zip(again[0], raw2, adj2, strict=True):
        lo, hi = sorted((r, a))
        assert lo - 1e-9 <= v <= hi + 1e-9


def test_fewer_deals_than_the_minimum_keep_the_interval_as_played(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The run: with the weight fitted on the same two deals the
    # interval collapsed ("greedy beats random by +15.70 ± 0.00"; as
    # played ± 3.43).
    agents = ["random", "greedy", "greedy", "greedy"]
    base = ["arena", "--agents", ",".join(agents), "--deals", "2", "--quiet", "--seed", "7"]
    assert main([*base, "--luck", "adjust"]) == 0
    text = capsys.readouterr().out
    assert "± 0.00" not in text
    assert f"fewer than {MIN_LUCK_DEALS}" in text
    assert "by +17.50 ± 3.43 per hand" in text
    res = koudian.arena(agents, "shanxi", 2, seed=7, luck="adjust")
    assert res.walls == LUCK_WALLS and res.adjusted("random")
    (p,) = res.pair_stats()
    mean, lo, hi = mean_ci(res._played("random"))
    assert (p.diff, p.ci95) == (mean, (lo, hi)) and hi - lo > 1.0
    assert p.luck == "kept" and p.weight is None and p.played is None
    note = p.note()
    assert note is not None and "2 deals" in note
    assert res.luck_weight("random") == 0.0
    assert res.to_json()["pairs"][0]["luck_reason"] == note
    # Synthetic: one deal short of the minimum is as played, the minimum
    # is cross-fitted.
    rng = np.random.default_rng(1)
    raw = list(rng.normal(0, 10, MIN_LUCK_DEALS))
    adj = [r / 2 for r in raw]
    assert synthetic_run(raw[:-1], adj[:-1]).pair_stats()[0].luck == "kept"
    assert synthetic_run(raw, adj).pair_stats()[0].luck == "adjusted"


def test_the_interval_covers_the_large_run_mean_at_the_smallest_size() -> None:
    # 200 runs of MIN_LUCK_DEALS deals: their 95% intervals (luck taken
    # out, cross-fitted) cover the mean of all 4,000 deals about 95% of
    # the time. A block of deals is a run of its own: deal d is dealt
    # from mix_seed(seed, d) and every agent's seeds come from the deal,
    # so the blocks share nothing. Binomial: 200 draws at 0.95 have a
    # standard deviation of 0.015; [0.88, 0.99] is -4.5 to +2.6 of them.
    # mc with 2 rollouts departs from greedy in a few decisions a hand,
    # as a search agent does, for a fraction of mc's time.
    lone = "mc:rollouts=2"
    runs, n = 200, MIN_LUCK_DEALS
    big = koudian.arena(
        [lone, "greedy", "greedy", "greedy"], "shanxi", runs * n, seed=7, threads=2, luck="adjust"
    )
    (whole,) = big.pair_stats()
    assert whole.luck == "adjusted"
    truth = whole.diff
    covered, widths, played_widths = 0, [], []
    deal = big.records["deal"].astype(np.int64)
    for i in range(runs):
        rows = (deal >= i * n) & (deal < (i + 1) * n)
        recs = {c: v[rows] for c, v in big.records.items()}
        res = koudian.ArenaResult("shanxi", big.agents, "duplicate", 7, n, recs, walls=big.walls)
        (p,) = res.pair_stats()
        assert p.luck == "adjusted" and p.played is not None
        covered += p.ci95[0] <= truth <= p.ci95[1]
        widths.append(p.ci95[1] - p.ci95[0])
        played_widths.append(p.played[1][1] - p.played[1][0])
    assert 0.88 <= covered / runs <= 0.99, covered
    # And the correction still pays at this size.
    assert np.mean(widths) < 0.75 * np.mean(played_widths)


def test_auto_takes_the_luck_out_only_where_it_pays() -> None:
    # The correction plays 128 greedy rollouts a departure: built-in
    # random departs at almost every decision for microseconds of its own,
    # so auto keeps its luck; mc (and any bot the arena cannot price)
    # gets the correction; "adjust" insists.
    rnd = ["random", "greedy", "greedy", "greedy"]
    kept = koudian.arena(rnd, "shanxi", 2, seed=1)
    assert kept.walls == 0 and not kept.adjusted("random")
    assert kept.pair_stats()[0].luck == "kept"
    assert koudian.arena(rnd, "shanxi", 2, seed=1, luck="adjust").walls == LUCK_WALLS
    assert koudian.arena(MC, "shanxi", 2, seed=1).walls == LUCK_WALLS
    bot = koudian.arena([Wrapped("random"), *rnd[1:]], "shanxi", 2, seed=1)
    assert bot.walls == LUCK_WALLS
    lad = koudian.ladder(["greedy", "random"], "shanxi", 2, seed=1)
    assert lad.runs["random"].walls == 0


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
    w = fit_weight(raw, adj)
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
    native = koudian.arena(agents, "shanxi", 6, seed=3, threads=2, luck="adjust")
    python = koudian.arena([Wrapped(lone), *agents[1:]], "shanxi", 6, seed=3, luck="adjust")
    assert python.walls == LUCK_WALLS and python.adjusted(lone)
    for c in COLUMNS:
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
    plain = koudian.arena(agents, "shanxi", 6, seed=2, threads=1, luck="adjust")
    recorded = koudian.arena(
        agents, "shanxi", 6, seed=2, threads=2, record=tmp_path, chunk=4, luck="adjust"
    )
    assert plain.adjusted("random")
    np.testing.assert_array_equal(plain.records["adjusted"], recorded.records["adjusted"])
    assert plain.to_json() == recorded.to_json()


def test_the_cli_takes_luck_and_reports_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "a.json"
    deals = str(MIN_LUCK_DEALS)
    base = ["arena", "--agents", ",".join(MC), "--deals", deals, "--quiet", "--seed", "3"]
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
    n = MIN_LUCK_DEALS
    lad = koudian.ladder(["greedy", "mc:budget=fast"], "shanxi", n, seed=5)
    kept = koudian.ladder(["greedy", "mc:budget=fast"], "shanxi", n, seed=5, luck="keep")
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
