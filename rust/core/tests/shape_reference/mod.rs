//! A deliberately simple reference for winning shapes, waits and random
//! hands, shared by the shape tests. No tables: a recursive search that
//! removes a set (or the pair) holding the lowest natural tile, wild tiles
//! filling any member.
#![allow(dead_code)]

use koudian_core::shape::ShapeRules;
use koudian_core::tile::{Counts, Tile};
use koudian_core::Wildcards;

pub const ORPHANS: [usize; 13] = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];

/// Splits counts into natural tiles and the number of wild tiles. Counts
/// here may exceed 4 (a wild tile standing for a 5th copy).
pub fn split(c: &[u8; 34], wilds: &[usize]) -> ([u8; 34], u8) {
    let mut n = *c;
    let mut w = 0;
    for &k in wilds {
        w += n[k];
        n[k] = 0;
    }
    (n, w)
}

/// Every set of three different kinds: the 21 sequences, then the 5 wind
/// and dragon sets of 风嘴子.
pub const MIXED: [[usize; 3]; 26] = {
    let mut v = [[0usize; 3]; 26];
    let mut i = 0;
    while i < 21 {
        let a = 9 * (i / 7) + i % 7;
        v[i] = [a, a + 1, a + 2];
        i += 1;
    }
    v[21] = [27, 28, 29];
    v[22] = [27, 28, 30];
    v[23] = [27, 29, 30];
    v[24] = [28, 29, 30];
    v[25] = [31, 32, 33];
    v
};

/// The sets of three different kinds allowed.
pub fn mixed_sets(wind_sets: bool) -> &'static [[usize; 3]] {
    if wind_sets {
        &MIXED
    } else {
        &MIXED[..21]
    }
}

/// Natural tiles `n` plus `w` wild tiles form sets only (`pair` false) or
/// sets and one pair.
pub fn standard(n: &mut [u8; 34], w: u8, pair: bool, wind_sets: bool) -> bool {
    let Some(i) = n.iter().position(|&x| x > 0) else {
        return if pair {
            w >= 2 && (w - 2).is_multiple_of(3)
        } else {
            w.is_multiple_of(3)
        };
    };
    if pair {
        for nat in 1..=2u8.min(n[i]) {
            let wild = 2 - nat;
            if wild <= w {
                n[i] -= nat;
                let ok = standard(n, w - wild, false, wind_sets);
                n[i] += nat;
                if ok {
                    return true;
                }
            }
        }
    }
    for nat in 1..=3u8.min(n[i]) {
        let wild = 3 - nat;
        if wild <= w {
            n[i] -= nat;
            let ok = standard(n, w - wild, pair, wind_sets);
            n[i] += nat;
            if ok {
                return true;
            }
        }
    }
    for set in mixed_sets(wind_sets) {
        if !set.contains(&i) {
            continue;
        }
        // The copy of i is natural; each other member natural or wild.
        let mut others = [0usize; 2];
        let mut o = 0;
        for &k in set {
            if k != i {
                others[o] = k;
                o += 1;
            }
        }
        for mask in 0..4u8 {
            let mut wild = 0;
            let mut ok = true;
            for (b, &k) in others.iter().enumerate() {
                if mask >> b & 1 == 1 {
                    if n[k] == 0 {
                        ok = false;
                    }
                } else {
                    wild += 1;
                }
            }
            if !ok || wild > w {
                continue;
            }
            n[i] -= 1;
            for (b, &k) in others.iter().enumerate() {
                if mask >> b & 1 == 1 {
                    n[k] -= 1;
                }
            }
            let r = standard(n, w - wild, pair, wind_sets);
            n[i] += 1;
            for (b, &k) in others.iter().enumerate() {
                if mask >> b & 1 == 1 {
                    n[k] += 1;
                }
            }
            if r {
                return true;
            }
        }
    }
    false
}

/// Seven pairs: pair off natural tiles with each other or with wilds.
pub fn seven_pairs(n: &[u8; 34], w: u8) -> bool {
    let mut wild_left = w as i32;
    for &x in n {
        if x % 2 == 1 {
            wild_left -= 1;
        }
    }
    let tiles: u32 = n.iter().map(|&x| x as u32).sum::<u32>() + w as u32;
    tiles == 14 && wild_left >= 0
}

/// Thirteen orphans: some orphan kind is the pair, the natural tiles fit
/// in, wild tiles make up the rest.
pub fn thirteen_orphans(n: &[u8; 34], w: u8) -> bool {
    let tiles: u32 = n.iter().map(|&x| x as u32).sum::<u32>() + w as u32;
    if tiles != 14 {
        return false;
    }
    ORPHANS.iter().any(|&p| {
        (0..34).all(|k| {
            let want = if k == p {
                2
            } else if ORPHANS.contains(&k) {
                1
            } else {
                0
            };
            n[k] <= want
        })
    })
}

/// The reference win check on natural tiles and wild tiles.
pub fn win_split(n: &[u8; 34], w: u8, n_melds: usize, rules: &ShapeRules) -> bool {
    let mut m = *n;
    if standard(&mut m, w, true, rules.wind_sets) {
        return true;
    }
    n_melds == 0
        && ((rules.seven_pairs && seven_pairs(n, w))
            || (rules.thirteen_orphans && thirteen_orphans(n, w)))
}

/// The reference win check (size checked here too).
pub fn win(c: &Counts, n_melds: usize, wilds: &[usize], rules: &ShapeRules) -> bool {
    let total: usize = c.iter().map(|&x| x as usize).sum();
    if n_melds > 4 || total + 3 * n_melds != 14 || c.iter().any(|&x| x > 4) {
        return false;
    }
    let (n, w) = split(c, wilds);
    win_split(&n, w, n_melds, rules)
}

/// Reference waits: (kind, points) for each of the 34 draws.
pub fn waits(
    c: &Counts,
    held: &Counts,
    n_melds: usize,
    wilds: &[usize],
    rules: &ShapeRules,
) -> Vec<(usize, u8)> {
    let mut out = Vec::new();
    let (n, w) = split(c, wilds);
    for k in 0..34 {
        if held[k] >= 4 {
            continue;
        }
        if wilds.contains(&k) {
            // The drawn wild tile stands for some kind t (5th copy allowed).
            let mut best = None;
            for t in 0..34 {
                let mut m = n;
                m[t] += 1;
                if win_split(&m, w, n_melds, rules) {
                    let p = Tile::new(t as u8).unwrap().points();
                    best = Some(best.map_or(p, |b: u8| b.max(p)));
                }
            }
            if let Some(p) = best {
                out.push((k, p));
            }
        } else {
            let mut m = n;
            m[k] += 1;
            if win_split(&m, w, n_melds, rules) {
                out.push((k, Tile::new(k as u8).unwrap().points()));
            }
        }
    }
    out
}

/// Seeded SplitMix64.
pub use crate::common::Rng;

/// Every shape-option combination.
pub fn all_rules() -> Vec<ShapeRules> {
    let mut v = Vec::new();
    for bits in 0..8 {
        v.push(ShapeRules {
            seven_pairs: bits & 1 != 0,
            thirteen_orphans: bits & 2 != 0,
            wind_sets: bits & 4 != 0,
        });
    }
    v
}

/// A random test hand: concealed counts with `size` tiles, and the
/// player's held counts (melds' physical tiles included), for `n_melds`
/// pongs. Half the time built from sets + pair (so wins and waits are
/// frequent) and perturbed, otherwise drawn at random; wild kinds are
/// chosen among the hand's own kinds half the time.
pub struct Sample {
    pub concealed: Counts,
    pub held: Counts,
    pub n_melds: usize,
    pub wilds: Vec<usize>,
}

pub fn sample(rng: &mut Rng, size_full: usize, n_wild_kinds: usize, wind_sets: bool) -> Sample {
    loop {
        let n_melds = [0, 0, 0, 1, 2, 3, 4][rng.below(7)];
        let size = size_full - 3 * n_melds;
        let mut held = [0u8; 34];
        for _ in 0..n_melds {
            let k = rng.below(34);
            held[k] += if rng.below(4) == 0 { 4 } else { 3 };
        }
        let mut c = [0u8; 34];
        let mixed = mixed_sets(wind_sets);
        match rng.below(4) {
            0 | 1 => {
                // Sets + pair, then 0-2 tiles swapped for random ones.
                let mut tiles = Vec::new();
                if size_full == 14 && n_melds == 0 && rng.below(4) == 0 {
                    // Seven-pairs-like or orphans-like.
                    if rng.below(2) == 0 {
                        for _ in 0..7 {
                            let k = rng.below(34);
                            tiles.extend([k, k]);
                        }
                    } else {
                        tiles.extend(ORPHANS);
                        tiles.push(ORPHANS[rng.below(13)]);
                    }
                } else {
                    let k = rng.below(34);
                    tiles.extend([k, k]);
                    while tiles.len() < size {
                        if rng.below(3) == 0 {
                            let k = rng.below(34);
                            tiles.extend([k, k, k]);
                        } else {
                            tiles.extend(mixed[rng.below(mixed.len())]);
                        }
                    }
                }
                while tiles.len() > size {
                    tiles.swap_remove(rng.below(tiles.len()));
                }
                for _ in 0..rng.below(3) {
                    let i = rng.below(tiles.len());
                    tiles[i] = rng.below(34);
                }
                for t in tiles {
                    c[t] += 1;
                }
            }
            2 => {
                // Concentrated in one suit plus honors.
                let s = rng.below(3);
                for _ in 0..size {
                    let k = if rng.below(5) == 0 {
                        27 + rng.below(7)
                    } else {
                        9 * s + rng.below(9)
                    };
                    c[k] += 1;
                }
            }
            _ => {
                for _ in 0..size {
                    c[rng.below(34)] += 1;
                }
            }
        }
        let mut ok = true;
        for k in 0..34 {
            held[k] += c[k];
            if held[k] > 4 {
                ok = false;
            }
        }
        if !ok {
            continue;
        }
        let mut wilds = Vec::new();
        while wilds.len() < n_wild_kinds {
            let k = if rng.below(2) == 0 {
                let present: Vec<usize> = (0..34).filter(|&k| c[k] > 0).collect();
                present[rng.below(present.len())]
            } else {
                rng.below(34)
            };
            if !wilds.contains(&k) {
                wilds.push(k);
            }
        }
        return Sample {
            concealed: c,
            held,
            n_melds,
            wilds,
        };
    }
}

pub fn wildcards(kinds: &[usize]) -> Wildcards {
    let t: Vec<Tile> = kinds.iter().map(|&k| Tile::new(k as u8).unwrap()).collect();
    Wildcards::new(&t).unwrap()
}
