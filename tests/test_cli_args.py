"""The arguments the ``koudian`` subcommands share come from one place,
``koudian._cli_args`` (issue 36, "The Python layer"): every subcommand of
the real parser is walked (none listed by hand), so a new one that plays
or judges hands without ``--rules`` and ``--set``, or that writes its own
``--threads`` or ``--timeout``, fails here."""

from __future__ import annotations

import argparse

import pytest
from koudian.cli import build_parser, main

NO_RULES = {
    "view": "replays a log: the rules are the log's",
    "review": "reviews a log's decisions: the rules are the log's",
    "serve": "each table's ruleset is chosen on the page",
    "bench": "measures the core's throughput on seeded hands, not a ruleset's play",
    "train": "imitate reads datasets (their manifests carry the rules); improve names its presets",
}
"""The subcommands without ``--rules``, each with why."""

SHARED = ("--rules", "--set", "--seed", "--threads", "--timeout", "--quiet")


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def options(p: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {o: a for a in p._actions for o in a.option_strings}


def reference(option: str, default: object) -> argparse.Action:
    """The action ``koudian._cli_args`` makes for ``option``."""
    from koudian import _cli_args

    p = argparse.ArgumentParser()
    if option in ("--rules", "--set"):
        _cli_args.add_rules(p, default if option == "--rules" else "shanxi")  # type: ignore[arg-type]
    else:
        {
            "--seed": _cli_args.add_seed,
            "--threads": _cli_args.add_threads,
            "--timeout": _cli_args.add_timeout,
            "--quiet": _cli_args.add_quiet,
        }[option](p)
    return options(p)[option]


def test_the_walk_finds_every_subcommand() -> None:
    names = set(subcommands())
    assert {"rules", "analyze", "simulate", "arena", "view", "review", "serve", "bench"} <= names
    assert set(NO_RULES) <= names  # no stale exemption


def test_every_subcommand_that_plays_or_judges_hands_takes_rules_and_set() -> None:
    for name, p in subcommands().items():
        opts = options(p)
        if name in NO_RULES:
            assert "--rules" not in opts and "--set" not in opts, name
            continue
        assert "--rules" in opts and "--set" in opts, (
            f"koudian {name} plays or judges hands: give it --rules and --set "
            "(koudian._cli_args.add_rules), or say in NO_RULES why it reads no ruleset"
        )


def test_every_shared_option_is_the_shared_one() -> None:
    seen: dict[str, set[str]] = {o: set() for o in SHARED}
    for name, p in subcommands().items():
        for option, action in options(p).items():
            if option not in SHARED:
                continue
            seen[option].add(name)
            ref = reference(option, action.default)
            for attr in ("type", "default", "help", "dest", "metavar", "nargs", "const"):
                assert getattr(action, attr) == getattr(ref, attr), (name, option, attr)
            assert type(action) is type(ref), (name, option)
    # The options the issue names are where they must be.
    assert {"simulate", "arena"} <= seen["--threads"] & seen["--timeout"] & seen["--seed"]
    assert {"simulate", "arena", "analyze", "rules"} <= seen["--set"]


@pytest.mark.parametrize(
    ("option", "value", "needle"),
    [
        ("--threads", "-1", "threads must be ≥ 0"),
        ("--threads", "two", "expected a whole number"),
        ("--timeout", "0", "timeout"),
        ("--timeout", "-5", "timeout"),
        ("--timeout", "nan", "timeout"),
        ("--timeout", "inf", "timeout"),
        ("--timeout", "7200", "timeout"),
        ("--timeout", "soon", "expected a number of seconds"),
    ],
)
def test_the_shared_validators_refuse_bad_values_in_every_subcommand(
    option: str, value: str, needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    takers = [n for n, p in subcommands().items() if option in options(p)]
    assert takers
    for name in takers:
        with pytest.raises(SystemExit) as e:
            build_parser().parse_args([name, option, value])
        assert e.value.code == 2, name
        err = capsys.readouterr().err
        assert f"argument {option}" in err and needle in err, (name, err)
        assert "Traceback" not in err


def test_the_shared_validators_take_good_values() -> None:
    for name, p in subcommands().items():
        opts = options(p)
        argv = [name]
        if "--threads" in opts:
            argv += ["--threads", "0"]
        if "--timeout" in opts:
            argv += ["--timeout", "0.5"]
        if len(argv) == 1:
            continue
        args = build_parser().parse_args(argv)
        assert getattr(args, "threads", 0) == 0 and getattr(args, "timeout", 0.5) == 0.5


def test_arena_takes_set_and_names_the_ruleset_as_given(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["arena", "--agents", "greedy,random,random,random", "--deals", "3", "--quiet"]
    assert main([*argv, "--set", "special_hands=true"]) == 0
    out = capsys.readouterr().out
    assert "rules shanxi --set special_hands=true, 3 deals" in out
    assert main(argv) == 0
    assert "rules shanxi, 3 deals" in capsys.readouterr().out
