"""Rooms on a real ``koudian serve --db`` process: people and bots play a
match together, a dropped seat is played for its person (托管) and given
back with its whole state, the decision timer, the dismissal vote, the
room's record and replay links, and bad requests refused."""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import koudian
import pytest
from room_support import BOTS, Player, ServerProcess, create, http

pytest.importorskip("websockets")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("rooms") / "rooms.db"
    bot = f"first={sys.executable} {BOTS / 'first_legal_bot.py'}"
    s = ServerProcess(str(db), "--between", "2", "--client-rooms", "50", "--bot", bot)
    try:
        yield s
    finally:
        s.stop()
        assert not s.tracebacks(), s.tracebacks()


async def until(pred: Any, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not pred():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


def test_people_and_bots_play_a_match_and_every_hand_replays(server: ServerProcess) -> None:
    code = create(server.base, hands=2, bots=[None, "greedy", None, "random"])
    ann, bo = Player(code, "Ann"), Player(code, "Bo")

    async def run() -> None:
        await asyncio.wait_for(asyncio.gather(ann.play(server.ws), bo.play(server.ws)), 120)

    asyncio.run(run())
    assert ann.closed and bo.closed and (ann.seat, bo.seat) == (0, 2)
    assert len(ann.ends) == len(bo.ends) == 2
    status, record = http(server.base, f"/api/rooms/{code}")
    assert status == 200 and record["status"] == "closed" and record["closed"] == "finished"
    assert [s["name"] for s in record["seats"]] == ["Ann", "greedy", "Bo", "random"]
    totals = [0, 0, 0, 0]
    for n, end in ann.ends.items():
        assert end == bo.ends[n]
        status, log = http(server.base, end["replay"] + "/log")
        assert status == 200
        game = koudian.replay(log)
        assert game.result is not None and list(game.result.deltas) == end["result"]["deltas"]
        totals = [t + d for t, d in zip(totals, end["result"]["deltas"], strict=True)]
    assert record["match"]["totals"] == totals
    assert http(server.base, f"/r/{code}")[0] == 200
    assert http(server.base, f"/r/{code}/history")[0] == 200
    assert http(server.base, ann.ends[0]["replay"])[0] == 200
    # Each table, decision and end names the event it reflects ("seq"), in order.
    from koudian.rooms.store import open_store

    store = open_store(server.db)
    row = store.room_by_code(code)
    assert row is not None
    events = store.events(row.id)
    store.close()
    for p in (ann, bo):
        told = [m for m in p.messages if m["type"] in ("table", "act", "end")]
        seqs = [m["seq"] for m in told]
        assert told and seqs == sorted(seqs) and all(isinstance(q, int) for q in seqs)
        for m in told:
            if m["type"] == "act":
                assert m["seq"] >= m["id"]
            elif m["type"] == "end":  # the last act up to its seq ended its hand
                last = [e for e in events[: m["seq"] + 1] if e.kind == "act"][-1]
                assert json.loads(last.body)["hand"] == m["hand"]


def test_an_operators_program_bot_plays_a_seat(server: ServerProcess) -> None:
    code = create(server.base, hands=1, bots=[None, "first", "greedy", "first"], autostart=True)
    ann = Player(code, "Ann")
    asyncio.run(asyncio.wait_for(ann.play(server.ws), 120))
    assert ann.closed and len(ann.ends) == 1
    log = http(server.base, ann.ends[0]["replay"] + "/log")[1]
    game = koudian.replay(log)
    assert game.done
    record = http(server.base, f"/api/rooms/{code}")[1]
    assert [s["name"] for s in record["seats"]] == ["Ann", "first", "greedy", "first"]


def test_a_dropped_seat_is_played_for_its_person_and_given_back(server: ServerProcess) -> None:
    code = create(server.base, hands=1, bots=[None, "greedy", "greedy", None])
    ann, bo = Player(code, "Ann"), Player(code, "Bo")

    async def run() -> None:
        a = asyncio.create_task(ann.play(server.ws))
        b = asyncio.create_task(bo.play(server.ws))
        await until(lambda: len(bo.acked) >= 2)
        b.cancel()  # Bo's page is closed mid-hand
        seat = bo.seat
        assert seat is not None

        def bo_away() -> bool:
            rooms = [m for m in ann.messages if m["type"] == "room"]
            return bool(rooms) and rooms[-1]["seats"][seat]["away"]

        await until(bo_away)
        before = len(ann.acked)
        await until(lambda: len(ann.acked) >= before + 2 or ann.closed)  # the hand goes on
        again = Player(code, None)
        again.token = bo.token
        b2 = asyncio.create_task(again.play(server.ws))
        await until(lambda: len(again.messages) >= 3)
        welcome, room, table = again.messages[:3]
        assert welcome == {"type": "welcome", "room": code, "seat": seat}  # no token again
        assert room["type"] == "room" and room["you"] == seat
        assert table["type"] in ("act", "table", "end")
        assert table["table"]["seats"][seat]["hand"] is not None  # its own hand, whole
        await until(
            lambda: any(
                m["type"] == "room" and not m["seats"][seat]["away"] for m in again.messages[1:]
            )
        )
        await asyncio.wait_for(asyncio.gather(a, b2), 120)

    asyncio.run(run())
    assert ann.closed


def test_a_silent_seat_is_played_when_its_timer_runs_out(server: ServerProcess) -> None:
    code = create(
        server.base, hands=1, timer=1, bots=[None, "greedy", "greedy", "greedy"], autostart=True
    )
    ann = Player(code, "Ann")

    async def run() -> None:
        await asyncio.wait_for(ann.play(server.ws, answer=False), 120)

    asyncio.run(run())
    asks = [m for m in ann.messages if m["type"] == "act"]
    assert asks and 0 < asks[0]["deadline_ms"] <= 1000
    rooms = [m for m in ann.messages if m["type"] == "room"]
    assert any(r["seats"][0]["away"] for r in rooms)  # 托管, and the page is told
    assert ann.closed and len(ann.ends) == 1


def test_a_room_is_dismissed_by_its_peoples_vote(server: ServerProcess) -> None:
    code = create(server.base, hands=4, bots=[None, "greedy", "greedy", None])

    async def run() -> list[dict[str, Any]]:
        import json

        import websockets

        async def connect(name: str) -> Any:
            ws = await websockets.connect(f"{server.ws}/ws/room/{code}", origin=server.base)
            await ws.send(json.dumps({"type": "hello", "name": name}))
            return ws

        a, b = await connect("Ann"), await connect("Bo")
        await a.send(json.dumps({"type": "vote", "dismiss": True}))
        await b.send(json.dumps({"type": "vote", "dismiss": True}))
        seen: list[dict[str, Any]] = []
        async for raw in a:
            seen.append(json.loads(raw))
            if seen[-1]["type"] == "room" and seen[-1]["status"] == "closed":
                break
        await a.close()
        await b.close()
        return seen

    seen = asyncio.run(asyncio.wait_for(run(), 60))
    assert seen[-1]["closed"] == "dismissed"
    assert http(server.base, f"/api/rooms/{code}")[1]["status"] == "closed"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"hands": 0}, "hands"),
        ({"preset": "riichi"}, "preset"),
        ({"bots": ["greedy"] * 4}, "person"),
        ({"bots": [None, "cmd:rm -rf /", None, None]}, "not offered"),
        ({"options": {"nope": 1}}, "options"),
        ({"timer": 10**9}, "timer"),
        ([], "object"),
        ({"hands": 2, "x": 1}, "unknown"),
    ],
)
def test_bad_rooms_are_refused(server: ServerProcess, body: Any, error: str) -> None:
    status, out = http(server.base, "/api/rooms", body)
    assert status == 400 and error in out["error"]


def test_unknown_rooms(server: ServerProcess) -> None:
    assert http(server.base, "/api/rooms/ZZZZZZ")[0] == 404
    assert http(server.base, "/r/ZZZZZZ")[0] == 404
    assert http(server.base, "/r/not-a-code")[0] == 404
    assert http(server.base, "/replay/" + "A" * 22)[0] == 404


def test_serve_refuses_a_bad_database(tmp_path: Path) -> None:
    (tmp_path / "junk.db").write_bytes(b"junk" * 1000)
    with pytest.raises(RuntimeError, match=r"junk\.db"):
        ServerProcess(str(tmp_path / "junk.db"))


def test_an_empty_room_waits_for_its_people_and_an_idle_one_closes(tmp_path: Path) -> None:
    s = ServerProcess(str(tmp_path / "r.db"), "--room-idle", "3")
    try:
        empty = create(s.base, hands=1)  # no event yet: idle from its creation
        created = time.monotonic()
        time.sleep(1.0)
        record = http(s.base, f"/api/rooms/{empty}")[1]
        assert record["status"] == "waiting" or time.monotonic() - created > 3
        for _ in range(150):  # closed about 3 s after its creation
            record = http(s.base, f"/api/rooms/{empty}")[1]
            if record["status"] == "closed":
                break
            time.sleep(0.1)
        assert record["status"] == "closed" and record["closed"] == "idle"
        assert time.monotonic() - created >= 2.5
    finally:
        s.stop()
    assert not s.tracebacks(), s.tracebacks()


def test_the_docs_remote_bot_plays_a_seat(server: ServerProcess, tmp_path: Path) -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "rooms.md").read_text(encoding="utf-8")
    section = doc.split("### A remote bot in a room")[1]
    code_block = section.split("```python\n")[1].split("```")[0]
    bot = tmp_path / "room_bot.py"
    bot.write_text(code_block, encoding="utf-8")
    code = create(server.base, hands=1, bots=[None, "greedy", "greedy", "greedy"], autostart=True)
    out = subprocess.run(
        [sys.executable, str(bot), f"{server.ws}/ws/room/{code}"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    totals = json.loads(out.stdout)
    assert totals == http(server.base, f"/api/rooms/{code}")[1]["match"]["totals"]
    assert http(server.base, f"/api/rooms/{code}")[1]["seats"][0]["bot"] is True


def test_a_restart_does_not_eat_a_persons_decision_time(tmp_path: Path) -> None:
    s = ServerProcess(str(tmp_path / "r.db"))
    try:
        code = create(
            s.base, hands=1, timer=4, bots=[None, "greedy", "greedy", "greedy"], autostart=True
        )
        ann = Player(code, "Ann")

        async def first() -> None:
            task = asyncio.create_task(ann.play(s.ws, answer=False))
            await until(lambda: any(m["type"] == "act" for m in ann.messages))
            task.cancel()

        asyncio.run(first())
        s.kill()
        time.sleep(4.5)  # longer than the timer, with the server down
        s.restart()
        again = Player(code, None)
        again.token = ann.token

        async def second() -> None:
            task = asyncio.create_task(again.play(s.ws, answer=False))
            await until(lambda: any(m["type"] == "act" for m in again.messages))
            task.cancel()

        asyncio.run(second())
        ask = next(m for m in again.messages if m["type"] == "act")
        assert ask["deadline_ms"] >= 2500  # counted from the return, not from the first asking
    finally:
        s.stop()
    assert not s.tracebacks(), s.tracebacks()


def test_serve_without_a_database_serves_no_rooms() -> None:
    s = ServerProcess("")
    try:
        assert http(s.base, "/api/info")[1]["rooms"] is False
        assert http(s.base, "/api/rooms", {"hands": 1})[0] in (404, 405)
    finally:
        s.stop()


def test_the_pages_are_the_rooms_pages(server: ServerProcess) -> None:
    from koudian.web.room_pages import home_page, room_page

    code = create(server.base, hands=1)
    assert http(server.base, "/") == (200, home_page())  # create a room, or play alone
    assert http(server.base, f"/r/{code}") == (200, room_page())
    assert http(server.base, f"/r/{code.lower()}/history") == (200, room_page())
    status, play = http(server.base, "/play")  # the one-person table of before stays
    assert status == 200 and play != home_page() and "<html" in play.lower()


def test_without_rooms_the_home_page_is_the_play_page() -> None:
    s = ServerProcess("")
    try:
        status, page = http(s.base, "/")
        assert status == 200 and page == http(s.base, "/play")[1]
        assert "/api/rooms" not in page
    finally:
        s.stop()


def test_a_killed_server_can_be_stopped_too(tmp_path: Path) -> None:
    s = ServerProcess(str(tmp_path / "r.db"))
    s.kill()
    s.stop()  # nothing to stop, nothing raised (a test's finally after a kill)
    assert not s.tracebacks()


def test_bots_are_paced_for_people_and_a_person_takes_their_seat_back_at_once(
    tmp_path: Path,
) -> None:
    from koudian.rooms.store import open_store

    pace = 0.25
    s = ServerProcess(str(tmp_path / "r.db"), "--bot-pace", str(pace), "--between", "1")
    try:
        code = create(
            s.base,
            hands=2,
            timer=2,
            bots=[None, "greedy", "greedy", "greedy"],
            autostart=True,
            options={"wall_reserve": [60, 8]},  # short hands
        )
        seen: list[dict[str, Any]] = []

        async def run() -> None:
            import websockets

            async with websockets.connect(f"{s.ws}/ws/room/{code}", origin=s.base) as ws:
                await ws.send(json.dumps({"type": "hello", "name": "Ann"}))
                silent, sent_back = True, False
                async for raw in ws:
                    msg = json.loads(raw)
                    seen.append(msg)
                    kind = msg["type"]
                    if kind == "room" and msg["status"] == "closed":
                        return
                    if kind == "room" and msg["seats"][0]["away"] and not sent_back:
                        # Ann let her first decision time out: she is back at once.
                        sent_back, silent = True, False
                        await ws.send(json.dumps({"type": "back"}))
                    elif kind == "act" and not silent:
                        index = msg["legal_actions"][0]["index"]
                        await ws.send(json.dumps({"type": "act", "id": msg["id"], "index": index}))
                    elif kind == "room" and msg["status"] == "between" and not silent:
                        if not msg["seats"][0]["ready"]:
                            await ws.send(json.dumps({"type": "ready"}))

        asyncio.run(asyncio.wait_for(run(), 120))
    finally:
        s.stop()
    assert not s.tracebacks(), s.tracebacks()
    assert not [m for m in seen if m["type"] == "error"]
    store = open_store(tmp_path / "r.db")
    events = store.events(store.room_by_code(code).id)  # type: ignore[union-attr]
    store.close()
    kinds = [e.kind for e in events]
    assert kinds.count("away") == 1 and kinds[-1] == "close"
    # The person was heard between two bot moves, long before the first
    # hand was over (the bots did not play the match out first).
    assert kinds.index("away") < kinds.index("back") < kinds.index("next")
    acts = kinds.index("back") - kinds.index("away") - 1
    assert acts <= 2, kinds
    # Every bot's move came at least ``pace`` after the event before it.
    for prev, ev in itertools.pairwise(events):
        if ev.kind == "act" and '"by":"person"' not in ev.body:
            assert ev.at - prev.at >= pace - 1e-3, (prev, ev)
