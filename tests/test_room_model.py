"""The room model: its configuration, events and the fold
(``koudian.rooms.config`` / ``events`` / ``room``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from koudian import replay
from koudian.rooms.config import RoomConfig, RoomError
from koudian.rooms.events import dumps, parse
from koudian.rooms.room import RoomState, fold, hand_seed, replay_key, token_hash

SECRET = bytes(range(32))


def config(**kw: Any) -> RoomConfig:
    data: dict[str, Any] = {"hands": 2, "bots": [None, "greedy", "greedy", None]}
    data.update(kw)
    return RoomConfig.from_json(data)


class Log:
    """A room and the events it was built from."""

    def __init__(self, cfg: RoomConfig) -> None:
        self.state = RoomState(cfg, SECRET)
        self.cfg = cfg
        self.rows: list[tuple[int, str, str, float]] = []

    def add(self, kind: str, body: dict[str, Any]) -> None:
        seq = self.state.seq + 1
        at = 100.0 + seq
        self.state.apply(seq, kind, body, at)
        self.rows.append((seq, kind, dumps(body), at))

    def settle(self) -> None:
        while (d := self.state.due()) is not None:
            self.add(*d)


def join(log: Log, name: str, token: str) -> int:
    seat = log.state.first_free()
    assert seat is not None
    log.add("join", {"seat": seat, "name": name, "token_hash": token_hash(token), "bot": False})
    return seat


def play_out(log: Log) -> None:
    """Plays every decision with the first legal action, readies everyone."""
    while log.state.status != "closed":
        s = log.state.to_act
        if s is not None:
            game = log.state.game
            assert game is not None
            a = game.legal_actions(s)[0]
            log.add("act", {"hand": len(log.state.hands), "seat": s, "index": a.index, "by": "bot"})
        else:
            for i, seat in enumerate(log.state.seats):
                if seat.kind == "person" and not seat.ready and log.state.status != "playing":
                    log.add("ready", {"seat": i})
        log.settle()


def started() -> Log:
    log = Log(config())
    log.add("fill", {"seat": 1, "agent": "greedy"})
    log.add("fill", {"seat": 2, "agent": "greedy"})
    assert join(log, "Alice", "ta") == 0
    assert join(log, "Bob", "tb") == 3
    log.add("ready", {"seat": 0})
    log.settle()
    assert log.state.status == "waiting"
    log.add("ready", {"seat": 3})
    log.settle()
    return log


def test_config_round_trips_and_refuses() -> None:
    c = config(options={}, timer=12)
    assert RoomConfig.loads(c.dumps()) == c
    r = RoomConfig.from_json({"rounds": 1, "bots": [None, None, None, None]})
    assert r.rounds == 1 and r.hands is None and RoomConfig.loads(r.dumps()) == r
    for bad in (
        [],
        {"hands": 0},
        {"hands": 33},
        {"hands": 2, "rounds": 1},
        {"timer": -1},
        {"timer": True},
        {"preset": "nope"},
        {"options": {"no_such_option": True}},
        {"options": {"x": [1]}},
        {"bots": ["greedy"] * 4},
        {"bots": [None, 3, None, None]},
        {"surprise": 1},
        {"autostart": "yes"},
    ):
        with pytest.raises(RoomError):
            RoomConfig.from_json(bad)
    with pytest.raises(RoomError, match="not offered"):
        RoomConfig.from_json({"bots": [None, "mystery", None, None]}, {"greedy": "greedy"})


def test_an_option_may_be_a_pair_of_integers() -> None:
    c = RoomConfig.from_json({"options": {"wall_reserve": [60, 8]}})
    assert c.options == {"wall_reserve": [60, 8]}
    assert RoomConfig.loads(c.dumps()) == c
    assert c.rules().wall_reserve == (60, 8)
    # Lists the core refuses ([14], [], out of range) name the option too.
    for bad in ([True, 8], [60, 8, 1], ["60", 8], [60.0, 8], [], [14], [-1, 8], [1, 2**70]):
        with pytest.raises(RoomError, match="wall_reserve"):
            RoomConfig.from_json({"options": {"wall_reserve": bad}})


def test_events_are_strict() -> None:
    assert parse("ready", '{"seat": 2}') == {"seat": 2}
    for kind, text in (
        ("ready", '{"seat": 2, "x": 1}'),
        ("ready", '{"seat": 4}'),
        ("ready", '{"seat": true}'),
        ("ready", "[]"),
        ("ready", "{"),
        ("boom", "{}"),
        ("act", '{"hand": 0, "seat": 0, "index": 1, "by": "ghost"}'),
        ("close", '{"why": "bored"}'),
    ):
        with pytest.raises(RoomError):
            parse(kind, text)


def test_seats_are_taken_in_order_and_once() -> None:
    log = Log(config())
    assert join(log, "Alice", "ta") == 0
    with pytest.raises(RoomError, match="next free seat"):
        log.state.check(
            "join", {"seat": 0, "name": "Eve", "token_hash": token_hash("x"), "bot": False}
        )
    with pytest.raises(RoomError, match="name"):
        log.state.check(
            "join", {"seat": 1, "name": " ", "token_hash": token_hash("x"), "bot": False}
        )
    assert log.state.seat_of("ta") == 0
    assert log.state.seat_of("tb") is None
    log.add("fill", {"seat": 1, "agent": "greedy"})
    with pytest.raises(RoomError, match="taken"):
        log.state.check("fill", {"seat": 1, "agent": "greedy"})
    log.add("leave", {"seat": 1})
    assert log.state.seats[1].kind == "free"


def test_a_match_plays_out_and_each_hand_replays() -> None:
    log = started()
    assert log.state.status == "playing" and log.state.game is not None
    assert log.state.game.seed == hand_seed(SECRET, 0)
    play_out(log)
    s = log.state
    assert s.status == "closed" and s.close_why == "finished" and len(s.hands) == 2
    totals = [0, 0, 0, 0]
    for h in s.hands:
        g = replay(h.log)
        assert g.done and g.seed == hand_seed(SECRET, h.hand)
        assert h.replay == f"/replay/{replay_key(SECRET, h.hand)}"
        totals = [t + d for t, d in zip(totals, h.deltas, strict=True)]
    assert s.match is not None and list(s.match.totals) == totals


def test_stale_or_foreign_actions_are_refused() -> None:
    log = started()
    s = log.state
    seat = s.to_act
    assert seat is not None and s.game is not None
    good = s.game.legal_actions(seat)[0].index
    other = (seat + 1) % 4
    with pytest.raises(RoomError, match="turn"):
        s.check("act", {"hand": 0, "seat": other, "index": good, "by": "person"})
    with pytest.raises(RoomError, match="hand"):
        s.check("act", {"hand": 1, "seat": seat, "index": good, "by": "person"})
    illegal = next(i for i in range(200) if i not in {a.index for a in s.game.legal_actions(seat)})
    with pytest.raises(RoomError, match="not legal"):
        s.check("act", {"hand": 0, "seat": seat, "index": illegal, "by": "person"})
    with pytest.raises(RoomError):
        s.check("act", {"hand": 0, "seat": seat, "index": 10**6, "by": "person"})


def test_a_dismissal_vote() -> None:
    log = started()
    log.add("vote", {"seat": 0, "dismiss": True})
    assert log.state.due() is None
    with pytest.raises(RoomError, match="already"):
        log.state.check("vote", {"seat": 0, "dismiss": True})
    log.add("vote", {"seat": 3, "dismiss": False})
    assert log.state.vote is None
    with pytest.raises(RoomError, match="no vote"):
        log.state.check("vote", {"seat": 3, "dismiss": False})
    log.add("vote", {"seat": 3, "dismiss": True})
    log.add("vote", {"seat": 0, "dismiss": True})
    log.settle()
    assert log.state.status == "closed" and log.state.close_why == "dismissed"
    with pytest.raises(RoomError, match="closed"):
        log.state.check("ready", {"seat": 0})


def test_away_people_and_a_room_nobody_is_at() -> None:
    log = started()
    log.add("away", {"seat": 0, "why": "timeout"})
    assert log.state.bot_plays(0) and log.state.live()
    log.add("away", {"seat": 3, "why": "disconnect"})
    log.add("back", {"seat": 0})
    log.add("away", {"seat": 0, "why": "disconnect"})
    assert not log.state.live()  # nobody is connected: the bots wait
    with pytest.raises(RoomError, match="not away"):
        log.state.check("back", {"seat": 1})


def test_the_spectator_view_hides_every_concealed_tile() -> None:
    log = started()
    for _ in range(60):
        s = log.state
        if s.to_act is None:
            break
        pub = s.table_json(None)
        assert pub is not None and "legal" not in pub
        assert all(seat["hand"] is None and seat["drawn"] is None for seat in pub["seats"])
        assert all(
            not m["hidden"] or m["tile"] is None for seat in pub["seats"] for m in seat["melds"]
        )
        mine = s.table_json(s.to_act)
        assert mine is not None and mine["seats"][s.to_act]["hand"] is not None
        assert sum(seat["hand"] is not None for seat in mine["seats"]) == 1
        assert s.game is not None
        a = s.game.legal_actions(s.to_act)[0]
        log.add("act", {"hand": 0, "seat": s.to_act, "index": a.index, "by": "bot"})


def test_a_log_with_a_bad_event_is_refused() -> None:
    log = started()
    rows = list(log.rows)
    rows[2] = (2, "ready", '{"seat": 0}', 1.0)  # seat 0 readied before joining
    with pytest.raises(RoomError, match="event 2"):
        fold(log.cfg, SECRET, rows)
    with pytest.raises(RoomError, match="event 9"):
        fold(log.cfg, SECRET, [*log.rows, (9, "next", "{}", 0.0)])


COMMANDS = st.one_of(
    st.tuples(st.just("join"), st.text(min_size=0, max_size=4), st.integers(0, 3)),
    st.tuples(st.sampled_from(["fill", "leave", "ready", "back"]), st.integers(0, 3)),
    st.tuples(st.just("away"), st.integers(0, 3), st.sampled_from(["timeout", "disconnect"])),
    st.tuples(st.just("act"), st.integers(0, 3), st.integers(0, 3), st.integers(0, 2)),
    st.tuples(st.just("vote"), st.integers(0, 3), st.booleans()),
    st.tuples(st.sampled_from(["start", "next", "due", "close", "join*", "ready*"])),
    st.tuples(st.just("play*"), st.integers(1, 80)),
    st.tuples(st.just("play*"), st.integers(1, 80)),
)


def body_of(cmd: tuple[Any, ...], state: RoomState) -> tuple[str, dict[str, Any]] | None:
    kind = cmd[0]
    if kind == "join":
        return kind, {
            "seat": cmd[2],
            "name": cmd[1],
            "token_hash": token_hash(cmd[1]),
            "bot": False,
        }
    if kind == "fill":
        return kind, {"seat": cmd[1], "agent": "greedy"}
    if kind in ("leave", "ready", "back"):
        return kind, {"seat": cmd[1]}
    if kind == "away":
        return kind, {"seat": cmd[1], "why": cmd[2]}
    if kind == "act":
        game = state.game
        seat = cmd[1] if cmd[3] == 0 or state.to_act is None else state.to_act
        legal = game.legal_actions(seat) if game is not None and not game.done else []
        index = legal[cmd[2] % len(legal)].index if legal else cmd[2]
        return kind, {"hand": len(state.hands), "seat": seat, "index": index, "by": "person"}
    if kind == "vote":
        return kind, {"seat": cmd[1], "dismiss": cmd[2]}
    if kind == "join*":
        free = state.first_free()
        name = f"P{state.seq}"
        return kind[:-1], {
            "seat": free or 0,
            "name": name,
            "token_hash": token_hash(name),
            "bot": False,
        }
    if kind == "ready*":
        unready = [i for i, x in enumerate(state.seats) if x.kind == "person" and not x.ready]
        return "ready", {"seat": unready[0] if unready else 0}
    if kind == "due":
        return state.due()
    if kind == "close":
        return kind, {"why": "idle"}
    return kind, {}


def summary(s: RoomState) -> str:
    return json.dumps(
        {
            "seq": s.seq,
            "room": s.room_json(None, [True] * 4),
            "tables": [s.table_json(i) for i in (None, 0, 1, 2, 3)],
            "log": s.game.log if s.game is not None else None,
            "hands": [h.log for h in s.hands],
        },
        sort_keys=True,
    )


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.booleans(), st.lists(COMMANDS, max_size=80))
def test_random_commands_never_break_the_fold(
    seated: bool, commands: list[tuple[Any, ...]]
) -> None:
    """Whatever is proposed, an event is either refused (``RoomError``,
    nothing changed) or applied; folding the applied events again gives
    the same state."""
    log = Log(config(hands=1, bots=[None, None, "greedy", None]))
    if seated:  # most random sequences would never start a match
        log.add("fill", {"seat": 0, "agent": "greedy"})
        log.add("fill", {"seat": 1, "agent": "greedy"})
        log.add("fill", {"seat": 2, "agent": "greedy"})
        join(log, "Alice", "ta")
        log.add("ready", {"seat": 3})
        log.settle()
    for cmd in commands:
        if cmd[0] == "play*":  # several decisions at once: the hands get played
            for _ in range(cmd[1]):
                proposed = body_of(("act", 0, 0, 1), log.state)
                assert proposed is not None
                try:
                    log.add(*proposed)
                except RoomError:
                    break
            continue
        proposed = body_of(cmd, log.state)
        if proposed is None:
            continue
        before = summary(log.state)
        try:
            log.state.check(*proposed)
        except RoomError:
            assert summary(log.state) == before
            with pytest.raises(RoomError):
                log.add(*proposed)
            assert summary(log.state) == before
            continue
        log.add(*proposed)
    event(f"hands played: {len(log.state.hands)}")
    event("status: " + log.state.status)
    again = fold(log.cfg, SECRET, log.rows)
    assert summary(again) == summary(log.state)


def test_the_spectator_view_is_the_full_view_with_every_secret_hidden() -> None:
    """Over whole greedy hands (ting discards face down, concealed kongs),
    at every decision: the spectator's table is the referee's with every
    concealed hand, drawn tile, face-down discard and hidden kong tile
    taken out, and nothing else changed."""
    import re

    from koudian import Game, GreedyAgent
    from koudian.rooms.views import public_table
    from koudian.web.snapshot import table_state

    face_down = hidden_melds = 0
    # Linxian hides a concealed kong's kind from the other seats; Shanxi
    # plays its ting discards face down.
    for preset, seed in [("shanxi", n) for n in range(8)] + [("linxian", n) for n in range(12)]:
        g = Game(preset, seed=seed)
        agent = GreedyAgent()
        while not g.done:
            full, pub = table_state(g), public_table(g)
            for s in range(4):
                f, p = full["seats"][s], pub["seats"][s]
                assert p["hand"] is None and p["drawn"] is None
                assert p["count"] == f["count"] and p["ting"] == f["ting"]
                assert p["pond"] == re.sub(r"~\d[mpsz]", "~?", f["pond"])
                face_down += f["pond"].count("~")
                for fm, pm in zip(f["melds"], p["melds"], strict=True):
                    assert pm["kind"] == fm["kind"] and pm["from"] == fm["from"]
                    assert pm["tile"] == (None if fm["hidden"] else fm["tile"])
                    hidden_melds += fm["hidden"]
            assert "legal" not in pub
            for key in ("dealer", "to_act", "scores", "wilds", "indicators", "wall", "live"):
                assert pub[key] == full[key]
            seat = g.to_act
            assert seat is not None
            legal = g.legal_actions(seat)
            kongs = [a for a in legal if a.to_json()["action"] == "concealed_kong"]
            g.step(kongs[0] if kongs else agent.act(g.observe(seat), legal))
    assert face_down > 0 and hidden_melds > 0, (face_down, hidden_melds)


def test_views_made_from_one_set_of_observations_are_the_same() -> None:
    """The service makes one set of the four seats' observations per
    event and every connection's view from it: the same views as alone."""
    from koudian import Game, GreedyAgent
    from koudian.rooms.views import public_table, seat_table
    from koudian.web.snapshot import observations, table_state

    for preset, seed in (("shanxi", 3), ("linxian", 5)):
        g = Game(preset, seed=seed)
        agent = GreedyAgent()
        while True:
            views = observations(g)
            assert table_state(g, None, views) == table_state(g)
            assert public_table(g, views) == public_table(g)
            for s in range(4):
                assert seat_table(g, s, views) == seat_table(g, s)
            if g.done:
                break
            seat = g.to_act
            assert seat is not None
            g.step(agent.act(g.observe(seat), g.legal_actions(seat)))
