"""The one ruleset argument of every ``koudian`` subcommand.

``--rules`` takes a preset name or a ruleset TOML file; ``--set KEY=VALUE``
(repeatable) changes one option on top of it. Values are read as JSON
(``true``, ``3``, ``[12, 2]``, ``"single"``), a bare word as text
(``--set haozi=single``); the core ``Ruleset`` validates the result, so a
misspelled option or a wrong type is refused with the core's message (the
closest option name suggested). A subcommand adds the argument with
``add_rules_argument(parser)`` and reads it with ``rules_from_args(args)``::

    koudian simulate --rules shanxi --set special_hands=true
    koudian analyze 11223344556677m --rules my_rules.toml --set seven_pairs=false
"""

from __future__ import annotations

import argparse
import json
import os

from koudian._core import Ruleset, RulesetError

DEFAULT_PRESET = "shanxi"
"""The ruleset a command (and the play page) uses when none is given."""

__all__ = [
    "add_rules_argument",
    "parse_overrides",
    "resolve_rules",
    "rules_from_args",
    "rules_label",
]


def add_rules_argument(
    parser: argparse.ArgumentParser, default: str | None = DEFAULT_PRESET
) -> None:
    """Adds ``--rules NAME|FILE.toml`` and the repeatable ``--set KEY=VALUE``.

    ``default`` is the preset used without ``--rules`` (None: the
    subcommand chooses, e.g. ``analyze`` by its wild tiles)."""
    from koudian._presets import names

    shown = f" (default {default})" if default else ""
    parser.add_argument(
        "--rules",
        default=default,
        metavar="RULES",
        help=f"a preset ({', '.join(names())}) or a ruleset .toml file{shown}",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="rule_overrides",
        help="change one ruleset option, repeatable: --set special_hands=true "
        "--set wall_reserve=[12,2] (koudian rules prints every option, docs/rules.md "
        "explains them)",
    )


def parse_overrides(items: list[str]) -> dict[str, object]:
    """``["special_hands=true", "haozi=single"]`` as options; refuses an
    item without ``=`` or with an empty name, naming it."""
    out: dict[str, object] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise RulesetError(f"--set {item!r}: expected KEY=VALUE, e.g. special_hands=true")
        text = text.strip()
        try:
            value: object = json.loads(text)
        except ValueError:
            value = text  # a bare word: haozi=single
        if isinstance(value, list):
            value = tuple(value)
        out[key] = value
    return out


def resolve_rules(rules: object) -> Ruleset:
    """A ``Ruleset`` from a ``Ruleset``, a preset name or a ``.toml`` path."""
    if isinstance(rules, Ruleset):
        return rules
    if isinstance(rules, str):
        if rules.endswith(".toml") or os.path.isfile(rules):
            return Ruleset.from_toml(rules)
        return Ruleset.preset(rules)
    raise RulesetError(f"rules must be a preset name, a .toml file or a Ruleset, got {rules!r}")


def rules_from_args(args: argparse.Namespace, default: str = DEFAULT_PRESET) -> Ruleset:
    """The ruleset ``--rules`` and ``--set`` describe (validated by the core).

    Raises ``RulesetError`` (or the ``OSError`` of an unreadable file)."""
    base = resolve_rules(args.rules if args.rules is not None else default)
    overrides = parse_overrides(getattr(args, "rule_overrides", []) or [])
    if not overrides:
        return base
    return base.replace(**overrides)  # type: ignore[arg-type]


def rules_label(args: argparse.Namespace, default: str = DEFAULT_PRESET) -> str:
    """How the summary names the ruleset: ``shanxi --set special_hands=true``."""
    name = args.rules if args.rules is not None else default
    sets = getattr(args, "rule_overrides", []) or []
    return " ".join([str(name), *(f"--set {s}" for s in sets)])
