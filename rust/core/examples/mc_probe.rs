//! A quick probe of the mc agent: milliseconds per decision with a choice
//! and its duplicate advantage over greedy (for tuning; the benchmarks are
//! `benches/agents.rs` and `koudian arena`).
use koudian_core::agent::{builtin, SeatView};
use koudian_core::arena::{arena, Format};
use koudian_core::game::Game;
use koudian_core::Ruleset;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let spec = args.get(1).cloned().unwrap_or_else(|| "mc".into());
    let deals: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(50);
    let preset = args.get(3).cloned().unwrap_or_else(|| "shanxi".into());
    let path = format!(
        "{}/../../python/koudian/presets/{preset}.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let rules = Ruleset::from_toml(&text).unwrap();
    let mut times = Vec::new();
    for seed in 0..10u64 {
        let mut g = Game::new(&rules, seed, None).unwrap();
        let mut a = builtin(&spec, seed).unwrap();
        let mut greedy = builtin("greedy", 0).unwrap();
        while let Some(s) = g.to_act() {
            let v = SeatView::new(&g, s);
            let act = if s == 0 && v.legal().len() > 1 {
                let t = Instant::now();
                let x = a.act(&v);
                times.push(t.elapsed().as_secs_f64() * 1e3);
                x
            } else {
                greedy.act(&v)
            };
            g.step(act).unwrap();
        }
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{spec}: median {:.3} ms, mean {:.3} ms over {} decisions",
        times[times.len() / 2],
        times.iter().sum::<f64>() / times.len() as f64,
        times.len()
    );
    let specs = [
        spec.clone(),
        "greedy".into(),
        "greedy".into(),
        "greedy".into(),
    ];
    let t = Instant::now();
    let r = arena(&rules, &specs, 0..deals, 1, 2, Format::Duplicate).unwrap();
    let el = t.elapsed().as_secs_f64();
    // Advantage per deal: mean over the 4 rotations of (mc's delta - the reference's delta at its seat).
    let mut diffs = Vec::new();
    for d in 0..deals {
        let mut s = 0.0;
        for rec in r
            .iter()
            .filter(|x| x.deal == d && x.table < 4 && x.entry == 0)
        {
            let reference = r
                .iter()
                .find(|x| x.deal == d && x.table == 4 && x.seat == rec.seat)
                .unwrap();
            s += (rec.delta - reference.delta) as f64;
        }
        diffs.push(s / 4.0);
    }
    let n = diffs.len() as f64;
    let m = diffs.iter().sum::<f64>() / n;
    let v = diffs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    println!(
        "advantage {m:.3} ± {:.3} per hand over {deals} deals; {:.1} hands/s (5 tables)",
        1.96 * (v / n).sqrt(),
        (deals * 5) as f64 / el
    );
}
