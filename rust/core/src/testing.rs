//! Helpers shared by the crate's unit tests: a seeded generator, the
//! four table presets and three wildcard sets.

use crate::ruleset::{Haozi, Ruleset};
use crate::tile::Tile;
use crate::wildcard::Wildcards;

/// A xorshift64 generator from `seed` (not 0): fast, seeded, and good
/// enough to draw test inputs.
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// Shanxi, Shanxi with one wild kind, Linxian and Sichuan: one ruleset of
/// each table variant.
pub(crate) fn presets() -> [Ruleset; 4] {
    [
        Ruleset::shanxi(),
        Ruleset {
            haozi: Haozi::Single,
            ..Ruleset::shanxi()
        },
        Ruleset::linxian(),
        Ruleset::sichuan(),
    ]
}

/// No wild kind, one (中, an honor), and two (1m and 6p: suited kinds in
/// two suits).
pub(crate) fn wild_sets() -> [Wildcards; 3] {
    [
        Wildcards::NONE,
        Wildcards::new(&[Tile::RED]).expect("one wild kind"),
        Wildcards::new(&[Tile::M1, Tile::from_index_unchecked(14)]).expect("two wild kinds"),
    ]
}
