"""A Python agent that plays as a native one (the arena tests)."""

from __future__ import annotations

from collections.abc import Sequence

from koudian import Action, NativeAgent, Observation


class Wrapped:
    """A Python agent that plays as a native one: the Python path of the
    arena must then give exactly the native path's records."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._native = NativeAgent(name, 0)

    def reset(self, seed: int) -> None:
        self._native.reset(seed)

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        return self._native.act(observation)
