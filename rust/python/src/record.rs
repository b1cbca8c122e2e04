//! Self-play datasets and logs: the core's recorded simulate, handed to
//! Python as numpy arrays (one per column) and one bytes object of logs.

use crate::errors::{to_py, KoudianError};
use crate::game::{check_agents, summary_dict};
use crate::ruleset::resolve;
use koudian_core::agent::builtin;
use koudian_core::game::encode::{Encoding, N_PLANES};
use koudian_core::log_compress::LogCompression;
use koudian_core::record::{
    encoding_of_width, obs_bytes, simulate_dataset, unpack_encoded, unpack_obs as unpack_v1,
    Decisions, RecordOptions, MASK_BYTES, OBS_BYTES, OBS_BYTES_V1, OBS_BYTES_V2,
};
use koudian_core::simulate::HandRow;
use koudian_core::tile::KINDS;
use numpy::{PyArray1, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

/// A flat column of `width` bytes per row as an `(n, width)` array.
fn wide<'py>(py: Python<'py>, v: Vec<u8>, width: usize) -> PyResult<Bound<'py, PyAny>> {
    let n = v.len() / width;
    Ok(PyArray1::from_vec(py, v).reshape([n, width])?.into_any())
}

pub(crate) fn decisions_dict<'py>(py: Python<'py>, d: Decisions) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("hand", PyArray1::from_vec(py, d.hand))?;
    out.set_item("seed", PyArray1::from_vec(py, d.seed))?;
    out.set_item("seat", PyArray1::from_vec(py, d.seat))?;
    out.set_item("step", PyArray1::from_vec(py, d.step))?;
    out.set_item("obs", wide(py, d.obs, OBS_BYTES)?)?;
    out.set_item("mask", wide(py, d.mask, MASK_BYTES)?)?;
    out.set_item("action", PyArray1::from_vec(py, d.action))?;
    out.set_item("counts", wide(py, d.counts, KINDS)?)?;
    out.set_item("points", PyArray1::from_vec(py, d.points))?;
    out.set_item("delta", PyArray1::from_vec(py, d.delta))?;
    out.set_item("won", PyArray1::from_vec(py, d.won))?;
    out.set_item("shanten", PyArray1::from_vec(py, d.shanten))?;
    out.set_item("end", PyArray1::from_vec(py, d.end))?;
    // The expert's estimates, compact: a length per row (0 or 141) and
    // the values of the rows that have them (the dataset's list column).
    out.set_item("expert_len", PyArray1::from_vec(py, d.expert_len))?;
    out.set_item("expert", PyArray1::from_vec(py, d.expert))?;
    Ok(out)
}

/// `simulate_native` of games `start .. start + hands` that also records
/// the decisions of `seats` (column arrays, or `None` when `seats` is
/// `None`; with `pieces`, a list of such dicts whose rows follow one
/// another, as the workers filled them, without joining them) and, when
/// `logs`, every game's JSON Lines log (one bytes object, the games in
/// order), in one pass on `threads` threads with the GIL released;
/// `log_compress` (`none`, `gzip`, `zstd`) compresses the logs on those
/// threads, into frames one after another. Returns `(summary, decisions,
/// logs)`.
#[pyfunction]
#[pyo3(signature = (rules, agents, hands, *, seed = 0, threads = 0, start = 0, seats = None, logs = false, pieces = false, log_compress = "none"))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn simulate_record<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyAny>,
    agents: Vec<String>,
    #[pyo3(from_py_with = crate::ints::hands_u64)] hands: u64,
    #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
    #[pyo3(from_py_with = crate::ints::threads)] threads: usize,
    #[pyo3(from_py_with = crate::ints::start)] start: u64,
    seats: Option<Vec<i64>>,
    logs: bool,
    pieces: bool,
    log_compress: &str,
) -> PyResult<(
    Bound<'py, PyDict>,
    Option<Bound<'py, PyAny>>,
    Option<Bound<'py, PyBytes>>,
)> {
    let r = resolve(py, Some(rules))?;
    check_agents(&agents)?;
    let compression = LogCompression::from_name(log_compress).map_err(to_py)?;
    let mut chosen = [false; 4];
    for &s in seats.iter().flatten() {
        if !(0..4).contains(&s) {
            return Err(KoudianError::new_err(format!(
                "seats must be seat numbers 0-3, got {s}"
            )));
        }
        chosen[s as usize] = true;
    }
    let end = start
        .checked_add(hands)
        .ok_or_else(|| crate::errors::RulesetError::new_err("start + hands overflows"))?;
    let options = RecordOptions {
        seats: chosen,
        events: false,
        logs,
        log_compression: compression,
    };
    crate::numpy_ready(py)?;
    let recorded = py
        .detach(|| {
            simulate_dataset(
                &r,
                start..end,
                seed,
                threads,
                |s| builtin(&agents[s], 0),
                options,
                HandRow::of,
            )
        })
        .map_err(to_py)?;
    // One copy of the logs, straight into the bytes object.
    let log = if logs {
        Some(PyBytes::new(py, &recorded.log))
    } else {
        None
    };
    let summary = summary_dict(py, &recorded.hands)?;
    let decisions = match (seats, pieces) {
        (None, _) => None,
        (Some(_), false) => Some(decisions_dict(py, recorded.into_rows())?.into_any()),
        (Some(_), true) => {
            let parts = recorded
                .parts
                .into_iter()
                .map(|d| decisions_dict(py, d))
                .collect::<PyResult<Vec<_>>>()?;
            Some(PyList::new(py, parts)?.into_any())
        }
    };
    Ok((summary, decisions, log))
}

/// The planes of packed observations: an `(N, W)` `uint8` array (a
/// dataset's `obs` column) to the planes they were packed from, exactly:
/// `W = OBS_BYTES` (encoding version 3) gives `(N, 79, 34)` `uint8`,
/// `W = OBS_BYTES_V2` (version 2) `(N, 66, 34)` `uint8`, `W =
/// OBS_BYTES_V1` (version 1) `(N, 29, 34)` `float32`.
#[pyfunction]
fn unpack_obs<'py>(py: Python<'py>, packed: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let bad = || {
        KoudianError::new_err(format!(
            "packed must be a C-contiguous uint8 array of shape (N, {OBS_BYTES}), \
             (N, {OBS_BYTES_V2}) or (N, {OBS_BYTES_V1})"
        ))
    };
    let arr = packed
        .cast::<numpy::PyArray2<u8>>()
        .map_err(|_| bad())?
        .readonly();
    if !arr.is_c_contiguous() {
        return Err(bad());
    }
    let (n, width) = (arr.shape()[0], arr.shape()[1]);
    let enc = encoding_of_width(width).map_err(|_| bad())?;
    let src = arr.as_slice().map_err(|_| bad())?;
    Ok(match enc {
        Encoding::V2 | Encoding::V3 => {
            let (w, len) = (obs_bytes(enc), enc.len());
            let mut out = vec![0u8; n * len];
            py.detach(|| {
                for (row, dst) in src.chunks_exact(w).zip(out.chunks_exact_mut(len)) {
                    unpack_encoded(enc, row, dst).expect("rows of the encoding's widths");
                }
            });
            PyArray1::from_vec(py, out)
                .reshape([n, enc.n_planes(), KINDS])?
                .into_any()
        }
        Encoding::V1 => {
            let mut out = vec![0f32; n * N_PLANES * KINDS];
            py.detach(|| {
                for (row, dst) in src
                    .chunks_exact(OBS_BYTES_V1)
                    .zip(out.chunks_exact_mut(N_PLANES * KINDS))
                {
                    let row: &[u8; OBS_BYTES_V1] = row.try_into().expect("chunks of OBS_BYTES_V1");
                    unpack_v1(row, dst);
                }
            });
            PyArray1::from_vec(py, out)
                .reshape([n, N_PLANES, KINDS])?
                .into_any()
        }
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("OBS_BYTES", OBS_BYTES)?;
    m.add("OBS_BYTES_V1", OBS_BYTES_V1)?;
    m.add("OBS_BYTES_V2", OBS_BYTES_V2)?;
    m.add("MASK_BYTES", MASK_BYTES)?;
    m.add("OBS_PACK_VERSION", koudian_core::record::OBS_PACK_VERSION)?;
    m.add(
        "OBS_ENCODING_VERSION",
        koudian_core::record::OBS_ENCODING_VERSION,
    )?;
    m.add_function(wrap_pyfunction!(simulate_record, m)?)?;
    m.add_function(wrap_pyfunction!(unpack_obs, m)?)?;
    Ok(())
}
