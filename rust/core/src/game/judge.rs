//! The table's questions to the hand analysis: may this seat win this
//! tile, may it declare ting, may it kong after ting.
//!
//! This is the engine's only door to the hand rules of docs/rules.md §2-§3; it
//! asks [`crate::shape::is_win`], [`crate::waits`] and [`crate::ting`]
//! and adds only what is the table's: whether the seat has declared, and
//! Sichuan's 缺一门.

use crate::hand::{Hand, Meld};
use crate::legal::misses_a_suit;
use crate::ruleset::{Family, Ruleset};
use crate::shanten::{
    combine, group_key, group_pos, halves, partner_lanes, partner_missing, standard_bound,
    standard_missing, Calculator, GroupLanes, POS_STEP,
};
use crate::shape::win::Checker;
use crate::shape::ShapeRules;
use crate::tile::Tile;
use crate::ting::{may_win, ting_kong_allowed, worth_ting};
#[cfg(test)]
use crate::waits::waits_unchecked;
use crate::waits::{completing_kinds, waits_counts_in_play, waits_of_completing, Waits};
use crate::wildcard::Wildcards;

/// Word-wise summaries of one seat's concealed counts, which the table
/// keeps in step with every change of a count so that a turn's questions
/// need no pass over the 34 counts. `at_least[i]` has bit `k` set when
/// kind `k` is held more than `i` times, so a draw or a discard changes
/// one bit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct KindSets {
    /// Kinds held at least 1, 2, 3, 4 times.
    pub(crate) at_least: [u64; 4],
    /// Concealed tiles.
    pub(crate) tiles: i32,
    /// Pairs (a 4 counting two).
    pub(crate) pairs: i32,
}

impl KindSets {
    /// The summaries of counts `c` (each at most 4), computed afresh.
    #[inline]
    pub(crate) fn of(c: &crate::tile::Counts) -> KindSets {
        #[cfg(target_arch = "x86_64")]
        {
            KindSets::of_sse2(c)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            KindSets::of_words(c)
        }
    }

    /// [`KindSets::of`] in SSE2 (every x86-64 CPU has it): one compare and
    /// one byte-mask per level and 16 kinds (kinds 0-15, 16-31, and 18-33
    /// for the last two), against about 200 instructions for the word
    /// version's gathers. A new table deals four hands, so this is part
    /// of every hand's cost. The tile and pair counts follow from the
    /// sets (a count is the number of levels it reaches; a pair is level
    /// 2, two pairs level 4).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn of_sse2(c: &crate::tile::Counts) -> KindSets {
        use std::arch::x86_64::*;
        let v = crate::tile::KindBytes::load(c);
        let at_least = std::array::from_fn(|l| {
            // SAFETY: SSE2 is part of the x86-64 baseline.
            v.mask(|x| unsafe { _mm_cmpgt_epi8(x, _mm_set1_epi8(l as i8)) })
        });
        let n = |l: usize| at_least[l].count_ones() as i32;
        KindSets {
            at_least,
            tiles: n(0) + n(1) + n(2) + n(3),
            pairs: n(1) + n(3),
        }
    }

    /// [`KindSets::of`] eight counts at a time in 64-bit words.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn of_words(c: &crate::tile::Counts) -> KindSets {
        const LOW: u64 = 0x0101_0101_0101_0101;
        const GATHER: u64 = 0x0102_0408_1020_4080;
        let mut s = KindSets::default();
        for (i, ch) in c.chunks(8).enumerate() {
            let mut b = [0u8; 8];
            b[..ch.len()].copy_from_slice(ch);
            let x = u64::from_le_bytes(b);
            // Counts are at most 4: bit 2 alone means 4.
            let four = x >> 2 & LOW;
            let levels = [
                (x | x >> 1 | x >> 2) & LOW,
                (x >> 1 | x >> 2) & LOW,
                (x & x >> 1 | x >> 2) & LOW,
                four,
            ];
            for (l, f) in s.at_least.iter_mut().zip(levels) {
                *l |= (f.wrapping_mul(GATHER) >> 56) << (8 * i);
            }
            s.tiles += (x.wrapping_mul(LOW) >> 56) as i32;
            s.pairs += (((x >> 1) & (3 * LOW)).wrapping_mul(LOW) >> 56) as i32;
        }
        s
    }

    /// Kinds held.
    #[inline]
    pub(crate) fn held(&self) -> u64 {
        self.at_least[0]
    }

    /// Kinds held exactly once.
    #[inline]
    pub(crate) fn single(&self) -> u64 {
        self.at_least[0] & !self.at_least[1]
    }

    /// Kinds held at least twice.
    #[inline]
    pub(crate) fn two(&self) -> u64 {
        self.at_least[1]
    }

    /// Kinds held four times.
    #[inline]
    pub(crate) fn four(&self) -> u64 {
        self.at_least[3]
    }

    /// Kind `k`'s count goes from `old` (below 4) to `old + 1`: one bit
    /// turns on. Draws and discards are most count changes, so they get
    /// this and [`KindSets::remove_one`], without the loop and the
    /// data-dependent branch of [`KindSets::change`].
    #[inline]
    pub(crate) fn add_one(&mut self, k: usize, old: u8) {
        self.at_least[usize::from(old & 3)] |= 1 << k;
        self.tiles += 1;
        // 1 -> 2 and 3 -> 4 make a pair.
        self.pairs += i32::from(old & 1);
    }

    /// Kind `k`'s count goes from `old` (1 to 4) to `old - 1`: one bit
    /// turns off.
    #[inline]
    pub(crate) fn remove_one(&mut self, k: usize, old: u8) {
        self.at_least[usize::from(old.wrapping_sub(1) & 3)] &= !(1 << k);
        self.tiles -= 1;
        // 2 -> 1 and 4 -> 3 break a pair.
        self.pairs -= i32::from(!old & 1);
    }

    /// Kind `k`'s count goes from `old` to `new` (both at most 4).
    #[inline]
    pub(crate) fn change(&mut self, k: usize, old: u8, new: u8) {
        let b = 1u64 << k;
        if new > old {
            for l in old..new {
                self.at_least[(l & 3) as usize] |= b;
            }
        } else {
            for l in new..old {
                self.at_least[(l & 3) as usize] &= !b;
            }
        }
        self.tiles += i32::from(new) - i32::from(old);
        self.pairs += i32::from(new / 2) - i32::from(old / 2);
    }
}

/// The 13 kinds of thirteen orphans (幺九) as a bit set.
const ORPHANS: u64 = crate::tile::KindSet::ORPHANS.0;

/// `MISSED[melds][isolated][held]`: the fewest tiles the standard shape
/// misses, by the isolated-tile count of [`Judge::ready_bound_sets`], for a
/// hand with `melds` melds (at most 4) and `held` natural concealed tiles
/// of which `isolated` are isolated (both at most 14): the concealed size
/// `14 − 3 × melds` less the places [`Judge::isolated_filled`] can fill.
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
                let filled = Judge::isolated_filled(i2 as i32, h2 as i32 - i2 as i32, 5 - m as i32);
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

/// The questions with the ruleset and wildcards of one hand bound in.
#[derive(Clone)]
pub(crate) struct Judge {
    rules: Ruleset,
    shape: ShapeRules,
    pub(crate) wilds: Wildcards,
    /// The wild kinds as a bit set.
    wild_mask: u64,
    /// The kinds in play ([`crate::legal::kinds_in_play`]): waits and a
    /// wild tile's value never reach beyond them.
    in_play: u64,
    /// By melds count: seven pairs' and thirteen orphans' sizes in pairs
    /// and in distinct orphans (7 and 13) where the rules enable them and
    /// the hand has no melds, else a size no count reaches (so that the
    /// ready bound's `size − held` never wins its minimum).
    /// By melds, 8 rows (the last three as the 5th's: a hand holds at
    /// most 4 melds) for the `& 7` index of [`Judge::ready_bound_sets`].
    special_sizes: [[i32; 2]; 8],
    calc: Calculator,
    checker: Checker,
}

impl std::fmt::Debug for Judge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Judge")
            .field("rules", &self.rules)
            .field("shape", &self.shape)
            .field("wilds", &self.wilds)
            .finish()
    }
}

impl Judge {
    pub(crate) fn new(rules: &Ruleset, wilds: Wildcards) -> Judge {
        Judge::with_shape(rules, wilds, ShapeRules::from(rules))
    }

    /// A judge for `rules` and `wilds` whose hand analysis uses `shape`
    /// (the ruleset's own in [`Judge::new`]; others in tests).
    fn with_shape(rules: &Ruleset, wilds: Wildcards, shape: ShapeRules) -> Judge {
        Judge {
            rules: rules.clone(),
            shape,
            wilds,
            wild_mask: wilds.mask(),
            in_play: crate::legal::kinds_in_play(rules),
            special_sizes: std::array::from_fn(|n| {
                let n = n.min(4);
                let size = |on: bool, size: i32| if on && n == 0 { size } else { 100 };
                [size(shape.seven_pairs, 7), size(shape.thirteen_orphans, 13)]
            }),
            calc: Calculator::new(&wilds, &shape),
            checker: Checker::new(&wilds, &shape),
        }
    }

    /// Whether a hand one tile short is ready with a wait worth declaring
    /// ting (a rebuilt position's declared hands): the exact shanten
    /// first, which rules out most hands without finding waits.
    pub(crate) fn ready_to_declare(&self, hand: &Hand) -> bool {
        self.shanten(&hand.concealed, hand.n_melds()) <= 0
            && crate::ting::worth_ting(&self.waits(hand), &self.rules)
    }

    /// The exact shanten of concealed counts with `n_melds` melds (the
    /// table's calculator, for the agents' candidate pruning).
    pub(crate) fn shanten(&self, concealed: &crate::tile::Counts, n_melds: usize) -> i8 {
        self.calc.shanten(concealed, n_melds)
    }

    /// Whether `t` is a wild kind: one bit of the kept mask (the
    /// wildcards' own test compares with each wild kind in turn).
    #[inline]
    pub(crate) fn is_wild(&self, t: Tile) -> bool {
        self.wild_mask >> t.index() & 1 == 1
    }

    /// The waits of a hand one tile short (docs/rules.md §2).
    #[inline]
    pub(crate) fn waits(&self, hand: &Hand) -> Waits {
        waits_counts_in_play(
            &hand.concealed,
            &hand.all_counts(),
            hand.n_melds(),
            &self.wilds,
            &self.shape,
            self.in_play,
        )
    }

    /// Suit tiles of `present` with another held tile within two ranks.
    #[inline]
    fn near(present: u64) -> u64 {
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
        let lone = single & SUITS & !Judge::near(present);
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

    /// Whether [`Judge::isolated`] is not zero, without counting.
    #[inline]
    fn any_isolated(&self, present: u64, single: u64) -> bool {
        const SUITS: u64 = (1 << 27) - 1;
        if single & SUITS & !Judge::near(present) != 0 {
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
    /// in self-play; the others go to [`Judge::shanten_bound`], whose
    /// near-exact value is carried as well.
    #[cfg(test)]
    pub(crate) fn ready_bound(&self, hand: &Hand) -> i8 {
        self.ready_bound_sets(hand, &KindSets::of(&hand.concealed))
    }

    /// `Judge::ready_bound` (its test-build wrapper) with the hand's kind
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
    fn special_missing(&self, sets: &KindSets, pairs: i32, n_melds: usize) -> u8 {
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
    fn wild_pairs(&self, sets: &KindSets) -> i32 {
        ((sets.at_least[1] & self.wild_mask).count_ones()
            + (sets.at_least[3] & self.wild_mask).count_ones()) as i32
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

    /// A cheap proof that complete-size concealed counts with kind sets
    /// `present` and `single` (wild kinds included) do not win: without
    /// wild tiles every tile of a complete hand shares a set or a pair
    /// with another tile of it (its own kind, a suit neighbour within two
    /// ranks, or an honor of its 风嘴子 group), so an isolated tile rules
    /// the hand out, except for thirteen orphans (no melds).
    #[inline]
    fn surely_not_win(&self, present: u64, single: u64, n_melds: usize) -> bool {
        if self.wild_mask != 0 || (self.shape.thirteen_orphans && n_melds == 0) {
            return false;
        }
        self.any_isolated(present, single)
    }

    /// Whether the hand (14-type, the drawn tile included) may declare
    /// ting discarding `k` face down, one kind at a time: the plain form
    /// of [`Judge::declarable`], kept as its test reference. It skips the
    /// checked entry point's validation (a held kind of a complete-size
    /// hand); a test compares the two on the table's hands.
    #[cfg(test)]
    pub(crate) fn can_declare(&self, hand: &Hand, k: Tile) -> bool {
        if !self.rules.ting_required || hand.concealed[k.index()] == 0 {
            return false;
        }
        let mut rest = *hand;
        rest.concealed[k.index()] -= 1;
        // A hand with waits is ready (shanten 0): the exact shanten, the
        // same look-up the table's ready bound trusts, costs a fraction of
        // finding the waits and rules out most discards of a ready hand.
        if self.calc.shanten(&rest.concealed, rest.n_melds()) > 0 {
            return false;
        }
        let w = waits_unchecked(
            &self.checker,
            &rest.concealed,
            rest.n_melds(),
            &rest.all_counts(),
        );
        worth_ting(&w, &self.rules)
    }

    /// The kinds of the hand (kind sets `sets`, kept by the table, so not
    /// gathered again from the counts) whose face-down discard declares
    /// ting: `Judge::can_declare` (kept in test builds) for each
    /// of them, with the hand's group needs worked out once, and for each
    /// group holding a natural tile its partner (the product of the other
    /// three groups, [`partner_lanes`]) and table position. A natural
    /// discard changes one group, so its standard shape costs one look-up
    /// one step from the group's position ([`POS_STEP`]) and one
    /// [`partner_missing`]; its special shapes come from the kind sets
    /// after the discard; a wild discard changes only the wild count. The
    /// value is the same as a fresh look-up of the hand without the tile
    /// (a test compares the two on every turn of many table hands,
    /// another on many random hands with and without wild tiles).
    #[cfg(test)]
    pub(crate) fn declarable(&self, hand: &Hand, sets: &KindSets) -> u64 {
        self.declarable_keeping(hand, sets, &mut [0; 4])
    }

    /// [`Judge::declarable`], also keeping in `kept` the
    /// [`completing_kinds`] of the hands without the first four kinds of
    /// the answer (the hands the seat keeps if it declares discarding
    /// them, whose winning kinds the table then keeps): each entry is the
    /// mask, with the kind + 1 in its top byte; a later kind takes the
    /// place of the fourth before it, and the entries not written are 0.
    /// [`kept_completing`] finds them.
    pub(crate) fn declarable_keeping(
        &self,
        hand: &Hand,
        sets: &KindSets,
        kept: &mut [u64; 4],
    ) -> u64 {
        *kept = [0; 4];
        if !self.rules.ting_required {
            return 0;
        }
        debug_assert_eq!(*sets, KindSets::of(&hand.concealed));
        let (natural, w) = self.wilds.split(&hand.concealed);
        let groups = self.calc.lanes(&natural);
        let (ab, cd) = halves(&groups);
        let g = &groups.0;
        let n_melds = hand.n_melds();
        let n_sets = 4 - n_melds.min(4);
        let sets = *sets;
        let pairs = sets.pairs - self.wild_pairs(&sets);
        // The group whose partner and position are at hand (the kinds
        // come in index order, so group by group).
        let (mut at, mut partner, mut pos) = (usize::MAX, [0u8; 16], 0u64);
        let mut out = 0u64;
        let mut rest = sets.held();
        while rest != 0 {
            let k = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let d = if self.wild_mask >> k & 1 == 1 {
                let d = standard_missing(&ab, &cd, n_melds)
                    .min(self.special_missing(&sets, pairs, n_melds));
                d.saturating_sub(w.saturating_sub(1))
            } else if natural[k] > 0 {
                let c = natural[k];
                let gk = (k / 9).min(3);
                if gk != at {
                    at = gk;
                    let others = match gk {
                        0 => combine(&g[1], &cd),
                        1 => combine(&g[0], &cd),
                        2 => combine(&ab, &g[3]),
                        _ => combine(&ab, &g[2]),
                    };
                    partner = partner_lanes(&others, n_sets);
                    pos = group_pos(gk, &group_key(&natural, gk));
                }
                let i = k - 9 * gk;
                let changed = self
                    .calc
                    .lanes_at(gk, pos - POS_STEP[usize::from(gk == 3)][i]);
                debug_assert_eq!(changed, {
                    let mut less = natural;
                    less[k] -= 1;
                    self.calc.group_lanes(&less, gk)
                });
                let mut after = sets;
                after.remove_one(k, c);
                // A count of 2 or 4 loses a pair.
                let pairs = pairs - i32::from(c & 1 == 0);
                let d = partner_missing(&partner, &changed)
                    .min(self.special_missing(&after, pairs, n_melds));
                d.saturating_sub(w)
            } else {
                continue;
            };
            // A hand with waits is ready (shanten 0); finding the waits
            // costs several times the look-up, so most discards stop here.
            if d as i8 - 1 > 0 {
                continue;
            }
            let mut after = *hand;
            after.concealed[k] -= 1;
            let c = completing_kinds(&self.checker, &after.concealed, after.n_melds());
            let waits = waits_of_completing(&self.checker, c & self.in_play, &after.all_counts());
            if worth_ting(&waits, &self.rules) {
                kept[out.count_ones() as usize & 3] = c | (k as u64 + 1) << 56;
                out |= 1 << k;
            }
        }
        out
    }

    /// Sichuan 缺一门: whether the hand (concealed kinds `held`, melds,
    /// plus the kinds of `extra`) holds no tile of some suit.
    #[inline]
    fn lacks_a_suit(hand: &Hand, held: u64, extra: u64) -> bool {
        let kinds = hand
            .melds()
            .iter()
            .fold(held | extra, |k, m| k | 1 << m.tile.index());
        misses_a_suit(kinds)
    }

    /// May this hand (14-type, kind sets `sets`) win by self-draw,
    /// `drawn` being the tile just drawn (`None` for the dealer's first
    /// 14)?
    pub(crate) fn may_win_self(
        &self,
        hand: &Hand,
        sets: &KindSets,
        drawn: Option<Tile>,
        ting: bool,
    ) -> bool {
        if self.rules.ting_required && (!ting || drawn.is_none()) {
            return false;
        }
        // Sichuan's 缺一门 first: it is the cheapest refusal.
        let sichuan = self.rules.family.needs_missing_suit();
        if (sichuan && !Judge::lacks_a_suit(hand, sets.held(), 0))
            || self.surely_not_win(sets.held(), sets.single(), hand.n_melds())
            || !self.checker.is_win(&hand.concealed, hand.n_melds())
        {
            return false;
        }
        if !self.rules.ting_required {
            return true;
        }
        let Some(t) = drawn else {
            return false;
        };
        if !ting {
            return false;
        }
        // docs/rules.md §3: a self-drawn wild tile is worth the best of the
        // hand's waits.
        let points = if self.wilds.is_wild(t) {
            let mut rest = *hand;
            rest.concealed[t.index()] -= 1;
            self.waits(&rest).best_points().unwrap_or(0)
        } else {
            t.points()
        };
        may_win(&self.rules, points, true)
    }

    /// May this hand (13-type, kind sets `sets`) win on tile `t`
    /// discarded (or robbed)? Pass locks are checked by the caller.
    pub(crate) fn may_win_on(&self, hand: &Hand, sets: &KindSets, t: Tile, ting: bool) -> bool {
        if self.wilds.is_wild(t) {
            return false;
        }
        if self.rules.ting_required && (!ting || !may_win(&self.rules, t.points(), false)) {
            return false;
        }
        let b = 1u64 << t.index();
        if self.rules.family.needs_missing_suit() && !Judge::lacks_a_suit(hand, sets.held(), b) {
            return false;
        }
        if !self.may_complete(hand, sets.held(), t) {
            return false;
        }
        let held = sets.held();
        let single = if held & b == 0 {
            sets.single() | b
        } else {
            sets.single() & !b
        };
        if self.surely_not_win(held | b, single, hand.n_melds()) {
            return false;
        }
        let mut c = hand.concealed;
        c[t.index()] += 1;
        self.checker.is_win(&c, hand.n_melds())
    }

    /// The natural kinds a declared seat's hand (13-type) wins with, on a
    /// discard or a robbed kong (first) and by self-draw (second), where
    /// ting is required outside Sichuan: [`Judge::may_win_on`] and
    /// [`Judge::may_win_self`] tile by tile (a natural tile completes the
    /// hand iff it is among [`completing_kinds`], the same win check; the
    /// points rule is per tile). A declared seat discards what it draws,
    /// so its 13 tiles change only by a kong: the table keeps these masks
    /// from its declaration, renewed at its kongs, and each discard and
    /// draw of the seat is one bit test (debug builds compare with the
    /// judge's own answers).
    pub(crate) fn declared_wins(&self, hand: &Hand) -> (u64, u64) {
        debug_assert!(self.rules.ting_required && self.rules.family != Family::Sichuan);
        self.wins_of_completing(completing_kinds(
            &self.checker,
            &hand.concealed,
            hand.n_melds(),
        ))
    }

    /// [`Judge::declared_wins`] from the hand's [`completing_kinds`].
    pub(crate) fn wins_of_completing(&self, complete: u64) -> (u64, u64) {
        let complete = complete & !self.wild_mask;
        let (mut on, mut own) = (0u64, 0u64);
        let mut rest = complete;
        while rest != 0 {
            let k = rest.trailing_zeros();
            rest &= rest - 1;
            let points = Tile::from_index_unchecked(k as u8).points();
            on |= u64::from(may_win(&self.rules, points, false)) << k;
            own |= u64::from(may_win(&self.rules, points, true)) << k;
        }
        (on, own)
    }

    /// A necessary condition for `t` to complete a hand (kinds `held`)
    /// without wild tiles, far cheaper than the check itself: the hand
    /// holds `t` or a suit neighbour within two ranks, or `t` is an orphan
    /// for 十三幺, or an honor of a group the hand holds for 风嘴子. With
    /// wild tiles in hand anything may complete it.
    #[inline]
    fn may_complete(&self, hand: &Hand, held: u64, t: Tile) -> bool {
        let i = t.index();
        let b = 1u64 << i;
        if held & (b | self.wild_mask) != 0 {
            return true;
        }
        if i < 27 {
            if held & Judge::near(b) != 0 {
                return true;
            }
        } else if self.shape.wind_sets {
            const WINDS: u64 = 0xF << 27;
            const DRAGONS: u64 = 0x7 << 31;
            let group = if i < 31 { WINDS } else { DRAGONS };
            if held & group != 0 {
                return true;
            }
        }
        self.shape.thirteen_orphans && hand.n_melds() == 0 && t.is_terminal_or_honor()
    }

    /// After ting: may the player kong, going from `before` (the ting
    /// hand, 13-type) to `after` (13-type, the kong a meld)?
    pub(crate) fn ting_kong_allowed(&self, before: &Hand, after: &Hand) -> bool {
        ting_kong_allowed(before, after, &self.wilds, &self.rules).unwrap_or(false)
    }

    /// A copy of a hand with one more meld (its tiles already removed).
    pub(crate) fn with_meld(hand: &Hand, meld: Meld) -> Hand {
        let mut h = *hand;
        let _ = h.push_meld(meld);
        h
    }
}

/// The completing kinds that [`Judge::declarable_keeping`] kept for the
/// discard of kind `k`, if it kept them.
#[inline]
pub(super) fn kept_completing(kept: &[u64; 4], k: usize) -> Option<u64> {
    kept.iter()
        .find(|&&e| e >> 56 == k as u64 + 1)
        .map(|&e| e & ((1 << 56) - 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hand::MeldKind;
    use crate::shanten::shanten_counts;
    use crate::shape::is_win;
    use crate::tile::KINDS;

    /// A tiny deterministic generator for the test hands.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
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
    fn hand(r: &mut Rng, n_melds: usize, noise: u64) -> Hand {
        loop {
            let mut c = [0u8; KINDS];
            let mut melds = Vec::new();
            for _ in 0..n_melds {
                let k = r.below(KINDS as u64) as usize;
                c[k] += 3;
                melds.push(Meld::new(
                    MeldKind::Pong,
                    Tile::from_index_unchecked(k as u8),
                ));
            }
            let mut conc = [0u8; KINDS];
            let add = |k: usize, conc: &mut [u8; KINDS], c: &mut [u8; KINDS]| {
                conc[k] += 1;
                c[k] += 1;
            };
            for _ in 0..4 - n_melds {
                if r.below(2) == 0 {
                    let k = r.below(KINDS as u64) as usize;
                    (0..3).for_each(|_| add(k, &mut conc, &mut c));
                } else {
                    let s = r.below(3) as usize * 9 + r.below(7) as usize;
                    (0..3).for_each(|i| add(s + i, &mut conc, &mut c));
                }
            }
            let k = r.below(KINDS as u64) as usize;
            (0..2).for_each(|_| add(k, &mut conc, &mut c));
            for _ in 0..noise {
                let ks: Vec<usize> = (0..KINDS).filter(|&k| conc[k] > 0).collect();
                let out = ks[r.below(ks.len() as u64) as usize];
                conc[out] -= 1;
                c[out] -= 1;
                let k = r.below(KINDS as u64) as usize;
                add(k, &mut conc, &mut c);
            }
            if c.iter().all(|&n| n <= 4) {
                if let Ok(h) = Hand::new(conc, &melds) {
                    return h;
                }
            }
        }
    }

    #[test]
    fn ready_bound_is_a_lower_bound_and_exact_when_ready_and_isolated_tiles_never_win() {
        let mut r = Rng(12345);
        let presets = [Ruleset::shanxi(), Ruleset::linxian(), Ruleset::sichuan()];
        let wild_sets = crate::testing::wild_sets();
        let mut bound_exact = 0;
        for i in 0..60_000u64 {
            let rules = &presets[(i % 3) as usize];
            let wilds = wild_sets[(i / 3 % 3) as usize];
            let j = Judge::new(rules, wilds);
            for shape in [j.shape, ShapeRules::ALL, ShapeRules::STANDARD_ONLY] {
                let j = Judge::with_shape(rules, wilds, shape);
                let n_melds = r.below(5) as usize;
                let noise = r.below(14);
                let h = hand(&mut r, n_melds, noise);
                let exact = shanten_counts(&h.concealed, h.n_melds(), &j.wilds, &j.shape).unwrap();
                let lb = j.ready_bound(&h);
                let ks = KindSets::of(&h.concealed);
                assert_eq!(
                    j.any_isolated(ks.held(), ks.single()),
                    j.isolated(ks.held(), ks.single()) > 0
                );
                if j.surely_not_win(ks.held(), ks.single(), h.n_melds()) {
                    assert!(
                        !is_win(&h.concealed, h.n_melds(), &j.wilds, &j.shape),
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
                let (natural, w) = j.wilds.split(&h.concealed);
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
            let orphans = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];
            let kinds = orphans.iter().filter(|&&k| natural[k] > 0).count();
            let pair = orphans.iter().any(|&k| natural[k] > 1);
            d = d.min((14 - kinds - usize::from(pair)) as u8);
        }
        d
    }

    /// The ting declarations found together equal those found one kind
    /// at a time, on many near-complete hands of every melds count, with
    /// and without wild tiles.
    #[test]
    fn declarable_equals_can_declare_kind_by_kind() {
        let mut r = Rng(777);
        let presets = [Ruleset::shanxi(), Ruleset::linxian()];
        let wild_sets = crate::testing::wild_sets();
        let mut declaring = 0;
        for i in 0..30_000u64 {
            let rules = &presets[(i % 2) as usize];
            let wilds = wild_sets[(i / 2 % 3) as usize];
            let j = Judge::new(rules, wilds);
            let n_melds = r.below(5) as usize;
            let noise = r.below(4);
            let h = hand(&mut r, n_melds, noise);
            let sets = KindSets::of(&h.concealed);
            let mut kinds = 0u64;
            for t in Tile::all() {
                if j.can_declare(&h, t) {
                    kinds |= 1 << t.index();
                }
            }
            assert_eq!(j.declarable(&h, &sets), kinds, "{h:?} {wilds:?}");
            declaring += usize::from(kinds != 0);
        }
        assert!(declaring > 3_000, "only {declaring} hands could declare");
    }

    /// The SSE2 kind sets equal the word version's on random counts
    /// (every count 0-4, sparse and dense).
    #[test]
    fn kind_sets_of_both_ways_agree() {
        let mut r = Rng(4242);
        for i in 0..100_000 {
            let mut c = [0u8; KINDS];
            for n in c.iter_mut() {
                if r.below(4) <= i % 4 {
                    *n = r.below(5) as u8;
                }
            }
            assert_eq!(KindSets::of(&c), KindSets::of_words(&c), "{c:?}");
        }
    }

    #[test]
    fn kind_sets_kept_by_changes_equal_kind_sets_recomputed() {
        let mut r = Rng(99);
        let mut c = [0u8; KINDS];
        let mut ks = KindSets::of(&c);
        for _ in 0..200_000 {
            let k = r.below(KINDS as u64) as usize;
            // The one-step changes half of the time (when they apply).
            let new = match r.below(4) {
                0 if c[k] < 4 => {
                    ks.add_one(k, c[k]);
                    c[k] + 1
                }
                1 if c[k] > 0 => {
                    ks.remove_one(k, c[k]);
                    c[k] - 1
                }
                _ => {
                    let new = r.below(5) as u8;
                    ks.change(k, c[k], new);
                    new
                }
            };
            c[k] = new;
            assert_eq!(ks, KindSets::of(&c), "{c:?}");
            for (l, &set) in ks.at_least.iter().enumerate() {
                for (kind, &n) in c.iter().enumerate() {
                    assert_eq!(set >> kind & 1 == 1, n as usize > l, "{c:?}");
                }
            }
            let tiles: i32 = c.iter().map(|&n| i32::from(n)).sum();
            let pairs: i32 = c.iter().map(|&n| i32::from(n / 2)).sum();
            assert_eq!((ks.tiles, ks.pairs), (tiles, pairs));
        }
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
                        Judge::isolated_filled(isolated, rest, blocks),
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
