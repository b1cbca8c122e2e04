"""The room service: one server process's hub of rooms.

``RoomService`` loads rooms from the store (and resumes every open room
when it starts), turns client messages into events, appends each event
(durable) BEFORE any client is told of it, tells every connection of the
room what it may see, plays the bot seats and the seats whose person is
away (托管), and keeps the deadlines (the decision timer, the time
between hands, the dismissal vote, the idle time).

Threads. Each room has a worker (a ``Strand`` on a pool of
``ROOM_THREADS`` threads shared by every room): every change of a room
(the fold, the store's writes, the bots' decisions) runs there, one task
at a time, so a room needs no lock, and a room takes turns with the
others. The bots play one move per task: a person's message waiting
behind them is handled between two moves (a person who comes back takes
the seat at once), and while a person is at the table the bots' moves
are paced (``bot_pace`` seconds apart) so that people can follow them.
The event loop only parses messages and moves text to sockets; a
connection is a ``Conn`` whose outgoing messages the worker posts to the
event loop in order.

Several writers. The service never assumes it is the only writer of a
room: an append that finds its seq taken (another process, on
PostgreSQL) loads the events it missed, folds them, and checks the
command again against the new state. ``store.listen`` tells it of other
processes' events. A room plays on while one of its people is connected
to some process (not away for a disconnect); a room whose people are all
gone waits for them.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from koudian._core import Action, KoudianError, fallback_action
from koudian.agents import Agent, make_agent
from koudian.rooms.config import BOT_PACE, RoomConfig, RoomError
from koudian.rooms.events import dumps, parse
from koudian.rooms.protocol import error
from koudian.rooms.room import RoomState, replay_key, token_hash
from koudian.rooms.store import EventRow, RoomRow, Store
from koudian.rooms.strand import Strand
from koudian.web.snapshot import observations

__all__ = ["Conn", "Limits", "LiveRoom", "RoomService"]

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Room codes: no I, O, 0 or 1 (read aloud and typed without confusion)."""
CODE_LENGTH = 6
MAX_RETRIES = 16
"""Appends tried per command before it is refused (other writers won each seq)."""
MAX_OUTBOX = 256
"""Messages waiting to be sent to one connection before it is closed (a
client that does not read is dropped, not buffered without end)."""
ROOM_THREADS = 32
"""Threads the rooms' workers share (a room's tasks run one at a time on
them; a program bot's decision may hold one for up to --bot-timeout)."""


class Limits:
    """The service's bounds and times (seconds)."""

    def __init__(
        self,
        *,
        max_rooms: int = 1000,
        client_rooms: int = 8,
        client_bots: int = 12,
        between: float = 30.0,
        vote: float = 120.0,
        idle: float = 3 * 3600.0,
        bot_timeout: float = 5.0,
    ) -> None:
        self.max_rooms = max_rooms
        self.client_rooms = client_rooms
        self.client_bots = client_bots  # program (cmd:) bot seats in one client's open rooms
        self.between = between
        self.vote = vote
        self.idle = idle
        self.bot_timeout = bot_timeout


class Conn:
    """One connection to a room: its seat (None: watching) and its outbox.
    ``send`` may be called from any thread; messages arrive in order. A
    ``table`` message still waiting behind another ``table`` replaces it
    (each is the whole table: a slow reader gets the newest, not every
    step); at most ``MAX_OUTBOX`` messages wait, a client that lets more
    pile up gets no more and is closed."""

    def __init__(self, loop: asyncio.AbstractEventLoop, client: str) -> None:
        self.loop = loop
        self.client = client
        self.seat: int | None = None
        self.watching = False
        self._box: deque[tuple[str, str | None]] = deque()
        self._ready = asyncio.Event()
        self.dropped = False
        self.ended = False

    def send(self, msg: dict[str, Any]) -> None:
        self.send_text(str(msg.get("type")), _text(msg))

    def send_text(self, kind: str, text: str) -> None:
        """Sends a message already serialized (``kind``: its type)."""
        self.loop.call_soon_threadsafe(self._put, kind, text)

    def _put(self, kind: str, text: str | None) -> None:
        if self.dropped or self.ended:
            return
        if text is None:
            self.ended = True
        elif kind == "table" and self._box and self._box[-1][0] == "table":
            self._box[-1] = (kind, text)
            return
        elif len(self._box) >= MAX_OUTBOX:
            self.dropped = True  # the sender closes the socket
            text = None
        self._box.append((kind, text))
        self._ready.set()

    async def next(self) -> str | None:
        """The next message to send (event loop), None: close."""
        while not self._box:
            self._ready.clear()
            await self._ready.wait()
        return self._box.popleft()[1]

    def end(self) -> None:
        self.loop.call_soon_threadsafe(self._put, "", None)


class LiveRoom:
    """A room loaded in this process: its row, its state, its worker, its
    connections and its bots. Everything but ``deadline`` and ``row`` is
    touched on the worker thread only."""

    def __init__(
        self, row: RoomRow, state: RoomState, pool: ThreadPoolExecutor | None = None
    ) -> None:
        self.row = row
        self.state = state
        # The room's worker; without a pool (a test driving the room by
        # hand) nothing can be queued on it.
        self.strand = Strand(pool, row.code)
        self.drive_at: float | None = None  # when the queued drive step runs (monotonic)
        self.conns: set[Conn] = set()
        self.agents: dict[tuple[int, str], Agent] = {}
        self.deadline: float | None = None  # when the next timed event is due
        self.ticking = False
        self.saved_hands = 0
        self.loaded_at = time.time()  # a decision's timer starts no sooner than this

    def connected(self) -> list[bool]:
        return [any(c.seat == s for c in self.conns) for s in range(4)]


class RoomService:
    """See the module doc. ``agents``: the bots on offer, name → agent spec
    (``greedy``, or ``cmd:COMMAND`` for an operator's bot); ``default_bot``
    takes the free seats on "start" and plays the away seats."""

    def __init__(
        self,
        store: Store,
        agents: Mapping[str, str],
        *,
        limits: Limits | None = None,
        default_bot: str | None = None,
        timer: int = 0,
        clock: Callable[[], float] = time.time,
        bot_pace: float = BOT_PACE,
    ) -> None:
        self.store = store
        self.agents = dict(agents)
        native = [n for n, s in self.agents.items() if not s.startswith("cmd:")]
        if default_bot is None:
            default_bot = "greedy" if "greedy" in native else (native[0] if native else None)
        if default_bot is None or default_bot not in self.agents:
            raise RoomError("the rooms need a built-in agent on offer (--agents greedy)")
        self.default_bot = default_bot
        self.limits = limits or Limits()
        self.timer = timer  # a room's decision timer when its creator names none
        self.clock = clock
        self.bot_pace = bot_pace
        self.shared = bool(getattr(store, "shared", False))
        self.rooms: dict[str, LiveRoom] = {}  # by code; the event loop's
        self.by_id: dict[str, LiveRoom] = {}
        self.created_by: dict[str, set[str]] = {}  # client → codes of its open rooms
        self.db = ThreadPoolExecutor(max_workers=4, thread_name_prefix="koudian-rooms-db")
        self.pool = ThreadPoolExecutor(max_workers=ROOM_THREADS, thread_name_prefix="koudian-room")
        self.stopping = False  # set first by stop(): nothing is queued on a room after it
        self.loop: asyncio.AbstractEventLoop | None = None
        self._loading: dict[str, asyncio.Future[LiveRoom | None]] = {}
        self._ticker: asyncio.Task[None] | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------ life

    async def start(self) -> None:
        """Resumes every open room of the store and starts the clock."""
        self.loop = asyncio.get_running_loop()
        rows = await self.loop.run_in_executor(self.db, self.store.open_rooms)
        for row in rows:
            try:
                await self._load_row(row)
            except KoudianError as e:
                print(f"koudian serve: room {row.code} not resumed: {e}", file=sys.stderr)
        for room in list(self.rooms.values()):
            await self.run(room, self._resume, room)
        self.store.listen(self._heard)
        self._ticker = asyncio.create_task(self._tick_loop())

    async def stop(self) -> None:
        if self.stopping:
            return
        self.stopping = True
        if self._ticker is not None:
            self._ticker.cancel()
        for room in list(self.rooms.values()):
            for c in list(room.conns):
                c.end()
            try:
                await self.run(room, self._close_agents, room)
            except RuntimeError:
                pass  # put away meanwhile (its agents were closed then)
            room.strand.close()
        self.pool.shutdown(wait=False)
        self.db.shutdown(wait=False)

    def abort(self) -> None:
        """Stops the bot processes at once (the server is stopping)."""
        for room in list(self.rooms.values()):
            for a in list(room.agents.values()):
                ab = getattr(a, "abort", None)
                if ab is not None:
                    ab()

    async def run(self, room: LiveRoom, fn: Callable[..., Any], *args: Any) -> Any:
        """Runs ``fn(*args)`` on ``room``'s worker (``RuntimeError`` when
        the room was put away or the service stopped)."""
        return await asyncio.wrap_future(room.strand.submit(fn, *args))

    def _submit(self, room: LiveRoom, fn: Callable[..., Any], *args: Any) -> None:
        """Queues ``fn(*args)`` on ``room``'s worker, if it still has one."""
        if self.stopping:
            return
        try:
            room.strand.submit(fn, *args)
        except RuntimeError:
            pass  # the room was put away (closed) or the service stopped

    # ------------------------------------------------------------ rooms

    async def create(self, data: object, client: str) -> str:
        """Creates a room from a client's request; its code."""
        if isinstance(data, dict) and "timer" not in data:
            data = {**data, "timer": self.timer}
        config = RoomConfig.from_json(data, self.agents)
        mine = self.created_by.setdefault(client, set())
        mine &= {c for c, r in self.rooms.items() if r.state.status != "closed"}
        if len(mine) >= self.limits.client_rooms:
            raise RoomError(
                f"this client has {len(mine)} open rooms (at most {self.limits.client_rooms})"
            )
        programs = self._programs(config) + sum(
            self._programs(self.rooms[c].state.config) for c in mine
        )
        if programs > self.limits.client_bots:
            raise RoomError(
                f"too many program bots for this client's rooms ({programs}; at most "
                f"{self.limits.client_bots})"
            )
        if sum(1 for r in self.rooms.values() if r.state.status != "closed") >= (
            self.limits.max_rooms
        ):
            raise RoomError("the server has as many rooms as it holds; try again later")
        loop = asyncio.get_running_loop()
        row = await loop.run_in_executor(self.db, self._create_row, config)
        room = await self._load_row(row)
        mine.add(row.code)
        await self.run(room, self._drive, room)
        return row.code

    def _programs(self, config: RoomConfig) -> int:
        """The program (``cmd:``) bots a room's configuration starts."""
        return sum(1 for b in config.bots if b and self.agents.get(b, "").startswith("cmd:"))

    def _create_row(self, config: RoomConfig) -> RoomRow:
        now = self.clock()
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if self.store.room_by_code(code) is not None:
                continue
            row = RoomRow(
                id=secrets.token_hex(16),
                code=code,
                secret=secrets.token_bytes(32),
                config_json=config.dumps(),
                created=now,
                updated=now,
            )
            try:
                self.store.create_room(row)
            except KoudianError:
                continue  # another process took the code meanwhile
            fills = [
                EventRow(row.id, i, "fill", dumps({"seat": s, "agent": b}), now)
                for i, (s, b) in enumerate((s, b) for s, b in enumerate(config.bots) if b)
            ]
            self.store.append(row.id, fills)
            return row
        raise RoomError("no free room code (try again)")

    async def room(self, code: str) -> LiveRoom | None:
        """The room of ``code``, loaded (and resumed) if it is in the store."""
        code = code.upper()
        room = self.rooms.get(code)
        if room is not None:
            return room
        if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
            return None
        pending = self._loading.get(code)
        if pending is not None:
            return await pending
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[LiveRoom | None] = loop.create_future()
        self._loading[code] = fut
        try:
            row = await loop.run_in_executor(self.db, self.store.room_by_code, code)
            result = None if row is None else await self._load_row(row)
            if result is not None:
                try:
                    await self.run(result, self._resume, result)
                except RuntimeError:
                    pass  # a closed room, put away again meanwhile: its record stands
            fut.set_result(result)
            return result
        except BaseException as e:
            fut.set_exception(e)
            fut.exception()  # retrieved: the waiters get it
            raise
        finally:
            del self._loading[code]

    async def _load_row(self, row: RoomRow) -> LiveRoom:
        loop = asyncio.get_running_loop()
        state = await loop.run_in_executor(self.db, self._fold, row)
        if row.code in self.rooms:
            return self.rooms[row.code]
        room = LiveRoom(row, state, self.pool)
        room.loaded_at = self.clock()
        self.rooms[row.code] = room
        self.by_id[row.id] = room
        return room

    def _fold(self, row: RoomRow) -> RoomState:
        state = RoomState(RoomConfig.loads(row.config_json), row.secret)
        for ev in self.store.events(row.id):
            state.apply(ev.seq, ev.kind, parse(ev.kind, ev.body), ev.at)
        return state

    async def info(self, code: str) -> dict[str, Any] | None:
        """A room's public record: configuration, seats, totals, hands."""
        room = await self.room(code)
        if room is None:
            return None
        try:
            out: dict[str, Any] = await self.run(room, room.state.room_json, None, [False] * 4)
        except RuntimeError:  # closed and put away meanwhile: its state changes no more
            out = room.state.room_json(None, [False] * 4)
        out["code"] = room.row.code
        out["created"] = room.row.created
        return out

    # ------------------------------------------------------------ the worker: events

    def _catch_up(self, room: LiveRoom) -> None:
        """With other writers (a shared store), the events they appended
        that no notification has brought yet: a person's command is checked
        against the newest state."""
        if self.shared:
            self._sync(room)

    def _sync(self, room: LiveRoom) -> None:
        """Folds the events other writers appended since ours."""
        for ev in self.store.events(room.row.id, room.state.seq):
            body = parse(ev.kind, ev.body)
            room.state.apply(ev.seq, ev.kind, body, ev.at)
            self._applied(room, ev.kind, body)

    def _propose(
        self, room: LiveRoom, build: Callable[[RoomState], tuple[str, dict[str, Any]]]
    ) -> int:
        """Appends the event ``build(state)`` gives (``RoomError`` when it
        cannot be), then tells the room; its seq. Another writer's event at
        the same seq: load it, and build again against the new state."""
        for _ in range(MAX_RETRIES):
            kind, body = build(room.state)
            room.state.check(kind, body)
            seq = room.state.seq + 1
            row = EventRow(room.row.id, seq, kind, dumps(body), self.clock())
            if self.store.append(room.row.id, [row]):  # durable before anyone is told
                room.state.apply(seq, kind, body, row.at)
                self._applied(room, kind, body)
                return seq
            self._sync(room)
        raise RoomError("the room is busy; try again")

    def _applied(self, room: LiveRoom, kind: str, body: dict[str, Any]) -> None:
        st = room.state
        if kind == "leave":
            # The seat's connections watch from now on: the next person to
            # take the seat is not seen through them.
            for c in room.conns:
                if c.seat == body["seat"]:
                    c.seat, c.watching = None, True
        if kind == "act" and st.game is not None and st.game.done:
            self._save_hands(room)
            end = _text(self._end_msg(room))
            for c in list(room.conns):
                c.send_text("end", end)
        elif kind in ("act", "start", "next", "away", "back"):
            # (away / back: the seat's decision request appears or goes.)
            # Each seat's message is made once, from one set of the four
            # seats' observations, whatever the number of connections.
            views = observations(st.game) if st.game is not None else None
            made: dict[int | None, tuple[str, str]] = {}
            for c in list(room.conns):
                if c.seat not in made:
                    msg = self._table_msg(room, c.seat, views)
                    made[c.seat] = (str(msg["type"]), _text(msg))
                c.send_text(*made[c.seat])
        if kind == "close":
            self.store.set_status(room.row.id, "closed", self.clock())
            self._close_agents(room)
        if kind != "act" or st.status != "playing":
            self._room_msg_all(room)
        self._plan(room)

    def _save_hands(self, room: LiveRoom) -> None:
        """Keeps the finished hands' logs for their replay links (before
        the end is told: a link sent is a link that works)."""
        for h in room.state.hands[room.saved_hands :]:
            key = replay_key(room.row.secret, h.hand)
            self.store.save_hand(room.row.id, h.hand, h.log, key)
        room.saved_hands = len(room.state.hands)

    # ------------------------------------------------------------ the worker: messages

    def _room_msg_all(self, room: LiveRoom) -> None:
        connected = room.connected()
        made: dict[int | None, str] = {}
        for c in list(room.conns):
            if c.seat not in made:
                msg = room.state.room_json(c.seat, connected)
                msg["type"] = "room"
                msg["room"] = room.row.code
                made[c.seat] = _text(msg)
            c.send_text("room", made[c.seat])

    def _deadline_ms(self, room: LiveRoom) -> int | None:
        st = room.state
        seat = st.to_act
        if seat is None or room.state.config.timer <= 0 or st.bot_plays(seat):
            return None
        left = self._asked_at(room, seat) + st.config.timer - self.clock()
        return max(0, int(left * 1000))

    def _table_msg(
        self, room: LiveRoom, seat: int | None, views: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """``seat``'s message of the table now: its decision (``act``),
        the table (``table``) or the hand's end (``end``); ``seq``: the
        event it reflects. ``views``: the hand's observations, if made."""
        st = room.state
        if st.game is not None and st.game.done and st.hands:
            return self._end_msg(room)
        deadline = self._deadline_ms(room)
        if seat is not None and st.to_act == seat and not st.bot_plays(seat):
            msg = st.request_json(seat)
            assert msg is not None
            msg["table"] = st.table_json(seat, views)
            msg["match"] = st.match_json()
            msg["deadline_ms"] = deadline
            msg["seq"] = st.seq
            return msg
        return {
            "type": "table",
            "table": st.table_json(seat, views),
            "to_act": st.to_act,
            "deadline_ms": deadline,
            "match": st.match_json(),
            "seq": st.seq,
        }

    def _end_msg(self, room: LiveRoom) -> dict[str, Any]:
        h = room.state.hands[-1]
        return {
            "type": "end",
            "hand": h.hand,
            "result": h.result,
            "table": h.table,
            "match": room.state.match_json(),
            "replay": h.replay,
            "seq": room.state.seq,
        }

    def hello(self, room: LiveRoom, conn: Conn, msg: dict[str, Any]) -> bool:
        """A connection's first message (worker thread); False when it is
        refused (the connection is then closed)."""
        self._catch_up(room)
        st = room.state
        token: str | None = None
        if "token" in msg:
            seat = st.seat_of(msg["token"])
            if seat is None:
                conn.send(error("no seat of this room holds this token"))
                return False
            conn.seat = seat
        elif "name" in msg:
            token = secrets.token_urlsafe(24)
            th = token_hash(token)
            name, bot = msg["name"], bool(msg.get("bot", False))

            def join(s: RoomState) -> tuple[str, dict[str, Any]]:
                free = s.first_free()
                if free is None or s.status != "waiting":
                    raise RoomError("no free seat in this room (you may watch)")
                return "join", {"seat": free, "name": name, "token_hash": th, "bot": bot}

            try:
                self._propose(room, join)
            except RoomError as e:
                conn.send(error(str(e)))
                return False
            conn.seat = room.state.seat_of(token)
        else:
            conn.watching = True
        room.conns.add(conn)
        welcome: dict[str, Any] = {"type": "welcome", "room": room.row.code, "seat": conn.seat}
        if token is not None:
            welcome["token"] = token
        conn.send(welcome)
        self._send_state(room, conn)
        if conn.seat is not None and room.state.seats[conn.seat].away is not None:
            s = conn.seat
            self._try(room, conn, lambda _: ("back", {"seat": s}))
        self._room_msg_all(room)
        self._drive(room)
        return True

    def _send_state(self, room: LiveRoom, conn: Conn) -> None:
        msg = room.state.room_json(conn.seat, room.connected())
        msg["type"] = "room"
        msg["room"] = room.row.code
        conn.send(msg)
        if room.state.game is not None:
            conn.send(self._table_msg(room, conn.seat))

    def _try(
        self,
        room: LiveRoom,
        conn: Conn,
        build: Callable[[RoomState], tuple[str, dict[str, Any]]],
        rid: object = None,
    ) -> int | None:
        try:
            return self._propose(room, build)
        except RoomError as e:
            conn.send(error(str(e), rid))
            return None

    def message(self, room: LiveRoom, conn: Conn, msg: dict[str, Any]) -> None:
        """One checked message of a connection after its hello (worker thread)."""
        try:
            self._catch_up(room)
            self._message(room, conn, msg)
        except RoomError as e:
            conn.send(error(str(e), msg.get("id")))
        except Exception as e:  # a defect: the operator sees it, the room stays
            traceback.print_exc(file=sys.stderr)
            conn.send(error(f"the server failed on this message ({type(e).__name__})"))
        self._drive(room)

    def _message(self, room: LiveRoom, conn: Conn, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        seat = conn.seat
        if kind == "state":
            self._send_state(room, conn)
            return
        if kind == "hello":
            raise RoomError("hello is the first message only")
        if seat is None:
            raise RoomError("a watcher only watches (state)")
        if kind == "ready":
            self._try(room, conn, lambda _: ("ready", {"seat": seat}))
        elif kind == "leave":
            self._try(room, conn, lambda _: ("leave", {"seat": seat}))
        elif kind == "back":
            self._try(room, conn, lambda _: ("back", {"seat": seat}))
        elif kind == "vote":
            d = msg["dismiss"]
            self._try(room, conn, lambda _: ("vote", {"seat": seat, "dismiss": d}))
        elif kind in ("fill", "start"):
            if room.state.seats[0].kind != "person" or seat != 0:
                raise RoomError("the person at seat 0 (the first to enter) fills seats and starts")
            if kind == "fill":
                agent = msg["agent"]
                native = [n for n, spec in self.agents.items() if not spec.startswith("cmd:")]
                if agent not in native:
                    # A program bot is a process: it is named when the room is
                    # created, counted against its creator's share.
                    raise RoomError(f"no agent {agent[:40]!r}; one of {', '.join(native)}")
                self._try(room, conn, lambda _: ("fill", {"seat": msg["seat"], "agent": agent}))
            else:
                while (free := room.state.first_free()) is not None:
                    fill = ("fill", {"seat": free, "agent": self.default_bot})
                    if self._try(room, conn, _const(fill)) is None:
                        return
                self._try(room, conn, lambda _: ("start", {}))
        elif kind == "act":
            self._act(room, conn, seat, msg)
        elif kind == "hint":
            self._hint(room, conn, seat, msg)

    def _act(self, room: LiveRoom, conn: Conn, seat: int, msg: dict[str, Any]) -> None:
        rid = msg["id"]
        index = msg["action_"].index

        def act(s: RoomState) -> tuple[str, dict[str, Any]]:
            if s.to_act != seat:
                raise RoomError("it is not your turn")
            if s.bot_plays(seat):
                raise RoomError("your seat is played for you (托管); send back first")
            if rid != s.decision_seq:
                raise RoomError(f"a reply to decision {rid}; the open decision is {s.decision_seq}")
            return "act", {"hand": len(s.hands), "seat": seat, "index": index, "by": "person"}

        if self._try(room, conn, act, rid) is not None:
            conn.send({"type": "done", "id": rid})

    def _hint(self, room: LiveRoom, conn: Conn, seat: int, msg: dict[str, Any]) -> None:
        import koudian
        from koudian.web.tables import ranked_json

        game = room.state.game
        if game is None or room.state.to_act != seat:
            raise RoomError("a hint is for your own decision")
        native = [n for n, s in self.agents.items() if not s.startswith("cmd:")]
        agent = msg.get("agent", self.default_bot)
        if agent not in native:
            raise RoomError(f'"agent": one of {", ".join(native)}')
        ranked = koudian.rank_actions(game, seat, agent=self.agents[agent])
        conn.send({"type": "hint", "agent": agent, "ranked": [ranked_json(r) for r in ranked]})

    def gone(self, room: LiveRoom, conn: Conn) -> None:
        """A connection closed (worker thread): its seat is away (托管)
        when it was the seat's last connection and the match is on."""
        room.conns.discard(conn)
        seat = conn.seat
        if seat is not None and not room.connected()[seat]:
            st = room.state
            if st.status in ("playing", "between") and st.seats[seat].away != "disconnect":
                try:
                    if st.seats[seat].away is not None:
                        self._propose(room, lambda _: ("back", {"seat": seat}))
                    self._propose(room, lambda _: ("away", {"seat": seat, "why": "disconnect"}))
                except RoomError:
                    pass
            else:
                self._room_msg_all(room)
        self._drive(room)

    # ------------------------------------------------------------ the worker: bots and time

    def _resume(self, room: LiveRoom) -> None:
        """A room loaded at start or on demand: its missing hand logs
        saved, and (one process per database) its people marked away until
        they come back: none of them is connected to a process just started."""
        st = room.state
        have = {h.hand for h in self.store.hands(room.row.id)}
        for h in st.hands:
            if h.hand not in have:
                self.store.save_hand(
                    room.row.id, h.hand, h.log, replay_key(room.row.secret, h.hand)
                )
        room.saved_hands = len(st.hands)
        if st.seq == -1:
            # A crash between the room's row and its first events: the bots
            # named at creation take their seats now.
            for s, b in enumerate(st.config.bots):
                if b is not None:
                    try:
                        self._propose(room, _const(("fill", {"seat": s, "agent": b})))
                    except RoomError:
                        self._sync(room)
        if not self.shared and st.status in ("playing", "between"):
            for i in st.person_seats():
                if room.connected()[i] or st.seats[i].away == "disconnect":
                    continue
                try:
                    if st.seats[i].away is not None:
                        self._propose(room, lambda _, i=i: ("back", {"seat": i}))  # type: ignore[misc]
                    self._propose(room, lambda _, i=i: ("away", {"seat": i, "why": "disconnect"}))  # type: ignore[misc]
                except RoomError:
                    pass
        self._drive(room)

    def _drive(self, room: LiveRoom) -> None:
        """Takes the room's next step by itself (an event due, or one
        bot's move, while one of its people is connected), and queues the
        step after it behind the messages waiting (or times it: the bots'
        pace), so that the room's people are heard between two moves."""
        wait = self._step(room)
        self._plan(room)
        if wait is not None:
            self._again(room, wait)

    def _step(self, room: LiveRoom) -> float | None:
        """One step: 0 when it appended an event (another may follow),
        the seconds until a bot may move (paced), None: nothing to do."""
        st = room.state
        before = st.seq
        due = st.due()
        try:
            if due is not None:
                self._propose(room, _const(due))
                return 0.0
            seat = st.to_act
            if seat is None or not st.bot_plays(seat) or not st.live():
                return None
            if self.bot_pace > 0 and st.watched():
                left = st.last_at + self.bot_pace - self.clock()
                if left > 0:
                    return left
            by = "bot" if st.seats[seat].kind == "bot" else "auto"
            body = {"hand": len(st.hands), "seat": seat, "index": 0, "by": by}
            body["index"] = self._decide(room, seat)
            self._propose(room, _unless_moved(st.decision_seq, ("act", body)))
            return 0.0
        except RoomError:
            self._sync(room)  # another writer moved the room on: look again
            return 0.0 if room.state.seq != before else None

    def _again(self, room: LiveRoom, wait: float) -> None:
        """Queues a drive step on the room's worker in ``wait`` seconds
        (none while an earlier one is queued)."""
        loop = self.loop
        if loop is None or self.stopping:
            return  # not serving: whoever drives the room steps it by hand
        at = time.monotonic() + wait
        if room.drive_at is not None and room.drive_at <= at:
            return
        room.drive_at = at
        if wait <= 0:
            self._submit(room, self._drive_queued, room)
        else:
            loop.call_soon_threadsafe(self._drive_later, room, wait)

    def _drive_later(self, room: LiveRoom, wait: float) -> None:
        """(event loop) Queues a drive step in ``wait`` seconds."""
        asyncio.get_running_loop().call_later(wait, self._submit, room, self._drive_queued, room)

    def _drive_queued(self, room: LiveRoom) -> None:
        if room.drive_at is not None and room.drive_at <= time.monotonic():
            room.drive_at = None
        try:
            self._drive(room)
        except Exception:  # a store failure: told to the operator; the clock tries again
            traceback.print_exc(file=sys.stderr)

    def _decide(self, room: LiveRoom, seat: int) -> int:
        st = room.state
        game = st.game
        assert game is not None
        legal = game.legal_actions(seat)
        name = st.seats[seat].agent if st.seats[seat].kind == "bot" else self.default_bot
        spec = self.agents.get(name or "", self.agents[self.default_bot])
        key = (seat, spec)
        try:
            agent = room.agents.get(key)
            if agent is None:
                agent = make_agent(spec, seat=seat, timeout=self.limits.bot_timeout)
                room.agents[key] = agent
            action: Action | None = agent.act(game.observe(seat), legal)
            if action not in legal:
                action = fallback_action(legal)
        except Exception as e:  # a bot's failure never stops the room
            print(f"koudian serve: room {room.row.code} seat {seat}: {e}", file=sys.stderr)
            action = fallback_action(legal)
        return (action or legal[0]).index

    def _plan(self, room: LiveRoom) -> None:
        """When the room's next timed event is due (read by the clock task)."""
        st = room.state
        times: list[float] = []
        if st.status != "closed":
            times.append(self._active(room) + self.limits.idle)
        if st.vote is not None:
            times.append(st.vote_at + self.limits.vote)
        seat = st.to_act
        if seat is not None and st.config.timer > 0 and not st.bot_plays(seat) and st.live():
            times.append(self._asked_at(room, seat) + st.config.timer)
        if st.status == "between" and st.live():
            times.append(st.ended_at + self.limits.between)
        room.deadline = min(times) if times else None

    @staticmethod
    def _asked_at(room: LiveRoom, seat: int) -> float:
        """When ``seat``'s open decision's timer started: when it was asked,
        or later when its person came back or this process loaded the room
        (a restart does not eat a person's time)."""
        st = room.state
        return max(st.decision_at, st.seats[seat].back_at, room.loaded_at)

    @staticmethod
    def _active(room: LiveRoom) -> float:
        """When the room last changed (its creation, for a room without events)."""
        return max(room.state.last_at, room.row.created)

    def _tick(self, room: LiveRoom) -> None:
        """The timed events now due (worker thread)."""
        try:
            self._tick_now(room)
        except Exception:  # a store failure: told to the operator, tried again later
            traceback.print_exc(file=sys.stderr)
        finally:
            room.ticking = False

    def _tick_now(self, room: LiveRoom) -> None:
        self._catch_up(room)
        now = self.clock()
        st = room.state
        try:
            if st.status != "closed" and now >= self._active(room) + self.limits.idle:
                self._propose(room, lambda _: ("close", {"why": "idle"}))
            elif st.vote is not None and now >= st.vote_at + self.limits.vote:
                # Whoever did not answer the vote in time counts as a yes.
                self._propose(room, lambda _: ("close", {"why": "dismissed"}))
            elif (
                (seat := st.to_act) is not None
                and st.config.timer > 0
                and not st.bot_plays(seat)
                and now >= self._asked_at(room, seat) + st.config.timer
            ):
                s = seat
                self._propose(room, lambda _: ("away", {"seat": s, "why": "timeout"}))
            elif st.status == "between" and now >= st.ended_at + self.limits.between:
                self._propose(room, lambda _: ("next", {}))
        except RoomError:
            self._sync(room)
        self._drive(room)

    async def _tick_loop(self) -> None:
        while True:
            await asyncio.sleep(0.2)
            now = self.clock()
            for room in list(self.rooms.values()):
                if room.deadline is not None and now >= room.deadline and not room.ticking:
                    room.ticking = True
                    try:
                        room.strand.submit(self._tick, room)
                    except RuntimeError:
                        room.ticking = False
                if room.state.status == "closed" and not room.conns and not room.ticking:
                    self._drop(room)

    def _drop(self, room: LiveRoom) -> None:
        """Forgets a closed room nobody watches (its record stays in the store)."""
        self.rooms.pop(room.row.code, None)
        self.by_id.pop(room.row.id, None)
        self._submit(room, self._close_agents, room)
        room.strand.close()

    def _close_agents(self, room: LiveRoom) -> None:
        agents, room.agents = list(room.agents.values()), {}
        for a in agents:
            close = getattr(a, "close", None)
            if close is not None:
                try:
                    close()
                except Exception:
                    traceback.print_exc(file=sys.stderr)

    def _heard(self, room_id: str, seq: int) -> None:
        """Another process appended to a room (any thread)."""
        loop = self.loop
        if loop is None:
            return

        def wake() -> None:
            room = self.by_id.get(room_id)
            if room is not None and room.state.seq < seq:
                self._submit(room, self._woken, room)  # nothing once stopping

        try:
            loop.call_soon_threadsafe(wake)
        except RuntimeError:
            pass  # the loop is closed: the server has stopped

    def _woken(self, room: LiveRoom) -> None:
        try:
            self._sync(room)
            self._drive(room)
        except Exception:
            traceback.print_exc(file=sys.stderr)


Build = Callable[[RoomState], tuple[str, dict[str, Any]]]


def _text(msg: dict[str, Any]) -> str:
    """A message as sent (strict JSON: no NaN)."""
    return json.dumps(msg, ensure_ascii=False, allow_nan=False)


def _const(event: tuple[str, dict[str, Any]]) -> Build:
    """A command that proposes ``event`` whatever the state."""
    return lambda _: event


def _unless_moved(asked: int, event: tuple[str, dict[str, Any]]) -> Build:
    """A bot's decision: proposed only while the decision it was made for
    (asked at seq ``asked``) is still the open one."""

    def build(s: RoomState) -> tuple[str, dict[str, Any]]:
        if s.decision_seq != asked:
            raise RoomError("the decision was taken meanwhile")
        return event

    return build
