//! Winning shapes (docs/rules.md §2): standard 4 sets + pair, seven pairs,
//! thirteen orphans, with 风嘴子 wind sets and wildcards (耗子).
//!
//! [`is_win`] answers "is this complete?"; [`decompose()`] lists every
//! distinct way it completes, which scoring needs.

mod decompose;
pub(crate) mod tables;
mod text;
pub(crate) mod win;

pub use decompose::decompose;
pub use win::{is_win, is_win_batch, is_win_batch_checked};

use crate::ruleset::Ruleset;
use crate::tile::Tile;

/// Which shapes a ruleset allows (the shape part of a [`Ruleset`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShapeRules {
    /// 七小对.
    pub seven_pairs: bool,
    /// 十三幺.
    pub thirteen_orphans: bool,
    /// 风嘴子.
    pub wind_sets: bool,
}

impl ShapeRules {
    /// Standard shape only, no wind sets.
    pub const STANDARD_ONLY: ShapeRules = ShapeRules {
        seven_pairs: false,
        thirteen_orphans: false,
        wind_sets: false,
    };
    /// Every shape and wind sets.
    pub const ALL: ShapeRules = ShapeRules {
        seven_pairs: true,
        thirteen_orphans: true,
        wind_sets: true,
    };
}

impl From<&Ruleset> for ShapeRules {
    fn from(r: &Ruleset) -> Self {
        ShapeRules {
            seven_pairs: r.seven_pairs,
            thirteen_orphans: r.thirteen_orphans,
            wind_sets: r.wind_sets,
        }
    }
}

/// The overall shape of a complete hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shape {
    /// 4 sets + 1 pair (melds count as sets).
    Standard,
    /// 七小对.
    SevenPairs,
    /// 十三幺.
    ThirteenOrphans,
}

/// One concealed set of a standard-shape decomposition, in natural kinds
/// (a wild tile appears as the kind it stands for).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Set {
    /// Three of a kind.
    Triplet(Tile),
    /// Three consecutive ranks of one suit, given by the lowest tile.
    Sequence(Tile),
    /// 风嘴子: three different winds, or 中发白, in index order.
    Honors([Tile; 3]),
}

/// One way a complete hand is formed. Melds are not repeated here: they
/// are the hand's own melds, each a set.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Decomposition {
    /// Which shape.
    pub shape: Shape,
    /// Concealed sets (standard shape), sorted.
    pub sets: Vec<Set>,
    /// The pair kinds: one for the standard shape and thirteen orphans (the
    /// doubled kind), seven for seven pairs (a 4-of-a-kind gives a kind
    /// twice), sorted.
    pub pairs: Vec<Tile>,
    /// For each wild tile held, the kind it stands for, sorted.
    pub wild_as: Vec<Tile>,
}
