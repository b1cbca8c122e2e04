//! The nn agent's speed figures of issue 37, with a model file, or a
//! random-weight model (the speed does not depend on the weights) of hidden
//! `[256, 128]` over encoding version 3 with the per-kind head, like the
//! shipped one:
//!
//! * nn×4 native self-play, hands/s on `--threads` threads (lockstep
//!   tables, batched forward passes), and the same unbatched (each
//!   decision its own pass) for comparison;
//! * a single decision's median time (one thread, positions of greedy
//!   self-play, each decision timed alone);
//! * the arena 1 vs 3 (one nn seat, three greedy) against the same with
//!   mc, hands/s of each in the same run.
//!
//! Usage: `cargo run --release -p koudian-core --example nn_speed -- [hands] [threads] [model]`
//! (default 2000 hands, 2 threads, the random model). Say the load (`uptime`) beside the
//! figures: the machine is shared.

use koudian_core::agent::nn::{random_model_for, Model, NnAgent};
use koudian_core::agent::{builtin, Agent, Answer, SeatView};
use koudian_core::arena::{arena, Format};
use koudian_core::error::Error;
use koudian_core::game::encode::Encoding;
use koudian_core::game::Game;
use koudian_core::ruleset::Family;
use koudian_core::simulate::simulate_with;
use koudian_core::Ruleset;
use std::sync::Arc;
use std::time::Instant;

/// The nn agent answering through `decide` without exposing itself as
/// nn: the runner then asks it one decision at a time (no batching).
struct Alone(NnAgent);

impl Agent for Alone {
    fn act(&mut self, view: &SeatView<'_>) -> koudian_core::game::Action {
        self.0.act(view)
    }
    fn decide(&mut self, view: &SeatView<'_>) -> Result<Answer, Error> {
        self.0.decide(view)
    }
    fn decides(&self) -> bool {
        true
    }
    fn reset(&mut self, seed: u64) {
        self.0.reset(seed)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let hands: u64 = args.get(1).map_or(2000, |a| a.parse().expect("hands"));
    let threads: usize = args.get(2).map_or(2, |a| a.parse().expect("threads"));
    let fams = [Family::Shanxi, Family::Linxian, Family::Sichuan];
    let bytes = match args.get(3) {
        Some(path) => std::fs::read(path).unwrap(),
        None => random_model_for(Encoding::V3, true, &[256, 128], &fams, 1),
    };
    let model = Arc::new(Model::from_bytes(&bytes, args.get(3).map_or("random", |p| p)).unwrap());
    println!(
        "model: {}, hidden {:?}, encoding version {}, {} parameters",
        model.file(),
        model.header().hidden,
        model.header().encoding.version(),
        model.parameters()
    );
    let rules = Ruleset::shanxi();

    let t = Instant::now();
    let run = simulate_with(
        &rules,
        0..hands,
        1,
        threads,
        |_| -> Result<Box<dyn Agent>, Error> {
            Ok(Box::new(NnAgent::with_model(Arc::clone(&model), None, 0)))
        },
        |_, s| s,
    )
    .unwrap();
    let secs = t.elapsed().as_secs_f64();
    let decisions: u64 = run.iter().map(|s| u64::from(s.decisions)).sum();
    println!(
        "nn x4 self-play, lockstep batches, {threads} threads: {:.0} hands/s ({:.0} decisions/s, {:.1} decisions a hand)",
        hands as f64 / secs,
        decisions as f64 / secs,
        decisions as f64 / hands as f64
    );
    let t = Instant::now();
    let alone = simulate_with(
        &rules,
        0..hands,
        1,
        threads,
        |_| -> Result<Box<dyn Agent>, Error> {
            Ok(Box::new(Alone(NnAgent::with_model(
                Arc::clone(&model),
                None,
                0,
            ))))
        },
        |_, s| s,
    )
    .unwrap();
    let secs_alone = t.elapsed().as_secs_f64();
    assert_eq!(alone, run, "batching changed the games");
    println!(
        "nn x4 self-play, one decision a pass, {threads} threads: {:.0} hands/s (same games)",
        hands as f64 / secs_alone
    );

    // Single decisions, each timed.
    let mut agent = NnAgent::with_model(Arc::clone(&model), None, 0);
    let mut times = Vec::new();
    for seed in 0..40 {
        let mut g = Game::new(&rules, seed, None).unwrap();
        let mut greedy = builtin("greedy", 0).unwrap();
        while let Some(s) = g.to_act() {
            let view = SeatView::new(&g, s);
            let t = Instant::now();
            std::hint::black_box(agent.act(&view));
            times.push(t.elapsed().as_secs_f64() * 1e6);
            let a = greedy.act(&view);
            g.step(a).unwrap();
        }
    }
    times.sort_by(f64::total_cmp);
    println!(
        "single decision ({} decisions, one thread): median {:.1} us, p90 {:.1} us",
        times.len(),
        times[times.len() / 2],
        times[times.len() * 9 / 10]
    );

    // The arena, 1 vs 3 greedy, nn then mc, in the same run.
    let path = std::env::temp_dir().join(format!(
        "koudian-nn-speed-{}.safetensors",
        std::process::id()
    ));
    std::fs::write(&path, &bytes).unwrap();
    let deals = (hands / 5).max(10);
    let mut rate = Vec::new();
    for lone in [format!("nn:{}", path.display()), "mc".to_string()] {
        let deals = if lone == "mc" { deals / 10 } else { deals };
        let specs = [
            lone.clone(),
            "greedy".into(),
            "greedy".into(),
            "greedy".into(),
        ];
        let t = Instant::now();
        let recs = arena(&rules, &specs, 0..deals, 1, threads, Format::Duplicate).unwrap();
        let secs = t.elapsed().as_secs_f64();
        let played = recs.len() as f64 / 4.0;
        rate.push(played / secs);
        println!(
            "arena 1 vs 3 greedy, {}: {:.0} hands/s ({played} hands)",
            &lone[..2],
            played / secs
        );
    }
    println!("arena nn / mc hands/s: {:.1}x", rate[0] / rate[1]);
    std::fs::remove_file(&path).ok();
}
