//! A cheap lower bound on a table hand's shanten ([`ReadyBound`]), read
//! off the hand's kind sets ([`KindSets`]): exact when the hand is ready
//! or complete, otherwise a count that proves it is not ready after any
//! discard, so the table skips the shanten look-up for several turns.
//! The isolated-tile count and its table ([`MISSED`]) come first, then
//! the Lagrangian bound of the standard shape, then the exact term.

use super::{halves, standard_bound, standard_missing, Calculator, GroupLanes};
use crate::hand::Hand;
use crate::kind_sets::KindSets;
use crate::shape::ShapeRules;
use crate::tile::KindSet;
use crate::wildcard::Wildcards;

/// The 13 kinds of thirteen orphans (幺九) as a bit set.
const ORPHANS: u64 = KindSet::ORPHANS.0;

/// `MISSED[melds][isolated][held]`: the fewest tiles the standard shape
/// misses, by the isolated-tile count of [`ReadyBound::ready_bound_sets`], for a
/// hand with `melds` melds (at most 4) and `held` natural concealed tiles
/// of which `isolated` are isolated (both at most 14): the concealed size
/// `14 − 3 × melds` less the places [`isolated_filled`] can fill.
/// One load instead of the closed form's divisions and selects. Rows of
/// 16, the 16th a copy of the 15th (what a count clamped to 14 would
/// read): the reader indexes with `& 15`, one instruction, instead of a
/// clamp (three) or a bounds check.
///
/// Likewise 8 meld rows, the last three copies of the 5th (4 melds), read
/// with `& 7` instead of a clamp to 4.
static MISSED: [[[u8; 16]; 16]; 8] = {
    let mut t = [[[0u8; 16]; 16]; 8];
    let mut m0 = 0;
    while m0 < 8 {
        let m = if m0 > 4 { 4 } else { m0 };
        let mut i = 0;
        while i < 16 {
            let mut h = 0;
            while h < 16 {
                let (i2, h2) = (if i > 14 { 14 } else { i }, if h > 14 { 14 } else { h });
                let filled = isolated_filled(i2 as i32, h2 as i32 - i2 as i32, 5 - m as i32);
                let missed = 14 - 3 * m as i32 - filled;
                t[m0][i][h] = if missed < 0 { 0 } else { missed as u8 };
                h += 1;
            }
            i += 1;
        }
        m0 += 1;
    }
    t
};

/// Suit tiles of `present` with another held tile within two ranks.
#[inline]
pub(crate) fn near(present: u64) -> u64 {
    const SUITS: u64 = (1 << 27) - 1;
    // Ranks 1, 2, 8 and 9 of the three suits: shifts must not carry a
    // tile into the neighbouring suit.
    const R1: u64 = 1 | 1 << 9 | 1 << 18;
    const R2: u64 = R1 << 1;
    const R9: u64 = R1 << 8;
    const R8: u64 = R1 << 7;
    let p = present & SUITS;
    ((p & !R9) << 1) | ((p & !(R8 | R9)) << 2) | ((p & !R1) >> 1) | ((p & !(R1 | R2)) >> 2)
}

/// The most places of `blocks` blocks (sets and one pair) that
/// `isolated` tiles (each alone in its block) and `rest` other tiles
/// fill: the best over `j` blocks given to isolated tiles of `j +
/// min(rest, capacity of the others)`, the pair's block holding two.
/// For `j ≥ 1` that is `j + rest` while the other blocks hold the
/// rest, then `3 × blocks − 2j`, so the best `j` is where the rest
/// just fits, or one more. (A `const fn`, so without `min` and `max`:
/// it fills [`MISSED`] at compile time.)
const fn isolated_filled(isolated: i32, rest: i32, blocks: i32) -> i32 {
    const fn min(a: i32, b: i32) -> i32 {
        if a < b {
            a
        } else {
            b
        }
    }
    const fn max(a: i32, b: i32) -> i32 {
        if a > b {
            a
        } else {
            b
        }
    }
    let mut best = min(rest, 3 * blocks - 1);
    let top = min(isolated, blocks);
    if top >= 1 {
        let fit = min(max(blocks - (rest + 2) / 3, 1), top);
        best = max(best, fit + min(rest, 3 * (blocks - fit)));
        if fit < top {
            best = max(best, fit + 1 + min(rest, 3 * (blocks - fit - 1)));
        }
    }
    best
}

/// The ready bound with the shape rules and wild kinds of one hand bound
/// in (a table hand's: [`crate::game`]'s judge holds one).
#[derive(Clone)]
pub(crate) struct ReadyBound {
    shape: ShapeRules,
    /// The wild kinds as a bit set.
    wild_mask: u64,
    /// By melds count: seven pairs' and thirteen orphans' sizes in pairs
    /// and in distinct orphans (7 and 13) where the rules enable them and
    /// the hand has no melds, else a size no count reaches (so that the
    /// ready bound's `size − held` never wins its minimum).
    /// By melds, 8 rows (the last three as the 5th's: a hand holds at
    /// most 4 melds) for the `& 7` index of [`ReadyBound::ready_bound_sets`].
    special_sizes: [[i32; 2]; 8],
    /// The exact shanten's calculator (the judge's too).
    pub(crate) calc: Calculator,
}

impl ReadyBound {
    /// The bound for hands with wild kinds `wilds` under shapes `shape`.
    pub(crate) fn new(wilds: &Wildcards, shape: ShapeRules) -> ReadyBound {
        ReadyBound {
            shape,
            wild_mask: wilds.mask(),
            special_sizes: std::array::from_fn(|n| {
                let n = n.min(4);
                let size = |on: bool, size: i32| if on && n == 0 { size } else { 100 };
                [size(shape.seven_pairs, 7), size(shape.thirteen_orphans, 13)]
            }),
            calc: Calculator::new(wilds, &shape),
        }
    }

    /// Isolated tiles of `present` (kinds held) among `single` (kinds
    /// held once): a suit tile with no other held tile within two ranks of
    /// it, or an honor alone in its group (its own kind only, unless
    /// 风嘴子 groups the winds and the dragons). Bit `i` is kind `i`.
    #[inline]
    fn isolated(&self, present: u64, single: u64) -> u32 {
        const SUITS: u64 = (1 << 27) - 1;
        const WINDS: u64 = 0xF << 27;
        const DRAGONS: u64 = 0x7 << 31;
        // The isolated kinds as one set, counted by one POPCNT (the build
        // targets x86-64-v2); the group tests select masks, no branch.
        let lone = single & SUITS & !near(present);
        let honors = if self.shape.wind_sets {
            // A group counts when a single kind of it is held.
            let held = present >> 27;
            let (w, d) = (held & 0xF, held >> 4);
            let lone_group = |g: u64, mask: u64| {
                if g != 0 && g & (g - 1) == 0 {
                    mask
                } else {
                    0
                }
            };
            lone_group(w, WINDS) | lone_group(d, DRAGONS)
        } else {
            WINDS | DRAGONS
        };
        (lone | single & honors).count_ones()
    }

    /// Whether [`ReadyBound::isolated`] is not zero, without counting.
    #[inline]
    fn any_isolated(&self, present: u64, single: u64) -> bool {
        const SUITS: u64 = (1 << 27) - 1;
        if single & SUITS & !near(present) != 0 {
            return true;
        }
        let honors = single >> 27;
        if self.shape.wind_sets {
            // A group with a single kind held (a power of two) that is
            // held once.
            let held = present >> 27;
            let (w, d) = (held & 0xF, held >> 4);
            (w & (w.wrapping_sub(1)) == 0 && honors & 0xF != 0)
                || (d & (d.wrapping_sub(1)) == 0 && honors >> 4 != 0)
        } else {
            honors != 0
        }
    }

    /// A lower bound on the shanten of a complete-size hand (14 − 3 × melds
    /// concealed tiles): exact when it is 0 or less, otherwise a cheap
    /// count that already proves the hand is not ready after any discard.
    ///
    /// The shanten is `max(d − w, 0) − 1`, `d` being the fewest tiles the
    /// natural tiles miss of a complete hand and `w` the wild tiles held.
    /// Seven pairs miss at least `7 − pairs` tiles and thirteen orphans
    /// `13 − distinct orphans`. For the standard shape (`b = 5 − melds`
    /// blocks: sets and one pair) count the isolated natural tiles (a
    /// single with no suit neighbour within two ranks, or a lone honor of
    /// its group): a block holding one holds no other tile of the hand. So
    /// if `j` blocks take isolated tiles, the hand fills at most
    /// `j + min(rest, capacity of the other blocks)` places of the target,
    /// and `d` is at least the target size minus the best such count.
    /// Counting them is far cheaper than the table look-ups, and a bound
    /// above 1 lets the table skip the look-up for several turns. The
    /// count (one load from [`MISSED`]) answers about three turns in four
    /// in self-play; the others go to [`ReadyBound::shanten_bound`], whose
    /// near-exact value is carried as well.
    #[cfg(test)]
    pub(crate) fn ready_bound(&self, hand: &Hand) -> i8 {
        self.ready_bound_sets(hand, &KindSets::of(&hand.concealed))
    }

    /// `ReadyBound::ready_bound` (its test-build wrapper) with the hand's kind
    /// sets already known.
    #[inline(always)]
    pub(crate) fn ready_bound_sets(&self, hand: &Hand, sets: &KindSets) -> i8 {
        // Wild tiles and wild pairs from the kind sets: a kind held n
        // times is in the first n sets, and makes a pair per set 2 and 4.
        let wild = |i: usize| (sets.at_least[i] & self.wild_mask).count_ones() as i32;
        // Most rulesets have no wild kinds (a branch taken the same way
        // for the whole hand): skip the four counts.
        let (w, wild_pairs) = if self.wild_mask == 0 {
            (0, 0)
        } else {
            let wild_pairs = self.wild_pairs(sets);
            (wild(0) + wild(2) + wild_pairs, wild_pairs)
        };
        let present = sets.held() & !self.wild_mask;
        let single = sets.single() & !self.wild_mask;
        let held = sets.tiles - w;
        let pairs = sets.pairs - wild_pairs;
        // At most 4 melds: the mask is the clamp to 4 it replaces (rows 5
        // to 7 of the tables repeat row 4 all the same).
        debug_assert!(hand.n_melds() <= 4);
        let n_melds = hand.n_melds() & 7;
        // Isolated tiles each take a block of their own: the best split
        // (j blocks for them, the rest for the others) in a table.
        let isolated = self.isolated(present, single) as usize;
        // A table hand holds 14 − 3 × melds tiles: `held` is at most 14,
        // and `isolated` (kinds held once) at most `held`, so the masks
        // below are the clamps to 14 they replace.
        debug_assert!(
            isolated <= 14 && (0..=14).contains(&held),
            "{isolated} {held}"
        );
        let missed = i32::from(MISSED[n_melds][isolated & 15][held as usize & 15]);
        // Seven pairs and thirteen orphans, where the rules and the melds
        // allow them, without a branch on the melds count (which follows
        // the random hands).
        let [pair_shape, orphan_shape] = self.special_sizes[n_melds];
        let missed = missed
            .min(pair_shape - pairs)
            .min(orphan_shape - (present & ORPHANS).count_ones() as i32);
        // max(missed − w, 0) − 1 where that is 1 or more (at most 13: the
        // table holds at most 14).
        let lb = missed - w - 1;
        if lb >= 1 {
            return lb as i8;
        }
        self.shanten_bound(hand, sets, w as u8, pairs)
    }

    /// The shanten of a complete-size table hand (kind sets `sets`, `w`
    /// wild tiles, `pairs` natural pairs) where it is 0 or less, else a
    /// lower bound that is 1 or more: first the standard term's
    /// Lagrangian bound ([`standard_bound`], exact on about 99% of the
    /// hands that reach here), and only when that allows a ready hand the
    /// exact term from the groups' products. The value is
    /// [`Calculator::shanten`]'s (or below it, when at least 1), with the
    /// special shapes counted from the kind sets (odd counts, orphan
    /// kinds) instead of passes over the counts, and the wild kinds
    /// masked inside the key computation instead of in a copy of the
    /// counts. A table hand always has the complete size (checked by the
    /// table's own bookkeeping), so the checked entry point's validation
    /// is skipped; tests compare the two on many random hands.
    #[inline(never)]
    fn shanten_bound(&self, hand: &Hand, sets: &KindSets, w: u8, pairs: i32) -> i8 {
        let n_melds = hand.n_melds();
        let lanes = self.calc.natural_lanes(&hand.concealed);
        let special = self.special_missing(sets, pairs, n_melds);
        let bound = standard_bound(&lanes, 4usize.saturating_sub(n_melds)).min(special);
        let lb = bound.saturating_sub(w) as i8 - 1;
        if lb >= 1 {
            return lb;
        }
        let (ab, cd) = halves(&GroupLanes(lanes));
        let d = standard_missing(&ab, &cd, n_melds).min(special);
        d.saturating_sub(w) as i8 - 1
    }

    /// The fewest tiles that the special shapes the rules enable (seven
    /// pairs, thirteen orphans) miss for a hand with kind sets `sets`
    /// holding `pairs` natural pairs, counting natural tiles only
    /// (`u8::MAX` with melds or without special shapes): the closed forms
    /// of the shanten module, read off the kind sets.
    #[inline(always)]
    pub(crate) fn special_missing(&self, sets: &KindSets, pairs: i32, n_melds: usize) -> u8 {
        let mut d = u8::MAX;
        if n_melds == 0 {
            let natural = !self.wild_mask;
            if self.shape.seven_pairs {
                // Each missing pair takes a tile onto a kind held an odd
                // number of times, else two new tiles.
                let a = &sets.at_least;
                let odd = ((a[0] ^ a[1] ^ a[2] ^ a[3]) & natural).count_ones() as i32;
                let missing = (7 - pairs).max(0);
                d = d.min((missing + (missing - odd).max(0)) as u8);
            }
            if self.shape.thirteen_orphans {
                let kinds = (sets.held() & natural & ORPHANS).count_ones() as u8;
                let pair = u8::from(sets.two() & natural & ORPHANS != 0);
                d = d.min(14 - kinds - pair);
            }
        }
        d
    }

    /// Pairs of wild tiles among the kind sets `sets` (a kind held `n`
    /// times makes a pair in sets 2 and 4).
    #[inline(always)]
    pub(crate) fn wild_pairs(&self, sets: &KindSets) -> i32 {
        ((sets.at_least[1] & self.wild_mask).count_ones()
            + (sets.at_least[3] & self.wild_mask).count_ones()) as i32
    }

    /// A cheap proof that complete-size concealed counts with kind sets
    /// `present` and `single` (wild kinds included) do not win: without
    /// wild tiles every tile of a complete hand shares a set or a pair
    /// with another tile of it (its own kind, a suit neighbour within two
    /// ranks, or an honor of its 风嘴子 group), so an isolated tile rules
    /// the hand out, except for thirteen orphans (no melds).
    #[inline]
    pub(crate) fn surely_not_win(&self, present: u64, single: u64, n_melds: usize) -> bool {
        if self.wild_mask != 0 || (self.shape.thirteen_orphans && n_melds == 0) {
            return false;
        }
        self.any_isolated(present, single)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ruleset::Ruleset;
    use crate::shanten::shanten_counts;
    use crate::shape::is_win;
    use crate::testing::{table_hand as hand, Rng};
    use crate::tile::KINDS;

    #[test]
    fn ready_bound_is_a_lower_bound_and_exact_when_ready_and_isolated_tiles_never_win() {
        let mut r = Rng(12345);
        let presets = [Ruleset::shanxi(), Ruleset::linxian(), Ruleset::sichuan()];
        let wild_sets = crate::testing::wild_sets();
        let mut bound_exact = 0;
        for i in 0..60_000u64 {
            let rules = &presets[(i % 3) as usize];
            let wilds = wild_sets[(i / 3 % 3) as usize];
            for shape in [
                ShapeRules::from(rules),
                ShapeRules::ALL,
                ShapeRules::STANDARD_ONLY,
            ] {
                let j = ReadyBound::new(&wilds, shape);
                let n_melds = r.below(5) as usize;
                let noise = r.below(14);
                let h = hand(&mut r, n_melds, noise);
                let exact = shanten_counts(&h.concealed, h.n_melds(), &wilds, &shape).unwrap();
                let lb = j.ready_bound(&h);
                let ks = KindSets::of(&h.concealed);
                assert_eq!(
                    j.any_isolated(ks.held(), ks.single()),
                    j.isolated(ks.held(), ks.single()) > 0
                );
                if j.surely_not_win(ks.held(), ks.single(), h.n_melds()) {
                    assert!(
                        !is_win(&h.concealed, h.n_melds(), &wilds, &shape),
                        "{h:?} {wilds:?} {shape:?}: a winning hand ruled out"
                    );
                }
                assert!(
                    lb <= exact,
                    "{h:?} {wilds:?} {shape:?}: bound {lb} > {exact}"
                );
                if lb <= 0 || exact <= 0 {
                    assert_eq!(lb, exact, "{h:?} {wilds:?} {shape:?}");
                }
                // The second stage on its own, whatever the isolated
                // tiles say: a lower bound, exact when ready.
                let (natural, w) = wilds.split(&h.concealed);
                let pairs: i32 = natural.iter().map(|&n| i32::from(n / 2)).sum();
                let sb = j.shanten_bound(&h, &ks, w, pairs);
                assert!(sb <= exact, "{h:?} {wilds:?} {shape:?}: {sb} > {exact}");
                if sb <= 0 || exact <= 0 {
                    assert_eq!(sb, exact, "{h:?} {wilds:?} {shape:?}");
                }
                bound_exact += usize::from(sb == exact);
                assert_eq!(
                    j.special_missing(&ks, pairs, h.n_melds()),
                    plain_special_missing(&natural, h.n_melds(), &shape),
                    "{h:?} {wilds:?} {shape:?}"
                );
                assert_eq!(j.wild_pairs(&ks), {
                    let all: i32 = h.concealed.iter().map(|&n| i32::from(n / 2)).sum();
                    all - pairs
                });
            }
        }
        // The Lagrangian stage is exact on nearly every hand (a bound of
        // 0 everywhere would pass the checks above).
        assert!(
            bound_exact > 180_000 * 95 / 100,
            "exact on {bound_exact} of 180000"
        );
    }

    /// The fewest tiles seven pairs and thirteen orphans miss, counted
    /// kind by kind from natural counts (`u8::MAX` with melds or when
    /// the shape rules enable neither).
    fn plain_special_missing(natural: &[u8; KINDS], n_melds: usize, shape: &ShapeRules) -> u8 {
        let mut d = u8::MAX;
        if n_melds > 0 {
            return d;
        }
        if shape.seven_pairs {
            let pairs: usize = natural.iter().map(|&n| usize::from(n / 2)).sum();
            let odd = natural.iter().filter(|&&n| n % 2 == 1).count();
            let missing = 7usize.saturating_sub(pairs);
            d = d.min((missing + missing.saturating_sub(odd)) as u8);
        }
        if shape.thirteen_orphans {
            // The plain reading of 幺九, not the mask under test.
            let orphans: Vec<usize> = crate::tile::Tile::all()
                .filter(|t| t.is_terminal_or_honor())
                .map(|t| t.index())
                .collect();
            let kinds = orphans.iter().filter(|&&k| natural[k] > 0).count();
            let pair = orphans.iter().any(|&k| natural[k] > 1);
            d = d.min((14 - kinds - usize::from(pair)) as u8);
        }
        d
    }

    #[test]
    fn isolated_filled_closed_form_equals_the_search() {
        for blocks in 1..=5 {
            for isolated in 0..=14 {
                for rest in 0..=14 {
                    let mut filled = 0;
                    for j in 0..=isolated.min(blocks) {
                        let capacity = if j == 0 {
                            3 * blocks - 1
                        } else {
                            3 * (blocks - j)
                        };
                        filled = filled.max(j + rest.min(capacity));
                    }
                    assert_eq!(
                        isolated_filled(isolated, rest, blocks),
                        filled,
                        "{isolated} {rest} {blocks}"
                    );
                    // The table the ready bound reads, for every hand
                    // size it can meet.
                    let (melds, held) = (5 - blocks, isolated + rest);
                    if held <= 14 {
                        assert_eq!(
                            i32::from(MISSED[melds as usize][isolated as usize][held as usize]),
                            (14 - 3 * melds - filled).max(0),
                            "{isolated} {rest} {blocks}"
                        );
                    }
                }
            }
        }
    }
}
