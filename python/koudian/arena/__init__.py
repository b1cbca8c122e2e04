"""The duplicate arena: is my bot better than yesterday's?

Every seeded deal (wall, dealer, wild kinds) is played by several tables.
In the duplicate format the line-up is rotated through the seats, so each
agent plays each seat of each deal once; for a 1-vs-3 line-up
(``A,B,B,B``) the same deals are also played by the reference table
``B,B,B,B``, and A's advantage on a deal and seat is A's settlement minus
B's settlement in that seat at the reference table. Every agent's
randomness is seeded by the deal and the seat, never by which agent sits
there (common random numbers): a hand in which A plays as B would is
identical at both tables, and its difference is exactly zero. That, more
than the rotation, is what narrows the interval.

Intervals are 95% normal intervals over deals (paired: each deal's value
is the mean over its tables, so the deal's luck cancels). For a 1-vs-3
line-up against three ``greedy``, the luck of the wall is also taken out
(``luck="auto"``, docs/arena.md "The luck of the wall"): each departure
of the lone agent from greedy's choice is judged on many shuffles of the
undrawn wall rather than the one the hand had, which narrows the interval
of the same mean about twofold for a search agent. Native agents
(``random``, ``greedy``, ``mc``, ``mc:rollouts=200``) are played in Rust
(``koudian._core.arena_native``); Python and ``cmd:`` external agents
through the Python game loop, with the same seeds.

The package, one concept a module: ``running`` (``arena`` and ``ladder``:
checks, and the records gathered), ``play`` (where the deals are played:
natively in chunks, through the Python game loop, or on Ray),
``chunks`` (one native chunk of deals, recorded or not), ``layout`` (who
sits where at each table), ``results`` (``ArenaResult``,
``LadderResult`` and their statistics), ``stats`` (the intervals),
``luck`` (the luck correction's weight) and ``cli`` (``koudian arena``).
Every public name is importable from ``koudian.arena``; ``koudian.arena``
itself, as an attribute of ``koudian``, is the function ``arena``.
"""

from __future__ import annotations

# The functions load at once (their module imports nothing heavy: `import
# koudian` imports this package to bind `koudian.arena` to the function);
# the result classes, which need numpy, on first use (PEP 562).
from koudian.arena.running import LUCK_WALLS, arena, ladder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from koudian.arena.cli import add_subparser
    from koudian.arena.luck import MIN_LUCK_DEALS
    from koudian.arena.results import (
        AgentStats,
        ArenaFault,
        ArenaInterrupted,
        ArenaResult,
        LadderInterrupted,
        LadderResult,
        LadderRung,
        PairStats,
    )

__all__ = [
    "LUCK_WALLS",
    "MIN_LUCK_DEALS",
    "AgentStats",
    "ArenaFault",
    "ArenaInterrupted",
    "ArenaResult",
    "LadderInterrupted",
    "LadderResult",
    "LadderRung",
    "PairStats",
    "add_subparser",
    "arena",
    "ladder",
]

_LAZY = {
    "MIN_LUCK_DEALS": "koudian.arena.luck",
    "AgentStats": "koudian.arena.results",
    "ArenaFault": "koudian.arena.results",
    "ArenaInterrupted": "koudian.arena.results",
    "ArenaResult": "koudian.arena.results",
    "LadderInterrupted": "koudian.arena.results",
    "LadderResult": "koudian.arena.results",
    "LadderRung": "koudian.arena.results",
    "PairStats": "koudian.arena.results",
    "add_subparser": "koudian.arena.cli",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'koudian.arena' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
