"""The duplicate arena, positions and the mc agent from Python."""

from __future__ import annotations

import json
import math
from pathlib import Path

import koudian
import numpy as np
import pytest
from koudian import NativeAgent
from koudian.arena import ArenaResult, LadderResult
from koudian.arena.layout import table_entries
from koudian.cli import main
from wrapped import Wrapped


def test_rotation_covers_each_seat_once_per_deal() -> None:
    res = koudian.arena(["greedy", "random", "random", "random"], "sichuan", 6, threads=1)
    r = res.records
    for d in range(6):
        for entry in range(4):
            m = (r["deal"] == d) & (r["table"] < 4) & (r["entry"] == entry)
            assert sorted(r["seat"][m].tolist()) == [0, 1, 2, 3]
        # The reference table: the three-times agent at every seat.
        m = (r["deal"] == d) & (r["table"] == 4)
        assert set(r["entry"][m].tolist()) == {1}
    assert table_entries(["a", "b", "c", "d"], "duplicate") == [
        [0, 1, 2, 3],
        [3, 0, 1, 2],
        [2, 3, 0, 1],
        [1, 2, 3, 0],
    ]
    assert len(table_entries(["a", "b", "b", "b"], "duplicate")) == 5
    assert table_entries(["a", "b", "b", "b"], "single") == [[0, 1, 2, 3]]


def _records(rows: list[tuple[int, int, int, int, int]]) -> dict[str, np.ndarray]:
    """Records from (deal, table, seat, entry, delta) rows."""
    cols = list(zip(*rows, strict=True))
    n = len(rows)
    out: dict[str, np.ndarray] = {
        "deal": np.array(cols[0], np.uint64),
        "table": np.array(cols[1], np.uint8),
        "seat": np.array(cols[2], np.uint8),
        "entry": np.array(cols[3], np.uint8),
        "delta": np.array(cols[4], np.int64),
    }
    for c in ("won", "self_draw", "ting", "dealt_in", "baohu_paid", "fault"):
        out[c] = np.zeros(n, bool)
    return out


def test_intervals_match_a_hand_computation() -> None:
    # Two deals of a 1-vs-3 line-up "a,b,b,b", single rotation shown in
    # full: a sits at seat (0 + r) % 4 at table r; the reference table 4.
    rows = []
    a_deltas = {0: [4, 2, 0, 6], 1: [-2, 0, 2, 4]}  # deal -> per rotation
    ref = {0: [1, -1, 0, 0], 1: [0, 2, -2, 0]}  # deal -> per seat at table 4
    for d in (0, 1):
        for r in range(4):
            for s in range(4):
                entry = (s - r) % 4
                delta = a_deltas[d][r] if entry == 0 else 0
                rows.append((d, r, s, entry, delta))
        for s in range(4):
            rows.append((d, 4, s, 1, ref[d][s]))
    res = ArenaResult("shanxi", ["a", "b", "b", "b"], "duplicate", 0, 2, _records(rows))
    a = res.agent_stats()[0]
    # a's per-deal means: 3.0 and 1.0; mean 2, sd sqrt(2), half 1.96*sqrt(2)/sqrt(2).
    assert a.mean == pytest.approx(2.0)
    assert a.ci95[1] - a.mean == pytest.approx(1.959963984540054)
    assert a.hands == 8
    # Advantage: a at seat s (rotation r = s) minus the reference at s.
    # Deal 0: (4-1, 2+1, 0-0, 6-0)/4 = 3.0; deal 1: (-2-0, 0-2, 2+2, 4-0)/4 = 1.0.
    (p,) = res.pair_stats()
    assert (p.a, p.b) == ("a", "b")
    assert p.diff == pytest.approx(2.0)
    half = 1.959963984540054 * math.sqrt(2.0) / math.sqrt(2)
    assert p.ci95 == pytest.approx((2.0 - half, 2.0 + half))
    assert p.verdict.startswith("a beats b by +2.00")


def test_python_agents_play_the_native_records() -> None:
    specs = ["greedy", "random", "random", "random"]
    native = koudian.arena(specs, "shanxi", 5, threads=2)
    python = koudian.arena([Wrapped(s) for s in specs], "shanxi", 5)
    for c in ("deal", "table", "seat", "entry", "delta", "won", "ting"):
        assert native.records[c].tolist() == python.records[c].tolist(), c


def test_deterministic_with_any_thread_count() -> None:
    specs = ["mc:budget=fast", "greedy", "greedy", "greedy"]
    a = koudian.arena(specs, "shanxi", 3, threads=1, seed=4)
    b = koudian.arena(specs, "shanxi", 3, threads=2, seed=4)
    assert a.to_json() == b.to_json()


def test_cli_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "a.json"
    code = main(
        [
            "arena",
            "--agents",
            "greedy,random,random,random",
            "--deals",
            "20",
            "--quiet",
            "--json",
            str(out),
            "--threads",
            "1",
        ]
    )
    assert code == 0
    data = json.loads(out.read_text())
    assert data["deals"] == 20 and data["hands"] == 100
    assert [a["agent"] for a in data["agents"]] == ["greedy", "random"]
    assert data["pairs"][0]["a"] == "greedy" and len(data["pairs"][0]["ci95"]) == 2
    assert "greedy beats random" in capsys.readouterr().out
    assert main(["arena", "--agents", "greedy,random", "--quiet"]) == 2
    assert main(["arena", "--agents", "mc:speed=1,random,random,random", "--quiet"]) == 2


def test_from_observation_and_sample_hidden() -> None:
    g = koudian.Game("shanxi", seed=8)
    moves = 0
    while g.to_act is not None and moves < 30:
        seat = g.to_act
        obs = g.observe(seat)
        same = koudian.Game.from_observation(obs, g.hidden(seat), rules="shanxi")
        assert same.legal_actions(seat) == g.legal_actions(seat)
        world = koudian.Game.from_observation(
            obs, koudian.sample_hidden(obs, "shanxi", seed=moves), rules="shanxi"
        )
        assert world.observe(seat).to_json() == obs.to_json()
        g.step(NativeAgent("greedy", 0).act(obs))
        moves += 1
    obs = g.observe((g.to_act or 0) + 1)
    with pytest.raises(koudian.InvalidPositionError):
        koudian.Game.from_observation(obs, g.hidden(0), rules="shanxi")


def test_rank_actions_mc_first_is_what_mc_plays() -> None:
    g = koudian.Game("shanxi", seed=5)
    seat = g.to_act
    assert seat is not None
    ranked = koudian.rank_actions(g, seat, agent="mc:budget=fast", seed=9)
    legal = g.legal_actions(seat)
    assert sorted(r.action.index for r in ranked) == sorted(a.index for a in legal)
    played = NativeAgent("mc:budget=fast", 9).act(g.observe(seat))
    assert ranked[0].action == played
    assert {"mean", "ci_low", "ci_high", "rollouts"} <= set(ranked[0].numbers)
    assert koudian.rank_actions(g, (seat + 1) % 4, agent="mc") == []
    with pytest.raises(koudian.KoudianError):
        koudian.rank_actions(g, seat, agent="clever")


def test_mc_plays_in_simulate_and_match() -> None:
    specs = ["mc:budget=fast", "greedy", "greedy", "greedy"]
    a = koudian.simulate("shanxi", specs, 2, seed=3)
    b = koudian.simulate("shanxi", specs, 2, seed=3, threads=1)
    assert a.deltas.tolist() == b.deltas.tolist()
    with koudian.Match("shanxi", specs, hands=1, seed=2) as m:
        totals = m.play()
    assert sum(totals) == 0
    with pytest.raises(koudian.KoudianError):
        NativeAgent("mc:top=0", 0)


def _run(
    lone: str, ref: str, lone_deltas: list[list[int]], ref_deltas: list[list[int]]
) -> ArenaResult:
    """A 1-vs-3 arena of ``lone`` against ``ref`` from ``lone``'s delta at
    each rotation (it sits at seat r at rotation r) and the reference
    table's delta at each seat, deal by deal."""
    rows = []
    for d, (mine, theirs) in enumerate(zip(lone_deltas, ref_deltas, strict=True)):
        for r in range(4):
            for s in range(4):
                entry = (s - r) % 4
                rows.append((d, r, s, entry, mine[r] if entry == 0 else 0))
        for s in range(4):
            rows.append((d, 4, s, 1, theirs[s]))
    n = len(lone_deltas)
    return ArenaResult("shanxi", [lone, ref, ref, ref], "duplicate", 0, n, _records(rows))


def test_ladder_intervals_match_a_hand_computation() -> None:
    ref = [[1, -1, 0, 0], [0, 2, -2, 0], [0, 0, 0, 0]]
    # a's advantage per deal: (3+3+0+6)/4 = 3, (-2-2+4+4)/4 = 1, 1.
    a = _run("a", "b", [[4, 2, 0, 6], [-2, 0, 2, 4], [1, 1, 1, 1]], ref)
    # c's: the reference's delta plus 2, 1 and 0 in every seat.
    c = _run("c", "b", [[3, 1, 2, 2], [1, 3, -1, 1], [0, 0, 0, 0]], ref)
    lad = LadderResult("shanxi", "b", ["c", "b", "a"], 0, 3, {"a": a, "c": c})
    assert lad.advantage("a").tolist() == [3.0, 1.0, 1.0]
    assert lad.advantage("c").tolist() == [2.0, 1.0, 0.0]
    assert lad.advantage("b").tolist() == [0.0, 0.0, 0.0]
    z = 1.959963984540054
    rungs = lad.rungs()
    assert [r.agent for r in rungs] == ["a", "c", "b"]
    # a: mean 5/3, sd sqrt(4/3) over 3 deals.
    assert rungs[0].advantage == pytest.approx(5 / 3)
    half_a = z * math.sqrt(4 / 3) / math.sqrt(3)
    assert rungs[0].ci95 == pytest.approx((5 / 3 - half_a, 5 / 3 + half_a))
    # c: mean 1, sd 1.
    half_c = z / math.sqrt(3)
    assert rungs[1].ci95 == pytest.approx((1 - half_c, 1 + half_c))
    assert rungs[2].ci95 == (0.0, 0.0) and rungs[2].stats is None
    assert rungs[0].stats is not None and rungs[0].stats.hands == 12
    # The gap a - c is paired over the deals: per deal 1, 0, 1, mean 2/3,
    # sd sqrt(1/3): far narrower than the two intervals combined.
    g_ac, g_cb = lad.gaps()
    assert (g_ac.a, g_ac.b) == ("a", "c")
    assert g_ac.diff == pytest.approx(2 / 3)
    half = z * math.sqrt(1 / 3) / math.sqrt(3)
    assert g_ac.ci95 == pytest.approx((2 / 3 - half, 2 / 3 + half))
    assert half < math.hypot(half_a, half_c) / 2
    assert (g_cb.a, g_cb.b, g_cb.diff) == ("c", "b", pytest.approx(1.0))
    assert g_cb.ci95 == pytest.approx((1 - half_c, 1 + half_c))
    data = lad.to_json()
    assert data["format"] == "ladder" and data["reference"] == "b" and data["hands"] == 30
    assert [x["agent"] for x in data["agents"]] == ["a", "c", "b"]
    assert data["agents"][2]["reference"] is True and "mean" not in data["agents"][2]
    assert data["agents"][0]["hands"] == 12
    assert [(g["a"], g["b"]) for g in data["gaps"]] == [("a", "c"), ("c", "b")]
    assert "a beats c by +0.67" in lad.summary()


def test_ladder_common_random_numbers_give_exact_zeros() -> None:
    # mc:top=1 plays greedy's choice at every decision, and a Python agent
    # that plays greedy under another name is greedy too: each plays the
    # reference table's hands, so every deal's advantage is exactly 0.
    copy = Wrapped("greedy")
    copy.name = "greedy-copy"
    lad = koudian.ladder(["random", "greedy", "mc:top=1", copy], "shanxi", 6, reference="greedy")
    assert lad.reference == "greedy"
    assert lad.advantage("mc:top=1").tolist() == [0.0] * 6
    assert lad.advantage("greedy-copy").tolist() == [0.0] * 6
    assert lad.advantage("random").min() < 0
    assert [r.agent for r in lad.rungs()][-1] == "random"
    # The reference table is the same in every run (the pairing).
    ref = [r.records["delta"][r.records["table"] == 4].tolist() for r in lad.runs.values()]
    assert all(x == ref[0] for x in ref)


def test_ladder_is_deterministic_and_checks_its_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = ["greedy", "random", "mc:budget=fast"]
    one = koudian.ladder(specs, "linxian", 3, seed=2, threads=1)
    two = koudian.ladder(specs, "linxian", 3, seed=2, threads=2)
    assert one.to_json() == two.to_json()
    assert one.reference == "greedy"
    out = tmp_path / "l.json"
    args = ["arena", "--ladder", "random,greedy", "--reference", "greedy", "--deals", "10"]
    assert main([*args, "--quiet", "--threads", "1", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [a["agent"] for a in data["agents"]] == ["greedy", "random"]
    assert data["deals"] == 10 and data["hands"] == 50
    assert data["gaps"][0]["verdict"].startswith("greedy beats random")
    assert "adjacent gaps" in capsys.readouterr().out
    assert main([*args, "--quiet", "--agents", "greedy,random,random,random"]) == 2
    assert main([*args, "--quiet", "--format", "single"]) == 2
    assert main(["arena", "--quiet"]) == 2
    assert "give --agents" in capsys.readouterr().err
    with pytest.raises(koudian.KoudianError):
        koudian.ladder(["greedy", "greedy"], "shanxi", 2)
    with pytest.raises(koudian.KoudianError):
        koudian.ladder(["greedy", "clever"], "shanxi", 2)


def test_ladder_takes_an_external_bot() -> None:
    import sys

    bot = f"cmd:{sys.executable} {Path(__file__).parent / 'bots' / 'first_legal_bot.py'}"
    lad = koudian.ladder(["greedy", bot], "shanxi", 2, seed=3)
    assert lad.reference == "greedy" and set(lad.runs) == {bot}
    rung = next(r for r in lad.rungs() if r.agent == bot)
    assert rung.stats is not None and rung.stats.hands == 8
    assert rung.advantage == pytest.approx(float(lad.advantage(bot).mean()))
    (gap,) = lad.gaps()
    assert gap.diff == pytest.approx(abs(rung.advantage))
    assert lad.runs[bot].records["fault"].sum() == 0


def test_a_verdict_shows_the_digits_a_small_edge_needs() -> None:
    from koudian.arena import PairStats

    small = PairStats("mc", "greedy", 0.0131, (0.0084, 0.0179))
    assert small.verdict == "mc beats greedy by +0.013 ± 0.005 per hand"
    usual = PairStats("mc", "greedy", 1.3, (0.9, 1.7))
    assert usual.verdict == "mc beats greedy by +1.30 ± 0.40 per hand"
    tie = PairStats("a", "b", 0.0, (0.0, 0.0))
    assert tie.verdict == "a and b are not told apart: +0.00 ± 0.00 per hand"
