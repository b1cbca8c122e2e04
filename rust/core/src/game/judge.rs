//! The table's questions to the hand analysis: may this seat win this
//! tile, may it declare ting, may it kong after ting.
//!
//! The incremental kind sets it reads are [`crate::kind_sets`]; the
//! shanten lower bound it asks first is [`crate::shanten::bound`].
//!
//! This is the engine's only door to the hand rules of docs/rules.md §2-§3; it
//! asks [`crate::shape::is_win`], [`crate::waits`] and [`crate::ting`]
//! and adds only what is the table's: whether the seat has declared, and
//! Sichuan's 缺一门.

use crate::hand::{Hand, Meld};
use crate::kind_sets::KindSets;
use crate::legal::misses_a_suit;
use crate::ruleset::{Family, Ruleset};
use crate::shanten::bound::{near, ReadyBound};
use crate::shanten::{
    combine, group_key, group_pos, halves, partner_lanes, partner_missing, standard_missing,
    POS_STEP,
};
use crate::shape::win::Checker;
use crate::shape::ShapeRules;
use crate::tile::Tile;
use crate::ting::{may_win, ting_kong_allowed, worth_ting};
#[cfg(test)]
use crate::waits::waits_unchecked;
use crate::waits::{completing_kinds, waits_counts_in_play, waits_of_completing, Waits};
use crate::wildcard::Wildcards;

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
    /// The shanten lower bound (and the exact shanten's calculator).
    bound: ReadyBound,
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
        let shape = ShapeRules::from(rules);
        Judge {
            rules: rules.clone(),
            shape,
            wilds,
            wild_mask: wilds.mask(),
            in_play: crate::legal::kinds_in_play(rules),
            bound: ReadyBound::new(&wilds, shape),
            checker: Checker::new(&wilds, &shape),
        }
    }

    /// [`ReadyBound::ready_bound_sets`] of a table hand: a lower bound on
    /// its shanten, exact when 0 or less.
    #[inline(always)]
    pub(crate) fn ready_bound_sets(&self, hand: &Hand, sets: &KindSets) -> i8 {
        self.bound.ready_bound_sets(hand, sets)
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
        self.bound.calc.shanten(concealed, n_melds)
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
        if self.bound.calc.shanten(&rest.concealed, rest.n_melds()) > 0 {
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
        let groups = self.bound.calc.lanes(&natural);
        let (ab, cd) = halves(&groups);
        let g = &groups.0;
        let n_melds = hand.n_melds();
        let n_sets = 4 - n_melds.min(4);
        let sets = *sets;
        let pairs = sets.pairs - self.bound.wild_pairs(&sets);
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
                    .min(self.bound.special_missing(&sets, pairs, n_melds));
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
                    .bound
                    .calc
                    .lanes_at(gk, pos - POS_STEP[usize::from(gk == 3)][i]);
                debug_assert_eq!(changed, {
                    let mut less = natural;
                    less[k] -= 1;
                    self.bound.calc.group_lanes(&less, gk)
                });
                let mut after = sets;
                after.remove_one(k, c);
                // A count of 2 or 4 loses a pair.
                let pairs = pairs - i32::from(c & 1 == 0);
                let d = partner_missing(&partner, &changed)
                    .min(self.bound.special_missing(&after, pairs, n_melds));
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
            || self
                .bound
                .surely_not_win(sets.held(), sets.single(), hand.n_melds())
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
        if self.bound.surely_not_win(held | b, single, hand.n_melds()) {
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
            if held & near(b) != 0 {
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
    use crate::testing::{table_hand as hand, Rng};

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
}
