//! PyO3 bindings: conversion and error mapping only, no rules. One file
//! per concept, each registering its functions on the `_core` module.

use pyo3::prelude::*;

mod agent;
mod arena;
mod batch;
mod bench;
mod errors;
mod game;
mod hand;
mod ints;
mod position;
mod rank;
mod record;
mod ruleset;
mod score;
mod seq;
mod shanten;
mod tiles;
mod ting;
mod vec_env;
mod waits;
mod wildcards;
mod win;

/// Makes rust-numpy read numpy's C API capsule now, failing as a Python
/// exception. rust-numpy reads it on first use and panics if that fails;
/// the read runs Python code (numpy's version check), so a Ctrl-C that
/// arrived during a long native call, pending when the call makes its
/// first array, was a `PanicException: Failed to access NumPy array API
/// capsule` instead of a `KeyboardInterrupt`. Called before the GIL is
/// released for long work, with any signal already pending handled first.
pub(crate) fn numpy_ready(py: Python<'_>) -> PyResult<()> {
    static READY: pyo3::sync::PyOnceLock<()> = pyo3::sync::PyOnceLock::new();
    READY
        .get_or_try_init(py, || {
            py.check_signals()?;
            // Import numpy here, where an error is an exception: the
            // capsule read below then runs only numpy's version check.
            py.import("numpy")?.getattr("__version__")?;
            py.import("numpy.lib")?.getattr("NumpyVersion")?;
            numpy::PyArray1::<u8>::zeros(py, 0, false);
            Ok(())
        })
        .map(|_| ())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    tiles::register(m)?;
    hand::register(m)?;
    ruleset::register(m)?;
    win::register(m)?;
    waits::register(m)?;
    shanten::register(m)?;
    score::register(m)?;
    ting::register(m)?;
    game::register(m)?;
    bench::register(m)?;
    ints::register(m)?;
    rank::register(m)?;
    record::register(m)?;
    vec_env::register(m)?;
    position::register(m)?;
    arena::register(m)?;
    agent::register(m)?;
    Ok(())
}
