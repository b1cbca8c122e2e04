"""How to install an optional extra, said once for every error that needs one.

koudian is installed from a checkout until it is on a package index, so
the checkout's form comes first; ``koudian[...]`` works once it is."""

from __future__ import annotations


def install_hint(extra: str) -> str:
    """The commands that install the extra ``extra``.

    >>> install_hint("data")
    'pip install ".[data]" in a koudian checkout (or "koudian[data]" from an index)'
    """
    return f'pip install ".[{extra}]" in a koudian checkout (or "koudian[{extra}]" from an index)'
