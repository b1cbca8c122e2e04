"""Table throughput (issue 8, issue 6), pytest-benchmark.

Run: ``pytest benches/bench_game.py --benchmark-enable`` (after
``maturin develop --release``). Each case plays whole one-hand games and
reports hands/s (and decisions/s) in ``extra_info``; riichienv, when
installed, is measured in the same run with its own random agent, so the
ratio is against a baseline measured on the same machine and load.

* python-driven: ``Game`` stepped from Python, each decision observing the
  seat (``g.observe``), listing its legal actions and choosing one with
  ``random.choice``, as riichienv's ``RandomAgent`` does;
* builtin-agent: the same loop with ``koudian.RandomAgent`` (the Rust
  agent behind the ``Agent`` protocol, via ``koudian.play``);
* native: ``koudian._core.simulate_native`` (no Python per step), one
  thread and all threads, random and greedy agents;
* simulate: ``koudian.simulate`` on 1 and 2 threads for every preset with
  random agents, greedy ×4 and the README's job (greedy + 3 random);
* env: PettingZoo AEC steps/s with random masked actions.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import koudian
import numpy as np
import pytest
from koudian._core import simulate_native

HANDS = 300


def _run(benchmark: Any, fn: Callable[[], tuple[int, int]], rounds: int = 3) -> None:
    counts: list[tuple[int, int]] = []

    def once() -> None:
        counts.append(fn())

    benchmark.pedantic(once, rounds=rounds, iterations=1, warmup_rounds=1)
    hands, decisions = counts[-1]
    best = benchmark.stats.stats.min
    benchmark.extra_info["hands_per_s"] = round(hands / best, 1)
    benchmark.extra_info["decisions_per_s"] = round(decisions / best, 1)
    benchmark.extra_info["decisions_per_hand"] = round(decisions / max(hands, 1), 1)


@pytest.mark.parametrize("preset", ["shanxi", "sichuan"])
def test_python_driven_random_hands(benchmark: Any, preset: str) -> None:
    rules = koudian.Ruleset.preset(preset)

    def play() -> tuple[int, int]:
        rng = random.Random(0)
        decisions = 0
        for seed in range(HANDS):
            g = koudian.Game(rules, seed=seed, record=False)
            while (seat := g.to_act) is not None:
                g.observe(seat)
                g.step(rng.choice(g.legal_actions(seat)))
                decisions += 1
        return HANDS, decisions

    _run(benchmark, play)


def test_python_driven_builtin_random_agent_hands(benchmark: Any) -> None:
    rules = koudian.Ruleset.preset("shanxi")
    agents = [koudian.RandomAgent(s) for s in range(4)]

    def play() -> tuple[int, int]:
        decisions = 0
        for seed in range(HANDS):
            g = koudian.Game(rules, seed=seed, record=False)
            koudian.play(g, agents)
            decisions += g.moves
        return HANDS, decisions

    _run(benchmark, play)


def test_riichienv_random_hands(benchmark: Any) -> None:
    riichienv = pytest.importorskip("riichienv")
    from riichienv.agents import RandomAgent

    def play() -> tuple[int, int]:
        agent = RandomAgent(0)
        decisions = 0
        for seed in range(HANDS // 3):
            env = riichienv.RiichiEnv(game_mode="4p-red-single", seed=seed, skip_mjai_logging=True)
            obs = env.reset()
            while not env.done():
                acts = {pid: agent.act(o) for pid, o in obs.items()}
                decisions += len(acts)
                obs = env.step(acts)
        return HANDS // 3, decisions

    _run(benchmark, play)


@pytest.mark.parametrize("threads", [1, 0], ids=["1-thread", "all-threads"])
@pytest.mark.parametrize("agent", ["random", "greedy"])
def test_native_hands(benchmark: Any, agent: str, threads: int) -> None:
    n = 20_000 if agent == "random" else 5_000

    def play() -> tuple[int, int]:
        r = simulate_native("shanxi", [agent] * 4, n, seed=1, threads=threads)
        return n, int(r["decisions"].sum())

    _run(benchmark, play)


@pytest.mark.parametrize("threads", [1, 2], ids=["1-thread", "2-threads"])
@pytest.mark.parametrize(
    ("preset", "agents", "n"),
    [
        ("shanxi", "random,random,random,random", 100_000),
        ("shanxi-haozi", "random,random,random,random", 100_000),
        ("linxian", "random,random,random,random", 100_000),
        ("sichuan", "random,random,random,random", 100_000),
        ("shanxi", "greedy,greedy,greedy,greedy", 12_000),
        ("shanxi", "greedy,random,random,random", 40_000),
    ],
    ids=[
        "random-shanxi",
        "random-haozi",
        "random-linxian",
        "random-sichuan",
        "greedy",
        "readme-job",
    ],
)
def test_simulate_hands(benchmark: Any, preset: str, agents: str, n: int, threads: int) -> None:
    """``koudian.simulate`` as users (and ``koudian simulate``) call it:
    issue 6's native self-play targets on 2 threads."""

    def play() -> tuple[int, int]:
        r = koudian.simulate(preset, agents.split(","), n, seed=1, threads=threads)
        return n, int(r.decisions.sum())

    _run(benchmark, play)


def test_env_steps(benchmark: Any) -> None:
    pytest.importorskip("pettingzoo")
    from koudian.env import KoudianEnv

    env = KoudianEnv("shanxi")

    def play() -> tuple[int, int]:
        rng = random.Random(0)
        steps = hands = 0
        env.reset(seed=0)
        while steps < 20_000:
            for _agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
                steps += 1
            hands += 1
            env.reset()
        return hands, steps

    _run(benchmark, play)
