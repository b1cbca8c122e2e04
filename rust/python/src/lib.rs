//! PyO3 bindings: conversion and error mapping only, no rules. One file
//! per concept; `_core` gathers them into submodules by concept
//! (`koudian._core.tiles`, `koudian._core.table`, …, each registered in
//! `sys.modules`), every public name also flat on `_core` (the Python
//! layer's `from koudian._core import X`). Test and benchmark hooks live
//! only in `koudian._core._testing` and `koudian._core._bench`.

use pyo3::prelude::*;

mod action;
mod agent;
mod arena;
mod batch;
mod bench;
mod errors;
mod game;
mod hand;
mod ints;
mod match_state;
mod native_agent;
mod nn;
mod observation;
mod position;
mod rank;
mod record;
mod ruleset;
mod score;
mod seq;
mod shanten;
mod simulate;
mod testing;
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

/// Adds a file's `register` to a submodule.
type Register = fn(&Bound<'_, PyModule>) -> PyResult<()>;

/// Builds the submodule `koudian._core.{name}` from `parts`, makes it an
/// attribute of `core` and an entry of `sys.modules` (so that `import
/// koudian._core.{name}` finds it), and, when `flat`, adds each of its
/// public names to `core` too.
fn submodule(
    core: &Bound<'_, PyModule>,
    name: &str,
    parts: &[Register],
    flat: bool,
) -> PyResult<()> {
    let py = core.py();
    let full = format!("koudian._core.{name}");
    let m = PyModule::new(py, &full)?;
    for register in parts {
        register(&m)?;
    }
    if flat {
        for (k, v) in m.dict().iter() {
            let k: String = k.extract()?;
            if !k.starts_with("__") {
                core.add(k, v)?;
            }
        }
    }
    core.add(name, &m)?;
    py.import("sys")?.getattr("modules")?.set_item(full, &m)?;
    Ok(())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    submodule(m, "errors", &[errors::register], true)?;
    submodule(m, "tiles", &[tiles::register], true)?;
    submodule(m, "hands", &[hand::register], true)?;
    submodule(m, "rules", &[ruleset::register], true)?;
    submodule(
        m,
        "shapes",
        &[win::register, waits::register, shanten::register],
        true,
    )?;
    submodule(m, "scoring", &[score::register], true)?;
    submodule(m, "ting", &[ting::register], true)?;
    submodule(
        m,
        "table",
        &[
            action::register,
            observation::register,
            game::register,
            match_state::register,
        ],
        true,
    )?;
    submodule(
        m,
        "agents",
        &[
            native_agent::register,
            nn::register,
            rank::register,
            agent::register,
        ],
        true,
    )?;
    submodule(m, "arena", &[arena::register], true)?;
    submodule(m, "selfplay", &[simulate::register, record::register], true)?;
    submodule(m, "env", &[vec_env::register], true)?;
    submodule(m, "positions", &[position::register], true)?;
    submodule(m, "args", &[ints::register], true)?;
    submodule(m, "_bench", &[bench::register], false)?;
    submodule(m, "_testing", &[testing::register], false)?;
    Ok(())
}
