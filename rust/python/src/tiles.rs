//! Tiles: conversion between Python objects (notation strings, `Tile`
//! members, ints, 34-count arrays) and the core's `Tile` / `Counts`.
//!
//! Hot paths (a tuple or list of ints, a 34-byte `bytes`, a `uint8`
//! array) build no Python objects; strings go through the core parser.

use crate::errors::{to_py, InvalidHandError, InvalidTilesError};
use koudian_core::tile::{self, Counts, Tile, KINDS};
use numpy::{PyArray1, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyList, PyString, PyTuple};

static TILE_MEMBERS: PyOnceLock<Vec<Py<PyAny>>> = PyOnceLock::new();

/// The `koudian.Tile` member of kind `t` (built once, then shared).
pub fn tile_obj<'py>(py: Python<'py>, t: Tile) -> PyResult<Bound<'py, PyAny>> {
    let members = TILE_MEMBERS.get_or_try_init(py, || -> PyResult<Vec<Py<PyAny>>> {
        let cls = py.import("koudian.tiles")?.getattr("Tile")?;
        (0..KINDS).map(|i| Ok(cls.call1((i,))?.unbind())).collect()
    })?;
    Ok(members[t.index()].bind(py).clone())
}

/// A Python list of `Tile` members.
pub fn tile_list<'py>(
    py: Python<'py>,
    tiles: impl IntoIterator<Item = Tile>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for t in tiles {
        list.append(tile_obj(py, t)?)?;
    }
    Ok(list)
}

fn bad_index(i: i64, pos: usize) -> PyErr {
    InvalidTilesError::new_err(format!(
        "tile index {i} at position {pos} is out of range 0..34"
    ))
}

/// One tile: an int `0..34` (a `Tile` member is one) or a notation string
/// of exactly one tile (`"5z"`, `"🀄"`, `"中"`).
pub fn extract_tile(obj: &Bound<'_, PyAny>) -> PyResult<Tile> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Tile::from_notation(&crate::seq::utf8(s)?).map_err(to_py);
    }
    match obj.extract::<i64>() {
        Ok(i) => u8::try_from(i)
            .ok()
            .and_then(|b| Tile::new(b).ok())
            .ok_or_else(|| bad_index(i, 0)),
        Err(_) => Err(InvalidTilesError::new_err(format!(
            "expected a tile (an int 0..34, a Tile or a string like \"5z\"), got {}",
            type_name(obj)
        ))),
    }
}

/// The Python type name of `obj`, for error messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

#[inline]
fn add_index(counts: &mut Counts, item: &Bound<'_, PyAny>, pos: usize) -> PyResult<()> {
    let i: i64 = match item.extract::<i64>() {
        Ok(i) => i,
        Err(_) => {
            let t = extract_tile(item).map_err(|e| {
                InvalidTilesError::new_err(format!("item {pos}: {}", e.value(item.py())))
            })?;
            t.index() as i64
        }
    };
    if !(0..KINDS as i64).contains(&i) {
        return Err(bad_index(i, pos));
    }
    let c = &mut counts[i as usize];
    *c = c.saturating_add(1);
    Ok(())
}

fn counts_from_bytes(b: &[u8]) -> PyResult<Counts> {
    <Counts>::try_from(b).map_err(|_| {
        InvalidHandError::new_err(format!(
            "a bytes hand must hold 34 counts, got {} bytes",
            b.len()
        ))
    })
}

/// Concealed tiles of a hand-like object, as counts (not yet checked for
/// the 4-copy limit or size: `Hand::new` and `check_size` do that).
///
/// Accepted: a notation string; a list or tuple of tiles (ints `0..34`,
/// `Tile` members or one-tile strings); 34 counts as `bytes`,
/// `bytearray` or a 1-D numpy integer array.
pub fn extract_counts(obj: &Bound<'_, PyAny>) -> PyResult<Counts> {
    if let Some(c) = fast_seq_counts(obj) {
        return Ok(c);
    }
    let mut counts = [0u8; KINDS];
    if let Ok(t) = obj.cast::<PyTuple>() {
        for (pos, item) in t.iter().enumerate() {
            add_index(&mut counts, &item, pos)?;
        }
        return Ok(counts);
    }
    if let Ok(l) = obj.cast::<PyList>() {
        for (pos, item) in l.iter().enumerate() {
            add_index(&mut counts, &item, pos)?;
        }
        return Ok(counts);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        let tiles = tile::parse(&crate::seq::utf8(s)?).map_err(to_py)?;
        return tile::counts_of(&tiles).map_err(to_py);
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return counts_from_bytes(b.as_bytes());
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return counts_from_bytes(&b.to_vec());
    }
    if let Ok(h) = obj.cast::<crate::hand::PyHand>() {
        return Ok(h.get().inner.concealed);
    }
    if is_ndarray(obj) {
        return counts_from_array(obj);
    }
    Err(InvalidTilesError::new_err(format!(
        "expected a hand: a notation string like \"123m456p\", a list or tuple of tiles, \
         or 34 counts (bytes or a numpy array); got {}",
        type_name(obj)
    )))
}

/// Counts of a tuple or list of ints `0..34` (`Tile` members included)
/// through borrowed items and one C call each: the hot path of every
/// single-hand function. `None` for anything else (including a bad item):
/// the general path then explains the error.
#[inline]
pub fn fast_seq_counts(obj: &Bound<'_, PyAny>) -> Option<Counts> {
    let p = obj.as_ptr();
    // SAFETY: `p` is a live object (we hold `obj`) and the GIL is held.
    // Items are borrowed from the tuple/list, which `obj` keeps alive;
    // only exact-or-subclass ints are read, and reading an int runs no
    // Python code, so the container cannot change during the loop.
    unsafe {
        let tuple = ffi::PyTuple_Check(p) != 0;
        if !tuple && ffi::PyList_Check(p) == 0 {
            return None;
        }
        let n = if tuple {
            ffi::PyTuple_Size(p)
        } else {
            ffi::PyList_Size(p)
        };
        let mut counts = [0u8; KINDS];
        for i in 0..n {
            let item = if tuple {
                ffi::PyTuple_GetItem(p, i)
            } else {
                ffi::PyList_GetItem(p, i)
            };
            if item.is_null() {
                ffi::PyErr_Clear();
                return None;
            }
            // Plain ints pass the inline exact-type test; `Tile` members
            // (an int subclass) take the flag test.
            if ffi::PyLong_CheckExact(item) == 0 && ffi::PyLong_Check(item) == 0 {
                return None;
            }
            let v = ffi::PyLong_AsLong(item);
            if !(0..KINDS as std::os::raw::c_long).contains(&v) {
                if v == -1 && !ffi::PyErr_Occurred().is_null() {
                    ffi::PyErr_Clear();
                }
                return None;
            }
            let c = &mut counts[v as usize];
            *c = c.saturating_add(1);
        }
        Some(counts)
    }
}

/// Whether `obj` is a numpy array, without importing numpy when the
/// caller never did (then it cannot be one).
pub fn is_ndarray(obj: &Bound<'_, PyAny>) -> bool {
    let py = obj.py();
    let imported = py
        .import("sys")
        .and_then(|s| s.getattr("modules"))
        .and_then(|m| m.contains("numpy"))
        .unwrap_or(false);
    imported && obj.cast::<PyUntypedArray>().is_ok()
}

fn counts_from_array(obj: &Bound<'_, PyAny>) -> PyResult<Counts> {
    let arr = obj.cast::<PyUntypedArray>()?;
    if arr.shape() != [KINDS] {
        return Err(InvalidHandError::new_err(format!(
            "an array hand must be 34 counts (shape (34,)), got shape {:?}; \
             pass a list for tile indices",
            arr.shape()
        )));
    }
    if let Ok(a) = obj.cast::<PyArray1<u8>>() {
        let ro = a.readonly();
        let view = ro.as_array();
        let mut counts = [0u8; KINDS];
        for (c, v) in counts.iter_mut().zip(view.iter()) {
            *c = *v;
        }
        return Ok(counts);
    }
    let kind = arr.dtype().kind();
    if kind != b'i' && kind != b'u' {
        return Err(InvalidHandError::new_err(format!(
            "an array hand must have an integer dtype, got {}",
            arr.dtype()
        )));
    }
    let values: Vec<i64> = obj.call_method0("tolist")?.extract()?;
    let mut counts = [0u8; KINDS];
    for (i, (c, v)) in counts.iter_mut().zip(values).enumerate() {
        *c = u8::try_from(v).map_err(|_| {
            InvalidTilesError::new_err(format!(
                "count {v} of {} is not a tile count",
                Tile::new(i as u8)
                    .map(|t| t.to_string())
                    .unwrap_or_default()
            ))
        })?;
    }
    Ok(counts)
}

/// A list of tiles in hand order, or in index order for count inputs.
pub fn extract_tiles(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Tile>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return tile::parse(&crate::seq::utf8(s)?).map_err(to_py);
    }
    if obj.cast::<PyTuple>().is_ok() || obj.cast::<PyList>().is_ok() {
        let mut out = Vec::new();
        for (pos, item) in obj.try_iter()?.enumerate() {
            let item = item?;
            let mut c = [0u8; KINDS];
            add_index(&mut c, &item, pos)?;
            let i = c.iter().position(|&n| n > 0).unwrap_or(0);
            out.push(Tile::new(i as u8).map_err(to_py)?);
        }
        return Ok(out);
    }
    Ok(tile::tiles_of(&extract_counts(obj)?))
}

/// `(notation, glyph, chinese, points, suit letter, rank)` for each of the
/// 34 kinds, in index order: the data behind `koudian.Tile`.
#[pyfunction]
fn _tile_table() -> Vec<(String, String, String, u8, String, u8)> {
    Tile::all()
        .map(|t| {
            (
                t.to_string(),
                t.glyph().to_string(),
                t.chinese(),
                t.points(),
                t.suit().letter().to_string(),
                t.rank(),
            )
        })
        .collect()
}

/// Tiles of a notation string (notation, glyphs, Chinese names).
#[pyfunction]
fn parse<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = crate::seq::text)] s: String,
) -> PyResult<Bound<'py, PyList>> {
    let tiles = tile::parse(&s).map_err(to_py)?;
    tile_list(py, tiles)
}

/// Canonical sorted notation of a hand-like object.
#[pyfunction]
fn fmt(tiles: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(tile::format_tiles(&extract_tiles(tiles)?))
}

/// Unicode glyphs of a hand-like object, in its order.
#[pyfunction]
fn glyphs(tiles: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(tile::glyphs(&extract_tiles(tiles)?))
}

/// The 34 counts of a hand-like object as a `uint8` array.
#[pyfunction]
fn to_counts<'py>(
    py: Python<'py>,
    tiles: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray1<u8>>> {
    let counts = extract_counts(tiles)?;
    tile::check_copies(&counts).map_err(to_py)?;
    Ok(PyArray1::from_slice(py, &counts))
}

/// The 34 counts of each of several hands as an `(N, 34)` `uint8` array,
/// ready for the batch functions.
#[pyfunction]
fn to_counts_batch<'py>(
    py: Python<'py>,
    hands: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, numpy::PyArray2<u8>>> {
    let mut data: Vec<u8> = Vec::new();
    let mut rows = 0usize;
    for (i, h) in hands.try_iter()?.enumerate() {
        let c = extract_counts(&h?).map_err(|e| {
            InvalidTilesError::new_err(format!("hand {i}: {}", e.value(hands.py())))
        })?;
        tile::check_copies(&c).map_err(|e| InvalidTilesError::new_err(format!("hand {i}: {e}")))?;
        data.extend_from_slice(&c);
        rows += 1;
    }
    let arr = PyArray1::from_vec(py, data);
    arr.reshape([rows, KINDS])
}

/// The tiles (in index order) of 34 counts.
#[pyfunction]
fn from_counts<'py>(py: Python<'py>, counts: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let c = extract_counts(counts)?;
    tile::check_copies(&c).map_err(to_py)?;
    tile_list(py, tile::tiles_of(&c))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_tile_table, m)?)?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(fmt, m)?)?;
    m.add_function(wrap_pyfunction!(glyphs, m)?)?;
    m.add_function(wrap_pyfunction!(to_counts, m)?)?;
    m.add_function(wrap_pyfunction!(to_counts_batch, m)?)?;
    m.add_function(wrap_pyfunction!(from_counts, m)?)?;
    Ok(())
}
