//! Discard analysis: for a complete hand (`14 − 3 × melds` concealed
//! tiles), what each distinct discard leaves: its shanten, its waits when
//! ready, the best wait's points and whether ting (报听) may be declared
//! with it (docs/rules.md §2 "Waits and ready", §3 报听).
//!
//! Discarding a wild tile is allowed; it is then an ordinary discard that
//! nobody can claim. Shanten of each discard reuses the other groups'
//! table entries: only the discarded tile's group is looked up again.

use crate::error::Error;
use crate::hand::Hand;
use crate::legal::que_yi_men_kinds;
use crate::legal::HandRules;
use crate::ruleset::Ruleset;
use crate::shanten::{combine, halves, Calculator};
use crate::shape::ShapeRules;
use crate::tile::{Tile, KINDS};
use crate::ting::worth_ting;
use crate::waits::{waits_counts_in_play, Waits};
use crate::wildcard::Wildcards;

/// What one discard leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DiscardOption {
    /// The tile kind discarded.
    pub discard: Tile,
    /// Shanten of the remaining hand (0 = ready).
    pub shanten: i8,
    /// The remaining hand's waits ([`Waits::NONE`] unless ready).
    pub waits: Waits,
    /// The best wait's points, 0 when not ready.
    pub best_points: u8,
    /// Whether ting may be declared with this discard (the ruleset has
    /// ting, the rest is ready and a wait is worth `ting_min_points`).
    pub can_declare_ting: bool,
}

/// Every distinct discard of the complete hand `hand`, in tile-index
/// order. Errors when the hand has the wrong size, or holds an honor
/// tile (or an honor is wild) under `no_honors`. Under 缺一门 (the
/// sichuan family) an option's waits leave out every kind whose addition
/// leaves the rest holding all three suits; its shanten is the shape
/// distance (see [`crate::legal`]).
///
/// ```
/// use koudian_core::{hand::Hand, ruleset::Ruleset, discard::discard_options, tile::{parse, Tile}, Wildcards};
/// let hand = Hand::from_tiles(&parse("123m456p789s23m111z").unwrap(), &[]).unwrap();
/// let opts = discard_options(&hand, &Wildcards::NONE, &Ruleset::shanxi()).unwrap();
/// assert_eq!(opts.len(), 10);
/// // Discarding 东 waits on 1m/4m: ready, but no wait worth 6.
/// let east = opts.iter().find(|o| o.discard == Tile::EAST).unwrap();
/// assert_eq!((east.shanten, east.best_points, east.can_declare_ting), (0, 4, false));
/// // Discarding 4p breaks a set.
/// let p4 = opts.iter().find(|o| o.discard == Tile::new(12).unwrap()).unwrap();
/// assert_eq!((p4.shanten, p4.waits.is_ready()), (1, false));
/// ```
pub fn discard_options(
    hand: &Hand,
    wilds: &Wildcards,
    rules: &Ruleset,
) -> Result<Vec<DiscardOption>, Error> {
    hand.check_size(true)?;
    let all = hand.all_counts();
    crate::tile::check_copies(&all)?;
    let legal = HandRules::from(rules);
    legal.check_tiles(&all, wilds)?;
    let mut out = Vec::with_capacity(14);
    if legal.que_yi_men {
        // 缺一门: each discard keeps only the waits that leave the rest
        // lacking a suit.
        each_option(hand, wilds, rules, |mut o| {
            let mut rest = all;
            rest[o.discard.index()] -= 1;
            o.waits = o.waits.only(que_yi_men_kinds(&rest));
            o.best_points = o.waits.best_points().unwrap_or(0);
            o.can_declare_ting &= o.waits.is_ready();
            out.push(o)
        });
    } else {
        each_option(hand, wilds, rules, |o| out.push(o));
    }
    Ok(out)
}

/// Calls `f` with each discard option of a checked complete hand.
pub(crate) fn each_option(
    hand: &Hand,
    wilds: &Wildcards,
    rules: &Ruleset,
    mut f: impl FnMut(DiscardOption),
) {
    let shape = ShapeRules::from(rules);
    let in_play = crate::legal::kinds_in_play(rules);
    let calc = Calculator::new(wilds, &shape);
    let n_melds = hand.n_melds();
    let (natural, w) = wilds.split(&hand.concealed);
    let groups = calc.lanes(&natural);
    let (ab, cd) = halves(&groups);
    let held = hand.all_counts();
    for k in 0..KINDS {
        if hand.concealed[k] == 0 {
            continue;
        }
        let discard = Tile::from_index_unchecked(k as u8);
        let shanten = if wilds.is_wild(discard) {
            calc.of_halves(&natural, &ab, &cd, w - 1, n_melds)
        } else {
            // Only the discarded tile's group, and its half, change.
            let mut nat = natural;
            nat[k] -= 1;
            let gi = (k / 9).min(3);
            let new = calc.group_lanes(&nat, gi);
            let g = &groups.0;
            match gi {
                0 => calc.of_halves(&nat, &combine(&new, &g[1]), &cd, w, n_melds),
                1 => calc.of_halves(&nat, &combine(&g[0], &new), &cd, w, n_melds),
                2 => calc.of_halves(&nat, &ab, &combine(&new, &g[3]), w, n_melds),
                _ => calc.of_halves(&nat, &ab, &combine(&g[2], &new), w, n_melds),
            }
        };
        let mut waits = Waits::NONE;
        if shanten == 0 {
            let mut rest = hand.concealed;
            rest[k] -= 1;
            let mut own = held;
            own[k] -= 1;
            waits = waits_counts_in_play(&rest, &own, n_melds, wilds, &shape, in_play);
        }
        let best_points = waits.best_points().unwrap_or(0);
        f(DiscardOption {
            discard,
            shanten,
            waits,
            best_points,
            can_declare_ting: rules.ting_required && worth_ting(&waits, rules),
        });
    }
}
