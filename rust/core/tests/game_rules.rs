//! One test per table rule of docs/rules.md §3-§5: each deals a prepared wall
//! and plays the exact sequence.

mod common;
use common::{deal, deal_wild, t};

use koudian_core::game::{
    next_dealer, Action, Deal, EndKind, Event, Game, HandResult, Match, MatchLength, Phase, Prng,
};
use koudian_core::ruleset::{DealerRotation, Haozi, HaoziPick, PassScope, Ruleset};
use koudian_core::{Error, MeldKind, Tile};

#[track_caller]
fn go(g: &mut Game, seat: u8, a: Action) {
    assert_eq!(
        g.to_act(),
        Some(seat),
        "expected seat {seat} to act; log:\n{}",
        g.log()
    );
    g.step(a)
        .unwrap_or_else(|e| panic!("seat {seat} {a}: {e}\n{}", g.log()));
}

fn auto_actions(g: &Game) -> Vec<(u8, Action)> {
    g.events()
        .iter()
        .filter_map(|e| match e {
            Event::Act {
                seat,
                action,
                auto: true,
            } => Some((*seat, *action)),
            _ => None,
        })
        .collect()
}

// Seat 0 (dealer) declares ting discarding 1z: 123456789m 99s 78p waits 6p/9p.
const TING0: &str = "123456789m99s78p1z";

#[test]
fn shanxi_ting_discard_cannot_be_claimed() {
    let r = Ruleset::shanxi();
    // Seat 1 holds 1z 1z and could pong an open 1z.
    let mut g = deal(
        &r,
        [
            TING0,
            "11z239p456s789s55m",
            "22336z468p13579s",
            "4455z13579p2468m",
        ],
        "6z",
        "",
        0,
    );
    assert!(g.legal_actions().contains(Action::Ting(t("1z"))));
    go(&mut g, 0, Action::Ting(t("1z")));
    // Nobody is asked: seat 1 simply drew.
    assert!(matches!(
        g.phase(),
        Phase::Turn {
            seat: 1,
            drawn: Some(_),
            ..
        }
    ));
    assert!(!g.legal_actions().contains(Action::Pong));
    // Others see that a discard happened, not which tile.
    let seen = g.observe(2).discards()[0];
    assert!(seen.face_down && seen.tile.is_none());
    assert_eq!(g.observe(0).discards()[0].tile, Some(t("1z")));
    assert!(g.is_ting(0));
}

// Seats 0, 1, 2 wait on 6p/9p; seat 3 discards 9p.
fn three_ting() -> Game {
    let r = Ruleset::shanxi();
    let mut g = deal(
        &r,
        [
            TING0,
            "123456s777m99m78p",
            "345p666s888s22m78p",
            "9p1234z444z55667z",
        ],
        "2z3z5z",
        "",
        0,
    );
    go(&mut g, 0, Action::Ting(t("1z")));
    go(&mut g, 1, Action::Ting(t("2z")));
    go(&mut g, 2, Action::Ting(t("3z")));
    go(&mut g, 3, Action::Discard(t("9p")));
    g
}

#[test]
fn nearest_after_discarder_wins() {
    let mut g = three_ting();
    // Seat 0 is the first after the discarder (seat 3): asked first.
    go(&mut g, 0, Action::Win);
    let r = *g.result().unwrap();
    assert_eq!(r.kind, EndKind::Win);
    assert_eq!(r.winners, [true, false, false, false]);
    assert_eq!(r.from, Some(3));
    assert!(!r.self_draw);
    assert!(g.settlement_error().is_none());
}

#[test]
fn next_player_may_win_when_the_nearest_passes() {
    let mut g = three_ting();
    go(&mut g, 0, Action::Pass);
    go(&mut g, 1, Action::Win);
    assert_eq!(g.result().unwrap().winners, [false, true, false, false]);
    // Only one winner per hand: seat 2 is never asked.
}

#[test]
fn sichuan_one_discard_several_winners() {
    let r = Ruleset::sichuan();
    let mut g = deal(
        &r,
        [
            "5s11m23p98p1s7s9s2s3s5p8m",
            "123456789m99m46s",
            "123456789p22p46s",
            "567m346p889s13s7s7p",
        ],
        "",
        "",
        0,
    );
    go(&mut g, 0, Action::Discard(t("5s")));
    go(&mut g, 1, Action::Win);
    // Sichuan: the next seat that can win is still asked (一炮多响).
    go(&mut g, 2, Action::Win);
    let r = *g.result().unwrap();
    assert_eq!(r.winners, [false, true, true, false]);
    assert_eq!(r.from, Some(0));
    assert!(g.settlement_error().is_none(), "{:?}", g.settlement_error());
    // The discarder pays each winner.
    assert!(r.deltas[0] < 0 && r.deltas[1] > 0 && r.deltas[2] > 0 && r.deltas[3] == 0);
    // Several winners: the discarder deals next.
    assert_eq!(next_dealer(DealerRotation::Sichuan, &r), 0);
}

/// docs/rules.md §5: "地胡 (a non-dealer wins before any claim was made, on
/// the dealer's first discard …)". A concealed kong is not a claim: the
/// dealer's discard after one is still his first, and still 地胡 (it was
/// paid as the shape alone, 对对胡 2, while the result said 地胡).
#[test]
fn sichuan_earthly_hand_survives_a_concealed_kong() {
    let r = Ruleset::sichuan();
    let hands = [
        "1111234567m456p9s",
        "222p333p444p555p9s",
        "666p777p888p111s8m",
        "222s333s444s555s1p",
    ];
    let mut g = deal(&r, hands, "9m", "", 0);
    go(&mut g, 0, Action::ConcealedKong(t("1m")));
    go(&mut g, 0, Action::Discard(t("9s")));
    go(&mut g, 1, Action::Win);
    let res = *g.result().unwrap();
    assert!(res.earthly, "{res:?}");
    assert!(g.settlement_error().is_none(), "{:?}", g.settlement_error());
    assert_eq!(res.deltas, [-8, 8, 0, 0]);

    // The same discard without the kong: the same 8.
    let mut g = deal(&r, hands, "9m", "", 0);
    go(&mut g, 0, Action::Discard(t("9s")));
    go(&mut g, 1, Action::Win);
    assert_eq!(g.result().unwrap().deltas, [-8, 8, 0, 0]);
}

#[test]
fn sichuan_win_needs_a_missing_suit() {
    let r = Ruleset::sichuan();
    // Seat 1 would complete 123m456m789m 11p 46s+5s: three suits, no win.
    let mut g = deal(
        &r,
        [
            "5s11m23p98p1s7s9s2s3s5p8m",
            "123456789m11p46s",
            "123456789p22p46s",
            "567m346p889s13s7s7p",
        ],
        "",
        "",
        0,
    );
    go(&mut g, 0, Action::Discard(t("5s")));
    // Seat 2 (lacks 万) is asked; seat 1 is not.
    assert_eq!(g.to_act(), Some(2));
}

// Robbing: seat 1 pongs 7p from seat 0, seat 2 declares ting waiting on 7p
// (68p), seat 1 later draws the 4th 7p and adds it.
fn added_kong_setup(r: &Ruleset) -> Game {
    let mut g = deal(
        r,
        [
            "7p11m5m9m2s5s8s123456z",
            "77p13p469s77z123z9m",
            "123456m789s55s68p",
            "24p99p13s567z2468m",
        ],
        "4z1z2z7p",
        "",
        0,
    );
    go(&mut g, 0, Action::Discard(t("7p")));
    assert!(g.legal_actions().contains(Action::Pong));
    go(&mut g, 1, Action::Pong);
    go(&mut g, 1, Action::Discard(t("9m")));
    go(&mut g, 2, Action::Ting(t("4z")));
    go(&mut g, 3, Action::Discard(t("1z")));
    go(&mut g, 0, Action::Discard(t("2z")));
    assert!(g.legal_actions().contains(Action::AddedKong(t("7p"))));
    go(&mut g, 1, Action::AddedKong(t("7p")));
    g
}

#[test]
fn robbing_added_kong() {
    let mut g = added_kong_setup(&Ruleset::shanxi());
    assert!(matches!(g.phase(), Phase::Respond { rob: true, .. }));
    go(&mut g, 2, Action::Win);
    let r = *g.result().unwrap();
    assert!(r.robbed_kong);
    assert_eq!(r.from, Some(1));
    assert_eq!(r.winners, [false, false, true, false]);
    // The robbed kong stays a pong.
    assert_eq!(g.hand(1).melds()[0].kind, MeldKind::Pong);
    assert!(g.kong_list().is_empty());
    assert!(g.settlement_error().is_none(), "{:?}", g.settlement_error());
}

#[test]
fn unrobbed_added_kong_completes_with_a_replacement() {
    let mut g = added_kong_setup(&Ruleset::shanxi());
    go(&mut g, 2, Action::Pass);
    assert_eq!(g.hand(1).melds()[0].kind, MeldKind::AddedKong);
    assert!(matches!(
        g.phase(),
        Phase::Turn {
            seat: 1,
            replacement: Some(MeldKind::AddedKong),
            ..
        }
    ));
    // Declining the rob is a 过胡 (pass_scope = hand).
    assert!(!g.may_win_discards(2));
}

#[test]
fn concealed_kong_never_robbed() {
    let r = Ruleset::shanxi();
    let mut g = deal(
        &r,
        [
            "123456m789s55s68p4z",
            "777p13s9s1235z6z49m",
            "24p99p13s567z2468m",
            "1p3p5p1m3m9m2s4s6s2z3z6z7z",
        ],
        "7p",
        "9p",
        0,
    );
    go(&mut g, 0, Action::Ting(t("4z")));
    // Seat 0 waits on 7p; seat 1 draws the 4th 7p and konges it concealed.
    go(&mut g, 1, Action::ConcealedKong(t("7p")));
    // Nobody is asked: seat 1 draws its replacement from the tail.
    assert!(matches!(
        g.phase(),
        Phase::Turn {
            seat: 1,
            drawn: Some(x),
            replacement: Some(MeldKind::ConcealedKong),
            ..
        } if x == t("9p")
    ));
}

#[test]
fn kong_replacement_comes_from_the_tail() {
    // Same deal: the replacement 9p is the wall's last tile.
    let r = Ruleset::shanxi();
    let mut g = deal(
        &r,
        [
            "123456m789s55s68p4z",
            "777p13s9s1235z6z49m",
            "24p99p13s567z2468m",
            "1p3p5p1m3m9m2s4s6s2z3z6z7z",
        ],
        "7p",
        "9p",
        0,
    );
    let tail = g.wall().tail();
    go(&mut g, 0, Action::Ting(t("4z")));
    go(&mut g, 1, Action::ConcealedKong(t("7p")));
    assert_eq!(g.wall().tail(), tail - 1);
}

#[test]
fn sichuan_kong_replacement_comes_from_the_front() {
    let r = Ruleset::sichuan();
    let mut g = deal(
        &r,
        [
            "5s11m23p98p1s7s9s2s3s5p8m",
            "333m13s9s247m66m9m1p",
            "123456789p22p46s",
            "567m346p889s13s7s2m",
        ],
        "3m8s",
        "",
        0,
    );
    go(&mut g, 0, Action::Discard(t("5s")));
    go(&mut g, 2, Action::Pass);
    go(&mut g, 1, Action::ConcealedKong(t("3m")));
    assert!(matches!(g.phase(), Phase::Turn { seat: 1, drawn: Some(x), .. } if x == t("8s")));
}

// Seat 0 declares ting waiting on 6p/9p; then 9p and 6p are discarded.
fn pass_setup(r: &Ruleset) -> Game {
    let mut g = deal(
        r,
        [
            TING0,
            "123s456s777m2z3z5z6z",
            "345p666s888s22m5z6z",
            "1234z444z55667z9p",
        ],
        "9p6p2z9p",
        "",
        0,
    );
    go(&mut g, 0, Action::Ting(t("1z")));
    go(&mut g, 1, Action::Discard(t("9p")));
    g
}

#[test]
fn pass_scope_hand_only_self_draw_after_pass() {
    let mut g = pass_setup(&Ruleset::shanxi());
    go(&mut g, 0, Action::Pass);
    assert!(!g.may_win_discards(0));
    // Seat 2 discards 6p (a wait of seat 0): seat 0 is not asked.
    go(&mut g, 2, Action::Discard(t("6p")));
    assert_eq!(g.to_act(), Some(3));
    go(&mut g, 3, Action::Discard(t("2z")));
    // Seat 0 draws 9p: a self-draw may still win.
    assert!(g.legal_actions().contains(Action::Win));
    go(&mut g, 0, Action::Win);
    assert!(g.result().unwrap().self_draw);
}

#[test]
fn pass_scope_tile_forbids_only_that_kind_on_discards() {
    let mut r = Ruleset::shanxi();
    r.pass_scope = PassScope::Tile;
    let mut g = pass_setup(&r);
    assert_eq!(g.observe(0).locked_kinds, 0);
    go(&mut g, 0, Action::Pass);
    // The lock is the one kind passed, and the observation shows it.
    assert_eq!(g.locked_kinds(0), 1 << t("9p").index());
    assert_eq!(g.observe(0).locked_kinds, 1 << t("9p").index());
    assert!(g.observe(0).may_win_discards);
    go(&mut g, 2, Action::Discard(t("6p")));
    // 6p was not passed: seat 0 may win on it.
    assert_eq!(g.to_act(), Some(0));
    assert!(g.legal_actions().contains(Action::Win));
}

#[test]
fn pass_scope_hand_locks_no_kind_in_the_observation() {
    let mut g = pass_setup(&Ruleset::shanxi());
    go(&mut g, 0, Action::Pass);
    let o = g.observe(0);
    assert!(!o.may_win_discards);
    assert_eq!(o.locked_kinds, 0);
}

#[test]
fn must_win_takes_win_automatically() {
    let mut r = Ruleset::shanxi();
    r.must_win = true;
    let g = pass_setup(&r);
    let res = g.result().expect("the win was taken without asking");
    assert_eq!(res.winners, [true, false, false, false]);
    assert!(auto_actions(&g).contains(&(0, Action::Win)));
}

#[test]
fn declared_player_discards_the_drawn_tile_automatically() {
    let mut g = pass_setup(&Ruleset::shanxi());
    go(&mut g, 0, Action::Pass);
    go(&mut g, 2, Action::Discard(t("6p")));
    go(&mut g, 3, Action::Discard(t("2z")));
    // Seat 0 drew 9p and may win; declining means discarding exactly it.
    let legal: Vec<Action> = g.legal_actions().iter().collect();
    assert_eq!(legal, vec![Action::Discard(t("9p")), Action::Win]);
    let e = g.step(Action::Discard(t("4m"))).unwrap_err();
    assert!(matches!(e, Error::IllegalAction(_)));
}

#[test]
fn declared_player_non_winning_draw_is_played_by_the_table() {
    let r = Ruleset::shanxi();
    let mut g = deal(
        &r,
        [
            TING0,
            "123s456s777m2z3z5z6z",
            "345p666s888s22m5z6z",
            "1234z444z55667z9p",
        ],
        "2z3z1s5s",
        "",
        0,
    );
    go(&mut g, 0, Action::Ting(t("1z")));
    go(&mut g, 1, Action::Discard(t("2z")));
    go(&mut g, 2, Action::Discard(t("3z")));
    go(&mut g, 3, Action::Discard(t("1s")));
    // Seat 0 drew 5s (no win, no kong): discarded for him; seat 1 is next.
    assert!(auto_actions(&g).contains(&(0, Action::Discard(t("5s")))));
    assert_eq!(g.to_act(), Some(1));
}

#[test]
fn declared_player_may_not_pong() {
    let r = Ruleset::shanxi();
    // Seat 0 holds 99s in its ting hand; seat 1 discards 9s.
    let mut g = deal(
        &r,
        [
            TING0,
            "123s456s777m2z3z5z6z",
            "345p666s888s22m5z6z",
            "1234z444z55667z9p",
        ],
        "9s",
        "",
        0,
    );
    go(&mut g, 0, Action::Ting(t("1z")));
    go(&mut g, 1, Action::Discard(t("9s")));
    assert_eq!(g.to_act(), Some(2));
}

#[test]
fn point_rule_standard_3_to_5_only_by_self_draw() {
    let r = Ruleset::shanxi();
    // Seat 0: 123456789m 99s 56p + 1z: waits 4p (4 points) and 7p (7).
    let mut g = deal(
        &r,
        [
            "123456789m99s56p1z",
            "123s456s777m2z3z5z6z",
            "345s666p888s22m5z6z",
            "1234z444z55667z9p",
        ],
        "4p2z3z4p",
        "",
        0,
    );
    go(&mut g, 0, Action::Ting(t("1z")));
    go(&mut g, 1, Action::Discard(t("4p")));
    // 4 points: not on a discard. Seat 2 drew and is to act.
    assert_eq!(g.to_act(), Some(2));
    go(&mut g, 2, Action::Discard(t("2z")));
    go(&mut g, 3, Action::Discard(t("3z")));
    // Self-drawn 4p wins.
    assert!(g.legal_actions().contains(Action::Win));
}

#[test]
fn point_rule_standard_1_2_never_win() {
    let r = Ruleset::shanxi();
    // Seat 0: 23456789m 99s 789p + 1z → after 1z: waits 1m (1), 4m, 7m (7).
    let mut g = deal(
        &r,
        [
            "23456789m99s789p1z",
            "123s456s777p2z3z5z6z",
            "345s666p888s22p5z6z",
            "1234z444z55667z9p",
        ],
        "2z3z1s1m",
        "",
        0,
    );
    go(&mut g, 0, Action::Ting(t("1z")));
    go(&mut g, 1, Action::Discard(t("2z")));
    go(&mut g, 2, Action::Discard(t("3z")));
    go(&mut g, 3, Action::Discard(t("1s")));
    // Self-drawn 1m completes the hand but is worth 1: discarded for him.
    assert!(auto_actions(&g).contains(&(0, Action::Discard(t("1m")))));
}

#[test]
fn point_rule_strict_5_only_by_self_draw() {
    let mut r = Ruleset::shanxi();
    r.point_rule = koudian_core::ruleset::PointRule::Strict;
    // Seat 0: 123456789m 99s 46p + 1z: waits 5p only (5 points) — not
    // enough to declare (needs 6+), so use 56p → waits 4p (never) and 7p.
    let mut g = deal(
        &r,
        [
            "123456789m99s56p1z",
            "123s456s777m2z3z5z6z",
            "345s666p888s22m5z6z",
            "1234z444z55667z9p",
        ],
        "2z3z1s4p",
        "",
        0,
    );
    go(&mut g, 0, Action::Ting(t("1z")));
    go(&mut g, 1, Action::Discard(t("2z")));
    go(&mut g, 2, Action::Discard(t("3z")));
    go(&mut g, 3, Action::Discard(t("1s")));
    // strict: a 4 never wins, even self-drawn.
    assert!(auto_actions(&g).contains(&(0, Action::Discard(t("4p")))));
}

#[test]
fn declaring_ting_needs_a_wait_worth_6_in_shanxi_and_3_in_linxian() {
    // 123456789m 99s 12p + 1z: the only wait after 1z is 3p (3 points).
    let hands = [
        "123456789m99s12p1z",
        "123s456s777m2z3z5z6z",
        "345s666p888s22m5z6z",
        "1234z444z55667z9p",
    ];
    let g = deal(&Ruleset::shanxi(), hands, "", "", 0);
    assert!(!g.legal_actions().contains(Action::Ting(t("1z"))));
    assert!(g.legal_actions().contains(Action::Discard(t("1z"))));
    let g = deal(&Ruleset::linxian(), hands, "", "", 0);
    assert!(g.legal_actions().contains(Action::Ting(t("1z"))));
}

#[test]
fn only_a_declared_player_may_win_in_koudian() {
    let r = Ruleset::shanxi();
    // Seat 1 is complete-ready on 9p but never declared.
    let mut g = deal(
        &r,
        [
            "9p11m5m9m2s5s8s123456z",
            "123456789m11s78p",
            "345p666s888s22m7z4p",
            "124p9p13s567z2468m",
        ],
        "",
        "",
        0,
    );
    go(&mut g, 0, Action::Discard(t("9p")));
    // Nobody was asked: seat 1 simply drew.
    assert!(matches!(g.phase(), Phase::Turn { seat: 1, .. }));
    assert!(!g.legal_actions().contains(Action::Win));
}

#[test]
fn discarded_wild_cannot_be_claimed() {
    let mut r = Ruleset::shanxi();
    r.haozi = Haozi::Single;
    // 5z is wild; seat 1 holds 5z 5z.
    let mut g = deal_wild(
        &r,
        [
            "5z11m5m9m2s5s8s123467z",
            "55z13p469s77z123z9m",
            "123456m789s55s68p",
            "24p99p13s567z2468m",
        ],
        "",
        "5z",
    );
    assert!(g.wilds().is_wild(t("5z")));
    go(&mut g, 0, Action::Discard(t("5z")));
    assert!(matches!(g.phase(), Phase::Turn { seat: 1, .. }));
    assert!(!g.legal_actions().contains(Action::Pong));
}

#[test]
fn wild_indicator_names_the_next_kind() {
    let mut r = Ruleset::shanxi();
    r.haozi = Haozi::Single;
    r.haozi_pick = HaoziPick::Indicator;
    let hands = [
        "123456789m99s78p1z",
        "123s456s777m2z3z5z6z",
        "345s666p888s22m5z6z",
        "1234z444z55667z9p",
    ];
    let d = Deal::arranged(&r, hands, "", "9m", 0, None).unwrap();
    assert_eq!(d.wilds.kinds().collect::<Vec<_>>(), vec![t("1m")]);
    let g = Game::from_deal(&r, d).unwrap();
    // The indicator stays in the wall, face up, seen by everyone.
    assert_eq!(g.observe(3).face_up_in_wall[t("9m").index()], 1);
    r.haozi = Haozi::Feng;
    let d = Deal::arranged(&r, hands, "", "3s5m7z", 0, None).unwrap();
    // Tiles are turned from the back until an honor: 3s, 5m, 7z → 中→发.
    assert_eq!(d.wilds.kinds().collect::<Vec<_>>(), vec![Tile::GREEN]);
    assert_eq!(d.revealed, 3);
}

#[test]
fn pong_forfeits_kong_unless_kong_after_pong() {
    for after in [false, true] {
        let mut r = Ruleset::shanxi();
        r.kong_after_pong = after;
        let mut g = deal(
            &r,
            [
                "7p11m5m9m2s5s8s123456z",
                "777p1p469s77z123z5m",
                "123456m789s55s68p",
                "24p99p13s567z2468m",
            ],
            "4z1z2z9s",
            "",
            0,
        );
        go(&mut g, 0, Action::Discard(t("7p")));
        // 杠, 碰, 过 are offered together.
        let l = g.legal_actions();
        assert!(l.contains(Action::Kong) && l.contains(Action::Pong) && l.contains(Action::Pass));
        go(&mut g, 1, Action::Pong);
        go(&mut g, 1, Action::Discard(t("1p")));
        go(&mut g, 2, Action::Discard(t("4z")));
        go(&mut g, 3, Action::Discard(t("1z")));
        go(&mut g, 0, Action::Discard(t("2z")));
        // Seat 1 still holds the 4th 7p.
        assert_eq!(
            g.legal_actions().contains(Action::AddedKong(t("7p"))),
            after,
            "kong_after_pong = {after}"
        );
    }
}

#[test]
fn win_beats_pong() {
    // Seat 1 discards 7p: seat 2 could pong it, seat 0 (declared, nearer
    // after seat 2 in the asking order of winners first) wins on it.
    let r = Ruleset::shanxi();
    let mut g = deal(
        &r,
        [
            "123456m789s55s68p4z",
            "9p11m5m9m2s5s8s12356z",
            "77p13s469s77z123z9m",
            "234p6p13s567z2468m",
        ],
        "7p",
        "",
        0,
    );
    go(&mut g, 0, Action::Ting(t("4z")));
    go(&mut g, 1, Action::Discard(t("7p")));
    assert_eq!(g.to_act(), Some(0));
    go(&mut g, 0, Action::Pass);
    // After the winner declines, the pong is offered.
    assert_eq!(g.to_act(), Some(2));
    assert!(g.legal_actions().contains(Action::Pong));
}

#[test]
fn linxian_all_three_ting_waiting_on_kong_tile_draws_hand() {
    let r = Ruleset::linxian();
    let hands = [
        "77p13579s1359m56z",
        "123456m789s55s68p",
        "123456s789m22m68p",
        "7p111222333z45z68p",
    ];
    let mut g = deal(&r, hands, "6z7z4z7p", "", 3);
    go(&mut g, 3, Action::Discard(t("7p")));
    go(&mut g, 0, Action::Pong);
    go(&mut g, 0, Action::Discard(t("5z")));
    go(&mut g, 1, Action::Ting(t("6z")));
    go(&mut g, 2, Action::Ting(t("7z")));
    go(&mut g, 3, Action::Ting(t("5z")));
    go(&mut g, 0, Action::AddedKong(t("7p")));
    assert_eq!(g.result().unwrap().kind, EndKind::KongDraw);
    assert!(g.settlement_error().is_none());
    // In Shanxi the same kong is simply robbed by the nearest (seat 1).
    let mut r = Ruleset::shanxi();
    r.ting_min_points = 3;
    let mut g = deal(&r, hands, "6z7z4z7p", "", 3);
    go(&mut g, 3, Action::Discard(t("7p")));
    go(&mut g, 0, Action::Pong);
    go(&mut g, 0, Action::Discard(t("5z")));
    go(&mut g, 1, Action::Ting(t("6z")));
    go(&mut g, 2, Action::Ting(t("7z")));
    go(&mut g, 3, Action::Ting(t("5z")));
    go(&mut g, 0, Action::AddedKong(t("7p")));
    assert_eq!(g.to_act(), Some(1));
}

#[test]
fn linxian_concealed_kong_kind_hidden_until_settlement() {
    let r = Ruleset::linxian();
    let mut g = deal(
        &r,
        [
            "123456m789s55s68p4z",
            "777p13s9s1235z6z49m",
            "24p99p13s567z2468m",
            "1p3p5p1m3m9m2s4s6s2z3z6z7z",
        ],
        "7p",
        "9p",
        0,
    );
    go(&mut g, 0, Action::Ting(t("4z")));
    go(&mut g, 1, Action::ConcealedKong(t("7p")));
    let seen = g.observe(2).melds[1][0].unwrap();
    assert_eq!(seen.kind, MeldKind::ConcealedKong);
    assert_eq!(seen.tile, None);
    assert_eq!(g.observe(1).melds[1][0].unwrap().tile, Some(t("7p")));
    // Shanxi shows it.
    let mut g = deal(
        &Ruleset::shanxi(),
        [
            "123456m789s55s68p4z",
            "777p13s9s1235z6z49m",
            "24p99p13s567z2468m",
            "1p3p5p1m3m9m2s4s6s2z3z6z7z",
        ],
        "7p",
        "9p",
        0,
    );
    go(&mut g, 0, Action::Ting(t("4z")));
    go(&mut g, 1, Action::ConcealedKong(t("7p")));
    assert_eq!(g.observe(2).melds[1][0].unwrap().tile, Some(t("7p")));
}

/// Plays with a fixed policy: decline every win and claim, discard the
/// drawn tile (or the first legal discard), konging concealed when asked.
fn passive(g: &mut Game, kong: bool) {
    while let Some(_seat) = g.to_act() {
        let l = g.legal_actions();
        let a = l
            .iter()
            .find(|a| kong && matches!(a, Action::ConcealedKong(_)))
            .or_else(|| match g.phase() {
                Phase::Turn { drawn: Some(d), .. } if l.contains(Action::Discard(d)) => {
                    Some(Action::Discard(d))
                }
                _ => None,
            })
            .or_else(|| l.iter().find(|a| matches!(a, Action::Discard(_))))
            .unwrap_or(Action::Pass);
        g.step(a).unwrap();
    }
}

#[test]
fn linxian_wall_reserve_twelve_plus_two_per_kong() {
    let mut with_kong = 0;
    for seed in 0..300 {
        let mut g = Game::new(&Ruleset::linxian(), seed, None).unwrap();
        passive(&mut g, true);
        let r = g.result().unwrap();
        if r.kind == EndKind::Exhausted {
            assert_eq!(
                g.wall().remaining(),
                12 + 2 * g.kongs() as usize,
                "seed {seed}"
            );
            with_kong += usize::from(g.kongs() > 0);
        }
    }
    assert!(with_kong > 0, "no exhausted hand with a kong was tested");
}

#[test]
fn linxian_last_live_tile_not_discarded() {
    for seed in 0..50 {
        let mut g = Game::new(&Ruleset::linxian(), seed, None).unwrap();
        passive(&mut g, false);
        if g.result().unwrap().kind != EndKind::Exhausted {
            continue;
        }
        let ev = g.events();
        let n = ev.len();
        // … draw (the last live tile), the table's pass, the end.
        assert!(matches!(ev[n - 3], Event::Draw { .. }), "seed {seed}");
        assert!(matches!(
            ev[n - 2],
            Event::Act {
                action: Action::Pass,
                auto: true,
                ..
            }
        ));
        assert_eq!(g.live_tiles(), 0);
    }
}

#[test]
fn shanxi_last_tile_is_discarded_and_exhausts_the_wall() {
    for seed in 0..20 {
        let mut g = Game::new(&Ruleset::shanxi(), seed, None).unwrap();
        passive(&mut g, false);
        if g.result().unwrap().kind != EndKind::Exhausted {
            continue;
        }
        assert_eq!(g.wall().remaining(), 0);
        let ev = g.events();
        assert!(matches!(
            ev[ev.len() - 2],
            Event::Act {
                action: Action::Discard(_),
                ..
            }
        ));
    }
}

#[test]
fn sichuan_last_four_tiles_must_win() {
    // Seat 1 waits on 5s (lacking 筒); all four 5s are the wall's last
    // tiles. Every win is declined, yet seat 1 wins, automatically, once
    // four or fewer tiles remain.
    let r = Ruleset::sichuan();
    let mut g = deal(
        &r,
        [
            "1138m23589p12379s",
            "123456789m99m46s",
            "123456789p22p47s",
            "2567m346p889s13s7s",
        ],
        "",
        "5s5s5s5s",
        0,
    );
    passive(&mut g, false);
    let res = g.result().unwrap();
    assert_eq!(res.kind, EndKind::Win);
    assert_eq!(res.winners, [false, true, false, false]);
    assert!(g.live_tiles() <= 4);
    assert!(auto_actions(&g).contains(&(1, Action::Win)));
    assert!(g.settlement_error().is_none(), "{:?}", g.settlement_error());
}

#[test]
fn sichuan_passing_a_win_locks_until_next_draw() {
    let r = Ruleset::sichuan();
    let mut g = deal(
        &r,
        [
            "5s11m23p98p1s7s9s2s3s5p8m",
            "123456789m99m46s",
            "123456789p22p46s",
            "567m346p889s13s7s7p",
        ],
        "",
        "",
        0,
    );
    go(&mut g, 0, Action::Discard(t("5s")));
    go(&mut g, 1, Action::Pass);
    assert!(!g.may_win_discards(1));
    go(&mut g, 2, Action::Pass);
    // Seat 1 draws: the lock is lifted.
    assert_eq!(g.to_act(), Some(1));
    assert!(g.may_win_discards(1));
}

#[test]
fn illegal_action_is_refused_and_state_unchanged() {
    let mut g = Game::new(&Ruleset::shanxi(), 3, None).unwrap();
    let before = g.log();
    let obs = g.observe(0);
    for a in [Action::Pong, Action::Win, Action::Kong, Action::Leave] {
        let e = g.step(a).unwrap_err();
        assert!(
            matches!(&e, Error::IllegalAction(m) if m.contains("illegal")),
            "{e}"
        );
    }
    let missing = (0..34u8)
        .map(|i| Tile::new(i).unwrap())
        .find(|x| g.hand(0).concealed[x.index()] == 0)
        .unwrap();
    let e = g.step(Action::Discard(missing)).unwrap_err();
    assert!(e.to_string().contains("holds no"), "{e}");
    assert!(g.step_index(999).is_err());
    assert_eq!(g.log(), before);
    assert_eq!(g.observe(0), obs);
}

#[test]
fn linxian_leaving_ends_the_hand() {
    let mut g = Game::new(&Ruleset::linxian(), 8, None).unwrap();
    let seat = (g.to_act().unwrap() + 2) & 3;
    g.leave(seat).unwrap();
    let r = g.result().unwrap();
    assert_eq!(r.kind, EndKind::Left);
    assert_eq!(r.leaver, Some(seat));
    let base = Ruleset::linxian().leave_penalty as i64;
    assert_eq!(r.deltas[seat as usize], -3 * base);
    assert!(Game::new(&Ruleset::shanxi(), 8, None)
        .unwrap()
        .leave(0)
        .is_err());
}

/// The seats of each round of a first-dealer roll-off and its winner,
/// worked out from the recorded rolls alone.
fn roll_off(rolls: &[[u8; 2]]) -> (Vec<Vec<u8>>, u8) {
    let mut seats: Vec<u8> = vec![0, 1, 2, 3];
    let mut rest = rolls;
    let mut rounds = Vec::new();
    loop {
        assert!(rest.len() >= seats.len(), "roll-off cut short: {rolls:?}");
        let (round, after) = rest.split_at(seats.len());
        rounds.push(seats.clone());
        let best = round.iter().map(|r| r[0] + r[1]).max().unwrap();
        let top: Vec<u8> = seats
            .iter()
            .zip(round)
            .filter(|(_, r)| r[0] + r[1] == best)
            .map(|(&s, _)| s)
            .collect();
        if top.len() == 1 {
            assert!(after.is_empty(), "rolls after the winner: {rolls:?}");
            return (rounds, top[0]);
        }
        seats = top;
        rest = after;
    }
}

#[test]
fn dice_highest_roll_deals_first_in_linxian() {
    let rules = Ruleset::linxian();
    let n = 4000u64;
    let mut firsts = [0u32; 4];
    let mut rerolls = 0;
    for seed in 0..n {
        let d = Deal::random(&rules, seed, None).unwrap();
        let rolls = d.dealer_rolls.as_ref().unwrap();
        assert!(rolls.iter().flatten().all(|x| (1..=6).contains(x)));
        let (rounds, winner) = roll_off(rolls);
        assert_eq!(d.dealer, winner, "seed {seed}: {rolls:?}");
        // `roll_off` has each later round be exactly the seats tied for
        // the highest sum before it, and the rolls end with the winner.
        if rounds.len() > 1 {
            rerolls += 1;
        }
        firsts[d.dealer as usize] += 1;
        // Every die comes from the seeded stream, after the shuffle.
        let mut rng = Prng::new(seed);
        let mut scratch = [0u8; 136];
        rng.shuffle(&mut scratch[..rules.tile_total()]);
        for r in rolls {
            assert_eq!(*r, [rng.die(), rng.die()], "seed {seed}");
        }
        let dice = d.dice.unwrap();
        assert_eq!(dice, [rng.die(), rng.die(), rng.die(), rng.die()]);
        // Same seed, same deal.
        assert_eq!(d, Deal::random(&rules, seed, None).unwrap());
    }
    eprintln!("first dealer by seat over {n} seeds: {firsts:?}; {rerolls} roll-offs re-rolled");
    for (seat, &k) in firsts.iter().enumerate() {
        let share = f64::from(k) / n as f64;
        assert!((0.22..=0.28).contains(&share), "seat {seat}: {share}");
    }
    assert!(rerolls > 100);
    // A given dealer rolls no roll-off; a ruleset without dice rolls nothing.
    let d = Deal::random(&rules, 3, Some(2)).unwrap();
    assert_eq!(
        (d.dealer, d.dealer_rolls.is_none(), d.dice.is_some()),
        (2, true, true)
    );
    let d = Deal::random(&Ruleset::shanxi(), 1, None).unwrap();
    assert!(d.dice.is_none() && d.dealer_rolls.is_none());
}

#[test]
fn dice_break_the_wall_at_dealer_plus_owner_in_linxian() {
    let rules = Ruleset::linxian();
    let mut plain_rules = rules.clone();
    plain_rules.dice = false;
    let total = rules.tile_total();
    let mut starts = std::collections::BTreeSet::new();
    for seed in 0..300u64 {
        for dealer in [None, Some((seed % 4) as u8)] {
            let d = Deal::random(&rules, seed, dealer).unwrap();
            // The same shuffle, not rotated (no dice, no wildcards to pick).
            let plain = Deal::random(&plain_rules, seed, Some(0)).unwrap();
            let [a, b, c, e] = d.dice.unwrap();
            let first = usize::from(a + b);
            let owner = (usize::from(d.dealer) + first - 1) % 4;
            let stacks = first + usize::from(c + e);
            let start = (owner * (total / 4) + 2 * stacks) % total;
            starts.insert(start);
            let mut expected = plain.wall.tiles().to_vec();
            expected.rotate_left(start);
            assert_eq!(d.wall.tiles(), &expected[..], "seed {seed}");
            // The dealt hands: 13 each from the dealer round, then one more.
            let g = Game::from_deal(&rules, d.clone()).unwrap();
            for i in 0..4 {
                let seat = (usize::from(d.dealer) + i) % 4;
                let mut want = [0u8; 34];
                for t in &expected[13 * i..13 * i + 13] {
                    want[t.index()] += 1;
                }
                if i == 0 {
                    want[expected[52].index()] += 1;
                }
                assert_eq!(
                    g.hand(seat as u8).concealed,
                    want,
                    "seed {seed} seat {seat}"
                );
            }
        }
    }
    assert!(starts.len() > 20);
}

#[test]
fn linxian_logs_carry_the_dealer_rolls_and_replay() {
    for seed in 0..40 {
        let mut g = Game::new(&Ruleset::linxian(), seed, None).unwrap();
        while let Some(a) = g.legal_actions().iter().next() {
            g.step(a).unwrap();
        }
        let log = g.log();
        let header = log.lines().next().unwrap();
        let rolls = g.deal().dealer_rolls.clone().unwrap();
        let json: Vec<String> = rolls
            .iter()
            .map(|r| format!("[{},{}]", r[0], r[1]))
            .collect();
        assert!(
            header.contains(&format!("\"dealer_rolls\":[{}]", json.join(","))),
            "{header}"
        );
        let r = koudian_core::game::replay(&log).unwrap();
        assert_eq!(r.log(), log);
        assert_eq!(r.deal().dealer_rolls, g.deal().dealer_rolls);
        // The recorded dealer must be the roll-off's winner.
        let other = (g.dealer() + 1) % 4;
        let bad = log.replacen(
            &format!("\"dealer\":{},", g.dealer()),
            &format!("\"dealer\":{other},"),
            1,
        );
        let e = koudian_core::game::replay(&bad).unwrap_err();
        assert!(e.to_string().contains("dealer_rolls"), "{e}");
        // Dice are 1-6.
        let first = format!("\"dealer_rolls\":[[{},", rolls[0][0]);
        let seven = log.replacen(&first, "\"dealer_rolls\":[[7,", 1);
        let e = koudian_core::game::replay(&seven).unwrap_err();
        assert!(e.to_string().contains("1-6"), "{e}");
        // A cut-short roll-off.
        let cut = log.replacen(
            &format!("\"dealer_rolls\":[{}]", json.join(",")),
            &format!("\"dealer_rolls\":[{}]", json[..3].join(",")),
            1,
        );
        let e = koudian_core::game::replay(&cut).unwrap_err();
        assert!(e.to_string().contains("dealer_rolls"), "{e}");
    }
    // A log from before the field (none written) reads it as null.
    let mut g = Game::new(&Ruleset::linxian(), 5, Some(1)).unwrap();
    while let Some(a) = g.legal_actions().iter().next() {
        g.step(a).unwrap();
    }
    let log = g.log();
    assert!(log.contains("\"dealer_rolls\":null"));
    let old = log.replacen("\"dealer_rolls\":null,", "", 1);
    let r = koudian_core::game::replay(&old).unwrap();
    assert!(r.deal().dealer_rolls.is_none());
    assert_eq!(r.log(), log);
}

fn result(kind: EndKind, dealer: u8, winners: &[u8], any_kong: bool) -> HandResult {
    let mut w = [false; 4];
    for &s in winners {
        w[s as usize] = true;
    }
    HandResult {
        kind,
        winners: w,
        tile: None,
        from: Some(0),
        self_draw: false,
        robbed_kong: false,
        replacement: None,
        heavenly: false,
        earthly: false,
        leaver: None,
        ting: [false; 4],
        dealer,
        any_kong,
        deltas: [0; 4],
    }
}

#[test]
fn dealer_rotation_per_ruleset() {
    use DealerRotation::*;
    let win = |d, w| result(EndKind::Win, d, &[w], false);
    // winner: the winner deals; drawn: the 下家.
    assert_eq!(next_dealer(Winner, &win(1, 3)), 3);
    assert_eq!(
        next_dealer(Winner, &result(EndKind::Exhausted, 1, &[], false)),
        2
    );
    // round: dealer keeps on his win, else 下家; drawn: passes only after a kong.
    assert_eq!(next_dealer(Round, &win(1, 1)), 1);
    assert_eq!(next_dealer(Round, &win(1, 3)), 2);
    assert_eq!(
        next_dealer(Round, &result(EndKind::Exhausted, 1, &[], false)),
        1
    );
    assert_eq!(
        next_dealer(Round, &result(EndKind::Exhausted, 1, &[], true)),
        2
    );
    // next (Linxian): drawn hand passes.
    assert_eq!(
        next_dealer(Next, &result(EndKind::Exhausted, 3, &[], false)),
        0
    );
    // Sichuan: winner deals; drawn keeps.
    assert_eq!(next_dealer(Sichuan, &win(0, 2)), 2);
    assert_eq!(
        next_dealer(Sichuan, &result(EndKind::Exhausted, 2, &[], false)),
        2
    );
}

#[test]
fn linxian_match_is_four_rounds() {
    let mut m = Match::new(&Ruleset::linxian(), 4, MatchLength::Rounds(4)).unwrap();
    let mut hands = 0;
    while let Some(mut g) = m.next_game().unwrap() {
        assert_eq!(g.scores(), m.totals());
        passive(&mut g, false);
        m.record(&g).unwrap();
        hands += 1;
        assert!(hands < 500);
    }
    assert!(m.hands_played() >= 16);
    assert_eq!(m.totals().iter().sum::<i64>(), 0);
}

// Seat 0 declares on 123456789m 777p 8p (waits 6p, 8p, 9p), later draws
// the 4th 7p; the kong's replacement is 8p.
fn bloom_setup(r: &Ruleset) -> Game {
    let mut g = deal(
        r,
        [
            "123456789m777p8p1z",
            "123s456s777m2z3z5z6z",
            "345p666s888s22m5z6z",
            "1234z444z55667z9p",
        ],
        "2z3z1s7p",
        "8p",
        0,
    );
    go(&mut g, 0, Action::Ting(t("1z")));
    go(&mut g, 1, Action::Discard(t("2z")));
    go(&mut g, 2, Action::Discard(t("3z")));
    go(&mut g, 3, Action::Discard(t("1s")));
    g
}

#[test]
fn win_on_kong_replacement_is_a_self_draw() {
    let mut g = bloom_setup(&Ruleset::shanxi());
    // After ting a kong is allowed while the hand stays ready on a 6+ wait.
    go(&mut g, 0, Action::ConcealedKong(t("7p")));
    go(&mut g, 0, Action::Win);
    let r = *g.result().unwrap();
    assert!(r.self_draw);
    assert_eq!(r.replacement, Some(MeldKind::ConcealedKong));
    assert!(g.settlement_error().is_none(), "{:?}", g.settlement_error());
}

#[test]
fn kong_keeps_waits_forbids_a_kong_that_changes_the_waits() {
    let mut r = Ruleset::shanxi();
    r.kong_keeps_waits = true;
    let g = bloom_setup(&r);
    // 7777p + 8p would wait on 8p only: no kong; the 7p is discarded for him.
    assert!(auto_actions(&g).contains(&(0, Action::Discard(t("7p")))));
    assert_eq!(g.to_act(), Some(1));
}

#[test]
fn observation_never_shows_other_players_concealed_tiles() {
    let r = Ruleset::shanxi();
    let a = deal(
        &r,
        [
            "123456789m99s78p1z",
            "123s456s777m2z3z5z6z",
            "345p666s888s22m5z6z",
            "1234z444z55667z9p",
        ],
        "",
        "",
        0,
    );
    // Seats 2 and 3 swap 3p and 9p: nothing seat 0 or 1 sees changes.
    let b = deal(
        &r,
        [
            "123456789m99s78p1z",
            "123s456s777m2z3z5z6z",
            "459p666s888s22m5z6z",
            "1234z444z55667z3p",
        ],
        "",
        "",
        0,
    );
    assert_ne!(a.hand(2), b.hand(2));
    for seat in [0, 1] {
        assert_eq!(a.observe(seat), b.observe(seat));
    }
    assert_ne!(a.observe(2), b.observe(2));
}

#[test]
fn replay_rejects_a_tampered_log() {
    let mut g = Game::new(&Ruleset::shanxi(), 12, None).unwrap();
    while let Some(a) = g.legal_actions().iter().next() {
        g.step(a).unwrap();
    }
    let log = g.log();
    assert!(koudian_core::game::replay(&log).is_ok());
    // A different first discard is either illegal or diverges.
    let bad = log.replacen(
        "\"action\":\"discard\",\"tile\":\"",
        "\"action\":\"discard\",\"tile\":\"9",
        1,
    );
    assert!(koudian_core::game::replay(&bad).is_err());
    let truncated: String = log.lines().take(1).collect();
    assert!(koudian_core::game::replay(&truncated).is_err());
    assert!(koudian_core::game::replay("not json").is_err());
    assert!(koudian_core::game::replay("").is_err());
}
