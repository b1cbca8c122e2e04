"""koudian: rules engine for Shanxi 扣点点, Linxian 抠点 and Sichuan mahjong.

Tiles are ``Tile`` members (ints 0..33); hands are notation strings
(``"123m456p789s11z"``), tile sequences, or 34 counts. ``rules=`` takes a
preset name (``"shanxi"``, ``"shanxi-haozi"``, ``"linxian"``, ``"sichuan"``
…) or a ``Ruleset``. Every function is documented in ``koudian/_core.pyi``.

>>> import koudian
>>> koudian.is_win("123m456p789s11122z")
True
>>> koudian.fmt(koudian.parse("3m12m 东🀄"))
'123m17z'
>>> koudian.waits("123m456p789s1155z")
[Tile.EAST, Tile.WHITE]
"""

from __future__ import annotations

from koudian._core import (
    ENCODING_VERSION,
    Action,
    Decomposition,
    DiscardOption,
    Hand,
    HandValue,
    Hidden,
    IllegalActionError,
    InconsistentOutcomeError,
    InvalidHandError,
    InvalidLogError,
    InvalidPositionError,
    InvalidTilesError,
    Kong,
    KoudianError,
    MatchState,
    Meld,
    MeldKind,
    ModelError,
    NativeAgent,
    NnModel,
    Observation,
    Outcome,
    Pattern,
    Payment,
    RankedAction,
    Ruleset,
    RulesetError,
    SeenDiscard,
    SeenMeld,
    Set,
    Settlement,
    VecEnv,
    Win,
    __version__,
    can_declare_ting,
    chajiao_value,
    decompose,
    discard_options,
    encoding_planes,
    fmt,
    from_counts,
    glyphs,
    hand_value,
    is_win,
    is_win_batch,
    may_win,
    mix_seed,
    parse,
    rank_actions,
    sample_hidden,
    settle,
    shanten,
    shanten_batch,
    ting_kong_allowed,
    to_counts,
    to_counts_batch,
    wait_points,
    waits,
    waits_batch,
    winning_tile_points,
)

# `koudian.arena` is the function `arena` and `koudian/arena/` the package
# it lives in. Importing a submodule binds its parent's attribute to it, so
# the package is imported here, first, and the name bound back to the
# function (its module imports only the binding at load); later imports of
# `koudian.arena` find the package loaded and leave the attribute alone.
from koudian.arena import arena, ladder
from koudian.tiles import Suit, Tile

# `typing` costs milliseconds to import; only type checkers need it here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from koudian import cluster as cluster
    from koudian import dataset as dataset
    from koudian import env as env
    from koudian import logs as logs
    from koudian import vector as vector
    from koudian.agents import Agent, AgentError, Fault, GreedyAgent, RandomAgent
    from koudian.arena.results import ArenaResult, LadderResult
    from koudian.game import Game, GameResult, play, replay
    from koudian.logs import read_logs
    from koudian.match import Match
    from koudian.protocol import ExternalAgent
    from koudian.simulation import SimulationResult, simulate

# The table layer (game.py, agents.py, match.py, simulation.py) imports
# numpy and more; it loads on first use so that `import koudian` stays
# within its few-millisecond budget (PEP 562 module __getattr__).
_LAZY = {
    "Agent": "koudian.agents",
    "AgentError": "koudian.agents",
    "ExternalAgent": "koudian.protocol",
    "Fault": "koudian.agents",
    "ArenaResult": "koudian.arena.results",
    "LadderResult": "koudian.arena.results",
    "GreedyAgent": "koudian.agents",
    "RandomAgent": "koudian.agents",
    "Game": "koudian.game",
    "GameResult": "koudian.game",
    "play": "koudian.game",
    "replay": "koudian.game",
    "Match": "koudian.match",
    "SimulationResult": "koudian.simulation",
    "simulate": "koudian.simulation",
    "read_logs": "koudian.logs",
}

# Submodules reached as attributes after a bare `import koudian`
# (`koudian.env.env("shanxi")`), imported on first use like the names above:
# koudian.env needs pettingzoo and gymnasium, koudian.vector gymnasium (the
# `rl` extra); koudian.dataset pyarrow on first use (`data`), koudian.cluster
# Ray (`ray`).
_LAZY_MODULES = {
    "env": "koudian.env",
    "vector": "koudian.vector",
    "dataset": "koudian.dataset",
    "logs": "koudian.logs",
    "cluster": "koudian.cluster",
}


def __getattr__(name: str) -> Any:
    submodule = _LAZY_MODULES.get(name)
    module = _LAZY.get(name)
    if submodule is None and module is None:
        raise AttributeError(f"module 'koudian' has no attribute {name!r}")
    import importlib

    if submodule is not None:
        try:
            return importlib.import_module(submodule)  # also sets globals()[name]
        except ImportError as e:
            # An AttributeError, so that hasattr(koudian, "env") is False
            # without the extra; the message carries the install hint
            # (`from koudian import env` raises the ImportError itself).
            raise AttributeError(f"koudian.{name} is unavailable: {e}") from e
    assert module is not None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_LAZY_MODULES))


__all__ = [
    "ENCODING_VERSION",
    "Action",
    "Agent",
    "AgentError",
    "ArenaResult",
    "Decomposition",
    "DiscardOption",
    "ExternalAgent",
    "Fault",
    "Game",
    "GameResult",
    "GreedyAgent",
    "Hand",
    "HandValue",
    "Hidden",
    "IllegalActionError",
    "InconsistentOutcomeError",
    "InvalidHandError",
    "InvalidLogError",
    "InvalidPositionError",
    "InvalidTilesError",
    "Kong",
    "KoudianError",
    "LadderResult",
    "Match",
    "MatchState",
    "Meld",
    "MeldKind",
    "ModelError",
    "NativeAgent",
    "NnModel",
    "Observation",
    "Outcome",
    "Pattern",
    "Payment",
    "RandomAgent",
    "RankedAction",
    "Ruleset",
    "RulesetError",
    "SeenDiscard",
    "SeenMeld",
    "Set",
    "Settlement",
    "SimulationResult",
    "Suit",
    "Tile",
    "VecEnv",
    "Win",
    "__version__",
    "arena",
    "can_declare_ting",
    "chajiao_value",
    "decompose",
    "discard_options",
    "encoding_planes",
    "fmt",
    "from_counts",
    "glyphs",
    "hand_value",
    "is_win",
    "is_win_batch",
    "ladder",
    "may_win",
    "mix_seed",
    "parse",
    "play",
    "rank_actions",
    "read_logs",
    "replay",
    "sample_hidden",
    "settle",
    "shanten",
    "shanten_batch",
    "simulate",
    "ting_kong_allowed",
    "to_counts",
    "to_counts_batch",
    "wait_points",
    "waits",
    "waits_batch",
    "winning_tile_points",
]
