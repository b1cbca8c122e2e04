//! Positions: `Hidden`, `sample_hidden` and the rebuilt `Game`
//! (`Game.from_observation`, in game.rs, calls [`rebuild`]); ranked
//! actions, mc's too, are in rank.rs. Conversion only.

use crate::errors::to_py;
use crate::game::PyObservation;
use crate::ruleset::resolve;
use crate::tiles::tile_obj;
use koudian_core::game::{sample_hidden as core_sample, Game, Hidden, Observation, Prng};
use pyo3::prelude::*;
use pyo3::types::PyList;

/// A completion of what one seat cannot see (other hands, the wall order,
/// face-down discards, hidden kong kinds, the seats' private locks).
#[pyclass(name = "Hidden", module = "koudian", frozen)]
pub struct PyHidden {
    pub inner: Hidden,
}

#[pymethods]
impl PyHidden {
    /// Every seat's concealed tiles, as 34 counts per seat.
    #[getter]
    fn concealed(&self) -> Vec<Vec<u8>> {
        self.inner.concealed.iter().map(|c| c.to_vec()).collect()
    }
    /// The undrawn wall, next draw first.
    #[getter]
    fn wall<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tiles(py, &self.inner.wall)
    }
    /// The tiles of the face-down discards the observer cannot see.
    #[getter]
    fn face_down<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tiles(py, &self.inner.face_down)
    }
    /// The kinds of the concealed kongs the observer cannot see.
    #[getter]
    fn concealed_kongs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tiles(py, &self.inner.concealed_kongs)
    }
    fn __repr__(&self) -> String {
        format!(
            "Hidden(wall={} tiles, face_down={}, concealed_kongs={})",
            self.inner.wall.len(),
            self.inner.face_down.len(),
            self.inner.concealed_kongs.len()
        )
    }
}

fn tiles<'py>(py: Python<'py>, ts: &[koudian_core::Tile]) -> PyResult<Bound<'py, PyList>> {
    let v = ts
        .iter()
        .map(|&t| tile_obj(py, t))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, v)
}

/// The rebuilt table of `Game.from_observation`.
pub fn rebuild(
    py: Python<'_>,
    rules: Option<&Bound<'_, PyAny>>,
    obs: &Observation,
    hidden: &Hidden,
    seed: Option<u64>,
) -> PyResult<Game> {
    let r = resolve(py, rules)?;
    Game::from_observation(&r, obs, hidden, seed).map_err(to_py)
}

/// `sample_hidden(observation, rules=None, seed=0)`: a completion drawn
/// uniformly among those consistent with the observation.
#[pyfunction]
#[pyo3(signature = (observation, rules = None, seed = 0))]
fn sample_hidden(
    py: Python<'_>,
    observation: PyRef<'_, PyObservation>,
    rules: Option<&Bound<'_, PyAny>>,
    #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
) -> PyResult<PyHidden> {
    let r = resolve(py, rules)?;
    let obs = observation.inner;
    let h = py
        .detach(|| core_sample(&r, &obs, &mut Prng::new(seed)))
        .map_err(to_py)?;
    Ok(PyHidden { inner: h })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyHidden>()?;
    m.add_function(wrap_pyfunction!(sample_hidden, m)?)?;
    Ok(())
}
