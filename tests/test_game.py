"""The table from Python (docs/rules.md §6): illegal actions refused with the
state unchanged, hidden information never observed, deterministic logs,
replay, prepared walls."""

from __future__ import annotations

import json
import random

import koudian
import numpy as np
import pytest
from koudian import Action, Game, IllegalActionError, replay

_GREEDY = koudian.GreedyAgent()

PRESETS = ["shanxi", "shanxi-haozi", "shanxi-double-haozi", "linxian", "sichuan"]


def random_play(g: Game, rng: random.Random, no_leave: bool = True) -> None:
    while not g.done:
        legal = g.legal_actions()
        if no_leave and len(legal) > 1:
            legal = [a for a in legal if a.kind != "leave"]
        g.step(rng.choice(legal))


def eager_choice(g: Game, rng: random.Random) -> Action:
    """Random, but declares ting, kongs and wins whenever it may, so that
    face-down discards and concealed kongs happen."""
    legal = [a for a in g.legal_actions() if a.kind != "leave"] or g.legal_actions()
    seat = g.to_act
    if seat is not None and rng.random() < 0.8:
        # The greedy baseline gets hands ready, so ting declarations happen.
        return _GREEDY.act(g.observe(seat), legal)
    for kind in ("win", "ting", "concealed_kong", "kong", "added_kong"):
        eager = [a for a in legal if a.kind == kind]
        if eager:
            return rng.choice(eager)
    return rng.choice(legal)


def snapshot(g: Game) -> tuple[object, ...]:
    return (
        g.log,
        g.to_act,
        [a.index for a in g.legal_actions()],
        [g.observe(s).to_json() for s in range(4)],
        g.tile_census().tolist(),
        g.moves,
    )


def test_action_encoding_round_trips_every_index() -> None:
    for i in range(koudian.game.N_ACTIONS):
        a = Action.from_index(i)
        assert a.index == i == int(a)
        assert Action.parse(str(a)) == a
        assert Action(a.kind, a.tile) == a
    assert Action("discard", "5m").index == 4
    assert Action("ting", "7z").index == 34 + 33
    assert Action("pass").index == 139


@pytest.mark.parametrize("bad", [141, -1, "chow", "discard", "pass 5m", 3.5])
def test_bad_action_values_raise_illegal_action_error(bad: object) -> None:
    g = Game("shanxi", seed=1)
    before = snapshot(g)
    with pytest.raises(IllegalActionError):
        g.step(bad)  # type: ignore[arg-type]
    assert snapshot(g) == before


@pytest.mark.parametrize("preset", PRESETS)
def test_illegal_action_is_refused_with_reason_and_state_unchanged(preset: str) -> None:
    rng = random.Random(5)
    checked = 0
    for seed in range(6):
        g = Game(preset, seed=seed)
        while not g.done:
            legal = set(a.index for a in g.legal_actions())
            illegal = [i for i in range(141) if i not in legal]
            before = snapshot(g)
            for i in rng.sample(illegal, 3):
                with pytest.raises(IllegalActionError) as e:
                    g.step(i)
                assert str(e.value)  # names the reason
                assert snapshot(g) == before
                checked += 1
            choices = [a for a in g.legal_actions() if a.kind != "leave"] or g.legal_actions()
            g.step(rng.choice(choices))
        with pytest.raises(IllegalActionError, match="over"):
            g.step("pass")
    assert checked > 100


def test_illegal_discard_names_the_missing_tile() -> None:
    g = Game("shanxi", seed=3)
    seat = g.to_act
    assert seat is not None
    missing = next(t for t in koudian.Tile if g.observe(seat).counts[t] == 0)
    with pytest.raises(IllegalActionError, match=str(missing)):
        g.step(Action("discard", missing))


def test_legal_actions_of_other_seats_are_empty() -> None:
    g = Game("shanxi", seed=2)
    seat = g.to_act
    for s in range(4):
        if s != seat:
            assert g.legal_actions(s) == []
            assert not g.legal_mask(s).any()
    mask = g.legal_mask()
    assert mask.shape == (141,) and mask.dtype == np.bool_
    assert [i for i in range(141) if mask[i]] == [a.index for a in g.legal_actions()]


def reference_planes(o: koudian.Observation) -> np.ndarray:
    """The plane layout of koudian.env, rebuilt from public fields only."""
    p = np.zeros((29, 34), np.float32)
    rel = lambda s: (s - o.seat) % 4  # noqa: E731
    for k, n in enumerate(o.counts):
        p[: min(n, 4), k] = 1
    if o.drawn is not None:
        p[4, o.drawn] = 1
    for s, melds in enumerate(o.melds):
        for m in melds:
            if m.tile is not None:
                p[5 + rel(s), m.tile] += m.kind.size
    for d in o.discards:
        if d.tile is not None and not d.claimed:
            p[9 + rel(d.seat), d.tile] += 1
    for t in o.wilds:
        p[13, t] = 1
    p[14] = o.face_up_in_wall
    if o.pending_tile is not None:
        p[15, o.pending_tile] = 1
    for s in range(4):
        if o.ting[s]:
            p[16 + rel(s)] = 1
    p[20 + rel(o.dealer)] = 1
    p[24] = o.live_remaining / 136
    p[25] = 1 if o.may_win_discards else 0
    plane = {"turn": 26, "discard": 27, "added_kong": 28}.get(o.pending)
    if plane is not None:
        p[plane] = 1
    return p


@pytest.mark.parametrize("preset", PRESETS)
def test_observation_never_reveals_hidden_information(preset: str) -> None:
    rng = random.Random(11)
    hidden_kong_seen = face_down_seen = 0
    for seed in range(6):
        g = Game(preset, seed=seed)
        while True:
            for s in range(4):
                o = g.observe(s)
                assert np.array_equal(o.counts, g.hand(s).counts())
                assert o.concealed_count == tuple(int(g.hand(x).counts().sum()) for x in range(4))
                for d in o.discards:
                    if d.face_down and d.seat != s:
                        assert d.tile is None
                        face_down_seen += 1
                for x, melds in enumerate(o.melds):
                    for m in melds:
                        if (
                            x != s
                            and m.kind == koudian.MeldKind.CONCEALED_KONG
                            and g.rules.get("hide_concealed_kong")
                            and not g.done
                        ):
                            assert m.tile is None
                            hidden_kong_seen += 1
                text = json.dumps(o.to_json())
                assert text.count('"hand"') == 1  # only the observer's own hand
                assert np.array_equal(o.planes(), reference_planes(o))
                if s != g.to_act:
                    assert o.legal_actions == []
            if g.done:
                break
            g.step(eager_choice(g, rng))
    if preset != "sichuan":
        assert face_down_seen > 0


@pytest.mark.parametrize("preset", PRESETS)
def test_same_seed_and_actions_give_byte_identical_logs(preset: str) -> None:
    logs = []
    for _ in range(2):
        g = Game(preset, seed=42)
        random_play(g, random.Random(7))
        logs.append(g.log)
    assert logs[0] == logs[1]
    other = Game(preset, seed=43)
    random_play(other, random.Random(7))
    assert other.log != logs[0]
    header = json.loads(logs[0].splitlines()[0])
    assert header["type"] == "header" and header["seed"] == 42 and "version" in header


@pytest.mark.parametrize("preset", PRESETS)
def test_replay_reproduces_the_log_and_result(preset: str) -> None:
    for seed in range(5):
        g = Game(preset, seed=seed)
        random_play(g, random.Random(seed))
        r = replay(g.log)
        assert r.log == g.log
        assert r.done
        assert r.result is not None and g.result is not None
        assert r.result.deltas == g.result.deltas


def test_replay_of_an_unfinished_game() -> None:
    g = Game("shanxi", seed=9)
    rng = random.Random(1)
    for _ in range(10):
        g.step(rng.choice(g.legal_actions()))
    r = replay(g.log)
    assert r.log == g.log and r.to_act == g.to_act
    assert [a.index for a in r.legal_actions()] == [a.index for a in g.legal_actions()]


def test_replay_rejects_a_tampered_log() -> None:
    g = Game("shanxi", seed=4)
    random_play(g, random.Random(2))
    lines = g.log.splitlines()
    end = json.loads(lines[-1])
    end["deltas"] = [d + 1 for d in end["deltas"]]
    lines[-1] = json.dumps(end, separators=(",", ":"))
    with pytest.raises(koudian.KoudianError):
        replay("\n".join(lines) + "\n")
    with pytest.raises(koudian.KoudianError):
        replay("not a log")


@pytest.mark.parametrize("preset", PRESETS)
def test_result_settlement_is_zero_sum(preset: str) -> None:
    for seed in range(20):
        g = Game(preset, seed=seed)
        assert g.result is None
        random_play(g, random.Random(seed))
        r = g.result
        assert r is not None and r.settlement is not None
        assert sum(r.deltas) == 0
        assert r.settlement.deltas == r.deltas
        assert r.kind in ("win", "exhausted", "kong_draw", "left")
        assert (r.kind == "win") == bool(r.winners)


def test_prepared_wall_deals_the_given_tiles() -> None:
    g = Game.arranged(
        ["11122233344455m", "1112223334445p", "1112223334445s", "1111222233334z"],
        "9m",
        rules="shanxi",
        dealer=0,
    )
    assert koudian.fmt(g.observe(0).hand) == "11122233344455m"
    assert koudian.fmt(g.observe(3).hand) == "1111222233334z"
    assert g.seed is None and g.dealer == 0
    g.step("discard 5m")
    # Nobody can claim 5m; seat 1 draws the prepared 9m.
    while g.to_act != 1 or g.observe(1).pending != "turn":
        g.step("pass")
    assert g.observe(1).drawn == koudian.Tile.M9

    wall = [t for t in koudian.Tile for _ in range(4)]
    g2 = Game("shanxi", wall=wall, dealer=2)
    assert g2.dealer == 2 and g2.to_act == 2
    assert koudian.fmt(g2.observe(2).hand) == "1111222233334m5p"  # the 14th tile is the 53rd
    with pytest.raises(koudian.InvalidTilesError):
        Game("shanxi", wall=wall[1:])
    with pytest.raises(koudian.InvalidTilesError):
        Game("shanxi-haozi", wall=wall)  # random wildcards need wilds=
    g3 = Game("shanxi-haozi", wall=wall, wilds="5z")
    assert g3.wilds == [koudian.Tile.WHITE]


def test_linxian_concealed_kong_kind_is_hidden_from_others_until_settled() -> None:
    g = Game.arranged(
        ["123456789m12345p", "666p123456789s7p", "123456789m1111z", "123456789s2222z"],
        "6p",
        rules="linxian",
    )
    g.step("discard 1p")
    while g.to_act != 1 or g.observe(1).pending != "turn":
        g.step("pass")
    assert g.observe(1).drawn == koudian.Tile.P6
    g.step("concealed_kong 6p")
    assert g.observe(1).melds[1][0].tile == koudian.Tile.P6
    for s in (0, 2, 3):
        (m,) = g.observe(s).melds[1]
        assert m.kind == koudian.MeldKind.CONCEALED_KONG and m.tile is None
        assert g.observe(s).planes()[5:9].sum() == 0  # no meld tiles in the planes
    g.leave(3)
    assert g.observe(0).melds[1][0].tile == koudian.Tile.P6  # shown once settled


def test_bad_seats_and_dealers_raise() -> None:
    # A seat that does not exist is a bad argument (a ValueError naming
    # the seat), not an illegal move.
    with pytest.raises(koudian.KoudianError, match="seat 4 does not exist") as e:
        Game("shanxi", seed=1, dealer=4)
    assert not isinstance(e.value, IllegalActionError)
    g = Game("shanxi", seed=1)
    for bad in (5, 7):
        with pytest.raises(ValueError, match=f"seat {bad} does not exist") as e:
            g.observe(bad)
        assert not isinstance(e.value, IllegalActionError)
    with pytest.raises(IllegalActionError, match="linxian"):
        g.leave(1)


def test_linxian_leave_ends_the_hand_with_penalty() -> None:
    g = Game("linxian", seed=3)
    g.leave(2)
    r = g.result
    assert r is not None and r.kind == "left" and r.leaver == 2
    assert r.deltas[2] < 0 and sum(r.deltas) == 0


def test_sichuan_earthly_hand_after_a_concealed_kong_and_winners_is_a_list() -> None:
    """docs/rules.md §5: 地胡 is a non-dealer's win "before any claim was made,
    on the dealer's first discard"; a concealed kong is not a claim. The
    result's ``winners`` is a ``list[int]``, as the stub says (it was
    ``bytes``)."""
    g = koudian.Game.arranged(
        ["1111234567m456p9s", "222p333p444p555p9s", "666p777p888p111s8m", "222s333s444s555s1p"],
        front="9m",
        rules="sichuan",
    )
    for action in ["concealed_kong 1m", "discard 9s", "win"]:
        g.step(action)
    r = g.result
    assert r is not None
    assert r.earthly
    assert r.winners == [1] and isinstance(r.winners, list)
    assert tuple(r.deltas) == (-8, 8, 0, 0)
    assert any("地胡" in p for _, ps in g.win_patterns() for p in ps)
