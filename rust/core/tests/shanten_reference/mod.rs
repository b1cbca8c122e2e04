//! The shanten references of `tests/shanten.rs` (an exhaustive search,
//! the closed-form-free seven pairs and thirteen orphans, the seeded hand
//! generator), shared with `tests/simd.rs`, which checks every
//! instruction-set path of `shanten_batch` against them. Each test crate
//! uses only some of them.
#![allow(dead_code)]

use crate::common::Rng;
use koudian_core::shape::ShapeRules;
use koudian_core::tile::{Counts, Tile, KINDS};
use koudian_core::Wildcards;

/// A random legal hand: `n_melds` melds (pongs), and `13 - 3n` or
/// `14 - 3n` concealed tiles. Half the hands are drawn from the wall at
/// random, half are a random complete hand with a few tiles swapped, so
/// that low shanten is well covered. `bias` kinds get extra copies (wild
/// kinds, so hands hold several wild tiles).
pub fn random_hand(rng: &mut Rng, bias: &[usize]) -> (Counts, usize) {
    let n_melds = [0, 0, 0, 1, 2, 3, 4][rng.below(7)];
    let size = 13 + rng.below(2) - 3 * n_melds;
    let mut left = [4u8; KINDS];
    for _ in 0..n_melds {
        // Meld kinds only reduce what is left.
        let k = rng.below(KINDS);
        if left[k] >= 3 {
            left[k] -= 3;
        }
    }
    let mut c = [0u8; KINDS];
    let mut n = 0;
    let take = |c: &mut Counts, k: usize, left: &mut [u8; KINDS], n: &mut usize| {
        if *n < size && left[k] > 0 {
            left[k] -= 1;
            c[k] += 1;
            *n += 1;
        }
    };
    if rng.below(2) == 0 {
        // Near-complete: sets and a pair, then swap 0-3 tiles.
        let pair = rng.below(KINDS);
        take(&mut c, pair, &mut left, &mut n);
        take(&mut c, pair, &mut left, &mut n);
        for _ in 0..8 {
            if rng.below(2) == 0 {
                let s = rng.below(3) * 9 + rng.below(7);
                for k in s..s + 3 {
                    take(&mut c, k, &mut left, &mut n);
                }
            } else {
                let k = rng.below(KINDS);
                for _ in 0..3 {
                    take(&mut c, k, &mut left, &mut n);
                }
            }
        }
        for _ in 0..rng.below(4) {
            let held: Vec<usize> = (0..KINDS).filter(|&k| c[k] > 0).collect();
            if held.is_empty() {
                break;
            }
            let k = held[rng.below(held.len())];
            c[k] -= 1;
            left[k] += 1;
            n -= 1;
        }
    }
    for &b in bias {
        for _ in 0..rng.below(3) {
            take(&mut c, b, &mut left, &mut n);
        }
    }
    while n < size {
        let k = rng.below(KINDS);
        take(&mut c, k, &mut left, &mut n);
    }
    (c, n_melds)
}

/// [`random_hand`] of `size - 3 × melds` concealed tiles.
pub fn sized_hand(rng: &mut Rng, bias: &[usize], size: usize) -> (Counts, usize) {
    loop {
        let (c, m) = random_hand(rng, bias);
        if c.iter().map(|&n| n as usize).sum::<usize>() == size - 3 * m {
            return (c, m);
        }
    }
}

pub fn random_wilds(rng: &mut Rng, kinds: usize) -> Vec<usize> {
    let a = rng.below(KINDS);
    let mut v = vec![a];
    if kinds == 2 {
        let mut b = rng.below(KINDS);
        while b == a {
            b = rng.below(KINDS);
        }
        v.push(b);
    }
    v.truncate(kinds);
    v
}

pub fn wildcards(kinds: &[usize]) -> Wildcards {
    let tiles: Vec<Tile> = kinds.iter().map(|&k| Tile::new(k as u8).unwrap()).collect();
    Wildcards::new(&tiles).unwrap()
}

// ------------------------------------------------ reference 1: search

/// A kept part of one set or of the pair: the kinds it holds.
#[derive(Clone, Copy)]
pub struct Block {
    kinds: [usize; 3],
    len: usize,
    pair: bool,
}

/// Every set (as kinds) containing all of `block`'s kinds.
pub fn completions(b: &Block, wind_sets: bool) -> Vec<[usize; 3]> {
    let kinds = &b.kinds[..b.len];
    if b.pair {
        return vec![[kinds[0], kinds[0], usize::MAX]];
    }
    let mut all: Vec<[usize; 3]> = Vec::new();
    for k in 0..KINDS {
        all.push([k, k, k]);
    }
    for s in 0..3 {
        for r in 0..7 {
            let k = 9 * s + r;
            all.push([k, k + 1, k + 2]);
        }
    }
    if wind_sets {
        for g in [&[27usize, 28, 29, 30][..], &[31, 32, 33][..]] {
            for a in 0..g.len() {
                for bb in a + 1..g.len() {
                    for d in bb + 1..g.len() {
                        all.push([g[a], g[bb], g[d]]);
                    }
                }
            }
        }
    }
    all.retain(|set| {
        // kinds (a multiset) must fit inside set
        let mut rest = set.to_vec();
        kinds
            .iter()
            .all(|k| match rest.iter().position(|x| x == k) {
                Some(i) => {
                    rest.remove(i);
                    true
                }
                None => false,
            })
    });
    all
}

/// Whether the blocks can be completed to sets and a pair with at most
/// 4 copies of each kind (the scratch sets fit anywhere: ≤ 14 target tiles
/// leave kinds unused).
pub fn completable(blocks: &[Block], wind_sets: bool, i: usize, t: &mut [u8; KINDS]) -> bool {
    if i == blocks.len() {
        return true;
    }
    for set in completions(&blocks[i], wind_sets) {
        let kinds: Vec<usize> = set.iter().copied().filter(|&k| k != usize::MAX).collect();
        for &k in &kinds {
            t[k] += 1;
        }
        let ok = kinds.iter().all(|&k| t[k] <= 4);
        if ok && completable(blocks, wind_sets, i + 1, t) {
            for &k in &kinds {
                t[k] -= 1;
            }
            return true;
        }
        for &k in &kinds {
            t[k] -= 1;
        }
    }
    false
}

pub struct Search {
    capped: bool,
    wind_sets: bool,
    best: usize,
    blocks: Vec<Block>,
}

impl Search {
    fn run(&mut self, c: &mut Counts, sets: usize, pair: bool, kept: usize, remaining: usize) {
        let room = 3 * sets + 2 * usize::from(pair);
        if kept + remaining.min(room) <= self.best {
            return;
        }
        let Some(i) = (0..KINDS).find(|&k| c[k] > 0) else {
            if !self.capped || completable(&self.blocks, self.wind_sets, 0, &mut [0; KINDS]) {
                self.best = self.best.max(kept);
            }
            return;
        };
        // Candidate blocks whose lowest kind is i.
        let mut cands: Vec<(Block, usize)> = Vec::new();
        if pair {
            for k in 1..=c[i].min(2) as usize {
                cands.push((
                    Block {
                        kinds: [i; 3],
                        len: k,
                        pair: true,
                    },
                    k,
                ));
            }
        }
        if sets > 0 {
            for k in 1..=c[i].min(3) as usize {
                cands.push((
                    Block {
                        kinds: [i; 3],
                        len: k,
                        pair: false,
                    },
                    k,
                ));
            }
            let mut others: Vec<Vec<usize>> = Vec::new();
            if i < 27 {
                let r = i % 9;
                if r <= 7 {
                    others.push(vec![i + 1]);
                }
                if r <= 6 {
                    others.push(vec![i + 2]);
                    others.push(vec![i + 1, i + 2]);
                }
            } else if self.wind_sets {
                let g: Vec<usize> = if i < 31 {
                    (i + 1..31).collect()
                } else {
                    (i + 1..34).collect()
                };
                for a in 0..g.len() {
                    others.push(vec![g[a]]);
                    for b in a + 1..g.len() {
                        others.push(vec![g[a], g[b]]);
                    }
                }
            }
            for o in others {
                if o.iter().all(|&k| c[k] > 0) {
                    let mut kinds = [i; 3];
                    kinds[1..1 + o.len()].copy_from_slice(&o);
                    cands.push((
                        Block {
                            kinds,
                            len: 1 + o.len(),
                            pair: false,
                        },
                        1 + o.len(),
                    ));
                }
            }
        }
        for (b, n) in cands {
            for &k in &b.kinds[..b.len] {
                c[k] -= 1;
            }
            self.blocks.push(b);
            let (s, p) = if b.pair {
                (sets, false)
            } else {
                (sets - 1, pair)
            };
            self.run(c, s, p, kept + n, remaining - n);
            self.blocks.pop();
            for &k in &b.kinds[..b.len] {
                c[k] += 1;
            }
        }
        // Or throw one copy of i away.
        c[i] -= 1;
        self.run(c, sets, pair, kept, remaining - 1);
        c[i] += 1;
    }
}

/// Fewest tiles the standard shape misses, by search.
pub fn search_standard(natural: &Counts, n_melds: usize, capped: bool, wind_sets: bool) -> usize {
    let mut s = Search {
        capped,
        wind_sets,
        best: 0,
        blocks: Vec::new(),
    };
    let mut c = *natural;
    let remaining = c.iter().map(|&n| n as usize).sum();
    s.run(&mut c, 4 - n_melds, true, 0, remaining);
    14 - 3 * n_melds - s.best
}

/// Seven pairs: 7 pair slots, at most two per kind (4 copies), each slot
/// keeping up to 2 held tiles; keep the 7 best slots.
pub fn search_seven_pairs(natural: &Counts) -> usize {
    let mut slots: Vec<usize> = Vec::new();
    for &n in natural {
        let n = n as usize;
        slots.push(n.min(2));
        slots.push(n.saturating_sub(2).min(2));
    }
    slots.sort_unstable_by(|a, b| b.cmp(a));
    14 - slots[..7].iter().sum::<usize>()
}

/// Thirteen orphans: try each doubled kind.
pub fn search_orphans(natural: &Counts) -> usize {
    let orphans = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];
    orphans
        .iter()
        .map(|&p| {
            let kept: usize = orphans
                .iter()
                .map(|&k| (natural[k] as usize).min(if k == p { 2 } else { 1 }))
                .sum();
            14 - kept
        })
        .min()
        .unwrap()
}

pub fn reference(
    c: &Counts,
    n_melds: usize,
    wilds: &[usize],
    rules: &ShapeRules,
    std: usize,
) -> i8 {
    let mut natural = *c;
    let mut w = 0usize;
    for &k in wilds {
        w += natural[k] as usize;
        natural[k] = 0;
    }
    let mut d = std;
    if n_melds == 0 && rules.seven_pairs {
        d = d.min(search_seven_pairs(&natural));
    }
    if n_melds == 0 && rules.thirteen_orphans {
        d = d.min(search_orphans(&natural));
    }
    // Each wild tile fills one missing slot.
    d.saturating_sub(w) as i8 - 1
}

pub const RULE_SETS: [ShapeRules; 5] = [
    ShapeRules::STANDARD_ONLY,
    ShapeRules {
        seven_pairs: true,
        thirteen_orphans: false,
        wind_sets: false,
    },
    ShapeRules {
        seven_pairs: false,
        thirteen_orphans: true,
        wind_sets: false,
    },
    ShapeRules {
        seven_pairs: false,
        thirteen_orphans: false,
        wind_sets: true,
    },
    ShapeRules::ALL,
];
