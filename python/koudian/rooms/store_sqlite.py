"""The SQLite room store: one file, nothing to install.

WAL journal and ``synchronous=FULL``: an appended event is on the disk
when ``append`` returns (it survives a crash of the process and of the
machine). One connection per thread (``sqlite3`` connections are not
shared between threads); a busy database is waited for up to
``BUSY_TIMEOUT`` seconds. One server process per file: ``listen`` never
calls back (there is no other writer to hear from).

Writes. The process's writes take turns on a lock of their own (fair and
without delay), not on SQLite's busy handler, which polls and may let a
writer lose for seconds; the busy timeout still covers another program
(a ``sqlite3 .backup``). Appends are committed in groups: one writer
thread takes every append waiting (of any room) and commits them in one
transaction, each in a SAVEPOINT of its own (a taken seq undoes that
append alone, and its caller is told False), so one sync to the disk
serves them all; each caller is told once the COMMIT is done.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

from koudian.rooms.reads import StoreReads
from koudian.rooms.rows import EventRow, RoomRow, RoomStoreError
from koudian.rooms.schema import SQLITE, migrate

__all__ = ["SQLiteStore"]

BUSY_TIMEOUT = 30.0
"""Seconds a statement waits for another connection's write lock."""
MAX_GROUP = 256
"""Most appends committed in one transaction."""
APPEND_TIMEOUT = 2 * BUSY_TIMEOUT + 30.0
"""Seconds an append waits for its group's commit before it is refused
(``RoomStoreError``: the database does not answer)."""


class SQLiteStore(StoreReads):
    """Rooms in the SQLite file ``path`` (``:memory:`` for a throwaway
    store, shared by the threads of this process)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self.url = self.path
        self._memory = self.path == ":memory:"
        if self._memory:
            # One shared connection, serialized: a memory database is per connection.
            self._shared: sqlite3.Connection | None = None
        elif Path(self.path).is_dir():
            raise RoomStoreError(f"--db {self.path}: a directory, not a database file")
        self._local = threading.local()
        self._lock = threading.RLock()
        # The process's writes, one at a time (see the module doc).
        self._writing = threading.Lock()
        self._queue: deque[_Append] = deque()
        self._wake = threading.Condition()
        self._writer: threading.Thread | None = None
        self.commits = 0  # transactions of appends committed (each one sync to the disk)
        self._all: list[sqlite3.Connection] = []
        self._closed = False
        try:
            self._migrate()
        except sqlite3.Error as e:
            self.close()
            raise RoomStoreError(f"--db {self.path}: {e}") from None
        except RoomStoreError:
            self.close()
            raise

    # ------------------------------------------------------------ connections

    def _connect(self, *, draining: bool = False) -> sqlite3.Connection:
        """This thread's connection (``draining``: the writer thread,
        which writes the appends still waiting when the store closes)."""
        if self._closed and not draining:
            raise RoomStoreError(f"--db {self.path}: the store is closed")
        if self._memory:
            if self._shared is None:
                self._shared = self._open()
            return self._shared
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
        return conn

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path,
            timeout=BUSY_TIMEOUT,
            isolation_level=None,  # explicit BEGIN/COMMIT below
            check_same_thread=False,  # closed by close() from any thread
        )
        conn.execute("PRAGMA foreign_keys = ON")
        if not self._memory:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()
            if mode is None or str(mode[0]).lower() != "wal":
                conn.close()
                raise RoomStoreError(f"--db {self.path}: cannot use the WAL journal ({mode})")
        conn.execute("PRAGMA synchronous = FULL")
        with self._lock:
            self._all.append(conn)
        return conn

    def _run(self, fn: Callable[[sqlite3.Connection], object]) -> object:
        """Runs ``fn`` in one transaction (``BEGIN IMMEDIATE``: the write
        lock is taken first, so two writers never deadlock on upgrade)."""
        with self._lock if self._memory else self._writing:
            conn = self._connect()
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    out = fn(conn)
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
                return out
            except sqlite3.IntegrityError:
                raise
            except sqlite3.Error as e:
                raise RoomStoreError(f"--db {self.path}: {e}") from None

    def _read(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock if self._memory else _NoLock():
            try:
                return list(self._connect().execute(sql, tuple(args)).fetchall())
            except sqlite3.Error as e:
                raise RoomStoreError(f"--db {self.path}: {e}") from None

    def _migrate(self) -> None:
        def step(conn: sqlite3.Connection) -> None:
            migrate(conn, SQLITE, f"--db {self.path}")

        self._run(step)

    # ------------------------------------------------------------ the protocol

    def create_room(self, room: RoomRow) -> None:
        def insert(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO rooms (id, code, secret, config, created, updated, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
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
            self._run(insert)
        except sqlite3.IntegrityError as e:
            raise RoomStoreError(f"--db {self.path}: room {room.code} exists ({e})") from None

    def append(self, room_id: str, events: Sequence[EventRow]) -> bool:
        if not events:
            return True

        for e in events:
            if e.room_id != room_id:
                raise RoomStoreError(f"an event of room {e.room_id} appended to {room_id}")
        job = _Append(room_id, [(room_id, e.seq, e.kind, e.body, e.at) for e in events])
        with self._wake:
            if self._closed:
                raise RoomStoreError(f"--db {self.path}: the store is closed")
            self._queue.append(job)
            if self._writer is None:
                self._writer = threading.Thread(
                    target=self._write_groups, name="koudian-rooms-sqlite-writer", daemon=True
                )
                self._writer.start()
            self._wake.notify()
        try:
            return job.done.result(timeout=APPEND_TIMEOUT)
        except FutureTimeout:
            raise RoomStoreError(
                f"--db {self.path}: no commit within {APPEND_TIMEOUT:g} s (the append may "
                "still be written: reload before trying again)"
            ) from None

    def waiting(self) -> int:
        """Appends waiting for the writer thread."""
        with self._wake:
            return len(self._queue)

    def _write_groups(self) -> None:
        """The writer thread: commits the appends waiting, a group at a time."""
        while True:
            with self._wake:
                while not self._queue and not self._closed:
                    self._wake.wait()
                if not self._queue:
                    return  # closed, nothing left
            with self._lock if self._memory else self._writing:
                # Taken once the database is ours: whatever queued up
                # meanwhile joins this group.
                with self._wake:
                    group = [self._queue.popleft() for _ in range(min(MAX_GROUP, len(self._queue)))]
                self._commit_group(group)

    def _commit_group(self, group: list[_Append]) -> None:
        results: list[bool | RoomStoreError] = []
        conn: sqlite3.Connection | None = None
        try:
            conn = self._connect(draining=True)
            conn.execute("BEGIN IMMEDIATE")
            try:
                for job in group:
                    conn.execute("SAVEPOINT koudian_append")
                    try:
                        conn.executemany(
                            "INSERT INTO events (room_id, seq, kind, body, at) "
                            "VALUES (?, ?, ?, ?, ?)",
                            job.rows,
                        )
                    except sqlite3.IntegrityError as e:
                        conn.execute("ROLLBACK TO koudian_append")
                        if "FOREIGN KEY" in str(e).upper():
                            results.append(
                                RoomStoreError(f"--db {self.path}: no room {job.room_id}")
                            )
                        else:
                            results.append(False)  # a seq is taken: nothing of it written
                    else:
                        results.append(True)
                    conn.execute("RELEASE koudian_append")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")  # durable (synchronous=FULL) before anyone is told
            self.commits += 1
        except Exception as e:  # nothing of the group was written; the writer goes on
            if conn is not None and conn.in_transaction:
                try:
                    conn.execute("ROLLBACK")  # a failed COMMIT leaves it open
                except sqlite3.Error:
                    pass
            err = RoomStoreError(f"--db {self.path}: {e}") if isinstance(e, sqlite3.Error) else e
            for job in group:
                job.done.set_exception(err)
            return
        for job, r in zip(group, results, strict=True):
            if isinstance(r, RoomStoreError):
                job.done.set_exception(r)
            else:
                job.done.set_result(r)

    def set_status(self, room_id: str, status: str, updated: float) -> None:
        def update(conn: sqlite3.Connection) -> None:
            conn.execute(
                "UPDATE rooms SET status = ?, updated = ? WHERE id = ?",
                (status, updated, room_id),
            )

        self._run(update)

    def save_hand(self, room_id: str, hand: int, log: str, replay_key: str) -> None:
        def insert(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO hands (room_id, hand, log, replay_key) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (room_id, hand) DO NOTHING",
                (room_id, hand, log, replay_key),
            )

        try:
            self._run(insert)
        except sqlite3.IntegrityError as e:
            raise RoomStoreError(f"--db {self.path}: hand {hand} of {room_id}: {e}") from None

    def listen(self, on_event: Callable[[str, int], None]) -> None:
        """Nothing to hear: one process per SQLite file."""

    def close(self) -> None:
        with self._wake:
            self._closed = True
            self._wake.notify_all()
            writer = self._writer
        if writer is not None and writer is not threading.current_thread():
            writer.join(APPEND_TIMEOUT)  # the appends waiting are written first
        with self._lock:
            conns, self._all = self._all, []
        for c in conns:
            try:
                c.close()
            except sqlite3.Error:
                pass


class _NoLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


class _Append:
    """One append waiting for the writer thread: its rows, and the future
    its caller waits on (True, False: a seq was taken, or the error)."""

    __slots__ = ("done", "room_id", "rows")

    def __init__(self, room_id: str, rows: list[tuple[str, int, str, str, float]]) -> None:
        self.room_id = room_id
        self.rows = rows
        self.done: Future[bool] = Future()
