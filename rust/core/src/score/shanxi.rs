//! Shanxi 扣点点 scoring (docs/rules.md §3 "Scoring", "Dealer bonus",
//! "Multipliers"): the win value and who pays it, kong values, 带庄.

use super::ledger::{Ledger, PaymentReason};
use super::outcome::{Checked, HandEnd, Outcome};
use super::{check_point_rule, four_of_a_kinds, is_full_flush, HandValue, KongKind, Pattern};
use super::{Seat, WinContext};
use crate::error::Error;
use crate::hand::Hand;
use crate::ruleset::{Haozi, Ruleset};
use crate::shape::win::Checker;
use crate::shape::{is_win, ShapeRules};
use crate::tile::Tile;
use crate::waits::completing_kinds;
use crate::wildcard::Wildcards;

/// Shanxi value: points × largest special-hand multiplier × 2 on self-draw.
pub(super) fn hand_value(
    hand: &Hand,
    win_tile: Tile,
    ctx: &WinContext,
    rules: &Ruleset,
) -> Result<HandValue, Error> {
    let shape = ShapeRules::from(rules);
    // The table-based check is cheap; decompositions are listed only when
    // a multiplier or a self-drawn wild tile needs them.
    if !is_win(&hand.concealed, hand.n_melds(), &ctx.wilds, &shape) {
        return Err(Error::InvalidHand(
            "the hand is not a winning shape under this ruleset".into(),
        ));
    }
    let specials = rules.special_hands && rules.haozi == Haozi::None;
    let points = if ctx.wilds.is_wild(win_tile) {
        wild_win_points(hand, win_tile, ctx, rules)
    } else {
        win_tile.points()
    };
    check_point_rule(points, ctx.self_draw, rules)?;
    let mut patterns = Vec::new();
    let mut multiplier = 1;
    if specials {
        if let Some((m, p)) = special_hand(hand, &shape) {
            multiplier = m;
            patterns.push(p);
        }
    }
    if ctx.self_draw {
        multiplier *= 2;
        patterns.push(Pattern::SelfDraw);
        if ctx.kong_replacement.is_some() {
            patterns.push(Pattern::KongBloom);
        }
    }
    if ctx.robbed_kong {
        patterns.push(Pattern::RobbingKong);
    }
    Ok(HandValue {
        total: points as u32 * multiplier,
        base: points as u32,
        multiplier,
        bonus: 0,
        patterns,
        family: rules.family,
    })
}

/// The largest special-hand multiplier over every decomposition of a
/// winning hand without wild tiles. Each shape is tested directly rather
/// than by listing decompositions: seven pairs is "no melds, every count
/// even"; a decomposition holds 123-456-789 of a suit iff the hand minus
/// those nine tiles still completes with three more sets.
fn special_hand(hand: &Hand, shape: &ShapeRules) -> Option<(u32, Pattern)> {
    let mut best: Option<(u32, Pattern)> = None;
    let mut consider = |m: u32, p: Pattern| {
        if best.is_none_or(|(b, _)| m > b) {
            best = Some((m, p));
        }
    };
    if is_full_flush(hand) {
        consider(2, Pattern::FullFlush);
    }
    if has_pure_straight(hand, shape) {
        consider(2, Pattern::PureStraight);
    }
    if shape.seven_pairs && hand.n_melds() == 0 && hand.concealed.iter().all(|n| n % 2 == 0) {
        match four_of_a_kinds(hand).count() {
            0 => consider(2, Pattern::SevenPairs),
            1 => consider(4, Pattern::GoldenSevenPairs),
            2 => consider(8, Pattern::LuxurySevenPairs),
            _ => consider(16, Pattern::LuxuryGoldenSevenPairs),
        }
    }
    best
}

fn has_pure_straight(hand: &Hand, shape: &ShapeRules) -> bool {
    if hand.n_melds() > 1 {
        return false;
    }
    (0..3).any(|suit| {
        let run = suit * 9..suit * 9 + 9;
        if hand.concealed[run.clone()].contains(&0) {
            return false;
        }
        let mut rest = hand.concealed;
        for i in run {
            rest[i] -= 1;
        }
        is_win(&rest, hand.n_melds() + 3, &Wildcards::NONE, shape)
    })
}

/// A self-drawn wild tile's points: the best kind in play (honors only
/// when the ruleset has them) it could stand for to complete the hand, a
/// 5th copy included (docs/rules.md §2). The completing kinds come from the
/// waits module (the same computation the table uses for ting).
fn wild_win_points(hand: &Hand, win_tile: Tile, ctx: &WinContext, rules: &Ruleset) -> u8 {
    let mut short = hand.concealed;
    short[win_tile.index()] -= 1;
    let checker = Checker::new(&ctx.wilds, &ShapeRules::from(rules));
    let mask =
        completing_kinds(&checker, &short, hand.n_melds()) & crate::legal::kinds_in_play(rules);
    crate::waits::best_points(mask)
}

/// Shanxi payments of a validated outcome.
pub(super) fn settle(
    o: &Outcome,
    c: &Checked,
    rules: &Ruleset,
    ledger: &mut Ledger,
) -> Result<(), Error> {
    // The player whose discard (or robbed kong) was won, if he had not
    // declared ting: he covers every share (包胡).
    let covering = match o.end {
        HandEnd::Discard { discarder: d } | HandEnd::RobbedKong { konger: d }
            if !o.ting[d as usize] =>
        {
            Some(d)
        }
        _ => None,
    };
    let won = !o.winners.is_empty();
    if let (Some(w), Some(value)) = (o.winners.first(), c.values.first()) {
        let winner = w.seat;
        let self_draw = o.end == HandEnd::SelfDraw;
        let bonus = if !rules.dealer_bonus {
            0
        } else if self_draw && rules.dealer_self_draw_double {
            10
        } else {
            5
        };
        for share in others(winner) {
            let payer = covering.unwrap_or(share);
            let reason = if payer == share {
                PaymentReason::Win
            } else {
                PaymentReason::WinCovered { share_of: share }
            };
            ledger.pay(payer, winner, value.total as u64, reason)?;
            if winner == o.dealer || share == o.dealer {
                ledger.pay(payer, winner, bonus, PaymentReason::DealerBonus)?;
            }
        }
    }
    if won || !rules.kongs_need_win {
        for k in &o.kongs {
            let value = k.tile.points() as u64 * if k.kind == KongKind::Concealed { 2 } else { 1 };
            let giver_covers = match (k.kind, k.giver) {
                (KongKind::Exposed, Some(g)) if rules.kong_giver_pays && !k.giver_ting => Some(g),
                _ => None,
            };
            for share in others(k.owner) {
                let mut payer = giver_covers.unwrap_or(share);
                if rules.discarder_pays_kongs {
                    if let Some(d) = covering {
                        if payer != d && k.owner != d {
                            payer = d;
                        }
                    }
                }
                let reason = if payer == share {
                    PaymentReason::Kong {
                        tile: k.tile,
                        kind: k.kind,
                    }
                } else {
                    PaymentReason::KongCovered {
                        tile: k.tile,
                        kind: k.kind,
                        share_of: share,
                    }
                };
                ledger.pay(payer, k.owner, value, reason)?;
            }
        }
    }
    Ok(())
}

/// The three seats other than `seat`, in turn order after it.
pub(super) fn others(seat: Seat) -> impl Iterator<Item = Seat> {
    (1..4).map(move |i| (seat + i) % 4)
}
