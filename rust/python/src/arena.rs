//! The arena: `arena_native` (built-in agents on the core's threads),
//! `arena_agents` (any agents, Python and `cmd:` ones through
//! [`crate::agent`], on the calling thread), the line-up's tables and
//! `ArenaLuck`. Conversion only: the play, the tables and the per-seat
//! records are the core's (`koudian_core::arena`).

use crate::action::extract_action;
use crate::agent::{fault_list, Lineup};
use crate::errors::to_py;
use crate::game::PyGame;
use crate::record::decisions_dict;
use crate::ruleset::resolve;
use koudian_core::agent::builtin;
use koudian_core::arena::record::arena_dataset;
use koudian_core::arena::{
    adjustable, arena_of, arena_with, luck_seed, tables, Departures, Format, Run, SeatRecord,
};
use koudian_core::record::Decisions;
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The `format` argument.
fn format_arg(format: &str) -> PyResult<Format> {
    match format {
        "duplicate" => Ok(Format::Duplicate),
        "single" => Ok(Format::Single),
        _ => Err(crate::errors::RulesetError::new_err(format!(
            "format {format:?} (available: \"duplicate\", \"single\")"
        ))),
    }
}

/// The end of the deals `start .. start + deals`.
fn deals_end(start: u64, deals: u64) -> PyResult<u64> {
    start
        .checked_add(deals)
        .ok_or_else(|| crate::errors::RulesetError::new_err("start + deals overflows"))
}

/// The records as columns (`adjusted`: NaN where the row carries none).
fn records_dict<'py>(py: Python<'py>, recs: &[SeatRecord]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    macro_rules! col {
        ($name:literal, $f:expr) => {
            d.set_item($name, PyArray1::from_vec(py, recs.iter().map($f).collect()))?;
        };
    }
    col!("deal", |x| x.deal);
    col!("table", |x| x.table);
    col!("seat", |x| x.seat);
    col!("entry", |x| x.entry);
    col!("delta", |x| x.delta);
    col!("won", |x| x.won);
    col!("self_draw", |x| x.self_draw);
    col!("ting", |x| x.ting);
    col!("dealt_in", |x| x.dealt_in);
    col!("baohu_paid", |x| x.baohu_paid);
    col!("fault", |x| x.fault);
    col!("adjusted", |x| x.adjusted.unwrap_or(f64::NAN));
    Ok(d)
}

/// The four agents of a line-up.
fn lineup(agents: Vec<String>) -> PyResult<[String; 4]> {
    agents.try_into().map_err(|a: Vec<String>| {
        crate::errors::RulesetError::new_err(format!(
            "give 4 agents, one per seat; got {}",
            a.len()
        ))
    })
}

/// `arena_adjustable(agents)`: whether the luck of the wall can be taken
/// out of a run of the line-up.
#[pyfunction]
fn arena_adjustable(agents: Vec<String>) -> PyResult<bool> {
    Ok(adjustable(&lineup(agents)?))
}

/// `arena_native(rules, agents, deals, *, seed=0, threads=0, start=0,
/// format="duplicate", walls=0)`: every seat of every table of deals
/// `start .. start + deals`, as columns (`adjusted`: NaN where the row
/// carries none).
#[pyfunction]
#[pyo3(signature = (rules, agents, deals, *, seed = 0, threads = 0, start = 0, format = "duplicate", walls = 0))]
#[allow(clippy::too_many_arguments)]
fn arena_native<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyAny>,
    agents: Vec<String>,
    #[pyo3(from_py_with = crate::ints::hands_u64)] deals: u64,
    #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
    #[pyo3(from_py_with = crate::ints::threads)] threads: usize,
    #[pyo3(from_py_with = crate::ints::start)] start: u64,
    format: &str,
    #[pyo3(from_py_with = crate::ints::walls)] walls: u32,
) -> PyResult<Bound<'py, PyDict>> {
    let r = resolve(py, Some(rules))?;
    let specs = lineup(agents)?;
    let fmt = format_arg(format)?;
    let end = deals_end(start, deals)?;
    crate::numpy_ready(py)?;
    let recs = py
        .detach(|| arena_with(&r, &specs, start..end, seed, threads, fmt, walls))
        .map_err(to_py)?;
    records_dict(py, &recs)
}

/// `ArenaLuck(walls)`: the luck of the wall of one lone agent's hands,
/// for the Python game loop (the native arena watches its own).
#[pyclass(name = "ArenaLuck", module = "koudian")]
pub(crate) struct PyArenaLuck {
    pub(crate) inner: Departures,
}

#[pymethods]
impl PyArenaLuck {
    #[new]
    fn new(#[pyo3(from_py_with = crate::ints::walls)] walls: u32) -> PyResult<PyArenaLuck> {
        Ok(PyArenaLuck {
            inner: Departures::new(walls).map_err(to_py)?,
        })
    }

    /// Starts the hand dealt from `game_seed` with the lone agent at `seat`.
    fn begin(
        &mut self,
        #[pyo3(from_py_with = crate::ints::seed)] game_seed: u64,
        #[pyo3(from_py_with = crate::ints::seat)] seat: i64,
    ) -> PyResult<()> {
        let seat = crate::game::seat_arg(seat)?;
        self.inner.begin(seat, luck_seed(game_seed, seat));
        Ok(())
    }

    /// The seat to act on `game` is about to play `action`.
    fn decision(
        &mut self,
        py: Python<'_>,
        game: PyRef<'_, PyGame>,
        action: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let a = extract_action(action)?;
        let g = &game.inner;
        let Some(seat) = g.to_act() else {
            return Ok(());
        };
        let watch = &mut self.inner;
        py.detach(|| watch.decision(g, seat, a));
        Ok(())
    }

    /// The gains of the hand's departures so far.
    #[getter]
    fn gain(&self) -> f64 {
        self.inner.gain()
    }

    /// The hand's departures so far.
    #[getter]
    fn departures(&self) -> u32 {
        self.inner.departures()
    }
}

/// `arena_tables(labels, format="duplicate")`: the tables of a line-up,
/// each the line-up entry at each seat (the reference table of a 1-vs-3
/// line-up last).
#[pyfunction]
#[pyo3(signature = (labels, format = "duplicate"))]
fn arena_tables(labels: Vec<String>, format: &str) -> PyResult<Vec<[u32; 4]>> {
    let t = tables(&lineup(labels)?, format_arg(format)?);
    // As lists of ints (a `[u8; 4]` would be bytes).
    Ok(t.into_iter().map(|x| x.map(u32::from)).collect())
}

/// `arena_agents(rules, agents, labels, deals, *, seed=0, start=0,
/// format="duplicate", walls=0)`: `arena_native` of any agents (objects
/// with `act(observation, legal_actions)`, `koudian.NativeAgent`s among
/// them), line-up entry `i` played by `agents[i]` at every table and
/// labelled `labels[i]` (equal labels: the same agent), on the calling
/// thread. Returns `(records, faults)`: the columns, and each fault as
/// `(hand, fault)` with the hand id `deal * tables + table` (`fault`: the
/// agent's own `koudian.Fault`, or `(seat, answer_repr, fallback)`). An
/// exception an agent raised is raised unchanged.
#[pyfunction]
#[pyo3(signature = (rules, agents, labels, deals, *, seed = 0, start = 0, format = "duplicate", walls = 0))]
#[allow(clippy::too_many_arguments)]
fn arena_agents<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyAny>,
    agents: &Bound<'py, PyAny>,
    labels: Vec<String>,
    #[pyo3(from_py_with = crate::ints::hands_u64)] deals: u64,
    #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
    #[pyo3(from_py_with = crate::ints::start)] start: u64,
    format: &str,
    #[pyo3(from_py_with = crate::ints::walls)] walls: u32,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyList>)> {
    let r = resolve(py, Some(rules))?;
    let labels = lineup(labels)?;
    let format = format_arg(format)?;
    let end = deals_end(start, deals)?;
    let line = Lineup::new(agents)?;
    if line.len() != 4 {
        return Err(crate::errors::RulesetError::new_err(format!(
            "give 4 agents, one per seat; got {}",
            line.len()
        )));
    }
    crate::numpy_ready(py)?;
    let run = Run {
        rules: &r,
        labels: &labels,
        seed,
        format,
        walls,
    };
    let make = |e: u8| {
        line.agent(usize::from(e))
            .ok_or_else(|| koudian_core::Error::InvalidArgument("no agent".into()))
    };
    let sink = &line.sink;
    // One thread: the agents are Python objects, called with the GIL.
    let played = py.detach(|| arena_of(&run, start..end, 1, make, || sink.recorder()));
    let ((recs, _), faults) = line.sink.finish(py, played)?;
    Ok((records_dict(py, &recs)?, fault_list(py, faults, true)?))
}

/// `arena_record(rules, agents, deals, *, seed=0, threads=0, start=0,
/// format="duplicate", walls=0, seats=None)`: `arena_native` that also
/// records the decisions of `seats` at every table, from one play of each
/// deal. Returns `(records, decisions, hands)`: the columns, each table's
/// decision columns (hand id `deal * tables + table`; `None` per table
/// when `seats` is `None`) and the number of hands played.
#[pyfunction]
#[pyo3(signature = (rules, agents, deals, *, seed = 0, threads = 0, start = 0, format = "duplicate", walls = 0, seats = None))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn arena_record<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyAny>,
    agents: Vec<String>,
    #[pyo3(from_py_with = crate::ints::hands_u64)] deals: u64,
    #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
    #[pyo3(from_py_with = crate::ints::threads)] threads: usize,
    #[pyo3(from_py_with = crate::ints::start)] start: u64,
    format: &str,
    #[pyo3(from_py_with = crate::ints::walls)] walls: u32,
    seats: Option<Vec<i64>>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyList>, u64)> {
    let r = resolve(py, Some(rules))?;
    let specs = lineup(agents)?;
    let fmt = format_arg(format)?;
    let end = deals_end(start, deals)?;
    let mut chosen = [false; 4];
    for &s in seats.iter().flatten() {
        let s = crate::game::seat_arg(s)?;
        chosen[usize::from(s)] = true;
    }
    for s in &specs {
        builtin(s, 0).map_err(to_py)?;
    }
    crate::numpy_ready(py)?;
    let run = Run {
        rules: &r,
        labels: &specs,
        seed,
        format: fmt,
        walls,
    };
    let recorded = py
        .detach(|| {
            arena_dataset(
                &run,
                start..end,
                threads,
                |e| builtin(&specs[usize::from(e)], 0),
                chosen,
            )
        })
        .map_err(to_py)?;
    let tables = PyList::empty(py);
    for parts in recorded.tables {
        if seats.is_some() {
            tables.append(decisions_dict(py, Decisions::concat(parts))?)?;
        } else {
            tables.append(py.None())?;
        }
    }
    Ok((records_dict(py, &recorded.records)?, tables, recorded.hands))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyArenaLuck>()?;
    m.add_function(wrap_pyfunction!(arena_native, m)?)?;
    m.add_function(wrap_pyfunction!(arena_agents, m)?)?;
    m.add_function(wrap_pyfunction!(arena_record, m)?)?;
    m.add_function(wrap_pyfunction!(arena_tables, m)?)?;
    m.add_function(wrap_pyfunction!(arena_adjustable, m)?)?;
    Ok(())
}
