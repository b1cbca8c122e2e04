"""Helpers of the rooms' tests: a real ``koudian serve --db`` process on
a loopback port, HTTP calls to it, and scripted players over WebSockets
that keep every message they receive."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import koudian

BOTS = Path(__file__).parent / "bots"


class ServerProcess:
    """``koudian serve --port 0 --db DB ARGV`` (the installed koudian of
    this test run: the worktree's ``python/`` on ``PYTHONPATH``);
    ``restart()`` starts it again on the same database (a new port). Its
    bots move at once (``--bot-pace 0``) unless ``ARGV`` says otherwise."""

    def __init__(self, db: str, *argv: str) -> None:
        self.db = db
        self.argv = list(argv)
        self.proc: subprocess.Popen[str] | None = None
        self.base = ""
        self.stderr: list[str] = []
        self.start()

    def start(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(Path(koudian.__file__).resolve().parents[1])
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "koudian",
                "serve",
                "--port",
                "0",
                "--db",
                self.db,
                "--log",
                "",
                "--bot-pace",
                "0",
                *self.argv,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        m = re.search(r"http://([\d.]+):(\d+)/", line)
        if m is None:
            err = self.proc.stderr.read() if self.proc.stderr else ""
            raise RuntimeError(f"koudian serve did not start: {line!r} {err}")
        self.base = f"http://{m.group(1)}:{m.group(2)}"

    @property
    def ws(self) -> str:
        return self.base.replace("http://", "ws://")

    def kill(self) -> None:
        """SIGKILL: no shutdown of any kind."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self._keep_stderr()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._keep_stderr()

    def _keep_stderr(self) -> None:
        if self.proc is not None and self.proc.stderr is not None and not self.proc.stderr.closed:
            self.stderr.append(self.proc.stderr.read())
            self.proc.stderr.close()
            if self.proc.stdout is not None:
                self.proc.stdout.close()

    def restart(self) -> None:
        self.start()

    def tracebacks(self) -> list[str]:
        return [e for e in self.stderr if "Traceback" in e]


def http(base: str, path: str, body: object | None = None) -> tuple[int, Any]:
    """(status, JSON or text) of GET (or POST ``body``) ``base + path``."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method="POST" if data else "GET")
    req.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            status, raw = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode("utf-8", "replace")


def create(base: str, **config: Any) -> str:
    status, out = http(base, "/api/rooms", config)
    assert status == 200, out
    return str(out["code"])


def choose(msg: dict[str, Any]) -> int:
    """A scripted person's decision: a legal action picked by the
    decision's id (varied, reproducible), never ``leave``."""
    legal = [a for a in msg["legal_actions"] if a["action"] != "leave"]
    return int(legal[msg["id"] % len(legal)]["index"])


class Player:
    """A scripted person (or a watcher) of one room. ``play(server)``
    connects (by name the first time, then with the token), answers every
    decision, readies before each hand, and returns when the room closes
    or the connection is lost ("closed" / "lost")."""

    def __init__(self, code: str, name: str | None, *, watch: bool = False) -> None:
        self.code = code
        self.name = name
        self.watch = watch
        self.token: str | None = None
        self.seat: int | None = None
        self.messages: list[dict[str, Any]] = []
        self.sent: dict[int, int] = {}  # decision id → index sent
        self.acked: list[tuple[int, int]] = []  # (decision id, index) the server acknowledged
        self.ends: dict[int, dict[str, Any]] = {}
        self.errors: list[dict[str, Any]] = []
        self.closed = False
        self.joined = asyncio.Event()
        self.ready_for: object = None  # the phase a ready was sent in (once per phase)

    def hello(self) -> dict[str, Any]:
        if self.watch:
            return {"type": "hello", "watch": True}
        if self.token is not None:
            return {"type": "hello", "token": self.token}
        return {"type": "hello", "name": self.name}

    async def play(self, ws_base: str, *, answer: bool = True) -> str:
        import websockets

        self.ready_for = None  # a ready lost with the last connection is sent again
        origin = ws_base.replace("ws://", "http://")
        try:
            async with websockets.connect(
                f"{ws_base}/ws/room/{self.code}", origin=websockets.Origin(origin)
            ) as ws:
                await ws.send(json.dumps(self.hello()))
                async for raw in ws:
                    msg = json.loads(raw)
                    self.messages.append(msg)
                    out = self.react(msg, answer)
                    for m in out:
                        await ws.send(json.dumps(m))
                    if self.closed:
                        return "closed"
        except (OSError, websockets.ConnectionClosed, asyncio.TimeoutError):
            return "lost"
        return "closed" if self.closed else "lost"

    def react(self, msg: dict[str, Any], answer: bool) -> list[dict[str, Any]]:
        kind = msg["type"]
        if kind == "welcome":
            if "token" in msg:
                self.token = msg["token"]
            self.seat = msg["seat"]
            self.joined.set()
        elif kind == "act" and answer:
            index = choose(msg)
            self.sent[msg["id"]] = index
            return [{"type": "act", "id": msg["id"], "index": index}]
        elif kind == "done":
            self.acked.append((msg["id"], self.sent[msg["id"]]))
        elif kind == "end":
            self.ends[msg["hand"]] = msg
        elif kind == "error":
            self.errors.append(msg)
        elif kind == "room":
            if msg["status"] == "closed":
                self.closed = True
            elif msg["you"] is not None and msg["status"] in ("waiting", "between"):
                me = msg["seats"][msg["you"]]
                phase = (msg["status"], msg["match"]["hands_played"])
                if not me["ready"] and answer and self.ready_for != phase:
                    self.ready_for = phase
                    return [{"type": "ready"}]
        return []
