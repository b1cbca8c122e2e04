//! Decompositions (docs/rules.md §2): `decompose` against a brute-force
//! enumeration of set multisets, plus named cases. Listing rule (see the
//! `shape::decompose` docs): every set and pair holds a natural tile,
//! except all-wild ones, reported as the filler kind (the lowest-index wild
//! kind held) standing for itself; an all-wild pair is listed once, as the
//! filler pair, not once per kind two wild tiles could stand for.

mod common;

mod shape_reference;

use koudian_core::hand::{Hand, Meld, MeldKind};
use koudian_core::shape::{decompose, is_win, Decomposition, Set, Shape, ShapeRules};
use koudian_core::tile::{counts_of, parse, Counts, Tile};
use koudian_core::Wildcards;
use proptest::prelude::*;
use shape_reference as r;
use std::collections::BTreeSet;

fn t(i: usize) -> Tile {
    Tile::new(i as u8).unwrap()
}

/// A unit of a decomposition: its kinds and how it is reported.
#[derive(Clone, Copy)]
struct Unit {
    kinds: [usize; 3],
    set: Set,
}

fn units(wind_sets: bool) -> Vec<Unit> {
    let mut v: Vec<Unit> = (0..34)
        .map(|k| Unit {
            kinds: [k; 3],
            set: Set::Triplet(t(k)),
        })
        .collect();
    for m in r::mixed_sets(wind_sets) {
        let set = if m[0] < 27 {
            Set::Sequence(t(m[0]))
        } else {
            Set::Honors([t(m[0]), t(m[1]), t(m[2])])
        };
        v.push(Unit { kinds: *m, set });
    }
    v
}

/// Whether each non-filler group (a list of kinds) can be given its own
/// natural tile.
fn anchored(groups: &[Vec<usize>], natural: &Counts, filler: Option<usize>) -> bool {
    fn rec(groups: &[Vec<usize>], left: &mut [u8; 34], filler: Option<usize>) -> bool {
        let Some((g, rest)) = groups.split_first() else {
            return true;
        };
        if g.iter().all(|&k| Some(k) == filler) {
            return rec(rest, left, filler);
        }
        let mut kinds = g.clone();
        kinds.dedup();
        for k in kinds {
            if left[k] > 0 {
                left[k] -= 1;
                let ok = rec(rest, left, filler);
                left[k] += 1;
                if ok {
                    return true;
                }
            }
        }
        false
    }
    let mut left = *natural;
    rec(groups, &mut left, filler)
}

fn extra(total: &[u8; 34], natural: &Counts) -> u32 {
    (0..34)
        .map(|k| total[k].saturating_sub(natural[k]) as u32)
        .sum()
}

fn wild_as(total: &[u8; 34], natural: &Counts) -> Vec<Tile> {
    let mut v = Vec::new();
    for k in 0..34 {
        for _ in natural[k]..total[k] {
            v.push(t(k));
        }
    }
    v
}

/// All decompositions by enumerating multisets of units, pruned by the
/// wild budget, then filtered by coverage and anchoring.
fn reference(
    c: &Counts,
    n_melds: usize,
    wilds: &[usize],
    rules: &ShapeRules,
) -> BTreeSet<Decomposition> {
    let (natural, w) = r::split(c, wilds);
    let filler = wilds.iter().copied().filter(|&k| c[k] > 0).min();
    let mut out = BTreeSet::new();
    let us = units(rules.wind_sets);
    let n_sets = 4 - n_melds;
    let mut chosen: Vec<usize> = Vec::new();
    #[allow(clippy::too_many_arguments)]
    fn rec(
        us: &[Unit],
        from: usize,
        n_sets: usize,
        chosen: &mut Vec<usize>,
        total: &mut [u8; 34],
        natural: &Counts,
        w: u32,
        filler: Option<usize>,
        out: &mut BTreeSet<Decomposition>,
    ) {
        if extra(total, natural) > w {
            return;
        }
        if chosen.len() == n_sets {
            for p in 0..34 {
                total[p] += 2;
                if extra(total, natural) == w && (0..34).all(|k| natural[k] <= total[k]) {
                    let mut groups: Vec<Vec<usize>> =
                        chosen.iter().map(|&u| us[u].kinds.to_vec()).collect();
                    groups.push(vec![p, p]);
                    // Two wild tiles can stand for the pair's kind while
                    // the sets keep its natural tiles: an all-wild pair,
                    // reported once, as the filler pair.
                    let all_wild_pair = Some(p) != filler && total[p] >= natural[p] + 2;
                    if anchored(&groups, natural, filler) && !all_wild_pair {
                        let mut sets: Vec<Set> = chosen.iter().map(|&u| us[u].set).collect();
                        sets.sort();
                        out.insert(Decomposition {
                            shape: Shape::Standard,
                            sets,
                            pairs: vec![t(p)],
                            wild_as: wild_as(total, natural),
                        });
                    }
                }
                total[p] -= 2;
            }
            return;
        }
        for u in from..us.len() {
            for &k in &us[u].kinds {
                total[k] += 1;
            }
            chosen.push(u);
            rec(us, u, n_sets, chosen, total, natural, w, filler, out);
            chosen.pop();
            for &k in &us[u].kinds {
                total[k] -= 1;
            }
        }
    }
    let mut total = [0u8; 34];
    rec(
        &us,
        0,
        n_sets,
        &mut chosen,
        &mut total,
        &natural,
        w as u32,
        filler,
        &mut out,
    );
    if n_melds == 0 && rules.seven_pairs {
        fn pairs(
            from: usize,
            chosen: &mut Vec<usize>,
            total: &mut [u8; 34],
            natural: &Counts,
            w: u32,
            filler: Option<usize>,
            out: &mut BTreeSet<Decomposition>,
        ) {
            if extra(total, natural) > w {
                return;
            }
            if chosen.len() == 7 {
                let groups: Vec<Vec<usize>> = chosen.iter().map(|&k| vec![k, k]).collect();
                if (0..34).all(|k| natural[k] <= total[k]) && anchored(&groups, natural, filler) {
                    out.insert(Decomposition {
                        shape: Shape::SevenPairs,
                        sets: vec![],
                        pairs: chosen.iter().map(|&k| t(k)).collect(),
                        wild_as: wild_as(total, natural),
                    });
                }
                return;
            }
            for k in from..34 {
                total[k] += 2;
                chosen.push(k);
                pairs(k, chosen, total, natural, w, filler, out);
                chosen.pop();
                total[k] -= 2;
            }
        }
        pairs(
            0,
            &mut Vec::new(),
            &mut [0u8; 34],
            &natural,
            w as u32,
            filler,
            &mut out,
        );
    }
    if n_melds == 0 && rules.thirteen_orphans {
        for &p in &r::ORPHANS {
            let mut total = [0u8; 34];
            for &k in &r::ORPHANS {
                total[k] = 1;
            }
            total[p] = 2;
            if (0..34).all(|k| natural[k] <= total[k]) {
                out.insert(Decomposition {
                    shape: Shape::ThirteenOrphans,
                    sets: vec![],
                    pairs: vec![t(p)],
                    wild_as: wild_as(&total, &natural),
                });
            }
        }
    }
    out
}

fn hand(c: &Counts, n_melds: usize) -> Hand {
    // Melds are pongs of kinds the hand does not hold 2+ of; only their
    // number matters to the shape.
    let mut melds = Vec::new();
    let mut k = 0;
    while melds.len() < n_melds {
        if c[k] <= 1 {
            melds.push(Meld::new(MeldKind::Pong, t(k)));
        }
        k += 1;
    }
    Hand::new(*c, &melds).unwrap()
}

fn against_reference(n_wild: usize, n: usize, seed: u64) {
    let mut rng = r::Rng(seed);
    let mut checked = 0;
    let mut multi = 0;
    while checked < n {
        let rules = r::all_rules()[rng.below(8)];
        let s = r::sample(&mut rng, 14, n_wild, rules.wind_sets);
        let wilds = r::wildcards(&s.wilds);
        let h = hand(&s.concealed, s.n_melds);
        let got = decompose(&h, &wilds, &rules);
        assert_eq!(
            !got.is_empty(),
            is_win(&s.concealed, s.n_melds, &wilds, &rules)
        );
        if got.is_empty() {
            continue;
        }
        let want = reference(&s.concealed, s.n_melds, &s.wilds, &rules);
        let got_set: BTreeSet<Decomposition> = got.iter().cloned().collect();
        assert_eq!(got_set.len(), got.len(), "duplicates");
        assert!(
            got_set == want,
            "{} melds {} wilds {:?} {:?}: extra {:?}, missing {:?}",
            koudian_core::tile::format_counts(&s.concealed),
            s.n_melds,
            s.wilds,
            rules,
            got_set.difference(&want).collect::<Vec<_>>(),
            want.difference(&got_set).collect::<Vec<_>>()
        );
        for d in &got {
            assert_eq!(d.wild_as.len() as u8, r::split(&s.concealed, &s.wilds).1);
        }
        checked += 1;
        multi += (got.len() > 1) as usize;
    }
    assert!(
        multi > n / 200,
        "only {multi} hands with several decompositions"
    );
}

#[test]
fn matches_brute_force_without_wildcards() {
    against_reference(0, 20_000, 1);
}

#[test]
fn matches_brute_force_with_one_wild_kind() {
    against_reference(1, 3_000, 2);
}

#[test]
fn matches_brute_force_with_two_wild_kinds() {
    against_reference(2, 1_500, 3);
}

fn parse_hand(s: &str) -> Hand {
    Hand::new(counts_of(&parse(s).unwrap()).unwrap(), &[]).unwrap()
}

fn wl(s: &[&str]) -> Wildcards {
    Wildcards::new(
        &s.iter()
            .map(|x| Tile::from_notation(x).unwrap())
            .collect::<Vec<_>>(),
    )
    .unwrap()
}

fn tl(s: &str) -> Tile {
    Tile::from_notation(s).unwrap()
}

#[test]
fn every_distinct_arrangement_is_listed() {
    // 111222333m: three triplets or three 123m sequences.
    let ds = decompose(
        &parse_hand("111222333m456p77z"),
        &Wildcards::NONE,
        &ShapeRules::STANDARD_ONLY,
    );
    assert_eq!(ds.len(), 2);
    assert!(ds.iter().any(|d| d
        .sets
        .iter()
        .filter(|s| matches!(s, Set::Triplet(_)))
        .count()
        == 3));
    assert!(ds.iter().any(|d| d
        .sets
        .iter()
        .filter(|s| **s == Set::Sequence(Tile::M1))
        .count()
        == 3));
}

#[test]
fn seven_pairs_and_standard_both_listed() {
    let ds = decompose(
        &parse_hand("112233m445566p77z"),
        &Wildcards::NONE,
        &ShapeRules::ALL,
    );
    assert!(ds.iter().any(|d| d.shape == Shape::SevenPairs));
    assert!(ds.iter().any(|d| d.shape == Shape::Standard));
    let sp: Vec<_> = decompose(
        &parse_hand("1111m3344p5566s77z"),
        &Wildcards::NONE,
        &ShapeRules::ALL,
    );
    // A quad is two pairs of its kind.
    assert_eq!(sp.len(), 1);
    assert_eq!(sp[0].pairs.iter().filter(|&&p| p == Tile::M1).count(), 2);
}

#[test]
fn wild_assignments_are_listed() {
    // 5m + two wild 中: 555m, 345m, 456m, 567m.
    let ds = decompose(
        &parse_hand("5m123p456p789p11z77z"),
        &wl(&["7z"]),
        &ShapeRules::STANDARD_ONLY,
    );
    let sets_5m: BTreeSet<Set> = ds
        .iter()
        .flat_map(|d| d.sets.iter().copied())
        .filter(|s| !matches!(s, Set::Sequence(x) if x.index() >= 9 && x.index() < 18))
        .collect();
    assert!(sets_5m.contains(&Set::Triplet(tl("5m"))));
    assert!(sets_5m.contains(&Set::Sequence(tl("3m"))));
    assert!(sets_5m.contains(&Set::Sequence(tl("4m"))));
    assert!(sets_5m.contains(&Set::Sequence(tl("5m"))));
    let d = ds
        .iter()
        .find(|d| d.sets.contains(&Set::Sequence(tl("3m"))))
        .unwrap();
    assert_eq!(d.wild_as, vec![tl("3m"), tl("4m")]);
}

#[test]
fn all_wild_sets_are_triplets_of_the_lowest_wild_kind_held() {
    // 中中中 and 白 wild but no 白 held: the all-wild set is 中中中.
    let ds = decompose(
        &parse_hand("123m456p789s11z777z"),
        &wl(&["7z", "5z"]),
        &ShapeRules::STANDARD_ONLY,
    );
    assert!(!ds.is_empty());
    for d in &ds {
        assert!(d.sets.iter().all(|s| *s != Set::Triplet(tl("5z"))));
    }
    assert!(ds.iter().any(|d| d.sets.contains(&Set::Triplet(tl("7z")))));
    // Holding both, the filler is 白 (lower index).
    let ds = decompose(
        &parse_hand("123m456p789s11z577z"),
        &wl(&["7z", "5z"]),
        &ShapeRules::STANDARD_ONLY,
    );
    assert!(ds.iter().any(|d| d.sets.contains(&Set::Triplet(tl("5z")))));
    assert!(ds.iter().all(|d| !d.sets.contains(&Set::Triplet(tl("7z")))));
}

#[test]
fn not_a_win_or_wrong_size_gives_nothing() {
    assert!(decompose(
        &parse_hand("123m456p789s11123z"),
        &Wildcards::NONE,
        &ShapeRules::STANDARD_ONLY
    )
    .is_empty());
    assert!(decompose(
        &parse_hand("123m456p789s1112z"),
        &Wildcards::NONE,
        &ShapeRules::ALL
    )
    .is_empty());
}

#[test]
fn wind_sets_are_reported_as_honor_sets() {
    let ds = decompose(
        &parse_hand("123m456p789s55z124z"),
        &Wildcards::NONE,
        &ShapeRules::ALL,
    );
    assert_eq!(ds.len(), 1);
    assert!(ds[0]
        .sets
        .contains(&Set::Honors([Tile::EAST, Tile::SOUTH, Tile::NORTH])));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn decompositions_rebuild_the_hand(seed in any::<u64>(), n_wild in 0usize..=2, opts in 0usize..8) {
        let rules = r::all_rules()[opts];
        let mut rng = r::Rng(seed);
        let s = r::sample(&mut rng, 14, n_wild, rules.wind_sets);
        let h = hand(&s.concealed, s.n_melds);
        let (natural, _) = r::split(&s.concealed, &s.wilds);
        for d in decompose(&h, &r::wildcards(&s.wilds), &rules) {
            // Sets + pairs, in natural kinds, = natural tiles + wild_as.
            let mut total = [0u8; 34];
            for set in &d.sets {
                match *set {
                    Set::Triplet(x) => total[x.index()] += 3,
                    Set::Sequence(x) => for k in 0..3 { total[x.index() + k] += 1 },
                    Set::Honors(ks) => for x in ks { total[x.index()] += 1 },
                }
            }
            for p in &d.pairs {
                total[p.index()] += 2;
            }
            if d.shape == Shape::ThirteenOrphans {
                total = [0u8; 34];
                for &k in &r::ORPHANS { total[k] = 1; }
                total[d.pairs[0].index()] += 1;
            }
            let mut rebuilt = natural;
            for x in &d.wild_as {
                rebuilt[x.index()] += 1;
            }
            prop_assert_eq!(rebuilt, total);
        }
    }
}

/// The all-wild pair is listed once, as the filler kind (1z standing for
/// itself), not once per kind two wild tiles could stand for: each
/// decomposition's pair differs, and none of 11m, 55z, 99s… repeats the
/// filler pair's sets.
#[test]
fn all_wild_pair_is_reported_once_as_the_filler() {
    let wilds = Wildcards::new(&[Tile::EAST]).unwrap();
    let rules = ShapeRules::from(&koudian_core::Ruleset::shanxi());
    let ds = decompose(&parse_hand("123m456p789s11z555z"), &wilds, &rules);
    let filler: Vec<_> = ds.iter().filter(|d| d.pairs == [Tile::EAST]).collect();
    assert_eq!(filler.len(), 1);
    let plain = filler[0].sets.clone();
    assert!(ds.iter().filter(|d| d.sets == plain).count() == 1, "{ds:?}");
    assert_eq!(ds.len(), 5, "{ds:?}");
}
