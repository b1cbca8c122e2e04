"""Crash safety: a real ``koudian serve --db`` process is killed with
SIGKILL at 20 random points of a match (two scripted people and two bots
in one room, one person and three bots in another), restarted each time
on the same database; every room resumes, no acknowledged action is
lost, every finished hand's log replays, and the settlements equal an
uninterrupted run of the same actions.

Parametrized by database kind (``tests/room_stores.py``): SQLite here,
PostgreSQL where the ``postgres_url`` fixture exists."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

import koudian
import pytest
from koudian.rooms.config import RoomConfig
from koudian.rooms.events import parse
from koudian.rooms.room import RoomState, hand_seed
from koudian.rooms.store import open_store
from room_stores import STORE_KINDS, store_url
from room_support import Player, ServerProcess, create, http

pytest.importorskip("websockets")

KILLS = 20
HANDS = 4


async def _scenario(
    server: ServerProcess, rng: random.Random
) -> tuple[dict[str, list[Player]], int]:
    duo = await asyncio.to_thread(
        create, server.base, hands=HANDS, bots=[None, "greedy", None, "greedy"]
    )
    solo = await asyncio.to_thread(
        create, server.base, hands=HANDS, bots=[None, "greedy", "greedy", "greedy"], autostart=True
    )
    players = {duo: [Player(duo, "Ann"), Player(duo, "Bo")], solo: [Player(solo, "Cy")]}
    everyone = [p for ps in players.values() for p in ps]
    up = asyncio.Event()
    up.set()

    async def keep_playing(p: Player) -> None:
        while not p.closed:
            await up.wait()
            await p.play(server.ws)
            if not p.closed:
                await asyncio.sleep(0.05)

    tasks = [asyncio.create_task(keep_playing(p)) for p in everyone]
    # Seats are taken (and their tokens told) before the first kill: a
    # token lost in a crash before it reached its person is a seat lost.
    for p in everyone:
        await asyncio.wait_for(p.joined.wait(), 30)
    kills = 0
    while kills < KILLS and not all(p.closed for p in everyone):
        acked = sum(len(p.acked) for p in everyone)
        # 1-4 acknowledged actions apart: 20 kills fit in the match's
        # ~100 person decisions whatever the seed (1-10 apart ran out).
        target = acked + rng.randint(1, 4)
        deadline = time.monotonic() + 30
        while sum(len(p.acked) for p in everyone) < target and time.monotonic() < deadline:
            if all(p.closed for p in everyone):
                break
            await asyncio.sleep(rng.uniform(0.0, 0.02))
        if all(p.closed for p in everyone):
            break
        up.clear()
        await asyncio.to_thread(server.kill)
        kills += 1
        await asyncio.to_thread(server.restart)
        up.set()
    await asyncio.wait_for(asyncio.gather(*tasks), 120)
    return players, kills


def _uninterrupted(config: RoomConfig, secret: bytes, acts: list[dict[str, Any]]) -> list[Any]:
    """The hands the core plays from the same deals and the same actions
    in one go (no room, no store, no restart)."""
    match = config.match()
    games = []
    it = iter(acts)
    while not match.done:
        game = match.next_game(True, seed=hand_seed(secret, match.hands_played))
        assert game is not None
        while not game.done:
            a = next(it)
            assert a["seat"] == game.to_act
            game.step(koudian.Action.from_index(a["index"]))
        match.record(game)
        games.append(game)
    assert next(it, None) is None
    return [games, list(match.totals)]


@pytest.mark.parametrize("kind", STORE_KINDS)
def test_sigkill_at_20_random_points_loses_nothing(
    request: pytest.FixtureRequest, kind: str, tmp_path: Path
) -> None:
    url = store_url(request, kind, tmp_path)
    seed = random.randrange(1 << 32)
    print(f"\ncrash test seed {seed}")
    rng = random.Random(seed)
    server = ServerProcess(url)
    try:
        players, kills = asyncio.run(asyncio.wait_for(_scenario(server, rng), 240))
        records = {code: http(server.base, f"/api/rooms/{code}")[1] for code in players}
        links = {
            h["replay"]: http(server.base, h["replay"] + "/log")
            for r in records.values()
            for h in r["match"]["hands"]
        }
    finally:
        server.stop()
    assert kills == KILLS, f"the match ended after {kills} kills"
    assert not server.tracebacks(), server.tracebacks()

    store = open_store(url)
    try:
        for code, ps in players.items():
            row = store.room_by_code(code)
            assert row is not None and row.status == "closed"
            events = store.events(row.id)
            config = RoomConfig.loads(row.config_json)
            # The room's state is the fold of its events: it resumed and finished.
            state = RoomState(config, row.secret)
            person_acts: set[tuple[int, int, int]] = set()
            for ev in events:
                body = parse(ev.kind, ev.body)
                if ev.kind == "act" and body["by"] == "person":
                    person_acts.add((state.decision_seq, body["seat"], body["index"]))
                state.apply(ev.seq, ev.kind, body, ev.at)
            assert state.status == "closed" and state.close_why == "finished"
            assert len(state.hands) == HANDS
            # No acknowledged action is lost.
            for p in ps:
                for rid, index in p.acked:
                    assert (rid, p.seat, index) in person_acts, (p.name, rid, index)
            # Every finished hand's log is kept and replays to its settlement.
            hands = store.hands(row.id)
            assert [h.hand for h in hands] == list(range(HANDS))
            acts = [parse("act", e.body) for e in events if e.kind == "act"]
            games, totals = _uninterrupted(config, row.secret, acts)
            for h, g in zip(hands, games, strict=True):
                replayed = koudian.replay(h.log)
                assert replayed.done and h.log == g.log
                assert list(replayed.result.deltas) == list(g.result.deltas)  # type: ignore[union-attr]
                assert links[f"/replay/{h.replay_key}"] == (200, h.log)  # the link serves it
            # The settlements told equal the uninterrupted run's.
            assert records[code]["match"]["totals"] == totals
            assert [h["deltas"] for h in records[code]["match"]["hands"]] == [
                list(g.result.deltas) for g in games
            ]
            for p in ps:
                for n, end in p.ends.items():
                    assert end["result"]["deltas"] == list(games[n].result.deltas)
                    assert end["replay"] == f"/replay/{hands[n].replay_key}"
    finally:
        store.close()
