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
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from koudian._core import KoudianError

__all__ = [
    "EventRow",
    "HandRow",
    "RoomRow",
    "RoomStoreError",
    "Store",
    "open_store",
]


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
        try:
            from koudian.rooms.store_postgres import PostgresStore  # type: ignore[import-not-found,unused-ignore]
        except ImportError as e:
            raise RoomStoreError(
                f"--db {redact(text)}: PostgreSQL needs psycopg (pip install 'koudian[web]'): {e}"
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
    return SQLiteStore(text)


def redact(url: str) -> str:
    """``url`` without its password (for messages)."""
    if "://" not in url or "@" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in creds else url
