//! `koudian._core._testing`: hooks for the test suite, off the public
//! surface (`from koudian._core._testing import simulate_logs`).

use crate::errors::to_py;
use crate::ruleset::resolve;
use crate::simulate::{agent_names, agents_of, check_agents};
use koudian_core::simulate::play_run_game;
use koudian_core::Error;
use pyo3::prelude::*;

/// The logs of native self-play of games `start .. start + hands` (same
/// seeds as `simulate_native`), played one after another with recording
/// on.
#[pyfunction]
#[pyo3(signature = (rules, agents, hands, *, seed = 0, start = 0))]
fn simulate_logs(
    py: Python<'_>,
    rules: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = agent_names)] agents: Vec<String>,
    #[pyo3(from_py_with = crate::ints::hands_u64)] hands: u64,
    #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
    #[pyo3(from_py_with = crate::ints::start)] start: u64,
) -> PyResult<Vec<String>> {
    let r = resolve(py, Some(rules))?;
    check_agents(&agents)?;
    let end = start
        .checked_add(hands)
        .ok_or_else(|| crate::errors::RulesetError::new_err("start + hands overflows"))?;
    py.detach(|| {
        let mut a = agents_of(&agents, 0)?;
        (start..end)
            .map(|i| {
                // Game `i` of the run: the core's seeding rule.
                play_run_game(&r, seed, i, &mut a, true, &mut ()).map(|(g, _, _)| g.log())
            })
            .collect::<Result<Vec<String>, Error>>()
    })
    .map_err(to_py)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate_logs, m)?)?;
    Ok(())
}
