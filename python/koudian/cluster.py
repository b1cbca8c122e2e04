"""Self-play and the arena on a Ray cluster: ``koudian simulate --cluster
ray``, ``koudian arena --cluster ray``, ``backend="ray"`` in
``koudian.simulate`` and ``koudian.arena`` (extra ``koudian[ray]``).

The games ``0 .. hands`` (an arena's deals) are split by index into Ray
tasks of guided length: each takes ``1 / (2 * CPUs)`` of what is left, so
the first tasks are long (few tasks, little scheduling) and the last ones
one step each (2,000 games, or ``chunk``), and every CPU finishes at
about the same time, each taking the next range as it frees up. The
tasks are spread over the nodes (``SPREAD``), each runs the core's
native loop on one thread with the GIL released, game ``i`` dealt from
``mix_seed(seed, i)`` exactly as a local run deals it, and returns one
compact value (one array a column). The driver joins them in game
order, so the summary (integer totals, the same 95% intervals computed
from the same deltas), the logs and the dataset rows are those of the
local run, whatever the number of nodes and tasks; an arena's records
come back whole, so its paired statistics are computed from every
deal's per-deal difference, exactly as locally.

Where results go:

- summaries, arena records and logs come back to the driver as task
  results (logs are written to ``log`` in game order);
- a dataset (``record=DIR``) is written by the tasks themselves, one
  Parquet shard per step of games named by its first game
  (``part-<first game>.parquet``; an arena's per table,
  ``koudian.arena.chunks``), so ``DIR`` must be a path every node sees
  (NFS, a mounted bucket, or one machine); the driver lists the shards
  in ``_manifest.json`` as they are written (``koudian.dataset.Recording``,
  ``"complete": false`` until the run ends) and writes ``_metadata`` at
  the end.

Each task also reports each chunk's shards to the progress actor as it
writes them (a recording run always has the actor), and the driver lists
them as they come, so the manifest lists the shards written so far, not
only those of the tasks that have returned. A run stopped by Ctrl-C or
by a task that fails for good cancels the tasks not finished (their
workers are killed, and waited for) and leaves a partial dataset
listing the shards finished and reported (a report lost with a killed
worker leaves its shard on disk, not listed, so not read). Ctrl-C in
``run`` raises ``SimulationInterrupted`` with the hands ``0 .. n`` of the
tasks that returned (their summaries come back with them): the dataset
may hold more hands (its manifest's ``hands``).

A task whose worker dies is retried by Ray (``max_retries``); a retry
replays the same games and overwrites the same shard files (each written
to a temporary name and renamed), so no game is lost or counted twice.
``SimulationResult.retried_tasks`` (``ArenaResult.retried_tasks``) says
how many tasks needed a retry (each task returns its attempt number).
The driver's progress bar is fed by the tasks through one small Ray
actor per driver, made on the first run that shows progress (its worker
process takes a second to start; no task waits for it).

On a real cluster: start it (``ray up cluster.yaml`` on a cloud, or
KubeRay's ``RayCluster`` on Kubernetes), install the same koudian version
on every node (the image, or ``runtime_env={"pip": ["koudian"]}``), then
run ``RAY_ADDRESS=ray://HEAD:10001 koudian simulate --cluster ray ...``
or ``--cluster ray:HEAD:6379`` on the head node. A task costs a few
milliseconds of scheduling and the games are independent, so the run
scales with the cluster's CPUs: about the per-core native rate times the
number of CPUs (docs/datasets.md has the measured figures, and why
``RAY_worker_niceness=0`` matters on shared machines). The tests'
two-node cluster runs on 127.0.0.1 only; docs/datasets.md ("The test
cluster") says how, for a local cluster of your own.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from koudian._core import KoudianError, Ruleset, simulate_native
from koudian._extras import install_hint

if TYPE_CHECKING:  # pragma: no cover
    from koudian.simulation_result import SimulationResult

__all__ = ["KILL_ENV", "ArenaStopped", "parse_backend", "run", "run_arena"]

KILL_ENV = "KOUDIAN_RAY_TEST_KILL"
"""Test hook: when set to a game index on the driver, the task whose
range starts there kills its worker process (``os._exit``) after playing
its first chunk (and reporting it, with its shards, to the progress
actor when there is one), on its first attempt only, so that Ray retries
it."""

_TASKS_PER_CPU = 4
"""A short run's step is cut so that it makes this many tasks per CPU."""
_GUIDE = 2
"""Guided ranges: each takes ``1 / (_GUIDE * cpus)`` of what is left."""
_MAX_RETRIES = 3
_POLL_SECONDS = 0.2
_STOP_SECONDS = 10.0
"""After Ctrl-C or a failure, how long the driver waits for the cancelled
tasks' workers to be gone (so that none writes into the dataset after the
partial manifest), at most."""


def parse_backend(backend: str) -> str | None:
    """The Ray address of ``backend``: ``"ray"`` gives None (a local Ray,
    or the cluster ``RAY_ADDRESS`` names), ``"ray:ADDRESS"`` the address."""
    if backend == "ray":
        return None
    if backend.startswith("ray:") and len(backend) > 4:
        return backend[4:]
    raise KoudianError(f"backend must be 'local', 'ray' or 'ray:ADDRESS', got {backend!r}")


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise KoudianError(f"backend='ray' needs Ray: {install_hint('ray')}") from None
    return ray


def _connect(ray: Any, address: str | None) -> None:
    if ray.is_initialized():
        return
    ray.init(
        address=address,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
    )


def _make_progress_actor(ray: Any) -> Any:
    @ray.remote(num_cpus=0)
    class Progress:
        """Games done and attempts per task of each run (a retry starts
        again at 0), and the shards written, as each chunk's are."""

        def __init__(self) -> None:
            self.done: dict[tuple[int, int], int] = {}
            self.attempts: dict[tuple[int, int], int] = {}
            self.shards: dict[int, list[Any]] = {}

        def start(self, run: int, task: int) -> int:
            self.attempts[run, task] = self.attempts.get((run, task), 0) + 1
            return self.attempts[run, task]

        def report(self, run: int, task: int, done: int, shards: Any = None) -> None:
            # A retry reports from 0 again: the furthest report counts.
            self.done[run, task] = max(self.done.get((run, task), 0), done)
            if shards is not None:
                self.shards.setdefault(run, []).append(shards)

        def written(self, run: int, since: int) -> list[Any]:
            """The ``(start, n, entries)`` of the chunks written, from the
            ``since``-th reported on."""
            return self.shards.get(run, [])[since:]

        def total(self, run: int) -> int:
            return sum(d for (r, _), d in self.done.items() if r == run)

        def forget(self, run: int) -> None:
            self.done = {k: v for k, v in self.done.items() if k[0] != run}
            self.attempts = {k: v for k, v in self.attempts.items() if k[0] != run}
            self.shards.pop(run, None)

    return Progress.remote()  # type: ignore[attr-defined]


_ACTORS: dict[tuple[str, str], Any] = {}
"""The progress actor of this driver, by (node, job): made once and kept
for the driver's later runs, as its worker process takes a second or
more to start (a new actor a run cost that on every run)."""

_RUNS = itertools.count()


def _progress_actor(ray: Any) -> Any:
    context = ray.get_runtime_context()
    key = (context.get_node_id(), context.get_job_id())
    if key not in _ACTORS:
        _ACTORS.clear()
        _ACTORS[key] = _make_progress_actor(ray)
    return _ACTORS[key]


def _join(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Column dicts joined in order: arrays concatenated, lists chained."""
    out: dict[str, Any] = {}
    for k, v in parts[0].items():
        if isinstance(v, np.ndarray):
            out[k] = np.concatenate([p[k] for p in parts])
        else:
            out[k] = [x for p in parts for x in p[k]]
    return out


def _simulate_work(
    at: int,
    m: int,
    rules: Ruleset,
    names: list[str],
    labels: list[str],
    seed: int,
    record: str | None,
    seats: list[int],
    logs: bool,
) -> tuple[dict[str, Any], list[dict[str, Any]], bytes | None]:
    """Games ``at .. at + m`` of a simulate task: summary, shard entries
    (the shard written to ``record``), log bytes."""
    if record is None and not logs:
        # The plain native loop: no recorder to feed.
        return simulate_native(rules, names, m, seed=seed, threads=1, start=at), [], None
    from koudian._native_play import play_chunk
    from koudian.dataset import write_shard

    summary, decisions, text = play_chunk(
        rules, names, at, m, seed, 1, seats if record else None, logs
    )
    entries = []
    if record is not None and decisions is not None:
        entries.append(write_shard(record, at, decisions, labels, hands=m))
    return summary, entries, text


def _arena_work(
    at: int,
    m: int,
    rules: Ruleset,
    names: list[str],
    labels: list[str],
    fmt: str,
    seed: int,
    record: str | None,
    seats: list[int],
    walls: int = 0,
) -> tuple[dict[str, Any], list[dict[str, Any]], bytes | None]:
    """Deals ``at .. at + m`` of an arena task: records, shard entries."""
    from koudian.arena.chunks import play_deals

    recs, entries = play_deals(
        rules, names, labels, fmt, at, m, seed, 1, seats if record else None, record, walls
    )
    return recs, entries, None


Work = Callable[..., tuple[dict[str, Any], list[dict[str, Any]], bytes | None]]
Chunk = tuple[int, int, list[dict[str, Any]]]
"""A chunk's shards: its first game (deal), its games (deals), the
shards' manifest entries."""


def _task(
    work: Work,
    task: int,
    start: int,
    n: int,
    chunk: int,
    args: tuple[Any, ...],
    progress: Any,
    run: int,
    kill_at: int | None,
    ray_counts: bool,
) -> tuple[dict[str, Any], list[dict[str, Any]], bytes | None, int]:
    """One Ray task: ``work`` on the chunks of ``chunk`` games (deals) of
    ``start .. start + n``, its results joined into one compact value
    (one array a column, the logs one bytes object), and which attempt
    at the task this was (1, or more for a retry). ``progress`` (the
    progress actor, or None) gets the games done after each chunk, and
    the chunk's shard entries (so that a run stopped while this task
    runs lists the shards it finished)."""
    import ray

    attempt = _attempt(ray) if ray_counts else None
    # Where Ray does not tell the attempt, the actor counts them: asked
    # now, read when needed, so the task does not wait for it.
    ticket = progress.start.remote(run, task) if attempt is None else None

    def number() -> int:
        return attempt + 1 if attempt is not None else int(ray.get(ticket))

    cols, entries, texts = [], [], []
    for at in range(start, start + n, chunk):
        m = min(chunk, start + n - at)
        part, shards, text = work(at, m, *args)
        cols.append(part)
        entries += shards
        if text is not None:
            texts.append(text)
        report = None
        if progress is not None:
            listing = (at, m, shards) if shards else None
            report = progress.report.remote(run, task, at + m - start, listing)
        if kill_at == start and number() == 1:
            if report is not None:
                ray.get(report)  # the test hook dies once its chunk is reported
            os._exit(1)
    return _join(cols), entries, b"".join(texts) if texts else None, number()


def _attempt(ray: Any) -> int:
    """The running task's attempt, 0 the first (Ray's core worker)."""
    return int(ray._private.worker.global_worker.core_worker.get_current_task_attempt_number())


def _ray_counts_attempts(ray: Any) -> bool:
    """Whether this Ray's core worker tells a task its attempt number
    (else the progress actor counts the attempts)."""
    core = ray._private.worker.global_worker.core_worker
    return hasattr(core, "get_current_task_attempt_number")


def _plan(
    total: int, cpus: int, tasks: int | None, chunk: int | None, default: int
) -> tuple[list[tuple[int, int]], int]:
    """The tasks' ranges ``(start, n)`` of ``0 .. total`` and the ``step``
    of games (deals) played per call, every range starting at a multiple
    of it (so the shards are those of a local run). ``tasks`` ranges of
    equal length when given; else guided: each range a ``1 / (_GUIDE *
    cpus)`` share of what is left, so the first ranges are long (few
    tasks, little scheduling) and the last ones a step each (the CPUs
    finish together, each taking the next range as it frees up)."""
    if tasks is not None:
        per = max(1, -(-total // max(1, tasks)))
        step = chunk or min(default, per)
        per = max(step, -(-per // step) * step)
        return [(s, min(per, total - s)) for s in range(0, total, per)], step
    step = chunk or min(default, max(1, -(-total // (_TASKS_PER_CPU * cpus))))
    ranges: list[tuple[int, int]] = []
    at = 0
    while at < total:
        size = -(-(total - at) // (_GUIDE * cpus))
        size = min(-(-size // step) * step, total - at)
        ranges.append((at, size))
        at += size
    return ranges, step


def _map(
    ray: Any,
    work: Work,
    args: tuple[Any, ...],
    total: int,
    tasks: int | None,
    chunk: int | None,
    default_chunk: int,
    on_progress: Callable[[int, list[Any]], None] | None,
    on_result: Callable[[int, int, Any], None] | None = None,
    on_shards: Callable[[list[Chunk]], None] | None = None,
) -> tuple[list[tuple[dict[str, Any], list[dict[str, Any]], bytes | None, int]], int]:
    """Runs ``work`` over ``0 .. total`` as Ray tasks; their results in
    order, and how many tasks were retried. ``on_progress(done, results)``
    is called as the run goes with the games (deals) done, from the
    tasks' reports, and the results of the tasks finished (None for the
    others); ``on_result(start, n, result)`` as each task's result
    arrives; ``on_shards(chunks)`` with ``(start, n, entries)``, the
    shards written of the games (deals) ``start .. start + n``, as each
    chunk's are reported (the progress actor's ``written``; those of a
    poll together) and as each task returns (the same shard may come
    twice; once a task's result has given it, no report does again). On
    any exception (Ctrl-C, a task failed for good) the finished tasks'
    results and the chunks reported are still given to them and the
    other tasks cancelled before it is raised (``_stop``)."""
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    ranges, step = _plan(total, cpus, tasks, chunk, default_chunk)
    kill = os.environ.get(KILL_ENV)
    kill_at = int(kill) if kill else None
    # The actor only for a progress bar, a recording (which lists each
    # chunk's shards as it is reported), or to count attempts where Ray
    # does not: its worker process takes a second to start.
    counts = _ray_counts_attempts(ray)
    wanted = on_progress is not None or on_shards is not None or not counts
    actor = _progress_actor(ray) if wanted else None
    run = next(_RUNS)
    # SPREAD: with the default policy the tasks queued on the driver's
    # node as its leases came back, while the other node's CPU sat idle
    # (half a second at the end of a 7-second run on the test cluster).
    remote = ray.remote(num_cpus=1, max_retries=_MAX_RETRIES, scheduling_strategy="SPREAD")(_task)
    # The arguments (a ruleset, names, a path: under a kilobyte) go inline
    # in each task's spec: no object-store fetch before a task can start.
    refs = [
        remote.remote(work, i, s, n, step, args, actor, run, kill_at, counts)
        for i, (s, n) in enumerate(ranges)
    ]
    index = {ref: i for i, ref in enumerate(refs)}
    results: list[Any] = [None] * len(refs)
    pending = list(refs)

    # The shards the tasks' results gave: a late report of an earlier
    # attempt's (a retry rewrote the file) must not replace their entries.
    final: set[str] = set()

    def finish(ref: Any) -> None:
        i = index[ref]
        results[i] = ray.get(ref)
        if on_result is not None:
            on_result(*ranges[i], results[i])
        if on_shards is not None:
            final.update(e["file"] for e in results[i][1])
            on_shards([(*ranges[i], results[i][1])])

    seen = 0
    asked: Any = None

    def written(wait: float) -> bool:
        """Lists the chunks reported since the last call, if the actor
        answers within ``wait`` seconds (not waited for in the loop);
        whether it did."""
        nonlocal seen, asked
        if on_shards is None or actor is None:
            return True
        if asked is None:
            asked = actor.written.remote(run, seen)
        ready, _ = ray.wait([asked], timeout=wait)
        if not ready:
            return False
        new, asked = ray.get(asked), None
        seen += len(new)
        fresh = [c for c in new if not any(e["file"] in final for e in c[2])]
        if fresh:
            on_shards(fresh)
        return True

    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1, timeout=_POLL_SECONDS)
            for ref in ready:
                finish(ref)
            written(0)
            if on_progress is not None and actor is not None:
                done = total if not pending else int(ray.get(actor.total.remote(run), timeout=60))
                on_progress(done, results)
    except BaseException:
        _stop(ray, pending, finish, written)
        raise
    finally:
        if actor is not None:
            actor.forget.remote(run)
    return results, sum(1 for r in results if r[3] > 1)


def _stop(
    ray: Any,
    pending: list[Any],
    finish: Callable[[Any], None],
    written: Callable[[float], bool],
) -> None:
    """A run stopped (Ctrl-C, a failed task): the tasks that have finished
    are kept (``finish``: their shards get listed), the others cancelled
    and their workers killed; waited for, up to ``_STOP_SECONDS``, so
    that no task is left writing into the dataset or using the cluster's
    CPUs for a run no one will read; then the chunks the tasks reported
    before they stopped are listed (``written``: a report lost with its
    killed worker leaves its shards on disk, not listed)."""
    try:
        _cancel(ray, pending, finish)
    finally:
        # The answer asked for in the loop, then one asked for now.
        for _ in range(2):
            try:
                if not written(_STOP_SECONDS):
                    break  # the actor does not answer: what was listed stays
            except ray.exceptions.RayError:
                break  # the actor is gone: the same


def _cancel(ray: Any, pending: list[Any], finish: Callable[[Any], None]) -> None:
    """``_stop``'s tasks: the finished ones kept, the others cancelled and
    waited for."""
    if not pending:
        return
    # Finished ones, wherever their results are (not fetched here first).
    ready, rest = ray.wait(pending, num_returns=len(pending), timeout=0, fetch_local=False)
    # Cancelled first: listing the finished ones may fail as the run did
    # (a manifest that cannot be written), and must not keep them going.
    for ref in rest:
        ray.cancel(ref, force=True)
    try:
        for ref in ready:
            try:
                finish(ref)
            except ray.exceptions.RayError:
                pass  # a task that failed: nothing of it to list
    finally:
        if rest:
            ray.wait(rest, num_returns=len(rest), timeout=_STOP_SECONDS, fetch_local=False)


def make_record_dir(record: str | os.PathLike[str] | None) -> str | None:
    """The dataset directory as every task sees it (absolute), made; one
    that already holds a dataset is refused (``koudian.dataset.prepare``)."""
    if record is None:
        return None
    from koudian.dataset import prepare, require_pyarrow

    require_pyarrow()
    prepare(record)
    return str(Path(record).resolve())


def _clean(record_dir: str) -> None:
    # A killed attempt may leave its temporary file behind.
    for stale in Path(record_dir).glob(".part-*.tmp"):
        stale.unlink(missing_ok=True)


def run(
    rules: Ruleset,
    labels: list[str],
    names: list[str],
    hands: int,
    *,
    seed: int,
    backend: str = "ray",
    log: IO[str] | None = None,
    progress: Callable[[int], None] | None = None,
    chunk: int | None = None,
    record: str | os.PathLike[str] | None = None,
    record_seats: Sequence[int] = (0, 1, 2, 3),
    tasks: int | None = None,
) -> SimulationResult:
    """``koudian.simulate`` of built-in agents ``names`` on Ray (see the
    module's documentation): a ``SimulationResult`` equal to the local
    run's, with ``retried_tasks`` set. ``tasks=N`` makes ``N`` tasks of
    equal length instead of the guided ones; ``chunk`` is the games per
    native call (and per shard)."""
    from koudian._native_play import RECORD_CHUNK
    from koudian.logs import write_log
    from koudian.simulation_result import SimulationInterrupted, concat_parts

    address = parse_backend(backend)  # refused before Ray is imported
    ray = _ray()
    _connect(ray, address)
    t0 = time.perf_counter()
    record_dir = make_record_dir(record)
    recording = None
    if record_dir is not None:
        from koudian.dataset import Recording

        recording = Recording(record_dir, rules, labels, seed, hands, record_seats)
    finished: dict[int, tuple[int, Any]] = {}
    shown = 0

    def on_progress(done: int, results: list[Any]) -> None:
        nonlocal shown
        if progress is not None and done > shown:
            progress(done - shown)
            shown = done

    def on_result(start: int, n: int, result: Any) -> None:
        finished[start] = n, result

    def on_shards(chunks: list[Chunk]) -> None:
        if recording is not None:
            recording.add([(entries, start, n) for start, n, entries in chunks])

    args = (rules, names, labels, seed, record_dir, list(record_seats), log is not None)
    completed = False
    try:
        try:
            results, retried = _map(
                ray,
                _simulate_work,
                args,
                hands,
                tasks,
                chunk,
                RECORD_CHUNK,
                on_progress if progress is not None else None,
                on_result,
                on_shards if recording is not None else None,
            )
            completed = True
        except KeyboardInterrupt:
            # As a local run: the hands 0 .. n that finished, whose shards
            # the partial manifest counts, and their logs.
            results, _ = _prefix(finished)
            retried = sum(1 for _, r in finished.values() if r[3] > 1)
        if log is not None:
            for _, _, text, _ in results:
                if text is not None:
                    write_log(log, text)
    finally:
        if recording is not None:
            assert record_dir is not None
            _clean(record_dir)
            recording.close(completed)
    result = concat_parts([r[0] for r in results], labels)
    result.seconds = time.perf_counter() - t0
    result.retried_tasks = retried
    if not completed:
        result.family = str(rules.family)
        result.requested = hands
        result.interrupted = True
        raise SimulationInterrupted(result)
    return result


def _prefix(finished: dict[int, tuple[int, Any]]) -> tuple[list[Any], int]:
    """The results of the finished tasks (by first game or deal: games or
    deals, result) that follow one another from 0, and the games (deals)
    ``0 .. n`` they hold."""
    out, at = [], 0
    while at in finished:
        n, result = finished[at]
        out.append(result)
        at += n
    return out, at


class ArenaStopped(KeyboardInterrupt):
    """``run_arena`` was interrupted (Ctrl-C): a ``KeyboardInterrupt``
    carrying ``records``, those of the deals ``0 .. deals`` of the tasks
    that returned (None if none did), for the caller to report; the
    dataset, if any, is left partial."""

    def __init__(self, records: dict[str, Any] | None, deals: int) -> None:
        super().__init__(f"interrupted after {deals} deals")
        self.records = records
        self.deals = deals


def run_arena(
    rules: Ruleset,
    labels: list[str],
    names: list[str],
    fmt: str,
    deals: int,
    *,
    seed: int,
    backend: str = "ray",
    progress: Callable[[dict[str, Any]], None] | None = None,
    chunk: int | None = None,
    record: str | os.PathLike[str] | None = None,
    record_seats: Sequence[int] = (0, 1, 2, 3),
    tasks: int | None = None,
    walls: int = 0,
) -> tuple[dict[str, Any], int]:
    """``koudian.arena`` of built-in agents ``names`` on Ray, split by
    deal range: the records of every deal in deal order (so every
    statistic, the paired per-deal differences included, is the local
    run's) and the number of tasks retried. ``progress`` is called, as
    each task finishes, with the records of every finished task's deals,
    numbered ``0 ..`` in order (the running estimate of a smaller arena).
    ``walls`` takes the luck of the wall out as the local run does."""
    from koudian.arena.chunks import ARENA_CHUNK, arena_recording

    address = parse_backend(backend)  # refused before Ray is imported
    ray = _ray()
    _connect(ray, address)
    record_dir = make_record_dir(record)
    recording, tables = arena_recording(
        record_dir, rules, labels, names, fmt, seed, deals, record_seats
    )
    shown = 0

    def on_progress(done: int, results: list[Any]) -> None:
        nonlocal shown
        finished = [r[0] for r in results if r is not None]
        if len(finished) > shown and progress is not None:
            shown = len(finished)
            recs = _join(finished)
            # The statistics pair rows by deal only: numbered 0.. in order,
            # the finished deals make a complete smaller arena.
            recs["deal"] = np.unique(recs["deal"], return_inverse=True)[1].astype(np.uint64)
            progress(recs)

    finished: dict[int, tuple[int, Any]] = {}

    def on_result(start: int, n: int, result: Any) -> None:
        finished[start] = n, result

    def on_shards(chunks: list[Chunk]) -> None:
        # Deals start .. start + n hold the hands of ids start * tables ..
        # (start + n) * tables, every table's.
        if recording is not None:
            recording.add([(e, start * tables, n * tables) for start, n, e in chunks])

    args = (rules, names, labels, fmt, seed, record_dir, list(record_seats), walls)
    completed = False
    try:
        results, retried = _map(
            ray,
            _arena_work,
            args,
            deals,
            tasks,
            chunk,
            ARENA_CHUNK,
            on_progress if progress is not None else None,
            on_result,
            on_shards if recording is not None else None,
        )
        completed = True
    except KeyboardInterrupt:
        done, n = _prefix(finished)
        raise ArenaStopped(_join([r[0] for r in done]) if done else None, n) from None
    finally:
        if recording is not None:
            assert record_dir is not None
            _clean(record_dir)
            recording.close(completed)
    return _join([r[0] for r in results]), retried
