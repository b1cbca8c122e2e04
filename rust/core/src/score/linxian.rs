//! Linxian 抠点 scoring (docs/rules.md §4 "Winning", "Payment of a win",
//! "Kongs", "Settlement", "Leaving").
//!
//! The seed's formula — per player, kong score = own kong value × 3 − the
//! other players' kong values, plus or minus the win payments, times the
//! base stake — is exactly the sum of pairwise payments: every kong is paid
//! its value by each of the other three, every win share by its payer.
//! Settling pairwise keeps the payments itemized and the total zero-sum.

use super::ledger::{Ledger, PaymentReason};
use super::outcome::{Checked, HandEnd, Kong, Outcome};
use super::shanxi::others;
use super::{check_point_rule, HandValue, KongKind, Pattern, WinContext};
use crate::error::Error;
use crate::hand::Hand;
use crate::ruleset::Ruleset;
use crate::shape::{is_win, ShapeRules};
use crate::tile::Tile;

/// Linxian value: tile points, doubled on self-draw and on the replacement
/// of one's own concealed kong, not doubled on an added or exposed kong's
/// replacement (which still counts as a self-draw).
pub(super) fn hand_value(
    hand: &Hand,
    win_tile: Tile,
    ctx: &WinContext,
    rules: &Ruleset,
) -> Result<HandValue, Error> {
    let shape = ShapeRules::from(rules);
    if !is_win(&hand.concealed, hand.n_melds(), &ctx.wilds, &shape) {
        return Err(Error::InvalidHand(
            "the hand is not a winning shape under this ruleset".into(),
        ));
    }
    let points = win_tile.points();
    check_point_rule(points, ctx.self_draw, rules)?;
    let mut patterns = Vec::new();
    let doubles = match ctx.kong_replacement {
        Some(KongKind::Concealed) => true,
        Some(_) => false,
        None => ctx.self_draw,
    };
    if ctx.self_draw {
        patterns.push(Pattern::SelfDraw);
    }
    if ctx.kong_replacement.is_some() {
        patterns.push(Pattern::KongBloom);
    }
    if ctx.robbed_kong {
        patterns.push(Pattern::RobbingKong);
    }
    let multiplier = if doubles { 2 } else { 1 };
    Ok(HandValue {
        total: points as u32 * multiplier,
        base: points as u32,
        multiplier,
        bonus: 0,
        patterns,
        family: rules.family,
    })
}

/// A kong's value in a hand that ends with or without a self-drawn win:
/// points (×2 concealed); 1-2 point kongs count only with a self-draw.
fn kong_value(k: &Kong, self_drawn_win: bool) -> u64 {
    let points = k.tile.points() as u64;
    if points <= 2 && !self_drawn_win {
        return 0;
    }
    points * if k.kind == KongKind::Concealed { 2 } else { 1 }
}

/// Linxian payments of a validated outcome.
pub(super) fn settle(
    o: &Outcome,
    c: &Checked,
    rules: &Ruleset,
    ledger: &mut Ledger,
) -> Result<(), Error> {
    let self_drawn = o.end == HandEnd::SelfDraw;
    match o.end {
        HandEnd::Drawn => Ok(()),
        HandEnd::Left { leaver } => {
            for other in others(leaver) {
                ledger.pay(
                    leaver,
                    other,
                    rules.leave_penalty as u64,
                    PaymentReason::LeavePenalty,
                )?;
            }
            for k in o.kongs.iter().filter(|k| k.owner != leaver) {
                for payer in others(k.owner).filter(|&p| p != leaver) {
                    let reason = PaymentReason::Kong {
                        tile: k.tile,
                        kind: k.kind,
                    };
                    ledger.pay(payer, k.owner, kong_value(k, false), reason)?;
                }
            }
            Ok(())
        }
        HandEnd::SelfDraw | HandEnd::Discard { .. } | HandEnd::RobbedKong { .. } => {
            let (Some(w), Some(value)) = (o.winners.first(), c.values.first()) else {
                return Ok(());
            };
            // 一包三: a non-ting player who discarded (or konged) the
            // winning 6+ tile pays all three shares.
            let covering = match o.end {
                HandEnd::Discard { discarder: d } | HandEnd::RobbedKong { konger: d }
                    if !o.ting[d as usize] && w.win_tile.points() >= 6 =>
                {
                    Some(d)
                }
                _ => None,
            };
            for share in others(w.seat) {
                let payer = covering.unwrap_or(share);
                let reason = if payer == share {
                    PaymentReason::Win
                } else {
                    PaymentReason::WinCovered { share_of: share }
                };
                ledger.pay(payer, w.seat, value.total as u64, reason)?;
            }
            for k in &o.kongs {
                for payer in others(k.owner) {
                    let reason = PaymentReason::Kong {
                        tile: k.tile,
                        kind: k.kind,
                    };
                    ledger.pay(payer, k.owner, kong_value(k, self_drawn), reason)?;
                }
            }
            Ok(())
        }
    }
}
