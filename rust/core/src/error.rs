//! The one error type of the core. Every fallible public function returns
//! it; the Python binding maps each variant to a typed exception.

use std::fmt;

/// What went wrong, with a message that names the bad input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Unparseable notation, a tile index out of range, a fifth copy.
    InvalidTiles(String),
    /// A hand of the wrong size or shape for the operation.
    InvalidHand(String),
    /// An unknown, mistyped or inconsistent ruleset option.
    InvalidRuleset(String),
    /// A game action that is not legal in the current state.
    IllegalAction(String),
    /// A finished-hand description that cannot have happened.
    InconsistentOutcome(String),
    /// A game log that is malformed, holds several hands, or does not
    /// replay to itself (an edited line, seed or wall).
    InvalidLog(String),
    /// An argument outside its documented range that is none of the
    /// above (a thread count above the limit, a batch of mismatched
    /// lengths).
    InvalidArgument(String),
    /// A position (an observation and its hidden completion) that no table
    /// can reach: a broken tile census, a declared hand not ready, a
    /// completion of the wrong size.
    InvalidPosition(String),
    /// An allocation the operation asked for failed (the system is out
    /// of memory or the process is capped below it); nothing was built.
    /// Only sizes that may be large are reserved fallibly; the rest of
    /// the core's allocations are small.
    OutOfMemory(String),
    /// A model file the `nn` agent cannot use (see
    /// [`crate::agent::nn`]): which file, and what is wrong with it.
    InvalidModel(Box<ModelError>),
}

/// What is wrong with a model file ([`Error::InvalidModel`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelFault {
    /// The file could not be read (missing, unreadable, too large).
    Unreadable,
    /// Not a safetensors file, or one cut short.
    NotSafetensors,
    /// The `koudian` metadata is missing, not JSON, or lacks a field.
    Metadata,
    /// A `format`, `format_version` or `arch` this build does not know.
    Format,
    /// An observation encoding (version, planes, extra inputs) or action
    /// count other than this build's.
    Encoding,
    /// A tensor missing, unexpected, or of the wrong shape.
    Tensor,
    /// A tensor of a dtype other than F32, F16 and BF16.
    Dtype,
    /// A weight that is NaN or infinite.
    NonFinite,
    /// The ruleset's family is not among the model's `families`.
    Family,
}

impl ModelFault {
    /// The fault's name, as the Python binding reports it (`kind`).
    pub const fn name(self) -> &'static str {
        match self {
            ModelFault::Unreadable => "unreadable",
            ModelFault::NotSafetensors => "not_safetensors",
            ModelFault::Metadata => "metadata",
            ModelFault::Format => "format",
            ModelFault::Encoding => "encoding",
            ModelFault::Tensor => "tensor",
            ModelFault::Dtype => "dtype",
            ModelFault::NonFinite => "non_finite",
            ModelFault::Family => "family",
        }
    }
}

/// A refused model file: the file (its path, or a name such as
/// `"<bytes>"` or `"embedded:NAME"`), the kind of fault, and a sentence
/// saying what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    /// The file.
    pub file: String,
    /// The kind of fault.
    pub fault: ModelFault,
    /// What is wrong, in words.
    pub detail: String,
}

impl Error {
    /// An [`Error::InvalidModel`].
    pub fn model(file: &str, fault: ModelFault, detail: impl Into<String>) -> Error {
        Error::InvalidModel(Box::new(ModelError {
            file: file.to_string(),
            fault,
            detail: detail.into(),
        }))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidTiles(m)
            | Error::InvalidHand(m)
            | Error::InvalidRuleset(m)
            | Error::IllegalAction(m)
            | Error::InconsistentOutcome(m)
            | Error::InvalidLog(m) => f.write_str(m),
            Error::InvalidArgument(m) => f.write_str(m),
            Error::InvalidPosition(m) => f.write_str(m),
            Error::OutOfMemory(m) => f.write_str(m),
            Error::InvalidModel(e) => write!(f, "model file {}: {}", e.file, e.detail),
        }
    }
}

impl std::error::Error for Error {}
