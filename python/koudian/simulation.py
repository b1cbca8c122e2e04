"""Self-play at scale: ``koudian.simulate`` and the ``koudian simulate`` CLI.

Game ``i`` of a run with master seed ``seed`` is dealt from
``mix_seed(seed, i)`` with seat ``i % 4`` dealing, and each seat's agent
is reset with ``mix_seed(game seed, 1 + seat)`` before the hand. Every
game is one hand (no running totals between them).

When every agent is a built-in of the Rust core (``"random"``,
``"greedy"``), the games are played entirely in Rust
(``koudian._core.simulate_native``: the GIL released, each of ``threads``
threads taking the next games as it becomes free, the results joined in
game order, so they never depend on ``threads``). With any Python or
external agent the same games are driven from Python one decision at a
time; with built-in agents both paths play identical games.

    >>> import koudian
    >>> r = koudian.simulate("shanxi", ["random"] * 4, hands=200, seed=1)
    >>> int(r.deltas.sum())
    0
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from koudian._core import (
    KoudianError,
    Ruleset,
    RulesetError,
    _check_int,
    mix_seed,
    simulate_logs,
    simulate_native,
)
from koudian.agents import Agent, AgentSpec, Fault, make_agent, native_name
from koudian.game import Game, play

__all__ = ["END_KINDS", "SimulationResult", "add_subparser", "simulate"]

END_KINDS = ("win", "exhausted", "kong_draw", "left")
"""Names of the codes in ``SimulationResult.kind``."""

_FIRST_CHUNK = 2000
"""Games in the first native call of a run: a progress report within a
fraction of a second even for the greedy agent."""

_CHUNK_SECONDS = 0.25
"""Aimed length of each later native call. Every call wakes the worker
threads and ends with one thread finishing alone, so short calls cost
scaling (with 2,000-game calls, two threads ran random agents at 1.5x one
thread; the core's own loop reaches 1.9x); a quarter of a second keeps the
progress bar lively."""


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

    def summary(self) -> str:
        """The summary table of the CLI."""
        if self.hands == 0:
            return f"0 hands played ({', '.join(self.agents)}): nothing to summarize"
        n = self.hands
        wins = self.wins
        counts = np.bincount(self.kind, minlength=len(END_KINDS))
        # Every share below is rounded from its count, so that the draw
        # rate and "exhausted" (the same hands, when nothing else ends
        # a hand without a winner) print the same figure.
        draws = int(counts[1:].sum())
        lines = [
            f"{self.hands} hands, {self.hands_per_second:,.0f} hands/s, "
            f"draw rate {_percent(draws, n)}",
            "",
            "seat  agent             win%   self-draw%   包胡 paid (hands)"
            "        mean ± 95% CI          total",
        ]
        ci = self.ci95
        for s in range(4):
            # One hand has no spread to estimate: no interval, not "inf".
            ci_text = f"{ci[s]:.3f}" if math.isfinite(ci[s]) else "n/a"
            sd_share = 100 * self.self_draws[s] / wins[s] if wins[s] else 0.0
            lines.append(
                f"{s:>4}  {self.agents[s][:16]:<16} {100 * wins[s] / n:5.1f}   {sd_share:9.1f}"
                f"   {self.baohu_paid[s]:>9} ({self.baohu_hands[s]:>6})"
                f"   {self.mean_scores[s]:>+9.3f} ± {ci_text:<8}  {self.scores[s]:>+12}"
            )
        ends = ", ".join(
            f"{k} {_percent(int(c), n)}" for k, c in zip(END_KINDS, counts, strict=False) if c
        )
        lines += ["", f"hand ends: {ends}"]
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


def _empty(agents: list[str]) -> SimulationResult:
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


def _concat(parts: list[dict[str, Any]], agents: list[str]) -> SimulationResult:
    r = _empty(agents)
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


def _merge_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {
        k: np.concatenate([r[k] for r in rows]) for k in rows[0] if k != "patterns"
    }
    out["patterns"] = [p for r in rows for p in r["patterns"]]
    return out


def _resolve_rules(rules: object) -> Ruleset:
    if isinstance(rules, Ruleset):
        return rules
    if isinstance(rules, str):
        if rules.endswith(".toml") or Path(rules).is_file():
            return Ruleset.from_toml(rules)
        return Ruleset.preset(rules)
    raise RulesetError(f"rules must be a preset name, a .toml file or a Ruleset, got {rules!r}")


def _label(spec: AgentSpec) -> str:
    return spec if isinstance(spec, str) else type(spec).__name__


def _native_chunks(
    rules: Ruleset, names: list[str], hands: int, seed: int, threads: int, chunk: int | None
) -> Iterator[dict[str, Any]]:
    """Games ``0 .. hands`` in calls of ``chunk`` games, or, when ``chunk``
    is None, of as many as take about ``_CHUNK_SECONDS`` at the rate
    measured so far. Game ``i`` is the same whatever the cut."""
    start, n = 0, chunk or _FIRST_CHUNK
    while start < hands:
        n = min(n, hands - start)
        t = time.perf_counter()
        yield simulate_native(rules, names, n, seed=seed, threads=threads, start=start)
        start += n
        if chunk is None:
            rate = n / max(time.perf_counter() - t, 1e-6)
            n = max(_FIRST_CHUNK, int(rate * _CHUNK_SECONDS))


def _python_games(
    rules: Ruleset,
    agents: list[Agent],
    hands: int,
    seed: int,
    faults: list[Fault],
    log: IO[str] | None,
) -> Iterator[dict[str, Any]]:
    for i in range(hands):
        game_seed = mix_seed(seed, i)
        g = Game(rules, seed=game_seed, dealer=i % 4, record=log is not None)
        for s, a in enumerate(agents):
            reset = getattr(a, "reset", None)
            if reset is not None:
                reset(mix_seed(game_seed, 1 + s))
        hand_faults: list[Fault] = []
        decisions_before = g.moves
        r = play(g, agents, hand_faults.append)
        faults.extend(hand_faults)
        if log is not None:
            log.write(g.log)
            for f in hand_faults:
                log.write(json.dumps(f.to_json()) + "\n")
        baohu = [0, 0, 0, 0]
        settlement = r.settlement
        if settlement is not None:
            for p in settlement.payments:
                if p.kind == "win_covered":
                    baohu[p.payer] += p.amount
        yield {
            "kind": np.array([END_KINDS.index(r.kind)], np.uint8),
            "winners": np.array([[s in r.winners for s in range(4)]], bool),
            "self_draw": np.array([r.self_draw], bool),
            "from_seat": np.array([-1 if r.from_seat is None else r.from_seat], np.int8),
            "dealer": np.array([r.dealer], np.uint8),
            "ting": np.array([r.ting], bool),
            "deltas": np.array([r.deltas], np.int64),
            "baohu": np.array([baohu], np.int64),
            "decisions": np.array([g.moves - decisions_before], np.uint32),
            "faults": np.array([bool(hand_faults)], bool),
            "patterns": [(name, 1) for _, names in g.win_patterns() for name in names],
        }


def simulate(
    rules: object,
    agents: Sequence[AgentSpec],
    hands: int,
    seed: int = 0,
    threads: int = 0,
    *,
    log: IO[str] | None = None,
    progress: Callable[[int], None] | None = None,
    timeout: float = 5.0,
    chunk: int | None = None,
    native: bool | None = None,
) -> SimulationResult:
    """Plays ``hands`` one-hand games of ``rules`` (a preset name, a
    ``.toml`` file or a ``Ruleset``) with one agent per seat.

    ``agents``: ``"random"``, ``"greedy"``, ``"cmd:COMMAND"`` (an external
    bot, ``koudian.protocol``) or any ``Agent`` object. ``threads`` (0:
    every core) is used by the native path. ``log`` receives every game's
    JSON Lines log (external-bot faults follow their game's ``end`` line
    as ``{"type": "fault", ...}`` records). ``progress(n)`` is called with
    the number of games just finished. The native path plays ``chunk``
    games per call into the core (default: as many as take about a
    quarter of a second); the results never depend on it.
    ``native=False`` forces the Python-driven loop.
    """
    if len(agents) != 4:
        raise RulesetError(f"give 4 agents, one per seat; got {len(agents)}")
    # The core sees `hands` only in chunks: range-check the integers up
    # front, as the binding does for its own parameters.
    _check_int(hands, "hands", "u64")
    _check_int(seed, "seed", "u64")
    _check_int(threads, "threads", "threads")
    r = _resolve_rules(rules)
    labels = [_label(a) for a in agents]
    names = [native_name(a) for a in agents]
    all_native = all(n is not None for n in names)
    if native and not all_native:
        raise RulesetError("native=True needs built-in agents only")
    use_native = all_native if native is None else native
    if chunk is not None:
        chunk = max(1, chunk)
    t0 = time.perf_counter()
    parts: list[dict[str, Any]] = []
    faults: list[Fault] = []
    if use_native:
        native_names = [n for n in names if n is not None]
        for part in _native_chunks(r, native_names, hands, seed, threads, chunk):
            parts.append(part)
            if progress is not None:
                progress(int(part["kind"].shape[0]))
        if log is not None:
            step = chunk or _FIRST_CHUNK
            for start in range(0, hands, step):
                n = min(step, hands - start)
                for text in simulate_logs(r, native_names, n, seed=seed, start=start):
                    log.write(text)
    else:
        made = [make_agent(a, timeout=timeout, seat=s) for s, a in enumerate(agents)]
        try:
            batch: list[dict[str, Any]] = []
            for row in _python_games(r, made, hands, seed, faults, log):
                batch.append(row)
                if len(batch) >= 256:
                    parts.append(_merge_rows(batch))
                    if progress is not None:
                        progress(len(batch))
                    batch = []
            if batch:
                parts.append(_merge_rows(batch))
                if progress is not None:
                    progress(len(batch))
        finally:
            for a in made:
                close = getattr(a, "close", None)
                if close is not None:
                    close()
    result = _concat(parts, labels)
    result.seconds = time.perf_counter() - t0
    result.faults = faults
    return result


# ------------------------------------------------------------------- CLI


class _Progress:
    """tqdm when installed, else a plain counter on stderr."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total = total
        self.done = 0
        self.enabled = enabled
        self._bar: Any = None
        self._last = 0.0
        self._t0 = time.perf_counter()
        if enabled:
            try:
                from tqdm import tqdm  # type: ignore[import-untyped, unused-ignore]

                self._bar = tqdm(total=total, unit="hand", unit_scale=True, file=sys.stderr)
            except ImportError:
                self._bar = None

    def __call__(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(n)
            return
        now = time.perf_counter()
        if now - self._last >= 0.5 or self.done >= self.total:
            self._last = now
            rate = self.done / max(now - self._t0, 1e-9)
            pct = 100 * self.done / max(self.total, 1)
            print(
                f"\r{self.done}/{self.total} hands ({pct:5.1f}%), {rate:,.0f} hands/s",
                end="",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
        else:
            print(file=sys.stderr)


def _split_agents(text: str) -> list[str]:
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


def _positive_int(text: str) -> int:
    """argparse type of ``--hands``: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _cmd_simulate(args: argparse.Namespace) -> int:
    agents = _split_agents(args.agents)
    if len(agents) == 1:
        agents = agents * 4
    try:
        if len(agents) != 4:
            raise RulesetError(f"--agents needs 1 or 4 agents, got {len(agents)}: {agents}")
        rules = _resolve_rules(args.rules)
        bar = _Progress(args.hands, not args.quiet)
        log: IO[str] | None = None
        try:
            if args.log:
                log = open(args.log, "w", encoding="utf-8")
            result = simulate(
                rules,
                agents,
                args.hands,
                seed=args.seed,
                threads=args.threads,
                log=log,
                progress=bar,
                timeout=args.timeout,
            )
        finally:
            bar.close()
            if log is not None:
                log.close()
    except (KoudianError, OSError) as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    print(f"rules {args.rules}, agents {', '.join(agents)}, seed {args.seed}")
    print(result.summary())
    return 0


def add_subparser(sub: Any) -> None:
    """Adds ``koudian simulate`` to the CLI's subparsers."""
    p = sub.add_parser(
        "simulate",
        help="self-play many hands and summarize the results per seat",
        description=(
            "Self-play: every game is one hand dealt from the seed; built-in agents "
            "run natively in Rust, Python or external agents from Python."
        ),
    )
    p.add_argument("--rules", default="shanxi", help="preset name or ruleset .toml file")
    p.add_argument(
        "--agents",
        default="greedy,random,random,random",
        help='4 agents (or 1 for all seats): random, greedy, cmd:"python my_bot.py"',
    )
    p.add_argument(
        "--hands", type=_positive_int, default=10_000, help="number of hands, >= 1 (default 10000)"
    )
    p.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    p.add_argument("--threads", type=int, default=0, help="threads, 0 = every core (default)")
    p.add_argument("--log", default=None, help="write every hand's JSON Lines log to this file")
    p.add_argument(
        "--timeout", type=float, default=5.0, help="seconds an external bot may think (5)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_simulate)
