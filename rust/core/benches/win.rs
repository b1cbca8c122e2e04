//! Win detection throughput on 100k seeded 14-tile hands, half of them
//! wins, with 0, 1 and 2 wild kinds: `is_win_batch` on 1 and 2 threads and
//! single `is_win` calls. Before the benches it prints the cost of the
//! first call, which builds the tables.

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use koudian_core::shape::{is_win, is_win_batch, ShapeRules};
use koudian_core::tile::{Counts, Tile};
use koudian_core::Wildcards;
use std::hint::black_box;
use std::time::{Duration, Instant};

const N: usize = 100_000;
/// Shanxi's shapes: seven pairs and thirteen orphans, no wind sets.
const RULES: ShapeRules = ShapeRules {
    seven_pairs: true,
    thirteen_orphans: true,
    wind_sets: false,
};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The wild kinds of each configuration: none, 5m, 5m and 白.
pub fn wild_sets() -> [(usize, Wildcards); 3] {
    [
        (0, Wildcards::NONE),
        (1, Wildcards::new(&[Tile::new(4).unwrap()]).unwrap()),
        (
            2,
            Wildcards::new(&[Tile::new(4).unwrap(), Tile::WHITE]).unwrap(),
        ),
    ]
}

/// `size`-tile hands, half of them satisfying `pred`, in seeded random
/// order: sets + pair hands with some tiles turned into wild tiles, and
/// random draws from the 136 tiles.
pub fn mixed_hands(
    seed: u64,
    size: usize,
    wilds: &Wildcards,
    pred: impl Fn(&Counts) -> bool,
) -> Vec<Counts> {
    let mut rng = Rng(seed);
    let kinds: Vec<usize> = wilds.kinds().map(|t| t.index()).collect();
    let (mut yes, mut no) = (Vec::new(), Vec::new());
    while yes.len() < N / 2 || no.len() < N / 2 {
        let mut c = [0u8; 34];
        let mut n = 0;
        if rng.below(2) == 0 {
            let p = rng.below(34);
            c[p] += 2;
            n += 2;
            while n < size {
                if rng.below(3) == 0 {
                    c[rng.below(34)] += 3;
                } else {
                    let s = rng.below(3) * 9 + rng.below(7);
                    for x in &mut c[s..s + 3] {
                        *x += 1;
                    }
                }
                n += 3;
            }
            while n > size {
                let k = rng.below(34);
                if c[k] > 0 {
                    c[k] -= 1;
                    n -= 1;
                }
            }
            if !kinds.is_empty() {
                for _ in 0..rng.below(4) {
                    let k = rng.below(34);
                    let w = kinds[rng.below(kinds.len())];
                    if c[k] > 0 && c[w] < 4 {
                        c[k] -= 1;
                        c[w] += 1;
                    }
                }
            }
        } else {
            while n < size {
                let k = rng.below(34);
                if c[k] < 4 {
                    c[k] += 1;
                    n += 1;
                }
            }
        }
        if c.iter().any(|&x| x > 4) {
            continue;
        }
        if pred(&c) {
            if yes.len() < N / 2 {
                yes.push(c);
            }
        } else if no.len() < N / 2 {
            no.push(c);
        }
    }
    let mut all: Vec<Counts> = yes.into_iter().chain(no).collect();
    for i in (1..all.len()).rev() {
        all.swap(i, rng.below(i + 1));
    }
    all
}

fn bench_win(c: &mut Criterion) {
    let mut g = c.benchmark_group("is_win");
    g.throughput(Throughput::Elements(N as u64))
        .sample_size(20)
        .measurement_time(Duration::from_secs(4));
    for (n_wild, wilds) in wild_sets() {
        let hands = mixed_hands(7 + n_wild as u64, 14, &wilds, |h| {
            is_win(h, 0, &wilds, &RULES)
        });
        let mut out = vec![false; N];
        for threads in [1, 2] {
            g.bench_function(
                BenchmarkId::new(format!("batch_{threads}_thread"), format!("{n_wild}_wild")),
                |b| {
                    b.iter(|| {
                        is_win_batch(black_box(&hands), &[0], &wilds, &RULES, &mut out, threads)
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
                    let mut wins = 0u32;
                    for h in black_box(&hands) {
                        wins += is_win(h, 0, &wilds, &RULES) as u32;
                    }
                    black_box(wins)
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench_win);

fn main() {
    let hand = [1u8; 34];
    let t = Instant::now();
    black_box(is_win(black_box(&hand), 0, &Wildcards::NONE, &RULES));
    eprintln!("first is_win call (builds the tables): {:?}", t.elapsed());
    let t = Instant::now();
    black_box(is_win(black_box(&hand), 0, &Wildcards::NONE, &RULES));
    eprintln!("second is_win call: {:?}", t.elapsed());
    benches();
    Criterion::default().configure_from_args().final_summary();
}
