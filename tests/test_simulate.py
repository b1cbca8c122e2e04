"""Native self-play: deterministic regardless of threads and chunking,
equal to the Python-driven loop, and the `koudian simulate` CLI."""

from __future__ import annotations

import io
import json
import types
from pathlib import Path

import koudian
import numpy as np
import pytest
from koudian.cli import main
from koudian.simulation import SimulationResult

FIELDS = [
    "kind",
    "winners",
    "self_draw",
    "from_seat",
    "dealer",
    "ting",
    "deltas",
    "baohu",
    "decisions",
    "fault_hands",
]


def same(a: SimulationResult, b: SimulationResult) -> None:
    for f in FIELDS:
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    assert a.patterns == b.patterns


@pytest.mark.parametrize("preset", ["shanxi", "linxian", "sichuan"])
def test_simulate_is_deterministic_across_threads_and_chunks(preset: str) -> None:
    runs = [
        koudian.simulate(preset, ["random"] * 4, 600, seed=3, threads=t, chunk=c)
        for t, c in [(1, 600), (2, 600), (3, 97), (4, 1)]
    ]
    for r in runs[1:]:
        same(runs[0], r)
    other = koudian.simulate(preset, ["random"] * 4, 600, seed=4, threads=2)
    assert not np.array_equal(other.deltas, runs[0].deltas)


def test_default_chunks_follow_the_measured_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``chunk`` left out, the native calls grow to about
    ``_CHUNK_SECONDS`` each; the games are the same whatever the cut.

    The clock is a fake that moves 1 ms at each reading, so every call
    seems to take 1 ms whatever the host's speed (a real clock made the
    test depend on it: a fast host played the rest in one call)."""
    from koudian import _runs, simulation

    ticks = iter(range(10**6))
    clock = types.SimpleNamespace(perf_counter=lambda: next(ticks) * 0.001)
    monkeypatch.setattr(_runs, "time", clock)  # the chunks' clock (koudian._runs)
    monkeypatch.setattr(simulation, "_FIRST_CHUNK", 40)
    monkeypatch.setattr(simulation, "_CHUNK_SECONDS", 0.01)
    sizes: list[int] = []
    cut = koudian.simulate("shanxi", ["random"] * 4, 3000, seed=3, threads=2, progress=sizes.append)
    # 40 games in 1 ms: 40,000 a second, so 400 in the next 10 ms; then 4,000,
    # cut to the 2,560 left.
    assert sizes == [40, 400, 2560]
    same(cut, koudian.simulate("shanxi", ["random"] * 4, 3000, seed=3, threads=1, chunk=3000))


@pytest.mark.parametrize("preset", ["shanxi", "shanxi-double-haozi", "linxian", "sichuan"])
def test_native_simulate_equals_the_python_driven_loop(preset: str) -> None:
    names = ["random"] * 4
    native = koudian.simulate(preset, names, 60, seed=11, threads=2)
    python = koudian.simulate(preset, names, 60, seed=11, native=False)
    same(native, python)
    objects = koudian.simulate(preset, [koudian.RandomAgent() for _ in range(4)], 60, seed=11)
    same(native, objects)


def test_simulate_results_are_consistent() -> None:
    r = koudian.simulate("shanxi", ["random"] * 4, 3000, seed=1)
    assert r.hands == 3000
    assert r.deltas.shape == (3000, 4) and r.deltas.dtype == np.int64
    assert (r.deltas.sum(axis=1) == 0).all()
    won = r.kind == 0
    assert (r.winners.any(axis=1) == won).all()
    assert ((r.from_seat >= 0) == (won & ~r.self_draw)).all()
    assert (r.dealer == np.arange(3000) % 4).all()
    assert int(r.scores.sum()) == 0
    assert 0 <= r.draw_rate <= 1
    assert (r.baohu_paid >= 0).all()
    assert np.isfinite(r.ci95).all()
    text = r.summary()
    assert "win %" in text and "of hands" in text and "hands/s" in text


@pytest.mark.parametrize("preset", ["shanxi", "sichuan"])
def test_pattern_frequencies_count_winning_hands(preset: str) -> None:
    names = ["greedy"] * 4 if preset == "shanxi" else ["random"] * 4
    r = koudian.simulate(preset, names, 400, seed=2)
    wins = int(r.winners.sum())
    assert wins > 0
    assert all(0 < v <= wins for v in r.patterns.values())
    if preset == "sichuan":
        # every Sichuan win has a base pattern (平胡, 对对胡, 七对, ...)
        assert sum(v for k, v in r.patterns.items() if "根" not in k and "杠" not in k) >= wins
        assert "patterns (share of wins)" in r.summary()


def test_simulate_writes_replayable_logs() -> None:
    buf = io.StringIO()
    r = koudian.simulate("sichuan", ["random"] * 4, 5, seed=2, log=buf)
    hands = _split(buf.getvalue())
    assert len(hands) == 5
    for text, deltas in zip(hands, r.deltas, strict=False):
        g = koudian.replay(text)
        assert list(g.result.deltas) == deltas.tolist()  # type: ignore[union-attr]


def _split(text: str) -> list[str]:
    out: list[str] = []
    for line in text.splitlines(keepends=True):
        kind = json.loads(line)["type"]
        if kind == "header":
            out.append("")
        if kind != "fault":
            out[-1] += line
    return out


def test_simulate_rejects_bad_arguments() -> None:
    with pytest.raises(koudian.KoudianError):
        koudian.simulate("shanxi", ["random"] * 3, 10)
    with pytest.raises(koudian.KoudianError):
        koudian.simulate("nope", ["random"] * 4, 10)
    with pytest.raises(koudian.KoudianError):
        koudian.simulate("shanxi", ["random", "oracle", "random", "random"], 10)


def test_cli_simulate_prints_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "out.jsonl"
    code = main(
        [
            "simulate",
            "--rules",
            "shanxi",
            "--agents",
            "random",
            "--hands",
            "200",
            "--seed",
            "5",
            "--threads",
            "2",
            "--log",
            str(log),
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "200 hands" in out and "mean ± 95% CI" in out and "draw rate" in out
    assert len(_split(log.read_text())) == 200


def test_cli_simulate_reads_a_ruleset_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "my.toml"
    f.write_text(koudian.Ruleset.preset("linxian").to_toml())
    assert (
        main(["simulate", "--rules", str(f), "--hands", "20", "--agents", "random", "--quiet"]) == 0
    )
    assert main(["simulate", "--rules", "nope", "--hands", "20", "--quiet"]) == 2
    assert "unknown preset" in capsys.readouterr().err


def _result_with_kinds(kind: np.ndarray) -> SimulationResult:
    n = kind.shape[0]
    winners = np.zeros((n, 4), bool)
    winners[kind == 0, 0] = True
    return SimulationResult(
        kind=kind.astype(np.uint8),
        winners=winners,
        self_draw=np.zeros(n, bool),
        from_seat=np.full(n, -1, np.int8),
        dealer=np.zeros(n, np.uint8),
        ting=np.zeros((n, 4), bool),
        deltas=np.zeros((n, 4), np.int64),
        baohu=np.zeros((n, 4), np.int64),
        decisions=np.zeros(n, np.uint32),
        agents=["random"] * 4,
    )


def test_draw_rate_and_exhausted_share_round_the_same_way() -> None:
    # 581 / 2000 = 29.05%: 100 * 0.2905 rounds to 29.0, 100 * 581 / 2000 to 29.1.
    kind = np.zeros(2000, np.uint8)
    kind[:581] = 1
    text = _result_with_kinds(kind).summary()
    assert "draw rate 29.1%" in text
    assert "exhausted 29.1%" in text


@pytest.mark.parametrize("hands", ["0", "-3", "ten"])
def test_cli_needs_at_least_one_hand(hands: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["simulate", "--hands", hands, "--quiet"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "argument --hands:" in err
    assert ("at least 1" in err) if hands != "ten" else ("whole number" in err)


def test_summary_of_no_hands_and_of_one_hand_shows_no_inf() -> None:
    empty = koudian.simulate("shanxi", ["random"] * 4, 0, seed=1)
    text = empty.summary()
    assert "inf" not in text and "hand ends:" not in text
    assert text.startswith("0 hands") and "nothing to summarize" in text
    one = koudian.simulate("shanxi", ["random"] * 4, 1, seed=1).summary()
    assert "inf" not in one and "± n/a" in one
