#!/usr/bin/env python3
"""Regenerates the shipped nn model from nothing, with koudian's own
pipeline (docs/models.md, "Train your own"): seeded, every stage logged.

Stages (each skipped when its output exists, so a stopped run resumes):

1. data: ``koudian simulate --record`` of one ``mc`` seat against three
   greedy, seat 0's rows only (every row carries mc's choice, and where
   it searched its estimated values: the soft targets), and of greedy
   self-play, for each preset; the rows are observation encoding
   version 3 (the look-ahead planes, docs/rl.md);
2. imitate: policy (the played action mixed with the softmax of mc's
   values) and value heads, with the per-kind head (``koudian train
   imitate``);
3. improve (``--iterations``, 2,000; 0 skips it): PPO on ``VecEnv``
   against greedy, KL-held to stage 2, shanxi every other iteration and
   the other presets in turn (``--improve-rules``); the shipped model is
   stage 3's;
4. arena: each stage's model 1 vs 3 against greedy, duplicate, luck of
   the wall taken out, on every preset (``--deals`` deals from
   ``--arena-seed``), into ``OUT/arena.jsonl``.

The model chosen for shipping (``--ship``) is written as F16 tensors to
``rust/core/models/nn.safetensors``. Run it under ``nice`` on a shared
machine; ``--small`` is the few-minutes smoke version.

    python scripts/train_models.py --out runs/models --ship improve
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

PRESETS = ["shanxi", "linxian", "sichuan", "shanxi-haozi", "shanxi-double-haozi"]
PRESETS += ["shanxi-feng-haozi"]
IMPROVE_RULES = [x for r in PRESETS[1:] for x in ("shanxi", r)]
"""PPO's presets in turn: shanxi every other iteration, where mc's lead
over the imitation net is largest; every preset in the rotation, so that
the KL term holds each family's policy near stage 2 (PPO on shanxi
alone cost linxian 0.16 a hand and sichuan its edge)."""
ROOT = Path(__file__).resolve().parent.parent


def run(args: list[str], log: Path) -> None:
    """``koudian ARGS`` in a subprocess (one thread for JAX), its output
    appended to ``log``; a failure stops the script."""
    cmd = [sys.executable, "-m", "koudian", *args]
    print("$", " ".join(cmd), flush=True)
    t0 = time.monotonic()
    with log.open("a", encoding="utf-8") as f:
        f.write("$ " + " ".join(args) + "\n")
        f.flush()
        subprocess.run(cmd, check=True, stdout=f, stderr=subprocess.STDOUT)
        f.write(f"# {time.monotonic() - t0:.0f} s\n")
    print(f"  done in {time.monotonic() - t0:.0f} s", flush=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", default="runs/models", help="working folder (data, models, logs)")
    p.add_argument("--seed", type=int, default=4, help="data and training seed (4: shipped)")
    p.add_argument("--greedy-hands", type=int, default=1000, help="greedy hands per preset")
    p.add_argument(
        "--mc-hands",
        default="shanxi=40000,linxian=32000,sichuan=10000,5000",
        help="mc-seat hands per preset (PRESET=N,..., then the others' number)",
    )
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--hidden", default="256,128")
    p.add_argument("--iterations", type=int, default=2000, help="PPO iterations (0: none)")
    p.add_argument(
        "--improve-rules",
        default=",".join(IMPROVE_RULES),
        help="presets PPO plays in turn, one iteration each (repeat one to weigh it)",
    )
    p.add_argument("--lr", type=float, default=2e-4, help="PPO's learning rate")
    p.add_argument("--kl", type=float, default=0.1, help="PPO's weight of the KL to stage 2")
    p.add_argument("--deals", type=int, default=1000, help="arena deals per preset")
    p.add_argument("--arena-seed", type=int, default=2026)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--ship", choices=("imitate", "improve", "none"), default="none")
    p.add_argument("--small", action="store_true", help="a smoke run in minutes")
    a = p.parse_args()
    if a.small:
        a.greedy_hands, a.mc_hands, a.epochs, a.iterations, a.deals = 100, "20", 1, 2, 20
    *named, rest = a.mc_hands.split(",")
    mc_hands = {r: int(rest) for r in PRESETS} | {
        k: int(v) for k, v in (x.split("=", 1) for x in named)
    }
    out = Path(a.out)
    (out / "data").mkdir(parents=True, exist_ok=True)
    log = out / "train.log"
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")
    times: dict[str, float] = {}

    t0 = time.monotonic()
    greedy, mc = [], []
    for i, r in enumerate(PRESETS):
        for kind, agents, hands, dirs in (
            ("g", "greedy", a.greedy_hands, greedy),
            ("mc", "mc,greedy,greedy,greedy", mc_hands[r], mc),
        ):
            d = out / "data" / f"{kind}-{r}"
            dirs.append(str(d))
            if not (d / "_manifest.json").exists():
                seed = a.seed * 1000 + 10 * i + (0 if kind == "g" else 1)
                run(
                    [
                        "simulate",
                        "--rules",
                        r,
                        "--agents",
                        agents,
                        "--hands",
                        str(hands),
                        "--seed",
                        str(seed),
                        "--threads",
                        str(a.threads),
                        "--record",
                        str(d),
                        *(["--record-seats", "0"] if kind == "mc" else []),
                        "--quiet",
                    ],
                    log,
                )
    times["data"] = time.monotonic() - t0

    stage1 = out / "imitate.safetensors"
    stage3 = out / "improve.safetensors"
    t0 = time.monotonic()
    if not stage1.exists():
        run(
            [
                "train",
                "imitate",
                *mc,
                *greedy,
                "-o",
                str(stage1),
                "--greedy-weight",
                "0.3",
                "--soft",
                "0.9",
                "--temperature",
                "1.0",
                # In Sichuan mc's values are mostly noise: its choice only.
                "--family-soft",
                "sichuan=0",
                "--epochs",
                str(a.epochs),
                "--hidden",
                a.hidden,
                "--seed",
                str(a.seed),
                "--curve",
                str(out / "imitate.jsonl"),
                "--quiet",
            ],
            log,
        )
    times["imitate"] = time.monotonic() - t0
    t0 = time.monotonic()
    if a.iterations > 0 and not stage3.exists():
        run(
            [
                "train",
                "improve",
                str(stage1),
                "-o",
                str(stage3),
                "--rules",
                a.improve_rules,
                "--iterations",
                str(a.iterations),
                "--lr",
                str(a.lr),
                "--kl",
                str(a.kl),
                "--seed",
                str(a.seed),
                "--curve",
                str(out / "improve.jsonl"),
                "--quiet",
            ],
            log,
        )
    times["improve"] = time.monotonic() - t0

    from koudian.train.evaluate import arena_vs_greedy

    t0 = time.monotonic()
    with (out / "arena.jsonl").open("a", encoding="utf-8") as f:
        stages = [("imitate", stage1)] + ([("improve", stage3)] if a.iterations > 0 else [])
        for stage, path in stages:
            for r in PRESETS:
                res = arena_vs_greedy(path, r, a.deals, a.arena_seed, threads=a.threads)
                res["stage"] = stage
                f.write(json.dumps(res, allow_nan=False) + "\n")
                f.flush()
                print(
                    stage,
                    r,
                    json.dumps(res["result"].get("pairs", res["result"]), allow_nan=False)[:300],
                )
    times["arena"] = time.monotonic() - t0
    print("wall time per stage (s):", {k: round(v) for k, v in times.items()})
    if a.ship != "none":
        from koudian.train import export

        src = {"imitate": stage1, "improve": stage3}[a.ship]
        params, meta = export.load(src)
        dst = ROOT / "rust" / "core" / "models" / "nn.safetensors"
        dst.parent.mkdir(parents=True, exist_ok=True)
        export.save(params, dst, meta["provenance"], dtype="f16")
        print(f"shipped {src} as {dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
