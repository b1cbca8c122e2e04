//! Shanten (向听数) against deliberately simple references written here:
//!
//! * `search_deficiency`: an exhaustive branch-and-bound over which of the
//!   hand's tiles are kept and which set or pair slot each kept tile fills
//!   (no tables); with the closed-form-free seven-pairs and
//!   thirteen-orphans references below. Compared on 10^5 seeded hands per
//!   shape option × 0/1/2 wild kinds.
//! * `draw_discard_shanten`: the slowest one, straight from the game:
//!   the fewest draw-and-discard steps (through the crate's `is_win`) until
//!   the hand completes. Compared on a few hundred seeded hands close to
//!   complete (shanten ≤ 1), since each costs up to 10^5 `is_win` calls.
//!
//! Convention differences with PyPI `xiangting` (cross-checked on the
//! Python side): xiangting returns the replacement number, which is this
//! shanten + 1; it caps targets at 4 copies like this crate does without
//! wildcards; its seven pairs (riichi rules) never count a 4-of-a-kind as
//! two pairs, ours do (docs/rules.md §2); it has no wildcards, no 风嘴子 and no
//! way to switch shapes off.

mod common;
mod shanten_reference;

use koudian_core::hand::{Hand, Meld, MeldKind};
use koudian_core::shanten::{shanten, shanten_batch, shanten_counts};
use koudian_core::shape::{is_win, ShapeRules};
use koudian_core::tile::{counts_of, parse, Counts, Tile, KINDS};
use koudian_core::waits::waits;
use koudian_core::Wildcards;
use proptest::prelude::*;

use common::Rng;
use shanten_reference::*;

/// A hand, its melds and its shanten under each of [`RULE_SETS`].
type Row = (Counts, u8, Vec<i8>);

/// Compares single calls with the reference on `hands` random hands, and
/// the batch on the same hands (grouped by their wild kinds).
fn compare_with_search(wild_kinds: usize, seed: u64, hands: usize) {
    let mut rng = Rng(seed);
    let mut by_wilds: std::collections::BTreeMap<Vec<usize>, Vec<Row>> = Default::default();
    for _ in 0..hands {
        let wk = random_wilds(&mut rng, wild_kinds);
        let (c, n_melds) = random_hand(&mut rng, &wk);
        let wilds = wildcards(&wk);
        let mut natural = c;
        for &k in &wk {
            natural[k] = 0;
        }
        let capped = wk.is_empty();
        let std = [
            search_standard(&natural, n_melds, capped, false),
            search_standard(&natural, n_melds, capped, true),
        ];
        let mut wants = Vec::new();
        for rules in &RULE_SETS {
            let want = reference(&c, n_melds, &wk, rules, std[usize::from(rules.wind_sets)]);
            let got = shanten_counts(&c, n_melds, &wilds, rules).unwrap();
            assert_eq!(
                got,
                want,
                "hand {} + {n_melds} melds, wilds {wk:?}, {rules:?}",
                koudian_core::tile::format_counts(&c)
            );
            wants.push(want);
        }
        by_wilds
            .entry(wk)
            .or_default()
            .push((c, n_melds as u8, wants));
    }
    for (wk, rows) in by_wilds {
        let counts: Vec<Counts> = rows.iter().map(|r| r.0).collect();
        let melds: Vec<u8> = rows.iter().map(|r| r.1).collect();
        for (i, rules) in RULE_SETS.iter().enumerate() {
            let mut out = vec![0i8; rows.len()];
            shanten_batch(&counts, &melds, &wildcards(&wk), rules, &mut out, 1).unwrap();
            let want: Vec<i8> = rows.iter().map(|r| r.2[i]).collect();
            assert_eq!(out, want, "batch, wilds {wk:?}, {rules:?}");
        }
    }
}

#[test]
fn shanten_matches_search_without_wildcards() {
    compare_with_search(0, 1, 100_000);
}

#[test]
fn shanten_matches_search_with_one_wild_kind() {
    compare_with_search(1, 2, 100_000);
}

#[test]
fn shanten_matches_search_with_two_wild_kinds() {
    compare_with_search(2, 3, 100_000);
}

// --------------------------------- reference 2: draw and discard, slow

fn hand_of(c: &Counts, n_melds: usize) -> Hand {
    let mut h = Hand::new(*c, &[]).unwrap();
    for _ in 0..n_melds {
        h.push_meld(Meld::new(MeldKind::Pong, Tile::M1)).unwrap();
    }
    h
}

/// Whether a 14 − 3n hand reaches a win within `depth` draw-discard steps
/// (draws respect 4 physical copies in the concealed hand).
fn reaches_win(
    c: &mut Counts,
    n_melds: usize,
    wilds: &Wildcards,
    rules: &ShapeRules,
    depth: usize,
) -> bool {
    if is_win(c, n_melds, wilds, rules) {
        return true;
    }
    if depth == 0 {
        return false;
    }
    for x in 0..KINDS {
        if c[x] == 0 {
            continue;
        }
        c[x] -= 1;
        if reaches_one(c, n_melds, wilds, rules, depth - 1) {
            c[x] += 1;
            return true;
        }
        c[x] += 1;
    }
    false
}

/// Whether a 13 − 3n hand reaches a win by drawing and then at most
/// `depth` more draw-discard steps.
fn reaches_one(
    c: &mut Counts,
    n_melds: usize,
    wilds: &Wildcards,
    rules: &ShapeRules,
    depth: usize,
) -> bool {
    for t in 0..KINDS {
        if c[t] >= 4 {
            continue;
        }
        c[t] += 1;
        let ok = reaches_win(c, n_melds, wilds, rules, depth);
        c[t] -= 1;
        if ok {
            return true;
        }
    }
    false
}

fn draw_discard_shanten(
    c: &Counts,
    n_melds: usize,
    wilds: &Wildcards,
    rules: &ShapeRules,
    max: usize,
) -> Option<i8> {
    let mut c = *c;
    let total: usize = c.iter().map(|&n| n as usize).sum();
    let complete = total == 14 - 3 * n_melds;
    for s in 0..=max {
        let ok = if complete {
            reaches_win(&mut c, n_melds, wilds, rules, s)
        } else {
            reaches_one(&mut c, n_melds, wilds, rules, s)
        };
        if ok {
            return Some(s as i8 - i8::from(complete));
        }
    }
    None
}

#[test]
fn shanten_matches_draw_and_discard_search_near_complete() {
    let mut rng = Rng(7);
    let mut checked = 0;
    while checked < 150 {
        let kinds = rng.below(3);
        let wk = random_wilds(&mut rng, kinds);
        let (c, n_melds) = random_hand(&mut rng, &wk);
        let wilds = wildcards(&wk);
        let rules = RULE_SETS[rng.below(RULE_SETS.len())];
        let got = shanten_counts(&c, n_melds, &wilds, &rules).unwrap();
        if got > 0 {
            continue;
        }
        checked += 1;
        let want = draw_discard_shanten(&c, n_melds, &wilds, &rules, 1);
        assert_eq!(
            Some(got),
            want,
            "{} + {n_melds} melds, wilds {wk:?}, {rules:?}",
            koudian_core::tile::format_counts(&c)
        );
    }
}

// ------------------------------------------------------ fixed examples

fn sh(s: &str, wild: &[Tile], rules: ShapeRules) -> i8 {
    let c = counts_of(&parse(s).unwrap()).unwrap();
    let n: usize = c.iter().map(|&n| n as usize).sum();
    let n_melds = (14 - n) / 3;
    shanten_counts(&c, n_melds, &Wildcards::new(wild).unwrap(), &rules).unwrap()
}

#[test]
fn complete_hand_is_minus_one_and_ready_is_zero() {
    assert_eq!(sh("123m456p789s11122z", &[], ShapeRules::ALL), -1);
    assert_eq!(sh("123m456p789s1112z", &[], ShapeRules::ALL), 0);
    assert_eq!(sh("123m456p789s1113z", &[], ShapeRules::ALL), 0);
}

#[test]
fn fourteen_tile_shanten_is_best_after_one_discard() {
    let c = counts_of(&parse("123m456p789s1155z3m").unwrap()).unwrap();
    let s14 = shanten_counts(&c, 0, &Wildcards::NONE, &ShapeRules::ALL).unwrap();
    let mut best = i8::MAX;
    for k in 0..KINDS {
        if c[k] > 0 {
            let mut d = c;
            d[k] -= 1;
            best = best.min(shanten_counts(&d, 0, &Wildcards::NONE, &ShapeRules::ALL).unwrap());
        }
    }
    assert_eq!(s14, best);
    assert_eq!(s14, 0);
}

#[test]
fn seven_pairs_counts_a_four_of_a_kind_as_two_pairs() {
    let sp = ShapeRules {
        seven_pairs: true,
        ..ShapeRules::STANDARD_ONLY
    };
    assert_eq!(sh("1111m2233p5577s11z", &[], sp), -1);
    // Without seven pairs this hand is far from the standard shape.
    assert!(sh("1111m2233p5577s11z", &[], ShapeRules::STANDARD_ONLY) > 0);
    assert_eq!(sh("1111m2233p5577s1z", &[], sp), 0);
}

#[test]
fn thirteen_orphans_needs_the_option() {
    let to = ShapeRules {
        thirteen_orphans: true,
        ..ShapeRules::STANDARD_ONLY
    };
    assert_eq!(sh("19m19p19s1234567z1m", &[], to), -1);
    assert_eq!(sh("19m19p19s1234567z", &[], to), 0);
    assert!(sh("19m19p19s1234567z", &[], ShapeRules::STANDARD_ONLY) >= 6);
}

#[test]
fn wind_sets_make_mixed_winds_and_dragons_sets() {
    let ws = ShapeRules {
        wind_sets: true,
        ..ShapeRules::STANDARD_ONLY
    };
    assert_eq!(sh("123m456p123z567z11s", &[], ws), -1);
    assert!(sh("123m456p123z567z11s", &[], ShapeRules::STANDARD_ONLY) > 0);
    assert_eq!(sh("123m456p124z567z1s", &[], ws), 0);
}

#[test]
fn five_copies_cannot_be_needed_without_wildcards() {
    // 1111m waits only on a 5th 1m (as a single); other shapes need two.
    assert_eq!(sh("1111m234p567p789s", &[], ShapeRules::STANDARD_ONLY), 1);
    // With wildcards in the game a wild tile stands for the 5th 1m.
    assert_eq!(
        sh("1111m234p567p789s", &[Tile::RED], ShapeRules::STANDARD_ONLY),
        0
    );
}

#[test]
fn each_wild_tile_fills_one_missing_tile() {
    let red = [Tile::RED];
    assert_eq!(sh("1357m2468p1357s2z", &[], ShapeRules::ALL), 4);
    // Two 中 wild: both fill a missing tile.
    assert_eq!(sh("1357m2468p135s77z", &red, ShapeRules::ALL), 2);
}

#[test]
fn melds_count_as_sets() {
    let c = counts_of(&parse("123m4p").unwrap()).unwrap();
    assert_eq!(
        shanten_counts(&c, 3, &Wildcards::NONE, &ShapeRules::ALL).unwrap(),
        0
    );
    let h = Hand::from_tiles(
        &parse("123m44p").unwrap(),
        &[
            Meld::new(MeldKind::Pong, Tile::RED),
            Meld::new(MeldKind::ConcealedKong, Tile::EAST),
            Meld::new(MeldKind::Pong, Tile::M9),
        ],
    )
    .unwrap();
    assert_eq!(shanten(&h, &Wildcards::NONE, &ShapeRules::ALL).unwrap(), -1);
}

#[test]
fn bad_hands_are_errors_naming_the_problem() {
    let c = counts_of(&parse("123m456p789s11z").unwrap()).unwrap();
    let e = shanten_counts(&c, 0, &Wildcards::NONE, &ShapeRules::ALL).unwrap_err();
    assert!(e.to_string().contains("11 concealed tiles"), "{e}");
    let mut c5 = [0u8; KINDS];
    c5[0] = 5;
    c5[1] = 8;
    let e = shanten_counts(&c5, 0, &Wildcards::NONE, &ShapeRules::ALL).unwrap_err();
    assert!(e.to_string().contains("5 copies"), "{e}");
    let e = shanten_counts(&c, 5, &Wildcards::NONE, &ShapeRules::ALL).unwrap_err();
    assert!(e.to_string().contains("5 melds"), "{e}");
}

// ------------------------------------------------------------- batch

#[test]
fn batch_matches_single_calls_for_every_thread_count() {
    let mut rng = Rng(11);
    let wk = [5usize, 30];
    let wilds = wildcards(&wk);
    let mut counts = Vec::new();
    let mut melds = Vec::new();
    for _ in 0..20_000 {
        let (c, m) = random_hand(&mut rng, &wk);
        counts.push(c);
        melds.push(m as u8);
    }
    let want: Vec<i8> = counts
        .iter()
        .zip(&melds)
        .map(|(c, &m)| shanten_counts(c, m as usize, &wilds, &ShapeRules::ALL).unwrap())
        .collect();
    for threads in [0, 1, 2, 3] {
        let mut out = vec![0i8; counts.len()];
        shanten_batch(&counts, &melds, &wilds, &ShapeRules::ALL, &mut out, threads).unwrap();
        assert_eq!(out, want, "threads = {threads}");
    }
}

/// The batch works on blocks of rows at once: it must agree with single
/// calls for every shape option, 0-2 wild kinds, one meld count for all
/// rows or one per row, and batches whose length is not a whole number of
/// blocks.
#[test]
fn batch_matches_single_calls_for_every_option_and_length() {
    let mut rng = Rng(12);
    for kinds in (0..3).cycle().take(60) {
        for rules in &RULE_SETS {
            let wk = random_wilds(&mut rng, kinds);
            let wilds = wildcards(&wk);
            let len = 1 + rng.below(100);
            let shared = rng.below(2) == 0;
            let n_melds = rng.below(5);
            let mut counts = Vec::new();
            let mut melds = Vec::new();
            for _ in 0..len {
                let (c, m) = loop {
                    let (c, m) = random_hand(&mut rng, &wk);
                    if !shared || m == n_melds {
                        break (c, m);
                    }
                };
                counts.push(c);
                melds.push(m as u8);
            }
            let want: Vec<i8> = counts
                .iter()
                .zip(&melds)
                .map(|(c, &m)| shanten_counts(c, m as usize, &wilds, rules).unwrap())
                .collect();
            let melds = if shared { vec![melds[0]] } else { melds };
            let mut out = vec![0i8; len];
            shanten_batch(&counts, &melds, &wilds, rules, &mut out, 1).unwrap();
            assert_eq!(out, want, "wilds {wk:?}, {rules:?}, melds {melds:?}");
        }
    }
}

#[test]
fn batch_reports_the_first_bad_row() {
    let good = counts_of(&parse("123m456p789s1122z").unwrap()).unwrap();
    let bad = counts_of(&parse("123m").unwrap()).unwrap();
    let rows = vec![good, good, bad, good, bad];
    let mut out = vec![0i8; 5];
    let e =
        shanten_batch(&rows, &[0], &Wildcards::NONE, &ShapeRules::ALL, &mut out, 2).unwrap_err();
    assert!(e.to_string().starts_with("hand 2:"), "{e}");
    let e = shanten_batch(
        &rows,
        &[0, 0],
        &Wildcards::NONE,
        &ShapeRules::ALL,
        &mut out,
        1,
    )
    .unwrap_err();
    assert!(e.to_string().contains("n_melds"), "{e}");
    let e = shanten_batch(
        &rows,
        &[0],
        &Wildcards::NONE,
        &ShapeRules::ALL,
        &mut out[..3],
        1,
    )
    .unwrap_err();
    assert!(e.to_string().contains("output"), "{e}");
}

// ---------------------------------------------------------- properties

fn arb_hand(size: usize) -> impl Strategy<Value = Counts> {
    proptest::collection::vec(0usize..KINDS, 64).prop_map(move |picks| {
        let mut c = [0u8; KINDS];
        let mut n = 0;
        for k in picks {
            if n < size && c[k] < 4 {
                c[k] += 1;
                n += 1;
            }
        }
        c
    })
}

fn arb_wilds() -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![
        Just(vec![]),
        (0usize..KINDS).prop_map(|a| vec![a]),
        (0usize..KINDS, 1usize..KINDS).prop_map(|(a, d)| vec![a, (a + d) % KINDS])
    ]
}

fn arb_rules() -> impl Strategy<Value = ShapeRules> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(s, t, w)| ShapeRules {
        seven_pairs: s,
        thirteen_orphans: t,
        wind_sets: w,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn one_tile_swap_changes_shanten_by_at_most_one(c in arb_hand(13), out in 0usize..KINDS, inn in 0usize..KINDS,
            wk in arb_wilds(), rules in arb_rules()) {
        let held: Vec<usize> = (0..KINDS).filter(|&k| c[k] > 0).collect();
        let out = held[out % held.len()];
        let room: Vec<usize> = (0..KINDS).filter(|&k| c[k] < 4 && k != out).collect();
        let inn = room[inn % room.len()];
        let w = wildcards(&wk);
        let a = shanten_counts(&c, 0, &w, &rules).unwrap();
        let mut d = c;
        d[out] -= 1;
        d[inn] += 1;
        let b = shanten_counts(&d, 0, &w, &rules).unwrap();
        prop_assert!((a - b).abs() <= 1, "{a} vs {b}");
    }

    #[test]
    fn shanten_is_minus_one_iff_is_win(c in arb_hand(14), wk in arb_wilds(), rules in arb_rules()) {
        let w = wildcards(&wk);
        let s = shanten_counts(&c, 0, &w, &rules).unwrap();
        prop_assert_eq!(s == -1, is_win(&c, 0, &w, &rules));
    }

    #[test]
    fn shanten_is_minus_one_iff_is_win_near_complete(seed in any::<u64>(), wk in arb_wilds(), rules in arb_rules()) {
        let mut rng = Rng(seed);
        let (c, m) = sized_hand(&mut rng, &wk, 14);
        let w = wildcards(&wk);
        let s = shanten_counts(&c, m, &w, &rules).unwrap();
        prop_assert_eq!(s == -1, is_win(&c, m, &w, &rules));
    }

    /// Shanten 0 iff ready, except (stated in the module docs) a hand
    /// whose completing tiles can only be drawn as a 5th copy: without
    /// wildcards that needs a copy locked in the hand's melds, which these
    /// meld-free hands don't have; with wildcards only when every wild
    /// kind is held 4 times (no wild tile can be drawn).
    #[test]
    fn shanten_zero_iff_ready(seed in any::<u64>(), wk in arb_wilds(), rules in arb_rules()) {
        let mut rng = Rng(seed);
        let (c, m) = sized_hand(&mut rng, &wk, 13);
        let w = wildcards(&wk);
        let h = hand_of(&c, 0);
        let h = if m == 0 { h } else {
            // Melds of kinds the hand does not hold, so that they lock no
            // copy the hand could want.
            let mut h = Hand::new(c, &[]).unwrap();
            let free: Vec<usize> = (0..KINDS).filter(|&k| c[k] == 0 && !wk.contains(&k)).collect();
            for &k in free.iter().take(m) { h.push_meld(Meld::new(MeldKind::Pong, Tile::new(k as u8).unwrap())).unwrap(); }
            h
        };
        let s = shanten(&h, &w, &rules).unwrap();
        let ready = waits(&h, &w, &rules).unwrap().is_ready();
        let no_wild_drawable = !wk.is_empty() && wk.iter().all(|&k| c[k] == 4);
        if !no_wild_drawable {
            // Melds of unheld kinds may still hold a kind the hand wants
            // to complete; allow that case only when a meld kind is a
            // would-be wait.
            if s == 0 && !ready {
                let mut d = c;
                let locked = h.melds().iter().any(|ml| {
                    let k = ml.tile.index();
                    d[k] += 1;
                    let win = is_win(&d, m, &w, &rules);
                    d[k] -= 1;
                    win
                });
                prop_assert!(locked, "shanten 0 but not ready: {}", koudian_core::tile::format_counts(&c));
            } else {
                prop_assert_eq!(s == 0, ready);
            }
        }
    }
}

// ------------------------------------------------------------- tables

#[path = "../examples/gen_shanten_tables.rs"]
mod gen;

#[test]
fn committed_suit_table_equals_the_generator_output() {
    let committed: &[u8] = include_bytes!("../src/shanten/suit_tables.bin");
    assert_eq!(committed.len(), 2 * 4 * gen::N_KEYS);
    assert!(
        gen::generate() == committed,
        "regenerate with `cargo run --release --example gen_shanten_tables`"
    );
}
