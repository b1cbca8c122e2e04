"""Rooms' security on a real ``koudian serve --db`` process: nobody acts
for another seat, takes a taken seat, sees another seat's tiles (as a
player or a watcher, in any message of a whole match, checked against
the hands' logs), replays a stale action or guesses a token; every
message is validated (and fuzzed); frames, messages, connections and
rooms per client are bounded."""

from __future__ import annotations

import asyncio
import json
import secrets
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from koudian._core import replay_steps
from koudian.rooms.protocol import MAX_MESSAGE, ProtocolError, parse
from koudian.rooms.room import hand_seed
from room_support import BOTS, Player, ServerProcess, create, http

websockets = pytest.importorskip("websockets")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("rooms") / "rooms.db"
    s = ServerProcess(str(db), "--client-rooms", "100", "--message-rate", "1000")
    try:
        yield s
    finally:
        s.stop()
        assert not s.tracebacks(), s.tracebacks()


class Client:
    """A raw connection: sends, and reads messages until one matches."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.seen: list[dict[str, Any]] = []

    @classmethod
    async def open(cls, server: ServerProcess, code: str, hello: dict[str, Any]) -> Client:
        ws = await websockets.connect(f"{server.ws}/ws/room/{code}", origin=server.base)
        c = cls(ws)
        await c.send(hello)
        return c

    async def send(self, msg: Any) -> None:
        await self.ws.send(msg if isinstance(msg, str) else json.dumps(msg))

    async def wait(self, pred: Any, timeout: float = 20.0) -> dict[str, Any]:
        async def go() -> dict[str, Any]:
            while True:
                m = json.loads(await self.ws.recv())
                self.seen.append(m)
                if pred(m):
                    return m

        return await asyncio.wait_for(go(), timeout)

    async def close(self) -> None:
        await self.ws.close()


def is_type(kind: str) -> Any:
    return lambda m: m["type"] == kind


async def two_seated(server: ServerProcess, **config: Any) -> tuple[str, Client, Client]:
    """A room with Ann (seat 0), Bo (seat 1) and two bots, started."""
    code = create(server.base, bots=[None, None, "greedy", "greedy"], **config)
    ann = await Client.open(server, code, {"type": "hello", "name": "Ann"})
    await ann.wait(is_type("welcome"))
    bo = await Client.open(server, code, {"type": "hello", "name": "Bo"})
    await bo.wait(is_type("welcome"))
    await ann.send({"type": "ready"})
    await bo.send({"type": "ready"})
    return code, ann, bo


def test_nobody_acts_for_another_seat_or_replays_a_stale_action(server: ServerProcess) -> None:
    async def run() -> None:
        code, ann, bo = await two_seated(server, hands=1)
        ask = await ann.wait(is_type("act"))  # the dealer (seat 0) discards first
        index = ask["legal_actions"][0]["index"]
        # Bo answers Ann's decision: refused, nothing changed.
        await bo.send({"type": "act", "id": ask["id"], "index": index})
        err = await bo.wait(is_type("error"))
        assert "not your turn" in err["error"] and err["id"] == ask["id"]
        # A wrong id is refused too.
        await ann.send({"type": "act", "id": ask["id"] + 1000, "index": index})
        err = await ann.wait(is_type("error"))
        assert "open decision" in err["error"]
        await ann.send({"type": "act", "id": ask["id"], "index": index})
        await ann.wait(lambda m: m["type"] == "done" and m["id"] == ask["id"])
        # The same action sent again (a replay): refused.
        await ann.send({"type": "act", "id": ask["id"], "index": index})
        err = await ann.wait(is_type("error"))
        assert err["id"] == ask["id"]
        # A watcher acts for nobody.
        w = await Client.open(server, code, {"type": "hello", "watch": True})
        await w.wait(is_type("welcome"))
        for msg in (
            {"type": "ready"},
            {"type": "act", "id": 1, "index": 0},
            {"type": "vote", "dismiss": True},
        ):
            await w.send(msg)
            assert "watcher" in (await w.wait(is_type("error")))["error"]
        for c in (ann, bo, w):
            await c.close()

    asyncio.run(run())


def test_a_taken_seat_cannot_be_taken_nor_a_token_guessed(server: ServerProcess) -> None:
    async def run() -> None:
        code, ann, bo = await two_seated(server, hands=1)
        eve = await Client.open(server, code, {"type": "hello", "name": "Eve"})
        assert "no free seat" in (await eve.wait(is_type("error")))["error"]
        with pytest.raises(websockets.ConnectionClosed):
            await eve.wait(lambda m: False)
        for _ in range(20):
            guess = secrets.token_urlsafe(24)
            g = await Client.open(server, code, {"type": "hello", "token": guess})
            assert "token" in (await g.wait(is_type("error")))["error"]
            with pytest.raises(websockets.ConnectionClosed):
                await g.wait(lambda m: False)
        for c in (ann, bo):
            await c.close()

    asyncio.run(run())


def test_tokens_are_long_random_and_never_stored(server: ServerProcess) -> None:
    async def run() -> list[str]:
        _, ann, bo = await two_seated(server, hands=1)
        tokens = [(c.seen[0])["token"] for c in (ann, bo)]
        for c in (ann, bo):
            await c.close()
        return tokens

    tokens = asyncio.run(run())
    assert len(set(tokens)) == 2 and all(len(t) == 32 for t in tokens)  # 192 random bits
    raw = b"".join(p.read_bytes() for p in Path(server.db).parent.iterdir() if p.is_file())
    for t in tokens:
        assert t.encode() not in raw


def _hands_of_logs(logs: list[str]) -> dict[int, set[str]]:
    """Every concealed hand each seat held at any point of these hands."""
    held: dict[int, set[str]] = {s: set() for s in range(4)}
    for log in logs:
        for game in replay_steps(log):
            for s in range(4):
                held[s].add(game.observe(s).to_json()["hand"])
    return held


def _check_table(table: dict[str, Any], me: int | None) -> None:
    for s, seat in enumerate(table["seats"]):
        if s == me:
            continue
        assert seat["hand"] is None and seat["drawn"] is None, (s, me)
        for m in seat["melds"]:
            assert not m["hidden"] or m["tile"] is None
        pond = seat["pond"]
        i = pond.find("~")
        while i >= 0:
            assert pond[i + 1] == "?", (s, me, pond)
            i = pond.find("~", i + 1)
    if me is None:
        assert "legal" not in table


def test_no_message_of_a_whole_match_shows_another_seats_tiles(server: ServerProcess) -> None:
    code = create(server.base, hands=2, bots=[None, "greedy", None, "greedy"])
    ann, bo = Player(code, "Ann"), Player(code, "Bo")
    watcher = Player(code, None, watch=True)

    async def run() -> None:
        w = asyncio.create_task(watcher.play(server.ws))
        await asyncio.wait_for(asyncio.gather(ann.play(server.ws), bo.play(server.ws)), 120)
        await asyncio.wait_for(w, 30)

    asyncio.run(run())
    assert watcher.closed and len(watcher.ends) == 2
    conn = sqlite3.connect(server.db)
    secret, room_id = conn.execute(
        "SELECT secret, id FROM rooms WHERE code = ?", (code,)
    ).fetchone()
    conn.close()
    logs = [http(server.base, ann.ends[n]["replay"] + "/log")[1] for n in range(2)]
    held = _hands_of_logs(logs)
    tokens = {ann.token, bo.token}
    for p, me in ((ann, ann.seat), (bo, bo.seat), (watcher, None)):
        finished = 0
        for msg in p.messages:
            text = json.dumps(msg)
            # No secret, no other's token, no seed of a hand not over.
            assert bytes(secret).hex() not in text and room_id not in text
            for t in tokens - {p.token}:
                assert str(t) not in text
            if msg["type"] == "welcome" and "token" in msg:
                assert msg["token"] == p.token
            if msg["type"] == "end":
                finished = max(finished, msg["hand"] + 1)
                continue  # the hand is over: its log is public
            for n in range(finished, 2):
                assert str(hand_seed(bytes(secret), n)) not in text
            if msg["type"] in ("act", "table"):
                _check_table(msg["table"], me)
                if me is not None:
                    assert msg["table"]["seats"][me]["hand"] in held[me]
            if msg["type"] == "act":
                assert me is not None and msg["observation"]["seat"] == me
                assert msg["observation"]["hand"] in held[me]


KEY_NAMES = [
    "type",
    "id",
    "index",
    "action",
    "tile",
    "token",
    "name",
    "watch",
    "seat",
    "agent",
    "dismiss",
    "bot",
    "x",
]
TYPES = ["hello", "act", "ready", "vote", "fill", "start", "state", "hint", "back", "leave", "new"]

FRAMES = st.one_of(
    st.text(max_size=300),
    st.sampled_from(["[" * 3000, "\u0000" * 100, "null", '"text"', "{}", "1e999"]),
    st.dictionaries(
        st.sampled_from(KEY_NAMES),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(),
            st.floats(),
            st.text(max_size=30),
            st.sampled_from(TYPES),
            st.lists(st.integers(), max_size=3),
            st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
        ),
        max_size=6,
    ).map(json.dumps),
    st.builds(
        lambda t, rest: json.dumps({"type": t, **rest}),
        st.sampled_from(TYPES),
        st.dictionaries(
            st.sampled_from(KEY_NAMES[1:]),
            st.one_of(st.none(), st.booleans(), st.integers(-5, 300), st.text(max_size=8)),
            max_size=3,
        ),
    ),
)


@settings(max_examples=300, deadline=None)
@given(FRAMES)
def test_every_message_is_validated(text: str) -> None:
    """A message is either one of the protocol's, exactly, or refused with
    ``ProtocolError``: never another exception."""
    try:
        msg = parse(text)
    except ProtocolError:
        return
    assert isinstance(msg, dict) and isinstance(msg["type"], str)


@pytest.fixture(scope="module")
def seated(server: ServerProcess) -> Iterator[Any]:
    """Ann's connection (seat 0, her decision open) to a started room, as a
    blocking client, and Bo's (kept open, silent)."""
    from websockets.sync.client import connect

    code = create(server.base, hands=1, bots=[None, None, "greedy", "greedy"])
    with ExitStack() as stack:
        conns = []
        for name in ("Ann", "Bo"):
            url = f"{server.ws}/ws/room/{code}"
            ws = stack.enter_context(connect(url, origin=server.base, proxy=None))
            ws.send(json.dumps({"type": "hello", "name": name}))
            ws.send(json.dumps({"type": "ready"}))
            conns.append(ws)
        ann = conns[0]
        while json.loads(ann.recv(timeout=20))["type"] != "act":
            pass
        yield ann


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(frame=FRAMES)
def test_fuzzed_frames_on_a_live_room_are_answered_and_change_nothing_else(
    seated: Any, frame: str
) -> None:
    """Any frame to a seated connection is answered (an error for a bad
    one); the connection stays and still answers ``state``; the server
    logs no traceback (checked when the module's server stops)."""
    seated.send(frame)
    seated.send(json.dumps({"type": "state"}))
    while True:
        m = json.loads(seated.recv(timeout=20))
        if m["type"] == "room":
            break


def test_frames_messages_connections_and_rooms_are_bounded(tmp_path: Path) -> None:
    bot = f"first={sys.executable} {BOTS / 'first_legal_bot.py'}"
    s = ServerProcess(
        str(tmp_path / "r.db"),
        *("--client-rooms", "2", "--client-connections", "3", "--client-bots", "2"),
        *("--bot", bot),
    )
    try:
        status, out = http(s.base, "/api/rooms", {"bots": [None, "first", "first", "first"]})
        assert status == 400 and "program bots" in out["error"]
        code = create(s.base, hands=1)
        assert create(s.base, hands=1)
        status, out = http(s.base, "/api/rooms", {"hands": 1})
        assert status == 400 and "open rooms" in out["error"]
        status, _ = http(s.base, "/api/rooms", {"hands": 1, "pad": "x" * 10_000})
        assert status == 413

        async def run() -> None:
            a = await Client.open(s, code, {"type": "hello", "name": "Ann"})
            await a.wait(is_type("welcome"))
            await a.send("x" * (MAX_MESSAGE + 1))
            assert "longer" in (await a.wait(is_type("error")))["error"]
            await a.send("x" * 100_000)  # a frame over the server's bound closes the connection
            with pytest.raises(websockets.ConnectionClosed) as e:
                await a.wait(lambda m: False)
            assert e.value.rcvd is not None and e.value.rcvd.code == 1009
            held = [await Client.open(s, code, {"type": "hello", "watch": True}) for _ in range(3)]
            for h in held:
                await h.wait(is_type("welcome"))
            with pytest.raises(websockets.InvalidStatus):  # refused before it is accepted
                await websockets.connect(f"{s.ws}/ws/room/{code}", origin=s.base)
            await held.pop().close()
            for _ in range(100):  # a connection closed is given back (once the server saw it)
                try:
                    again = await Client.open(s, code, {"type": "hello", "watch": True})
                    break
                except websockets.InvalidStatus:
                    await asyncio.sleep(0.05)
            await again.wait(is_type("welcome"))
            held.append(again)
            for h in held:
                await h.close()

        asyncio.run(run())
    finally:
        s.stop()
    assert not s.tracebacks(), s.tracebacks()


def test_a_seat_given_up_is_no_longer_seen_through_its_old_connection(
    server: ServerProcess,
) -> None:
    async def run() -> None:
        code = create(server.base, hands=1, bots=[None, "greedy", "greedy", "greedy"])
        ann = await Client.open(server, code, {"type": "hello", "name": "Ann"})
        await ann.wait(is_type("welcome"))
        await ann.send({"type": "leave"})
        await ann.wait(lambda m: m["type"] == "room" and m["seats"][0]["kind"] == "free")
        eve = await Client.open(server, code, {"type": "hello", "name": "Eve"})
        assert (await eve.wait(is_type("welcome")))["seat"] == 0
        await eve.send({"type": "ready"})
        await eve.wait(is_type("act"))
        await ann.send({"type": "state"})
        table = await ann.wait(lambda m: m["type"] in ("table", "act"))
        assert table["type"] == "table" and table["table"]["seats"][0]["hand"] is None
        for m in ann.seen:
            if m["type"] == "room":
                assert m["you"] in (0, None)
            assert m["type"] != "act"
        for c in (ann, eve):
            await c.close()

    asyncio.run(run())
