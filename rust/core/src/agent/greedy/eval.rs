//! [`Eval`]: the questions the policy ([`super::policy`]) asks about the
//! agent's hand, answered by the fast incremental evaluator ([`Ctx`],
//! `ctx.rs`, `base.rs`, `ukeire.rs`) or by the plain one built on the
//! public [`shanten`](crate::shanten) and [`waits_counts`] functions
//! ([`super::plain::Plain`]). The policy is generic over it and
//! monomorphized, so the fast path pays nothing for the trait; the tests
//! check that both evaluators answer every question alike and make the
//! recorded decisions.
//!
//! A discard decision is asked in steps that share one analysis of the
//! 14 tiles ([`Eval::Discards`]): the candidates and the hand's own level
//! ([`Eval::discards`]), the best key far from ready
//! ([`Eval::least_far`]), every candidate's level ([`Eval::levels`]),
//! then the improving tiles of the ties ([`Eval::counting`],
//! [`Eval::improving`], [`Eval::improving_bound`]).

use super::*;

/// The discard candidates of a 14-type hand ([`Eval::discards`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Candidates {
    /// The legal discards held, the wild kinds only when nothing else may
    /// go.
    pub(crate) cands: KindSet,
    /// Whether every candidate is wild.
    pub(crate) all_wild: bool,
    /// The level (`shanten + 1`, a ready hand that cannot declare one step
    /// from ready) of the hand as it is, which no discard goes below.
    pub(crate) lowest: u8,
}

/// The questions of the greedy policy. Every answer is a pure function of
/// the position and the arguments (the fast evaluator's caches included).
pub(crate) trait Eval<'a> {
    /// One analysis of a 14-type hand's discards, shared by the questions
    /// about them.
    type Discards;
    /// The tallies for counting improving tiles of one decision.
    type Counting;

    /// The position's facts (hand, rules, wild and void kinds).
    fn facts(&self) -> &Facts<'a>;

    /// Copies of each kind the agent cannot see (its own tiles, face-up
    /// discards, visible melds and face-up wall tiles are seen); 0 for
    /// kinds not in play.
    fn unseen(&mut self) -> Counts;

    /// The shanten of the concealed counts `c` with `melds` melds (void-suit
    /// tiles left out, wild tiles wild).
    fn shanten(&mut self, c: &Counts, melds: usize) -> i8;

    /// The lowest shanten over the non-wild discards of the 14-type hand
    /// `c` (a wild one only when nothing else is held).
    fn best_discard_shanten(&mut self, c: &Counts, melds: usize) -> i8;

    /// Whether [`Eval::best_discard_shanten`] is below `cut`.
    fn best_discard_shanten_below(&mut self, c: &Counts, melds: usize, cut: i8) -> bool {
        self.best_discard_shanten(c, melds) < cut
    }

    /// The waits and their points of the 13-type hand `h` (concealed,
    /// void-suit tiles left out) holding `held` in all.
    fn waits(&mut self, h: &Counts, held: &Counts, melds: usize) -> Waits {
        let f = self.facts();
        waits_counts(h, held, melds, &f.wilds, &f.shape)
    }

    /// The candidates among the legal discards `discards` of the agent's
    /// hand (none when no legal discard is held), and its analysis.
    fn discards(&mut self, discards: KindSet) -> (Candidates, Self::Discards);

    /// The candidate of `set` (candidates, none wild) with the least key
    /// ([`cand_key`]: level, junk first, keep value, index), asked only
    /// when the hand is two or more from ready whatever goes.
    fn least_far(&mut self, d: &mut Self::Discards, keep: &Keep, set: KindSet) -> Tile;

    /// The candidates by level (`shanten + 1`, a ready hand that cannot
    /// declare one step from ready): `levels[l]` the candidates at `l`.
    fn levels(&mut self, d: &mut Self::Discards, c: &Candidates) -> [u64; 16];

    /// The level of one candidate ([`Eval::levels`]).
    fn level(&mut self, d: &mut Self::Discards, c: &Candidates, k: usize) -> u8 {
        let lv = self.levels(d, c);
        (0..16).find(|&l| lv[l] >> k & 1 == 1).unwrap_or(0) as u8
    }

    /// Starts counting improving tiles (after [`Eval::levels`]); `bounds`
    /// when [`Eval::improving_bound`] will be asked.
    fn counting(&mut self, d: &Self::Discards, bounds: bool) -> Self::Counting;

    /// Live copies of the tiles that lower the shanten of the 13 tiles
    /// left by discarding candidate `k` (wild tiles improve any incomplete
    /// hand; void-suit kinds never count).
    fn improving(
        &mut self,
        d: &Self::Discards,
        n: &Self::Counting,
        c: &Candidates,
        k: usize,
    ) -> u32;

    /// An upper bound on [`Eval::improving`] and whether it is exact.
    fn improving_bound(
        &mut self,
        d: &Self::Discards,
        n: &Self::Counting,
        c: &Candidates,
        k: usize,
    ) -> (u32, bool) {
        (self.improving(d, n, c, k), true)
    }
}
