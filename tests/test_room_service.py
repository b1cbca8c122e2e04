"""The room service with two writers on one database (as two processes
on PostgreSQL are): an append that finds its seq taken folds the other
writer's events in and checks its command again; nothing is lost or
applied twice. In-process, on the service's own (synchronous) methods."""

from __future__ import annotations

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
