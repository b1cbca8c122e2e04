"""The batch questions under each instruction-set path, forced by
``KOUDIAN_SIMD`` in a fresh interpreter (the variable is read once per
process): every path this CPU has gives the scalar path's answers, the
scalar path (the x86-64-v2 code, what a CPU without AVX2 runs) names
itself, and a path the CPU lacks or an unknown name is refused with a
clear error rather than an illegal instruction or a silent fallback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import koudian
import pytest
from koudian import _core

#: Runs every batch on seeded hands (valid and invalid rows, 0-2 wild
#: kinds, per-row melds, held tiles, 1 and 2 threads) and steps VecEnvs
#: (every encoding and dtype, 1 and 2 threads), and prints the
#: instruction set of each kernel (is_win, waits, shanten, the VecEnv row
#: writer) and a digest of every answer and output.
SCRIPT = """
import hashlib, sys
import numpy as np
import koudian
import koudian
from koudian import _core
from koudian._bench import make_counts

h = hashlib.sha256()
rng = np.random.default_rng(40)
for size, fn in ((14, koudian.is_win_batch), (13, koudian.waits_batch),
                 (13, koudian.shanten_batch)):
    counts = make_counts(30_011, size=size, seed=size)
    for wilds in ((), (31,), (8, 33), (0, 27)):
        for threads in (1, 2):
            out = fn(counts, wildcards=wilds, threads=threads)
            h.update(np.ascontiguousarray(out).tobytes())
    if fn is koudian.waits_batch:
        # Held tiles (melds' copies): the 4-copy limit per row.
        extra = (rng.random(counts.shape) < 0.05).astype(np.uint8)
        held = np.minimum(counts + extra, 4).astype(np.uint8)
        for wilds in ((), (31,), (8, 33)):
            h.update(fn(counts, wildcards=wilds, held=held).tobytes())
    if size == 14:
        # Invalid rows: an error naming the first, the same on every path.
        bad = counts.copy()
        bad[rng.integers(0, len(bad), 50), rng.integers(0, 34, 50)] = 5
        try:
            fn(bad)
        except koudian.KoudianError as e:
            h.update(str(e).encode())
        melds = rng.integers(0, 2, len(counts)).astype(np.uint8)
        try:
            h.update(fn(counts, n_melds=melds).tobytes())
        except koudian.KoudianError as e:
            h.update(str(e).encode())
# The VecEnv row writer: observations (every encoding, both dtypes),
# masks and the rest of each step's outputs over self-play steps.
for version, dtype in ((1, "float32"), (2, "uint8"), (2, "float32"), (3, "uint8"), (3, "float32")):
    for threads in (1, 2):
        env = koudian.VecEnv("shanxi", 133, seed=version, threads=threads, obs_dtype=dtype,
                             encoding=version)
        out = env.reset()
        for _ in range(25 if version == 3 else 80):
            *arrays, info = out
            ended = info["_final_obs"]
            arrays += [env.action_masks(), info["final_obs"][ended], info["to_act"]]
            for a in arrays + [info["final_deltas"][ended], info["fault"]]:
                h.update(np.ascontiguousarray(a).tobytes())
            out = env.step(env.action_masks().argmax(1))
print(",".join(isa for _, isa in _core._bench.kernels()), h.hexdigest())
"""


def _run(simd: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("KOUDIAN_SIMD", None)
    if simd is not None:
        env["KOUDIAN_SIMD"] = simd
    # The koudian under test (the installed wheel in CI), never the checkout's.
    src = str(Path(koudian.__file__).resolve().parents[1])
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def scalar_digest() -> str:
    r = _run("scalar")
    assert r.returncode == 0, r.stderr
    isas, digest = r.stdout.split()
    # The fallback path of every kernel: what a CPU without AVX2
    # (x86-64-v2) runs.
    assert isas == "scalar,scalar,scalar,scalar"
    return digest


#: The paths beyond the scalar one: x86-64's, then aarch64's (a CPU has
#: its own architecture's at most).
KERNEL_PATHS = ("avx2", "avx512", "neon")


@pytest.mark.parametrize("path", [*KERNEL_PATHS, "auto", None])
def test_every_path_this_cpu_has_answers_as_the_scalar_path(
    path: str | None, scalar_digest: str
) -> None:
    if path in KERNEL_PATHS and path not in _core._bench.available():
        r = _run(path)
        assert r.returncode != 0
        assert f"KOUDIAN_SIMD={path}: this CPU lacks" in r.stderr, r.stderr
        return
    r = _run(path)
    assert r.returncode == 0, r.stderr
    isas, digest = r.stdout.split()
    want = path if path in KERNEL_PATHS else _core._bench.available()[-1]
    # is_win, waits, shanten and the VecEnv row writer each on the path
    # (the row writer has no NEON path: its scalar code on aarch64).
    writer = "scalar" if want == "neon" else want
    assert isas == ",".join([want] * 3 + [writer])
    assert digest == scalar_digest


def test_an_unknown_path_is_refused_naming_the_variable() -> None:
    r = _run("sse9")
    assert r.returncode != 0
    assert "KoudianError" in r.stderr and "KOUDIAN_SIMD" in r.stderr, r.stderr
    assert "expected one of scalar, avx2, avx512, neon, auto" in r.stderr


def test_forced_paths_time_the_same_answers_in_process() -> None:
    from koudian._bench import make_counts

    counts = make_counts(5000, size=14)
    for isa in _core._bench.available():
        assert _core._bench.time_batch("is_win", counts, isa=isa) > 0.0
        for task in ("waits", "shanten"):
            assert _core._bench.time_batch(task, make_counts(5000, size=13), isa=isa) > 0.0
    with pytest.raises(ValueError, match="isa must be"):
        _core._bench.time_batch("is_win", counts, isa="sse9")
    for isa in _core._bench.available():
        for version, dtype in ((1, "float32"), (2, "uint8"), (3, "float32")):
            assert _core._bench.time_env(9, 5, version=version, dtype=dtype, isa=isa) > 0.0
    with pytest.raises(ValueError, match="isa must be"):
        _core._bench.time_env(9, 5, isa="sse9")
    missing = [i for i in KERNEL_PATHS if i not in _core._bench.available()]
    # No CPU has them all: x86-64's or aarch64's are missing.
    assert missing
    for isa in missing:
        with pytest.raises(_core.KoudianError, match="lacks"):
            _core._bench.time_batch("is_win", counts, isa=isa)
        with pytest.raises(_core.KoudianError, match="lacks"):
            _core._bench.time_env(9, 5, isa=isa)


def _bench(simd: str) -> str:
    """``koudian bench`` on a few hands of waits and shanten with
    ``KOUDIAN_SIMD=simd``, in a fresh interpreter; its output."""
    env = dict(os.environ)
    env["KOUDIAN_SIMD"] = simd
    src = str(Path(koudian.__file__).resolve().parents[1])
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    args = ["bench", "--hands", "300", "--repeat", "1", "--quiet", "--task", "waits"]
    r = subprocess.run(
        [sys.executable, "-m", "koudian", *args, "--task", "shanten"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize("path", ["scalar", *KERNEL_PATHS])
def test_bench_names_the_instruction_set_of_each_kernel(path: str) -> None:
    if path not in _core._bench.available():
        pytest.skip(f"this CPU lacks {path}")
    out = _bench(path)
    line = next(x for x in out.splitlines() if x.startswith("kernels: "))
    writer = "scalar" if path == "neon" else path
    assert line.startswith(
        f"kernels: is_win {path}, waits {path}, shanten {path}, vec_env {writer} (this CPU: "
    )
    kernels = [x for x in out.splitlines() if "kernel / scalar path:" in x]
    if path == "scalar":
        # The fallback is its own baseline: no kernel lines.
        assert kernels == []
    else:
        # Each question and wild count: the kernel over the scalar path.
        assert len(kernels) == 6
        for task in ("waits", "shanten"):
            for w in range(3):
                case = f"{task} ({w} wild)"
                assert any(x.startswith(case) and f" {path} kernel" in x for x in kernels)
