"""Matches: running totals are zero-sum and equal the hands' deltas;
Linxian 四圈; determinism."""

from __future__ import annotations

import koudian
import pytest


@pytest.mark.parametrize("preset", ["shanxi", "shanxi-feng-haozi", "linxian", "sichuan"])
def test_match_totals_are_zero_sum_and_sum_the_hands(preset: str) -> None:
    m = koudian.Match(preset, ["random"] * 4, hands=12, seed=4)
    totals = m.play()
    assert m.done and m.hands_played == 12 and len(m.results) == 12
    assert sum(totals) == 0
    assert list(totals) == [sum(r.deltas[s] for r in m.results) for s in range(4)]
    for log, r in zip(m.logs, m.results, strict=False):
        assert koudian.replay(log).result.deltas == r.deltas  # type: ignore[union-attr]


def test_match_scores_are_shown_in_observations() -> None:
    m = koudian.Match("linxian", ["random"] * 4, hands=6, seed=2)
    seen = []
    for _ in m:
        seen.append(m.totals)
    assert seen[-1] == m.totals


def test_linxian_four_rounds_match_moves_the_deal_sixteen_seats() -> None:
    m = koudian.Match("linxian", ["random"] * 4, rounds=4, seed=1)
    m.play()
    assert m.done and m.hands_played >= 16
    assert sum(m.totals) == 0
    moves = 0
    prev = m.results[0].dealer
    for r in m.results[1:]:
        moves += (r.dealer - prev) % 4
        prev = r.dealer
    assert moves < 16  # the last hand's move ends the match


def test_match_is_deterministic() -> None:
    a = koudian.Match("shanxi", ["random"] * 4, hands=5, seed=9)
    b = koudian.Match("shanxi", ["random"] * 4, hands=5, seed=9)
    a.play()
    b.play()
    assert a.logs == b.logs and a.totals == b.totals


def test_match_needs_four_agents() -> None:
    with pytest.raises(koudian.KoudianError):
        koudian.Match("shanxi", ["random"] * 3)


def test_match_with_an_external_bot_closes_it() -> None:
    import sys
    from pathlib import Path

    bot = f"cmd:{sys.executable} {Path(__file__).parent / 'bots' / 'first_legal_bot.py'}"
    with koudian.Match("sichuan", [bot, "random", "random", "random"], hands=2, seed=1) as m:
        m.play()
        assert m.faults == [] and sum(m.totals) == 0
    assert m.agents[0].pid is None  # type: ignore[attr-defined]
