//! Self-play datasets: every decision of the chosen seats as fixed-width
//! columns, filled natively during [`simulate_dataset`] and handed over
//! whole (the Python layer turns them into Arrow batches and Parquet),
//! with, when asked, every hand's log written by [`LogWriter`] into one
//! buffer.
//!
//! A decision row holds the hand (game index and deal seed), the seat,
//! the decision number within the hand (all seats counted), the observer's
//! planes in encoding version 3
//! ([`crate::game::encode::Encoding::V3`]: version 2's 66 planes of small
//! integers and the 13 look-ahead planes) packed by [`pack_encoded`]
//! ([`OBS_BYTES`] bytes), the compact
//! fields (own concealed counts, running points), the legal mask packed
//! to bits ([`MASK_BYTES`] bytes, bit `i % 8` of byte `i / 8` for action
//! index `i`), the action index played, and the hand's targets for that
//! seat: settlement delta, won, final shanten, end kind; and, where the
//! seat's agent estimated its candidates' values ([`Agent::act_valued`]:
//! `mc` where it searched), those values (soft targets for a learner).
//!
//! The observation's packed layout is the private `pack` module's
//! ([`pack_planes`], [`unpack_planes`]).

mod direct;
mod pack;

use direct::pack_view_v3;

pub use pack::{
    encoding_of_width, obs_bytes, pack_encoded, pack_obs, pack_planes, unpack_encoded, unpack_obs,
    unpack_planes, MASK_BYTES, OBS_BYTES, OBS_BYTES_V1, OBS_BYTES_V2, OBS_ENCODING_VERSION,
    OBS_PACK_VERSION,
};

use crate::agent::Agent;
use crate::error::Error;
use crate::game::encode::ponds::Ponds;
use crate::game::view::GameView;
use crate::game::{Action, EndKind, Game, LogWriter, N_ACTIONS};
use crate::legal::{shanten, HandRules};
use crate::log_compress::LogCompression;
use crate::parallel::Workers;
use crate::ruleset::Ruleset;
use crate::simulate::{simulate_recorded, HandSummary, Recorder};
use crate::tile::KINDS;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Mutex;

/// The code of an end kind in datasets and summaries: 0 win, 1 exhausted,
/// 2 kong draw, 3 left.
pub const fn end_code(k: EndKind) -> u8 {
    match k {
        EndKind::Win => 0,
        EndKind::Exhausted => 1,
        EndKind::KongDraw => 2,
        EndKind::Left => 3,
    }
}

/// Decision rows, one entry per row in each column (`obs`, `mask` and
/// `counts` hold [`OBS_BYTES`], [`MASK_BYTES`] and 34 bytes per row).
/// Equal rows are equal bit for bit (a NaN estimate equals itself).
#[derive(Clone, Debug, Default)]
pub struct Decisions {
    /// Game index in the run.
    pub hand: Vec<u64>,
    /// The hand's deal seed.
    pub seed: Vec<u64>,
    /// The deciding seat.
    pub seat: Vec<u8>,
    /// Decision number within the hand (every seat's decisions counted).
    pub step: Vec<u16>,
    /// Packed observations.
    pub obs: Vec<u8>,
    /// Packed legal masks.
    pub mask: Vec<u8>,
    /// Action index played.
    pub action: Vec<u8>,
    /// The seat's concealed tile counts.
    pub counts: Vec<u8>,
    /// The seat's running points before the hand.
    pub points: Vec<i64>,
    /// The seat's settlement delta of the hand.
    pub delta: Vec<i64>,
    /// The seat won the hand.
    pub won: Vec<bool>,
    /// The seat's shanten at the end of the hand (-1 for a winner).
    pub shanten: Vec<i8>,
    /// The hand's [`end_code`].
    pub end: Vec<u8>,
    /// Values per row of the agent's estimates ([`Agent::act_valued`]):
    /// 0, or [`N_ACTIONS`] when the agent estimated its candidates.
    pub expert_len: Vec<u8>,
    /// The estimates of the rows with values, [`N_ACTIONS`] a row one
    /// after another: per action index, the estimated mean settlement
    /// (points) of a candidate played out, `-inf` for a legal action not
    /// played out, NaN for an illegal one.
    pub expert: Vec<f32>,
}

impl PartialEq for Decisions {
    fn eq(&self, o: &Decisions) -> bool {
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        self.hand == o.hand
            && self.seed == o.seed
            && self.seat == o.seat
            && self.step == o.step
            && self.obs == o.obs
            && self.mask == o.mask
            && self.action == o.action
            && self.counts == o.counts
            && self.points == o.points
            && self.delta == o.delta
            && self.won == o.won
            && self.shanten == o.shanten
            && self.end == o.end
            && self.expert_len == o.expert_len
            && bits(&self.expert) == bits(&o.expert)
    }
}

impl Eq for Decisions {}

impl Decisions {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.seat.len()
    }

    /// No rows.
    pub fn is_empty(&self) -> bool {
        self.seat.is_empty()
    }

    /// Appends the rows of `other`.
    pub fn append(&mut self, other: &mut Decisions) {
        self.hand.append(&mut other.hand);
        self.seed.append(&mut other.seed);
        self.seat.append(&mut other.seat);
        self.step.append(&mut other.step);
        self.obs.append(&mut other.obs);
        self.mask.append(&mut other.mask);
        self.action.append(&mut other.action);
        self.counts.append(&mut other.counts);
        self.points.append(&mut other.points);
        self.delta.append(&mut other.delta);
        self.won.append(&mut other.won);
        self.shanten.append(&mut other.shanten);
        self.end.append(&mut other.end);
        self.expert_len.append(&mut other.expert_len);
        self.expert.append(&mut other.expert);
    }

    /// The rows of `parts` one after another.
    pub fn concat(parts: Vec<Decisions>) -> Decisions {
        let mut parts = parts.into_iter();
        let mut out = parts.next().unwrap_or_default();
        let rest: Vec<Decisions> = parts.collect();
        out.reserve(rest.iter().map(Decisions::len).sum());
        for mut p in rest {
            out.append(&mut p);
        }
        out
    }

    /// Room for `rows` more rows in every column.
    pub fn reserve(&mut self, rows: usize) {
        self.hand.reserve(rows);
        self.seed.reserve(rows);
        self.seat.reserve(rows);
        self.step.reserve(rows);
        self.obs.reserve(rows * OBS_BYTES);
        self.mask.reserve(rows * MASK_BYTES);
        self.action.reserve(rows);
        self.counts.reserve(rows * KINDS);
        self.points.reserve(rows);
        self.delta.reserve(rows);
        self.won.reserve(rows);
        self.expert_len.reserve(rows);
        self.shanten.reserve(rows);
        self.end.reserve(rows);
    }
}

/// What [`simulate_dataset`] records besides the summaries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordOptions {
    /// The seats whose decisions become rows (none: no rows).
    pub seats: [bool; 4],
    /// Keep each table's event record, so that `summarize` may read
    /// [`Game::log`].
    pub events: bool,
    /// Write every hand's log ([`Game::log`]) into [`Recorded::log`].
    pub logs: bool,
    /// How [`Recorded::log`] is compressed, on the run's threads, once the
    /// games are played (frames of the joined text: the same bytes for
    /// any thread count).
    pub log_compression: LogCompression,
}

/// What [`simulate_dataset`] returns: the `summarize` values in game
/// order, the decision rows in (game, decision) order as consecutive
/// parts (one per worker, handed over as they were filled: joining them
/// would copy every row once more), and the hands' logs one after another
/// (empty unless [`RecordOptions::logs`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recorded<T> {
    /// One value per game.
    pub hands: Vec<T>,
    /// The decision rows, in order: part `i + 1`'s games follow part `i`'s.
    pub parts: Vec<Decisions>,
    /// The games' JSON Lines logs, in game order.
    pub log: Vec<u8>,
}

impl<T> Recorded<T> {
    /// The decision rows of every part as one [`Decisions`] (moving the
    /// parts: no copy when there is one).
    pub fn into_rows(self) -> Decisions {
        Decisions::concat(self.parts)
    }
}

/// `games` as `width` consecutive ranges of nearly equal length (fewer
/// when there are fewer games), one per worker: each fills one part's
/// buffers in game order, so that the parts are the rows in order without
/// a copy. Hands cost about the same, so a call's games split evenly (a
/// worker that finishes first leaves its core to the caller's writer).
pub(crate) fn parts_of(games: Range<u64>, width: usize) -> Vec<Range<u64>> {
    let n = u128::from(games.end.saturating_sub(games.start));
    let k = (width.max(1) as u128).min(n.max(1));
    let at = |i: u128| games.start + (n * i / k) as u64;
    (0..k).map(|i| at(i)..at(i + 1)).collect()
}

/// The rows and log text of a range of consecutive games.
#[derive(Default)]
pub(crate) struct Block {
    pub(crate) rows: Decisions,
    pub(crate) log: Vec<u8>,
}

/// The recorder of [`simulate_dataset`]: it writes a block's rows and logs
/// into the block's buffers (taken from `home` when made, put back when
/// dropped), so that nothing is allocated per hand or per decision.
pub(crate) struct DatasetRecorder<'a, S> {
    options: RecordOptions,
    rules: HandRules,
    home: &'a Mutex<Block>,
    block: Block,
    /// The rows of the current hand start here.
    first: usize,
    writer: LogWriter,
    /// The hand's discard planes, kept up to date decision by decision.
    ponds: Box<Ponds>,
    index: u64,
    step: u16,
    /// The row of the current decision is kept (its seat is recorded).
    open: bool,
    /// A row did not pack (never for an encoded observation).
    error: Option<Error>,
    summarize: &'a S,
    /// Where the recorded seats' agents leave their estimates
    /// ([`Valued`]), when the run records them.
    expert: Option<ExpertSlot>,
}

impl<'a, S> DatasetRecorder<'a, S> {
    /// A recorder filling the buffers kept in `home` (taken now, put
    /// back when it is dropped).
    pub(crate) fn new(
        options: RecordOptions,
        rules: HandRules,
        home: &'a Mutex<Block>,
        summarize: &'a S,
    ) -> Self {
        DatasetRecorder {
            options,
            rules,
            home,
            block: std::mem::take(&mut *home.lock().unwrap_or_else(|e| e.into_inner())),
            first: 0,
            writer: LogWriter::default(),
            ponds: Box::default(),
            index: 0,
            step: 0,
            open: false,
            error: None,
            summarize,
            expert: None,
        }
    }

    /// The recorder, also writing the estimates the seats' [`Valued`]
    /// agents leave in `slot`.
    pub(crate) fn with_expert(mut self, slot: ExpertSlot) -> Self {
        self.expert = Some(slot);
        self
    }
}

/// The estimates of the decision being played, handed from the deciding
/// seat's [`Valued`] agent to the recorder (the agent decides, then the
/// recorder's `before` takes them, on the same thread).
pub(crate) type ExpertSlot = std::sync::Arc<Mutex<Option<Box<[f32; N_ACTIONS]>>>>;

/// A recorded seat's agent: plays as the agent it wraps and leaves its
/// estimates ([`Agent::act_valued`]) in the slot for the recorder.
pub(crate) struct Valued {
    inner: Box<dyn Agent>,
    slot: ExpertSlot,
}

impl Valued {
    /// `inner`, wrapped unless it answers through [`Agent::decide`] (an
    /// external agent: nothing to estimate).
    pub(crate) fn wrap(inner: Box<dyn Agent>, slot: &ExpertSlot) -> Box<dyn Agent> {
        if inner.decides() {
            return inner;
        }
        Box::new(Valued {
            inner,
            slot: slot.clone(),
        })
    }
}

impl Agent for Valued {
    fn act(&mut self, view: &crate::agent::SeatView<'_>) -> Action {
        let mut values = Box::new([f32::NAN; N_ACTIONS]);
        match self.inner.act_valued(view, &mut values) {
            Some(a) => {
                if values.iter().any(|v| !v.is_nan()) {
                    *self.slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(values);
                }
                a
            }
            None => self.inner.act(view),
        }
    }

    fn reset(&mut self, seed: u64) {
        self.inner.reset(seed);
    }

    // A learned agent has no estimates: its decisions stay batched.
    fn as_nn(&mut self) -> Option<&mut crate::agent::NnAgent> {
        self.inner.as_nn()
    }
}

impl<S> Drop for DatasetRecorder<'_, S> {
    fn drop(&mut self) {
        let mut home = self.home.lock().unwrap_or_else(|e| e.into_inner());
        *home = std::mem::take(&mut self.block);
    }
}

impl<T: Send, S: Fn(&Game, HandSummary) -> T> Recorder for DatasetRecorder<'_, S> {
    type Hand = Result<T, Error>;

    fn wants_events(&self) -> bool {
        self.options.events || self.options.logs
    }

    fn start(&mut self, index: u64, _: &Game) {
        self.index = index;
        self.step = 0;
        self.first = self.block.rows.len();
        self.ponds.reset();
    }

    fn before(&mut self, g: &Game, seat: u8) {
        let step = self.step;
        self.step = self.step.saturating_add(1);
        let s = (seat & 3) as usize;
        self.open = self.options.seats[s];
        // Taken at every decision, so no estimate outlives its decision.
        let values = self
            .expert
            .as_ref()
            .and_then(|e| e.lock().unwrap_or_else(|e| e.into_inner()).take());
        if !self.open {
            return;
        }
        match values {
            Some(v) => {
                self.block.rows.expert_len.push(N_ACTIONS as u8);
                self.block.rows.expert.extend_from_slice(&v[..]);
            }
            None => self.block.rows.expert_len.push(0),
        }
        // Packed straight from the table for the seat (the view the
        // vectorized environment encodes), not a built observation or an
        // encoded row.
        self.ponds.catch_up(g);
        let r = &mut self.block.rows;
        let at = r.obs.len();
        r.obs.resize(at + OBS_BYTES, 0);
        let out: &mut [u8; OBS_BYTES] = (&mut r.obs[at..]).try_into().expect("one row");
        if let Err(e) = pack_view_v3(&GameView::with_ponds(g, seat, &self.ponds), out) {
            self.error.get_or_insert(e);
        }
        r.hand.push(self.index);
        r.seed.push(g.seed().unwrap_or(0));
        r.seat.push(seat);
        r.step.push(step);
        // The seat to act is `seat`: the table's mask is its own.
        let legal = g.legal_actions().0;
        let mut mask = [0u8; 3 * 8];
        for (m, w) in mask.chunks_exact_mut(8).zip(legal) {
            m.copy_from_slice(&w.to_le_bytes());
        }
        r.mask.extend_from_slice(&mask[..MASK_BYTES]);
        r.counts.extend_from_slice(&g.hand(seat).concealed);
        r.points.push(g.scores()[s]);
    }

    fn played(&mut self, action: Action) {
        if self.open {
            // Action indices are below N_ACTIONS = 141.
            self.block.rows.action.push(action.index() as u8);
        }
    }

    fn finish(&mut self, g: &Game, summary: HandSummary) -> Result<T, Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let shanten_of = |s: usize| {
            // A hand the shape rules cannot measure (never after a legal
            // play) is marked rather than failing the run.
            shanten(g.hand(s as u8), &g.wilds(), &self.rules).unwrap_or(i8::MIN)
        };
        let mut final_shanten = [0i8; 4];
        for (s, v) in final_shanten.iter_mut().enumerate() {
            // A winner's hand may lack the discard it won on: -1 for it.
            if summary.winners[s] {
                *v = -1;
            } else if self.options.seats[s] {
                *v = shanten_of(s);
            }
        }
        let end = end_code(summary.kind);
        let r = &mut self.block.rows;
        for i in self.first..r.seat.len() {
            let s = (r.seat[i] & 3) as usize;
            r.delta.push(summary.deltas[s]);
            r.won.push(summary.winners[s]);
            r.shanten.push(final_shanten[s]);
            r.end.push(end);
        }
        if self.options.logs {
            self.writer.write(g, &mut self.block.log);
        }
        Ok((self.summarize)(g, summary))
    }
}

/// [`crate::simulate::simulate_with`] that also records every decision of
/// the seats marked in `options.seats` and, with `options.logs`, every
/// hand's log: returns the `summarize` values in game order, the decision
/// rows in (game, decision) order and the logs in game order, whatever the
/// thread count. The games are split into one range of consecutive games
/// per worker, each played into one set of buffers: the parts, in order.
/// The rows in parts depend on the thread count, the rows in order
/// ([`Recorded::into_rows`]) do not.
///
/// ```
/// use koudian_core::agent::builtin;
/// use koudian_core::record::{simulate_dataset, RecordOptions, MASK_BYTES};
/// use koudian_core::Ruleset;
/// let options = RecordOptions { seats: [true; 4], logs: true, ..RecordOptions::default() };
/// let r = simulate_dataset(&Ruleset::shanxi(), 0..5, 1, 1, |_| builtin("greedy", 0),
///     options, |g, s| (s.decisions, g.log())).unwrap();
/// let decisions: u32 = r.hands.iter().map(|h| h.0).sum();
/// let logs: String = r.hands.iter().map(|h| h.1.as_str()).collect();
/// assert_eq!(r.log, logs.into_bytes());
/// let rows = r.into_rows();
/// assert_eq!(rows.len() as u32, decisions);
/// // Every action played is legal under its mask.
/// assert!((0..rows.len()).all(|i| {
///     let a = rows.action[i] as usize;
///     rows.mask[i * MASK_BYTES + a / 8] >> (a % 8) & 1 == 1
/// }));
/// ```
pub fn simulate_dataset<T, F, S>(
    rules: &Ruleset,
    games: Range<u64>,
    seed: u64,
    threads: usize,
    make: F,
    options: RecordOptions,
    summarize: S,
) -> Result<Recorded<T>, Error>
where
    T: Send,
    F: Fn(usize) -> Result<Box<dyn Agent>, Error> + Sync,
    S: Fn(&Game, HandSummary) -> T + Sync,
{
    rules.validate()?;
    let hand_rules = HandRules::from(rules);
    let block = |r: Range<u64>| -> Result<(Vec<T>, Block), Error> {
        let mut first = Block::default();
        // About 60 decisions and 10 KB of log a hand: room for the block.
        if options.seats.contains(&true) {
            first.rows.reserve((r.end - r.start) as usize * 64);
        }
        if options.logs {
            first.log.reserve(((r.end - r.start) as usize * 12) << 10);
        }
        let home = Mutex::new(first);
        // The recorded seats' agents leave their estimates for the
        // recorder (one slot: a block plays one decision at a time).
        let slot = ExpertSlot::default();
        let make_valued = |s: usize| -> Result<Box<dyn Agent>, Error> {
            let agent = make(s)?;
            Ok(if options.seats[s & 3] {
                Valued::wrap(agent, &slot)
            } else {
                agent
            })
        };
        let hands = simulate_recorded(rules, r, seed, 1, make_valued, || {
            DatasetRecorder::new(options, hand_rules, &home, &summarize).with_expert(slot.clone())
        })?;
        let hands = hands.into_iter().collect::<Result<Vec<T>, Error>>()?;
        let b = home.into_inner().unwrap_or_else(|e| e.into_inner());
        Ok((hands, b))
    };
    let workers = Workers::new(threads)?;
    let ranges = parts_of(games.clone(), workers.width());
    let blocks: Vec<(Vec<T>, Block)> = match workers {
        Workers::Caller => ranges.into_iter().map(block).collect::<Result<_, _>>()?,
        _ => workers.install(|| ranges.into_par_iter().map(block).collect::<Result<_, _>>())?,
    };
    let mut out = Recorded {
        hands: Vec::with_capacity((games.end - games.start) as usize),
        parts: Vec::with_capacity(blocks.len()),
        log: Vec::with_capacity(blocks.iter().map(|(_, b)| b.log.len()).sum()),
    };
    for (hands, b) in blocks {
        out.hands.extend(hands);
        if !b.rows.is_empty() || out.parts.is_empty() {
            out.parts.push(b.rows);
        }
        out.log.extend_from_slice(&b.log);
    }
    out.log = options
        .log_compression
        .compress_on(&workers, std::mem::take(&mut out.log))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::builtin;
    use crate::game::encode::{self, Encoding};
    use crate::game::N_ACTIONS;

    /// A compressed log is the plain log's text compressed, the same
    /// bytes on 1 and 2 threads.
    #[test]
    fn the_log_is_compressed_on_the_runs_threads() {
        let rules = Ruleset::shanxi();
        let run = |threads, log_compression| {
            simulate_dataset(
                &rules,
                0..40,
                7,
                threads,
                |_| builtin("greedy", 0),
                RecordOptions {
                    logs: true,
                    log_compression,
                    ..RecordOptions::default()
                },
                |_, s| s,
            )
            .unwrap()
            .log
        };
        let plain = run(1, LogCompression::None);
        for c in [LogCompression::Gzip, LogCompression::Zstd] {
            let packed = run(1, c);
            assert_eq!(packed, c.compress(plain.clone(), 1).unwrap(), "{c:?}");
            assert!(packed.len() < plain.len() / 4, "{c:?}");
            assert_eq!(run(2, c), packed, "{c:?} on 2 threads");
        }
    }

    /// Rows come in game then decision order, the same on 1 and 2
    /// threads, only for the chosen seats, each action legal under its
    /// mask, each observation the seat's encoded view, and the hand's
    /// targets repeated on each of its rows; the logs are the games' logs
    /// in order.
    #[test]
    fn rows_are_ordered_legal_and_thread_independent() {
        let rules = Ruleset::shanxi();
        let run = |threads, seats| {
            simulate_dataset(
                &rules,
                10..110,
                3,
                threads,
                |_| builtin("greedy", 0),
                RecordOptions {
                    seats,
                    logs: true,
                    ..RecordOptions::default()
                },
                |g, s| (s, g.log()),
            )
            .unwrap()
        };
        let one = run(1, [true; 4]);
        assert_eq!(one.parts.len(), 1);
        for threads in [2, 3] {
            let r = run(threads, [true; 4]);
            assert_eq!(r.parts.len(), threads, "one part a worker");
            assert_eq!((&r.hands, &r.log), (&one.hands, &one.log));
            assert_eq!(r.into_rows(), one.parts[0], "{threads} threads");
        }
        let sums: Vec<HandSummary> = one.hands.iter().map(|h| h.0).collect();
        let logs: String = one.hands.iter().map(|h| h.1.as_str()).collect();
        assert_eq!(one.log, logs.as_bytes());
        let rows = &one.parts[0];
        assert_eq!(
            rows.len() as u64,
            sums.iter().map(|s| u64::from(s.decisions)).sum::<u64>()
        );
        for i in 1..rows.len() {
            assert!((rows.hand[i - 1], rows.step[i - 1]) < (rows.hand[i], rows.step[i]));
        }
        for i in 0..rows.len() {
            let a = rows.action[i] as usize;
            assert_eq!(rows.mask[i * MASK_BYTES + a / 8] >> (a % 8) & 1, 1);
            let s = &sums[(rows.hand[i] - 10) as usize];
            assert_eq!(rows.delta[i], s.deltas[rows.seat[i] as usize]);
            assert_eq!(rows.won[i], s.winners[rows.seat[i] as usize]);
            assert_eq!(rows.end[i], end_code(s.kind));
            if rows.won[i] {
                assert_eq!(rows.shanten[i], -1);
            }
        }
        let (_, some) = {
            let r = run(2, [false, true, false, true]);
            (r.hands.clone(), r.into_rows())
        };
        assert!(some.seat.iter().all(|&s| s % 2 == 1));
        assert_eq!(
            some.len(),
            rows.seat.iter().filter(|&&s| s % 2 == 1).count()
        );
    }

    /// An mc seat's rows carry its estimates where it searched (finite
    /// for two or more legal actions, the played one among them, `-inf`
    /// for the other legal actions, NaN for the illegal ones), a greedy
    /// seat's none; recording them changes no play (the same logs as a
    /// run that records no seat) and is the same on 1 and 2 threads.
    #[test]
    fn mc_rows_carry_its_estimates_and_play_is_unchanged() {
        let rules = Ruleset::shanxi();
        let specs = ["mc:budget=fast", "greedy", "greedy", "greedy"];
        let run = |threads, seats| {
            simulate_dataset(
                &rules,
                0..12,
                5,
                threads,
                |s| builtin(specs[s], 0),
                RecordOptions {
                    seats,
                    logs: true,
                    ..RecordOptions::default()
                },
                |_, s| s.decisions,
            )
            .unwrap()
        };
        let r = run(1, [true; 4]);
        let plain = run(1, [false; 4]);
        assert_eq!(r.log, plain.log, "recording the estimates changed the play");
        let log = r.log.clone();
        let rows = r.into_rows();
        assert_eq!(run(2, [true; 4]).into_rows(), rows);
        assert_eq!(rows.expert_len.len(), rows.len());
        let mut at = 0;
        let mut valued = 0;
        for i in 0..rows.len() {
            let n = usize::from(rows.expert_len[i]);
            if rows.seat[i] != 0 {
                assert_eq!(n, 0, "a greedy seat's row has estimates");
                continue;
            }
            if n == 0 {
                continue;
            }
            assert_eq!(n, N_ACTIONS);
            valued += 1;
            let v = &rows.expert[at..at + n];
            at += n;
            let mask = &rows.mask[i * MASK_BYTES..(i + 1) * MASK_BYTES];
            let legal = |a: usize| mask[a / 8] >> (a % 8) & 1 == 1;
            let mut finite = 0;
            for (a, x) in v.iter().enumerate() {
                if !legal(a) {
                    assert!(x.is_nan(), "row {i}: illegal action {a} valued {x}");
                } else if x.is_finite() {
                    finite += 1;
                } else {
                    assert_eq!(*x, f32::NEG_INFINITY, "row {i}: action {a}");
                }
            }
            assert!(finite >= 2, "row {i}: {finite} candidates valued");
            assert!(
                v[usize::from(rows.action[i])].is_finite(),
                "row {i}: the played action"
            );
        }
        assert_eq!(at, rows.expert.len());
        assert!(valued > 0, "mc searched no decision in 12 hands");
        assert!(!log.is_empty());
    }

    /// Each row's observation, mask, counts and points are the deciding
    /// seat's, as replaying the hand's log shows.
    #[test]
    fn rows_replay_to_the_log() {
        let rules = Ruleset::sichuan();
        let r = simulate_dataset(
            &rules,
            0..12,
            9,
            2,
            |_| builtin("greedy", 0),
            RecordOptions {
                seats: [true; 4],
                events: true,
                ..RecordOptions::default()
            },
            |g, _| g.log(),
        )
        .unwrap();
        let hands = r.hands.clone();
        let rows = r.into_rows();
        let mut i = 0;
        for (h, log) in hands.iter().enumerate() {
            crate::game::replay_each(log, |g| {
                let Some(seat) = g.to_act() else { return };
                assert_eq!(rows.hand[i], h as u64);
                assert_eq!(rows.seat[i], seat);
                let o = g.observe(seat);
                let mut p = [0u8; Encoding::V3.len()];
                encode::write(&GameView::new(g, seat), Encoding::V3, &mut p);
                let mut back = [0u8; Encoding::V3.len()];
                let packed = &rows.obs[i * OBS_BYTES..(i + 1) * OBS_BYTES];
                unpack_encoded(Encoding::V3, packed, &mut back).unwrap();
                assert_eq!(back, p);
                assert_eq!(&rows.counts[i * KINDS..(i + 1) * KINDS], &o.concealed[..]);
                assert_eq!(rows.points[i], o.scores[seat as usize]);
                for a in 0..N_ACTIONS {
                    let bit = rows.mask[i * MASK_BYTES + a / 8] >> (a % 8) & 1 == 1;
                    assert_eq!(bit, o.legal.contains_index(a));
                }
                i += 1;
            })
            .unwrap();
        }
        assert_eq!(i, rows.len());
    }
}
