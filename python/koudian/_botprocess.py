"""A bot process and its pipes, for ``koudian.protocol``.

The bot runs in a process group of its own; its stdout is read as raw
bytes into a bounded buffer and handed out one line at a time, its stdin
written with a deadline, so that nothing a bot does (not reading, flooding,
writing bytes that are not text, forking, dying) can block the engine,
grow its memory without bound or outlive the agent. What the lines mean is
the protocol's business, not this module's.
"""

from __future__ import annotations

import math
import os
import select
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Callable
from typing import IO, Any

from koudian import _reaper

_CHUNK = 64 * 1024
"""Bytes read from a bot at a time."""

_POLL = 0.05
"""Seconds between checks that a silent bot is still running (its children
may hold its stdout open, so an end of file may never come)."""

TIMEOUT, EOF, EXITED, OVERFLOW, FLOOD = "timeout", "eof", "exited", "overflow", "flood"
"""What ``Output.line`` and ``Input.send`` give instead of a line or success."""

THREADED = not hasattr(select, "poll")
"""Pipes are read and written by threads where they cannot be polled
(Windows); elsewhere the engine polls them itself, which saves a thread
hand-off per message (tests force the threads on POSIX too)."""


def _describe_exit(code: int | None) -> str:
    """How a process ended, from its ``returncode``."""
    if code is None:
        return "is still running"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            return f"was killed by signal {-code}"
        return f"was killed by signal {-code} ({name})"
    return f"exited with code {code}"


def _close_quietly(stream: IO[bytes]) -> None:
    """Closes a pipe whose other end may be gone."""
    try:
        stream.close()
    except OSError:
        pass


def _ms(seconds: float) -> int:
    """A ``poll`` timeout in whole milliseconds, never waiting less than asked."""
    return max(0, math.ceil(seconds * 1000))


class Output:
    """A bot's stdout read as raw bytes into a bounded buffer; ``line``
    hands out one line at a time. Nothing is decoded here, so nothing a
    bot writes can break the reading. At most ``max_line + _CHUNK``
    unread bytes are held: beyond that nothing more is read, and a bot
    that floods blocks on its own full pipe.

    Polled (``threaded=False``): ``line`` and ``discard`` read the pipe
    themselves. Threaded: a daemon thread reads it and owns the stream."""

    def __init__(self, stream: IO[bytes], threaded: bool, max_line: int, max_skipped: int) -> None:
        self._stream = stream
        self._fd = stream.fileno()
        self._max_line = max_line
        self._max_skipped = max_skipped
        self._cond = threading.Condition()
        self._buf = bytearray()
        self._pos = 0  # start of the unread bytes in _buf
        self._eof = False
        self._closed = False
        self._skip_line = False  # the bytes up to the next newline are old
        self.skipped = 0  # bytes dropped since the last discard(), included
        self._poll: Any = None
        if threaded:
            threading.Thread(target=self._run, name="koudian-bot-out", daemon=True).start()
        else:
            self._poll = select.poll()
            self._poll.register(self._fd, select.POLLIN)

    def _unread(self) -> int:
        return len(self._buf) - self._pos

    def _append(self, chunk: bytes) -> None:
        if not chunk:
            self._eof = True
            return
        if self._pos > _CHUNK:
            del self._buf[: self._pos]
            self._pos = 0
        self._buf += chunk

    def _read(self, timeout: float) -> bool:
        """Polled: reads one chunk if one comes within ``timeout``; whether
        any output (or its end) came."""
        if self._eof or not self._poll.poll(_ms(timeout)):
            return False
        try:
            chunk = os.read(self._fd, _CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            chunk = b""
        self._append(chunk)
        return True

    def _run(self) -> None:
        """Threaded: the reading loop."""
        try:
            while True:
                with self._cond:
                    while self._unread() > self._max_line and not self._closed:
                        self._cond.wait()
                    if self._closed:
                        return
                try:
                    chunk = self._stream.read(_CHUNK)
                except (OSError, ValueError):
                    chunk = b""
                with self._cond:
                    self._append(chunk or b"")
                    self._cond.notify_all()
                    if not chunk:
                        return
        finally:
            _close_quietly(self._stream)

    def _wait(self, timeout: float) -> bool:
        """Waits up to ``timeout`` for more output; whether any came."""
        if self._poll is None:
            return self._cond.wait(timeout)
        return self._read(timeout)

    def discard(self) -> tuple[int, int]:
        """Drops the output left over from earlier requests (polled: also
        what is waiting in the pipe, up to ``max_skipped`` bytes); returns
        the lines and bytes dropped."""
        with self._cond:
            lines = size = 0
            ends_line = True
            while True:
                old = self._buf[self._pos :]
                if old:
                    lines += old.count(b"\n")
                    size += len(old)
                    ends_line = old.endswith(b"\n")
                self._buf.clear()
                self._pos = 0
                if self._poll is None or size > self._max_skipped or not self._read(0):
                    break
            # A line cut in two: its rest is old too.
            self._skip_line = self._skip_line or not ends_line
            self.skipped = size
            self._cond.notify_all()
            return lines, size

    def line(self, deadline: float, exited: Callable[[], bool]) -> bytes | str:
        """The next line without its newline, or ``TIMEOUT`` at
        ``deadline``, ``EOF`` at the end of the output, ``EXITED`` when
        the bot has exited (its children may hold its stdout open),
        ``OVERFLOW`` for a line over ``max_line`` bytes, ``FLOOD`` for
        more than ``max_skipped`` bytes dropped."""
        with self._cond:
            while True:
                buf, pos = self._buf, self._pos
                nl = buf.find(b"\n", pos)
                if self._skip_line:
                    end = len(buf) if nl < 0 else nl + 1
                    self.skipped += end - pos
                    self._pos = end
                    self._skip_line = nl < 0
                    self._cond.notify_all()
                    if self.skipped > self._max_skipped:
                        return FLOOD
                    if nl >= 0:
                        continue
                elif nl >= 0:
                    if nl - pos > self._max_line:
                        return OVERFLOW
                    self._pos = nl + 1
                    self._cond.notify_all()
                    return bytes(buf[pos:nl])
                elif len(buf) - pos > self._max_line:
                    return OVERFLOW
                if self._eof:
                    if len(buf) > self._pos:  # a last line without its newline
                        line = bytes(buf[self._pos :])
                        self._pos = len(buf)
                        return line
                    return EOF
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return TIMEOUT
                # Whatever the bot wrote before it ended is read first.
                if not self._wait(min(remaining, _POLL)) and exited():
                    if not self._wait(0.01):
                        return EXITED

    def close(self) -> None:
        """Threaded: lets the thread end (it also ends at the end of the
        output). Polled: closes the stream."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._poll is not None:
            _close_quietly(self._stream)


class Input:
    """A bot's stdin, written so that a bot that does not read makes
    ``send`` time out instead of blocking the engine: polled, the pipe is
    non-blocking and ``send`` waits for room until its deadline; threaded,
    a daemon thread writes each request and owns the stream."""

    def __init__(self, stream: IO[bytes], threaded: bool) -> None:
        self._stream = stream
        self._fd = stream.fileno()
        self._cond = threading.Condition()
        self._data: bytes | None = None
        self._error: OSError | None = None
        self._closed = False
        self._poll: Any = None
        if threaded:
            threading.Thread(target=self._run, name="koudian-bot-in", daemon=True).start()
        else:
            os.set_blocking(self._fd, False)
            self._poll = select.poll()
            self._poll.register(self._fd, select.POLLOUT)

    def _run(self) -> None:
        """Threaded: the writing loop."""
        try:
            while True:
                with self._cond:
                    while self._data is None and not self._closed:
                        self._cond.wait()
                    if self._data is None:
                        return
                    data = self._data
                error = None
                try:
                    view = memoryview(data)
                    while view:
                        view = view[self._stream.write(view) or 0 :]
                except (OSError, ValueError) as e:
                    error = e if isinstance(e, OSError) else OSError(str(e))
                with self._cond:
                    self._data = None
                    self._error = error
                    self._cond.notify_all()
                if error is not None:
                    return
        finally:
            _close_quietly(self._stream)

    def send(self, data: bytes, deadline: float) -> OSError | str | None:
        """Writes ``data``: None when written, the ``OSError`` when the
        write failed, ``TIMEOUT`` when ``deadline`` passed first."""
        if self._error is not None:
            return self._error
        if self._poll is not None:
            view = memoryview(data)
            while view:
                try:
                    view = view[os.write(self._fd, view) :]
                    continue
                except BlockingIOError:
                    pass
                except OSError as e:
                    self._error = e
                    return e
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return TIMEOUT
                self._poll.poll(_ms(remaining))  # room, or the reader gone
            return None
        with self._cond:
            self._data = data
            self._cond.notify_all()
            while self._data is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return TIMEOUT
                self._cond.wait(remaining)
            return self._error

    def close(self) -> None:
        """Closes the bot's stdin (threaded: once the write in progress,
        if any, ends)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._poll is not None:
            _close_quietly(self._stream)


_ERR_TAIL = 2048
"""Bytes of a bot's stderr kept (the last ones), to explain a failure."""


class ErrTail:
    """A bot's stderr read by a daemon thread, keeping only its last
    ``_ERR_TAIL`` bytes: a bot that writes without end costs no memory and
    never blocks on a full pipe."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._tail = bytearray()
        self._done = threading.Event()
        self._closed = False
        self._lock = threading.Lock()
        threading.Thread(target=self._run, name="koudian-bot-err", daemon=True).start()

    def _run(self) -> None:
        fd = self._stream.fileno()
        poll = select.poll() if hasattr(select, "poll") else None
        if poll is not None:
            poll.register(fd, select.POLLIN)
        try:
            while not self._closed:
                # Polled so that close() ends the thread even while a
                # descendant holds the pipe open.
                if poll is not None and not poll.poll(_ms(_POLL)):
                    continue
                try:
                    chunk = os.read(fd, _CHUNK)
                except OSError:
                    chunk = b""
                if not chunk:
                    return
                with self._lock:
                    self._tail += chunk
                    del self._tail[:-_ERR_TAIL]
        finally:
            self._done.set()
            _close_quietly(self._stream)

    def text(self, wait: float = 0.0) -> str:
        """The last lines of the bot's stderr (waiting up to ``wait``
        seconds for its end, so that what a bot wrote as it died is in)."""
        self._done.wait(wait)
        with self._lock:
            tail = bytes(self._tail)
        return tail.decode("utf-8", errors="replace").strip()

    def close(self) -> None:
        self._closed = True


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kills the bot's whole process group. On Linux it is called before
    the bot is reaped, so its pid (the group's id) cannot have been reused."""
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    else:  # pragma: no cover - Windows
        subprocess.run(
            ["taskkill", "/F", "/T", "/PID", str(proc.pid)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=10,
            check=False,
        )
        proc.kill()


def _exited(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the bot has ended, without reaping it (see ``_kill_group``)."""
    if proc.returncode is not None:
        return True
    if os.name == "posix" and hasattr(os, "waitid"):
        try:
            return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True
    return proc.poll() is not None  # pragma: no cover - Windows (reaps: no group there)


def _stop(
    proc: subprocess.Popen[bytes],
    out: Output,
    inp: Input,
    err: ErrTail | None,
    token: str,
    grace: float,
) -> None:
    """Ends a bot: closes its stdin, gives it ``grace`` seconds to exit,
    kills its process group, reaps it, then kills its descendants that
    left the group (``koudian._reaper``). Module-level and holding no
    agent, so that ``weakref.finalize`` can run it at exit."""
    inp.close()
    end = time.monotonic() + grace
    delay = 0.001
    while grace > 0 and not _exited(proc) and time.monotonic() < end:
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
    # A POSIX group outlives its leader while its children run. Where the
    # leader may have been reaped already (no os.waitid), its pid is still
    # the group's id while the group has members.
    if os.name == "posix" or proc.returncode is None:
        _kill_group(proc)
    if proc.returncode is None:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process stuck in the kernel
            pass
    try:
        _reaper.end(token, proc.pid)
    finally:
        out.close()
        if err is not None:
            err.close()


class BotProcess:
    """One running bot process and its two pipes."""

    def __init__(
        self, argv: list[str], stderr: IO[str] | None, max_line: int, max_skipped: int
    ) -> None:
        group: dict[str, Any] = (
            {"start_new_session": True}
            if os.name == "posix"
            else {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
        )
        token = _reaper.begin()
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                # Without a stream of the caller's, the bot's stderr is kept
                # (its tail) to explain a bot that cannot start.
                stderr=stderr if stderr is not None else subprocess.PIPE,
                bufsize=0,
                env={**os.environ, _reaper.ENV: token},
                **group,
            )
        except BaseException:
            _reaper.end(token, -1)
            raise
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.err: ErrTail | None = None
        try:
            self.out = Output(self.proc.stdout, THREADED, max_line, max_skipped)
            self.inp = Input(self.proc.stdin, THREADED)
            if self.proc.stderr is not None:
                self.err = ErrTail(self.proc.stderr)
        except BaseException:  # e.g. no thread can start: no process is left behind
            _kill_group(self.proc)
            self.proc.wait()
            _reaper.end(token, self.proc.pid)
            raise
        self.replied = False  # whether it has sent a reply yet
        self._token = token
        self._finalizer = weakref.finalize(
            self, _stop, self.proc, self.out, self.inp, self.err, token, 0.0
        )

    def exited(self) -> bool:
        """Whether the process has ended (it is not reaped before ``stop``)."""
        return _exited(self.proc)

    def status(self) -> str:
        """How the bot ended (after ``stop``)."""
        return _describe_exit(self.proc.returncode)

    def kill(self) -> None:
        """Kills the process group now, from any thread, without reaping
        (``stop`` reaps it)."""
        if self.proc.returncode is None:
            _kill_group(self.proc)

    def stop(self, grace: float = 0.0) -> None:
        """Ends the process and its group, once (see ``_stop``)."""
        if self._finalizer.detach() is not None:
            _stop(self.proc, self.out, self.inp, self.err, self._token, grace)
