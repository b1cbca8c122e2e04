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
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from koudian._cli_rules import add_rules_argument, resolve_rules, rules_from_args, rules_label
from koudian._core import (
    KoudianError,
    Ruleset,
    RulesetError,
    _check_int,
    play_run_game,
    simulate_native,
    simulate_record,
)
from koudian._runs import CHUNK_SECONDS, timed_chunks
from koudian._runs import StopOnCtrlC as _StopOnCtrlC
from koudian.agents import (
    BUILTIN_AGENTS,
    Agent,
    AgentSpec,
    Fault,
    agents_help,
    loop_agent,
    make_agent,
    native_agent,
    native_name,
)
from koudian.faults import from_core
from koudian.protocol import MAX_TIMEOUT, BotError, check_timeout, start_bots

__all__ = [
    "END_KINDS",
    "SimulationInterrupted",
    "SimulationResult",
    "add_subparser",
    "agent_labels",
    "simulate",
]

END_KINDS = ("win", "exhausted", "kong_draw", "left")
"""Names of the codes in ``SimulationResult.kind``."""

_FIRST_CHUNK = 2000
"""Games in the first native call of a run: a progress report within a
fraction of a second even for the greedy agent."""

_CHUNK_SECONDS = CHUNK_SECONDS
"""Aimed length of each later native call (``koudian._runs``)."""


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


_INTERPRETERS = ("python", "python3", "pypy", "pypy3", "node", "ruby", "perl", "sh", "bash")


def _label(spec: AgentSpec) -> str:
    """``cmd:python3 -u bots/my_bot.py --x 1`` reads ``cmd:my_bot.py``: the
    program or script file without its folder; an object its class name."""
    if not isinstance(spec, str):
        return type(spec).__name__
    if not spec.startswith("cmd:"):
        return spec
    import shlex

    try:
        words = shlex.split(spec[4:])
    except ValueError:
        words = spec[4:].split()
    words = [w.replace("\\", "/").rsplit("/", 1)[-1] for w in words]
    rest = [w for w in words if not w.startswith("-")]
    if rest and rest[0].rstrip("0123456789.") in _INTERPRETERS and len(rest) > 1:
        rest = rest[1:]  # the script, not its interpreter
    return "cmd:" + (rest[0] if rest else spec[4:].strip())


def agent_labels(agents: Sequence[AgentSpec]) -> list[str]:
    """Readable, distinct names of the seats' agents for a summary: equal
    names are numbered (``cmd:my_bot.py #1``, ``cmd:my_bot.py #2``), except
    built-in names, whose equal agents play alike."""
    labels = [_label(a) for a in agents]
    for name in set(labels):
        seats = [s for s, x in enumerate(labels) if x == name]
        if len(seats) > 1 and (name.startswith("cmd:") or not isinstance(agents[seats[0]], str)):
            for k, s in enumerate(seats, 1):
                labels[s] = f"{name} #{k}"
    return labels


def _native_chunks(
    rules: Ruleset, names: list[str], hands: int, seed: int, threads: int, chunk: int | None
) -> Iterator[dict[str, Any]]:
    """Games ``0 .. hands`` in calls of ``chunk`` games, or, when ``chunk``
    is None, of as many as take about ``_CHUNK_SECONDS`` at the rate
    measured so far. Game ``i`` is the same whatever the cut."""
    pieces = timed_chunks(
        hands, _FIRST_CHUNK, chunk=chunk, least=_FIRST_CHUNK, seconds=_CHUNK_SECONDS
    )
    for start, n in pieces:
        yield simulate_native(rules, names, n, seed=seed, threads=threads, start=start)


_RECORD_CHUNK = 2000
"""Hands per native call (and per Parquet shard) when recording a dataset
or a log: each call's rows stay in memory until written."""


def play_chunk(
    rules: Ruleset,
    names: Sequence[str],
    start: int,
    n: int,
    seed: int,
    threads: int,
    seats: Sequence[int] | None,
    logs: bool,
    pieces: bool = False,
    log_compress: str = "none",
) -> tuple[dict[str, Any], Any, bytes | None]:
    """Games ``start .. start + n`` natively, with the decisions of
    ``seats`` (None: none) and the logs when ``logs`` (compressed as
    ``log_compress`` on the play's threads): ``(summary, decisions, log
    bytes)``, the same whoever calls it (the local loop or a Ray task).
    With ``pieces`` the decisions are a list of column dicts (the
    workers' parts, in order, not joined), which ``koudian.dataset``'s
    writers take as they are."""
    summary, decisions, text = simulate_record(
        rules,
        list(names),
        n,
        seed=seed,
        threads=threads,
        start=start,
        seats=None if seats is None else list(seats),
        logs=logs,
        pieces=pieces,
        log_compress=log_compress,
    )
    return summary, decisions, text


def write_log(log: IO[str], data: bytes) -> None:
    """``koudian.logs.write_log``: log bytes to a text file."""
    from koudian.logs import write_log as write

    write(log, data)


def _check_seats(seats: Sequence[int] | None) -> list[int]:
    """``record_seats``: distinct seat numbers 0-3 (None: all four)."""
    if seats is None:
        return [0, 1, 2, 3]
    out = sorted({int(s) for s in seats})
    if not out or any(s not in range(4) for s in out):
        raise RulesetError(f"record_seats must be seat numbers 0-3, got {list(seats)}")
    return out


def _python_games(
    rules: Ruleset,
    agents: list[Agent],
    hands: int,
    seed: int,
    faults: list[Fault],
    log: IO[str] | None,
) -> Iterator[dict[str, Any]]:
    seated = [loop_agent(a) for a in agents]
    for i in range(hands):
        # Game i of the run, its deal and resets the core's seeding rule,
        # played by the core's game loop.
        g, raw = play_run_game(rules, seated, seed, i, record=log is not None)
        hand_faults = [from_core(f) for f in raw]
        r = g.result
        assert r is not None
        faults.extend(hand_faults)
        if log is not None:
            log.write(g.log)
            for f in hand_faults:
                log.write(json.dumps(f.to_json(), allow_nan=False) + "\n")
        settlement = r.settlement
        baohu = (0, 0, 0, 0) if settlement is None else settlement.baohu_paid
        yield {
            "kind": np.array([END_KINDS.index(r.kind)], np.uint8),
            "winners": np.array([[s in r.winners for s in range(4)]], bool),
            "self_draw": np.array([r.self_draw], bool),
            "from_seat": np.array([-1 if r.from_seat is None else r.from_seat], np.int8),
            "dealer": np.array([r.dealer], np.uint8),
            "ting": np.array([r.ting], bool),
            "deltas": np.array([r.deltas], np.int64),
            "baohu": np.array([baohu], np.int64),
            "decisions": np.array([g.moves], np.uint32),
            "faults": np.array([bool(hand_faults)], bool),
            "patterns": [(name, 1) for _, names in g.win_patterns() for name in names],
        }


def _native_parts(
    rules: Ruleset,
    names: list[str],
    labels: list[str],
    hands: int,
    seed: int,
    threads: int,
    chunk: int | None,
    record: str | os.PathLike[str] | None,
    seats: list[int],
    log: IO[str] | None,
) -> Iterator[dict[str, Any]]:
    """The native games in parts. Without a dataset or a log, in the
    adaptive chunks of ``_native_chunks``; with one, in chunks of
    ``chunk`` (default ``_RECORD_CHUNK``) hands played once for the
    summary, the rows and the log together, each chunk's shard and log
    queued for their background writers before the chunk is yielded and
    written by the time the run returns, so that an interrupted run's log
    and dataset hold exactly the hands its result counts (the manifest,
    partial until the run completes, lists the shards finished)."""
    if record is None and log is None:
        yield from _native_chunks(rules, names, hands, seed, threads, chunk)
        return
    recording = None
    if record is not None:
        from koudian.dataset import Recording

        recording = Recording(record, rules, labels, seed, hands, seats)
    sink = None
    if log is not None:
        from koudian.logs import LogSink

        sink = LogSink(log)
    step = chunk or _RECORD_CHUNK
    completed = False
    try:
        for start in range(0, hands, step):
            n = min(step, hands - start)
            summary, decisions, text = play_chunk(
                rules,
                names,
                start,
                n,
                seed,
                threads,
                seats if recording else None,
                log is not None,
                pieces=True,
                log_compress="none" if sink is None else sink.compression,
            )
            if recording is not None and decisions is not None:
                recording.write(start, decisions, n)
            if sink is not None and text is not None:
                sink.write(text)
            yield summary
        completed = True
    finally:
        try:
            if sink is not None:
                sink.close()
        finally:
            if recording is not None:
                recording.close(completed)


def _batched(
    rows: Iterator[dict[str, Any]], stopped: Callable[[], bool]
) -> Iterator[dict[str, Any]]:
    """Python-driven games' rows in parts of up to 256 hands, a part cut
    short as soon as ``stopped()`` (Ctrl-C), so that a run stops after
    the hand under way."""
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= 256 or stopped():
            yield _merge_rows(batch)
            batch = []
    if batch:
        yield _merge_rows(batch)


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
    record: str | os.PathLike[str] | None = None,
    record_seats: Sequence[int] | None = None,
    backend: str = "local",
    overwrite: bool = False,
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
    ``native=False`` forces the Python-driven loop. ``timeout`` is the
    seconds an external bot has per decision (``0 < timeout <= 3600``).
    Every external bot is started before the first hand: one that cannot
    start raises ``koudian.protocol.BotError``.

    Ctrl-C (``KeyboardInterrupt``) stops the run after the hands under
    way and raises ``SimulationInterrupted``, whose ``result`` holds the
    hands finished (``log`` has received exactly theirs in the native
    path; in the Python loop, every finished hand's).

    ``record=DIR`` writes every decision of the seats ``record_seats``
    (default all) as a Parquet dataset in ``DIR`` (``koudian.dataset``;
    built-in agents only, extra ``koudian[data]``), one shard per
    ``chunk`` (default 2,000) hands; a used ``DIR`` is refused unless
    ``overwrite=True`` (``koudian.dataset.prepare``), and an interrupted
    run leaves a partial one (``koudian.dataset.Recording``).
    ``backend="ray"`` (or ``"ray:ADDRESS"``) plays the games as Ray tasks instead
    (``koudian.cluster``, extra ``koudian[ray]``): the same results, logs
    and rows.
    """
    if len(agents) != 4:
        raise RulesetError(f"give 4 agents, one per seat; got {len(agents)}")
    # The core sees `hands` only in chunks: range-check the integers up
    # front, as the binding does for its own parameters.
    _check_int(hands, "hands", "u64")
    _check_int(seed, "seed", "u64")
    _check_int(threads, "threads", "threads")
    timeout = check_timeout(timeout)
    r = resolve_rules(rules)
    labels = agent_labels(agents)
    names = [native_name(a) for a in agents]
    all_native = all(n is not None for n in names)
    if native and not all_native:
        raise RulesetError("native=True needs built-in agents only")
    use_native = all_native if native is None else native
    if chunk is not None:
        chunk = max(1, chunk)
    seats = _check_seats(record_seats)
    if (record is not None or backend != "local") and not use_native:
        raise RulesetError(
            f"record= and backend= need built-in agents only ({', '.join(BUILTIN_AGENTS)}): "
            f"got {', '.join(labels)}"
        )
    if record is not None:
        from koudian.dataset import prepare

        prepare(record, overwrite)
    if backend != "local":
        from koudian import cluster

        ray_result = cluster.run(
            r,
            labels,
            [n for n in names if n is not None],
            hands,
            seed=seed,
            backend=backend,
            log=log,
            progress=progress,
            chunk=chunk,
            record=record,
            record_seats=seats,
        )
        ray_result.family = str(r.family)
        ray_result.requested = hands
        return ray_result
    t0 = time.perf_counter()
    parts: list[dict[str, Any]] = []
    faults: list[Fault] = []
    interrupted = False
    made: list[Agent] = []
    run: Iterator[dict[str, Any]] = iter(())
    with _StopOnCtrlC() as ctrl_c:
        try:
            if use_native:
                native_names = [n for n in names if n is not None]
                run = _native_parts(
                    r, native_names, labels, hands, seed, threads, chunk, record, seats, log
                )
            else:
                # Added one by one, so the finally below closes the bots
                # made before one that fails.
                made += (make_agent(a, timeout=timeout, seat=s) for s, a in enumerate(agents))
                start_bots(made)
                rows = _python_games(r, made, hands, seed, faults, log)
                run = _batched(rows, lambda: ctrl_c.stopped)
            for part in run:
                parts.append(part)
                if progress is not None:
                    progress(int(part["kind"].shape[0]))
                if ctrl_c.stopped:
                    raise KeyboardInterrupt
        except KeyboardInterrupt:
            interrupted = True
        finally:
            # The native parts' log and shards are written (their writers
            # waited for) before the run returns or raises, not whenever
            # the interrupted generator is collected.
            stop = getattr(run, "close", None)
            if stop is not None:
                stop()
            for a in made:
                close = getattr(a, "close", None)
                if close is not None:
                    close()
    result = _concat(parts, labels)
    result.seconds = time.perf_counter() - t0
    result.faults = faults
    result.family = str(r.family)
    result.requested = hands
    if interrupted:
        result.interrupted = True
        raise SimulationInterrupted(result)
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


def _int_at_least(minimum: int, rule: str) -> Callable[[str], int]:
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


_positive_int = _int_at_least(1, "must be at least 1")
"""argparse type of ``--hands``."""

_threads = _int_at_least(0, "threads must be ≥ 0 (0: every core)")
"""argparse type of ``--threads``."""


def _check_agent(spec: str) -> None:
    """Refuses an unknown built-in name before anything runs (``cmd:``
    bots are started, and their commands checked, by ``simulate``)."""
    if not spec.startswith("cmd:"):
        native_agent(spec)  # AgentError naming the known agents


def _timeout_seconds(text: str) -> float:
    """argparse type of ``--timeout``: seconds, ``0 < t <= MAX_TIMEOUT``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    try:
        return check_timeout(value)
    except BotError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _cmd_simulate(args: argparse.Namespace) -> int:
    agents = _split_agents(args.agents)
    if len(agents) == 1:
        agents = agents * 4
    log: IO[str] | None = None
    try:
        # Everything is checked before the progress bar is drawn.
        if len(agents) != 4:
            raise RulesetError(f"--agents needs 1 or 4 agents, got {len(agents)}: {agents}")
        for a in agents:
            _check_agent(a)
        rules = rules_from_args(args)
        seats = _seat_list(args.record_seats) if args.record_seats else None
        if args.record and not args.overwrite:  # refused before the bar is drawn
            from koudian.dataset import prepare

            prepare(args.record)
        if args.log:
            from koudian.logs import open_log

            log = open_log(args.log, args.log_compress)
    except (KoudianError, OSError) as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    bar = _Progress(args.hands, not args.quiet)
    code = 0
    try:
        result = simulate(
            rules,
            agents,
            args.hands,
            seed=args.seed,
            threads=args.threads,
            log=log,
            progress=bar,
            timeout=args.timeout,
            record=args.record,
            record_seats=seats,
            backend=args.cluster,
            overwrite=args.overwrite,
        )
    except SimulationInterrupted as stop:
        result, code = stop.result, 130  # 128 + SIGINT, as shells report it
    except (KoudianError, OSError) as e:
        print(f"koudian: error: {e}", file=sys.stderr)
        return 2
    finally:
        bar.close()
        if log is not None:
            log.close()
    print(f"rules {rules_label(args)}, agents {', '.join(result.agents)}, seed {args.seed}")
    print(result.summary())
    if result.retried_tasks:
        print(f"ray: {result.retried_tasks} task(s) retried after a worker died")
    if args.record:
        from koudian.dataset import _describe

        print(f"dataset: {_describe(args.record)}")
    return code


_EXAMPLES = """examples:
  koudian simulate --hands 2000
  koudian simulate --rules linxian --agents greedy --hands 500 --seed 3
  koudian simulate --rules shanxi --set special_hands=true --agents greedy
  koudian simulate --agents 'cmd:python examples/my_bot.py,random,random,random' --hands 20
  koudian simulate --hands 1000 --log hands.jsonl   # read it with koudian.read_logs"""


def _seat_list(text: str) -> list[int]:
    """``--record-seats 0,2``: seat numbers."""
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise RulesetError(f"--record-seats takes seat numbers like 0,2; got {text!r}") from None


def add_subparser(sub: Any) -> None:
    """Adds ``koudian simulate`` to the CLI's subparsers."""
    p = sub.add_parser(
        "simulate",
        help="self-play many hands and summarize the results per seat",
        description=(
            "Self-play: every game is one hand dealt from the seed; built-in agents "
            "run natively in Rust, Python or external agents from Python. Ctrl-C stops "
            "the run and prints the summary of the hands played (exit code 130)."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_rules_argument(p)
    p.add_argument(
        "--agents",
        default="greedy,random,random,random",
        help=f"4 agents (or 1 for all seats): {agents_help()}",
    )
    p.add_argument(
        "--hands", type=_positive_int, default=10_000, help="number of hands, >= 1 (default 10000)"
    )
    p.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    p.add_argument("--threads", type=_threads, default=0, help="threads, 0 = every core (default)")
    p.add_argument(
        "--log",
        default=None,
        help="write every hand's JSON Lines log to this file (.gz: gzip, .zst: zstd)",
    )
    p.add_argument(
        "--log-compress",
        choices=["none", "gzip", "zstd"],
        default=None,
        help="compress the --log (default: by its suffix); read it with koudian.read_logs",
    )
    p.add_argument(
        "--record",
        metavar="DIR",
        default=None,
        help="write every decision as a Parquet dataset to DIR (koudian.dataset; needs pyarrow)",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the dataset already in the --record DIR (refused otherwise)",
    )
    p.add_argument(
        "--record-seats",
        default=None,
        help="seats to record, e.g. 0 or 0,2 (default: all)",
    )
    p.add_argument(
        "--cluster",
        default="local",
        help="local (default), ray (a local Ray, or RAY_ADDRESS), or ray:ADDRESS",
    )
    p.add_argument(
        "--timeout",
        type=_timeout_seconds,
        default=5.0,
        help=f"seconds an external bot may think per decision, at most {MAX_TIMEOUT:g} (5)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_simulate)
