"""Seeded random hands for the tests: constructed wins (standard, 风嘴子,
seven pairs with and without 4-of-a-kinds, thirteen orphans), the same
with one tile changed, random draws, and wild tiles mixed in."""

from __future__ import annotations

import random
from collections.abc import Sequence

from reference import HONOR_SETS, ORPHANS


def _add(c: list[int], kinds: Sequence[int]) -> None:
    for k in kinds:
        c[k] += 1


def _set(rng: random.Random, wind_sets: bool) -> list[int]:
    r = rng.random()
    if r < 0.5:
        s, k = rng.randrange(3), rng.randrange(7)
        return [9 * s + k, 9 * s + k + 1, 9 * s + k + 2]
    if wind_sets and r < 0.6:
        return list(rng.choice(HONOR_SETS))
    return [rng.randrange(34)] * 3


def _shaped(rng: random.Random, size: int, wind_sets: bool) -> list[int]:
    """A complete shape of ``size`` (14 - 3 × melds) tiles, or near one."""
    c = [0] * 34
    r = rng.random()
    if size == 14 and r < 0.15:
        for _ in range(7):
            c[rng.randrange(34)] += 2
    elif size == 14 and r < 0.2:
        _add(c, ORPHANS)
        c[rng.choice(ORPHANS)] += 1
    else:
        c[rng.randrange(34)] += 2
        for _ in range((size - 2) // 3):
            _add(c, _set(rng, wind_sets))
    return c


def random_hand(
    rng: random.Random,
    *,
    size: int = 14,
    wilds: Sequence[int] = (),
    wind_sets: bool = False,
) -> list[int]:
    """One hand of ``size`` tiles as 34 counts, each count at most 4."""
    while True:
        if rng.random() < 0.55:
            c = _shaped(rng, size + (size % 3 == 1), wind_sets)
            if size % 3 == 1:
                held = [k for k in range(34) if c[k]]
                c[rng.choice(held)] -= 1
            if rng.random() < 0.4:
                held = [k for k in range(34) if c[k]]
                c[rng.choice(held)] -= 1
                c[rng.randrange(34)] += 1
        else:
            c = [0] * 34
            for t in rng.sample(range(136), size):
                c[t // 4] += 1
        if wilds and rng.random() < 0.7:
            for _ in range(rng.randint(1, 3)):
                held = [k for k in range(34) if c[k] and k not in wilds]
                if held:
                    c[rng.choice(held)] -= 1
                    c[rng.choice(list(wilds))] += 1
        if max(c) <= 4:
            return c
