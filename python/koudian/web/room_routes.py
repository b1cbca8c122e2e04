"""The rooms' routes of the play server (thin: ``koudian.rooms.service``
does the work).

``POST /api/rooms`` creates a room, ``GET /api/rooms/{code}`` is its
record (seats, totals, each finished hand's replay link), ``GET
/r/{code}`` its page, ``/ws/room/{code}`` the room protocol
(``koudian.rooms.protocol``; ``docs/rooms.md``). Connections are bounded
per client (remote address), messages in size and rate (a token bucket
per connection), frames by the ASGI server's ``ws_max_size``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from koudian.rooms.config import RoomError
from koudian.rooms.protocol import MAX_MESSAGE, ProtocolError, error, parse
from koudian.rooms.service import Conn, LiveRoom, RoomService
from koudian.web.guard import ClientShare, MessageBucket
from koudian.web.room_pages import room_page

__all__ = ["HELLO_TIMEOUT", "room_routes"]

HELLO_TIMEOUT = 30.0
"""Seconds a new connection has to say hello."""
MAX_BODY = 4096
"""Longest ``POST /api/rooms`` body, bytes."""


class Server(Protocol):
    """What the routes need of the play server (``koudian.web.app.Server``)."""

    rooms: RoomService | None
    room_clients: ClientShare
    message_rate: float
    message_burst: int
    idle: float


def _client(scope_client: Any) -> str:
    return scope_client.host if scope_client is not None else "?"


def room_routes(server: Server) -> list[BaseRoute]:
    """The routes of ``server.rooms`` (a ``RoomService``)."""
    service = server.rooms
    assert service is not None

    async def create(request: Request) -> Response:
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                return JSONResponse({"error": f"a body of at most {MAX_BODY} bytes"}, 413)
        try:
            data = json.loads(body or b"{}")
        except (ValueError, RecursionError):
            return JSONResponse({"error": "the body is a JSON object"}, 400)
        try:
            code = await service.create(data, _client(request.client))
        except RoomError as e:
            return JSONResponse({"error": str(e)}, 400)
        return JSONResponse({"code": code, "url": f"/r/{code}"})

    async def record(request: Request) -> Response:
        info = await service.info(request.path_params["code"])
        if info is None:
            return JSONResponse({"error": "no such room"}, 404)
        return JSONResponse(info)

    async def page(request: Request) -> Response:
        # The room page draws the lobby, the table and (at /history) the
        # room's record: it reads its code from its own address.
        if await service.room(request.path_params["code"]) is None:
            return HTMLResponse("no such room", 404)
        return HTMLResponse(room_page())

    async def ws_room(ws: WebSocket) -> None:
        client = _client(ws.client)
        if not server.room_clients.open_table(client):
            await ws.close(code=1013, reason="this client holds its share of connections")
            return
        try:
            await ws.accept()
            room = await service.room(ws.path_params["code"])
            if room is None:
                await ws.send_text(json.dumps(error("no such room"), allow_nan=False))
                await ws.close(code=1008, reason="no such room")
                return
            await _serve(ws, server, room, client)
        except WebSocketDisconnect:
            return
        finally:
            server.room_clients.close_table(client)

    return [
        Route("/api/rooms", create, methods=["POST"]),
        Route("/api/rooms/{code}", record),
        Route("/r/{code}", page),
        Route("/r/{code}/history", page),
        WebSocketRoute("/ws/room/{code}", ws_room),
    ]


async def _sender(ws: WebSocket, conn: Conn) -> None:
    """Moves the connection's outbox to the socket, in order; a client
    that does not read (its outbox full) is closed."""
    try:
        while True:
            text = await conn.next()
            if text is None:
                break
            await ws.send_text(text)
        if conn.dropped:
            await ws.close(code=1008, reason="the client does not read its messages")
        else:
            await ws.close(code=1000)
    except Exception:  # the socket is gone: the receiver ends too
        return


async def _serve(ws: WebSocket, server: Server, room: LiveRoom, client: str) -> None:
    service = server.rooms
    assert service is not None
    loop = asyncio.get_running_loop()
    conn = Conn(loop, client)
    sender = asyncio.create_task(_sender(ws, conn))
    bucket = MessageBucket(server.message_rate, server.message_burst)
    joined = False
    try:
        while True:
            timeout = server.idle if joined else HELLO_TIMEOUT
            try:
                message = await asyncio.wait_for(ws.receive(), timeout=timeout)
            except asyncio.TimeoutError:
                conn.end()
                return
            if message["type"] == "websocket.disconnect" or sender.done():
                return
            await bucket.take()
            text = message.get("text")
            try:
                if text is None:
                    raise ProtocolError("send text frames of JSON")
                if len(text) > MAX_MESSAGE:
                    raise ProtocolError(f"message longer than {MAX_MESSAGE} characters")
                msg = parse(text)
                if not joined and msg["type"] != "hello":
                    raise ProtocolError("the first message is hello")
            except ProtocolError as e:
                conn.send(error(str(e)))
                if not joined:
                    conn.end()
                    return
                continue
            try:
                if not joined:
                    joined = await service.run(room, service.hello, room, conn, msg)
                    if not joined:
                        conn.end()
                        return
                else:
                    await service.run(room, service.message, room, conn, msg)
            except RuntimeError:  # the room was put away meanwhile (closed)
                conn.send(error("the room is closed"))
                conn.end()
                return
    finally:
        conn.end()  # the sender sends what is queued, then closes
        if joined:
            try:
                await service.run(room, service.gone, room, conn)
            except RuntimeError:
                pass
        try:
            await asyncio.wait_for(sender, timeout=5)
        except (asyncio.TimeoutError, Exception):
            sender.cancel()
