"""docs/rules.md §2 winning shapes through Python: `is_win`, `decompose` and
`is_win_batch` against the brute-force reference (tests/reference.py) on
seeded random hands for every shape option and 0/1/2 wild kinds, plus
property tests, bad input, and a cross-check with the PyPI `mahjong`
package."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import koudian
import numpy as np
import pytest
import reference
from hands import random_hand
from hypothesis import given, settings
from hypothesis import strategies as st
from koudian import InvalidHandError, InvalidTilesError, Ruleset, Tile

SHAPES = list(itertools.product([True, False], repeat=3))
WILDS = [(), (4,), (31,), (22, 33)]
N = 1500


def rules_of(seven_pairs: bool, thirteen_orphans: bool, wind_sets: bool) -> Ruleset:
    return Ruleset.preset(
        "shanxi", seven_pairs=seven_pairs, thirteen_orphans=thirteen_orphans, wind_sets=wind_sets
    )


@pytest.mark.parametrize("wilds", WILDS, ids=lambda w: f"{len(w)}wild")
@pytest.mark.parametrize(("seven_pairs", "thirteen_orphans", "wind_sets"), SHAPES)
def test_is_win_matches_brute_force_for_every_shape_option_and_wildcards(
    seven_pairs: bool, thirteen_orphans: bool, wind_sets: bool, wilds: tuple[int, ...]
) -> None:
    rules = rules_of(seven_pairs, thirteen_orphans, wind_sets)
    rng = random.Random(hash((seven_pairs, thirteen_orphans, wind_sets, wilds)) & 0xFFFF)
    counts = np.zeros((N, 34), dtype=np.uint8)
    expected = []
    wins = 0
    for i in range(N):
        c = random_hand(rng, wilds=wilds, wind_sets=wind_sets)
        counts[i] = c
        want = reference.is_win(
            c,
            0,
            wilds,
            seven_pairs=seven_pairs,
            thirteen_orphans=thirteen_orphans,
            wind_sets=wind_sets,
        )
        tiles = [k for k in range(34) for _ in range(c[k])]
        assert koudian.is_win(tiles, wildcards=wilds, rules=rules) == want, koudian.fmt(tiles)
        expected.append(want)
        wins += want
    assert 0.15 * N < wins < 0.95 * N  # the mix really exercises both answers
    for threads in (1, 2):
        got = koudian.is_win_batch(counts, wildcards=wilds, rules=rules, threads=threads)
        assert got.dtype == np.bool_ and got.tolist() == expected


@pytest.mark.parametrize("n_melds", [1, 2, 3, 4])
@pytest.mark.parametrize("wilds", [(), (31,), (4, 31)], ids=lambda w: f"{len(w)}wild")
def test_melds_count_as_sets(n_melds: int, wilds: tuple[int, ...]) -> None:
    rng = random.Random(n_melds * 7 + len(wilds))
    size = 14 - 3 * n_melds
    rows, per_row, expected = [], [], []
    for _ in range(400):
        c = random_hand(rng, size=size, wilds=wilds)
        free = [k for k in range(27) if c[k] == 0 and k not in wilds]
        melds = [koudian.Meld.parse(f"{Tile(k).rank}{Tile(k).suit}" * 3) for k in free[:n_melds]]
        want = reference.is_win(c, n_melds, wilds, seven_pairs=True, thirteen_orphans=True)
        tiles = [k for k in range(34) for _ in range(c[k])]
        assert koudian.is_win(tiles, melds=melds, wildcards=wilds) == want
        rows.append(c)
        per_row.append(n_melds)
        expected.append(want)
    counts = np.array(rows, dtype=np.uint8)
    assert koudian.is_win_batch(counts, n_melds=n_melds, wildcards=wilds).tolist() == expected
    arr = np.array(per_row, dtype=np.int64)
    assert koudian.is_win_batch(counts, n_melds=arr, wildcards=wilds).tolist() == expected


def test_exhaustive_single_suit_hands() -> None:
    """Every 14-tile pattern of one suit (counts ≤ 4), against the reference."""
    patterns = [
        p
        for p in itertools.product(range(5), repeat=9)
        if sum(p) == 14 and (sum(p[:5]) >= 5 or p[0] >= 2)  # a sample biased to low ranks
    ]
    counts = np.zeros((len(patterns), 34), dtype=np.uint8)
    counts[:, :9] = patterns
    got = koudian.is_win_batch(counts, rules="linxian")
    for p, g in zip(patterns, got, strict=False):
        want = reference.is_win(list(p) + [0] * 25, seven_pairs=False, thirteen_orphans=False)
        assert bool(g) == want, p


def _decomposition_tiles(d: koudian.Decomposition) -> Counter[int]:
    tiles: Counter[int] = Counter()
    if d.shape == "standard":
        for s in d.sets:
            tiles.update(int(t) for t in s.tiles)
        tiles.update(int(t) for t in d.pairs * 2)
    elif d.shape == "seven_pairs":
        tiles.update(int(t) for t in d.pairs * 2)
    else:
        tiles.update(reference.ORPHANS)
        tiles.update(int(t) for t in d.pairs)
    return tiles


@pytest.mark.parametrize("wilds", [(), (31,), (4, 31)], ids=lambda w: f"{len(w)}wild")
def test_decompose_lists_ways_that_rebuild_the_hand(wilds: tuple[int, ...]) -> None:
    rules = rules_of(True, True, True)
    rng = random.Random(99 + len(wilds))
    for _ in range(300):
        c = random_hand(rng, wilds=wilds, wind_sets=True)
        ds = koudian.decompose(
            [k for k in range(34) for _ in range(c[k])], wildcards=wilds, rules=rules
        )
        assert bool(ds) == koudian.is_win(bytes(c), wildcards=wilds, rules=rules)
        natural = Counter({k: n for k, n in enumerate(c) if n and k not in wilds})
        for d in ds:
            assert len(d.wild_as) == sum(c[k] for k in wilds)
            assert _decomposition_tiles(d) == natural + Counter(int(t) for t in d.wild_as), str(d)
        assert len(set(ds)) == len(ds)


def test_decompositions_are_typed_and_printable() -> None:
    ds = koudian.decompose("11122233344455m")
    assert {str(d) for d in ds} >= {"standard: 111m 222m 333m 444m 55m"}
    d = koudian.decompose("123m456p789s22z", melds=["111z"])[0]
    assert d.shape == "standard" and [s.kind for s in d.sets] == ["sequence"] * 3
    assert d.melds == [koudian.Meld.parse("111z")] and d.pairs == [Tile.SOUTH]
    assert "(111z)" in str(d)
    assert koudian.decompose("11223344556677z")[0].shape == "seven_pairs"
    assert koudian.decompose("19m19p19s12345677z")[0].shape == "thirteen_orphans"
    assert koudian.decompose("123m456p789s11255z") == []
    ways = koudian.decompose("123m456p789s11255z", wildcards="5z")
    assert "standard: 123m 456p 789s 222z 11z  (wild as 2z 2z)" in {str(w) for w in ways}
    assert any(w.wild_as == [Tile.EAST, Tile.SOUTH] for w in ways)  # 111z + 22z


def test_wind_sets_option_feng_zuizi() -> None:
    hand = "123m456p789s12355z"  # 东南西 as one set
    assert not koudian.is_win(hand)
    assert koudian.is_win(hand, rules=Ruleset.preset("shanxi", wind_sets=True))
    dragons = "123m456p789s11567z"  # 白发中 as one set
    assert koudian.is_win(dragons, rules=Ruleset.preset("shanxi", wind_sets=True))
    d = koudian.decompose(dragons, rules=Ruleset.preset("shanxi", wind_sets=True))
    assert any(s.kind == "honors" for x in d for s in x.sets)


def test_seven_pairs_counts_a_quad_as_two_pairs() -> None:
    assert koudian.is_win("11115588m2299p55z")
    assert not koudian.is_win(
        "11115588m2299p55z", rules=Ruleset.preset("shanxi", seven_pairs=False)
    )
    assert not koudian.is_win("11223344556677z", rules="linxian")


def test_thirteen_orphans_only_where_enabled() -> None:
    assert koudian.is_win("19m19p19s12345677z")
    assert not koudian.is_win("19m19p19s12345677z", rules="linxian")


def test_wildcard_may_stand_for_a_fifth_copy() -> None:
    # Four natural 1m plus a wild standing for a fifth: 111m + 11m(wild) pair.
    assert koudian.is_win("1111m234p567s789s5z", wildcards="5z")
    assert not koudian.is_win("1111m234p567s789s5z")


def test_size_errors_state_the_expected_size() -> None:
    with pytest.raises(InvalidHandError, match=r"12 concealed tiles; with 0 meld.*needs 14"):
        koudian.is_win("123m456p789s111z")
    with pytest.raises(InvalidHandError, match=r"with 1 meld.*needs 11"):
        koudian.is_win("123m456p789s11122z", melds=["555z"])
    with pytest.raises(InvalidTilesError, match="wildcard"):
        koudian.is_win("123m456p789s11122z", wildcards="5z5z")
    with pytest.raises(InvalidTilesError, match="at most 2"):
        koudian.is_win("123m456p789s11122z", wildcards="5z6z7z")


def test_batch_bad_input_is_a_typed_error() -> None:
    good = np.zeros((3, 34), dtype=np.uint8)
    good[:] = koudian.to_counts("123m456p789s11122z")
    with pytest.raises(InvalidHandError, match="dtype uint8"):
        koudian.is_win_batch(good.astype(np.int32))
    with pytest.raises(InvalidHandError, match=r"shape \(N, 34\)"):
        koudian.is_win_batch(good[:, :33])
    with pytest.raises(InvalidHandError, match=r"shape \(N, 34\)"):
        koudian.is_win_batch(good[0])
    with pytest.raises(InvalidHandError, match="C-contiguous"):
        koudian.is_win_batch(np.asfortranarray(good))
    with pytest.raises(InvalidHandError, match="numpy array"):
        koudian.is_win_batch(good.tolist())  # type: ignore[arg-type]
    bad = good.copy()
    bad[1, 0] = 5
    with pytest.raises(InvalidTilesError, match="row 1: 5 copies"):
        koudian.is_win_batch(bad)
    short = good.copy()
    short[2, 0] = 0
    with pytest.raises(InvalidHandError, match="row 2: 13 concealed tiles"):
        koudian.is_win_batch(short)
    with pytest.raises(InvalidHandError, match="n_melds must be 0-4"):
        koudian.is_win_batch(good, n_melds=5)
    with pytest.raises(InvalidHandError, match=r"shape \(3,\)"):
        koudian.is_win_batch(good, n_melds=np.zeros(2, dtype=np.uint8))
    assert koudian.is_win_batch(np.zeros((0, 34), dtype=np.uint8)).shape == (0,)
    assert koudian.is_win_batch(good, threads=0).all()


tiles14 = st.lists(st.integers(0, 33), min_size=14, max_size=14).filter(
    lambda ts: max(Counter(ts).values()) <= 4
)


@settings(max_examples=300, deadline=None)
@given(tiles14, st.randoms(use_true_random=False))
def test_permuting_tiles_never_changes_the_answer(tiles: list[int], rnd: random.Random) -> None:
    shuffled = tiles[:]
    rnd.shuffle(shuffled)
    for wilds in ((), (31,)):
        assert koudian.is_win(tiles, wildcards=wilds) == koudian.is_win(
            tuple(shuffled), wildcards=wilds
        )


@settings(max_examples=300, deadline=None)
@given(tiles14, st.integers(0, 13), st.sampled_from([4, 27, 31]))
def test_swapping_a_natural_tile_for_a_wild_keeps_a_win(
    tiles: list[int], i: int, wild: int
) -> None:
    if tiles[i] == wild or tiles.count(wild) >= 4:
        return
    swapped = [*tiles[:i], wild, *tiles[i + 1 :]]
    if koudian.is_win(tiles, wildcards=[wild]):
        assert koudian.is_win(swapped, wildcards=[wild])


def test_cross_check_with_the_mahjong_package() -> None:
    """`mahjong.agari.Agari` (riichi rules) against the shanxi preset on
    no-wildcard hands. Convention difference: riichi seven pairs need seven
    *different* pairs, while docs/rules.md §2 counts a 4-of-a-kind as two pairs,
    so the only allowed disagreement is a hand koudian wins as seven pairs
    holding a 4-of-a-kind and not in the standard shape."""
    agari_mod = pytest.importorskip("mahjong.agari")
    agari = agari_mod.Agari()
    rng = random.Random(7)
    standard_only = Ruleset.preset("shanxi", seven_pairs=False, thirteen_orphans=False)
    disagreements = 0
    for _ in range(4000):
        c = random_hand(rng)
        ours = koudian.is_win(bytes(c))
        theirs = agari.is_agari(c)
        if ours != theirs:
            disagreements += 1
            assert ours and not theirs
            assert 4 in c and all(n % 2 == 0 for n in c)
            assert not koudian.is_win(bytes(c), rules=standard_only)
    # Seven pairs with a quad: the documented difference.
    quad = koudian.to_counts("11115588m2299p55z")
    assert koudian.is_win(quad) and not agari.is_agari(quad.tolist())
    assert disagreements > 0  # the random mix holds such hands
