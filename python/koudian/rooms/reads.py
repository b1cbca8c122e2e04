"""The stores' reads, written once: the same SQL serves SQLite and
PostgreSQL (each backend's ``_read`` runs it in its own dialect: ``?``
placeholders become PostgreSQL's in ``schema.POSTGRES.sql``), so a room,
its events and its hands come back alike from either database."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from koudian.rooms.rows import EventRow, HandRow, RoomRow

__all__ = ["StoreReads"]

_ROOM = "SELECT id, code, secret, config, created, status, updated FROM rooms"
_HAND = "SELECT room_id, hand, log, replay_key FROM hands"


def _room(row: tuple[Any, ...]) -> RoomRow:
    id_, code, secret, config, created, status, updated = row
    return RoomRow(
        id=str(id_),
        code=str(code),
        secret=bytes(secret),
        config_json=str(config),
        created=float(created),
        status=str(status),
        updated=float(updated),
    )


class StoreReads:
    """The ``Store`` protocol's reads, over a backend's ``_read``."""

    def _read(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def room(self, room_id: str) -> RoomRow | None:
        rows = self._read(_ROOM + " WHERE id = ?", (room_id,))
        return _room(rows[0]) if rows else None

    def room_by_code(self, code: str) -> RoomRow | None:
        rows = self._read(_ROOM + " WHERE code = ?", (code,))
        return _room(rows[0]) if rows else None

    def open_rooms(self) -> list[RoomRow]:
        rows = self._read(_ROOM + " WHERE status <> 'closed' ORDER BY created, id")
        return [_room(r) for r in rows]

    def events(self, room_id: str, after: int = -1) -> list[EventRow]:
        rows = self._read(
            "SELECT seq, kind, body, at FROM events WHERE room_id = ? AND seq > ? ORDER BY seq",
            (room_id, after),
        )
        return [EventRow(room_id, int(s), str(k), str(b), float(a)) for s, k, b, a in rows]

    def hand_by_key(self, replay_key: str) -> HandRow | None:
        rows = self._read(_HAND + " WHERE replay_key = ?", (replay_key,))
        return HandRow(*(rows[0])) if rows else None

    def hands(self, room_id: str) -> list[HandRow]:
        rows = self._read(_HAND + " WHERE room_id = ? ORDER BY hand", (room_id,))
        return [HandRow(*r) for r in rows]
