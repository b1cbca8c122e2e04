//! Linxian 抠点 scoring (docs/rules.md §4): values, 一包三, kongs (3点起算),
//! the seed's settlement formula and worked example, 逃跑.

use koudian_core::hand::{Hand, Meld, MeldKind};
use koudian_core::ruleset::Ruleset;
use koudian_core::score::{
    hand_value, settle, HandEnd, Kong, KongKind, Outcome, PaymentReason, Win, WinContext,
};
use koudian_core::tile::{parse, Tile};
use koudian_core::Error;

fn t(s: &str) -> Tile {
    Tile::from_notation(s).unwrap()
}

fn hand(concealed: &str, melds: &[(MeldKind, &str)]) -> Hand {
    let melds: Vec<Meld> = melds.iter().map(|(k, s)| Meld::new(*k, t(s))).collect();
    Hand::from_tiles(&parse(concealed).unwrap(), &melds).unwrap()
}

fn deltas(o: &Outcome, r: &Ruleset) -> [i64; 4] {
    let s = settle(o, r).unwrap();
    assert_eq!(s.deltas.iter().sum::<i64>(), 0);
    let mut from_payments = [0i64; 4];
    for p in &s.payments {
        from_payments[p.payer as usize] -= p.amount;
        from_payments[p.payee as usize] += p.amount;
    }
    assert_eq!(from_payments, s.deltas);
    s.deltas
}

/// The seed's table: A (0) 明槓 of a 10-point tile, C (2) 暗槓 of 6p,
/// B (1, ting) discards an 8 that D (3) wins.
fn seed_example() -> Outcome {
    let mut o = Outcome::new(0, HandEnd::Discard { discarder: 1 });
    o.winners
        .push(Win::new(3, hand("123m456m88m234s678s", &[]), t("8m")));
    o.ting = [false, true, false, true];
    o.kongs.push(Kong::own(0, Tile::EAST, KongKind::Added));
    o.kongs.push(Kong::own(2, t("6p"), KongKind::Concealed));
    o
}

fn base(n: u32) -> Ruleset {
    Ruleset {
        base_stake: n,
        ..Ruleset::linxian()
    }
}

#[test]
fn settlement_formula_seed_worked_example() {
    assert_eq!(deltas(&seed_example(), &base(10)), [100, -300, 180, 20]);
}

#[test]
fn settlement_formula_seed_example_in_base_units() {
    // A = 10×3 − 12 − 8 = 10; B = −10 − 12 − 8 = −30; C = 36 − 10 − 8 = 18;
    // D = −10 − 12 + 24 = 2.
    assert_eq!(deltas(&seed_example(), &base(1)), [10, -30, 18, 2]);
}

#[test]
fn settlement_formula_kong_score_matches_own_times_three_minus_others() {
    // Independent check of the seed's per-player formula on the example
    // with an extra exposed kong, won by self-draw (all kongs count).
    let mut o = seed_example();
    o.end = HandEnd::SelfDraw;
    o.kongs.push(Kong::exposed(1, t("2p"), 0, false));
    let kong_values = [10i64, 2, 12, 0];
    let win = 16i64;
    let expected: Vec<i64> = (0..4)
        .map(|s| {
            let others: i64 = (0..4).filter(|&x| x != s).map(|x| kong_values[x]).sum();
            let kong_score = kong_values[s] * 3 - others;
            let win_score = if s == 3 { 3 * win } else { -win };
            kong_score + win_score
        })
        .collect();
    assert_eq!(deltas(&o, &base(1)).to_vec(), expected);
}

#[test]
fn win_value_self_draw_doubles() {
    let v = hand_value(
        &hand("123m456m88m234s678s", &[]),
        t("8m"),
        &WinContext::self_draw(),
        &Ruleset::linxian(),
    )
    .unwrap();
    assert_eq!(v.total, 16);
    let mut o = seed_example();
    o.end = HandEnd::SelfDraw;
    o.kongs.clear();
    assert_eq!(deltas(&o, &base(1)), [-16, -16, -16, 48]);
}

#[test]
fn concealed_kong_bloom_doubles() {
    let mut o = Outcome::new(0, HandEnd::SelfDraw);
    let mut w = Win::new(
        3,
        hand("123m456m88m234s", &[(MeldKind::ConcealedKong, "9p")]),
        t("8m"),
    );
    w.kong_bloom = Some(0);
    o.winners.push(w);
    o.ting[3] = true;
    o.kongs.push(Kong::own(3, t("9p"), KongKind::Concealed));
    // Win 16 from each, kong 18 from each.
    assert_eq!(deltas(&o, &base(1)), [-34, -34, -34, 102]);
}

#[test]
fn added_kong_bloom_counts_as_self_draw_without_doubling() {
    let mut o = Outcome::new(0, HandEnd::SelfDraw);
    let mut w = Win::new(
        3,
        hand("123m456m88m234s", &[(MeldKind::AddedKong, "9p")]),
        t("8m"),
    );
    w.kong_bloom = Some(0);
    o.winners.push(w);
    o.ting[3] = true;
    o.kongs.push(Kong::own(3, t("9p"), KongKind::Added));
    assert_eq!(deltas(&o, &base(1)), [-17, -17, -17, 51]);
    // A 3-point tile wins on it (a self-draw) and all three pay.
    o.winners[0].hand = hand("123m456m33m234s", &[(MeldKind::AddedKong, "9p")]);
    o.winners[0].win_tile = t("3m");
    assert_eq!(deltas(&o, &base(1)), [-12, -12, -12, 36]);
}

#[test]
fn exposed_kong_bloom_does_not_double() {
    let ctx = WinContext {
        kong_replacement: Some(KongKind::Exposed),
        ..WinContext::self_draw()
    };
    let v = hand_value(
        &hand("123m456m88m234s", &[(MeldKind::ExposedKong, "9p")]),
        t("8m"),
        &ctx,
        &Ruleset::linxian(),
    )
    .unwrap();
    assert_eq!((v.total, v.multiplier), (8, 1));
}

#[test]
fn yibaosan_non_ting_discarder_pays_all_three_shares() {
    let mut o = seed_example();
    o.kongs.clear();
    o.ting[1] = false;
    let s = settle(&o, &base(1)).unwrap();
    assert_eq!(s.deltas, [0, -24, 0, 24]);
    assert_eq!(
        s.payments
            .iter()
            .filter(|p| matches!(p.reason, PaymentReason::WinCovered { .. }))
            .count(),
        2
    );
    o.ting[1] = true;
    assert_eq!(deltas(&o, &base(1)), [-8, -8, -8, 24]);
}

#[test]
fn robbed_kong_non_ting_konger_pays_all_three_shares() {
    let mut o = seed_example();
    o.kongs.clear();
    o.end = HandEnd::RobbedKong { konger: 2 };
    assert_eq!(deltas(&o, &base(1)), [0, 0, -24, 24]);
    o.ting[2] = true;
    assert_eq!(deltas(&o, &base(1)), [-8, -8, -8, 24]);
}

#[test]
fn kongs_of_one_or_two_points_score_only_in_a_self_draw_win() {
    let mut o = seed_example();
    o.kongs = vec![
        Kong::own(0, t("2p"), KongKind::Concealed),
        Kong::exposed(2, t("1s"), 0, false),
    ];
    // On a (ting) discard: 1-2 point kongs score 0.
    assert_eq!(deltas(&o, &base(1)), [-8, -8, -8, 24]);
    // Self-draw: they count (2p concealed = 4, 1s exposed = 1).
    o.end = HandEnd::SelfDraw;
    assert_eq!(
        deltas(&o, &base(1)),
        [-16 + 12 - 1, -16 - 4 - 1, -16 - 4 + 3, 48 - 4 - 1]
    );
}

#[test]
fn kongs_of_one_or_two_points_score_in_a_kong_bloom_win() {
    let mut o = Outcome::new(0, HandEnd::SelfDraw);
    let mut w = Win::new(
        3,
        hand("123m456m88m234s", &[(MeldKind::AddedKong, "2p")]),
        t("8m"),
    );
    w.kong_bloom = Some(0);
    o.winners.push(w);
    o.ting[3] = true;
    o.kongs.push(Kong::own(3, t("2p"), KongKind::Added));
    assert_eq!(deltas(&o, &base(1)), [-10, -10, -10, 30]);
}

#[test]
fn kongs_settle_only_in_a_won_hand_drawn_hand_settles_nothing() {
    let mut o = seed_example();
    o.winners.clear();
    o.end = HandEnd::Drawn;
    let s = settle(&o, &base(10)).unwrap();
    assert_eq!(s.deltas, [0; 4]);
    assert!(s.payments.is_empty());
}

#[test]
fn leaving_penalty_leaver_pays_each_other_player_and_others_kongs_settle() {
    let mut o = seed_example();
    o.winners.clear();
    o.end = HandEnd::Left { leaver: 1 };
    o.kongs.push(Kong::own(1, t("9p"), KongKind::Concealed));
    // Leaver pays 10 to each; A's kong (10) from C and D; C's (12) from A
    // and D; the leaver's own kong scores nothing.
    assert_eq!(
        deltas(&o, &base(1)),
        [10 + 20 - 12, -30, 10 + 24 - 10, 10 - 10 - 12]
    );
    let r = Ruleset {
        leave_penalty: 3,
        base_stake: 10,
        ..Ruleset::linxian()
    };
    assert_eq!(
        deltas(&o, &r),
        [(3 + 8) * 10, -90, (3 + 14) * 10, (3 - 22) * 10]
    );
}

#[test]
fn point_thresholds_discard_six_self_draw_three() {
    let r = Ruleset::linxian();
    let h = hand("123m456m55m234s678s", &[]);
    assert!(hand_value(&h, t("5m"), &WinContext::discard(), &r).is_err());
    assert_eq!(
        hand_value(&h, t("5m"), &WinContext::self_draw(), &r).map(|v| v.total),
        Ok(10)
    );
    let h = hand("123m456m22m234s678s", &[]);
    assert!(hand_value(&h, t("2m"), &WinContext::self_draw(), &r).is_err());
}

#[test]
fn standard_shape_only_no_seven_pairs() {
    let e = hand_value(
        &hand("11m33m55p77p99s11z22z", &[]),
        t("2z"),
        &WinContext::discard(),
        &Ruleset::linxian(),
    )
    .unwrap_err();
    assert!(matches!(e, Error::InvalidHand(_)));
}

#[test]
fn winner_must_have_declared_ting() {
    let mut o = seed_example();
    o.ting[3] = false;
    let e = settle(&o, &base(10)).unwrap_err();
    assert!(e.to_string().contains("ting"), "{e}");
}

#[test]
fn shanxi_only_options_do_not_change_linxian() {
    let o = seed_example();
    let r = Ruleset {
        kong_giver_pays: true,
        discarder_pays_kongs: true,
        kongs_need_win: false,
        special_hands: true,
        ..base(10)
    };
    assert_eq!(deltas(&o, &r), [100, -300, 180, 20]);
}

#[test]
fn kongs_of_one_or_two_points_score_zero_in_a_baohu_hand() {
    let mut o = seed_example();
    o.ting[1] = false;
    o.kongs = vec![Kong::own(0, t("2p"), KongKind::Concealed)];
    assert_eq!(deltas(&o, &base(1)), [0, -24, 0, 24]);
}
