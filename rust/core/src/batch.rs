//! The batch questions over rows of counts as a caller who hands in raw
//! arrays asks them (the Python binding's `is_win_batch`, `waits_batch`,
//! `shanten_batch`): [`legal`]'s batch functions, and when a row was not
//! a valid hand, why ([`RowError`], naming the row).
//!
//! [`legal`]'s batches answer `false` (no win, no waits) for an invalid
//! row and go on, the fast path staying free of per-row error handling;
//! only when one saw such a row are the suspect rows checked again here,
//! so the reason costs nothing on valid input.
//!
//! ```
//! use koudian_core::batch::{self, RowError, RowSize};
//! use koudian_core::legal::HandRules;
//! use koudian_core::tile::counts_of;
//! use koudian_core::{Error, Ruleset, Wildcards};
//! let rows = [counts_of(&koudian_core::tile::parse("123m456m789m11p").unwrap()).unwrap()];
//! let rules = HandRules::from(&Ruleset::shanxi());
//! let mut out = [false];
//! let e = batch::is_win_batch(&rows, &[0], &Wildcards::NONE, &rules, &mut out, 1);
//! assert_eq!(
//!     e,
//!     Err(Error::from(RowError::Size { row: 0, tiles: 11, melds: 0, size: RowSize::Complete }))
//! );
//! ```

use crate::error::Error;
use crate::legal::{self, HandRules};
use crate::tile::{Counts, KINDS};
use crate::wildcard::Wildcards;
use std::fmt;

/// The size a batch's rows must have, each meld counting as 3 tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowSize {
    /// 14 tiles: a complete hand (`is_win_batch`).
    Complete,
    /// 13 tiles: a hand waiting for its last tile (`waits_batch`).
    Waiting,
    /// 13 or 14 tiles (`shanten_batch`).
    Either,
}

impl RowSize {
    /// Whether `tiles` concealed tiles with `melds` melds have this size.
    pub const fn accepts(self, tiles: usize, melds: usize) -> bool {
        let n = tiles + 3 * melds;
        match self {
            RowSize::Complete => n == 14,
            RowSize::Waiting => n == 13,
            RowSize::Either => n == 13 || n == 14,
        }
    }

    /// The rule, as the error message says it.
    pub const fn describe(self) -> &'static str {
        match self {
            RowSize::Complete => "14 - 3 × melds",
            RowSize::Waiting => "13 - 3 × melds",
            RowSize::Either => "13 or 14 counting each meld as 3",
        }
    }
}

/// Why a row of a batch is not a valid hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowError {
    /// More than 4 copies of a kind ([`Error::InvalidTiles`]).
    Copies {
        /// The row.
        row: usize,
        /// The first kind index with too many copies.
        kind: usize,
        /// The row's largest count.
        count: u8,
    },
    /// The wrong number of tiles for its melds ([`Error::InvalidHand`]).
    Size {
        /// The row.
        row: usize,
        /// Its concealed tiles.
        tiles: usize,
        /// Its melds.
        melds: usize,
        /// The size the batch wants.
        size: RowSize,
    },
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RowError::Copies { row, kind, count } => write!(
                f,
                "row {row}: {count} copies of tile index {kind} (at most 4 of a kind)"
            ),
            RowError::Size {
                row,
                tiles,
                melds,
                size,
            } => write!(
                f,
                "row {row}: {tiles} concealed tiles with {melds} meld(s); expected {}",
                size.describe()
            ),
        }
    }
}

impl From<RowError> for Error {
    fn from(e: RowError) -> Error {
        match e {
            RowError::Copies { .. } => Error::InvalidTiles(e.to_string()),
            RowError::Size { .. } => Error::InvalidHand(e.to_string()),
        }
    }
}

/// The melds of row `row`: `n_melds` holds one entry for every row, or
/// one per row (the batches' convention).
fn melds_of(n_melds: &[u8], row: usize) -> usize {
    match n_melds {
        [n] => usize::from(*n),
        v => v.get(row).map_or(0, |&n| usize::from(n)),
    }
}

/// The first row among those `suspect` selects that is not a valid hand
/// of `size`: a count above 4, or the wrong number of tiles.
pub fn first_bad_row(
    counts: &[Counts],
    n_melds: &[u8],
    size: RowSize,
    suspect: impl Fn(usize) -> bool,
) -> Option<RowError> {
    for (row, c) in counts.iter().enumerate() {
        if !suspect(row) {
            continue;
        }
        let tiles: usize = c.iter().map(|&x| usize::from(x)).sum();
        let count = c.iter().copied().max().unwrap_or(0);
        if count > 4 {
            let kind = c.iter().position(|&x| x > 4).unwrap_or(0);
            return Some(RowError::Copies { row, kind, count });
        }
        let melds = melds_of(n_melds, row);
        if !size.accepts(tiles, melds) {
            return Some(RowError::Size {
                row,
                tiles,
                melds,
                size,
            });
        }
    }
    None
}

/// [`legal::is_win_batch_checked`], an invalid row an error naming it
/// (its slot of `out` is `false`).
pub fn is_win_batch(
    counts: &[Counts],
    n_melds: &[u8],
    wilds: &Wildcards,
    rules: &HandRules,
    out: &mut [bool],
    threads: usize,
) -> Result<(), Error> {
    let all_valid = legal::is_win_batch_checked(counts, n_melds, wilds, rules, out, threads)?;
    if all_valid {
        return Ok(());
    }
    // An invalid row reads as `false`: only those rows need checking.
    match first_bad_row(counts, n_melds, RowSize::Complete, |row| !out[row]) {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// [`legal::waits_batch_checked`] into rows of 34 bools, an invalid row
/// an error naming it.
pub fn waits_batch(
    counts: &[Counts],
    n_melds: &[u8],
    held: &[Counts],
    wilds: &Wildcards,
    rules: &HandRules,
    out: &mut [[bool; KINDS]],
    threads: usize,
) -> Result<(), Error> {
    let all_valid = legal::waits_batch_checked(counts, n_melds, held, wilds, rules, out, threads)?;
    if all_valid {
        return Ok(());
    }
    // An invalid row reads as no waits: only those rows need checking.
    match first_bad_row(counts, n_melds, RowSize::Waiting, |row| {
        !out[row].contains(&true)
    }) {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// [`legal::shanten_batch`], the first invalid row's error saying what
/// is wrong with it.
pub fn shanten_batch(
    counts: &[Counts],
    n_melds: &[u8],
    wilds: &Wildcards,
    rules: &HandRules,
    out: &mut [i8],
    threads: usize,
) -> Result<(), Error> {
    legal::shanten_batch(counts, n_melds, wilds, rules, out, threads).map_err(|e| {
        // The core names the first bad row; say what is wrong with it.
        first_bad_row(counts, n_melds, RowSize::Either, |_| true).map_or(e, Error::from)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ruleset::Ruleset;
    use crate::tile::{counts_of, parse};

    fn row(s: &str) -> Counts {
        counts_of(&parse(s).unwrap()).unwrap()
    }

    #[test]
    fn the_first_bad_suspect_row_is_named() {
        let mut five = row("123m456m789m1122p");
        five[0] = 5;
        let rows = [row("123m456m789m11p"), five, row("123m456m789m1122p")];
        assert_eq!(
            first_bad_row(&rows, &[0], RowSize::Complete, |_| true),
            Some(RowError::Size {
                row: 0,
                tiles: 11,
                melds: 0,
                size: RowSize::Complete
            })
        );
        assert_eq!(
            first_bad_row(&rows, &[0], RowSize::Complete, |r| r > 0),
            Some(RowError::Copies {
                row: 1,
                kind: 0,
                count: 5
            })
        );
        // Row 0 with one meld has 11 + 3 = 14 tiles.
        assert_eq!(
            first_bad_row(&rows[..1], &[1], RowSize::Complete, |_| true),
            None
        );
        assert_eq!(
            first_bad_row(&rows, &[1, 0, 0], RowSize::Either, |r| r != 1),
            None
        );
    }

    #[test]
    fn row_errors_map_to_their_error_kinds() {
        let copies = RowError::Copies {
            row: 3,
            kind: 7,
            count: 6,
        };
        assert_eq!(
            Error::from(copies),
            Error::InvalidTiles("row 3: 6 copies of tile index 7 (at most 4 of a kind)".into())
        );
        let size = RowError::Size {
            row: 2,
            tiles: 12,
            melds: 1,
            size: RowSize::Waiting,
        };
        assert_eq!(
            Error::from(size),
            Error::InvalidHand(
                "row 2: 12 concealed tiles with 1 meld(s); expected 13 - 3 × melds".into()
            )
        );
    }

    #[test]
    fn batches_name_an_invalid_row() {
        let r = HandRules::from(&Ruleset::shanxi());
        let w = Wildcards::NONE;
        let rows = [row("123m456m789m11999p"), row("123m456m789m11p")];
        let mut out = [false; 2];
        let e = is_win_batch(&rows, &[0], &w, &r, &mut out, 1).unwrap_err();
        assert!(
            matches!(e, Error::InvalidHand(ref m) if m.starts_with("row 1: 11")),
            "{e}"
        );
        let mut waits = [[false; KINDS]; 2];
        let e = waits_batch(&rows, &[0], &[], &w, &r, &mut waits, 1).unwrap_err();
        assert!(
            matches!(e, Error::InvalidHand(ref m) if m.starts_with("row 0: 14")),
            "{e}"
        );
        let mut sh = [0i8; 2];
        let e = shanten_batch(&rows, &[0], &w, &r, &mut sh, 1).unwrap_err();
        assert!(
            matches!(e, Error::InvalidHand(ref m) if m.starts_with("row 1: 11")),
            "{e}"
        );
    }
}
