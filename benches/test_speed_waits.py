"""Waits throughput: koudian single calls and batch, 0/1/2 wild kinds,
against xiangting's necessary tiles and riichienv's get_waits on the same
no-wildcard 13-tile hands."""

from __future__ import annotations

from typing import Any

import koudian
import numpy as np
import pytest
from conftest import run
from koudian._bench import WILDS


@pytest.mark.benchmark(group="waits")
@pytest.mark.parametrize("wild", [0, 2])
def test_koudian_waits_single(benchmark: Any, p13: dict[str, list[Any]], wild: int) -> None:
    rows, ws, f = p13["koudian"], WILDS[wild], koudian.waits
    run(benchmark, lambda: [f(r, wildcards=ws) for r in rows], len(rows))


@pytest.mark.benchmark(group="waits")
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("wild", [0, 1, 2])
def test_koudian_waits_batch(benchmark: Any, h13: np.ndarray, wild: int, threads: int) -> None:
    ws = WILDS[wild]
    run(benchmark, lambda: koudian.waits_batch(h13, wildcards=ws, threads=threads), len(h13))


@pytest.mark.benchmark(group="waits")
def test_xiangting_necessary_tiles(benchmark: Any, p13: dict[str, list[Any]]) -> None:
    xiangting = pytest.importorskip("xiangting")
    cs, f, four = p13["counts"], xiangting.calculate_necessary_tiles, xiangting.PlayerCount.FOUR
    run(benchmark, lambda: [f(c, four) for c in cs], len(cs))


@pytest.mark.benchmark(group="waits")
def test_riichienv_get_waits(benchmark: Any, p13: dict[str, list[Any]]) -> None:
    riichienv = pytest.importorskip("riichienv")
    ids, ev = p13["riichienv"], riichienv.HandEvaluator
    run(benchmark, lambda: [ev(h).get_waits() for h in ids], len(ids))
