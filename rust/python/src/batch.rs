//! Batch arguments: an `(N, 34)` C-contiguous `uint8` count array and
//! `n_melds` (an int or an `(N,)` array), converted and handed to the
//! core's batch functions (`koudian_core::batch`), which check each row
//! and name an invalid one.

use crate::errors::{InvalidHandError, KoudianError};
use crate::ruleset::resolve;
use crate::tiles::type_name;
use crate::wildcards::extract_wilds;
use koudian_core::legal::HandRules;
use koudian_core::tile::{Counts, KINDS};
use koudian_core::Wildcards;
use numpy::ndarray::Dimension;
use numpy::{
    BorrowError, Element, PyArray, PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods,
    PyReadonlyArray2, PyReadwriteArray, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::PyInt;

/// Melds per row: one number for all rows, or one per row.
pub enum NMelds {
    /// Every row has this many melds.
    All(u8),
    /// Row `i` has `v[i]` melds.
    PerRow(Vec<u8>),
}

impl NMelds {
    /// The core's form: one entry for every row, or one per row.
    pub fn as_slice(&self) -> &[u8] {
        match self {
            NMelds::All(n) => std::slice::from_ref(n),
            NMelds::PerRow(v) => v,
        }
    }
}

/// The arguments every batch function shares, checked: the counts, their
/// number of rows, the melds per row, the wild kinds and the ruleset's
/// hand rules.
pub struct BatchArgs<'py> {
    /// Another Python thread may write into this array while the GIL-free
    /// work runs: the core copies each chunk of rows before it checks and
    /// uses them (`koudian_core`'s batches), and the checks here after it
    /// only read.
    pub counts: PyReadonlyArray2<'py, u8>,
    pub rows: usize,
    pub n_melds: NMelds,
    pub wilds: Wildcards,
    pub rules: HandRules,
}

impl<'py> BatchArgs<'py> {
    /// Reads `counts`, `n_melds`, `wildcards` and `rules` as the batch
    /// functions take them.
    pub fn extract(
        py: Python<'py>,
        counts: &Bound<'py, PyAny>,
        n_melds: Option<&Bound<'py, PyAny>>,
        wildcards: Option<&Bound<'py, PyAny>>,
        rules: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<BatchArgs<'py>> {
        let counts = counts_array(counts)?;
        let rows = counts.as_array().nrows();
        Ok(BatchArgs {
            n_melds: n_melds_arg(n_melds, rows)?,
            wilds: extract_wilds(wildcards)?,
            rules: HandRules::from(&resolve(py, rules)?),
            counts,
            rows,
        })
    }
}

/// The counts argument: an `(N, 34)` C-contiguous `uint8` array.
pub fn counts_array<'py>(obj: &Bound<'py, PyAny>) -> PyResult<PyReadonlyArray2<'py, u8>> {
    count_rows(obj, "counts")
}

/// An `(N, 34)` C-contiguous `uint8` array argument named `what` in
/// errors (`counts`, `held`).
pub fn count_rows<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<PyReadonlyArray2<'py, u8>> {
    let arr = obj.cast::<PyUntypedArray>().map_err(|_| {
        InvalidHandError::new_err(format!(
            "{what} must be a numpy array of shape (N, 34) and dtype uint8, got {}",
            type_name(obj)
        ))
    })?;
    if arr.ndim() != 2 || arr.shape()[1] != KINDS {
        return Err(InvalidHandError::new_err(format!(
            "{what} must have shape (N, 34), got {:?}",
            arr.shape()
        )));
    }
    let a = obj.cast::<PyArray2<u8>>().map_err(|_| {
        InvalidHandError::new_err(format!(
            "{what} must have dtype uint8, got {} (use {what}.astype(numpy.uint8))",
            arr.dtype().str().map(|s| s.to_string()).unwrap_or_default()
        ))
    })?;
    if !arr.is_c_contiguous() {
        return Err(InvalidHandError::new_err(format!(
            "{what} must be C-contiguous (use numpy.ascontiguousarray({what}))"
        )));
    }
    Ok(a.readonly())
}

/// A batch's output array and its write borrow.
pub type OutArray<'py, T, D> = (Bound<'py, PyArray<T, D>>, PyReadwriteArray<'py, T, D>);

/// The `out` argument of a batch function, borrowed for writing: the
/// caller's array, which must be a writeable, C-contiguous numpy array of
/// dtype `T` and shape `dims` sharing no memory with the inputs (borrowed
/// before this call, or `inputs`, which catches the same memory reached
/// through another buffer object), or a fresh zeroed one when absent.
/// `what` names the expected array in errors, e.g. `"shape (N,) and dtype
/// bool"`.
pub fn out_array<'py, T: Element, D: Dimension>(
    py: Python<'py>,
    out: Option<&Bound<'py, PyAny>>,
    dims: D,
    what: &str,
    inputs: &[&Bound<'py, PyAny>],
) -> PyResult<OutArray<'py, T, D>> {
    let arr = match out {
        None => PyArray::<T, D>::zeros(py, dims, false),
        Some(obj) => {
            let bad = |got: String| {
                KoudianError::new_err(format!("out must be a numpy array of {what}, got {got}"))
            };
            let untyped = obj
                .cast::<PyUntypedArray>()
                .map_err(|_| bad(type_name(obj)))?;
            if untyped.shape() != dims.slice() {
                return Err(bad(format!("shape {:?}", untyped.shape())));
            }
            let typed = obj.cast::<PyArray<T, D>>().map_err(|_| {
                bad(format!(
                    "dtype {}",
                    untyped
                        .dtype()
                        .str()
                        .map(|s| s.to_string())
                        .unwrap_or_default()
                ))
            })?;
            if !untyped.is_c_contiguous() {
                return Err(bad("a non-C-contiguous array".to_string()));
            }
            // The borrow below catches the inputs' own arrays; this, the
            // same memory reached through another buffer object.
            let shares = py.import("numpy")?.getattr("may_share_memory")?;
            for i in inputs {
                if shares.call1((obj, i))?.is_truthy()? {
                    return Err(KoudianError::new_err(
                        "out must share no memory with the input arrays",
                    ));
                }
            }
            typed.clone()
        }
    };
    let rw = arr.try_readwrite().map_err(|e| {
        KoudianError::new_err(match e {
            BorrowError::NotWriteable => "out must be writeable, got a read-only array",
            // AlreadyBorrowed: the input arrays are borrowed for reading.
            _ => "out must share no memory with the input arrays",
        })
    })?;
    Ok((arr, rw))
}

/// The `n_melds` argument for `rows` rows: an int 0-4 or an `(N,)` array;
/// absent means no melds.
pub fn n_melds_arg(obj: Option<&Bound<'_, PyAny>>, rows: usize) -> PyResult<NMelds> {
    let Some(obj) = obj else {
        return Ok(NMelds::All(0));
    };
    let bad = |v: i64| InvalidHandError::new_err(format!("n_melds must be 0-4, got {v}"));
    if obj.cast::<PyInt>().is_ok() {
        let v = crate::ints::n_melds(obj)?;
        return u8::try_from(v)
            .ok()
            .filter(|&n| n <= 4)
            .map(NMelds::All)
            .ok_or_else(|| bad(v));
    }
    let arr = obj.cast::<PyUntypedArray>().map_err(|_| {
        InvalidHandError::new_err(format!(
            "n_melds must be an int or an (N,) integer array, got {}",
            type_name(obj)
        ))
    })?;
    if arr.shape() != [rows] {
        return Err(InvalidHandError::new_err(format!(
            "n_melds must have shape ({rows},) to match counts, got {:?}",
            arr.shape()
        )));
    }
    let kind = arr.dtype().kind();
    if kind != b'i' && kind != b'u' {
        return Err(InvalidHandError::new_err(
            "n_melds must have an integer dtype",
        ));
    }
    let as64 = obj.call_method1("astype", ("int64",))?;
    let a = as64.cast::<PyArray1<i64>>()?.readonly();
    let mut v = Vec::with_capacity(rows);
    for &x in a.as_array().iter() {
        v.push(
            u8::try_from(x)
                .ok()
                .filter(|&n| n <= 4)
                .ok_or_else(|| bad(x))?,
        );
    }
    Ok(NMelds::PerRow(v))
}

/// The rows of a validated `(N, 34)` array as the core's count arrays.
pub fn as_counts(data: &[u8]) -> &[Counts] {
    data.as_chunks::<KINDS>().0
}
