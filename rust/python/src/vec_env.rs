//! The observation encodings as numpy arrays (`Observation.planes`,
//! `encoding_planes`): conversion only, the encoder is
//! `koudian_core::game::encode`.

use crate::errors::{to_py, KoudianError};
use koudian_core::game::encode::{encode_into, Cell, Encoding};
use koudian_core::game::Observation;
use koudian_core::tile::KINDS;
use numpy::{Element, PyArray2, PyArrayMethods};
use pyo3::prelude::*;

/// The array dtypes of the encodings.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    U8,
    F32,
}

/// `"uint8"` or `"float32"`.
pub fn dtype_of(name: &str) -> PyResult<Dtype> {
    match name {
        "uint8" => Ok(Dtype::U8),
        "float32" => Ok(Dtype::F32),
        _ => Err(KoudianError::new_err(format!(
            "dtype must be \"uint8\" or \"float32\", not {name:?}"
        ))),
    }
}

fn encoded<'py, T: Cell + Element>(
    py: Python<'py>,
    o: &Observation,
    enc: Encoding,
) -> PyResult<Bound<'py, PyAny>> {
    let a = PyArray2::<T>::zeros(py, [enc.n_planes(), KINDS], false);
    {
        let mut rw = a.readwrite();
        encode_into(o, enc, rw.as_slice_mut()?).map_err(to_py)?;
    }
    Ok(a.into_any())
}

/// `o` in encoding `version` as a `(P, 34)` array of `dtype`.
pub fn planes_array<'py>(
    py: Python<'py>,
    o: &Observation,
    version: u32,
    dtype: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let enc = Encoding::from_version(version).map_err(to_py)?;
    match dtype_of(dtype)? {
        Dtype::U8 => encoded::<u8>(py, o, enc),
        Dtype::F32 => encoded::<f32>(py, o, enc),
    }
}

/// Number of planes of observation encoding `version` (1: 29, 2: 66).
#[pyfunction]
fn encoding_planes(version: u32) -> PyResult<usize> {
    Ok(Encoding::from_version(version).map_err(to_py)?.n_planes())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(encoding_planes, m)?)?;
    Ok(())
}
