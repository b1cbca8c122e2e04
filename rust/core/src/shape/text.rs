//! The names and text of a decomposition, as the Python API shows them:
//! [`Shape::name`], [`Set::name`], [`Set::tiles`] and
//! [`Decomposition::describe`].

use super::win::ORPHAN_MASK;
use super::{Decomposition, Set, Shape};
use crate::hand::Meld;
use crate::tile::{format_tiles, Tile};

impl Shape {
    /// `standard`, `seven_pairs` or `thirteen_orphans`.
    pub const fn name(self) -> &'static str {
        match self {
            Shape::Standard => "standard",
            Shape::SevenPairs => "seven_pairs",
            Shape::ThirteenOrphans => "thirteen_orphans",
        }
    }
}

impl Set {
    /// `triplet`, `sequence` or `honors` (风嘴子).
    pub const fn name(self) -> &'static str {
        match self {
            Set::Triplet(_) => "triplet",
            Set::Sequence(_) => "sequence",
            Set::Honors(_) => "honors",
        }
    }

    /// The set's three tiles, in order.
    ///
    /// ```
    /// use koudian_core::shape::Set;
    /// use koudian_core::tile::Tile;
    /// let s = Set::Sequence(Tile::from_notation("7p").unwrap());
    /// assert_eq!(koudian_core::tile::format_tiles(&s.tiles()), "789p");
    /// ```
    pub fn tiles(self) -> [Tile; 3] {
        match self {
            Set::Triplet(t) => [t, t, t],
            Set::Sequence(t) => {
                let i = t.id();
                // A sequence's lowest tile has rank <= 7, so i + 2 stays in
                // its suit.
                [
                    t,
                    Tile::new(i + 1).unwrap_or(t),
                    Tile::new(i + 2).unwrap_or(t),
                ]
            }
            Set::Honors(ts) => ts,
        }
    }
}

impl Decomposition {
    /// The decomposition as text, with the hand's `melds` in parentheses:
    /// `standard: 123m 456m 789m (555z) 11p`, `seven_pairs: 11m 22m …`,
    /// `thirteen_orphans: 19m19p19s12345677z`, and `  (wild as …)` when
    /// wild tiles stand for other kinds.
    pub fn describe(&self, melds: &[Meld]) -> String {
        let pair = |&p: &Tile| format_tiles(&[p, p]);
        let mut parts: Vec<String> = Vec::new();
        match self.shape {
            Shape::Standard => {
                let mut sets: Vec<[Tile; 3]> = self.sets.iter().map(|s| s.tiles()).collect();
                sets.sort_unstable();
                parts.extend(sets.iter().map(|s| format_tiles(s)));
                for m in melds {
                    parts.push(format!(
                        "({})",
                        format_tiles(&vec![m.tile; m.kind.size() as usize])
                    ));
                }
                parts.extend(self.pairs.iter().map(pair));
            }
            Shape::SevenPairs => parts.extend(self.pairs.iter().map(pair)),
            Shape::ThirteenOrphans => {
                let mut all: Vec<Tile> = Tile::all()
                    .filter(|t| ORPHAN_MASK >> t.index() & 1 == 1)
                    .collect();
                all.extend(self.pairs.iter().copied());
                parts.push(format_tiles(&all));
            }
        }
        let mut s = format!("{}: {}", self.shape.name(), parts.join(" "));
        if !self.wild_as.is_empty() {
            let w: Vec<String> = self.wild_as.iter().map(|t| t.to_string()).collect();
            s.push_str(&format!("  (wild as {})", w.join(" ")));
        }
        s
    }
}
