"""koudian: rules engine for Shanxi 扣点点, Linxian 抠点 and Sichuan mahjong."""

from koudian._core import (
    IllegalActionError,
    InconsistentOutcomeError,
    InvalidHandError,
    InvalidTilesError,
    KoudianError,
    RulesetError,
    __version__,
)

__all__ = [
    "IllegalActionError",
    "InconsistentOutcomeError",
    "InvalidHandError",
    "InvalidTilesError",
    "KoudianError",
    "RulesetError",
    "__version__",
]
