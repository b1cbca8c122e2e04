"""The Python API as a new user meets it (issue #26, items 10-14): agent
specifications everywhere, lazy extras, a readable observation, strict
action text and seats, and logs that say what is wrong with them."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import koudian
import pytest
from koudian import Action, Game, IllegalActionError, InvalidLogError
from koudian.agents import make_agent

# -- 10: the same agent specifications in play, Match and simulate


def test_play_takes_names_native_agents_and_objects() -> None:
    by_name = koudian.play(Game("shanxi", seed=4), ["greedy", "random", "random", "random"])
    natives = [koudian.NativeAgent(n) for n in ("greedy", "random", "random", "random")]
    by_native = koudian.play(Game("shanxi", seed=4), natives)
    by_object = koudian.play(
        Game("shanxi", seed=4),
        [
            koudian.GreedyAgent(),
            koudian.RandomAgent(),
            koudian.RandomAgent(),
            koudian.RandomAgent(),
        ],
    )
    assert by_name.deltas == by_native.deltas == by_object.deltas


def test_native_agent_fits_the_agent_protocol() -> None:
    agent = koudian.NativeAgent("greedy")
    assert isinstance(agent, koudian.Agent)
    g = Game("shanxi", seed=1)
    legal = g.legal_actions(0)
    assert agent.act(g.observe(0), legal) in legal
    assert agent.act(g.observe(0)) in legal  # the one-argument form stays


def test_match_and_simulate_take_native_agents_too() -> None:
    agents = [koudian.NativeAgent("random") for _ in range(4)]
    totals = koudian.Match("linxian", agents, hands=3, seed=2).play()
    assert sum(totals) == 0
    r = koudian.simulate("shanxi", agents, 20, seed=1)
    same = koudian.simulate("shanxi", ["random"] * 4, 20, seed=1)
    assert (r.deltas == same.deltas).all()


# -- 11: a lazy module's missing extra


def test_hasattr_env_is_false_without_the_rl_extra() -> None:
    # A fresh interpreter in which pettingzoo cannot be imported.
    code = textwrap.dedent(
        """
        import sys
        sys.modules["pettingzoo"] = None
        import koudian
        assert hasattr(koudian, "env") is False
        try:
            koudian.env
        except AttributeError as e:
            assert "pip install" in str(e), e
            assert isinstance(e.__cause__, ImportError)
        try:
            from koudian import env
        except ImportError as e:
            assert "pip install" in str(e), e
        else:
            raise AssertionError("imported")
        print("ok")
        """
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "ok"


# -- 12: the observation as text, and the exports


def _play_until(game: Game, moves: int) -> None:
    for _ in range(moves):
        seat = game.to_act
        assert seat is not None
        game.step(koudian.NativeAgent("greedy").act(game.observe(seat)))


def test_str_of_an_observation_is_the_table_as_that_seat_sees_it() -> None:
    g = Game("shanxi-haozi", seed=9)
    _play_until(g, 16)
    seat = g.to_act
    assert seat is not None
    o = g.observe(seat)
    text = str(o)
    lines = text.splitlines()
    assert lines[0].startswith(f"seat {seat} sees")
    assert f"{o.wall_remaining} tiles left" in lines[0]
    for w in o.wilds:
        assert f"{w.glyph} {w}" in lines[0]  # wild kinds, glyph and notation
    assert koudian.glyphs(o.hand) in text and koudian.fmt(o.hand) in text
    # Every seat once, from the observer on, with its score and pond.
    order = [(seat + k) % 4 for k in range(4)]
    heads = [line for line in lines if line.startswith("seat ") and "score" in line]
    assert [int(h.split()[1].rstrip(":,")) for h in heads] == order
    ponds = [line for line in lines if line.strip().startswith("pond")]
    assert len(ponds) == 4
    for d in o.discards:
        if d.tile is not None:
            assert f"{d.tile.glyph} {d.tile}" in text
    assert "asked:" in text and "legal:" in text
    for a in o.legal_actions:
        assert str(a) in text.split("legal:")[1]


def test_face_down_ting_discards_show_as_backs_to_the_others() -> None:
    for seed in range(40):
        g = Game("shanxi", seed=seed)
        while g.to_act is not None:
            seat = g.to_act
            g.step(koudian.NativeAgent("greedy").act(g.observe(seat)))
            hidden = [d for d in g.observe((seat + 1) % 4).discards if d.face_down]
            if hidden and hidden[0].seat != (seat + 1) % 4:
                text = str(g.observe((seat + 1) % 4))
                assert "🀫 (ting, face down)" in text
                assert ", ting:" in text
                return
    pytest.fail("no ting declared in 40 greedy hands")


def test_repr_of_an_observation_is_one_line() -> None:
    o = Game("shanxi", seed=1).observe(0)
    r = repr(o)
    assert "\n" not in r and r.startswith("<Observation seat 0: ") and "legal" in r


def test_seen_melds_discards_external_agents_and_faults_are_exported() -> None:
    for name in ("SeenDiscard", "SeenMeld", "ExternalAgent", "Fault", "InvalidLogError"):
        assert name in koudian.__all__
        assert getattr(koudian, name).__doc__
    assert koudian.SeenMeld is koudian.game.SeenMeld


# -- 13: action text and seats


@pytest.mark.parametrize("text", ["pong 5m", "pass 1z", "win 3s", "kong 9p", "leave 1m"])
def test_a_tile_where_the_action_takes_none_is_refused(text: str) -> None:
    with pytest.raises(IllegalActionError, match="takes no tile"):
        Action.parse(text)
    g = Game("shanxi", seed=1)
    before = g.log
    with pytest.raises(IllegalActionError, match="takes no tile"):
        g.step(text)
    assert g.log == before


def test_a_bad_seat_is_a_value_error_naming_it() -> None:
    g = Game("shanxi", seed=1)
    for call in (g.observe, g.legal_actions, g.hand):
        with pytest.raises(ValueError, match="seat 5 does not exist") as e:
            call(5)
        assert not isinstance(e.value, IllegalActionError)


# -- 14: logs


def _log(seed: int, rules: str = "shanxi") -> str:
    g = Game(rules, seed=seed)
    koudian.play(g, ["random"] * 4)
    return g.log


def test_replay_of_a_multi_hand_log_names_the_count_and_the_reader() -> None:
    three = _log(1) + _log(2) + _log(3)
    with pytest.raises(InvalidLogError, match=r"this log holds 3 hands; use koudian\.read_logs"):
        koudian.replay(three)


def test_a_simulate_log_file_is_refused_as_several_hands(tmp_path: object) -> None:
    import io

    buf = io.StringIO()
    koudian.simulate("shanxi", ["random"] * 4, 3, seed=1, log=buf)
    with pytest.raises(InvalidLogError, match="this log holds 3 hands"):
        koudian.replay(buf.getvalue())


def test_malformed_logs_are_invalid_log_errors() -> None:
    log = _log(5)
    lines = log.splitlines(keepends=True)
    for bad in (
        "not a log",
        "",
        lines[0] + '{"type":"action",\n',
        log.replace('"seat":1', '"seat":9', 1),
        log.replace('"tile":"', '"tile":"0', 1),
    ):
        with pytest.raises(InvalidLogError):
            koudian.replay(bad)
    assert issubclass(InvalidLogError, koudian.KoudianError)
    assert not issubclass(InvalidLogError, koudian.InconsistentOutcomeError)


@pytest.mark.parametrize("rules", ["shanxi", "shanxi-double-haozi", "linxian", "sichuan"])
def test_an_edited_seed_is_detected(rules: str) -> None:
    log = _log(21, rules)
    assert koudian.replay(log).seed == 21
    edited = log.replace('"seed":21,', '"seed":22,', 1)
    assert edited != log
    with pytest.raises(InvalidLogError, match="seed 22 does not deal"):
        koudian.replay(edited)


# -- issue 39: a short repr for a SimulationResult; AgentError


def test_repr_of_a_simulation_result_is_one_short_line() -> None:
    r = koudian.simulate("shanxi", ["greedy"] * 4, hands=300, seed=1)
    text = repr(r)
    assert "\n" not in text and len(text) < 200, text
    assert text.startswith("SimulationResult(") and "hands=300" in text
    assert "greedy" in text and "array" not in text
    assert len(r.summary()) > len(text)  # the long form stays summary()


@pytest.mark.parametrize(
    "call",
    [
        lambda: koudian.simulate("shanxi", ["nobody"] * 4, hands=1),
        lambda: koudian.play(Game("shanxi", seed=1), ["nobody", "random", "random", "random"]),
        lambda: make_agent("nobody"),
        lambda: koudian.Match("shanxi", ["nobody", "random", "random", "random"], seed=1),
    ],
)
def test_an_unknown_agent_is_an_agent_error_and_still_a_ruleset_error(call: Any) -> None:
    assert issubclass(koudian.AgentError, koudian.RulesetError)
    assert issubclass(koudian.AgentError, koudian.KoudianError)
    with pytest.raises(koudian.AgentError, match="nobody"):
        call()
