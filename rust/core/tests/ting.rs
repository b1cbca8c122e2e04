//! Koudian ting (报听) and win-point rules, docs/rules.md §3 and §4.

mod common;

use koudian_core::hand::{Hand, Meld, MeldKind};
use koudian_core::ruleset::{PointRule, Ruleset};
use koudian_core::shape::{decompose, is_win, ShapeRules};
use koudian_core::tile::{parse, Counts, Tile, KINDS};
use koudian_core::ting::{can_declare_ting, may_win, ting_kong_allowed, winning_tile_points};
use koudian_core::Wildcards;

fn hand(s: &str) -> Hand {
    Hand::from_tiles(&parse(s).unwrap(), &[]).unwrap()
}

fn t(s: &str) -> Tile {
    Tile::from_notation(s).unwrap()
}

fn wild(s: &str) -> Wildcards {
    Wildcards::new(&[t(s)]).unwrap()
}

// ------------------------------------------------------------ 报听

#[test]
fn ting_requires_a_wait_worth_six_in_shanxi() {
    // 123m 456p 789s 23m 111z: discarding 东 waits on 1m/4m only.
    let h = hand("123m456p789s23m111z");
    let r = Ruleset::shanxi();
    assert!(!can_declare_ting(&h, Tile::EAST, &Wildcards::NONE, &r).unwrap());
    // 123m 456p 789s 78m 111z: discarding 东 waits on 6m/9m.
    let h = hand("123m456p789s78m111z");
    assert!(can_declare_ting(&h, Tile::EAST, &Wildcards::NONE, &r).unwrap());
    // A discard that leaves the hand not ready never declares.
    assert!(!can_declare_ting(&h, t("5p"), &Wildcards::NONE, &r).unwrap());
}

#[test]
fn linxian_ting_needs_three() {
    let r = Ruleset::linxian();
    // Waits 1m/4m: 4 ≥ 3.
    assert!(can_declare_ting(
        &hand("123m456p789s23m111z"),
        Tile::EAST,
        &Wildcards::NONE,
        &r
    )
    .unwrap());
    // Waits 1m/2m... here 12m waits on 3m only (3 points): still enough.
    assert!(can_declare_ting(
        &hand("123m456p789s12m111z"),
        Tile::EAST,
        &Wildcards::NONE,
        &r
    )
    .unwrap());
    // A lone 2m (tanki on 2m): 2 < 3.
    assert!(!can_declare_ting(
        &hand("123m456p789s2m1111z"),
        Tile::EAST,
        &Wildcards::NONE,
        &r
    )
    .unwrap());
}

#[test]
fn ting_min_points_is_the_field_not_the_family() {
    let mut r = Ruleset::shanxi();
    r.ting_min_points = 3;
    assert!(can_declare_ting(
        &hand("123m456p789s23m111z"),
        Tile::EAST,
        &Wildcards::NONE,
        &r
    )
    .unwrap());
}

#[test]
fn sichuan_has_no_ting_declaration() {
    let r = Ruleset::sichuan();
    assert!(
        !can_declare_ting(&hand("123m456p789s78m999s"), t("9s"), &Wildcards::NONE, &r).unwrap()
    );
}

#[test]
fn wild_wait_for_a_fifth_copy_allows_ting() {
    // 7777z can only be completed by a 5th 中, which only a wild tile can
    // be: with 东 wild the hand waits on 东, worth 10 (as 中).
    let h = hand("123m456p789s7777z5z");
    let r = Ruleset::shanxi();
    assert!(!can_declare_ting(&h, t("5z"), &Wildcards::NONE, &r).unwrap());
    assert!(can_declare_ting(&h, t("5z"), &wild("1z"), &r).unwrap());
}

#[test]
fn ting_discard_must_be_held_and_hand_complete() {
    let r = Ruleset::shanxi();
    let e =
        can_declare_ting(&hand("123m456p789s78m111z"), t("9p"), &Wildcards::NONE, &r).unwrap_err();
    assert!(e.to_string().contains("holds none"), "{e}");
    let e = can_declare_ting(
        &hand("123m456p789s78m11z"),
        Tile::EAST,
        &Wildcards::NONE,
        &r,
    )
    .unwrap_err();
    assert!(e.to_string().contains("13 concealed tiles"), "{e}");
}

// ------------------------------------------------------- point rules

#[test]
fn standard_point_rule_three_to_five_self_draw_only() {
    let r = Ruleset::shanxi();
    assert_eq!(r.point_rule, PointRule::Standard);
    for p in 1..=2 {
        assert!(!may_win(&r, p, true) && !may_win(&r, p, false));
    }
    for p in 3..=5 {
        assert!(may_win(&r, p, true) && !may_win(&r, p, false));
    }
    for p in [6, 7, 8, 9, 10] {
        assert!(may_win(&r, p, true) && may_win(&r, p, false));
    }
}

#[test]
fn strict_point_rule_five_self_draw_only() {
    let mut r = Ruleset::shanxi();
    r.point_rule = PointRule::Strict;
    for p in 1..=4 {
        assert!(!may_win(&r, p, true) && !may_win(&r, p, false));
    }
    assert!(may_win(&r, 5, true) && !may_win(&r, 5, false));
    for p in [6, 9, 10] {
        assert!(may_win(&r, p, true) && may_win(&r, p, false));
    }
}

#[test]
fn linxian_wins_six_on_discard_three_by_self_draw() {
    let r = Ruleset::linxian();
    assert!(!may_win(&r, 2, true));
    assert!(may_win(&r, 3, true) && !may_win(&r, 3, false));
    assert!(may_win(&r, 6, false));
}

#[test]
fn sichuan_point_rule_none_always_wins() {
    let r = Ruleset::sichuan();
    for p in 1..=9 {
        assert!(may_win(&r, p, true) && may_win(&r, p, false));
    }
}

// --------------------------------------------- winning tile points

#[test]
fn self_drawn_wild_worth_best_wait() {
    // Waits 1m/4m; 中 wild: a self-drawn 中 is worth 4.
    let h = hand("123m456p789s23m55z");
    let r = Ruleset::shanxi();
    let red = wild("7z");
    assert_eq!(
        winning_tile_points(&h, Tile::RED, true, &red, &r).unwrap(),
        Some(4)
    );
    assert_eq!(
        winning_tile_points(&h, Tile::M1, true, &red, &r).unwrap(),
        Some(1)
    );
    assert_eq!(
        winning_tile_points(&h, t("4m"), false, &red, &r).unwrap(),
        Some(4)
    );
    // Waits 5z too (shanpon 55z/23m? no: 23m needs 1m/4m), so nothing else.
    assert_eq!(
        winning_tile_points(&h, t("9m"), true, &red, &r).unwrap(),
        None
    );
    // An honor wait makes the wild tile worth 10.
    let h = hand("123m456p789s5577z");
    let wm = wild("1m");
    assert_eq!(
        winning_tile_points(&h, Tile::M1, true, &wm, &r).unwrap(),
        Some(10)
    );
}

#[test]
fn discarded_wild_tile_never_wins() {
    let h = hand("123m456p789s23m55z");
    let red = wild("7z");
    assert_eq!(
        winning_tile_points(&h, Tile::RED, false, &red, &Ruleset::shanxi()).unwrap(),
        None
    );
}

#[test]
fn winning_tile_points_needs_a_hand_one_short() {
    let e = winning_tile_points(
        &hand("123m456p789s23m555z"),
        Tile::M1,
        true,
        &Wildcards::NONE,
        &Ruleset::shanxi(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("14 concealed tiles"), "{e}");
}

// ------------------------------------------------ kongs after ting

fn melded(tiles: &str, melds: &[(MeldKind, &str)]) -> Hand {
    let m: Vec<Meld> = melds.iter().map(|&(k, s)| Meld::new(k, t(s))).collect();
    Hand::from_tiles(&parse(tiles).unwrap(), &m).unwrap()
}

#[test]
fn kong_after_ting_must_keep_a_wait_worth_six() {
    let r = Ruleset::shanxi();
    // Ready on 6p/9p; a concealed kong of 1m keeps the waits.
    let before = hand("111m78p234s567s99s");
    let after = melded("78p234s567s99s", &[(MeldKind::ConcealedKong, "1m")]);
    assert!(ting_kong_allowed(&before, &after, &Wildcards::NONE, &r).unwrap());
    // 1112m + ...: waits 2m/3m...; kong of 1m leaves a lone 2m (2 points).
    let before = hand("1112m456p789s999s");
    let after = melded("2m456p789s999s", &[(MeldKind::ConcealedKong, "1m")]);
    assert!(!ting_kong_allowed(&before, &after, &Wildcards::NONE, &r).unwrap());
    // Linxian's threshold is 3; with kong_keeps_waits off, 2 points still fail.
    let mut lx = Ruleset::linxian();
    lx.kong_keeps_waits = false;
    assert!(!ting_kong_allowed(&before, &after, &Wildcards::NONE, &lx).unwrap());
}

#[test]
fn kong_keeps_waits_option() {
    // 3336m: waits 4m/5m/6m? (333 + 6 tanki, 33 + 36 → 4m/5m? no: 36 is
    // not a partial) — take 6667m instead: 666 + 7 tanki (7m), 66 + 67
    // (5m/8m). A kong of 6m leaves 7m alone: waits change from 5/7/8 to 7.
    let before = hand("6667m456p789s999s");
    let after = melded("7m456p789s999s", &[(MeldKind::ConcealedKong, "6m")]);
    let mut r = Ruleset::shanxi();
    assert!(ting_kong_allowed(&before, &after, &Wildcards::NONE, &r).unwrap());
    r.kong_keeps_waits = true;
    assert!(!ting_kong_allowed(&before, &after, &Wildcards::NONE, &r).unwrap());
    // Linxian has the option on: the waits-keeping kong passes.
    let lx = Ruleset::linxian();
    assert!(lx.kong_keeps_waits);
    let before = hand("111m78p234s567s99s");
    let after = melded("78p234s567s99s", &[(MeldKind::ConcealedKong, "1m")]);
    assert!(ting_kong_allowed(&before, &after, &Wildcards::NONE, &lx).unwrap());
}

#[test]
fn added_and_exposed_kongs_after_ting() {
    let r = Ruleset::shanxi();
    // Added kong: the pong becomes a kong, the concealed part is unchanged.
    let before = melded("78p234s567s99s", &[(MeldKind::Pong, "1m")]);
    let after = melded("78p234s567s99s", &[(MeldKind::AddedKong, "1m")]);
    assert!(ting_kong_allowed(&before, &after, &Wildcards::NONE, &r).unwrap());
    // Exposed kong on a discard onto a concealed triplet.
    let before = hand("111m78p234s567s99s");
    let after = melded("78p234s567s99s", &[(MeldKind::ExposedKong, "1m")]);
    assert!(ting_kong_allowed(&before, &after, &Wildcards::NONE, &r).unwrap());
}

#[test]
fn kong_check_refuses_hands_that_are_not_a_kong_apart() {
    let r = Ruleset::shanxi();
    let before = hand("111m78p234s567s99s");
    let not_kong = melded("78p234s567s99s", &[(MeldKind::Pong, "1m")]);
    let e = ting_kong_allowed(&before, &not_kong, &Wildcards::NONE, &r);
    assert!(e.is_err());
    let other = melded("78p234s567s11z", &[(MeldKind::ConcealedKong, "1m")]);
    assert!(ting_kong_allowed(&before, &other, &Wildcards::NONE, &r).is_err());
}

// ---------------------------------------- random hands, brute force

use common::Rng;

/// A complete-size hand near a win: sets and a pair with a few tiles
/// replaced at random.
fn near_win(rng: &mut Rng) -> Counts {
    loop {
        let mut c = [0u8; KINDS];
        let p = rng.below(KINDS);
        c[p] += 2;
        for _ in 0..4 {
            if rng.below(2) == 0 {
                let s = rng.below(3) * 9 + rng.below(7);
                for n in &mut c[s..s + 3] {
                    *n += 1;
                }
            } else {
                c[rng.below(KINDS)] += 3;
            }
        }
        for _ in 0..rng.below(3) {
            let held: Vec<usize> = (0..KINDS).filter(|&k| c[k] > 0).collect();
            c[held[rng.below(held.len())]] -= 1;
            c[rng.below(KINDS)] += 1;
        }
        if c.iter().all(|&n| n <= 4) {
            return c;
        }
    }
}

/// Brute force: after discarding `d`, draw each natural kind the hand
/// holds fewer than 4 of; ting iff one completes it and is worth enough.
/// With wildcards, also draw a wild tile: it is worth the best kind any of
/// the (interchangeable) wild tiles stands for in some decomposition
/// (`decompose`). Hands whose wild tiles could form a set on their own
/// (3 or more with the drawn one) are left to the fixed tests.
fn brute_can_declare(c: &Counts, d: usize, wk: &[usize], rules: &Ruleset) -> Option<bool> {
    let shape = ShapeRules::from(rules);
    let w = Wildcards::new(
        &wk.iter()
            .map(|&k| Tile::new(k as u8).unwrap())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let mut rest = *c;
    rest[d] -= 1;
    let held_wild: u8 = wk.iter().map(|&k| rest[k]).sum();
    if held_wild >= 2 {
        return None;
    }
    let mut best = 0u8;
    for k in 0..KINDS {
        let mut x = rest;
        if x[k] >= 4 || wk.contains(&k) {
            continue;
        }
        x[k] += 1;
        if is_win(&x, 0, &w, &shape) {
            best = best.max(Tile::new(k as u8).unwrap().points());
        }
    }
    if let Some(&k) = wk.iter().find(|&&k| rest[k] < 4) {
        let mut x = rest;
        x[k] += 1;
        let h = Hand::new(x, &[]).unwrap();
        for dec in decompose(&h, &w, &shape) {
            for t in dec.wild_as {
                best = best.max(t.points());
            }
        }
    }
    Some(best >= rules.ting_min_points && best > 0)
}

#[test]
fn can_declare_ting_matches_brute_force() {
    let mut rng = Rng(5);
    let rulesets = [Ruleset::shanxi(), Ruleset::linxian()];
    let mut declarable = 0;
    for i in 0..20_000 {
        let c = near_win(&mut rng);
        let wk: Vec<usize> = match i % 3 {
            0 => vec![],
            1 => vec![rng.below(KINDS)],
            _ => vec![rng.below(27), 27 + rng.below(7)],
        };
        // The 5th-copy wild case is tested above.
        if !wk.is_empty()
            && c.iter()
                .enumerate()
                .any(|(k, &n)| n >= 3 && !wk.contains(&k))
        {
            continue;
        }
        let w = Wildcards::new(
            &wk.iter()
                .map(|&k| Tile::new(k as u8).unwrap())
                .collect::<Vec<_>>(),
        )
        .unwrap();
        let h = Hand::new(c, &[]).unwrap();
        let rules = &rulesets[i % 2];
        for d in 0..KINDS {
            if c[d] == 0 {
                continue;
            }
            let got = can_declare_ting(&h, Tile::new(d as u8).unwrap(), &w, rules).unwrap();
            let Some(want) = brute_can_declare(&c, d, &wk, rules) else {
                continue;
            };
            assert_eq!(
                got,
                want,
                "{} discard {d} wilds {wk:?}",
                koudian_core::tile::format_counts(&c)
            );
            declarable += usize::from(got);
        }
    }
    assert!(
        declarable > 1000,
        "the sample must exercise ting: {declarable}"
    );
}

#[test]
fn a_fifth_copy_is_an_error_not_a_panic() {
    let r = Ruleset::shanxi();
    let mut h = hand("123m456p789s78m111z");
    // 1m ×5 in place of 123m 东: 14 tiles, a fifth copy.
    h.concealed[0] = 5;
    h.concealed[1] = 0;
    h.concealed[2] = 0;
    h.concealed[27] = 1;
    assert_eq!(h.tile_count(), 14);
    let e = can_declare_ting(&h, Tile::M1, &Wildcards::NONE, &r).unwrap_err();
    assert!(e.to_string().contains("5 copies"), "{e}");
    let mut h13 = hand("123m456p789s23m55z");
    // 1m ×5 in place of 123m 2m 3m.
    h13.concealed[0] = 5;
    h13.concealed[1] = 0;
    h13.concealed[2] = 0;
    assert_eq!(h13.tile_count(), 13);
    assert!(winning_tile_points(&h13, Tile::M1, true, &Wildcards::NONE, &r).is_err());
}
