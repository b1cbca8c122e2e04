//! Positions and the native arena: `Hidden`, `sample_hidden`, the rebuilt
//! `Game` (`Game.from_observation`, in game.rs, calls [`rebuild`]) and
//! `arena_native` (ranked actions, mc's too, are in rank.rs). Conversion
//! only.

use crate::errors::to_py;
use crate::game::{extract_action, PyGame, PyObservation};
use crate::ruleset::resolve;
use crate::tiles::tile_obj;
use koudian_core::arena::{adjustable, arena_with, luck_seed, Departures, Format};
use koudian_core::game::{sample_hidden as core_sample, Game, Hidden, Observation, Prng};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

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
    let fmt = match format {
        "duplicate" => Format::Duplicate,
        "single" => Format::Single,
        _ => {
            return Err(crate::errors::RulesetError::new_err(format!(
                "format {format:?} (available: \"duplicate\", \"single\")"
            )))
        }
    };
    let end = start
        .checked_add(deals)
        .ok_or_else(|| crate::errors::RulesetError::new_err("start + deals overflows"))?;
    crate::numpy_ready(py)?;
    let recs = py
        .detach(|| arena_with(&r, &specs, start..end, seed, threads, fmt, walls))
        .map_err(to_py)?;
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

/// `ArenaLuck(walls)`: the luck of the wall of one lone agent's hands,
/// for the Python game loop (the native arena watches its own).
#[pyclass(name = "ArenaLuck", module = "koudian")]
struct PyArenaLuck {
    inner: Departures,
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyArenaLuck>()?;
    m.add_class::<PyHidden>()?;
    m.add_function(wrap_pyfunction!(sample_hidden, m)?)?;
    m.add_function(wrap_pyfunction!(arena_native, m)?)?;
    m.add_function(wrap_pyfunction!(arena_adjustable, m)?)?;
    Ok(())
}
