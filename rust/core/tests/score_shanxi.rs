//! Shanxi 扣点点 scoring (docs/rules.md §3): hand values, multipliers, point
//! rule, wild tiles, and one settlement test per option where switching
//! the option changes the money.

use koudian_core::hand::{Hand, Meld, MeldKind};
use koudian_core::ruleset::{DealerRotation, Haozi, PointRule, Ruleset};
use koudian_core::score::{
    hand_value, settle, HandEnd, Kong, KongKind, Outcome, Pattern, PaymentReason, Settlement,
    WinContext,
};
use koudian_core::tile::{parse, Tile};
use koudian_core::{Error, Wildcards};

fn t(s: &str) -> Tile {
    Tile::from_notation(s).unwrap()
}

fn hand(concealed: &str, melds: &[(MeldKind, &str)]) -> Hand {
    let melds: Vec<Meld> = melds.iter().map(|(k, s)| Meld::new(*k, t(s))).collect();
    Hand::from_tiles(&parse(concealed).unwrap(), &melds).unwrap()
}

fn value(concealed: &str, win: &str, self_draw: bool, rules: &Ruleset) -> Result<u32, Error> {
    let ctx = if self_draw {
        WinContext::self_draw()
    } else {
        WinContext::discard()
    };
    hand_value(&hand(concealed, &[]), t(win), &ctx, rules).map(|v| v.total)
}

fn special() -> Ruleset {
    Ruleset {
        special_hands: true,
        ..Ruleset::shanxi()
    }
}

// ---------------------------------------------------------------- values

#[test]
fn win_value_is_tile_points_on_a_discard() {
    assert_eq!(
        value("123m456m789m234p88s", "8s", false, &Ruleset::shanxi()),
        Ok(8)
    );
    assert_eq!(
        value("123m456m789m234p11z", "1z", false, &Ruleset::shanxi()),
        Ok(10)
    );
}

#[test]
fn self_draw_doubles_the_win_value() {
    assert_eq!(
        value("123m456m789m234p88s", "8s", true, &Ruleset::shanxi()),
        Ok(16)
    );
    let v = hand_value(
        &hand("123m456m789m234p88s", &[]),
        t("8s"),
        &WinContext::self_draw(),
        &Ruleset::shanxi(),
    )
    .unwrap();
    assert_eq!((v.base, v.multiplier, v.bonus), (8, 2, 0));
    assert_eq!(v.patterns, vec![Pattern::SelfDraw]);
}

#[test]
fn kong_bloom_is_a_self_draw_and_doubles() {
    let h = hand("123m456m789m88s", &[(MeldKind::ConcealedKong, "1z")]);
    for kind in [KongKind::Concealed, KongKind::Added, KongKind::Exposed] {
        let ctx = WinContext {
            kong_replacement: Some(kind),
            ..WinContext::self_draw()
        };
        let v = hand_value(&h, t("8s"), &ctx, &Ruleset::shanxi()).unwrap();
        assert_eq!(v.total, 16);
        assert!(v.patterns.contains(&Pattern::KongBloom));
    }
}

#[test]
fn point_rule_standard_one_two_never_three_to_five_self_draw_only() {
    let r = Ruleset::shanxi();
    // 2s pair: 2 points never wins.
    assert!(value("123m456m789m234p22s", "2s", true, &r).is_err());
    assert!(value("123m456m789m234p22s", "2s", false, &r).is_err());
    // 4p: self-draw only.
    assert_eq!(value("123m456m789m234p88s", "4p", true, &r), Ok(8));
    let e = value("123m456m789m234p88s", "4p", false, &r).unwrap_err();
    assert!(e.to_string().contains("4-point"), "{e}");
    // 6+ both ways.
    assert_eq!(value("123m456m789m456p66s", "6s", false, &r), Ok(6));
}

#[test]
fn point_rule_strict_one_to_four_never_five_self_draw_only() {
    let r = Ruleset {
        point_rule: PointRule::Strict,
        ..Ruleset::shanxi()
    };
    assert!(value("123m456m789m234p88s", "4p", true, &r).is_err());
    assert_eq!(value("123m456m789m345p88s", "5p", true, &r), Ok(10));
    assert!(value("123m456m789m345p88s", "5p", false, &r).is_err());
    assert_eq!(value("123m456m789m456p66s", "6s", false, &r), Ok(6));
}

#[test]
fn not_a_winning_shape_is_refused() {
    let e = value("123m456m789m235p88s", "8s", true, &Ruleset::shanxi()).unwrap_err();
    assert!(matches!(e, Error::InvalidHand(_)), "{e}");
    let e = value("123m456m789m234p88s", "9s", true, &Ruleset::shanxi()).unwrap_err();
    assert!(e.to_string().contains("not among"), "{e}");
    assert!(value("123m456m789m234p8s", "8s", true, &Ruleset::shanxi()).is_err());
}

#[test]
fn no_honors_refuses_honor_tiles() {
    let r = Ruleset {
        no_honors: true,
        thirteen_orphans: false,
        ..Ruleset::shanxi()
    };
    assert!(value("123m456m789m234p11z", "1z", true, &r)
        .unwrap_err()
        .to_string()
        .contains("not in play"));
}

#[test]
fn thirteen_orphans_has_no_multiplier() {
    assert_eq!(value("19m19p19s12345677z", "7z", false, &special()), Ok(10));
}

#[test]
fn special_hands_full_flush_doubles() {
    assert_eq!(
        value("111m234m555m678m99m", "9m", false, &special()),
        Ok(18)
    );
    assert_eq!(value("111m234m555m678m99m", "9m", true, &special()), Ok(36));
    assert_eq!(
        value("111m234m555m678m99m", "9m", false, &Ruleset::shanxi()),
        Ok(9)
    );
}

#[test]
fn special_hands_full_flush_counts_melds() {
    let h = hand("234m555m678m99m", &[(MeldKind::Pong, "1m")]);
    let v = hand_value(&h, t("9m"), &WinContext::discard(), &special()).unwrap();
    assert_eq!(v.total, 18);
    let h = hand("234m555m678m99m", &[(MeldKind::Pong, "1p")]);
    let v = hand_value(&h, t("9m"), &WinContext::discard(), &special()).unwrap();
    assert_eq!(v.total, 9);
}

#[test]
fn special_hands_pure_straight_doubles() {
    assert_eq!(
        value("123m456m789m234p88s", "8s", false, &special()),
        Ok(16)
    );
    assert_eq!(value("123m456m789m234p88s", "8s", true, &special()), Ok(32));
}

#[test]
fn special_hands_seven_pairs_doubles() {
    assert_eq!(
        value("11m33m55p77p99s11z22z", "2z", false, &special()),
        Ok(20)
    );
    assert_eq!(
        value("11m33m55p77p99s11z22z", "2z", true, &special()),
        Ok(40)
    );
}

#[test]
fn special_hands_golden_seven_pairs_times_four() {
    let v = hand_value(
        &hand("1111m33m55p77p99s22z", &[]),
        t("2z"),
        &WinContext::discard(),
        &special(),
    )
    .unwrap();
    assert_eq!(v.total, 40);
    assert_eq!(v.patterns, vec![Pattern::GoldenSevenPairs]);
    assert_eq!(
        value("1111m33m55p77p99s22z", "2z", true, &special()),
        Ok(80)
    );
}

#[test]
fn special_hands_luxury_seven_pairs_times_eight() {
    assert_eq!(
        value("1111m3333m55p77p22z", "2z", false, &special()),
        Ok(80)
    );
    assert_eq!(
        value("1111m3333m55p77p22z", "2z", true, &special()),
        Ok(160)
    );
}

#[test]
fn special_hands_luxury_golden_seven_pairs_times_sixteen() {
    assert_eq!(
        value("1111m3333m5555p22z", "2z", false, &special()),
        Ok(160)
    );
    assert_eq!(value("1111m3333m5555p22z", "2z", true, &special()), Ok(320));
}

#[test]
fn special_hands_only_the_largest_multiplier_applies() {
    // 清一色 + 一条龙: ×2, not ×4.
    assert_eq!(
        value("123m456m789m111m22m", "1m", true, &special()).ok(),
        None
    );
    assert_eq!(
        value("123m456m789m111m99m", "9m", false, &special()),
        Ok(18)
    );
    // 清一色 + 黄金七小对: ×4.
    assert_eq!(
        value("1111m22m33m55m77m99m", "9m", false, &special()),
        Ok(36)
    );
}

#[test]
fn special_hands_ignored_in_wildcard_modes() {
    let r = Ruleset {
        haozi: Haozi::Single,
        ..special()
    };
    let ctx = WinContext {
        wilds: Wildcards::new(&[t("7z")]).unwrap(),
        ..WinContext::discard()
    };
    let v = hand_value(&hand("111m234m555m678m99m", &[]), t("9m"), &ctx, &r).unwrap();
    assert_eq!(v.total, 9);
}

// ------------------------------------------------------------ wild tiles

fn haozi(wild: &str) -> (Ruleset, WinContext) {
    let r = Ruleset {
        haozi: Haozi::Single,
        ..Ruleset::shanxi()
    };
    let ctx = WinContext {
        wilds: Wildcards::new(&[t(wild)]).unwrap(),
        ..WinContext::self_draw()
    };
    (r, ctx)
}

#[test]
fn self_drawn_wild_tile_takes_the_best_wait_points() {
    let (r, ctx) = haozi("7z");
    // Without the drawn 7z the hand waits on 1p or 4p: worth 4, ×2.
    let v = hand_value(&hand("123m456m789m11p23p7z", &[]), t("7z"), &ctx, &r).unwrap();
    assert_eq!((v.base, v.total), (4, 8));
    // 11p 5p + one held wild: the drawn wild can be 7p (567p): 7 points.
    let v = hand_value(&hand("123m456m789m11p5p7z7z", &[]), t("7z"), &ctx, &r).unwrap();
    assert_eq!((v.base, v.total), (7, 14));
}

#[test]
fn self_drawn_wild_tile_may_stand_for_a_fifth_copy_or_an_honor() {
    let (r, ctx) = haozi("7z");
    // Three wilds form a set of any kind: an honor is worth 10.
    let v = hand_value(&hand("123m456m789m11p7z7z7z", &[]), t("7z"), &ctx, &r).unwrap();
    assert_eq!(v.base, 10);
    // The only wait is a 5th 9s: the wild still completes it.
    let v = hand_value(&hand("123m456m789m9999s7z", &[]), t("7z"), &ctx, &r);
    assert_eq!(v.map(|v| v.base), Ok(9));
}

#[test]
fn discarded_wild_tile_never_wins() {
    let (r, ctx) = haozi("7z");
    let ctx = WinContext {
        self_draw: false,
        ..ctx
    };
    let e = hand_value(&hand("123m456m789m11p23p7z", &[]), t("7z"), &ctx, &r).unwrap_err();
    assert!(e.to_string().contains("wild"), "{e}");
}

#[test]
fn wild_kinds_must_match_the_ruleset() {
    let (r, _) = haozi("7z");
    let e = hand_value(
        &hand("123m456m789m234p88s", &[]),
        t("8s"),
        &WinContext::self_draw(),
        &r,
    )
    .unwrap_err();
    assert!(e.to_string().contains("wild kind"), "{e}");
}

// ------------------------------------------------------------ settlement

const WINNER: u8 = 2;

/// Seat 2 wins with 8s (一条龙 shape, 8 points) in `end`; dealer 0.
fn won(end: HandEnd) -> Outcome {
    let mut o = Outcome::new(0, end);
    o.winners.push(koudian_core::score::Win::new(
        WINNER,
        hand("123m456m789m234p88s", &[]),
        t("8s"),
    ));
    o.ting[WINNER as usize] = true;
    o
}

fn deltas(o: &Outcome, r: &Ruleset) -> [i64; 4] {
    let s = settle(o, r).unwrap();
    assert_eq!(s.deltas.iter().sum::<i64>(), 0);
    s.deltas
}

#[test]
fn self_draw_each_other_player_pays() {
    assert_eq!(
        deltas(&won(HandEnd::SelfDraw), &Ruleset::shanxi()),
        [-16, -16, 48, -16]
    );
}

#[test]
fn baohu_non_ting_discarder_pays_all_three_shares() {
    let o = won(HandEnd::Discard { discarder: 1 });
    let s = settle(&o, &Ruleset::shanxi()).unwrap();
    assert_eq!(s.deltas, [0, -24, 24, 0]);
    assert!(s
        .payments
        .iter()
        .any(|p| p.reason == PaymentReason::WinCovered { share_of: 3 }));
}

#[test]
fn sanjia_juntan_ting_discarder_shares_with_the_others() {
    let mut o = won(HandEnd::Discard { discarder: 1 });
    o.ting[1] = true;
    assert_eq!(deltas(&o, &Ruleset::shanxi()), [-8, -8, 24, -8]);
}

#[test]
fn robbed_kong_counts_as_the_kongers_discard() {
    let o = won(HandEnd::RobbedKong { konger: 3 });
    assert_eq!(deltas(&o, &Ruleset::shanxi()), [0, 0, 24, -24]);
    let mut o = o;
    o.ting[3] = true;
    assert_eq!(deltas(&o, &Ruleset::shanxi()), [-8, -8, 24, -8]);
}

#[test]
fn kong_value_points_paid_by_each_other_player_concealed_doubled() {
    let mut o = won(HandEnd::SelfDraw);
    o.kongs.push(Kong::own(3, t("5z"), KongKind::Concealed));
    o.kongs.push(Kong::own(1, t("9p"), KongKind::Added));
    // Win: -16 each; 5z concealed: 20 from 0,1,2; 9p added: 9 from 0,2,3.
    assert_eq!(
        deltas(&o, &Ruleset::shanxi()),
        [-16 - 20 - 9, -16 - 20 + 27, 48 - 20 - 9, -16 + 60 - 9]
    );
}

#[test]
fn kong_giver_pays_non_ting_giver_pays_all_three_shares() {
    let mut o = won(HandEnd::SelfDraw);
    o.kongs.push(Kong::exposed(3, t("9p"), 1, false));
    let off = Ruleset::shanxi();
    let on = Ruleset {
        kong_giver_pays: true,
        ..Ruleset::shanxi()
    };
    assert_eq!(deltas(&o, &off), [-16 - 9, -16 - 9, 48 - 9, -16 + 27]);
    assert_eq!(deltas(&o, &on), [-16, -16 - 27, 48, -16 + 27]);
    // A giver who had declared ting does not cover.
    o.ting[1] = true;
    o.kongs[0].giver_ting = true;
    assert_eq!(deltas(&o, &on), deltas(&o, &off));
}

#[test]
fn discarder_pays_kongs_non_ting_discarder_covers_every_kong_payment() {
    let mut o = won(HandEnd::Discard { discarder: 1 });
    o.kongs.push(Kong::own(3, t("5z"), KongKind::Concealed));
    let off = Ruleset::shanxi();
    let on = Ruleset {
        discarder_pays_kongs: true,
        ..Ruleset::shanxi()
    };
    assert_eq!(deltas(&o, &off), [-20, -24 - 20, 24 - 20, 60]);
    assert_eq!(deltas(&o, &on), [0, -24 - 60, 24, 60]);
    // A ting discarder covers nothing.
    o.ting[1] = true;
    assert_eq!(deltas(&o, &on), deltas(&o, &off));
}

#[test]
fn discarder_pays_kongs_with_kong_giver_pays_the_discarder_covers_the_giver() {
    let mut o = won(HandEnd::Discard { discarder: 1 });
    o.kongs.push(Kong::exposed(3, t("9p"), 0, false));
    let r = Ruleset {
        discarder_pays_kongs: true,
        kong_giver_pays: true,
        ..Ruleset::shanxi()
    };
    assert_eq!(deltas(&o, &r), [0, -24 - 27, 24, 27]);
}

#[test]
fn kongs_need_win_drawn_hand_settles_kongs_only_when_off() {
    let mut o = Outcome::new(0, HandEnd::Drawn);
    o.kongs.push(Kong::own(3, t("5z"), KongKind::Concealed));
    o.kongs.push(Kong::exposed(2, t("9p"), 1, false));
    let on = Ruleset::shanxi();
    assert!(on.kongs_need_win);
    assert_eq!(deltas(&o, &on), [0; 4]);
    assert!(settle(&o, &on).unwrap().payments.is_empty());
    let off = Ruleset {
        kongs_need_win: false,
        ..Ruleset::shanxi()
    };
    assert_eq!(deltas(&o, &off), [-20 - 9, -20 - 9, -20 + 27, 60 - 9]);
    // kong_giver_pays still applies in a drawn hand.
    let giver = Ruleset {
        kong_giver_pays: true,
        ..off
    };
    assert_eq!(deltas(&o, &giver), [-20, -20 - 27, -20 + 27, 60]);
}

fn bonus_rules(double: bool) -> Ruleset {
    Ruleset {
        dealer_bonus: true,
        dealer_self_draw_double: double,
        dealer_rotation: DealerRotation::Round,
        ..Ruleset::shanxi()
    }
}

#[test]
fn dealer_bonus_dealer_wins_each_share_grows_by_five() {
    let mut o = won(HandEnd::SelfDraw);
    o.dealer = WINNER;
    assert_eq!(deltas(&o, &Ruleset::shanxi()), [-16, -16, 48, -16]);
    assert_eq!(deltas(&o, &bonus_rules(false)), [-21, -21, 63, -21]);
}

#[test]
fn dealer_bonus_non_dealer_wins_dealer_share_grows_by_five() {
    let mut o = won(HandEnd::Discard { discarder: 1 });
    o.ting[1] = true;
    assert_eq!(deltas(&o, &bonus_rules(false)), [-13, -8, 29, -8]);
}

#[test]
fn dealer_bonus_baohu_payer_pays_the_dealer_share_bonus() {
    let o = won(HandEnd::Discard { discarder: 1 });
    assert_eq!(deltas(&o, &bonus_rules(false)), [0, -29, 29, 0]);
    let mut o = o;
    o.dealer = WINNER;
    assert_eq!(deltas(&o, &bonus_rules(false)), [0, -39, 39, 0]);
}

#[test]
fn dealer_bonus_never_on_kongs() {
    let mut o = won(HandEnd::SelfDraw);
    o.kongs.push(Kong::own(0, t("5z"), KongKind::Concealed));
    let plain = deltas(&o, &Ruleset::shanxi());
    let bonus = deltas(&o, &bonus_rules(false));
    assert_eq!(bonus[0] - plain[0], -5);
    assert_eq!(bonus[WINNER as usize] - plain[WINNER as usize], 5);
    let s = settle(&o, &bonus_rules(false)).unwrap();
    let n_bonus = s
        .payments
        .iter()
        .filter(|p| p.reason == PaymentReason::DealerBonus)
        .count();
    assert_eq!(n_bonus, 1);
}

#[test]
fn dealer_self_draw_double_bonus_is_ten_on_a_self_draw() {
    let o = won(HandEnd::SelfDraw);
    assert_eq!(deltas(&o, &bonus_rules(false)), [-21, -16, 53, -16]);
    assert_eq!(deltas(&o, &bonus_rules(true)), [-26, -16, 58, -16]);
    let mut o = o;
    o.dealer = WINNER;
    assert_eq!(deltas(&o, &bonus_rules(true)), [-26, -26, 78, -26]);
    // Not on a discard.
    let mut o = won(HandEnd::Discard { discarder: 1 });
    o.ting[1] = true;
    assert_eq!(
        deltas(&o, &bonus_rules(true)),
        deltas(&o, &bonus_rules(false))
    );
}

#[test]
fn special_hands_change_the_settlement() {
    let o = won(HandEnd::SelfDraw);
    assert_eq!(deltas(&o, &Ruleset::shanxi()), [-16, -16, 48, -16]);
    assert_eq!(deltas(&o, &special()), [-32, -32, 96, -32]);
}

#[test]
fn point_rule_changes_which_wins_settle() {
    let mut o = won(HandEnd::SelfDraw);
    o.winners[0].hand = hand("123m456m789m234p88s", &[]);
    o.winners[0].win_tile = t("4p");
    assert_eq!(deltas(&o, &Ruleset::shanxi()), [-8, -8, 24, -8]);
    let strict = Ruleset {
        point_rule: PointRule::Strict,
        ..Ruleset::shanxi()
    };
    let e = settle(&o, &strict).unwrap_err();
    assert!(matches!(e, Error::InconsistentOutcome(_)), "{e}");
}

#[test]
fn base_stake_multiplies_every_payment() {
    let mut o = won(HandEnd::Discard { discarder: 1 });
    o.kongs.push(Kong::own(3, t("5z"), KongKind::Concealed));
    let r = Ruleset {
        base_stake: 10,
        ..Ruleset::shanxi()
    };
    let one = deltas(&o, &Ruleset::shanxi());
    assert_eq!(deltas(&o, &r), one.map(|d| d * 10));
}

#[test]
fn wildcard_outcome_self_drawn_wild_settles_at_best_wait() {
    let r = Ruleset {
        haozi: Haozi::Single,
        ..Ruleset::shanxi()
    };
    let mut o = Outcome::new(0, HandEnd::SelfDraw);
    o.wilds = Wildcards::new(&[t("7z")]).unwrap();
    o.winners.push(koudian_core::score::Win::new(
        1,
        hand("123m456m789m11p23p7z", &[]),
        t("7z"),
    ));
    o.ting[1] = true;
    assert_eq!(deltas(&o, &r), [-8, 24, -8, -8]);
}

#[test]
fn settlement_prints_a_readable_table() {
    let o = won(HandEnd::Discard { discarder: 1 });
    let s: Settlement = settle(&o, &Ruleset::shanxi()).unwrap();
    let text = s.to_string();
    assert!(text.contains("包胡"), "{text}");
    assert!(text.contains("-24"), "{text}");
    assert!(text.contains("+24"), "{text}");
}

// ------------------------------------------------ brute-force reference

/// The special-hand multiplier straight from docs/rules.md §3, over every
/// decomposition the independent recursive `decompose` lists.
fn reference_multiplier(h: &Hand, rules: &Ruleset) -> Option<u32> {
    use koudian_core::shape::{decompose, Set, Shape, ShapeRules};
    let ds = decompose(h, &Wildcards::NONE, &ShapeRules::from(rules));
    if ds.is_empty() {
        return None;
    }
    let all = h.all_counts();
    let suits: Vec<usize> = (0..34).filter(|&i| all[i] > 0).map(|i| i / 9).collect();
    let flush = suits.iter().all(|&s| s == suits[0] && s < 3);
    let quads = all.iter().filter(|&&n| n == 4).count() as u32;
    let mut m = if flush { 2 } else { 1 };
    for d in &ds {
        match d.shape {
            Shape::SevenPairs => m = m.max([2, 4, 8, 16][quads.min(3) as usize]),
            Shape::Standard => {
                for s in 0..3u8 {
                    let seq = |r: u8| Set::Sequence(Tile::new(s * 9 + r).unwrap());
                    if [0, 3, 6].iter().all(|&r| d.sets.contains(&seq(r))) {
                        m = m.max(2);
                    }
                }
            }
            Shape::ThirteenOrphans => {}
        }
    }
    Some(m)
}

#[test]
fn special_hands_multiplier_matches_reference_on_random_hands() {
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n) as usize
    };
    let rules = special();
    let (mut wins, mut specials) = (0, 0);
    for _ in 0..100_000 {
        // Mostly one suit plus a few honors, so flushes, straights and
        // seven pairs all occur.
        let suit = next(3) * 9;
        let kind = |next: &mut dyn FnMut(u64) -> usize| {
            if next(8) == 0 {
                27 + next(7)
            } else {
                suit + next(9)
            }
        };
        let mut c = [0u8; 34];
        let mut melds = Vec::new();
        if next(3) == 0 {
            for _ in 0..7 {
                c[kind(&mut next)] += 2;
            }
        } else {
            for i in 0..4 {
                let k = kind(&mut next);
                if next(3) == 0 && k < 27 && k % 9 <= 6 {
                    (0..3).for_each(|d| c[k + d] += 1);
                } else if i == 0 && next(4) == 0 {
                    melds.push(Meld::new(MeldKind::Pong, Tile::new(k as u8).unwrap()));
                } else if next(2) == 0 && k < 27 && k % 9 <= 6 {
                    let start = k - k % 9 + 3 * next(3);
                    (0..3).for_each(|d| c[start + d] += 1);
                } else {
                    c[k] += 3;
                }
            }
            c[kind(&mut next)] += 2;
        }
        let Ok(h) = Hand::new(c, &melds) else {
            continue;
        };
        let Some(tile) = (0..34).rev().find(|&i| c[i] > 0) else {
            continue;
        };
        let tile = Tile::new(tile as u8).unwrap();
        let want = reference_multiplier(&h, &rules);
        let got = hand_value(&h, tile, &WinContext::self_draw(), &rules);
        match (want, got) {
            (None, Err(_)) => {}
            (Some(m), Ok(v)) => {
                assert_eq!(v.multiplier, 2 * m, "{h:?}");
                wins += 1;
                specials += usize::from(m > 1);
            }
            // A winning shape whose tile is too cheap for the point rule.
            (Some(_), Err(e)) => assert!(e.to_string().contains("point"), "{e}"),
            (None, Ok(v)) => panic!("{h:?} valued {v} but is no win"),
        }
    }
    assert!(
        wins > 20_000 && specials > 5_000,
        "{wins} wins, {specials} special"
    );
}

// ------------------------------------------- shape options in settlement

fn self_drawn(concealed: &str, win: &str) -> Outcome {
    let mut o = Outcome::new(0, HandEnd::SelfDraw);
    o.winners.push(koudian_core::score::Win::new(
        1,
        hand(concealed, &[]),
        t(win),
    ));
    o.ting[1] = true;
    o
}

#[test]
fn wind_sets_option_makes_three_winds_a_set() {
    let o = self_drawn("123m456m789m123z88s", "8s");
    assert!(settle(&o, &Ruleset::shanxi()).is_err());
    let r = Ruleset {
        wind_sets: true,
        ..Ruleset::shanxi()
    };
    assert_eq!(deltas(&o, &r), [-16, 48, -16, -16]);
}

#[test]
fn seven_pairs_option_allows_seven_pairs() {
    let o = self_drawn("11m33m55p77p99s11z22z", "2z");
    assert_eq!(deltas(&o, &Ruleset::shanxi()), [-20, 60, -20, -20]);
    let r = Ruleset {
        seven_pairs: false,
        ..Ruleset::shanxi()
    };
    assert!(settle(&o, &r).is_err());
}

#[test]
fn thirteen_orphans_option_allows_thirteen_orphans() {
    let o = self_drawn("19m19p19s12345677z", "7z");
    assert_eq!(deltas(&o, &Ruleset::shanxi()), [-20, 60, -20, -20]);
    let r = Ruleset {
        thirteen_orphans: false,
        ..Ruleset::shanxi()
    };
    assert!(settle(&o, &r).is_err());
}

#[test]
fn haozi_wildcard_mode_turns_special_hands_off_in_settlement() {
    let mut o = self_drawn("111m234m555m678m99m", "9m");
    assert_eq!(deltas(&o, &special()), [-36, 108, -36, -36]);
    let r = Ruleset {
        haozi: Haozi::Double,
        ..special()
    };
    o.wilds = Wildcards::new(&[t("7z"), t("1p")]).unwrap();
    assert_eq!(deltas(&o, &r), [-18, 54, -18, -18]);
}

#[test]
fn self_drawn_wild_tile_in_a_108_tile_game_stands_only_for_suited_kinds() {
    let r = Ruleset {
        haozi: Haozi::Single,
        no_honors: true,
        thirteen_orphans: false,
        ..Ruleset::shanxi()
    };
    let ctx = WinContext {
        wilds: Wildcards::new(&[t("5p")]).unwrap(),
        ..WinContext::self_draw()
    };
    // Three wild tiles make a set of any kind: at best a 9.
    let v = hand_value(&hand("123m456m789s11s555p", &[]), t("5p"), &ctx, &r).unwrap();
    assert_eq!((v.base, v.total), (9, 18));
}

#[test]
fn self_drawn_wild_tile_points_agree_with_ting_winning_tile_points() {
    use koudian_core::ting::winning_tile_points;
    let mut x = 0x0000_ddba_11c0_ffee_u64;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n) as usize
    };
    let r = Ruleset {
        haozi: Haozi::Double,
        ..Ruleset::shanxi()
    };
    let mut compared = 0;
    for _ in 0..30_000 {
        let wild = [next(34), next(34)];
        if wild[0] == wild[1] {
            continue;
        }
        let wk = [
            Tile::new(wild[0] as u8).unwrap(),
            Tile::new(wild[1] as u8).unwrap(),
        ];
        let wilds = Wildcards::new(&wk).unwrap();
        // 13 random tiles from a few kinds, plus a drawn wild tile.
        let mut c = [0u8; 34];
        let base = next(3) * 9;
        let mut n = 0;
        while n < 13 {
            let k = if next(4) == 0 {
                wild[next(2)]
            } else {
                base + next(9)
            };
            if c[k] < 4 {
                c[k] += 1;
                n += 1;
            }
        }
        let drawn = wild[next(2)];
        let Ok(short) = Hand::new(c, &[]) else {
            continue;
        };
        if c[drawn] == 4 {
            continue;
        }
        c[drawn] += 1;
        let full = Hand::new(c, &[]).unwrap();
        let ctx = WinContext {
            wilds,
            ..WinContext::self_draw()
        };
        let tile = Tile::new(drawn as u8).unwrap();
        let theirs = winning_tile_points(&short, tile, true, &wilds, &r).unwrap();
        match hand_value(&full, tile, &ctx, &r) {
            Ok(v) => {
                assert_eq!(Some(v.base as u8), theirs, "{full:?}");
                compared += 1;
            }
            Err(e) => assert!(
                theirs.is_none_or(|p| p < 3),
                "{full:?}: {e} but ting says {theirs:?}"
            ),
        }
    }
    assert!(compared > 3_000, "only {compared} wins compared");
}
