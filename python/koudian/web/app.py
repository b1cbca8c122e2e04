"""The play server's web application (Starlette; the ``web`` extra).

Routes: ``/`` the play page, ``/ws`` one table per WebSocket connection
(``koudian.web.tables``), ``/replay/{n}`` the replay viewer of a finished
hand, ``/api/info`` presets and opponents on offer. The server holds at
most ``max_tables`` tables; a table idle for ``idle`` seconds is closed;
messages are bounded in size (the ASGI server's ``ws_max_size`` too) and
in number per hand; each finished hand is appended to the log file and
kept (the newest ``keep_replays``) for its replay link.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from koudian._presets import names as preset_names
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
    ) -> None:
        self.opponents = opponents
        self.log_path = Path(log_path) if log_path is not None else None
        self.max_tables = max_tables
        self.idle = idle
        self.keep_replays = keep_replays
        self.tables = 0
        self.hands = 0
        self.replays: OrderedDict[int, str] = OrderedDict()
        self._lock = threading.Lock()
        self.config = TableConfig(opponents, on_hand=self.finished, bot_timeout=bot_timeout)

    def finished(self, log: str) -> str:
        """Records a finished hand; its replay link."""
        with self._lock:
            self.hands += 1
            n = self.hands
            self.replays[n] = log
            while len(self.replays) > self.keep_replays:
                self.replays.popitem(last=False)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as f:
                    f.write(log)
        return f"/replay/{n}"


async def _serve_table(ws: WebSocket, server: Server) -> None:
    table = Table(server.config)
    try:
        while True:
            try:
                message = await asyncio.wait_for(ws.receive(), timeout=server.idle)
            except asyncio.TimeoutError:
                await ws.close(code=1001, reason="idle table expired")
                return
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                replies: list[dict[str, Any]] = [
                    {"type": "error", "error": "send text frames of JSON"}
                ]
            else:
                # The table runs agents (an external bot may take up to its
                # timeout): off the event loop, one message at a time.
                replies = await asyncio.to_thread(table.handle, text)
            for r in replies:
                await ws.send_text(json.dumps(r, ensure_ascii=False))
            if table.messages > MAX_MESSAGES_PER_HAND:
                await ws.close(code=1008, reason="too many messages in one hand")
                return
    except WebSocketDisconnect:
        return
    finally:
        await asyncio.to_thread(table.close)


def create_app(server: Server) -> Starlette:
    """The Starlette application of ``server``."""
    page = _static("play.html")
    page = page.replace("__CSS__", _static("table.css")).replace(
        "__TABLE_JS__", _static("table.js")
    )

    async def index(request: Request) -> Response:
        return HTMLResponse(page)

    async def info(request: Request) -> Response:
        from koudian.web.snapshot import action_table, tile_table

        return JSONResponse(
            {
                "presets": preset_names(),
                "opponents": list(server.opponents),
                "tiles": tile_table(),
                "actions": action_table(),
                "max_message": MAX_MESSAGE,
                "hints": True,  # every build ranks (koudian.rank_actions)
            }
        )

    async def replay(request: Request) -> Response:
        from koudian.web.snapshot import hand_frames
        from koudian.web.viewer import build_html

        try:
            n = int(request.path_params["n"])
        except ValueError:
            return Response("no such hand", status_code=404)
        log = server.replays.get(n)
        if log is None:
            return Response("no such hand (only recent hands are kept)", status_code=404)
        html = await asyncio.to_thread(
            lambda: build_html([hand_frames(log)], title=f"koudian · hand {n}")
        )
        return HTMLResponse(html)

    async def replay_log(request: Request) -> Response:
        log = server.replays.get(int(request.path_params["n"]))
        if log is None:
            return Response("no such hand", status_code=404)
        return Response(log, media_type="application/x-ndjson")

    async def ws_endpoint(ws: WebSocket) -> None:
        if server.tables >= server.max_tables:
            await ws.close(code=1013, reason="the server is full; try again later")
            return
        await ws.accept()
        server.tables += 1
        try:
            await _serve_table(ws, server)
        finally:
            server.tables -= 1

    return Starlette(
        routes=[
            Route("/", index),
            Route("/api/info", info),
            Route("/replay/{n:int}", replay),
            Route("/replay/{n:int}/log", replay_log),
            WebSocketRoute("/ws", ws_endpoint),
        ]
    )
