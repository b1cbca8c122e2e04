"""The events of a room's log and their JSON bodies.

Every body is a JSON object with exactly the keys of its kind (an
unknown or missing key is refused: a log written by a defect is not
folded into something else). ``docs/rooms.md`` lists them; the fold is
``koudian.rooms.room.RoomState``.
"""

from __future__ import annotations

import json
from typing import Any

from koudian.rooms.config import RoomError

__all__ = ["AWAY_WHY", "BY", "CLOSE_WHY", "KINDS", "MAX_NAME", "Event", "dumps", "parse"]

MAX_NAME = 24
"""Longest display name, in characters."""

BY = ("person", "bot", "auto")
AWAY_WHY = ("timeout", "disconnect", "asked")
CLOSE_WHY = ("finished", "dismissed", "idle")

KINDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "join": {"seat": int, "name": str, "token_hash": str, "bot": bool},
    "fill": {"seat": int, "agent": str},
    "leave": {"seat": int},
    "ready": {"seat": int},
    "start": {},
    "act": {"hand": int, "seat": int, "index": int, "by": str},
    "away": {"seat": int, "why": str},
    "back": {"seat": int},
    "next": {},
    "vote": {"seat": int, "dismiss": bool},
    "close": {"why": str},
}
"""Each kind's keys and their JSON types."""

Event = tuple[str, dict[str, Any]]
"""An event as the fold takes it: ``(kind, body)``."""


def parse(kind: str, text: str) -> dict[str, Any]:
    """The body of an event of ``kind`` read from ``text``; ``RoomError``
    when it is not exactly that kind's keys and types."""
    if kind not in KINDS:
        raise RoomError(f"unknown event kind {kind!r}")
    try:
        body = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise RoomError(f"a {kind} event is not JSON: {e}") from None
    check(kind, body)
    assert isinstance(body, dict)
    return body


def check(kind: str, body: object) -> None:
    """``RoomError`` unless ``body`` has exactly the keys and types of ``kind``."""
    spec = KINDS.get(kind)
    if spec is None:
        raise RoomError(f"unknown event kind {kind!r}")
    if not isinstance(body, dict) or set(body) != set(spec):
        raise RoomError(f"a {kind} event has the keys {sorted(spec)}")
    for key, typ in spec.items():
        v = body[key]
        if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
            raise RoomError(f"a {kind} event's {key!r} has the wrong type")
    if "seat" in body and not 0 <= body["seat"] <= 3:
        raise RoomError(f"a {kind} event's seat is 0 to 3")
    if kind == "act" and body["by"] not in BY:
        raise RoomError(f"an act event is by one of {BY}")
    if kind == "away" and body["why"] not in AWAY_WHY:
        raise RoomError(f"an away event is for one of {AWAY_WHY}")
    if kind == "close" and body["why"] not in CLOSE_WHY:
        raise RoomError(f"a close event is for one of {CLOSE_WHY}")


def dumps(body: dict[str, Any]) -> str:
    """An event body as stored (compact, keys sorted)."""
    return json.dumps(
        body, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
    )
