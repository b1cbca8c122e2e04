"""The shipped preset files' names, and the error for an unknown one.

The presets themselves are embedded in the extension and read by the Rust
core (as are user ruleset files, through ``Ruleset.from_toml``), so no TOML
parser is needed in Python. This module avoids ``pathlib`` (which pulls in
``re``, ``fnmatch`` and ``urllib``) to stay cheap.
"""

from __future__ import annotations

import os

__all__ = ["PRESETS_DIR", "names", "unknown"]

PRESETS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "presets")


def names() -> list[str]:
    """The names of the shipped presets, sorted."""
    return sorted(f[: -len(".toml")] for f in os.listdir(PRESETS_DIR) if f.endswith(".toml"))


def unknown(name: str) -> Exception:
    """The error for an unknown preset name, suggesting the closest."""
    from difflib import get_close_matches

    from koudian._core import RulesetError

    known = names()
    close = get_close_matches(str(name), known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return RulesetError(f"unknown preset {name!r}{hint}; presets: {', '.join(known)}")
