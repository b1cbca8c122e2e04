"""The play server's web application (Starlette; the ``web`` extra).

Routes: ``/`` the play page, ``/ws`` one table per WebSocket connection
(``koudian.web.tables``), ``/replay/{key}`` the replay viewer of a
finished hand (``key``: an unguessable token sent only to that hand's
table, at its end), ``/api/info`` presets and opponents on offer. The
server holds at most ``max_tables`` tables, ``client_tables`` per client
(remote address) and ``client_bots`` bot processes per client; a table
idle for ``idle`` seconds is closed; messages are bounded in size (the
ASGI server's ``ws_max_size`` too), paced per connection
(``message_rate`` per second after ``message_burst``) and bounded in
number per hand; each table's work runs on a thread of its own, so that
no table's bots delay another's; each finished hand is appended to the
log file and kept (the newest ``keep_replays``) for its replay link. Only
the server's own Host and Origin are served (``koudian.web.guard``).
"""

from __future__ import annotations

import asyncio
import json
import math
import secrets
import sys
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from koudian._cli_rules import DEFAULT_PRESET
from koudian._core import KoudianError
from koudian._presets import names as preset_names
from koudian.rooms.service import RoomService
from koudian.web.assets import page_css
from koudian.web.guard import ClientShare, HostOriginGuard, MessageBucket, SeedKey
from koudian.web.tables import (
    MAX_MESSAGE,
    MAX_MESSAGES_PER_HAND,
    Table,
    TableConfig,
)

__all__ = ["Server", "create_app"]


def _static(name: str) -> str:
    from importlib import resources

    return resources.files("koudian.web").joinpath("static", name).read_text(encoding="utf-8")


class Server:
    """The shared state of one server process: tables, finished hands."""

    def __init__(
        self,
        opponents: dict[str, str],
        *,
        log_path: str | Path | None = None,
        max_tables: int = 200,
        idle: float = 900.0,
        keep_replays: int = 200,
        bot_timeout: float = 5.0,
        client_seeds: bool = False,
        client_tables: int = 16,
        client_bots: int = 12,
        message_rate: float = 20.0,
        message_burst: int = 100,
        allow_hosts: Sequence[str] = (),
        allow_origins: Sequence[str] = (),
        rooms: RoomService | None = None,
        client_connections: int = 16,
    ) -> None:
        for name, v in (("message_rate", message_rate), ("idle", idle)):
            if not (math.isfinite(v) and v > 0):
                raise KoudianError(f"{name} must be a finite number above 0, got {v}")
        self.opponents = opponents
        self.log_path = Path(log_path) if log_path is not None else None
        if self.log_path is not None:
            check_log(self.log_path)
        self.max_tables = max_tables
        self.idle = idle
        self.keep_replays = keep_replays
        self.message_rate = message_rate
        self.message_burst = message_burst
        self.allow_hosts = list(allow_hosts)
        self.allow_origins = list(allow_origins)
        self.clients = ClientShare(client_tables, client_bots)
        self.rooms = rooms  # the rooms (koudian.rooms), if this server has a database
        self.room_clients = ClientShare(client_connections, 0)
        self.tables = 0
        self.hands = 0
        self.log_failures = 0
        self.replays: OrderedDict[str, str] = OrderedDict()
        self.open_tables: set[Table] = set()
        self._lock = threading.Lock()
        self.config = TableConfig(
            opponents,
            on_hand=self.finished,
            bot_timeout=bot_timeout,
            client_seeds=client_seeds,
            seed_key=SeedKey(),
        )

    def finished(self, log: str) -> str:
        """Records a finished hand; its replay link (an unguessable token:
        only the hand's own table is told it). A log that cannot be
        written is reported on stderr; the table plays on."""
        key = secrets.token_urlsafe(18)
        with self._lock:
            self.hands += 1
            self.replays[key] = log
            while len(self.replays) > self.keep_replays:
                self.replays.popitem(last=False)
            if self.log_path is not None:
                self._append(log)
        return f"/replay/{key}"

    def _append(self, log: str) -> None:
        """Appends a hand to the log whole, or not at all (a failed write
        is cut back off, so that the next hand starts on a line of its
        own)."""
        assert self.log_path is not None
        data = log.encode("utf-8")
        try:
            with self.log_path.open("ab") as f:
                start = f.tell()
                try:
                    f.write(data)
                    f.flush()
                except OSError:
                    f.truncate(start)
                    raise
        except OSError as e:
            self.log_failures += 1
            print(
                f"koudian serve: could not write a finished hand to {self.log_path}: {e} "
                "(the table plays on; its replay is kept in memory)",
                file=sys.stderr,
                flush=True,
            )

    def shutdown(self) -> None:
        """Stops every table's bots at once (the server is stopping): a
        decision in flight ends now instead of at its timeout."""
        for table in list(self.open_tables):
            table.abort()
        if self.rooms is not None:
            self.rooms.abort()

    async def replay_log(self, key: str) -> str | None:
        """The log of the finished hand whose replay key is ``key``: a
        table's (kept in memory) or a room's (in the store)."""
        log = self.replays.get(key)
        if log is None and self.rooms is not None and 8 <= len(key) <= 64:
            row = await asyncio.get_running_loop().run_in_executor(
                self.rooms.db, self.rooms.store.hand_by_key, key
            )
            log = row.log if row is not None else None
        return log


def check_log(path: Path) -> None:
    """Refuses a log that cannot be appended to (a directory, a missing
    or unwritable folder) before anything is served: ``KoudianError``."""
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as e:
        raise KoudianError(f"--log {path}: cannot be written ({e.strerror or e})") from None


async def _serve_table(ws: WebSocket, server: Server, client: str) -> None:
    table = Table(server.config, bot_share=lambda d: server.clients.change_bots(client, d))
    server.open_tables.add(table)
    bucket = MessageBucket(server.message_rate, server.message_burst)
    # The table's own thread: its agents (an external bot may take up to
    # its timeout per decision) hold up no other table, and nothing else
    # on the event loop's default pool (replays) waits behind them.
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="koudian-table")
    loop = asyncio.get_running_loop()
    try:
        while True:
            try:
                message = await asyncio.wait_for(ws.receive(), timeout=server.idle)
            except asyncio.TimeoutError:
                await ws.close(code=1001, reason="idle table expired")
                return
            if message["type"] == "websocket.disconnect":
                return
            await bucket.take()
            text = message.get("text")
            if text is None:
                replies: list[dict[str, Any]] = [
                    {"type": "error", "error": "send text frames of JSON"}
                ]
            else:
                replies = await loop.run_in_executor(pool, table.handle, text)
            for r in replies:
                await ws.send_text(json.dumps(r, ensure_ascii=False, allow_nan=False))
            if table.messages > MAX_MESSAGES_PER_HAND:
                await ws.close(code=1008, reason="too many messages in one hand")
                return
    except WebSocketDisconnect:
        return
    finally:
        server.open_tables.discard(table)
        table.abort()  # a decision in flight ends now; close() reaps the bots
        await loop.run_in_executor(pool, table.close)
        pool.shutdown(wait=False)


def create_app(server: Server) -> Starlette:
    """The Starlette application of ``server``."""
    page = _static("play.html")
    page = page.replace("__CSS__", page_css()).replace("__TABLE_JS__", _static("table.js"))

    favicon = _static("favicon.svg").encode()

    async def index(request: Request) -> Response:
        if server.rooms is not None:
            # A server with rooms opens on their home page (create a room,
            # join one, or play alone: a room with one person).
            from koudian.web.room_pages import home_page

            return HTMLResponse(home_page())
        return HTMLResponse(page)

    async def play(request: Request) -> Response:
        return HTMLResponse(page)

    async def icon(request: Request) -> Response:
        # Browsers ask for /favicon.ico whatever the page links; an SVG
        # served there is shown as well (and a 404 was logged per page).
        return Response(
            favicon,
            media_type="image/svg+xml",
            headers={"cache-control": "public, max-age=86400"},
        )

    async def info(request: Request) -> Response:
        from koudian.web.room_options import options_info
        from koudian.web.snapshot import action_table, tile_table

        # Worked out once (about half a second of the engine's validation),
        # off the event loop.
        options = await asyncio.to_thread(options_info)
        return JSONResponse(
            {
                "presets": preset_names(),
                # The page opens on the CLI's default ruleset, not on the
                # first name in alphabetical order.
                "default_preset": DEFAULT_PRESET,
                "opponents": list(server.opponents),
                "tiles": tile_table(),
                "actions": action_table(),
                "max_message": MAX_MESSAGE,
                "hints": True,  # every build ranks (koudian.rank_actions)
                # Each preset's options as labelled controls (koudian.web.room_options).
                "options": options,
                "rooms": server.rooms is not None,
            }
        )

    async def replay(request: Request) -> Response:
        from koudian.web.snapshot import hand_frames
        from koudian.web.viewer import build_html

        log = await server.replay_log(request.path_params["key"])
        if log is None:
            return Response("no such hand (only recent hands are kept)", status_code=404)
        html = await asyncio.to_thread(
            lambda: build_html([hand_frames(log)], title="koudian · a finished hand")
        )
        return HTMLResponse(html)

    async def replay_log(request: Request) -> Response:
        log = await server.replay_log(request.path_params["key"])
        if log is None:
            return Response("no such hand", status_code=404)
        return Response(log, media_type="application/x-ndjson")

    async def ws_endpoint(ws: WebSocket) -> None:
        if server.tables >= server.max_tables:
            await ws.close(code=1013, reason="the server is full; try again later")
            return
        client = ws.client.host if ws.client is not None else "?"
        if not server.clients.open_table(client):
            await ws.close(code=1013, reason="this client holds its share of tables")
            return
        try:
            await ws.accept()
            server.tables += 1
            try:
                await _serve_table(ws, server, client)
            finally:
                server.tables -= 1
        finally:
            server.clients.close_table(client)

    routes: list[BaseRoute] = [
        Route("/", index),
        Route("/play", play),
        Route("/favicon.ico", icon),
        Route("/favicon.svg", icon),
        Route("/api/info", info),
        Route("/replay/{key}", replay),
        Route("/replay/{key}/log", replay_log),
        WebSocketRoute("/ws", ws_endpoint),
    ]
    rooms = server.rooms
    if rooms is not None:
        from koudian.web.room_routes import room_routes

        routes += room_routes(server)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # Every open room of the database is resumed before anything is served.
        if rooms is not None:
            await rooms.start()
        try:
            yield
        finally:
            if rooms is not None:
                await rooms.stop()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(HostOriginGuard, hosts=server.allow_hosts, origins=server.allow_origins)
    return app
