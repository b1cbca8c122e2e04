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
from koudian._core import fallback_action as _core_fallback

__all__ = ["FAULT_KINDS", "Fault", "fallback_action", "from_core"]

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
    that is not ``leave`` (``leave`` only if it is the only one); the
    core's rule (``ActionMask::fallback``), which its game loop plays."""
    best = _core_fallback(legal_actions)
    if best is None:
        raise ValueError("no legal action to fall back on")
    return best


def from_core(raw: object) -> Fault:
    """A fault of the core's game loop as ``koudian._core.play_game`` and
    its kin report it: the agent's own ``Fault`` as it is, or ``(seat,
    answer_repr, fallback)`` for an answer that was not a legal action."""
    if isinstance(raw, Fault):
        return raw
    assert isinstance(raw, tuple), raw
    seat, answered, fallback = raw
    return Fault(seat, "illegal", f"{answered} is not legal here", fallback)
