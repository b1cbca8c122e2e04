"""The table: ``Game`` (one hand, from deal to settlement) and ``play``.

``Game``, ``Action``, ``Observation``, ``GameResult`` and ``replay`` come
from the Rust core (``koudian._core``); every rule lives there. This module
adds the loop that lets agents play a hand::

    >>> import koudian
    >>> g = koudian.Game("shanxi", seed=7)
    >>> result = koudian.play(g, [koudian.RandomAgent() for _ in range(4)])
    >>> sum(result.deltas)
    0

A game is driven one decision at a time: ``g.to_act`` is the seat asked,
``g.legal_actions(seat)`` its exact legal actions (``Action`` values, in
dense index order; ``g.legal_mask(seat)`` the same as a 141-long bool
mask), ``g.observe(seat)`` what that seat may see (``print`` it for the
table as that seat sees it), ``g.step(action)``
plays it (an ``Action``, a dense index, or text such as ``"discard 5m"``).
An illegal action raises ``IllegalActionError`` naming the reason and
changes nothing. ``g.log`` is the JSON Lines record and ``replay(log)``
rebuilds the game from it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from koudian._core import (
    ENCODING_VERSION,
    N_ACTIONS,
    N_PLANES,
    Action,
    ArenaLuck,
    Game,
    GameResult,
    Observation,
    SeenDiscard,
    SeenMeld,
    encoding_planes,
    play_game,
    replay,
)
from koudian.agents import Agent, AgentSpec, Fault, loop_agent, make_agent
from koudian.faults import from_core

__all__ = [
    "ENCODING_VERSION",
    "N_ACTIONS",
    "N_PLANES",
    "Action",
    "Game",
    "GameResult",
    "Observation",
    "SeenDiscard",
    "SeenMeld",
    "encoding_planes",
    "play",
    "replay",
]


def play(
    game: Game,
    agents: Sequence[AgentSpec],
    on_fault: Callable[[Fault], None] | None = None,
    luck: ArenaLuck | None = None,
) -> GameResult:
    """Plays ``game`` to its end with one agent per seat and returns the
    result. ``agents`` are what ``Match`` and ``simulate`` take: ``Agent``
    objects, built-in names (``"random"``, ``"greedy"``) or external bots
    (``"cmd:python my_bot.py"``, started here and stopped at the end).
    The hand is played by the core's game loop, the one every runner
    uses (``koudian._core.play_game``), calling each Python agent's
    ``act``. An agent answering with anything but one of its legal
    actions gets the fallback (``koudian.agents.fallback_action``) played
    for it; ``on_fault`` receives each such ``Fault`` once the hand is
    over (agents that report their own faults, like external bots, are
    asked through ``take_faults``, their faults listed in play order); an
    exception an agent raises stops the hand and is raised unchanged.
    ``luck`` (the arena's) is told of every decision before it is played."""
    if len(agents) != 4:
        raise ValueError(f"give 4 agents, one per seat; got {len(agents)}")
    made = [make_agent(a, seat=s) for s, a in enumerate(agents)]
    try:
        return _play(game, made, on_fault, luck)
    finally:
        for spec, a in zip(agents, made, strict=True):
            close = getattr(a, "close", None)
            if isinstance(spec, str) and close is not None:
                close()  # only the bots this call started


def _play(
    game: Game,
    agents: Sequence[Agent],
    on_fault: Callable[[Fault], None] | None,
    luck: ArenaLuck | None = None,
) -> GameResult:
    # The core's game loop plays the hand (koudian._core.play_game): the
    # fallback, the agents' own faults and Ctrl-C are its.
    faults = play_game(game, [loop_agent(a) for a in agents], luck=luck)
    if on_fault is not None:
        for f in faults:
            on_fault(from_core(f))
    result = game.result
    assert result is not None
    return result
