"""Agents: the ``Agent`` protocol and the built-in agents.

An agent is any object with ``act(observation, legal_actions) -> Action``.
It may also define ``reset(seed)``, which drivers (``koudian.Match``,
``koudian.simulate``) call before every hand with a seed derived from the
hand's seed, so that an agent's randomness depends only on the game.

The built-in agents ``RandomAgent`` and ``GreedyAgent`` delegate every
decision to the Rust core's agents (``koudian.NativeAgent``), so a game
they play from Python is move for move the game native self-play plays
with the same seeds.

Faults: when an agent returns something that is not one of its legal
actions, drivers play the fallback instead (``fallback_action``: the first
legal action in dense index order other than ``leave``, the same rule as
native self-play) and record a ``Fault``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from koudian._core import Action, NativeAgent, Observation
from koudian.faults import Fault, fallback_action

__all__ = [
    "Agent",
    "AgentSpec",
    "Fault",
    "GreedyAgent",
    "NativeAgentBase",
    "RandomAgent",
    "fallback_action",
    "make_agent",
    "native_name",
]


@runtime_checkable
class Agent(Protocol):
    """A player: given a seat's observation and its legal actions, one action."""

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Chooses one of ``legal_actions``."""
        ...


class NativeAgentBase:
    """A built-in agent of the Rust core, behind the ``Agent`` protocol.

    ``act`` needs an observation taken from a ``koudian.Game`` that has not
    moved since (``game.observe(seat)``); the core agent then sees exactly
    what it sees in native self-play.
    """

    name: str = ""

    def __init__(self, seed: int = 0) -> None:
        self._native = NativeAgent(self.name, seed)

    def reset(self, seed: int) -> None:
        """Reseeds the agent."""
        self._native.reset(seed)

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """The core agent's choice."""
        return self._native.act(observation)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class RandomAgent(NativeAgentBase):
    """Uniformly random legal action (never ``leave``); the Rust ``random``."""

    name = "random"


class GreedyAgent(NativeAgentBase):
    """The Rust ``greedy`` baseline: minimizes shanten, maximizes waits,
    declares ting as soon as allowed, wins whenever allowed."""

    name = "greedy"


_BUILTIN: dict[str, type[NativeAgentBase]] = {"random": RandomAgent, "greedy": GreedyAgent}

AgentSpec = str | Agent
"""An agent, a built-in name (``"random"``, ``"greedy"``) or an external
bot command (``"cmd:python my_bot.py"``)."""


def native_name(agent: AgentSpec) -> str | None:
    """The core agent name when ``agent`` runs entirely in Rust, else None."""
    if isinstance(agent, str):
        return agent if not agent.startswith("cmd:") else None
    if isinstance(agent, NativeAgentBase) and type(agent) in _BUILTIN.values():
        return agent.name
    return None


def make_agent(spec: AgentSpec, *, timeout: float = 5.0, seat: int = 0) -> Agent:
    """An agent from a spec: an ``Agent`` is returned as is; ``"random"``,
    ``"greedy"`` (or any other core agent name) give a native agent;
    ``"cmd:COMMAND"`` starts an external bot (``koudian.protocol``)."""
    if not isinstance(spec, str):
        return spec
    if spec.startswith("cmd:"):
        from koudian.protocol import ExternalAgent

        return ExternalAgent(spec[4:], timeout=timeout, seat=seat)
    cls = _BUILTIN.get(spec)
    if cls is not None:
        return cls()
    agent = NativeAgentBase.__new__(NativeAgentBase)
    agent.name = spec
    NativeAgentBase.__init__(agent)  # raises RulesetError for unknown names
    return agent
