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
is played. A bot that starts but ends before its first answer (``python
missing_bot.py``: the interpreter runs, the script does not) is an error
too, not a fault: ``BotStartupError`` (a ``BotError``) with the last
lines of the bot's stderr, raised at its first decision — the run stops
there and reports no hand. Descendants that left the bot's process group
(``setsid()``) end with it too (``koudian._reaper``: on Linux, every
process carrying the bot's ``KOUDIAN_BOT`` environment token).
``timeout`` is a number of seconds ``0 < timeout <= MAX_TIMEOUT`` (3600).
"""

from __future__ import annotations

import json
import math
import numbers
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from typing import IO, Any

from koudian._botprocess import EOF, EXITED, FLOOD, OVERFLOW, TIMEOUT, BotProcess
from koudian._core import Action, KoudianError, Observation
from koudian.faults import Fault, fallback_action

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_SKIPPED_BYTES",
    "MAX_SKIPPED_LINES",
    "MAX_TIMEOUT",
    "PROTOCOL_VERSION",
    "BotError",
    "BotStartupError",
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

_STOP_GRACE = 0.5
"""Seconds a bot has to exit by itself once its stdin is closed at the end."""

_EXIT_WAIT = 1.0
"""Seconds allowed for a bot that closed its stdout to exit, for its status."""

_FLOOD_DETAIL = (
    f"more than {MAX_SKIPPED_LINES} lines or {MAX_SKIPPED_BYTES} bytes that are not replies"
)


class BotError(KoudianError):
    """An external bot cannot be used: an empty or unparsable command, a
    ``timeout`` out of range, or a command that cannot start at all."""


class BotStartupError(BotError):
    """An external bot ended before its first answer (``python
    missing_bot.py``, an import error, a missing model file): the run
    stops with the bot's own stderr tail rather than play every hand on
    the fallback."""


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


def _show(raw: bytes) -> str:
    """A short printable form of a line for a fault's detail."""
    return repr(raw[:120].decode("utf-8", "replace")) + ("…" if len(raw) > 120 else "")


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
        self._bot: BotProcess | None = None
        self._faults: list[Fault] = []
        self._started = False
        self._next_id = 0
        self._echoes_ids = False  # a version 2 bot
        self._answered = False  # any process of this agent has answered

    def start(self) -> None:
        """Starts the bot if it is not running; ``BotError`` (naming the
        command) when it cannot start at all."""
        if self._bot is not None or self.dead:
            return
        try:
            self._bot = BotProcess(self._argv, self._stderr, MAX_LINE_BYTES, MAX_SKIPPED_BYTES)
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
        payload = json.dumps(
            request(observation, legal_actions, rid), separators=(",", ":"), allow_nan=False
        )
        deadline = time.monotonic() + self.timeout
        lines, _ = bot.out.discard()
        sent = bot.inp.send(payload.encode() + b"\n", deadline)
        if sent == TIMEOUT:
            detail = f"the bot did not read its request within {self.timeout:g} s"
            return self._halt_fault(seat, "timeout", detail, legal_actions)
        if isinstance(sent, OSError):
            return self._crash(bot, f"stopped reading ({sent})", seat, legal_actions)
        return self._reply(bot, rid, deadline, lines, seat, legal_actions)

    def _crash(self, bot: BotProcess, what: str, seat: int, legal: Sequence[Action]) -> Action:
        """A crash fault saying how the bot ended (``what`` it did first)."""
        end = time.monotonic() + _EXIT_WAIT
        while not bot.exited() and time.monotonic() < end:
            time.sleep(0.005)
        ended = bot.exited()
        if ended and not self._answered:
            self._startup_failure(bot, what)
        self._halt()
        how = bot.status() if ended else "is still running (stopped)"
        return self._fault(seat, "crash", f"the bot {what + ' and ' if what else ''}{how}", legal)

    def _startup_failure(self, bot: BotProcess, what: str) -> None:
        """Raises ``BotStartupError`` for a bot that ended before any answer,
        with the tail of its stderr."""
        tail = bot.err.text(wait=_EXIT_WAIT) if bot.err is not None else None
        self._halt()
        self.dead = True
        said = (
            "its stderr went to the stream given"
            if tail is None
            else f"its stderr ends with:\n{tail}"
            if tail
            else "it wrote nothing on stderr"
        )
        raise BotStartupError(
            f"the bot command {self.command!r} {what + ' and ' if what else ''}"
            f"{bot.status()} before its first answer; {said}"
        )

    def _reply(
        self,
        bot: BotProcess,
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
            bot.replied = self._answered = True
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
        bot: BotProcess,
        why: str,
        rid: int,
        first_skipped: bytes | None,
        seat: int,
        legal: Sequence[Action],
    ) -> Action:
        """The fault when ``_Output.line`` gave no line but ``why``."""
        if why == TIMEOUT:
            if first_skipped is None:
                detail = f"no reply within {self.timeout:g} s"
                return self._halt_fault(seat, "timeout", detail, legal)
            detail = (
                f"no reply within {self.timeout:g} s, only lines that are not "
                f"replies (a reply echoes the request's id, {rid}), the first "
                f"{_show(first_skipped)}"
            )
            return self._halt_fault(seat, "malformed", detail, legal)
        if why == OVERFLOW:
            detail = f"a line longer than {MAX_LINE_BYTES} bytes"
            return self._halt_fault(seat, "overflow", detail, legal)
        if why == FLOOD:
            return self._halt_fault(seat, "overflow", _FLOOD_DETAIL, legal)
        if why == EOF:
            return self._crash(bot, "closed its stdout", seat, legal)
        assert why == EXITED
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

    def abort(self) -> None:
        """Kills the bot from another thread, for good (a server stopping):
        a decision in flight ends at once with the fallback, and no later
        one restarts it. ``close`` still reaps the process."""
        self.dead = True
        bot = self._bot
        if bot is not None:
            bot.kill()

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
        sys.stdout.write(json.dumps(reply, allow_nan=False) + "\n")
        sys.stdout.flush()
