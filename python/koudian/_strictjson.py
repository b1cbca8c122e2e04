"""Strict JSON: every writer in the package passes ``allow_nan=False``
(``NaN`` and ``Infinity`` are not JSON; a browser's ``JSON.parse`` stops
at them), and data that may hold such floats goes through ``finite``
first, which writes them as ``null``."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["finite"]


def finite(value: Any) -> Any:
    """``value`` with every float that is not finite replaced by ``None``
    (in dicts, lists and tuples, recursively; tuples become lists)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value
