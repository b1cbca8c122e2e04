//! Where the mc agent departs from greedy, and what the departures bring
//! (for tuning its departure rule; not a test).
//!
//! `mc_departures SPEC DEALS PRESET [SEED]` plays the duplicate 1-vs-3
//! arena of `SPEC` (an `mc` spec) against greedy the way `koudian arena`
//! does (the same seeds), and prints one JSON line per mc hand: the deal,
//! the rotation, the hand's paired difference (mc's settlement minus the
//! reference table's in that seat) and every departure of the hand (the
//! greedy and chosen actions' kinds, greedy's shanten after its choice,
//! whether an opponent had declared, the estimated gain in points, the
//! tables it rests on, the tiles left). Then a summary on stderr: the
//! advantage per hand with its 95% interval over deals, and the share of
//! hands with a departure.
use koudian_core::agent::mc::McConfig;
use koudian_core::agent::{Agent, GreedyAgent, MonteCarloAgent, SeatView};
use koudian_core::game::{mix_seed, Action};
use koudian_core::simulate::play_hand;
use koudian_core::Ruleset;
use rayon::prelude::*;
use std::sync::{Arc, Mutex};

/// The mc agent, logging its departures from greedy.
struct Logged {
    mc: MonteCarloAgent,
    greedy: GreedyAgent,
    log: Arc<Mutex<Vec<String>>>,
}

fn kind(a: Action) -> &'static str {
    match a {
        Action::Discard(_) => "discard",
        Action::Ting(_) => "ting",
        Action::ConcealedKong(_) | Action::AddedKong(_) | Action::Kong => "kong",
        Action::Pong => "pong",
        Action::Win => "win",
        Action::Pass => "pass",
        Action::Leave => "leave",
    }
}

impl Agent for Logged {
    fn act(&mut self, view: &SeatView<'_>) -> Action {
        if view.legal().len() < 2 {
            return self.mc.act(view);
        }
        let greedy = self.greedy.act(view);
        let ranked = self.mc.rank(view);
        let choice = ranked[0].action;
        if choice != greedy {
            let g = ranked.iter().find(|r| r.action == greedy).unwrap();
            let gain = ranked[0].value - g.value;
            let n = ranked[0].number("rollouts").unwrap_or(0.0);
            let shanten = self
                .greedy
                .rank(view)
                .iter()
                .find(|r| r.action == greedy)
                .and_then(|r| r.number("shanten"))
                .unwrap_or(-9.0);
            let obs = view.observation();
            let declared = (0..4).any(|s| s != view.seat() as usize && obs.ting[s]);
            self.log.lock().unwrap().push(format!(
                "{{\"greedy\":\"{}\",\"choice\":\"{}\",\"shanten\":{shanten},\"declared\":{declared},\"gain\":{gain:.3},\"n\":{n},\"left\":{}}}",
                kind(greedy),
                kind(choice),
                obs.live_remaining
            ));
        }
        choice
    }

    fn reset(&mut self, seed: u64) {
        self.mc.reset(seed);
        self.greedy.reset(seed);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let spec = args.get(1).cloned().unwrap_or_else(|| "mc".into());
    let deals: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(50);
    let preset = args.get(3).cloned().unwrap_or_else(|| "shanxi".into());
    let seed: u64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let path = format!(
        "{}/../../python/koudian/presets/{preset}.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let rules = Ruleset::from_toml(&text).unwrap();
    let options = spec.strip_prefix("mc").unwrap_or(&spec);
    let config = McConfig::parse(options.strip_prefix(':').unwrap_or(options)).unwrap();
    let per_deal: Vec<(f64, Vec<String>, usize)> = (0..deals)
        .into_par_iter()
        .map(|d| {
            let game_seed = mix_seed(seed, d);
            let dealer = Some((d % 4) as u8);
            let greedy4 = || -> [Box<dyn Agent>; 4] {
                std::array::from_fn(|_| Box::new(GreedyAgent::new(0)) as Box<dyn Agent>)
            };
            let (reference, _, _) =
                play_hand(&rules, game_seed, dealer, &mut greedy4(), false).unwrap();
            let ref_deltas = reference.result().unwrap().deltas;
            let mut lines = Vec::new();
            let mut sum = 0.0;
            let mut departed = 0;
            for r in 0..4usize {
                let log = Arc::new(Mutex::new(Vec::new()));
                let mut seats = greedy4();
                seats[r] = Box::new(Logged {
                    mc: MonteCarloAgent::new(config, 0),
                    greedy: GreedyAgent::new(0),
                    log: log.clone(),
                });
                let (g, _, _) = play_hand(&rules, game_seed, dealer, &mut seats, false).unwrap();
                let diff = (g.result().unwrap().deltas[r] - ref_deltas[r]) as f64;
                sum += diff;
                let deps = log.lock().unwrap().join(",");
                departed += usize::from(!deps.is_empty());
                lines.push(format!(
                    "{{\"deal\":{d},\"seat\":{r},\"diff\":{diff},\"departures\":[{deps}]}}"
                ));
            }
            (sum / 4.0, lines, departed)
        })
        .collect();
    let mut hands_departed = 0;
    for (_, lines, dep) in &per_deal {
        hands_departed += dep;
        for l in lines {
            println!("{l}");
        }
    }
    let diffs: Vec<f64> = per_deal.iter().map(|x| x.0).collect();
    let n = diffs.len() as f64;
    let m = diffs.iter().sum::<f64>() / n;
    let v = diffs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    eprintln!(
        "{spec} {preset}: advantage {m:+.3} ± {:.3} per hand over {deals} deals (per-deal sd {:.2}); {:.1}% of mc hands depart",
        1.96 * (v / n).sqrt(),
        v.sqrt(),
        100.0 * hands_departed as f64 / (4.0 * n)
    );
}
