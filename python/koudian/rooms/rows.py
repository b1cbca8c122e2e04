"""The rows of the room store (``koudian.rooms.store``) and its error:
plain frozen dataclasses every backend reads and writes."""

from __future__ import annotations

from dataclasses import dataclass

from koudian._core import KoudianError

__all__ = ["ROOM_STATUSES", "EventRow", "HandRow", "RoomRow", "RoomStoreError", "redact"]


class RoomStoreError(KoudianError):
    """The room database cannot be opened, read or written (it names the
    file or URL; a schema newer than this koudian, a corrupt row, ...)."""


ROOM_STATUSES = ("open", "closed")
"""A room row's status: ``open`` rooms are resumed when a server starts."""


@dataclass(frozen=True)
class RoomRow:
    """A room: ``id`` (internal, random), ``code`` (the short address
    people type), ``secret`` (32 random bytes keying the hand seeds; never
    sent to a client), ``config_json`` (``koudian.rooms.config``),
    ``created``/``updated`` (Unix seconds), ``status`` (``open``/``closed``)."""

    id: str
    code: str
    secret: bytes
    config_json: str
    created: float
    status: str = "open"
    updated: float = 0.0


@dataclass(frozen=True)
class EventRow:
    """One event of a room's log: ``seq`` 0, 1, 2, ... (no gaps), ``kind``
    and ``body`` (a JSON object as text, ``koudian.rooms.events``), ``at``
    (Unix seconds, the appending server's clock)."""

    room_id: str
    seq: int
    kind: str
    body: str
    at: float


@dataclass(frozen=True)
class HandRow:
    """A finished hand of a room: its log (replayable alone, ``koudian.replay``)
    and the unguessable key of its replay link."""

    room_id: str
    hand: int
    log: str
    replay_key: str


def redact(url: str) -> str:
    """``url`` without its password (for messages)."""
    if "://" not in url or "@" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in creds else url
