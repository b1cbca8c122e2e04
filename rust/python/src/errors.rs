//! The exception hierarchy, and the one mapping from `koudian_core::Error`.

use koudian_core::Error;
use pyo3::create_exception;
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    koudian,
    KoudianError,
    PyValueError,
    "Base of every koudian error; a ValueError."
);
create_exception!(
    koudian,
    InvalidTilesError,
    KoudianError,
    "Unparseable tiles, a bad tile index, or a fifth copy."
);
create_exception!(
    koudian,
    InvalidHandError,
    KoudianError,
    "A hand of the wrong size or shape for the operation."
);
create_exception!(
    koudian,
    RulesetError,
    KoudianError,
    "An unknown, mistyped or inconsistent ruleset option."
);
create_exception!(
    koudian,
    IllegalActionError,
    KoudianError,
    "An action that is not legal now; the state is unchanged."
);
create_exception!(
    koudian,
    InconsistentOutcomeError,
    KoudianError,
    "A finished-hand description that cannot have happened."
);

create_exception!(
    koudian,
    InvalidLogError,
    KoudianError,
    "A game log that is malformed, holds several hands (read those with \
     koudian.read_logs), or does not replay to itself."
);

create_exception!(
    koudian,
    InvalidPositionError,
    KoudianError,
    "A position (an observation and its completion) no table can reach."
);

create_exception!(
    koudian,
    ModelError,
    KoudianError,
    "A model file the nn agent cannot use: its message names the file and \
     what is wrong; the attributes `file` and `kind` (\"not_safetensors\", \
     \"metadata\", \"format\", \"encoding\", \"tensor\", \"dtype\", \
     \"non_finite\", \"family\", \"unreadable\") say it for programs."
);

/// Maps a core error to its Python exception.
pub fn to_py(e: Error) -> PyErr {
    match e {
        Error::InvalidTiles(m) => InvalidTilesError::new_err(m),
        Error::InvalidHand(m) => InvalidHandError::new_err(m),
        Error::InvalidRuleset(m) => RulesetError::new_err(m),
        Error::IllegalAction(m) => IllegalActionError::new_err(m),
        Error::InconsistentOutcome(m) => InconsistentOutcomeError::new_err(m),
        Error::InvalidLog(m) => InvalidLogError::new_err(m),
        Error::InvalidArgument(m) => KoudianError::new_err(m),
        Error::InvalidPosition(m) => InvalidPositionError::new_err(m),
        // Python's own exception for it, which callers already catch.
        Error::OutOfMemory(m) => PyMemoryError::new_err(m),
        Error::InvalidModel(e) => {
            let err = ModelError::new_err(Error::InvalidModel(e.clone()).to_string());
            Python::attach(|py| {
                let v = err.value(py);
                // Setting attributes on a fresh exception cannot fail
                // short of memory; the message says it all anyway.
                let _ = v.setattr("file", &e.file);
                let _ = v.setattr("kind", e.fault.name());
            });
            err
        }
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("KoudianError", py.get_type::<KoudianError>())?;
    m.add("InvalidTilesError", py.get_type::<InvalidTilesError>())?;
    m.add("InvalidHandError", py.get_type::<InvalidHandError>())?;
    m.add("RulesetError", py.get_type::<RulesetError>())?;
    m.add("IllegalActionError", py.get_type::<IllegalActionError>())?;
    m.add(
        "InconsistentOutcomeError",
        py.get_type::<InconsistentOutcomeError>(),
    )?;
    m.add("InvalidLogError", py.get_type::<InvalidLogError>())?;
    m.add(
        "InvalidPositionError",
        py.get_type::<InvalidPositionError>(),
    )?;
    m.add("ModelError", py.get_type::<ModelError>())?;
    Ok(())
}
