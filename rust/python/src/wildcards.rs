//! The `wildcards=` argument: nothing, one tile, or a sequence or notation
//! string of up to two distinct kinds.

use crate::errors::{to_py, InvalidTilesError};
use crate::tiles::{extract_tile, type_name};
use koudian_core::tile::{self, Tile};
use koudian_core::Wildcards;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

/// The wild kinds of a `wildcards=` argument (`None` or `()` for none;
/// `"5z"`, `"5z6z"`, `Tile.WHITE`, `[31, 32]`).
pub fn extract_wilds(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Wildcards> {
    let Some(obj) = obj else {
        return Ok(Wildcards::NONE);
    };
    let mut kinds: Vec<Tile> = Vec::with_capacity(2);
    if let Ok(s) = obj.cast::<PyString>() {
        kinds = tile::parse(&crate::seq::utf8(s)?).map_err(to_py)?;
    } else if let Ok(t) = obj.cast::<PyTuple>() {
        for item in t.iter() {
            kinds.push(extract_tile(&item)?);
        }
    } else if let Ok(l) = obj.cast::<PyList>() {
        for item in l.iter() {
            kinds.push(extract_tile(&item)?);
        }
    } else if obj.is_none() {
    } else if let Ok(t) = extract_tile(obj) {
        kinds.push(t);
    } else {
        let mut err = None;
        match obj.try_iter() {
            Ok(it) => {
                for item in it {
                    kinds.push(extract_tile(&item?)?);
                }
            }
            Err(_) => {
                err = Some(InvalidTilesError::new_err(format!(
                    "wildcards must be tiles or notation like \"5z\", got {}",
                    type_name(obj)
                )))
            }
        }
        if let Some(e) = err {
            return Err(e);
        }
    }
    Wildcards::new(&kinds).map_err(to_py)
}
