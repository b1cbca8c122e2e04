//! Positions: `Game::from_observation` rebuilds a table from one seat's
//! observation and a completion of what it hides, and `sample_hidden`
//! draws such completions uniformly.

use koudian_core::agent::{builtin, Agent, RandomAgent, SeatView};
use koudian_core::game::{sample_hidden, Game, Hidden, Prng};
use koudian_core::ruleset::{Haozi, HaoziPick, PassScope, Ruleset};
use koudian_core::{Error, Tile};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

fn presets() -> Vec<(&'static str, Ruleset)> {
    let mut v = vec![
        ("shanxi", Ruleset::shanxi()),
        ("linxian", Ruleset::linxian()),
        ("sichuan", Ruleset::sichuan()),
    ];
    for (name, haozi) in [
        ("shanxi-haozi", Haozi::Single),
        ("shanxi-feng-haozi", Haozi::Feng),
        ("shanxi-double-haozi", Haozi::Double),
    ] {
        let mut r = Ruleset::shanxi();
        r.haozi = haozi;
        v.push((name, r));
    }
    let mut r = Ruleset::shanxi();
    r.haozi = Haozi::Single;
    r.haozi_pick = HaoziPick::Indicator;
    v.push(("shanxi-haozi-indicator", r));
    let mut r = Ruleset::shanxi();
    r.pass_scope = PassScope::Tile;
    r.must_win = true;
    r.kong_after_pong = true;
    v.push(("shanxi-tile-lock", r));
    v
}

/// Plays `a` and `b` on with the same choices (a seeded random agent per
/// seat, the same for both) and requires the same tables: every seat's
/// observation after every step, and the same result.
fn same_continuation(a: &mut Game, b: &mut Game, seed: u64, what: &str) {
    let mut agents: Vec<RandomAgent> = (0..4).map(|s| RandomAgent::new(seed + s)).collect();
    while let Some(seat) = a.to_act() {
        for s in 0..4 {
            assert_eq!(a.observe(s), b.observe(s), "{what}: seat {s}");
        }
        assert_eq!(a.legal_actions(), b.legal_actions(), "{what}");
        let act = agents[seat as usize].act(&SeatView::new(a, seat));
        a.step(act).unwrap();
        b.step(act).unwrap_or_else(|e| panic!("{what}: {e}"));
    }
    assert!(b.is_over(), "{what}");
    assert_eq!(a.result(), b.result(), "{what}");
    // The same payments; a rebuilt table lists its kongs by seat and
    // meld, not in the order they were made.
    let payments = |g: &Game| {
        g.settlement().map(|s| {
            let mut p: Vec<String> = s.payments.iter().map(|p| format!("{p:?}")).collect();
            p.sort();
            (s.deltas, p)
        })
    };
    assert_eq!(payments(a), payments(b), "{what}");
}

/// Rebuilt from the seat to act's own observation plus the true hidden
/// tiles, a table continues exactly as the original, at many decisions
/// of many seeded hands of every preset (greedy play, so that seats
/// declare ting, meld and kong).
#[test]
fn from_observation_round_trips_real_games() {
    for (name, rules) in presets() {
        let mut checked = 0;
        for seed in 0..24u64 {
            let mut g = Game::new(&rules, seed, None).unwrap();
            g.set_recording(false);
            let mut agents: Vec<Box<dyn Agent>> = (0..4)
                .map(|s| builtin("greedy", seed * 4 + s).unwrap())
                .collect();
            let mut i = 0u64;
            while let Some(seat) = g.to_act() {
                if i % 5 == seed % 5 {
                    let obs = g.observe(seat);
                    let what = format!("{name} seed {seed} decision {i}");
                    let mut rebuilt =
                        Game::from_observation(&rules, &obs, &g.hidden(seat), Some(seed))
                            .unwrap_or_else(|e| panic!("{what}: {e}"));
                    let mut original = g.clone();
                    same_continuation(&mut original, &mut rebuilt, seed + i, &what);
                    checked += 1;
                }
                let a = agents[seat as usize].act(&SeatView::new(&g, seat));
                g.step(a).unwrap();
                i += 1;
            }
        }
        assert!(checked > 100, "{name}: {checked}");
    }
}

/// Broken completions are refused with a message naming what is wrong.
#[test]
fn inconsistent_completions_are_refused() {
    let rules = Ruleset::shanxi();
    let g = Game::new(&rules, 4, None).unwrap();
    let seat = g.to_act().unwrap();
    let obs = g.observe(seat);
    let good = g.hidden(seat);
    let other = (seat + 1) as usize & 3;
    // A tile moved from the wall into a hand: the counts no longer fit.
    let mut h = good.clone();
    let t = h.wall.pop().unwrap();
    h.concealed[other][t.index()] += 1;
    let e = Game::from_observation(&rules, &obs, &h, None).unwrap_err();
    assert!(e.to_string().contains("concealed tiles"), "{e}");
    // Two tiles of another seat swapped for two others: the census breaks.
    let mut h = good.clone();
    let k = h.concealed[other].iter().position(|&c| c > 0).unwrap();
    h.concealed[other][k] -= 1;
    let j = (k + 1..27).find(|&j| h.concealed[other][j] == 0).unwrap();
    h.concealed[other][j] += 1;
    let e = Game::from_observation(&rules, &obs, &h, None).unwrap_err();
    assert!(e.to_string().contains("the position holds"), "{e}");
    // A short wall.
    let mut h = good.clone();
    h.wall.truncate(10);
    assert!(Game::from_observation(&rules, &obs, &h, None).is_err());
    // Not the seat to act.
    let e = Game::from_observation(&rules, &g.observe(seat + 1), &good, None).unwrap_err();
    assert!(e.to_string().contains("not to act"), "{e}");
    // The observer's own tiles replaced.
    let mut h = good.clone();
    h.concealed.swap(seat as usize, other);
    assert!(Game::from_observation(&rules, &obs, &h, None).is_err());
    assert!(Game::from_observation(&rules, &obs, &Hidden::default(), None).is_err());
}

/// A declared hand that is not ready is refused.
#[test]
fn a_declared_seat_must_be_ready() {
    let rules = Ruleset::shanxi();
    for seed in 0..200u64 {
        let mut g = Game::new(&rules, seed, None).unwrap();
        let mut agents: Vec<Box<dyn Agent>> =
            (0..4).map(|s| builtin("greedy", s).unwrap()).collect();
        while let Some(seat) = g.to_act() {
            let obs = g.observe(seat);
            if let Some(d) = (0..4).find(|&s| s != seat && obs.ting[s as usize]) {
                // Swap the declared seat's hand with the wall's front
                // tiles: census kept, readiness (almost surely) lost.
                let mut h = g.hidden(seat);
                let d = d as usize;
                let mut tiles: Vec<Tile> = Vec::new();
                for k in 0..34 {
                    for _ in 0..h.concealed[d][k] {
                        tiles.push(Tile::new(k as u8).unwrap());
                    }
                }
                let n = tiles.len().min(h.wall.len());
                for (i, t) in tiles.iter().take(n).enumerate() {
                    let w = h.wall[i];
                    h.concealed[d][t.index()] -= 1;
                    h.concealed[d][w.index()] += 1;
                    h.wall[i] = *t;
                }
                if let Err(e) = Game::from_observation(&rules, &obs, &h, None) {
                    if e.to_string().contains("declared ting") {
                        return;
                    }
                }
            }
            let a = agents[seat as usize].act(&SeatView::new(&g, seat));
            g.step(a).unwrap();
        }
    }
    panic!("no declared hand was refused");
}

/// Seeded positions of a preset: the table after `k` greedy decisions of
/// hand `seed` (or the last decision before its end).
fn position(rules: &Ruleset, seed: u64, k: usize) -> Game {
    let mut g = Game::new(rules, seed, None).unwrap();
    g.set_recording(false);
    let mut agents: Vec<Box<dyn Agent>> = (0..4)
        .map(|s| builtin("greedy", seed + s).unwrap())
        .collect();
    let mut last = g.clone();
    for _ in 0..k {
        let Some(seat) = g.to_act() else { break };
        last = g.clone();
        let a = agents[seat as usize].act(&SeatView::new(&g, seat));
        g.step(a).unwrap();
    }
    if g.is_over() {
        last
    } else {
        g
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Every sampled completion rebuilds a table that shows the seat
    /// exactly its observation (`from_observation` checks the census, the
    /// declared hands, the locks and the legal actions), and plays to a
    /// zero-sum end.
    #[test]
    fn sampled_completions_are_consistent(p in 0usize..8, seed in 0u64..5000, k in 0usize..120, s in any::<u64>()) {
        let (name, rules) = &presets()[p];
        let g = position(rules, seed, k);
        let seat = g.to_act().unwrap();
        let obs = g.observe(seat);
        let h = match sample_hidden(rules, &obs, &mut Prng::new(s)) {
            Ok(h) => h,
            // Documented: a declared hand the bounded redraw cannot make
            // ready is an error, never an inconsistent completion (rare
            // late in a hand, where few of the unseen tiles make one).
            Err(Error::InvalidPosition(m))
                if m.contains("no ready hand for declared seat")
                    || m.contains("no disjoint ready hands") =>
            {
                return Err(TestCaseError::reject(m));
            }
            Err(e) => panic!("{name} {seed} {k}: {e}"),
        };
        let mut w = Game::from_observation(rules, &obs, &h, None)
            .unwrap_or_else(|e| panic!("{name} {seed} {k}: {e}"));
        prop_assert_eq!(w.observe(seat), obs);
        let mut a = RandomAgent::new(s);
        while let Some(t) = w.to_act() {
            let act = a.act(&SeatView::new(&w, t));
            w.step(act).unwrap();
        }
        prop_assert_eq!(w.result().unwrap().deltas.iter().sum::<i64>(), 0);
    }
}

/// Marginals: the next wall tile, and a tile of another seat's hand, are
/// each of kind `k` with probability (unseen copies of k) / (unseen tiles)
/// when nobody has declared (a fixed seed, a generous 6-sigma bound).
#[test]
fn sampled_marginals_are_uniform() {
    for rules in [Ruleset::shanxi(), Ruleset::sichuan()] {
        let g = position(&rules, 11, 9);
        let seat = g.to_act().unwrap();
        let obs = g.observe(seat);
        assert_eq!(obs.ting, [false; 4]);
        let seen = obs.visible_counts();
        let kinds = rules.tile_total() / 4;
        let unseen: Vec<f64> = (0..kinds).map(|k| f64::from(4 - seen[k])).collect();
        let total: f64 = unseen.iter().sum();
        let other = (seat + 2) as usize & 3;
        let n_other = f64::from(obs.concealed_count[other]);
        let n = 20_000;
        let (mut front, mut held) = (vec![0f64; kinds], vec![0f64; kinds]);
        let mut rng = Prng::new(2026);
        for _ in 0..n {
            let h = sample_hidden(&rules, &obs, &mut rng).unwrap();
            front[h.wall[0].index()] += 1.0;
            for (m, &c) in held.iter_mut().zip(&h.concealed[other]) {
                *m += f64::from(c);
            }
        }
        for k in 0..kinds {
            let p = unseen[k] / total;
            let sd = (p * (1.0 - p) / f64::from(n)).sqrt();
            let f = front[k] / f64::from(n);
            assert!(
                (f - p).abs() <= 6.0 * sd + 1e-9,
                "front kind {k}: {f} vs {p}"
            );
            // Expected copies of k in the other hand: n_other * p.
            let m = held[k] / f64::from(n);
            let sd_m = (n_other * p * (1.0 - p) / f64::from(n)).sqrt();
            assert!(
                (m - n_other * p).abs() <= 6.0 * sd_m + 1e-9,
                "held kind {k}: {m} vs {}",
                n_other * p
            );
        }
    }
}
