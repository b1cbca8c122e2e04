"""Win detection throughput: koudian single calls, numpy batch (1 and 2
threads), 0/1/2 wild kinds, against riichienv, xiangting and mahjong on the
same no-wildcard hands (each in its native input format)."""

from __future__ import annotations

from typing import Any

import koudian
import numpy as np
import pytest
from conftest import run
from koudian._bench import WILDS


@pytest.mark.benchmark(group="is_win")
@pytest.mark.parametrize("wild", [0, 1, 2])
def test_koudian_is_win_single(benchmark: Any, p14: dict[str, list[Any]], wild: int) -> None:
    rows, ws, f = p14["koudian"], WILDS[wild], koudian.is_win
    if ws:
        run(benchmark, lambda: [f(r, wildcards=ws) for r in rows], len(rows))
    else:
        run(benchmark, lambda: [f(r) for r in rows], len(rows))


@pytest.mark.benchmark(group="is_win")
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("wild", [0, 1, 2])
def test_koudian_is_win_batch(benchmark: Any, h14: np.ndarray, wild: int, threads: int) -> None:
    ws = WILDS[wild]
    run(benchmark, lambda: koudian.is_win_batch(h14, wildcards=ws, threads=threads), len(h14))


@pytest.mark.benchmark(group="is_win")
def test_riichienv_calculate_shanten(benchmark: Any, p14: dict[str, list[Any]]) -> None:
    riichienv = pytest.importorskip("riichienv")
    ids, f = p14["riichienv"], riichienv.calculate_shanten
    run(benchmark, lambda: [f(h) == -1 for h in ids], len(ids))


@pytest.mark.benchmark(group="is_win")
def test_xiangting_replacement_number(benchmark: Any, p14: dict[str, list[Any]]) -> None:
    xiangting = pytest.importorskip("xiangting")
    cs, f, four = p14["counts"], xiangting.calculate_replacement_number, xiangting.PlayerCount.FOUR
    run(benchmark, lambda: [f(c, four) == 0 for c in cs], len(cs))


@pytest.mark.benchmark(group="is_win")
def test_mahjong_agari(benchmark: Any, p14: dict[str, list[Any]]) -> None:
    agari = pytest.importorskip("mahjong.agari").Agari()
    cs = p14["counts"]
    run(benchmark, lambda: [agari.is_agari(c) for c in cs], len(cs))
