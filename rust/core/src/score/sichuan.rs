//! Sichuan basic-points scoring (docs/rules.md §5 "Hand value", "Payment",
//! "Draw (查叫)", "Kong payments").

use super::ledger::{Ledger, PaymentReason};
use super::outcome::{Checked, HandEnd, Outcome};
use super::shanxi::others;
use super::{four_of_a_kinds, hand_value as any_hand_value, is_full_flush};
use super::{HandValue, KongKind, Pattern, WinContext};
use crate::error::Error;
use crate::hand::Hand;
use crate::legal::{que_yi_men_kinds, suit_mask};
use crate::ruleset::{Chajiao, Family, Ruleset};
use crate::shape::{decompose, is_win, Set, Shape, ShapeRules};
use crate::tile::Tile;
use crate::wildcard::Wildcards;

/// Sichuan value: the largest pattern over every decomposition, plus 根,
/// 杠上花 and 抢杠.
pub(super) fn hand_value(
    hand: &Hand,
    _win_tile: Tile,
    ctx: &WinContext,
    rules: &Ruleset,
) -> Result<HandValue, Error> {
    let all = hand.all_counts();
    if let Some(t) = Tile::all().find(|t| t.is_honor() && all[t.index()] > 0) {
        return Err(Error::InvalidHand(format!(
            "honor tile {t} is not in play in Sichuan (108 tiles)"
        )));
    }
    if suits_held(hand) == 3 {
        return Err(Error::InvalidHand(
            "the hand holds all three suits: a Sichuan win lacks one (缺一门)".into(),
        ));
    }
    let shape = ShapeRules::from(rules);
    // Reject non-wins with the cheap table check before listing
    // decompositions (查叫 tries every kind).
    if !is_win(&hand.concealed, hand.n_melds(), &ctx.wilds, &shape) {
        return Err(Error::InvalidHand(
            "the hand is not a winning shape under this ruleset".into(),
        ));
    }
    let mut best = best_pattern(hand, ctx, &shape);
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
        family: rules.family,
    })
}

/// How many of the three suits the hand holds, melds included.
fn suits_held(hand: &Hand) -> usize {
    suit_mask(&hand.all_counts()).count_ones() as usize
}

/// The largest pattern over every decomposition of a winning hand (no
/// wild tiles in Sichuan). Each pattern is tested directly: all triplets
/// iff every concealed count is 0 or 3 but one pair; seven pairs iff no
/// melds and every count even; only 幺九 needs the decompositions, and
/// only when it could still raise the value.
fn best_pattern(hand: &Hand, ctx: &WinContext, shape: &ShapeRules) -> (u32, Pattern) {
    let c = &hand.concealed;
    let flush = is_full_flush(hand);
    let seven = shape.seven_pairs && hand.n_melds() == 0 && c.iter().all(|n| n % 2 == 0);
    let standard = !seven || is_win(c, hand.n_melds(), &ctx.wilds, &ShapeRules::STANDARD_ONLY);
    let mut best = (0, Pattern::BasicHand);
    let consider = |best: &mut (u32, Pattern), v: u32, p: Pattern| {
        if v > best.0 {
            *best = (v, p);
        }
    };
    if standard {
        let pairs = c.iter().filter(|&&n| n == 2).count();
        let all_triplets = pairs == 1 && c.iter().all(|&n| matches!(n, 0 | 2 | 3));
        let all = hand.all_counts();
        let two_five_eight = Tile::all()
            .filter(|t| all[t.index()] > 0)
            .all(|t| !t.is_honor() && matches!(t.rank(), 2 | 5 | 8));
        consider(&mut best, 1, Pattern::BasicHand);
        if all_triplets {
            consider(&mut best, 2, Pattern::AllTriplets);
        }
        if flush {
            consider(&mut best, 3, Pattern::FullFlush);
        }
        if flush && all_triplets {
            consider(&mut best, 4, Pattern::FlushTriplets);
        }
        if all_triplets && two_five_eight {
            consider(&mut best, 4, Pattern::TwoFiveEight);
        }
        let terminal_ranks = Tile::all()
            .filter(|t| all[t.index()] > 0)
            .all(|t| matches!(t.rank(), 1 | 2 | 3 | 7 | 8 | 9));
        if best.0 < 3 && terminal_ranks && has_terminals_everywhere(hand, ctx, shape) {
            consider(&mut best, 3, Pattern::Terminals);
        }
    }
    if seven {
        if flush {
            consider(&mut best, 8, Pattern::FlushSevenPairs);
        } else {
            consider(&mut best, 3, Pattern::SevenPairs);
        }
    }
    best
}

/// 幺九: some standard decomposition where every set (melds included)
/// and the pair hold a 1 or a 9.
fn has_terminals_everywhere(hand: &Hand, ctx: &WinContext, shape: &ShapeRules) -> bool {
    let terminal = |t: Tile| !t.is_honor() && (t.rank() == 1 || t.rank() == 9);
    if !hand.melds().iter().all(|m| terminal(m.tile)) {
        return false;
    }
    decompose(hand, &ctx.wilds, shape).iter().any(|d| {
        d.shape == Shape::Standard
            && d.pairs.iter().all(|&p| terminal(p))
            && d.sets.iter().all(|s| match *s {
                Set::Triplet(t) => terminal(t),
                // A sequence holds a 1 or a 9 iff it starts at rank 1 or 7.
                Set::Sequence(t) => matches!(t.rank(), 1 | 7),
                Set::Honors(_) => false,
            })
    })
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
    if let Some(t) = Tile::all().find(|t| t.is_honor() && all[t.index()] > 0) {
        return Err(Error::InvalidHand(format!(
            "honor tile {t} is not in play in Sichuan (108 tiles)"
        )));
    }
    let allowed = que_yi_men_kinds(&all);
    let shape = ShapeRules::from(rules);
    let mut best: Option<u32> = None;
    for t in Tile::all().filter(|t| !t.is_honor() && all[t.index()] < 4) {
        // A third suit can never win (缺一门).
        if allowed >> t.index() & 1 == 0 {
            continue;
        }
        let mut h = *hand;
        h.concealed[t.index()] += 1;
        if !is_win(&h.concealed, h.n_melds(), &Wildcards::NONE, &shape) {
            continue;
        }
        let v = any_hand_value(&h, t, &WinContext::discard(), rules)?.total;
        best = Some(match (best, rules.chajiao) {
            (None, _) => v,
            (Some(b), Chajiao::Min) => b.min(v),
            (Some(b), Chajiao::Max) => b.max(v),
        });
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
    // 刮风下雨: with `kongs_need_win` (off in the preset) only a won hand
    // pays them.
    if rules.kong_payments && (!rules.kongs_need_win || !o.winners.is_empty()) {
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
