//! The cost of `sample_hidden` (a benchmark, not a test): milliseconds
//! per completion on the positions of greedy hands, by the number of other
//! seats that have declared, on shanxi and linxian. Every position with
//! two or more declared seats is sampled, every fifth of the others.
//!
//! `cargo run --release -p koudian-core --example sample_cost [SEEDS]`
//! (default 40 hands per ruleset). Prints, per ruleset and number of
//! declared seats: positions, completions, median / 90th percentile /
//! largest milliseconds per completion, and errors.
use koudian_core::agent::{builtin, SeatView};
use koudian_core::game::{sample_hidden, Game, Prng};
use koudian_core::Ruleset;
use std::time::Instant;

fn main() {
    let seeds: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    for rules in [Ruleset::shanxi(), Ruleset::linxian()] {
        // Per number of declared other seats: times (ms) and errors.
        let mut by: [(Vec<f64>, usize); 4] = Default::default();
        for seed in 0..seeds {
            let mut g = Game::new(&rules, seed, None).unwrap();
            let mut agents: Vec<_> = (0..4).map(|s| builtin("greedy", s).unwrap()).collect();
            let mut step = 0u64;
            while let Some(seat) = g.to_act() {
                step += 1;
                let obs = g.observe(seat);
                let declared = (0..4)
                    .filter(|&s| s != usize::from(seat) && obs.ting[s])
                    .count();
                if declared >= 2 || step.is_multiple_of(5) {
                    let t = Instant::now();
                    let r = sample_hidden(&rules, &obs, &mut Prng::new(seed << 16 | step));
                    by[declared].0.push(t.elapsed().as_secs_f64() * 1e3);
                    by[declared].1 += usize::from(r.is_err());
                }
                let a = agents[usize::from(seat)].act(&SeatView::new(&g, seat));
                g.step(a).unwrap();
            }
        }
        for (declared, (times, errors)) in by.iter_mut().enumerate() {
            if times.is_empty() {
                continue;
            }
            times.sort_by(f64::total_cmp);
            let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
            println!(
                "{:?}, {declared} declared: {} completions, {:.2} ms median, {:.1} ms p90, {:.0} ms max, {errors} errors",
                rules.family,
                times.len(),
                at(0.5),
                at(0.9),
                at(1.0),
            );
        }
    }
}
