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

# The table, agents, matches and self-play (game.py, agents.py, match.py,
# simulation.py; env.py and protocol.py are imported on demand).
from koudian._core import (
    Action,
    Decomposition,
    DiscardOption,
    Hand,
    HandValue,
    IllegalActionError,
    InconsistentOutcomeError,
    InvalidHandError,
    InvalidTilesError,
    Kong,
    KoudianError,
    Meld,
    MeldKind,
    NativeAgent,
    Observation,
    Outcome,
    Pattern,
    Payment,
    Ruleset,
    RulesetError,
    Set,
    Settlement,
    Win,
    __version__,
    can_declare_ting,
    decompose,
    discard_options,
    fmt,
    from_counts,
    glyphs,
    hand_value,
    is_win,
    is_win_batch,
    may_win,
    mix_seed,
    parse,
    settle,
    shanten,
    shanten_batch,
    ting_kong_allowed,
    to_counts,
    wait_points,
    waits,
    waits_batch,
    winning_tile_points,
)
from koudian.agents import Agent, GreedyAgent, RandomAgent
from koudian.game import Game, GameResult, play, replay
from koudian.match import Match
from koudian.simulation import SimulationResult, simulate
from koudian.tiles import Suit, Tile

__all__ = [
    "Action",
    "Agent",
    "Decomposition",
    "DiscardOption",
    "Game",
    "GameResult",
    "GreedyAgent",
    "Hand",
    "HandValue",
    "IllegalActionError",
    "InconsistentOutcomeError",
    "InvalidHandError",
    "InvalidTilesError",
    "Kong",
    "KoudianError",
    "Match",
    "Meld",
    "MeldKind",
    "NativeAgent",
    "Observation",
    "Outcome",
    "Pattern",
    "Payment",
    "RandomAgent",
    "Ruleset",
    "RulesetError",
    "Set",
    "Settlement",
    "SimulationResult",
    "Suit",
    "Tile",
    "Win",
    "__version__",
    "can_declare_ting",
    "decompose",
    "discard_options",
    "fmt",
    "from_counts",
    "glyphs",
    "hand_value",
    "is_win",
    "is_win_batch",
    "may_win",
    "mix_seed",
    "parse",
    "play",
    "replay",
    "settle",
    "shanten",
    "shanten_batch",
    "simulate",
    "ting_kong_allowed",
    "to_counts",
    "wait_points",
    "waits",
    "waits_batch",
    "winning_tile_points",
]
