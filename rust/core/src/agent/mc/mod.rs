//! The Monte Carlo agent `mc`: at a decision with a real choice it samples
//! completions of what it cannot see (the determinization step), plays
//! each candidate action on every sampled table followed by the greedy
//! policy for every seat to the end of the hand, and picks the candidate
//! with the best mean settlement for its seat. Against greedy opponents
//! this is one step of policy improvement over greedy: where the
//! estimates are right it can only gain.
//!
//! The budget is spent where it tells:
//! * search gating: a legal win is always taken; while the hand is more
//!   than `far` tiles from ready and no other seat has declared ting,
//!   greedy's choice is kept without a search. In the Koudian games the
//!   default searches only once an opponent has declared (`far=-1`): the
//!   departures before, mostly one tile from ready, gained a little on
//!   average but each changed the rest of its hand, and so they carried
//!   most of the variance of mc's duplicate advantage for a sixth of its
//!   mean (measured with `examples/mc_departures.rs`);
//! * candidate pruning: the others are the next in greedy's own ranking
//!   ([`GreedyAgent::rank`]), at most `top`, and a discard that raises the
//!   shanten above the best discard's is never played;
//! * common random numbers: every candidate is played on the same sampled
//!   tables, and greedy play is deterministic, so a candidate is judged by
//!   its paired difference to the greedy choice: on most tables the two
//!   give the same hand and the difference is exactly zero;
//! * early stopping: every four tables (after `min`), a candidate that
//!   trails greedy by more than `stop` standard errors of the paired
//!   difference, or has not differed from it on any table yet, is
//!   dropped, and the search ends when only greedy is left;
//! * the greedy choice is replaced only by a candidate that leads it by
//!   more than `margin` standard errors (paired), so noise does not
//!   replace a sound greedy move;
//! * cheap completions (`game/worlds.rs`): after the first table,
//!   a declared opponent's hand walks a Markov chain of tile swaps that
//!   keep it ready (uniform in the limit) instead of being redrawn by
//!   rejection, and the next decision of the hand starts from where the
//!   last one left it;
//! * opponents as they are: the undeclared opponents' sampled hands lean
//!   towards ready (`tilt`: a Metropolis walk of tile swaps weighted by
//!   `exp(-tilt × shanten)`), since hands that have been played a while
//!   are nearer ready than random tiles, and a search that meets only
//!   random hands underrates the threat (on shanxi this raised the
//!   duplicate advantage over greedy from +1.19 to +1.37 per hand, 1,000
//!   deals); and a declared opponent's sampled hand never wins with a
//!   tile it let pass or drew and discarded since declaring (a player who
//!   may win takes the win), which tells its waits apart from the tiles
//!   it has shown it does not wait on.
//!
//! Deterministic from its seed: decision `i` of a hand uses
//! `mix_seed(seed, i)` for its tables, whatever the thread, and starts
//! from the declared hands the hand's earlier decisions left (cleared by
//! [`Agent::reset`]), so a fresh agent asked about a position mid-hand may
//! weigh it a little differently from one that played the hand.
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
use crate::game::worlds::Worlds;
use crate::game::{mix_seed, Action, Game};
use crate::ruleset::Family;
use crate::tile::Counts;

/// How the agent spends its time at a decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McConfig {
    /// Sampled tables per decision at most (each candidate is played on
    /// every one of them): `rollouts`; `None` by the game (see
    /// [`McConfig::tables`]).
    pub rollouts: Option<u32>,
    /// Tables before early stopping may drop a candidate: `min`.
    pub min_rollouts: u32,
    /// Candidates played at most: `top`; `None` by the game (see
    /// [`McConfig::in_game`]).
    pub top: Option<u32>,
    /// A candidate is dropped once it trails the leader by more than
    /// this many standard errors of the paired difference: `stop`.
    pub stop_z: f64,
    /// Another candidate replaces the greedy choice only when it leads it
    /// by more than this many standard errors: `margin`.
    pub margin_z: f64,
    /// Decisions are searched only while the hand is at most this many
    /// tiles from ready, or once another seat has declared ting: `far`
    /// (-1: only once another seat has declared); `None` by the game (see
    /// [`McConfig::in_game`]).
    pub far: Option<i8>,
    /// How strongly the sampled hands of the undeclared opponents lean
    /// towards ready (`exp(-tilt × shanten)`; 0 deals them uniformly):
    /// `tilt`.
    pub tilt: f64,
    /// The most a departure from greedy's choice may cost per point it
    /// gains: a candidate replaces greedy's choice only where the mean
    /// square of its paired difference to it over the tables (points²)
    /// is at most `cost` times its mean difference (points), so that a
    /// departure adds little variance to a duplicate measurement for the
    /// points it brings: `cost`. `f64::INFINITY` (`cost=off`, every
    /// budget's) departs on the margin alone.
    pub cost: f64,
}

impl McConfig {
    /// The quick budget (`mc:budget=fast`).
    pub const FAST: McConfig = McConfig {
        rollouts: Some(16),
        min_rollouts: 4,
        top: Some(2),
        stop_z: 2.0,
        margin_z: 2.0,
        far: Some(1),
        tilt: 1.0,
        cost: f64::INFINITY,
    };
    /// The default budget (`mc`).
    pub const DEFAULT: McConfig = McConfig {
        rollouts: None,
        min_rollouts: 8,
        top: None,
        stop_z: 3.0,
        margin_z: 2.0,
        far: None,
        tilt: 1.0,
        cost: f64::INFINITY,
    };
    /// The strong budget (`mc:budget=strong`).
    pub const STRONG: McConfig = McConfig {
        rollouts: Some(192),
        min_rollouts: 8,
        top: Some(4),
        stop_z: 3.0,
        margin_z: 2.0,
        far: Some(2),
        tilt: 1.0,
        cost: f64::INFINITY,
    };

    /// `(far, top)` for a game of `family`, where the budget leaves them
    /// to the game: in the Koudian games a search only once an opponent
    /// has declared ting, among five candidates (measured on shanxi with
    /// 64 tables, 1,000 deals: +1.25 ± 0.31 a hand over greedy, where
    /// searching also one tile from ready among three gave +1.22 ± 0.37:
    /// the undeclared departures brought little and most of the
    /// variance); in Sichuan,
    /// which has no declaration to tell the danger and whose void suit is
    /// chosen by the first discards, every decision among four (measured:
    /// +0.017 ± 0.014 points a hand over greedy on 3,000 deals, where
    /// `far=1` gave +0.000 ± 0.025 on 600).
    ///
    /// ```
    /// use koudian_core::agent::mc::McConfig;
    /// use koudian_core::ruleset::Family;
    /// assert_eq!(McConfig::DEFAULT.in_game(Family::Shanxi), (-1, 5));
    /// assert_eq!(McConfig::DEFAULT.in_game(Family::Sichuan), (8, 4));
    /// assert_eq!(McConfig::parse("far=2:top=2").unwrap().in_game(Family::Sichuan), (2, 2));
    /// ```
    pub fn in_game(&self, family: Family) -> (i8, u32) {
        let (far, top) = match family {
            Family::Sichuan => (8, 4),
            _ => (-1, 5),
        };
        (self.far.unwrap_or(far), self.top.unwrap_or(top))
    }

    /// Sampled tables per decision at most in a game of `family`, where
    /// the budget leaves them to the game: 256 in the Koudian games, which
    /// search only once an opponent has declared (measured on shanxi over
    /// the same 2,000 deals: +1.61 ± 0.25 a hand over greedy, +0.65 ±
    /// 0.23 more than 64 tables gave, at 62 arena hands a second with one
    /// mc seat on 2 threads); 64 in Sichuan, which searches every decision
    /// for an edge of hundredths of a point (256 there: 23 hands a second
    /// for +0.013 ± 0.033 where 64 gave +0.006 ± 0.030, 600 deals).
    ///
    /// ```
    /// use koudian_core::agent::mc::McConfig;
    /// use koudian_core::ruleset::Family;
    /// assert_eq!(McConfig::DEFAULT.tables(Family::Shanxi), 256);
    /// assert_eq!(McConfig::DEFAULT.tables(Family::Sichuan), 64);
    /// assert_eq!(McConfig::STRONG.tables(Family::Sichuan), 192);
    /// assert_eq!(McConfig::parse("rollouts=9").unwrap().tables(Family::Shanxi), 9);
    /// ```
    pub fn tables(&self, family: Family) -> u32 {
        self.rollouts.unwrap_or(match family {
            Family::Sichuan => 64,
            _ => 256,
        })
    }

    /// Parses the options of an agent spec after `mc` (`":"`-separated
    /// `key=value`: `budget=fast|default|strong`, `rollouts`, `min`,
    /// `top`, `stop`, `margin`, `far`, `tilt`, `cost`; a budget first, then
    /// changes to it).
    ///
    /// ```
    /// use koudian_core::agent::mc::McConfig;
    /// assert_eq!(McConfig::parse("").unwrap(), McConfig::DEFAULT);
    /// assert_eq!(McConfig::parse("rollouts=200").unwrap().rollouts, Some(200));
    /// assert_eq!(McConfig::parse("budget=strong:top=2").unwrap().top, Some(2));
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
                "rollouts" => c.rollouts = Some(int()?),
                "min" => c.min_rollouts = int()?,
                "top" => c.top = Some(int()?),
                "stop" => c.stop_z = real()?,
                "margin" => c.margin_z = real()?,
                "tilt" => c.tilt = real()?,
                "cost" => {
                    c.cost = match value {
                        "off" => f64::INFINITY,
                        _ => value
                            .parse::<f64>()
                            .ok()
                            .filter(|x| x.is_finite() && (1.0..=100_000.0).contains(x))
                            .ok_or_else(|| {
                                bad(format!(
                                    "mc option cost={value:?}: a number 1-100000 or off"
                                ))
                            })?,
                    }
                }
                "far" => {
                    c.far = Some(
                        value
                            .parse::<i8>()
                            .ok()
                            .filter(|n| (-1..=8).contains(n))
                            .ok_or_else(|| {
                                bad(format!("mc option far={value:?}: a whole number -1 to 8"))
                            })?,
                    )
                }
                _ => {
                    return Err(bad(format!(
                        "unknown mc option {key:?} (available: budget, rollouts, min, top, stop, margin, far, tilt, cost)"
                    )))
                }
            }
        }
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
    /// The declared seats' hands the last search of this hand left, to
    /// start the next one from (the completions' hints).
    hints: [Option<Counts>; 4],
}

/// A candidate's running sums over the tables it was played on: its
/// settlement, and its difference to the greedy choice's on the same
/// table (the paired comparison the decision rests on).
#[derive(Clone, Copy, Debug)]
struct Tally {
    action: Action,
    alive: bool,
    n: u32,
    sum: f64,
    sum_sq: f64,
    d_sum: f64,
    d_sq: f64,
}

impl MonteCarloAgent {
    /// An agent with `config`, seeded.
    pub fn new(config: McConfig, seed: u64) -> MonteCarloAgent {
        MonteCarloAgent {
            config,
            seed,
            decisions: 0,
            greedy: GreedyAgent::new(seed),
            hints: [None; 4],
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
            return (greedy, vec![Tally::new(greedy)]);
        }
        let decision_seed = mix_seed(self.seed, self.decisions);
        self.decisions += 1;
        let Some(cands) = candidates(view, greedy, &mut self.greedy, &self.config) else {
            return (greedy, vec![Tally::new(greedy)]);
        };
        let mut tallies: Vec<Tally> = cands.iter().map(|&a| Tally::new(a)).collect();
        if tallies.len() < 2 {
            return (greedy, tallies);
        }
        let game = view.game;
        let rules = game.rules();
        let seat = view.seat;
        let obs = view.observation();
        let Ok(worlds) = Worlds::new(&game.judge, rules, &obs, &self.hints, decision_seed) else {
            return (greedy, tallies);
        };
        let mut worlds = worlds.with_tilt(self.config.tilt, &obs);
        let tables = self.config.tables(rules.family);
        let min_tables = self.config.min_rollouts.min(tables);
        for w in 0..tables {
            let Ok(mut base) = Game::from_observation(rules, &obs, worlds.next_world(), None)
            else {
                break;
            };
            base.set_recording(false);
            let mut greedy_value = 0.0;
            for (i, t) in tallies.iter_mut().enumerate() {
                if !t.alive {
                    continue;
                }
                let v = rollout(&mut self.greedy, &base, t.action, seat) as f64;
                if i == 0 {
                    greedy_value = v;
                }
                t.add(v, v - greedy_value);
            }
            let n = w + 1;
            if n >= min_tables && n % 4 == 0 && self.prune(&mut tallies) {
                break;
            }
        }
        self.hints = worlds.hints();
        let best = choose(&tallies, self.config.margin_z, self.config.cost);
        (tallies[best].action, tallies)
    }

    /// Drops the candidates that cannot replace greedy: clearly behind it
    /// (paired), or no different from it on any table so far; true when
    /// only greedy is left.
    fn prune(&self, tallies: &mut [Tally]) -> bool {
        for t in tallies.iter_mut().skip(1).filter(|t| t.alive) {
            let (d, se) = t.diff();
            if t.d_sq == 0.0 || d + self.config.stop_z * se < 0.0 {
                t.alive = false;
            }
        }
        tallies.iter().filter(|t| t.alive).count() <= 1
    }
}

/// `action` then greedy play for every seat to the end of the hand: the
/// settlement of `seat` (a large loss if `action` is illegal on `base`).
/// The arena's luck correction plays the same continuation.
pub(crate) fn rollout(greedy: &mut GreedyAgent, base: &Game, action: Action, seat: u8) -> i64 {
    let mut g = base.clone();
    if g.step(action).is_err() {
        return i64::MIN / 4;
    }
    while let Some(s) = g.to_act() {
        let a = greedy.act(&SeatView::new(&g, s));
        if g.step(a).is_err() {
            break;
        }
    }
    g.result().map_or(0, |r| r.deltas[usize::from(seat & 3)])
}

/// The index of the candidate to play: the one that leads greedy's
/// choice (index 0) by the most, paired, among those that lead it by more
/// than `margin` standard errors and cost at most `cost` (the mean square
/// of the paired difference at most `cost` times its mean); else 0.
fn choose(tallies: &[Tally], margin: f64, cost: f64) -> usize {
    let mut best = (0usize, 0.0f64);
    for (i, t) in tallies.iter().enumerate().skip(1) {
        let (d, se) = t.diff();
        let affordable = cost == f64::INFINITY || t.d_sq / f64::from(t.n) <= cost * d;
        if t.n >= 2 && d > margin * se && affordable && d > best.1 {
            best = (i, d);
        }
    }
    best.0
}

impl Tally {
    fn new(action: Action) -> Tally {
        Tally {
            action,
            alive: true,
            n: 0,
            sum: 0.0,
            sum_sq: 0.0,
            d_sum: 0.0,
            d_sq: 0.0,
        }
    }

    fn add(&mut self, v: f64, d: f64) {
        self.n += 1;
        self.sum += v;
        self.sum_sq += v * v;
        self.d_sum += d;
        self.d_sq += d * d;
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

    /// The mean paired difference to the greedy choice and its standard
    /// error (infinite before two tables).
    fn diff(&self) -> (f64, f64) {
        if self.n < 2 {
            return (0.0, f64::INFINITY);
        }
        let n = f64::from(self.n);
        let mean = self.d_sum / n;
        let var = ((self.d_sq - n * mean * mean) / (n - 1.0)).max(0.0);
        (mean, (var / n).sqrt())
    }
}

/// The candidates worth playing, the greedy choice first, or `None` where
/// the decision is not worth a search: a legal win (always taken), and
/// while the hand is more than `far`
/// from ready and no other seat has declared ting, the tables' outcomes
/// hardly depend on the choice and greedy's is kept. The others are the
/// next in greedy's own ranking, but leaving and, among discards (and
/// ting declarations), those that raise the shanten above the best
/// discard's and greedy's; at most `top`.
fn candidates(
    view: &SeatView<'_>,
    greedy: Action,
    agent: &mut GreedyAgent,
    config: &McConfig,
) -> Option<Vec<Action>> {
    let game = view.game;
    let seat = view.seat;
    let hand = game.hand(seat);
    if greedy == Action::Win {
        // A legal win is taken, as greedy takes it: passing one for a
        // larger win later is a bet the tables misjudge (in Sichuan it
        // cost mc 0.13 points a hand against greedy, measured in the
        // duplicate arena).
        return None;
    }
    let declared = (0..4u8).any(|s| s != seat && game.is_ting(s));
    let (far, top) = config.in_game(game.rules().family);
    if !declared && game.judge.shanten(&hand.concealed, hand.n_melds()) > far {
        return None;
    }
    let ranked = agent.rank(view);
    let shanten = |r: &RankedAction| match r.action {
        Action::Discard(_) | Action::Ting(_) => r.number("shanten").unwrap_or(f64::INFINITY),
        _ => f64::NEG_INFINITY,
    };
    let keep = ranked
        .iter()
        .map(shanten)
        .filter(|x| *x != f64::NEG_INFINITY)
        .fold(f64::INFINITY, f64::min);
    let mut out = vec![greedy];
    out.extend(
        ranked
            .iter()
            .filter(|r| r.action != greedy && r.action != Action::Leave && shanten(r) <= keep)
            .map(|r| r.action)
            .take((top as usize).saturating_sub(1)),
    );
    Some(out)
}

impl Agent for MonteCarloAgent {
    fn act(&mut self, view: &SeatView<'_>) -> Action {
        if view.legal().len() < 2 {
            return self.greedy.act(view);
        }
        self.evaluate(view).0
    }

    /// The values are the estimated mean settlements (points) of the
    /// candidates played out, as [`MonteCarloAgent::rank`] reports them,
    /// `-inf` for the other legal actions; untouched where no search ran
    /// (a forced move, greedy's choice kept without playing out two
    /// candidates).
    fn act_valued(
        &mut self,
        view: &SeatView<'_>,
        values: &mut [f32; crate::game::N_ACTIONS],
    ) -> Option<Action> {
        if view.legal().len() < 2 {
            return Some(self.greedy.act(view));
        }
        let (choice, tallies) = self.evaluate(view);
        if tallies.iter().filter(|t| t.n > 0).count() >= 2 {
            for a in view.legal().iter() {
                values[a.index()] = f32::NEG_INFINITY;
            }
            for t in tallies.iter().filter(|t| t.n > 0) {
                values[t.action.index()] = t.interval().0 as f32;
            }
        }
        Some(choice)
    }

    fn reset(&mut self, seed: u64) {
        self.seed = seed;
        self.decisions = 0;
        self.hints = [None; 4];
        self.greedy.reset(seed);
    }
}

#[cfg(test)]
mod tests;
