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

import argparse
import itertools
import json
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
    ArenaLuck,
    KoudianError,
    Ruleset,
    RulesetError,
    arena_adjustable,
    mix_seed,
)
from koudian.agents import Agent, AgentSpec, make_agent, native_name
from koudian.game import Game, play

__all__ = [
    "LUCK_WALLS",
    "AgentStats",
    "ArenaResult",
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
LUCK_WALLS = 64
"""Shuffles of the undrawn wall each departure's gain is averaged over
when the luck of the wall is taken out (``luck="auto"`` or
``"adjust"``)."""
_LUCK = ("auto", "adjust", "keep")


def _luck_weight(raw: npt.NDArray[np.float64], adj: npt.NDArray[np.float64]) -> float:
    """The weight ``w`` in ``0 .. 1`` of the per-deal correction ``raw -
    adj`` (mean zero) that leaves ``raw - w (raw - adj)`` the least spread:
    the control-variate coefficient, fitted on the run. ``w = 1`` is the
    adjusted advantage itself (a search agent's few departures), smaller
    weights keep part of the played luck where the correction's own noise
    is large (random play departs at almost every decision). Whatever the
    weight, the mean is unbiased: the correction has mean zero."""
    c = raw - adj
    if len(c) < 2:
        return 1.0
    var = float(c.var(ddof=1))
    if var == 0.0:
        return 1.0
    cov = float(np.cov(raw, c, ddof=1)[0, 1])
    return min(1.0, max(0.0, cov / var))


def _with_luck(
    raw: npt.NDArray[np.float64], adj: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], float]:
    """The per-deal advantage with the luck correction at its fitted
    weight, and the weight."""
    w = _luck_weight(raw, adj)
    return np.asarray(raw - w * (raw - adj), dtype=np.float64), w


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
    adjusted advantage; see ``koudian.arena`` docs)."""

    def note(self) -> str | None:
        """How the luck of the wall was handled, or None when it was kept."""
        if self.luck != "adjusted" or self.played is None:
            return None
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
        }


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
                    if not self.adjusted(lone):
                        out.append(PairStats(lone, other, pm, (plo, phi)))
                        continue
                    values, w = _with_luck(raw, self._played(lone, "adjusted"))
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
        """The weight of the luck correction in ``lone``'s advantage (see
        ``_luck_weight``); 0 where its rows carry none."""
        if not self.adjusted(lone):
            return 0.0
        return _luck_weight(self._played(lone), self._played(lone, "adjusted"))

    def _advantage(self, lone: str, luck: bool = True) -> npt.NDArray[np.float64]:
        """Per deal, the lone agent's mean over its seats of its delta
        minus the reference table's delta in the same seat; with ``luck``
        and the rows adjusted, less the weighted luck correction (the
        same mean, a narrower spread)."""
        raw = self._played(lone)
        if not (luck and self.adjusted(lone)):
            return raw
        return _with_luck(raw, self._played(lone, "adjusted"))[0]

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
        """The data of ``--json``: rules, deals, hands, agents, pairs."""
        return {
            "rules": self.rules,
            "format": self.format,
            "seed": self.seed,
            "lineup": list(self.agents),
            "deals": self.deals,
            "hands": self.hands,
            "walls": self.walls,
            "agents": [a.to_json() for a in self.agent_stats()],
            "pairs": [p.to_json() for p in self.pair_stats()],
        }

    def summary(self) -> str:
        """A table of the agents, then one verdict line per pair."""
        lines = [
            f"{self.format} arena, rules {self.rules}, {self.deals} deals, {self.hands} hands, "
            f"seed {self.seed}",
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
        faults = int(self.records["fault"].sum())
        if faults:
            lines.append(f"warning: {faults // 4} hands had an illegal agent answer")
        return "\n".join(lines)


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
                luck = "adjusted" if self.runs[name].adjusted(name) else "kept"
            else:
                mean, lo, hi = 0.0, 0.0, 0.0
            out.append(LadderRung(name, mean, (lo, hi), stats, luck))
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
        return {
            "rules": self.rules,
            "format": "ladder",
            "reference": self.reference,
            "seed": self.seed,
            "deals": self.deals,
            "hands": self.hands,
            "agents": [r.to_json() for r in self.rungs()],
            "gaps": [g.to_json() for g in self.gaps()],
        }

    def summary(self) -> str:
        """The ladder table, strongest first, then one line per adjacent gap."""
        lines = [
            f"ladder against {self.reference} x3 (duplicate 1 vs 3), rules {self.rules}, "
            f"{self.deals} deals, {self.hands} hands, seed {self.seed}",
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
        faults = sum(int(r.records["fault"].sum()) for r in self.runs.values())
        if faults:
            lines.append(f"warning: {faults // 4} hands had an illegal agent answer")
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

    def to_json(self) -> dict[str, Any]:
        """The JSON object of the ladder's ``agents`` list."""
        out: dict[str, Any] = {
            "agent": self.agent,
            "advantage": self.advantage,
            "ci95": list(self.ci95),
            "reference": self.stats is None,
        }
        if self.stats is not None:
            out["luck"] = self.luck
            own = self.stats.to_json()
            own.pop("agent")
            out["mean"] = own.pop("mean")
            out["mean_ci95"] = own.pop("ci95")
            out.update(own)
        return out


def _tables(specs: list[str], fmt: str) -> list[list[int]]:
    """The line-up entry at each seat of each table (as the core's
    ``arena::tables``: rotations, then the 1-vs-3 reference table)."""
    if fmt == "single":
        return [[0, 1, 2, 3]]
    t = [[(s - r) % 4 for s in range(4)] for r in range(4)]
    counts = [specs.count(s) for s in specs]
    if 3 in counts and 1 in counts:
        t.append([counts.index(3)] * 4)
    return t


def _labels(agents: Sequence[AgentSpec]) -> list[str]:
    """The agents' names: a spec itself, a Python agent's ``name``
    attribute if it has one, else its class."""
    from koudian.simulation import _label

    return [a if isinstance(a, str) else str(getattr(a, "name", "") or _label(a)) for a in agents]


def _python_records(
    rules: Ruleset,
    specs: Sequence[AgentSpec],
    labels: list[str],
    deals: range,
    seed: int,
    fmt: str,
    timeout: float,
    on_deal: Callable[[], None],
    walls: int = 0,
) -> dict[str, npt.NDArray[Any]]:
    """The arena through the Python game loop (any agents): the same
    seeds and records as the native arena, the luck of the wall too
    (``walls``: the lone entry is the line-up's first entry seen once)."""
    agents: list[Agent] = [make_agent(s, timeout=timeout, seat=i) for i, s in enumerate(specs)]
    rows: dict[str, list[Any]] = {c: [] for c in _COLUMNS}
    layout = _tables(labels, fmt)
    lone = next((e for e in range(4) if labels.count(labels[e]) == 1), 0)
    luck = ArenaLuck(walls) if walls > 0 else None
    try:
        for d in deals:
            game_seed = mix_seed(seed, d)
            # The lone rows of the deal's rotation tables, and their gains.
            gains: list[tuple[int, float]] = []
            for ti, entries in enumerate(layout):
                seated = [agents[e] for e in entries]
                g = Game(rules, seed=game_seed, dealer=d % 4, record=False)
                for s, a in enumerate(seated):
                    reset = getattr(a, "reset", None)
                    if reset is not None:
                        reset(mix_seed(game_seed, 1 + s))
                faults: list[Any] = []
                watch = luck if ti < 4 else None
                if watch is not None:
                    seat = entries.index(lone)
                    watch.begin(game_seed, seat)
                res = play(g, seated, faults.append, watch)
                if watch is not None:
                    gains.append((len(rows["delta"]) + seat, watch.gain))
                covered = [False] * 4
                if res.settlement is not None:
                    for p in res.settlement.payments:
                        if p.kind == "win_covered":
                            covered[p.payer] = True
                won_any = bool(res.winners)
                for s in range(4):
                    won = s in res.winners
                    rows["deal"].append(d)
                    rows["table"].append(ti)
                    rows["seat"].append(s)
                    rows["entry"].append(entries[s])
                    rows["delta"].append(res.deltas[s])
                    rows["won"].append(won)
                    rows["self_draw"].append(won and res.self_draw)
                    rows["ting"].append(bool(res.ting[s]))
                    rows["dealt_in"].append(won_any and not res.self_draw and res.from_seat == s)
                    rows["baohu_paid"].append(covered[s])
                    rows["fault"].append(bool(faults))
                    rows["adjusted"].append(math.nan)
            # The reference table is the last: its settlement at the lone
            # seat plus the departures' gains (as the native arena).
            reference = rows["delta"][-4:]
            for i, gain in gains:
                rows["adjusted"][i] = reference[rows["seat"][i]] + gain
            on_deal()
    finally:
        for a in agents:
            close = getattr(a, "close", None)
            if close is not None:
                close()
    types = {
        "deal": np.uint64,
        "table": np.uint8,
        "seat": np.uint8,
        "entry": np.uint8,
        "delta": np.int64,
        "adjusted": np.float64,
    }
    return {c: np.asarray(v, dtype=types.get(c, bool)) for c, v in rows.items()}


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
    saying where each hand was played; docs/arena.md), and
    ``backend="ray"`` (or ``"ray:ADDRESS"``) plays the deals as Ray tasks
    by deal range (``koudian.cluster``): the same records, statistics and
    rows as the local run. ``chunk`` is the deals per native call (and per
    shard); the results never depend on it.

    ``luck``: ``"auto"`` (default) takes the luck of the wall out of the
    lone agent's advantage wherever it can be (a duplicate 1-vs-3 line-up
    of built-in agents against three ``"greedy"``), ``"adjust"`` insists
    (and refuses a line-up where it cannot), ``"keep"`` never does. The
    hands played are the same either way; the pair's ``played`` field
    keeps the advantage as played."""
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
        recs = {c: np.concatenate([p[c] for p in parts]) for c in _COLUMNS}
        done = len(np.unique(recs["deal"])) if len(recs["deal"]) else 0
        return ArenaResult(str(rules_name), labels, format, seed, done, recs, walls=walls)

    if (record is not None or backend != "local") and None in natives:
        raise RulesetError(
            "record= and backend= need built-in agents only (random, greedy, mc): "
            f"got {', '.join(labels)}"
        )
    names = [n for n in natives if n is not None]
    if backend != "local":
        from koudian import cluster

        def partial(recs: dict[str, npt.NDArray[Any]]) -> None:
            parts[:] = [recs]
            if progress is not None:
                progress(result())

        recs, retried = cluster.run_arena(
            r,
            labels,
            names,
            format,
            deals,
            seed=seed,
            backend=backend,
            progress=partial if progress is not None else None,
            chunk=chunk,
            record=record,
            record_seats=seats,
            walls=walls,
        )
        parts[:] = [recs]
        res = result()
        res.retried_tasks = retried
        return res
    if len(names) == 4:
        from koudian import _arena_chunks, cluster

        record_dir = cluster._record_dir(record)
        step = chunk or (
            _arena_chunks.ARENA_CHUNK if record_dir else max(1, min(deals // 40, 2000))
        )
        shards: list[dict[str, Any]] = []
        for start in range(0, deals, step):
            n = min(step, deals - start)
            recs, written = _arena_chunks.play_deals(
                r, names, labels, format, start, n, seed, threads, seats, record_dir, walls
            )
            parts.append(recs)
            shards += written
            if progress is not None:
                progress(result())
        if record_dir is not None:
            _arena_chunks.finish_dataset(
                record_dir, r, labels, names, format, seed, deals, seats, shards
            )
    else:

        def on_deal() -> None:
            return None

        parts.append(
            _python_records(r, agents, labels, range(deals), seed, format, timeout, on_deal, walls)
        )
        if progress is not None:
            progress(result())
    return result()


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
        return LUCK_WALLS
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
    for spec, label in zip(agents, labels, strict=True):
        if label == ref_label:
            continue

        def report(partial: ArenaResult, label: str = label) -> None:
            if progress is not None:
                progress(label, partial)

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
    return LadderResult(str(rules_name), ref_label, names, seed, deals, runs)


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
    from koudian._strictjson import finite  # an interval of 1 deal is infinite: null

    with open(path, "w", encoding="utf-8") as f:
        json.dump(finite(data), f, indent=2, allow_nan=False)
        f.write("\n")


def _cmd_arena(args: argparse.Namespace) -> int:
    from koudian.simulation import _seat_list, _split_agents

    if args.ladder is not None:
        return _cmd_ladder(args)
    if args.agents is None:
        print("koudian: error: give --agents A,B,C,D or --ladder A,B,C,...", file=sys.stderr)
        return 2
    agents = _split_agents(args.agents)
    try:
        if len(agents) != 4:
            raise RulesetError(f"--agents needs 4 agents, got {len(agents)}: {agents}")
        seats = _seat_list(args.record_seats) if args.record_seats else None
        bar = _Bar(args.deals, not args.quiet)
        try:
            res = arena(
                agents,
                args.rules,
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
            )
        finally:
            bar.close()
        if args.json:
            _write_json(args.json, res.to_json())
    except (KoudianError, OSError) as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    print(res.summary())
    if res.retried_tasks:
        print(f"ray: {res.retried_tasks} task(s) retried after a worker died")
    if args.record:
        print(f"dataset: the decisions of {res.hands} hands in {args.record}")
    return 0


def add_subparser(sub: Any) -> None:
    """Adds ``koudian arena`` to the CLI's subparsers."""
    from koudian.simulation import _positive_int

    p = sub.add_parser(
        "arena",
        help="compare agents on the same seeded deals (duplicate format)",
        description=(
            "Duplicate arena: every deal is played with the agents rotated through the "
            "seats (and, for A,B,B,B, by the reference table B,B,B,B), with the same "
            "seeds, so the deal's luck cancels. Intervals are 95% over deals."
        ),
    )
    p.add_argument(
        "--agents",
        help='4 agents: random, greedy, mc, mc:rollouts=200, cmd:"python my_bot.py"',
    )
    p.add_argument("--rules", default="shanxi", help="preset name or ruleset .toml file")
    p.add_argument("--deals", type=_positive_int, default=1000, help="seeded deals (1000)")
    p.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    p.add_argument("--threads", type=int, default=0, help="threads, 0 = every core (default)")
    p.add_argument("--format", choices=("duplicate", "single"), default="duplicate")
    p.add_argument("--json", default=None, metavar="PATH", help="write the results as JSON")
    p.add_argument(
        "--timeout", type=float, default=5.0, help="seconds an external bot may think (5)"
    )
    p.add_argument(
        "--record",
        metavar="DIR",
        default=None,
        help="write every decision of every table as a Parquet dataset to DIR (needs pyarrow)",
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
        choices=_LUCK,
        default="auto",
        help="take the luck of the wall out of a 1-vs-3 run against greedy: auto (where "
        "it can be, default), adjust (insist), keep (never)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_ladder_arguments(p)
    p.set_defaults(func=_cmd_arena)


def _add_ladder_arguments(p: Any) -> None:
    """``--ladder`` and ``--reference`` of ``koudian arena``."""
    p.add_argument(
        "--ladder",
        default=None,
        metavar="A,B,C,...",
        help="rank any number of agents, each against three copies of the reference "
        "(instead of --agents)",
    )
    p.add_argument(
        "--reference",
        default=None,
        metavar="AGENT",
        help="the ladder's reference agent (default: the first of --ladder)",
    )


def _cmd_ladder(args: argparse.Namespace) -> int:
    from koudian.simulation import _split_agents

    agents = _split_agents(args.ladder)
    try:
        if args.agents is not None:
            raise RulesetError("give --agents or --ladder, not both")
        if args.format != "duplicate":
            raise RulesetError("the ladder is played in the duplicate format only")
        reference = args.reference
        if reference is not None:
            (reference,) = _split_agents(reference)
        runs = len(agents) - (reference is None or reference in agents)
        bar = _LadderBar(args.deals * max(runs, 1), not args.quiet)
        try:
            res = ladder(
                agents,
                args.rules,
                args.deals,
                reference=reference,
                seed=args.seed,
                threads=args.threads,
                timeout=args.timeout,
                progress=bar,
                luck=args.luck,
            )
        finally:
            bar.close()
        if args.json:
            _write_json(args.json, res.to_json())
    except (KoudianError, OSError) as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    print(res.summary())
    return 0


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
            mean, lo, hi = _mean_ci(partial._advantage(agent))
            self._bar.set_postfix_str(f"{agent} {mean:+.2f}±{(hi - lo) / 2:.2f}")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


class _CallableModule(types.ModuleType):
    """``koudian.arena`` is both this module (imported by the CLI) and the
    function ``koudian.arena(...)``: importing the submodule rebinds the
    package attribute to the module, so the module calls the function."""

    def __call__(self, *args: Any, **kwargs: Any) -> ArenaResult:
        return arena(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
