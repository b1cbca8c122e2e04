//! Table throughput: whole one-hand games with the built-in random agent,
//! per family, entirely in Rust; and native parallel self-play. The
//! baseline in the same run is dealing alone (`Game::new`), so the ratio
//! "hand / deal" shows what the play itself costs.
//! Run: `cargo bench -p koudian-core --bench game`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use koudian_core::agent::{Agent, RandomAgent};
use koudian_core::game::{mix_seed, Game};
use koudian_core::ruleset::{Haozi, Ruleset};
use koudian_core::simulate::{play_hand, simulate};
use std::hint::black_box;

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

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("game");
    g.throughput(Throughput::Elements(1));
    let mut seed = 0u64;
    g.bench_function("deal only (baseline)", |b| {
        b.iter(|| {
            seed += 1;
            black_box(Game::new(&Ruleset::shanxi(), seed, Some(0)).unwrap())
        })
    });
    for (name, rules) in presets() {
        let mut agents: [Box<dyn Agent>; 4] = [
            Box::new(RandomAgent::new(0)),
            Box::new(RandomAgent::new(1)),
            Box::new(RandomAgent::new(2)),
            Box::new(RandomAgent::new(3)),
        ];
        let mut i = 0u64;
        g.bench_function(format!("one hand, random agents, {name}"), |b| {
            b.iter(|| {
                i += 1;
                let (game, n, _) = play_hand(
                    &rules,
                    mix_seed(7, i),
                    Some((i % 4) as u8),
                    &mut agents,
                    false,
                )
                .unwrap();
                black_box((game.result().copied(), n))
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("simulate");
    g.sample_size(10);
    let hands = 20_000u64;
    g.throughput(Throughput::Elements(hands));
    for threads in [1usize, 2] {
        g.bench_function(
            format!("shanxi random x{hands}, {threads} thread(s)"),
            |b| {
                b.iter(|| {
                    simulate(&Ruleset::shanxi(), hands, 3, threads, |s| {
                        Box::new(RandomAgent::new(s as u64))
                    })
                    .unwrap()
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
