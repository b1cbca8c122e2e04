"""Running an arena or a ladder: ``arena`` and ``ladder`` check their
arguments, have the deals played (``koudian.arena.play``: natively, through
the Python game loop, or on Ray) and gather the records into an
``ArenaResult`` (``koudian.arena.results``).

``import koudian`` imports this module, so that ``koudian.arena`` is the
function ``arena`` whatever was imported first (Python binds a package's
attribute to a submodule once that is imported; koudian imports it first
and binds the name back). It therefore imports only the binding at load
and everything else (numpy, the agents, the results) when called: ``import
koudian`` stays within its few-millisecond budget.
"""

from __future__ import annotations

from koudian._core import RulesetError, arena_adjustable

TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from collections.abc import Callable, Sequence
    from typing import Any

    import numpy.typing as npt

    from koudian.agents import AgentSpec
    from koudian.arena.results import ArenaFault, ArenaResult, LadderResult

__all__ = ["LUCK_MODES", "LUCK_WALLS", "arena", "ladder"]

LUCK_WALLS = 64
"""Shuffles of the undrawn wall each departure's gain is averaged over
when the luck of the wall is taken out (``luck="auto"`` or
``"adjust"``)."""
LUCK_MODES = ("auto", "adjust", "keep")
"""The values of ``luck=`` (``--luck``)."""


def arena(
    agents: Sequence[AgentSpec],
    rules: object = "shanxi",
    deals: int = 1000,
    *,
    seed: int = 0,
    threads: int = 0,
    format: str = "duplicate",
    timeout: float = 5.0,
    progress: Callable[[ArenaResult], None] | None = None,
    record: str | os.PathLike[str] | None = None,
    record_seats: Sequence[int] | None = None,
    backend: str = "local",
    chunk: int | None = None,
    luck: str = "auto",
    overwrite: bool = False,
) -> ArenaResult:
    """Plays ``deals`` seeded deals with the four ``agents`` (built-in
    specs such as ``"mc"`` or ``"mc:rollouts=200"``, Python agents,
    ``"cmd:COMMAND"`` external bots) in ``format`` ``"duplicate"`` or
    ``"single"``, and returns the records with their statistics (seats
    given the same spec, or Python agents of the same ``name`` attribute
    or class, are pooled as one agent)
    (``ArenaResult.summary()``, ``.to_json()``). Deterministic: the same
    agents, seed and deals give the same numbers with any ``threads``.
    ``progress`` is called with the partial result as the run goes.

    Built-in agents only: ``record=DIR`` writes every decision of the
    seats ``record_seats`` (default all) of every table as a Parquet
    dataset (``koudian.dataset``, with the columns ``deal`` and ``table``
    saying where each hand was played; docs/arena.md; a used ``DIR`` is
    refused unless ``overwrite=True``, which replaces its dataset whole),
    and ``backend="ray"`` (or ``"ray:ADDRESS"``) plays the deals as Ray
    tasks by deal range (``koudian.cluster``): the same records,
    statistics and rows as the local run; Ctrl-C raises
    ``ArenaInterrupted`` with the deals finished either way. ``chunk``
    is the deals per native call (and per shard); the results never
    depend on it.

    ``luck``: ``"auto"`` (default) takes the luck of the wall out of the
    lone agent's advantage wherever it can be (a duplicate 1-vs-3 line-up
    against three built-in ``"greedy"``) and pays (not for the built-in
    ``"random"``: ``koudian.arena.luck.AUTO_KEEPS``), ``"adjust"`` insists
    (and refuses a line-up where it cannot), ``"keep"`` never does. The
    hands played are the same either way; the pair's ``played`` field
    keeps the advantage as played. The correction's weight is
    cross-fitted, and on fewer than ``MIN_LUCK_DEALS`` deals the
    advantage is reported as played (docs/arena.md)."""
    import numpy as np

    from koudian._cli_rules import resolve_rules
    from koudian._labels import pooled_labels
    from koudian._native_play import check_seats
    from koudian.agents import native_name
    from koudian.arena import play
    from koudian.arena.results import COLUMNS, DTYPES, ArenaInterrupted, ArenaResult

    if len(agents) != 4:
        raise RulesetError(f"give 4 agents, one per seat; got {len(agents)}")
    if format not in ("duplicate", "single"):
        raise RulesetError(f'format {format!r} (available: "duplicate", "single")')
    if deals < 1:
        raise RulesetError(f"deals must be at least 1, got {deals}")
    if luck not in LUCK_MODES:
        raise RulesetError(f'luck {luck!r} (available: "auto", "adjust", "keep")')
    r = resolve_rules(rules)
    labels = pooled_labels(agents)
    rules_name = rules if isinstance(rules, str) else "custom"
    natives = [native_name(a) for a in agents]
    seats = check_seats(record_seats)
    parts: list[dict[str, npt.NDArray[Any]]] = []
    walls = _walls(luck, natives, labels, format)

    def result() -> ArenaResult:
        recs = {
            c: np.concatenate([p[c] for p in parts]) if parts else np.zeros(0, DTYPES.get(c, bool))
            for c in COLUMNS
        }
        done = len(np.unique(recs["deal"])) if len(recs["deal"]) else 0
        return ArenaResult(str(rules_name), labels, format, seed, done, recs, walls=walls)

    if (record is not None or backend != "local") and None in natives:
        raise RulesetError(
            "record= and backend= need built-in agents only (random, greedy, mc): "
            f"got {', '.join(labels)}"
        )
    names = [n for n in natives if n is not None]
    if record is not None:  # refused (or emptied) before anything is played
        from koudian.dataset import prepare, require_pyarrow

        require_pyarrow()
        prepare(record, overwrite)
    found: list[ArenaFault] = []
    retried = 0

    def report() -> None:
        if progress is not None:
            progress(result())

    if backend != "local":
        retried = play.on_ray(
            r,
            labels,
            names,
            format,
            deals,
            seed,
            backend,
            chunk,
            record,
            seats,
            walls,
            parts,
            report if progress is not None else None,
        )
    else:
        play.local(
            r,
            agents,
            labels,
            names,
            format,
            deals,
            seed,
            threads,
            timeout,
            seats,
            record,
            walls,
            chunk,
            parts,
            found,
            report if progress is not None else None,
        )
    res = result()
    res.faults, res.requested, res.retried_tasks = found, deals, retried
    if res.deals < deals:  # stopped; a run that finished anyway is whole
        res.interrupted = True
        raise ArenaInterrupted(res)
    return res


def _walls(luck: str, natives: Sequence[str | None], labels: list[str], fmt: str) -> int:
    """The wall shuffles per departure of a run with ``luck`` (0: kept),
    or the error of ``luck="adjust"`` where the luck cannot be taken out:
    a duplicate 1-vs-3 line-up whose three are the built-in ``greedy``
    (the lone agent may be any agent)."""
    if luck == "keep":
        return 0
    from koudian.arena.luck import auto_adjusts

    # The core's rule, on the line-up as pooled by label; an agent that is
    # not the built-in agent its label names is never the reference's "greedy".
    keys = [x if n == x else f"python:{x}" for n, x in zip(natives, labels, strict=True)]
    if fmt == "duplicate" and arena_adjustable(keys):
        lone = next(k for k in keys if keys.count(k) == 1)
        # "auto" pays for the correction only where it pays back.
        return LUCK_WALLS if luck == "adjust" or auto_adjusts(lone) else 0
    if luck == "adjust":
        why = (
            "the single format has no reference table"
            if fmt != "duplicate"
            else "the line-up is not one agent against three built-in greedy"
        )
        raise RulesetError(
            "luck='adjust': the luck of the wall is taken out only of a duplicate 1-vs-3 "
            f"run against three built-in greedy; {why} ({', '.join(labels)})"
        )
    return 0


def ladder(
    agents: Sequence[AgentSpec],
    rules: object = "shanxi",
    deals: int = 1000,
    *,
    reference: AgentSpec | None = None,
    seed: int = 0,
    threads: int = 0,
    timeout: float = 5.0,
    progress: Callable[[str, ArenaResult], None] | None = None,
    luck: str = "auto",
) -> LadderResult:
    """Ranks any number of ``agents`` (built-in specs, Python agents,
    ``"cmd:COMMAND"`` bots): each plays ``[agent, reference, reference,
    reference]`` in the duplicate format on the same ``deals`` seeded
    deals, and its advantage per hand over the reference table is paired
    by deal and seat. ``reference`` is one of the agents (by spec or
    name) or another spec; by default the first agent. The reference is
    on the ladder at exactly 0. Deterministic with any ``threads``;
    ``progress`` is called with the agent being measured and its partial
    arena. ``luck`` is each run's (``arena``): with the default, the
    advantages over a ``greedy`` reference have the luck of the wall
    taken out. Returns a ``LadderResult`` (``.summary()``,
    ``.to_json()``)."""
    from koudian._cli_rules import resolve_rules
    from koudian._labels import pooled_labels
    from koudian._runs import StopOnCtrlC
    from koudian.arena.results import ArenaInterrupted, LadderInterrupted, LadderResult

    if len(agents) < 1:
        raise RulesetError("give the ladder at least one agent")
    labels = pooled_labels(agents)
    if len(set(labels)) != len(labels):
        raise RulesetError(f"the ladder's agents need distinct names, got {labels}")
    if deals < 1:
        raise RulesetError(f"deals must be at least 1, got {deals}")
    resolve_rules(rules)
    ref: AgentSpec = agents[0] if reference is None else reference
    if isinstance(ref, str) and ref in labels:
        ref = agents[labels.index(ref)]
    (ref_label,) = pooled_labels([ref])
    names = labels if ref_label in labels else [*labels, ref_label]
    runs: dict[str, ArenaResult] = {}
    rules_name = rules if isinstance(rules, str) else "custom"
    stopped: ArenaResult | None = None
    with StopOnCtrlC() as ctrl_c:  # one Ctrl-C stops every run
        for spec, label in zip(agents, labels, strict=True):
            if label == ref_label:
                continue
            if ctrl_c.stopped:  # between two runs
                break

            def report(partial: ArenaResult, label: str = label) -> None:
                if progress is not None:
                    progress(label, partial)

            try:
                runs[label] = arena(
                    [spec, ref, ref, ref],
                    rules,
                    deals,
                    seed=seed,
                    threads=threads,
                    format="duplicate",
                    timeout=timeout,
                    progress=report,
                    luck=luck,
                )
            except ArenaInterrupted as stop:
                stopped = stop.result
                break
    if stopped is not None or len(runs) < len(names) - 1:
        res = _stopped_ladder(str(rules_name), ref_label, names, seed, deals, runs, stopped)
        raise LadderInterrupted(res)
    return LadderResult(str(rules_name), ref_label, names, seed, deals, runs)


def _stopped_ladder(
    rules: str,
    reference: str,
    names: list[str],
    seed: int,
    deals: int,
    runs: dict[str, ArenaResult],
    stopped: ArenaResult | None,
) -> LadderResult:
    """The ladder stopped part way, in the run ``stopped`` (the agent
    being measured; None: between runs): every agent measured, on the
    deals all of them finished."""
    from koudian.arena.results import LadderResult

    done = deals if stopped is None else stopped.deals
    cut = {k: r.first(done) for k, r in runs.items()}
    if stopped is not None and done > 0:
        cut[next(a for a in stopped.agents if a != reference)] = stopped
    measured = [n for n in names if n == reference or n in cut]
    res = LadderResult(rules, reference, measured, seed, done, cut, True, deals)
    res.unmeasured = [n for n in names if n not in measured]
    return res
