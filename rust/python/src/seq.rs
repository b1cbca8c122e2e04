//! Sequence and string arguments, read without trusting the object.
//!
//! pyo3's `Vec<T>` extraction reserves `__len__` items up front, so a
//! sequence whose `__len__` lies (10**9, 2**62) aborted the interpreter
//! or panicked ("capacity overflow"); every sequence parameter is read
//! here instead, item by item, stopping one item past its limit. A string
//! with a lone surrogate cannot be UTF-8: it is an `InvalidTilesError`
//! (or the caller's error) rather than pyo3's `UnicodeEncodeError`.

use crate::errors::{InvalidTilesError, KoudianError};
use crate::tiles::type_name;
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::borrow::Cow;

/// The items of the iterable `obj`, at most `max` of them: more, or an
/// object that is not iterable, is a `KoudianError` naming `what`.
pub fn bounded<'py>(
    obj: &Bound<'py, PyAny>,
    max: usize,
    what: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let it = obj.try_iter().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "{what} must be a sequence, got {}",
            type_name(obj)
        ))
    })?;
    let mut out = Vec::new();
    for item in it {
        if out.len() == max {
            return Err(KoudianError::new_err(format!(
                "{what} must have at most {max} items"
            )));
        }
        out.push(item?);
    }
    Ok(out)
}

/// [`bounded`], each item extracted as `T`.
pub fn bounded_of<'py, T>(obj: &Bound<'py, PyAny>, max: usize, what: &str) -> PyResult<Vec<T>>
where
    T: for<'a> FromPyObject<'a, 'py>,
{
    bounded(obj, max, what)?
        .iter()
        .map(|x| x.extract::<T>().map_err(Into::into))
        .collect()
}

/// The UTF-8 text of `s`; a lone surrogate is an `InvalidTilesError`.
pub fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, str>> {
    s.to_cow().map_err(|_| {
        InvalidTilesError::new_err(
            "the string holds a lone surrogate (it is not valid Unicode text)",
        )
    })
}

/// A `str` parameter (`#[pyo3(from_py_with = crate::seq::text)]`): as
/// pyo3 reads it, but a lone surrogate is an `InvalidTilesError`.
pub fn text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let s = obj.cast::<PyString>().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(format!("expected a str, got {}", type_name(obj)))
    })?;
    Ok(utf8(s)?.into_owned())
}
