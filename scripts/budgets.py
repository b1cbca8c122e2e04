"""Measures the wheel budgets of issue 7: wheel size, import time, first call.

Usage: python scripts/budgets.py [WHEEL]   (run with the wheel installed)

Import time is the median of 15 fresh interpreters' ``-X importtime``
cumulative figure for ``koudian`` (with the median of each module it
imports), measured in a bare interpreter: nothing else imported first. The
first call is timed in a fresh interpreter after the import (wall-clock and CPU
time), and includes any lazy table build.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
from pathlib import Path

# The budgets of issue 7, in one place: docs/performance.md and the README
# quote them, and tests/test_readme_figures.py checks that they agree.
WHEEL_BUDGET_MB = 5.0
IMPORT_BUDGET_MS = 5.0
FIRST_CALL_BUDGET_MS = 50.0


def import_ms() -> tuple[float, dict[str, float]]:
    """Median cumulative ``koudian`` import time, and the median of each
    module it imports directly (its children in the ``-X importtime`` tree)."""
    totals: list[float] = []
    parts: dict[str, list[float]] = {}
    for _ in range(15):
        err = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import koudian"],
            capture_output=True,
            text=True,
            check=True,
        ).stderr
        children: dict[str, float] = {}
        for line in err.splitlines():
            m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\s*)(\S+)", line)
            if not m:
                continue
            us, indent, name = int(m.group(1)), m.group(2), m.group(3)
            # Children are listed before their parent, one level deeper.
            if len(indent) == 2:
                children[name] = us / 1000
            elif indent == "" and name == "koudian":
                totals.append(us / 1000)
                for child, ms in children.items():
                    parts.setdefault(child, []).append(ms)
            if indent == "":
                children = {}
    return statistics.median(totals), {k: statistics.median(v) for k, v in parts.items()}


LOADED = """
import sys
before = set(sys.modules)
import koudian
print(*sorted(set(sys.modules) - before))
"""


FIRST_CALL = """
import time, koudian
calls = [
    lambda: koudian.is_win("123m456p789s11122z"),
    lambda: koudian.shanten("123m456p789s1122z"),
    lambda: koudian.waits("123m456p789s1122z"),
    lambda: koudian.is_win("123m456p789s11223z", wildcards="3z"),
]
for call in calls:
    t, c = time.perf_counter(), time.process_time()
    call()
    print((time.perf_counter() - t) * 1e3, (time.process_time() - c) * 1e3)
"""


def _verdict(value: float, budget: float, unit: str) -> str:
    return f"{'within' if value <= budget else 'OVER'} the budget of {budget:g} {unit}"


def main() -> None:
    if len(sys.argv) > 1:
        wheel = Path(sys.argv[1])
        mb = wheel.stat().st_size / 1e6
        print(f"wheel: {wheel.name} {mb:.2f} MB ({_verdict(mb, WHEEL_BUDGET_MB, 'MB')})")
    total, parts = import_ms()
    print(
        f"import koudian (median of 15, -X importtime): {total:.2f} ms"
        f" ({_verdict(total, IMPORT_BUDGET_MS, 'ms')})"
    )
    for name, ms in sorted(parts.items(), key=lambda kv: -kv[1]):
        print(f"  of which {name}: {ms:.2f} ms")
    loaded = subprocess.run(
        [sys.executable, "-c", LOADED], capture_output=True, text=True, check=True
    ).stdout.split()
    print(f"modules loaded by import koudian: {' '.join(loaded)}")
    # Wall-clock time is the budget; CPU time shows how much of it was
    # waiting for a core on a shared machine.
    out = subprocess.run(
        [sys.executable, "-c", FIRST_CALL], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    names = ["is_win", "shanten", "waits", "is_win with a wildcard"]
    for name, line in zip(names, out, strict=False):
        wall, cpu = (float(x) for x in line.split())
        budget = f", {_verdict(wall, FIRST_CALL_BUDGET_MS, 'ms')}" if name == "is_win" else ""
        print(f"first {name} call: {wall:.2f} ms ({cpu:.2f} ms CPU{budget})")


if __name__ == "__main__":
    main()
