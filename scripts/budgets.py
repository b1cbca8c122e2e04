"""Measures the wheel budgets of issue 7: wheel size, import time, first call.

Usage: python scripts/budgets.py [WHEEL]   (run with the wheel installed)

Import time is the median of 15 fresh interpreters' ``-X importtime``
cumulative figure for ``koudian``; the first call is timed in a fresh
interpreter after the import, and includes any lazy table build.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
from pathlib import Path


def import_ms(preload: str = "") -> float:
    runs = []
    for _ in range(15):
        err = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"{preload}import koudian"],
            capture_output=True,
            text=True,
            check=True,
        ).stderr
        total = 0
        for line in err.splitlines():
            m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\s*)(\S+)", line)
            if m and m.group(3) == "koudian" and m.group(2) == "":
                total = int(m.group(1))
        runs.append(total / 1000)
    return statistics.median(runs)


FIRST_CALL = """
import time, koudian
calls = [
    lambda: koudian.is_win("123m456p789s11122z"),
    lambda: koudian.shanten("123m456p789s1122z"),
    lambda: koudian.waits("123m456p789s1122z"),
    lambda: koudian.is_win("123m456p789s11223z", wildcards="3z"),
]
for call in calls:
    t = time.perf_counter()
    call()
    print((time.perf_counter() - t) * 1e3)
"""


def main() -> None:
    if len(sys.argv) > 1:
        wheel = Path(sys.argv[1])
        print(f"wheel: {wheel.name} {wheel.stat().st_size / 1e6:.2f} MB")
    print(f"import koudian (median of 15, -X importtime): {import_ms():.2f} ms")
    # The stdlib's enum (needed by Tile, an IntEnum) is most of a bare
    # interpreter's figure; applications have usually loaded it (re does).
    print(f"import koudian with enum already loaded: {import_ms('import enum; '):.2f} ms")
    out = subprocess.run(
        [sys.executable, "-c", FIRST_CALL], capture_output=True, text=True, check=True
    ).stdout.split()
    names = ["is_win", "shanten", "waits", "is_win with a wildcard"]
    for name, ms in zip(names, out, strict=False):
        print(f"first {name} call: {float(ms):.2f} ms")


if __name__ == "__main__":
    main()
