"""The room service with two writers on one database (as two processes
on PostgreSQL are): an append that finds its seq taken folds the other
writer's events in and checks its command again; nothing is lost or
applied twice. In-process, on the service's own (synchronous) methods."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from koudian.rooms.config import RoomConfig, RoomError
from koudian.rooms.room import RoomState, token_hash
from koudian.rooms.service import LiveRoom, RoomService, _const, _unless_moved
from koudian.rooms.store import open_store

AGENTS = {"greedy": "greedy", "random": "random"}


def service(db: Path) -> RoomService:
    return RoomService(open_store(db), AGENTS)


def join(name: str) -> Any:
    def build(s: RoomState) -> tuple[str, dict[str, Any]]:
        free = s.first_free()
        if free is None:
            raise RoomError("full")
        return "join", {"seat": free, "name": name, "token_hash": token_hash(name), "bot": False}

    return build


def test_a_second_writer_is_folded_in_and_the_command_checked_again(tmp_path: Path) -> None:
    a, b = service(tmp_path / "r.db"), service(tmp_path / "r.db")
    config = RoomConfig.from_json({"hands": 1, "bots": [None, None, "greedy", "greedy"]})
    row = a._create_row(config)
    ra, rb = LiveRoom(row, a._fold(row)), LiveRoom(row, b._fold(row))
    assert ra.state.seq == rb.state.seq == 1  # the two bots' fill events
    b._propose(rb, join("Bo"))  # process B seats Bo at seat 0
    # Process A has not heard of it: its join at seq 2 finds the seq
    # taken, folds B's event in, and seats Ann at the next free seat.
    a._propose(ra, join("Ann"))
    assert [s.name for s in ra.state.seats[:2]] == ["Bo", "Ann"]
    b._sync(rb)
    assert [s.name for s in rb.state.seats[:2]] == ["Bo", "Ann"]
    for svc, room in ((a, ra), (b, rb)):
        for seat in (0, 1):
            try:
                svc._propose(room, _const(("ready", {"seat": seat})))
            except RoomError:
                svc._sync(room)  # already ready: the other wrote it first
    a._sync(ra)
    a._drive(ra)  # the start is due
    b._sync(rb)
    assert ra.state.status == rb.state.status == "playing"
    # Both see the same decision; a bot's decision made for it by A is
    # refused once B has answered it.
    seat = ra.state.to_act
    assert seat is not None and ra.state.game is not None
    asked = ra.state.decision_seq
    legal = ra.state.game.legal_actions(seat)
    body = {"hand": 0, "seat": seat, "index": legal[0].index, "by": "person"}
    b._propose(rb, _const(("act", body)))
    with pytest.raises(RoomError, match="taken meanwhile"):
        a._propose(ra, _unless_moved(asked, ("act", {**body, "by": "auto"})))
    assert ra.state.seq == rb.state.seq  # A folded B's act in, once
    events = a.store.events(row.id)
    assert [e.seq for e in events] == list(range(len(events)))
    assert sum(e.kind == "act" for e in events) == 1
    for s in (a, b):
        s.store.close()


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def settle(svc: RoomService, room: LiveRoom) -> None:
    """Lets the room do by itself all it would (the bots' moves, the
    events due), one drive step at a time, as the running service does."""
    for _ in range(10_000):
        before = room.state.seq
        svc._drive(room)
        if room.state.seq == before:
            return
    raise AssertionError("the room never settles")


def seated_room(tmp_path: Path, **config: Any) -> tuple[RoomService, LiveRoom, Clock]:
    clock = Clock()
    svc = RoomService(open_store(tmp_path / "r.db"), AGENTS, clock=clock, bot_pace=0)
    cfg = RoomConfig.from_json({"hands": 1, "bots": [None, None, "greedy", "greedy"], **config})
    row = svc._create_row(cfg)
    room = LiveRoom(row, svc._fold(row))
    room.loaded_at = clock.now
    svc._propose(room, join("Ann"))
    svc._propose(room, join("Bo"))
    return svc, room, clock


def test_an_unanswered_vote_dismisses_the_room_after_120_s(tmp_path: Path) -> None:
    svc, room, clock = seated_room(tmp_path)
    svc._propose(room, _const(("vote", {"seat": 0, "dismiss": True})))
    clock.now += 119
    svc._tick(room)
    assert room.state.status == "waiting" and room.deadline == room.state.vote_at + 120
    clock.now += 2
    svc._tick(room)  # Bo said nothing: a yes
    assert room.state.status == "closed" and room.state.close_why == "dismissed"
    row = svc.store.room(room.row.id)
    assert row is not None and row.status == "closed"


def test_the_decision_timer_hands_the_seat_to_a_bot(tmp_path: Path) -> None:
    svc, room, clock = seated_room(tmp_path, timer=12)
    for seat in (0, 1):
        svc._propose(room, _const(("ready", {"seat": seat})))
    svc._drive(room)
    st = room.state
    assert st.status == "playing" and st.to_act == 0  # Ann deals
    assert room.deadline == st.decision_at + 12
    clock.now += 11.9
    svc._tick(room)
    assert st.seats[0].away is None and st.to_act == 0
    clock.now += 0.2
    before = st.seq
    svc._tick(room)
    assert st.seats[0].away == "timeout"
    events = svc.store.events(room.row.id, before)
    assert events[0].kind == "away" and '"by":"auto"' in events[1].body
    # The room plays on with Ann away (Bo is still there) until Bo is asked.
    settle(svc, room)
    assert st.to_act == 1 or st.status != "playing"


def test_a_room_cut_off_before_its_bots_sat_gets_them_on_resume(tmp_path: Path) -> None:
    svc = RoomService(open_store(tmp_path / "r.db"), AGENTS)
    cfg = RoomConfig.from_json({"hands": 1, "bots": [None, "greedy", None, "random"]})
    row = svc._create_row(cfg)
    # As if the process died between the room's row and its events:
    svc.store.close()
    import sqlite3

    conn = sqlite3.connect(tmp_path / "r.db")
    conn.execute("DELETE FROM events")
    conn.commit()
    conn.close()
    svc = RoomService(open_store(tmp_path / "r.db"), AGENTS)
    room = LiveRoom(row, svc._fold(row))
    assert room.state.seq == -1
    svc._resume(room)
    assert [s.kind for s in room.state.seats] == ["free", "bot", "free", "bot"]


def test_a_connections_outbox_is_bounded_and_keeps_the_newest_table() -> None:
    import asyncio

    from koudian.rooms.service import MAX_OUTBOX, Conn

    async def run() -> None:
        conn = Conn(asyncio.get_running_loop(), "127.0.0.1")
        conn.send({"type": "room", "n": 0})
        for n in range(1000):  # a whole hand played while the client reads nothing
            conn.send({"type": "table", "n": n})
        conn.send({"type": "act", "id": 5})
        await asyncio.sleep(0)
        got = [await conn.next() for _ in range(3)]
        assert got == [
            '{"type": "room", "n": 0}',
            '{"type": "table", "n": 999}',
            '{"type": "act", "id": 5}',
        ]
        for n in range(MAX_OUTBOX + 10):
            conn.send({"type": "room", "n": n})
        await asyncio.sleep(0)
        texts = [await conn.next() for _ in range(MAX_OUTBOX + 1)]
        assert texts[-1] is None and conn.dropped  # then closed: nothing more is kept
        conn.send({"type": "room"})
        await asyncio.sleep(0)
        assert not conn._box

    asyncio.run(run())


def test_between_hands_an_away_person_is_waited_for(tmp_path: Path) -> None:
    svc, room, clock = seated_room(tmp_path, hands=2)
    for seat in (0, 1):
        svc._propose(room, _const(("ready", {"seat": seat})))
    settle(svc, room)
    st = room.state
    svc._propose(room, _const(("away", {"seat": 0, "why": "timeout"})))  # Ann's timer ran out
    for _ in range(1000):  # Bo plays the hand through
        settle(svc, room)
        if st.status != "playing":
            break
        assert st.to_act == 1 and st.game is not None
        index = st.game.legal_actions(1)[0].index
        svc._propose(room, _const(("act", {"hand": 0, "seat": 1, "index": index, "by": "person"})))
    assert st.status == "between"
    svc._propose(room, _const(("ready", {"seat": 1})))
    settle(svc, room)
    # Ann, away, is given the time between hands to come back: the next
    # hand is not dealt at once because Bo is ready.
    assert st.status == "between" and len(st.hands) == 1
    clock.now += svc.limits.between
    svc._tick(room)
    assert st.status == "playing" and st.seats[0].away == "timeout"


def _served(tmp_path: Path, body: Any) -> Any:
    """Runs ``body(service)`` on a started service (its own event loop),
    then stops it; the loop's unhandled errors, which must be none."""
    import asyncio

    async def run() -> list[dict[str, Any]]:
        errors: list[dict[str, Any]] = []
        asyncio.get_running_loop().set_exception_handler(lambda _, ctx: errors.append(ctx))
        svc = RoomService(open_store(tmp_path / "r.db"), AGENTS, bot_pace=0)
        await svc.start()
        try:
            await body(svc)
        finally:
            await svc.stop()
            svc.store.close()
        await asyncio.sleep(0.2)
        return errors

    return asyncio.run(asyncio.wait_for(run(), 120))


def test_a_message_is_handled_between_the_bots_moves(tmp_path: Path) -> None:
    """A person whose seat a bot plays (托管) takes it back at once: the
    room's worker takes one step of the bots, then the waiting message."""
    import asyncio
    import threading

    from koudian.rooms.service import Conn

    async def body(svc: RoomService) -> None:
        config = {"hands": 2, "bots": [None, "greedy", "greedy", "greedy"], "autostart": True}
        code = await svc.create(config, "127.0.0.1")
        room = await svc.room(code)
        assert room is not None
        conn = Conn(asyncio.get_running_loop(), "127.0.0.1")
        assert await svc.run(room, svc.hello, room, conn, {"type": "hello", "name": "Ann"})
        for _ in range(100):  # the start, dealt; Ann deals, so she is asked first
            await svc.run(room, lambda: None)
        assert room.state.to_act == 0 and room.state.status == "playing"
        away = await svc.run(
            room, svc._propose, room, _const(("away", {"seat": 0, "why": "timeout"}))
        )
        gate = threading.Event()
        held = asyncio.ensure_future(svc.run(room, gate.wait, 30))
        drive = asyncio.ensure_future(svc.run(room, svc._drive, room))
        back = asyncio.ensure_future(svc.run(room, svc.message, room, conn, {"type": "back"}))
        await asyncio.sleep(0.1)  # both queued behind the gate, the drive first
        gate.set()
        await asyncio.gather(held, drive, back)
        kinds = [e.kind for e in svc.store.events(room.row.id, away)]
        assert kinds[:2] == ["act", "back"], kinds  # one bot move, then Ann is back
        assert room.state.status == "playing" and room.state.seats[0].away is None

    assert not _served(tmp_path, body)


def test_news_of_another_writer_after_stop_is_ignored(tmp_path: Path) -> None:
    import asyncio

    async def body(svc: RoomService) -> None:
        code = await svc.create({"hands": 1}, "127.0.0.1")
        room = await svc.room(code)
        assert room is not None
        await svc.stop()
        svc._heard(room.row.id, 99)  # a notification the listener had in hand
        await asyncio.sleep(0.1)

    assert not _served(tmp_path, body)


def test_the_seats_views_are_made_once_per_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However many connections a room has, one event's tables are made
    from one set of the four seats' observations."""
    import asyncio

    import koudian.rooms.service as service_module
    import koudian.web.snapshot as snapshot
    from koudian.rooms.service import Conn

    calls = [0]
    made = snapshot.observations

    def counted(game: Any) -> Any:
        calls[0] += 1
        return made(game)

    monkeypatch.setattr(snapshot, "observations", counted)
    monkeypatch.setattr(service_module, "observations", counted, raising=False)

    async def body(svc: RoomService) -> None:
        config = {"hands": 1, "bots": [None, "greedy", "greedy", "greedy"], "autostart": True}
        code = await svc.create(config, "127.0.0.1")
        room = await svc.room(code)
        assert room is not None
        loop = asyncio.get_running_loop()
        ann = Conn(loop, "127.0.0.1")
        assert await svc.run(room, svc.hello, room, ann, {"type": "hello", "name": "Ann"})
        token = json.loads(ann._box[0][1] or "{}")["token"]
        for hello in ({"token": token}, {"watch": True}, {"watch": True}):
            conn = Conn(loop, "127.0.0.1")
            assert await svc.run(room, svc.hello, room, conn, {"type": "hello", **hello})
        for _ in range(100):
            await svc.run(room, lambda: None)
        assert room.state.to_act == 0
        calls[0] = 0
        before = await svc.run(
            room, svc._propose, room, _const(("away", {"seat": 0, "why": "timeout"}))
        )
        await svc.run(room, svc._drive, room)
        for _ in range(2000):
            if room.state.status != "playing":
                break
            await asyncio.sleep(0.01)
        events = svc.store.events(room.row.id, before - 1)
        hand = [e for e in events if e.kind in ("away", "act")]
        # One set per event told (the hand's last act: one for its end table).
        assert calls[0] == len(hand), (calls[0], len(hand))

    assert not _served(tmp_path, body)
