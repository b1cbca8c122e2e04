"""Reading logs that are not what they should be (issue 35, item 5): a
line or a hand past its documented bound, a decompression bomb, corrupt
and truncated gzip and zstd files — each a ``KoudianError`` that says what
is wrong, in bounded memory, from ``read_logs`` and ``koudian view``
alike; never a raw ``zlib.error``/``ZstdError`` or a "bad line"."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import koudian
import pytest

AGENTS = ["greedy", "random", "greedy", "random"]
HEADER = b'{"type":"header","family":"shanxi","bomb":"'
# A cap on the address space, so that a reader that is not bounded fails
# with MemoryError rather than taking the machine's memory.
_MEASURE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
import koudian
try:
    for _ in koudian.read_logs(sys.argv[1]):
        pass
except koudian.KoudianError as e:
    print("KoudianError:", str(e)[:300])
# VmHWM: this program's own peak (ru_maxrss would keep the forking
# parent's from before exec).
hwm = [x for x in open("/proc/self/status") if x.startswith("VmHWM:")][0]
print("maxrss_kb", int(hwm.split()[1]))
"""


def _log_bytes(hands: int = 20) -> bytes:
    return "".join(koudian._core._testing.simulate_logs("shanxi", AGENTS, hands, seed=3)).encode()


def _zst(data: bytes) -> bytes:
    zstandard = pytest.importorskip("zstandard")
    return bytes(zstandard.ZstdCompressor(level=1).compress(data))


def _bomb(path: Path, total: int, newline_every: int | None = None) -> None:
    """A zstd file of one hand header line ``total`` bytes long (or, with
    ``newline_every``, of lines that long), streamed: a few hundred KB on
    disk."""
    zstandard = pytest.importorskip("zstandard")
    block = b"a" * (1 << 20)
    if newline_every is not None:
        line = b'{"type":"draw","x":"' + b"a" * (newline_every - 24) + b'"}\n'
        block = line * ((1 << 20) // len(line))
    with path.open("wb") as f, zstandard.ZstdCompressor(level=1).stream_writer(f) as w:
        w.write(HEADER + b'"}\n' if newline_every is not None else HEADER)
        written = 0
        while written < total:
            w.write(block)
            written += len(block)


def _measure(path: Path) -> tuple[str, int]:
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(path)],
        capture_output=True,
        text=True,
        timeout=600,
        env={"PYTHONPATH": str(Path(koudian.__file__).parent.parent), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    rss = int(out.stdout.split("maxrss_kb")[1])
    return out.stdout, rss


def test_a_2gib_single_line_zst_bomb_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "bomb.jsonl.zst"
    _bomb(path, 2 << 30)
    assert path.stat().st_size < 1 << 20
    out, rss_kb = _measure(path)
    assert "KoudianError" in out and "longer than" in out and "bytes" in out, out
    assert rss_kb < 300 * 1024, f"peak RSS {rss_kb} KB"


def test_a_hand_past_its_bound_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "long-hand.jsonl.zst"
    _bomb(path, koudian.logs.MAX_HAND_BYTES + (8 << 20), newline_every=1000)
    out, rss_kb = _measure(path)
    assert "KoudianError" in out and "hand" in out and "longer than" in out, out
    assert rss_kb < 400 * 1024, f"peak RSS {rss_kb} KB"


def test_a_line_just_under_the_bound_is_read() -> None:
    assert koudian.logs.MAX_LINE_BYTES >= 1 << 20


def test_a_corrupt_gz_is_a_koudian_error(tmp_path: Path) -> None:
    data = bytearray(gzip.compress(_log_bytes()))
    for at in range(len(data) // 3, len(data) // 3 + 40):
        data[at] ^= 0x55
    path = tmp_path / "bad.jsonl.gz"
    path.write_bytes(bytes(data))
    with pytest.raises(koudian.KoudianError, match=r"bad\.jsonl\.gz: corrupt gzip data"):
        list(koudian.read_logs(path))


def test_a_corrupt_zst_is_a_koudian_error(tmp_path: Path) -> None:
    data = bytearray(_zst(_log_bytes()))
    for at in range(len(data) // 3, len(data) // 3 + 40):
        data[at] ^= 0x55
    path = tmp_path / "bad.jsonl.zst"
    path.write_bytes(bytes(data))
    with pytest.raises(koudian.KoudianError, match=r"bad\.jsonl\.zst: corrupt zstd data"):
        list(koudian.read_logs(path))


@pytest.mark.parametrize("kind", ["gz", "zst"])
@pytest.mark.parametrize("cut", [0.5, 0.99])
def test_a_truncated_compressed_log_is_a_truncated_file(
    tmp_path: Path, kind: str, cut: float
) -> None:
    whole = gzip.compress(_log_bytes()) if kind == "gz" else _zst(_log_bytes())
    path = tmp_path / f"cut.jsonl.{kind}"
    path.write_bytes(whole[: int(len(whole) * cut)])
    with pytest.raises(koudian.KoudianError, match="truncated file"):
        list(koudian.read_logs(path))


def test_a_log_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bin.jsonl"
    path.write_bytes(_log_bytes(2) + b'{"type":"x","\xff"}\n')
    with pytest.raises(koudian.KoudianError, match=r"line .* not UTF-8"):
        list(koudian.read_logs(path))


@pytest.mark.parametrize("kind", ["gz", "zst"])
def test_koudian_view_reports_a_corrupt_log_without_a_traceback(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from koudian.cli import main

    whole = gzip.compress(_log_bytes()) if kind == "gz" else _zst(_log_bytes())
    data = bytearray(whole)
    data[len(data) // 2] ^= 0xFF
    path = tmp_path / f"bad.jsonl.{kind}"
    path.write_bytes(bytes(data))
    assert main(["view", str(path), "-o", str(tmp_path / "out.html")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("koudian: error:") and "bad.jsonl" in err
    assert not (tmp_path / "out.html").exists()


@pytest.mark.parametrize("name", ["g.jsonl", "g.jsonl.gz", "g.jsonl.zst"])
def test_good_logs_still_read_back_exactly(tmp_path: Path, name: str) -> None:
    if name.endswith(".zst"):
        pytest.importorskip("zstandard")
    path = tmp_path / name
    with koudian.logs.open_log(path) as f:
        koudian.simulate("shanxi", AGENTS, hands=30, seed=9, log=f, chunk=7)
    assert list(koudian.read_logs(path)) == koudian._core._testing.simulate_logs(
        "shanxi", AGENTS, 30, seed=9
    )
