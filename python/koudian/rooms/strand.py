"""A room's worker: its tasks run one at a time, in order, on a pool
shared by every room.

A room's state is touched by one task at a time (no lock in the room),
yet a server of a thousand rooms runs a bounded number of threads (the
shared pool's), not one per room. A strand hands the pool one task per
turn, so a room with much to do (a match of bots) takes turns with the
others instead of holding a thread.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

__all__ = ["Strand"]


class Strand:
    """Runs the tasks given to ``submit`` one at a time, in the order
    given, on ``pool`` (any thread may submit; without a pool, nothing
    can be queued: a room driven by hand, in tests)."""

    def __init__(self, pool: Executor | None, name: str = "") -> None:
        self._pool = pool
        self.name = name
        self._lock = threading.Lock()
        self._tasks: deque[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]] = deque()
        self._running = False  # a turn of this strand is queued on the pool or running
        self.closed = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        """Queues ``fn(*args)``; its future. ``RuntimeError`` once the
        strand is closed (the room was put away, the server is stopping)."""
        fut: Future[Any] = Future()
        with self._lock:
            if self.closed or self._pool is None:
                raise RuntimeError(f"the worker of {self.name or 'a room'} is closed")
            self._tasks.append((fut, fn, args))
            if self._running:
                return fut
            self._running = True
        self._turn()
        return fut

    def close(self) -> None:
        """No task is taken from now on; the tasks queued still run."""
        with self._lock:
            self.closed = True

    def _turn(self) -> None:
        try:
            assert self._pool is not None
            self._pool.submit(self._run_one)
        except RuntimeError as e:  # the pool is shut down: the queued tasks fail
            with self._lock:
                self.closed = True
                tasks, self._tasks = list(self._tasks), deque()
                self._running = False
            for fut, _, _ in tasks:
                if fut.set_running_or_notify_cancel():
                    fut.set_exception(RuntimeError(str(e)))

    def _run_one(self) -> None:
        with self._lock:
            fut, fn, args = self._tasks.popleft()
        if fut.set_running_or_notify_cancel():
            try:
                fut.set_result(fn(*args))
            except BaseException as e:
                fut.set_exception(e)
        with self._lock:
            if not self._tasks:
                self._running = False
                return
        self._turn()  # the next task waits for the pool's next turn
