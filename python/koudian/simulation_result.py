"""What ``koudian.simulate`` returns: ``SimulationResult`` (per-hand
arrays and their summary) and ``SimulationInterrupted``, and how the
parts of a run (native chunks, Python-driven hands, Ray tasks) join into
one result, whoever played them."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from koudian.faults import Fault

__all__ = [
    "END_KINDS",
    "SimulationInterrupted",
    "SimulationResult",
    "concat_parts",
    "empty_result",
]

END_KINDS = ("win", "exhausted", "kong_draw", "left")
"""Names of the codes in ``SimulationResult.kind``."""


@dataclass
class SimulationResult:
    """Per-hand arrays (one row per game, in game order) and summaries.

    ``kind`` is a code into ``END_KINDS``; ``winners``, ``ting`` are
    ``(n, 4)`` bools; ``deltas`` and ``baohu`` (the amount each seat paid
    covering others' shares, 包胡 / 一包三) are ``(n, 4)`` int64;
    ``from_seat`` is the discarder who dealt in (-1 for none);
    ``patterns`` counts the winning hands showing each scoring pattern
    (``"中文 english"`` names).
    """

    kind: npt.NDArray[np.uint8]
    winners: npt.NDArray[np.bool_]
    self_draw: npt.NDArray[np.bool_]
    from_seat: npt.NDArray[np.int8]
    dealer: npt.NDArray[np.uint8]
    ting: npt.NDArray[np.bool_]
    deltas: npt.NDArray[np.int64]
    baohu: npt.NDArray[np.int64]
    decisions: npt.NDArray[np.uint32]
    agents: list[str]
    seconds: float = 0.0
    faults: list[Fault] = field(default_factory=list)
    patterns: dict[str, int] = field(default_factory=dict)
    fault_hands: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    family: str = "shanxi"
    """The ruleset's family: the summary shows the columns and terms it uses."""
    interrupted: bool = False
    """True when the run was stopped (Ctrl-C) before all its hands: the
    arrays hold the hands finished, in game order."""
    requested: int = 0
    """The number of hands asked for."""
    retried_tasks: int = 0
    """Ray tasks retried after their worker died (0 for a local run)."""

    @property
    def hands(self) -> int:
        """Number of games."""
        return int(self.kind.shape[0])

    @property
    def scores(self) -> npt.NDArray[np.int64]:
        """Total score per seat."""
        return np.asarray(self.deltas.sum(axis=0), dtype=np.int64)

    @property
    def mean_scores(self) -> npt.NDArray[np.float64]:
        """Mean score per hand per seat."""
        return np.asarray(self.deltas.mean(axis=0) if self.hands else np.zeros(4), np.float64)

    @property
    def ci95(self) -> npt.NDArray[np.float64]:
        """Half-width of the 95% confidence interval of the mean score per
        seat (normal approximation, 1.96 standard errors)."""
        if self.hands < 2:
            return np.full(4, math.inf)
        sd = self.deltas.std(axis=0, ddof=1)
        return np.asarray(1.96 * sd / math.sqrt(self.hands), dtype=np.float64)

    @property
    def wins(self) -> npt.NDArray[np.int64]:
        """Hands won per seat."""
        return np.asarray(self.winners.sum(axis=0), dtype=np.int64)

    @property
    def self_draws(self) -> npt.NDArray[np.int64]:
        """Hands won by self-draw per seat."""
        return np.asarray((self.winners & self.self_draw[:, None]).sum(axis=0), dtype=np.int64)

    @property
    def baohu_paid(self) -> npt.NDArray[np.int64]:
        """Total paid covering others' shares (包胡) per seat."""
        return np.asarray(self.baohu.sum(axis=0), dtype=np.int64)

    @property
    def baohu_hands(self) -> npt.NDArray[np.int64]:
        """Hands in which each seat paid 包胡."""
        return np.asarray((self.baohu > 0).sum(axis=0), dtype=np.int64)

    @property
    def draw_rate(self) -> float:
        """Share of hands nobody won."""
        return int((self.kind != 0).sum()) / self.hands if self.hands else 0.0

    @property
    def hands_per_second(self) -> float:
        """Games per second of wall time."""
        return self.hands / self.seconds if self.seconds > 0 else math.inf

    def fault_counts(self) -> list[int]:
        """Faults per seat."""
        c = [0, 0, 0, 0]
        for f in self.faults:
            c[f.seat] += 1
        return c

    def __repr__(self) -> str:
        # One line: the dataclass repr printed every per-hand array
        # (megabytes for a long run); summary() is the long form.
        means = ", ".join(f"{m:+.2f}" for m in self.mean_scores)
        flags = ", interrupted=True" if self.interrupted else ""
        return (
            f"SimulationResult(hands={self.hands}, family={self.family!r}, "
            f"agents={self.agents!r}, mean_scores=[{means}], "
            f"faults={len(self.faults)}, seconds={self.seconds:.2f}{flags})"
        )

    def summary(self) -> str:
        """The summary table of the CLI.

        Each share names its base: ``win %`` and ``dealt in %`` are shares
        of all hands, ``self-draw %`` a share of that seat's wins (``-``
        for a seat that never won). Sichuan has no 包胡, so its column is
        left out there."""
        stopped = (
            f" (interrupted: {self.hands} of {self.requested} hands played)"
            if self.interrupted
            else ""
        )
        if self.hands == 0:
            return f"0 hands played ({', '.join(self.agents)}): nothing to summarize{stopped}"
        n = self.hands
        wins = self.wins
        counts = np.bincount(self.kind, minlength=len(END_KINDS))
        # Every share below is rounded from its count, so that the draw
        # rate and "exhausted" (the same hands, when nothing else ends
        # a hand without a winner) print the same figure.
        draws = int(counts[1:].sum())
        baohu = self.family != "sichuan"
        width = max(16, *(len(a) for a in self.agents))
        # Two header lines: each column's name, then its base.
        head = f"seat  {'agent':<{width}}  {'win %':>8}  {'self-draw %':>11}"
        base = f"      {'':<{width}}  {'of hands':>8}  {'of wins':>11}"
        if baohu:
            # 包胡 is two characters drawn four columns wide.
            head += f"  {'包胡 paid (hands)':>16}"
            base += f"  {'':>18}"
        head += f"  {'mean ± 95% CI':>20}  {'total':>12}"
        base += f"  {'per hand':>20}"
        lines = [
            f"{self.hands} hands{stopped}, {self.hands_per_second:,.0f} hands/s, "
            f"draw rate {_percent(draws, n)}",
            "",
            head,
            base,
        ]
        ci = self.ci95
        for s in range(4):
            # One hand has no spread to estimate: no interval, not "inf".
            ci_text = f"{ci[s]:.3f}" if math.isfinite(ci[s]) else "n/a"
            sd_share = f"{100 * self.self_draws[s] / wins[s]:.1f}" if wins[s] else "-"
            line = f"{s:>4}  {self.agents[s]:<{width}}  {100 * wins[s] / n:>8.1f}  {sd_share:>11}"
            if baohu:
                line += f"  {self.baohu_paid[s]:>9} ({self.baohu_hands[s]:>6})"
            mean = f"{self.mean_scores[s]:+.3f} ± {ci_text}"
            line += f"  {mean:>20}  {self.scores[s]:>+12}"
            lines.append(line)
        ends = ", ".join(
            f"{k} {_percent(int(c), n)}" for k, c in zip(END_KINDS, counts, strict=False) if c
        )
        lines += ["", f"hand ends (share of hands): {ends}"]
        n_wins = int(wins.sum())
        if self.patterns and n_wins:
            top = sorted(self.patterns.items(), key=lambda kv: (-kv[1], kv[0]))
            shown = ", ".join(f"{k} {100 * v / n_wins:.1f}%" for k, v in top)
            lines.append(f"patterns (share of wins): {shown}")
        fc = self.fault_counts()
        if any(fc) or self.fault_hands.any():
            per_seat = ", ".join(f"seat {s}: {c}" for s, c in enumerate(fc))
            lines.append(
                f"agent faults (fallback played): {per_seat}"
                + (
                    # From the Python loop, fault_hands marks the hands
                    # with the agent faults above; only the native path's
                    # are faults of native agents.
                    f"; {'' if self.faults else 'native '}faults in "
                    f"{int(self.fault_hands.sum())} hands"
                    if self.fault_hands.any()
                    else ""
                )
            )
            # Why: each faulty seat's first fault, one short line (the
            # rest are in the --log).
            for seat in range(4):
                first = next((f for f in self.faults if f.seat == seat), None)
                if first is not None:
                    lines.append(f"  seat {seat} first fault: {_short_fault(first)}")
        return "\n".join(lines)


class SimulationInterrupted(KeyboardInterrupt):
    """``simulate`` was interrupted (Ctrl-C): a ``KeyboardInterrupt`` that
    carries the hands finished so far as ``result`` (marked
    ``interrupted``), so that a caller may still report them."""

    def __init__(self, result: SimulationResult) -> None:
        super().__init__(f"interrupted after {result.hands} of {result.requested} hands")
        self.result = result


def _percent(count: int, total: int) -> str:
    """``count / total`` as a percentage with one decimal, from the counts
    (``100 * 581 / 2000`` prints 29.1%; ``100 * (581 / 2000)`` 29.0%)."""
    return f"{100 * count / total:.1f}%"


_FAULT_DETAIL_CHARS = 100
"""Longest fault detail the summary shows (the --log has all of it)."""


def _short_fault(fault: Fault) -> str:
    """``kind: detail`` on one line, the detail cut to ``_FAULT_DETAIL_CHARS``."""
    detail = " ".join(fault.detail.split())
    if len(detail) > _FAULT_DETAIL_CHARS:
        detail = detail[: _FAULT_DETAIL_CHARS - 1] + "…"
    return f"{fault.kind}: {detail}" if detail else fault.kind


def empty_result(agents: list[str]) -> SimulationResult:
    """A result of no hands, for ``agents``."""
    return SimulationResult(
        kind=np.zeros(0, np.uint8),
        winners=np.zeros((0, 4), bool),
        self_draw=np.zeros(0, bool),
        from_seat=np.zeros(0, np.int8),
        dealer=np.zeros(0, np.uint8),
        ting=np.zeros((0, 4), bool),
        deltas=np.zeros((0, 4), np.int64),
        baohu=np.zeros((0, 4), np.int64),
        decisions=np.zeros(0, np.uint32),
        agents=agents,
    )


def concat_parts(parts: list[dict[str, Any]], agents: list[str]) -> SimulationResult:
    """The result of a run's parts (column dicts of consecutive games, in
    game order, as the core's ``simulate_native`` returns them)."""
    r = empty_result(agents)
    if not parts:
        return r
    cols = {k: np.concatenate([p[k] for p in parts]) for k in parts[0] if k != "patterns"}
    patterns: dict[str, int] = {}
    for p in parts:
        for name, count in p["patterns"]:
            patterns[name] = patterns.get(name, 0) + int(count)
    return SimulationResult(
        kind=cols["kind"],
        winners=cols["winners"],
        self_draw=cols["self_draw"],
        from_seat=cols["from_seat"],
        dealer=cols["dealer"],
        ting=cols["ting"],
        deltas=cols["deltas"],
        baohu=cols["baohu"],
        decisions=cols["decisions"],
        agents=agents,
        fault_hands=cols["faults"],
        patterns=dict(sorted(patterns.items())),
    )
