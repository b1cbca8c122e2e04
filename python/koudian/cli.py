"""The ``koudian`` command line (also ``python -m koudian``).

Subcommands: ``rules`` (print a preset as TOML), ``analyze`` (win,
decompositions, shanten, waits, discards, hand value), ``bench``
(throughput, optionally against installed peers). A ``simulate``
subcommand is added by ``koudian.simulate.add_subparser`` when that module
exists.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

import koudian

__all__ = ["build_parser", "main"]


def _glyph_notation(tiles: Sequence[koudian.Tile]) -> str:
    return f"{koudian.glyphs(list(tiles))}  {koudian.fmt(list(tiles))}"


def _waits_text(points: dict[koudian.Tile, int]) -> str:
    if not points:
        return "none"
    return "  ".join(f"{t.glyph} {t}({p})" for t, p in points.items())


def _cmd_rules(args: argparse.Namespace) -> int:
    if args.list:
        from koudian._presets import names

        print("\n".join(names()))
        return 0
    try:
        rules = koudian.Ruleset.preset(args.preset)
    except koudian.KoudianError as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    print(rules.to_toml(), end="")
    return 0


def _analyze(args: argparse.Namespace) -> None:
    tiles = koudian.parse(args.hand)
    melds = [koudian.Meld.parse(m) for m in args.melds]
    wild = koudian.parse(args.wild) if args.wild else []
    if args.rules is None:
        # Wild tiles imply a wildcard preset unless --rules says otherwise.
        args.rules = {0: "shanxi", 1: "shanxi-haozi"}.get(len(wild), "shanxi-double-haozi")
    rules = koudian.Ruleset.preset(args.rules)
    kinds = len(set(wild))
    if kinds > rules.wild_kinds:
        # Refused before any output: the core would happily use the wild
        # tiles for decompositions and discards, then the value would fail.
        raise koudian.RulesetError(
            f"--wild names {kinds} wild kind(s) ({koudian.fmt(wild)}) but the ruleset "
            f"{args.rules} deals {rules.wild_kinds}; use --rules shanxi-haozi (one kind), "
            "shanxi-double-haozi (two), or leave --rules out"
        )
    kw: dict[str, Any] = {"melds": melds, "wildcards": wild, "rules": rules}
    n = len(tiles) + 3 * len(melds)
    print(f"hand     {_glyph_notation(tiles)}" + "".join(f"  {m}" for m in melds))
    print(f"rules    {args.rules}" + (f"   wild: {_glyph_notation(wild)}" if wild else ""))
    if n not in (13, 14):
        raise koudian.InvalidHandError(
            f"{len(tiles)} concealed tiles with {len(melds)} meld(s): a hand needs "
            f"{13 - 3 * len(melds)} (waiting) or {14 - 3 * len(melds)} (complete) tiles"
        )
    print(f"shanten  {koudian.shanten(tiles, **kw)}")
    if n == 14:
        decs = koudian.decompose(tiles, **kw)
        print(f"win      {'yes' if decs else 'no'}")
        for d in decs:
            print(f"         {d}")
        if decs:
            win_tile = koudian.Tile.parse(args.win_tile) if args.win_tile else tiles[-1]
            for self_draw in (True, False):
                how = "self-draw" if self_draw else "discard"
                try:
                    v = koudian.hand_value(tiles, win_tile, self_draw=self_draw, **kw)
                    print(f"value    on {win_tile.glyph} {win_tile} by {how}: {v}")
                except koudian.KoudianError as e:
                    print(f"value    on {win_tile.glyph} {win_tile} by {how}: {e}")
        print()
        print("discard      shanten  ting  best  waits (points)")
        for o in koudian.discard_options(tiles, **kw):
            best = "-" if o.best_points is None else str(o.best_points)
            ting = "yes" if o.can_declare_ting else "no"
            print(
                f"{o.discard.glyph} {o.discard!s:<9} {o.shanten:>7}  {ting:<4}  {best:>4}  "
                f"{_waits_text(o.wait_points)}"
            )
    else:
        print(f"waits    {_waits_text(koudian.wait_points(tiles, **kw))}")


def _hand_from_melds(args: argparse.Namespace) -> None:
    """``analyze --melds 555z 123m456p11z``: ``--melds`` takes the rest of
    the line, so a hand written after it lands among the melds. When no
    hand was given and the last ``--melds`` value is not a meld (a pong or
    a kong), it is the hand; a value that is a meld (even one that could
    be a four-tile hand, ``1111z``) stays a meld and the hand is missing."""
    if args.hand is not None:
        return
    if args.melds:
        try:
            koudian.Meld.parse(args.melds[-1])
        except koudian.KoudianError:
            args.hand = args.melds.pop()
            return
    args.analyze_parser.error(
        "the following arguments are required: hand (write it before --melds, which takes "
        "the rest of the line)"
    )


def _cmd_analyze(args: argparse.Namespace) -> int:
    _hand_from_melds(args)
    try:
        _analyze(args)
    except koudian.KoudianError as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from koudian._bench import host_summary, report, run_bench

    tasks = args.task or ["is_win", "waits", "shanten"]
    host = host_summary()  # before the run: the load average is the host's own
    results = run_bench(
        args.hands, peers=args.peers, repeat=args.repeat, progress=not args.quiet, tasks=tasks
    )
    print(host)
    print(
        f"{args.hands} seeded hands per case, best of {args.repeat} rounds"
        " (every case once a round, every other round in reverse;"
        " numpy batches write into a kept out= array)"
    )
    print(report(results))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    p = argparse.ArgumentParser(
        prog="koudian",
        description="Rules engine for Shanxi 扣点点, Linxian 抠点 and Sichuan mahjong.",
    )
    p.add_argument("--version", action="version", version=f"koudian {koudian.__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser("rules", help="print a preset's options as TOML")
    r.add_argument("preset", nargs="?", default="shanxi", help="preset name (default shanxi)")
    r.add_argument("--list", action="store_true", help="list the preset names")
    r.set_defaults(func=_cmd_rules)

    a = sub.add_parser(
        "analyze",
        help="win, decompositions, shanten, waits, discards and value of a hand",
        # Written out: argparse would show --melds before the hand, and
        # --melds takes every value after it.
        usage=(
            "%(prog)s [-h] [--wild WILD] [--rules RULES] [--win-tile WIN_TILE] "
            "hand [--melds MELD ...]"
        ),
        description=(
            "HAND is notation (123m456p11z), tile glyphs or Chinese names. --melds takes "
            "the rest of the line: write it last, after the hand (a hand written after "
            "the melds is taken as the hand when it is not a meld itself)."
        ),
    )
    a.add_argument("hand", nargs="?", help="concealed tiles, e.g. 123m456p789s11122z")
    a.add_argument("--wild", default="", help="wild kinds (耗子), e.g. 5z or 5z7z")
    a.add_argument(
        "--rules",
        default=None,
        help="preset name (default shanxi, or shanxi-haozi / shanxi-double-haozi with --wild)",
    )
    a.add_argument(
        "--melds",
        nargs="*",
        default=[],
        metavar="MELD",
        help="melds, the rest of the line: 555z pong, 5555z exposed kong, +5555z added, "
        '"[5555z]" concealed',
    )
    a.add_argument("--win-tile", default=None, help="the winning tile (default: the last one)")
    a.set_defaults(func=_cmd_analyze, analyze_parser=a)

    b = sub.add_parser("bench", help="throughput of win detection, waits and shanten")
    b.add_argument("--peers", action="store_true", help="also run riichienv/xiangting/mahjong")
    b.add_argument("--hands", type=int, default=100_000, help="hands per case (default 100000)")
    b.add_argument("--repeat", type=int, default=3, help="runs per case, best kept (default 3)")
    b.add_argument(
        "--task", action="append", choices=["is_win", "waits", "shanten"], help="only these"
    )
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=_cmd_bench)

    # Hook for the game engineer's module: `koudian simulate`.
    try:
        from koudian import simulation as simulate
    except ImportError:
        simulate = None  # type: ignore[assignment]
    if simulate is not None and hasattr(simulate, "add_subparser"):
        simulate.add_subparser(sub)
    __import__("koudian.arena").arena.add_subparser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``koudian`` console script."""
    try:
        code = _run(argv)
        sys.stdout.flush()  # a closed pipe fails here, not at exit
    except BrokenPipeError:
        # The reader went away (`koudian analyze ... | head -1`): stop
        # quietly. stdout now points at devnull so that Python's own flush
        # at exit does not raise again (Python docs, "Note on SIGPIPE").
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return code


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 1
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
