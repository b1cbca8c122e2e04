//! The table's questions to the hand analysis: is this complete, what
//! does this hand wait on, may this seat win this tile, may it declare
//! ting, may it kong after ting.
//!
//! This is the engine's only door to the hand rules of RULES.md §2-§3: a
//! thin adapter over [`crate::shape::is_win`] and [`crate::waits`]. (The
//! `ting` module of the analysis engineer had not landed when the table
//! was written; the few lines below that apply the §3 point rules should
//! be replaced by its functions when it does.)

use crate::hand::{Hand, Meld};
use crate::ruleset::{Family, Ruleset};
use crate::shape::{is_win, ShapeRules};
use crate::tile::{Counts, Tile};
use crate::waits::{waits_counts, Waits};
use crate::wildcard::Wildcards;

/// The questions with the ruleset and wildcards of one hand bound in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Judge {
    shape: ShapeRules,
    pub(crate) wilds: Wildcards,
    family: Family,
    min_self: u8,
    min_discard: u8,
    ting_min: u8,
    keeps_waits: bool,
    ting_required: bool,
}

impl Judge {
    pub(crate) fn new(rules: &Ruleset, wilds: Wildcards) -> Judge {
        let (min_self, min_discard) = rules.point_rule.minimums();
        Judge {
            shape: ShapeRules::from(rules),
            wilds,
            family: rules.family,
            min_self,
            min_discard,
            ting_min: rules.ting_min_points,
            keeps_waits: rules.kong_keeps_waits,
            ting_required: rules.ting_required,
        }
    }

    #[inline]
    pub(crate) fn complete(&self, c: &Counts, n_melds: usize) -> bool {
        is_win(c, n_melds, &self.wilds, &self.shape)
    }

    #[inline]
    pub(crate) fn is_wild(&self, t: Tile) -> bool {
        self.wilds.is_wild(t)
    }

    /// The waits of a hand one tile short (RULES.md §2), through
    /// [`crate::waits`].
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

    /// Whether the hand (14-type, the drawn tile included) may declare
    /// ting discarding `k` face down.
    pub(crate) fn can_declare(&self, hand: &Hand, k: Tile) -> bool {
        let mut h = *hand;
        if h.concealed[k.index()] == 0 {
            return false;
        }
        h.concealed[k.index()] -= 1;
        self.waits(&h)
            .best_points()
            .is_some_and(|b| b >= self.ting_min)
    }

    /// The points of a self-drawn winning tile (a wild one: its best
    /// value), or `None` when the hand is not complete.
    pub(crate) fn self_draw_value(&self, hand: &Hand, drawn: Option<Tile>) -> Option<u8> {
        if !self.complete(&hand.concealed, hand.n_melds()) {
            return None;
        }
        match drawn {
            Some(t) if self.wilds.is_wild(t) => {
                // RULES.md §3: a self-drawn wild tile is worth the best of
                // the hand's waits.
                let mut h = *hand;
                h.concealed[t.index()] -= 1;
                self.waits(&h).best_points().or(Some(t.points()))
            }
            Some(t) => Some(t.points()),
            None => Some(0),
        }
    }

    fn lacks_a_suit(hand: &Hand, extra: Option<Tile>) -> bool {
        let mut c = hand.all_counts();
        if let Some(t) = extra {
            c[t.index()] += 1;
        }
        (0..3).any(|s| c[s * 9..s * 9 + 9].iter().all(|&n| n == 0))
    }

    /// May this hand (14-type) win by self-draw?
    pub(crate) fn may_win_self(&self, hand: &Hand, drawn: Option<Tile>, ting: bool) -> bool {
        let Some(v) = self.self_draw_value(hand, drawn) else {
            return false;
        };
        if !self.ting_required {
            return self.family != Family::Sichuan || Judge::lacks_a_suit(hand, None);
        }
        ting && drawn.is_some() && v >= self.min_self
    }

    /// May this hand (13-type) win on tile `t` discarded (or robbed)?
    /// Pass locks are checked by the caller.
    pub(crate) fn may_win_on(&self, hand: &Hand, t: Tile, ting: bool) -> bool {
        if self.wilds.is_wild(t) || hand.all_counts()[t.index()] >= 4 {
            return false;
        }
        if self.ting_required && (!ting || t.points() < self.min_discard) {
            return false;
        }
        let mut c = hand.concealed;
        c[t.index()] += 1;
        if !self.complete(&c, hand.n_melds()) {
            return false;
        }
        self.family != Family::Sichuan || Judge::lacks_a_suit(hand, Some(t))
    }

    /// After ting: may the player kong, going from `before` (the ting
    /// hand, 13-type) to `after` (13-type, the kong a meld)?
    pub(crate) fn ting_kong_allowed(&self, before: &Hand, after: &Hand) -> bool {
        let a = self.waits(after);
        if !a.best_points().is_some_and(|b| b >= self.ting_min) {
            return false;
        }
        !self.keeps_waits || self.waits(before).mask() == a.mask()
    }

    /// Adds a meld to a copy of a hand (the tiles already removed).
    pub(crate) fn with_meld(hand: &Hand, meld: Meld) -> Hand {
        let mut h = *hand;
        let _ = h.push_meld(meld);
        h
    }
}
