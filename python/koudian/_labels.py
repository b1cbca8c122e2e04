"""How a run names its agents: ``simulate``'s summary and the arena's
line-up read the same spec the same way.

``cmd:python3 -u bots/my_bot.py --x 1`` reads ``cmd:my_bot.py``; a
Python agent its class name (the arena: its ``name`` attribute first, so
that equal agents pool).
"""

from __future__ import annotations

from collections.abc import Sequence

from koudian.agents import AgentSpec

__all__ = ["agent_labels", "pooled_labels", "spec_label"]

_INTERPRETERS = ("python", "python3", "pypy", "pypy3", "node", "ruby", "perl", "sh", "bash")


def spec_label(spec: AgentSpec) -> str:
    """``cmd:python3 -u bots/my_bot.py --x 1`` reads ``cmd:my_bot.py``: the
    program or script file without its folder; an object its class name."""
    if not isinstance(spec, str):
        return type(spec).__name__
    if not spec.startswith("cmd:"):
        return spec
    import shlex

    try:
        words = shlex.split(spec[4:])
    except ValueError:
        words = spec[4:].split()
    words = [w.replace("\\", "/").rsplit("/", 1)[-1] for w in words]
    rest = [w for w in words if not w.startswith("-")]
    if rest and rest[0].rstrip("0123456789.") in _INTERPRETERS and len(rest) > 1:
        rest = rest[1:]  # the script, not its interpreter
    return "cmd:" + (rest[0] if rest else spec[4:].strip())


def agent_labels(agents: Sequence[AgentSpec]) -> list[str]:
    """Readable, distinct names of the seats' agents for a summary: equal
    names are numbered (``cmd:my_bot.py #1``, ``cmd:my_bot.py #2``), except
    built-in names, whose equal agents play alike."""
    labels = [spec_label(a) for a in agents]
    for name in set(labels):
        seats = [s for s, x in enumerate(labels) if x == name]
        if len(seats) > 1 and (name.startswith("cmd:") or not isinstance(agents[seats[0]], str)):
            for k, s in enumerate(seats, 1):
                labels[s] = f"{name} #{k}"
    return labels


def pooled_labels(agents: Sequence[AgentSpec]) -> list[str]:
    """The arena's names of its agents, equal names pooled as one agent: a
    spec itself, a Python agent's ``name`` attribute if it has one, else
    its class."""
    return [
        a if isinstance(a, str) else str(getattr(a, "name", "") or spec_label(a)) for a in agents
    ]
