"""Agent faults and the fallback action played for them.

A leaf module (it imports only the core) so that the drivers
(``koudian.game``, ``koudian.match``, ``koudian.simulation``), the agents
(``koudian.agents``) and the external-bot protocol (``koudian.protocol``)
share one definition without importing each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from koudian._core import Action

__all__ = ["FAULT_KINDS", "Fault", "fallback_action"]

FAULT_KINDS = ("illegal", "malformed", "timeout", "overflow", "crash", "dead")
"""Every ``Fault.kind``, in the order reports list them."""


@dataclass(frozen=True)
class Fault:
    """An agent misbehaved and the fallback action was played for it.

    ``kind`` is ``illegal`` (an action not among the legal ones),
    ``malformed`` (a reply that is not a valid action), ``timeout``,
    ``overflow`` (a bot wrote more than the protocol allows: a line over
    ``koudian.protocol.MAX_LINE_BYTES`` or a flood of lines that are not
    its reply), ``crash`` (the bot process died or could not be restarted)
    or ``dead`` (the bot failed too often and is no longer asked).
    """

    seat: int
    kind: str
    detail: str
    fallback: Action

    def to_json(self) -> dict[str, object]:
        """The fault as a log record (``{"type": "fault", ...}``)."""
        return {
            "type": "fault",
            "seat": self.seat,
            "kind": self.kind,
            "detail": self.detail,
            "fallback": self.fallback.to_json(),
        }


def fallback_action(legal_actions: Sequence[Action]) -> Action:
    """The documented fallback: the first legal action in dense index order
    that is not ``leave`` (``leave`` only if it is the only one)."""
    if not legal_actions:
        raise ValueError("no legal action to fall back on")
    best = min(legal_actions, key=lambda a: (a.kind == "leave", a.index))
    return best
