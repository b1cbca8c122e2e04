"""Plays a short run against one misbehaving bot and prints what the test
checks, as JSON: the faults' kinds and details, how the hands ended, the
elapsed time, the peak RSS, and the recorded bot processes still alive
after the run. Run by tests/test_protocol_faults.py in a subprocess, so a
hang is a killed child, not a hung test, and the RSS is the engine's own.

Usage: drive.py RULES HANDS TIMEOUT DRIVER BOT [ARGS...]
(DRIVER: simulate, match, arena or ladder)"""

import json
import os
import resource
import sys
import time

import koudian
from koudian.protocol import ExternalAgent


def survivors(pids: list[int]) -> list[int]:
    """The live processes (zombies are dead) that are one of `pids` or in
    the process group of one of them."""
    groups = set(pids)
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, pgrp = fields[0], int(fields[2])
        if state not in ("Z", "X") and (int(entry) in groups or pgrp in groups):
            found.append(int(entry))
    return found


def peak_rss() -> int:
    """This process's peak resident set in bytes. VmHWM belongs to the
    address space made at exec; ru_maxrss would not do: Linux carries it
    over fork and exec, so a driver started by a large pytest process
    would report the parent's peak."""
    try:
        with open("/proc/self/status", encoding="utf-8") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main() -> None:
    rules, hands, timeout, driver, *bot = sys.argv[1:]
    command = " ".join([sys.executable, *bot])
    t0 = time.monotonic()
    if driver == "simulate":
        agents = [f"cmd:{command}", "random", "random", "random"]
        r = koudian.simulate(rules, agents, int(hands), seed=3, timeout=float(timeout))
        faults = r.faults
        ends = [koudian.simulation.END_KINDS[k] for k in r.kind]
        deltas = r.deltas.tolist()
    elif driver in ("arena", "ladder"):
        spec = f"cmd:{command}"
        if driver == "arena":
            a = koudian.arena([spec, "random", "random", "random"], rules, int(hands), seed=3)
            runs = [a]
        else:
            ladder = koudian.ladder([spec, "random"], rules, int(hands), reference="random")
            runs = list(ladder.runs.values())
        faults = []  # the arena's fault counts are tested in tests/test_arena_runs.py
        ends = []
        deltas = [row.tolist() for run in runs for row in run.records["delta"].reshape(-1, 4)]
    else:
        agent = ExternalAgent(command, timeout=float(timeout))
        with koudian.Match(rules, [agent, "random", "random", "random"], hands=int(hands)) as m:
            m.play()
        faults = m.faults
        ends = [x.kind for x in m.results]
        deltas = [list(x.deltas) for x in m.results]
    elapsed = time.monotonic() - t0
    peak = peak_rss()
    with open(os.environ["KOUDIAN_TEST_PIDS"], encoding="utf-8") as f:
        pids = [int(x) for x in f.read().split()]
    print(
        json.dumps(
            {
                "faults": [[f.kind, f.detail] for f in faults],
                "ends": ends,
                "deltas": deltas,
                "elapsed": elapsed,
                "peak_rss": peak,
                "pids": pids,
                "alive": survivors(pids),
            }
        )
    )


if __name__ == "__main__":
    main()
