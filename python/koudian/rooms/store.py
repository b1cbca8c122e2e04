"""The room store: where rooms and their event logs are kept.

``Store`` is the protocol every backend implements (SQLite here, in
``store_sqlite``; PostgreSQL in ``store_postgres``). The one rule that
gives crash safety and multi-process consistency is ``append``: a batch
of events is written in one transaction, or not at all when another
writer already took one of its sequence numbers (the primary key
``(room_id, seq)``); the caller then reloads and re-checks.

Every method is synchronous and may block on the disk or the network:
the service calls them on its own threads, never on the event loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from koudian.rooms.rows import (
    ROOM_STATUSES,
    EventRow,
    HandRow,
    RoomRow,
    RoomStoreError,
    redact,
)

__all__ = [
    "ROOM_STATUSES",
    "EventRow",
    "HandRow",
    "RoomRow",
    "RoomStoreError",
    "Store",
    "open_store",
    "redact",
]


class Store(Protocol):
    """Where rooms live (see the module doc). ``url`` names the database
    in messages (never a password)."""

    url: str

    def create_room(self, room: RoomRow) -> None:
        """Adds a room; ``RoomStoreError`` if its id or code is taken."""
        ...

    def room(self, room_id: str) -> RoomRow | None: ...

    def room_by_code(self, code: str) -> RoomRow | None: ...

    def open_rooms(self) -> list[RoomRow]:
        """The rooms not closed (a starting server resumes them)."""
        ...

    def events(self, room_id: str, after: int = -1) -> list[EventRow]:
        """The room's events with ``seq > after``, in order."""
        ...

    def append(self, room_id: str, events: Sequence[EventRow]) -> bool:
        """Writes ``events`` (consecutive seqs) in one transaction: True
        once durable, False (nothing written) when one of their seqs is
        already taken (another writer got there first)."""
        ...

    def set_status(self, room_id: str, status: str, updated: float) -> None: ...

    def save_hand(self, room_id: str, hand: int, log: str, replay_key: str) -> None:
        """Keeps a finished hand's log (saving the same hand again is a
        no-op: two writers may both finish it)."""
        ...

    def hand_by_key(self, replay_key: str) -> HandRow | None: ...

    def hands(self, room_id: str) -> list[HandRow]:
        """The room's finished hands, in order."""
        ...

    def listen(self, on_event: Callable[[str, int], None]) -> None:
        """Calls ``on_event(room_id, seq)`` (from any thread) when another
        process appended to a room. SQLite: never (one process per file)."""
        ...

    def close(self) -> None: ...


def open_store(url: str | Path) -> Store:
    """The store at ``url``: ``postgresql://...`` (or ``postgres://``) →
    PostgreSQL; ``sqlite:///PATH`` or a plain path → SQLite (created if
    missing). ``RoomStoreError`` if it cannot be opened or its schema is
    newer than this koudian's."""
    text = str(url)
    if text.startswith(("postgresql://", "postgres://")):
        from koudian._extras import install_hint

        try:
            from koudian.rooms.store_postgres import PostgresStore  # type: ignore[import-not-found,unused-ignore]
        except ImportError as e:
            raise RoomStoreError(
                f"--db {redact(text)}: PostgreSQL needs psycopg ({install_hint('web')}): {e}"
            ) from None
        store: Store = PostgresStore(text)
        return store
    from koudian.rooms.store_sqlite import SQLiteStore

    if text.startswith("sqlite://"):
        text = text.removeprefix("sqlite://")
        if text.startswith("/") and text[1:2] == "/":
            text = text[1:]  # sqlite:////abs/path
        elif text.startswith("/"):
            text = text[1:] or ":memory:"  # sqlite:///relative/path
        text = text or ":memory:"  # sqlite://: a throwaway store
    return SQLiteStore(text)
