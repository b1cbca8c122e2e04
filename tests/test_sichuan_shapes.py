"""Sichuan (docs/rules.md §5) in the shape functions: honors are not in play
(``no_honors``: an honor tile is bad input) and a win lacks one of the
three suits (缺一门), checked against the brute-force reference on random
honor-free hands. Shanten stays the shape distance."""

from __future__ import annotations

import random

import koudian
import numpy as np
import pytest
import reference
from hands import random_hand
from koudian import KoudianError

SICHUAN = {"seven_pairs": True, "thirteen_orphans": False, "wind_sets": False}
N = 400


def test_the_reference_uses_the_sichuan_preset_shapes() -> None:
    r = koudian.Ruleset.preset("sichuan")
    assert r.no_honors
    assert (r.seven_pairs, r.thirteen_orphans, r.wind_sets) == tuple(SICHUAN.values())


def honor_free_hands(seed: int, size: int) -> list[list[int]]:
    """``N`` random honor-free hands, about half of them holding three suits."""
    rng = random.Random(seed)
    out: list[list[int]] = []
    while len(out) < N:
        c = random_hand(rng, size=size)
        if any(c[27:]):
            continue
        out.append(c)
    return out


def test_sichuan_que_yi_men_is_win_matches_brute_force() -> None:
    hands = honor_free_hands(1, 14)
    want = [reference.sichuan_is_win(c, **SICHUAN) for c in hands]
    assert 20 < sum(want) < N  # the sample holds wins and non-wins
    # Winning shapes holding three suits are in the sample, and lose.
    assert any(reference.is_win(c, **SICHUAN) and not w for c, w in zip(hands, want, strict=True))
    for c, w in zip(hands, want, strict=True):
        tiles = koudian.from_counts(np.array(c, np.uint8))
        assert koudian.is_win(tiles, rules="sichuan") == w, koudian.fmt(tiles)
        assert bool(koudian.decompose(tiles, rules="sichuan")) == w, koudian.fmt(tiles)
    got = koudian.is_win_batch(np.array(hands, np.uint8), rules="sichuan")
    assert got.tolist() == want


def test_sichuan_que_yi_men_waits_match_brute_force() -> None:
    hands = honor_free_hands(2, 13)
    want = [reference.sichuan_waits(c, **SICHUAN) for c in hands]
    assert sum(bool(w) for w in want) > 20
    # Ready shapes holding three suits are in the sample, and wait on nothing.
    assert any(reference.waits(c, **SICHUAN) and not w for c, w in zip(hands, want, strict=True))
    for c, w in zip(hands, want, strict=True):
        tiles = koudian.from_counts(np.array(c, np.uint8))
        points = koudian.wait_points(tiles, rules="sichuan")
        assert {int(t): p for t, p in points.items()} == w, koudian.fmt(tiles)
        assert [int(t) for t in koudian.waits(tiles, rules="sichuan")] == sorted(w)
    batch = koudian.waits_batch(np.array(hands, np.uint8), rules="sichuan")
    assert [set(np.flatnonzero(row).tolist()) for row in batch] == [set(w) for w in want]


def test_sichuan_que_yi_men_named_hands() -> None:
    # All three suits: a winning shape, but never a Sichuan win.
    assert koudian.is_win("123m456p789s11155s")
    assert not koudian.is_win("123m456p789s11155s", rules="sichuan")
    assert koudian.decompose("123m456p789s11155s", rules="sichuan") == []
    assert koudian.is_win("123m456m789s11155s", rules="sichuan")
    # A 13-tile hand holding three suits waits on nothing…
    assert koudian.waits("123m456p789s1155s", rules="sichuan") == []
    assert koudian.wait_points("123m456p789s1155s", rules="sichuan") == {}
    # …while one holding two keeps its waits.
    assert [str(t) for t in koudian.waits("123m456m78s11155s", rules="sichuan")] == ["6s", "9s"]


def test_sichuan_que_yi_men_counts_the_melds_suits() -> None:
    # The concealed part holds 万 and 条; the pong of 饼 is the third suit.
    assert koudian.is_win("123m456m11155s", melds=["777s"], rules="sichuan")
    assert not koudian.is_win("123m456m11155s", melds=["777p"], rules="sichuan")
    assert koudian.decompose("123m456m11155s", melds=["777p"], rules="sichuan") == []
    assert koudian.waits("123m456m1155s", melds=["777p"], rules="sichuan") == []
    assert koudian.waits("123m456m1155s", melds=["777s"], rules="sichuan") != []
    # waits_batch reads the melds' suits from `held`.
    c = koudian.to_counts_batch(["123m456m1155s"])
    held = koudian.to_counts_batch(["123m456m1155s777p"])
    assert koudian.waits_batch(c, n_melds=1, rules="sichuan").any()
    assert not koudian.waits_batch(c, n_melds=1, held=held, rules="sichuan").any()


def test_sichuan_que_yi_men_discard_options_keep_only_two_suit_waits() -> None:
    # 123m 456m 78s 11155s + 9p: discarding the 9p keeps two suits and
    # the 6s/9s wait; any other discard keeps three suits, so no wait.
    options = koudian.discard_options("123m456m78s11155s9p", rules="sichuan")
    opts = {str(o.discard): o for o in options}
    assert [str(t) for t in opts["9p"].waits] == ["6s", "9s"]
    assert all(o.waits == [] for d, o in opts.items() if d != "9p")


def test_sichuan_shanten_is_the_shape_distance() -> None:
    # Ready in shape though 缺一门 leaves it no wait: shanten says 0.
    assert koudian.shanten("123m456p789s1155s", rules="sichuan") == 0
    assert koudian.waits("123m456p789s1155s", rules="sichuan") == []
    c = koudian.to_counts_batch(["123m456p789s1155s"])
    assert koudian.shanten_batch(c, rules="sichuan").tolist() == [0]


HONOR_CALLS = [
    ("is_win", lambda: koudian.is_win("123m456p789s11122z", rules="sichuan")),
    ("decompose", lambda: koudian.decompose("123m456p789s11122z", rules="sichuan")),
    ("waits", lambda: koudian.waits("123m456p789s1112z", rules="sichuan")),
    ("wait_points", lambda: koudian.wait_points("123m456p789s1112z", rules="sichuan")),
    ("shanten", lambda: koudian.shanten("123m456p789s1112z", rules="sichuan")),
    ("discard_options", lambda: koudian.discard_options("123m456p789s11122z", rules="sichuan")),
    ("meld", lambda: koudian.is_win("123m456p789s22z", melds=["111z"], rules="sichuan")),
    ("wildcard", lambda: koudian.is_win("123m456p789s11122s", wildcards="1z", rules="sichuan")),
    ("wildcard-waits", lambda: koudian.waits("123m456p789s1112s", wildcards="1z", rules="sichuan")),
]


@pytest.mark.parametrize("call", [c for _, c in HONOR_CALLS], ids=[n for n, _ in HONOR_CALLS])
def test_sichuan_no_honors_is_bad_input(call: object) -> None:
    with pytest.raises(KoudianError, match="honor tile 1z is not in play"):
        call()  # type: ignore[operator]


BATCHES = [
    ("is_win_batch", koudian.is_win_batch, "123m456p789s11155s", "123m456p789s11122z"),
    ("waits_batch", koudian.waits_batch, "123m456p789s1155s", "123m456p789s1112z"),
    ("shanten_batch", koudian.shanten_batch, "123m456p789s1155s", "123m456p789s1112z"),
]


@pytest.mark.parametrize(("name", "fn", "good", "bad"), BATCHES, ids=[b[0] for b in BATCHES])
def test_sichuan_no_honors_batches_name_the_row(name: str, fn: object, good: str, bad: str) -> None:
    c = koudian.to_counts_batch([good, good, bad])
    with pytest.raises(KoudianError, match=r"row 2: honor tile 1z is not in play"):
        fn(c, rules="sichuan")  # type: ignore[operator]
    with pytest.raises(KoudianError, match=r"honor tile 1z is not in play"):
        fn(c[:2], wildcards="1z", rules="sichuan")  # type: ignore[operator]
    fn(c[:2], rules="sichuan")  # type: ignore[operator]
    # Honors stay in play elsewhere.
    fn(c, rules="shanxi")  # type: ignore[operator]
