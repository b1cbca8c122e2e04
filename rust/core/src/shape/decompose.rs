//! Every distinct decomposition of a complete hand (docs/rules.md §2), wild
//! assignments included. Scoring reads `sets`, `pairs` and `shape`.
//!
//! **Which decompositions are listed.** A decomposition is a multiset of
//! concealed sets plus the pair(s), in natural kinds, such that the natural
//! tiles fit in and the wild tiles make up the rest (`wild_as`). Wild
//! tiles can stand for anything, so a set or pair made *only* of wild
//! tiles could be any of dozens of sets; listing all of them would bury the
//! distinct ways the natural tiles combine. Decision: every set and pair
//! holds at least one natural tile, except that the wild tiles left over
//! once the natural tiles are placed are reported as triplets (and, for
//! the pair or seven pairs, pairs) of the *filler* kind: the lowest-index
//! wild kind the hand holds, standing for itself. (Natural tiles are never
//! of a wild kind, so filler sets are exactly the all-wild ones.) A pair
//! of kind `k` with two wild tiles standing for `k` is all-wild too (the
//! two wild tiles form the pair, the sets keep the natural `k`s), so it is
//! reported once, as the filler pair, not once per kind `k`. Thirteen
//! orphans lists every orphan kind that can be the pair, since its tiles
//! are fixed.
//!
//! Method: a depth-first search that places the pair, then repeatedly the
//! set holding the lowest natural tile left (each other member natural or
//! wild), pruned by the need tables (the natural tiles left must fit the
//! wild tiles left), then sorted and deduplicated.

use super::tables::need0;
use super::win::{group_keys, Checker};
use super::{Decomposition, Set, Shape, ShapeRules};
use crate::hand::Hand;
use crate::tile::{Counts, Tile, KINDS};
use crate::wildcard::Wildcards;

use crate::tile::ORPHAN_KINDS as ORPHANS;

/// Every distinct way `hand` (complete: `14 - 3 × melds` concealed tiles)
/// forms a winning shape allowed by `rules`, wild tiles included, sorted.
/// Empty when the hand is not complete or not a win. See the module
/// documentation for how sets made only of wild tiles are reported.
///
/// ```
/// use koudian_core::{hand::Hand, shape::{decompose, ShapeRules, Shape, Set}, tile::{parse, Tile}, Wildcards};
/// let hand = Hand::from_tiles(&parse("11122233344455m").unwrap(), &[]).unwrap();
/// let ds = decompose(&hand, &Wildcards::NONE, &ShapeRules::ALL);
/// assert!(ds.len() >= 2);
/// assert!(ds.iter().all(|d| d.shape == Shape::Standard && d.wild_as.is_empty()));
/// // With 中 wild, 中中中 is reported as a triplet of 中 standing for itself.
/// let red = Wildcards::new(&[Tile::RED]).unwrap();
/// let hand = Hand::from_tiles(&parse("123m456p789s11z777z").unwrap(), &[]).unwrap();
/// let ds = decompose(&hand, &red, &ShapeRules::STANDARD_ONLY);
/// assert!(ds.iter().any(|d| d.sets.contains(&Set::Triplet(Tile::RED))));
/// ```
pub fn decompose(hand: &Hand, wilds: &Wildcards, rules: &ShapeRules) -> Vec<Decomposition> {
    let checker = Checker::new(wilds, rules);
    let n_melds = hand.n_melds();
    if !checker.is_win(&hand.concealed, n_melds) {
        return Vec::new();
    }
    let (natural, w) = wilds.split(&hand.concealed);
    let filler = wilds
        .kinds()
        .filter(|t| hand.concealed[t.index()] > 0)
        .min()
        .map(|t| t.index());
    let mut search = Search {
        checker: &checker,
        natural,
        filler,
        rules,
        out: Vec::new(),
    };
    search.standard(w);
    if n_melds == 0 {
        if rules.seven_pairs {
            search.seven_pairs(w);
        }
        if rules.thirteen_orphans {
            search.thirteen_orphans();
        }
    }
    let mut out = search.out;
    out.sort();
    out.dedup();
    out
}

fn tile(i: usize) -> Tile {
    Tile::from_index_unchecked(i as u8)
}

struct Search<'a> {
    checker: &'a Checker,
    natural: Counts,
    filler: Option<usize>,
    rules: &'a ShapeRules,
    out: Vec<Decomposition>,
}

/// One set under construction: its report and its three kinds.
type Unit = (Set, [usize; 3]);

impl Search<'_> {
    /// Fewest wild tiles that turn the natural tiles `c` into sets.
    fn sets_need(&self, c: &Counts) -> i32 {
        let k = group_keys(c);
        need0(self.checker.entry(0, k[0]))
            + need0(self.checker.entry(1, k[1]))
            + need0(self.checker.entry(2, k[2]))
            + need0(self.checker.honor[k[3] as usize])
    }

    fn standard(&mut self, w: u8) {
        let mut c = self.natural;
        let mut sets: Vec<Unit> = Vec::with_capacity(4);
        for p in 0..KINDS {
            // The pair holds 2, 1 or (only as the filler pair) 0 naturals.
            for nat in (0..=2u8).rev() {
                let wild = 2 - nat;
                let ok = match nat {
                    0 => self.filler == Some(p),
                    _ => c[p] >= nat,
                };
                if !ok || wild > w {
                    continue;
                }
                c[p] -= nat;
                self.sets(&mut c, w - wild, &mut sets, p);
                c[p] += nat;
            }
        }
    }

    /// Places the set holding the lowest natural tile of `c`, recursively.
    fn sets(&mut self, c: &mut Counts, w: u8, sets: &mut Vec<Unit>, pair: usize) {
        if self.sets_need(c) > w as i32 {
            return;
        }
        let Some(i) = c.iter().position(|&n| n > 0) else {
            // Only wild tiles left: whole filler triplets (w is 0 mod 3
            // here, as the tile count is).
            let n = sets.len();
            if w > 0 {
                let Some(f) = self.filler else { return };
                for _ in 0..w / 3 {
                    sets.push((Set::Triplet(tile(f)), [f; 3]));
                }
            }
            self.emit_standard(sets, pair);
            sets.truncate(n);
            return;
        };
        let mut candidates: [Option<Unit>; 8] = [None; 8];
        let mut n_cand = 0;
        let mut push = |u: Unit| {
            candidates[n_cand] = Some(u);
            n_cand += 1;
        };
        push((Set::Triplet(tile(i)), [i; 3]));
        if i < 27 {
            let r = i % 9;
            for start in r.saturating_sub(2)..=r.min(6) {
                let s = i - r + start;
                push((Set::Sequence(tile(s)), [s, s + 1, s + 2]));
            }
        } else if self.rules.wind_sets {
            let group: &[[usize; 3]] = if i < 31 {
                &[[27, 28, 29], [27, 28, 30], [27, 29, 30], [28, 29, 30]]
            } else {
                &[[31, 32, 33]]
            };
            for k in group.iter().filter(|k| k.contains(&i)) {
                push((Set::Honors([tile(k[0]), tile(k[1]), tile(k[2])]), *k));
            }
        }
        for &(set, kinds) in candidates.iter().take(n_cand).flatten() {
            // One copy of i is natural; each other member is natural
            // (when one is left) or wild, in every combination.
            let others: [usize; 2] = {
                let mut o = [0; 2];
                let mut j = 0;
                let mut skipped = false;
                for &k in &kinds {
                    if k == i && !skipped {
                        skipped = true;
                    } else {
                        o[j] = k;
                        j += 1;
                    }
                }
                o
            };
            c[i] -= 1;
            for mask in 0..4u8 {
                let mut taken = [false; 2];
                let mut ok = true;
                let mut wild = 0u8;
                for b in 0..2 {
                    if mask >> b & 1 == 1 {
                        if c[others[b]] == 0 {
                            ok = false;
                        } else {
                            c[others[b]] -= 1;
                            taken[b] = true;
                        }
                    } else {
                        wild += 1;
                    }
                }
                if ok && wild <= w {
                    sets.push((set, kinds));
                    self.sets(c, w - wild, sets, pair);
                    sets.pop();
                }
                for b in 0..2 {
                    if taken[b] {
                        c[others[b]] += 1;
                    }
                }
            }
            c[i] += 1;
        }
    }

    fn emit_standard(&mut self, sets: &[Unit], pair: usize) {
        let mut total = [0u8; KINDS];
        total[pair] += 2;
        for (_, kinds) in sets {
            for &k in kinds {
                total[k] += 1;
            }
        }
        // Two or more wild tiles standing for the pair's kind: the pair
        // can be those two wild tiles and the sets keep the natural ones,
        // so the pair is all-wild and is reported once, as the filler
        // pair (listed from the filler branch), not once per kind.
        if Some(pair) != self.filler && total[pair] >= self.natural[pair] + 2 {
            return;
        }
        let mut s: Vec<Set> = sets.iter().map(|u| u.0).collect();
        s.sort_unstable();
        let d = Decomposition {
            shape: Shape::Standard,
            sets: s,
            pairs: vec![tile(pair)],
            wild_as: self.wild_as(&total),
        };
        self.out.push(d);
    }

    /// The kinds the wild tiles stand for: the decomposition's tiles minus
    /// the natural ones, in index order.
    fn wild_as(&self, total: &[u8; KINDS]) -> Vec<Tile> {
        let mut v = Vec::new();
        for (k, (&t, &n)) in total.iter().zip(&self.natural).enumerate() {
            for _ in n..t {
                v.push(tile(k));
            }
        }
        v
    }

    /// Every count of pairs per kind: `ceil(n/2)..=n` pairs of a kind
    /// held `n` times naturally (each pair holding a natural tile), filler
    /// pairs for the rest.
    fn seven_pairs(&mut self, w: u8) {
        let held: Vec<usize> = (0..KINDS).filter(|&k| self.natural[k] > 0).collect();
        let mut pairs = vec![0u8; held.len()];
        self.pairs_rec(&held, &mut pairs, 0, w);
    }

    fn pairs_rec(&mut self, held: &[usize], pairs: &mut [u8], j: usize, w: u8) {
        if j == held.len() {
            let used: u32 = pairs.iter().map(|&p| p as u32).sum();
            if used > 7 {
                return;
            }
            let spare = 7 - used;
            let mut list = Vec::with_capacity(7);
            let mut total = [0u8; KINDS];
            for (&k, &p) in held.iter().zip(pairs.iter()) {
                for _ in 0..p {
                    list.push(tile(k));
                }
                total[k] = 2 * p;
            }
            if spare > 0 {
                let Some(f) = self.filler else { return };
                for _ in 0..spare {
                    list.push(tile(f));
                }
                total[f] += 2 * spare as u8;
            }
            list.sort_unstable();
            self.out.push(Decomposition {
                shape: Shape::SevenPairs,
                sets: Vec::new(),
                pairs: list,
                wild_as: self.wild_as(&total),
            });
            return;
        }
        let n = self.natural[held[j]];
        for p in n.div_ceil(2)..=n {
            let wild = 2 * p - n;
            if wild <= w {
                pairs[j] = p;
                self.pairs_rec(held, pairs, j + 1, w - wild);
            }
        }
    }

    fn thirteen_orphans(&mut self) {
        if (0..KINDS).any(|k| self.natural[k] > 0 && !ORPHANS.contains(&k)) {
            return;
        }
        for &p in &ORPHANS {
            let mut total = [0u8; KINDS];
            for &k in &ORPHANS {
                total[k] = 1;
            }
            total[p] = 2;
            if (0..KINDS).all(|k| self.natural[k] <= total[k]) {
                self.out.push(Decomposition {
                    shape: Shape::ThirteenOrphans,
                    sets: Vec::new(),
                    pairs: vec![tile(p)],
                    wild_as: self.wild_as(&total),
                });
            }
        }
    }
}
