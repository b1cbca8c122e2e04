//! Helpers shared by the crate's unit tests: a seeded generator, the
//! four table presets and three wildcard sets.

use crate::ruleset::Ruleset;
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
        Ruleset::preset("shanxi-haozi").unwrap(),
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

/// A tiny deterministic generator for the test hands.
pub(crate) struct Rng(pub(crate) u64);
impl Rng {
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// A hand of `14 - 3 × melds` concealed tiles: a complete hand with
/// `noise` tiles replaced at random (or wholly random tiles), so that
/// both the cheap bound and the exact branch are exercised.
pub(crate) fn table_hand(r: &mut Rng, n_melds: usize, noise: u64) -> crate::hand::Hand {
    loop {
        let mut c = [0u8; crate::tile::KINDS];
        let mut melds = Vec::new();
        for _ in 0..n_melds {
            let k = r.below(crate::tile::KINDS as u64) as usize;
            c[k] += 3;
            melds.push(crate::hand::Meld::new(
                crate::hand::MeldKind::Pong,
                crate::tile::Tile::from_index_unchecked(k as u8),
            ));
        }
        let mut conc = [0u8; crate::tile::KINDS];
        let add =
            |k: usize, conc: &mut [u8; crate::tile::KINDS], c: &mut [u8; crate::tile::KINDS]| {
                conc[k] += 1;
                c[k] += 1;
            };
        for _ in 0..4 - n_melds {
            if r.below(2) == 0 {
                let k = r.below(crate::tile::KINDS as u64) as usize;
                (0..3).for_each(|_| add(k, &mut conc, &mut c));
            } else {
                let s = r.below(3) as usize * 9 + r.below(7) as usize;
                (0..3).for_each(|i| add(s + i, &mut conc, &mut c));
            }
        }
        let k = r.below(crate::tile::KINDS as u64) as usize;
        (0..2).for_each(|_| add(k, &mut conc, &mut c));
        for _ in 0..noise {
            let ks: Vec<usize> = (0..crate::tile::KINDS).filter(|&k| conc[k] > 0).collect();
            let out = ks[r.below(ks.len() as u64) as usize];
            conc[out] -= 1;
            c[out] -= 1;
            let k = r.below(crate::tile::KINDS as u64) as usize;
            add(k, &mut conc, &mut c);
        }
        if c.iter().all(|&n| n <= 4) {
            if let Ok(h) = crate::hand::Hand::new(conc, &melds) {
                return h;
            }
        }
    }
}
