"""The network of the ``nn`` agent in JAX, exactly as the model file
defines it (docs/models.md, the ``koudian-nn`` format): the observation's
encoding-version-2 planes (66 x 34 small integers) and the ruleset
family's one-hot, scaled elementwise by ``input_scale``, then ReLU layers,
then the policy logits (141, the core's dense action index) and a scalar
value (the hand's expected points for the observer / ``value_scale``).

The parameters are a flat dict named as the file's tensors
(``hidden.0.weight`` ``[out, in]``, ...), so export and load are a copy.
``input_scale`` is fixed from the data (one over each input's largest
value), not trained.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from koudian._core import N_ACTIONS

FAMILIES = ("shanxi", "linxian", "sichuan")
"""The ruleset families, in the order of the one-hot extra inputs."""

EXTRA_INPUTS = tuple(f"family_{f}" for f in FAMILIES)
PLANES = 66
KINDS = 34
INPUTS = PLANES * KINDS + len(FAMILIES)
"""Inputs of the net: 2,244 plane values and the family one-hot."""

VALUE_SCALE = 10.0
"""Points per unit of the value head."""

Params = dict[str, Any]
"""Tensor name -> array (numpy or jax), the model file's names."""


def features(planes: npt.NDArray[Any], family: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """The ``(n, INPUTS)`` float32 inputs of ``(n, 66, 34)`` planes and
    the rows' family indices (into ``FAMILIES``), unscaled."""
    n = planes.shape[0]
    x = np.zeros((n, INPUTS), np.float32)
    x[:, : PLANES * KINDS] = planes.reshape(n, PLANES * KINDS)
    x[np.arange(n), PLANES * KINDS + np.asarray(family, np.int64)] = 1.0
    return x


def family_index(family: str) -> int:
    """The index of a family name in ``FAMILIES``."""
    from koudian._core import KoudianError

    if family not in FAMILIES:
        raise KoudianError(f"unknown ruleset family {family!r} (known: {', '.join(FAMILIES)})")
    return FAMILIES.index(family)


def init(seed: int, hidden: Sequence[int], input_scale: npt.NDArray[np.float32]) -> Params:
    """Fresh parameters from ``seed`` (He-normal hidden weights, zero
    biases, small policy and value weights), as numpy float32."""
    rng = np.random.default_rng(seed)
    p: Params = {"input_scale": np.asarray(input_scale, np.float32).copy()}
    fan_in = INPUTS
    for i, h in enumerate(hidden):
        p[f"hidden.{i}.weight"] = (rng.standard_normal((h, fan_in)) * np.sqrt(2.0 / fan_in)).astype(
            np.float32
        )
        p[f"hidden.{i}.bias"] = np.zeros(h, np.float32)
        fan_in = h
    p["policy.weight"] = (rng.standard_normal((N_ACTIONS, fan_in)) * 0.01).astype(np.float32)
    p["policy.bias"] = np.zeros(N_ACTIONS, np.float32)
    p["value.weight"] = (rng.standard_normal((1, fan_in)) * 0.01).astype(np.float32)
    p["value.bias"] = np.zeros(1, np.float32)
    return p


def hidden_sizes(params: Params) -> list[int]:
    """The hidden layer widths of ``params``."""
    sizes: list[int] = []
    while f"hidden.{len(sizes)}.weight" in params:
        sizes.append(int(params[f"hidden.{len(sizes)}.weight"].shape[0]))
    return sizes


def forward(params: Params, x: Any) -> tuple[Any, Any]:
    """``(logits (n, 141), value (n,))`` of inputs ``x`` ``(n, INPUTS)``,
    in JAX (jit-able): the file format's definition."""
    import jax.numpy as jnp

    h = x * params["input_scale"]
    i = 0
    while f"hidden.{i}.weight" in params:
        h = jnp.maximum(h @ params[f"hidden.{i}.weight"].T + params[f"hidden.{i}.bias"], 0.0)
        i += 1
    logits = h @ params["policy.weight"].T + params["policy.bias"]
    value = (h @ params["value.weight"].T + params["value.bias"])[:, 0]
    return logits, value


def forward_numpy(
    params: Params, x: npt.NDArray[np.float32]
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The same forward pass in plain numpy float32 (a reference for the
    parity tests and a quick look without JAX)."""
    h = np.asarray(x, np.float32) * np.asarray(params["input_scale"], np.float32)
    i = 0
    while f"hidden.{i}.weight" in params:
        w = np.asarray(params[f"hidden.{i}.weight"], np.float32)
        h = np.maximum(h @ w.T + np.asarray(params[f"hidden.{i}.bias"], np.float32), 0.0)
        i += 1
    logits = h @ np.asarray(params["policy.weight"], np.float32).T
    logits = logits + np.asarray(params["policy.bias"], np.float32)
    value = h @ np.asarray(params["value.weight"], np.float32).T
    return logits, (value + np.asarray(params["value.bias"], np.float32))[:, 0]


def count(params: Params) -> int:
    """Trained parameters (``input_scale`` left out)."""
    return sum(int(np.prod(v.shape)) for k, v in params.items() if k != "input_scale")
