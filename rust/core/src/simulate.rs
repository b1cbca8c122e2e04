//! Native self-play: many independent one-hand games played entirely in
//! Rust, in parallel with rayon.
//!
//! Game `i` of a run with master seed `m` is dealt from
//! [`mix_seed`]`(m, i)` with seat `i mod 4` dealing, and seat `s`'s agent
//! is reset with `mix_seed(mix_seed(m, i), 1 + s)`; results are returned
//! in game order, so they never depend on the number of threads.

use crate::agent::{Agent, SeatView};
use crate::error::Error;
use crate::game::{mix_seed, EndKind, Game};
use crate::parallel::Workers;
use crate::ruleset::Ruleset;
use rayon::prelude::*;
use std::ops::Range;

/// One worker's agents and table.
type Worker = (Result<[Box<dyn Agent>; 4], Error>, Option<Game>);

/// What one simulated hand produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HandSummary {
    /// How it ended.
    pub kind: EndKind,
    /// Who won.
    pub winners: [bool; 4],
    /// By self-draw.
    pub self_draw: bool,
    /// The discarder or konger who dealt in.
    pub from: Option<u8>,
    /// The dealer.
    pub dealer: u8,
    /// Who had declared ting at the end.
    pub ting: [bool; 4],
    /// Score changes.
    pub deltas: [i64; 4],
    /// Decisions the agents made.
    pub decisions: u32,
    /// An agent returned an illegal action (a random legal one was played
    /// instead) at least once.
    pub agent_fault: bool,
}

/// Plays one hand with `agents` (each reset with its seed first). Returns
/// the finished game, the number of agent decisions, and whether an agent
/// ever answered an illegal action (the first legal non-leaving action
/// was then played for it).
///
/// ```
/// use koudian_core::agent::{Agent, RandomAgent};
/// use koudian_core::{simulate::play_hand, Ruleset};
/// let mut agents: [Box<dyn Agent>; 4] = std::array::from_fn(|s| -> Box<dyn Agent> {
///     Box::new(RandomAgent::new(s as u64))
/// });
/// let (g, decisions, fault) = play_hand(&Ruleset::shanxi(), 9, None, &mut agents, true).unwrap();
/// assert!(g.is_over() && decisions > 0 && !fault);
/// ```
pub fn play_hand(
    rules: &Ruleset,
    seed: u64,
    dealer: Option<u8>,
    agents: &mut [Box<dyn Agent>; 4],
    record: bool,
) -> Result<(Game, u32, bool), Error> {
    let mut g = Game::new(rules, seed, dealer)?;
    g.set_recording(record);
    let (decisions, fault) = play_out(&mut g, seed, agents)?;
    Ok((g, decisions, fault))
}

/// Plays the dealt hand `g` (dealt from `seed`) to its end: [`play_hand`]
/// without the dealing, so that [`simulate`] can redeal one table.
fn play_out(
    g: &mut Game,
    seed: u64,
    agents: &mut [Box<dyn Agent>; 4],
) -> Result<(u32, bool), Error> {
    for (s, a) in agents.iter_mut().enumerate() {
        a.reset(mix_seed(seed, 1 + s as u64));
    }
    let mut decisions = 0;
    let mut fault = false;
    while let Some(seat) = g.to_act() {
        // Seats are 0-3: the mask spares the index check.
        let a = agents[(seat & 3) as usize].act(&SeatView::new(g, seat));
        decisions += 1;
        if g.step_inline(a).is_err() {
            fault = true;
            let fallback = g
                .legal_actions()
                .iter()
                .find(|&x| x != crate::game::Action::Leave)
                .or_else(|| g.legal_actions().iter().next())
                .ok_or_else(|| Error::IllegalAction("no legal action".into()))?;
            g.step(fallback)?;
        }
    }
    // A hand the scorer refused is an error, never a silent zero.
    if let Some(e) = g.settlement_error() {
        return Err(e.clone());
    }
    Ok((decisions, fault))
}

/// Plays `hands` one-hand games on `threads` threads (0: all cores; 1: the
/// calling thread; `k > 1`: a pool of `k` threads kept for the process, as
/// for the batch functions such as [`crate::shape::is_win_batch`]).
/// `make(seat)` builds the agent of a seat; it is called once per seat per
/// worker and the agent is reset before every hand.
///
/// ```
/// use koudian_core::{agent::RandomAgent, simulate::simulate, Ruleset};
/// let a = simulate(&Ruleset::shanxi(), 20, 1, 1, |s| Box::new(RandomAgent::new(s as u64))).unwrap();
/// let b = simulate(&Ruleset::shanxi(), 20, 1, 2, |s| Box::new(RandomAgent::new(s as u64))).unwrap();
/// assert_eq!(a, b);
/// ```
pub fn simulate<F>(
    rules: &Ruleset,
    hands: u64,
    seed: u64,
    threads: usize,
    make: F,
) -> Result<Vec<HandSummary>, Error>
where
    F: Fn(usize) -> Box<dyn Agent> + Sync,
{
    simulate_with(
        rules,
        0..hands,
        seed,
        threads,
        |s| Ok(make(s)),
        |_, summary| summary,
    )
}

/// [`simulate`] of the games `games` of the run (game `i` dealt from
/// `mix_seed(seed, i)`, so that a long run can be played in parts), with
/// fallible agent construction and a caller's record of each finished hand:
/// `summarize(game, summary)` sees the finished table (its settlement, its
/// winners' hand values) beside the [`HandSummary`]. The records come back
/// in game order, whatever the thread count.
///
/// ```
/// use koudian_core::agent::builtin;
/// use koudian_core::simulate::simulate_with;
/// use koudian_core::Ruleset;
/// let payments = simulate_with(&Ruleset::shanxi(), 100..120, 1, 2, |_| builtin("random", 0), |g, _| {
///     g.settlement().map_or(0, |s| s.payments.len())
/// })
/// .unwrap();
/// assert_eq!(payments.len(), 20);
/// assert!(simulate_with(&Ruleset::shanxi(), 0..1, 1, 1, |_| builtin("clever", 0), |_, s| s).is_err());
/// ```
pub fn simulate_with<T, F, S>(
    rules: &Ruleset,
    games: Range<u64>,
    seed: u64,
    threads: usize,
    make: F,
    summarize: S,
) -> Result<Vec<T>, Error>
where
    T: Send,
    F: Fn(usize) -> Result<Box<dyn Agent>, Error> + Sync,
    S: Fn(&Game, HandSummary) -> T + Sync,
{
    rules.validate()?;
    let workers = Workers::new(threads)?;
    // Each worker keeps its agents and one table, redealt for every hand
    // (the same hand `Game::new` would deal).
    let init = || -> Worker {
        let agents = (|| Ok([make(0)?, make(1)?, make(2)?, make(3)?]))();
        (agents, None)
    };
    let one = |(agents, table): &mut Worker, i: u64| -> Result<T, Error> {
        let agents = agents.as_mut().map_err(|e| e.clone())?;
        let game_seed = mix_seed(seed, i);
        let dealer = Some((i % 4) as u8);
        let g = match table {
            Some(g) => {
                g.redeal(game_seed, dealer)?;
                g
            }
            None => {
                let mut g = Game::new(rules, game_seed, dealer)?;
                g.set_recording(false);
                table.insert(g)
            }
        };
        let (decisions, agent_fault) = play_out(g, game_seed, agents)?;
        let r = g
            .result()
            .ok_or_else(|| Error::IllegalAction("hand did not finish".into()))?;
        let summary = HandSummary {
            kind: r.kind,
            winners: r.winners,
            self_draw: r.self_draw,
            from: r.from,
            dealer: r.dealer,
            ting: r.ting,
            deltas: r.deltas,
            decisions,
            agent_fault,
        };
        Ok(summarize(g, summary))
    };
    match workers {
        Workers::Caller => {
            let mut w = init();
            games.map(|i| one(&mut w, i)).collect()
        }
        _ => workers.install(|| games.into_par_iter().map_init(init, one).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::builtin;

    /// A part of a run is the same games as that part of the whole run,
    /// on any number of threads, and `summarize` sees each finished table.
    #[test]
    fn a_range_of_games_matches_the_whole_run() {
        let rules = Ruleset::shanxi();
        let whole = simulate(&rules, 60, 8, 1, |s| builtin("random", s as u64).unwrap()).unwrap();
        for threads in [1, 2] {
            let part = simulate_with(
                &rules,
                25..60,
                8,
                threads,
                |_| builtin("random", 0),
                |g, s| {
                    let settled = g.settlement().map_or([0; 4], |x| x.deltas);
                    assert_eq!(settled, s.deltas);
                    s
                },
            )
            .unwrap();
            assert_eq!(part, whole[25..]);
        }
    }

    /// An agent that cannot be built is an error, not a panic.
    #[test]
    fn a_failing_agent_constructor_is_an_error() {
        let r = simulate_with(
            &Ruleset::shanxi(),
            0..50,
            1,
            2,
            |_| builtin("nobody", 0),
            |_, s| s,
        );
        assert!(matches!(r, Err(Error::InvalidRuleset(_))));
    }
}
