//! Waits (听口, docs/rules.md §2 "Waits and ready"): `waits`, `wait_points`,
//! `waits_batch`.

use crate::batch::{as_counts, count_rows, out_array, BatchArgs};
use crate::errors::to_py;
use crate::hand::extract_sized_hand;
use crate::ruleset::resolve;
use crate::tiles::{tile_list, tile_obj};
use crate::wildcards::extract_wilds;
use koudian_core::legal::{self, HandRules};
use koudian_core::tile::KINDS;
use koudian_core::waits as core_waits;
use numpy::{Ix2, PyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

fn compute(
    py: Python<'_>,
    hand: &Bound<'_, PyAny>,
    melds: Option<&Bound<'_, PyAny>>,
    wildcards: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<core_waits::Waits> {
    let h = extract_sized_hand(hand, melds, false)?;
    let wilds = extract_wilds(wildcards)?;
    let rules = HandRules::from(&resolve(py, rules)?);
    legal::waits(&h, &wilds, &rules).map_err(to_py)
}

/// The kinds that complete a hand one tile short (`13 - 3 × melds`).
#[pyfunction]
#[pyo3(signature = (hand, *, melds = None, wildcards = None, rules = None))]
fn waits<'py>(
    py: Python<'py>,
    hand: &Bound<'py, PyAny>,
    melds: Option<&Bound<'py, PyAny>>,
    wildcards: Option<&Bound<'py, PyAny>>,
    rules: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let w = compute(py, hand, melds, wildcards, rules)?;
    tile_list(py, w.tiles())
}

/// Each wait with its points (a wild wait: the best kind it can stand for).
#[pyfunction]
#[pyo3(signature = (hand, *, melds = None, wildcards = None, rules = None))]
fn wait_points<'py>(
    py: Python<'py>,
    hand: &Bound<'py, PyAny>,
    melds: Option<&Bound<'py, PyAny>>,
    wildcards: Option<&Bound<'py, PyAny>>,
    rules: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let w = compute(py, hand, melds, wildcards, rules)?;
    let d = PyDict::new(py);
    for (t, p) in w.iter() {
        d.set_item(tile_obj(py, t)?, p)?;
    }
    Ok(d)
}

/// `waits` over every row of an `(N, 34)` uint8 count array: an `(N, 34)`
/// bool array, `True` where the kind is a wait, written into `out` when
/// given.
#[pyfunction]
#[pyo3(signature = (counts, *, n_melds = None, wildcards = None, rules = None, threads = 1, held = None, out = None))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
fn waits_batch<'py>(
    py: Python<'py>,
    counts: &Bound<'py, PyAny>,
    n_melds: Option<&Bound<'py, PyAny>>,
    wildcards: Option<&Bound<'py, PyAny>>,
    rules: Option<&Bound<'py, PyAny>>,
    #[pyo3(from_py_with = crate::ints::threads)] threads: usize,
    held: Option<&Bound<'py, PyAny>>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray2<bool>>> {
    let a = BatchArgs::extract(py, counts, n_melds, wildcards, rules)?;
    let held_arr = held.map(|h| count_rows(h, "held")).transpose()?;
    if let Some(h) = &held_arr {
        if h.as_array().nrows() != a.rows {
            return Err(crate::errors::InvalidHandError::new_err(format!(
                "held has {} rows for {} hands",
                h.as_array().nrows(),
                a.rows
            )));
        }
    }
    let inputs: Vec<&Bound<'py, PyAny>> = std::iter::once(counts).chain(held).collect();
    let (out, mut rw) = out_array(
        py,
        out,
        Ix2(a.rows, KINDS),
        "shape (N, 34) and dtype bool",
        &inputs,
    )?;
    {
        let data = a.counts.as_slice()?;
        // A copy: the core reads a row's `held` from the whole array (its
        // chunks copy only the counts).
        let held_data: Vec<u8> = match &held_arr {
            Some(h) => h.as_slice()?.to_vec(),
            None => Vec::new(),
        };
        let slots = rw.as_slice_mut()?;
        py.detach(|| {
            let (rows_out, _) = slots.as_chunks_mut::<KINDS>();
            koudian_core::batch::waits_batch(
                as_counts(data),
                a.n_melds.as_slice(),
                as_counts(&held_data),
                &a.wilds,
                &a.rules,
                rows_out,
                threads,
            )
        })
        .map_err(to_py)?;
    }
    drop(rw);
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(waits, m)?)?;
    m.add_function(wrap_pyfunction!(wait_points, m)?)?;
    m.add_function(wrap_pyfunction!(waits_batch, m)?)?;
    Ok(())
}
