//! Melds and hands: `MeldKind`, `Meld`, `Hand`, and the conversion of a
//! `hand=` / `melds=` argument pair into the core's `Hand`.

use crate::errors::{to_py, InvalidHandError, InvalidTilesError};
use crate::tiles::{extract_counts, extract_tile, fast_seq_counts, tile_list, tile_obj, type_name};
use koudian_core::hand::{Hand, Meld, MeldKind, MAX_MELDS};
use koudian_core::tile::{self, Tile};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

/// The kinds of meld: pong and the three kongs.
#[pyclass(
    name = "MeldKind",
    module = "koudian",
    eq,
    eq_int,
    frozen,
    hash,
    from_py_object
)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
pub enum PyMeldKind {
    /// 碰: three of a kind claimed from a discard.
    PONG,
    /// 点杠/吃杠: a discard claimed onto a concealed triplet.
    EXPOSED_KONG,
    /// 补杠/明杠: a drawn tile added to one's own pong.
    ADDED_KONG,
    /// 暗杠: four drawn tiles.
    CONCEALED_KONG,
}

impl From<PyMeldKind> for MeldKind {
    fn from(k: PyMeldKind) -> MeldKind {
        match k {
            PyMeldKind::PONG => MeldKind::Pong,
            PyMeldKind::EXPOSED_KONG => MeldKind::ExposedKong,
            PyMeldKind::ADDED_KONG => MeldKind::AddedKong,
            PyMeldKind::CONCEALED_KONG => MeldKind::ConcealedKong,
        }
    }
}

impl From<MeldKind> for PyMeldKind {
    fn from(k: MeldKind) -> PyMeldKind {
        match k {
            MeldKind::Pong => PyMeldKind::PONG,
            MeldKind::ExposedKong => PyMeldKind::EXPOSED_KONG,
            MeldKind::AddedKong => PyMeldKind::ADDED_KONG,
            MeldKind::ConcealedKong => PyMeldKind::CONCEALED_KONG,
        }
    }
}

#[pymethods]
impl PyMeldKind {
    /// Whether this kind is a kong (4 tiles).
    #[getter]
    fn is_kong(&self) -> bool {
        MeldKind::from(*self).is_kong()
    }

    /// Physical tiles in such a meld.
    #[getter]
    fn size(&self) -> u8 {
        MeldKind::from(*self).size()
    }
}

/// One meld (副露): a kind and its tile.
#[pyclass(name = "Meld", module = "koudian", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyMeld {
    pub inner: Meld,
}

#[pymethods]
impl PyMeld {
    #[new]
    fn new(kind: PyMeldKind, tile: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyMeld {
            inner: Meld::new(kind.into(), extract_tile(tile)?),
        })
    }

    /// A meld from notation: `"555z"`, `"5555z"`, `"+5555z"`, `"[5555z]"`.
    #[staticmethod]
    fn parse(#[pyo3(from_py_with = crate::seq::text)] s: String) -> PyResult<Self> {
        Ok(PyMeld {
            inner: Meld::parse(&s).map_err(to_py)?,
        })
    }

    /// Pong or which kong.
    #[getter]
    fn kind(&self) -> PyMeldKind {
        self.inner.kind.into()
    }

    /// The tile kind.
    #[getter]
    fn tile<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        tile_obj(py, self.inner.tile)
    }

    /// The physical tiles.
    #[getter]
    fn tiles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tile_list(
            py,
            std::iter::repeat_n(self.inner.tile, self.inner.kind.size() as usize),
        )
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Meld.parse({:?})", self.inner.to_string())
    }
}

/// One meld from a `Meld` or its notation.
pub fn extract_meld(obj: &Bound<'_, PyAny>) -> PyResult<Meld> {
    if let Ok(m) = obj.cast::<PyMeld>() {
        return Ok(m.get().inner);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Meld::parse(&crate::seq::utf8(s)?).map_err(to_py);
    }
    Err(InvalidHandError::new_err(format!(
        "expected a Meld or meld notation like \"555z\", got {}",
        type_name(obj)
    )))
}

fn extract_melds(obj: Option<&Bound<'_, PyAny>>, out: &mut Vec<Meld>) -> PyResult<()> {
    let Some(obj) = obj else { return Ok(()) };
    if let Ok(t) = obj.cast::<PyTuple>() {
        for m in t.iter() {
            out.push(extract_meld(&m)?);
        }
        return Ok(());
    }
    if obj.cast::<PyString>().is_ok() || obj.cast::<PyMeld>().is_ok() {
        // One meld given on its own; a string of several melds is split on spaces.
        if let Ok(s) = obj.cast::<PyString>() {
            for part in crate::seq::utf8(s)?.split_whitespace() {
                out.push(Meld::parse(part).map_err(to_py)?);
            }
        } else {
            out.push(extract_meld(obj)?);
        }
        return Ok(());
    }
    for m in obj.try_iter().map_err(|_| {
        InvalidHandError::new_err(format!(
            "melds must be a sequence of Meld or meld notation, got {}",
            type_name(obj)
        ))
    })? {
        // An endless iterable must not grow `out` for ever.
        if out.len() > MAX_MELDS {
            break;
        }
        out.push(extract_meld(&m?)?);
    }
    Ok(())
}

/// The core hand of a `hand=` argument plus `melds=`: checks the 4-copy
/// limit (melds included) and the number of melds, not the size.
pub fn extract_hand(hand: &Bound<'_, PyAny>, melds: Option<&Bound<'_, PyAny>>) -> PyResult<Hand> {
    if melds.is_none() {
        // Hot path: a tuple or list of ints and no melds.
        if let Some(c) = fast_seq_counts(hand) {
            return Hand::new(c, &[]).map_err(to_py);
        }
    }
    let mut ms: Vec<Meld> = Vec::new();
    let counts = if let Ok(h) = hand.cast::<PyHand>() {
        ms.extend_from_slice(h.get().inner.melds());
        h.get().inner.concealed
    } else {
        extract_counts(hand)?
    };
    extract_melds(melds, &mut ms)?;
    if ms.len() > MAX_MELDS {
        return Err(InvalidHandError::new_err(format!(
            "{} melds, a hand holds at most {MAX_MELDS}",
            ms.len()
        )));
    }
    Hand::new(counts, &ms).map_err(to_py)
}

/// Like [`extract_hand`], then checks the concealed size: `14 - 3 ×
/// melds` when `complete`, else `13 - 3 × melds`.
pub fn extract_sized_hand(
    hand: &Bound<'_, PyAny>,
    melds: Option<&Bound<'_, PyAny>>,
    complete: bool,
) -> PyResult<Hand> {
    let h = extract_hand(hand, melds)?;
    h.check_size(complete).map_err(to_py)?;
    Ok(h)
}

/// A hand: concealed tiles plus melds. Immutable.
#[pyclass(name = "Hand", module = "koudian", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyHand {
    pub inner: Hand,
}

#[pymethods]
impl PyHand {
    #[new]
    #[pyo3(signature = (tiles, melds = None))]
    fn new(tiles: &Bound<'_, PyAny>, melds: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(PyHand {
            inner: extract_hand(tiles, melds)?,
        })
    }

    /// Concealed tiles, in index order.
    #[getter]
    fn tiles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tile_list(py, tile::tiles_of(&self.inner.concealed))
    }

    /// The melds.
    #[getter]
    fn melds(&self) -> Vec<PyMeld> {
        self.inner
            .melds()
            .iter()
            .map(|&m| PyMeld { inner: m })
            .collect()
    }

    /// The 34 counts of the concealed tiles as a `uint8` array.
    fn counts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        PyArray1::from_slice(py, &self.inner.concealed)
    }

    /// The 34 counts of every physical tile, melds included.
    fn all_counts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        PyArray1::from_slice(py, &self.inner.all_counts())
    }

    /// Number of concealed tiles.
    fn __len__(&self) -> usize {
        self.inner.tile_count()
    }

    fn __str__(&self) -> String {
        let mut s = tile::format_counts(&self.inner.concealed);
        for m in self.inner.melds() {
            s.push(' ');
            s.push_str(&m.to_string());
        }
        s
    }

    fn __repr__(&self) -> String {
        let melds: Vec<String> = self
            .inner
            .melds()
            .iter()
            .map(|m| format!("{:?}", m.to_string()))
            .collect();
        if melds.is_empty() {
            format!("Hand({:?})", tile::format_counts(&self.inner.concealed))
        } else {
            format!(
                "Hand({:?}, melds=[{}])",
                tile::format_counts(&self.inner.concealed),
                melds.join(", ")
            )
        }
    }
}

/// A tile argument that may be given as a `Tile`, int or notation, mapped
/// to a hand-related error message.
pub fn extract_tile_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Tile> {
    extract_tile(obj)
        .map_err(|e| InvalidTilesError::new_err(format!("{what}: {}", e.value(obj.py()))))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMeldKind>()?;
    m.add_class::<PyMeld>()?;
    m.add_class::<PyHand>()?;
    Ok(())
}
