//! Native self-play driver for profiling and regression checks.
//!
//! `cargo run --release --example selfplay -- play N [preset]` plays N
//! seeded one-hand games with random agents, recording off (run it under
//! `valgrind --tool=callgrind` for instruction counts);
//! `... -- deal N` only deals (the baseline);
//! `... -- sim N [preset] [threads] [agent]` plays them through
//! `simulate` with four `random` (default) or `greedy` agents and prints
//! hands per second after a warm-up (the parallel driver's overhead,
//! compared with `play`, and its scaling with threads);
//! `... -- greedy N [preset]` plays them with greedy agents;
//! `... -- check` prints a digest of logs, observations and results of
//! seeded hands for every preset, to compare before and after a change.

use koudian_core::agent::{builtin, Agent, GreedyAgent, RandomAgent};
use koudian_core::game::{mix_seed, Game};
use koudian_core::ruleset::{Haozi, Ruleset};
use koudian_core::simulate::{play_hand, simulate};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

fn presets() -> Vec<(&'static str, Ruleset)> {
    let haozi = Ruleset {
        haozi: Haozi::Single,
        ..Ruleset::shanxi()
    };
    vec![
        ("shanxi", Ruleset::shanxi()),
        ("shanxi-haozi", haozi),
        ("linxian", Ruleset::linxian()),
        ("sichuan", Ruleset::sichuan()),
    ]
}

fn randoms() -> [Box<dyn Agent>; 4] {
    std::array::from_fn(|s| -> Box<dyn Agent> { Box::new(RandomAgent::new(s as u64)) })
}

/// Folds one hand's decisions and first score change into a checksum
/// (wrapping: a negative score change is a large `u64`).
fn checksum(acc: u64, decisions: u32, delta: i64) -> u64 {
    acc.wrapping_add(u64::from(decisions))
        .wrapping_add(delta as u64)
}

/// Plays `n` seeded hands with recording off; a checksum of the results
/// (so that the work cannot be optimized away).
fn play_many(rules: &Ruleset, mut agents: [Box<dyn Agent>; 4], n: u64) -> u64 {
    let mut acc = 0u64;
    for i in 0..n {
        let (g, d, _) = play_hand(
            rules,
            mix_seed(7, i),
            Some((i % 4) as u8),
            &mut agents,
            false,
        )
        .unwrap();
        acc = checksum(acc, d, g.result().unwrap().deltas[0]);
    }
    acc
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("check");
    let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(200);
    let preset = args.get(3).map(String::as_str).unwrap_or("shanxi");
    let rules = presets()
        .into_iter()
        .find(|(name, _)| *name == preset)
        .map(|(_, r)| r)
        .unwrap_or_else(Ruleset::shanxi);
    match mode {
        "deal" => {
            let mut acc = 0u64;
            for i in 0..n {
                let g = Game::new(&rules, mix_seed(7, i), Some((i % 4) as u8)).unwrap();
                acc = acc.wrapping_add(g.wall().remaining() as u64);
            }
            println!("{acc}");
        }
        "play" => println!("{}", play_many(&rules, randoms(), n)),
        "sim" => {
            let threads = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
            let agent = args.get(5).map(String::as_str).unwrap_or("random");
            let make = |s: usize| builtin(agent, s as u64).unwrap();
            // The pool, the tables and the agents' caches warmed up.
            simulate(&rules, n.min(200), 99, threads, make).unwrap();
            let start = std::time::Instant::now();
            let sims = simulate(&rules, n, 7, threads, make).unwrap();
            let rate = n as f64 / start.elapsed().as_secs_f64();
            let acc = sims
                .iter()
                .fold(0u64, |a, h| checksum(a, h.decisions, h.deltas[0]));
            println!("{rate:.0} hands/s (checksum {acc})");
        }
        "greedy" => {
            let greedy =
                std::array::from_fn(|s| -> Box<dyn Agent> { Box::new(GreedyAgent::new(s as u64)) });
            println!("{}", play_many(&rules, greedy, n));
        }
        _ => {
            for (name, rules) in presets() {
                let mut h = DefaultHasher::new();
                let mut agents = randoms();
                for i in 0..n {
                    let (g, d, f) = play_hand(
                        &rules,
                        mix_seed(11, i),
                        Some((i % 4) as u8),
                        &mut agents,
                        true,
                    )
                    .unwrap();
                    g.log().hash(&mut h);
                    (d, f, format!("{:?}", g.result())).hash(&mut h);
                    format!("{:?}", g.settlement()).hash(&mut h);
                }
                // Observations and legal masks at every step of a few hands.
                let mut ho = DefaultHasher::new();
                for i in 0..n / 10 {
                    let mut g = Game::new(&rules, mix_seed(13, i), None).unwrap();
                    let mut a = RandomAgent::new(i);
                    while let Some(seat) = g.to_act() {
                        for s in 0..4 {
                            format!("{:?}", g.observe(s)).hash(&mut ho);
                        }
                        format!("{:?}", g.legal_actions()).hash(&mut ho);
                        let act = a.act(&koudian_core::agent::SeatView::new(&g, seat));
                        g.step(act).unwrap();
                    }
                }
                let sims = simulate(&rules, n * 5, 5, 2, |s| {
                    Box::new(RandomAgent::new(s as u64))
                })
                .unwrap();
                let mut hs = DefaultHasher::new();
                sims.hash(&mut hs);
                let sg =
                    simulate(&rules, n, 5, 2, |s| Box::new(GreedyAgent::new(s as u64))).unwrap();
                let mut hg = DefaultHasher::new();
                sg.hash(&mut hg);
                println!(
                    "{name}: logs {:016x} obs {:016x} sim-random {:016x} sim-greedy {:016x}",
                    h.finish(),
                    ho.finish(),
                    hs.finish(),
                    hg.finish()
                );
            }
        }
    }
}
