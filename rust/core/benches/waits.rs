//! Waits throughput on 100k seeded 13-tile hands, half of them ready, with
//! 0, 1 and 2 wild kinds: `waits_batch` on 1 and 2 threads and single
//! `waits_counts` calls.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use koudian_core::shape::ShapeRules;
use koudian_core::waits::{waits_batch, waits_counts};
use std::hint::black_box;
use std::time::Duration;

#[path = "win.rs"]
#[allow(dead_code)]
mod win_bench;

use win_bench::{mixed_hands, wild_sets};

const N: usize = 100_000;
const RULES: ShapeRules = ShapeRules {
    seven_pairs: true,
    thirteen_orphans: true,
    wind_sets: false,
};

fn bench_waits(c: &mut Criterion) {
    let mut g = c.benchmark_group("waits");
    g.throughput(Throughput::Elements(N as u64))
        .sample_size(20)
        .measurement_time(Duration::from_secs(4));
    for (n_wild, wilds) in wild_sets() {
        let hands = mixed_hands(70 + n_wild as u64, 13, &wilds, |h| {
            waits_counts(h, h, 0, &wilds, &RULES).is_ready()
        });
        let mut out = vec![0u64; N];
        for threads in [1, 2] {
            g.bench_function(
                BenchmarkId::new(format!("batch_{threads}_thread"), format!("{n_wild}_wild")),
                |b| {
                    b.iter(|| {
                        waits_batch(
                            black_box(&hands),
                            &[0],
                            &[],
                            &wilds,
                            &RULES,
                            &mut out,
                            threads,
                        )
                        .unwrap();
                        black_box(&out);
                    })
                },
            );
        }
        g.bench_function(
            BenchmarkId::new("single_calls", format!("{n_wild}_wild")),
            |b| {
                b.iter(|| {
                    let mut n = 0u32;
                    for h in black_box(&hands) {
                        n += waits_counts(h, h, 0, &wilds, &RULES).len() as u32;
                    }
                    black_box(n)
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench_waits);
criterion_main!(benches);
