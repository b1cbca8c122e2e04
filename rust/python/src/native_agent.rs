//! The core's built-in agents usable from Python (`koudian.NativeAgent`):
//! conversion only; the agent acts through the core's `SeatView`.

use crate::action::{action_obj, PyAction};
use crate::errors::{to_py, IllegalActionError};
use crate::observation::PyObservation;
use koudian_core::agent::{builtin, Agent, Answer, SeatView};
use pyo3::prelude::*;

/// A built-in agent of the Rust core (`"random"`, `"greedy"`, …), usable
/// from Python: `act(observation)` plays what native self-play would.
#[pyclass(name = "NativeAgent", module = "koudian")]
pub struct PyNativeAgent {
    // A Mutex only to make the class Sync; `&mut self` methods use
    // `get_mut`, which never locks.
    inner: std::sync::Mutex<Box<dyn Agent>>,
    name: String,
}

impl PyNativeAgent {
    pub(crate) fn agent(&mut self) -> &mut Box<dyn Agent> {
        match self.inner.get_mut() {
            Ok(a) => a,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

#[pymethods]
impl PyNativeAgent {
    #[new]
    #[pyo3(signature = (name, seed = 0))]
    fn new(
        #[pyo3(from_py_with = crate::seq::text)] name: String,
        #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
    ) -> PyResult<Self> {
        let name = name.as_str();
        Ok(PyNativeAgent {
            inner: std::sync::Mutex::new(builtin(name, seed).map_err(to_py)?),
            name: name.to_string(),
        })
    }

    /// The built-in name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// Reseeds the agent (native self-play does this before every hand).
    fn reset(&mut self, #[pyo3(from_py_with = crate::ints::seed)] seed: u64) {
        self.agent().reset(seed);
    }

    /// The action for an observation taken from a `Game` that has not
    /// moved since. `legal_actions` is accepted so that a `NativeAgent`
    /// is an `Agent` (`act(observation, legal_actions)`); the core agent
    /// reads the legal actions from the game itself.
    #[pyo3(signature = (observation, legal_actions = None))]
    fn act<'py>(
        &mut self,
        py: Python<'py>,
        observation: &Bound<'py, PyObservation>,
        legal_actions: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAction>> {
        let _ = legal_actions;
        let o = observation.get();
        let game = o.game.as_ref().ok_or_else(|| {
            IllegalActionError::new_err("native agents act on observations taken from a Game")
        })?;
        let g = game
            .bind(py)
            .try_borrow()
            .map_err(|_| IllegalActionError::new_err("the observation's game is being changed"))?;
        if g.inner.moves() != o.moves {
            return Err(IllegalActionError::new_err(
                "the observation is stale: its game has moved on since it was taken",
            ));
        }
        if g.inner.legal_actions_for(o.inner.seat).is_empty() {
            return Err(IllegalActionError::new_err(format!(
                "seat {} has no legal action now (it is not to act, or the hand is over)",
                o.inner.seat
            )));
        }
        let view = SeatView::new(&g.inner, o.inner.seat);
        let agent = self.agent();
        // An agent that may fail (nn: a model without the ruleset's
        // family) answers through `decide`, its error raised.
        let a = if agent.decides() {
            match agent.decide(&view).map_err(to_py)? {
                Answer::Action(a) | Answer::Faulted(a) => a,
                Answer::NotAnAction(s) => return Err(IllegalActionError::new_err(s)),
            }
        } else {
            agent.act(&view)
        };
        action_obj(py, a)
    }

    fn __repr__(&self) -> String {
        format!("NativeAgent({:?})", self.name)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyNativeAgent>()?;
    Ok(())
}
