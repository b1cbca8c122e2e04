//! Wildcards (耗子): up to two tile kinds that are wild for a hand.

use crate::error::Error;
use crate::tile::{Counts, Tile};

/// The wild kinds of a hand: none, one or two distinct kinds.
///
/// ```
/// use koudian_core::wildcard::Wildcards;
/// use koudian_core::tile::Tile;
/// let w = Wildcards::new(&[Tile::WHITE]).unwrap();
/// assert!(w.is_wild(Tile::WHITE));
/// assert!(!w.is_wild(Tile::RED));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Wildcards {
    kinds: [Option<Tile>; 2],
}

impl Wildcards {
    /// No wildcards.
    pub const NONE: Wildcards = Wildcards {
        kinds: [None, None],
    };

    /// Wild kinds from a list of at most two distinct tiles.
    pub fn new(kinds: &[Tile]) -> Result<Wildcards, Error> {
        match kinds {
            [] => Ok(Wildcards::NONE),
            [a] => Ok(Wildcards {
                kinds: [Some(*a), None],
            }),
            [a, b] if a != b => Ok(Wildcards {
                kinds: [Some(*a), Some(*b)],
            }),
            [a, _] => Err(Error::InvalidTiles(format!("wildcard {a} is given twice"))),
            _ => Err(Error::InvalidTiles(format!(
                "{} wildcard kinds, at most 2",
                kinds.len()
            ))),
        }
    }

    /// The wild kinds.
    pub fn kinds(&self) -> impl Iterator<Item = Tile> + '_ {
        self.kinds.iter().flatten().copied()
    }

    /// Number of wild kinds (0, 1 or 2).
    pub fn len(&self) -> usize {
        self.kinds.iter().flatten().count()
    }

    /// Whether there are no wild kinds.
    pub fn is_empty(&self) -> bool {
        self.kinds[0].is_none()
    }

    /// Whether `t` is wild.
    #[inline]
    pub fn is_wild(&self, t: Tile) -> bool {
        self.kinds[0] == Some(t) || self.kinds[1] == Some(t)
    }

    /// The wild kinds as a bit set (bit `i` for kind index `i`).
    #[inline]
    pub(crate) fn mask(&self) -> u64 {
        self.kinds().fold(0, |m, t| m | 1 << t.index())
    }

    /// Splits concealed counts into natural counts and the number of wild
    /// tiles held.
    #[inline]
    pub fn split(&self, counts: &Counts) -> (Counts, u8) {
        let mut natural = *counts;
        let mut wild = 0;
        for t in self.kinds.iter().flatten() {
            wild += natural[t.index()];
            natural[t.index()] = 0;
        }
        (natural, wild)
    }
}
