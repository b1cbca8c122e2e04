"""docs/rules.md §3-§5 scoring through Python: hand values, the required
settlement vectors, option effects, zero-sum settlements and typed errors
for inconsistent outcomes."""

from __future__ import annotations

import koudian
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from koudian import InconsistentOutcomeError, InvalidHandError, Kong, Outcome, Ruleset, Win

WIN8 = "123m456m789m234p88s"  # 一条龙 in 万, won on 8s (8 points)


def test_linxian_seed_worked_example() -> None:
    """Seed 002: A exposed kong of 10, C concealed kong of 6s, B (ting)
    discards an 8 that D wins, base 10: A +100, B -300, C +180, D +20."""
    rules = Ruleset.preset("linxian", base_stake=10)
    outcome = Outcome(
        0,
        "discard",
        by=1,
        winners=[Win(3, "123m456m88m234s789s", "8m")],
        ting=(False, True, False, True),
        kongs=[
            Kong(0, "1z", "exposed", giver=1),
            Kong(2, "6s", koudian.MeldKind.CONCEALED_KONG),
        ],
    )
    s = koudian.settle(outcome, rules)
    assert s.deltas == (100, -300, 180, 20)
    assert sum(p.amount for p in s.payments if p.kind == "win") == 240
    assert "seat   delta" in str(s) and "点杠" in str(s)


@pytest.mark.parametrize(
    ("hand", "melds", "win_tile", "value"),
    [
        ("123m345m999p66p", ["2222p"], "6p", 2),  # 平胡 + 1 根
        ("111m444m999p66p", ["2222p"], "6p", 3),  # 对对胡 + 1 根
        ("123s567s234s77s", ["8888s"], "7s", 4),  # 清一色 + 1 根
        ("123s567s678s888s77s", [], "7s", 5),  # 清一色 + 2 根 (7s and 8s)
    ],
)
def test_sichuan_seed_examples_score_exactly(
    hand: str, melds: list[str], win_tile: str, value: int
) -> None:
    v = koudian.hand_value(hand, win_tile, self_draw=False, melds=melds, rules="sichuan")
    assert v.total == value and int(v) == value
    assert any(p.code == "root" and p.tile is not None for p in v.patterns)


def test_sichuan_needs_a_missing_suit() -> None:
    with pytest.raises(InvalidHandError, match="缺一门"):
        koudian.hand_value("222m555m888m222s55p", "5p", self_draw=False, rules="sichuan")


def test_shanxi_value_is_points_doubled_on_self_draw_and_special_hands() -> None:
    assert koudian.hand_value(WIN8, "8s", self_draw=False).total == 8
    v = koudian.hand_value(WIN8, "8s", self_draw=True)
    assert (v.total, v.base, v.multiplier) == (16, 8, 2)
    assert [p.code for p in v.patterns] == ["self_draw"]
    special = Ruleset.preset("shanxi", special_hands=True)
    v = koudian.hand_value(WIN8, "8s", self_draw=True, rules=special)
    assert v.total == 32 and "一条龙" in str(v)
    # Special hands are ignored in every wildcard mode.
    wild = Ruleset.preset("shanxi-haozi", special_hands=True)
    assert koudian.hand_value(WIN8, "8s", self_draw=True, wildcards="7z", rules=wild).total == 16


def test_shanxi_point_rule_refuses_small_wins_on_a_discard() -> None:
    with pytest.raises(InvalidHandError):
        koudian.hand_value("123m456m789m234p22s", "2s", self_draw=True)
    with pytest.raises(InvalidHandError):
        koudian.hand_value("123m456m789m234p55s", "5s", self_draw=False)
    assert koudian.hand_value("123m456m789m234p55s", "5s", self_draw=True).total == 10


def _self_draw(**kw: object) -> Outcome:
    return Outcome(0, "self_draw", winners=[Win(2, WIN8, "8s")], ting=(0, 0, 1, 0), **kw)  # type: ignore[arg-type]


def test_shanxi_self_draw_everyone_pays() -> None:
    assert koudian.settle(_self_draw()).deltas == (-16, -16, 48, -16)


def test_shanxi_baohu_non_ting_discarder_pays_all_three_shares() -> None:
    o = Outcome(0, "discard", by=1, winners=[Win(2, WIN8, "8s")], ting=(0, 0, 1, 0))
    s = koudian.settle(o)
    assert s.deltas == (0, -24, 24, 0)
    assert sorted(p.share_of for p in s.payments if p.kind == "win_covered") == [0, 3]


def test_shanxi_ting_discarder_shares_equally() -> None:
    o = Outcome(0, "discard", by=1, winners=[Win(2, WIN8, "8s")], ting=(0, 1, 1, 0))
    assert koudian.settle(o).deltas == (-8, -8, 24, -8)


def test_kong_giver_pays_option_changes_the_settlement() -> None:
    kongs = [Kong(1, "5z", "exposed", giver=3)]
    plain = koudian.settle(_self_draw(kongs=kongs))
    covered = koudian.settle(
        _self_draw(kongs=kongs), Ruleset.preset("shanxi", kong_giver_pays=True)
    )
    assert plain.deltas == (-26, 14, 38, -26)
    assert covered.deltas == (-16, 14, 48, -46)


def test_dealer_bonus_option_changes_the_settlement() -> None:
    bonus = Ruleset.preset("shanxi", dealer_bonus=True, dealer_rotation="round")
    s = koudian.settle(_self_draw(), bonus)
    assert s.deltas[0] == -16 - 5 and sum(s.deltas) == 0
    double = bonus.replace(dealer_self_draw_double=True)
    assert koudian.settle(_self_draw(), double).deltas[0] == -16 - 10


def test_kongs_need_win_settles_nothing_in_a_drawn_hand() -> None:
    o = Outcome(0, "drawn", kongs=[Kong(1, "5z", "concealed")])
    assert koudian.settle(o).deltas == (0, 0, 0, 0)
    assert koudian.settle(o, Ruleset.preset("shanxi", kongs_need_win=False)).deltas == (
        -20,
        60,
        -20,
        -20,
    )


@pytest.mark.parametrize(
    ("make", "needle"),
    [
        (
            lambda: Outcome(0, "discard", by=2, winners=[Win(2, WIN8, "8s")], ting=(0, 0, 1, 0)),
            "own discard",
        ),
        (
            lambda: Outcome(
                0, "self_draw", winners=[Win(2, "123m456m789m234p89s", "8s")], ting=(0, 0, 1, 0)
            ),
            "holds no win",
        ),
        (lambda: Outcome(0, "self_draw", winners=[Win(2, WIN8, "8s")]), "declared ting"),
        (lambda: Outcome(0, "discard", winners=[Win(2, WIN8, "8s")]), "needs by="),
        (lambda: Outcome(0, "drawn", by=1), "takes no by="),
        (lambda: Outcome(4, "drawn"), "seats are 0-3"),
        (lambda: Outcome(0, "won"), "end must be"),
        (lambda: Kong(0, "5z", "pong"), "kong kind"),
        (lambda: Outcome(0, "drawn", ting=(True,)), "4 flags"),
    ],
)
def test_inconsistent_outcomes_raise_a_typed_error(make: object, needle: str) -> None:
    with pytest.raises(InconsistentOutcomeError, match=needle):
        o = make()  # type: ignore[operator]
        koudian.settle(o)


@settings(max_examples=150, deadline=None)
@given(
    dealer=st.integers(0, 3),
    winner=st.integers(0, 3),
    how=st.sampled_from(["self_draw", "discard"]),
    by=st.integers(0, 3),
    ting=st.lists(st.booleans(), min_size=4, max_size=4),
    kong_owner=st.integers(0, 3),
    kong_kind=st.sampled_from(["exposed", "added", "concealed"]),
    giver=st.integers(0, 3),
    options=st.fixed_dictionaries(
        {
            "kong_giver_pays": st.booleans(),
            "discarder_pays_kongs": st.booleans(),
            "dealer_bonus": st.booleans(),
            "base_stake": st.integers(1, 20),
        }
    ),
)
def test_settlements_are_zero_sum(
    dealer: int,
    winner: int,
    how: str,
    by: int,
    ting: list[bool],
    kong_owner: int,
    kong_kind: str,
    giver: int,
    options: dict[str, object],
) -> None:
    if options["dealer_bonus"]:
        options = {**options, "dealer_rotation": "round"}
    rules = Ruleset.preset("shanxi", **options)  # type: ignore[arg-type]
    ting[winner] = True
    kong = Kong(kong_owner, "5z", kong_kind, giver=giver if kong_kind == "exposed" else None)
    try:
        o = Outcome(
            dealer,
            how,
            by=by if how == "discard" else None,
            winners=[Win(winner, WIN8, "8s")],
            ting=ting,
            kongs=[kong],
        )
        s = koudian.settle(o, rules)
    except InconsistentOutcomeError:
        return
    assert sum(s.deltas) == 0
    assert all(p.amount > 0 for p in s.payments)
    per_seat = [0, 0, 0, 0]
    for p in s.payments:
        per_seat[p.payer] -= p.amount
        per_seat[p.payee] += p.amount
    assert tuple(per_seat) == s.deltas


def test_sichuan_chajiao_value_min_and_max() -> None:
    # 23s waits on 1s (111s + 123s: a 根, worth 2) or 4s (平胡, worth 1).
    hand = "23s456s789s111s55p"
    assert koudian.chajiao_value(hand) == 1
    assert koudian.chajiao_value(hand, rules=Ruleset.preset("sichuan", chajiao="max")) == 2
    # Holding all three suits, no wait can win (缺一门): not ready.
    assert koudian.chajiao_value("23s456s789s111m55p") is None
