//! The core's match bookkeeping (`koudian.MatchState`): conversion only.

use crate::errors::to_py;
use crate::game::PyGame;
use crate::ruleset::resolve;
use koudian_core::game::{Match, MatchLength};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// The core's match bookkeeping (hand seeds, dealer rotation, totals);
/// `koudian.Match` drives it with agents.
#[pyclass(name = "MatchState", module = "koudian")]
pub struct PyMatchState {
    pub(crate) inner: Match,
}

#[pymethods]
impl PyMatchState {
    #[new]
    #[pyo3(signature = (rules = None, *, seed = 0, hands = None, rounds = None))]
    fn new(
        py: Python<'_>,
        rules: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
        #[pyo3(from_py_with = crate::ints::hands_u32)] hands: Option<u32>,
        #[pyo3(from_py_with = crate::ints::rounds)] rounds: Option<u32>,
    ) -> PyResult<Self> {
        let length = match (hands, rounds) {
            (Some(h), None) => MatchLength::Hands(h),
            (None, Some(r)) => MatchLength::Rounds(r),
            (None, None) => MatchLength::Hands(1),
            (Some(_), Some(_)) => {
                return Err(crate::errors::RulesetError::new_err(
                    "give hands= or rounds=, not both",
                ))
            }
        };
        Ok(PyMatchState {
            inner: Match::new(&resolve(py, rules)?, seed, length).map_err(to_py)?,
        })
    }

    /// Whether the match is over.
    #[getter]
    fn done(&self) -> bool {
        self.inner.is_over()
    }

    /// The next hand (running totals set), or None when the match is over;
    /// dealt from `seed` when one is given (a server's keyed hand seed:
    /// the match's own hand seeds give each other away), else from the
    /// match's own hand seed.
    #[pyo3(signature = (record = true, *, seed = None))]
    fn next_game(
        &mut self,
        record: bool,
        #[pyo3(from_py_with = crate::ints::opt_seed)] seed: Option<u64>,
    ) -> PyResult<Option<PyGame>> {
        let next = match seed {
            Some(s) => self.inner.next_game_from(s),
            None => self.inner.next_game(),
        };
        Ok(next.map_err(to_py)?.map(|mut g| {
            g.set_recording(record);
            PyGame::wrap(g)
        }))
    }

    /// Records a finished hand: totals, hand count, next dealer.
    fn record(&mut self, game: &PyGame) -> PyResult<()> {
        self.inner.record(&game.inner).map_err(to_py)
    }

    /// Running totals.
    #[getter]
    fn totals<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.totals())
    }

    /// Hands played.
    #[getter]
    fn hands_played(&self) -> u32 {
        self.inner.hands_played()
    }

    /// The dealer of the next hand (None before the first).
    #[getter]
    fn dealer(&self) -> Option<u8> {
        self.inner.dealer()
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMatchState>()?;
    Ok(())
}
