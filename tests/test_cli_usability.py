"""The command line as a new user meets it: one ruleset argument with
option overrides, validation before any output, Ctrl-C, readable summaries
and help (issue #26, items 1-9)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import koudian
import pytest
from koudian.cli import main
from koudian.simulation import SimulationInterrupted, agent_labels

BOT = str(Path(__file__).parent / "bots" / "first_legal_bot.py")
_KOUDIAN = [sys.executable, "-m", "koudian"]
ARENA = ["arena", "--agents", "greedy,random,random,random"]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# -- 3: one ruleset argument, the same in every subcommand, with --set


def test_set_reproduces_the_readme_special_hands_value(capsys: pytest.CaptureFixture[str]) -> None:
    # The README's hand_value example: 20 = 5 x 4 with special_hands on.
    code, out, _ = run(
        ["analyze", "11123455678999m", "--win-tile", "5m", "--set", "special_hands=true"], capsys
    )
    assert code == 0
    assert "by self-draw: 20 = 5 × 4" in out
    code, out, _ = run(["analyze", "11123455678999m", "--win-tile", "5m"], capsys)
    assert "by self-draw: 10 = 5 × 2" in out


def test_every_subcommand_takes_a_ruleset_file_and_overrides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(koudian.Ruleset.preset("linxian").to_toml(), encoding="utf-8")
    code, out, _ = run(["rules", "--rules", str(path), "--set", "ting_min_points=4"], capsys)
    assert code == 0 and "ting_min_points = 4" in out and 'family = "linxian"' in out
    code, out, _ = run(["rules", str(path)], capsys)
    assert code == 0 and "ting_min_points = 3" in out
    code, out, _ = run(["analyze", "123m456p789s1155z", "--rules", str(path)], capsys)
    assert code == 0 and "waits" in out
    code, out, _ = run(
        ["simulate", "--rules", str(path), "--set", "leave_penalty=20", "--hands", "8", "--quiet"],
        capsys,
    )
    assert code == 0 and f"rules {path} --set leave_penalty=20" in out
    code, out, _ = run(
        [*ARENA, "--rules", str(path), "--set", "leave_penalty=20", "--deals", "2", "--quiet"],
        capsys,
    )
    assert code == 0 and f"rules {path} --set leave_penalty=20, 2 deals" in out


@pytest.mark.parametrize(
    ("override", "needle"),
    [
        ("special_hand=true", "special_hands"),  # the closest name suggested
        ("ting_min_points=yes", "ting_min_points"),
        ("novalue", "KEY=VALUE"),
    ],
)
def test_bad_overrides_are_refused_by_the_core_ruleset(
    override: str, needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["rules"],
        ["analyze", "123m456p789s1155z"],
        ["simulate", "--hands", "2"],
        [*ARENA, "--deals", "2"],
        ["arena", "--ladder", "greedy,random", "--deals", "2"],
    ):
        code, out, err = run([*argv, "--set", override], capsys)
        assert code == 2 and out == "", argv
        assert needle in err and "Traceback" not in err


# -- 2 and 4: everything is checked before anything is printed


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--agents", "greedy,rnd,random,random", "--hands", "5"],
        ["simulate", "--hands", "5", "--log", "/nonexistent-dir/x.jsonl"],
        ["simulate", "--hands", "5", "--rules", "shanxy"],
        [*ARENA, "--deals", "5", "--rules", "shanxy"],
        [*ARENA, "--deals", "5", "--set", "special_hand=true"],
        ["arena", "--agents", "greedy,rnd,random,random", "--deals", "5"],
        ["arena", "--ladder", "greedy,random", "--deals", "5", "--rules", "shanxy"],
    ],
)
def test_simulate_refuses_before_drawing_the_progress_bar(argv: list[str]) -> None:
    p = subprocess.run(
        [sys.executable, "-m", "koudian", *argv], capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 2
    assert p.stdout == ""
    assert "%|" not in p.stderr and "hands/s" not in p.stderr  # no bar, no counter
    assert "deal/s" not in p.stderr
    assert p.stderr.count("koudian: error:") == 1


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["analyze", "123m456p789s11122z", "--win-tile", "5z"], "not in the hand"),
        (["analyze", "123m456p789s11122z", "--win-tile", "9z"], "rank must be 1-7"),
        (["analyze", ""], "empty"),
        (["analyze", "11111m234p567s789s"], "5 copies of 1m"),
        (["analyze", "123m456p789s1z"], "a hand needs"),
        (["analyze", "123m456p789s1155z", "--rules", "sichuan"], "honor"),
    ],
)
def test_analyze_prints_nothing_before_refusing(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2
    assert out == ""
    assert err.count("koudian: error:") == 1 and needle in err


def test_analyze_under_sichuan_shows_what_sichuan_uses(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["analyze", "112233m456789m99p", "--rules", "sichuan"], capsys)
    assert code == 0
    assert "缺一门" in out and "no 条" in out
    assert "pattern value" in out
    assert "ting" not in out and "best" not in out  # Koudian-only columns
    code, out, _ = run(["analyze", "12233m456789m99p", "--rules", "sichuan"], capsys)
    assert code == 0 and "查叫" in out and "pattern value" in out
    # 1m wins a plain 平胡 (1), 4m a 清一色... no: the pair is 9p, so 1 point.
    assert "1m(1)" in out and "4m(1)" in out


def test_analyze_names_three_suits_as_no_win_under_sichuan(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(["analyze", "123m456p789s11122s", "--rules", "sichuan"], capsys)
    assert code == 0 and "all three suits" in out and "win      no" in out


# -- 1: Ctrl-C


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("agents", ["random", f"cmd:{sys.executable} {BOT},random,random,random"])
def test_ctrl_c_prints_the_summary_of_the_hands_played(agents: str, tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    p = subprocess.Popen(
        [*_KOUDIAN, "simulate", "--agents", agents, "--hands", "100000000", "--log", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=True,  # a process group of its own, as at a terminal
    )
    try:
        # Wait until hands are being played (the log grows), then Ctrl-C.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not log.exists() or log.stat().st_size < 10_000):
            time.sleep(0.1)
        # A terminal's Ctrl-C: SIGINT to the whole foreground process
        # group, bots included.
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert "interrupted:" in out and "of 100000000 hands played" in out
    assert "fault" not in out  # the bots were not hit by the Ctrl-C
    played = int(out.split("interrupted: ")[1].split(" of")[0])
    assert played > 0
    # The log holds exactly the hands the summary counts.
    text = log.read_text(encoding="utf-8")
    assert text.count('"type":"header"') == played


def test_simulate_raises_an_interrupt_that_carries_the_hands_played() -> None:
    calls = []

    def progress(n: int) -> None:
        calls.append(n)
        if len(calls) == 2:
            raise KeyboardInterrupt

    with pytest.raises(SimulationInterrupted) as e:
        koudian.simulate("shanxi", ["random"] * 4, 100_000, seed=3, chunk=500, progress=progress)
    r = e.value.result
    assert isinstance(e.value, KeyboardInterrupt)
    assert r.interrupted and r.requested == 100_000
    assert r.hands == 1000  # the two chunks finished
    full = koudian.simulate("shanxi", ["random"] * 4, 1000, seed=3)
    assert (full.deltas == r.deltas).all()  # the same games, in order
    assert "interrupted: 1000 of 100000 hands played" in r.summary()


# -- 5, 6, 8: the summary


def test_agent_names_are_readable_and_numbered_when_equal() -> None:
    bot = "cmd:python3 -u examples/my_bot.py --seed 1"
    assert agent_labels([bot, bot, "random", "random"]) == [
        "cmd:my_bot.py #1",
        "cmd:my_bot.py #2",
        "random",
        "random",
    ]
    assert agent_labels(["cmd:./bots/a_long_named_bot_binary", "cmd:node b.js", "greedy", "x"])[
        :2
    ] == ["cmd:a_long_named_bot_binary", "cmd:b.js"]


def test_summary_columns_name_their_base() -> None:
    r = koudian.simulate("shanxi", ["greedy", "random", "random", "random"], 400, seed=2)
    text = r.summary()
    assert "win %" in text and "of hands" in text
    assert "self-draw %" in text and "of wins" in text
    for s in range(4):
        row = next(line for line in text.splitlines() if line.startswith(f"   {s}  "))
        if r.wins[s] == 0:
            assert " - " in row  # no share of zero wins
    assert "包胡 paid" in text


def test_a_hand_value_names_its_patterns_as_its_game_says_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The same seven pairs: 七对 in Sichuan (docs/rules.md §5), 七小对 elsewhere.
    hand, tile = "11223344p556677s", koudian.Tile.S7
    sichuan = koudian.hand_value(hand, tile, self_draw=False, rules="sichuan")
    special = koudian.Ruleset.preset("shanxi", special_hands=True)
    shanxi = koudian.hand_value(hand, tile, self_draw=False, rules=special)
    assert "七对 (seven pairs)" in str(sichuan) and "七小对" not in str(sichuan)
    assert main(["analyze", hand, "--rules", "sichuan"]) == 0
    out = capsys.readouterr().out
    assert "七对 (seven pairs)" in out and "七小对" not in out
    assert "七小对 (seven pairs)" in str(shanxi)


def test_sichuan_summary_uses_sichuan_terms_and_has_no_baohu_column() -> None:
    r = koudian.simulate("sichuan", ["greedy"] * 4, 3000, seed=1)
    text = r.summary()
    assert "包胡" not in text
    assert "七对 seven pairs" in text and "七小对" not in text
    assert "杠上开花" not in text
    assert "杠上花" in "".join(r.patterns)
    shanxi = koudian.simulate("shanxi", ["greedy"] * 4, 300, seed=1)
    assert "杠上开花" in "".join(shanxi.patterns) or not shanxi.patterns


# -- 7: help


@pytest.mark.parametrize("command", ["rules", "analyze", "bench", "simulate", "arena"])
def test_every_subcommand_help_has_an_example(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "examples:" in out and f"koudian {command}" in out.split("examples:")[1]
    if command == "rules":
        for name in ("shanxi-feng-haozi", "linxian", "sichuan"):
            assert name in out
    if command == "bench":
        assert "host ceiling" in out


@pytest.mark.parametrize("command", ["simulate", "arena"])
def test_negative_threads_are_refused_in_words(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as e:
        main([command, "--threads", "-1"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "threads must be ≥ 0" in err and "2**64" not in err


@pytest.mark.parametrize("command", ["simulate", "arena"])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e9"])
def test_a_timeout_out_of_range_is_refused_in_words(
    command: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as e:
        main([command, "--timeout", value])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "argument --timeout" in err and "Traceback" not in err


# -- 9: Chinese numeral runs


def test_chinese_numeral_runs_are_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    assert koudian.fmt(koudian.parse("四五六筒")) == "456p"
    code, out, _ = run(["analyze", "一二三万四五六筒七八九条东东东南"], capsys)
    assert code == 0 and "123m456p789s1112z" in out


# -- issue 39: the dataset line and every built-in agent in every help text


def test_the_dataset_line_counts_the_rows_recorded_and_says_whose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow")
    from koudian import dataset

    d = tmp_path / "ds"
    argv = ["simulate", "--hands", "30", "--seed", "4", "--agents", "greedy"]
    code, out, _ = run([*argv, "--record", str(d), "--record-seats", "0"], capsys)
    assert code == 0
    rows = dataset.open(d).count_rows()
    line = next(x for x in out.splitlines() if x.startswith("dataset:"))
    assert line == f"dataset: {rows} rows (seat 0's decisions) from 30 hands in {d}"
    d2 = tmp_path / "all"
    code, out, _ = run([*argv, "--record", str(d2)], capsys)
    rows = dataset.open(d2).count_rows()
    line = next(x for x in out.splitlines() if x.startswith("dataset:"))
    assert line == f"dataset: {rows} rows (every seat's decisions) from 30 hands in {d2}"


@pytest.mark.parametrize("command", ["simulate", "arena", "serve", "review"])
def test_every_help_text_lists_every_built_in_agent(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from koudian.agents import BUILTIN_AGENTS

    assert {"random", "greedy", "mc"} <= set(BUILTIN_AGENTS)
    for name in BUILTIN_AGENTS:
        koudian.NativeAgent(name)  # each name is one the core knows
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for name in BUILTIN_AGENTS:
        assert re.search(rf"\b{name}\b", out), (command, name)
