"""The local play of ``koudian.arena``: built-in agents natively, in
calls of about a quarter of a second (``koudian._runs.timed_chunks``) so
that Ctrl-C is honoured within a second, and any agents through the
core's arena on this thread, a deal at a time, so that a stopped run keeps every
deal it finished whole."""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Sequence
from typing import Any

import numpy.typing as npt

from koudian._core import Ruleset, arena_agents
from koudian._runs import StopOnCtrlC, timed_chunks
from koudian.agents import Agent, AgentSpec, loop_agent, make_agent
from koudian.arena import chunks
from koudian.arena.layout import table_entries
from koudian.arena.results import ArenaFault
from koudian.faults import from_core

__all__ = ["FIRST_DEALS", "local", "native_local", "on_ray", "python_deals"]

FIRST_DEALS = 1
"""Deals in the first native call of a local run; later calls take about
a quarter of a second each, so that Ctrl-C is honoured within a second
even with a slow agent."""


def local(
    r: Ruleset,
    agents: Sequence[AgentSpec],
    labels: list[str],
    names: list[str],
    fmt: str,
    deals: int,
    seed: int,
    threads: int,
    timeout: float,
    seats: list[int],
    record: str | os.PathLike[str] | None,
    walls: int,
    chunk: int | None,
    parts: list[dict[str, npt.NDArray[Any]]],
    found: list[ArenaFault],
    report: Callable[[], None] | None,
) -> None:
    """``koudian.arena`` played here: the records into ``parts``, the
    faults into ``found``, ``report()`` after each piece. Ctrl-C stops it
    between pieces (``StopOnCtrlC``): ``parts`` then holds the deals
    finished, whole, and no exception is raised."""
    with StopOnCtrlC() as ctrl_c:
        try:
            if len(names) == 4:
                native_local(
                    r,
                    names,
                    labels,
                    fmt,
                    deals,
                    seed,
                    threads,
                    seats,
                    record,
                    walls,
                    chunk,
                    parts,
                    lambda: ctrl_c.stopped,
                    report,
                )
                return
            run = python_deals(
                r,
                agents,
                labels,
                range(deals),
                seed,
                fmt,
                timeout,
                walls,
                lambda: ctrl_c.stopped,
            )
            try:
                for recs, faults in run:
                    parts.append(recs)
                    found += faults
                    if report is not None:
                        report()
            finally:
                run.close()
        except KeyboardInterrupt:  # a second Ctrl-C, or outside the main thread
            pass


def on_ray(
    r: Ruleset,
    labels: list[str],
    names: list[str],
    fmt: str,
    deals: int,
    seed: int,
    backend: str,
    chunk: int | None,
    record: str | os.PathLike[str] | None,
    seats: list[int],
    walls: int,
    parts: list[dict[str, npt.NDArray[Any]]],
    report: Callable[[], None] | None,
) -> int:
    """``koudian.arena`` on Ray (``koudian.cluster.run_arena``): the
    records into ``parts`` (those of the finished tasks' deals as they
    finish, for ``report()``), and the number of tasks retried. Ctrl-C
    (``cluster.ArenaStopped``) leaves in ``parts`` the records of the
    deals ``0 .. n`` of the tasks that returned, as the local run leaves
    its finished deals, and raises nothing: the caller reports them."""
    from koudian import cluster

    def partial(recs: dict[str, npt.NDArray[Any]]) -> None:
        parts[:] = [recs]
        if report is not None:
            report()

    try:
        recs, retried = cluster.run_arena(
            r,
            labels,
            names,
            fmt,
            deals,
            seed=seed,
            backend=backend,
            progress=partial if report is not None else None,
            chunk=chunk,
            record=record,
            record_seats=seats,
            walls=walls,
        )
    except cluster.ArenaStopped as stop:
        parts[:] = [] if stop.records is None else [stop.records]
        return 0
    parts[:] = [recs]
    return retried


def native_local(
    r: Ruleset,
    names: list[str],
    labels: list[str],
    fmt: str,
    deals: int,
    seed: int,
    threads: int,
    seats: list[int],
    record: str | os.PathLike[str] | None,
    walls: int,
    chunk: int | None,
    parts: list[dict[str, npt.NDArray[Any]]],
    stopped: Callable[[], bool],
    report: Callable[[], None] | None,
) -> None:
    """The local native arena, into ``parts``: deals in calls of about a
    quarter of a second (``chunk`` deals when given), until done or
    ``stopped()``. Recording, each call's decisions are kept until they
    make a shard per table of at least half ``ARENA_CHUNK`` deals (of
    ``chunk`` deals when given), so a slow agent's short calls make no
    small shards, and held rows never exceed ``ARENA_CHUNK`` deals. The
    dataset's manifest (``chunks.arena_recording``) lists each
    shard once written and says ``"complete": false`` until the last
    deal's are, so a run stopped anywhere leaves exactly the finished
    shards listed."""
    from koudian import cluster

    record_dir = cluster.make_record_dir(record)
    recording, tables = chunks.arena_recording(
        record_dir, r, labels, names, fmt, seed, deals, seats
    )
    shard = chunk or chunks.ARENA_CHUNK // 2
    held: list[list[dict[str, Any] | None]] = []
    held_from = 0
    done = 0
    interrupted = False

    def flush() -> None:
        nonlocal held, held_from
        if recording is not None and record_dir is not None and held:
            entries = chunks.write_tables(record_dir, held_from, names, labels, fmt, held)
            # Listed once written whole: the manifest names only them.
            recording.add([(entries, held_from * tables, (done - held_from) * tables)])
        held, held_from = [], done

    most = shard if record_dir else None
    completed = False
    try:
        try:
            for start, n in timed_chunks(deals, FIRST_DEALS, chunk=chunk, most=most):
                if record_dir is None:
                    recs = chunks.play_deals(
                        r, names, labels, fmt, start, n, seed, threads, seats, None, walls
                    )[0]
                else:
                    recs, decisions = chunks.play_tables(
                        r, names, fmt, start, n, seed, threads, seats, walls
                    )
                    held.append(decisions)
                parts.append(recs)
                done = start + n
                if done - held_from >= shard:
                    flush()
                if report is not None:
                    report()
                if stopped():
                    break
        except KeyboardInterrupt:  # a second Ctrl-C: the dataset is still made whole
            interrupted = True
        flush()
        completed = done == deals
    finally:
        # Also on an error: the manifest lists the shards written, partial.
        if recording is not None:
            recording.close(completed)
    if interrupted:
        raise KeyboardInterrupt


def python_deals(
    rules: Ruleset,
    specs: Sequence[AgentSpec],
    labels: list[str],
    deals: range,
    seed: int,
    fmt: str,
    timeout: float,
    walls: int = 0,
    stopped: Callable[[], bool] = lambda: False,
) -> Generator[tuple[dict[str, npt.NDArray[Any]], list[ArenaFault]]]:
    """The arena of any agents (Python, ``cmd:``), one deal at a time
    through the core's arena (``koudian._core.arena_agents``: its game
    loop, seeds, records and luck of the wall, ``walls``), on this
    thread: each deal's records and its agents' faults. Once
    ``stopped()`` (Ctrl-C) no deal is started: every deal given is whole.
    The agents are closed when the generator is."""
    agents: list[Agent] = [make_agent(s, timeout=timeout, seat=i) for i, s in enumerate(specs)]
    layout = table_entries(labels, fmt)
    seated = [loop_agent(a) for a in agents]
    try:
        for d in deals:
            if stopped():
                return
            recs, faults = arena_agents(
                rules, seated, labels, 1, seed=seed, start=d, format=fmt, walls=walls
            )
            deal_faults = []
            for hand, raw in faults:
                f = from_core(raw)
                table = hand % len(layout)
                deal_faults.append(ArenaFault(hand // len(layout), table, layout[table][f.seat], f))
            yield recs, deal_faults
    finally:
        for a in agents:
            close = getattr(a, "close", None)
            if close is not None:
                close()
