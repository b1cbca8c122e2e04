//! Sichuan basic-points scoring (RULES.md §5 "Hand value", "Payment",
//! "Draw (查叫)", "Kong payments").

use super::outcome::{Checked, HandEnd, Outcome};
use super::settle::{Ledger, PaymentReason};
use super::shanxi::others;
use super::{four_of_a_kinds, hand_value as any_hand_value, is_full_flush};
use super::{HandValue, KongKind, Pattern, WinContext};
use crate::error::Error;
use crate::hand::Hand;
use crate::ruleset::{Chajiao, Family, Ruleset};
use crate::shape::{decompose, Decomposition, Set, Shape, ShapeRules};
use crate::tile::{Suit, Tile};

/// Sichuan value: the largest pattern over every decomposition, plus 根,
/// 杠上花 and 抢杠.
pub(super) fn hand_value(
    hand: &Hand,
    _win_tile: Tile,
    ctx: &WinContext,
    rules: &Ruleset,
) -> Result<HandValue, Error> {
    if let Some(t) = Tile::all().find(|t| t.is_honor() && hand.all_counts()[t.index()] > 0) {
        return Err(Error::InvalidHand(format!(
            "honor tile {t} is not in play in Sichuan (108 tiles)"
        )));
    }
    if suits_held(hand) == 3 {
        return Err(Error::InvalidHand(
            "the hand holds all three suits: a Sichuan win lacks one (缺一门)".into(),
        ));
    }
    let ds = decompose(hand, &ctx.wilds, &ShapeRules::from(rules));
    let flush = is_full_flush(hand);
    let mut best: Option<(u32, Pattern)> = None;
    for d in &ds {
        let (v, p) = pattern(hand, d, flush);
        if best.is_none_or(|(b, _)| v > b) {
            best = Some((v, p));
        }
    }
    let Some(mut best) = best else {
        return Err(Error::InvalidHand(
            "the hand is not a winning shape under this ruleset".into(),
        ));
    };
    if ctx.heavenly && best.0 < 8 {
        best = (8, Pattern::Heavenly);
    }
    if ctx.earthly && best.0 < 8 {
        best = (8, Pattern::Earthly);
    }
    let mut patterns = vec![best.1];
    let mut bonus = 0;
    for t in four_of_a_kinds(hand) {
        patterns.push(Pattern::Root(t));
        bonus += 1;
    }
    if ctx.kong_replacement.is_some() {
        patterns.push(Pattern::KongBloom);
        bonus += 2;
    }
    if ctx.robbed_kong {
        patterns.push(Pattern::RobbingKong);
        bonus += 1;
    }
    Ok(HandValue {
        total: best.0 + bonus,
        base: best.0,
        multiplier: 1,
        bonus,
        patterns,
    })
}

/// How many of the three suits the hand holds, melds included.
fn suits_held(hand: &Hand) -> usize {
    let all = hand.all_counts();
    [Suit::Man, Suit::Pin, Suit::Sou]
        .iter()
        .filter(|&&s| Tile::all().any(|t| t.suit() == s && all[t.index()] > 0))
        .count()
}

/// The largest pattern one decomposition matches.
fn pattern(hand: &Hand, d: &Decomposition, flush: bool) -> (u32, Pattern) {
    if d.shape == Shape::SevenPairs {
        return if flush {
            (8, Pattern::FlushSevenPairs)
        } else {
            (3, Pattern::SevenPairs)
        };
    }
    if d.shape != Shape::Standard {
        return (1, Pattern::BasicHand);
    }
    // Every set as (is a triplet, its kinds); melds are triplets.
    let mut sets: Vec<(bool, [Tile; 3])> =
        hand.melds().iter().map(|m| (true, [m.tile; 3])).collect();
    for s in &d.sets {
        match *s {
            Set::Triplet(t) => sets.push((true, [t; 3])),
            Set::Sequence(t) => {
                let next = |k: u8| Tile::new(t.id() + k).unwrap_or(t);
                sets.push((false, [t, next(1), next(2)]))
            }
            Set::Honors(ts) => sets.push((false, ts)),
        }
    }
    let pair = d.pairs.first().copied();
    let all_triplets = sets.iter().all(|(trip, _)| *trip);
    let terminal = |t: &Tile| !t.is_honor() && (t.rank() == 1 || t.rank() == 9);
    let terminals =
        sets.iter().all(|(_, ts)| ts.iter().any(terminal)) && pair.is_some_and(|p| terminal(&p));
    let two_five_eight = |t: &Tile| !t.is_honor() && matches!(t.rank(), 2 | 5 | 8);
    let jiang = all_triplets
        && sets.iter().all(|(_, ts)| two_five_eight(&ts[0]))
        && pair.is_some_and(|p| two_five_eight(&p));
    let mut best = (1, Pattern::BasicHand);
    let mut consider = |v: u32, p: Pattern| {
        if v > best.0 {
            best = (v, p);
        }
    };
    if all_triplets {
        consider(2, Pattern::AllTriplets);
    }
    if flush {
        consider(3, Pattern::FullFlush);
    }
    if terminals {
        consider(3, Pattern::Terminals);
    }
    if flush && all_triplets {
        consider(4, Pattern::FlushTriplets);
    }
    if jiang {
        consider(4, Pattern::TwoFiveEight);
    }
    best
}

/// The 查叫 value of a Sichuan hand one tile short (13 tiles counting each
/// meld as 3): `None` when it is not ready, else the smallest
/// (`chajiao = "min"`) or largest (`"max"`) value any of its waits would
/// win with, valued as a win on a discard (no 杠上花, 抢杠, 天胡, 地胡).
/// A wait is a kind the player holds fewer than 4 of that completes a
/// legal win (缺一门 included).
///
/// ```
/// use koudian_core::{hand::Hand, tile::parse, Ruleset};
/// use koudian_core::score::chajiao_value;
/// let rules = Ruleset::sichuan();
/// // Waits on 1m or 4m, each a 平胡 worth 1.
/// let h = Hand::from_tiles(&parse("23m456m789m11p555p").unwrap(), &[]).unwrap();
/// assert_eq!(chajiao_value(&h, &rules).unwrap(), Some(1));
/// let not_ready = Hand::from_tiles(&parse("13m456m789m11p559p").unwrap(), &[]).unwrap();
/// assert_eq!(chajiao_value(&not_ready, &rules).unwrap(), None);
/// ```
pub fn chajiao_value(hand: &Hand, rules: &Ruleset) -> Result<Option<u32>, Error> {
    if rules.family != Family::Sichuan {
        return Err(Error::InvalidRuleset(
            "查叫 (chajiao) is a Sichuan rule; the ruleset is not in the sichuan family".into(),
        ));
    }
    hand.check_size(false)?;
    let all = hand.all_counts();
    let mut best: Option<u32> = None;
    for t in Tile::all().filter(|t| !t.is_honor() && all[t.index()] < 4) {
        let mut h = *hand;
        h.concealed[t.index()] += 1;
        if let Ok(v) = any_hand_value(&h, t, &WinContext::discard(), rules) {
            best = Some(match (best, rules.chajiao) {
                (None, _) => v.total,
                (Some(b), Chajiao::Min) => b.min(v.total),
                (Some(b), Chajiao::Max) => b.max(v.total),
            });
        }
    }
    Ok(best)
}

/// Sichuan payments of a validated outcome.
pub(super) fn settle(
    o: &Outcome,
    c: &Checked,
    rules: &Ruleset,
    ledger: &mut Ledger,
) -> Result<(), Error> {
    match o.end {
        HandEnd::SelfDraw => {
            if let (Some(w), Some(v)) = (o.winners.first(), c.values.first()) {
                let giver = w
                    .kong_bloom
                    .and_then(|i| o.kongs.get(i))
                    .filter(|k| k.kind == KongKind::Exposed)
                    .and_then(|k| k.giver);
                match giver {
                    Some(g) => {
                        ledger.pay(g, w.seat, v.total as u64, PaymentReason::KongGiverPaysBloom)?
                    }
                    None => {
                        for p in others(w.seat) {
                            ledger.pay(p, w.seat, v.total as u64, PaymentReason::Win)?;
                        }
                    }
                }
            }
        }
        HandEnd::Discard { discarder: d } | HandEnd::RobbedKong { konger: d } => {
            for (w, v) in o.winners.iter().zip(&c.values) {
                ledger.pay(d, w.seat, v.total as u64, PaymentReason::Win)?;
            }
        }
        HandEnd::Drawn => {
            let mut values = [None; 4];
            for (s, h) in o.hands.iter().enumerate() {
                if let Some(h) = h {
                    values[s] = chajiao_value(h, rules).map_err(|e| {
                        Error::InconsistentOutcome(format!("seat {s}'s final hand: {e}"))
                    })?;
                }
            }
            for (ready, v) in values.iter().enumerate() {
                let Some(v) = v else { continue };
                for (payer, pv) in values.iter().enumerate() {
                    if pv.is_none() {
                        ledger.pay(payer as u8, ready as u8, *v as u64, PaymentReason::Chajiao)?;
                    }
                }
            }
        }
        HandEnd::Left { .. } => {}
    }
    if rules.kong_payments {
        for k in &o.kongs {
            let reason = PaymentReason::Kong {
                tile: k.tile,
                kind: k.kind,
            };
            match (k.kind, k.giver) {
                (KongKind::Concealed, _) => {
                    for p in others(k.owner) {
                        ledger.pay(p, k.owner, 2, reason)?;
                    }
                }
                (KongKind::Added, _) => {
                    for p in others(k.owner) {
                        ledger.pay(p, k.owner, 1, reason)?;
                    }
                }
                (KongKind::Exposed, Some(g)) => ledger.pay(g, k.owner, 2, reason)?,
                (KongKind::Exposed, None) => {}
            }
        }
    }
    Ok(())
}
