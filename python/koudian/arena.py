"""The duplicate arena: is my bot better than yesterday's?

Every seeded deal (wall, dealer, wild kinds) is played by several tables.
In the duplicate format the line-up is rotated through the seats, so each
agent plays each seat of each deal once; for a 1-vs-3 line-up
(``A,B,B,B``) the same deals are also played by the reference table
``B,B,B,B``, and A's advantage on a deal and seat is A's settlement minus
B's settlement in that seat at the reference table. Every agent's
randomness is seeded by the deal and the seat, never by which agent sits
there (common random numbers): a hand in which A plays as B would is
identical at both tables, and its difference is exactly zero. That, more
than the rotation, is what narrows the interval.

Intervals are 95% normal intervals over deals (paired: each deal's value
is the mean over its tables, so the deal's luck cancels). For a 1-vs-3
line-up against three ``greedy``, the luck of the wall is also taken out
(``luck="auto"``, docs/arena.md "The luck of the wall"): each departure
of the lone agent from greedy's choice is judged on many shuffles of the
undrawn wall rather than the one the hand had, which narrows the interval
of the same mean about twofold for a search agent. Native agents
(``random``, ``greedy``, ``mc``, ``mc:rollouts=200``) are played in Rust
(``koudian._core.arena_native``); Python and ``cmd:`` external agents
through the Python game loop, with the same seeds.
"""

from __future__ import annotations

import itertools
import math
import os
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from koudian._core import (
    RulesetError,
    arena_adjustable,
    arena_tables,
)
from koudian._luck import MIN_LUCK_DEALS, auto_adjusts, cross_fitted, too_few_deals
from koudian._runs import StopOnCtrlC
from koudian.agents import AgentSpec, native_name
from koudian.faults import FAULT_KINDS, Fault

__all__ = [
    "LUCK_WALLS",
    "MIN_LUCK_DEALS",
    "AgentStats",
    "ArenaFault",
    "ArenaInterrupted",
    "ArenaResult",
    "LadderInterrupted",
    "LadderResult",
    "LadderRung",
    "PairStats",
    "add_subparser",
    "arena",
    "ladder",
]

_Z95 = 1.959963984540054
_COLUMNS = (
    "deal",
    "table",
    "seat",
    "entry",
    "delta",
    "won",
    "self_draw",
    "ting",
    "dealt_in",
    "baohu_paid",
    "fault",
    "adjusted",
)
_DTYPES = {
    "deal": np.uint64,
    "table": np.uint8,
    "seat": np.uint8,
    "entry": np.uint8,
    "delta": np.int64,
    "adjusted": np.float64,
}
"""The records' dtypes other than bool."""
LUCK_WALLS = 64
"""Shuffles of the undrawn wall each departure's gain is averaged over
when the luck of the wall is taken out (``luck="auto"`` or
``"adjust"``)."""
_LUCK = ("auto", "adjust", "keep")


def _pm(mean: float, half: float) -> str:
    """``+1.30 ± 0.40``: two decimals, more where the half-width would
    print as 0.00 (Sichuan's small edges)."""
    places = 2
    while 0 < half < 0.5 * 10.0**-places and places < 5:
        places += 1
    return f"{mean:+.{places}f} ± {half:.{places}f}"


def _mean_ci(values: npt.NDArray[np.float64]) -> tuple[float, float, float]:
    """Mean and 95% normal interval of per-deal values."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = float(values.mean())
    if n < 2:
        return (m, -math.inf, math.inf)
    half = _Z95 * float(values.std(ddof=1)) / math.sqrt(n)
    return (m, m - half, m + half)


@dataclass(frozen=True)
class AgentStats:
    """One agent (seats given the same spec pooled) over the arena."""

    agent: str
    mean: float
    ci95: tuple[float, float]
    hands: int
    win_rate: float
    self_draw_share: float
    ting_rate: float
    baohu_paid_rate: float
    deal_in_rate: float
    faults: dict[str, int] = field(default_factory=dict)
    """The agent's faults (the fallback played for it) by kind, every kind
    of ``koudian.faults.FAULT_KINDS`` (Python and ``cmd:`` agents; the
    built-in agents never fault)."""

    def to_json(self) -> dict[str, Any]:
        """The JSON object of ``--json``'s ``agents`` list."""
        return {
            "agent": self.agent,
            "mean": self.mean,
            "ci95": list(self.ci95),
            "hands": self.hands,
            "win_rate": self.win_rate,
            "self_draw_share": self.self_draw_share,
            "ting_rate": self.ting_rate,
            "baohu_paid_rate": self.baohu_paid_rate,
            "deal_in_rate": self.deal_in_rate,
            "faults": dict(self.faults),
        }


@dataclass(frozen=True)
class PairStats:
    """Agent ``a``'s mean advantage over ``b`` per hand, paired by deal."""

    a: str
    b: str
    diff: float
    ci95: tuple[float, float]
    luck: str = "kept"
    """``"adjusted"`` when the luck of the wall was taken out of ``diff``
    and ``ci95``, else ``"kept"``."""
    played: tuple[float, tuple[float, float]] | None = None
    """With the luck taken out: the advantage as played, ``(diff, ci95)``,
    on the same deals (the same mean up to noise; a wider interval)."""
    weight: float | None = None
    """With the luck taken out: the weight of the correction (1: the
    adjusted advantage; the mean of its cross-fitted folds' weights, see
    ``koudian.arena`` docs)."""
    luck_reason: str | None = None
    """Why the luck was kept though the run carried the correction (fewer
    deals than ``MIN_LUCK_DEALS``), else None."""

    def note(self) -> str | None:
        """How the luck of the wall was handled, or None when it was kept
        by choice."""
        if self.luck != "adjusted" or self.played is None:
            return self.luck_reason
        d, (lo, hi) = self.played
        return (
            f"luck of the wall taken out (weight {self.weight:.2f}); "
            f"as played: {_pm(d, (hi - lo) / 2)} per hand"
        )

    @property
    def verdict(self) -> str:
        """One line: who beats whom, or that they are not told apart."""
        half = (self.ci95[1] - self.ci95[0]) / 2
        if self.ci95[0] > 0:
            return f"{self.a} beats {self.b} by {_pm(self.diff, half)} per hand"
        if self.ci95[1] < 0:
            return f"{self.b} beats {self.a} by {_pm(-self.diff, half)} per hand"
        return f"{self.a} and {self.b} are not told apart: {_pm(self.diff, half)} per hand"

    def to_json(self) -> dict[str, Any]:
        """The JSON object of ``--json``'s ``pairs`` list."""
        return {
            "a": self.a,
            "b": self.b,
            "diff": self.diff,
            "ci95": list(self.ci95),
            "verdict": self.verdict,
            "luck": self.luck,
            "played": (
                None
                if self.played is None
                else {"diff": self.played[0], "ci95": list(self.played[1])}
            ),
            "weight": self.weight,
            "luck_reason": self.luck_reason,
        }


@dataclass(frozen=True)
class ArenaFault:
    """One fault of an agent in an arena: the deal, the table (as in
    ``ArenaResult.records``), the line-up entry seated there, and the
    ``Fault`` (its seat, kind, detail and the fallback played)."""

    deal: int
    table: int
    entry: int
    fault: Fault


@dataclass
class ArenaResult:
    """The records of an arena run and their statistics.

    ``records`` holds one row per seat of every table of every deal
    (columns ``deal``, ``table`` (the rotation 0-3, 4 for the reference
    table), ``seat``, ``entry`` (the line-up entry seated there),
    ``delta``, ``won``, ``self_draw``, ``ting``, ``dealt_in``,
    ``baohu_paid``, ``fault``, and ``adjusted``: float64, at the lone
    agent's rows of the rotation tables of a run that took the luck of
    the wall out, the reference table's settlement at that seat plus its
    departures' gains averaged over ``walls`` shuffles of the undrawn
    wall; NaN elsewhere)."""

    rules: str
    agents: list[str]
    format: str
    seed: int
    deals: int
    records: dict[str, npt.NDArray[Any]] = field(repr=False)
    retried_tasks: int = 0
    """Ray tasks retried after their worker died (0 for a local run)."""
    walls: int = 0
    """Wall shuffles per departure of the ``adjusted`` column (0: the luck
    of the wall was kept)."""
    faults: list[ArenaFault] = field(default_factory=list, repr=False)
    """Every fault of a Python or ``cmd:`` agent, in play order."""
    interrupted: bool = False
    """True when the run was stopped (Ctrl-C) before all its deals:
    ``deals`` and the records are the deals finished, every table of each."""
    requested: int = 0
    """The deals asked for (``deals`` unless ``interrupted``)."""

    def fault_counts(self, name: str) -> dict[str, int]:
        """Agent ``name``'s faults by kind (every kind, zeros included)."""
        counts = dict.fromkeys(FAULT_KINDS, 0)
        for f in self.faults:
            if self.agents[f.entry] == name:
                counts[f.fault.kind] = counts.get(f.fault.kind, 0) + 1
        return counts

    def first(self, n: int) -> ArenaResult:
        """The same run cut to its first ``n`` deals (a ladder stopped
        part way compares every agent on the deals all of them played)."""
        r = self.records
        lo = int(r["deal"].min()) if len(r["deal"]) else 0
        keep = r["deal"] < lo + n
        cut = {c: v[keep] for c, v in r.items()}
        faults = [f for f in self.faults if f.deal < lo + n]
        done = min(n, self.deals)
        return ArenaResult(
            self.rules,
            self.agents,
            self.format,
            self.seed,
            done,
            cut,
            self.retried_tasks,
            self.walls,
            faults,
            self.interrupted or done < self.requested,
            self.requested,
        )

    @property
    def hands(self) -> int:
        """Hands played, reference table included."""
        return len(self.records["delta"]) // 4

    def names(self) -> list[str]:
        """The distinct agents, in line-up order."""
        return list(dict.fromkeys(self.agents))

    def _per_deal(self, mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        """Per deal, the mean delta of the rows in ``mask``."""
        deal = self.records["deal"][mask].astype(np.int64)
        delta = self.records["delta"][mask].astype(np.float64)
        first = int(self.records["deal"].min()) if len(self.records["deal"]) else 0
        idx = deal - first
        sums = np.bincount(idx, weights=delta, minlength=self.deals)
        counts = np.bincount(idx, minlength=self.deals)
        keep = counts > 0
        return np.asarray(sums[keep] / counts[keep], dtype=np.float64)

    def _rows_of(self, name: str) -> npt.NDArray[np.bool_]:
        entry = self.records["entry"]
        of = np.array([self.agents[e] == name for e in range(4)])
        return np.asarray(of[entry] & (self.records["table"] < 4), dtype=bool)

    def agent_stats(self) -> list[AgentStats]:
        """Every distinct agent's statistics (the rotation tables only)."""
        out = []
        r = self.records
        for name in self.names():
            m = self._rows_of(name)
            hands = int(m.sum())
            mean, lo, hi = _mean_ci(self._per_deal(m))
            won = int(r["won"][m].sum())
            out.append(
                AgentStats(
                    agent=name,
                    mean=mean,
                    ci95=(lo, hi),
                    hands=hands,
                    win_rate=won / max(hands, 1),
                    self_draw_share=int(r["self_draw"][m].sum()) / max(won, 1),
                    ting_rate=int(r["ting"][m].sum()) / max(hands, 1),
                    baohu_paid_rate=int(r["baohu_paid"][m].sum()) / max(hands, 1),
                    deal_in_rate=int(r["dealt_in"][m].sum()) / max(hands, 1),
                    faults=self.fault_counts(name),
                )
            )
        return out

    def pair_stats(self) -> list[PairStats]:
        """Every pair of distinct agents: the first's advantage, paired by
        deal; against the reference table for a duplicate 1-vs-3 line-up."""
        names = self.names()
        r = self.records
        out = []
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                reference = r["table"] == 4
                if reference.any():
                    lone = a if self.agents.count(a) == 1 else b
                    other = b if lone == a else a
                    raw = self._played(lone)
                    pm, plo, phi = _mean_ci(raw)
                    fitted = self._luck(lone)
                    if fitted is None:
                        why = too_few_deals(len(raw)) if self.adjusted(lone) else None
                        out.append(PairStats(lone, other, pm, (plo, phi), luck_reason=why))
                        continue
                    values, w = fitted
                    mean, lo, hi = _mean_ci(values)
                    out.append(
                        PairStats(lone, other, mean, (lo, hi), "adjusted", (pm, (plo, phi)), w)
                    )
                    continue
                values = self._per_deal(self._rows_of(a)) - self._per_deal(self._rows_of(b))
                mean, lo, hi = _mean_ci(values)
                out.append(PairStats(a, b, mean, (lo, hi)))
        return out

    def adjusted(self, lone: str) -> bool:
        """Whether the rows of ``lone`` carry the luck of the wall taken
        out (the ``adjusted`` column)."""
        col = self.records.get("adjusted")
        if col is None or self.walls == 0:
            return False
        mine = self._rows_of(lone)
        return bool(mine.any()) and not bool(np.isnan(col[mine]).any())

    def luck_weight(self, lone: str) -> float:
        """The weight of the luck correction in ``lone``'s advantage (the
        mean of its cross-fitted folds' weights, ``koudian._luck``); 0
        where its rows carry none or its deals are fewer than
        ``MIN_LUCK_DEALS``."""
        fitted = self._luck(lone)
        return 0.0 if fitted is None else fitted[1]

    def _luck(self, lone: str) -> tuple[npt.NDArray[np.float64], float] | None:
        """Per deal, ``lone``'s advantage with the luck correction
        cross-fitted, and its weight; None where the luck is kept."""
        if not self.adjusted(lone):
            return None
        return cross_fitted(self._played(lone), self._played(lone, "adjusted"))

    def _advantage(self, lone: str, luck: bool = True) -> npt.NDArray[np.float64]:
        """Per deal, the lone agent's mean over its seats of its delta
        minus the reference table's delta in the same seat; with ``luck``
        and the rows adjusted, less the cross-fitted luck correction (the
        same mean, a narrower spread)."""
        raw = self._played(lone)
        fitted = self._luck(lone) if luck else None
        return raw if fitted is None else fitted[0]

    def _played(self, lone: str, column: str = "delta") -> npt.NDArray[np.float64]:
        """Per deal, the lone agent's mean over its seats of ``column``
        minus the reference table's delta in the same seat."""
        r = self.records
        n_deals = self.deals
        first = int(r["deal"].min())
        ref = np.zeros((n_deals, 4))
        m = r["table"] == 4
        ref[r["deal"][m].astype(np.int64) - first, r["seat"][m].astype(np.int64)] = r["delta"][m]
        mine = self._rows_of(lone)
        d = r["deal"][mine].astype(np.int64) - first
        diff = r[column][mine] - ref[d, r["seat"][mine].astype(np.int64)]
        sums = np.bincount(d, weights=diff, minlength=n_deals)
        counts = np.bincount(d, minlength=n_deals)
        keep = counts > 0
        return np.asarray(sums[keep] / counts[keep], dtype=np.float64)

    def to_json(self) -> dict[str, Any]:
        """The data of ``--json``: rules, deals (and ``requested_deals``,
        ``interrupted``), hands, agents (each with its ``faults`` by kind),
        pairs, ``fault_hands`` (hands in which any agent faulted). Strict
        JSON: a bound that does not exist (one deal) is null."""
        played = self.deals > 0
        out: dict[str, Any] = _finite(
            {
                "rules": self.rules,
                "format": self.format,
                "seed": self.seed,
                "lineup": list(self.agents),
                "deals": self.deals,
                "requested_deals": self.requested or self.deals,
                "interrupted": self.interrupted,
                "hands": self.hands,
                "walls": self.walls,
                "fault_hands": int(self.records["fault"].sum()) // 4 if played else 0,
                "agents": [a.to_json() for a in self.agent_stats()] if played else [],
                "pairs": [p.to_json() for p in self.pair_stats()] if played else [],
            }
        )
        return out

    def summary(self) -> str:
        """A table of the agents, then one verdict line per pair."""
        lines = [
            f"{self.format} arena, rules {self.rules}, {self.deals} deals, {self.hands} hands, "
            f"seed {self.seed}{_stopped(self.interrupted, self.deals, self.requested)}",
        ]
        if self.deals == 0:
            return "\n".join([*lines, "no deal finished: nothing to compare"])
        lines += [
            f"{'agent':<22}{'mean/hand':>10}  {'95% interval':<18}{'hands':>8}"
            f"{'win%':>7}{'self-draw%':>11}{'ting%':>7}{'包胡%':>7}{'deal-in%':>9}",
        ]
        for a in self.agent_stats():
            lines.append(
                f"{a.agent:<22}{a.mean:>+10.3f}  [{a.ci95[0]:+.3f}, {a.ci95[1]:+.3f}]"
                f"{a.hands:>8}{100 * a.win_rate:>7.1f}{100 * a.self_draw_share:>11.1f}"
                f"{100 * a.ting_rate:>7.1f}{100 * a.baohu_paid_rate:>7.1f}"
                f"{100 * a.deal_in_rate:>9.1f}"
            )
        for p in self.pair_stats():
            lines.append(p.verdict)
            note = p.note()
            if note is not None:
                lines.append(f"  {note}")
        lines += _fault_lines({a.agent: a.faults for a in self.agent_stats()})
        faults = int(self.records["fault"].sum())
        if faults:
            lines.append(f"warning: {faults // 4} hands had an agent fault (fallback played)")
        return "\n".join(lines)


def _stopped(interrupted: bool, done: int, requested: int) -> str:
    """The summary's note on a run stopped by Ctrl-C."""
    return f" (interrupted: {done} of {requested} deals finished)" if interrupted else ""


def _fault_lines(counts: dict[str, dict[str, int]]) -> list[str]:
    """One line per agent that faulted: its faults by kind."""
    out = []
    for agent, kinds in counts.items():
        shown = ", ".join(f"{n} {k}" for k, n in kinds.items() if n)
        if shown:
            out.append(f"faults of {agent} (fallback played): {shown}")
    return out


def _finite(data: Any) -> Any:
    """``data`` with every float that is not finite as None: the JSON the
    project writes is strict (an interval of one deal has no bounds)."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_finite(v) for v in data]
    return data


class ArenaInterrupted(KeyboardInterrupt):
    """``arena`` was interrupted (Ctrl-C): a ``KeyboardInterrupt`` carrying
    the deals finished as ``result`` (an ``ArenaResult`` marked
    ``interrupted``; with ``record=``, the dataset's manifest lists the
    shards finished and says ``"complete": false``)."""

    def __init__(self, result: ArenaResult) -> None:
        super().__init__(f"interrupted after {result.deals} of {result.requested} deals")
        self.result = result


class LadderInterrupted(KeyboardInterrupt):
    """``ladder`` was interrupted (Ctrl-C): a ``KeyboardInterrupt`` carrying
    as ``result`` the ladder of the agents measured so far on the deals
    every one of them finished (``LadderResult.unmeasured`` names the
    others)."""

    def __init__(self, result: LadderResult) -> None:
        super().__init__(f"interrupted after {result.deals} of {result.requested} deals")
        self.result = result


@dataclass
class LadderResult:
    """A ladder: every agent of ``agents`` against three copies of the
    ``reference`` in the duplicate 1-vs-3 form, on the same deals.

    ``runs`` holds each agent's arena (``[agent, reference, reference,
    reference]``; none for the reference itself). Every run plays the same
    seeded deals with the same seeds, so the reference table is the same
    in every run and the agents' per-deal advantages are paired: the gap
    between two agents is the interval of the per-deal difference of
    their advantages, not a difference of their intervals."""

    rules: str
    reference: str
    agents: list[str]
    seed: int
    deals: int
    runs: dict[str, ArenaResult] = field(repr=False)
    interrupted: bool = False
    """True when the ladder was stopped (Ctrl-C): ``deals`` are the deals
    every agent measured finished."""
    requested: int = 0
    """The deals asked for."""
    unmeasured: list[str] = field(default_factory=list)
    """Agents not measured before the ladder was stopped."""

    @property
    def hands(self) -> int:
        """Hands played over every run, reference tables included."""
        return sum(r.hands for r in self.runs.values())

    def advantage(self, agent: str) -> npt.NDArray[np.float64]:
        """Per deal, ``agent``'s mean advantage over the reference in the
        same seat at the reference table (all zeros for the reference)."""
        if agent == self.reference:
            return np.zeros(self.deals)
        return self.runs[agent]._advantage(agent)

    def fault_counts(self, agent: str) -> dict[str, int]:
        """``agent``'s faults by kind over every run (the reference's too)."""
        counts = dict.fromkeys(FAULT_KINDS, 0)
        for run in self.runs.values():
            for k, n in run.fault_counts(agent).items():
                counts[k] = counts.get(k, 0) + n
        return counts

    def rungs(self) -> list[LadderRung]:
        """The agents, strongest first (by mean advantage; the reference
        at 0 exactly; ties in line-up order)."""
        out = []
        for name in self.agents:
            mean, lo, hi = _mean_ci(self.advantage(name))
            stats = None
            luck = "kept"
            if name != self.reference:
                stats = next(a for a in self.runs[name].agent_stats() if a.agent == name)
                luck = "kept" if self.runs[name]._luck(name) is None else "adjusted"
            else:
                mean, lo, hi = 0.0, 0.0, 0.0
            out.append(LadderRung(name, mean, (lo, hi), stats, luck, self.fault_counts(name)))
        return sorted(out, key=lambda r: -r.advantage)

    def gaps(self) -> list[PairStats]:
        """Each pair of adjacent rungs: the stronger's mean advantage over
        the weaker per hand, with the interval of the per-deal difference."""
        rungs = self.rungs()
        out = []
        for hi_rung, lo_rung in itertools.pairwise(rungs):
            values = self.advantage(hi_rung.agent) - self.advantage(lo_rung.agent)
            mean, lo, hi = _mean_ci(values)
            out.append(PairStats(hi_rung.agent, lo_rung.agent, mean, (lo, hi)))
        return out

    def to_json(self) -> dict[str, Any]:
        """The data of ``--ladder --json``: rules, reference, deals, hands,
        the rungs strongest first, and the adjacent gaps."""
        out: dict[str, Any] = _finite(
            {
                "rules": self.rules,
                "format": "ladder",
                "reference": self.reference,
                "seed": self.seed,
                "deals": self.deals,
                "requested_deals": self.requested or self.deals,
                "interrupted": self.interrupted,
                "unmeasured": list(self.unmeasured),
                "hands": self.hands,
                "agents": [r.to_json() for r in self.rungs()],
                "gaps": [g.to_json() for g in self.gaps()],
            }
        )
        return out

    def summary(self) -> str:
        """The ladder table, strongest first, then one line per adjacent gap."""
        lines = [
            f"ladder against {self.reference} x3 (duplicate 1 vs 3), rules {self.rules}, "
            f"{self.deals} deals, {self.hands} hands, seed {self.seed}"
            f"{_stopped(self.interrupted, self.deals, self.requested)}",
            f"{'rank':<5}{'agent':<24}{'advantage/hand':>15}  {'95% interval':<20}"
            f"{'mean/hand':>10}{'hands':>8}{'win%':>7}{'deal-in%':>9}",
        ]
        for i, r in enumerate(self.rungs(), 1):
            s = r.stats
            tail = (
                f"{s.mean:>+10.3f}{s.hands:>8}{100 * s.win_rate:>7.1f}{100 * s.deal_in_rate:>9.1f}"
                if s is not None
                else "(reference)"
            )
            interval = f"[{r.ci95[0]:+.3f}, {r.ci95[1]:+.3f}]"
            lines.append(f"{i:<5}{r.agent:<24}{r.advantage:>+15.3f}  {interval:<20}{tail}")
        for name, run in self.runs.items():
            note = next((p.note() for p in run.pair_stats() if p.a == name), None)
            if note is not None:
                lines.append(f"{name}: {note}")
        lines.append("adjacent gaps (paired over the same deals):")
        for g in self.gaps():
            lines.append(f"  {g.verdict}  [{g.ci95[0]:+.3f}, {g.ci95[1]:+.3f}]")
        if self.unmeasured:
            lines.append(f"not measured (interrupted): {', '.join(self.unmeasured)}")
        lines += _fault_lines({x: self.fault_counts(x) for x in self.agents})
        faults = sum(int(r.records["fault"].sum()) for r in self.runs.values())
        if faults:
            lines.append(f"warning: {faults // 4} hands had an agent fault (fallback played)")
        return "\n".join(lines)


@dataclass(frozen=True)
class LadderRung:
    """One agent of a ladder: its mean advantage per hand over the
    reference (paired by deal and seat) with its 95% interval, and its own
    statistics at its run (``None`` for the reference)."""

    agent: str
    advantage: float
    ci95: tuple[float, float]
    stats: AgentStats | None
    luck: str = "kept"
    """``"adjusted"`` when the luck of the wall was taken out of
    ``advantage`` (see ``ArenaResult.pair_stats``), else ``"kept"``."""
    faults: dict[str, int] = field(default_factory=dict)
    """The agent's faults by kind over every run of the ladder."""

    def to_json(self) -> dict[str, Any]:
        """The JSON object of the ladder's ``agents`` list."""
        out: dict[str, Any] = {
            "agent": self.agent,
            "advantage": self.advantage,
            "ci95": list(self.ci95),
            "reference": self.stats is None,
            "faults": dict(self.faults),
        }
        if self.stats is not None:
            out["luck"] = self.luck
            own = self.stats.to_json()
            own.pop("agent")
            out["mean"] = own.pop("mean")
            out["mean_ci95"] = own.pop("ci95")
            own.pop("faults")  # the ladder's, above
            out.update(own)
        return out


def _tables(specs: list[str], fmt: str) -> list[list[int]]:
    """The line-up entry at each seat of each table: the core's
    ``arena::tables`` (rotations, then the 1-vs-3 reference table)."""
    return arena_tables(specs, fmt)


def _labels(agents: Sequence[AgentSpec]) -> list[str]:
    """The agents' names: a spec itself, a Python agent's ``name``
    attribute if it has one, else its class."""
    from koudian.simulation import _label

    return [a if isinstance(a, str) else str(getattr(a, "name", "") or _label(a)) for a in agents]


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
    ``"random"``: ``koudian._luck.AUTO_KEEPS``), ``"adjust"`` insists
    (and refuses a line-up where it cannot), ``"keep"`` never does. The
    hands played are the same either way; the pair's ``played`` field
    keeps the advantage as played. The correction's weight is
    cross-fitted, and on fewer than ``MIN_LUCK_DEALS`` deals the
    advantage is reported as played (docs/arena.md)."""
    from koudian._cli_rules import resolve_rules
    from koudian.simulation import _check_seats

    if len(agents) != 4:
        raise RulesetError(f"give 4 agents, one per seat; got {len(agents)}")
    if format not in ("duplicate", "single"):
        raise RulesetError(f'format {format!r} (available: "duplicate", "single")')
    if deals < 1:
        raise RulesetError(f"deals must be at least 1, got {deals}")
    if luck not in _LUCK:
        raise RulesetError(f'luck {luck!r} (available: "auto", "adjust", "keep")')
    r = resolve_rules(rules)
    labels = _labels(agents)
    rules_name = rules if isinstance(rules, str) else "custom"
    natives = [native_name(a) for a in agents]
    seats = _check_seats(record_seats)
    parts: list[dict[str, npt.NDArray[Any]]] = []
    walls = _walls(luck, natives, labels, format)

    def result() -> ArenaResult:
        recs = {
            c: np.concatenate([p[c] for p in parts]) if parts else np.zeros(0, _DTYPES.get(c, bool))
            for c in _COLUMNS
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
        from koudian.dataset import _pyarrow, prepare

        _pyarrow()
        prepare(record, overwrite)
    from koudian import _arena_play

    found: list[ArenaFault] = []
    retried = 0

    def report() -> None:
        if progress is not None:
            progress(result())

    if backend != "local":
        retried = _arena_play.on_ray(
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
        _arena_play.local(
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
    if len(agents) < 1:
        raise RulesetError("give the ladder at least one agent")
    labels = _labels(agents)
    if len(set(labels)) != len(labels):
        raise RulesetError(f"the ladder's agents need distinct names, got {labels}")
    if deals < 1:
        raise RulesetError(f"deals must be at least 1, got {deals}")
    from koudian._cli_rules import resolve_rules

    resolve_rules(rules)
    ref: AgentSpec = agents[0] if reference is None else reference
    if isinstance(ref, str) and ref in labels:
        ref = agents[labels.index(ref)]
    (ref_label,) = _labels([ref])
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
    done = deals if stopped is None else stopped.deals
    cut = {k: r.first(done) for k, r in runs.items()}
    if stopped is not None and done > 0:
        cut[next(a for a in stopped.agents if a != reference)] = stopped
    measured = [n for n in names if n == reference or n in cut]
    res = LadderResult(rules, reference, measured, seed, done, cut, True, deals)
    res.unmeasured = [n for n in names if n not in measured]
    return res


def add_subparser(sub: Any) -> None:
    """Adds ``koudian arena`` to the CLI's subparsers (``koudian._arena_cli``)."""
    from koudian._arena_cli import add_subparser as add

    add(sub)


class _CallableModule(types.ModuleType):
    """``koudian.arena`` is both this module (imported by the CLI) and the
    function ``koudian.arena(...)``: importing the submodule rebinds the
    package attribute to the module, so the module calls the function."""

    def __call__(self, *args: Any, **kwargs: Any) -> ArenaResult:
        return arena(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
