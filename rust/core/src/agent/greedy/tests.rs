//! Unit tests of the fast evaluator's parts against plain forms, of the
//! two evaluators against each other ([`plain`](super::plain)), and of
//! the policy on both against the recorded decisions.

use super::plain::Plain;
use super::*;
use crate::agent::RandomAgent;
use crate::game::mix_seed;
use crate::game::Prng;
use crate::ruleset::Ruleset;
use crate::shanten::shanten_counts;

fn random_hand(rng: &mut Prng, size: usize, kinds: usize) -> Counts {
    let mut c = [0u8; KINDS];
    let mut n = 0;
    while n < size {
        let k = rng.below(kinds as u32) as usize;
        if c[k] < 4 {
            c[k] += 1;
            n += 1;
        }
    }
    c
}

/// The incremental shanten agrees with the crate's shanten on every
/// one-tile change, with and without wildcards and melds.
#[test]
fn incremental_shanten_matches_the_shanten_module() {
    let mut rng = Prng::new(11);
    let cases = [
        (Wildcards::NONE, ShapeRules::ALL),
        (Wildcards::NONE, ShapeRules::STANDARD_ONLY),
        (Wildcards::new(&[Tile::RED]).unwrap(), ShapeRules::ALL),
        (
            Wildcards::new(&[Tile::M1, Tile::new(13).unwrap()]).unwrap(),
            ShapeRules {
                seven_pairs: true,
                thirteen_orphans: true,
                wind_sets: true,
            },
        ),
    ];
    for (wilds, rules) in cases {
        let calc = Calculator::new(&wilds, &rules);
        for i in 0..3000 {
            let melds = i % 3;
            let c = random_hand(&mut rng, 13 - 3 * melds, if i % 2 == 0 { 34 } else { 12 });
            let b = Base::new(&calc, &wilds, &rules, &c, melds);
            assert_eq!(
                b.shanten(),
                shanten_counts(&c, melds, &wilds, &rules).unwrap()
            );
            for k in 0..KINDS {
                let wild = wilds.is_wild(Tile::from_index_unchecked(k as u8));
                if c[k] < 4 && !wild {
                    let mut d = c;
                    d[k] += 1;
                    let want = shanten_counts(&d, melds, &wilds, &rules).unwrap();
                    assert_eq!(b.shanten_natural(&calc, k, true), want, "{c:?} + {k}");
                    let b14 = Base::new(&calc, &wilds, &rules, &d, melds);
                    for j in 0..KINDS {
                        if d[j] > 0 {
                            let mut e = d;
                            e[j] -= 1;
                            let want = shanten_counts(&e, melds, &wilds, &rules).unwrap();
                            assert_eq!(b14.shanten_without(&calc, &wilds, j), want);
                            if wild
                                || i % 10 != 0
                                || wilds.is_wild(Tile::from_index_unchecked(j as u8))
                            {
                                continue;
                            }
                            // The 13-tile base rebuilt from shared group
                            // needs, and additions in other groups.
                            let mut groups = b14.groups;
                            groups[group_of(j)] = b14.group_after(&calc, j, false);
                            let mut nat = b14.natural;
                            nat[j] -= 1;
                            let b13 = Base::from_groups(nat, b14.w, melds, groups, &rules);
                            assert_eq!(b13.shanten(), want);
                            for x in 0..KINDS {
                                let xw = wilds.is_wild(Tile::from_index_unchecked(x as u8));
                                if xw || group_of(x) == group_of(j) || e[x] >= 4 {
                                    continue;
                                }
                                let mut f = e;
                                f[x] += 1;
                                let want = shanten_counts(&f, melds, &wilds, &rules).unwrap();
                                let nx = b14.group_after(&calc, x, true);
                                assert_eq!(b13.shanten_with(x, true, &nx), want);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The four shape-table variants: without and with wildcards (a
/// fifth copy allowed), each without and with 风嘴子 wind sets.
fn table_variants() -> [(Wildcards, ShapeRules); 4] {
    let wind = ShapeRules {
        wind_sets: true,
        ..ShapeRules::ALL
    };
    let red = Wildcards::new(&[Tile::RED]).unwrap();
    [
        (Wildcards::NONE, ShapeRules::ALL),
        (Wildcards::NONE, wind),
        (red, ShapeRules::ALL),
        (red, wind),
    ]
}

/// A random group key of `len` kinds holding 0 to `most` tiles, at
/// most four of a kind.
fn random_group(rng: &mut Prng, len: usize, most: u32) -> [u8; 9] {
    let mut key = [0u8; 9];
    let size = rng.below(most + 1);
    let mut n = 0;
    while n < size {
        let j = rng.below(len as u32) as usize;
        if key[j] < 4 {
            key[j] += 1;
            n += 1;
        }
    }
    key
}

/// A group's needs with one tile added or removed move by at most
/// one per lane, down or up (what the lane masks of [`GroupEntry`]
/// rely on), for every table variant, on random groups of suits and
/// honors of every size the agent looks up.
#[test]
fn one_tile_changes_move_needs_by_one() {
    let mut rng = Prng::new(23);
    for (wilds, rules) in table_variants() {
        let calc = Calculator::new(&wilds, &rules);
        for i in 0..20_000 {
            let g = i % 4;
            let (_, len) = group_span(g);
            let key = random_group(&mut rng, len, 13);
            let x = calc.group_lanes_of(g, &key);
            for j in 0..len {
                let mut k = key;
                if key[j] < 4 {
                    k[j] += 1;
                    let y = calc.group_lanes_of(g, &k);
                    for &l in &ROW_LANE {
                        assert!(y[l] <= x[l] && x[l] <= y[l] + 1, "{key:?} + {j}");
                    }
                    k[j] -= 1;
                }
                if key[j] > 0 {
                    k[j] -= 1;
                    let y = calc.group_lanes_of(g, &k);
                    for &l in &ROW_LANE {
                        assert!(x[l] <= y[l] && y[l] <= x[l] + 1, "{key:?} - {j}");
                    }
                }
            }
        }
    }
}

/// Table positions: the needs at a group's position are its needs,
/// and a one-tile change moves the position by its step, for every
/// table variant, on random groups of suits and honors.
#[test]
fn table_positions_step_like_the_counts() {
    let mut rng = Prng::new(37);
    for (wilds, rules) in table_variants() {
        let calc = Calculator::new(&wilds, &rules);
        for i in 0..20_000 {
            let g = i % 4;
            let (_, len) = group_span(g);
            let key = random_group(&mut rng, len, 14);
            let pos = group_pos(g, &key);
            assert_eq!(calc.lanes_at(g, pos), calc.group_lanes_of(g, &key));
            // The additions read together, as the plain look-ups.
            let addable = (0..len)
                .filter(|&j| key[j] < 4 && key.iter().sum::<u8>() < 14)
                .fold(0u16, |m, j| m | 1 << j);
            let mut seen = 0u16;
            calc.lanes_added(g, pos, addable, |j, l| {
                assert_eq!(l, calc.lanes_at(g, pos + pos_step(g, j)), "{key:?} + {j}");
                seen |= 1 << j;
            });
            assert_eq!(seen, addable);
            for j in 0..len {
                let mut k = key;
                if key[j] < 4 && key.iter().sum::<u8>() < 14 {
                    k[j] += 1;
                    assert_eq!(pos + pos_step(g, j), group_pos(g, &k), "{key:?} + {j}");
                    k[j] -= 1;
                }
                if key[j] > 0 {
                    k[j] -= 1;
                    assert_eq!(pos - pos_step(g, j), group_pos(g, &k), "{key:?} - {j}");
                }
            }
        }
    }
}

/// A base built with the partners of the held groups only has the
/// deficiency and those partners of the full build (every partner
/// when thirteen orphans is possible), and "impossible" lanes in the
/// others, on hands missing whole groups.
#[test]
fn held_group_partners_match_the_full_build() {
    let mut rng = Prng::new(41);
    let calc = Calculator::new(&Wildcards::NONE, &ShapeRules::ALL);
    let mut skipped = 0;
    for i in 0..20_000 {
        let melds = i % 3;
        let rules = if i % 2 == 0 {
            ShapeRules::ALL
        } else {
            ShapeRules::STANDARD_ONLY
        };
        // Some hands in the first one, two or three groups only.
        let kinds = [34, 27, 18, 9, 12][i % 5];
        let c = random_hand(&mut rng, 14 - 3 * melds, kinds);
        let (natural, w) = Wildcards::NONE.split(&c);
        let g = calc.lanes(&natural).0;
        let full = Base::with_partners(natural, w, melds, g, &rules, true);
        let lazy = Base::with_partners(natural, w, melds, g, &rules, false);
        assert_eq!(lazy.d, full.d, "{c:?}");
        for (k, m) in GROUP_KINDS.iter().enumerate() {
            if full.orphans || full.held & m != 0 {
                assert_eq!(lazy.partner[k], full.partner[k], "{c:?} {k}");
            } else if lazy.partner[k] != full.partner[k] {
                assert_eq!(lazy.partner[k], [0xff; 16]);
                skipped += 1;
            }
        }
    }
    assert!(skipped > 1000, "{skipped}");
}

/// The discard levels by kind (SSSE3 where built) equal the plain loop
/// and [`Removal::of`] kind by kind, and the kinds at a level (SSE2)
/// the plain loop, on random removal tallies and counts.
#[test]
fn level_kernels_match_the_plain_loops() {
    let mut rng = Prng::new(43);
    for i in 0..50_000 {
        let r = Removal {
            standard: rng.below(12) as u8,
            raises: u64::from(rng.below(u32::MAX)) << 32 | u64::from(rng.below(u32::MAX)),
            special: std::array::from_fn(|_| rng.below(16) as u8),
        };
        let c = random_hand(&mut rng, 14, 34);
        let (w, tr) = (rng.below(4) as u8, i % 2 == 0);
        let lv = removal_levels(&r, &c, w, tr);
        assert_eq!(lv, removal_levels_portable(&r, &c, w, tr));
        #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
        assert_eq!(removal_levels_ssse3(&r, &c, w, tr), lv);
        for k in 0..KINDS {
            let q = r.of(k, c[k]).saturating_sub(w);
            assert_eq!(lv[k], q + u8::from(tr && q == 1), "{k}");
        }
        assert!(lv[KINDS..].iter().all(|&x| x == 0));
        let level = lv[rng.below(KINDS as u32) as usize];
        let m = kinds_at_level(&lv, level);
        assert_eq!(m, kinds_at_level_portable(&lv, level));
        #[cfg(target_arch = "x86_64")]
        assert_eq!(kinds_at_level_sse2(&lv, level), m);
        for (k, &l) in lv.iter().enumerate().take(KINDS) {
            assert_eq!(m >> k & 1 == 1, l == level);
        }
    }
}

/// The agent's min-plus product (SSSE3 where built) equals the shanten
/// module's, every lane, on the group needs of random hands and their
/// products (as the agent chains them), and on arbitrary needs within
/// its preconditions (`need[0][0]` 0, needs below 0x80, unused lanes
/// at least 0x80).
#[test]
fn agent_products_match_the_shanten_module() {
    let mut rng = Prng::new(23);
    let check = |a: &Lanes, b: &Lanes| {
        let want = crate::shanten::combine(a, b);
        assert_eq!(combine(a, b), want, "{a:?} {b:?}");
        #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
        assert_eq!(combine_ssse3(a, b), want, "{a:?} {b:?}");
        want
    };
    let setups = [
        (Wildcards::NONE, ShapeRules::ALL),
        (Wildcards::new(&[Tile::RED]).unwrap(), ShapeRules::ALL),
        (Wildcards::NONE, ShapeRules::STANDARD_ONLY),
    ];
    for (wilds, shape) in setups {
        let calc = Calculator::new(&wilds, &shape);
        for _ in 0..4_000 {
            let size = [1, 4, 7, 10, 13, 14][rng.below(6) as usize];
            let c = random_hand(&mut rng, size, KINDS);
            let g = calc.lanes(&wilds.split(&c).0).0;
            for x in &g {
                for y in &g {
                    let xy = check(x, y);
                    for z in &g {
                        check(&xy, z);
                        check(z, &xy);
                    }
                }
            }
        }
    }
    for _ in 0..100_000 {
        let needs = |rng: &mut Prng| -> Lanes {
            std::array::from_fn(|i| match i {
                0 => 0,
                _ if i % P1 > 4 => 0x80 + rng.below(0x80) as u8,
                _ => {
                    let top = if rng.below(4) == 0 { 0x80 } else { 12 };
                    rng.below(top) as u8
                }
            })
        };
        check(&needs(&mut rng), &needs(&mut rng));
    }
}

/// The lane-mask kernels (SSE2 where built) equal their plain loops on
/// arbitrary bytes.
#[test]
fn lane_kernels_match_the_plain_loops() {
    let mut rng = Prng::new(19);
    let bytes = |rng: &mut Prng| -> Lanes {
        std::array::from_fn(|_| match rng.below(3) {
            0 => rng.below(256) as u8,
            _ => rng.below(6) as u8,
        })
    };
    for _ in 0..50_000 {
        let (a, b) = (bytes(&mut rng), bytes(&mut rng));
        let d = rng.below(8) as u8;
        let m = Slots(std::array::from_fn(|_| rng.below(1 << 16) as u16));
        let t = rng.below(1 << 16) as u16;
        assert_eq!(lanes_moved_portable(&a, &b), lanes_moved_portable(&b, &a));
        // Ordered lanes (a one-tile change): the moved lanes are those
        // below.
        let lo: Lanes = std::array::from_fn(|i| a[i].min(b[i]));
        let hi: Lanes = std::array::from_fn(|i| a[i].max(b[i]));
        assert_eq!(lanes_moved(&lo, &hi), lanes_below(&lo, &hi));
        assert_eq!(tight_lanes(&a, &b, d), tight_lanes_portable(&a, &b, d));
        assert_eq!(zero_lanes(&a), zero_lanes_portable(&a));
        assert_eq!(hitting(&m, t), hitting_portable(&m, t));
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(lanes_moved_sse2(&a, &b), lanes_moved_portable(&a, &b));
            assert_eq!(tight_lanes_sse2(&a, &b, d), tight_lanes_portable(&a, &b, d));
            assert_eq!(zero_lanes_sse2(&a), zero_lanes_portable(&a));
            assert_eq!(hitting_sse2(&m, t), hitting_portable(&m, t));
        }
        // The plain loops against their definitions.
        for i in 0..16 {
            let used = USED_LANES >> i & 1 == 1;
            assert_eq!(lanes_below(&a, &b) >> i & 1 == 1, used && a[i] < b[i]);
            assert_eq!(
                lanes_moved_portable(&a, &b) >> i & 1 == 1,
                used && a[i] != b[i]
            );
            let tight = a[i].saturating_add(b[i]) == d;
            assert_eq!(tight_lanes(&a, &b, d) >> i & 1 == 1, used && tight);
            assert_eq!(zero_lanes(&a) >> i & 1 == 1, used && a[i] == 0);
            assert_eq!(hitting(&m, t) >> i & 1 == 1, m.0[i] & t != 0);
        }
    }
}

/// The changed groups of two hands, by SSE2 and group by group, equal
/// a kind-by-kind comparison, on hands that differ in a few kinds.
#[test]
fn changed_groups_match_the_plain_comparison() {
    let mut rng = Prng::new(29);
    for i in 0..20_000 {
        let a = random_hand(&mut rng, 1 + i % 14, 34);
        let mut b = a;
        for _ in 0..rng.below(4) {
            let k = rng.below(KINDS as u32) as usize;
            b[k] = rng.below(5) as u8;
        }
        let plain = (0..KINDS)
            .filter(|&k| a[k] != b[k])
            .fold(0u8, |m, k| m | 1 << group_of(k));
        assert_eq!(changed_groups(&a, &b), plain, "{a:?} {b:?}");
        assert_eq!(changed_groups_portable(&a, &b), plain, "{a:?} {b:?}");
        #[cfg(target_arch = "x86_64")]
        assert_eq!(changed_groups_sse2(&a, &b), plain, "{a:?} {b:?}");
    }
}

/// The tight-lane rules equal [`partner_missing`] on the changed group: on
/// random hands, a kind lowers the standard deficiency of a 13-tile
/// hand exactly when it lowers a tight nonzero lane of its group, and
/// a removal from a 14-tile hand raises it (by one) exactly when it
/// raises every tight lane.
#[test]
fn tight_lanes_decide_like_standard() {
    let mut rng = Prng::new(29);
    let (mut lowered, mut raised) = (0, 0);
    for (wilds, rules) in [table_variants()[0], table_variants()[3]] {
        let calc = Calculator::new(&wilds, &rules);
        for i in 0..6000 {
            let melds = i % 3;
            let size = 13 - 3 * melds + i % 2;
            let c = random_hand(&mut rng, size, if i % 4 < 2 { 34 } else { 12 });
            let b = Base::new(&calc, &wilds, &rules, &c, melds);
            let d = partner_missing(&b.partner[3], &b.groups[3]);
            for g in 0..4 {
                assert_eq!(partner_missing(&b.partner[g], &b.groups[g]), d);
                let x = &b.groups[g];
                let (lo, len) = group_span(g);
                for k in lo..lo + len {
                    if size % 3 == 1 && b.natural[k] < 4 && d > 0 {
                        let add = b.group_after(&calc, k, true);
                        let want = partner_missing(&b.partner[g], &add) < d;
                        let tight = tight_lanes(x, &b.partner[g], d) & !zero_lanes(x);
                        let m = Slots([lanes_below(&add, x); 16]);
                        assert_eq!(hitting(&m, tight) & 1 == 1, want, "{c:?} + {k}");
                        lowered += usize::from(want);
                    }
                    if size % 3 == 2 && b.natural[k] > 0 {
                        let rem = b.group_after(&calc, k, false);
                        let got = partner_missing(&b.partner[g], &rem);
                        let kept = USED_LANES & !lanes_below(x, &rem);
                        let tight = tight_lanes(x, &b.partner[g], d);
                        let up = hitting(&Slots([kept; 16]), tight) & 1 == 0;
                        assert_eq!(got, d + u8::from(up), "{c:?} - {k}");
                        raised += usize::from(up);
                    }
                }
            }
        }
    }
    // Both answers occur (the test can fail both ways).
    assert!(lowered > 1000 && raised > 1000, "{lowered} {raised}");
}

/// The SSE2 bit planes equal the word-arithmetic ones and the counts'
/// bits, on counts and on arbitrary bytes.
#[test]
fn bit_planes_match_the_counts() {
    let mut rng = Prng::new(31);
    for i in 0..20_000 {
        let c: Counts = if i % 2 == 0 {
            random_hand(&mut rng, 1 + i % 40, 34)
        } else {
            std::array::from_fn(|_| rng.below(256) as u8)
        };
        let p = Planes::new(&c);
        assert_eq!(p.0, Planes::new_portable(&c).0, "{c:?}");
        for k in 0..KINDS {
            for b in 0..3 {
                assert_eq!((p.0[b] >> k & 1) as u8, c[k] >> b & 1, "{c:?} {k} {b}");
            }
            assert_eq!(p.held() >> k & 1 == 1, c[k] & 7 != 0, "{c:?} {k}");
        }
        assert_eq!(p.0.iter().fold(0, |a, x| a | x) >> KINDS, 0);
        if c.iter().all(|&n| n <= 4) {
            assert_eq!(p.tallies(), tallies(&c), "{c:?}");
        }
    }
}

/// The branch-free keep values equal the plain ones on random hands
/// (every held kind, both tie-break families).
#[test]
fn keep_values_match_the_plain_form() {
    let mut rng = Prng::new(5);
    for i in 0..20_000 {
        let c = random_hand(&mut rng, 14, if i % 2 == 0 { 34 } else { 9 });
        for family in [Family::Shanxi, Family::Sichuan] {
            let keep = Keep::new(&c, family);
            for k in (0..KINDS).filter(|&k| c[k] > 0) {
                assert_eq!(keep.of(k), keep_value(&c, k, family), "{c:?} {k}");
            }
            // The least keep key of a set of held kinds (value, then
            // index), vector and plain.
            let held = (0..KINDS)
                .filter(|&k| c[k] > 0)
                .fold(0u64, |m, k| m | bit(k));
            let m = held & (u64::from(rng.below(u32::MAX)) << 32 | u64::from(rng.below(u32::MAX)));
            let m = if m == 0 { held } else { m };
            let want = (0..KINDS)
                .filter(|&k| m >> k & 1 == 1)
                .min_by_key(|&k| (keep_value(&c, k, family), k));
            assert_eq!(Some(keep.least(m)), want, "{c:?} {m:x}");
            assert_eq!(keep.least_portable(m), keep.least(m));
        }
    }
}

/// The keys of two shanten levels at once equal [`cand_key`] kind by
/// kind with [`keep_value`], and so do their minimums (with and
/// without the danger bit).
#[test]
fn level_keys_match_the_plain_keys() {
    let mut rng = Prng::new(41);
    let held_mask = |c: &Counts| {
        (0..KINDS)
            .filter(|&k| c[k] > 0)
            .fold(0u64, |m, k| m | bit(k))
    };
    for i in 0..20_000 {
        let c = random_hand(&mut rng, 14, if i % 2 == 0 { 34 } else { 18 });
        let held = held_mask(&c);
        let pick = |rng: &mut Prng| {
            held & (u64::from(rng.below(u32::MAX)) << 32 | u64::from(rng.below(u32::MAX)))
        };
        let at_min = pick(&mut rng);
        let at_safe = pick(&mut rng) & !at_min;
        let (void, danger) = (pick(&mut rng), pick(&mut rng));
        let min_sh = rng.below(4) as i8 - 1;
        let safe_sh = min_sh + rng.below(3) as i8;
        let all_wild = rng.below(4) == 0;
        for family in [Family::Shanxi, Family::Sichuan] {
            let keep = Keep::new(&c, family);
            let got = level_keys(
                &keep,
                (at_min, at_safe),
                (min_sh, safe_sh),
                (all_wild, void, danger),
            );
            let (mut best, mut best_safe) = (u64::MAX, u64::MAX);
            for k in (0..KINDS).filter(|&k| (at_min | at_safe) >> k & 1 == 1) {
                let sh = if at_min >> k & 1 == 1 {
                    min_sh
                } else {
                    safe_sh
                };
                let junk = void >> k & 1 == 1;
                let want = cand_key(all_wild, sh, junk, keep_value(&c, k, family), k);
                let key = keep.key(cand_key(all_wild, sh, true, 0, 0), void, k);
                assert_eq!(key, want, "{c:?} {k}");
                best = best.min(want);
                best_safe = best_safe.min(want | (danger >> k & 1) << 63);
            }
            assert_eq!(got, (best, best_safe));
        }
    }
}

/// The kept setup is rebuilt exactly when the wildcards or the shape
/// rules change, and always equals a fresh one (wild mask and
/// calculator answers).
#[test]
fn kept_setup_follows_the_table_variant() {
    let mut rng = Prng::new(23);
    let wilds = [
        Wildcards::NONE,
        Wildcards::new(&[Tile::RED]).unwrap(),
        Wildcards::new(&[Tile::M1, Tile::new(13).unwrap()]).unwrap(),
    ];
    let shapes = [
        ShapeRules::ALL,
        ShapeRules::STANDARD_ONLY,
        ShapeRules {
            seven_pairs: true,
            thirteen_orphans: true,
            wind_sets: true,
        },
    ];
    let mut kept = None;
    for i in 0..300 {
        let w = wilds[rng.below(3) as usize];
        let sh = shapes[rng.below(3) as usize];
        let setup = Setup::refresh(&mut kept, w, sh);
        let fresh = Setup::new(w, sh);
        assert_eq!((setup.wilds, setup.shape), (w, sh), "{i}");
        assert_eq!(setup.wild_mask, fresh.wild_mask, "{i}");
        for k in 0..KINDS {
            let t = Tile::from_index_unchecked(k as u8);
            assert_eq!(setup.wild_mask >> k & 1 == 1, w.is_wild(t));
        }
        assert_eq!(setup.calc.group_variant(), fresh.calc.group_variant());
        let c = random_hand(&mut rng, 14, 34);
        assert_eq!(
            setup.calc.shanten(&c, 0),
            fresh.calc.shanten(&c, 0),
            "{c:?}"
        );
        assert_eq!(
            setup.calc.shanten(&c, 0),
            shanten_counts(&c, 0, &w, &sh).unwrap()
        );
    }
}

/// The unseen counts and the 包胡 pass state, read from the table's
/// kept tallies, equal a fresh count over the discards at every step
/// of seeded hands, for every seat, in every preset.
#[test]
fn table_tallies_give_the_unseen_counts_and_the_passes() {
    let (mut groups, mut setup) = (Groups::default(), None);
    let (mut checked, mut threats) = (0u64, 0u64);
    for (p, rules) in crate::testing::presets().iter().enumerate() {
        for i in 0..60u64 {
            let seed = mix_seed(p as u64 + 301, i);
            let mut g = Game::new(rules, seed, None).unwrap();
            let mut random = [0, 1, 2, 3].map(|s| RandomAgent::new(seed ^ s));
            while let Some(seat) = g.to_act() {
                for s in 0..4u8 {
                    let mut ctx = Ctx::new(&g, s, &mut groups, &mut setup);
                    let policy = Policy::<_, false>::new(&mut ctx);
                    let (u, th) = (policy.e.unseen(), policy.threat());
                    assert_eq!(u, unseen_plain(&g, s), "preset {p} hand {i}");
                    let plain = th.and_then(|t| threat_passes(&g, t));
                    assert_eq!(th, plain, "preset {p} hand {i}");
                    checked += 1;
                    threats += u64::from(th.is_some_and(|t| t.passed != [KindSet::EMPTY; 4]));
                }
                let act = random[seat as usize].act(&SeatView::new(&g, seat));
                g.step(act).unwrap();
            }
        }
    }
    assert!(checked > 50_000 && threats > 300, "{checked} {threats}");
}

/// The shanten from two products of the kept group needs equals the
/// crate's shanten of the counts the agent analyses (void suit left
/// out), for every seat's hand and its pong and kong remainders, at
/// every step of seeded hands in every preset.
#[test]
fn two_product_shanten_matches_the_shanten_module() {
    let (mut groups, mut setup) = (Groups::default(), None);
    let mut checked = 0u64;
    for (p, rules) in crate::testing::presets().iter().enumerate() {
        for i in 0..40u64 {
            let seed = mix_seed(p as u64 + 401, i);
            let mut g = Game::new(rules, seed, None).unwrap();
            let mut random = RandomAgent::new(seed);
            while let Some(seat) = g.to_act() {
                for s in 0..4u8 {
                    let mut ctx = Ctx::new(&g, s, &mut groups, &mut setup);
                    let c = ctx.f.hand.concealed;
                    let n = ctx.f.hand.n_melds();
                    for k in (0..KINDS).filter(|&k| c[k] >= 2) {
                        for (take, melds) in [(0, n), (2, n + 1), (3, n + 1)] {
                            if c[k] < take || melds > 4 {
                                continue;
                            }
                            let mut h = c;
                            h[k] -= take;
                            let e = ctx.eff(&h);
                            let got = ctx.shanten(&h, melds);
                            // Fresh lookups, no kept needs.
                            let calc = Calculator::new(&ctx.f.wilds, &ctx.f.shape);
                            let fresh = Base::new(&calc, &ctx.f.wilds, &ctx.f.shape, &e, melds);
                            assert_eq!(got, fresh.shanten(), "{h:?} {melds}");
                            // The crate's shanten where the size is a hand's.
                            if let Ok(want) = shanten_counts(&e, melds, &ctx.f.wilds, &ctx.f.shape)
                            {
                                assert_eq!(got, want, "{h:?} {melds}");
                                checked += 1;
                            }
                        }
                    }
                }
                let act = random.act(&SeatView::new(&g, seat));
                g.step(act).unwrap();
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

/// The policy on the plain evaluator, as an agent.
#[derive(Debug)]
struct PlainGreedy;

impl Agent for PlainGreedy {
    fn act(&mut self, view: &SeatView<'_>) -> Action {
        let legal = view.legal();
        let mut plain = Plain::new(view.game, view.seat);
        let a = Policy::<_, false>::new(&mut plain).decide(legal);
        if legal.contains(a) {
            return a;
        }
        let fallback = legal.iter().find(|&x| x != Action::Leave);
        fallback.unwrap_or(Action::Pass)
    }
}

/// The first action of the fast agent's ranking, as an agent.
#[derive(Debug)]
struct Ranker(GreedyAgent);

impl Agent for Ranker {
    fn act(&mut self, view: &SeatView<'_>) -> Action {
        self.0.rank(view)[0].action
    }
}

/// Writes `tests/data/greedy_decisions.txt` with the policy on the plain
/// evaluator (run on purpose only: `-- --ignored`).
#[test]
#[ignore]
fn record_greedy_decisions() {
    crate::agent::decisions::record(|_| PlainGreedy);
}

/// The recorded decisions (of the agent before the restructure), decided
/// again by the policy on the plain evaluator, on the fast one, and by
/// the first action of the ranking.
#[test]
fn the_policy_gives_the_recorded_decisions_under_both_evaluators() {
    let n = crate::agent::decisions::check(|_| PlainGreedy);
    assert!(n > 50_000, "{n}");
    assert_eq!(crate::agent::decisions::check(GreedyAgent::new), n);
    assert_eq!(
        crate::agent::decisions::check(|s| Ranker(GreedyAgent::new(s))),
        n
    );
}

/// The policy decides alike on the fast and the plain evaluator at every
/// decision of seeded hands, all greedy and greedy against random, in
/// every family and with wildcards; the ranking's first action is the
/// agent's.
#[test]
fn the_policy_decides_alike_on_both_evaluators() {
    // The four presets, then back to the first table variant with the
    // same agents.
    let [a, b, c, d] = crate::testing::presets();
    let presets = [a, b, c, d, Ruleset::shanxi()];
    // One set of fast agents for every hand and preset, as in `simulate`:
    // what they keep between decisions must never leak into another
    // hand, game or table variant.
    let mut fast = [0, 1, 2, 3].map(GreedyAgent::new);
    for (p, rules) in presets.iter().enumerate() {
        let mut decisions = 0u64;
        for i in 0..200u64 {
            let seed = mix_seed(p as u64 + 101, i);
            let mut g = Game::new(rules, seed, Some((i % 4) as u8)).unwrap();
            let mut random = [0, 1, 2, 3].map(|s| RandomAgent::new(seed ^ s));
            // Odd hands: seats 1-3 play at random, which reaches more
            // claim and kong decisions for seat 0.
            let greedy_seats = if i % 2 == 0 { 4 } else { 1 };
            while let Some(seat) = g.to_act() {
                let s = seat as usize;
                let view = SeatView::new(&g, seat);
                let a = fast[s].act(&view);
                let b = PlainGreedy.act(&view);
                assert_eq!(a, b, "preset {p} hand {i} seat {seat}: {:?}", g.log());
                if i % 8 == 0 {
                    assert_eq!(fast[s].rank(&view)[0].action, a);
                }
                decisions += 1;
                let act = if s < greedy_seats {
                    a
                } else {
                    random[s].act(&view)
                };
                g.step(act).unwrap();
            }
        }
        assert!(decisions > 5_000, "preset {p}: {decisions} decisions");
    }
}

/// Every question of [`Eval`] asked of both evaluators about `seat`'s
/// hand in `g`: the same answers.
fn evaluators_agree(g: &Game, seat: u8, groups: &mut Groups, setup: &mut Option<Box<Setup>>) {
    let mut fast = Ctx::new(g, seat, groups, setup);
    let mut plain = Plain::new(g, seat);
    assert_eq!(fast.f.void, plain.facts().void);
    assert_eq!(Eval::unseen(&mut fast), Eval::unseen(&mut plain));
    let hand = *g.hand(seat);
    let c = hand.concealed;
    let n = hand.n_melds();
    let total: u8 = c.iter().sum();
    let log = g.log();
    assert_eq!(
        Eval::shanten(&mut fast, &c, n),
        Eval::shanten(&mut plain, &c, n),
        "{log}"
    );
    // The remainders of every pong and kong of the hand.
    for k in (0..KINDS).filter(|&k| c[k] >= 2) {
        for (take, melds) in [(2, n + 1), (3, n + 1)] {
            if c[k] < take || melds > 4 {
                continue;
            }
            let mut h = c;
            h[k] -= take;
            if (total - take) as usize % 3 == 2 {
                let s = Eval::best_discard_shanten(&mut plain, &h, melds);
                assert_eq!(Eval::best_discard_shanten(&mut fast, &h, melds), s, "{log}");
                for cut in s - 1..=s + 1 {
                    let want = s < cut;
                    assert_eq!(fast.best_discard_shanten_below(&h, melds, cut), want);
                }
            } else {
                let s = Eval::shanten(&mut plain, &h, melds);
                assert_eq!(Eval::shanten(&mut fast, &h, melds), s, "{log}");
            }
        }
    }
    if total as usize % 3 != 2 {
        return;
    }
    assert_eq!(
        Eval::best_discard_shanten(&mut fast, &c, n),
        Eval::best_discard_shanten(&mut plain, &c, n)
    );
    // The discard questions, for every kind legal and for a random half.
    let held = KindSet::held(&c);
    for discards in [
        KindSet::ALL,
        KindSet(held.0 & 0x2_5555_5555),
        KindSet(held.0 & 0x1_aaaa_aaaa),
    ] {
        let (cs, mut pd) = Eval::discards(&mut plain, discards);
        let (fc, mut fd) = Eval::discards(&mut fast, discards);
        assert_eq!(cs.cands, fc.cands, "{log}");
        if cs.cands.is_empty() {
            continue;
        }
        assert_eq!(cs, fc, "{log}");
        let keep = Keep::new(&c, fast.f.family);
        if !cs.all_wild && cs.lowest > UKEIRE_SHANTEN as u8 + 1 {
            let half = KindSet(cs.cands.0 & 0x1_5555_5555);
            for set in [cs.cands, half] {
                if !set.is_empty() {
                    assert_eq!(
                        fast.least_far(&mut fd, &keep, set),
                        plain.least_far(&mut pd, &keep, set),
                        "{log}"
                    );
                }
            }
        }
        let levels = plain.levels(&mut pd, &cs);
        assert_eq!(fast.levels(&mut fd, &cs), levels, "{log}");
        if cs.lowest > 3 {
            continue;
        }
        let fc = fast.counting(&fd, true);
        for t in cs.cands {
            let k = t.index();
            let want = plain.improving(&pd, &(), &cs, k);
            assert_eq!(fast.improving(&fd, &fc, &cs, k), want, "{k} {log}");
            let (ub, exact) = fast.improving_bound(&fd, &fc, &cs, k);
            assert!(
                ub >= want && (!exact || ub == want),
                "{k} {ub} {want} {log}"
            );
        }
    }
}

/// The two evaluators answer alike at every decision of seeded hands of
/// every preset, for every seat's hand.
#[test]
fn the_evaluators_answer_alike_on_seeded_hands() {
    let (mut groups, mut setup) = (Groups::default(), None);
    let mut asked = 0u64;
    for (p, rules) in crate::testing::presets().iter().enumerate() {
        for i in 0..30u64 {
            let seed = mix_seed(p as u64 + 501, i);
            let mut g = Game::new(rules, seed, None).unwrap();
            let mut agents = [0, 1, 2, 3].map(GreedyAgent::new);
            while let Some(seat) = g.to_act() {
                for s in 0..4u8 {
                    evaluators_agree(&g, s, &mut groups, &mut setup);
                    asked += 1;
                }
                let act = agents[seat as usize].act(&SeatView::new(&g, seat));
                g.step(act).unwrap();
            }
        }
    }
    assert!(asked > 10_000, "{asked}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// On random positions (a seeded deal of any preset, a random number
    /// of random moves in), the two evaluators answer every question
    /// alike for every seat, the policy decides alike on both, and the
    /// fast agent's ranking holds every legal action once, its first
    /// action the agent's.
    #[test]
    fn the_evaluators_and_the_ranking_agree_on_random_positions(
        seed in proptest::prelude::any::<u64>(),
        preset in 0usize..4,
        moves in 0usize..120,
    ) {
        let rules = &crate::testing::presets()[preset];
        let mut g = Game::new(rules, seed, None).unwrap();
        let mut random = RandomAgent::new(seed);
        let mut fast = GreedyAgent::new(0);
        let (mut groups, mut setup) = (Groups::default(), None);
        for _ in 0..moves {
            let Some(seat) = g.to_act() else { break };
            let a = random.act(&SeatView::new(&g, seat));
            g.step(a).unwrap();
        }
        // Every decision of the rest of the hand.
        while let Some(seat) = g.to_act() {
            for s in 0..4u8 {
                evaluators_agree(&g, s, &mut groups, &mut setup);
            }
            let view = SeatView::new(&g, seat);
            let ranked = fast.rank(&view);
            let legal = view.legal();
            proptest::prop_assert_eq!(ranked.len(), legal.iter().count());
            proptest::prop_assert!(ranked.iter().all(|r| legal.contains(r.action)));
            let a = fast.act(&view);
            proptest::prop_assert_eq!(ranked[0].action, a, "seat {} log {}", seat, g.log());
            proptest::prop_assert_eq!(PlainGreedy.act(&view), a, "seat {} log {}", seat, g.log());
            g.step(a).unwrap();
        }
    }
}
