"""Writing and reading the ``nn`` agent's model file: a standard
safetensors file whose ``__metadata__`` holds one key, ``"koudian"``, a
JSON object (format, version, architecture, sizes, the observation
encoding version, the families, the training provenance), as the core's
reader (``koudian_core::agent::nn``) takes it."""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from koudian._core import N_ACTIONS, OBS_ENCODING_VERSION, KoudianError, __version__
from koudian.train.model import EXTRA_INPUTS, FAMILIES, PLANES, VALUE_SCALE, Params, hidden_sizes

FORMAT = "koudian-nn"
FORMAT_VERSION = 1
DTYPES = {"f32": np.float32, "f16": np.float16}


def metadata(
    params: Params, provenance: dict[str, Any], families: tuple[str, ...] = FAMILIES
) -> dict[str, Any]:
    """The ``koudian`` metadata object of a model."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "arch": "mlp",
        "encoding_version": OBS_ENCODING_VERSION,
        "planes": PLANES,
        "kind_head": "kinds.weight" in params,
        "extra_inputs": list(EXTRA_INPUTS),
        "hidden": hidden_sizes(params),
        "actions": N_ACTIONS,
        "families": list(families),
        "value_scale": VALUE_SCALE,
        "provenance": {"koudian": __version__, **provenance},
    }


def save(
    params: Params,
    path: str | os.PathLike[str],
    provenance: dict[str, Any] | None = None,
    dtype: str = "f32",
) -> Params:
    """Writes ``params`` as a model file at ``path`` (atomically) with
    tensors of ``dtype`` (``"f32"`` or ``"f16"``, half the bytes) and
    returns the parameters as stored (rounded to ``dtype``, as float32),
    which is what the core computes with."""
    from safetensors.numpy import save_file

    if dtype not in DTYPES:
        raise KoudianError(f"dtype must be one of {', '.join(DTYPES)}, not {dtype!r}")
    tensors = {k: np.ascontiguousarray(np.asarray(v), DTYPES[dtype]) for k, v in params.items()}
    for k, v in tensors.items():
        if not np.isfinite(v).all():
            raise KoudianError(f"tensor {k} has non-finite values in {dtype} (cannot save)")
    prov = {"created": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
    prov.update(provenance or {})
    meta = {"koudian": json.dumps(metadata(params, prov), sort_keys=True, allow_nan=False)}
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    save_file(tensors, str(tmp), metadata=meta)
    os.replace(tmp, path)
    return {k: v.astype(np.float32) for k, v in tensors.items()}


def load(path: str | os.PathLike[str]) -> tuple[Params, dict[str, Any]]:
    """The float32 parameters and the ``koudian`` metadata of a model
    file; a file that is not one is a ``KoudianError`` naming it."""
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="np") as f:
            meta_raw = (f.metadata() or {}).get("koudian")
            params = {k: np.asarray(f.get_tensor(k), np.float32) for k in f.keys()}
    except (OSError, ValueError, RuntimeError) as e:
        raise KoudianError(f"{path}: not a readable model file ({e})") from None
    except Exception as e:  # safetensors raises its own SafetensorError
        raise KoudianError(f"{path}: not a readable model file ({e})") from None
    if meta_raw is None:
        raise KoudianError(f"{path}: no koudian metadata (not a koudian model file)")
    try:
        meta = json.loads(meta_raw)
    except ValueError as e:
        raise KoudianError(f"{path}: invalid koudian metadata ({e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise KoudianError(f"{path}: not a {FORMAT} model")
    if meta.get("format_version") != FORMAT_VERSION:
        raise KoudianError(f"{path}: format_version {meta.get('format_version')!r} not known")
    return params, meta
