"""Self-play at scale: ``koudian.simulate`` runs the games (its result is
``koudian.simulation_result``, its command ``koudian.simulation_cli``).

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

import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

import numpy as np

from koudian._cli_rules import resolve_rules
from koudian._core import (
    Ruleset,
    RulesetError,
    _check_int,
    play_run_game,
    simulate_native,
)
from koudian._labels import agent_labels
from koudian._native_play import RECORD_CHUNK, check_seats, play_chunk
from koudian._runs import CHUNK_SECONDS, timed_chunks
from koudian._runs import StopOnCtrlC as _StopOnCtrlC
from koudian.agents import (
    BUILTIN_AGENTS,
    Agent,
    AgentSpec,
    Fault,
    loop_agent,
    make_agent,
    native_name,
)
from koudian.faults import from_core
from koudian.protocol import check_timeout, start_bots
from koudian.simulation_result import (
    END_KINDS,
    SimulationInterrupted,
    SimulationResult,
    concat_parts,
)

__all__ = [
    "END_KINDS",
    "SimulationInterrupted",
    "SimulationResult",
    "agent_labels",
    "simulate",
]
"""``SimulationResult``, ``SimulationInterrupted`` and ``END_KINDS`` live in
``koudian.simulation_result``, ``agent_labels`` in ``koudian._labels``; they
are named here too, where users have always imported them."""

_FIRST_CHUNK = 2000
"""Games in the first native call of a run: a progress report within a
fraction of a second even for the greedy agent."""

_CHUNK_SECONDS = CHUNK_SECONDS
"""Aimed length of each later native call (``koudian._runs``)."""


def _merge_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Python-driven games' rows joined into one part."""
    out: dict[str, Any] = {
        k: np.concatenate([r[k] for r in rows]) for k in rows[0] if k != "patterns"
    }
    out["patterns"] = [p for r in rows for p in r["patterns"]]
    return out


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
    ``chunk`` (default ``RECORD_CHUNK``) hands played once for the
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
    step = chunk or RECORD_CHUNK
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
    seats = check_seats(record_seats)
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
    result = concat_parts(parts, labels)
    result.seconds = time.perf_counter() - t0
    result.faults = faults
    result.family = str(r.family)
    result.requested = hands
    if interrupted:
        result.interrupted = True
        raise SimulationInterrupted(result)
    return result
