"""Every process a bot starts ends with the bot, even one that left its
process group (``setsid()``, a daemon's double fork).

Killing the bot's process group (``koudian._botprocess``) ends the
children that stayed in it; a descendant that made a session of its own
is not in the group. So each bot process is started with a token of its
own in its environment (``KOUDIAN_BOT``), which every descendant inherits,
and when the bot is stopped every process still carrying the token is
killed. On Linux the koudian process is also a child subreaper
(``PR_SET_CHILD_SUBREAPER``) while any bot runs: a descendant orphaned by
its parent's death is re-parented to koudian rather than to init, so
koudian reaps the ones it kills (no zombies where the container's init
does not reap). Elsewhere, and for a descendant that clears its
environment, the process group is the bound.

Only processes identified by a token are reaped here: a descendant that
is orphaned and then exits on its own while its bot still runs stays a
zombie of koudian's (reaping unknown children could take the exit status
of a process the caller started itself).
"""

from __future__ import annotations

import itertools
import os
import secrets
import signal
import sys
import threading
import time

__all__ = ["ENV", "begin", "end"]

ENV = "KOUDIAN_BOT"
"""The environment variable carrying a bot process's token."""

_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37

_END_SECONDS = 2.0
"""Longest a stop spends finding and killing a bot's escaped descendants
(each round kills every one found; a new round finds those forked
meanwhile)."""

_lock = threading.Lock()
_live = 0
_restore: int | None = None  # the subreaper flag before the first bot started
_counter = itertools.count()


def _prctl(option: int, value: int) -> int | None:
    """``prctl(option, value)`` on Linux (None elsewhere or on failure);
    for a GET option, the value read."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if option == _PR_GET_CHILD_SUBREAPER:
            out = ctypes.c_int(0)
            if libc.prctl(option, ctypes.byref(out), 0, 0, 0) != 0:
                return None
            return out.value
        return None if libc.prctl(option, value, 0, 0, 0) != 0 else value
    except (OSError, AttributeError):
        return None


def begin() -> str:
    """A new bot's token (to put in its environment as ``ENV``); makes the
    koudian process a child subreaper while any bot runs."""
    global _live, _restore
    with _lock:
        if _live == 0:
            before = _prctl(_PR_GET_CHILD_SUBREAPER, 0)
            if before == 0 and _prctl(_PR_SET_CHILD_SUBREAPER, 1) == 1:
                _restore = 0
        _live += 1
    return f"{os.getpid()}.{next(_counter)}.{secrets.token_hex(6)}"


def _carriers(needle: bytes, exclude: int) -> list[int]:
    """The processes whose environment holds ``needle`` (``ENV=token``)."""
    out: list[int] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit() or int(name) == exclude:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read()
        except OSError:  # gone, or another user's
            continue
        if needle in env.split(b"\0"):
            out.append(int(name))
    return out


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # The command name may hold spaces and parentheses: the fields
    # follow the last ")".
    return int(stat.rsplit(b")", 1)[1].split()[1])


def end(token: str, bot_pid: int) -> None:
    """Kills every process carrying ``token`` but the bot ``bot_pid``
    (reaped by its owner), reaps those re-parented to koudian, and ends
    the subreaper once no bot runs."""
    global _live, _restore
    try:
        if os.path.isdir("/proc"):
            _kill_carriers(f"{ENV}={token}".encode(), bot_pid)
    finally:
        with _lock:
            _live -= 1
            if _live == 0 and _restore is not None:
                _prctl(_PR_SET_CHILD_SUBREAPER, _restore)
                _restore = None


def _kill_carriers(needle: bytes, bot_pid: int) -> None:
    me = os.getpid()
    deadline = time.monotonic() + _END_SECONDS
    killed: set[int] = set()
    while time.monotonic() < deadline:
        found = _carriers(needle, bot_pid)
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        killed.update(found)
        # A killed process is reaped by its parent: koudian, once it is
        # orphaned (its parent killed too), else its parent or init.
        for pid in sorted(killed):
            parent = _parent(pid)
            if parent == me:
                try:
                    os.waitpid(pid, 0)  # SIGKILLed: a short wait
                except ChildProcessError:
                    pass
                killed.discard(pid)
            elif parent is None:
                killed.discard(pid)
        if not found and not killed:
            return
        if not found:
            time.sleep(0.005)  # orphans being re-parented
