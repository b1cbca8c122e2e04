"""External bots: a JSON Lines protocol over a bot process's stdin/stdout.

A bot in any language plays by reading one request per line on stdin and
writing one reply per line on stdout (flush after each line). Use it with
``koudian simulate --agents 'cmd:python my_bot.py',random,random,random``
or ``ExternalAgent("python my_bot.py")``.

Request (engine → bot), one per decision::

    {"type": "act", "protocol": 1, "seat": 2,
     "observation": {...},
     "legal_actions": [{"action": "discard", "tile": "5m", "index": 4}, ...]}

``observation`` is ``Observation.to_json()``: ``seat``, ``dealer``,
``to_act``, ``pending`` (``{"kind": "turn"|"discard"|"added_kong"|"none",
"from": seat|null, "tile": "5m"|null}``), ``hand`` (own concealed tiles in
notation), ``drawn``, ``concealed_count``, ``melds`` (per seat, ``{"kind",
"tile" (null when hidden), "from"}``), ``ting``, ``discards`` (``{"seat",
"tile" (null when face down and not yours), "face_down", "claimed"}``),
``wall_remaining``, ``live_remaining``, ``kongs``, ``wilds``,
``face_up_in_wall``, ``may_win_discards``, ``scores``. It never holds
another seat's concealed tiles.

Reply (bot → engine): one of the legal actions, as
``{"action": "discard", "tile": "5m"}`` or ``{"index": 4}`` (the dense
index of ``koudian.Action``); other keys are ignored.

Faults. A bot that crashes (or cannot start), does not answer within
``timeout`` seconds, answers with something that is not a JSON action
(``malformed``) or with an action that is not legal (``illegal``) does not
stop the game: the engine plays the **fallback action** for it — the first
legal action in dense index order other than ``leave`` (so it discards its
lowest tile on its turn, and on a discard wins if it may, else pongs or
kongs if it may, else passes) — records a ``Fault`` (``koudian.agents``)
in the match log and the summary, and continues. A bot that timed out or
crashed is restarted for its next decision (its state is lost); after
``max_restarts`` restarts it is ``dead`` and only the fallback is played.
"""

from __future__ import annotations

import json
import queue
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import IO, Any

from koudian._core import Action, KoudianError, Observation
from koudian.agents import Fault, fallback_action

__all__ = ["PROTOCOL_VERSION", "ExternalAgent", "parse_reply", "request", "run_bot"]

PROTOCOL_VERSION = 1


def request(observation: Observation, legal_actions: Sequence[Action]) -> dict[str, Any]:
    """The request sent to a bot for one decision."""
    return {
        "type": "act",
        "protocol": PROTOCOL_VERSION,
        "seat": observation.seat,
        "observation": observation.to_json(),
        "legal_actions": [a.to_json() for a in legal_actions],
    }


def parse_reply(line: str) -> Action:
    """The action of a reply line; ``ValueError`` when it is not one."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON: {e}") from None
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
    except KoudianError as e:
        raise ValueError(str(e)) from None


def _pump(stream: IO[str], out: queue.Queue[str | None]) -> None:
    for line in stream:
        out.put(line)
    out.put(None)


class ExternalAgent:
    """An agent played by an external process speaking the protocol."""

    def __init__(
        self,
        command: str,
        *,
        timeout: float = 5.0,
        max_restarts: int = 3,
        seat: int = 0,
        stderr: IO[str] | None = None,
    ) -> None:
        self.command = command
        self.timeout = timeout
        self.max_restarts = max_restarts
        self.seat = seat
        self.restarts = 0
        self.dead = False
        self._stderr = stderr
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._faults: list[Fault] = []
        self._started = False

    def _start(self) -> None:
        self._lines = queue.Queue()
        self._proc = subprocess.Popen(
            shlex.split(self.command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr if self._stderr is not None else subprocess.DEVNULL,
            text=True,
            bufsize=1,
            # Its own session: a Ctrl-C at the terminal reaches the engine,
            # which stops the run between hands, not the bot mid-hand.
            start_new_session=True,
        )
        assert self._proc.stdout is not None
        threading.Thread(target=_pump, args=(self._proc.stdout, self._lines), daemon=True).start()

    def _stop(self) -> None:
        p, self._proc = self._proc, None
        if p is None:
            return
        try:
            if p.stdin is not None:
                p.stdin.close()
        except OSError:
            pass
        try:
            p.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()

    def _ensure(self) -> bool:
        """A running process, starting or restarting one; False if dead."""
        if self.dead:
            return False
        if self._proc is not None and self._proc.poll() is None:
            return True
        if self._proc is not None or self._started:
            self._stop()
            if self.restarts >= self.max_restarts:
                self.dead = True
                return False
            self.restarts += 1
        self._started = True
        self._start()
        return True

    def _fault(self, seat: int, kind: str, detail: str, legal: Sequence[Action]) -> Action:
        fb = fallback_action(legal)
        self._faults.append(Fault(seat, kind, detail, fb))
        return fb

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Asks the bot; on any fault, the fallback action (see the module)."""
        seat = observation.seat
        try:
            alive = self._ensure()
        except OSError as e:
            self.dead = True
            return self._fault(seat, "crash", f"cannot start {self.command!r}: {e}", legal_actions)
        if not alive:
            return self._fault(seat, "dead", "the bot crashed too often", legal_actions)
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        try:
            proc.stdin.write(json.dumps(request(observation, legal_actions)) + "\n")
            proc.stdin.flush()
        except OSError as e:
            self._stop()
            return self._fault(seat, "crash", f"writing the request failed: {e}", legal_actions)
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            self._stop()
            return self._fault(seat, "timeout", f"no reply within {self.timeout} s", legal_actions)
        if line is None:
            code = proc.poll()
            self._stop()
            return self._fault(seat, "crash", f"the bot exited (code {code})", legal_actions)
        try:
            action = parse_reply(line)
        except ValueError as e:
            return self._fault(seat, "malformed", f"{line.strip()[:200]!r}: {e}", legal_actions)
        if action not in legal_actions:
            return self._fault(seat, "illegal", f"{action} is not legal here", legal_actions)
        return action

    def take_faults(self) -> list[Fault]:
        """The faults since the last call."""
        f, self._faults = self._faults, []
        return f

    def close(self) -> None:
        """Stops the bot process."""
        self._stop()

    def __del__(self) -> None:
        try:
            self._stop()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"ExternalAgent({self.command!r})"


def run_bot(choose: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """The loop of a Python bot: reads requests on stdin, writes
    ``choose(request)`` (a reply such as ``{"index": 4}``) on stdout.

    >>> # my_bot.py
    >>> # from koudian.protocol import run_bot
    >>> # run_bot(lambda req: req["legal_actions"][0])
    """
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = choose(json.loads(line))
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
