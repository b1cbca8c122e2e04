//! Waits (听口) and ready (docs/rules.md §2 "Waits and ready"): the table-based
//! waits against a brute force over the 34 draws, plus named rule cases.

mod common;

mod shape_reference;

use koudian_core::hand::{Hand, Meld, MeldKind};
use koudian_core::shape::ShapeRules;
use koudian_core::tile::{counts_of, parse, Counts, Tile};
use koudian_core::waits::{waits, waits_batch, waits_batch_checked, waits_counts, Waits};
use koudian_core::Wildcards;
use proptest::prelude::*;
use shape_reference as r;

fn counts(s: &str) -> Counts {
    counts_of(&parse(s).unwrap()).unwrap()
}

fn t(s: &str) -> Tile {
    Tile::from_notation(s).unwrap()
}

fn wl(s: &[&str]) -> Wildcards {
    Wildcards::new(&s.iter().map(|x| t(x)).collect::<Vec<_>>()).unwrap()
}

fn pairs(w: &Waits) -> Vec<(usize, u8)> {
    w.iter().map(|(t, p)| (t.index(), p)).collect()
}

const STD: ShapeRules = ShapeRules::STANDARD_ONLY;

#[test]
fn waits_match_brute_force_on_random_hands() {
    // 4 × 10^4 hands per wild-kind count (each costs 34-68 brute-force
    // win checks), spread over the 8 option sets.
    for n_wild in 0..=2 {
        let mut rng = r::Rng(0x5eed_0000 + n_wild as u64);
        let mut ready = 0;
        for i in 0..40_000 {
            let rules = r::all_rules()[i % 8];
            let s = r::sample(&mut rng, 13, n_wild, rules.wind_sets);
            let wilds = r::wildcards(&s.wilds);
            let got = waits_counts(&s.concealed, &s.held, s.n_melds, &wilds, &rules);
            let want = r::waits(&s.concealed, &s.held, s.n_melds, &s.wilds, &rules);
            assert_eq!(
                pairs(&got),
                want,
                "hand {:?} melds {} wilds {:?} rules {:?}",
                koudian_core::tile::format_counts(&s.concealed),
                s.n_melds,
                s.wilds,
                rules
            );
            ready += got.is_ready() as usize;
        }
        // The generator must produce plenty of ready hands to test anything.
        assert!(ready > 8_000, "only {ready} ready hands");
    }
}

#[test]
fn nine_gates_waits_on_every_character() {
    let w = waits_counts(
        &counts("1112345678999m"),
        &counts("1112345678999m"),
        0,
        &Wildcards::NONE,
        &STD,
    );
    assert_eq!(w.mask(), 0x1ff);
    assert_eq!(w.best_points(), Some(9));
}

#[test]
fn wait_on_fifth_copy_not_counted() {
    // 1111234m: 111m 123m + 4m waits on 4m; 111m 234m + 1m would wait on
    // a 5th 1m, which cannot be drawn.
    let c = counts("1111234m456p789s");
    let w = waits_counts(&c, &c, 0, &Wildcards::NONE, &STD);
    assert_eq!(pairs(&w), vec![(3, 4)]);
    // The 4th copy may sit in a meld: a pong of 9s plus a single 9s
    // waiting for its pair waits on nothing.
    let hand = Hand::new(
        counts("123m9s"),
        &[
            Meld::new(MeldKind::Pong, t("9s")),
            Meld::new(MeldKind::Pong, t("5z")),
            Meld::new(MeldKind::Pong, t("6z")),
        ],
    )
    .unwrap();
    let w = waits(&hand, &Wildcards::NONE, &STD).unwrap();
    assert!(!w.is_ready());
    // Without the meld counted (concealed only), 9s would look drawable.
    let c = hand.concealed;
    assert!(waits_counts(&c, &c, 3, &Wildcards::NONE, &STD).contains(t("9s")));
}

#[test]
fn wild_wait_worth_best_kind() {
    // 123m 99m 456p 11z and a meld: waits 9m (9) and 1z (10); a wild 中
    // drawn can stand for either, so it is worth 10.
    let c = counts("12399m456p11z");
    let w = waits_counts(&c, &c, 1, &wl(&["7z"]), &STD);
    assert_eq!(pairs(&w), vec![(8, 9), (27, 10), (33, 10)]);
    // 1234m: waits 1m and 4m; the wild 5s is worth 4 (not its own 5).
    let c = counts("1234m");
    let w = waits_counts(&c, &c, 3, &wl(&["5s"]), &STD);
    assert_eq!(pairs(&w), vec![(0, 1), (3, 4), (22, 4)]);
}

#[test]
fn wild_wait_may_stand_for_a_fifth_copy() {
    // 1111m held with 23m: a wild tile drawn can be a 5th 1m (1111m + 1m
    // = 111m 11m... with 23m: 111m 123m 1m? no) — use 1111m 2222m 3m 4m 5m:
    // 11112222345m + W(=1m) → 111 11 222 2345? Simplest: a 4-of-a-kind
    // pair + triplet needs the 5th: 1111m + W = 111m + 11m.
    let c = counts("1111m456p789s123s");
    let held = c;
    let w = waits_counts(&c, &held, 0, &wl(&["7z"]), &STD);
    // Natural draws: 1m cannot be drawn (4 held); the wild can be the 5th.
    assert!(!w.contains(Tile::M1));
    assert!(w.contains(Tile::RED));
    assert_eq!(
        w.points(Tile::RED),
        Some(
            r::waits(&c, &held, 0, &[33], &STD)
                .iter()
                .find(|x| x.0 == 33)
                .unwrap()
                .1
        )
    );
}

#[test]
fn wild_kind_held_four_times_is_no_wait() {
    // Four 中 held (all wild): a fifth 中 cannot be drawn.
    let c = counts("123m456p789s7777z");
    let w = waits_counts(&c, &c, 0, &wl(&["7z"]), &STD);
    assert!(w.is_ready());
    assert!(!w.contains(Tile::RED));
}

#[test]
fn seven_pairs_waits() {
    let c = counts("1122m3344p5566s7z");
    let sp = ShapeRules {
        seven_pairs: true,
        ..STD
    };
    let w = waits_counts(&c, &c, 0, &Wildcards::NONE, &sp);
    assert_eq!(pairs(&w), vec![(33, 10)]);
    assert!(!waits_counts(&c, &c, 0, &Wildcards::NONE, &STD).is_ready());
}

#[test]
fn thirteen_orphans_waits_on_thirteen_kinds() {
    let c = counts("19m19p19s1234567z");
    let to = ShapeRules {
        thirteen_orphans: true,
        ..STD
    };
    let w = waits_counts(&c, &c, 0, &Wildcards::NONE, &to);
    assert_eq!(w.len(), 13);
}

#[test]
fn not_ready_hand_has_no_waits() {
    let c = counts("147m258p369s1357z");
    let w = waits_counts(&c, &c, 0, &Wildcards::NONE, &ShapeRules::ALL);
    assert!(!w.is_ready());
    assert_eq!(w.best_points(), None);
    assert_eq!(w, Waits::NONE);
}

#[test]
fn wrong_size_is_an_error_or_no_waits() {
    let hand = Hand::new(counts("123m456p789s11z"), &[]).unwrap();
    let e = waits(&hand, &Wildcards::NONE, &STD).unwrap_err();
    assert!(e.to_string().contains("13"), "{e}");
    let mut bad = counts("123m456p789s1112z");
    assert!(waits_counts(&bad, &bad, 0, &Wildcards::NONE, &STD).is_ready());
    bad[0] = 9;
    assert!(!waits_counts(&bad, &bad, 0, &Wildcards::NONE, &STD).is_ready());
    bad[0] = 255;
    assert!(!waits_counts(&bad, &bad, 7, &Wildcards::NONE, &STD).is_ready());
}

#[test]
fn batch_matches_single_calls_for_any_thread_count() {
    let mut rng = r::Rng(77);
    let rules = ShapeRules::ALL;
    let wild = [31usize, 4];
    let wilds = r::wildcards(&wild);
    let mut hands = Vec::new();
    let mut melds = Vec::new();
    for _ in 0..5000 {
        let s = r::sample(&mut rng, 13, 0, true);
        hands.push(s.concealed);
        melds.push(s.n_melds as u8);
    }
    hands[7][0] = 5; // an invalid row gives mask 0
    let mut one = vec![0u64; hands.len()];
    waits_batch(&hands, &melds, &[], &wilds, &rules, &mut one, 1).unwrap();
    for (i, h) in hands.iter().enumerate() {
        assert_eq!(
            one[i],
            waits_counts(h, h, melds[i] as usize, &wilds, &rules).mask()
        );
    }
    assert_eq!(one[7], 0);
    // The bool-row output (numpy's layout) says the same, for 1 and 2
    // threads.
    for threads in [1, 2] {
        let mut rows = vec![[true; 34]; hands.len()];
        waits_batch(&hands, &melds, &[], &wilds, &rules, &mut rows, threads).unwrap();
        for (row, &mask) in rows.iter().zip(&one) {
            let want: Vec<bool> = (0..34).map(|i| mask >> i & 1 == 1).collect();
            assert_eq!(row.to_vec(), want);
        }
    }
    for threads in [0, 2, 3] {
        let mut out = vec![0u64; hands.len()];
        waits_batch(&hands, &melds, &[], &wilds, &rules, &mut out, threads).unwrap();
        assert_eq!(out, one);
    }
    // The checked form flags the batch holding the bad row, and only it.
    for threads in [1, 2] {
        let mut out = vec![0u64; hands.len()];
        let ok =
            waits_batch_checked(&hands, &melds, &[], &wilds, &rules, &mut out, threads).unwrap();
        assert!(!ok);
        assert_eq!(out, one);
        let (h, m) = (&hands[8..], &melds[8..]);
        let ok = waits_batch_checked(h, m, &[], &wilds, &rules, &mut out[8..], threads).unwrap();
        assert!(ok, "threads = {threads}");
    }
    let mut short = vec![0u64; 3];
    assert!(waits_batch(&hands, &melds, &[], &wilds, &rules, &mut short, 1).is_err());
    assert!(waits_batch(&hands, &melds[..2], &[], &wilds, &rules, &mut one, 1).is_err());
    assert!(waits_batch(&hands, &melds, &hands[..1], &wilds, &rules, &mut one, 1).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn waits_equal_brute_force_over_34_draws(seed in any::<u64>(), n_wild in 0usize..=2, opts in 0usize..8) {
        let rules = r::all_rules()[opts];
        let mut rng = r::Rng(seed);
        let s = r::sample(&mut rng, 13, n_wild, rules.wind_sets);
        let wilds = r::wildcards(&s.wilds);
        let got = waits_counts(&s.concealed, &s.held, s.n_melds, &wilds, &rules);
        prop_assert_eq!(pairs(&got), r::waits(&s.concealed, &s.held, s.n_melds, &s.wilds, &rules));
    }
}
