//! The nn agent's inference kernel and decision (issue 37 targets: a
//! single decision ≤ 100 µs median; batches amortize the dense products).
//! A random-weight model of the shipped shape (hidden [256, 128], about
//! 0.6M parameters with the 2247 inputs; the speed does not depend on the
//! weights) evaluated on real observations from greedy self-play of
//! seeded Shanxi hands: the forward pass per batch size (criterion
//! reports the time per call; divide by the batch for a row), the dense
//! first layer beside the sparse one, and one whole decision of the agent
//! (encoding, forward pass, masked choice).
//!
//! Run: `cargo bench -p koudian-core --bench nn`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use koudian_core::agent::nn::{random_model, Model, NnAgent, Scratch};
use koudian_core::agent::{builtin, Agent, SeatView};
use koudian_core::game::encode::{encode_into, Encoding};
use koudian_core::game::{Game, N_ACTIONS};
use koudian_core::ruleset::Family;
use koudian_core::Ruleset;
use std::hint::black_box;
use std::sync::Arc;

const FAMILIES: [Family; 3] = [Family::Shanxi, Family::Linxian, Family::Sichuan];

/// Positions of greedy self-play (every decision).
fn positions(hands: u64) -> Vec<(Game, u8)> {
    let mut out = Vec::new();
    for seed in 0..hands {
        let mut g = Game::new(&Ruleset::shanxi(), seed, None).unwrap();
        g.set_recording(false);
        let mut greedy = builtin("greedy", 0).unwrap();
        while let Some(s) = g.to_act() {
            out.push((g.clone(), s));
            let a = greedy.act(&SeatView::new(&g, s));
            g.step(a).unwrap();
        }
    }
    out
}

fn rows(pos: &[(Game, u8)], inputs: usize) -> Vec<f32> {
    let planes = Encoding::V2.len();
    let mut x = vec![0f32; pos.len() * inputs];
    for (row, (g, s)) in x.chunks_exact_mut(inputs).zip(pos) {
        encode_into(&g.observe(*s), Encoding::V2, &mut row[..planes]).unwrap();
        row[planes] = 1.0;
    }
    x
}

fn bench(c: &mut Criterion) {
    let model = Arc::new(Model::from_bytes(&random_model(&[256, 128], &FAMILIES, 1), "r").unwrap());
    let pos = positions(4);
    let inputs = model.inputs();
    let x = rows(&pos, inputs);
    let mut group = c.benchmark_group("nn_forward");
    for batch in [1usize, 8, 32, 128] {
        let mut scratch = Scratch::default();
        let mut logits = vec![0f32; batch * N_ACTIONS];
        let mut values = vec![0f32; batch];
        group.throughput(Throughput::Elements(batch as u64));
        group.bench_with_input(BenchmarkId::from_parameter(batch), &batch, |b, &n| {
            let mut at = 0;
            b.iter(|| {
                if (at + n) * inputs > x.len() {
                    at = 0;
                }
                let rows = &x[at * inputs..(at + n) * inputs];
                model
                    .forward(black_box(rows), &mut logits, &mut values, &mut scratch)
                    .unwrap();
                at += n;
                black_box(logits[0])
            })
        });
    }
    group.finish();
    let mut agent = NnAgent::with_model(Arc::clone(&model), None, 0);
    let mut i = 0;
    c.bench_function("nn_decision", |b| {
        b.iter(|| {
            let (g, s) = &pos[i % pos.len()];
            i += 1;
            black_box(agent.act(&SeatView::new(g, *s)))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
