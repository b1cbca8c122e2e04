//! Native self-play (`simulate_native`): conversion, the GIL released,
//! the core's `simulate_with`.

use crate::errors::to_py;
use crate::ruleset::resolve;
use koudian_core::agent::{builtin, Agent};
use koudian_core::game::EndKind;
use koudian_core::simulate::{pattern_tally, simulate_with, HandRow};
use koudian_core::Error;
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The `agents` argument: a sequence of names (4 are required; one more
/// is read to tell a longer sequence).
pub(crate) fn agent_names(obj: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    crate::seq::bounded(obj, 5, "agents")?
        .iter()
        .map(crate::seq::text)
        .collect()
}

pub(crate) fn agents_of(names: &[String], seed: u64) -> Result<[Box<dyn Agent>; 4], Error> {
    Ok([
        builtin(&names[0], seed)?,
        builtin(&names[1], seed)?,
        builtin(&names[2], seed)?,
        builtin(&names[3], seed)?,
    ])
}

pub(crate) fn check_agents(names: &[String]) -> PyResult<()> {
    if names.len() != 4 {
        return Err(crate::errors::RulesetError::new_err(format!(
            "give 4 agents, one per seat; got {}",
            names.len()
        )));
    }
    agents_of(names, 0).map(|_| ()).map_err(to_py)
}

fn end_code(k: EndKind) -> u8 {
    koudian_core::record::end_code(k)
}

fn arr2<'py, T: numpy::Element + Copy>(
    py: Python<'py>,
    v: Vec<T>,
    n: usize,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    PyArray1::from_vec(py, v).reshape([n, 4])
}

/// Native self-play of games `start .. start + hands` of the run with
/// master seed `seed` (game `i`: seed `mix_seed(seed, i)`, dealer `i % 4`,
/// agents reset with `mix_seed(game seed, 1 + seat)`), on `threads`
/// threads (0: all cores) with the GIL released: the core's
/// `simulate_with`, whose threads take games as they become free and
/// whose results come back in game order, so the result never depends on
/// `threads`. Returns a dict of numpy arrays, one row per game.
#[pyfunction]
#[pyo3(signature = (rules, agents, hands, *, seed = 0, threads = 0, start = 0))]
fn simulate_native<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = agent_names)] agents: Vec<String>,
    #[pyo3(from_py_with = crate::ints::hands_u64)] hands: u64,
    #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
    #[pyo3(from_py_with = crate::ints::threads)] threads: usize,
    #[pyo3(from_py_with = crate::ints::start)] start: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let r = resolve(py, Some(rules))?;
    check_agents(&agents)?;
    let end = start
        .checked_add(hands)
        .ok_or_else(|| crate::errors::RulesetError::new_err("start + hands overflows"))?;
    crate::numpy_ready(py)?;
    let rows = py
        .detach(|| {
            simulate_with(
                &r,
                start..end,
                seed,
                threads,
                |s| builtin(&agents[s], 0),
                HandRow::of,
            )
        })
        .map_err(to_py)?;
    summary_dict(py, &rows)
}

/// The dict of numpy arrays `simulate_native` returns for `rows`.
pub(crate) fn summary_dict<'py>(py: Python<'py>, rows: &[HandRow]) -> PyResult<Bound<'py, PyDict>> {
    let n = rows.len();
    let sums = || rows.iter().map(|x| &x.summary);
    let kind: Vec<u8> = sums().map(|s| end_code(s.kind)).collect();
    let winners: Vec<bool> = sums().flat_map(|s| s.winners).collect();
    let self_draw: Vec<bool> = sums().map(|s| s.self_draw).collect();
    let from: Vec<i8> = sums().map(|s| s.from.map_or(-1, |f| f as i8)).collect();
    let dealer: Vec<u8> = sums().map(|s| s.dealer).collect();
    let ting: Vec<bool> = sums().flat_map(|s| s.ting).collect();
    let deltas: Vec<i64> = sums().flat_map(|s| s.deltas).collect();
    let baohu: Vec<i64> = rows.iter().flat_map(|x| x.baohu).collect();
    let decisions: Vec<u32> = sums().map(|s| s.decisions).collect();
    let faults: Vec<bool> = sums().map(|s| s.agent_fault).collect();
    let patterns = pattern_tally(rows);
    let d = PyDict::new(py);
    d.set_item("kind", PyArray1::from_vec(py, kind))?;
    d.set_item("winners", arr2(py, winners, n)?)?;
    d.set_item("self_draw", PyArray1::from_vec(py, self_draw))?;
    d.set_item("from_seat", PyArray1::from_vec(py, from))?;
    d.set_item("dealer", PyArray1::from_vec(py, dealer))?;
    d.set_item("ting", arr2(py, ting, n)?)?;
    d.set_item("deltas", arr2(py, deltas, n)?)?;
    d.set_item("baohu", arr2(py, baohu, n)?)?;
    d.set_item("decisions", PyArray1::from_vec(py, decisions))?;
    d.set_item("faults", PyArray1::from_vec(py, faults))?;
    d.set_item("patterns", patterns)?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate_native, m)?)?;
    Ok(())
}
