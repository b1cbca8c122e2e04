//! Integer arguments. pyo3 converts a Python int too large or too small
//! for a Rust integer type with an `OverflowError`, which is not a
//! `ValueError`; every integer parameter of the module goes through one of
//! these extractors instead (`#[pyo3(from_py_with = …)]`), so that an
//! out-of-range value raises `KoudianError` naming the parameter and its
//! range, e.g. "seed must be an integer in 0..2**64, got -1". Values of
//! the wrong type keep pyo3's `TypeError`.

use crate::errors::KoudianError;
use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;

/// The error for `obj`, given to parameter `name` of range `range`, when
/// converting it failed with `e`.
fn out_of_range(obj: &Bound<'_, PyAny>, e: PyErr, name: &str, range: &str) -> PyErr {
    if !e.is_instance_of::<PyOverflowError>(obj.py()) {
        return e;
    }
    let got = obj
        .str()
        .map(|s| s.to_string())
        .unwrap_or_else(|_| "?".into());
    KoudianError::new_err(format!("{name} must be an integer in {range}, got {got}"))
}

/// One extractor per parameter name: `fn(obj) -> PyResult<T>` (and, with
/// `?`, `PyResult<Option<T>>`, `None` passing through).
macro_rules! int_args {
    ($($f:ident: $t:ty, $name:literal, $range:expr;)*) => {$(
        #[doc = concat!("`", $name, "`: a `", stringify!($t), "`.")]
        pub fn $f(obj: &Bound<'_, PyAny>) -> PyResult<$t> {
            obj.extract::<$t>().map_err(|e| out_of_range(obj, e, $name, $range))
        }
    )*};
}

macro_rules! opt_int_args {
    ($($f:ident: $t:ty, $name:literal, $range:expr;)*) => {$(
        #[doc = concat!("`", $name, "`: `None` or a `", stringify!($t), "`.")]
        pub fn $f(obj: &Bound<'_, PyAny>) -> PyResult<Option<$t>> {
            if obj.is_none() {
                return Ok(None);
            }
            obj.extract::<$t>()
                .map(Some)
                .map_err(|e| out_of_range(obj, e, $name, $range))
        }
    )*};
}

/// The range of a `usize` parameter, as the error messages write it.
const USIZE_RANGE: &str = if usize::BITS == 64 {
    "0..2**64"
} else {
    "0..2**32"
};

/// `threads`: a `usize` of at most `koudian_core::MAX_THREADS` (0: one
/// per core); more is refused here, before any work, as the core would.
pub fn threads(obj: &Bound<'_, PyAny>) -> PyResult<usize> {
    let n = obj
        .extract::<usize>()
        .map_err(|e| out_of_range(obj, e, "threads", USIZE_RANGE))?;
    if n > koudian_core::MAX_THREADS {
        return Err(KoudianError::new_err(format!(
            "threads must be at most {} (0: one per core), got {n}",
            koudian_core::MAX_THREADS
        )));
    }
    Ok(n)
}

/// `_check_int(name, value, kind)`: `value` converted as the module's
/// integer parameters of `kind` (`"u64"`, `"usize"`, `"u32"` or
/// `"threads"`) are, for
/// the Python functions that hand an argument to the core in pieces
/// (`simulate` plays `hands` games in chunks): the same errors, raised up
/// front.
#[pyfunction]
fn _check_int(value: &Bound<'_, PyAny>, name: &str, kind: &str) -> PyResult<()> {
    let e = match kind {
        "u64" => value.extract::<u64>().err().map(|e| (e, "0..2**64")),
        "usize" => value.extract::<usize>().err().map(|e| (e, USIZE_RANGE)),
        "u32" => value.extract::<u32>().err().map(|e| (e, "0..2**32")),
        "threads" => return threads(value).map(|_| ()),
        _ => {
            return Err(KoudianError::new_err(format!(
                "unknown integer kind {kind:?}"
            )))
        }
    };
    match e {
        None => Ok(()),
        Some((e, range)) => Err(out_of_range(value, e, name, range)),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_check_int, m)?)
}

int_args! {
    seed: u64, "seed", "0..2**64";
    index: u64, "index", "0..2**64";
    hands_u64: u64, "hands", "0..2**64";
    start: u64, "start", "0..2**64";
    copies: usize, "copies", USIZE_RANGE;
    points: u8, "points", "0..256";
    seat: i64, "seat", "-2**63..2**63";
    dealer: i64, "dealer", "-2**63..2**63";
    owner: i64, "owner", "-2**63..2**63";
    action_index: i64, "i", "-2**63..2**63";
    action: i64, "action", "-2**63..2**63";
    n_melds: i64, "n_melds", "-2**63..2**63";
    walls: u32, "walls", "0..2**32";
}

opt_int_args! {
    hands_u32: u32, "hands", "0..2**32";
    rounds: u32, "rounds", "0..2**32";
    kong_bloom: usize, "kong_bloom", USIZE_RANGE;
    opt_seat: i64, "seat", "-2**63..2**63";
    opt_dealer: i64, "dealer", "-2**63..2**63";
    opt_seed: u64, "seed", "0..2**64";
    giver: i64, "giver", "-2**63..2**63";
    by: i64, "by", "-2**63..2**63";
}
