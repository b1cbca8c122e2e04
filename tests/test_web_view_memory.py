"""``koudian view`` of many hands in bounded memory (issue 35, item 6):
the hands are streamed, replayed and written one at a time, so the peak
memory does not grow with the number of hands; a failure part-way leaves
no half-written page."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import koudian
import pytest
from koudian.cli import main

_VIEW = """
import sys
from koudian.cli import main
code = main(["view", sys.argv[1], "-o", sys.argv[2]])
# VmHWM: this program's own peak (ru_maxrss would keep the forking
# parent's from before exec).
hwm = [x for x in open("/proc/self/status") if x.startswith("VmHWM:")][0]
print("code", code, "maxrss_kb", int(hwm.split()[1]))
"""


def _log(tmp_path: Path, hands: int) -> Path:
    path = tmp_path / f"h{hands}.jsonl"
    logs = koudian._core._testing.simulate_logs(
        "shanxi", ["greedy", "random", "random", "random"], hands
    )
    path.write_text("".join(logs), encoding="utf-8")
    return path


def _peak_kb(log: Path, out: Path) -> int:
    r = subprocess.run(
        [sys.executable, "-c", _VIEW, str(log), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env={"PYTHONPATH": str(Path(koudian.__file__).parent.parent), "PATH": "/usr/bin:/bin"},
    )
    assert r.returncode == 0 and "code 0" in r.stdout, r.stderr
    return int(r.stdout.split("maxrss_kb")[1])


def test_view_memory_does_not_grow_with_the_hands(tmp_path: Path) -> None:
    few = _peak_kb(_log(tmp_path, 20), tmp_path / "few.html")
    many = _peak_kb(_log(tmp_path, 300), tmp_path / "many.html")
    # Before streaming: about 0.7 MB more a hand (200 MB here).
    assert many - few < 40 * 1024, (few, many)
    assert (tmp_path / "many.html").read_text(encoding="utf-8").count('id="hand-') == 300


def test_a_view_that_fails_part_way_writes_no_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _log(tmp_path, 5)
    lines = path.read_text(encoding="utf-8").splitlines()
    at = [i for i, x in enumerate(lines) if '"type":"header"' in x][3] + 3
    lines[at] = lines[at].replace('"seat":', '"seat":9,"x":', 1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "r.html"
    out.write_text("an older page")
    assert main(["view", str(path), "-o", str(out)]) == 2
    assert "hand 4" in capsys.readouterr().err
    assert out.read_text() == "an older page"
    assert not list(tmp_path.glob(".*.tmp"))
