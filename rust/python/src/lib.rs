//! PyO3 bindings: conversion and error mapping only, no rules. One file
//! per concept, each registering its functions on the `_core` module.

use pyo3::prelude::*;

mod errors;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    Ok(())
}
