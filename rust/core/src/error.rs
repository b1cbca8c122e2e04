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
        }
    }
}

impl std::error::Error for Error {}
