//! Win detection (docs/rules.md §2 winning shapes, wildcards 耗子): the table
//! method against the brute-force search in `shape_reference`, on seeded
//! random hands, exhaustively over single-suit and honor patterns, and
//! on named rule cases.

mod common;

mod shape_reference;

use koudian_core::hand::Hand;
use koudian_core::shape::{is_win, is_win_batch, is_win_batch_checked, ShapeRules};
use koudian_core::tile::{counts_of, parse, Counts, Tile};
use koudian_core::Wildcards;
use proptest::prelude::*;
use shape_reference as r;

fn counts(s: &str) -> Counts {
    counts_of(&parse(s).unwrap()).unwrap()
}

fn wl(s: &[&str]) -> Wildcards {
    Wildcards::new(
        &s.iter()
            .map(|x| Tile::from_notation(x).unwrap())
            .collect::<Vec<_>>(),
    )
    .unwrap()
}

const STD: ShapeRules = ShapeRules::STANDARD_ONLY;
const SEVEN: ShapeRules = ShapeRules {
    seven_pairs: true,
    thirteen_orphans: false,
    wind_sets: false,
};
const ORPH: ShapeRules = ShapeRules {
    seven_pairs: false,
    thirteen_orphans: true,
    wind_sets: false,
};
const WIND: ShapeRules = ShapeRules {
    seven_pairs: false,
    thirteen_orphans: false,
    wind_sets: true,
};

/// `is_win` on a notation string, which must be a complete hand's size.
fn win(s: &str, melds: usize, w: &Wildcards, rules: &ShapeRules) -> bool {
    let c = counts(s);
    let n: usize = c.iter().map(|&x| x as usize).sum();
    assert_eq!(n + 3 * melds, 14, "test hand {s} has the wrong size");
    is_win(&c, melds, w, rules)
}

/// 10^5 seeded hands per option set for `n_wild` wild kinds.
fn random_against_reference(n_wild: usize) {
    for (o, rules) in r::all_rules().into_iter().enumerate() {
        let mut rng = r::Rng(0xC0FFEE ^ (n_wild as u64) << 8 ^ o as u64);
        let mut wins = 0;
        for _ in 0..100_000 {
            let s = r::sample(&mut rng, 14, n_wild, rules.wind_sets);
            let got = is_win(&s.concealed, s.n_melds, &r::wildcards(&s.wilds), &rules);
            let want = r::win(&s.concealed, s.n_melds, &s.wilds, &rules);
            assert_eq!(
                got,
                want,
                "{} melds {} wilds {:?} {:?}",
                koudian_core::tile::format_counts(&s.concealed),
                s.n_melds,
                s.wilds,
                rules
            );
            wins += got as u32;
        }
        // A generator that rarely wins would test little.
        assert!(
            wins > 15_000,
            "{wins} wins in 10^5 ({rules:?}, {n_wild} wild kinds)"
        );
    }
}

#[test]
fn matches_brute_force_without_wildcards() {
    random_against_reference(0);
}

#[test]
fn matches_brute_force_with_one_wild_kind() {
    random_against_reference(1);
}

#[test]
fn matches_brute_force_with_two_wild_kinds() {
    random_against_reference(2);
}

/// Every pattern of `kinds` counts (each 0-4, sum ≤ 14), placed at
/// `offset`, completed with wild tiles of the wild kinds (as many as the
/// hand size leaves, for every meld count that leaves 0-8 of them).
fn exhaustive(offset: usize, kinds: usize, wild_kinds: [usize; 2], rules: &ShapeRules) -> u32 {
    let mut wins = 0;
    let mut d = vec![0u8; kinds];
    loop {
        let sum: usize = d.iter().map(|&x| x as usize).sum();
        if sum <= 14 {
            for m in 0..=4usize {
                let size = 14 - 3 * m;
                if size < sum || size - sum > 8 {
                    continue;
                }
                let w = size - sum;
                let mut c = [0u8; 34];
                c[offset..offset + kinds].copy_from_slice(&d);
                c[wild_kinds[0]] = w.min(4) as u8;
                c[wild_kinds[1]] = w.saturating_sub(4) as u8;
                let got = is_win(&c, m, &r::wildcards(&wild_kinds), rules);
                assert_eq!(
                    got,
                    r::win(&c, m, &wild_kinds, rules),
                    "{d:?} + {w} wild, {m} melds"
                );
                wins += got as u32;
            }
        }
        // Odometer.
        let mut i = 0;
        while i < kinds && d[i] == 4 {
            d[i] = 0;
            i += 1;
        }
        if i == kinds {
            return wins;
        }
        d[i] += 1;
    }
}

#[test]
fn every_single_suit_pattern_with_any_number_of_wild_tiles() {
    // Wild kinds are honors, outside the suit: the suit's need table is
    // checked for every reachable key.
    let wins = exhaustive(9, 9, [31, 33], &STD);
    assert!(wins > 10_000, "{wins}");
}

#[test]
fn every_honor_pattern_with_and_without_wind_sets() {
    for rules in [STD, WIND] {
        exhaustive(27, 7, [0, 18], &rules);
    }
}

#[test]
fn standard_shape_four_sets_and_a_pair() {
    assert!(win("123m456p789s11122z", 0, &Wildcards::NONE, &STD));
    assert!(win("11122233344455m", 0, &Wildcards::NONE, &STD));
    assert!(!win("123m456p789s11123z", 0, &Wildcards::NONE, &STD));
    assert!(!win(
        "13579m2468p1357s1z",
        0,
        &Wildcards::NONE,
        &ShapeRules::ALL
    ));
}

#[test]
fn melds_count_as_sets() {
    assert!(win("123m456p11z", 2, &Wildcards::NONE, &STD));
    assert!(win("11z", 4, &Wildcards::NONE, &STD));
    assert!(!win("12z", 4, &Wildcards::NONE, &STD));
}

#[test]
fn melds_are_never_wild() {
    // Only concealed tiles of the wild kind are wild: 1m melded tiles are
    // not counted at all, and a hand of 4 melds + 1m 5z waits for a pair.
    let w = wl(&["1m"]);
    assert!(!win("15z", 4, &w, &STD));
    assert!(win("1m5z", 4, &w, &STD));
}

#[test]
fn seven_pairs_counts_a_quad_as_two_pairs() {
    assert!(win("1111m3344p5566s77z", 0, &Wildcards::NONE, &SEVEN));
    assert!(win("1111m3333p5566s77z", 0, &Wildcards::NONE, &SEVEN));
    assert!(!win("1111m3344p5566s77z", 0, &Wildcards::NONE, &STD));
    assert!(!win("111m33444p5566s77z", 0, &Wildcards::NONE, &SEVEN));
}

#[test]
fn seven_pairs_only_when_enabled() {
    assert!(!win("1122m3344p5566s77z", 0, &Wildcards::NONE, &ORPH));
    assert!(win("1122m3344p5566s77z", 0, &Wildcards::NONE, &SEVEN));
}

#[test]
fn seven_pairs_with_wild_tiles() {
    // Each odd kind takes one wild tile; spare wild tiles pair up.
    let w = wl(&["7z"]);
    assert!(!win("123m3344p5566s117z", 0, &w, &SEVEN));
    assert!(!win("1123m3444p5566s77z", 0, &w, &SEVEN));
    assert!(win("1122m3344p5566s17z", 0, &w, &SEVEN));
    assert!(win("12m3344p5566s1777z", 0, &w, &SEVEN));
    assert!(win("1122m3344p55s7777z", 0, &w, &SEVEN));
}

#[test]
fn thirteen_orphans_shape() {
    assert!(win("19m19p19s11234567z", 0, &Wildcards::NONE, &ORPH));
    assert!(!win("19m19p19s11234567z", 0, &Wildcards::NONE, &STD));
    assert!(!win("19m19p19s12z", 2, &Wildcards::NONE, &ORPH));
    assert!(!win(
        "119m19p19s1234567z",
        0,
        &Wildcards::NONE,
        &ShapeRules {
            thirteen_orphans: false,
            ..ShapeRules::ALL
        }
    ));
    // Wild tiles fill missing kinds and the pair.
    let w = wl(&["5m"]);
    assert!(win("19m19p19s1234567z5m", 0, &w, &ORPH));
    assert!(win("1m19p19s123456z555m", 0, &w, &ORPH));
    assert!(!win("12m19p19s123456z55m", 0, &w, &ORPH));
}

#[test]
fn wild_tile_may_stand_for_its_own_kind() {
    // 5m wild: 345m needs the 5m to be a 5m.
    let w = wl(&["5m"]);
    assert!(win("345m456p789s11122z", 0, &w, &STD));
    // Two wild 白 as a pair of 白.
    assert!(win("123m456p789s11155z", 0, &wl(&["5z"]), &STD));
}

#[test]
fn several_wild_tiles_may_stand_for_one_kind() {
    // One natural 1m and two wild 中 as 1m form a triplet.
    assert!(win("1m456p789s11122z77z", 0, &wl(&["7z"]), &STD));
    // Two wild kinds together.
    assert!(win("1m456p789s11122z7z5m", 0, &wl(&["7z", "5m"]), &STD));
}

#[test]
fn wild_tile_may_stand_for_a_fifth_copy() {
    // 1111m held, the wild 中 stands for a 5th 1m: 111m + 11m pair.
    assert!(win("1111m456p789s123s7z", 0, &wl(&["7z"]), &STD));
    assert!(!win("1111m456p789s123s6z", 0, &Wildcards::NONE, &STD));
}

#[test]
fn wind_sets_any_three_different_winds() {
    for s in ["123z", "124z", "134z", "234z"] {
        let h = format!("123m456p789s55z{s}");
        assert!(win(&h, 0, &Wildcards::NONE, &WIND), "{h}");
        assert!(!win(&h, 0, &Wildcards::NONE, &STD), "{h}");
    }
    // 中发白 together.
    assert!(win("123m456p789s11z567z", 0, &Wildcards::NONE, &WIND));
    // Winds never mix with dragons, and two of a kind is no wind set.
    assert!(!win("123m456p789s11z125z", 0, &Wildcards::NONE, &WIND));
    assert!(!win("123m456p789s55z112z", 0, &Wildcards::NONE, &WIND));
    // With wild tiles: 东 南 + wild = a wind set.
    assert!(win("123m456p789s55z12z9m", 0, &wl(&["9m"]), &WIND));
    assert!(!win("123m456p789s55z12z9m", 0, &Wildcards::NONE, &WIND));
}

#[test]
fn wrong_size_or_counts_is_not_a_win_and_never_panics() {
    let mut c = counts("123m456p789s11122z");
    assert!(!is_win(&c, 1, &Wildcards::NONE, &STD));
    assert!(!is_win(&c, 5, &Wildcards::NONE, &STD));
    assert!(!is_win(&c, usize::MAX, &Wildcards::NONE, &STD));
    c[0] = 5;
    c[1] = 0;
    assert!(!is_win(&c, 0, &Wildcards::NONE, &STD));
    c[0] = 255;
    assert!(!is_win(&c, 0, &wl(&["1m"]), &ShapeRules::ALL));
    assert!(!is_win(&[4; 34], 0, &wl(&["1m", "7z"]), &ShapeRules::ALL));
    assert!(!is_win(&[0; 34], 0, &Wildcards::NONE, &ShapeRules::ALL));
}

#[test]
fn batch_matches_single_calls_for_any_thread_count() {
    let mut rng = r::Rng(99);
    let wilds = [4usize, 31];
    let w = r::wildcards(&wilds);
    let rules = ShapeRules::ALL;
    let mut hands = Vec::new();
    let mut melds = Vec::new();
    for _ in 0..20_000 {
        let s = r::sample(&mut rng, 14, 0, true);
        hands.push(s.concealed);
        melds.push(s.n_melds as u8);
    }
    hands[3][0] = 7;
    melds[4] = 9;
    let mut one = vec![false; hands.len()];
    is_win_batch(&hands, &melds, &w, &rules, &mut one, 1).unwrap();
    for i in 0..hands.len() {
        assert_eq!(one[i], is_win(&hands[i], melds[i] as usize, &w, &rules));
    }
    assert!(!one[3] && !one[4]);
    // The checked form flags the two bad rows' batch, and only it.
    for threads in [1, 2] {
        let mut out = vec![false; hands.len()];
        let ok = is_win_batch_checked(&hands, &melds, &w, &rules, &mut out, threads).unwrap();
        assert!(!ok);
        assert_eq!(out, one);
        let ok = is_win_batch_checked(&hands[5..], &melds[5..], &w, &rules, &mut out[5..], threads)
            .unwrap();
        assert!(ok, "threads = {threads}");
    }
    for threads in [0, 2, 3, 7] {
        let mut out = vec![false; hands.len()];
        is_win_batch(&hands, &melds, &w, &rules, &mut out, threads).unwrap();
        assert_eq!(out, one, "threads = {threads}");
    }
    // One meld count for every row.
    let mut out = vec![false; hands.len()];
    is_win_batch(&hands, &[0], &w, &rules, &mut out, 2).unwrap();
    for i in 0..hands.len() {
        assert_eq!(out[i], is_win(&hands[i], 0, &w, &rules));
    }
    let e = is_win_batch(&hands, &melds[..5], &w, &rules, &mut out, 1).unwrap_err();
    assert!(e.to_string().contains("n_melds"), "{e}");
    let e = is_win_batch(&hands, &[0], &w, &rules, &mut out[..5], 1).unwrap_err();
    assert!(e.to_string().contains("output"), "{e}");
    is_win_batch(&[], &[], &w, &rules, &mut [], 2).unwrap();
}

fn swap_suits(c: &Counts, a: usize, b: usize) -> Counts {
    let mut o = *c;
    for r in 0..9 {
        o.swap(9 * a + r, 9 * b + r);
    }
    o
}

fn reverse_ranks(c: &Counts) -> Counts {
    let mut o = *c;
    for s in 0..3 {
        for r in 0..9 {
            o[9 * s + r] = c[9 * s + 8 - r];
        }
    }
    o
}

fn map_kind(k: usize, f: impl Fn(&Counts) -> Counts) -> usize {
    let mut c = [0u8; 34];
    c[k] = 1;
    f(&c).iter().position(|&x| x == 1).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Any bytes at all, in a batch or alone: a row with a count above 4
    /// or the wrong size is never a win (its table keys are garbage that
    /// the look-ups mask into range), and a valid row agrees with the
    /// reference.
    #[test]
    fn arbitrary_counts_never_panic_and_only_valid_rows_win(
        rows in prop::collection::vec(
            (prop::collection::vec(prop_oneof![8 => 0u8..=4, 1 => 5u8..=255], 34), 0u8..=6),
            1..40,
        ),
        n_wild in 0usize..=2,
        opts in 0usize..8,
    ) {
        let rules = r::all_rules()[opts];
        let kinds = [[].as_slice(), &[4], &[4, 31]][n_wild];
        let w = r::wildcards(kinds);
        let hands: Vec<Counts> = rows.iter().map(|(c, _)| c.clone().try_into().unwrap()).collect();
        let melds: Vec<u8> = rows.iter().map(|&(_, m)| m).collect();
        let mut out = vec![false; hands.len()];
        is_win_batch(&hands, &melds, &w, &rules, &mut out, 1).unwrap();
        for (i, c) in hands.iter().enumerate() {
            let m = melds[i] as usize;
            let n: usize = c.iter().map(|&x| x as usize).sum();
            let valid = c.iter().all(|&x| x <= 4) && m <= 4 && n + 3 * m == 14;
            let expect = valid && r::win(c, m, kinds, &rules);
            prop_assert_eq!(out[i], expect, "{:?} with {} melds", c, m);
            prop_assert_eq!(is_win(c, m, &w, &rules), expect);
        }
    }

    #[test]
    fn tile_order_never_matters(seed in any::<u64>(), n_wild in 0usize..=2, opts in 0usize..8) {
        let rules = r::all_rules()[opts];
        let mut rng = r::Rng(seed);
        let s = r::sample(&mut rng, 14, n_wild, rules.wind_sets);
        let w = r::wildcards(&s.wilds);
        let mut tiles = koudian_core::tile::tiles_of(&s.concealed);
        let expect = is_win(&s.concealed, s.n_melds, &w, &rules);
        for i in (1..tiles.len()).rev() {
            tiles.swap(i, rng.below(i + 1));
        }
        let h = Hand::from_tiles(&tiles, &[]).unwrap();
        prop_assert_eq!(is_win(&h.concealed, s.n_melds, &w, &rules), expect);
    }

    #[test]
    fn suits_and_rank_order_are_symmetric(seed in any::<u64>(), n_wild in 0usize..=2, opts in 0usize..8) {
        let rules = r::all_rules()[opts];
        let mut rng = r::Rng(seed);
        let s = r::sample(&mut rng, 14, n_wild, rules.wind_sets);
        let w = r::wildcards(&s.wilds);
        let expect = is_win(&s.concealed, s.n_melds, &w, &rules);
        for (a, b) in [(0, 1), (1, 2), (0, 2)] {
            let kinds: Vec<usize> = s.wilds.iter().map(|&k| map_kind(k, |c| swap_suits(c, a, b))).collect();
            let c = swap_suits(&s.concealed, a, b);
            prop_assert_eq!(is_win(&c, s.n_melds, &r::wildcards(&kinds), &rules), expect);
        }
        let kinds: Vec<usize> = s.wilds.iter().map(|&k| map_kind(k, reverse_ranks)).collect();
        let c = reverse_ranks(&s.concealed);
        prop_assert_eq!(is_win(&c, s.n_melds, &r::wildcards(&kinds), &rules), expect);
    }

    #[test]
    fn a_wild_tile_in_place_of_a_natural_one_keeps_a_win(seed in any::<u64>(), n_wild in 1usize..=2, opts in 0usize..8) {
        let rules = r::all_rules()[opts];
        let mut rng = r::Rng(seed);
        let s = r::sample(&mut rng, 14, n_wild, rules.wind_sets);
        let w = r::wildcards(&s.wilds);
        if is_win(&s.concealed, s.n_melds, &w, &rules) {
            // Swap every natural kind in turn for one tile of a wild kind.
            for k in 0..34 {
                if s.concealed[k] == 0 || s.wilds.contains(&k) {
                    continue;
                }
                for &x in &s.wilds {
                    let mut c = s.concealed;
                    if c[x] == 4 {
                        continue;
                    }
                    c[k] -= 1;
                    c[x] += 1;
                    prop_assert!(is_win(&c, s.n_melds, &w, &rules), "{:?} -> {:?}", s.concealed, c);
                }
            }
        }
    }
}
