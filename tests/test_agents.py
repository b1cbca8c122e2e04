"""Agents: the protocol, built-ins delegating to the Rust agents, the
fallback for illegal answers, and native vs Python-driven self-play
giving identical logs."""

from __future__ import annotations

from collections.abc import Sequence

import koudian
import pytest
from koudian import Action, Game, Observation
from koudian._core._testing import simulate_logs
from koudian.agents import Agent, Fault, GreedyAgent, RandomAgent, fallback_action, make_agent

PRESETS = ["shanxi", "shanxi-haozi", "linxian", "sichuan"]


def _has_greedy() -> bool:
    try:
        koudian.NativeAgent("greedy")
    except koudian.KoudianError:
        return False
    return True


AGENT_SETS = [["random"] * 4]
if _has_greedy():
    AGENT_SETS.append(["greedy", "random", "greedy", "random"])


def python_driven_logs(preset: str, names: list[str], hands: int, seed: int) -> list[str]:
    agents = [make_agent(n) for n in names]
    logs = []
    for i in range(hands):
        game_seed = koudian.mix_seed(seed, i)
        g = Game(preset, seed=game_seed, dealer=i % 4)
        for s, a in enumerate(agents):
            a.reset(koudian.mix_seed(game_seed, 1 + s))  # type: ignore[attr-defined]
        koudian.play(g, agents)
        logs.append(g.log)
    return logs


@pytest.mark.parametrize("names", AGENT_SETS, ids=lambda n: "-".join(n))
@pytest.mark.parametrize("preset", PRESETS)
def test_native_and_python_driven_self_play_give_identical_logs(
    preset: str, names: list[str]
) -> None:
    native = simulate_logs(preset, names, 12, seed=77)
    python = python_driven_logs(preset, names, 12, 77)
    assert native == python
    assert len(set(native)) == 12


def test_builtin_agents_satisfy_the_protocol_and_play_legal_actions() -> None:
    agents: list[Agent] = [RandomAgent(), RandomAgent(1)]
    if _has_greedy():
        agents.append(GreedyAgent())
    for a in agents:
        assert isinstance(a, Agent)
    g = Game("shanxi", seed=5)
    while not g.done:
        seat = g.to_act
        assert seat is not None
        legal = g.legal_actions(seat)
        a = agents[seat % len(agents)].act(g.observe(seat), legal)
        assert a in legal
        g.step(a)


def test_native_agent_refuses_a_stale_observation() -> None:
    g = Game("shanxi", seed=5)
    seat = g.to_act
    assert seat is not None
    o = g.observe(seat)
    g.step(g.legal_actions()[0])
    with pytest.raises(koudian.IllegalActionError, match="stale"):
        RandomAgent().act(o, [])


def test_unknown_builtin_agent_is_an_error() -> None:
    with pytest.raises(koudian.KoudianError, match="unknown built-in agent"):
        make_agent("oracle")


def test_fallback_is_the_first_legal_action_other_than_leave() -> None:
    legal = [Action("pass"), Action("win"), Action("leave")]
    assert fallback_action(legal) == Action("win")
    assert fallback_action([Action("leave")]) == Action("leave")
    assert fallback_action([Action("discard", "9s"), Action("discard", "1m")]) == Action(
        "discard", "1m"
    )
    with pytest.raises(ValueError):
        fallback_action([])


class Cheater:
    """Always answers with an action that is never legal on a turn."""

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        return Action("kong") if observation.pending == "turn" else legal_actions[0]


def test_play_substitutes_the_fallback_for_an_illegal_answer_and_records_it() -> None:
    faults: list[Fault] = []
    g = Game("shanxi", seed=8)
    agents: list[Agent] = [Cheater(), RandomAgent(), RandomAgent(), RandomAgent()]
    result = koudian.play(g, agents, faults.append)
    assert sum(result.deltas) == 0
    assert faults and all(f.seat == 0 and f.kind == "illegal" for f in faults)
    # The fallback was played: seat 0's turn actions are all lowest-tile discards.
    assert faults[0].fallback.kind in ("discard", "win", "concealed_kong")
