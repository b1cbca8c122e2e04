"""Duplicate against single deals (docs/arena.md): for each pair, the
width of the lone agent's single-deal interval over the width of its
duplicate advantage interval, for the same number of the lone agent's
hands (duplicate: D deals, four rotations, the lone agent plays 4 D
hands; single: 4 D deals, one hand each). Against three greedy the
duplicate advantage has the luck of the wall taken out (the arena's
default); its interval as played, from the same run, gives the second
ratio.

Run: python benches/arena_ratio.py [--rules shanxi] [--mc-deals 200]
     [--greedy-deals 4000] [--mc mc] [--threads 2] [--seed 1]

Both pairs come out of one run: mc vs three greedy, and greedy vs three
random (not one agent against three greedy: its luck is kept). The load
average is printed beside the rates (the machine is shared: compare
ratios, not rates, between runs).
"""

from __future__ import annotations

import argparse
import os
import time

import koudian


def ratio(lone: str, ref: str, rules: str, deals: int, threads: int, seed: int) -> str:
    """One pair's line: both intervals, their widths' ratio, the rates."""
    t = time.perf_counter()
    dup = koudian.arena([lone, ref, ref, ref], rules, deals, threads=threads, seed=seed)
    t_dup = time.perf_counter() - t
    t = time.perf_counter()
    single = koudian.arena(
        [lone, ref, ref, ref], rules, 4 * deals, threads=threads, seed=seed, format="single"
    )
    t_single = time.perf_counter() - t
    (p,) = dup.pair_stats()
    a = next(x for x in single.agent_stats() if x.agent == lone)
    lone_dup = next(x for x in dup.agent_stats() if x.agent == lone)
    w_dup = p.ci95[1] - p.ci95[0]
    w_single = a.ci95[1] - a.ci95[0]
    lines = [
        f"{lone} vs 3 {ref} ({rules}, seed {seed}): {p.verdict}",
        f"  duplicate advantage [{p.ci95[0]:+.3f}, {p.ci95[1]:+.3f}] over {deals} deals "
        f"({lone_dup.hands} {lone} hands, luck of the wall {p.luck}); single mean "
        f"{a.mean:+.3f} [{a.ci95[0]:+.3f}, {a.ci95[1]:+.3f}] over {4 * deals} deals "
        f"({a.hands} hands)",
        f"  width ratio single/duplicate = {w_single / w_dup:.2f} ({w_single:.3f} / {w_dup:.3f})",
    ]
    if p.played is not None:
        d, (lo, hi) = p.played
        lines.append(
            f"  as played (the same run, luck kept): {d:+.3f} [{lo:+.3f}, {hi:+.3f}], "
            f"width ratio {w_single / (hi - lo):.2f} ({w_single:.3f} / {hi - lo:.3f}); "
            f"correction weight {p.weight:.2f}"
        )
    lines.append(
        f"  duplicate {dup.hands / t_dup:.1f} hands/s, single {single.hands / t_single:.1f} "
        f"hands/s, load {os.getloadavg()[0]:.1f}"
    )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="shanxi")
    ap.add_argument("--mc", default="mc", help="the mc spec (default mc)")
    ap.add_argument("--mc-deals", type=int, default=200)
    ap.add_argument("--greedy-deals", type=int, default=4000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(ratio(args.mc, "greedy", args.rules, args.mc_deals, args.threads, args.seed))
    print(ratio("greedy", "random", args.rules, args.greedy_deals, args.threads, args.seed))


if __name__ == "__main__":
    main()
