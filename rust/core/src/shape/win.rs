//! Win detection.

use super::ShapeRules;
use crate::hand::Hand;
use crate::tile::Counts;
use crate::wildcard::Wildcards;

/// Whether `concealed` (which must hold `14 - 3 × n_melds` tiles, wild
/// tiles at their own index) plus `n_melds` melds is a complete hand.
///
/// ```
/// use koudian_core::{shape::{is_win, ShapeRules}, tile::{parse, counts_of}, Wildcards, Tile};
/// let c = counts_of(&parse("123m456p789s11233z").unwrap()).unwrap();
/// assert!(!is_win(&c, 0, &Wildcards::NONE, &ShapeRules::ALL));
/// let w = Wildcards::new(&[Tile::EAST]).unwrap();
/// assert!(is_win(&c, 0, &w, &ShapeRules::ALL));
/// ```
pub fn is_win(concealed: &Counts, n_melds: usize, wilds: &Wildcards, rules: &ShapeRules) -> bool {
    let melds = vec![crate::hand::Meld::new(crate::hand::MeldKind::Pong, crate::Tile::M1); n_melds];
    // Interim implementation through decomposition; replaced by tables.
    match Hand::new(*concealed, &[]) {
        Ok(mut h) => {
            for m in melds {
                if h.push_meld(m).is_err() {
                    return false;
                }
            }
            !super::decompose(&h, wilds, rules).is_empty()
        }
        Err(_) => false,
    }
}
