"""The `koudian` command line: --version, rules, analyze, bench."""

from __future__ import annotations

import subprocess
import sys

import koudian
import pytest
from koudian.cli import main

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"koudian {koudian.__version__}"


@pytest.mark.parametrize("preset", ["shanxi", "shanxi-double-haozi", "linxian", "sichuan"])
def test_rules_prints_the_preset_as_toml(preset: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", preset]) == 0
    data = tomllib.loads(capsys.readouterr().out)
    assert koudian.Ruleset.from_dict(data) == koudian.Ruleset.preset(preset)


def test_rules_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--list"]) == 0
    assert "shanxi-feng-haozi" in capsys.readouterr().out.split()


def test_analyze_a_winning_hand(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "123m456p789s11122z"]) == 0
    out = capsys.readouterr().out
    assert "🀇🀈🀉" in out and "win      yes" in out
    assert "standard: 123m 456p 789s 111z 22z" in out
    assert "shanten  -1" in out and "by self-draw: 20" in out
    assert "discard" in out


def test_analyze_a_waiting_hand_with_wildcards(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "123m456p789s1155z", "--wild", "7z"]) == 0
    out = capsys.readouterr().out
    assert "shanxi-haozi" in out and "shanten  0" in out
    assert "🀄 7z(10)" in out and "🀀 1z(10)" in out


def test_analyze_discard_table_shows_ting(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "123m456p789s78m111z"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("🀀 1z"))
    assert "yes" in line and "6m(6)" in line and "9m(9)" in line


def test_analyze_with_melds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "123m456p789s22z", "--melds", "[1111z]"]) == 0
    assert "(1111z)" in capsys.readouterr().out


def test_analyze_errors_are_reported_not_raised(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "123m456p789s11x"]) == 2
    assert "'x' at position 14" in capsys.readouterr().err
    assert main(["analyze", "123m"]) == 2
    assert "needs 13" in capsys.readouterr().err


def test_bench_runs_on_a_few_hands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--hands", "300", "--repeat", "1", "--quiet", "--peers"]) == 0
    out = capsys.readouterr().out
    host = out.splitlines()[0]
    assert host.startswith("host: ") and " CPUs, load average " in host
    assert f"koudian {koudian.__version__}" in host
    for task in ("is_win (0 wild)", "waits (2 wild)", "shanten (1 wild)"):
        assert task in out
    assert "threads=2" in out
    # 3 tasks x 0/1/2 wild kinds, plus the host ceiling of each task
    assert out.count("Rust core batch, timed in Rust") == 9
    assert out.count("Rust core batch, 2 calls at once") == 3
    scaling = out.split("thread scaling (same run):")[1].splitlines()[1:]
    assert len(scaling) == 9
    assert all("threads=2 / threads=1:" in line for line in scaling)
    assert all(line.count("by round") == 1 + ("host ceiling" in line) for line in scaling)
    assert sum("host ceiling" in line for line in scaling) == 3


def test_paired_ratio_is_the_median_of_each_rounds_own_ratio() -> None:
    """A busy moment that slows both cases of a round leaves that round's
    ratio alone; the ratio of the best rounds can pair a quiet moment of
    one case with a busy one of the other."""
    from koudian._bench import Measurement, paired_ratio

    def case(rates: tuple[float, ...]) -> Measurement:
        return Measurement("t", "koudian", "m", max(rates), rates)

    # Round 2 was quiet for the one-thread case only: best/best says 1.5,
    # every round itself says 2.
    two = case((20.0, 10.0, 30.0))
    one = case((10.0, 5.0, 15.0))
    one_quiet = case((10.0, 5.0, 20.0))
    assert paired_ratio(two, one) == 2.0
    assert two.rate / one_quiet.rate == 1.5
    assert paired_ratio(two, one_quiet) == 2.0  # median of 2, 2, 1.5
    assert paired_ratio(case((4.0, 6.0)), case((2.0, 2.0))) == 2.5  # even count: mean of middle two
    # Without the same rounds, the best rates.
    assert paired_ratio(case((8.0,)), case((2.0, 4.0))) == 2.0


def test_round_times_keeps_every_round_in_order() -> None:
    from koudian._bench import _Timed, best_times, round_times

    seconds = iter([0.3, 0.1, 0.2])

    def timed() -> object:
        return _Timed(next(seconds))

    assert round_times([timed], repeat=3) == [[0.3, 0.1, 0.2]]
    seconds = iter([0.3, 0.1, 0.2])
    assert best_times([timed], repeat=3) == [0.1]
    # Every other round in reverse: neither neighbour always goes first.
    calls: list[str] = []
    runs = [lambda: calls.append("a"), lambda: calls.append("b"), lambda: calls.append("c")]
    times = round_times(runs, repeat=3)
    assert "".join(calls) == "abccbaabc"
    assert [len(t) for t in times] == [3, 3, 3]


def test_core_timing_runs_the_batch_and_refuses_unknown_tasks() -> None:
    import numpy as np
    from koudian import _core
    from koudian._bench import make_counts

    counts = make_counts(2000, size=14)
    assert 0.0 < _core._bench.time_batch("is_win", counts, wildcards=(31,)) < 5.0
    assert _core._bench.time_batch("shanten", make_counts(500, size=13)) > 0.0
    assert _core._bench.time_batch("waits", make_counts(500, size=13), copies=2) > 0.0
    with pytest.raises(ValueError, match="copies must be"):
        _core._bench.time_batch("is_win", counts, copies=0)
    with pytest.raises(ValueError, match="task must be"):
        _core._bench.time_batch("riichi", counts)
    bad = np.zeros((3, 34), dtype=np.int64)
    with pytest.raises(ValueError, match="uint8"):
        _core._bench.time_batch("is_win", bad)


def test_python_dash_m() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "koudian", "analyze", "11122233344455m"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "444m" in r.stdout


def test_bench_frees_each_result_off_the_clock() -> None:
    """A run's answers are freed before the next run's timing starts: a
    million single-call results once landed in the next batch's time."""
    import time

    from koudian._bench import best_times

    class SlowToFree:
        def __del__(self) -> None:
            time.sleep(0.05)

    def quick() -> object:
        return None

    best = best_times([SlowToFree, quick], repeat=2)
    assert best[1] < 0.04  # 50 ms of freeing would show here
    assert best[0] < 0.04  # and not in the run that made the object either


def test_rules_unknown_preset_is_an_error_not_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rules", "nope"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("koudian: error: unknown preset 'nope'")
    assert "shanxi" in captured.err and "Traceback" not in captured.err


def test_analyze_usage_shows_the_hand_before_melds(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["analyze", "--help"])
    out = capsys.readouterr().out
    usage = out.split("\n\n")[0]
    assert usage.index("hand") < usage.index("--melds")
    assert "rest of the line" in out


def test_analyze_takes_a_hand_written_after_the_melds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--melds", "[1111z]", "123m456p789s22z"]) == 0
    after = capsys.readouterr().out
    assert main(["analyze", "123m456p789s22z", "--melds", "[1111z]"]) == 0
    assert capsys.readouterr().out == after
    assert "win      yes" in after


def test_analyze_without_a_hand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    # Every value is a meld (1111z could be a 4-tile hand, but it is a
    # kong): no hand is guessed.
    for argv in (["analyze"], ["analyze", "--melds", "555z", "1111z"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
        assert "required: hand" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("wild", "rules", "dealt"), [("5z", "shanxi", 0), ("5z7z", "shanxi-haozi", 1)]
)
def test_analyze_refuses_more_wild_kinds_than_the_ruleset_deals(
    wild: str, rules: str, dealt: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["analyze", "123m456p789s11255z", "--wild", wild, "--rules", rules]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # refused before any decomposition or discard table
    assert captured.err.startswith("koudian: error: --wild names")
    assert f"the ruleset {rules} deals {dealt}" in captured.err


def test_analyze_accepts_as_many_wild_kinds_as_the_ruleset_deals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["analyze", "123m456p789s11255z", "--wild", "5z7z", "--rules", "shanxi-double-haozi"]
    assert main(argv) == 0
    assert "win      yes" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["analyze", "123m456p789s11122z"],
        ["rules", "shanxi"],
        ["rules", "--list"],
        ["simulate", "--hands", "5", "--quiet"],
    ],
)
def test_output_into_a_closed_pipe_ends_quietly(argv: list[str]) -> None:
    """``koudian analyze ... | head -1``: the reader is gone before the
    command writes (its end of the pipe is closed before the start), so
    every write fails with EPIPE; no BrokenPipeError traceback."""
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "koudian", *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert proc.returncode == 1
    assert proc.stderr == ""
