"""Self-play on a Ray cluster: ``koudian simulate --cluster ray`` and
``koudian.simulate(..., backend="ray")`` (extra ``koudian[ray]``).

The games ``0 .. hands`` are split by game index into Ray tasks (about
four per CPU of the cluster, or ``chunk`` games each); each task runs the
core's native simulate on one thread with the GIL released, game ``i``
dealt from ``mix_seed(seed, i)`` exactly as a local run deals it. The
driver joins the tasks' per-game arrays in game order, so the summary
(integer totals, the same 95% intervals computed from the same deltas),
the logs and the dataset rows are those of the local run, whatever the
number of nodes and tasks.

Where results go:

- summaries and logs come back to the driver as task results (logs are
  written to ``log`` in game order);
- a dataset (``record=DIR``) is written by the tasks themselves, one
  Parquet shard per chunk of games named by its first game
  (``part-<first game>.parquet``), so ``DIR`` must be a path every node
  sees (NFS, a mounted bucket, or one machine); the driver then writes
  ``_manifest.json`` and ``_metadata``.

A task whose worker dies is retried by Ray (``max_retries``); a retry
replays the same games and overwrites the same shard files (each written
to a temporary name and renamed), so no game is lost or counted twice.
``SimulationResult.retried_tasks`` says how many tasks needed a retry. The
driver's progress bar is fed by the tasks through a small Ray actor.

On a real cluster: start it (``ray up cluster.yaml`` on a cloud, or
KubeRay's ``RayCluster`` on Kubernetes), install the same koudian version
on every node (the image, or ``runtime_env={"pip": ["koudian"]}``), then
run ``RAY_ADDRESS=ray://HEAD:10001 koudian simulate --cluster ray ...``
or ``--cluster ray:HEAD:6379`` on the head node. A task costs a few
milliseconds of scheduling and the games are independent, so the run
scales with the cluster's CPUs: about the per-core native rate times the
number of CPUs, less one task's length at the end (docs/datasets.md has
the measured figures, and why ``RAY_worker_niceness=0`` matters on shared
machines).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from koudian._core import KoudianError, Ruleset

if TYPE_CHECKING:  # pragma: no cover
    from koudian.simulation import SimulationResult

__all__ = ["KILL_ENV", "parse_backend", "run"]

KILL_ENV = "KOUDIAN_RAY_TEST_KILL"
"""Test hook: when set to a game index on the driver, the task whose
range starts there kills its worker process (``os._exit``) after playing
its first chunk, on its first attempt only, so that Ray retries it."""

_TASKS_PER_CPU = 4
_MAX_RETRIES = 3
_POLL_SECONDS = 0.2


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
        raise KoudianError("backend='ray' needs Ray: pip install 'koudian[ray]'") from None
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
        """Games done and attempts per task (a retry starts again at 0)."""

        def __init__(self) -> None:
            self.done: dict[int, int] = {}
            self.attempts: dict[int, int] = {}

        def start(self, task: int) -> int:
            self.attempts[task] = self.attempts.get(task, 0) + 1
            return self.attempts[task]

        def report(self, task: int, done: int) -> None:
            # A retry reports from 0 again: the furthest report counts.
            self.done[task] = max(self.done.get(task, 0), done)

        def total(self) -> int:
            return sum(self.done.values())

        def retried(self) -> int:
            return sum(1 for a in self.attempts.values() if a > 1)

    return Progress.remote()  # type: ignore[attr-defined]


def _task(
    task: int,
    rules: Ruleset,
    names: list[str],
    labels: list[str],
    start: int,
    n: int,
    seed: int,
    chunk: int,
    record: str | None,
    seats: list[int] | None,
    logs: bool,
    progress: Any,
    kill_at: int | None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[bytes]]:
    """One Ray task: games ``start .. start + n`` in chunks of ``chunk``,
    each chunk's shard written to ``record``."""
    import ray

    from koudian.dataset import write_shard
    from koudian.simulation import play_chunk

    attempt = ray.get(progress.start.remote(task))
    summaries, entries, texts = [], [], []
    for at in range(start, start + n, chunk):
        m = min(chunk, start + n - at)
        summary, decisions, text = play_chunk(
            rules, names, at, m, seed, 1, seats if record else None, logs
        )
        summaries.append(summary)
        if record is not None and decisions is not None:
            entries.append(write_shard(record, at, decisions, labels))
        if text is not None:
            texts.append(text)
        progress.report.remote(task, at + m - start)
        if kill_at == start and attempt == 1:
            os._exit(1)
    return summaries, entries, texts


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
    run's, with ``retried_tasks`` set. ``tasks`` overrides the number of
    tasks (default: four per CPU of the cluster)."""
    from koudian.simulation import _RECORD_CHUNK, _concat, write_log

    address = parse_backend(backend)
    ray = _ray()
    _connect(ray, address)
    t0 = time.perf_counter()
    if tasks is None:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        tasks = _TASKS_PER_CPU * cpus
    per_task = max(1, -(-hands // max(1, tasks)))
    step = chunk or min(_RECORD_CHUNK, per_task)
    per_task = max(step, -(-per_task // step) * step)
    record_dir = None
    if record is not None:
        from koudian.dataset import _pyarrow

        _pyarrow()
        Path(record).mkdir(parents=True, exist_ok=True)
        record_dir = str(Path(record).resolve())
    kill = os.environ.get(KILL_ENV)
    kill_at = int(kill) if kill else None
    actor = _make_progress_actor(ray)
    remote = ray.remote(num_cpus=1, max_retries=_MAX_RETRIES)(_task)
    rules_ref = ray.put(rules)
    starts = list(range(0, hands, per_task))
    refs = [
        remote.remote(
            i,
            rules_ref,
            names,
            labels,
            s,
            min(per_task, hands - s),
            seed,
            step,
            record_dir,
            list(record_seats),
            log is not None,
            actor,
            kill_at,
        )
        for i, s in enumerate(starts)
    ]
    index = {ref: i for i, ref in enumerate(refs)}
    results: list[Any] = [None] * len(refs)
    pending = list(refs)
    shown = 0
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=len(pending), timeout=_POLL_SECONDS)
            for ref in ready:
                results[index[ref]] = ray.get(ref)
            if progress is not None:
                done = hands if not pending else int(ray.get(actor.total.remote(), timeout=60))
                if done > shown:
                    progress(done - shown)
                    shown = done
        retried = int(ray.get(actor.retried.remote(), timeout=60))
    finally:
        ray.kill(actor)
    parts = [s for r in results for s in r[0]]
    entries = [e for r in results for e in r[1]]
    if log is not None:
        for r in results:
            for text in r[2]:
                write_log(log, text)
    if record_dir is not None:
        from koudian.dataset import write_manifest

        # A killed attempt may leave its temporary file behind.
        for stale in Path(record_dir).glob(".part-*.tmp"):
            stale.unlink(missing_ok=True)
        write_manifest(record_dir, rules, labels, seed, hands, record_seats, entries)
    result = _concat(parts, labels)
    result.seconds = time.perf_counter() - t0
    result.retried_tasks = retried
    return result
