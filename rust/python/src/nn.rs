//! The nn agent's model file (`koudian.NnModel`): the core's reader and
//! forward pass, converted (numpy in, numpy out; the pass runs without
//! the GIL).

use crate::errors::{to_py, KoudianError};
use koudian_core::agent::nn::{Model, Scratch};
use koudian_core::game::N_ACTIONS;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;
use std::sync::Arc;

/// The most rows one `forward` call takes (a bound on the memory it
/// allocates: about 0.6 GB of activations at the widest model).
const MAX_ROWS: usize = 1 << 16;

/// A model file of the agent `nn`, read and checked (the reader refuses
/// what the agent would, with `ModelError`).
#[pyclass(name = "NnModel", module = "koudian", frozen)]
pub struct PyNnModel {
    inner: Arc<Model>,
}

#[pymethods]
impl PyNnModel {
    /// Reads a model from a path (`str` or `os.PathLike`) or from the
    /// file's `bytes`.
    #[new]
    fn new(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Self> {
        let model = if let Ok(b) = source.cast::<PyBytes>() {
            let bytes = b.as_bytes();
            py.detach(|| Model::from_bytes(bytes, "<bytes>"))
        } else {
            let path: PathBuf = source.extract().map_err(|_| {
                KoudianError::new_err(format!(
                    "NnModel takes a path or the file's bytes, got {}",
                    source
                        .get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })?;
            py.detach(|| Model::from_file(&path))
        };
        Ok(PyNnModel {
            inner: Arc::new(model.map_err(to_py)?),
        })
    }

    /// The `koudian` metadata of the file, as a dict.
    #[getter]
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let v = py
            .import("json")?
            .call_method1("loads", (self.inner.header().json.as_str(),))?;
        Ok(v.cast_into::<PyDict>()?)
    }

    /// Where the model was read from (a path, or `"<bytes>"`).
    #[getter]
    fn file(&self) -> &str {
        self.inner.file()
    }

    /// Values per input row (the planes then the extra inputs).
    #[getter]
    fn inputs(&self) -> usize {
        self.inner.inputs()
    }

    /// Number of parameters.
    #[getter]
    fn parameters(&self) -> usize {
        self.inner.parameters()
    }

    /// The forward pass of a batch: `planes` a float32 C-contiguous array
    /// of shape `(N, inputs)`; returns `(logits (N, 141), value (N,))`
    /// (the raw value: expected points / `value_scale`).
    fn forward<'py>(
        &self,
        py: Python<'py>,
        planes: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyArray2<f32>>, Bound<'py, PyArray1<f32>>)> {
        let inputs = self.inner.inputs();
        let want = || format!("a float32 C-contiguous array of shape (N, {inputs})");
        let arr = planes
            .cast::<PyUntypedArray>()
            .map_err(|_| KoudianError::new_err(format!("planes must be {}", want())))?;
        if arr.ndim() != 2 || arr.shape()[1] != inputs || !arr.is_c_contiguous() {
            return Err(KoudianError::new_err(format!(
                "planes must be {}, got shape {:?}",
                want(),
                arr.shape()
            )));
        }
        let n = arr.shape()[0];
        if n > MAX_ROWS {
            return Err(KoudianError::new_err(format!(
                "forward takes at most {MAX_ROWS} rows a call, got {n}"
            )));
        }
        let a = planes
            .cast::<PyArray2<f32>>()
            .map_err(|_| KoudianError::new_err(format!("planes must be {}", want())))?
            .readonly();
        let x = a.as_slice()?;
        let mut logits = vec![0f32; n * N_ACTIONS];
        let mut values = vec![0f32; n];
        let model = &self.inner;
        py.detach(|| model.forward(x, &mut logits, &mut values, &mut Scratch::default()))
            .map_err(to_py)?;
        Ok((
            PyArray1::from_vec(py, logits).reshape([n, N_ACTIONS])?,
            PyArray1::from_vec(py, values),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "NnModel({:?}, hidden={:?}, parameters={})",
            self.inner.file(),
            self.inner.header().hidden,
            self.inner.parameters()
        )
    }
}

/// The file names of the default models embedded in this build, which the
/// agent spec `"nn"` plays (empty when the build embeds none: `"nn"` is
/// then refused, `"nn:PATH"` still plays a model file).
#[pyfunction]
fn nn_default_models() -> Vec<&'static str> {
    koudian_core::agent::nn::embedded_names()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyNnModel>()?;
    m.add_function(wrap_pyfunction!(nn_default_models, m)?)?;
    Ok(())
}
