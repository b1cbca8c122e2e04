"""Who sits where at each table of an arena's deal."""

from __future__ import annotations

__all__ = ["table_entries"]


def table_entries(specs: list[str], fmt: str) -> list[list[int]]:
    """The line-up entry at each seat of each table (as the core's
    ``arena::tables``: rotations, then the 1-vs-3 reference table)."""
    if fmt == "single":
        return [[0, 1, 2, 3]]
    t = [[(s - r) % 4 for s in range(4)] for r in range(4)]
    counts = [specs.count(s) for s in specs]
    if 3 in counts and 1 in counts:
        t.append([counts.index(3)] * 4)
    return t
