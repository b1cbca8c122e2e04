"""``koudian train``: ``imitate`` a recorded expert, ``improve`` a model
by PPO on ``VecEnv``, each writing a model file the ``nn:PATH`` agent
plays; every epoch or iteration is printed (and appended to ``--curve``
as JSON Lines)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from koudian._cli_args import nonnegative_float, positive_int
from koudian._core import KoudianError
from koudian._strictjson import finite

__all__ = ["add_subparser"]


def _plain(v: Any) -> Any:
    """A curve entry's value as JSON takes it (a numpy or JAX scalar as a float)."""
    return v if isinstance(v, (str, int, float, list, dict)) else float(v)


def _logger(curve: str | None, quiet: bool) -> Any:
    fh = open(curve, "a", encoding="utf-8") if curve else None

    def log(entry: dict[str, Any]) -> None:
        plain = {k: _plain(v) for k, v in entry.items() if v is not None}
        line = json.dumps(finite(plain), allow_nan=False)  # a diverged loss is null
        if not quiet:
            print(line, flush=True)
        if fh is not None:
            fh.write(line + "\n")
            fh.flush()

    return log


def _imitate(args: argparse.Namespace) -> int:
    from koudian.train import require_jax

    require_jax()
    from koudian.train import data, export, imitate

    family_soft = imitate.family_values(args.family_soft)  # refused before the slow part
    weights = {"mc": args.mc_weight, "greedy": args.greedy_weight}
    rows = data.load(args.data, agent_weights=weights, max_rows=args.max_rows)
    train, held = data.split(rows, args.holdout, args.seed)
    cfg = imitate.ImitateConfig(
        hidden=imitate.tuple_ints(args.hidden),
        epochs=args.epochs,
        batch=args.batch,
        lr=args.lr,
        soft=args.soft,
        temperature=args.temperature,
        family_soft=family_soft,
        value_coef=args.value_coef,
        seed=args.seed,
    )
    start = export.load(args.init)[0] if args.init else None
    log = _logger(args.curve, args.quiet)
    log({"stage": "imitate", "rows": len(train), "held_out": len(held), "sources": args.data})
    params, _ = imitate.imitate(train, held, cfg, start=start, log=log)
    prov = {
        "recipe": "imitate " + imitate.recipe(cfg),
        "data": ", ".join(str(Path(d)) for d in args.data),
        "seed": args.seed,
    }
    export.save(params, args.output, prov, dtype=args.dtype)
    print(f"model: {args.output}", file=sys.stderr)
    return 0


def _improve(args: argparse.Namespace) -> int:
    from koudian.train import require_jax

    require_jax()
    from koudian.train import export, improve

    params, meta = export.load(args.model)
    cfg = improve.ImproveConfig(
        iterations=args.iterations,
        envs=args.envs,
        steps=args.steps,
        lr=args.lr,
        kl=args.kl,
        opponents=args.opponents,
        seed=args.seed,
    )
    rules = [r.strip() for r in args.rules.split(",") if r.strip()]
    log = _logger(args.curve, args.quiet)
    out, _ = improve.improve(params, rules, cfg, log=log)
    prev = meta.get("provenance", {})
    prov = {
        "recipe": f"{prev.get('recipe', '?')}; then improve "
        + json.dumps(cfg.__dict__, sort_keys=True, allow_nan=False)
        + f" on {','.join(rules)}",
        "data": prev.get("data", ""),
        "seed": args.seed,
    }
    export.save(out, args.output, prov, dtype=args.dtype)
    print(f"model: {args.output}", file=sys.stderr)
    return 0


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.train_func(args))
    except KoudianError as e:
        print(f"koudian train: {e}", file=sys.stderr)
        return 2


def add_subparser(sub: Any) -> None:
    """Adds ``train`` (with ``imitate`` and ``improve``) to the CLI."""
    t = sub.add_parser(
        "train",
        help="train the nn agent: imitate recorded mc play, improve by PPO (extra train)",
        description="Train a model for the nn agent (nn:PATH) with JAX on the CPU "
        '(pip install ".[train]"). Same data, options and seed: the same weights.',
    )
    tsub = t.add_subparsers(dest="train_command", metavar="STAGE", required=True)
    i = tsub.add_parser(
        "imitate",
        help="imitate the recorded decisions (policy + value heads)",
        epilog="example: koudian simulate --agents mc,greedy,greedy,greedy --hands 500 "
        "--record data/mc && koudian train imitate data/mc -o model.safetensors",
    )
    i.add_argument("data", nargs="+", help="dataset directories (koudian simulate --record)")
    i.add_argument("-o", "--output", required=True, help="the model file to write")
    i.add_argument("--epochs", type=positive_int, default=4)
    i.add_argument("--hidden", default="256,128", help="hidden layer widths (default 256,128)")
    i.add_argument("--batch", type=positive_int, default=512)
    i.add_argument("--lr", type=float, default=1e-3)
    i.add_argument(
        "--soft", type=float, default=0.5, help="weight of mc's values where recorded (0.5)"
    )
    i.add_argument("--temperature", type=float, default=2.0, help="points per logit (2)")
    i.add_argument(
        "--family-soft",
        default="",
        metavar="FAMILY=SHARE,...",
        help="--soft for a family where it differs (e.g. sichuan=0)",
    )
    i.add_argument(
        "--value-coef", type=nonnegative_float, default=0.25, help="weight of the value loss (0.25)"
    )
    i.add_argument("--mc-weight", type=float, default=1.0, help="weight of mc seats' rows")
    i.add_argument("--greedy-weight", type=float, default=1.0, help="... of greedy seats' rows")
    i.add_argument("--holdout", type=float, default=0.05, help="held-out share of hands")
    i.add_argument("--max-rows", type=positive_int, default=None, help="rows per dataset")
    i.add_argument("--init", default=None, help="start from this model's weights")
    i.set_defaults(train_func=_imitate)
    m = tsub.add_parser("improve", help="PPO on VecEnv against native opponents, KL to the start")
    m.add_argument("model", help="the model to start from (and to stay near)")
    m.add_argument("-o", "--output", required=True, help="the model file to write")
    m.add_argument("--rules", default="shanxi", help="presets played in turn (a,b,...)")
    m.add_argument("--iterations", type=positive_int, default=50)
    m.add_argument("--envs", type=positive_int, default=64)
    m.add_argument("--steps", type=positive_int, default=32)
    m.add_argument("--lr", type=float, default=1e-4)
    m.add_argument("--kl", type=float, default=0.5, help="weight of the KL to the start (0.5)")
    m.add_argument("--opponents", default="greedy")
    m.set_defaults(train_func=_improve)
    for s in (i, m):
        s.add_argument("--seed", type=int, default=0)
        s.add_argument("--dtype", choices=("f32", "f16"), default="f32")
        s.add_argument("--curve", default=None, help="append each entry to this JSON Lines file")
        s.add_argument("--quiet", action="store_true")
    t.set_defaults(func=_run)
