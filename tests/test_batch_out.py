"""The batch functions' ``out`` argument (`is_win_batch`, `waits_batch`,
`shanten_batch`): the answers written into a caller's array and that
array returned, the same as a fresh array's on every row and thread
count; a wrong array (shape, dtype, layout, read-only, or sharing memory
with the counts) is a KoudianError (a ValueError), never a write."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import koudian
import numpy as np
import numpy.typing as npt
import pytest
from hands import random_hand
from koudian import KoudianError

N = 2000

Batch = Callable[..., npt.NDArray[Any]]


def _counts(size: int, wilds: tuple[int, ...], seed: int) -> npt.NDArray[np.uint8]:
    rng = random.Random(seed)
    return np.array([random_hand(rng, size=size, wilds=wilds) for _ in range(N)], np.uint8)


# (function, hand size, the out array's shape after N and its dtype)
CASES: list[tuple[Batch, int, tuple[int, ...], type]] = [
    (koudian.is_win_batch, 14, (), np.bool_),
    (koudian.waits_batch, 13, (34,), np.bool_),
    (koudian.shanten_batch, 13, (), np.int8),
]
IDS = ["is_win_batch", "waits_batch", "shanten_batch"]


@pytest.mark.parametrize(("batch", "size", "tail", "dtype"), CASES, ids=IDS)
@pytest.mark.parametrize("wilds", [(), (31,), (4, 33)], ids=lambda w: f"{len(w)}wild")
def test_out_receives_the_same_answers_as_a_fresh_array(
    batch: Batch, size: int, tail: tuple[int, ...], dtype: type, wilds: tuple[int, ...]
) -> None:
    counts = _counts(size, wilds, seed=size * 100 + len(wilds))
    fresh = batch(counts, wildcards=wilds)
    for threads in (1, 2):
        # Stale contents (from an earlier call, or garbage) are overwritten.
        out = np.ones((N, *tail), dtype) if dtype is np.bool_ else np.full((N, *tail), 99, dtype)
        got = batch(counts, wildcards=wilds, threads=threads, out=out)
        assert got is out
        assert np.array_equal(out, fresh)


@pytest.mark.parametrize(("batch", "size", "tail", "dtype"), CASES, ids=IDS)
def test_one_out_array_serves_call_after_call(
    batch: Batch, size: int, tail: tuple[int, ...], dtype: type
) -> None:
    out = np.zeros((N, *tail), dtype)
    for seed in range(3):
        counts = _counts(size, (), seed=seed)
        assert np.array_equal(batch(counts, out=out), batch(counts))


@pytest.mark.parametrize(("batch", "size", "tail", "dtype"), CASES, ids=IDS)
def test_a_wrong_out_array_is_refused_before_anything_is_written(
    batch: Batch, size: int, tail: tuple[int, ...], dtype: type
) -> None:
    counts = _counts(size, (), seed=7)[:10].copy()
    other = np.int16 if dtype is np.int8 else np.uint8
    readonly = np.zeros((10, *tail), dtype)
    readonly.flags.writeable = False
    wrong: list[tuple[Any, str]] = [
        (np.zeros((11, *tail), dtype), "shape"),
        (np.zeros((10, 2, *tail), dtype), "shape"),
        (np.zeros((10, *tail), other), "dtype"),
        (np.zeros((20, *tail), dtype)[::2], "C-contiguous"),
        (readonly, "writeable"),
        ([0] * 10, "numpy array"),
    ]
    for out, why in wrong:
        before = np.array(out, copy=True)
        with pytest.raises(KoudianError, match=why):
            batch(counts, out=out)
        assert np.array_equal(np.asarray(out), before)


def test_out_sharing_memory_with_the_counts_is_refused() -> None:
    # The counts' own bytes seen as the answers' dtype: writing answers
    # there while reading the hands would give wrong answers.
    counts = _counts(13, (), seed=3)[:10].copy()
    before = counts.copy()
    with pytest.raises(KoudianError, match="share no memory"):
        koudian.waits_batch(counts, out=counts.view(np.bool_))
    with pytest.raises(KoudianError, match="share no memory"):
        koudian.shanten_batch(counts, out=counts.reshape(-1)[:10].view(np.int8))
    hands = _counts(14, (), seed=3)[:10].copy()
    with pytest.raises(KoudianError, match="share no memory"):
        koudian.is_win_batch(hands, out=hands.reshape(-1)[:10].view(np.bool_))
    assert np.array_equal(counts, before)
