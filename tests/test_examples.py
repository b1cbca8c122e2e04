"""The examples/ folder works as its docstrings say (issue #26, item 15):
the external bot declares ting and wins against random bots, the Python
agent plays a Match, and the step-by-step script prints the table."""

from __future__ import annotations

import io
import os
import runpy
import subprocess
import sys
import tarfile
from contextlib import redirect_stdout
from pathlib import Path

import koudian
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
BOT = f"cmd:{sys.executable} {EXAMPLES / 'my_bot.py'}"
_SIMULATE = [sys.executable, "-m", "koudian", "simulate"]


def _example(name: str) -> dict[str, object]:
    return runpy.run_path(str(EXAMPLES / name), run_name="example")


@pytest.mark.parametrize("rules", ["shanxi", "linxian"])
def test_my_bot_declares_ting_and_wins_against_random_bots(rules: str) -> None:
    log = io.StringIO()
    bot = BOT if rules == "shanxi" else f"{BOT} --rules {rules}"
    r = koudian.simulate(rules, [bot, "random", "random", "random"], 16, seed=3, log=log)
    assert not r.faults, r.faults[:3]
    assert r.wins[0] >= 3, r.summary()  # random bots never declare, so rarely win
    assert r.wins[0] > r.wins[1:].sum()
    assert r.ting[:, 0].sum() >= r.wins[0]  # every win of seat 0 was declared first
    text = log.getvalue()
    assert '"seat":0,"action":"ting"' in text


def test_my_bot_runs_from_the_command_line_as_the_readme_says() -> None:
    p = subprocess.run(
        [*_SIMULATE, "--agents", f"{BOT},random,random,random", "--hands", "6", "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert "cmd:my_bot.py" in p.stdout


def test_the_python_agent_plays_a_match() -> None:
    ns = _example("match_agent.py")
    agent = ns["WaitCounter"]("linxian")  # type: ignore[operator]
    assert isinstance(agent, koudian.Agent)
    m = koudian.Match("linxian", [agent, "greedy", "greedy", "greedy"], hands=4, seed=2)
    totals = m.play()
    assert sum(totals) == 0 and m.hands_played == 4
    assert not m.faults
    out = io.StringIO()
    with redirect_stdout(out):
        ns["main"]()  # type: ignore[operator]
    assert "totals after" in out.getvalue()


def test_the_step_by_step_script_prints_seat_0s_table() -> None:
    ns = _example("step_by_step.py")
    out = io.StringIO()
    with redirect_stdout(out):
        result = ns["main"]("shanxi", 7)  # type: ignore[operator]
    text = out.getvalue()
    assert isinstance(result, koudian.GameResult)
    assert text.count("seat 0 sees") == text.count(">>> seat 0 plays")
    assert text.count("seat 0 sees") > 5
    assert f"end: {result!r}" in text


@pytest.mark.skipif("KOUDIAN_SDIST" not in os.environ, reason="needs the sdist")
def test_the_sdist_ships_the_examples() -> None:
    with tarfile.open(os.environ["KOUDIAN_SDIST"]) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    for f in ("examples/my_bot.py", "examples/match_agent.py", "examples/step_by_step.py"):
        assert f in names
