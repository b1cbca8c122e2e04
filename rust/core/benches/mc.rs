//! The Monte Carlo agent's time per decision (issue 27 target: the
//! default budget decides in at most 5 ms on one core, the median over
//! decisions with a choice). Each iteration is one decision of `mc` (at
//! each budget) on a fixed set of positions with a choice, taken from
//! greedy self-play of seeded Shanxi hands; criterion reports the time
//! per decision. Greedy's own decision on the same positions is the
//! baseline measured in the same run.
//!
//! Run: `cargo bench -p koudian-core --bench mc`.

use criterion::{criterion_group, criterion_main, Criterion};
use koudian_core::agent::{builtin, SeatView};
use koudian_core::game::Game;
use koudian_core::Ruleset;
use std::hint::black_box;
use std::time::Duration;

/// Positions with more than one legal action for the seat to act.
fn positions(rules: &Ruleset, hands: u64) -> Vec<Game> {
    let mut out = Vec::new();
    for seed in 0..hands {
        let mut g = Game::new(rules, seed, None).unwrap();
        g.set_recording(false);
        let mut greedy = builtin("greedy", 0).unwrap();
        while let Some(s) = g.to_act() {
            if g.legal_actions().len() > 1 {
                out.push(g.clone());
            }
            let a = greedy.act(&SeatView::new(&g, s));
            g.step(a).unwrap();
        }
    }
    out
}

fn decisions(c: &mut Criterion) {
    let rules = Ruleset::shanxi();
    let games = positions(&rules, 8);
    let mut group = c.benchmark_group("mc_decision");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    for spec in ["greedy", "mc:budget=fast", "mc", "mc:budget=strong"] {
        let mut agent = builtin(spec, 1).unwrap();
        let mut i = 0usize;
        group.bench_function(spec, |b| {
            b.iter(|| {
                let g = &games[i % games.len()];
                i += 1;
                let s = g.to_act().unwrap();
                black_box(agent.act(&SeatView::new(g, s)))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, decisions);
criterion_main!(benches);
