"""Who sits where at each table of an arena's deal: the core's rule."""

from __future__ import annotations

from koudian._core import arena_tables

__all__ = ["table_entries"]


def table_entries(specs: list[str], fmt: str) -> list[list[int]]:
    """The line-up entry at each seat of each table: the core's
    ``arena::tables`` (rotations, then the 1-vs-3 reference table)."""
    return arena_tables(specs, fmt)
