"""The PettingZoo AEC environment: API test, encodings, determinism."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

import koudian
from koudian.env import KoudianEnv
from pettingzoo.test import api_test


@pytest.mark.parametrize("preset", ["shanxi", "shanxi-haozi", "linxian", "sichuan"])
def test_env_passes_the_pettingzoo_api_test(preset: str) -> None:
    api_test(KoudianEnv(preset), num_cycles=200)


def test_env_observation_is_the_planes_and_mask_of_the_seat_to_act() -> None:
    env = KoudianEnv("shanxi")
    env.reset(seed=3)
    agent = env.agent_selection
    obs, _reward, _term, _trunc, _info = env.last()
    seat = int(agent[7:])
    o = env.game.observe(seat)
    assert np.array_equal(obs["observation"], o.planes())
    assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (29, 34)
    assert obs["action_mask"].dtype == np.int8
    assert [i for i in range(141) if obs["action_mask"][i]] == [a.index for a in o.legal_actions]
    assert env.observation_space(agent).contains(obs)


def test_env_episode_ends_with_settlement_rewards() -> None:
    env = KoudianEnv("sichuan")
    rng = np.random.default_rng(0)
    env.reset(seed=1)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _info = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    assert sum(total.values()) == 0


def test_env_reset_with_a_seed_is_deterministic() -> None:
    def run() -> list[int]:
        env = KoudianEnv("shanxi")
        env.reset(seed=9)
        actions = []
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            a = int(np.flatnonzero(obs["action_mask"])[0])
            actions.append(a)
            env.step(a)
        return actions

    assert run() == run()


def test_env_illegal_action_raises() -> None:
    env = KoudianEnv("shanxi")
    env.reset(seed=2)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(koudian.IllegalActionError):
        env.step(illegal)


def test_env_is_reachable_after_a_bare_import_koudian() -> None:
    # README: `koudian.env.env("shanxi")` after `import koudian` (PEP 562
    # lazy submodule; `import koudian` alone must not import pettingzoo).
    import subprocess
    import sys

    code = (
        "import sys, koudian; assert 'pettingzoo' not in sys.modules; "
        "e = koudian.env.env('shanxi'); e.reset(seed=1); "
        "print(type(e).__name__, 'env' in dir(koudian))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["KoudianEnv", "True"]
