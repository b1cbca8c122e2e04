//! `koudian._core._bench.time_batch`: the "Rust core" line of `koudian
//! bench`, off the public surface. It times one
//! core batch function inside Rust on rows already converted, so that the
//! figure leaves out the Python call, the argument conversion and the
//! per-row error reporting that the numpy batch functions add.
//! `time_env` times `VecEnv` steps so, for the row writer's lines of
//! `koudian bench --env`.

use crate::batch::{as_counts, counts_array};
use crate::errors::to_py;
use crate::ruleset::resolve;
use crate::vec_env::{dtype_of, Dtype};
use crate::wildcards::extract_wilds;
use koudian_core::game::encode::{Cell, Encoding};
use koudian_core::shape::ShapeRules;
use koudian_core::simd::{self, Isa};
use koudian_core::tile::Counts;
use koudian_core::vec_env::{Learners, OnIllegal, Rows, VecEnv};
use koudian_core::{shanten, shape, waits, Ruleset};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::hint::black_box;
use std::time::Instant;

/// Seconds that the core's `{task}_batch` (task `"is_win"`, `"waits"` or
/// `"shanten"`) takes on one thread over `counts` (an `(N, 34)` `uint8`
/// array, no melds), timed in Rust with the GIL released.
///
/// `isa` forces the kernels' instruction set for the call (`"scalar"`,
/// `"avx2"`, `"avx512"`, `"neon"`; `None`: the process's choice); a path
/// this CPU lacks is a `KoudianError`.
///
/// With `copies = k > 1`, `k` such one-thread calls run at once on `k`
/// threads, each over its own copy of the rows and into its own output,
/// and the time is until the last ends: independent work with nothing
/// shared, the ceiling of what `threads=k` can reach on this machine at
/// that moment.
#[pyfunction]
#[pyo3(signature = (task, counts, *, wildcards=None, rules=None, copies=1, isa=None))]
#[allow(clippy::too_many_arguments)]
fn time_batch(
    py: Python<'_>,
    task: &str,
    counts: &Bound<'_, PyAny>,
    wildcards: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = crate::ints::copies)] copies: usize,
    isa: Option<&str>,
) -> PyResult<f64> {
    let isa = isa_of(isa)?;
    if !(1..=64).contains(&copies) {
        return Err(PyValueError::new_err(format!(
            "copies must be 1 to 64, got {copies}"
        )));
    }
    let arr = counts_array(counts)?;
    let rows = as_counts(arr.as_slice()?);
    let wilds = extract_wilds(wildcards)?;
    let shape = ShapeRules::from(&resolve(py, rules)?);
    let n = rows.len();
    // Every timed call (the copies' threads too) runs on `isa`.
    let on = |f: &mut dyn FnMut() -> Result<(), koudian_core::Error>| {
        simd::with_isa(isa, f).and_then(|r| r)
    };
    // Each copy reads rows of its own (the first the caller's), as the
    // halves of one input `threads=k` splits are each read once: with the
    // rows shared, one copy's cache misses served the other's, which
    // raised the ceiling of calls whose rows outgrow the caches (`is_win`
    // on 1,000,000 rows: 34 MB) above what independent work reaches.
    let owned: Vec<Vec<Counts>> = (1..copies).map(|_| rows.to_vec()).collect();
    let input = |i: usize| if i == 0 { rows } else { &owned[i - 1][..] };
    let r = match task {
        "is_win" => time_into(py, n, copies, false, |i, o| {
            on(&mut || shape::is_win_batch(input(i), &[0], &wilds, &shape, o, 1))
        }),
        "waits" => time_into(py, n, copies, 0u64, |i, o| {
            on(&mut || waits::waits_batch(input(i), &[0], &[], &wilds, &shape, o, 1))
        }),
        "shanten" => time_into(py, n, copies, 0i8, |i, o| {
            on(&mut || shanten::shanten_batch(input(i), &[0], &wilds, &shape, o, 1))
        }),
        _ => {
            return Err(PyValueError::new_err(format!(
                "task must be 'is_win', 'waits' or 'shanten', got {task:?}"
            )))
        }
    };
    r.map_err(to_py)
}

/// The path `isa` names (`None`: the process's choice).
fn isa_of(isa: Option<&str>) -> PyResult<Isa> {
    match isa {
        None => simd::isa().map_err(to_py),
        Some(name) => Isa::from_name(name).ok_or_else(|| {
            let names = Isa::ALL.map(|i| format!("'{}'", i.name())).join(", ");
            PyValueError::new_err(format!("isa must be one of {names}, got {name:?}"))
        }),
    }
}

/// Seconds that `steps` steps of a self-play `VecEnv` of `num_envs`
/// tables (`rules`, seed 1, one thread, the first legal action of each
/// table) take, writing encoding `version` in `dtype` (`"uint8"`,
/// `"float32"`), timed in Rust with the GIL released: the row writer's
/// line of `koudian bench --env`. The env is built, reset and stepped
/// 3 times before the clock starts, so that every call times the same
/// positions. `isa` forces the row writer's instruction set (as in
/// `time_batch`).
#[pyfunction]
#[pyo3(signature = (num_envs, steps, *, version=2, dtype="uint8", rules=None, isa=None))]
fn time_env(
    py: Python<'_>,
    num_envs: usize,
    steps: usize,
    version: u32,
    dtype: &str,
    rules: Option<&Bound<'_, PyAny>>,
    isa: Option<&str>,
) -> PyResult<f64> {
    let isa = isa_of(isa)?;
    let enc = Encoding::from_version(version).map_err(to_py)?;
    let rules = resolve(py, rules)?;
    let r = match dtype_of(dtype)? {
        Dtype::U8 => py.detach(|| env_secs::<u8>(&rules, num_envs, steps, enc, isa)),
        Dtype::F32 => py.detach(|| env_secs::<f32>(&rules, num_envs, steps, enc, isa)),
    };
    r.map_err(to_py)
}

/// [`time_env`] in Rust, for one value type.
fn env_secs<T: Cell>(
    rules: &Ruleset,
    n: usize,
    steps: usize,
    enc: Encoding,
    isa: Isa,
) -> Result<f64, koudian_core::Error> {
    let mut env = VecEnv::new(rules, n, Learners::All, "greedy", 1, 1, enc)?;
    let mut rows = Rows::<T>::new(n, enc);
    // Every page of the arrays written once before the clock starts: the
    // final rows of a hand are first written when it ends, and a fresh
    // page's fault would be timed.
    rows.final_obs.fill(T::of(1));
    let mut actions = vec![0i64; n];
    simd::with_isa(isa, || {
        env.reset(None, &mut rows.buffers())?;
        let mut t = Instant::now();
        for k in 0..3 + steps {
            if k == 3 {
                t = Instant::now();
            }
            rows.first_legal(&mut actions);
            env.step(&actions, OnIllegal::Error, &mut rows.buffers())?;
        }
        let secs = t.elapsed().as_secs_f64();
        black_box(&rows.obs);
        Ok(secs)
    })?
}

/// Seconds `copies` runs of `run` at once take (`run(i, out)` for copy
/// `i`), each filling its own output of `n` slots (allocated and written
/// before the clock starts), with the GIL released.
fn time_into<T: Clone + Send>(
    py: Python<'_>,
    n: usize,
    copies: usize,
    zero: T,
    run: impl Fn(usize, &mut [T]) -> Result<(), koudian_core::Error> + Send + Sync,
) -> Result<f64, koudian_core::Error> {
    let mut outs = vec![vec![zero.clone(); n]; copies];
    // Written before the clock, so that the timed calls find their pages
    // mapped, as `threads=2` finds its kept `out=` array: fresh pages
    // faulted in by two threads at once wait on the process's page
    // tables, which made the ceiling of the short calls (`is_win`,
    // `shanten`: a few milliseconds) lower than `threads=2` itself.
    // `black_box`: the compiler knows a fresh allocation is zero.
    for x in outs.iter_mut().flatten() {
        *x = black_box(zero.clone());
    }
    py.detach(|| {
        let (first, rest) = outs.split_first_mut().expect("copies >= 1");
        let run = &run;
        let t = Instant::now();
        let r = std::thread::scope(|s| {
            let others: Vec<_> = rest
                .iter_mut()
                .enumerate()
                .map(|(i, o)| s.spawn(move || run(i + 1, o)))
                .collect();
            let mine = run(0, first);
            others
                .into_iter()
                .map(|h| h.join().expect("a timed batch call panicked"))
                .fold(mine, Result::and)
        });
        let secs = t.elapsed().as_secs_f64();
        black_box(&outs);
        r.map(|()| secs)
    })
}

/// The instruction set each batch question and the env's row writer
/// (`"vec_env"`) run on in this process
/// (`{"is_win": "avx512", "waits": "avx512", ...}`: the process's choice,
/// `KOUDIAN_SIMD` or the best the CPU has, where the task has kernels for
/// it), for `koudian bench` to name. An unusable `KOUDIAN_SIMD` is a
/// `KoudianError`.
#[pyfunction]
fn kernels() -> PyResult<Vec<(&'static str, &'static str)>> {
    simd::KERNELS
        .iter()
        .map(|&(task, _)| {
            let isa = simd::kernel_isa(task).map_err(to_py)?;
            Ok((task, isa.map_or("scalar", Isa::name)))
        })
        .collect()
}

/// The instruction sets this CPU can run, slowest first.
#[pyfunction]
fn available() -> Vec<&'static str> {
    Isa::ALL
        .into_iter()
        .filter(|i| i.available())
        .map(Isa::name)
        .collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(time_batch, m)?)?;
    m.add_function(wrap_pyfunction!(time_env, m)?)?;
    m.add_function(wrap_pyfunction!(kernels, m)?)?;
    m.add_function(wrap_pyfunction!(available, m)?)?;
    Ok(())
}
