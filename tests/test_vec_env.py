"""koudian.VecEnv: N tables stepped in Rust. The outputs are the single
Game's (masks = legal_actions, planes = Observation.planes), an illegal
action is refused naming its table with nothing changed (or played by
fallback with a fault flag), results do not depend on the thread count,
every table's log replays, the arrays are reused (zero-copy, no allocation
per step)."""

from __future__ import annotations

import doctest
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import koudian
import numpy as np
import pytest
from koudian import IllegalActionError, KoudianError, VecEnv


def first_legal(masks: np.ndarray) -> np.ndarray:
    return masks.argmax(1)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(masks.shape) * masks).argmax(1)


def check_tables_against_replay(env: VecEnv, obs: np.ndarray) -> int:
    """Every table's position, rebuilt from its log, has the env's mask,
    seat and planes; the number of tables checked."""
    masks = env.action_masks()
    for i in range(env.num_envs):
        g = koudian.replay(env.log(i))
        seat = int(env.to_act[i])
        assert g.to_act == seat
        assert np.array_equal(g.legal_mask(seat), masks[i])
        assert [a.index for a in g.legal_actions()] == list(np.flatnonzero(masks[i]))
        planes = g.observe(seat).planes(env.encoding, env.obs_dtype)
        assert np.array_equal(planes, obs[i]), i
    return env.num_envs


@pytest.mark.parametrize(
    ("preset", "learners", "dtype"),
    [
        ("shanxi", "all", "uint8"),
        ("shanxi-haozi", 2, "float32"),
        ("linxian", "all", "float32"),
        ("sichuan", 0, "uint8"),
    ],
)
def test_masks_and_planes_are_the_games(preset: str, learners: str | int, dtype: str) -> None:
    env = VecEnv(preset, 12, learners=learners, seed=3, threads=1, obs_dtype=dtype)
    obs, _ = env.reset()
    rng = np.random.default_rng(1)
    checked = ended = 0
    for step in range(120):
        if step % 20 == 0:
            checked += check_tables_against_replay(env, obs)
        obs, reward, terminated, _, info = env.step(random_legal(env.action_masks(), rng))
        for i in np.flatnonzero(terminated):
            ended += 1
            g = koudian.replay(env.log(int(i), finished=True))
            assert g.done
            deltas = list(g.result.deltas)
            assert list(info["final_deltas"][i]) == deltas
            if learners != "all":
                assert reward[i] == deltas[int(learners)]
                assert np.array_equal(
                    info["final_obs"][i], g.observe(int(learners)).planes(env.encoding, dtype)
                )
        if learners != "all":
            assert (env.to_act == learners).all()
    assert checked > 0 and ended > 0


def test_an_illegal_action_names_its_table_and_changes_nothing() -> None:
    env = VecEnv("shanxi", 6, seed=5, threads=2)
    obs, _ = env.reset()
    before = obs.copy(), env.action_masks().copy(), [env.log(i) for i in range(6)]
    actions = first_legal(env.action_masks())
    bad = np.flatnonzero(~env.action_masks()[4])[0]
    actions[4] = bad
    with pytest.raises(IllegalActionError, match="table 4"):
        env.step(actions)
    actions[4] = 999
    with pytest.raises(IllegalActionError, match=r"table 4: action index 999 is out of range"):
        env.step(actions)
    with pytest.raises(IllegalActionError, match="6 tables"):
        env.step(actions[:5])
    with pytest.raises(IllegalActionError, match="int64 or int32"):
        env.step(actions.astype(np.float64))
    with pytest.raises(IllegalActionError, match="contiguous"):
        env.step(np.repeat(first_legal(env.action_masks()), 2)[::2])
    assert np.array_equal(before[0], env.obs)
    assert np.array_equal(before[1], env.action_masks())
    assert before[2] == [env.log(i) for i in range(6)]


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_the_first_illegal_action_is_named_whatever_the_threads(threads: int) -> None:
    # 300 tables: the actions are checked on several threads (tasks of 64
    # tables), and the error names the first bad table all the same.
    n = 300
    env = VecEnv("shanxi", n, seed=8, threads=threads)
    env.reset()
    logs = [env.log(i) for i in range(n)]
    actions = first_legal(env.action_masks())
    for i in (290, 130, 70):
        actions[i] = 999
    with pytest.raises(IllegalActionError, match=r"table 70: action index 999"):
        env.step(actions)
    assert logs == [env.log(i) for i in range(n)]
    actions[70] = first_legal(env.action_masks())[70]
    with pytest.raises(IllegalActionError, match=r"table 130: action index 999"):
        env.step(actions)


def test_fallback_plays_the_first_legal_action_and_flags_the_table() -> None:
    a = VecEnv("shanxi", 4, seed=9, on_illegal="fallback")
    b = VecEnv("shanxi", 4, seed=9)
    a.reset()
    b.reset()
    actions = first_legal(a.action_masks())
    bad = actions.copy()
    bad[1] = -1
    a.step(bad)
    b.step(actions)
    assert list(a.fault) == [False, True, False, False]
    assert np.array_equal(a.obs, b.obs)
    a.step(first_legal(a.action_masks()))
    assert not a.fault.any()


@pytest.mark.parametrize("learners", ["all", 3])
def test_results_do_not_depend_on_the_thread_count(learners: str | int) -> None:
    # 300 tables: enough for a step to be split between threads (tasks of
    # 64 tables from 128 tables up), with a short last task.
    n = 300
    runs = []
    for threads in (1, 2, 3):
        env = VecEnv("shanxi", n, learners=learners, seed=11, threads=threads)
        env.reset()
        trace = []
        for _ in range(60):
            obs, reward, terminated, *_ = env.step(first_legal(env.action_masks()))
            trace.append((obs.copy(), reward.copy(), terminated.copy(), env.to_act.copy()))
        runs.append((trace, [env.log(i) for i in range(n)]))
    for other in runs[1:]:
        assert other[1] == runs[0][1]
        for x, y in zip(runs[0][0], other[0], strict=True):
            assert all(np.array_equal(p, q) for p, q in zip(x, y, strict=True))


def test_seeds_follow_the_documented_scheme() -> None:
    env = VecEnv("shanxi", 3, seed=21)
    env.reset()
    for i in range(3):
        g = koudian.replay(env.log(i))
        assert g.seed == koudian.mix_seed(koudian.mix_seed(21, i), 0)
        assert g.dealer == i % 4
    env.reset(seed=4)
    assert koudian.replay(env.log(2)).seed == koudian.mix_seed(koudian.mix_seed(4, 2), 0)
    env.reset()
    g = koudian.replay(env.log(2))
    assert g.seed == koudian.mix_seed(koudian.mix_seed(4, 2), 1) and g.dealer == 3


def test_arrays_are_reused_and_steps_allocate_nothing() -> None:
    env = VecEnv("shanxi", 256, seed=2, threads=2)
    obs, info = env.reset()
    ptrs = [a.__array_interface__["data"][0] for a in (obs, env.action_masks(), env.to_act)]
    for _ in range(200):  # warm up: every table finishes hands, buffers grow
        env.step(first_legal(env.action_masks()))
    tracemalloc.start()
    snap = tracemalloc.take_snapshot()
    start, _ = tracemalloc.get_traced_memory()
    for _ in range(300):
        out = env.step(first_legal(env.action_masks()))
    now, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # A fresh observation array alone would be 256 * 66 * 34 bytes.
    assert peak - start < 20_000, tracemalloc.take_snapshot().compare_to(snap, "lineno")[:5]
    assert now - start < 5_000
    assert out[0] is not None and np.shares_memory(out[0], obs)
    assert out[4] is info and np.shares_memory(info["_final_obs"], env.terminated)
    new_ptrs = [a.__array_interface__["data"][0] for a in (out[0], env.action_masks(), env.to_act)]
    assert new_ptrs == ptrs
    if hasattr(np, "from_dlpack"):
        view = np.from_dlpack(env.obs)
        assert np.shares_memory(view, obs)


def test_bad_arguments_are_clear_errors() -> None:
    with pytest.raises(KoudianError, match="learners"):
        VecEnv("shanxi", 2, learners=4)
    with pytest.raises(KoudianError, match="learners"):
        VecEnv("shanxi", 2, learners="some")
    with pytest.raises(KoudianError, match="num_envs"):
        VecEnv("shanxi", 0)
    with pytest.raises(KoudianError, match="clever"):
        VecEnv("shanxi", 2, learners=1, opponents="clever")
    with pytest.raises(KoudianError, match="float32 only"):
        VecEnv("shanxi", 2, encoding=1)
    with pytest.raises(KoudianError, match="dtype"):
        VecEnv("shanxi", 2, obs_dtype="int8")
    with pytest.raises(KoudianError, match="on_illegal"):
        VecEnv("shanxi", 2, on_illegal="ignore")
    env = VecEnv("shanxi", 2)
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(np.zeros(2, np.int64))
    with pytest.raises(KoudianError, match="table 5"):
        env.log(5)
    with pytest.raises(KoudianError, match="not finished"):
        env.log(0, finished=True)


PYTHON_DIR = str(Path(koudian.__file__).resolve().parent.parent)


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter: a construction that aborts (as an
    allocation failure does) must not take the test session with it."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": PYTHON_DIR, "PATH": "/usr/bin:/bin"},
        check=False,
    )


def test_num_envs_above_the_bound_is_refused_not_an_abort() -> None:
    # The bound is a documented constant (docs/rl.md); above it every
    # value is a KoudianError naming num_envs, before anything is
    # allocated (10**7 used to abort the interpreter, 2**62 to panic).
    assert VecEnv.MAX_ENVS == 65_536
    out = run_python(
        """
        import koudian
        for n in (koudian.VecEnv.MAX_ENVS + 1, 10**7, 2**62, 2**64 - 1, 2**64, 2**70, -1, 0):
            try:
                koudian.VecEnv("shanxi", n)
            except koudian.KoudianError as e:
                assert "num_envs" in str(e) and "65536" in str(e), str(e)
                print("refused", n)
            else:
                print("accepted", n)
        """
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[:-1] == [
        f"refused {n}" for n in (65_537, 10**7, 2**62, 2**64 - 1, 2**64, 2**70, -1, 0)
    ]


def test_an_allocation_that_fails_below_the_bound_is_a_memory_error() -> None:
    # With the address space capped, the largest env allowed cannot be
    # allocated: a MemoryError the caller can catch, never an abort.
    out = run_python(
        """
        import resource, koudian
        vm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize"))
        cap = vm * 1024 + (200 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        for dtype in ("uint8", "float32"):
            try:
                koudian.VecEnv("shanxi", koudian.VecEnv.MAX_ENVS, obs_dtype=dtype, threads=1)
            except MemoryError as e:
                print("MemoryError", dtype, e)
        env = koudian.VecEnv("shanxi", 4, threads=1)
        env.reset()
        print("still usable", env.num_envs)
        """
    )
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert [x.split()[:2] for x in lines[:2]] == [
        ["MemoryError", "uint8"],
        ["MemoryError", "float32"],
    ]
    assert lines[2] == "still usable 4"


@pytest.mark.parametrize("bad", [True, False])
def test_a_bool_is_not_a_count_nor_a_seat(bad: bool) -> None:
    with pytest.raises(KoudianError, match=r"num_envs.*bool"):
        VecEnv("shanxi", bad)
    with pytest.raises(KoudianError, match=r"learners.*bool"):
        VecEnv("shanxi", 2, learners=bad)
    with pytest.raises(KoudianError, match="num_envs"):
        VecEnv("shanxi", np.bool_(bad))  # type: ignore[arg-type]


def test_the_gymnasium_wrapper_refuses_what_the_raw_env_refuses() -> None:
    pytest.importorskip("gymnasium")
    import koudian.vector

    envs = koudian.vector.KoudianVectorEnv("shanxi", num_envs=2, seed=3, threads=1)
    raw = VecEnv("shanxi", 2, seed=3, threads=1)
    envs.reset(seed=3)
    raw.reset(seed=3)
    legal = envs.action_masks().argmax(1)
    bad_inputs = [
        legal + 0.7,  # float64: 3.7 is not action 3
        legal.astype(np.float32),
        legal.astype(bool),
        legal.astype(str),
        [float(a) for a in legal],
        [True, False],
        ["3", "4"],
        np.array([2**63, 0], dtype=np.uint64),
        [2**70, 0],
    ]
    for bad in bad_inputs:
        with pytest.raises(IllegalActionError, match="actions"):
            envs.step(bad)  # type: ignore[arg-type]
        with pytest.raises(IllegalActionError):
            raw.step(np.asarray(bad))
    # Nothing was played: the envs still agree, and integer actions of
    # any width (a list, int8, uint16) are played as the raw env plays
    # int64.
    assert np.array_equal(envs.env.obs, raw.obs)
    for a in (list(legal), legal.astype(np.int8)):
        envs.reset(seed=3)
        obs, *_ = envs.step(a)  # type: ignore[arg-type]
        raw.reset(seed=3)
        want, *_ = raw.step(legal.astype(np.int64))
        assert np.array_equal(obs, want)


def test_the_pettingzoo_env_refuses_a_non_integer_action() -> None:
    pytest.importorskip("pettingzoo")
    from koudian.env import KoudianEnv

    env = KoudianEnv("shanxi")
    env.reset(seed=1)
    index = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    for bad in (index + 0.7, float(index), True, str(index), np.float64(index)):
        with pytest.raises(IllegalActionError):
            env.step(bad)  # type: ignore[arg-type]
    env.step(np.int64(index))  # type: ignore[arg-type]
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


def test_version_1_float32_matches_the_pettingzoo_planes() -> None:
    env = VecEnv("shanxi", 4, encoding=1, obs_dtype="float32", seed=8)
    obs, _ = env.reset()
    assert obs.shape == (4, 29, 34)
    check_tables_against_replay(env, obs)


def test_gymnasium_wrapper_and_its_example() -> None:
    pytest.importorskip("gymnasium")
    import koudian.vector

    failures, tried = doctest.testmod(koudian.vector, raise_on_error=False)
    assert tried > 0 and failures == 0
    envs = koudian.vector.KoudianVectorEnv("shanxi", num_envs=8, seed=3)
    obs, _ = envs.reset(seed=3)
    assert envs.single_observation_space.contains(obs[0])
    assert envs.observation_space.shape == (8, 66, 34)
    assert envs.action_space.shape == (8,)
    actions = envs.action_masks().argmax(1).astype(np.int32)
    obs, *_ = envs.step(actions)
    assert envs.observation_space.contains(obs)
    assert (envs.to_act >= 0).all()


def test_env_bench_measures_every_case() -> None:
    pytest.importorskip("pettingzoo")
    from koudian._bench_env import env_report, run_env_bench, writer_isa

    results = run_env_bench(seconds=0.01, repeat=2, pz_steps=200, sizes=(8,), writer_scale=0.02)
    isa = writer_isa()
    # The row writer's cases: each encoding and dtype on this process's
    # instruction set and on the scalar path (none when that is scalar).
    writer = 0 if isa == "scalar" else 10
    assert [r.case.split()[0] for r in results] == ["PettingZoo"] + ["VecEnv"] * (6 + writer)
    assert sum("2 envs at once" in r.case for r in results) == 2
    assert all(r.rate > 0 and len(r.round_rates) == 2 for r in results)
    report = env_report(results)
    assert "vs PettingZoo" in report
    # One scaling line per learner setting, each beside its host ceiling.
    scaling = [line for line in report.splitlines() if "threads=2 / threads=1" in line]
    assert len(scaling) == 2
    assert all("host ceiling, 2 envs at once / 1 env" in line for line in scaling)
    # One writer line per encoding and dtype, naming the instruction set.
    lines = [line for line in report.splitlines() if " writer / scalar path: " in line]
    assert len(lines) == writer // 2
    assert all(line.split()[2] == isa for line in lines)
    assert any(line.startswith("v2 uint8 ") for line in lines) or isa == "scalar"


def hand_shanten(g: koudian.Game, seat: int) -> int:
    h = g.hand(seat)
    return koudian.shanten(h.tiles, melds=h.melds, wildcards=g.wilds, rules=g.rules)


@pytest.mark.parametrize(("preset", "learners"), [("shanxi-haozi", "all"), ("shanxi", 1)])
def test_shanten_shaping_is_the_documented_difference(preset: str, learners: str | int) -> None:
    """``reward_shaping="shanten"``: each learner decision after which the
    hand goes on earns ``scale * (shanten before - after)`` of the acting
    seat's hand, recomputed here from each table's log; the hand-ending
    one the settlement delta alone; off by default."""
    n, scale = 6, 0.5
    env = VecEnv(
        preset,
        n,
        learners=learners,
        seed=4,
        threads=1,
        reward_shaping="shanten",
        shaping_scale=scale,
    )
    plain = VecEnv(preset, n, learners=learners, seed=4, threads=1)
    env.reset()
    plain.reset()
    rng = np.random.default_rng(2)
    shaped = ended = 0
    for _ in range(120):
        actions = random_legal(env.action_masks(), rng)
        before = []
        for i in range(n):
            g = koudian.replay(env.log(i))
            seat = int(env.to_act[i])
            after_game = g.copy()
            after_game.step(koudian.Action.from_index(int(actions[i])))
            done = after_game.done
            before.append((done, scale * (hand_shanten(g, seat) - hand_shanten(after_game, seat))))
        _, reward, terminated, _, _ = env.step(actions)
        _, plain_reward, _, _, _ = plain.step(actions)
        for i, (done, want) in enumerate(before):
            assert done <= terminated[i]
            if terminated[i]:
                assert reward[i] == plain_reward[i]
                ended += 1
            else:
                assert reward[i] == pytest.approx(want), i
                assert plain_reward[i] == 0.0
                shaped += int(want != 0)
    assert shaped > 0 and ended > 0
    with pytest.raises(KoudianError, match="reward_shaping"):
        VecEnv("shanxi", 1, reward_shaping="points")
    with pytest.raises(KoudianError, match="finite"):
        VecEnv("shanxi", 1, reward_shaping="shanten", shaping_scale=float("nan"))
