"""The arguments every ``koudian`` subcommand shares, written once.

``--rules`` and ``--set`` (``koudian._cli_rules``), ``--seed``,
``--threads`` (a whole number ≥ 0, 0: every core), ``--timeout`` (seconds
an external bot may think, ``0 < t <= MAX_TIMEOUT``) and ``--quiet``: a
subcommand adds each with the function here, so its name, type,
validation and help are those of every other subcommand
(``tests/test_cli_args.py`` walks the real subparsers and checks that each
option of these names is the one made here). Also the small parsers the
subcommands share: ``--agents`` lists, ``--record-seats`` and positive
counts.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from koudian._cli_rules import DEFAULT_PRESET, add_rules_argument
from koudian._core import RulesetError
from koudian.protocol import MAX_TIMEOUT, BotError, check_timeout

__all__ = [
    "add_quiet",
    "add_rules",
    "add_seed",
    "add_threads",
    "add_timeout",
    "check_agent",
    "int_at_least",
    "nonnegative_float",
    "positive_int",
    "seat_list",
    "split_agents",
    "threads",
    "timeout_seconds",
]


def int_at_least(minimum: int, rule: str) -> Callable[[str], int]:
    """An argparse type: a whole number ``>= minimum``, refused as
    ``"{rule}, got N"`` below it."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{rule}, got {value}")
        return value

    return parse


positive_int = int_at_least(1, "must be at least 1")
"""argparse type of a count (``--hands``, ``--deals``, ``--hand``)."""

threads = int_at_least(0, "threads must be ≥ 0 (0: every core)")
"""argparse type of ``--threads``."""


def nonnegative_float(text: str) -> float:
    """argparse type of a weight: a finite number ``>= 0``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return value


def timeout_seconds(text: str) -> float:
    """argparse type of ``--timeout``: seconds, ``0 < t <= MAX_TIMEOUT``
    (``koudian.protocol.check_timeout``: not NaN, not infinite)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    try:
        return check_timeout(value)
    except BotError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_rules(parser: argparse.ArgumentParser, default: str | None = DEFAULT_PRESET) -> None:
    """``--rules NAME|FILE.toml`` and the repeatable ``--set KEY=VALUE``
    (read with ``koudian._cli_rules.rules_from_args``)."""
    add_rules_argument(parser, default)


def add_seed(parser: argparse.ArgumentParser) -> None:
    """``--seed``: the run's master seed."""
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")


def add_threads(parser: argparse.ArgumentParser) -> None:
    """``--threads``: ≥ 0, 0 every core."""
    parser.add_argument(
        "--threads", type=threads, default=0, help="threads, 0 = every core (default)"
    )


def add_timeout(parser: argparse.ArgumentParser) -> None:
    """``--timeout``: seconds an external bot may think per decision."""
    parser.add_argument(
        "--timeout",
        type=timeout_seconds,
        default=5.0,
        help=f"seconds an external bot may think per decision, at most {MAX_TIMEOUT:g} (5)",
    )


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress bar."""
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def split_agents(text: str) -> list[str]:
    """Splits ``greedy,random,cmd:"python bot.py --x 1",random`` on commas
    outside quotes; quotes around a ``cmd:`` command are removed."""
    out: list[str] = []
    cur = ""
    quote = ""
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
            else:
                cur += ch
        elif ch in "\"'":
            quote = ch
        elif ch == ",":
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [a for a in out if a]


def check_agent(spec: str) -> None:
    """Refuses an unknown built-in name before anything runs (``cmd:``
    bots are started, and their commands checked, when the run starts)."""
    if not spec.startswith("cmd:"):
        from koudian.agents import native_agent

        native_agent(spec)  # AgentError naming the known agents


def seat_list(text: str) -> list[int]:
    """``--record-seats 0,2``: seat numbers."""
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise RulesetError(f"--record-seats takes seat numbers like 0,2; got {text!r}") from None
