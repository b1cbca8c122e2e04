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
    let timed = |run: &mut dyn FnMut() -> Result<(), koudian_core::Error>| {
        let t = Instant::now();
        run().map(|()| t.elapsed().as_secs_f64())
    };
    let r = match task {
        "is_win" => {
            let mut out = vec![false; n];
            py.detach(|| {
                timed(&mut || shape::is_win_batch(rows, &[0], &wilds, &shape, &mut out, 1))
            })
            .inspect(|_| {
                black_box(&out);
            })
        }
        "waits" => {
            let mut out = vec![0u64; n];
            py.detach(|| {
                timed(&mut || waits::waits_batch(rows, &[0], &[], &wilds, &shape, &mut out, 1))
            })
            .inspect(|_| {
                black_box(&out);
            })
        }
        "shanten" => {
            let mut out = vec![0i8; n];
            py.detach(|| {
                timed(&mut || shanten::shanten_batch(rows, &[0], &wilds, &shape, &mut out, 1))
            })
            .inspect(|_| {
                black_box(&out);
            })
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "task must be 'is_win', 'waits' or 'shanten', got {task:?}"
            )))
        }
    };
    r.map_err(to_py)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_time_batch, m)?)?;
    Ok(())
}
