"""How a long run stops on Ctrl-C and cuts its native work, shared by
``simulate``, ``arena`` and the ladder: one owner for both.

A run asks ``StopOnCtrlC`` whether to stop between pieces of work, and
cuts its native work (which holds no Python signal check while it runs)
into calls of ``timed_chunks``, each about a quarter of a second, so that
Ctrl-C is honoured within a second whatever the run's length.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

__all__ = ["CHUNK_SECONDS", "StopOnCtrlC", "timed_chunks"]

CHUNK_SECONDS = 0.25
"""Aimed length of each native call after the first. Every call wakes the
worker threads and ends with one thread finishing alone, so short calls
cost scaling (with 2,000-game calls, two threads ran random agents at 1.5x
one thread; the core's own loop reaches 1.9x); a quarter of a second keeps
the progress bar lively and Ctrl-C prompt."""


def timed_chunks(
    total: int,
    first: int,
    *,
    chunk: int | None = None,
    least: int = 1,
    most: int | None = None,
    seconds: float = CHUNK_SECONDS,
) -> Iterator[tuple[int, int]]:
    """``(start, n)`` pieces of ``0 .. total``: ``chunk`` at a time when
    given, else ``first``, then as many as took about ``seconds`` at the
    rate the previous piece ran (the caller does the piece's work before
    asking for the next), at least ``least``, at most ``most``."""
    start, n = 0, chunk or first
    while start < total:
        n = min(n, total - start)
        if most is not None:
            n = min(n, most)
        t = time.perf_counter()
        yield start, n
        start += n
        if chunk is None:
            rate = n / max(time.perf_counter() - t, 1e-6)
            n = max(least, int(rate * seconds))


class StopOnCtrlC:
    """While a run is under way, Ctrl-C (SIGINT) only asks it to stop: the
    run checks ``stopped`` between chunks of native games and between
    Python-driven hands, so that it ends on a boundary with its outputs
    and its results agreeing. A second Ctrl-C interrupts at once. Only
    Python's own handler is replaced, and only in the main thread (the
    only one that receives signals); elsewhere a ``KeyboardInterrupt``
    still stops the run, at whatever point it arrives. Nested (a ladder's
    runs), the inner one shares the outer one's ``stopped``."""

    def __init__(self) -> None:
        self._stopped = False
        self._installed = False
        self._outer: StopOnCtrlC | None = None

    @property
    def stopped(self) -> bool:
        """Whether Ctrl-C asked the run to stop."""
        return self._outer.stopped if self._outer is not None else self._stopped

    def __enter__(self) -> StopOnCtrlC:
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            return self
        current: Any = signal.getsignal(signal.SIGINT)
        if isinstance(getattr(current, "__self__", None), StopOnCtrlC):
            self._outer = current.__self__
        elif current is signal.default_int_handler:
            signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def _handle(self, signum: int, frame: object) -> None:
        import signal

        self._stopped = True
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            import signal

            signal.signal(signal.SIGINT, signal.default_int_handler)
