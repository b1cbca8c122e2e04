"""Browser benchmark: a 100-hand replay file opens in Chromium (issue 25).

Run: ``python benches/bench_viewer.py [--hands 100] [--repeat 5]``. It
writes a ``koudian simulate --log`` file of HANDS hands (greedy vs three
random), turns it into one viewer page with ``koudian view``, then opens
it REPEAT times in a fresh headless Chromium page (Debian's
``/usr/bin/chromium`` through Playwright) and reports the file size, the
time to write it, and the time from navigation to the page's first drawn
table (``body[data-ready]``), plus stepping the last hand to its end. The
target is under 2 s to open. Not a timed test: the machine's load moves
the figures, so the load average is printed beside them.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from koudian.cli import main as koudian_main


def run(hands: int, repeat: int, chromium: str) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as d:
        log, page_file = Path(d) / "hands.jsonl", Path(d) / "replay.html"
        agents = "greedy,random,random,random"
        args = ["simulate", "--rules", "shanxi", "--agents", agents, "--hands", str(hands)]
        assert koudian_main([*args, "--log", str(log), "--quiet", "--seed", "1"]) == 0
        t0 = time.perf_counter()
        assert koudian_main(["view", str(log), "-o", str(page_file)]) == 0
        write_s = time.perf_counter() - t0
        size = page_file.stat().st_size
        opens: list[float] = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            for _ in range(repeat):
                page = browser.new_page(viewport={"width": 1280, "height": 820})
                t = time.perf_counter()
                page.goto(page_file.as_uri())
                page.wait_for_selector("body[data-ready='1']")
                opens.append(time.perf_counter() - t)
                t = time.perf_counter()
                page.select_option("#hand", str(hands - 1))
                page.keyboard.press("End")
                page.wait_for_selector(".settlement")
                last_s = time.perf_counter() - t
                page.close()
            browser.close()
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    print(f"{hands} hands: replay file {size / 1e6:.2f} MB, written in {write_s:.2f} s")
    print(
        f"open in Chromium (navigation to first table drawn), {repeat} runs: "
        f"best {min(opens):.3f} s, worst {max(opens):.3f} s"
    )
    print(f"pick the last hand and step to its end: {last_s:.3f} s")
    verdict = "under" if max(opens) < 2 else "OVER"
    print(f"target: open under 2 s: {verdict}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    a = ap.parse_args()
    run(a.hands, a.repeat, a.chromium)
    return 0


if __name__ == "__main__":
    sys.exit(main())
