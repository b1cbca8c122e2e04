//! Discard analysis and ting (报听, docs/rules.md §3): `discard_options`,
//! `can_declare_ting`, `may_win`, `winning_tile_points`,
//! `ting_kong_allowed`.

use crate::errors::to_py;
use crate::hand::{extract_hand, extract_sized_hand, extract_tile_arg};
use crate::ruleset::resolve;
use crate::tiles::{tile_list, tile_obj};
use crate::wildcards::extract_wilds;
use koudian_core::discard::{self as core_discard, DiscardOption};
use koudian_core::ting as core_ting;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// What one discard of a complete hand leaves.
#[pyclass(name = "DiscardOption", module = "koudian", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyDiscardOption {
    inner: DiscardOption,
}

#[pymethods]
impl PyDiscardOption {
    /// The tile kind discarded.
    #[getter]
    fn discard<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        tile_obj(py, self.inner.discard)
    }

    /// Shanten of the rest (0 = ready).
    #[getter]
    fn shanten(&self) -> i8 {
        self.inner.shanten
    }

    /// The rest's waits (empty unless ready).
    #[getter]
    fn waits<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tile_list(py, self.inner.waits.tiles())
    }

    /// Each wait with its points.
    #[getter]
    fn wait_points<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (t, p) in self.inner.waits.iter() {
            d.set_item(tile_obj(py, t)?, p)?;
        }
        Ok(d)
    }

    /// The best wait's points, `None` when not ready.
    #[getter]
    fn best_points(&self) -> Option<u8> {
        self.inner.waits.best_points()
    }

    /// Whether ting may be declared with this discard.
    #[getter]
    fn can_declare_ting(&self) -> bool {
        self.inner.can_declare_ting
    }

    fn __repr__(&self) -> String {
        let waits: Vec<String> = self
            .inner
            .waits
            .iter()
            .map(|(t, p)| format!("{t}:{p}"))
            .collect();
        format!(
            "<DiscardOption {} shanten={} waits=[{}] ting={}>",
            self.inner.discard,
            self.inner.shanten,
            waits.join(" "),
            self.inner.can_declare_ting
        )
    }
}

/// Every distinct discard of a complete hand, in tile order.
#[pyfunction]
#[pyo3(signature = (hand, *, melds = None, wildcards = None, rules = None))]
fn discard_options(
    py: Python<'_>,
    hand: &Bound<'_, PyAny>,
    melds: Option<&Bound<'_, PyAny>>,
    wildcards: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<PyDiscardOption>> {
    let h = extract_sized_hand(hand, melds, true)?;
    let wilds = extract_wilds(wildcards)?;
    let r = resolve(py, rules)?;
    Ok(core_discard::discard_options(&h, &wilds, &r)
        .map_err(to_py)?
        .into_iter()
        .map(|o| PyDiscardOption { inner: o })
        .collect())
}

/// Whether discarding `discard` from the complete hand may declare ting.
#[pyfunction]
#[pyo3(signature = (hand, discard, *, melds = None, wildcards = None, rules = None))]
fn can_declare_ting(
    py: Python<'_>,
    hand: &Bound<'_, PyAny>,
    discard: &Bound<'_, PyAny>,
    melds: Option<&Bound<'_, PyAny>>,
    wildcards: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    let h = extract_hand(hand, melds)?;
    let t = extract_tile_arg(discard, "discard")?;
    let wilds = extract_wilds(wildcards)?;
    let r = resolve(py, rules)?;
    core_ting::can_declare_ting(&h, t, &wilds, &r).map_err(to_py)
}

/// Whether a winning tile worth `points` may win (by self-draw or on a
/// discard) under the ruleset's point rule.
#[pyfunction]
#[pyo3(signature = (points, *, self_draw, rules = None))]
fn may_win(
    py: Python<'_>,
    #[pyo3(from_py_with = crate::ints::points)] points: u8,
    self_draw: bool,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    Ok(core_ting::may_win(&resolve(py, rules)?, points, self_draw))
}

/// What `tile` is worth as the winning tile of a hand one tile short, or
/// `None` when it does not win (a discarded wild tile never does).
#[pyfunction]
#[pyo3(signature = (hand, tile, *, self_draw, melds = None, wildcards = None, rules = None))]
fn winning_tile_points(
    py: Python<'_>,
    hand: &Bound<'_, PyAny>,
    tile: &Bound<'_, PyAny>,
    self_draw: bool,
    melds: Option<&Bound<'_, PyAny>>,
    wildcards: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<u8>> {
    let h = extract_hand(hand, melds)?;
    let t = extract_tile_arg(tile, "tile")?;
    let wilds = extract_wilds(wildcards)?;
    let r = resolve(py, rules)?;
    core_ting::winning_tile_points(&h, t, self_draw, &wilds, &r).map_err(to_py)
}

/// Whether a player who declared ting may make a kong: `before` is the
/// ready hand, `after` the hand with the kong made (both one tile short).
#[pyfunction]
#[pyo3(signature = (before, after, *, wildcards = None, rules = None))]
fn ting_kong_allowed(
    py: Python<'_>,
    before: &Bound<'_, PyAny>,
    after: &Bound<'_, PyAny>,
    wildcards: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    let b = extract_hand(before, None)?;
    let a = extract_hand(after, None)?;
    let wilds = extract_wilds(wildcards)?;
    let r = resolve(py, rules)?;
    core_ting::ting_kong_allowed(&b, &a, &wilds, &r).map_err(to_py)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDiscardOption>()?;
    m.add_function(wrap_pyfunction!(discard_options, m)?)?;
    m.add_function(wrap_pyfunction!(can_declare_ting, m)?)?;
    m.add_function(wrap_pyfunction!(may_win, m)?)?;
    m.add_function(wrap_pyfunction!(winning_tile_points, m)?)?;
    m.add_function(wrap_pyfunction!(ting_kong_allowed, m)?)?;
    Ok(())
}
