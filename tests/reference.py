"""Deliberately simple brute-force references for the tests (docs/rules.md §2).

No tables, no cleverness: a recursive search that takes the lowest natural
tile left and tries every group it could belong to, with wild tiles filling
any missing member. Slow, but small enough to check by eye.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
#: 风嘴子 sets: any 3 different winds, or the three dragons.
HONOR_SETS = ((27, 28, 29), (27, 28, 30), (27, 29, 30), (28, 29, 30), (31, 32, 33))


def points(kind: int) -> int:
    """docs/rules.md §1: a suited tile is worth its rank, an honor 10."""
    return 10 if kind >= 27 else kind % 9 + 1


def _groups_with(i: int, wind_sets: bool) -> list[tuple[int, int, int]]:
    """Every sequence (or 风嘴子 set) of three different kinds holding ``i``."""
    out = []
    if i < 27:
        for start in (i - 2, i - 1, i):
            if start >= 0 and start // 9 == i // 9 and start % 9 <= 6:
                out.append((start, start + 1, start + 2))
    elif wind_sets:
        out.extend(g for g in HONOR_SETS if i in g)
    return out


@cache
def _sets(c: tuple[int, ...], w: int, pair_left: bool, wind_sets: bool) -> bool:
    """Can natural counts ``c`` plus ``w`` wild tiles be split into sets
    (and one pair when ``pair_left``), every natural tile used?"""
    i = next((k for k, n in enumerate(c) if n), None)
    if i is None:
        # Only wild tiles remain: they make sets (and the pair) on their own.
        return w % 3 == 2 if pair_left else w % 3 == 0
    cl = list(c)
    # The pair, with 1 or 2 natural copies of i.
    if pair_left:
        for nat in (1, 2):
            if c[i] >= nat and w >= 2 - nat:
                cl[i] -= nat
                ok = _sets(tuple(cl), w - (2 - nat), False, wind_sets)
                cl[i] += nat
                if ok:
                    return True
    # A triplet of i, with 1 to 3 natural copies.
    for nat in (1, 2, 3):
        if c[i] >= nat and w >= 3 - nat:
            cl[i] -= nat
            ok = _sets(tuple(cl), w - (3 - nat), pair_left, wind_sets)
            cl[i] += nat
            if ok:
                return True
    # A group of three different kinds holding i; each other member is a
    # natural tile when there is one, or a wild tile (try both).
    for group in _groups_with(i, wind_sets):
        others = [k for k in group if k != i]
        for use_natural in ((True, True), (True, False), (False, True), (False, False)):
            need_wild = 0
            taken = []
            feasible = True
            for k, nat in zip(others, use_natural, strict=False):
                if nat:
                    if cl[k] == 0:
                        feasible = False
                        break
                    taken.append(k)
                else:
                    need_wild += 1
            if not feasible or need_wild > w:
                continue
            cl[i] -= 1
            for k in taken:
                cl[k] -= 1
            ok = _sets(tuple(cl), w - need_wild, pair_left, wind_sets)
            cl[i] += 1
            for k in taken:
                cl[k] += 1
            if ok:
                return True
    return False


def split(counts: Sequence[int], wilds: Sequence[int]) -> tuple[list[int], int]:
    """Natural counts and the number of wild tiles held."""
    nat = list(counts)
    w = 0
    for k in wilds:
        w += nat[k]
        nat[k] = 0
    return nat, w


def wins_natural(
    nat: Sequence[int],
    w: int,
    n_melds: int,
    *,
    seven_pairs: bool,
    thirteen_orphans: bool,
    wind_sets: bool,
) -> bool:
    """Whether natural counts plus ``w`` wild tiles and ``n_melds`` melds
    (``14 - 3 × melds`` tiles in all) form a winning shape."""
    if _sets(tuple(nat), w, True, wind_sets):
        return True
    if n_melds:
        return False
    if seven_pairs:
        # Each kind gives count // 2 pairs (a 4-of-a-kind is two pairs);
        # an odd count leaves one tile that needs a wild partner. With 14
        # tiles in all, the wild tiles left over pair among themselves.
        singles = sum(n % 2 for n in nat)
        if singles <= w:
            return True
    if thirteen_orphans:
        # Every natural tile an orphan kind, at most one kind doubled; the
        # wild tiles then exactly fill the missing kinds (and the pair).
        if all(n == 0 for k, n in enumerate(nat) if k not in ORPHANS):
            if all(nat[k] <= 2 for k in ORPHANS) and sum(nat[k] == 2 for k in ORPHANS) <= 1:
                return True
    return False


def is_win(
    counts: Sequence[int],
    n_melds: int = 0,
    wilds: Sequence[int] = (),
    *,
    seven_pairs: bool = True,
    thirteen_orphans: bool = True,
    wind_sets: bool = False,
) -> bool:
    """Reference win check of a complete hand (wild tiles at their index)."""
    nat, w = split(counts, wilds)
    return wins_natural(
        nat,
        w,
        n_melds,
        seven_pairs=seven_pairs,
        thirteen_orphans=thirteen_orphans,
        wind_sets=wind_sets,
    )


def waits(
    counts: Sequence[int],
    n_melds: int = 0,
    wilds: Sequence[int] = (),
    held: Sequence[int] | None = None,
    **rules: bool,
) -> dict[int, int]:
    """Reference waits with points (docs/rules.md §2 "Waits and ready"): try
    every kind the player holds fewer than 4 of; a wild wait is worth the
    best kind a wild tile could stand for there (a 5th copy included)."""
    held = counts if held is None else held
    nat, w = split(counts, wilds)
    out: dict[int, int] = {}
    for k in range(34):
        if held[k] >= 4:
            continue
        if k in wilds:
            stand_for = [
                t
                for t in range(34)
                if wins_natural([n + (j == t) for j, n in enumerate(nat)], w, n_melds, **rules)
            ]
            if stand_for:
                out[k] = max(points(t) for t in stand_for)
        else:
            nat[k] += 1
            if wins_natural(nat, w, n_melds, **rules):
                out[k] = points(k)
            nat[k] -= 1
    return out


def suits_held(*counts: Sequence[int]) -> int:
    """How many of the three suits the count arrays hold together."""
    return sum(any(c[k] for c in counts for k in range(9 * s, 9 * s + 9)) for s in range(3))


def sichuan_is_win(
    counts: Sequence[int], n_melds: int = 0, meld_counts: Sequence[int] = (0,) * 34, **rules: bool
) -> bool:
    """Reference Sichuan win (docs/rules.md §5): a winning shape whose tiles,
    melds included, lack one of the three suits (缺一门)."""
    return is_win(counts, n_melds, **rules) and suits_held(counts, meld_counts) < 3


def sichuan_waits(
    counts: Sequence[int], n_melds: int = 0, meld_counts: Sequence[int] = (0,) * 34, **rules: bool
) -> dict[int, int]:
    """Reference Sichuan waits: the shape's waits whose addition leaves the
    hand (melds included) lacking a suit."""
    held = [a + b for a, b in zip(counts, meld_counts, strict=True)]
    out = waits(counts, n_melds, held=held, **rules)
    return {k: p for k, p in out.items() if suits_held(held, [int(j == k) for j in range(34)]) < 3}
