"""The network of the ``nn`` agent in JAX, exactly as the model file
defines it (docs/models.md, the ``koudian-nn`` format): the observation's
planes in the encoding datasets record (version 3: 79 x 34 small
integers, version 2's planes and the look-ahead planes) and the ruleset
family's one-hot, scaled elementwise by ``input_scale``, then ReLU layers,
then the policy logits (141, the core's dense action index) and a scalar
value (the hand's expected points for the observer / ``value_scale``).

The parameters are a flat dict named as the file's tensors
(``hidden.0.weight`` ``[out, in]``, ...), so export and load are a copy.
The per-kind head (``kinds.weight`` ``[4, planes]``, the file's
``"kind_head": true``) adds to the logit of each per-kind action (discard,
ting, concealed kong, added kong of kind ``k``) a weighted sum of the
planes' column ``k``: a small net compares the look-ahead planes' numbers
kind by kind through it, which its dense layers learn poorly.
``input_scale`` is fixed from the data (one over each input's largest
value), not trained.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from koudian._core import N_ACTIONS, OBS_ENCODING_VERSION
from koudian._manifest import PLANES as _PLANES

FAMILIES = ("shanxi", "linxian", "sichuan")
"""The ruleset families, in the order of the one-hot extra inputs."""

EXTRA_INPUTS = tuple(f"family_{f}" for f in FAMILIES)
ENCODING = OBS_ENCODING_VERSION
"""The observation encoding the net reads: the one datasets record."""
PLANES = _PLANES[ENCODING]
KINDS = 34
INPUTS = PLANES * KINDS + len(FAMILIES)
"""Inputs of the net: 2,686 plane values and the family one-hot."""

KIND_GROUPS = 4
"""The per-kind action groups (discard, ting, concealed kong, added kong:
the dense indices ``34 g + k``) the per-kind head feeds."""

VALUE_SCALE = 10.0
"""Points per unit of the value head."""

Params = dict[str, Any]
"""Tensor name -> array (numpy or jax), the model file's names."""


def features(planes: npt.NDArray[Any], family: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """The ``(n, INPUTS)`` float32 inputs of ``(n, PLANES, 34)`` planes and
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


def init(
    seed: int,
    hidden: Sequence[int],
    input_scale: npt.NDArray[np.float32],
    kind_head: bool = True,
) -> Params:
    """Fresh parameters from ``seed`` (He-normal hidden weights, zero
    biases, small policy and value weights, a zero per-kind head when
    ``kind_head``), as numpy float32."""
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
    if kind_head:
        p["kinds.weight"] = np.zeros((KIND_GROUPS, PLANES), np.float32)
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
    if "kinds.weight" in params:
        xs = (x * params["input_scale"])[:, : PLANES * KINDS].reshape(-1, PLANES, KINDS)
        per_kind = jnp.einsum("gp,npk->ngk", params["kinds.weight"], xs)
        per_kind = per_kind.reshape(-1, KIND_GROUPS * KINDS)
        logits = logits.at[:, : KIND_GROUPS * KINDS].add(per_kind)
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
    if "kinds.weight" in params:
        xs = (np.asarray(x, np.float32) * np.asarray(params["input_scale"], np.float32))[
            :, : PLANES * KINDS
        ].reshape(-1, PLANES, KINDS)
        w = np.asarray(params["kinds.weight"], np.float32)
        per_kind = np.einsum("gp,npk->ngk", w, xs).reshape(-1, KIND_GROUPS * KINDS)
        logits[:, : KIND_GROUPS * KINDS] += per_kind
    value = h @ np.asarray(params["value.weight"], np.float32).T
    return logits, (value + np.asarray(params["value.bias"], np.float32))[:, 0]


def count(params: Params) -> int:
    """Trained parameters (``input_scale`` left out)."""
    return sum(int(np.prod(v.shape)) for k, v in params.items() if k != "input_scale")
