"""docs/rules.md §1 through Python: the Tile enum, notation, glyphs, Chinese
names, count arrays, melds and hands, and the typed errors."""

from __future__ import annotations

import copy
import pickle

import koudian
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from koudian import Hand, InvalidHandError, InvalidTilesError, Meld, MeldKind, Tile

hands = st.lists(st.integers(0, 33), min_size=0, max_size=14).filter(
    lambda ts: all(ts.count(t) <= 4 for t in set(ts))
)


def test_tile_index_convention_m_p_s_z() -> None:
    assert [Tile.M1, Tile.M9, Tile.P1, Tile.P9, Tile.S1, Tile.S9] == [0, 8, 9, 17, 18, 26]
    assert [Tile.EAST, Tile.SOUTH, Tile.WEST, Tile.NORTH] == [27, 28, 29, 30]
    assert [Tile.WHITE, Tile.GREEN, Tile.RED] == [31, 32, 33]
    assert len(Tile) == 34
    assert isinstance(Tile.RED, int)


def test_tile_behaves_as_an_int_enum() -> None:
    # The API contract of the IntEnum Tile used to be, kept by a lighter class.
    members = list(Tile)
    assert len(members) == len(Tile) == 34 and members == list(range(34))
    assert all(type(t) is Tile and isinstance(t, Tile) for t in members)
    assert not isinstance(5, Tile) and list(reversed(Tile)) == members[::-1]
    assert Tile(5) is Tile.M6 and Tile(Tile.RED) is Tile.RED and Tile(np.int64(27)) is Tile.EAST
    assert Tile["EAST"] is Tile.EAST and Tile.__members__["RED"] is Tile.RED
    suited = [f"{s}{r}" for s in "MPS" for r in range(1, 10)]
    honors = ["EAST", "SOUTH", "WEST", "NORTH", "WHITE", "GREEN", "RED"]
    assert [t.name for t in Tile] == suited + honors
    assert all(getattr(Tile, t.name) is t and Tile[t.name] is t for t in Tile)
    assert Tile.RED.value == 33 and type(Tile.RED.value) is int
    assert Tile.EAST in Tile and 27 in Tile and 34 not in Tile and "x" not in Tile
    for bad in (34, -1, "5m", None, 1.5):
        with pytest.raises(ValueError, match="is not a valid Tile"):
            Tile(bad)
    with pytest.raises(KeyError):
        Tile["east"]
    with pytest.raises(AttributeError):
        Tile.RED = Tile.M1
    assert Tile.RED == 33 and Tile.M2 < Tile.M3 and Tile.RED + 1 == 34 and not Tile.M1
    assert hash(Tile.EAST) == hash(27) and {27: "x"}[Tile.EAST] == "x" and {Tile.M1: 1}[0] == 1
    assert np.arange(34)[Tile.RED] == 33 and list(np.arange(34)[[Tile.M2, Tile.S1]]) == [1, 18]
    assert f"{Tile.M5:>3}|{Tile.M5!r}|{Tile.M5!s}" == " 5m|Tile.M5|5m"
    for proto in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(Tile.GREEN, proto)) is Tile.GREEN
        assert pickle.loads(pickle.dumps(koudian.Suit.SOU, proto)) is koudian.Suit.SOU
    assert copy.copy(Tile.M9) is Tile.M9 and copy.deepcopy([Tile.M9])[0] is Tile.M9
    # Byte-identical to the IntEnum's pickle, so stored pickles still load.
    assert pickle.dumps(Tile.M5, 2) == b"\x80\x02ckoudian.tiles\nTile\nq\x00K\x04\x85q\x01Rq\x02."


def test_suit_behaves_as_a_str_enum() -> None:
    Suit = koudian.Suit
    assert list(Suit) == [Suit.MAN, Suit.PIN, Suit.SOU, Suit.HONOR] == ["m", "p", "s", "z"]
    assert len(Suit) == 4 and Suit("p") is Suit.PIN and Suit["HONOR"] is Suit.HONOR
    assert Suit.SOU.name == "SOU" and Suit.SOU.value == "s" and type(Suit.SOU.value) is str
    assert str(Suit.MAN) == f"{Suit.MAN}" == "m" and repr(Suit.MAN) == "<Suit.MAN: 'm'>"
    assert {t.suit for t in Tile} == set(Suit) and Tile.S5.suit is Suit.SOU
    with pytest.raises(ValueError, match="is not a valid Suit"):
        Suit("x")


def test_tile_points_suited_rank_honors_ten() -> None:
    for t in Tile:
        assert t.points == (10 if t >= 27 else t % 9 + 1)


def test_tile_properties() -> None:
    assert str(Tile.M5) == "5m" and f"{Tile.RED}" == "7z"
    assert Tile.P3.suit == koudian.Suit.PIN and Tile.P3.suit == "p" and Tile.P3.rank == 3
    assert Tile.WHITE.suit == koudian.Suit.HONOR and Tile.WHITE.rank == 5
    assert Tile.RED.glyph == "🀄" and Tile.M1.glyph == "🀇"
    assert Tile.M1.chinese == "一万" and Tile.RED.chinese == "中"
    assert Tile.parse("🀄") is Tile.RED and Tile.parse("5s") is Tile.S5
    assert repr(Tile.EAST) == "Tile.EAST" and Tile.EAST.is_honor


def test_parse_notation_glyphs_and_chinese_names() -> None:
    assert koudian.parse("123m") == [Tile.M1, Tile.M2, Tile.M3]
    assert koudian.parse("东🀄") == [Tile.EAST, Tile.RED]
    assert koudian.parse("一万 红中 九条") == [Tile.M1, Tile.RED, Tile.S9]
    assert all(type(t) is Tile for t in koudian.parse("19m19p19s1234567z"))


def test_fmt_is_canonical_sorted_notation() -> None:
    assert koudian.fmt("3m12m 东🀄") == "123m17z"
    assert koudian.fmt([Tile.RED, Tile.M1]) == "1m7z"
    assert koudian.fmt(koudian.to_counts("55z123m")) == "123m55z"
    assert koudian.glyphs("1m7z") == "🀇🀄"


@given(hands)
def test_parse_fmt_round_trip(tiles: list[int]) -> None:
    s = koudian.fmt(tiles)
    assert sorted(koudian.parse(s)) == sorted(tiles)
    assert koudian.fmt(koudian.parse(s)) == s
    glyphs = "".join(Tile(t).glyph for t in tiles)
    assert koudian.fmt(glyphs) == s
    chinese = "".join(Tile(t).chinese for t in tiles)
    assert koudian.fmt(chinese) == s


@given(hands)
def test_counts_round_trip(tiles: list[int]) -> None:
    c = koudian.to_counts(tiles)
    assert c.dtype == np.uint8 and c.shape == (34,)
    assert koudian.from_counts(c) == sorted(tiles)
    assert koudian.from_counts(bytes(c)) == sorted(tiles)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("12x", "'x' at position 2"),
        ("123m4q", "'q' at position 5"),
        ("0m", "'0' at position 0"),
        ("8z", "'8' at position 0"),
        ("123", "digits must be followed"),
        ("m", "'m' at position 0"),
    ],
)
def test_parse_error_names_character_and_position(text: str, needle: str) -> None:
    with pytest.raises(InvalidTilesError, match=needle):
        koudian.parse(text)


def test_errors_are_value_errors_with_a_common_base() -> None:
    for e in (
        koudian.InvalidTilesError,
        koudian.InvalidHandError,
        koudian.RulesetError,
        koudian.IllegalActionError,
        koudian.InconsistentOutcomeError,
    ):
        assert issubclass(e, koudian.KoudianError) and issubclass(e, ValueError)


def test_fifth_copy_is_an_error_counting_melds() -> None:
    with pytest.raises(InvalidTilesError, match="5 copies of 1m"):
        koudian.is_win("11111m234p567s789s")
    with pytest.raises(InvalidTilesError, match="5 copies"):
        Hand("55z123m456p789s", melds=["555z"])
    with pytest.raises(InvalidTilesError):
        koudian.to_counts("11111m")


def test_bad_tile_items_and_types() -> None:
    with pytest.raises(InvalidTilesError, match="tile index 34 at position 1"):
        koudian.is_win([0, 34])
    with pytest.raises(InvalidTilesError, match="item 0"):
        koudian.is_win([1.5])
    with pytest.raises(InvalidTilesError, match="expected a hand"):
        koudian.is_win(12)  # type: ignore[arg-type]
    with pytest.raises(InvalidHandError, match="34 counts"):
        koudian.is_win(b"\x01\x02")
    with pytest.raises(InvalidHandError, match=r"shape \(34,\)"):
        koudian.is_win(np.zeros(14, dtype=np.uint8))
    with pytest.raises(InvalidHandError, match="integer dtype"):
        koudian.is_win(np.zeros(34, dtype=np.float64))


def test_hand_inputs_agree() -> None:
    text = "123m456p789s11122z"
    tiles = koudian.parse(text)
    forms = [
        text,
        tiles,
        tuple(tiles),
        [int(t) for t in tiles],
        [str(t) for t in tiles],
        koudian.to_counts(text),
        koudian.to_counts(text).astype(np.int64),
        bytes(koudian.to_counts(text)),
        bytearray(koudian.to_counts(text)),
        Hand(text),
    ]
    assert all(koudian.is_win(f) for f in forms)


def test_melds_and_hand_types() -> None:
    assert Meld.parse("555z").kind == MeldKind.PONG
    assert Meld.parse("5555z").kind == MeldKind.EXPOSED_KONG
    assert Meld.parse("+5555z").kind == MeldKind.ADDED_KONG
    assert Meld.parse("[5555z]").kind == MeldKind.CONCEALED_KONG
    m = Meld(MeldKind.PONG, Tile.RED)
    assert m.tile is Tile.RED and m.tiles == [Tile.RED] * 3 and str(m) == "777z"
    assert m == Meld.parse("777z") and hash(m) == hash(Meld.parse("777z"))
    assert MeldKind.CONCEALED_KONG.is_kong and not MeldKind.PONG.is_kong
    h = Hand("123m456p789s22z", melds=["[1111z]"])
    assert len(h) == 11 and str(h) == "123m456p789s22z [1111z]"
    assert h.tiles == koudian.parse("123m456p789s22z")
    assert int(h.all_counts()[Tile.EAST]) == 4 and int(h.counts()[Tile.EAST]) == 0
    assert eval(repr(h), {"Hand": Hand}) == h
    with pytest.raises(InvalidHandError, match="a pong has 3 tiles"):
        Meld.parse("55z")
    with pytest.raises(InvalidHandError, match="one kind"):
        Meld.parse("567z")
    with pytest.raises(InvalidHandError, match="at most 4"):
        Hand("11z", melds=["111m", "222m", "333m", "444m", "555m"])


def test_to_counts_batch_stacks_hands() -> None:
    arr = koudian.to_counts_batch(["123m456p789s11122z", [0] * 4, b"\x00" * 34])
    assert arr.shape == (3, 34) and arr.dtype == np.uint8 and arr.flags.c_contiguous
    assert koudian.is_win_batch(arr[:1]).tolist() == [True]
    assert arr[1, 0] == 4 and arr[2].sum() == 0
    with pytest.raises(InvalidTilesError, match="hand 1"):
        koudian.to_counts_batch(["1m", "11111m"])
