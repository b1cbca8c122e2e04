"""Loading the shipped preset TOML files and user ruleset files.

The Rust core validates; this module only reads TOML (``tomllib``, or
``tomli`` before Python 3.11), so ``koudian.Ruleset`` never re-implements
rules. It avoids ``pathlib`` (which pulls in ``re``, ``fnmatch`` and
``urllib``) to keep the first call that needs a preset cheap.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["PRESETS_DIR", "load", "load_file", "names"]

PRESETS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "presets")


def _toml_loads(text: str, origin: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python < 3.11 only
        import tomli as tomllib
    from koudian._core import RulesetError

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RulesetError(f"{origin}: invalid TOML: {e}") from None


def names() -> list[str]:
    """The names of the shipped presets, sorted."""
    return sorted(f[: -len(".toml")] for f in os.listdir(PRESETS_DIR) if f.endswith(".toml"))


def load(name: str) -> dict[str, Any]:
    """The options of preset ``name``; unknown names suggest the closest."""
    known = names()
    if name not in known:
        from difflib import get_close_matches

        from koudian._core import RulesetError

        close = get_close_matches(str(name), known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise RulesetError(f"unknown preset {name!r}{hint}; presets: {', '.join(known)}")
    with open(os.path.join(PRESETS_DIR, f"{name}.toml"), encoding="utf-8") as f:
        return _toml_loads(f.read(), f"preset {name}")


def load_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The options in the TOML file at ``path``."""
    with open(path, encoding="utf-8") as f:
        return _toml_loads(f.read(), os.fspath(path))
