//! Shanten and discard-analysis throughput (issue 4 targets: shanten ≥ 20 M
//! hands/s on one thread without wildcards and ≥ 4 M/s with two wild
//! kinds; discard analysis of a 14-tile hand ≤ 2 µs).
//!
//! 100,000 seeded hands drawn from a shuffled 136-tile wall (no melds):
//! 13 tiles for shanten, 14 for discard analysis. Wild kinds are fixed
//! (5p; 5p and 中). criterion reports hands per second (elements/s).
//!
//! Run: `cargo bench -p koudian-core --bench shanten`.
//!
//! Figures, with the load at the time and the ratios against the
//! `baseline_is_win_batch` line of the same run, are kept in
//! docs/performance.md (a copy here would go stale).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use koudian_core::discard::discard_options;
use koudian_core::hand::Hand;
use koudian_core::shanten::{shanten_batch, shanten_counts};
use koudian_core::shape::{is_win_batch, ShapeRules};
use koudian_core::tile::{Counts, Tile, KINDS};
use koudian_core::{Ruleset, Wildcards};
use std::hint::black_box;
use std::time::Duration;

const HANDS: usize = 100_000;

fn hands(size: usize, seed: u64) -> Vec<Counts> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    (0..HANDS)
        .map(|_| {
            let mut wall: Vec<usize> = (0..136).map(|i| i / 4).collect();
            let mut c = [0u8; KINDS];
            for i in 0..size {
                let j = i + (next() % (136 - i) as u64) as usize;
                wall.swap(i, j);
                c[wall[i]] += 1;
            }
            c
        })
        .collect()
}

fn wild_sets() -> [(&'static str, Wildcards); 3] {
    [
        ("0 wild", Wildcards::NONE),
        ("1 wild", Wildcards::new(&[Tile::new(13).unwrap()]).unwrap()),
        (
            "2 wild",
            Wildcards::new(&[Tile::new(13).unwrap(), Tile::RED]).unwrap(),
        ),
    ]
}

fn shanten(c: &mut Criterion) {
    let h13 = hands(13, 1);
    let mut group = c.benchmark_group("shanten");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(HANDS as u64));
    let mut out = vec![0i8; HANDS];
    for (name, wilds) in wild_sets() {
        group.bench_function(BenchmarkId::new("batch_1_thread", name), |b| {
            b.iter(|| {
                shanten_batch(&h13, &[0], &wilds, &ShapeRules::ALL, &mut out, 1).unwrap();
                black_box(&out);
            })
        });
    }
    // Baseline in the same run: the crate's win check (four table loads
    // per hand) on 14-tile hands, to read the shanten figures against.
    let h14 = hands(14, 3);
    let mut wins = vec![false; HANDS];
    group.bench_function(BenchmarkId::new("baseline_is_win_batch", "0 wild"), |b| {
        b.iter(|| {
            is_win_batch(&h14, &[0], &Wildcards::NONE, &ShapeRules::ALL, &mut wins, 1).unwrap();
            black_box(&wins);
        })
    });
    let (_, none) = &wild_sets()[0];
    group.bench_function(BenchmarkId::new("single_calls", "0 wild"), |b| {
        b.iter(|| {
            let mut sum = 0i32;
            for h in &h13 {
                sum += shanten_counts(black_box(h), 0, none, &ShapeRules::ALL).unwrap() as i32;
            }
            black_box(sum)
        })
    });
    group.finish();
}

fn discard(c: &mut Criterion) {
    let h14: Vec<Hand> = hands(14, 2)
        .into_iter()
        .map(|c| Hand::new(c, &[]).unwrap())
        .collect();
    let mut group = c.benchmark_group("discard_options");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6))
        .throughput(Throughput::Elements(HANDS as u64));
    let rules = Ruleset::shanxi();
    for (name, wilds) in wild_sets() {
        group.bench_function(BenchmarkId::new("14_tiles", name), |b| {
            b.iter(|| {
                let mut n = 0usize;
                for h in &h14 {
                    n += discard_options(black_box(h), &wilds, &rules).unwrap().len();
                }
                black_box(n)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, shanten, discard);
criterion_main!(benches);
