"""A Gymnasium vector environment over ``koudian.VecEnv``: N tables stepped
in Rust per call.

Needs the optional extra ``pip install ".[rl]"`` (a checkout) or ``koudian[rl]`` (gymnasium);
``import koudian`` alone never imports it, and ``koudian.VecEnv`` itself
needs numpy only.

``KoudianVectorEnv`` follows ``gymnasium.vector.VectorEnv``: ``num_envs``,
``single_observation_space`` (``Box`` of shape ``(P, 34)``, the planes of
encoding ``encoding``; layouts in ``koudian.env``), ``single_action_space``
(``Discrete(141)``, the dense ``koudian.Action`` encoding), batched
``observation_space`` / ``action_space``, ``reset`` and ``step``, and
``action_masks()`` (``(N, 141)`` bool, as sb3-contrib's ``MaskablePPO``
asks of its env). Auto-reset is Gymnasium's same-step mode
(``metadata["autoreset_mode"]``): a finished table's final observation is in
``info["final_obs"]`` where ``info["_final_obs"]``, its four settlement
deltas in ``info["final_deltas"]``, and ``obs`` is already the next hand.

Every array returned is the environment's own, rewritten in place by the
next call (no allocation per step); hand it to torch without a copy with
``torch.from_numpy(obs)`` or to JAX with ``jax.dlpack.from_dlpack(obs)``
(numpy arrays support DLPack), and copy what must outlive the step.

A masked-random rollout (a CleanRL-style loop would put its policy where
the random scores are):

    >>> import numpy as np
    >>> from koudian.vector import KoudianVectorEnv
    >>> envs = KoudianVectorEnv("shanxi", num_envs=16, learners=0, seed=1)
    >>> obs, info = envs.reset(seed=1)
    >>> obs.shape, obs.dtype, envs.single_action_space
    ((16, 66, 34), dtype('uint8'), Discrete(141))
    >>> rng = np.random.default_rng(0)
    >>> returns = np.zeros(16)
    >>> for _ in range(200):
    ...     scores = rng.random((16, 141)) * envs.action_masks()
    ...     obs, reward, terminated, truncated, info = envs.step(scores.argmax(1))
    ...     returns += reward
    >>> int(envs.env.hands_finished) > 0, bool(np.isfinite(returns).all())
    (True, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from koudian._core import ENCODING_VERSION, N_ACTIONS, IllegalActionError, Ruleset, VecEnv
from koudian._extras import install_hint

try:
    from gymnasium import spaces
    from gymnasium.vector import VectorEnv
    from gymnasium.vector.utils import batch_space
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(f"koudian.vector needs gymnasium: {install_hint('rl')}") from e

try:
    from gymnasium.vector import AutoresetMode

    _SAME_STEP: object = AutoresetMode.SAME_STEP
except ImportError:  # pragma: no cover - gymnasium < 1.0
    _SAME_STEP = "SameStep"

__all__ = ["KoudianVectorEnv"]


class KoudianVectorEnv(VectorEnv):  # type: ignore[type-arg, unused-ignore]
    """``koudian.VecEnv`` (same arguments) as a Gymnasium vector env."""

    metadata: dict[str, Any] = {"autoreset_mode": _SAME_STEP}  # noqa: RUF012

    def __init__(
        self,
        rules: str | Ruleset = "shanxi",
        num_envs: int = 64,
        *,
        learners: str | int = "all",
        opponents: str = "greedy",
        seed: int = 0,
        threads: int = 0,
        obs_dtype: str = "uint8",
        encoding: int = ENCODING_VERSION,
        on_illegal: str = "raise",
        reward_shaping: str | None = None,
        shaping_scale: float = 1.0,
    ) -> None:
        self.env = VecEnv(
            rules,
            num_envs,
            learners=learners,
            opponents=opponents,
            seed=seed,
            threads=threads,
            obs_dtype=obs_dtype,
            encoding=encoding,
            on_illegal=on_illegal,
            reward_shaping=reward_shaping,
            shaping_scale=shaping_scale,
        )
        self.num_envs = num_envs
        dtype = np.uint8 if obs_dtype == "uint8" else np.float32
        high = 4.0 if encoding == 1 else 255.0
        shape = (self.env.n_planes, 34)
        self.single_observation_space = spaces.Box(0, high, shape, dtype)
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """Deals every table a new hand (hand 0 of ``seed``, or each
        table's next hand); ``(obs, info)``."""
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise TypeError(f"seed must be an int or None (one master seed), got {seed!r}")
        return self.env.reset(None if seed is None else int(seed))

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[Any],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        """Plays one dense action index per table (any integer array or
        list; floats, bools and strings are refused with
        ``IllegalActionError``, as ``koudian.VecEnv`` refuses them); ``(obs,
        reward, terminated, truncated, info)`` (see ``koudian.VecEnv``)."""
        a = np.asarray(actions)
        # Only a lossless conversion: a float, bool or str action is a
        # mistake (3.7 is not action 3), refused as the raw env refuses it.
        if a.dtype.kind not in "iu":
            raise IllegalActionError(
                f"actions must be integer dense action indices (0-{N_ACTIONS - 1}), "
                f"got an array of {a.dtype}"
            )
        if a.dtype != np.int64 and a.dtype != np.int32:
            if a.dtype == np.uint64 and a.size and int(a.max()) > np.iinfo(np.int64).max:
                raise IllegalActionError(
                    f"actions must be dense action indices (0-{N_ACTIONS - 1}), got {int(a.max())}"
                )
            a = a.astype(np.int64)
        return self.env.step(np.ascontiguousarray(a))

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal-action masks ``(N, 141)`` of the seats to act."""
        return self.env.action_masks()

    @property
    def to_act(self) -> npt.NDArray[np.int64]:
        """The seat to act at each table ``(N,)``."""
        return self.env.to_act
