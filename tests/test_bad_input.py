"""No Python input reaches a panic: every public function, fed odd objects,
raises an ordinary exception (a KoudianError, or TypeError/OverflowError
from argument conversion) and never pyo3's PanicException (a
BaseException)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import koudian as k
import numpy as np
import pytest

WEIRD: list[Any] = [
    None, 0, -1, 2**70, 1.5, "", "🀄" * 20, "1" * 1000 + "m", "../shanxi", [], [None], [2**70],
    [-1] * 14, (33,) * 14, b"", b"\x05" * 34, bytearray(34), np.zeros(34, np.int64) - 1,
    np.full(34, 300, np.int64), np.zeros((2, 34), np.uint8), np.zeros(34, np.bool_), object(),
    {1: 2}, "123m" * 10, k.Hand("11z"), [k.Tile.RED] * 5, "[1111z]", np.zeros(34, np.uint8)[::2],
    np.zeros((3, 34), np.uint8)[:, ::-1], np.zeros((3, 34), np.float32),
]  # fmt: skip

WIN = "123m456p789s11122z"
Z3 = np.zeros((3, 34), np.uint8)

CALLS: list[Callable[[Any], object]] = [
    lambda h: k.is_win(h),
    lambda h: k.decompose(h),
    lambda h: k.waits(h),
    lambda h: k.wait_points(h),
    lambda h: k.shanten(h),
    lambda h: k.discard_options(h),
    lambda h: k.is_win(WIN, wildcards=h),
    lambda h: k.is_win(WIN, melds=h),
    lambda h: k.is_win(WIN, rules=h),
    lambda h: k.hand_value(h, 0, self_draw=True),
    lambda h: k.hand_value(WIN, h, self_draw=True),
    lambda h: k.is_win_batch(h),
    lambda h: k.is_win_batch(Z3, n_melds=h),
    lambda h: k.is_win_batch(Z3, threads=h),
    lambda h: k.is_win_batch(Z3, out=h),
    lambda h: k.waits_batch(Z3, out=h),
    lambda h: k.shanten_batch(Z3, out=h),
    lambda h: k.waits_batch(h),
    lambda h: k.waits_batch(Z3, held=h),
    lambda h: k.shanten_batch(h),
    lambda h: k.shanten_batch(Z3, n_melds=h),
    lambda h: k.to_counts(h),
    lambda h: k.to_counts_batch(h),
    lambda h: k.fmt(h),
    lambda h: k.glyphs(h),
    lambda h: k.from_counts(h),
    lambda h: k.Meld.parse(h),
    lambda h: k.Meld(k.MeldKind.PONG, h),
    lambda h: k.Ruleset.preset(h),
    lambda h: k.Ruleset.preset("shanxi", base_stake=h),
    lambda h: k.Ruleset.from_dict({"family": h}),
    lambda h: k.can_declare_ting(WIN, h),
    lambda h: k.winning_tile_points(h, 0, self_draw=True),
    lambda h: k.ting_kong_allowed(h, h),
    lambda h: k.may_win(h, self_draw=True),
    lambda h: k.Outcome(0, "drawn", hands=h),
    lambda h: k.Kong(0, h, "added"),
    lambda h: k.Win(0, h, 0),
    lambda h: k.settle(k.Outcome(0, "drawn"), rules=h),
]


@pytest.mark.parametrize("call", CALLS)
def test_odd_inputs_raise_ordinary_errors_never_a_panic(call: Callable[[Any], object]) -> None:
    for value in WEIRD:
        try:
            call(value)
        except (ValueError, TypeError, OverflowError, AttributeError):
            pass


def test_odd_inputs_cover_every_error_path_at_least_once() -> None:
    raised = set()
    for call, value in itertools.product(CALLS, WEIRD):
        try:
            call(value)
        except k.KoudianError as e:
            raised.add(type(e).__name__)
        except (TypeError, OverflowError, AttributeError):
            pass
    assert {"InvalidTilesError", "InvalidHandError", "RulesetError"} <= raised
