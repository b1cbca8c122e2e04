"""One game loop: every entry point plays its hands through the core's
loop (``koudian_core::simulate::play_out``), Python and ``cmd:`` agents
included (the binding's ``PyAgent``). A Python agent that answers what
greedy answers gives the very hands of native greedy through
``simulate``, ``arena``, ``Match``, ``koudian.play`` and a web table; no
module of the package steps a ``Game`` in a loop of its own; Ctrl-C
stops a run of a ``cmd:`` bot with the finished part reported."""

from __future__ import annotations

import ast
import io
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import koudian
import numpy as np
import pytest
from koudian import Action, Observation
from koudian.agents import make_agent
from test_arena_runs import bot, check_stopped, interrupt, posix_only

PACKAGE = Path(koudian.__file__).resolve().parent


class WrappedGreedy:
    """A Python agent answering what koudian's greedy agent answers."""

    def __init__(self) -> None:
        self.greedy = make_agent("greedy")
        self.calls = 0

    def reset(self, seed: int) -> None:
        self.greedy.reset(seed)  # type: ignore[attr-defined]

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        self.calls += 1
        return self.greedy.act(observation, legal_actions)


def test_simulate_with_a_python_greedy_plays_native_greedys_hands() -> None:
    for rules in ["shanxi", "linxian", "sichuan"]:
        logs = []
        for agents in ([WrappedGreedy(), "greedy", WrappedGreedy(), "greedy"], ["greedy"] * 4):
            log = io.StringIO()
            res = koudian.simulate(rules, agents, 12, seed=5, threads=1, log=log)
            cols = (res.kind, res.deltas, res.baohu, res.decisions, res.fault_hands)
            logs.append((log.getvalue(), res.patterns, *(c.tolist() for c in cols)))
        assert logs[0] == logs[1], rules
        assert logs[0][0].count('"type":"end"') + logs[0][0].count('"type": "end"') == 12


def test_the_arena_with_a_python_greedy_keeps_native_greedys_records() -> None:
    wrapped = WrappedGreedy()
    py = koudian.arena([wrapped, "greedy", "greedy", "greedy"], "shanxi", 4, seed=3, luck="keep")
    nat = koudian.arena(["greedy"] * 4, "shanxi", 4, seed=3)
    assert wrapped.calls > 0
    for c in ("deal", "seat", "delta", "won", "self_draw", "ting", "dealt_in", "baohu_paid"):
        a, b = py.records[c], nat.records[c]
        # Four greedy make no reference table: compare the rotations.
        a = a.reshape(4, -1, 4)[:, :4].reshape(-1)
        b = b.reshape(4, -1, 4)[:, :4].reshape(-1)
        assert np.array_equal(a, b), c
    assert not py.faults


def test_a_match_with_a_python_greedy_plays_native_greedys_hands() -> None:
    logs = []
    for agents in ([WrappedGreedy(), WrappedGreedy(), "greedy", "greedy"], ["greedy"] * 4):
        with koudian.Match("sichuan", agents, seed=9, hands=4) as m:
            m.play()
            logs.append((m.logs, m.totals, [r.deltas for r in m.results]))
    assert logs[0] == logs[1]


def test_play_with_a_python_greedy_plays_native_greedys_hand() -> None:
    logs = []
    for agents in ([WrappedGreedy(), "greedy", "greedy", WrappedGreedy()], ["greedy"] * 4):
        g = koudian.Game("shanxi", seed=21)
        r = koudian.play(g, agents)
        logs.append((g.log, g.moves, r.deltas))
    assert logs[0] == logs[1]


def test_a_web_table_with_python_greedy_bots_plays_native_greedys_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from koudian.web import tables

    def play(python_bots: bool) -> list[Any]:
        if python_bots:
            monkeypatch.setattr(tables, "make_agent", lambda spec, **kw: WrappedGreedy())
        else:
            monkeypatch.setattr(tables, "make_agent", make_agent)
        config = tables.TableConfig({"greedy": "greedy"}, client_seeds=True)
        table = tables.Table(config)
        msg = {"type": "new", "preset": "shanxi", "seat": 1, "opponents": ["greedy"] * 3}
        out = table.handle(json.dumps({**msg, "seed": 17, "hands": 2}))
        seen = []
        for _ in range(2):
            while out[-1]["type"] == "act":
                seen.append(out[-1])
                # The human plays the first legal action.
                out = table.handle(json.dumps({"index": out[-1]["legal_actions"][0]["index"]}))
                assert out[-1]["type"] != "error", out
            seen.append(out[-1])
            out = table.handle('{"type": "next"}')
        return seen

    assert play(True) == play(False)


# ------------------------------------------------------------ one owner


# Modules allowed to call ``.step(``: none steps a table in a loop.
# ``web/tables.py`` plays the human's own action (one step per client
# message); ``env.py`` and ``vector.py`` are the RL environments, whose
# caller steps them (one step per call); ``_bench_env.py`` times those
# environments as their learner would step them; ``rooms/room.py`` folds a
# room's log, one logged action per ``act`` event (the action was chosen
# before it was written: by a person, or by a bot asked once per move).
STEP_ALLOWED = {"web/tables.py", "env.py", "vector.py", "_bench_env.py", "rooms/room.py"}


def _is_step_or_act(node: ast.AST) -> bool:
    """``X.step(...)`` or ``X.act(...)``, but an RL environment's
    ``env.step`` (its learner steps it: the benchmark's loop is the
    learner's)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("step", "act")
        and not (isinstance(node.func.value, ast.Name) and node.func.value.id == "env")
    )


def _step_calls_in_loops(tree: ast.AST) -> list[int]:
    """Lines of step or act calls inside a ``for`` or ``while`` loop."""
    return sorted(
        {
            node.lineno
            for loop in ast.walk(tree)
            if isinstance(loop, (ast.For, ast.While, ast.AsyncFor))
            for node in ast.walk(loop)
            if _is_step_or_act(node)
        }
    )


def test_no_module_steps_a_game_in_a_loop_of_its_own() -> None:
    """The game loop is the core's: no module loops over ``.step(`` or an
    agent's ``.act(`` (a loop asking agents is a game loop), and only the
    allowed modules step a table at all."""
    looping, stepping = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text())
        looping += [f"{rel}:{line}" for line in _step_calls_in_loops(tree)]
        steps = any(
            _is_step_or_act(n) and n.func.attr == "step"  # type: ignore[attr-defined]
            for n in ast.walk(tree)
        )
        if steps and rel not in STEP_ALLOWED:
            stepping.append(rel)
    assert looping == []
    assert stepping == []


def test_the_fallback_rule_is_the_cores() -> None:
    from koudian import _core
    from koudian.faults import fallback_action

    assert _core.fallback_action([Action("leave")]) == Action("leave")
    assert _core.fallback_action([Action("leave"), Action("win")]) == Action("win")
    assert fallback_action([Action("leave"), Action("pass")]) == Action("pass")
    with pytest.raises(ValueError):
        fallback_action([])
    source = (PACKAGE / "faults.py").read_text()
    assert "_core.fallback_action" in source or "core_fallback" in source
    assert "min(" not in source


def test_a_python_agents_exception_stops_the_run_unchanged() -> None:
    class Boom(Exception):
        pass

    class Raises:
        def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
            raise Boom("no")

    with pytest.raises(Boom):
        koudian.simulate("shanxi", [Raises(), "greedy", "greedy", "greedy"], 3)
    with pytest.raises(Boom):
        koudian.play(koudian.Game("shanxi", seed=1), [Raises()] * 4)


def test_a_non_action_answer_is_a_fault_with_its_repr() -> None:
    class Text:
        def act(self, observation: Observation, legal_actions: Sequence[Action]) -> object:
            return "discard 5m?"

    faults: list[koudian.Fault] = []
    g = koudian.Game("shanxi", seed=2)
    koudian.play(g, [Text(), "greedy", "greedy", "greedy"], faults.append)
    assert faults and all(f.seat == 0 and f.kind == "illegal" for f in faults)
    assert faults[0].detail == "'discard 5m?' is not legal here"


# ------------------------------------------------------------ Ctrl-C


@posix_only
def test_ctrl_c_stops_a_simulate_of_an_external_bot(tmp_path: Path) -> None:
    agents = f"{bot('first_legal_bot.py')},greedy,greedy,greedy"
    code, out, err, took = interrupt(["simulate", "--agents", agents, "--hands", "1000000"])
    check_stopped(code, out, err, took)


@posix_only
def test_ctrl_c_stops_an_arena_of_an_external_bot_started_from_python() -> None:
    agents = f"{bot('first_legal_bot.py')},greedy,greedy,greedy"
    args = ["arena", "--agents", agents, "--deals", "100000", "--luck", "keep"]
    code, out, err, took = interrupt(args)
    check_stopped(code, out, err, took)
    assert sys.executable
