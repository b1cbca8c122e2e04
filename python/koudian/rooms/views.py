"""What a seat and a spectator see of a room's table.

Both come from ``koudian.web.snapshot.table_state``, which hides the
other seats' concealed tiles from a seat's view. A spectator's view is
built from two seats' views so that it shows no seat's concealed tiles:
the seats' public parts from a seat that does not act (its ``pending``
is the public question, with no legal actions), and that seat's own
public part from a second seat's view (its hand hidden, its face-down
ting discards face down, its concealed kongs' tiles hidden).
"""

from __future__ import annotations

from typing import Any

from koudian._core import Game
from koudian.web.snapshot import table_state

Views = list[dict[str, Any]] | None
"""The four seats' observations (``koudian.web.snapshot.observations``),
when the caller has them already."""

__all__ = ["public_table", "seat_table"]


def seat_table(game: Game, seat: int, views: Views = None) -> dict[str, Any]:
    """The table as ``seat`` sees it (its own tiles and no one else's)."""
    return table_state(game, seat, views)


def public_table(game: Game, views: Views = None) -> dict[str, Any]:
    """The table as a spectator sees it: public information only."""
    if game.done:
        return table_state(game, None, views)  # the hand is over: its log is public now
    a = 0 if game.to_act != 0 else 1
    b = (a + 1) % 4
    base = table_state(game, a, views)
    base["seats"][a] = table_state(game, b, views)["seats"][a]
    base.pop("legal", None)
    return base
