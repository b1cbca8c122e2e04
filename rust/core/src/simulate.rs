//! The one game loop and the native runners built on it.
//!
//! [`play_out`] plays a dealt table to its end (or to a seat without an
//! agent) with any [`Agent`]: the built-in ones, and agents living
//! outside Rust (the Python binding's `PyAgent`), which may answer a
//! non-action or fail. Every runner (self-play, the arena, a match's
//! hand, a Python `Game` played to its end, a web table's bot seats)
//! plays through it, so the fault rule and the seeding rule are stated
//! once, here:
//!
//! * Game `i` of a run with master seed `m` is dealt from
//!   [`mix_seed`]`(m, i)` with seat `i mod 4` dealing ([`deal_of`]), and
//!   seat `s`'s agent is reset with `mix_seed(game_seed, 1 + s)`
//!   ([`agent_seed`]); results are returned in game order, so they never
//!   depend on the number of threads.
//! * An answer that is not a legal action gets the fallback
//!   ([`ActionMask::fallback`](crate::game::ActionMask::fallback)) played
//!   for it and is reported to the [`Recorder`] ([`Recorder::fault`]); an
//!   agent's error stops the run and is returned.

use crate::agent::{Agent, Answer, SeatView};
use crate::error::Error;
use crate::game::{mix_seed, Action, EndKind, Game, Match};
use crate::parallel::Workers;
use crate::ruleset::{Family, Ruleset};
use crate::score::HandValue;
use rayon::prelude::*;
use std::ops::Range;

mod lockstep;
pub use lockstep::LOCKSTEP_TABLES;

/// One worker's agents, table and recorder.
type Worker<R> = (Result<[Box<dyn Agent>; 4], Error>, Option<Game>, R);

/// Game `index` of a run with master seed `seed`: the seed it is dealt
/// from and its dealer.
///
/// ```
/// use koudian_core::game::mix_seed;
/// use koudian_core::simulate::deal_of;
/// assert_eq!(deal_of(7, 6), (mix_seed(7, 6), 2));
/// ```
#[inline]
pub fn deal_of(seed: u64, index: u64) -> (u64, u8) {
    (mix_seed(seed, index), (index % 4) as u8)
}

/// The seed `seat`'s agent is reset with before the hand dealt from
/// `game_seed`: an agent's randomness depends on the deal and the seat,
/// never on which agent sits there or on threads.
#[inline]
pub fn agent_seed(game_seed: u64, seat: u8) -> u64 {
    mix_seed(game_seed, 1 + u64::from(seat))
}

/// The agents of a table, by seat: four agents, or (a table some of
/// whose seats are played from outside, such as a web table's human)
/// four optional ones. [`play_out`] stops at a seat without one.
pub trait Seats {
    /// The agent of `seat` (0-3), if the loop plays that seat.
    fn agent(&mut self, seat: u8) -> Option<&mut dyn Agent>;
}

impl Seats for [Box<dyn Agent>; 4] {
    #[inline]
    fn agent(&mut self, seat: u8) -> Option<&mut dyn Agent> {
        // Seats are 0-3: the mask spares the index check.
        Some(self[(seat & 3) as usize].as_mut())
    }
}

impl Seats for [Option<Box<dyn Agent>>; 4] {
    #[inline]
    fn agent(&mut self, seat: u8) -> Option<&mut dyn Agent> {
        match &mut self[(seat & 3) as usize] {
            Some(a) => Some(a.as_mut()),
            None => None,
        }
    }
}

/// Resets the agents of `seats` for the hand dealt from `game_seed`
/// ([`agent_seed`]).
pub fn reset_agents<S: Seats + ?Sized>(seats: &mut S, game_seed: u64) {
    for s in 0..4u8 {
        if let Some(a) = seats.agent(s) {
            a.reset(agent_seed(game_seed, s));
        }
    }
}

/// What a run keeps of each hand, seen from inside the play: one
/// recorder per worker thread, told of every hand it plays in order
/// (`start`, then each decision's `before`, `fault` if its answer was not
/// legal, and `played`, then `finish`), so that it can fill reusable
/// buffers. [`simulate_recorded`] returns the `finish` values in game
/// order.
pub trait Recorder {
    /// What one hand yields.
    type Hand: Send;

    /// Whether the tables keep their event record (for [`Game::log`]).
    fn wants_events(&self) -> bool {
        false
    }

    /// Game `index` of the run has been dealt on `g` (in the arena, the
    /// hand id `deal * tables + table`).
    fn start(&mut self, _index: u64, _g: &Game) {}

    /// `seat` is about to act on `g` (not yet changed by its action).
    fn before(&mut self, _g: &Game, _seat: u8) {}

    /// The agent of `seat` answered `answer`, which is not a legal
    /// action: `fallback` is played for it (told after `before`, before
    /// `played`).
    fn fault(&mut self, _seat: u8, _answer: &Answer, _fallback: Action) {}

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

/// Two recorders told of the same play (the arena's luck watch beside
/// the caller's recorder); `finish` yields both hands.
pub struct Both<'a, A, B>(pub &'a mut A, pub &'a mut B);

impl<A: Recorder, B: Recorder> Recorder for Both<'_, A, B> {
    type Hand = (A::Hand, B::Hand);
    fn wants_events(&self) -> bool {
        self.0.wants_events() || self.1.wants_events()
    }
    fn start(&mut self, index: u64, g: &Game) {
        self.0.start(index, g);
        self.1.start(index, g);
    }
    fn before(&mut self, g: &Game, seat: u8) {
        self.0.before(g, seat);
        self.1.before(g, seat);
    }
    fn fault(&mut self, seat: u8, answer: &Answer, fallback: Action) {
        self.0.fault(seat, answer, fallback);
        self.1.fault(seat, answer, fallback);
    }
    fn played(&mut self, action: Action) {
        self.0.played(action);
        self.1.played(action);
    }
    fn finish(&mut self, g: &Game, summary: HandSummary) -> Self::Hand {
        (self.0.finish(g, summary), self.1.finish(g, summary))
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

impl HandSummary {
    /// The summary of the finished hand `g`, whose agents made
    /// `decisions` decisions, `agent_fault` telling whether any answer
    /// was not legal.
    pub fn of(g: &Game, decisions: u32, agent_fault: bool) -> Result<HandSummary, Error> {
        let r = g
            .result()
            .ok_or_else(|| Error::IllegalAction("hand did not finish".into()))?;
        Ok(HandSummary {
            kind: r.kind,
            winners: r.winners,
            self_draw: r.self_draw,
            from: r.from,
            dealer: r.dealer,
            ting: r.ting,
            deltas: r.deltas,
            decisions,
            agent_fault,
        })
    }
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
pub fn play_hand_with<R: Recorder, S: Seats + ?Sized>(
    rules: &Ruleset,
    seed: u64,
    dealer: Option<u8>,
    agents: &mut S,
    record: bool,
    rec: &mut R,
) -> Result<(Game, u32, bool), Error> {
    let mut g = Game::new(rules, seed, dealer)?;
    g.set_recording(record);
    reset_agents(agents, seed);
    let (decisions, fault) = play_out(&mut g, agents, rec)?;
    Ok((g, decisions, fault))
}

/// Game `index` of the run `seed` ([`deal_of`]), its agents reset
/// ([`agent_seed`]) and played to its end, told to `rec` from `start`
/// (with `index`) to its last decision (its `finish` is the caller's):
/// one game of [`simulate_recorded`] on a table of its own, for a caller
/// that plays the games of a run one at a time (the Python binding,
/// whose agents may be Python objects). Returns the finished game (its
/// event record kept when `record`), the decisions and whether any
/// answer was not legal.
///
/// ```
/// use koudian_core::agent::builtin;
/// use koudian_core::simulate::{play_run_game, simulate};
/// use koudian_core::Ruleset;
/// let rules = Ruleset::shanxi();
/// let mut agents = [0, 1, 2, 3].map(|_| builtin("greedy", 0).unwrap());
/// let (g, decisions, _) = play_run_game(&rules, 5, 3, &mut agents, false, &mut ()).unwrap();
/// let run = simulate(&rules, 4, 5, 1, |_| builtin("greedy", 0).unwrap()).unwrap();
/// assert_eq!(g.result().unwrap().deltas, run[3].deltas);
/// assert_eq!(decisions, run[3].decisions);
/// ```
pub fn play_run_game<R: Recorder, S: Seats + ?Sized>(
    rules: &Ruleset,
    seed: u64,
    index: u64,
    agents: &mut S,
    record: bool,
    rec: &mut R,
) -> Result<(Game, u32, bool), Error> {
    let (game_seed, dealer) = deal_of(seed, index);
    let mut g = Game::new(rules, game_seed, Some(dealer))?;
    g.set_recording(record);
    rec.start(index, &g);
    reset_agents(agents, game_seed);
    let (decisions, fault) = play_out(&mut g, agents, rec)?;
    Ok((g, decisions, fault))
}

/// The next hand of the match `m` (dealt from `seed` when given, as
/// [`Match::next_game_from`], else from the match's own hand seed), its
/// agents reset from the hand's seed ([`agent_seed`]), played to its end
/// and recorded in `m`; `None` once the match is over. Returns the
/// finished game (its event record kept when `record`), the decisions and
/// whether any answer was not legal.
///
/// ```
/// use koudian_core::agent::builtin;
/// use koudian_core::game::{Match, MatchLength};
/// use koudian_core::simulate::play_match_hand;
/// use koudian_core::Ruleset;
/// let mut m = Match::new(&Ruleset::shanxi(), 3, MatchLength::Hands(2)).unwrap();
/// let mut agents = [0, 1, 2, 3].map(|_| builtin("greedy", 0).unwrap());
/// assert!(play_match_hand(&mut m, &mut agents, false, None, &mut ()).unwrap().is_some());
/// assert!(play_match_hand(&mut m, &mut agents, false, None, &mut ()).unwrap().is_some());
/// assert!(play_match_hand(&mut m, &mut agents, false, None, &mut ()).unwrap().is_none());
/// assert_eq!(m.totals().iter().sum::<i64>(), 0);
/// ```
pub fn play_match_hand<R: Recorder, S: Seats + ?Sized>(
    m: &mut Match,
    agents: &mut S,
    record: bool,
    seed: Option<u64>,
    rec: &mut R,
) -> Result<Option<(Game, u32, bool)>, Error> {
    let next = match seed {
        Some(s) => m.next_game_from(s)?,
        None => m.next_game()?,
    };
    let Some(mut g) = next else {
        return Ok(None);
    };
    g.set_recording(record);
    reset_agents(agents, g.seed().unwrap_or(0));
    let (decisions, fault) = play_out(&mut g, agents, rec)?;
    m.record(&g)?;
    Ok(Some((g, decisions, fault)))
}

/// The one game loop: plays the dealt table `g` with `seats` until the
/// hand is over or the seat to act has no agent (a seat played from
/// outside, such as a web table's human). Each answer that is not a
/// legal action gets the fallback
/// ([`ActionMask::fallback`](crate::game::ActionMask::fallback)) played
/// for it, told to `rec` ([`Recorder::fault`]); an agent's error stops the
/// loop (the table as it was before that decision) and is returned.
/// The agents are not reset here ([`reset_agents`]). Returns the
/// decisions played and whether any answer was not legal.
///
/// ```
/// use koudian_core::agent::{builtin, Agent};
/// use koudian_core::game::Game;
/// use koudian_core::simulate::play_out;
/// use koudian_core::Ruleset;
/// let mut g = Game::new(&Ruleset::shanxi(), 2, None).unwrap();
/// // Seat 0 is played from outside: the loop stops at its turn.
/// let mut seats: [Option<Box<dyn Agent>>; 4] =
///     [None, builtin("greedy", 0).ok(), builtin("greedy", 0).ok(), builtin("greedy", 0).ok()];
/// play_out(&mut g, &mut seats, &mut ()).unwrap();
/// assert!(g.is_over() || g.to_act() == Some(0));
/// ```
pub fn play_out<R: Recorder, S: Seats + ?Sized>(
    g: &mut Game,
    seats: &mut S,
    rec: &mut R,
) -> Result<(u32, bool), Error> {
    let mut t = Tally::of(seats);
    play_until::<false, R, S>(g, seats, rec, &mut t, [false; 4])?;
    t.settle(g)
}

/// Where the game loop stands in a hand: the decisions played, whether
/// any answer was not legal, and which seats answer through
/// [`Agent::decide`] (asked once a hand).
pub(crate) struct Tally {
    decisions: u32,
    fault: bool,
    decides: [bool; 4],
}

impl Tally {
    /// The tally of a hand about to be played by `seats`.
    pub(crate) fn of<S: Seats + ?Sized>(seats: &mut S) -> Tally {
        Tally {
            decisions: 0,
            fault: false,
            decides: std::array::from_fn(|s| seats.agent(s as u8).is_some_and(|a| a.decides())),
        }
    }

    /// The hand's decisions and fault once the loop stopped; an error
    /// for a hand the scorer refused (never a silent zero).
    pub(crate) fn settle(&self, g: &Game) -> Result<(u32, bool), Error> {
        if let Some(e) = g.settlement_error() {
            return Err(e.clone());
        }
        Ok((self.decisions, self.fault))
    }
}

/// The one game loop ([`play_out`]'s): plays `g` with `seats` until the
/// hand is over or the seat to act has no agent (`None`), or, when
/// `BATCHED`, until a seat marked in `batched` is to act: its seat is
/// returned, for the caller to decide (with other tables' decisions in
/// one batch) and hand the answer to [`answered`].
#[inline]
pub(crate) fn play_until<const BATCHED: bool, R: Recorder, S: Seats + ?Sized>(
    g: &mut Game,
    seats: &mut S,
    rec: &mut R,
    t: &mut Tally,
    batched: [bool; 4],
) -> Result<Option<u8>, Error> {
    while let Some(seat) = g.to_act() {
        // Seats are 0-3: the mask spares the index check.
        let s = usize::from(seat & 3);
        if BATCHED && batched[s] {
            return Ok(Some(seat));
        }
        let Some(agent) = seats.agent(seat) else {
            break;
        };
        if !t.decides[s] {
            // A native agent: one call, its action stepped at once (the
            // hot path of self-play; a refused action is the cold path).
            let a = agent.act(&SeatView::new(g, seat));
            t.decisions += 1;
            rec.before(g, seat);
            if g.step_inline(a).is_ok() {
                rec.played(a);
            } else {
                t.fault = true;
                play_fallback(g, seat, &Answer::Action(a), rec)?;
            }
            continue;
        }
        let answer = agent.decide(&SeatView::new(g, seat))?;
        answered(g, seat, answer, rec, t)?;
    }
    Ok(None)
}

/// Plays the answer of `seat`'s agent (the fallback for one that is not
/// a legal action) and tells `rec`.
pub(crate) fn answered<R: Recorder>(
    g: &mut Game,
    seat: u8,
    answer: Answer,
    rec: &mut R,
    t: &mut Tally,
) -> Result<(), Error> {
    t.decisions += 1;
    rec.before(g, seat);
    match answer {
        Answer::Action(a) if g.step_inline(a).is_ok() => rec.played(a),
        Answer::Faulted(a) if g.step_inline(a).is_ok() => {
            t.fault = true;
            rec.played(a);
        }
        other => {
            t.fault = true;
            play_fallback(g, seat, &other, rec)?;
        }
    }
    Ok(())
}

/// Plays the fallback ([`ActionMask::fallback`](crate::game::ActionMask::fallback)) for `seat`, whose
/// `answer` was refused, and tells `rec` of the fault.
#[cold]
#[inline(never)]
fn play_fallback<R: Recorder>(
    g: &mut Game,
    seat: u8,
    answer: &Answer,
    rec: &mut R,
) -> Result<(), Error> {
    let fallback = g
        .legal_actions()
        .fallback()
        .ok_or_else(|| Error::IllegalAction("no legal action".into()))?;
    rec.fault(seat, answer, fallback);
    g.step(fallback)?;
    rec.played(fallback);
    Ok(())
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
        let (game_seed, dealer) = deal_of(seed, i);
        let dealer = Some(dealer);
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
        reset_agents(agents, game_seed);
        let (decisions, agent_fault) = play_out(g, agents, rec)?;
        let summary = HandSummary::of(g, decisions, agent_fault)?;
        Ok(rec.finish(g, summary))
    };
    if lockstep::wanted(&make) {
        return lockstep::run(rules, games, seed, &workers, &make, &recorder);
    }
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

    /// An agent outside Rust, scripted: answers `answers` in turn (then
    /// greedy's choice), failing where the script says so.
    struct Scripted {
        greedy: Box<dyn Agent>,
        answers: Vec<Result<Answer, Error>>,
    }

    impl Agent for Scripted {
        fn act(&mut self, view: &SeatView<'_>) -> Action {
            self.greedy.act(view)
        }
        fn decides(&self) -> bool {
            true
        }

        fn decide(&mut self, view: &SeatView<'_>) -> Result<Answer, Error> {
            if self.answers.is_empty() {
                return Ok(Answer::Action(self.act(view)));
            }
            self.answers.remove(0)
        }
        fn reset(&mut self, seed: u64) {
            self.greedy.reset(seed);
        }
    }

    /// Records the faults told.
    #[derive(Default)]
    struct Faults(Vec<(u8, Answer, Action)>);

    impl Recorder for Faults {
        type Hand = Vec<(u8, Answer, Action)>;
        fn fault(&mut self, seat: u8, answer: &Answer, fallback: Action) {
            self.0.push((seat, answer.clone(), fallback));
        }
        fn finish(&mut self, _: &Game, _: HandSummary) -> Self::Hand {
            std::mem::take(&mut self.0)
        }
    }

    /// An answer that is no action, or an illegal one, gets the fallback
    /// played for it and is told to the recorder with the seat; the hand
    /// is then the hand played with that fallback.
    #[test]
    fn a_non_action_or_illegal_answer_gets_the_fallback_and_is_reported() {
        let rules = Ruleset::shanxi();
        let (game_seed, dealer) = deal_of(11, 0);
        let g = Game::new(&rules, game_seed, Some(dealer)).unwrap();
        let first = g.to_act().unwrap();
        let legal = g.legal_actions();
        let fallback = legal.fallback().unwrap();
        // An action never legal on a fresh deal's first turn.
        let illegal = Action::Pong;
        assert!(!legal.contains(illegal));
        for wrong in [Answer::NotAnAction("'5m'".into()), Answer::Action(illegal)] {
            let make = |s: usize| -> Result<Box<dyn Agent>, Error> {
                let answers = if s == usize::from(first) {
                    vec![Ok(wrong.clone())]
                } else {
                    vec![]
                };
                Ok(Box::new(Scripted {
                    greedy: builtin("greedy", 0)?,
                    answers,
                }))
            };
            let run = simulate_recorded(&rules, 0..1, 11, 1, make, Faults::default).unwrap();
            assert_eq!(run[0], vec![(first, wrong.clone(), fallback)]);
            let mut seats: [Box<dyn Agent>; 4] = std::array::from_fn(|s| make(s).unwrap());
            let (played, _, fault) =
                play_run_game(&rules, 11, 0, &mut seats, true, &mut ()).unwrap();
            assert!(fault);
            // The same hand as a table whose seat played the fallback.
            let mut by_hand = Game::new(&rules, game_seed, Some(dealer)).unwrap();
            by_hand.step(fallback).unwrap();
            let mut greedy = [0, 1, 2, 3].map(|_| builtin("greedy", 0).unwrap());
            reset_agents(&mut greedy, game_seed);
            play_out(&mut by_hand, &mut greedy, &mut ()).unwrap();
            assert_eq!(
                played.result().unwrap().deltas,
                by_hand.result().unwrap().deltas
            );
        }
    }

    /// An agent's error stops the run with that error, whatever the
    /// thread count, and leaves the table as it was before the decision.
    #[test]
    fn a_failing_agent_stops_the_run_with_its_error() {
        let rules = Ruleset::shanxi();
        let boom = Error::InvalidArgument("the agent raised".into());
        let make = |s: usize| -> Result<Box<dyn Agent>, Error> {
            let answers = if s == 2 {
                vec![Err(boom.clone())]
            } else {
                vec![]
            };
            Ok(Box::new(Scripted {
                greedy: builtin("greedy", 0)?,
                answers,
            }))
        };
        for threads in [1, 2] {
            let r = simulate_recorded(&rules, 0..8, 3, threads, make, Faults::default);
            assert_eq!(r.unwrap_err(), boom);
        }
        let mut g = Game::new(&rules, 3, Some(2)).unwrap();
        let mut seats: [Box<dyn Agent>; 4] = std::array::from_fn(|s| make(s).unwrap());
        let before = g.clone();
        assert_eq!(play_out(&mut g, &mut seats, &mut ()).unwrap_err(), boom);
        assert_eq!(g.to_act(), Some(2));
        assert_eq!(g.legal_actions(), before.legal_actions());
    }

    /// The native runners take agents outside Rust: the arena and a
    /// match's hand report the same faults as self-play.
    #[test]
    fn the_arena_and_a_match_report_an_agents_faults() {
        let rules = Ruleset::shanxi();
        let labels = ["python", "greedy", "greedy", "greedy"].map(String::from);
        let make = |e: u8| -> Result<Box<dyn Agent>, Error> {
            if e != 0 {
                return builtin("greedy", 0);
            }
            Ok(Box::new(Scripted {
                greedy: builtin("greedy", 0)?,
                answers: (0..1000)
                    .map(|_| Ok(Answer::NotAnAction("None".into())))
                    .collect(),
            }))
        };
        let run = crate::arena::Run {
            rules: &rules,
            labels: &labels,
            seed: 5,
            format: crate::arena::Format::Duplicate,
            walls: 0,
        };
        let (recs, hands) = crate::arena::arena_of(&run, 0..2, 1, make, Faults::default).unwrap();
        assert_eq!(hands.len(), 2 * 5);
        for (h, faults) in hands.iter().enumerate() {
            let table = h % 5;
            // The lone entry sits at seat `table` of rotation `table`.
            let at_table = recs
                .iter()
                .filter(|r| r.deal == (h / 5) as u64 && usize::from(r.table) == table);
            assert!(at_table.clone().all(|r| r.fault == (table < 4)));
            assert_eq!(!faults.is_empty(), table < 4, "{h}");
            assert!(faults.iter().all(|f| usize::from(f.0) == table));
        }
        let mut m = Match::new(&rules, 5, crate::game::MatchLength::Hands(1)).unwrap();
        let mut seats: [Box<dyn Agent>; 4] = [
            make(0).unwrap(),
            make(1).unwrap(),
            make(2).unwrap(),
            make(3).unwrap(),
        ];
        let mut faults = Faults::default();
        let (_, _, fault) = play_match_hand(&mut m, &mut seats, false, None, &mut faults)
            .unwrap()
            .unwrap();
        assert!(
            fault
                && faults
                    .0
                    .iter()
                    .all(|f| f.0 == 0 && f.1 == Answer::NotAnAction("None".into()))
        );
        assert_eq!(m.hands_played(), 1);
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
