"""The ``koudian simulate`` command: its arguments (the shared ones from
``koudian._cli_args``), progress bar, output and exit codes, over
``koudian.simulate``. Ctrl-C stops the run and prints the summary of the
hands played (exit code 130)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import IO, Any

from koudian._cli_args import (
    add_quiet,
    add_rules,
    add_seed,
    add_threads,
    add_timeout,
    check_agent,
    positive_int,
    seat_list,
    split_agents,
)
from koudian._cli_rules import rules_from_args, rules_label
from koudian._core import KoudianError, RulesetError
from koudian.agents import agents_help
from koudian.simulation import simulate
from koudian.simulation_result import SimulationInterrupted

__all__ = ["add_subparser"]


class _Progress:
    """tqdm when installed, else a plain counter on stderr."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total = total
        self.done = 0
        self.enabled = enabled
        self._bar: Any = None
        self._last = 0.0
        self._t0 = time.perf_counter()
        if enabled:
            try:
                from tqdm import tqdm  # type: ignore[import-untyped, unused-ignore]

                self._bar = tqdm(total=total, unit="hand", unit_scale=True, file=sys.stderr)
            except ImportError:
                self._bar = None

    def __call__(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(n)
            return
        now = time.perf_counter()
        if now - self._last >= 0.5 or self.done >= self.total:
            self._last = now
            rate = self.done / max(now - self._t0, 1e-9)
            pct = 100 * self.done / max(self.total, 1)
            print(
                f"\r{self.done}/{self.total} hands ({pct:5.1f}%), {rate:,.0f} hands/s",
                end="",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
        else:
            print(file=sys.stderr)


def _cmd_simulate(args: argparse.Namespace) -> int:
    agents = split_agents(args.agents)
    if len(agents) == 1:
        agents = agents * 4
    log: IO[str] | None = None
    try:
        # Everything is checked before the progress bar is drawn.
        if len(agents) != 4:
            raise RulesetError(f"--agents needs 1 or 4 agents, got {len(agents)}: {agents}")
        for a in agents:
            check_agent(a)
        rules = rules_from_args(args)
        seats = seat_list(args.record_seats) if args.record_seats else None
        if args.record and not args.overwrite:  # refused before the bar is drawn
            from koudian.dataset import prepare

            prepare(args.record)
        if args.log:
            from koudian.logs import open_log

            log = open_log(args.log, args.log_compress)
    except (KoudianError, OSError) as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    bar = _Progress(args.hands, not args.quiet)
    code = 0
    try:
        result = simulate(
            rules,
            agents,
            args.hands,
            seed=args.seed,
            threads=args.threads,
            log=log,
            progress=bar,
            timeout=args.timeout,
            record=args.record,
            record_seats=seats,
            backend=args.cluster,
            overwrite=args.overwrite,
        )
    except SimulationInterrupted as stop:
        result, code = stop.result, 130  # 128 + SIGINT, as shells report it
    except (KoudianError, OSError) as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    finally:
        bar.close()
        if log is not None:
            log.close()
    print(f"rules {rules_label(args)}, agents {', '.join(result.agents)}, seed {args.seed}")
    print(result.summary())
    if result.retried_tasks:
        print(f"ray: {result.retried_tasks} task(s) retried after a worker died")
    if args.record:
        from koudian.dataset import describe

        print(f"dataset: {describe(args.record)}")
    return code


_EXAMPLES = """examples:
  koudian simulate --hands 2000
  koudian simulate --rules linxian --agents greedy --hands 500 --seed 3
  koudian simulate --rules shanxi --set special_hands=true --agents greedy
  koudian simulate --agents 'cmd:python examples/my_bot.py,random,random,random' --hands 20
  koudian simulate --hands 1000 --log hands.jsonl   # read it with koudian.read_logs"""


def add_subparser(sub: Any) -> None:
    """Adds ``koudian simulate`` to the CLI's subparsers."""
    p = sub.add_parser(
        "simulate",
        help="self-play many hands and summarize the results per seat",
        description=(
            "Self-play: every game is one hand dealt from the seed; built-in agents "
            "run natively in Rust, Python or external agents from Python. Ctrl-C stops "
            "the run and prints the summary of the hands played (exit code 130)."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_rules(p)
    p.add_argument(
        "--agents",
        default="greedy,random,random,random",
        help=f"4 agents (or 1 for all seats): {agents_help()}",
    )
    p.add_argument(
        "--hands", type=positive_int, default=10_000, help="number of hands, >= 1 (default 10000)"
    )
    add_seed(p)
    add_threads(p)
    p.add_argument(
        "--log",
        default=None,
        help="write every hand's JSON Lines log to this file (.gz: gzip, .zst: zstd)",
    )
    p.add_argument(
        "--log-compress",
        choices=["none", "gzip", "zstd"],
        default=None,
        help="compress the --log (default: by its suffix); read it with koudian.read_logs",
    )
    p.add_argument(
        "--record",
        metavar="DIR",
        default=None,
        help="write every decision as a Parquet dataset to DIR (koudian.dataset; needs pyarrow)",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the dataset already in the --record DIR (refused otherwise)",
    )
    p.add_argument(
        "--record-seats",
        default=None,
        help="seats to record, e.g. 0 or 0,2 (default: all)",
    )
    p.add_argument(
        "--cluster",
        default="local",
        help="local (default), ray (a local Ray, or RAY_ADDRESS), or ray:ADDRESS",
    )
    add_timeout(p)
    add_quiet(p)
    p.set_defaults(func=_cmd_simulate)
