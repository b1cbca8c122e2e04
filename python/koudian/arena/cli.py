"""The ``koudian arena`` command (``--agents`` and ``--ladder``): its
arguments, progress bars, output and exit codes, over ``koudian.arena``'s
``arena`` and ``ladder``. Ctrl-C stops a run after the deals under way:
the summary and ``--json`` of the deals finished, exit code 130."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

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
from koudian._strictjson import finite
from koudian.agents import agents_help
from koudian.arena.luck import MIN_LUCK_DEALS
from koudian.arena.results import ArenaInterrupted, ArenaResult, LadderInterrupted
from koudian.arena.running import LUCK_MODES, arena, ladder
from koudian.arena.stats import mean_ci

__all__ = ["add_subparser"]

_INTERRUPTED = 130
"""The exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells
report it), after its summary and outputs."""


def _tqdm(total: int, enabled: bool) -> Any:
    """A tqdm bar of ``total`` deals on stderr, or None (disabled, or tqdm
    not installed: it is the ``cli`` extra)."""
    if not enabled:
        return None
    try:
        from tqdm import tqdm  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return None
    return tqdm(total=total, unit="deal", file=sys.stderr)


class _Bar:
    """tqdm with the running estimate of the first pair, else nothing."""

    def __init__(self, total: int, enabled: bool) -> None:
        self._bar: Any = _tqdm(total, enabled)
        self._done = 0

    def __call__(self, partial: ArenaResult) -> None:
        if self._bar is None:
            return
        self._bar.update(partial.deals - self._done)
        self._done = partial.deals
        pairs = partial.pair_stats() if partial.deals > 1 else []
        if pairs:
            p = pairs[0]
            half = (p.ci95[1] - p.ci95[0]) / 2
            self._bar.set_postfix_str(f"{p.a}-{p.b} {p.diff:+.2f}±{half:.2f}")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def _write_json(path: str, data: dict[str, Any]) -> None:
    """Writes ``--json`` data to ``path``, indented, with a final newline."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(finite(data), f, indent=2, allow_nan=False)
        f.write("\n")


def _finish(bar: Any, run: Callable[[], Any], path: str | None, rules: str) -> tuple[Any, int]:
    """Runs ``run`` under ``bar``: its result and exit code, the finished
    part and 130 if it was interrupted; names the ruleset ``rules`` as the
    command line gave it (``shanxi --set special_hands=true``); writes
    ``--json`` to ``path`` either way."""
    code = 0
    try:
        res = run()
    except (ArenaInterrupted, LadderInterrupted) as stop:
        res, code = stop.result, _INTERRUPTED
    finally:
        bar.close()
    res.rules = rules
    if path:
        _write_json(path, res.to_json())
    return res, code


def _cmd_arena(args: argparse.Namespace) -> int:
    if args.ladder is not None:
        return _cmd_ladder(args)
    if args.agents is None:
        print("koudian: error: give --agents A,B,C,D or --ladder A,B,C,...", file=sys.stderr)
        return 2
    agents = split_agents(args.agents)
    try:
        if len(agents) != 4:
            raise RulesetError(f"--agents needs 4 agents, got {len(agents)}: {agents}")
        for a in agents:
            check_agent(a)
        rules = rules_from_args(args)
        seats = seat_list(args.record_seats) if args.record_seats else None
        if args.record and not args.overwrite:  # refused before the bar is drawn
            from koudian.dataset import prepare

            prepare(args.record)
        bar = _Bar(args.deals, not args.quiet)
        res, code = _finish(
            bar,
            lambda: arena(
                agents,
                rules,
                args.deals,
                seed=args.seed,
                threads=args.threads,
                format=args.format,
                timeout=args.timeout,
                progress=bar,
                record=args.record,
                record_seats=seats,
                backend=args.cluster,
                luck=args.luck,
                overwrite=args.overwrite,
            ),
            args.json,
            rules_label(args),
        )
    except (KoudianError, OSError) as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    print(res.summary())
    if res.retried_tasks:
        print(f"ray: {res.retried_tasks} task(s) retried after a worker died")
    if args.record:
        partial = " (partial: the deals finished)" if res.interrupted else ""
        print(f"dataset: the decisions of {res.hands} hands in {args.record}{partial}")
    return code


_EXAMPLES = """examples:
  koudian arena --agents mc,greedy,greedy,greedy --deals 200
  koudian arena --agents greedy,random,random,random --rules sichuan --threads 2
  koudian arena --agents greedy,random,random,random --set special_hands=true --json out.json
  koudian arena --agents 'cmd:python examples/my_bot.py,greedy,greedy,greedy' --deals 50
  koudian arena --ladder greedy,mc,random --deals 500"""


def add_subparser(sub: Any) -> None:
    """Adds ``koudian arena`` to the CLI's subparsers."""
    p = sub.add_parser(
        "arena",
        help="compare agents on the same seeded deals (duplicate format)",
        description=(
            "Duplicate arena: every deal is played with the agents rotated through the\n"
            "seats (and, for A,B,B,B, by the reference table B,B,B,B), with the same\n"
            "seeds, so the deal's luck cancels. Intervals are 95% over deals. Ctrl-C\n"
            "stops the run and prints the summary of the deals finished (exit code 130)."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--agents",
        help=f"4 agents: {agents_help()}",
    )
    add_rules(p)
    p.add_argument("--deals", type=positive_int, default=1000, help="seeded deals (1000)")
    add_seed(p)
    add_threads(p)
    p.add_argument("--format", choices=("duplicate", "single"), default="duplicate")
    p.add_argument("--json", default=None, metavar="PATH", help="write the results as JSON")
    add_timeout(p)
    p.add_argument(
        "--record",
        metavar="DIR",
        default=None,
        help="write every decision of every table as a Parquet dataset to DIR (needs pyarrow)",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the dataset already in the --record DIR (refused otherwise)",
    )
    p.add_argument(
        "--record-seats", default=None, help="seats to record, e.g. 0 or 0,2 (default: all)"
    )
    p.add_argument(
        "--cluster",
        default="local",
        help="local (default), ray (a local Ray, or RAY_ADDRESS), or ray:ADDRESS",
    )
    p.add_argument(
        "--luck",
        choices=LUCK_MODES,
        default="auto",
        help="take the luck of the wall out of a 1-vs-3 run against greedy: auto (where "
        "it can be and pays: not for built-in random; default), adjust (insist), keep "
        f"(never); on fewer than {MIN_LUCK_DEALS} deals the advantage is as played",
    )
    add_quiet(p)
    _add_ladder_arguments(p)
    p.set_defaults(func=_cmd_arena)


def _add_ladder_arguments(p: Any) -> None:
    """``--ladder`` and ``--reference`` of ``koudian arena``."""
    p.add_argument(
        "--ladder",
        default=None,
        metavar="A,B,C,...",
        help="rank any number of agents, each against three copies of the reference "
        f"(instead of --agents): {agents_help()}",
    )
    p.add_argument(
        "--reference",
        default=None,
        metavar="AGENT",
        help="the ladder's reference agent (default: the first of --ladder)",
    )


def _cmd_ladder(args: argparse.Namespace) -> int:
    agents = split_agents(args.ladder)
    try:
        if args.agents is not None:
            raise RulesetError("give --agents or --ladder, not both")
        if args.format != "duplicate":
            raise RulesetError("the ladder is played in the duplicate format only")
        rules = rules_from_args(args)
        reference = args.reference
        if reference is not None:
            (reference,) = split_agents(reference)
        for a in [*agents, *([] if reference is None else [reference])]:
            check_agent(a)
        runs = len(agents) - (reference is None or reference in agents)
        ladder_bar = _LadderBar(args.deals * max(runs, 1), not args.quiet)
        res, code = _finish(
            ladder_bar,
            lambda: ladder(
                agents,
                rules,
                args.deals,
                reference=reference,
                seed=args.seed,
                threads=args.threads,
                timeout=args.timeout,
                progress=ladder_bar,
                luck=args.luck,
            ),
            args.json,
            rules_label(args),
        )
    except (KoudianError, OSError) as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    print(res.summary())
    return code


class _LadderBar:
    """tqdm over every run's deals, with the running advantage of the
    agent being measured, else nothing."""

    def __init__(self, total: int, enabled: bool) -> None:
        self._bar = _tqdm(total, enabled)
        self._done: dict[str, int] = {}

    def __call__(self, agent: str, partial: ArenaResult) -> None:
        if self._bar is None:
            return
        self._bar.update(partial.deals - self._done.get(agent, 0))
        self._done[agent] = partial.deals
        if partial.deals > 1:
            mean, lo, hi = mean_ci(partial._advantage(agent))
            self._bar.set_postfix_str(f"{agent} {mean:+.2f}±{(hi - lo) / 2:.2f}")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
