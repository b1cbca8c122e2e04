//! `sample_hidden`'s distribution against an exact enumeration on small
//! constructed positions: two declared seats with four concealed tiles
//! each, a third seat with one tile and either a hidden concealed kong
//! (six wall tiles, 15 unseen tiles after the kong) or none (ten wall
//! tiles, 19 unseen).

use super::joint::Work;
use super::uniform::*;
use super::*;
use crate::game::observation::{SeenDiscard, SeenMeld};
use crate::rng::partial_shuffle;
use crate::tile::Counts;
use std::collections::HashMap;

/// Unseen copies by kind index: 7m ×3, 8m, 9m, 5p, East ×2, and two kinds
/// wholly unseen (6s, West), one of which is seat 3's hidden kong.
const UNSEEN: [(usize, u8); 7] = [(6, 3), (7, 2), (8, 2), (13, 2), (27, 2), (23, 4), (29, 4)];

/// The constructed Shanxi observation of seat 0 (to act, five concealed
/// tiles, three pongs), every other tile face up in melds and discards;
/// seat 3's third meld a hidden concealed kong (`with_kong`) or a pong.
fn constructed(with_kong: bool) -> (Ruleset, Observation) {
    constructed_with(with_kong, &UNSEEN, false)
}

/// [`constructed`] with the unseen tiles `unseen` and, with
/// `three_declared`, seat 3 declared too with a fourth meld (a pong) and
/// its one concealed tile (ready when that tile is a wait worth
/// declaring).
fn constructed_with(
    with_kong: bool,
    unseen: &[(usize, u8)],
    three_declared: bool,
) -> (Ruleset, Observation) {
    let rules = Ruleset::shanxi();
    let mut obs = Game::new(&rules, 1, Some(0)).unwrap().observe(0);
    let mut visible = [4u8; KINDS];
    for &(k, n) in unseen {
        visible[k] = 4 - n;
    }
    // Twelve pongs of fully visible kinds: seats 0-2 three each, seat 3
    // two, and its hidden concealed kong (and one more pong when it has
    // declared).
    let pong_kinds: Vec<usize> = (0..KINDS).filter(|&k| visible[k] == 4).take(13).collect();
    obs.melds = [[None; 4]; 4];
    let mut i = 0;
    let seat3 = if with_kong { 2 } else { 3 } + usize::from(three_declared);
    for (s, n) in [(0usize, 3usize), (1, 3), (2, 3), (3, seat3)] {
        for m in 0..n {
            let k = pong_kinds[i];
            i += 1;
            visible[k] -= 3;
            obs.melds[s][m] = Some(SeenMeld {
                kind: MeldKind::Pong,
                tile: Some(kind(k)),
                from: Some(((s + 1) % 4) as u8),
            });
        }
    }
    if with_kong {
        obs.melds[3][seat3] = Some(SeenMeld {
            kind: MeldKind::ConcealedKong,
            tile: None,
            from: None,
        });
    }
    // Seat 0 holds five of the rest, the others are discarded.
    let mut rest: Vec<usize> = Vec::new();
    for (k, &n) in visible.iter().enumerate() {
        rest.extend(std::iter::repeat_n(k, usize::from(n)));
    }
    obs.concealed = [0; KINDS];
    for &k in &rest[..5] {
        obs.concealed[k] += 1;
    }
    obs.n_discards = 0;
    for (j, &k) in rest[5..].iter().enumerate() {
        obs.discards[j] = SeenDiscard {
            seat: (j % 4) as u8,
            tile: Some(kind(k)),
            face_down: false,
            claimed: false,
        };
        obs.n_discards += 1;
    }
    obs.concealed_count = [5, 4, 4, 1];
    obs.ting = [false, true, true, three_declared];
    obs.wall_remaining = if with_kong { 6 } else { 10 };
    obs.face_up_in_wall = [0; KINDS];
    obs.kongs = u8::from(with_kong);
    (rules, obs)
}

/// Every multiset of `n` tiles out of `pool`, with its number of ways
/// (tiles told apart).
fn subsets(pool: &Counts, n: usize) -> Vec<(Counts, f64)> {
    fn go(
        pool: &Counts,
        k: usize,
        left: usize,
        cur: &mut Counts,
        w: f64,
        out: &mut Vec<(Counts, f64)>,
    ) {
        if left == 0 {
            out.push((*cur, w));
            return;
        }
        if k == KINDS {
            return;
        }
        for take in 0..=pool[k].min(left as u8) {
            cur[k] = take;
            go(
                pool,
                k + 1,
                left - usize::from(take),
                cur,
                w * binom(pool[k], take),
                out,
            );
        }
        cur[k] = 0;
    }
    let mut out = Vec::new();
    go(pool, 0, n, &mut [0; KINDS], 1.0, &mut out);
    out
}

fn binom(n: u8, k: u8) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
}

fn minus(a: &Counts, b: &Counts) -> Counts {
    std::array::from_fn(|k| a[k] - b[k])
}

/// No hidden kong.
const NONE: usize = usize::MAX;

/// One sampled completion's cell: the kong's kind, the two declared hands
/// and seat 3's tile.
type Cell = (usize, Counts, Counts, usize);

/// The cell of a completion.
fn cell_of(h: &Hidden) -> Cell {
    let t = h.concealed[3].iter().position(|&c| c > 0).unwrap();
    let kong = h.concealed_kongs.first().map_or(NONE, |k| k.index());
    (kong, h.concealed[1], h.concealed[2], t)
}

/// The hidden kong's possible kinds (`NONE` without one): every kind
/// wholly unseen.
fn kong_kinds(obs: &Observation) -> Vec<usize> {
    let hidden = obs
        .melds
        .iter()
        .flatten()
        .flatten()
        .any(|m| m.tile.is_none());
    if hidden {
        UNSEEN.iter().filter(|u| u.1 == 4).map(|u| u.0).collect()
    } else {
        vec![NONE]
    }
}

/// The unseen tiles once the hidden kong is `kong` (`NONE`: none).
fn pool_without(kong: usize) -> Counts {
    let mut pool = [0u8; KINDS];
    for (k, n) in UNSEEN {
        pool[k] = n;
    }
    if kong != NONE {
        pool[kong] = 0;
    }
    pool
}

/// Seat `s`'s melds once the hidden kong is `kong`.
fn declared_melds(obs: &Observation, s: usize, kong: usize) -> Vec<Meld> {
    melds_with(obs, &[kind(kong)])[s]
        .iter()
        .flatten()
        .copied()
        .collect()
}

/// The probability of every cell, exactly: uniform among the consistent
/// completions (`exact`), or as the sequential draw makes it (the kong's
/// kind uniform, then seat 1's hand uniform among its ready ones, then
/// seat 2's among those the rest allows).
fn distribution(rules: &Ruleset, obs: &Observation, exact: bool) -> HashMap<Cell, f64> {
    let judge = Judge::new(rules, obs.wilds);
    let mut out = HashMap::new();
    let kong_kinds = kong_kinds(obs);
    let p_kong = 1.0 / kong_kinds.len() as f64;
    for &kong in &kong_kinds {
        let pool = pool_without(kong);
        let ready = |s: usize, c: &Counts| {
            judge.ready_to_declare(&Hand::new(*c, &declared_melds(obs, s, kong)).unwrap())
        };
        let mut cells: Vec<(Cell, f64)> = Vec::new();
        let firsts: Vec<(Counts, f64)> = subsets(&pool, 4)
            .into_iter()
            .filter(|(a, _)| ready(1, a))
            .collect();
        let z1: f64 = firsts.iter().map(|x| x.1).sum();
        for (a, wa) in &firsts {
            let left = minus(&pool, a);
            let seconds: Vec<(Counts, f64)> = subsets(&left, 4)
                .into_iter()
                .filter(|(b, _)| ready(2, b))
                .collect();
            let z2: f64 = seconds.iter().map(|x| x.1).sum();
            for (b, wb) in &seconds {
                let last = minus(&left, b);
                for (t, &c) in last.iter().enumerate().filter(|x| *x.1 > 0) {
                    // Seat 3's tile: c of the tiles left.
                    let p_t = f64::from(c) / last.iter().map(|&x| f64::from(x)).sum::<f64>();
                    let w = if exact {
                        wa * wb * p_t
                    } else {
                        p_kong * wa / z1 * wb / z2 * p_t
                    };
                    cells.push(((kong, *a, *b, t), w));
                }
            }
        }
        for (cell, w) in cells {
            *out.entry(cell).or_insert(0.0) += w;
        }
    }
    let total: f64 = out.values().sum();
    for v in out.values_mut() {
        *v /= total;
    }
    out
}

/// Pearson's chi-square of `counts` against `p` (cells expected fewer
/// than 5 times pooled into one) and its degrees of freedom.
fn chi_square(p: &HashMap<Cell, f64>, counts: &HashMap<Cell, f64>, n: f64) -> (f64, f64) {
    let (mut chi, mut df) = (0.0, -1.0);
    let (mut small_e, mut small_o) = (0.0, 0.0);
    for (cell, &pc) in p {
        let e = pc * n;
        let o = counts.get(cell).copied().unwrap_or(0.0);
        if e < 5.0 {
            small_e += e;
            small_o += o;
        } else {
            chi += (o - e) * (o - e) / e;
            df += 1.0;
        }
    }
    if small_e > 0.0 {
        chi += (small_o - small_e) * (small_o - small_e) / small_e;
        df += 1.0;
    }
    (chi, df)
}

fn sample_cells(
    rules: &Ruleset,
    obs: &Observation,
    sampling: Sampling,
    n: usize,
) -> HashMap<Cell, f64> {
    let judge = Judge::new(rules, obs.wilds);
    let mut rng = SplitMix(2026);
    let mut counts = HashMap::new();
    for _ in 0..n {
        let h = sample_by(&judge, rules, obs, &mut rng, sampling).unwrap();
        *counts.entry(cell_of(&h)).or_insert(0.0) += 1.0;
    }
    counts
}

/// Exact sampling matches the enumerated uniform distribution over the
/// consistent completions, with two declared seats, with a hidden kong
/// (drawn together with the hands) and without (the disjoint ready sets):
/// a chi-square far below its 6-sigma bound. The sequential draw, on the
/// same positions, is told apart from it by the same test (the test can
/// fail, and the exact draw is needed), and matches its own law.
#[test]
fn exact_sampling_is_uniform_with_two_declared_seats() {
    for with_kong in [true, false] {
        let (rules, obs) = constructed(with_kong);
        let exact = distribution(&rules, &obs, true);
        let sequential = distribution(&rules, &obs, false);
        // The two laws differ on this position (what the test must tell apart).
        let tv: f64 = exact
            .iter()
            .map(|(c, p)| (p - sequential.get(c).copied().unwrap_or(0.0)).abs())
            .sum::<f64>()
            / 2.0;
        assert!(tv > 0.03, "kong {with_kong}: total variation {tv}");
        let n = 40_000;
        let bound = |df: f64| df + 6.0 * (2.0 * df).sqrt();
        let got = sample_cells(&rules, &obs, Sampling::Exact, n);
        // Every sampled cell is consistent.
        assert!(
            got.keys().all(|c| exact.contains_key(c)),
            "kong {with_kong}: an inconsistent completion"
        );
        let (chi, df) = chi_square(&exact, &got, n as f64);
        assert!(
            df > 20.0 && chi < bound(df),
            "kong {with_kong}: exact: chi-square {chi:.1} on {df} degrees of freedom"
        );
        let seq = sample_cells(&rules, &obs, Sampling::Sequential, n);
        let (chi_s, df_s) = chi_square(&exact, &seq, n as f64);
        assert!(
            chi_s > bound(df_s),
            "kong {with_kong}: sequential: chi-square {chi_s:.1} on {df_s}"
        );
        let (chi_ss, df_ss) = chi_square(&sequential, &seq, n as f64);
        assert!(
            chi_ss < bound(df_ss),
            "kong {with_kong}: sequential vs its law: chi-square {chi_ss:.1} on {df_ss}"
        );
    }
}

/// With at most one declared seat and no hidden kong the exact draw is the
/// sequential one, draw for draw (mc's tables are those of `sample_hidden`).
#[test]
fn exact_and_sequential_agree_with_one_declared_seat() {
    let rules = Ruleset::shanxi();
    let mut checked = 0;
    for seed in 0..60u64 {
        let mut g = Game::new(&rules, seed, None).unwrap();
        let mut agents: Vec<Box<dyn crate::agent::Agent>> = (0..4)
            .map(|s| crate::agent::builtin("greedy", s).unwrap())
            .collect();
        while let Some(seat) = g.to_act() {
            let obs = g.observe(seat);
            let declared = (0..4)
                .filter(|&s| s != usize::from(seat) && obs.ting[s])
                .count();
            let hidden_kong = obs
                .melds
                .iter()
                .flatten()
                .flatten()
                .any(|m| m.tile.is_none());
            if declared == 1 && !hidden_kong {
                let judge = Judge::new(&rules, obs.wilds);
                let a = sample_by(&judge, &rules, &obs, &mut SplitMix(seed), Sampling::Exact);
                let b = sample_by(
                    &judge,
                    &rules,
                    &obs,
                    &mut SplitMix(seed),
                    Sampling::Sequential,
                );
                assert_eq!(a.ok(), b.ok());
                checked += 1;
            }
            let a = agents[usize::from(seat)].act(&crate::agent::SeatView::new(&g, seat));
            g.step(a).unwrap();
        }
    }
    assert!(checked > 50, "{checked} positions");
}

/// The cost of exact sampling (a measurement, not a check; run with
/// `cargo test -p koudian-core --release --lib sampling_cost -- --ignored
/// --nocapture`): the time per completion of the exact and the
/// sequential draw on every position of greedy Shanxi hands, by the
/// number of other seats that have declared.
#[test]
#[ignore]
fn sampling_cost() {
    use std::time::Instant;
    let seeds: u64 = std::env::var("SAMPLING_COST_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    for rules in [Ruleset::shanxi(), Ruleset::linxian()] {
        // Per number of declared other seats: positions, exact and
        // sequential seconds, exact and sequential errors.
        let mut by = [(0usize, 0f64, 0f64, 0usize, 0usize); 4];
        for seed in 0..seeds {
            let mut g = Game::new(&rules, seed, None).unwrap();
            let mut agents: Vec<Box<dyn crate::agent::Agent>> = (0..4)
                .map(|s| crate::agent::builtin("greedy", s).unwrap())
                .collect();
            let mut step = 0;
            while let Some(seat) = g.to_act() {
                step += 1;
                let obs = g.observe(seat);
                let declared = (0..4)
                    .filter(|&s| s != usize::from(seat) && obs.ting[s])
                    .count();
                if step % 5 == 0 {
                    let judge = Judge::new(&rules, obs.wilds);
                    let row = &mut by[declared];
                    row.0 += 1;
                    for (mode, slot) in [(Sampling::Exact, 1), (Sampling::Sequential, 2)] {
                        let t = Instant::now();
                        for i in 0..10 {
                            let r = sample_by(
                                &judge,
                                &rules,
                                &obs,
                                &mut SplitMix(seed ^ i << 20),
                                mode,
                            );
                            if r.is_err() {
                                row.3 += usize::from(mode == Sampling::Exact);
                                row.4 += usize::from(mode == Sampling::Sequential);
                            }
                        }
                        let dt = t.elapsed().as_secs_f64() / 10.0;
                        if dt > 0.01 {
                            println!(
                                "  slow: {mode:?} {:.0} ms, {declared} declared, concealed {:?}, wall {}",
                                1e3 * dt,
                                obs.concealed_count,
                                obs.wall_remaining
                            );
                        }
                        if slot == 1 {
                            row.1 += dt;
                        } else {
                            row.2 += dt;
                        }
                    }
                }
                let a = agents[usize::from(seat)].act(&crate::agent::SeatView::new(&g, seat));
                g.step(a).unwrap();
            }
        }
        for (declared, (n, exact, seq, failed, seq_failed)) in by.iter().enumerate() {
            if *n == 0 {
                continue;
            }
            let n_f = *n as f64;
            println!(
                "{:?} declared {declared}: {n} positions, exact {:.1} µs, sequential {:.1} µs per completion (ratio {:.2}), errors: exact {failed}, sequential {seq_failed} (of {} each)",
                rules.family,
                1e6 * exact / n_f,
                1e6 * seq / n_f,
                exact / seq,
                10 * n
            );
        }
    }
}

/// The exact law with every seat 1-3 declared, by brute force over the
/// hands (deliberately simple): every kind for the hidden kong, every
/// pair of disjoint ready hands for seats 1 and 2, every ready tile for
/// seat 3, each weighted by its number of copy sets.
fn law_three(rules: &Ruleset, obs: &Observation) -> HashMap<Cell, f64> {
    let judge = Judge::new(rules, obs.wilds);
    let kong_kinds = kong_kinds(obs);
    let mut out = HashMap::new();
    for &kong in &kong_kinds {
        let pool = pool_without(kong);
        let ready = |s: usize, c: &Counts| {
            judge.ready_to_declare(&Hand::new(*c, &declared_melds(obs, s, kong)).unwrap())
        };
        for (a, wa) in subsets(&pool, 4) {
            if !ready(1, &a) {
                continue;
            }
            let left = minus(&pool, &a);
            for (b, wb) in subsets(&left, 4) {
                if !ready(2, &b) {
                    continue;
                }
                let last = minus(&left, &b);
                for (c, wc) in subsets(&last, 1) {
                    if ready(3, &c) {
                        let t = c.iter().position(|&x| x > 0).unwrap();
                        *out.entry((kong, a, b, t)).or_insert(0.0) += wa * wb * wc;
                    }
                }
            }
        }
    }
    let total: f64 = out.values().sum();
    for v in out.values_mut() {
        *v /= total;
    }
    out
}

/// [`sample_cells`] with the joint draw's limits `caps`, checking that
/// every draw kept the exact law.
fn sample_cells_with(
    rules: &Ruleset,
    obs: &Observation,
    caps: joint::Caps,
    n: usize,
) -> HashMap<Cell, f64> {
    let judge = Judge::new(rules, obs.wilds);
    let mut rng = SplitMix(2027);
    let mut counts = HashMap::new();
    for _ in 0..n {
        let mut work = Work {
            caps,
            ..Work::default()
        };
        let h = sample_counted(&judge, rules, obs, &mut rng, Sampling::Exact, &mut work).unwrap();
        assert!(work.exact && !work.fallback, "{work:?}");
        *counts.entry(cell_of(&h)).or_insert(0.0) += 1.0;
    }
    counts
}

/// Exact sampling with three declared seats (two 4-tile hands and a
/// 1-tile one) matches the brute-force law, with and without a hidden
/// kong (seat 3's), by each path of the joint draw: every hand listed,
/// the largest drawn last once per proposal, and (without the kong)
/// none listed, each drawn alone and the proposal kept by the disjoint
/// chance.
#[test]
fn exact_sampling_is_uniform_with_three_declared_seats() {
    let bound = |df: f64| df + 6.0 * (2.0 * df).sqrt();
    for with_kong in [false, true] {
        let (rules, obs) = constructed_with(with_kong, &UNSEEN, true);
        let law = law_three(&rules, &obs);
        assert!(law.len() > 30, "kong {with_kong}: {} cells", law.len());
        let listed = joint::Caps::default();
        let last_once = joint::Caps {
            list_always: 0,
            ..listed
        };
        let none_listed = joint::Caps { list: 0, ..listed };
        let mut paths = vec![("listed", listed), ("last once", last_once)];
        if !with_kong {
            paths.push(("none listed", none_listed));
        }
        for (name, caps) in paths {
            let n = 30_000;
            let got = sample_cells_with(&rules, &obs, caps, n);
            assert!(
                got.keys().all(|c| law.contains_key(c)),
                "kong {with_kong}, {name}: an inconsistent completion"
            );
            let (chi, df) = chi_square(&law, &got, n as f64);
            assert!(
                df > 20.0 && chi < bound(df),
                "kong {with_kong}, {name}: chi-square {chi:.1} on {df} degrees of freedom"
            );
        }
    }
}

/// A ready list holds exactly the ready hands a brute force over every
/// count vector of the pool finds, with their weights: for 4, 7, 10 and
/// 13 tiles, with and without wild kinds, under Shanxi, Linxian and a
/// ruleset with every shape (seven pairs, thirteen orphans, wind sets),
/// on pools of a few kinds (one of the orphans only).
#[test]
fn ready_lists_hold_every_ready_hand() {
    let every_shape = Ruleset {
        seven_pairs: true,
        thirteen_orphans: true,
        wind_sets: true,
        ..Ruleset::shanxi()
    };
    let orphans: Vec<usize> = crate::tile::KindSet::ORPHANS
        .iter()
        .map(|t| t.index())
        .collect();
    let mut rng = SplitMix(11);
    let mut checked = 0;
    for rules in [Ruleset::shanxi(), Ruleset::linxian(), every_shape] {
        for wilds in crate::testing::wild_sets() {
            let judge = Judge::new(&rules, wilds);
            for trial in 0..6 {
                let mut pool = [0u8; KINDS];
                if trial == 0 {
                    for &k in &orphans {
                        pool[k] = 1 + rng.below(2) as u8;
                    }
                } else {
                    for _ in 0..6 + trial {
                        let k = rng.below(34) as usize;
                        pool[k] = 1 + rng.below(4) as u8;
                    }
                    for t in wilds.kinds().filter(|_| trial % 2 == 0) {
                        pool[t.index()] = 1 + rng.below(3) as u8;
                    }
                }
                let free: Vec<usize> = (0..KINDS)
                    .filter(|&k| pool[k] == 0 && wilds.kinds().all(|t| t.index() != k))
                    .collect();
                for (n, n_melds) in [(4, 3), (7, 2), (10, 1), (13, 0)] {
                    let melds: Vec<Meld> = free[..n_melds]
                        .iter()
                        .map(|&k| Meld::new(MeldKind::Pong, kind(k)))
                        .collect();
                    let brute: HashMap<Counts, f64> = subsets(&pool, n)
                        .into_iter()
                        .filter(|(c, _)| judge.ready_to_declare(&Hand::new(*c, &melds).unwrap()))
                        .collect();
                    let list =
                        joint::ready_list(&judge, &rules, &pool, n, &melds, usize::MAX, usize::MAX)
                            .unwrap();
                    let got: HashMap<Counts, f64> = list
                        .hands
                        .iter()
                        .map(|h| (*h, joint::weight(&pool, h)))
                        .collect();
                    assert_eq!(got.len(), list.hands.len(), "a hand listed twice");
                    assert_eq!(
                        got, brute,
                        "{:?} {wilds:?} n {n}, pool {pool:?}",
                        rules.family
                    );
                    checked += brute.len();
                }
            }
        }
    }
    assert!(checked > 5_000, "{checked} ready hands");
}

/// The positions of greedy games (Shanxi and Linxian) where three other
/// seats have declared, up to `want` of each ruleset, and the first
/// one with a hidden concealed kong too.
fn three_declared_positions(want: usize) -> Vec<(Ruleset, Observation)> {
    let mut out = Vec::new();
    for rules in [Ruleset::shanxi(), Ruleset::linxian()] {
        let (mut plain, mut kong) = (0, 0);
        for seed in 0.. {
            if plain >= want && (kong >= 1 || rules.family == crate::ruleset::Family::Shanxi)
                || seed > 400
            {
                break;
            }
            let mut g = Game::new(&rules, seed, None).unwrap();
            let mut agents: Vec<Box<dyn crate::agent::Agent>> = (0..4)
                .map(|s| crate::agent::builtin("greedy", s).unwrap())
                .collect();
            let mut taken = false;
            while let Some(seat) = g.to_act() {
                let obs = g.observe(seat);
                let three = (0..4)
                    .filter(|&s| s != usize::from(seat) && obs.ting[s])
                    .count()
                    == 3;
                let hidden = obs
                    .melds
                    .iter()
                    .flatten()
                    .flatten()
                    .any(|m| m.tile.is_none());
                if three && !taken && (if hidden { kong < 1 } else { plain < want }) {
                    // One position a game: the first with three declared.
                    taken = true;
                    if hidden {
                        kong += 1;
                    } else {
                        plain += 1;
                    }
                    out.push((rules.clone(), obs));
                }
                let a = agents[usize::from(seat)].act(&crate::agent::SeatView::new(&g, seat));
                g.step(a).unwrap();
            }
        }
    }
    out
}

/// With three declared seats (and a hidden kong alongside) on positions
/// of real greedy games (on three of the six without a kong the rejection
/// draw the joint draw replaced gave up after 2,000,000 draws 3 or 4 times
/// in 4, `old_draw_on_three_declared_seats`; with the kong it drew the
/// kind and all hands again at each miss): every completion
/// succeeds, rebuilds a table
/// showing the seat exactly its observation, and stays within the work
/// caps (hands listed, proposals and readiness tests counted; no timing).
#[test]
fn three_declared_seats_of_real_games_complete() {
    let positions = three_declared_positions(3);
    assert!(positions.len() >= 6, "{} positions", positions.len());
    let caps = joint::Caps::default();
    let mut kongs = 0;
    for (i, (rules, obs)) in positions.iter().enumerate() {
        let judge = Judge::new(rules, obs.wilds);
        kongs += usize::from(
            obs.melds
                .iter()
                .flatten()
                .flatten()
                .any(|m| m.tile.is_none()),
        );
        for d in 0..2u64 {
            let mut work = Work::default();
            let h = sample_counted(
                &judge,
                rules,
                obs,
                &mut SplitMix(i as u64 * 7 + d),
                Sampling::Exact,
                &mut work,
            )
            .unwrap_or_else(|e| panic!("position {i}: {e}"));
            let g = Game::from_observation(rules, obs, &h, None)
                .unwrap_or_else(|e| panic!("position {i}: {e}"));
            assert_eq!(g.observe(obs.seat), *obs, "position {i}");
            assert!(
                work.proposals + work.tests <= caps.work,
                "position {i}: {work:?}"
            );
            assert!(work.listed <= 3 * caps.list, "position {i}: {work:?}");
        }
    }
    assert!(kongs >= 1, "no position with a hidden kong");
}

/// The rejection draw `sample_hidden` used before the joint draw (kept
/// here only to measure it): each declared hand drawn alone as a uniform
/// ready set of the unseen tiles, all drawn again until they are
/// disjoint, giving up after 2,000,000 hand draws.
fn old_disjoint_ready(
    judge: &Judge,
    obs: &Observation,
    pool: &[Tile],
    seats: &[usize],
    rng: &mut SplitMix,
) -> bool {
    let mut idx: Vec<usize> = (0..pool.len()).collect();
    let mut draws = 0;
    'round: loop {
        let mut used = vec![false; pool.len()];
        for &s in seats {
            let n = usize::from(obs.concealed_count[s]);
            let melds: Vec<Meld> = melds_with(obs, &[])[s].iter().flatten().copied().collect();
            loop {
                partial_shuffle(&mut idx, n, rng);
                let mut c = [0u8; KINDS];
                for &i in &idx[..n] {
                    c[pool[i].index()] += 1;
                }
                draws += 1;
                if judge.ready_to_declare(&Hand::new(c, &melds).unwrap()) {
                    break;
                }
                if draws >= 2_000_000 {
                    return false;
                }
            }
            if idx[..n].iter().any(|&i| used[i]) {
                if draws >= 2_000_000 {
                    return false;
                }
                continue 'round;
            }
            for &i in &idx[..n] {
                used[i] = true;
            }
        }
        return true;
    }
}

/// How often the old rejection draw gave up on the positions of
/// `three_declared_seats_of_real_games_complete` without a hidden kong (a
/// measurement; `cargo test -p koudian-core --release --lib
/// old_draw_on_three_declared_seats -- --ignored --nocapture`).
#[test]
#[ignore]
fn old_draw_on_three_declared_seats() {
    for (i, (rules, obs)) in three_declared_positions(3).iter().enumerate() {
        if obs
            .melds
            .iter()
            .flatten()
            .flatten()
            .any(|m| m.tile.is_none())
        {
            continue;
        }
        let judge = Judge::new(rules, obs.wilds);
        let seen = obs.visible_counts();
        let unseen: Counts = std::array::from_fn(|k| {
            if k < crate::legal::kind_count(rules) {
                4 - seen[k]
            } else {
                0
            }
        });
        let mut pool = Vec::new();
        tiles_of(&unseen, &mut pool);
        let me = usize::from(obs.seat);
        let seats: Vec<usize> = (0..4).filter(|&s| s != me && obs.ting[s]).collect();
        let fails = (0..4u64)
            .filter(|&d| !old_disjoint_ready(&judge, obs, &pool, &seats, &mut SplitMix(d)))
            .count();
        println!(
            "position {i} ({:?}, hands {:?}): the old draw gave up {fails} times in 4",
            rules.family,
            seats
                .iter()
                .map(|&s| obs.concealed_count[s])
                .collect::<Vec<_>>()
        );
    }
}

/// The joint draw's work on positions of greedy hands (a measurement, not
/// a check; `cargo test -p koudian-core --release --lib joint_probe --
/// --ignored --nocapture`): per position with two or more declared seats
/// (every seventh; with `PROBE3` set, every one with three), its time and
/// [`Work`] (hands listed, proposals, tests, whether it fell back and
/// whether the law was exact). `PROBE_SEEDS` hands per ruleset (20).
#[test]
#[ignore]
fn joint_probe() {
    use std::time::Instant;
    for rules in [Ruleset::shanxi(), Ruleset::linxian()] {
        for seed in 0..std::env::var("PROBE_SEEDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20u64)
        {
            let mut g = Game::new(&rules, seed, None).unwrap();
            let mut agents: Vec<Box<dyn crate::agent::Agent>> = (0..4)
                .map(|s| crate::agent::builtin("greedy", s).unwrap())
                .collect();
            let mut step = 0;
            while let Some(seat) = g.to_act() {
                step += 1;
                let obs = g.observe(seat);
                let me = usize::from(seat);
                let declared: Vec<usize> = (0..4).filter(|&s| s != me && obs.ting[s]).collect();
                let kong = obs
                    .melds
                    .iter()
                    .flatten()
                    .flatten()
                    .any(|m| m.tile.is_none());
                let want3 = std::env::var("PROBE3").is_ok();
                if (want3 && declared.len() == 3)
                    || (!want3 && declared.len() >= 2 && step % 7 == 0)
                {
                    let judge = Judge::new(&rules, obs.wilds);
                    let mut work = Work::default();
                    let t = Instant::now();
                    let r = sample_counted(
                        &judge,
                        &rules,
                        &obs,
                        &mut SplitMix(seed),
                        Sampling::Exact,
                        &mut work,
                    );
                    let dt = t.elapsed().as_secs_f64() * 1e3;
                    let ns: Vec<u8> = declared.iter().map(|&s| obs.concealed_count[s]).collect();
                    println!(
                        "{:?} seed {seed} step {step} kong {kong} n={ns:?} {dt:.1} ms ok={} {work:?}",
                        rules.family,
                        r.is_ok()
                    );
                }
                let a = agents[me].act(&crate::agent::SeatView::new(&g, seat));
                g.step(a).unwrap();
            }
        }
    }
}
