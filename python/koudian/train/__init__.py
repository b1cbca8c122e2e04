"""Training the ``nn`` agent with koudian's own pipeline (extra ``train``:
JAX on the CPU and optax; ``pip install ".[train]"``).

* ``koudian.train.data.load(dirs)``: the decisions of recorded datasets
  (``koudian simulate --record`` with ``mc`` seats), with mc's estimated
  values (``expert_values``) as soft targets where it searched;
* ``imitate(rows, held_out, ImitateConfig(...))``: policy (cross-entropy
  to the played action, mixed with the softmax of mc's values) and value
  (the hand's settlement) heads;
* ``improve(params, rules, ImproveConfig(...))``: PPO on ``VecEnv``
  against native opponents, held near the imitation policy by a KL
  penalty;
* ``save(params, path)`` / ``load(path)``: the model file the core's
  ``nn:PATH`` agent plays (safetensors with the ``koudian`` metadata).

The same data, options and seed train the same weights: JAX runs on one
CPU thread here (``setup()``, called by the functions that train, sets
``XLA_FLAGS`` before JAX is first imported). ``koudian train`` is the
command line. docs/models.md is the model card and the recipe.
"""

from __future__ import annotations

import os

from koudian._core import KoudianError
from koudian._extras import install_hint

__all__ = ["require_jax", "setup"]

_XLA_ONE_THREAD = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


def setup() -> None:
    """Pins JAX to the CPU and one thread (deterministic results, and a
    fair share of a shared machine), unless ``XLA_FLAGS`` or
    ``JAX_PLATFORMS`` are set already; effective only before JAX's first
    import."""
    os.environ.setdefault("XLA_FLAGS", _XLA_ONE_THREAD)
    os.environ.setdefault("JAX_PLATFORMS", "cpu")


def require_jax() -> None:
    """Imports JAX and optax (after ``setup``), or raises a
    ``KoudianError`` saying how to install them."""
    setup()
    try:
        import jax  # noqa: F401
        import optax  # noqa: F401
        import safetensors  # noqa: F401
    except ImportError:
        raise KoudianError(f"training needs JAX and optax: {install_hint('train')}") from None
