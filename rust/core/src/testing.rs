//! Helpers shared by the crate's unit tests: a seeded generator and the
//! four table presets.

use crate::ruleset::{Haozi, Ruleset};

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
