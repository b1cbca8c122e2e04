"""The room protocol (``/ws/room/{code}``): the client's messages checked,
the server's messages built.

One JSON object per text frame. ``parse(text)`` returns the message of a
client (a dict with exactly the keys its ``type`` allows, each of the
right type) or raises ``ProtocolError`` naming what is wrong; nothing
else a client sends reaches the room. An ``act`` message's action is read
by the stdin bot protocol's own reader (``koudian.protocol.parse_reply``).
``docs/rooms.md`` documents every message.
"""

from __future__ import annotations

import json
from typing import Any

from koudian._core import Action
from koudian.protocol import parse_reply
from koudian.rooms.config import RoomError
from koudian.rooms.events import MAX_NAME

__all__ = ["MAX_MESSAGE", "MAX_TOKEN", "ProtocolError", "error", "parse"]

MAX_MESSAGE = 4096
"""Longest client message, in characters (as ``/ws``)."""
MAX_TOKEN = 64
"""Longest seat token accepted (the server's are 32 characters)."""

KEYS: dict[str, dict[str, tuple[type, ...]]] = {
    "hello": {"token": (str,), "name": (str,), "watch": (bool,), "bot": (bool,)},
    "ready": {},
    "leave": {},
    "fill": {"seat": (int,), "agent": (str,)},
    "start": {},
    "act": {"id": (int,), "action": (str,), "tile": (str, type(None)), "index": (int,)},
    "back": {},
    "vote": {"dismiss": (bool,)},
    "state": {},
    "hint": {"agent": (str,), "id": (int,)},
}
"""Each client message type's optional keys (besides ``type``) and their JSON types."""


class ProtocolError(RoomError):
    """A client message that is not one of the protocol's."""


def parse(text: str) -> dict[str, Any]:
    """The checked message of ``text`` (see the module doc)."""
    if len(text) > MAX_MESSAGE:
        raise ProtocolError(f"message longer than {MAX_MESSAGE} characters")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ProtocolError(f"not JSON: {e}") from None
    except RecursionError:
        raise ProtocolError("not JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise ProtocolError("a message is a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in KEYS:
        raise ProtocolError(f"unknown message type {str(kind)[:40]!r}; one of {', '.join(KEYS)}")
    spec = KEYS[kind]
    unknown = sorted(str(k)[:40] for k in data if k != "type" and k not in spec)
    if unknown:
        raise ProtocolError(f"unknown key(s) in a {kind} message: {', '.join(unknown)}")
    for key, types in spec.items():
        if key in data:
            v = data[key]
            if not isinstance(v, types) or (isinstance(v, bool) and bool not in types):
                raise ProtocolError(f"{kind}: {key!r} has the wrong type")
    if kind == "hello":
        ways = [k for k in ("token", "name", "watch") if k in data]
        if len(ways) != 1:
            raise ProtocolError('hello: one of "token", "name" or "watch"')
        if data.get("watch") is False:
            raise ProtocolError('hello: "watch" is true')
        if "token" in data and not 1 <= len(data["token"]) <= MAX_TOKEN:
            raise ProtocolError("hello: not a seat token")
        if "name" in data:
            name = data["name"]
            if not 1 <= len(name) <= MAX_NAME or not name.isprintable() or name != name.strip():
                raise ProtocolError(f"hello: a name is 1 to {MAX_NAME} printable characters")
        if "bot" in data and "name" not in data:
            raise ProtocolError('hello: "bot" goes with "name"')
    elif kind == "fill" and ("seat" not in data or "agent" not in data):
        raise ProtocolError('fill: "seat" and "agent"')
    elif kind == "fill" and not 0 <= data["seat"] <= 3:
        raise ProtocolError("fill: a seat is 0 to 3")
    elif kind == "vote" and "dismiss" not in data:
        raise ProtocolError('vote: "dismiss" (true or false)')
    elif kind == "act":
        if "id" not in data:
            raise ProtocolError('act: "id" (the decision\'s id)')
        data["action_"] = action_of(text)
    return dict(data)


def action_of(text: str) -> Action:
    try:
        return parse_reply(text)
    except ValueError as e:
        raise ProtocolError(f"act: {e}") from None


def error(text: str, rid: object = None) -> dict[str, Any]:
    """The ``error`` message: refused, nothing changed."""
    out: dict[str, Any] = {"type": "error", "error": text}
    if rid is not None:
        out["id"] = rid
    return out
