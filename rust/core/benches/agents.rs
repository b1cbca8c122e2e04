//! Native self-play throughput with the built-in agents (issue 6 target:
//! ≥ 50,000 hands/s with greedy agents on 2 cores, ≥ 200,000 with random
//! ones). Each iteration plays `HANDS` one-hand games through
//! `simulate`; criterion reports hands per second (elements/s).
//!
//! Run: `cargo bench -p koudian-core --bench agents`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use koudian_core::agent::{Agent, GreedyAgent, RandomAgent};
use koudian_core::simulate::simulate;
use koudian_core::Ruleset;
use std::hint::black_box;
use std::time::Duration;

const HANDS: u64 = 4000;

fn make(kind: &'static str) -> impl Fn(usize) -> Box<dyn Agent> + Sync {
    move |s| -> Box<dyn Agent> {
        match kind {
            "greedy" => Box::new(GreedyAgent::new(s as u64)),
            "greedy+3random" if s == 0 => Box::new(GreedyAgent::new(s as u64)),
            _ => Box::new(RandomAgent::new(s as u64)),
        }
    }
}

fn self_play(c: &mut Criterion) {
    let mut group = c.benchmark_group("self_play");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6))
        .throughput(Throughput::Elements(HANDS));
    let presets = [
        ("shanxi", Ruleset::shanxi()),
        ("linxian", Ruleset::linxian()),
        ("sichuan", Ruleset::sichuan()),
    ];
    for (name, rules) in &presets {
        for agents in ["greedy", "random", "greedy+3random"] {
            for threads in [1usize, 2] {
                let id = BenchmarkId::new(format!("{name}/{agents}"), format!("{threads}t"));
                let mk = make(agents);
                group.bench_function(id, |b| {
                    let mut seed = 0u64;
                    b.iter(|| {
                        seed += 1;
                        black_box(simulate(rules, HANDS, seed, threads, &mk).unwrap())
                    })
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, self_play);
criterion_main!(benches);
