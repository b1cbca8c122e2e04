"""The shipped preset files' names.

The presets themselves are embedded in the extension and read by the Rust
core (as are user ruleset files, through ``Ruleset.from_toml``), which
also words the error for an unknown name, so no TOML parser is needed in
Python. This module avoids ``pathlib`` (which pulls in ``re``,
``fnmatch`` and ``urllib``) to stay cheap.
"""

from __future__ import annotations

import os

__all__ = ["PRESETS_DIR", "names"]

PRESETS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "presets")


def names() -> list[str]:
    """The names of the shipped presets, sorted."""
    return sorted(f[: -len(".toml")] for f in os.listdir(PRESETS_DIR) if f.endswith(".toml"))
