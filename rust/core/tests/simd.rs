//! Every instruction-set path of the batch kernels (`koudian_core::simd`:
//! `is_win_batch`, `waits_batch`, `shanten_batch`) against the scalar
//! path and the brute-force searches (`shape_reference` for wins and
//! waits, `shanten_reference` for shanten), each path forced explicitly
//! with `simd::with_isa`, the scalar path included (a path this CPU lacks
//! is reported and skipped: the Python test `tests/test_simd.py` checks
//! that forcing it is refused). On x86-64 the AVX2 and AVX-512 kernels
//! run, on aarch64 the NEON ones (`scripts/test_aarch64.sh` runs this
//! file under qemu-user on an x86-64 host).

mod common;

mod shape_reference;

mod shanten_reference;

use koudian_core::shanten::shanten_batch;
use koudian_core::shape::{is_win_batch_checked, ShapeRules};
use koudian_core::simd::{with_isa, Isa};
use koudian_core::tile::Counts;
use koudian_core::waits::waits_batch_checked;
use shape_reference as r;

/// The paths this CPU runs (the paths it lacks each named on stderr):
/// on aarch64 NEON, which every aarch64 CPU has, always.
fn paths() -> Vec<Isa> {
    let v: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.available()).collect();
    for i in Isa::ALL {
        if !i.available() {
            eprintln!("this CPU lacks {i}: its kernels are not run here");
        }
    }
    if cfg!(target_arch = "aarch64") {
        assert_eq!(v, [Isa::Scalar, Isa::Neon]);
    }
    v
}

/// `is_win_batch_checked` on `isa`, one thread: answers and validity.
fn batch_on(
    isa: Isa,
    rows: &[Counts],
    melds: &[u8],
    wilds: &[usize],
    rules: &ShapeRules,
) -> (Vec<bool>, bool) {
    let mut out = vec![false; rows.len()];
    let w = r::wildcards(wilds);
    let ok = with_isa(isa, || {
        is_win_batch_checked(rows, melds, &w, rules, &mut out, 1)
    })
    .expect("a path this CPU has")
    .expect("a batch of matching lengths");
    (out, ok)
}

/// Blocks of 4,099 seeded hands (not a multiple of 8 or 16: the kernels'
/// tails run too), each block with the wild kinds of its first sample,
/// for every shape option set: every path against the brute-force search.
fn against_reference(n_wild: usize, blocks: usize) {
    let isas = paths();
    let mut wins = 0;
    for (o, rules) in r::all_rules().into_iter().enumerate() {
        let mut rng = r::Rng(0x51D ^ (n_wild as u64) << 12 ^ o as u64);
        for _ in 0..blocks {
            let first = r::sample(&mut rng, 14, n_wild, rules.wind_sets);
            let wilds = first.wilds.clone();
            let mut rows = vec![first.concealed];
            let mut melds = vec![first.n_melds as u8];
            while rows.len() < 4099 {
                let s = r::sample(&mut rng, 14, 0, rules.wind_sets);
                rows.push(s.concealed);
                melds.push(s.n_melds as u8);
            }
            let want: Vec<bool> = rows
                .iter()
                .zip(&melds)
                .map(|(c, &m)| r::win(c, usize::from(m), &wilds, &rules))
                .collect();
            wins += want.iter().filter(|&&x| x).count();
            for &isa in &isas {
                let (got, ok) = batch_on(isa, &rows, &melds, &wilds, &rules);
                assert!(ok, "{isa}: every sample is a valid hand");
                for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(
                        g,
                        w,
                        "{isa}: {} melds {} wilds {wilds:?} {rules:?}",
                        koudian_core::tile::format_counts(&rows[i]),
                        melds[i]
                    );
                }
            }
        }
    }
    assert!(wins > blocks * 8 * 600, "{wins} wins: too few to test");
}

#[test]
fn is_win_kernels_match_brute_force_without_wildcards() {
    against_reference(0, 4);
}

#[test]
fn is_win_kernels_match_brute_force_with_one_wild_kind() {
    against_reference(1, 4);
}

#[test]
fn is_win_kernels_match_brute_force_with_two_wild_kinds() {
    against_reference(2, 4);
}

/// A seeded row of any kind: a sample hand, its counts disturbed (a tile
/// more or less, a count above 4, any byte), with 0-4 melds or a bad
/// meld count.
fn any_row(rng: &mut r::Rng) -> (Counts, u8) {
    let wind_sets = rng.below(2) == 0;
    let s = r::sample(rng, 14, 0, wind_sets);
    let mut c = s.concealed;
    let mut m = s.n_melds as u8;
    match rng.below(16) {
        0 => c[rng.below(34)] += 1,
        1 => {
            let k = rng.below(34);
            c[k] = c[k].saturating_sub(1);
        }
        2 => c[rng.below(34)] = 5 + rng.below(251) as u8,
        3 => m = 5 + rng.below(251) as u8,
        _ => {}
    }
    (c, m)
}

/// Two million rows per wild count (valid and invalid, every shape
/// option set, per-row and shared meld counts): every path equals the
/// scalar path row for row and on the all-valid flag.
#[test]
fn is_win_kernels_match_the_scalar_path_on_millions_of_rows() {
    let isas = paths();
    let mut rng = r::Rng(0xA11_5EED);
    let wild_sets: [&[usize]; 7] = [&[], &[31], &[8], &[30, 33], &[26, 27], &[0, 17], &[13, 22]];
    let rules = r::all_rules();
    let mut rows_checked = 0usize;
    for round in 0..(2_000_000 * 3 / 20_000) {
        let wilds = wild_sets[round % wild_sets.len()];
        let rule = rules[round % rules.len()];
        let (rows, melds): (Vec<Counts>, Vec<u8>) = (0..20_000).map(|_| any_row(&mut rng)).unzip();
        let shared = [melds[0]];
        let ms: &[u8] = if round.is_multiple_of(3) {
            &shared
        } else {
            &melds
        };
        let want = batch_on(Isa::Scalar, &rows, ms, wilds, &rule);
        for &isa in &isas {
            assert_eq!(
                batch_on(isa, &rows, ms, wilds, &rule),
                want,
                "{isa} {wilds:?} {rule:?}"
            );
        }
        rows_checked += rows.len();
    }
    assert_eq!(rows_checked, 6_000_000);
}

/// Threads hand the caller's path to their helpers: the same answers
/// with 1 and 2 threads on every path.
#[test]
fn paths_are_kept_across_threads() {
    let mut rng = r::Rng(7);
    let (rows, melds): (Vec<Counts>, Vec<u8>) = (0..100_003).map(|_| any_row(&mut rng)).unzip();
    let w = r::wildcards(&[31]);
    for isa in paths() {
        let mut one = vec![false; rows.len()];
        let mut two = vec![true; rows.len()];
        with_isa(isa, || {
            let a = is_win_batch_checked(&rows, &melds, &w, &ShapeRules::ALL, &mut one, 1).unwrap();
            let b = is_win_batch_checked(&rows, &melds, &w, &ShapeRules::ALL, &mut two, 2).unwrap();
            assert_eq!(a, b);
        })
        .unwrap();
        assert_eq!(one, two, "{isa}");
    }
}

/// `waits_batch_checked` on `isa`, one thread: wait masks and validity.
fn waits_on(
    isa: Isa,
    rows: &[Counts],
    melds: &[u8],
    held: &[Counts],
    wilds: &[usize],
    rules: &ShapeRules,
) -> (Vec<u64>, bool) {
    let mut out = vec![0u64; rows.len()];
    let w = r::wildcards(wilds);
    let ok = with_isa(isa, || {
        waits_batch_checked(rows, melds, held, &w, rules, &mut out, 1)
    })
    .expect("a path this CPU has")
    .expect("a batch of matching lengths");
    (out, ok)
}

/// Blocks of 4,099 seeded 13-tile hands with their own held tiles (melds
/// included, for the 4-copy limit), each block with the wild kinds of its
/// first sample, for every shape option set: every path's wait masks
/// against the brute-force search over the 34 draws.
fn waits_against_reference(n_wild: usize, blocks: usize) {
    let isas = paths();
    let mut ready = 0;
    for (o, rules) in r::all_rules().into_iter().enumerate() {
        let mut rng = r::Rng(0x3A17 ^ (n_wild as u64) << 12 ^ o as u64);
        for _ in 0..blocks {
            let first = r::sample(&mut rng, 13, n_wild, rules.wind_sets);
            let wilds = first.wilds.clone();
            let mut samples = vec![first];
            while samples.len() < 4099 {
                samples.push(r::sample(&mut rng, 13, 0, rules.wind_sets));
            }
            let rows: Vec<Counts> = samples.iter().map(|s| s.concealed).collect();
            let held: Vec<Counts> = samples.iter().map(|s| s.held).collect();
            let melds: Vec<u8> = samples.iter().map(|s| s.n_melds as u8).collect();
            let want: Vec<u64> = samples
                .iter()
                .map(|s| {
                    r::waits(&s.concealed, &s.held, s.n_melds, &wilds, &rules)
                        .iter()
                        .fold(0u64, |m, &(k, _)| m | 1 << k)
                })
                .collect();
            ready += want.iter().filter(|&&x| x != 0).count();
            for &isa in &isas {
                let (got, ok) = waits_on(isa, &rows, &melds, &held, &wilds, &rules);
                assert!(ok, "{isa}: every sample is a valid hand");
                for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(
                        g,
                        w,
                        "{isa}: {} melds {} wilds {wilds:?} {rules:?}",
                        koudian_core::tile::format_counts(&rows[i]),
                        melds[i]
                    );
                }
            }
        }
    }
    assert!(
        ready > blocks * 8 * 800,
        "{ready} ready hands: too few to test"
    );
}

#[test]
fn waits_kernels_match_brute_force_without_wildcards() {
    waits_against_reference(0, 1);
}

#[test]
fn waits_kernels_match_brute_force_with_one_wild_kind() {
    waits_against_reference(1, 1);
}

#[test]
fn waits_kernels_match_brute_force_with_two_wild_kinds() {
    waits_against_reference(2, 1);
}

/// A seeded 13-tile row of any kind (as [`any_row`]), with the sample's
/// held tiles.
fn any_row13(rng: &mut r::Rng) -> (Counts, u8, Counts) {
    let wind_sets = rng.below(2) == 0;
    let s = r::sample(rng, 13, 0, wind_sets);
    let mut c = s.concealed;
    let mut m = s.n_melds as u8;
    match rng.below(16) {
        0 => c[rng.below(34)] += 1,
        1 => {
            let k = rng.below(34);
            c[k] = c[k].saturating_sub(1);
        }
        2 => c[rng.below(34)] = 5 + rng.below(251) as u8,
        3 => m = 5 + rng.below(251) as u8,
        _ => {}
    }
    (c, m, s.held)
}

/// Two million rows per wild count (valid and invalid, every shape
/// option set, per-row and shared meld counts, with and without held
/// rows, several wild sets of each count): every path's wait masks and
/// all-valid flag equal the scalar path's.
#[test]
fn waits_kernels_match_the_scalar_path_on_millions_of_rows() {
    let isas = paths();
    let mut rng = r::Rng(0x3A17_5EED);
    // Per wild count, sets that reach every kind of place in a row: the
    // ninth digit of a suit, an honor in each word, a low digit.
    let wild_sets: [&[&[usize]]; 3] = [
        &[&[]],
        &[&[31], &[8], &[30], &[0]],
        &[&[31, 33], &[26, 27], &[0, 17], &[13, 22]],
    ];
    let rules = r::all_rules();
    let mut rows_checked = [0usize; 3];
    for round in 0..(2_000_000 * 3 / 20_000) {
        let sets = wild_sets[round % 3];
        let wilds = sets[(round / 3) % sets.len()];
        let rule = rules[(round / 3) % rules.len()];
        let rows: Vec<(Counts, u8, Counts)> = (0..20_000).map(|_| any_row13(&mut rng)).collect();
        let counts: Vec<Counts> = rows.iter().map(|x| x.0).collect();
        let melds: Vec<u8> = rows.iter().map(|x| x.1).collect();
        let held: Vec<Counts> = rows.iter().map(|x| x.2).collect();
        let shared = [melds[0]];
        let ms: &[u8] = if round.is_multiple_of(3) {
            &shared
        } else {
            &melds
        };
        let hs: &[Counts] = if round % 4 < 2 { &held } else { &[] };
        let want = waits_on(Isa::Scalar, &counts, ms, hs, wilds, &rule);
        for &isa in &isas {
            assert_eq!(
                waits_on(isa, &counts, ms, hs, wilds, &rule),
                want,
                "{isa} {wilds:?} {rule:?}"
            );
        }
        rows_checked[wilds.len()] += counts.len();
    }
    assert_eq!(rows_checked, [2_000_000; 3]);
}

/// Threads hand the caller's path to their helpers (waits): the same
/// answers with 1 and 2 threads on every path.
#[test]
fn waits_paths_are_kept_across_threads() {
    let mut rng = r::Rng(8);
    let rows: Vec<(Counts, u8, Counts)> = (0..100_003).map(|_| any_row13(&mut rng)).collect();
    let counts: Vec<Counts> = rows.iter().map(|x| x.0).collect();
    let melds: Vec<u8> = rows.iter().map(|x| x.1).collect();
    let w = r::wildcards(&[31]);
    for isa in paths() {
        let mut one = vec![0u64; counts.len()];
        let mut two = vec![1u64; counts.len()];
        with_isa(isa, || {
            let a = waits_batch_checked(&counts, &melds, &[], &w, &ShapeRules::ALL, &mut one, 1);
            let b = waits_batch_checked(&counts, &melds, &[], &w, &ShapeRules::ALL, &mut two, 2);
            assert_eq!(a.unwrap(), b.unwrap());
        })
        .unwrap();
        assert_eq!(one, two, "{isa}");
    }
}

/// `shanten_batch` on `isa` with `threads`: the answers, or the error's
/// message (a bad row's).
fn shanten_on(
    isa: Isa,
    rows: &[Counts],
    melds: &[u8],
    wilds: &[usize],
    rules: &ShapeRules,
    threads: usize,
) -> Result<Vec<i8>, String> {
    let mut out = vec![0i8; rows.len()];
    let w = r::wildcards(wilds);
    with_isa(isa, || {
        shanten_batch(rows, melds, &w, rules, &mut out, threads)
    })
    .expect("a path this CPU has")
    .map(|()| out)
    .map_err(|e| e.to_string())
}

/// 20,000 seeded hands per wild count (13 or 14 tiles less 3 per meld,
/// 0-4 melds, wild kinds given extra copies), in ten batches of their own
/// wild kinds (and the hands without melds in a batch of their own, one
/// meld count for all), for each of five shape option sets: every path's
/// shanten against the exhaustive search of `shanten_reference`.
fn shanten_against_search(n_wild: usize) {
    use shanten_reference as s;
    let isas = paths();
    let mut rng = r::Rng(0x5A47 ^ (n_wild as u64) << 8);
    let mut low = 0;
    for _ in 0..10 {
        let wk = s::random_wilds(&mut rng, n_wild);
        let hands: Vec<(Counts, usize)> =
            (0..2000).map(|_| s::random_hand(&mut rng, &wk)).collect();
        let rows: Vec<Counts> = hands.iter().map(|h| h.0).collect();
        let melds: Vec<u8> = hands.iter().map(|h| h.1 as u8).collect();
        let std: Vec<[usize; 2]> = hands
            .iter()
            .map(|(c, m)| {
                let mut natural = *c;
                for &k in &wk {
                    natural[k] = 0;
                }
                let capped = wk.is_empty();
                [false, true].map(|ws| s::search_standard(&natural, *m, capped, ws))
            })
            .collect();
        for rules in &s::RULE_SETS {
            let want: Vec<i8> = hands
                .iter()
                .zip(&std)
                .map(|((c, m), st)| {
                    s::reference(c, *m, &wk, rules, st[usize::from(rules.wind_sets)])
                })
                .collect();
            low += want.iter().filter(|&&x| x <= 0).count();
            // The hands without melds as a batch of their own with one
            // meld count for all (the AVX2 kernel's 32-lane products).
            let bare: Vec<usize> = (0..rows.len()).filter(|&i| melds[i] == 0).collect();
            let bare_rows: Vec<Counts> = bare.iter().map(|&i| rows[i]).collect();
            let bare_want: Vec<i8> = bare.iter().map(|&i| want[i]).collect();
            for &isa in &isas {
                let got = shanten_on(isa, &bare_rows, &[0], &wk, rules, 1).expect("valid hands");
                assert_eq!(got, bare_want, "{isa}: no melds, wilds {wk:?} {rules:?}");
                let got = shanten_on(isa, &rows, &melds, &wk, rules, 1).expect("valid hands");
                for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(
                        g,
                        w,
                        "{isa}: {} melds {} wilds {wk:?} {rules:?}",
                        koudian_core::tile::format_counts(&rows[i]),
                        melds[i]
                    );
                }
            }
        }
    }
    assert!(
        low > 10_000,
        "{low} ready or complete hands: too few to test"
    );
}

#[test]
fn shanten_kernels_match_search_without_wildcards() {
    shanten_against_search(0);
}

#[test]
fn shanten_kernels_match_search_with_one_wild_kind() {
    shanten_against_search(1);
}

#[test]
fn shanten_kernels_match_search_with_two_wild_kinds() {
    shanten_against_search(2);
}

/// Two million rows per wild count (every shape option set, per-row meld
/// counts and one shared count, several wild sets of each count, now and
/// then a bad row: a count of 5, a tile too many or too few, 5 melds):
/// every path's answers, or its error naming the first bad row, equal
/// the scalar path's; one thread and two.
#[test]
fn shanten_kernels_match_the_scalar_path_on_millions_of_rows() {
    use shanten_reference as s;
    let isas = paths();
    let mut rng = r::Rng(0x5A47_5EED);
    let wild_sets: [&[&[usize]]; 3] = [
        &[&[]],
        &[&[31], &[8], &[30], &[0], &[13]],
        &[&[31, 33], &[26, 27], &[0, 17], &[13, 22], &[4, 29]],
    ];
    let rules = r::all_rules();
    let mut rows_checked = [0usize; 3];
    let mut errors = 0;
    for round in 0..(2_000_000 * 3 / 20_000) {
        let sets = wild_sets[round % 3];
        let wilds = sets[(round / 3) % sets.len()];
        let rule = rules[(round / 3) % rules.len()];
        let shared = round % 4 == 0;
        let mut rows = Vec::with_capacity(20_000);
        let mut melds = Vec::with_capacity(20_000);
        while rows.len() < 20_000 {
            let (c, m) = s::random_hand(&mut rng, wilds);
            if !shared || m == 0 {
                rows.push(c);
                melds.push(m as u8);
            }
        }
        if round % 5 == 1 {
            let i = rng.below(rows.len());
            match rng.below(4) {
                0 => rows[i][rng.below(34)] = 5,
                1 => rows[i][rng.below(34)] += 1,
                2 => {
                    let k = (0..34).find(|&k| rows[i][k] > 0).unwrap();
                    rows[i][k] -= 1;
                    let k = (0..34).find(|&k| rows[i][k] > 0).unwrap();
                    rows[i][k] -= 1;
                }
                _ => melds[i] = 5,
            }
        }
        let ms: &[u8] = if shared { &[0] } else { &melds };
        let threads = 1 + round % 2;
        let want = shanten_on(Isa::Scalar, &rows, ms, wilds, &rule, threads);
        errors += usize::from(want.is_err());
        for &isa in &isas {
            assert_eq!(
                shanten_on(isa, &rows, ms, wilds, &rule, threads),
                want,
                "{isa} {wilds:?} {rule:?}"
            );
        }
        rows_checked[wilds.len()] += rows.len();
    }
    assert_eq!(rows_checked, [2_000_000; 3]);
    assert!(errors >= 30, "{errors} batches with a bad row");
}
