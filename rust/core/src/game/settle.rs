//! The one call into scoring: the table's facts become a
//! [`crate::score::Outcome`], which [`crate::score::settle`] checks and
//! pays out.

use super::result::{EndKind, HandResult};
use super::table::Game;
use crate::error::Error;
use crate::hand::Hand;
use crate::ruleset::Family;
use crate::score::{hand_value, settle_from_table, HandEnd, HandValue, Outcome, Settlement, Win};

/// Builds the outcome of the finished hand `r`.
pub(crate) fn outcome(g: &Game, r: &HandResult) -> Outcome {
    let end = match r.kind {
        EndKind::Win if r.self_draw => HandEnd::SelfDraw,
        EndKind::Win if r.robbed_kong => HandEnd::RobbedKong {
            konger: r.from.unwrap_or(0),
        },
        EndKind::Win => HandEnd::Discard {
            discarder: r.from.unwrap_or(0),
        },
        EndKind::Exhausted | EndKind::KongDraw => HandEnd::Drawn,
        EndKind::Left => HandEnd::Left {
            leaver: r.leaver.unwrap_or(0),
        },
    };
    let mut o = Outcome::new(r.dealer, end);
    o.ting = r.ting;
    o.wilds = g.deal.wilds;
    o.kongs.extend_from_slice(g.kong_list());
    let sichuan = g.rules.family == Family::Sichuan;
    for s in 0..4u8 {
        let hand: Hand = g.hands[s as usize];
        if !r.winners[s as usize] {
            o.hands[s as usize] = Some(hand);
            continue;
        }
        let mut hand = hand;
        let tile = match (r.tile, r.self_draw) {
            (Some(t), false) => {
                hand.concealed[t.index()] += 1;
                t
            }
            (Some(t), true) => t,
            // 天胡: no winning tile; the dealer's 14th tile stands for it.
            (None, _) => g.deal.wall.tiles()[52],
        };
        let mut w = Win::new(s, hand, tile);
        if r.replacement.is_some() && !g.kong_list().is_empty() {
            w.kong_bloom = Some(g.kong_list().len() - 1);
        }
        // The table's own test is docs/rules.md §5's: before any claim. A
        // concealed kong is not a claim, so it leaves 天胡/地胡 standing.
        w.heavenly = sichuan && r.heavenly;
        w.earthly = sichuan && r.earthly;
        o.winners.push(w);
    }
    o
}

/// Settles the finished hand: the settlement, or the scorer's objection.
/// The table's own outcome skips the checks its bookkeeping guarantees
/// (a valid ruleset, kongs and hands consistent with the kong list and
/// the four copies); debug builds still make them.
pub(crate) fn settle(g: &Game, r: &HandResult) -> Result<Settlement, Error> {
    settle_from_table(&outcome(g, r), &g.rules)
}

impl Game {
    /// The value of each winner's hand (patterns included), in seat order,
    /// once the hand is won; empty for a hand nobody won.
    ///
    /// ```
    /// use koudian_core::game::Game;
    /// use koudian_core::Ruleset;
    /// let mut g = Game::new(&Ruleset::sichuan(), 3, None).unwrap();
    /// while let Some(a) = g.legal_actions().iter().last() {
    ///     g.step(a).unwrap();
    /// }
    /// let r = g.result().unwrap();
    /// assert_eq!(g.win_values().len(), r.winner_seats().count());
    /// ```
    pub fn win_values(&self) -> Vec<(u8, HandValue)> {
        let Some(r) = self.result() else {
            return Vec::new();
        };
        if r.kind != EndKind::Win {
            return Vec::new();
        }
        let o = outcome(self, r);
        o.winners
            .iter()
            .filter_map(|w| {
                hand_value(&w.hand, w.win_tile, &o.context(w), &self.rules)
                    .ok()
                    .map(|v| (w.seat, v))
            })
            .collect()
    }
}
