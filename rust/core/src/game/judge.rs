//! The table's questions to the hand analysis: may this seat win this
//! tile, may it declare ting, may it kong after ting.
//!
//! This is the engine's only door to the hand rules of RULES.md §2-§3; it
//! asks [`crate::shape::is_win`], [`crate::waits`] and [`crate::ting`]
//! and adds only what is the table's: whether the seat has declared, and
//! Sichuan's 缺一门.

use crate::hand::{Hand, Meld};
use crate::ruleset::{Family, Ruleset};
use crate::shanten::shanten_counts;
use crate::shape::{is_win, ShapeRules};
use crate::tile::Tile;
use crate::ting::{can_declare_ting, may_win, ting_kong_allowed};
use crate::waits::{waits_counts, Waits};
use crate::wildcard::Wildcards;

/// The questions with the ruleset and wildcards of one hand bound in.
#[derive(Clone, Debug)]
pub(crate) struct Judge {
    rules: Ruleset,
    shape: ShapeRules,
    pub(crate) wilds: Wildcards,
}

impl Judge {
    pub(crate) fn new(rules: &Ruleset, wilds: Wildcards) -> Judge {
        Judge {
            rules: rules.clone(),
            shape: ShapeRules::from(rules),
            wilds,
        }
    }

    #[inline]
    pub(crate) fn is_wild(&self, t: Tile) -> bool {
        self.wilds.is_wild(t)
    }

    /// The waits of a hand one tile short (RULES.md §2).
    #[inline]
    pub(crate) fn waits(&self, hand: &Hand) -> Waits {
        waits_counts(
            &hand.concealed,
            &hand.all_counts(),
            hand.n_melds(),
            &self.wilds,
            &self.shape,
        )
    }

    fn isolated(&self, c: &crate::tile::Counts) -> u32 {
        let mut n = 0;
        for i in 0..27 {
            if c[i] == 1 {
                let base = i - i % 9;
                let lo = i.saturating_sub(2).max(base);
                let hi = (i + 2).min(base + 8);
                if c[lo..=hi].iter().sum::<u8>() == 1 {
                    n += 1;
                }
            }
        }
        for i in 27..34 {
            if c[i] == 1 {
                let alone = if self.shape.wind_sets {
                    let group = if i < 31 { 27..31 } else { 31..34 };
                    c[group].iter().sum::<u8>() == 1
                } else {
                    true
                };
                n += u32::from(alone);
            }
        }
        n
    }

    /// A lower bound on the shanten of a complete-size hand (exact unless
    /// a cheap count already proves it is not ready after any discard, in
    /// which case it is 1). Seven pairs and thirteen orphans are bounded
    /// by counting (6 pairs, or 12 distinct orphans, wild tiles filling
    /// in); then, for the standard shape, a hand one tile from ready holds
    /// at most two isolated tiles (a single with no suit neighbour within
    /// two ranks, or a lone honor): removing a tile from a complete hand
    /// isolates at most its pair partner, and the extra tile may be a
    /// second. Counting them is far cheaper than the table look-ups.
    pub(crate) fn ready_bound(&self, hand: &Hand) -> i8 {
        let (natural, w) = self.wilds.split(&hand.concealed);
        let mut maybe = w > 0 || self.isolated(&natural) <= 2;
        if hand.n_melds() == 0 {
            if self.shape.seven_pairs {
                let pairs: u8 = natural.iter().map(|&n| n / 2).sum();
                maybe |= pairs + w >= 6;
            }
            if self.shape.thirteen_orphans {
                let distinct = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]
                    .iter()
                    .filter(|&&k| natural[k] > 0)
                    .count() as u8;
                maybe |= distinct + w >= 12;
            }
        }
        if !maybe {
            return 1;
        }
        shanten_counts(&hand.concealed, hand.n_melds(), &self.wilds, &self.shape).unwrap_or(-1)
    }

    /// Whether the hand (14-type, the drawn tile included) may declare
    /// ting discarding `k` face down.
    pub(crate) fn can_declare(&self, hand: &Hand, k: Tile) -> bool {
        can_declare_ting(hand, k, &self.wilds, &self.rules).unwrap_or(false)
    }

    fn lacks_a_suit(hand: &Hand, extra: Option<Tile>) -> bool {
        let mut c = hand.all_counts();
        if let Some(t) = extra {
            c[t.index()] += 1;
        }
        (0..3).any(|s| c[s * 9..s * 9 + 9].iter().all(|&n| n == 0))
    }

    /// May this hand (14-type) win by self-draw, `drawn` being the tile
    /// just drawn (`None` for the dealer's first 14)?
    pub(crate) fn may_win_self(&self, hand: &Hand, drawn: Option<Tile>, ting: bool) -> bool {
        if self.rules.ting_required && (!ting || drawn.is_none()) {
            return false;
        }
        if !is_win(&hand.concealed, hand.n_melds(), &self.wilds, &self.shape) {
            return false;
        }
        if !self.rules.ting_required {
            return self.rules.family != Family::Sichuan || Judge::lacks_a_suit(hand, None);
        }
        let Some(t) = drawn else {
            return false;
        };
        if !ting {
            return false;
        }
        // RULES.md §3: a self-drawn wild tile is worth the best of the
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

    /// May this hand (13-type) win on tile `t` discarded (or robbed)?
    /// Pass locks are checked by the caller.
    pub(crate) fn may_win_on(&self, hand: &Hand, t: Tile, ting: bool) -> bool {
        if self.wilds.is_wild(t) {
            return false;
        }
        if self.rules.ting_required && (!ting || !may_win(&self.rules, t.points(), false)) {
            return false;
        }
        if !self.may_complete(hand, t) {
            return false;
        }
        let mut c = hand.concealed;
        c[t.index()] += 1;
        if !is_win(&c, hand.n_melds(), &self.wilds, &self.shape) {
            return false;
        }
        self.rules.family != Family::Sichuan || Judge::lacks_a_suit(hand, Some(t))
    }

    /// A necessary condition for `t` to complete a hand without wild
    /// tiles, far cheaper than the check itself: the hand holds `t` or a
    /// suit neighbour within two ranks, or `t` is an orphan for 十三幺, or
    /// an honor of a group the hand holds for 风嘴子. With wild tiles in
    /// hand anything may complete it.
    #[inline]
    fn may_complete(&self, hand: &Hand, t: Tile) -> bool {
        let c = &hand.concealed;
        let i = t.index();
        if c[i] > 0 || self.wilds.kinds().any(|w| c[w.index()] > 0) {
            return true;
        }
        if i < 27 {
            let base = i - i % 9;
            let lo = i.saturating_sub(2).max(base);
            let hi = (i + 2).min(base + 8);
            if c[lo..=hi].iter().any(|&n| n > 0) {
                return true;
            }
        } else if self.shape.wind_sets {
            let group = if i < 31 { 27..31 } else { 31..34 };
            if c[group].iter().any(|&n| n > 0) {
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
