"""Seeded benchmark hands and the ``koudian bench`` measurements.

The same hands feed ``koudian bench``, the pytest-benchmark files in
``benches/`` and the peers (riichienv, xiangting, mahjong), each given the
hands in its own native input format, prepared before timing.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "Measurement",
    "host_summary",
    "kernel_summary",
    "make_counts",
    "peer_inputs",
    "run_bench",
    "tiles_of",
]

#: The method of the host-ceiling case: two one-thread core calls at once.
HOST_PAIR = "Rust core batch, 2 calls at once"

#: The method of the baseline of the SIMD kernels: the core batch forced
#: onto the scalar path (the x86-64-v2 code every CPU runs).
SCALAR_PATH = "Rust core batch, scalar path"

#: Wild kinds used by the wildcard benchmarks (白, and 白 + 中).
WILDS: dict[int, tuple[int, ...]] = {0: (), 1: (31,), 2: (31, 33)}


def _winning_hand(rng: random.Random, honors: bool = True) -> list[int]:
    """A random complete hand: 4 sets + a pair, at most 4 of a kind."""
    kinds = 34 if honors else 27
    while True:
        counts = [0] * 34
        pair = rng.randrange(kinds)
        counts[pair] += 2
        for _ in range(4):
            if rng.random() < 0.6:
                suit, rank = rng.randrange(3), rng.randrange(7)
                for k in range(3):
                    counts[suit * 9 + rank + k] += 1
            else:
                counts[rng.randrange(kinds)] += 3
        if max(counts) <= 4:
            return counts


def _random_hand(rng: random.Random, size: int) -> list[int]:
    """``size`` tiles drawn without replacement from a 136-tile wall."""
    counts = [0] * 34
    for t in rng.sample(range(136), size):
        counts[t // 4] += 1
    return counts


def make_counts(
    n: int, *, size: int = 14, seed: int = 2024, win_fraction: float = 0.5
) -> npt.NDArray[np.uint8]:
    """``n`` seeded hands as an ``(n, 34)`` uint8 count array.

    For ``size == 14`` a ``win_fraction`` of them are built as 4 sets + a
    pair (wins without wildcards) and the rest are random draws from the
    wall; for ``size == 13`` each of those loses one random tile, so about
    that fraction is ready.
    """
    import numpy as np

    rng = random.Random(seed)
    out = np.zeros((n, 34), dtype=np.uint8)
    for i in range(n):
        c = _winning_hand(rng) if rng.random() < win_fraction else _random_hand(rng, 14)
        if size == 13:
            held = [k for k in range(34) if c[k]]
            c[rng.choice(held)] -= 1
        out[i] = c
    return out


def tiles_of(counts: Iterable[int]) -> tuple[int, ...]:
    """The tile kinds (ints) of one count row, in index order."""
    return tuple(k for k, n in enumerate(counts) for _ in range(int(n)))


def _ids136(kinds: Sequence[int]) -> list[int]:
    seen = [0] * 34
    out = []
    for k in kinds:
        out.append(k * 4 + seen[k])
        seen[k] += 1
    return out


def peer_inputs(counts: npt.NDArray[np.uint8]) -> dict[str, list[Any]]:
    """Each peer's native input for every row: riichienv takes 136-format
    tile ids, xiangting and mahjong take 34-count lists."""
    rows = [tiles_of(r) for r in counts]
    return {
        "koudian": rows,
        "riichienv": [_ids136(r) for r in rows],
        "counts": [list(map(int, r)) for r in counts],
    }


@dataclass(frozen=True)
class _Timed:
    """A case's own timing (seconds), measured inside the engine."""

    seconds: float


@dataclass
class Measurement:
    """One throughput figure."""

    task: str
    engine: str
    method: str
    rate: float
    """Hands per second, in the case's best round."""
    round_rates: tuple[float, ...] = ()
    """Hands per second in each round, in order (every case runs once a
    round, so the same round of two cases ran moments apart)."""

    def row(self, baseline: float | None) -> str:
        ratio = f"{self.rate / baseline:7.2f}x" if baseline else "        "
        return (
            f"{self.task:<16} {self.engine:<10} {self.method:<33} "
            f"{self.rate / 1e6:9.3f} M/s {ratio}"
        )


def _progress(
    schedule: list[tuple[int, int]], enabled: bool, names: list[str]
) -> Iterator[tuple[int, int]]:
    if not enabled:
        yield from schedule
        return
    try:
        from tqdm import tqdm  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        for n, item in enumerate(schedule, 1):
            print(f"  [{n}/{len(schedule)}] round {item[0] + 1}: {names[item[1]]}", flush=True)
            yield item
        return
    yield from tqdm(schedule, desc="bench", unit="case", leave=False)


def _peer_cases(
    task: str, counts: npt.NDArray[np.uint8]
) -> list[tuple[str, str, str, Callable[[], object], int]]:
    """The installed peers' calls on the no-wildcard hands."""
    inputs = peer_inputs(counts)
    n = len(counts)
    cases: list[tuple[str, str, str, Callable[[], object], int]] = []
    try:
        import riichienv  # type: ignore[import-untyped, import-not-found, unused-ignore]

        ids = inputs["riichienv"]
        if task in ("is_win", "shanten"):
            sh = riichienv.calculate_shanten
            cases.append((task, "riichienv", "calculate_shanten", lambda: [sh(h) for h in ids], n))
        elif task == "waits":
            ev = riichienv.HandEvaluator
            cases.append(
                (
                    task,
                    "riichienv",
                    "HandEvaluator.get_waits",
                    lambda: [ev(h).get_waits() for h in ids],
                    n,
                )
            )
    except ImportError:
        pass
    try:
        import xiangting  # type: ignore[import-untyped, import-not-found, unused-ignore]

        cs = inputs["counts"]
        four = xiangting.PlayerCount.FOUR
        if task in ("is_win", "shanten"):
            rn = xiangting.calculate_replacement_number
            cases.append(
                (
                    task,
                    "xiangting",
                    "calculate_replacement_number",
                    lambda: [rn(c, four) for c in cs],
                    n,
                )
            )
        elif task == "waits":
            nt = xiangting.calculate_necessary_tiles
            cases.append(
                (
                    task,
                    "xiangting",
                    "calculate_necessary_tiles",
                    lambda: [nt(c, four) for c in cs],
                    n,
                )
            )
    except ImportError:
        pass
    if task == "is_win":
        try:
            from mahjong.agari import Agari  # type: ignore[import-untyped, import-not-found, unused-ignore]

            agari = Agari()
            cs = inputs["counts"]
            cases.append(
                (task, "mahjong", "Agari.is_agari", lambda: [agari.is_agari(c) for c in cs], n)
            )
        except ImportError:
            pass
    return cases


def _cpu_model() -> str | None:
    """The CPU's model name from ``/proc/cpuinfo`` (Linux), else None."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def host_summary() -> str:
    """One line naming the machine, read before a run: CPU model, the CPUs
    this process may use, the load average and the versions measured.

    Absolute rates move with the host (this project's machines have
    differed by 2× from one day to the next), so a printed rate is only
    comparable with another under the same line; the same-run ratios are
    what compare across hosts.
    """
    import os
    import platform

    import numpy as np

    import koudian

    model = _cpu_model() or platform.processor() or platform.machine() or "unknown CPU"
    if hasattr(os, "sched_getaffinity"):
        cpus = len(os.sched_getaffinity(0))
    else:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    try:
        load = "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except (AttributeError, OSError):  # pragma: no cover - Windows
        load = "load average unknown"
    return (
        f"host: {model}, {cpus} CPUs, {load}; Python {platform.python_version()},"
        f" numpy {np.__version__}, koudian {koudian.__version__}"
    )


def kernel_summary() -> str:
    """One line naming the instruction set each batch question runs on in
    this process (``KOUDIAN_SIMD`` or the best this CPU has, where the
    question has kernels for it) and the sets this CPU has."""
    from koudian import _core

    kernels = ", ".join(f"{task} {isa}" for task, isa in _core._bench.kernels())
    return f"kernels: {kernels} (this CPU: {', '.join(_core._bench.available())})"


def _kernel_isa(task: str) -> str:
    from koudian import _core

    return dict(_core._bench.kernels()).get(task, "scalar")


def run_bench(
    n: int = 100_000,
    *,
    peers: bool = False,
    repeat: int = 3,
    progress: bool = True,
    tasks: Sequence[str] = ("is_win", "waits", "shanten"),
) -> list[Measurement]:
    """Measures koudian (and, with ``peers``, the installed peers) on the
    same seeded hands in one run; returns hands/second per case."""
    import numpy as np

    import koudian

    h14 = make_counts(n, size=14)
    h13 = make_counts(n, size=13)
    cases: list[tuple[str, str, str, Callable[[], object], int]] = []
    for task in tasks:
        counts = h14 if task == "is_win" else h13
        rows = [tiles_of(r) for r in counts]
        single = getattr(koudian, task, None)
        batch = getattr(koudian, f"{task}_batch", None)
        if single is None or batch is None:
            continue
        for w, wilds in WILDS.items():
            label = f"{task} ({w} wild)"

            def one(f: Any = single, rs: list[Any] = rows, ws: Any = wilds) -> object:
                if not ws:  # the plain call users make without wildcards
                    return [f(r) for r in rs]
                return [f(r, wildcards=ws) for r in rs]

            cases.append((label, "koudian", "single calls (tuple of ints)", one, n))
            # The answers go to one kept array (`out=`), as in a loop of
            # batch calls: a fresh array's new pages cost the calling
            # thread up to a third of a waits batch on a virtual machine
            # (and are faulted in by both threads with threads=2), which
            # is the OS's cost, not the batch's.
            proto = batch(counts[:1], wildcards=wilds)
            out = np.zeros((n, *proto.shape[1:]), proto.dtype)
            for threads in (1, 2):

                def many(
                    f: Any = batch, c: Any = counts, ws: Any = wilds, t: int = threads, o: Any = out
                ) -> object:
                    return f(c, wildcards=ws, threads=t, out=o)

                cases.append((label, "koudian", f"numpy batch, threads={threads}", many, n))

            def core(t: str = task, c: Any = counts, ws: Any = wilds) -> object:
                return _Timed(koudian._core._bench.time_batch(t, c, wildcards=ws))

            cases.append((label, "koudian", "Rust core batch, timed in Rust", core, n))
            if _kernel_isa(task) != "scalar":
                # Today's scalar code in the same run: the kernel's baseline.
                def scalar(t: str = task, c: Any = counts, ws: Any = wilds) -> object:
                    return _Timed(koudian._core._bench.time_batch(t, c, wildcards=ws, isa="scalar"))

                cases.append((label, "koudian", SCALAR_PATH, scalar, n))
            if w == 0:
                # The host's ceiling for threads=2 in this run: two
                # independent one-thread calls at once.
                def pair(t: str = task, c: Any = counts) -> object:
                    return _Timed(koudian._core._bench.time_batch(t, c, copies=2))

                cases.append((label, "koudian", HOST_PAIR, pair, 2 * n))
        if peers:
            cases.extend(
                (f"{task} (0 wild)", e, m, f, k) for (_, e, m, f, k) in _peer_cases(task, counts)
            )
    # Warm-up, untimed: preset loading, lazily built tables and the thread
    # pool must not land in the first timed round.
    for task in tasks:
        single = getattr(koudian, task, None)
        batch = getattr(koudian, f"{task}_batch", None)
        if single is None or batch is None:
            continue
        counts = h14 if task == "is_win" else h13
        for wilds in WILDS.values():
            for row in counts[:50]:
                single(tiles_of(row), wildcards=wilds)
            for threads in (1, 2):
                batch(counts[:4096], wildcards=wilds, threads=threads)
    times = round_times(
        [c[3] for c in cases], repeat, progress, [c[0] + " / " + c[1] for c in cases]
    )
    return [
        Measurement(label, engine, method, k / min(ts), tuple(k / t for t in ts))
        for (label, engine, method, _, k), ts in zip(cases, times, strict=True)
    ]


def best_times(
    runs: Sequence[Callable[[], object]],
    repeat: int,
    progress: bool = False,
    labels: Sequence[str] = (),
) -> list[float]:
    """The best of ``repeat`` timings of each run (``round_times``)."""
    return [min(ts) for ts in round_times(runs, repeat, progress, labels)]


def round_times(
    runs: Sequence[Callable[[], object]],
    repeat: int,
    progress: bool = False,
    labels: Sequence[str] = (),
) -> list[list[float]]:
    """``repeat`` timings of each run (seconds, one per round, in order),
    in interleaved rounds; a run returning a ``_Timed`` reports its own
    time."""
    # Rounds are interleaved (every case once per round) so that load
    # changing over time on a shared machine hits every case alike and the
    # ratios stay fair; the same round of neighbouring cases ran moments
    # apart, which pairs them. Every other round runs the cases in reverse,
    # so that neither of two neighbours always goes first (a case may
    # leave the machine warmer or busier for the next).
    times: list[list[float]] = [[] for _ in runs]
    order = range(len(runs))
    schedule = [(r, i) for r in range(repeat) for i in (order if r % 2 == 0 else reversed(order))]
    for _, i in _progress(schedule, progress, list(labels) or [""] * len(runs)):
        t0 = time.perf_counter()
        r = runs[i]()
        t1 = time.perf_counter()
        times[i].append(r.seconds if isinstance(r, _Timed) else t1 - t0)
        # Freed here, off the clock. Kept until the next run's result
        # replaced it, a run's answers (a million single-call results) were
        # freed inside the next run's timing: up to 70 ms on a 90 ms
        # waits batch, which made threads=2 / threads=1 look better.
        del r
    return times


def report(results: list[Measurement]) -> str:
    """A table; ratios are against riichienv's per-call rate on the same
    task and hands when measured, else koudian's single calls."""
    lines = [
        f"{'task':<16} {'engine':<10} {'method':<33} {'rate':>13} {'ratio':>8}",
        "-" * 85,
    ]
    base_by_task: dict[str, float] = {}
    for m in results:
        if m.engine == "riichienv":
            base_by_task[m.task.split(" ")[0]] = m.rate
    for m in results:
        task = m.task.split(" ")[0]
        base = base_by_task.get(task)
        if base is None:
            base = next(
                (
                    r.rate
                    for r in results
                    if r.task == m.task and r.engine == "koudian" and r.method.startswith("single")
                ),
                None,
            )
        lines.append(m.row(base))
    lines.extend(_kernels(results))
    lines.extend(_scaling(results))
    return "\n".join(lines)


def _kernels(results: list[Measurement]) -> list[str]:
    """The kernel lines: each case's core batch (on the process's
    instruction set) over the same batch forced onto the scalar path,
    measured in the same run."""
    case = {(m.task, m.method): m for m in results if m.engine == "koudian"}
    out: list[str] = []
    for m in results:
        if m.engine != "koudian" or m.method != SCALAR_PATH:
            continue
        core = case.get((m.task, "Rust core batch, timed in Rust"))
        if core is None:
            continue
        isa = _kernel_isa(m.task.split(" ")[0])
        out.append(
            f"{m.task:<16} {isa} kernel / scalar path: {core.rate / m.rate:5.2f}x"
            f" best, {paired_ratio(core, m):5.2f}x by round"
        )
    if out:
        out.insert(0, "")
        out.insert(1, "SIMD kernels (same run): the core batch over the same on the scalar path")
    return out


def paired_ratio(a: Measurement, b: Measurement) -> float:
    """The median over rounds of ``a``'s rate over ``b``'s in the same
    round: each round's two runs met the same load on a shared machine,
    where the ratio of the best rounds may pair a quiet moment with a busy
    one. The ratio of the best rates when a round is missing."""
    if not a.round_rates or len(a.round_rates) != len(b.round_rates):
        return a.rate / b.rate
    return statistics.median(x / y for x, y in zip(a.round_rates, b.round_rates, strict=True))


def _scaling(results: list[Measurement]) -> list[str]:
    """The thread-scaling lines: each task's ``threads=2`` rate over its
    ``threads=1`` rate, beside the host's ceiling measured in the same run
    (two independent one-thread core calls at once over one such call);
    each as the ratio of the best rounds and as the median of the rounds'
    own ratios (``paired_ratio``)."""
    case = {(m.task, m.method): m for m in results if m.engine == "koudian"}
    out: list[str] = []
    for m in results:
        if m.engine != "koudian" or m.method != "numpy batch, threads=2":
            continue
        one = case.get((m.task, "numpy batch, threads=1"))
        if one is None:
            continue
        line = (
            f"{m.task:<16} threads=2 / threads=1: {m.rate / one.rate:5.2f}x"
            f" best, {paired_ratio(m, one):5.2f}x by round"
        )
        core = case.get((m.task, "Rust core batch, timed in Rust"))
        pair = case.get((m.task, HOST_PAIR))
        if core and pair:
            line += (
                f"   (host ceiling, 2 calls at once / 1 call: {pair.rate / core.rate:5.2f}x"
                f" best, {paired_ratio(pair, core):5.2f}x by round)"
            )
        out.append(line)
    if out:
        out.insert(0, "")
        out.insert(
            1,
            "thread scaling (same run): best = the best rounds' rates,"
            " by round = the median of each round's own ratio",
        )
    return out
