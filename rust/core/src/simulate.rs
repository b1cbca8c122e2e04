//! Native self-play: many independent one-hand games played entirely in
//! Rust, in parallel with rayon.
//!
//! Game `i` of a run with master seed `m` is dealt from
//! [`mix_seed`]`(m, i)` with seat `i mod 4` dealing, and seat `s`'s agent
//! is reset with `mix_seed(mix_seed(m, i), 1 + s)`; results are returned
//! in game order, so they never depend on the number of threads.

use crate::agent::{Agent, SeatView};
use crate::error::Error;
use crate::game::{mix_seed, Action, EndKind, Game};
use crate::parallel::Workers;
use crate::ruleset::{Family, Ruleset};
use crate::score::HandValue;
use rayon::prelude::*;
use std::ops::Range;

/// One worker's agents, table and recorder.
type Worker<R> = (Result<[Box<dyn Agent>; 4], Error>, Option<Game>, R);

/// What a run keeps of each hand, seen from inside the play: one
/// recorder per worker thread, told of every hand it plays in order
/// (`start`, then each decision's `before` and `played`, then `finish`),
/// so that it can fill reusable buffers. [`simulate_recorded`] returns
/// the `finish` values in game order.
pub trait Recorder {
    /// What one hand yields.
    type Hand: Send;

    /// Whether the tables keep their event record (for [`Game::log`]).
    fn wants_events(&self) -> bool {
        false
    }

    /// Game `index` of the run has been dealt on `g`.
    fn start(&mut self, _index: u64, _g: &Game) {}

    /// `seat` is about to act on `g` (not yet changed by its action).
    fn before(&mut self, _g: &Game, _seat: u8) {}

    /// The action played for the seat of the last [`Recorder::before`]:
    /// the agent's, or the fallback played when it was illegal.
    fn played(&mut self, _action: Action) {}

    /// The hand is over: what to keep of it.
    fn finish(&mut self, g: &Game, summary: HandSummary) -> Self::Hand;
}

/// Records nothing (the play of [`play_hand`]).
impl Recorder for () {
    type Hand = ();
    fn finish(&mut self, _: &Game, _: HandSummary) {}
}

/// The recorder of [`simulate_with`]: a function of the finished table.
struct Summarize<'a, S>(&'a S);

impl<T: Send, S: Fn(&Game, HandSummary) -> T> Recorder for Summarize<'_, S> {
    type Hand = T;
    fn finish(&mut self, g: &Game, summary: HandSummary) -> T {
        (self.0)(g, summary)
    }
}

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
    play_hand_with(rules, seed, dealer, agents, record, &mut ())
}

/// [`play_hand`] with a [`Recorder`] told of every decision (its `start`
/// and `finish` are the caller's): the arena's luck correction watches
/// the lone agent's decisions this way.
pub(crate) fn play_hand_with<R: Recorder>(
    rules: &Ruleset,
    seed: u64,
    dealer: Option<u8>,
    agents: &mut [Box<dyn Agent>; 4],
    record: bool,
    rec: &mut R,
) -> Result<(Game, u32, bool), Error> {
    let mut g = Game::new(rules, seed, dealer)?;
    g.set_recording(record);
    let (decisions, fault) = play_out(&mut g, seed, agents, rec)?;
    Ok((g, decisions, fault))
}

/// Plays the dealt hand `g` (dealt from `seed`) to its end: [`play_hand`]
/// without the dealing, so that [`simulate`] can redeal one table.
fn play_out<R: Recorder>(
    g: &mut Game,
    seed: u64,
    agents: &mut [Box<dyn Agent>; 4],
    rec: &mut R,
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
        rec.before(g, seat);
        if g.step_inline(a).is_ok() {
            rec.played(a);
        } else {
            fault = true;
            let fallback = g
                .legal_actions()
                .iter()
                .find(|&x| x != crate::game::Action::Leave)
                .or_else(|| g.legal_actions().iter().next())
                .ok_or_else(|| Error::IllegalAction("no legal action".into()))?;
            g.step(fallback)?;
            rec.played(fallback);
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
    simulate_recorded(rules, games, seed, threads, make, || Summarize(&summarize))
}

/// [`simulate_with`] with a [`Recorder`] per worker thread (built by
/// `recorder()`), which sees every decision of the hands it plays; the
/// values of its `finish` come back in game order, whatever the thread
/// count.
///
/// ```
/// use koudian_core::agent::builtin;
/// use koudian_core::game::{Action, Game};
/// use koudian_core::simulate::{simulate_recorded, HandSummary, Recorder};
/// use koudian_core::Ruleset;
/// /// Counts the discards of each hand.
/// #[derive(Default)]
/// struct Discards(u32);
/// impl Recorder for Discards {
///     type Hand = u32;
///     fn played(&mut self, a: Action) {
///         self.0 += u32::from(matches!(a, Action::Discard(_)));
///     }
///     fn finish(&mut self, _: &Game, _: HandSummary) -> u32 {
///         std::mem::take(&mut self.0)
///     }
/// }
/// let rules = Ruleset::shanxi();
/// let one = simulate_recorded(&rules, 0..30, 4, 1, |_| builtin("greedy", 0), Discards::default).unwrap();
/// let two = simulate_recorded(&rules, 0..30, 4, 2, |_| builtin("greedy", 0), Discards::default).unwrap();
/// assert_eq!(one, two);
/// assert!(one.iter().all(|&n| n > 0));
/// ```
pub fn simulate_recorded<R, F, M>(
    rules: &Ruleset,
    games: Range<u64>,
    seed: u64,
    threads: usize,
    make: F,
    recorder: M,
) -> Result<Vec<R::Hand>, Error>
where
    R: Recorder,
    F: Fn(usize) -> Result<Box<dyn Agent>, Error> + Sync,
    M: Fn() -> R + Sync,
{
    rules.validate()?;
    let workers = Workers::new(threads)?;
    // Each worker keeps its agents and one table, redealt for every hand
    // (the same hand `Game::new` would deal).
    let init = || -> Worker<R> {
        let agents = (|| Ok([make(0)?, make(1)?, make(2)?, make(3)?]))();
        (agents, None, recorder())
    };
    let one = |(agents, table, rec): &mut Worker<R>, i: u64| -> Result<R::Hand, Error> {
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
                g.set_recording(rec.wants_events());
                table.insert(g)
            }
        };
        rec.start(i, g);
        let (decisions, agent_fault) = play_out(g, game_seed, agents, rec)?;
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
        Ok(rec.finish(g, summary))
    };
    match workers {
        Workers::Caller => {
            let mut w = init();
            games.map(|i| one(&mut w, i)).collect()
        }
        _ => workers.install(|| games.into_par_iter().map_init(init, one).collect()),
    }
}

/// One simulated hand with what a run's report tallies beyond its
/// [`HandSummary`]: the 包胡 each seat paid and the winners' patterns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandRow {
    /// The hand's summary.
    pub summary: HandSummary,
    /// What each seat paid for 包胡 (covering a win alone).
    pub baohu: [i64; 4],
    /// Each winner's distinct pattern names (Chinese, English).
    pub patterns: Vec<(&'static str, &'static str)>,
}

impl HandRow {
    /// The row of the finished hand `g` (a summarizer for
    /// [`simulate_with`]).
    ///
    /// ```
    /// use koudian_core::agent::builtin;
    /// use koudian_core::simulate::{pattern_tally, simulate_with, HandRow};
    /// use koudian_core::Ruleset;
    /// let rows = simulate_with(&Ruleset::shanxi(), 0..50, 1, 1, |_| builtin("greedy", 0), HandRow::of)
    ///     .unwrap();
    /// let wins = rows.iter().filter(|r| r.summary.winners.iter().any(|&w| w)).count();
    /// assert!(wins > 0);
    /// assert!(pattern_tally(&rows).iter().all(|(_, n)| *n as usize <= wins * 4));
    /// ```
    pub fn of(g: &Game, summary: HandSummary) -> HandRow {
        let baohu = g.settlement().map_or([0; 4], |s| s.baohu_paid());
        let patterns = g
            .win_values()
            .iter()
            .flat_map(|(_, v)| pattern_names(v, g.rules().family))
            .collect();
        HandRow {
            summary,
            baohu,
            patterns,
        }
    }
}

/// The distinct pattern names (Chinese as `family` says them, English) of
/// one winner's hand, sorted.
pub fn pattern_names(v: &HandValue, family: Family) -> Vec<(&'static str, &'static str)> {
    let mut names: Vec<_> = v
        .patterns
        .iter()
        .map(|p| (p.chinese_in(family), p.english()))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The distinct patterns of each winner of a finished hand, as
/// `"中文 english"` names.
pub fn win_patterns(g: &Game) -> Vec<(u8, Vec<String>)> {
    g.win_values()
        .iter()
        .map(|(seat, v)| {
            let names = pattern_names(v, g.rules().family)
                .into_iter()
                .map(|(zh, en)| format!("{zh} {en}"));
            (*seat, names.collect())
        })
        .collect()
}

/// How many winners of `rows` had each pattern, as `"中文 english"` names
/// in name order.
pub fn pattern_tally(rows: &[HandRow]) -> Vec<(String, u64)> {
    let mut tally = std::collections::HashMap::<(&str, &str), u64>::new();
    for name in rows.iter().flat_map(|x| &x.patterns) {
        *tally.entry(*name).or_insert(0) += 1;
    }
    let mut patterns: Vec<(String, u64)> = tally
        .into_iter()
        .map(|((zh, en), count)| (format!("{zh} {en}"), count))
        .collect();
    patterns.sort();
    patterns
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
