//! Win detection and decomposition (docs/rules.md §2): `is_win`, `decompose`,
//! `is_win_batch`, and the `Decomposition` / `Set` result types.

use crate::batch::{as_counts, out_array, BatchArgs};
use crate::errors::to_py;
use crate::hand::{extract_sized_hand, PyMeld};
use crate::ruleset::resolve;
use crate::tiles::{tile_list, tile_obj};
use crate::wildcards::extract_wilds;
use koudian_core::hand::Meld;
use koudian_core::legal::{self, HandRules};
use koudian_core::shape::{Decomposition, Set};
use koudian_core::tile::format_tiles;
use numpy::{Ix1, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// One concealed set of a standard-shape decomposition.
#[pyclass(name = "Set", module = "koudian", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PySet {
    inner: Set,
}

#[pymethods]
impl PySet {
    /// `"triplet"`, `"sequence"` or `"honors"` (风嘴子).
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.name()
    }

    /// The three tiles.
    #[getter]
    fn tiles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let ts = self.inner.tiles();
        PyTuple::new(
            py,
            [
                tile_obj(py, ts[0])?,
                tile_obj(py, ts[1])?,
                tile_obj(py, ts[2])?,
            ],
        )
    }

    fn __str__(&self) -> String {
        format_tiles(&self.inner.tiles())
    }

    fn __repr__(&self) -> String {
        format!("Set({:?}, {:?})", self.kind(), self.__str__())
    }
}

/// One way a complete hand is formed.
#[pyclass(name = "Decomposition", module = "koudian", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyDecomposition {
    inner: Decomposition,
    melds: Vec<Meld>,
}

#[pymethods]
impl PyDecomposition {
    /// `"standard"`, `"seven_pairs"` or `"thirteen_orphans"`.
    #[getter]
    fn shape(&self) -> &'static str {
        self.inner.shape.name()
    }

    /// Concealed sets (standard shape), sorted; melds are not repeated.
    #[getter]
    fn sets(&self) -> Vec<PySet> {
        self.inner
            .sets
            .iter()
            .map(|&s| PySet { inner: s })
            .collect()
    }

    /// The pair kinds: one (standard, thirteen orphans) or seven (seven pairs).
    #[getter]
    fn pairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tile_list(py, self.inner.pairs.iter().copied())
    }

    /// For each wild tile held, the kind it stands for.
    #[getter]
    fn wild_as<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tile_list(py, self.inner.wild_as.iter().copied())
    }

    /// The hand's melds (each a set of this decomposition).
    #[getter]
    fn melds(&self) -> Vec<PyMeld> {
        self.melds.iter().map(|&m| PyMeld { inner: m }).collect()
    }

    fn __str__(&self) -> String {
        self.inner.describe(&self.melds)
    }

    fn __repr__(&self) -> String {
        format!("<Decomposition {}>", self.__str__())
    }
}

/// Whether the complete hand (`14 - 3 × melds` concealed tiles) wins, under
/// the ruleset's shapes and tile rules (`no_honors`, 缺一门:
/// `koudian_core::legal`).
#[pyfunction]
#[pyo3(signature = (hand, *, melds = None, wildcards = None, rules = None))]
fn is_win(
    py: Python<'_>,
    hand: &Bound<'_, PyAny>,
    melds: Option<&Bound<'_, PyAny>>,
    wildcards: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    let h = extract_sized_hand(hand, melds, true)?;
    let wilds = extract_wilds(wildcards)?;
    let rules = HandRules::from(&resolve(py, rules)?);
    legal::is_win(&h, &wilds, &rules).map_err(to_py)
}

/// Every distinct way the complete hand wins (empty when it does not).
#[pyfunction]
#[pyo3(signature = (hand, *, melds = None, wildcards = None, rules = None))]
fn decompose(
    py: Python<'_>,
    hand: &Bound<'_, PyAny>,
    melds: Option<&Bound<'_, PyAny>>,
    wildcards: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<PyDecomposition>> {
    let h = extract_sized_hand(hand, melds, true)?;
    let wilds = extract_wilds(wildcards)?;
    let rules = HandRules::from(&resolve(py, rules)?);
    Ok(legal::decompose(&h, &wilds, &rules)
        .map_err(to_py)?
        .into_iter()
        .map(|d| PyDecomposition {
            inner: d,
            melds: h.melds().to_vec(),
        })
        .collect())
}

/// `is_win` over every row of an `(N, 34)` uint8 count array, written into
/// `out` when given (an `(N,)` bool array, reused across calls).
#[pyfunction]
#[pyo3(signature = (counts, *, n_melds = None, wildcards = None, rules = None, threads = 1, out = None))]
fn is_win_batch<'py>(
    py: Python<'py>,
    counts: &Bound<'py, PyAny>,
    n_melds: Option<&Bound<'py, PyAny>>,
    wildcards: Option<&Bound<'py, PyAny>>,
    rules: Option<&Bound<'py, PyAny>>,
    #[pyo3(from_py_with = crate::ints::threads)] threads: usize,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let a = BatchArgs::extract(py, counts, n_melds, wildcards, rules)?;
    let (out, mut rw) = out_array(py, out, Ix1(a.rows), "shape (N,) and dtype bool", &[counts])?;
    {
        let data = a.counts.as_slice()?;
        let slots = rw.as_slice_mut()?;
        py.detach(|| {
            koudian_core::batch::is_win_batch(
                as_counts(data),
                a.n_melds.as_slice(),
                &a.wilds,
                &a.rules,
                slots,
                threads,
            )
        })
        .map_err(to_py)?;
    }
    drop(rw);
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySet>()?;
    m.add_class::<PyDecomposition>()?;
    m.add_function(wrap_pyfunction!(is_win, m)?)?;
    m.add_function(wrap_pyfunction!(decompose, m)?)?;
    m.add_function(wrap_pyfunction!(is_win_batch, m)?)?;
    Ok(())
}
