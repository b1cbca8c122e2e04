"""The PostgreSQL room store: several server processes on one database.

``append`` is one transaction that also sends a ``NOTIFY`` on the channel
``koudian_rooms``; PostgreSQL delivers it at commit, to every listening
session, so the other processes hear of each committed event through
PostgreSQL itself (no broker of our own). ``listen`` runs one thread with its
own connection that ``LISTEN``\\s, waits at most ``POLL`` seconds at a time
(so ``close`` stops it promptly), reconnects after losing the server (with a
capped backoff), and each time it starts listening reports every open
room's last seq once, since notifications sent before are not heard.

The other methods borrow a connection from a small pool (``POOL_SIZE``,
whatever the number of calling threads: a server has a worker thread per
room) and drop one that broke. Every wait is bounded:
connecting (``CONNECT_TIMEOUT``), each statement (``STATEMENT_TIMEOUT``),
and on TCP a dead peer (keepalives). ``append`` commits with
``synchronous_commit = on`` whatever the server's default: True means the
event is on the database server's disk.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict

from koudian.rooms.reads import StoreReads
from koudian.rooms.rows import EventRow, RoomRow, RoomStoreError, redact
from koudian.rooms.schema import POSTGRES, migrate

__all__ = ["CHANNEL", "PostgresStore"]

log = logging.getLogger("koudian.rooms")

CHANNEL = "koudian_rooms"
"""The NOTIFY channel; a payload is ``ORIGIN:ROOM_ID:SEQ`` (the appending
store's random origin, the room, its last seq)."""

CONNECT_TIMEOUT = 10
"""Seconds to connect (libpq ``connect_timeout``) unless the URL says."""

STATEMENT_TIMEOUT_MS = 30_000
"""The longest any statement may run (or wait for a lock)."""

POOL_SIZE = 8
"""Connections a store opens at most for its calls (each call holds one
for a statement or a transaction: milliseconds), whatever the number of
threads calling; PostgreSQL's ``max_connections`` bounds them all."""

POOL_WAIT = 60.0
"""Seconds a call waits for a free connection before it fails."""

POLL = 0.5
"""Seconds the listener waits for notifications before checking for close."""

BACKOFF_MAX = 5.0
"""The longest pause between the listener's reconnection attempts."""

_MIGRATION_LOCK = 0x6B6F7564  # "koud": one migration at a time across processes
_ORIGIN_LEN = 16


class PostgresStore(StoreReads):
    """Rooms in the PostgreSQL database at ``url`` (a libpq URL,
    ``postgresql://user:password@host:port/dbname?...``), through at most
    ``pool`` connections (plus the listener's)."""

    shared = True
    """Other processes may write the same rooms (the service then never
    takes a room's people for gone when it loads the room)."""

    def __init__(self, url: str, *, pool: int = POOL_SIZE) -> None:
        self.url = redact(url)
        try:
            params = conninfo_to_dict(url)
        except psycopg.Error as e:
            raise RoomStoreError(f"--db {self.url}: {e}") from None
        params.setdefault("connect_timeout", CONNECT_TIMEOUT)
        # A peer that vanishes without closing (TCP only; ignored on sockets)
        # is noticed within about 25 s instead of the system's 2 hours.
        params.setdefault("keepalives", 1)
        params.setdefault("keepalives_idle", 10)
        params.setdefault("keepalives_interval", 5)
        params.setdefault("keepalives_count", 3)
        params.setdefault("application_name", "koudian")
        self._params: dict[str, Any] = params
        self._origin = secrets.token_hex(_ORIGIN_LEN // 2)
        self._size = max(1, pool)
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._idle: list[psycopg.Connection[Any]] = []
        self._count = 0  # connections open or being opened, idle or lent
        self._closed = threading.Event()
        self._listeners: list[Callable[[str, int], None]] = []
        self._listener: threading.Thread | None = None
        try:
            self._migrate()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------ connections

    def _error(self, e: BaseException) -> RoomStoreError:
        return RoomStoreError(f"--db {self.url}: {str(e).strip() or type(e).__name__}")

    def _open(self) -> psycopg.Connection[Any]:
        try:
            conn = psycopg.connect(**self._params, autocommit=True)
            conn.execute(f"SET statement_timeout = {STATEMENT_TIMEOUT_MS}")
            conn.execute(f"SET lock_timeout = {STATEMENT_TIMEOUT_MS}")
        except psycopg.Error as e:
            raise self._error(e) from None
        return conn

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection of the pool for one operation: an idle one, a new
        one while fewer than ``pool`` exist, else the next one given back
        (waiting at most ``POOL_WAIT`` seconds). A connection that broke is
        not given back."""
        deadline = time.monotonic() + POOL_WAIT
        conn: psycopg.Connection[Any] | None = None
        with self._cond:
            while conn is None:
                if self._closed.is_set():
                    raise RoomStoreError(f"--db {self.url}: the store is closed")
                if self._idle:
                    conn = self._idle.pop()
                    if conn.closed or conn.broken:
                        self._count -= 1
                        conn = None
                    continue
                if self._count < self._size:
                    self._count += 1
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RoomStoreError(
                        f"--db {self.url}: all {self._size} connections stayed busy "
                        f"for {POOL_WAIT:g} s"
                    )
                self._cond.wait(left)
        if conn is None:
            try:
                conn = self._open()
            except BaseException:
                with self._cond:
                    self._count -= 1
                    self._cond.notify()
                raise
        try:
            yield conn
        finally:
            stale: list[psycopg.Connection[Any]] = []
            with self._cond:
                keep = not (self._closed.is_set() or conn.closed or conn.broken)
                if keep:
                    self._idle.append(conn)
                else:
                    self._count -= 1
                    if conn.broken:
                        # The server went away (a restart, a failover): the
                        # idle connections are as dead, only not found out.
                        stale, self._idle = self._idle, []
                        self._count -= len(stale)
                self._cond.notify_all()
            for c in stale if keep else [*stale, conn]:
                try:
                    c.close()
                except psycopg.Error:
                    pass

    def _read(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """One query; retried once on a fresh connection if the connection
        was lost (a read has no effect to double)."""
        for attempt in (0, 1):
            with self._conn() as conn:
                try:
                    return list(conn.execute(POSTGRES.sql(sql), tuple(args)).fetchall())
                except psycopg.OperationalError as e:
                    if attempt == 1 or self._closed.is_set() or not conn.broken:
                        raise self._error(e) from None
                except psycopg.Error as e:
                    raise self._error(e) from None
        raise AssertionError("unreachable")

    def _write(self, fn: Callable[[psycopg.Connection[Any]], object]) -> object:
        """Runs ``fn`` in one transaction. On a lost connection it is run
        again on a fresh one, unless the loss came at the commit: whether
        that commit happened is unknown, so it is an error, and the
        caller's reload tells."""
        for attempt in (0, 1):
            with self._conn() as conn:
                phase = "begin"
                try:
                    with conn.transaction():
                        phase = "run"
                        out = fn(conn)
                        phase = "commit"
                    return out
                except psycopg.OperationalError as e:
                    retry = attempt == 0 and conn.broken and phase != "commit"
                    if not retry or self._closed.is_set():
                        raise self._error(e) from None
        raise AssertionError("unreachable")

    def _migrate(self) -> None:
        def step(conn: psycopg.Connection[Any]) -> None:
            # Two processes starting at once on a new database: one migrates,
            # the other waits here and then finds the current version.
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            migrate(conn, POSTGRES, f"--db {self.url}")

        try:
            self._write(step)
        except psycopg.Error as e:
            raise self._error(e) from None

    # ------------------------------------------------------------ the protocol

    def create_room(self, room: RoomRow) -> None:
        def insert(conn: psycopg.Connection[Any]) -> None:
            conn.execute(
                POSTGRES.sql(
                    "INSERT INTO rooms (id, code, secret, config, created, updated, status) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)"
                ),
                (
                    room.id,
                    room.code,
                    room.secret,
                    room.config_json,
                    room.created,
                    room.updated or room.created,
                    room.status,
                ),
            )

        try:
            self._write(insert)
        except pg_errors.UniqueViolation as e:
            raise RoomStoreError(
                f"--db {self.url}: room {room.code} exists ({e.diag.constraint_name})"
            ) from None
        except psycopg.Error as e:
            raise self._error(e) from None

    def append(self, room_id: str, events: Sequence[EventRow]) -> bool:
        if not events:
            return True
        for e in events:
            if e.room_id != room_id:
                raise RoomStoreError(f"an event of room {e.room_id} appended to {room_id}")

        def insert(conn: psycopg.Connection[Any]) -> None:
            # Durable at commit whatever the server's default.
            conn.execute("SET LOCAL synchronous_commit = on")
            conn.execute(
                "INSERT INTO events (room_id, seq, kind, body, at) "
                "SELECT %s, * FROM unnest(%s::integer[], %s::text[], %s::text[], "
                "%s::double precision[])",
                (
                    room_id,
                    [e.seq for e in events],
                    [e.kind for e in events],
                    [e.body for e in events],
                    [e.at for e in events],
                ),
            )
            # Delivered at commit, and only if the transaction commits.
            conn.execute(
                "SELECT pg_notify(%s, %s)",
                (CHANNEL, f"{self._origin}:{room_id}:{max(e.seq for e in events)}"),
            )

        try:
            self._write(insert)
        except pg_errors.UniqueViolation:
            return False  # a seq is taken: the transaction rolled back, nothing written
        except pg_errors.ForeignKeyViolation:
            raise RoomStoreError(f"--db {self.url}: no room {room_id}") from None
        except psycopg.Error as e:
            raise self._error(e) from None
        return True

    def set_status(self, room_id: str, status: str, updated: float) -> None:
        def update(conn: psycopg.Connection[Any]) -> None:
            conn.execute(
                POSTGRES.sql("UPDATE rooms SET status = ?, updated = ? WHERE id = ?"),
                (status, updated, room_id),
            )

        try:
            self._write(update)
        except psycopg.Error as e:
            raise self._error(e) from None

    def save_hand(self, room_id: str, hand: int, log: str, replay_key: str) -> None:
        def insert(conn: psycopg.Connection[Any]) -> None:
            # No conflict target: two processes saving one hand at once can
            # collide on the replay key's unique index first (the key is
            # derived from the hand), which ON CONFLICT (room_id, hand)
            # would raise. A row skipped must then be that very hand.
            cur = conn.execute(
                POSTGRES.sql(
                    "INSERT INTO hands (room_id, hand, log, replay_key) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT DO NOTHING"
                ),
                (room_id, hand, log, replay_key),
            )
            if cur.rowcount == 0:
                row = conn.execute(
                    POSTGRES.sql("SELECT 1 FROM hands WHERE room_id = ? AND hand = ?"),
                    (room_id, hand),
                ).fetchone()
                if row is None:
                    raise RoomStoreError(
                        f"--db {self.url}: hand {hand} of {room_id}: its replay key is "
                        "another hand's"
                    )

        try:
            self._write(insert)
        except psycopg.Error as e:
            raise RoomStoreError(f"--db {self.url}: hand {hand} of {room_id}: {e}") from None

    def listen(self, on_event: Callable[[str, int], None]) -> None:
        """Calls ``on_event(room_id, seq)`` on the listener thread when
        another store (another process) committed events up to ``seq`` to
        a room; also, each time the listener (re)connects, once for every
        open room with its last seq (what was committed before it listened
        was not heard). A callback may thus hear a seq it already has; it should
        reload the events after its own last. Several callbacks may be
        registered; one thread serves them all."""
        with self._lock:
            if self._closed.is_set():
                raise RoomStoreError(f"--db {self.url}: the store is closed")
            self._listeners.append(on_event)
            if self._listener is not None:
                return
            self._listener = threading.Thread(
                target=self._listen_loop, name="koudian-pg-listen", daemon=True
            )
            self._listener.start()

    def _dispatch(self, room_id: str, seq: int) -> None:
        with self._lock:
            callbacks = list(self._listeners)
        for cb in callbacks:
            try:
                cb(room_id, seq)
            except Exception:
                # A callback's bug must not end the listening for everyone.
                log.exception("room event callback failed for %s@%d", room_id, seq)

    def _heard(self, payload: str) -> None:
        origin, _, rest = payload.partition(":")
        room_id, _, seq = rest.rpartition(":")
        if origin == self._origin or not room_id or not seq.isdigit():
            return  # our own append, or not ours to read
        self._dispatch(room_id, int(seq))

    def _resync(self, conn: psycopg.Connection[Any]) -> None:
        rows = conn.execute(
            "SELECT e.room_id, max(e.seq) FROM events e JOIN rooms r ON r.id = e.room_id "
            "WHERE r.status <> 'closed' GROUP BY e.room_id ORDER BY e.room_id"
        ).fetchall()
        for room_id, seq in rows:
            if self._closed.is_set():
                return
            self._dispatch(str(room_id), int(seq))

    def _listen_loop(self) -> None:
        backoff = 0.1
        first = True
        while not self._closed.is_set():
            conn: psycopg.Connection[Any] | None = None
            try:
                params = {**self._params}
                params["application_name"] = f"{params['application_name']}-listen"
                conn = psycopg.connect(**params, autocommit=True)
                conn.execute(f"LISTEN {CHANNEL}")
                if not first:
                    log.warning("room events: listening again on %s", self.url)
                first = False
                # What was committed before LISTEN took effect (before the
                # first start, or while the connection was lost) was not heard.
                self._resync(conn)
                backoff = 0.1
                while not self._closed.is_set():
                    for n in conn.notifies(timeout=POLL):
                        self._heard(n.payload)
            except psycopg.Error as e:
                if self._closed.is_set():
                    break
                log.warning("room events: lost %s (%s); reconnecting", self.url, e)
                first = False
                self._closed.wait(backoff)
                backoff = min(backoff * 2, BACKOFF_MAX)
            finally:
                if conn is not None:
                    try:
                        conn.close()
                    except psycopg.Error:
                        pass

    def close(self) -> None:
        """Stops the listener (within about ``POLL`` seconds) and closes
        every connection."""
        with self._cond:
            self._closed.set()
            conns, self._idle = self._idle, []
            self._count -= len(conns)
            listener, self._listener = self._listener, None
            self._cond.notify_all()  # waiters for a connection: the store is closed
        for c in conns:
            try:
                c.close()
            except psycopg.Error:
                pass
        if listener is not None and listener is not threading.current_thread():
            listener.join(timeout=POLL + CONNECT_TIMEOUT + 5)
