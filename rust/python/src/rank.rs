//! Ranked candidate actions: `rank_actions` and `RankedAction` (the
//! core's `agent::rank_actions`, converted).

use crate::errors::to_py;
use crate::game::{action_obj, seat_arg, PyGame};
use koudian_core::agent::{rank_actions as core_rank, RankedAction};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// One legal action as an agent ranks it: `action`, `value` (higher is
/// better, comparable within one ranking) and `numbers` (what the agent
/// compared).
#[pyclass(name = "RankedAction", module = "koudian", frozen)]
pub struct PyRankedAction {
    inner: RankedAction,
}

#[pymethods]
impl PyRankedAction {
    /// The action.
    #[getter]
    fn action<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, crate::game::PyAction>> {
        action_obj(py, self.inner.action)
    }

    /// One summary number, higher is better.
    #[getter]
    fn value(&self) -> f64 {
        self.inner.value
    }

    /// The named numbers the agent compared.
    #[getter]
    fn numbers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for &(name, v) in &self.inner.numbers {
            d.set_item(name, v)?;
        }
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let numbers: Vec<String> = self
            .inner
            .numbers
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        format!(
            "RankedAction({}, value={}, {})",
            self.inner.action,
            self.inner.value,
            numbers.join(", ")
        )
    }
}

/// Every legal action of `seat`, best first, as the agent `agent` ranks
/// them (empty when the seat is not to act).
#[pyfunction]
#[pyo3(signature = (game, seat, agent = "greedy", seed = 0))]
fn rank_actions(
    py: Python<'_>,
    game: PyRef<'_, PyGame>,
    #[pyo3(from_py_with = crate::ints::seat)] seat: i64,
    agent: &str,
    #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
) -> PyResult<Vec<PyRankedAction>> {
    let seat = seat_arg(seat)?;
    let g = &game.inner;
    let ranked = py
        .detach(|| core_rank(g, seat, agent, seed))
        .map_err(to_py)?;
    Ok(ranked
        .into_iter()
        .map(|inner| PyRankedAction { inner })
        .collect())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRankedAction>()?;
    m.add_function(wrap_pyfunction!(rank_actions, m)?)?;
    Ok(())
}
