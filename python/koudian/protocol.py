"""External bots: a JSON Lines protocol over a bot process's stdin/stdout.

A bot in any language plays by reading one request per line on stdin and
writing one reply per line on stdout (flush after each line). Use it with
``koudian simulate --agents 'cmd:python my_bot.py',random,random,random``
or ``ExternalAgent("python my_bot.py")``; a Python bot can use
``run_bot``, which does all of the below.

Request (engine → bot), one per decision, protocol version 2::

    {"type": "act", "protocol": 2, "id": 17, "seat": 2,
     "observation": {...},
     "legal_actions": [{"action": "discard", "tile": "5m", "index": 4}, ...]}

``id`` grows with every request to the bot. ``observation`` is
``Observation.to_json()``: ``seat``, ``dealer``, ``to_act``, ``pending``
(``{"kind": "turn"|"discard"|"added_kong"|"none", "from": seat|null,
"tile": "5m"|null}``), ``hand`` (own concealed tiles in notation),
``drawn``, ``concealed_count``, ``melds`` (per seat, ``{"kind", "tile"
(null when hidden), "from"}``), ``ting``, ``discards`` (``{"seat", "tile"
(null when face down and not yours), "face_down", "claimed"}``),
``wall_remaining``, ``live_remaining``, ``kongs``, ``wilds``,
``face_up_in_wall``, ``may_win_discards``, ``scores``. It never holds
another seat's concealed tiles.

Reply (bot → engine): one line, one of the legal actions, as
``{"action": "discard", "tile": "5m", "id": 17}`` or ``{"index": 4, "id":
17}`` (the dense index of ``koudian.Action``), echoing the request's
``id``; other keys are ignored. A reply line is UTF-8 and at most
``MAX_LINE_BYTES`` (64 KiB) long.

Which lines are replies. Output left over from earlier requests (what
has reached the engine by then) is discarded before each request is
sent, and a line that echoes another
request's ``id`` (a late or second answer) is skipped. A bot that echoes
ids (version 2) may also write other lines (a banner, log lines, any
line that is not a JSON object with the request's ``id``): they are
skipped. Version 1 bots, which reply without ``id``, are still accepted:
before a bot's first reply, lines that are not JSON objects (a banner)
are skipped; after it, the next line without ``id`` is the reply, so a
version 1 bot that answers twice, slowly enough that the engine has sent
its next request, has its second answer taken as the next reply — echo
the ``id`` to be safe. At most ``MAX_SKIPPED_LINES`` lines or
``MAX_SKIPPED_BYTES`` bytes are skipped per request.

Faults. A bot that crashes (or cannot be restarted), does not read its
request or answer within ``timeout`` seconds (``timeout``), answers with
something that is not a JSON action (``malformed``: not UTF-8, not JSON,
nested too deep, no such action — or only skipped lines until the
timeout) or with an action that is not legal (``illegal``), or writes
more than the limits above (``overflow``) does not stop the game: the
engine plays the **fallback action** for it — the first legal action in
dense index order other than ``leave`` (so it discards its lowest tile
on its turn, and on a discard wins if it may, else pongs or kongs if it
may, else passes) — records a ``Fault`` (``koudian.faults``) in the
match log and the summary, and continues. A bot that timed out (also
with only skipped lines), crashed or overflowed is stopped and restarted
for its next decision (its state is lost); after ``max_restarts``
restarts it is ``dead`` and only the fallback is played. A crash fault
says how the bot ended (``exited with code 3``, ``was killed by
signal 9 (SIGKILL)``).

The ``timeout`` counts from the request to the reply, writing the request
included, and for a bot just (re)started, its start-up too.

Processes. Each bot runs in a process group of its own (a new session on
POSIX); the whole group — the children and grandchildren it forked,
unless they left it — is killed when the bot is restarted and when the
agent is closed, garbage-collected or the interpreter exits (on Windows
the bot's process tree, with ``taskkill /T``, while the bot runs). A bot
command that cannot start at all (no such program) is not a fault but an
error: ``ExternalAgent.start``, ``koudian.simulate`` and
``koudian.Match`` raise ``BotError`` naming the command before any hand
is played. ``timeout`` is a number of seconds ``0 < timeout <=
MAX_TIMEOUT`` (3600).
"""

from __future__ import annotations

import json
import math
import numbers
import os
import select
import shlex
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import IO, Any

from koudian._core import Action, KoudianError, Observation
from koudian.faults import Fault, fallback_action

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_SKIPPED_BYTES",
    "MAX_SKIPPED_LINES",
    "MAX_TIMEOUT",
    "PROTOCOL_VERSION",
    "BotError",
    "ExternalAgent",
    "check_timeout",
    "parse_reply",
    "request",
    "run_bot",
    "start_bots",
]

PROTOCOL_VERSION = 2

MAX_LINE_BYTES = 64 * 1024
"""Longest reply line, in bytes without its newline; a longer one is an
``overflow`` fault."""

MAX_SKIPPED_LINES = 1000
"""Most lines skipped (left over, late, banner or log lines) per request
before the bot is an ``overflow`` fault."""

MAX_SKIPPED_BYTES = 1 << 20
"""Most bytes skipped per request before the bot is an ``overflow`` fault."""

MAX_TIMEOUT = 3600.0
"""Largest ``timeout`` in seconds."""

_CHUNK = 64 * 1024
"""Bytes read from a bot at a time; the reader holds at most
``MAX_LINE_BYTES + _CHUNK`` unread bytes and then stops reading, so a bot
that floods blocks on its own full pipe."""

_STOP_GRACE = 0.5
"""Seconds a bot has to exit by itself once its stdin is closed at the end."""

_EXIT_WAIT = 1.0
"""Seconds allowed for a bot that closed its stdout to exit, for its status."""

_FLOOD_DETAIL = (
    f"more than {MAX_SKIPPED_LINES} lines or {MAX_SKIPPED_BYTES} bytes that are not replies"
)

_POLL = 0.05
"""Seconds between checks that a silent bot is still running (its children
may hold its stdout open, so an end of file may never come)."""


class BotError(KoudianError):
    """An external bot cannot be used: an empty or unparsable command, a
    ``timeout`` out of range, or a command that cannot start at all."""


def check_timeout(timeout: object) -> float:
    """``timeout`` as seconds, ``0 < timeout <= MAX_TIMEOUT``; else ``BotError``."""
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real):
        raise BotError(f"timeout must be a number of seconds, got {timeout!r}")
    value = float(timeout)
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT):
        raise BotError(
            f"timeout must be more than 0 and at most {MAX_TIMEOUT:g} seconds, got {timeout!r}"
        )
    return value


def request(
    observation: Observation, legal_actions: Sequence[Action], request_id: int = 0
) -> dict[str, Any]:
    """The request sent to a bot for one decision."""
    return {
        "type": "act",
        "protocol": PROTOCOL_VERSION,
        "id": request_id,
        "seat": observation.seat,
        "observation": observation.to_json(),
        "legal_actions": [a.to_json() for a in legal_actions],
    }


def _loads(line: str) -> tuple[object, str]:
    """The JSON value of ``line`` and ``""``, or ``None`` and why not.
    Any exception counts (``"[" * 100000`` raises ``RecursionError``)."""
    try:
        return json.loads(line), ""
    except Exception as e:  # the reply is the bot's: nothing it sends may escape
        return None, f"not JSON: {type(e).__name__}: {str(e)[:100]}"


def _action_of(data: object) -> Action:
    """The action of a decoded reply; ``ValueError`` when it is not one."""
    if not isinstance(data, dict):
        raise ValueError("a reply is a JSON object")
    try:
        if "index" in data and "action" not in data:
            index = data["index"]
            if not isinstance(index, int) or isinstance(index, bool):
                raise ValueError("index must be an integer")
            return Action.from_index(index)
        kind = data.get("action")
        if not isinstance(kind, str):
            raise ValueError('a reply needs "action" (a string) or "index"')
        tile = data.get("tile")
        if tile is not None and not isinstance(tile, str):
            raise ValueError('"tile" must be a string like "5m"')
        return Action(kind, tile)
    except ValueError:
        raise
    except Exception as e:  # e.g. OverflowError for a huge index
        raise ValueError(f"{type(e).__name__}: {e}") from None


def parse_reply(line: str) -> Action:
    """The action of a reply line; ``ValueError`` when it is not one,
    whatever is wrong with it."""
    data, error = _loads(line)
    if error:
        raise ValueError(error)
    return _action_of(data)


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


def _show(raw: bytes) -> str:
    """A short printable form of a line for a fault's detail."""
    return repr(raw[:120].decode("utf-8", "replace")) + ("…" if len(raw) > 120 else "")


# -------------------------------------------------------------- transport

_TIMEOUT, _EOF, _EXITED, _OVERFLOW, _FLOOD = "timeout", "eof", "exited", "overflow", "flood"

_THREADED = not hasattr(select, "poll")
"""Pipes are read and written by threads where they cannot be polled
(Windows); elsewhere the engine polls them itself, which saves a thread
hand-off per message (tests force the threads on POSIX too)."""


def _close_quietly(stream: IO[bytes]) -> None:
    """Closes a pipe whose other end may be gone."""
    try:
        stream.close()
    except OSError:
        pass


def _ms(seconds: float) -> int:
    """A ``poll`` timeout in whole milliseconds, never waiting less than asked."""
    return max(0, math.ceil(seconds * 1000))


class _Output:
    """A bot's stdout read as raw bytes into a bounded buffer; ``line``
    hands out one line at a time. Nothing is decoded here, so nothing a
    bot writes can break the reading. At most ``MAX_LINE_BYTES + _CHUNK``
    unread bytes are held: beyond that nothing more is read, and a bot
    that floods blocks on its own full pipe.

    Polled (``threaded=False``): ``line`` and ``discard`` read the pipe
    themselves. Threaded: a daemon thread reads it and owns the stream."""

    def __init__(self, stream: IO[bytes], threaded: bool) -> None:
        self._stream = stream
        self._fd = stream.fileno()
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
                    while self._unread() > MAX_LINE_BYTES and not self._closed:
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
        what is waiting in the pipe, up to ``MAX_SKIPPED_BYTES``); returns
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
                if self._poll is None or size > MAX_SKIPPED_BYTES or not self._read(0):
                    break
            # A line cut in two: its rest is old too.
            self._skip_line = self._skip_line or not ends_line
            self.skipped = size
            self._cond.notify_all()
            return lines, size

    def line(self, deadline: float, exited: Callable[[], bool]) -> bytes | str:
        """The next line without its newline, or ``_TIMEOUT`` at
        ``deadline``, ``_EOF`` at the end of the output, ``_EXITED`` when
        the bot has exited (its children may hold its stdout open),
        ``_OVERFLOW`` for a line over ``MAX_LINE_BYTES``, ``_FLOOD`` for
        more than ``MAX_SKIPPED_BYTES`` skipped."""
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
                    if self.skipped > MAX_SKIPPED_BYTES:
                        return _FLOOD
                    if nl >= 0:
                        continue
                elif nl >= 0:
                    if nl - pos > MAX_LINE_BYTES:
                        return _OVERFLOW
                    self._pos = nl + 1
                    self._cond.notify_all()
                    return bytes(buf[pos:nl])
                elif len(buf) - pos > MAX_LINE_BYTES:
                    return _OVERFLOW
                if self._eof:
                    if len(buf) > self._pos:  # a last line without its newline
                        line = bytes(buf[self._pos :])
                        self._pos = len(buf)
                        return line
                    return _EOF
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return _TIMEOUT
                # Whatever the bot wrote before it ended is read first.
                if not self._wait(min(remaining, _POLL)) and exited():
                    if not self._wait(0.01):
                        return _EXITED

    def close(self) -> None:
        """Threaded: lets the thread end (it also ends at the end of the
        output). Polled: closes the stream."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._poll is not None:
            _close_quietly(self._stream)


class _Input:
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
        write failed, ``_TIMEOUT`` when ``deadline`` passed first."""
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
                    return _TIMEOUT
                self._poll.poll(_ms(remaining))  # room, or the reader gone
            return None
        with self._cond:
            self._data = data
            self._cond.notify_all()
            while self._data is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return _TIMEOUT
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


def _stop(proc: subprocess.Popen[bytes], out: _Output, inp: _Input, grace: float) -> None:
    """Ends a bot: closes its stdin, gives it ``grace`` seconds to exit,
    kills its process group and reaps it. Module-level and holding no
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
    out.close()


class _Bot:
    """One running bot process and its two pipes."""

    def __init__(self, argv: list[str], stderr: IO[str] | None, threaded: bool) -> None:
        group: dict[str, Any] = (
            {"start_new_session": True}
            if os.name == "posix"
            else {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
        )
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else subprocess.DEVNULL,
            bufsize=0,
            **group,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.out = _Output(self.proc.stdout, threaded)
            self.inp = _Input(self.proc.stdin, threaded)
        except BaseException:  # e.g. no thread can start: no process is left behind
            _kill_group(self.proc)
            self.proc.wait()
            raise
        self.replied = False  # whether it has sent a reply yet
        self._finalizer = weakref.finalize(self, _stop, self.proc, self.out, self.inp, 0.0)

    def exited(self) -> bool:
        """Whether the process has ended (it is not reaped before ``stop``)."""
        return _exited(self.proc)

    def status(self) -> str:
        """How the bot ended (after ``stop``)."""
        return _describe_exit(self.proc.returncode)

    def stop(self, grace: float = 0.0) -> None:
        """Ends the process and its group, once (see ``_stop``)."""
        if self._finalizer.detach() is not None:
            _stop(self.proc, self.out, self.inp, grace)


# ------------------------------------------------------------------ agent


class ExternalAgent:
    """An agent played by an external process speaking the protocol.

    ``command`` is split like a shell would (``shlex``); ``timeout`` is
    the seconds the bot has for each decision, from its request being
    sent to its reply (``check_timeout``); ``stderr`` receives the bot's
    stderr (default: discarded). The bot starts at ``start()`` or at the
    first ``act``; ``close()`` stops it.
    """

    def __init__(
        self,
        command: str,
        *,
        timeout: float = 5.0,
        max_restarts: int = 3,
        seat: int = 0,
        stderr: IO[str] | None = None,
    ) -> None:
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise BotError(f"cannot parse the bot command {command!r}: {e}") from None
        if not argv:
            raise BotError(f"the bot command is empty ({command!r})")
        self.command = command
        self.timeout = check_timeout(timeout)
        self.max_restarts = max_restarts
        self.seat = seat
        self.restarts = 0
        self.dead = False
        self._argv = argv
        self._stderr = stderr
        self._bot: _Bot | None = None
        self._faults: list[Fault] = []
        self._started = False
        self._next_id = 0
        self._echoes_ids = False  # a version 2 bot

    def start(self) -> None:
        """Starts the bot if it is not running; ``BotError`` (naming the
        command) when it cannot start at all."""
        if self._bot is not None or self.dead:
            return
        try:
            self._bot = _Bot(self._argv, self._stderr, _THREADED)
        except (OSError, ValueError, RuntimeError) as e:
            raise BotError(f"cannot start the bot command {self.command!r}: {e}") from None
        self._started = True

    def _ensure(self) -> bool:
        """A running process, starting or restarting one; False if dead."""
        if self.dead:
            return False
        if self._bot is not None and not self._bot.exited():
            return True
        if self._bot is not None or self._started:
            self._halt()
            if self.restarts >= self.max_restarts:
                self.dead = True
                return False
            self.restarts += 1
        self.start()
        return True

    def _halt(self, grace: float = 0.0) -> None:
        bot, self._bot = self._bot, None
        if bot is not None:
            bot.stop(grace)

    def _fault(self, seat: int, kind: str, detail: str, legal: Sequence[Action]) -> Action:
        fb = fallback_action(legal)
        self._faults.append(Fault(seat, kind, detail, fb))
        return fb

    def _halt_fault(self, seat: int, kind: str, detail: str, legal: Sequence[Action]) -> Action:
        """A fault after which the bot is stopped (restarted next time)."""
        self._halt()
        return self._fault(seat, kind, detail, legal)

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Asks the bot; on any fault, the fallback action (see the module)."""
        seat = observation.seat
        try:
            alive = self._ensure()
        except BotError as e:
            self.dead = True
            return self._fault(seat, "crash", str(e), legal_actions)
        if not alive:
            detail = f"the bot failed too often ({self.restarts} restarts)"
            return self._fault(seat, "dead", detail, legal_actions)
        bot = self._bot
        assert bot is not None
        self._next_id += 1
        rid = self._next_id
        payload = json.dumps(request(observation, legal_actions, rid), separators=(",", ":"))
        deadline = time.monotonic() + self.timeout
        lines, _ = bot.out.discard()
        sent = bot.inp.send(payload.encode() + b"\n", deadline)
        if sent == _TIMEOUT:
            detail = f"the bot did not read its request within {self.timeout:g} s"
            return self._halt_fault(seat, "timeout", detail, legal_actions)
        if isinstance(sent, OSError):
            return self._crash(bot, f"stopped reading ({sent})", seat, legal_actions)
        return self._reply(bot, rid, deadline, lines, seat, legal_actions)

    def _crash(self, bot: _Bot, what: str, seat: int, legal: Sequence[Action]) -> Action:
        """A crash fault saying how the bot ended (``what`` it did first)."""
        end = time.monotonic() + _EXIT_WAIT
        while not bot.exited() and time.monotonic() < end:
            time.sleep(0.005)
        ended = bot.exited()
        self._halt()
        how = bot.status() if ended else "is still running (stopped)"
        return self._fault(seat, "crash", f"the bot {what + ' and ' if what else ''}{how}", legal)

    def _reply(
        self,
        bot: _Bot,
        rid: int,
        deadline: float,
        lines: int,
        seat: int,
        legal: Sequence[Action],
    ) -> Action:
        """Reads lines until the reply to request ``rid`` or a fault;
        ``lines`` were already skipped (left over from earlier requests)."""
        size = 0
        first_skipped: bytes | None = None
        while True:
            got = bot.out.line(deadline, bot.exited)
            if isinstance(got, str):
                return self._no_reply(bot, got, rid, first_skipped, seat, legal)
            verdict = self._classify(got, rid, bot.replied)
            if verdict is None:  # skipped
                lines += 1
                size += len(got) + 1
                if first_skipped is None and got.strip():
                    first_skipped = got
                if lines > MAX_SKIPPED_LINES or size + bot.out.skipped > MAX_SKIPPED_BYTES:
                    return self._halt_fault(seat, "overflow", _FLOOD_DETAIL, legal)
                continue
            bot.replied = True
            if isinstance(verdict, str):
                return self._fault(seat, "malformed", verdict, legal)
            try:
                action = _action_of(verdict)
            except ValueError as e:
                return self._fault(seat, "malformed", f"{_show(got)}: {e}", legal)
            if action not in legal:
                return self._fault(seat, "illegal", f"{action} is not legal here", legal)
            return action

    def _no_reply(
        self,
        bot: _Bot,
        why: str,
        rid: int,
        first_skipped: bytes | None,
        seat: int,
        legal: Sequence[Action],
    ) -> Action:
        """The fault when ``_Output.line`` gave no line but ``why``."""
        if why == _TIMEOUT:
            if first_skipped is None:
                detail = f"no reply within {self.timeout:g} s"
                return self._halt_fault(seat, "timeout", detail, legal)
            detail = (
                f"no reply within {self.timeout:g} s, only lines that are not "
                f"replies (a reply echoes the request's id, {rid}), the first "
                f"{_show(first_skipped)}"
            )
            return self._halt_fault(seat, "malformed", detail, legal)
        if why == _OVERFLOW:
            detail = f"a line longer than {MAX_LINE_BYTES} bytes"
            return self._halt_fault(seat, "overflow", detail, legal)
        if why == _FLOOD:
            return self._halt_fault(seat, "overflow", _FLOOD_DETAIL, legal)
        if why == _EOF:
            return self._crash(bot, "closed its stdout", seat, legal)
        assert why == _EXITED
        return self._crash(bot, "", seat, legal)

    def _classify(self, raw: bytes, rid: int, replied: bool) -> object:
        """What a line is: None (skipped), a decoded reply, or why it is a
        malformed reply (a ``str``). See the module on which lines are
        replies."""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            return f"{_show(raw)}: not UTF-8 text ({e.reason} at byte {e.start})"
        if not text.strip():
            return None
        data, error = _loads(text)
        if isinstance(data, dict) and "id" in data:
            echo = data["id"]
            if type(echo) is int and echo == rid:
                self._echoes_ids = True
                return data
            return None  # another request's reply
        if self._echoes_ids:
            return None  # a version 2 bot's other output
        if not isinstance(data, dict):
            if not replied and not text.lstrip().startswith("{"):
                return None  # a banner
            return f"{_show(raw)}: {error or 'a reply is a JSON object'}"
        return data

    @property
    def pid(self) -> int | None:
        """The running bot's process id (its process group's too), or None."""
        return self._bot.proc.pid if self._bot is not None else None

    def take_faults(self) -> list[Fault]:
        """The faults since the last call."""
        f, self._faults = self._faults, []
        return f

    def close(self) -> None:
        """Stops the bot process and its process group."""
        self._halt(_STOP_GRACE)

    def __repr__(self) -> str:
        return f"ExternalAgent({self.command!r})"


def start_bots(agents: Sequence[object]) -> None:
    """Starts every ``ExternalAgent`` among ``agents`` (drivers call it
    before the first hand); ``BotError`` for one that cannot start."""
    for a in agents:
        if isinstance(a, ExternalAgent):
            a.start()


def run_bot(choose: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """The loop of a Python bot: reads requests on stdin, writes
    ``choose(request)`` (a reply such as ``{"index": 4}``) on stdout,
    echoing the request's ``id``.

    >>> # my_bot.py
    >>> # from koudian.protocol import run_bot
    >>> # run_bot(lambda req: req["legal_actions"][0])
    """
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        reply = dict(choose(req))
        if "id" in req:
            reply["id"] = req["id"]
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
