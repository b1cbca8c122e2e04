//! Every distinct decomposition of a complete hand.

use super::{Decomposition, Set, Shape, ShapeRules};
use crate::hand::Hand;
use crate::tile::{Counts, Tile};
use crate::wildcard::Wildcards;

const ORPHANS: [usize; 13] = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];

/// Every distinct way `hand` (complete: `14 - 3 × melds` concealed tiles)
/// forms a winning shape allowed by `rules`, wild tiles included. Sets made
/// only of wild tiles are reported as triplets of the first wild kind (a
/// wild tile may stand for its own kind), so the list stays finite.
///
/// ```
/// use koudian_core::{hand::Hand, shape::{decompose, ShapeRules, Shape}, tile::parse, Wildcards};
/// let hand = Hand::from_tiles(&parse("11122233344455m").unwrap(), &[]).unwrap();
/// let ds = decompose(&hand, &Wildcards::NONE, &ShapeRules::ALL);
/// assert!(ds.len() >= 2);
/// assert!(ds.iter().all(|d| d.shape == Shape::Standard));
/// ```
pub fn decompose(hand: &Hand, wilds: &Wildcards, rules: &ShapeRules) -> Vec<Decomposition> {
    if hand.check_size(true).is_err() {
        return Vec::new();
    }
    let (natural, w) = wilds.split(&hand.concealed);
    let filler = wilds.kinds().next();
    let mut out = Vec::new();
    standard(&natural, w, filler, rules, &mut out);
    if hand.n_melds() == 0 {
        if rules.seven_pairs {
            seven_pairs(&natural, w, filler, &mut out);
        }
        if rules.thirteen_orphans {
            thirteen_orphans(&natural, w, &mut out);
        }
    }
    for d in &mut out {
        d.sets.sort_unstable();
        d.pairs.sort_unstable();
        d.wild_as.sort_unstable();
    }
    out.sort();
    out.dedup();
    out
}

fn tile(i: usize) -> Tile {
    Tile::from_index_unchecked(i as u8)
}

fn standard(
    natural: &Counts,
    w: u8,
    filler: Option<Tile>,
    rules: &ShapeRules,
    out: &mut Vec<Decomposition>,
) {
    let mut c = *natural;
    for p in 0..34 {
        for wild_in_pair in 0..=2u8 {
            let natural_in_pair = 2 - wild_in_pair;
            if c[p] < natural_in_pair || w < wild_in_pair {
                continue;
            }
            // A pair of two wilds stands for the first wild kind only.
            if wild_in_pair == 2 && Some(tile(p)) != filler {
                continue;
            }
            c[p] -= natural_in_pair;
            let mut wild_as = vec![tile(p); wild_in_pair as usize];
            let mut sets = Vec::new();
            sets_rec(
                &mut c,
                w - wild_in_pair,
                filler,
                rules,
                &mut sets,
                &mut wild_as,
                &mut |sets, wild_as| {
                    out.push(Decomposition {
                        shape: Shape::Standard,
                        sets: sets.to_vec(),
                        pairs: vec![tile(p)],
                        wild_as: wild_as.to_vec(),
                    })
                },
            );
            c[p] += natural_in_pair;
        }
    }
}

/// Removes sets covering the lowest natural tile, recursively.
fn sets_rec(
    c: &mut Counts,
    w: u8,
    filler: Option<Tile>,
    rules: &ShapeRules,
    sets: &mut Vec<Set>,
    wild_as: &mut Vec<Tile>,
    emit: &mut dyn FnMut(&[Set], &[Tile]),
) {
    let Some(i) = c.iter().position(|&n| n > 0) else {
        if w % 3 == 0 {
            let Some(f) = filler.or(if w == 0 { Some(Tile::M1) } else { None }) else {
                return;
            };
            let n = sets.len();
            let m = wild_as.len();
            for _ in 0..w / 3 {
                sets.push(Set::Triplet(f));
                wild_as.extend([f; 3]);
            }
            emit(sets, wild_as);
            sets.truncate(n);
            wild_as.truncate(m);
        }
        return;
    };
    // Candidate sets containing kind i, as the kinds they use; i is the
    // lowest natural tile left, so lower kinds of a set must be wild.
    let mut candidates: Vec<(Set, [usize; 3])> = vec![(Set::Triplet(tile(i)), [i, i, i])];
    if i < 27 {
        let r = i % 9;
        for start in r.saturating_sub(2)..=r {
            if start + 2 <= 8 {
                let s = i - r + start;
                candidates.push((Set::Sequence(tile(s)), [s, s + 1, s + 2]));
            }
        }
    } else if rules.wind_sets {
        let group: &[usize] = if i < 31 {
            &[27, 28, 29, 30]
        } else {
            &[31, 32, 33]
        };
        for a in 0..group.len() {
            for b in a + 1..group.len() {
                for d in b + 1..group.len() {
                    let k = [group[a], group[b], group[d]];
                    if k.contains(&i) {
                        candidates.push((Set::Honors([tile(k[0]), tile(k[1]), tile(k[2])]), k));
                    }
                }
            }
        }
    }
    for (set, kinds) in candidates {
        // Use naturals where present (the set must cover i naturally),
        // wilds for the rest.
        let mut used_natural = [false; 3];
        let mut need = 0u8;
        let mut ok = true;
        for (j, &k) in kinds.iter().enumerate() {
            if c[k] > 0 {
                c[k] -= 1;
                used_natural[j] = true;
            } else {
                need += 1;
            }
        }
        if !used_natural.iter().zip(kinds).any(|(&u, k)| u && k == i) {
            ok = false;
        }
        if ok && need <= w {
            let n = wild_as.len();
            for (j, &k) in kinds.iter().enumerate() {
                if !used_natural[j] {
                    wild_as.push(tile(k));
                }
            }
            sets.push(set);
            sets_rec(c, w - need, filler, rules, sets, wild_as, emit);
            sets.pop();
            wild_as.truncate(n);
        }
        for (j, &k) in kinds.iter().enumerate() {
            if used_natural[j] {
                c[k] += 1;
            }
        }
        // Also try the variants where a natural tile other than i is left
        // for a later set and a wild takes its place.
        if kinds.iter().filter(|&&k| k != i).any(|&k| c[k] > 0) && need < 3 {
            partial_variants(c, w, filler, rules, sets, wild_as, emit, set, kinds, i);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn partial_variants(
    c: &mut Counts,
    w: u8,
    filler: Option<Tile>,
    rules: &ShapeRules,
    sets: &mut Vec<Set>,
    wild_as: &mut Vec<Tile>,
    emit: &mut dyn FnMut(&[Set], &[Tile]),
    set: Set,
    kinds: [usize; 3],
    i: usize,
) {
    // Each member other than the one covering i may be natural or wild.
    let distinct_i = kinds.iter().position(|&k| k == i).unwrap_or(0);
    for mask in 0u8..8 {
        let mut need = 0u8;
        let mut taken = [false; 3];
        let mut ok = true;
        for (j, &k) in kinds.iter().enumerate() {
            let natural = j == distinct_i || mask & (1 << j) != 0;
            if natural {
                if c[k] == 0 {
                    ok = false;
                    break;
                }
                c[k] -= 1;
                taken[j] = true;
            } else {
                need += 1;
            }
        }
        if ok && need <= w {
            let n = wild_as.len();
            for (j, &k) in kinds.iter().enumerate() {
                if !taken[j] {
                    wild_as.push(tile(k));
                }
            }
            sets.push(set);
            sets_rec(c, w - need, filler, rules, sets, wild_as, emit);
            sets.pop();
            wild_as.truncate(n);
        }
        for (j, &k) in kinds.iter().enumerate() {
            if taken[j] {
                c[k] += 1;
            }
        }
    }
}

fn seven_pairs(natural: &Counts, w: u8, filler: Option<Tile>, out: &mut Vec<Decomposition>) {
    let mut pairs = Vec::new();
    let mut wild_as = Vec::new();
    for (i, &n) in natural.iter().enumerate() {
        for _ in 0..n / 2 {
            pairs.push(tile(i));
        }
        if n % 2 == 1 {
            pairs.push(tile(i));
            wild_as.push(tile(i));
        }
    }
    if wild_as.len() as u8 > w {
        return;
    }
    let spare = w - wild_as.len() as u8;
    let Some(f) = filler.or(if spare == 0 { Some(Tile::M1) } else { None }) else {
        return;
    };
    for _ in 0..spare / 2 {
        pairs.push(f);
        wild_as.extend([f, f]);
    }
    if pairs.len() == 7 {
        out.push(Decomposition {
            shape: Shape::SevenPairs,
            sets: Vec::new(),
            pairs,
            wild_as,
        });
    }
}

fn thirteen_orphans(natural: &Counts, w: u8, out: &mut Vec<Decomposition>) {
    if natural
        .iter()
        .enumerate()
        .any(|(i, &n)| n > 0 && !ORPHANS.contains(&i))
    {
        return;
    }
    for &p in &ORPHANS {
        let mut wild_as = Vec::new();
        let mut ok = true;
        for &k in &ORPHANS {
            let want = if k == p { 2 } else { 1 };
            match natural[k] {
                n if n > want => ok = false,
                n => wild_as.extend(std::iter::repeat_n(tile(k), (want - n) as usize)),
            }
        }
        if ok && wild_as.len() == w as usize {
            out.push(Decomposition {
                shape: Shape::ThirteenOrphans,
                sets: Vec::new(),
                pairs: vec![tile(p)],
                wild_as,
            });
        }
    }
}
