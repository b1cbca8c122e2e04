//! PyO3 bindings: conversion and error mapping only, no rules. One file
//! per concept, each registering its functions on the `_core` module.

use pyo3::prelude::*;

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
    Ok(())
}
