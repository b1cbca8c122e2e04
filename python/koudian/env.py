"""A PettingZoo AEC environment: one hand of koudian per episode.

Needs the optional extra ``pip install ".[rl]"`` (a checkout) or ``koudian[rl]`` (pettingzoo,
gymnasium); ``import koudian`` alone never imports them.

    >>> from koudian.env import KoudianEnv
    >>> env = KoudianEnv("shanxi")
    >>> env.reset(seed=1)
    >>> obs, reward, terminated, truncated, info = env.last()
    >>> obs["observation"].shape, obs["action_mask"].shape
    ((29, 34), (141,))

Agents are ``player_0`` … ``player_3`` (seat numbers). ``agent_selection``
is the seat the table asks next: the seat on its turn, or a seat answering
a discard or an added kong; the table itself plays moves that leave no
choice. An episode is one hand; ``reset(seed=s)`` deals hand ``s``
(``seed=None`` continues a seeded sequence). At the end every agent gets
its settlement delta (times ``reward_scale``) as reward and is terminated.

Action space: ``Discrete(141)``, the dense ``koudian.Action`` encoding

============  ==========================================================
index         action
============  ==========================================================
0-33          discard tile ``i`` face up
34-67         declare ting (报听), discarding tile ``i - 34`` face down
68-101        concealed kong (暗杠) of tile ``i - 68``
102-135       added kong (补杠) of tile ``i - 102``
136           win (自摸, on the discard, or robbing the kong)
137           pong the discard
138           kong the discard (点杠)
139           pass
140           leave (Linxian 逃跑)
============  ==========================================================

Tiles are kind indices 0-33 (1-9m, 1-9p, 1-9s, 东南西北白发中).
``observation["action_mask"]`` is an ``int8`` mask of the legal actions.

Observation: ``observation["observation"]`` is ``float32`` of shape
``(29, 34)``, one row (plane) per feature, one column per tile kind; "seat
r" means r seats after the observer (0 = the observer itself):

=======  ==============================================================
plane    content
=======  ==============================================================
0-3      own concealed tiles: 1 where the count of the kind is ≥ 1, ≥ 2,
         ≥ 3, = 4
4        the tile just drawn (one-hot)
5-8      melds of seat r: tiles per kind (a hidden concealed kong is
         left out)
9-12     face-up discards of seat r still in the pond, per kind (a
         face-down ting discard shows only to its owner)
13       wild kinds (耗子)
14       face-up tiles still in the wall (wildcard indicators)
15       the tile to answer (a discard or an added kong), one-hot
16-19    all ones if seat r has declared ting
20-23    all ones if seat r is the dealer
24       live tiles left / 136 (all columns)
25       all ones if the observer may still win on a discard (no 过胡)
26-28    all ones if the observer is asked: on its turn / to answer a
         discard / to answer an added kong
=======  ==============================================================

That is encoding version 1, the default. ``KoudianEnv(encoding=2)``
(``koudian.ENCODING_VERSION``, also ``Observation.planes(version=2)`` and
``koudian.VecEnv``) gives 66 planes whose values are all small integers
(the same in ``uint8`` and ``float32``; scale them in the learner):

=======  ==============================================================
plane    content (version 2)
=======  ==============================================================
0-23     as version 1
24       live tiles left, as a count 0-136 (all columns)
25-28    as version 1
29       kinds the observer may not win on a discard because of a
         ``pass_scope = "tile"`` 过胡 lock
30-33    melds claimed from seat r's discard: 1 at the meld's kind (the
         owner is in planes 5-8; a kind has at most one meld at a table)
34-37    concealed tiles held by seat r, as a count (all columns)
38-41    running score of seat r, ``clamp(128 + score, 0, 255)`` (all
         columns; one point a unit, 128 is zero)
42-65    the 6 most recent discards of seat r, newest first (plane
         ``42 + 6r + j`` for the j-th latest): 1 at the kind if face up
         in the pond, 2 if claimed into a meld, 3 for the observer's own
         face-down ting discard; zeros when seat r made fewer discards or
         the discard lies face down out of sight
=======  ==============================================================
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from koudian._core import (
    N_ACTIONS,
    Game,
    IllegalActionError,
    Ruleset,
    encoding_planes,
    mix_seed,
)
from koudian._extras import install_hint

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv  # type: ignore[import-untyped, unused-ignore]
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(f"koudian.env needs pettingzoo and gymnasium: {install_hint('rl')}") from e

__all__ = ["KoudianEnv", "env"]

ObsDict = dict[str, npt.NDArray[Any]]


class KoudianEnv(AECEnv):  # type: ignore[misc]
    """One hand of ``rules`` per episode, four agents, action masks;
    observations in encoding ``encoding`` (1 or 2, float32)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "koudian_v0",
        "render_modes": ["human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: object = "shanxi",
        *,
        reward_scale: float = 1.0,
        render_mode: str | None = None,
        encoding: int = 1,
    ) -> None:
        super().__init__()
        self.encoding = encoding
        n_planes = encoding_planes(encoding)
        high = 4.0 if encoding == 1 else 255.0
        self.rules = rules if isinstance(rules, Ruleset) else Ruleset.preset(str(rules))
        self.reward_scale = reward_scale
        self.render_mode = render_mode
        self.possible_agents = [f"player_{s}" for s in range(4)]
        self.agents = self.possible_agents[:]
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, high, (n_planes, 34), np.float32),
                "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self._seed = 0
        self._episode = 0
        self.game = Game(self.rules, seed=0, record=False)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space (the same for every agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(141)``."""
        return self.action_spaces[agent]

    def observe(self, agent: str) -> ObsDict:
        """Planes and action mask of ``agent``'s seat."""
        o = self.game.observe(int(agent[7:]))
        return {
            "observation": o.planes(self.encoding),
            "action_mask": o.action_mask.astype(np.int8),
        }

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deals a new hand: hand ``seed``, or the next one of the sequence."""
        if seed is not None:
            self._seed = seed
            self._episode = 0
        game_seed = mix_seed(self._seed, self._episode)
        self._episode += 1
        self.game = Game(self.rules, seed=game_seed, record=False)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        seat = self.game.to_act
        self.agent_selection = self.agents[seat if seat is not None else 0]

    def step(self, action: int | None) -> None:
        """Plays ``action`` (a dense index) for ``agent_selection``."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act; None is only for finished agents")
        # An integer index only (numpy's too): 3.7, True or "3" is a
        # mistake, not action 3 or 1.
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(
                f"{agent}'s action must be an integer dense index (0-{N_ACTIONS - 1}), "
                f"got {action!r}"
            )
        self._cumulative_rewards[agent] = 0.0
        self.game.step(int(action))
        for a in self.agents:
            self.rewards[a] = 0.0
        if self.game.done:
            result = self.game.result
            assert result is not None
            for s, a in enumerate(self.agents):
                self.rewards[a] = float(result.deltas[s]) * self.reward_scale
                self.terminations[a] = True
                self.infos[a] = {"result": result.kind}
        else:
            seat = self.game.to_act
            assert seat is not None
            self.agent_selection = self.agents[seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> None:
        """Prints the table from the seat to act (``render_mode="human"``)."""
        seat = self.game.to_act
        if seat is None:
            print(self.game.result)
            return
        print(self.game.observe(seat))

    def close(self) -> None:
        """Nothing to release."""


def env(rules: object = "shanxi", **kwargs: Any) -> KoudianEnv:
    """A ``KoudianEnv`` (the PettingZoo module-level constructor)."""
    return KoudianEnv(rules, **kwargs)
