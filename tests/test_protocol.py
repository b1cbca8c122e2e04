"""External bots (JSON Lines over stdin/stdout): a well-behaved bot plays
exactly the documented fallback's game; bots that crash, time out, answer
malformed JSON or illegal actions never stop the game: the fallback is
played and the fault recorded in the log and the summary."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import koudian
import numpy as np
import pytest
from koudian import Action, Observation
from koudian.agents import fallback_action
from koudian.protocol import ExternalAgent, parse_reply

BOTS = Path(__file__).parent / "bots"


def bot(name: str) -> str:
    return f"cmd:{sys.executable} {BOTS / name}"


class FallbackAgent:
    """Plays the documented fallback every time."""

    def act(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        return fallback_action(legal_actions)


def test_reply_parsing() -> None:
    assert parse_reply('{"action": "discard", "tile": "5m"}') == Action("discard", "5m")
    assert parse_reply('{"index": 139}') == Action("pass")
    assert parse_reply('{"action": "win", "why": "ignored"}') == Action("win")
    for bad in [
        "hello",
        "[1]",
        '{"action": 5}',
        '{"action": "chow"}',
        '{"index": 999}',
        '{"index": true}',
        '{"action": "discard"}',
        '{"action": "pass", "tile": 3}',
    ]:
        with pytest.raises(ValueError):
            parse_reply(bad)


def test_a_well_behaved_bot_plays_its_choices_without_faults() -> None:
    agents = [bot("first_legal_bot.py"), "random", "random", "random"]
    buf = io.StringIO()
    r = koudian.simulate("shanxi", agents, 3, seed=5, log=buf)
    assert r.faults == []
    ref = koudian.simulate("shanxi", [FallbackAgent(), *agents[1:]], 3, seed=5)
    assert np.array_equal(r.deltas, ref.deltas)
    assert np.array_equal(r.decisions, ref.decisions)
    assert '"type":"fault"' not in buf.getvalue()


@pytest.mark.parametrize(
    ("script", "kind"),
    [
        ("crash_bot.py", "crash"),
        ("slow_bot.py", "timeout"),
        ("garbage_bot.py", "malformed"),
        ("illegal_bot.py", "illegal"),
    ],
)
def test_a_faulty_bot_gets_the_fallback_and_the_fault_is_recorded(script: str, kind: str) -> None:
    agents = [bot(script), "random", "random", "random"]
    buf = io.StringIO()
    r = koudian.simulate("shanxi", agents, 2, seed=5, log=buf, timeout=0.3)
    assert r.hands == 2 and (r.deltas.sum(axis=1) == 0).all()
    kinds = {f.kind for f in r.faults}
    assert kind in kinds
    assert all(f.seat == 0 for f in r.faults)
    # The game is exactly the one the fallback plays from the first fault
    # on, so a bot that always fails plays the fallback's game.
    if script in ("garbage_bot.py", "illegal_bot.py"):
        ref = koudian.simulate("shanxi", [FallbackAgent(), *agents[1:]], 2, seed=5)
        assert np.array_equal(r.deltas, ref.deltas)
    records = [json.loads(x) for x in buf.getvalue().splitlines()]
    faults = [x for x in records if x["type"] == "fault"]
    assert len(faults) == len(r.faults) and faults[0]["seat"] == 0
    assert faults[0]["kind"] in kinds and "fallback" in faults[0]
    assert r.fault_counts()[0] == len(r.faults)
    assert "agent faults" in r.summary()


def test_a_bot_that_keeps_crashing_is_restarted_then_declared_dead() -> None:
    a = ExternalAgent(f"{sys.executable} {BOTS / 'slow_bot.py'}", timeout=0.1, max_restarts=1)
    g = koudian.Game("shanxi", seed=1)
    seat = g.to_act
    assert seat is not None
    kinds = []
    for _ in range(3):
        legal = g.legal_actions()
        assert a.act(g.observe(seat), legal) == fallback_action(legal)
        kinds += [f.kind for f in a.take_faults()]
    assert kinds == ["timeout", "timeout", "dead"]
    assert a.dead and a.restarts == 1
    a.close()


def test_a_bot_that_cannot_start_is_a_crash() -> None:
    a = ExternalAgent("/nonexistent/bot --flag")
    g = koudian.Game("shanxi", seed=1)
    seat = g.to_act
    assert seat is not None
    legal = g.legal_actions()
    assert a.act(g.observe(seat), legal) == fallback_action(legal)
    assert [f.kind for f in a.take_faults()] == ["crash"]


def test_cli_accepts_a_quoted_cmd_agent(capsys: pytest.CaptureFixture[str]) -> None:
    from koudian.cli import main

    spec = f'cmd:"{sys.executable} {BOTS / "first_legal_bot.py"}",random,random,random'
    assert main(["simulate", "--agents", spec, "--hands", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "2 hands" in out and "agent faults" not in out


def test_cli_summary_says_why_a_bot_faulted(capsys: pytest.CaptureFixture[str]) -> None:
    from koudian.cli import main

    spec = f'cmd:"{sys.executable} {BOTS / "crash_bot.py"}",random,random,random'
    args = ["simulate", "--agents", spec, "--hands", "3", "--quiet", "--timeout", "2"]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(x.startswith("agent faults (fallback played): seat 0:") for x in lines)
    why = [x for x in lines if "first fault" in x]
    assert len(why) == 1
    assert why[0] == "  seat 0 first fault: crash: the bot closed its stdout and exited with code 3"
    # The hands with those faults are not "native" faults (no native agent).
    assert not any("native faults" in x for x in lines)
    assert any(x.endswith("; faults in 3 hands") for x in lines)


def test_summary_shows_each_faulty_seats_first_fault_on_one_short_line() -> None:
    from koudian.agents import Fault

    r = koudian.simulate("shanxi", ["random"] * 4, 2, seed=1)
    r.faults = [
        Fault(2, "malformed", "reply 'x'\nis not JSON " + "y" * 300, Action("pass")),
        Fault(2, "timeout", "later", Action("pass")),
        Fault(0, "timeout", "no reply within 0.3 s", Action("pass")),
    ]
    lines = r.summary().splitlines()
    why = [x for x in lines if "first fault" in x]
    assert why[0] == "  seat 0 first fault: timeout: no reply within 0.3 s"
    assert why[1].startswith("  seat 2 first fault: malformed: reply 'x' is not JSON yyy")
    assert why[1].endswith("…") and len(why[1]) < 150
    assert len(why) == 2
