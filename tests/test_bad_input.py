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
    lambda h: k.mix_seed(h, 0),
    lambda h: k.mix_seed(0, h),
    lambda h: k.Game("shanxi", seed=h),
    lambda h: k.Game("shanxi").observe(h),
    lambda h: k.NativeAgent("random", seed=h),
    lambda h: k._core.MatchState("shanxi", hands=h),
    lambda h: k._core.simulate_native("shanxi", ["random"] * 4, 1, threads=h),
    lambda h: k._core._testing.simulate_logs("shanxi", ["random"] * 4, 1, start=h),
    lambda h: k.simulate("shanxi", ["random"] * 4, 1, seed=h),
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


W14 = "123m456p789s11122z"
R4 = ["random"] * 4

# (parameter, call, what the error for -1 says): every integer parameter of
# the binding, and `simulate`, which hands `hands` to the core in chunks.
INT_PARAMS: list[tuple[str, Callable[[int], object], str]] = [
    ("seed", lambda v: k.mix_seed(v, 0), ""),
    ("index", lambda v: k.mix_seed(0, v), ""),
    ("seed", lambda v: k.Game("shanxi", seed=v), ""),
    ("dealer", lambda v: k.Game("shanxi", dealer=v), "seat -1 does not exist"),
    ("dealer", lambda v: k.Game.arranged([""] * 4, dealer=v), "seat -1 does not exist"),
    ("seat", lambda v: k.Game("shanxi").observe(v), "seat -1 does not exist"),
    ("seat", lambda v: k.Game("shanxi").leave(v), "seat -1 does not exist"),
    ("seat", lambda v: k.Game("shanxi").hand(v), "seat -1 does not exist"),
    ("seat", lambda v: k.Game("shanxi").legal_actions(v), "seat -1 does not exist"),
    ("seat", lambda v: k.Game("shanxi").legal_mask(v), "seat -1 does not exist"),
    ("action", lambda v: k.Game("shanxi").step(v), "action index -1 is out of range"),
    ("i", lambda v: k.Action.from_index(v), "action index -1 is out of range"),
    ("seed", lambda v: k.NativeAgent("random", seed=v), ""),
    ("seed", lambda v: k.NativeAgent("random").reset(v), ""),
    ("seed", lambda v: k._core.MatchState("shanxi", seed=v), ""),
    ("hands", lambda v: k._core.MatchState("shanxi", hands=v), ""),
    ("rounds", lambda v: k._core.MatchState("shanxi", rounds=v), ""),
    ("hands", lambda v: k._core.simulate_native("shanxi", R4, v), ""),
    ("seed", lambda v: k._core.simulate_native("shanxi", R4, 1, seed=v), ""),
    ("threads", lambda v: k._core.simulate_native("shanxi", R4, 1, threads=v), ""),
    ("start", lambda v: k._core.simulate_native("shanxi", R4, 1, start=v), ""),
    ("hands", lambda v: k._core._testing.simulate_logs("shanxi", R4, v), ""),
    ("seed", lambda v: k._core._testing.simulate_logs("shanxi", R4, 1, seed=v), ""),
    ("start", lambda v: k._core._testing.simulate_logs("shanxi", R4, 1, start=v), ""),
    ("hands", lambda v: k.simulate("shanxi", R4, v), ""),
    ("seed", lambda v: k.simulate("shanxi", R4, 1, seed=v), ""),
    ("threads", lambda v: k.simulate("shanxi", R4, 1, threads=v), ""),
    ("threads", lambda v: k.is_win_batch(Z3, threads=v), ""),
    ("threads", lambda v: k.waits_batch(Z3, threads=v), ""),
    ("threads", lambda v: k.shanten_batch(Z3, threads=v), ""),
    ("n_melds", lambda v: k.is_win_batch(Z3, n_melds=v), "n_melds must be 0-4"),
    ("points", lambda v: k.may_win(v, self_draw=True), ""),
    ("seat", lambda v: k.Win(v, W14, "1m"), "the winner is seat -1"),
    ("kong_bloom", lambda v: k.Win(0, W14, "1m", kong_bloom=v), ""),
    ("owner", lambda v: k.Kong(v, "1m", "added"), "the kong's owner is seat -1"),
    ("giver", lambda v: k.Kong(0, "1m", "exposed", giver=v), "the kong's giver is seat -1"),
    ("dealer", lambda v: k.Outcome(v, "drawn"), "the dealer is seat -1"),
    ("by", lambda v: k.Outcome(0, "discard", by=v), "seat -1"),
    ("copies", lambda v: k._core._bench.time_batch("win", Z3, copies=v), ""),
]


@pytest.mark.parametrize(
    ("param", "call", "minus_one"),
    INT_PARAMS,
    ids=[f"{i}-{p[0]}" for i, p in enumerate(INT_PARAMS)],
)
def test_out_of_range_integers_raise_koudian_error_naming_the_parameter(
    param: str, call: Callable[[int], object], minus_one: str
) -> None:
    """pyo3 alone raises OverflowError (not a ValueError) for an int that
    does not fit the Rust type; the binding names the parameter and its
    range instead."""
    with pytest.raises(k.KoudianError, match=rf"^{param} must be an integer in \S+, got {2**64}\b"):
        call(2**64)
    want = minus_one or rf"^{param} must be an integer in 0\.\.\S+, got -1\b"
    with pytest.raises(k.KoudianError, match=want):
        call(-1)


def test_the_cli_reports_a_bad_thread_count(capsys: pytest.CaptureFixture[str]) -> None:
    from koudian.cli import main

    with pytest.raises(SystemExit) as e:
        main(["simulate", "--threads", "-1", "--hands", "10"])
    assert e.value.code == 2
    assert "threads must be ≥ 0 (0: every core), got -1" in capsys.readouterr().err
