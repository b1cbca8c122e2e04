"""Tiles (RULES.md §1): the 34 kinds as an ``IntEnum``, with their points.

``Tile`` members are ints (``Tile.M1 == 0`` … ``Tile.RED == 33``), so they
index numpy count arrays directly; ``str(tile)`` is notation (``"5m"``).
Every property comes from the Rust core, which is the single source of
truth for points, glyphs and names.
"""

from __future__ import annotations

from enum import Enum, IntEnum

from koudian._core import _tile_table

__all__ = ["Suit", "Tile"]

_TABLE = _tile_table()


class Suit(str, Enum):
    """The three suits and the honors, valued by their notation letter."""

    MAN = "m"
    """万 characters."""
    PIN = "p"
    """筒 dots."""
    SOU = "s"
    """条 bamboo."""
    HONOR = "z"
    """字 honors."""

    def __str__(self) -> str:
        return self.value


class Tile(IntEnum):
    """One of the 34 tile kinds; an int ``0..33`` in the shared index order."""

    M1 = 0
    M2 = 1
    M3 = 2
    M4 = 3
    M5 = 4
    M6 = 5
    M7 = 6
    M8 = 7
    M9 = 8
    P1 = 9
    P2 = 10
    P3 = 11
    P4 = 12
    P5 = 13
    P6 = 14
    P7 = 15
    P8 = 16
    P9 = 17
    S1 = 18
    S2 = 19
    S3 = 20
    S4 = 21
    S5 = 22
    S6 = 23
    S7 = 24
    S8 = 25
    S9 = 26
    EAST = 27
    SOUTH = 28
    WEST = 29
    NORTH = 30
    WHITE = 31
    GREEN = 32
    RED = 33

    @property
    def points(self) -> int:
        """Points (点数): a suited tile's rank, 10 for every honor."""
        return _TABLE[self][3]

    @property
    def suit(self) -> Suit:
        """The suit (``Suit.MAN`` …) or ``Suit.HONOR``."""
        return Suit(_TABLE[self][4])

    @property
    def rank(self) -> int:
        """Rank 1-9 for suited tiles, 1-7 for honors (东南西北白发中)."""
        return _TABLE[self][5]

    @property
    def glyph(self) -> str:
        """The Unicode tile glyph (U+1F000 block)."""
        return _TABLE[self][1]

    @property
    def chinese(self) -> str:
        """The Chinese name: ``一万``, ``五筒``, ``东``, ``中`` …"""
        return _TABLE[self][2]

    @property
    def notation(self) -> str:
        """Notation: ``"5m"``, ``"7z"``."""
        return _TABLE[self][0]

    @property
    def is_honor(self) -> bool:
        """Whether this is an honor (字牌)."""
        return self >= 27

    @classmethod
    def parse(cls, s: str) -> Tile:
        """Exactly one tile from notation, a glyph or a Chinese name."""
        from koudian._core import parse

        tiles = parse(s)
        if len(tiles) != 1:
            from koudian._core import InvalidTilesError

            raise InvalidTilesError(f"{s!r} is {len(tiles)} tiles, expected exactly one")
        return tiles[0]

    def __str__(self) -> str:
        return _TABLE[self][0]

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"Tile.{self.name}"
