"""docs/rules.md §2 "Waits and ready" and §3 报听 through Python: `waits`,
`wait_points`, `waits_batch` against the brute-force reference, the
4-copy rule, wild waits and their points, discard options and ting."""

from __future__ import annotations

import itertools
import random

import koudian
import numpy as np
import pytest
import reference
from hands import random_hand
from koudian import InvalidHandError, Ruleset, Tile

SHAPES = list(itertools.product([True, False], repeat=3))
N = 150


@pytest.mark.parametrize("wilds", [(), (31,), (22, 33)], ids=lambda w: f"{len(w)}wild")
@pytest.mark.parametrize(("seven_pairs", "thirteen_orphans", "wind_sets"), SHAPES)
def test_waits_match_brute_force_for_every_shape_option_and_wildcards(
    seven_pairs: bool, thirteen_orphans: bool, wind_sets: bool, wilds: tuple[int, ...]
) -> None:
    shape = {
        "seven_pairs": seven_pairs,
        "thirteen_orphans": thirteen_orphans,
        "wind_sets": wind_sets,
    }
    rules = Ruleset.preset("shanxi", **shape)
    rng = random.Random(hash((seven_pairs, thirteen_orphans, wind_sets, wilds)) & 0xFFFF)
    counts = np.zeros((N, 34), dtype=np.uint8)
    ready = 0
    for i in range(N):
        c = random_hand(rng, size=13, wilds=wilds, wind_sets=wind_sets)
        counts[i] = c
        want = reference.waits(c, 0, wilds, **shape)
        got = koudian.wait_points(bytes(c), wildcards=wilds, rules=rules)
        assert {int(t): p for t, p in got.items()} == want, koudian.fmt(bytes(c))
        assert koudian.waits(bytes(c), wildcards=wilds, rules=rules) == sorted(want)
        ready += bool(want)
    assert ready > N // 5
    for threads in (1, 2):
        batch = koudian.waits_batch(counts, wildcards=wilds, rules=rules, threads=threads)
        assert batch.shape == (N, 34) and batch.dtype == np.bool_
        for c, row in zip(counts, batch, strict=False):
            assert np.flatnonzero(row).tolist() == koudian.waits(c, wildcards=wilds, rules=rules)


def test_a_kind_held_four_times_is_never_a_wait() -> None:
    # 555z + a fourth 5z: only a fifth 5z would complete it.
    assert koudian.waits("123m456p789s5555z") == []
    assert koudian.shanten("123m456p789s5555z") == 1  # targets hold at most 4 of a kind
    # With 5z wild, a drawn wild tile stands for the missing kind.
    assert Tile.WHITE not in koudian.waits("123m456p789s5555z", wildcards="7z")
    # A meld's tiles count too: a pong of 5z plus a lone 5z waits on nothing.
    assert koudian.waits("123m456p789s5z", melds=["555z"]) == []
    # Shanten measures the shape only: 0 here, the one documented exception.
    assert koudian.shanten("123m456p789s5z", melds=["555z"]) == 0
    held = np.zeros((1, 34), dtype=np.uint8)
    counts = koudian.to_counts("123m456p789s5z")[None, :].copy()
    held[0] = counts[0]
    held[0, Tile.WHITE] += 3
    assert not koudian.waits_batch(counts, n_melds=1, held=held).any()
    assert koudian.waits_batch(counts, n_melds=1)[0, Tile.WHITE]


def test_wild_wait_is_worth_the_best_kind_it_stands_for() -> None:
    # 123m 456p 789s 23m 55z, 红中 wild: a drawn 红中 stands for 1m or 4m.
    pts = koudian.wait_points("123m456p789s23m55z", wildcards="7z")
    assert pts[Tile.M1] == 1 and pts[Tile.M4] == 4
    assert pts[Tile.RED] == 4
    hand, kw = "123m456p789s23m55z", {"wildcards": "7z", "rules": "shanxi-haozi"}
    assert koudian.winning_tile_points(hand, "7z", self_draw=True, **kw) == 4
    # A discarded wild tile can never be claimed (docs/rules.md §3).
    assert koudian.winning_tile_points(hand, "7z", self_draw=False, **kw) is None
    assert koudian.winning_tile_points(hand, "4m", self_draw=False, **kw) == 4


def test_waits_wrong_size_states_the_expected_size() -> None:
    with pytest.raises(InvalidHandError, match="waiting hand needs 13"):
        koudian.waits("123m456p789s11122z")
    with pytest.raises(InvalidHandError, match="row 0: 14 concealed tiles"):
        koudian.waits_batch(koudian.to_counts("123m456p789s11122z")[None, :].copy())


def test_discard_options_report_shanten_waits_and_ting() -> None:
    opts = koudian.discard_options("123m456p789s23m111z")
    assert [o.discard for o in opts] == sorted({*koudian.parse("123m456p789s23m111z")})
    east = next(o for o in opts if o.discard is Tile.EAST)
    assert (east.shanten, east.waits, east.best_points) == (0, [Tile.M1, Tile.M4], 4)
    assert not east.can_declare_ting  # no wait worth 6 (docs/rules.md §3 报听)
    p4 = next(o for o in opts if o.discard is Tile.P4)
    assert p4.shanten == 1 and p4.waits == [] and p4.best_points is None
    # Each option agrees with the single-hand functions.
    rng = random.Random(5)
    for _ in range(200):
        c = random_hand(rng)
        tiles = [k for k in range(34) for _ in range(c[k])]
        for o in koudian.discard_options(tiles):
            rest = list(tiles)
            rest.remove(int(o.discard))
            assert o.shanten == koudian.shanten(rest)
            assert o.wait_points == koudian.wait_points(rest)
            assert o.can_declare_ting == koudian.can_declare_ting(tiles, o.discard)


def test_ting_needs_a_wait_worth_six_in_shanxi_and_three_in_linxian() -> None:
    hand = "123m456p789s23m111z"
    assert not koudian.can_declare_ting(hand, "1z")
    assert koudian.can_declare_ting(hand, "1z", rules="linxian")
    assert koudian.can_declare_ting("123m456p789s78m111z", "1z")  # waits 6m/9m
    assert not koudian.can_declare_ting("123m456p789s78m111z", "1z", rules="sichuan")  # no ting
    with pytest.raises(InvalidHandError, match="holds none"):
        koudian.can_declare_ting(hand, "5z")


@pytest.mark.parametrize(
    ("rule", "points", "self_draw", "allowed"),
    [
        ("standard", 2, True, False),
        ("standard", 3, True, True),
        ("standard", 5, False, False),
        ("standard", 6, False, True),
        ("strict", 4, True, False),
        ("strict", 5, True, True),
        ("strict", 5, False, False),
        ("strict", 6, False, True),
    ],
)
def test_point_rule_standard_and_strict(
    rule: str, points: int, self_draw: bool, allowed: bool
) -> None:
    rules = Ruleset.preset("shanxi", point_rule=rule)
    assert koudian.may_win(points, self_draw=self_draw, rules=rules) == allowed


def test_ting_kong_allowed_with_kong_keeps_waits() -> None:
    before = "111m78p234s567s99s"
    after = koudian.Hand("78p234s567s99s", melds=["[1111m]"])
    assert koudian.ting_kong_allowed(before, after, rules="linxian")
