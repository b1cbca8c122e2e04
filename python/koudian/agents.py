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
from functools import lru_cache
from typing import Protocol, runtime_checkable

from koudian._core import Action, NativeAgent, Observation, RulesetError, nn_default_models
from koudian.faults import Fault, fallback_action

__all__ = [
    "BUILTIN_AGENTS",
    "Agent",
    "AgentError",
    "AgentSpec",
    "Fault",
    "GreedyAgent",
    "NativeAgentBase",
    "RandomAgent",
    "agents_help",
    "fallback_action",
    "make_agent",
    "native_agent",
    "native_name",
]

BUILTIN_AGENTS: tuple[str, ...] = ("random", "greedy", "mc") + (
    ("nn",) if nn_default_models() else ()
)
"""The names of the Rust core's agents, the one list every help text and
error names (``mc`` also takes ``mc:rollouts=N`` and
``mc:budget=fast|default|strong``; the learned agent ``nn`` is listed when
the build embeds a default model, and ``nn:PATH`` plays any model file);
tests check the core knows each."""


def agents_help(extra: str = 'cmd:"python my_bot.py"') -> str:
    """The agents a command takes, for its help text: every built-in
    name, then ``extra`` (the other specs that command accepts)."""
    specs = [*BUILTIN_AGENTS, "mc:rollouts=200", "nn:PATH[:temp=T]"]
    return ", ".join([*specs, *([extra] if extra else [])])


class AgentError(RulesetError):
    """An agent spec that names no agent: an unknown built-in name or
    bad ``mc:`` parameters. A ``RulesetError`` too, as it was before it
    had its own class, so ``except RulesetError`` still catches it."""


def native_agent(name: str, seed: int = 0) -> NativeAgent:
    """The core agent ``name``; ``AgentError`` (naming the available
    agents) for a name the core does not know. The one place agent names
    are checked: the core raises ``RulesetError``, mapped here rather than
    in the binding."""
    try:
        return NativeAgent(name, seed)
    except AgentError:
        raise
    except RulesetError as e:
        raise AgentError(str(e)) from None


@lru_cache(maxsize=64)
def _check_name(name: str) -> None:
    """Caches the names found good: simulate checks its specs per call."""
    native_agent(name)


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
        self._native = native_agent(self.name, seed)

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
    """The core agent name when ``agent`` runs entirely in Rust, else None;
    ``AgentError`` for a name the core does not know."""
    if isinstance(agent, str):
        if agent.startswith("cmd:"):
            return None
        _check_name(agent)
        return agent
    if isinstance(agent, NativeAgentBase) and type(agent) in _BUILTIN.values():
        return agent.name
    return None


def loop_agent(agent: Agent) -> object:
    """What the core's game loop is given for ``agent``: a built-in
    agent's ``NativeAgent`` itself (played without building observations,
    the same answers and resets), any other agent as it is."""
    if type(agent) in _BUILTIN.values() or type(agent) is NativeAgentBase:
        return agent._native  # type: ignore[attr-defined]
    return agent


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
    NativeAgentBase.__init__(agent)  # raises AgentError for unknown names
    return agent
