"""Compact logs compressed natively (koudian.logs.LogFile and the core's
log_compress): the frames the play's threads compress decompress to the
plain log's very bytes on every preset, do not depend on the thread
count, mix with text written from Python, and an interrupted run's log
holds exactly the hands it counts."""

from __future__ import annotations

import gzip
import io
import signal
import sys
from pathlib import Path
from typing import Any

import koudian
import pytest
from koudian._core import simulate_record
from koudian.simulation import SimulationInterrupted
from preset_names import ALL_PRESETS

AGENTS = ["greedy", "random", "greedy", "random"]
COMPACT = ["g.jsonl.gz", "g.jsonl.zst"]


def _unpack(raw: bytes) -> bytes:
    """Every member or frame of a compressed log, decompressed in order."""
    if raw[:2] == b"\x1f\x8b":
        return gzip.decompress(raw)
    zstandard = pytest.importorskip("zstandard")
    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=True)
    return bytes(reader.read())


def _need(name: str) -> None:
    if name.endswith(".zst"):
        pytest.importorskip("zstandard")


def _frames(raw: bytes) -> int:
    """Number of gzip members or zstd frames (by their magic bytes: a lower
    bound is all the tests need)."""
    return raw.count(b"\x1f\x8b\x08") if raw[:2] == b"\x1f\x8b" else raw.count(b"\x28\xb5\x2f\xfd")


@pytest.mark.parametrize("preset", ALL_PRESETS)
@pytest.mark.parametrize("name", COMPACT)
def test_a_native_compact_log_is_the_plain_logs_bytes_on_every_preset(
    tmp_path: Path, preset: str, name: str
) -> None:
    """The native frames decompress to exactly the plain log of the same
    run, which is the hands' ``Game.log`` one after another, and every
    hand that ``read_logs`` yields replays."""
    _need(name)
    plain, packed = tmp_path / "g.jsonl", tmp_path / name
    for path in (plain, packed):
        with koudian.logs.open_log(path) as f:
            koudian.simulate(preset, AGENTS, hands=60, seed=3, threads=2, log=f, chunk=25)
    assert _unpack(packed.read_bytes()) == plain.read_bytes()
    want = koudian._core._testing.simulate_logs(preset, AGENTS, 60, seed=3)
    assert plain.read_text(encoding="utf-8") == "".join(want)
    hands = list(koudian.read_logs(packed))
    assert hands == want
    for h in hands:
        assert koudian.replay(h).log == h


@pytest.mark.parametrize("compress", ["gzip", "zstd"])
def test_the_native_frames_do_not_depend_on_the_thread_count(compress: str) -> None:
    """Frames cut at fixed offsets of the text: the same bytes, compressed,
    from 1, 2 and 3 threads; several frames (the threads share them)."""
    if compress == "zstd":
        pytest.importorskip("zstandard")
    runs = [
        simulate_record("shanxi", AGENTS, 300, seed=8, threads=t, logs=True, log_compress=compress)[
            2
        ]
        for t in (1, 2, 3)
    ]
    assert runs[0] is not None and runs[0] == runs[1] == runs[2]
    plain = simulate_record("shanxi", AGENTS, 300, seed=8, threads=2, logs=True)[2]
    assert plain is not None and _unpack(runs[0]) == plain
    assert _frames(runs[0]) >= len(plain) // (256 << 10)  # a frame per 256 KiB of text
    assert len(runs[0]) < len(plain) // 5


def test_a_bad_native_compression_is_refused() -> None:
    with pytest.raises(koudian.KoudianError, match="none, gzip, zstd"):
        simulate_record("shanxi", AGENTS, 1, logs=True, log_compress="bzip2")


@pytest.mark.parametrize("name", COMPACT)
def test_python_written_text_and_native_frames_make_one_stream(tmp_path: Path, name: str) -> None:
    """Text written through the ``LogFile`` (a Python-driven run, a note)
    before and after a native run: its member or frame is ended before
    the native frames, a new one begun after, and the file reads back as
    everything in order."""
    _need(name)
    path = tmp_path / name
    py_agents: list[Any] = [koudian.GreedyAgent(), "random", "greedy", "random"]
    with koudian.logs.open_log(path) as f:
        assert isinstance(f, koudian.logs.LogFile) and f.compression in ("gzip", "zstd")
        assert f.raw.name == str(path) and f.name == str(path)
        koudian.simulate("linxian", py_agents, hands=3, seed=1, log=f)
        koudian.simulate("linxian", AGENTS, hands=40, seed=2, threads=2, log=f, chunk=15)
        koudian.simulate("linxian", py_agents, hands=2, seed=4, log=f)
    python_made = list(koudian.read_logs(tmp_path / name))
    assert len(python_made) == 45
    native = koudian._core._testing.simulate_logs("linxian", AGENTS, 40, seed=2)
    assert python_made[3:43] == native
    for h in python_made:
        assert koudian.replay(h).done
    assert _frames(path.read_bytes()) >= 3


@pytest.mark.parametrize("name", COMPACT)
def test_a_users_own_compressed_file_still_works(tmp_path: Path, name: str) -> None:
    """A text file ``open_log`` did not make (here the user's own
    ``gzip.open`` or ``zstandard`` writer) gets plain text, which it
    compresses itself."""
    _need(name)
    path = tmp_path / name
    f: Any
    if name.endswith(".gz"):
        f = gzip.open(path, "wt", encoding="utf-8")
    else:
        import zstandard

        f = io.TextIOWrapper(
            zstandard.ZstdCompressor().stream_writer(open(path, "wb")), encoding="utf-8"
        )
    assert koudian.logs.native_compression(f) == "none"
    with f:
        koudian.simulate("sichuan", AGENTS, hands=30, seed=6, threads=2, log=f, chunk=11)
    assert list(koudian.read_logs(path)) == koudian._core._testing.simulate_logs(
        "sichuan", AGENTS, 30, seed=6
    )


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("name", ["g.jsonl", *COMPACT])
def test_an_interrupted_runs_log_holds_exactly_the_hands_counted(tmp_path: Path, name: str) -> None:
    """Ctrl-C during a native logged run (raised after the second chunk):
    the run stops on a chunk boundary and, when ``simulate`` raises, its
    log already holds exactly the hands its result counts."""
    _need(name)
    path = tmp_path / name
    done = []

    def progress(n: int) -> None:
        done.append(n)
        if len(done) == 2:
            signal.raise_signal(signal.SIGINT)

    with koudian.logs.open_log(path) as f:
        with pytest.raises(SimulationInterrupted) as e:
            koudian.simulate(
                "shanxi", AGENTS, hands=200, seed=7, threads=2, log=f, chunk=30, progress=progress
            )
        played = e.value.result.hands
        assert e.value.result.interrupted and 0 < played < 200
        f.flush()
        if name == "g.jsonl":
            # Written by the time simulate raised, before the file closes.
            assert path.read_text(encoding="utf-8").count('"type":"header"') == played
    assert list(koudian.read_logs(path)) == koudian._core._testing.simulate_logs(
        "shanxi", AGENTS, played, seed=7
    )


def test_open_log_refuses_an_unknown_compression(tmp_path: Path) -> None:
    with pytest.raises(koudian.KoudianError, match="compress must be one of"):
        koudian.logs.open_log(tmp_path / "x.jsonl", "bz2")
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize(
    ("name", "extra", "magic"),
    [
        ("g.jsonl.zst", [], b"\x28\xb5\x2f\xfd"),
        ("g.log", ["--log-compress", "gzip"], b"\x1f\x8b"),
    ],
)
def test_the_cli_writes_a_native_compact_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, extra: list[str], magic: bytes
) -> None:
    """``koudian simulate --threads 2 --log FILE.jsonl.zst`` (or
    ``--log-compress``): the native frames, read back hand by hand."""
    if magic != b"\x1f\x8b":
        pytest.importorskip("zstandard")
    from koudian.cli import main

    log = tmp_path / name
    args = ["simulate", "--agents", "greedy,greedy,greedy,greedy", "--hands", "50", "--seed", "4"]
    assert main([*args, "--threads", "2", "--quiet", "--log", str(log), *extra]) == 0
    capsys.readouterr()
    assert log.read_bytes()[: len(magic)] == magic
    want = koudian._core._testing.simulate_logs("shanxi", ["greedy"] * 4, 50, seed=4)
    assert list(koudian.read_logs(log)) == want
