"""Shanten throughput: koudian single calls and batch, 0/1/2 wild kinds,
against riichienv and xiangting on the same no-wildcard 13-tile hands."""

from __future__ import annotations

from typing import Any

import koudian
import numpy as np
import pytest
from conftest import run
from koudian._bench import WILDS


@pytest.mark.benchmark(group="shanten")
@pytest.mark.parametrize("wild", [0, 2])
def test_koudian_shanten_single(benchmark: Any, p13: dict[str, list[Any]], wild: int) -> None:
    rows, ws, f = p13["koudian"], WILDS[wild], koudian.shanten
    run(benchmark, lambda: [f(r, wildcards=ws) for r in rows], len(rows))


@pytest.mark.benchmark(group="shanten")
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("wild", [0, 1, 2])
def test_koudian_shanten_batch(benchmark: Any, h13: np.ndarray, wild: int, threads: int) -> None:
    ws = WILDS[wild]
    run(benchmark, lambda: koudian.shanten_batch(h13, wildcards=ws, threads=threads), len(h13))


@pytest.mark.benchmark(group="shanten")
def test_riichienv_calculate_shanten(benchmark: Any, p13: dict[str, list[Any]]) -> None:
    riichienv = pytest.importorskip("riichienv")
    ids, f = p13["riichienv"], riichienv.calculate_shanten
    run(benchmark, lambda: [f(h) for h in ids], len(ids))


@pytest.mark.benchmark(group="shanten")
def test_xiangting_replacement_number(benchmark: Any, p13: dict[str, list[Any]]) -> None:
    xiangting = pytest.importorskip("xiangting")
    cs, f, four = p13["counts"], xiangting.calculate_replacement_number, xiangting.PlayerCount.FOUR
    run(benchmark, lambda: [f(c, four) for c in cs], len(cs))
