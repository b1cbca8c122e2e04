"""Measuring a model in the duplicate arena, 1 vs 3 against greedy with
the luck of the wall taken out: through the core's ``nn:PATH`` agent
where this build has it, else through ``NetAgent``, the same net in
numpy behind the Python ``Agent`` protocol (the same decisions: greedy
decoding, ties to the lowest index; slower)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from koudian._core import Action, KoudianError, NativeAgent, Observation
from koudian.train.export import load
from koudian.train.model import family_index, features, forward_numpy


class NetAgent:
    """A model file's policy as a Python agent (argmax of the legal
    logits) for the rules of family ``family``."""

    def __init__(self, path: str | os.PathLike[str], family: str) -> None:
        self.params, meta = load(path)
        if meta.get("encoding_version") != 2:
            raise KoudianError(
                f"{path}: NetAgent plays encoding version 2 models from observations; this "
                f"one reads version {meta.get('encoding_version')!r} (play it as nn:PATH)"
            )
        self.family = np.array([family_index(family)], np.int64)
        self.name = f"nn:{os.fspath(path)}"

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        # An observation has no look-ahead planes (version 3 is written
        # from the table): only a version 2 model plays from it.
        planes = observation.planes(version=2, dtype="uint8")[None]
        logits, _ = forward_numpy(self.params, features(planes, self.family))
        mask = np.asarray(observation.action_mask, bool)
        best = int(np.argmax(np.where(mask, logits[0], -np.inf)))
        return Action.from_index(best)


def native_nn(path: str | os.PathLike[str] | None = None) -> bool:
    """Whether this build's core plays the model file ``path`` (or, with
    none, has a default ``nn`` model)."""
    try:
        NativeAgent("nn" if path is None else f"nn:{os.fspath(path)}", 0)
    except KoudianError:  # an unknown agent, or no such model
        return False
    return True


def arena_vs_greedy(
    path: str | os.PathLike[str],
    rules: str,
    deals: int,
    seed: int,
    threads: int = 1,
    native: bool | None = None,
) -> dict[str, Any]:
    """The model against three greedy seats on ``deals`` deals of preset
    ``rules`` from ``seed``: its advantage per hand with the luck taken
    out and as played, each with its 95% interval, as the arena reports
    them (``ArenaResult.to_json()``'s pair), and the run's settings."""
    import koudian

    use_native = native_nn(path) if native is None else native
    agent: Any = f"nn:{os.fspath(path)}" if use_native else NetAgent(path, _family(rules))
    r = koudian.arena(
        [agent, "greedy", "greedy", "greedy"], rules, deals, seed=seed, threads=threads
    )
    out = r.to_json()
    return {
        "rules": rules,
        "deals": deals,
        "seed": seed,
        "agent": "nn (native)" if use_native else "nn (numpy)",
        "result": out,
    }


def _family(rules: str) -> str:
    from koudian._core import Ruleset

    return str(Ruleset.preset(rules).family)
