"""Duplicate against single deals: the width of the lone agent's
single-deal interval over the width of its duplicate advantage interval,
for the same number of the lone agent's hands (docs/arena.md).

Run: python benches/arena_ratio.py LONE REFERENCE RULES DEALS
(e.g. ``greedy random shanxi 4000`` or ``mc greedy shanxi 40``).
"""

import os
import sys
import time

import koudian

lone, ref, rules, deals = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
t = time.time()
dup = koudian.arena([lone, ref, ref, ref], rules, deals, threads=2, seed=1)
t_dup = time.time() - t
t = time.time()
single = koudian.arena([lone, ref, ref, ref], rules, 4 * deals, threads=2, seed=1, format="single")
t_single = time.time() - t
p = dup.pair_stats()[0]
a = next(x for x in single.agent_stats() if x.agent == lone)
w_dup = p.ci95[1] - p.ci95[0]
w_single = a.ci95[1] - a.ci95[0]
print(dup.summary())
print(
    f"single: {lone} mean {a.mean:+.3f} [{a.ci95[0]:+.3f}, {a.ci95[1]:+.3f}] over {a.hands} hands"
)
print(
    f"width ratio single/duplicate = {w_single / w_dup:.2f} "
    f"({w_single:.3f} / {w_dup:.3f}), {a.hands} {lone} hands each"
)
print(
    f"duplicate {dup.hands} hands in {t_dup:.1f}s = {dup.hands / t_dup:.1f} hands/s; "
    f"load {os.getloadavg()}"
)
