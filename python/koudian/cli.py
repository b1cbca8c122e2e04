"""The ``koudian`` command line (also ``python -m koudian``).

Subcommands: ``rules`` (print a preset as TOML), ``analyze`` (win,
decompositions, shanten, waits, discards, hand value), ``bench``
(throughput, optionally against installed peers); ``simulate``
(``koudian.simulation_cli``), ``view``, ``review`` and ``serve``
(``koudian.web``) and ``arena`` (``koudian.arena.cli``) add themselves.
Every subcommand takes its shared arguments from ``koudian._cli_args``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

import koudian
from koudian._cli_args import add_quiet, add_rules
from koudian._cli_rules import rules_from_args, rules_label

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
        if args.preset is not None and args.rules is not None:
            raise koudian.RulesetError(
                f"give the ruleset once: {args.preset!r} or --rules {args.rules!r}"
            )
        if args.preset is not None:
            args.rules = args.preset
        rules = rules_from_args(args)
    except (koudian.KoudianError, OSError) as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    print(rules.to_toml(), end="")
    return 0


_SUITS = ("万", "筒", "条")


def _suits_text(tiles: Sequence[koudian.Tile], melds: Sequence[koudian.Meld]) -> str:
    """缺一门 at a glance: the suits held (concealed and melded)."""
    held = {int(t) // 9 for t in tiles if int(t) < 27}
    for m in melds:
        if m.tile is not None and int(m.tile) < 27:
            held.add(int(m.tile) // 9)
    names = "".join(_SUITS[i] for i in sorted(held))
    missing = [_SUITS[i] for i in range(3) if i not in held]
    if missing:
        return f"{names or '-'} (缺一门: no {''.join(missing)})"
    return f"{names} (all three suits: not a win under 缺一门)"


def _check_hand(
    tiles: Sequence[koudian.Tile],
    melds: Sequence[koudian.Meld],
    win_tile: koudian.Tile | None,
    kw: dict[str, Any],
) -> int:
    """Every refusal of ``analyze``, before any output: the hand's size, its
    tiles under the ruleset (a fifth copy, an honor in Sichuan), and the
    winning tile. Returns the hand's size counting melds as 3."""
    n = len(tiles) + 3 * len(melds)
    if not tiles:
        raise koudian.InvalidHandError("the hand is empty: give its concealed tiles")
    if n not in (13, 14):
        raise koudian.InvalidHandError(
            f"{len(tiles)} concealed tiles with {len(melds)} meld(s): a hand needs "
            f"{13 - 3 * len(melds)} (waiting) or {14 - 3 * len(melds)} (complete) tiles"
        )
    koudian.shanten(tiles, **kw)  # the core's own checks: five copies, honors in Sichuan
    if win_tile is not None:
        if n != 14:
            raise koudian.InvalidHandError("--win-tile needs a complete (14-tile) hand")
        if win_tile not in tiles:
            raise koudian.InvalidHandError(
                f"--win-tile {win_tile} ({win_tile.glyph}) is not in the hand "
                f"{koudian.fmt(list(tiles))}"
            )
    return n


def _analyze(args: argparse.Namespace) -> None:
    tiles = koudian.parse(args.hand)
    melds = [koudian.Meld.parse(m) for m in args.melds]
    wild = koudian.parse(args.wild) if args.wild else []
    # Wild tiles imply a wildcard preset unless --rules says otherwise.
    default = {0: "shanxi", 1: "shanxi-haozi"}.get(len(wild), "shanxi-double-haozi")
    rules = rules_from_args(args, default)
    label = rules_label(args, default)
    kinds = len(set(wild))
    if kinds > rules.wild_kinds:
        # Refused before any output: the core would happily use the wild
        # tiles for decompositions and discards, then the value would fail.
        raise koudian.RulesetError(
            f"--wild names {kinds} wild kind(s) ({koudian.fmt(wild)}) but the ruleset "
            f"{label} deals {rules.wild_kinds}; use --rules shanxi-haozi (one kind), "
            "shanxi-double-haozi (two), or leave --rules out"
        )
    kw: dict[str, Any] = {"melds": melds, "wildcards": wild, "rules": rules}
    win_tile = koudian.Tile.parse(args.win_tile) if args.win_tile else None
    n = _check_hand(tiles, melds, win_tile, kw)
    sichuan = str(rules.family) == "sichuan"
    # Everything below only prints: every refusal came first.
    print(f"hand     {_glyph_notation(tiles)}" + "".join(f"  {m}" for m in melds))
    print(f"rules    {label}" + (f"   wild: {_glyph_notation(wild)}" if wild else ""))
    if sichuan:
        print(f"suits    {_suits_text(tiles, melds)}")
    print(f"shanten  {koudian.shanten(tiles, **kw)}")
    if n == 14:
        _analyze_complete(tiles, win_tile, kw, sichuan)
    elif sichuan:
        values = _sichuan_values(tiles, kw)
        print(f"waits    {_waits_text(values)}  (pattern value on a discard)")
        value = koudian.chajiao_value(tiles, melds=kw["melds"], rules=kw["rules"])
        print(f"查叫     {'-' if value is None else value}  (what a drawn hand pays this hand)")
    else:
        print(f"waits    {_waits_text(koudian.wait_points(tiles, **kw))}")


def _sichuan_values(tiles: Sequence[koudian.Tile], kw: dict[str, Any]) -> dict[koudian.Tile, int]:
    """Each wait of a 13-tile Sichuan hand with the pattern value of a win
    on it by discard (what 缺一门 allows; the core values every one)."""
    out: dict[koudian.Tile, int] = {}
    for t in koudian.waits(tiles, **kw):
        v = koudian.hand_value([*tiles, t], t, self_draw=False, **kw)
        out[t] = v.total
    return out


def _analyze_complete(
    tiles: Sequence[koudian.Tile],
    win_tile: koudian.Tile | None,
    kw: dict[str, Any],
    sichuan: bool,
) -> None:
    decs = koudian.decompose(tiles, **kw)
    print(f"win      {'yes' if decs else 'no'}")
    for d in decs:
        print(f"         {d}")
    if decs:
        won_on = win_tile if win_tile is not None else tiles[-1]
        for self_draw in (True, False):
            how = "self-draw" if self_draw else "discard"
            try:
                v = koudian.hand_value(tiles, won_on, self_draw=self_draw, **kw)
                print(f"value    on {won_on.glyph} {won_on} by {how}: {v}")
            except koudian.KoudianError as e:
                print(f"value    on {won_on.glyph} {won_on} by {how}: {e}")
    print()
    if sichuan:
        # Sichuan has no ting and no tile points: a discard is judged by
        # shanten and by what each wait would be worth (pattern value).
        print("discard      shanten  waits (pattern value on a discard)")
        for o in koudian.discard_options(tiles, **kw):
            rest = list(tiles)
            rest.remove(o.discard)
            values = _sichuan_values(rest, kw) if o.shanten == 0 else {}
            print(f"{o.discard.glyph} {o.discard!s:<9} {o.shanten:>7}  {_waits_text(values)}")
        return
    print("discard      shanten  ting  best  waits (points)")
    for o in koudian.discard_options(tiles, **kw):
        best = "-" if o.best_points is None else str(o.best_points)
        ting = "yes" if o.can_declare_ting else "no"
        print(
            f"{o.discard.glyph} {o.discard!s:<9} {o.shanten:>7}  {ting:<4}  {best:>4}  "
            f"{_waits_text(o.wait_points)}"
        )


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
    from koudian._bench import host_summary, kernel_summary, report, run_bench

    host = host_summary()  # before the run: the load average is the host's own
    try:
        host += "\n" + kernel_summary()
    except koudian.KoudianError as e:  # an unusable KOUDIAN_SIMD
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    if args.env:
        from koudian._bench_env import env_report, run_env_bench

        print(host)
        print(env_report(run_env_bench(repeat=args.repeat)))
        return 0
    tasks = args.task or ["is_win", "waits", "shanten"]
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

    from koudian._presets import names

    raw = argparse.RawDescriptionHelpFormatter
    r = sub.add_parser(
        "rules",
        help="print a ruleset's options as TOML",
        description=(
            "Prints a ruleset (a preset, or a .toml file, changed by --set) as TOML, "
            "every option with its meaning; save it, edit it and pass the file to "
            f"--rules. Presets: {', '.join(names())}. Every option is described in "
            "docs/rules.md."
        ),
        epilog=(
            "examples:\n"
            "  koudian rules --list\n"
            "  koudian rules linxian\n"
            "  koudian rules shanxi --set special_hands=true > my_rules.toml\n"
            "  koudian rules --rules my_rules.toml"
        ),
        formatter_class=raw,
    )
    r.add_argument(
        "preset",
        nargs="?",
        default=None,
        help=f"a preset ({', '.join(names())}) or a .toml file (default shanxi)",
    )
    r.add_argument("--list", action="store_true", help="list the preset names")
    add_rules(r, default=None)
    r.set_defaults(func=_cmd_rules)

    a = sub.add_parser(
        "analyze",
        help="win, decompositions, shanten, waits, discards and value of a hand",
        # Written out: argparse would show --melds before the hand, and
        # --melds takes every value after it.
        usage=(
            "%(prog)s [-h] [--wild WILD] [--rules RULES] [--set KEY=VALUE] "
            "[--win-tile WIN_TILE] hand [--melds MELD ...]"
        ),
        description=(
            "HAND is notation (123m456p11z), tile glyphs or Chinese names (四五六筒). "
            "--melds takes the rest of the line: write it last, after the hand (a hand "
            "written after the melds is taken as the hand when it is not a meld itself). "
            "Under a Sichuan ruleset the suits held (缺一门) and the pattern value of "
            "each wait are shown instead of the Koudian ting and points."
        ),
        epilog=(
            "examples:\n"
            "  koudian analyze 123m456p789s11122z\n"
            "  koudian analyze 123m456p789s1155z\n"
            "  koudian analyze 123m456p789s11255z --wild 5z\n"
            "  koudian analyze 11m234m567p --melds 555z 777p\n"
            "  koudian analyze 11223344556677m --set special_hands=true\n"
            "  koudian analyze 112233m456789m99p --rules sichuan"
        ),
        formatter_class=raw,
    )
    a.add_argument("hand", nargs="?", help="concealed tiles, e.g. 123m456p789s11122z")
    a.add_argument("--wild", default="", help="wild kinds (耗子), e.g. 5z or 5z7z")
    add_rules(a, default=None)
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

    b = sub.add_parser(
        "bench",
        help="throughput of win detection, waits and shanten",
        description=(
            "Measures hands per second of is_win, waits and shanten on seeded random "
            "hands: one call per hand and numpy batches, on one thread and on every "
            "core, optionally beside installed peer libraries (--peers). The first line "
            "describes the host (CPU, cores, load average). Each thread-scaling line "
            "gives threads=2 / threads=1 beside the 'host ceiling' of the same run: two "
            "independent one-thread calls at once over one call, the most two threads "
            "can gain on this host at that moment. docs/performance.md ('Reading koudian "
            "bench') explains every line."
        ),
        epilog=(
            "examples:\n"
            "  koudian bench --hands 20000 --repeat 1\n"
            "  koudian bench --task shanten --peers"
        ),
        formatter_class=raw,
    )
    b.add_argument("--peers", action="store_true", help="also run riichienv/xiangting/mahjong")
    b.add_argument("--hands", type=int, default=100_000, help="hands per case (default 100000)")
    b.add_argument("--repeat", type=int, default=3, help="runs per case, best kept (default 3)")
    b.add_argument(
        "--task", action="append", choices=["is_win", "waits", "shanten"], help="only these"
    )
    add_quiet(b)
    b.add_argument("--env", action="store_true", help="PettingZoo env and VecEnv steps/s instead")
    b.set_defaults(func=_cmd_bench)

    from koudian.arena.cli import add_subparser as add_arena
    from koudian.simulation_cli import add_subparser as add_simulate
    from koudian.train.cli import add_subparser as add_train
    from koudian.web import register

    add_simulate(sub)
    register(sub)  # view, review, serve (koudian/web)
    add_arena(sub)
    add_train(sub)
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
