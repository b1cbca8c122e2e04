//! Shanten (向听数): `shanten` and `shanten_batch` (0 = ready, −1 =
//! complete).

use crate::batch::{as_counts, out_array, BatchArgs};
use crate::errors::to_py;
use crate::hand::extract_hand;
use crate::ruleset::resolve;
use crate::wildcards::extract_wilds;
use koudian_core::legal::{self, HandRules};
use numpy::{Ix1, PyArray1};
use pyo3::prelude::*;

/// Shanten of a 13- or 14-tile hand (melds counting 3) over the shapes the
/// ruleset allows: the shape distance (Sichuan's 缺一门 is not counted),
/// after the `no_honors` check (`koudian_core::legal`).
#[pyfunction]
#[pyo3(signature = (hand, *, melds = None, wildcards = None, rules = None))]
fn shanten(
    py: Python<'_>,
    hand: &Bound<'_, PyAny>,
    melds: Option<&Bound<'_, PyAny>>,
    wildcards: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<i8> {
    let h = extract_hand(hand, melds)?;
    let wilds = extract_wilds(wildcards)?;
    let rules = HandRules::from(&resolve(py, rules)?);
    legal::shanten(&h, &wilds, &rules).map_err(to_py)
}

/// `shanten` over every row of an `(N, 34)` uint8 count array: `(N,)` int8,
/// written into `out` when given.
#[pyfunction]
#[pyo3(signature = (counts, *, n_melds = None, wildcards = None, rules = None, threads = 1, out = None))]
fn shanten_batch<'py>(
    py: Python<'py>,
    counts: &Bound<'py, PyAny>,
    n_melds: Option<&Bound<'py, PyAny>>,
    wildcards: Option<&Bound<'py, PyAny>>,
    rules: Option<&Bound<'py, PyAny>>,
    #[pyo3(from_py_with = crate::ints::threads)] threads: usize,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray1<i8>>> {
    let a = BatchArgs::extract(py, counts, n_melds, wildcards, rules)?;
    let (out, mut rw) = out_array(py, out, Ix1(a.rows), "shape (N,) and dtype int8", &[counts])?;
    {
        let data = a.counts.as_slice()?;
        let slots = rw.as_slice_mut()?;
        py.detach(|| {
            koudian_core::batch::shanten_batch(
                as_counts(data),
                a.n_melds.as_slice(),
                &a.wilds,
                &a.rules,
                slots,
                threads,
            )
        })
        .map_err(to_py)?;
    }
    drop(rw);
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(shanten, m)?)?;
    m.add_function(wrap_pyfunction!(shanten_batch, m)?)?;
    Ok(())
}
