"""See the game in a browser: ``koudian view`` (a replay viewer),
``koudian review`` (a bot's decisions reviewed) and ``koudian serve``
(play at a table served on loopback; needs the ``web`` extra).

The pages draw snapshots the engine produces (``koudian.web.snapshot``);
no rule lives in their JavaScript. Importing this package imports no
extra: the server's dependencies load when ``koudian serve`` runs.
"""

from __future__ import annotations

from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    """Adds the ``view``, ``review`` and ``serve`` subcommands."""
    from koudian.web import review, server, viewer

    for module in (viewer, review, server):
        module.add_subparser(sub)
