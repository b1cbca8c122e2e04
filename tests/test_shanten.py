"""Shanten (向听数) through Python: cross-check with the PyPI `xiangting`
package on no-wildcard hands, consistency with `is_win` / `waits`, wild
tiles, batch == single, and bad input."""

from __future__ import annotations

import random

import koudian
import numpy as np
import pytest
from hands import random_hand
from koudian import InvalidHandError, Ruleset


def test_cross_check_with_xiangting() -> None:
    """`xiangting.calculate_replacement_number` is shanten + 1 over the
    standard shape, seven pairs and thirteen orphans, with targets capped at
    4 copies of a kind, like koudian's. Convention difference: its seven
    pairs need seven *different* kinds (riichi rules), while docs/rules.md §2
    counts a 4-of-a-kind as two pairs. So koudian is never above xiangting,
    and equal whenever no kind is held 3 or more times (the only hands where
    the extra seven-pairs targets can be closer)."""
    xiangting = pytest.importorskip("xiangting")
    four = xiangting.PlayerCount.FOUR
    rng = random.Random(11)
    differ = 0
    for size in (13, 14):
        rows = np.array([random_hand(rng, size=size) for _ in range(3000)], dtype=np.uint8)
        ours = koudian.shanten_batch(rows)
        for c, s in zip(rows, ours, strict=False):
            theirs = xiangting.calculate_replacement_number(c.tolist(), four) - 1
            assert s <= theirs
            if max(c) <= 2:
                assert s == theirs, koudian.fmt(c)
            differ += s != theirs
    # Seven pairs with a quad: 11115588m2299p5z waits on 5z for koudian.
    c = koudian.to_counts("11115588m2299p5z")
    assert koudian.shanten(c) == 0
    assert xiangting.calculate_replacement_number(c.tolist(), four) - 1 > 0
    assert differ > 0  # the random mix holds such hands


@pytest.mark.parametrize("wilds", [(), (31,), (4, 33)], ids=lambda w: f"{len(w)}wild")
@pytest.mark.parametrize("preset", ["shanxi", "linxian"])
def test_shanten_agrees_with_is_win_and_waits(preset: str, wilds: tuple[int, ...]) -> None:
    rules = Ruleset.preset(preset)
    rng = random.Random(len(wilds) * 3 + len(preset))
    h14 = np.array([random_hand(rng, wilds=wilds) for _ in range(1500)], dtype=np.uint8)
    s14 = koudian.shanten_batch(h14, wildcards=wilds, rules=rules)
    wins = koudian.is_win_batch(h14, wildcards=wilds, rules=rules)
    assert ((s14 == -1) == wins).all()
    assert (s14 >= -1).all() and (s14 <= 8).all()
    h13 = np.array([random_hand(rng, size=13, wilds=wilds) for _ in range(1500)], dtype=np.uint8)
    s13 = koudian.shanten_batch(h13, wildcards=wilds, rules=rules, threads=2)
    ready = koudian.waits_batch(h13, wildcards=wilds, rules=rules).any(axis=1)
    # Ready (a wait exists) implies shanten 0; shanten 0 without a wait only
    # when every completing tile would be a fifth copy (no wildcards).
    assert (s13[ready] == 0).all()
    assert (s13 >= 0).all()
    if wilds:
        assert ((s13 == 0) == ready).all()
    for c, s in zip(h13[:300], s13[:300], strict=False):
        assert koudian.shanten(c, wildcards=wilds, rules=rules) == s


def test_wild_tiles_each_fill_one_missing_tile() -> None:
    hand = "123m456p789s1122z"
    assert koudian.shanten(hand) == 0
    assert koudian.shanten(hand, wildcards="2z") == 0  # 13 tiles: still one to draw
    assert koudian.shanten("123m456p789s11223z") == 0
    assert koudian.shanten("123m456p789s11223z", wildcards="2z") == -1
    assert koudian.shanten("1357m2468p1357s2z") == 4
    assert koudian.shanten("1357m2468p1357s2z", wildcards="2z") == 3


def test_shanten_with_melds_and_sizes() -> None:
    assert koudian.shanten("123m456p789s2z", melds=["111z"]) == 0
    assert koudian.shanten("123m456p789s22z", melds=["111z"]) == -1
    with pytest.raises(InvalidHandError):
        koudian.shanten("123m")
    n = np.array([1, 0], dtype=np.uint8)
    rows = np.zeros((2, 34), dtype=np.uint8)
    rows[0] = koudian.to_counts("123m456p789s2z")
    rows[1] = koudian.to_counts("123m456p789s1122z")
    assert koudian.shanten_batch(rows, n_melds=n).tolist() == [0, 0]
    with pytest.raises(InvalidHandError, match="row 1"):
        koudian.shanten_batch(rows, n_melds=1)
    assert koudian.shanten_batch(rows, n_melds=n).dtype == np.int8
