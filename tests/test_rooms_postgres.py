"""Rooms beyond one process: two ``koudian serve`` processes on one real
PostgreSQL serve the same room; its people, connected to different
processes, play together (each process hears the other's events through
LISTEN/NOTIFY); one process is SIGKILLed mid-hand, its people come back to
the other with their tokens, and the match finishes there."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("psycopg")
pytest.importorskip("websockets")

from koudian import replay
from room_support import Player, ServerProcess, create, http

MATCH_TIMEOUT = 180.0
HANDS = 2


def test_two_processes_serve_one_room_and_one_dies_mid_hand(postgres_url: str) -> None:
    a = ServerProcess(postgres_url)
    b = ServerProcess(postgres_url)
    try:
        asyncio.run(asyncio.wait_for(_play(a, b), MATCH_TIMEOUT))
    finally:
        for s in (a, b):
            if s.proc is not None and s.proc.poll() is None:  # b was killed
                s.stop()
    assert not a.tracebacks(), a.stderr


async def _play(a: ServerProcess, b: ServerProcess) -> None:
    code = await asyncio.to_thread(create, a.base, hands=HANDS)
    people = [Player(code, f"p{i}") for i in range(4)]
    # Seats 0 and 1 on process A, 2 and 3 on B: every hand's updates cross
    # between the processes both ways.
    tasks: list[asyncio.Task[str]] = []
    for i, p in enumerate(people):
        tasks.append(asyncio.create_task(p.play((a if i < 2 else b).ws)))
        await asyncio.wait_for(p.joined.wait(), 30)  # seats are taken in order of entering
        assert p.seat == i
    # Mid-hand: each of the four has had an action acknowledged (so updates
    # went both ways), and the first hand is not over.
    while not all(len(p.acked) >= 2 for p in people):
        assert not any(t.done() for t in tasks), [p.errors for p in people]
        await asyncio.sleep(0.005)
    await asyncio.to_thread(b.kill)
    assert not any(p.ends for p in people), "the first hand ended before the kill"
    # B's people lose their connection; A's play on.
    for i in (2, 3):
        assert await asyncio.wait_for(tasks[i], 30) == "lost"
    acked = [len(p.acked) for p in people]
    # They come back to A with their tokens (the same seats) and finish there.
    for i in (2, 3):
        tasks[i] = asyncio.create_task(people[i].play(a.ws))
    assert await asyncio.gather(*tasks) == ["closed"] * 4, [p.errors for p in people]
    assert [p.seat for p in people] == [0, 1, 2, 3]
    assert len(people[2].acked) > acked[2] and len(people[3].acked) > acked[3]
    # Every person saw every hand end, the one B died in included, alike.
    for p in people:
        assert sorted(p.ends) == list(range(HANDS))
        assert [p.ends[h]["result"] for h in range(HANDS)] == [
            people[0].ends[h]["result"] for h in range(HANDS)
        ]
    # Each finished hand's log, kept in the database, replays to its
    # settlement, and the totals are their sum.
    status, record = await asyncio.to_thread(http, a.base, f"/api/rooms/{code}")
    assert status == 200, record
    totals = [0, 0, 0, 0]
    for h in record["match"]["hands"]:
        status, log = await asyncio.to_thread(http, a.base, h["replay"] + "/log")
        assert status == 200
        game = replay(log if isinstance(log, str) else "")
        assert game.done and game.result is not None
        assert list(game.result.deltas) == h["deltas"]
        totals = [t + d for t, d in zip(totals, h["deltas"], strict=True)]
    assert len(record["match"]["hands"]) == HANDS
    assert record["match"]["totals"] == totals
