//! The Monte Carlo agent `mc`: at a decision with a real choice it samples
//! completions of what it cannot see ([`crate::game::sample_hidden`], the
//! determinization step), plays each candidate action on every sampled
//! table followed by the greedy policy for every seat to the end of the
//! hand, and picks the candidate with the best mean settlement for its
//! seat.
//!
//! The budget is spent where it tells:
//! * candidate pruning: a discard that raises the hand's shanten above
//!   the best discard's is dropped, and at most `top` candidates (the
//!   greedy choice always among them) are played;
//! * common random numbers: every candidate is played on the same
//!   sampled tables (and greedy play is deterministic), so the
//!   comparison is paired and a table's luck cancels;
//! * early stopping: after `min` tables, every few tables, a candidate
//!   whose paired mean difference to the leader is below zero by more
//!   than `stop` standard errors is dropped, and the search ends when one
//!   is left;
//! * ties (and differences within `margin` standard errors) go to the
//!   greedy choice, so noise does not replace a sound greedy move.
//!
//! Deterministic from its seed: decision `i` of a hand uses
//! `mix_seed(seed, i)` for its tables, whatever the thread.
//!
//! ```
//! use koudian_core::agent::{builtin, Agent, SeatView};
//! use koudian_core::game::Game;
//! use koudian_core::Ruleset;
//! let mut g = Game::new(&Ruleset::shanxi(), 3, None).unwrap();
//! let mut agents: Vec<_> = (0..4).map(|s| builtin(if s == 0 { "mc:budget=fast" } else { "greedy" }, s).unwrap()).collect();
//! while let Some(seat) = g.to_act() {
//!     let a = agents[seat as usize].act(&SeatView::new(&g, seat));
//!     g.step(a).unwrap();
//! }
//! assert!(g.is_over());
//! assert!(builtin("mc:rollouts=abc", 0).is_err());
//! ```

use super::{Agent, GreedyAgent, RankedAction, SeatView};
use crate::error::Error;
use crate::game::position::{sample_with, Fast};
use crate::game::{mix_seed, Action, Game};

/// How the agent spends its time at a decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McConfig {
    /// Sampled tables per decision at most (each candidate is played on
    /// every one of them): `rollouts`.
    pub rollouts: u32,
    /// Tables before early stopping may drop a candidate: `min`.
    pub min_rollouts: u32,
    /// Candidates played at most: `top`.
    pub top: u32,
    /// A candidate is dropped once it trails the leader by more than
    /// this many standard errors of the paired difference: `stop`.
    pub stop_z: f64,
    /// Another candidate replaces the greedy choice only when it leads it
    /// by more than this many standard errors: `margin`.
    pub margin_z: f64,
}

impl McConfig {
    /// The quick budget (`mc:budget=fast`).
    pub const FAST: McConfig = McConfig {
        rollouts: 4,
        min_rollouts: 4,
        top: 2,
        stop_z: 2.0,
        margin_z: 2.0,
    };
    /// The default budget (`mc`).
    pub const DEFAULT: McConfig = McConfig {
        rollouts: 8,
        min_rollouts: 4,
        top: 3,
        stop_z: 2.5,
        margin_z: 2.0,
    };
    /// The strong budget (`mc:budget=strong`).
    pub const STRONG: McConfig = McConfig {
        rollouts: 48,
        min_rollouts: 8,
        top: 5,
        stop_z: 3.0,
        margin_z: 2.0,
    };

    /// Parses the options of an agent spec after `mc` (`":"`-separated
    /// `key=value`: `budget=fast|default|strong`, `rollouts`, `min`,
    /// `top`, `stop`, `margin`; a budget first, then changes to it).
    ///
    /// ```
    /// use koudian_core::agent::mc::McConfig;
    /// assert_eq!(McConfig::parse("").unwrap(), McConfig::DEFAULT);
    /// assert_eq!(McConfig::parse("rollouts=200").unwrap().rollouts, 200);
    /// assert_eq!(McConfig::parse("budget=strong:top=2").unwrap().top, 2);
    /// assert!(McConfig::parse("speed=11").is_err());
    /// ```
    pub fn parse(options: &str) -> Result<McConfig, Error> {
        let mut c = McConfig::DEFAULT;
        let bad = |m: String| Error::InvalidRuleset(m);
        for opt in options.split(':').filter(|o| !o.is_empty()) {
            let (key, value) = opt
                .split_once('=')
                .ok_or_else(|| bad(format!("mc option {opt:?} is not key=value")))?;
            let int = || -> Result<u32, Error> {
                value
                    .parse::<u32>()
                    .ok()
                    .filter(|&n| (1..=100_000).contains(&n))
                    .ok_or_else(|| {
                        bad(format!(
                            "mc option {key}={value:?}: a whole number 1-100000"
                        ))
                    })
            };
            let real = || -> Result<f64, Error> {
                value
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && (0.0..=100.0).contains(x))
                    .ok_or_else(|| bad(format!("mc option {key}={value:?}: a number 0-100")))
            };
            match key {
                "budget" => {
                    c = match value {
                        "fast" => McConfig::FAST,
                        "default" => McConfig::DEFAULT,
                        "strong" => McConfig::STRONG,
                        _ => {
                            return Err(bad(format!(
                                "mc budget {value:?} (available: fast, default, strong)"
                            )))
                        }
                    }
                }
                "rollouts" => c.rollouts = int()?,
                "min" => c.min_rollouts = int()?,
                "top" => c.top = int()?,
                "stop" => c.stop_z = real()?,
                "margin" => c.margin_z = real()?,
                _ => {
                    return Err(bad(format!(
                        "unknown mc option {key:?} (available: budget, rollouts, min, top, stop, margin)"
                    )))
                }
            }
        }
        c.min_rollouts = c.min_rollouts.min(c.rollouts);
        Ok(c)
    }
}

/// The Monte Carlo agent (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct MonteCarloAgent {
    config: McConfig,
    seed: u64,
    decisions: u64,
    /// The rollout policy (deterministic; its caches never change a
    /// decision) and the agent's own fallback choice.
    greedy: GreedyAgent,
}

/// A candidate's running sums over the tables it was played on.
#[derive(Clone, Copy, Debug)]
struct Tally {
    action: Action,
    alive: bool,
    n: u32,
    sum: f64,
    sum_sq: f64,
}

impl MonteCarloAgent {
    /// An agent with `config`, seeded.
    pub fn new(config: McConfig, seed: u64) -> MonteCarloAgent {
        MonteCarloAgent {
            config,
            seed,
            decisions: 0,
            greedy: GreedyAgent::new(seed),
        }
    }

    /// Its budget.
    pub fn config(&self) -> McConfig {
        self.config
    }

    /// Every legal action of the view's seat, best first, with its
    /// estimate; the first is what [`Agent::act`] would play here (and,
    /// like `act`, it counts as one decision of the hand for the seeds).
    /// Empty when the seat is not to act.
    pub fn rank(&mut self, view: &SeatView<'_>) -> Vec<RankedAction> {
        let legal = view.legal();
        if legal.is_empty() {
            return Vec::new();
        }
        let (choice, tallies) = self.evaluate(view);
        let mut out: Vec<RankedAction> = tallies
            .iter()
            .map(|t| {
                let (mean, half) = t.interval();
                RankedAction {
                    action: t.action,
                    value: mean,
                    numbers: vec![
                        ("mean", mean),
                        ("ci_low", mean - half),
                        ("ci_high", mean + half),
                        ("rollouts", f64::from(t.n)),
                    ],
                }
            })
            .collect();
        // The choice first, then by estimate (stable: candidate order).
        out.sort_by(|a, b| {
            (b.action == choice)
                .cmp(&(a.action == choice))
                .then(b.value.total_cmp(&a.value))
        });
        for a in legal.iter() {
            if out.iter().all(|r| r.action != a) {
                out.push(RankedAction {
                    action: a,
                    value: f64::NEG_INFINITY,
                    numbers: vec![("rollouts", 0.0)],
                });
            }
        }
        out
    }

    /// The decision: the chosen action and the candidates' tallies.
    fn evaluate(&mut self, view: &SeatView<'_>) -> (Action, Vec<Tally>) {
        let legal = view.legal();
        let greedy = self.greedy.act(view);
        if legal.len() < 2 {
            // No choice: not a decision of the seed contract (as in `act`).
            let t = Tally {
                action: greedy,
                alive: true,
                n: 0,
                sum: 0.0,
                sum_sq: 0.0,
            };
            return (greedy, vec![t]);
        }
        let decision_seed = mix_seed(self.seed, self.decisions);
        self.decisions += 1;
        let cands = candidates(view, greedy, self.config.top as usize);
        let mut tallies: Vec<Tally> = cands
            .iter()
            .map(|&action| Tally {
                action,
                alive: true,
                n: 0,
                sum: 0.0,
                sum_sq: 0.0,
            })
            .collect();
        if tallies.len() < 2 {
            return (greedy, tallies);
        }
        let game = view.game;
        let rules = game.rules();
        let seat = view.seat;
        let obs = view.observation();
        // Paired differences to the greedy choice (index 0), per candidate.
        let mut diff = vec![(0.0f64, 0.0f64); tallies.len()];
        for w in 0..self.config.rollouts {
            let world_seed = mix_seed(decision_seed, u64::from(w));
            let Ok(hidden) = sample_with(&game.judge, rules, &obs, &mut Fast(world_seed)) else {
                break;
            };
            let Ok(mut base) = Game::from_observation(rules, &obs, &hidden, None) else {
                break;
            };
            base.set_recording(false);
            let mut greedy_value = 0.0;
            for (i, t) in tallies.iter_mut().enumerate() {
                if !t.alive {
                    continue;
                }
                let v = self.rollout(&base, t.action, seat) as f64;
                t.n += 1;
                t.sum += v;
                t.sum_sq += v * v;
                if i == 0 {
                    greedy_value = v;
                } else {
                    let d = v - greedy_value;
                    diff[i].0 += d;
                    diff[i].1 += d * d;
                }
            }
            let n = w + 1;
            if n >= self.config.min_rollouts && n % 4 == 0 && self.prune(&mut tallies) {
                break;
            }
        }
        // The best candidate by mean; it replaces greedy only when it
        // leads greedy by more than `margin` standard errors (paired).
        let g = &tallies[0];
        let mut best = (0usize, g.mean());
        for (i, t) in tallies.iter().enumerate().skip(1) {
            if t.n == 0 || t.n != g.n {
                continue;
            }
            let (s, s2) = diff[i];
            let n = f64::from(t.n);
            let mean = s / n;
            let var = ((s2 / n - mean * mean) * n / (n - 1.0).max(1.0)).max(0.0);
            let se = (var / n).sqrt();
            if mean > self.config.margin_z * se && mean > 0.0 && t.mean() > best.1 {
                best = (i, t.mean());
            }
        }
        (tallies[best.0].action, tallies)
    }

    /// Drops the candidates clearly behind the leader (by their means'
    /// standard errors); true when one is left.
    fn prune(&self, tallies: &mut [Tally]) -> bool {
        let Some(lead) = tallies
            .iter()
            .filter(|t| t.alive)
            .map(Tally::mean)
            .max_by(f64::total_cmp)
        else {
            return true;
        };
        for (i, t) in tallies.iter_mut().enumerate() {
            // The greedy choice stays: the final pick compares with it.
            if i == 0 || !t.alive {
                continue;
            }
            let (m, half) = t.interval();
            let se = half / 1.96;
            if m + self.config.stop_z * se.max(0.5 / f64::from(t.n.max(1))) < lead {
                t.alive = false;
            }
        }
        tallies.iter().filter(|t| t.alive).count() <= 1
    }

    /// `action` then greedy play for every seat to the end of the hand:
    /// the seat's settlement.
    fn rollout(&mut self, base: &Game, action: Action, seat: u8) -> i64 {
        let mut g = base.clone();
        if g.step(action).is_err() {
            return i64::MIN / 4;
        }
        while let Some(s) = g.to_act() {
            let a = self.greedy.act(&SeatView::new(&g, s));
            if g.step(a).is_err() {
                break;
            }
        }
        g.result().map_or(0, |r| r.deltas[usize::from(seat & 3)])
    }
}

impl Tally {
    fn mean(&self) -> f64 {
        if self.n == 0 {
            return f64::NEG_INFINITY;
        }
        self.sum / f64::from(self.n)
    }

    /// The mean and the half-width of its 95% interval.
    fn interval(&self) -> (f64, f64) {
        if self.n == 0 {
            return (f64::NEG_INFINITY, f64::INFINITY);
        }
        let n = f64::from(self.n);
        let mean = self.sum / n;
        if self.n < 2 {
            return (mean, f64::INFINITY);
        }
        let var = ((self.sum_sq - n * mean * mean) / (n - 1.0)).max(0.0);
        (mean, 1.96 * (var / n).sqrt())
    }
}

/// The candidates worth playing: the greedy choice first, then the other
/// legal actions but leaving; among discards (and ting declarations)
/// only those keeping the best shanten, fewest remaining-shanten first;
/// at most `top`.
fn candidates(view: &SeatView<'_>, greedy: Action, top: usize) -> Vec<Action> {
    let game = view.game;
    let seat = view.seat;
    let hand = game.hand(seat);
    let after = |t: crate::Tile| -> i8 {
        let mut c = hand.concealed;
        if c[t.index()] == 0 {
            return i8::MAX;
        }
        c[t.index()] -= 1;
        game.judge.shanten(&c, hand.n_melds())
    };
    let mut scored: Vec<(i8, Action)> = Vec::new();
    for a in view.legal().iter() {
        if a == greedy || a == Action::Leave {
            continue;
        }
        let s = match a {
            Action::Discard(t) | Action::Ting(t) => after(t),
            _ => -1,
        };
        scored.push((s, a));
    }
    let best_discard = scored
        .iter()
        .filter(|(s, _)| *s >= 0)
        .map(|&(s, _)| s)
        .min()
        .unwrap_or(i8::MAX);
    let greedy_keeps = match greedy {
        Action::Discard(t) | Action::Ting(t) => after(t),
        _ => best_discard,
    };
    let keep = best_discard.min(greedy_keeps);
    scored.retain(|&(s, _)| s < 0 || s <= keep);
    scored.sort_by_key(|&(s, a)| (s, a.index()));
    let mut out = vec![greedy];
    out.extend(
        scored
            .into_iter()
            .map(|(_, a)| a)
            .take(top.saturating_sub(1)),
    );
    out
}

impl Agent for MonteCarloAgent {
    fn act(&mut self, view: &SeatView<'_>) -> Action {
        if view.legal().len() < 2 {
            return self.greedy.act(view);
        }
        self.evaluate(view).0
    }

    fn reset(&mut self, seed: u64) {
        self.seed = seed;
        self.decisions = 0;
        self.greedy.reset(seed);
    }
}
