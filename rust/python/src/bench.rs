//! `_time_batch`: the "Rust core" line of `koudian bench`. It times one
//! core batch function inside Rust on rows already converted, so that the
//! figure leaves out the Python call, the argument conversion and the
//! per-row error reporting that the numpy batch functions add.

use crate::batch::{as_counts, counts_array};
use crate::errors::to_py;
use crate::ruleset::resolve;
use crate::wildcards::extract_wilds;
use koudian_core::shape::ShapeRules;
use koudian_core::{shanten, shape, waits};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::hint::black_box;
use std::time::Instant;

/// Seconds that the core's `{task}_batch` (task `"is_win"`, `"waits"` or
/// `"shanten"`) takes on one thread over `counts` (an `(N, 34)` `uint8`
/// array, no melds), timed in Rust with the GIL released.
#[pyfunction]
#[pyo3(signature = (task, counts, *, wildcards=None, rules=None))]
fn _time_batch(
    py: Python<'_>,
    task: &str,
    counts: &Bound<'_, PyAny>,
    wildcards: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<f64> {
    let arr = counts_array(counts)?;
    let rows = as_counts(arr.as_slice()?);
    let wilds = extract_wilds(wildcards)?;
    let shape = ShapeRules::from(&resolve(py, rules)?);
    let n = rows.len();
    let r = match task {
        "is_win" => time_into(py, n, false, |o| {
            shape::is_win_batch(rows, &[0], &wilds, &shape, o, 1)
        }),
        "waits" => time_into(py, n, 0u64, |o| {
            waits::waits_batch(rows, &[0], &[], &wilds, &shape, o, 1)
        }),
        "shanten" => time_into(py, n, 0i8, |o| {
            shanten::shanten_batch(rows, &[0], &wilds, &shape, o, 1)
        }),
        _ => {
            return Err(PyValueError::new_err(format!(
                "task must be 'is_win', 'waits' or 'shanten', got {task:?}"
            )))
        }
    };
    r.map_err(to_py)
}

/// Seconds `run` takes to fill an output of `n` slots (allocated before
/// the clock starts), with the GIL released.
fn time_into<T: Clone + Send>(
    py: Python<'_>,
    n: usize,
    zero: T,
    run: impl FnOnce(&mut [T]) -> Result<(), koudian_core::Error> + Send,
) -> Result<f64, koudian_core::Error> {
    let mut out = vec![zero; n];
    py.detach(|| {
        let t = Instant::now();
        run(&mut out)?;
        let secs = t.elapsed().as_secs_f64();
        black_box(&out);
        Ok(secs)
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_time_batch, m)?)?;
    Ok(())
}
