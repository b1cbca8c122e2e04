"""koudian: rules engine for Shanxi 扣点点, Linxian 抠点 and Sichuan mahjong.

Tiles are ``Tile`` members (ints 0..33); hands are notation strings
(``"123m456p789s11z"``), tile sequences, or 34 counts. ``rules=`` takes a
preset name (``"shanxi"``, ``"shanxi-haozi"``, ``"linxian"``, ``"sichuan"``
…) or a ``Ruleset``.

>>> import koudian
>>> koudian.is_win("123m456p789s11122z")
True
>>> koudian.fmt(koudian.parse("3m12m 东🀄"))
'123m17z'
"""

from koudian._core import (
    Decomposition,
    Hand,
    IllegalActionError,
    InconsistentOutcomeError,
    InvalidHandError,
    InvalidTilesError,
    KoudianError,
    Meld,
    MeldKind,
    Ruleset,
    RulesetError,
    Set,
    __version__,
    decompose,
    fmt,
    from_counts,
    glyphs,
    is_win,
    is_win_batch,
    parse,
    to_counts,
)
from koudian.tiles import Suit, Tile

__all__ = [
    "Decomposition",
    "Hand",
    "IllegalActionError",
    "InconsistentOutcomeError",
    "InvalidHandError",
    "InvalidTilesError",
    "KoudianError",
    "Meld",
    "MeldKind",
    "Ruleset",
    "RulesetError",
    "Set",
    "Suit",
    "Tile",
    "__version__",
    "decompose",
    "fmt",
    "from_counts",
    "glyphs",
    "is_win",
    "is_win_batch",
    "parse",
    "to_counts",
]
