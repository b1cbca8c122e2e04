"""What the play server holds against a hostile client, without the game:
the Host and Origin check (an ASGI middleware), each client's share of
tables and bot processes, each connection's message budget, and the keyed
hand seeds.

* Host and Origin: a browser page on another site may open a WebSocket
  to a server on loopback (cross-site WebSocket hijacking), and a name the
  attacker controls may resolve to 127.0.0.1 (DNS rebinding); so only the
  server's own host names are served (loopback names, the bound host, and
  those the operator allows), and a WebSocket that carries an ``Origin``
  (every browser sends one) must come from the page's own origin (or one
  the operator allows).
* A client is a remote address: it holds at most ``tables`` tables and
  ``bots`` bot processes at once.
* A connection's messages are paced by a token bucket (``burst`` at once,
  then ``rate`` per second), which no message resets.
* A hand's seed is BLAKE2b keyed by a secret of the server process over
  (match seed, hand number): a finished hand's seed, which its log holds,
  tells nothing about any other hand, unlike the core's ``mix_seed``
  (invertible: one hand's seed gives the match seed and every later hand).
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

__all__ = ["ClientShare", "HostOriginGuard", "MessageBucket", "SeedKey", "host_name"]

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
"""Host names a server on loopback always answers to."""

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class SeedKey:
    """The server's secret for hand seeds (from the OS random source)."""

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)

    @staticmethod
    def match_seed() -> int:
        """A fresh match seed from the OS random source."""
        return secrets.randbits(64)

    def hand_seed(self, match_seed: int, hand: int) -> int:
        """The seed of hand ``hand`` of match ``match_seed``: keyed and
        one-way, so no hand's seed gives away another's."""
        msg = match_seed.to_bytes(8, "little") + hand.to_bytes(4, "little")
        digest = hashlib.blake2b(msg, key=self._key, digest_size=8, person=b"koudian-hand")
        return int.from_bytes(digest.digest(), "little")


def host_name(host: str) -> str:
    """The name part of a ``Host`` header or netloc (no port, no brackets),
    lower case."""
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:8000
        return host[1 : host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


class HostOriginGuard:
    """ASGI middleware: a request whose ``Host`` is not one of ``hosts``
    gets HTTP 400; a WebSocket whose ``Origin`` is neither the request's
    own (``http(s)://`` + its ``Host``) nor one of ``origins`` is refused
    (HTTP 403). ``"*"`` among ``hosts`` accepts any host."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str], origins: Iterable[str]) -> None:
        self.app = app
        self.hosts = {host_name(h) for h in (*LOOPBACK_NAMES, *hosts)}
        self.origins = {o.strip().lower().rstrip("/") for o in origins}

    def _header(self, scope: Scope, name: bytes) -> str | None:
        for k, v in scope.get("headers", []):
            if k.lower() == name:
                return str(v.decode("latin-1"))
        return None

    def _origin_ok(self, origin: str, host: str) -> bool:
        origin = origin.strip().lower().rstrip("/")
        if origin in self.origins:
            return True
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        if parts.scheme not in ("http", "https"):
            return False
        host = host.strip().lower()
        if parts.netloc == host:
            return True
        # Another loopback name of this very server (the page at
        # localhost:8000, its socket to 127.0.0.1:8000).
        try:
            port = parts.port
        except ValueError:
            return False
        return (
            host_name(parts.netloc) in LOOPBACK_NAMES
            and port is not None
            and (host.endswith(f":{port}") and host_name(host) in LOOPBACK_NAMES)
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = self._header(scope, b"host") or ""
        if "*" not in self.hosts and host_name(host) not in self.hosts:
            await self._refuse(scope, send, 400, "unknown host")
            return
        origin = self._header(scope, b"origin")
        if scope["type"] == "websocket" and origin is not None:
            if not self._origin_ok(origin, host):
                await self._refuse(scope, send, 403, "origin not allowed")
                return
        await self.app(scope, receive, send)

    @staticmethod
    async def _refuse(scope: Scope, send: Send, status: int, text: str) -> None:
        body = text.encode()
        headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
        elif "websocket.http.response" in scope.get("extensions", {}):
            await send(
                {"type": "websocket.http.response.start", "status": status, "headers": headers}
            )
            await send({"type": "websocket.http.response.body", "body": body})
        else:  # the ASGI server answers a close before accept with 403
            await send({"type": "websocket.close", "code": 1008})


class ClientShare:
    """The tables and bot processes each client (remote address) holds,
    each bounded."""

    def __init__(self, tables: int, bots: int) -> None:
        self.max_tables = tables
        self.max_bots = bots
        self._tables: dict[str, int] = {}
        self._bots: dict[str, int] = {}
        self._lock = threading.Lock()

    def open_table(self, client: str) -> bool:
        """Counts a new table of ``client``; False (nothing counted) when
        it holds its share already."""
        with self._lock:
            n = self._tables.get(client, 0)
            if n >= self.max_tables:
                return False
            self._tables[client] = n + 1
            return True

    def close_table(self, client: str) -> None:
        with self._lock:
            n = self._tables.get(client, 0) - 1
            if n > 0:
                self._tables[client] = n
            else:
                self._tables.pop(client, None)

    def change_bots(self, client: str, delta: int) -> bool:
        """Counts ``delta`` more (or fewer) bot processes of ``client``;
        False (nothing counted) when more would exceed its share."""
        with self._lock:
            n = self._bots.get(client, 0) + delta
            if delta > 0 and n > self.max_bots:
                return False
            if n > 0:
                self._bots[client] = n
            else:
                self._bots.pop(client, None)
            return True


class MessageBucket:
    """A connection's message budget: ``burst`` messages at once, then
    ``rate`` per second. ``take`` waits for a token, so a flooding client
    is slowed to ``rate`` (its socket fills up) and no other is."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._at = time.monotonic()

    async def take(self) -> None:
        now = time.monotonic()
        self._tokens = min(float(self.burst), self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens < 1.0:
            wait = (1.0 - self._tokens) / self.rate
            await asyncio.sleep(wait)
            self._tokens += wait * self.rate
            self._at = time.monotonic()
        self._tokens -= 1.0
