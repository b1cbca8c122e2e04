"""What an arena and a ladder return: the records of every seat of every
table (``ArenaResult``, ``LadderResult``), the statistics read off them
(``AgentStats``, ``PairStats``, ``LadderRung``), the faults, and the
exceptions of a run stopped by Ctrl-C that carry the part finished."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from koudian._strictjson import finite
from koudian.arena.luck import cross_fitted, too_few_deals
from koudian.arena.stats import mean_ci, plus_minus
from koudian.faults import FAULT_KINDS, Fault

__all__ = [
    "COLUMNS",
    "DTYPES",
    "AgentStats",
    "ArenaFault",
    "ArenaInterrupted",
    "ArenaResult",
    "LadderInterrupted",
    "LadderResult",
    "LadderRung",
    "PairStats",
]

COLUMNS = (
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
DTYPES = {
    "deal": np.uint64,
    "table": np.uint8,
    "seat": np.uint8,
    "entry": np.uint8,
    "delta": np.int64,
    "adjusted": np.float64,
}
"""The records' dtypes other than bool."""


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
            f"as played: {plus_minus(d, (hi - lo) / 2)} per hand"
        )

    @property
    def verdict(self) -> str:
        """One line: who beats whom, or that they are not told apart."""
        half = (self.ci95[1] - self.ci95[0]) / 2
        if self.ci95[0] > 0:
            return f"{self.a} beats {self.b} by {plus_minus(self.diff, half)} per hand"
        if self.ci95[1] < 0:
            return f"{self.b} beats {self.a} by {plus_minus(-self.diff, half)} per hand"
        return f"{self.a} and {self.b} are not told apart: {plus_minus(self.diff, half)} per hand"

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
            mean, lo, hi = mean_ci(self._per_deal(m))
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
                    pm, plo, phi = mean_ci(raw)
                    fitted = self._luck(lone)
                    if fitted is None:
                        why = too_few_deals(len(raw)) if self.adjusted(lone) else None
                        out.append(PairStats(lone, other, pm, (plo, phi), luck_reason=why))
                        continue
                    values, w = fitted
                    mean, lo, hi = mean_ci(values)
                    out.append(
                        PairStats(lone, other, mean, (lo, hi), "adjusted", (pm, (plo, phi)), w)
                    )
                    continue
                values = self._per_deal(self._rows_of(a)) - self._per_deal(self._rows_of(b))
                mean, lo, hi = mean_ci(values)
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
        mean of its cross-fitted folds' weights, ``koudian.arena.luck``); 0
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
        out: dict[str, Any] = finite(
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
            mean, lo, hi = mean_ci(self.advantage(name))
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
            mean, lo, hi = mean_ci(values)
            out.append(PairStats(hi_rung.agent, lo_rung.agent, mean, (lo, hi)))
        return out

    def to_json(self) -> dict[str, Any]:
        """The data of ``--ladder --json``: rules, reference, deals, hands,
        the rungs strongest first, and the adjacent gaps."""
        out: dict[str, Any] = finite(
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
