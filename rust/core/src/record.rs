//! Self-play datasets: every decision of the chosen seats as fixed-width
//! columns, filled natively during [`simulate_recorded`] and handed over
//! whole (the Python layer turns them into Arrow batches and Parquet).
//!
//! A decision row holds the hand (game index and deal seed), the seat,
//! the decision number within the hand (all seats counted), the observer's
//! [`encode::planes`] packed by [`pack_obs`] ([`OBS_BYTES`] bytes), the
//! compact fields (own concealed counts, running points), the legal mask
//! packed to bits ([`MASK_BYTES`] bytes, bit `i % 8` of byte `i / 8` for
//! action index `i`), the action index played, and the hand's targets for
//! that seat: settlement delta, won, final shanten, end kind.
//!
//! ## The packed observation
//! Each plane of [`encode::planes`] is stored by its form in the layout:
//! a plane of 0/1 per kind as 34 bits (5 bytes, bit `k % 8` of byte
//! `k / 8`), a plane of small counts per kind as 34 nibbles (17 bytes,
//! kind `k` in the low nibble of byte `k / 2` when `k` is even, else the
//! high one), a plane constant across kinds as one byte (plane 24, live
//! tiles / 136, as the live tile count). That is [`OBS_BYTES`] = 201 bytes
//! for the 986 values, lossless: [`unpack_obs`] gives the planes back
//! exactly.

use crate::agent::Agent;
use crate::error::Error;
use crate::game::encode::{self, N_PLANES};
use crate::game::{Action, EndKind, Game, N_ACTIONS};
use crate::legal::{shanten, HandRules};
use crate::ruleset::Ruleset;
use crate::simulate::{simulate_recorded, HandSummary, Recorder};
use crate::tile::KINDS;
use std::ops::Range;

/// Version of the packed observation layout.
pub const OBS_PACK_VERSION: u32 = 1;

/// The observation encoding the rows pack: the default one, version 1
/// (29 planes, [`encode::planes`]).
pub const OBS_ENCODING_VERSION: u32 = encode::Encoding::V1.version();

/// How one plane is stored.
#[derive(Clone, Copy, Debug)]
enum Form {
    /// 0 or 1 per kind: 34 bits.
    Bits,
    /// A whole number 0-15 per kind: 34 nibbles.
    Nibbles,
    /// One whole number 0-255 for every kind, stored times `scale`.
    Constant { scale: f32 },
}

const BITS_BYTES: usize = KINDS.div_ceil(8);
const NIBBLES_BYTES: usize = KINDS.div_ceil(2);

/// The form of each plane of [`encode::planes`] (see its table): melds,
/// discards and face-up wall tiles are counts; the seat flags, live tiles
/// and the question asked are constant rows.
const FORMS: [Form; N_PLANES] = {
    let one = Form::Constant { scale: 1.0 };
    let mut f = [Form::Bits; N_PLANES];
    let mut p = 5;
    while p <= 12 {
        f[p] = Form::Nibbles;
        p += 1;
    }
    f[14] = Form::Nibbles;
    let mut p = 16;
    while p < N_PLANES {
        f[p] = one;
        p += 1;
    }
    f[24] = Form::Constant { scale: 136.0 };
    f
};

const fn form_bytes(f: Form) -> usize {
    match f {
        Form::Bits => BITS_BYTES,
        Form::Nibbles => NIBBLES_BYTES,
        Form::Constant { .. } => 1,
    }
}

/// Bytes of one packed observation.
pub const OBS_BYTES: usize = {
    let mut n = 0;
    let mut p = 0;
    while p < N_PLANES {
        n += form_bytes(FORMS[p]);
        p += 1;
    }
    n
};

/// Bytes of one packed legal mask.
pub const MASK_BYTES: usize = N_ACTIONS.div_ceil(8);

/// Packs the planes of [`encode::planes`] into `out` ([`OBS_BYTES`]
/// bytes, overwritten).
///
/// ```
/// use koudian_core::game::{encode, Game};
/// use koudian_core::record::{pack_obs, unpack_obs, OBS_BYTES};
/// use koudian_core::Ruleset;
/// let g = Game::new(&Ruleset::shanxi(), 3, None).unwrap();
/// let planes = encode::planes(&g.observe(0));
/// let mut packed = [0u8; OBS_BYTES];
/// pack_obs(&planes, &mut packed);
/// let mut back = [0f32; encode::N_PLANES * 34];
/// unpack_obs(&packed, &mut back);
/// assert_eq!(back, planes);
/// ```
pub fn pack_obs(planes: &[f32; N_PLANES * KINDS], out: &mut [u8; OBS_BYTES]) {
    // Every byte of `out` is written: a plane's bits fill its 5 bytes, its
    // nibbles its 17, a constant its one.
    let mut at = 0;
    for (row, form) in planes.chunks_exact(KINDS).zip(FORMS) {
        match form {
            Form::Bits => {
                let bits = row
                    .iter()
                    .enumerate()
                    .fold(0u64, |b, (k, &v)| b | (u64::from(v != 0.0) << k));
                out[at..at + BITS_BYTES].copy_from_slice(&bits.to_le_bytes()[..BITS_BYTES]);
            }
            Form::Nibbles => {
                for (o, pair) in out[at..at + NIBBLES_BYTES]
                    .iter_mut()
                    .zip(row.chunks_exact(2))
                {
                    *o = ((pair[0] as u8) & 15) | (((pair[1] as u8) & 15) << 4);
                }
            }
            Form::Constant { scale } => out[at] = (row[0] * scale).round() as u8,
        }
        at += form_bytes(form);
    }
}

/// The planes packed by [`pack_obs`], written to `out`
/// (`N_PLANES × 34` values, row-major).
pub fn unpack_obs(packed: &[u8; OBS_BYTES], out: &mut [f32]) {
    let mut at = 0;
    for (p, form) in FORMS.iter().enumerate() {
        let row = &mut out[p * KINDS..(p + 1) * KINDS];
        match *form {
            Form::Bits => {
                for (k, v) in row.iter_mut().enumerate() {
                    *v = f32::from((packed[at + k / 8] >> (k % 8)) & 1);
                }
            }
            Form::Nibbles => {
                for (k, v) in row.iter_mut().enumerate() {
                    *v = f32::from((packed[at + k / 2] >> (4 * (k % 2))) & 15);
                }
            }
            Form::Constant { scale } => row.fill(f32::from(packed[at]) / scale),
        }
        at += form_bytes(*form);
    }
}

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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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
}

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
    }

    /// Room for `rows` more rows in every column.
    fn reserve(&mut self, rows: usize) {
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
        self.shanten.reserve(rows);
        self.end.reserve(rows);
    }

    /// The rows, each column allocated to its length, leaving `self`
    /// empty with its capacity kept (a worker's buffer reused for every
    /// hand).
    fn drain(&mut self) -> Decisions {
        let out = Decisions {
            hand: self.hand.clone(),
            seed: self.seed.clone(),
            seat: self.seat.clone(),
            step: self.step.clone(),
            obs: self.obs.clone(),
            mask: self.mask.clone(),
            action: self.action.clone(),
            counts: self.counts.clone(),
            points: self.points.clone(),
            delta: self.delta.clone(),
            won: self.won.clone(),
            shanten: self.shanten.clone(),
            end: self.end.clone(),
        };
        self.hand.clear();
        self.seed.clear();
        self.seat.clear();
        self.step.clear();
        self.obs.clear();
        self.mask.clear();
        self.action.clear();
        self.counts.clear();
        self.points.clear();
        self.delta.clear();
        self.won.clear();
        self.shanten.clear();
        self.end.clear();
        out
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
}

/// The recorder of [`simulate_dataset`]: one hand's rows at a time.
struct DatasetRecorder<'a, S> {
    seats: [bool; 4],
    events: bool,
    rules: HandRules,
    rows: Decisions,
    index: u64,
    step: u16,
    /// The row of the current decision is kept (its seat is recorded).
    open: bool,
    summarize: &'a S,
}

impl<T: Send, S: Fn(&Game, HandSummary) -> T> Recorder for DatasetRecorder<'_, S> {
    type Hand = (T, Decisions);

    fn wants_events(&self) -> bool {
        self.events
    }

    fn start(&mut self, index: u64, _: &Game) {
        self.index = index;
        self.step = 0;
    }

    fn before(&mut self, g: &Game, seat: u8) {
        let step = self.step;
        self.step = self.step.saturating_add(1);
        self.open = self.seats[(seat & 3) as usize];
        if !self.open {
            return;
        }
        let o = g.observe(seat);
        let r = &mut self.rows;
        r.hand.push(self.index);
        r.seed.push(g.seed().unwrap_or(0));
        r.seat.push(seat);
        r.step.push(step);
        let mut packed = [0u8; OBS_BYTES];
        pack_obs(&encode::planes(&o), &mut packed);
        r.obs.extend_from_slice(&packed);
        let mut mask = [0u8; MASK_BYTES];
        for (i, b) in o.legal.0.iter().flat_map(|w| w.to_le_bytes()).enumerate() {
            if i < MASK_BYTES {
                mask[i] = b;
            }
        }
        r.mask.extend_from_slice(&mask);
        r.counts.extend_from_slice(&o.concealed);
        r.points.push(o.scores[(seat & 3) as usize]);
    }

    fn played(&mut self, action: Action) {
        if self.open {
            // Action indices are below N_ACTIONS = 141.
            self.rows.action.push(action.index() as u8);
        }
    }

    fn finish(&mut self, g: &Game, summary: HandSummary) -> (T, Decisions) {
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
            } else if self.seats[s] {
                *v = shanten_of(s);
            }
        }
        let end = end_code(summary.kind);
        let r = &mut self.rows;
        for &seat in &r.seat {
            let s = (seat & 3) as usize;
            r.delta.push(summary.deltas[s]);
            r.won.push(summary.winners[s]);
            r.shanten.push(final_shanten[s]);
            r.end.push(end);
        }
        ((self.summarize)(g, summary), self.rows.drain())
    }
}

/// [`crate::simulate::simulate_with`] that also records every decision of
/// the seats marked in `options.seats`: returns the `summarize` values in game
/// order and the decision rows in (game, decision) order, whatever the
/// thread count.
///
/// ```
/// use koudian_core::agent::builtin;
/// use koudian_core::record::{simulate_dataset, RecordOptions, MASK_BYTES};
/// use koudian_core::Ruleset;
/// let (sums, rows) = simulate_dataset(&Ruleset::shanxi(), 0..5, 1, 1, |_| builtin("greedy", 0),
///     RecordOptions { seats: [true; 4], events: false }, |_, s| s.decisions).unwrap();
/// assert_eq!(rows.len() as u32, sums.iter().sum::<u32>());
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
) -> Result<(Vec<T>, Decisions), Error>
where
    T: Send,
    F: Fn(usize) -> Result<Box<dyn Agent>, Error> + Sync,
    S: Fn(&Game, HandSummary) -> T + Sync,
{
    let hand_rules = HandRules::from(rules);
    let hands = simulate_recorded(rules, games, seed, threads, make, || DatasetRecorder {
        seats: options.seats,
        events: options.events,
        rules: hand_rules,
        rows: Decisions::default(),
        index: 0,
        step: 0,
        open: false,
        summarize: &summarize,
    })?;
    let mut all = Decisions::default();
    all.reserve(hands.iter().map(|(_, rows)| rows.len()).sum());
    let mut out = Vec::with_capacity(hands.len());
    for (t, mut rows) in hands {
        all.append(&mut rows);
        out.push(t);
    }
    Ok((out, all))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::builtin;
    use crate::game::Game;

    /// The packed observation gives back the planes exactly, on every
    /// decision of many random hands of every family.
    #[test]
    fn packing_is_lossless() {
        for rules in [Ruleset::shanxi(), Ruleset::sichuan(), Ruleset::linxian()] {
            for seed in 0..30 {
                let mut g = Game::new(&rules, seed, None).unwrap();
                let mut agents: [Box<dyn Agent>; 4] =
                    std::array::from_fn(|s| builtin("random", seed * 4 + s as u64).unwrap());
                while let Some(seat) = g.to_act() {
                    for s in 0..4 {
                        let p = encode::planes(&g.observe(s));
                        let mut packed = [0u8; OBS_BYTES];
                        pack_obs(&p, &mut packed);
                        let mut back = [0f32; N_PLANES * KINDS];
                        unpack_obs(&packed, &mut back);
                        assert_eq!(back, p, "seed {seed} seat {s}");
                    }
                    let a = agents[seat as usize].act(&crate::agent::SeatView::new(&g, seat));
                    if g.step(a).is_err() {
                        let first = g.legal_actions().iter().next().unwrap();
                        g.step(first).unwrap();
                    }
                }
            }
        }
    }

    /// Rows come in game then decision order, the same on 1 and 2
    /// threads, only for the chosen seats, each action legal under its
    /// mask, and the hand's targets repeated on each of its rows.
    #[test]
    fn rows_are_ordered_legal_and_thread_independent() {
        let rules = Ruleset::shanxi();
        let run = |threads, seats| {
            simulate_dataset(
                &rules,
                10..50,
                3,
                threads,
                |_| builtin("greedy", 0),
                RecordOptions {
                    seats,
                    events: false,
                },
                |_, s| s,
            )
            .unwrap()
        };
        let (sums, one) = run(1, [true; 4]);
        assert_eq!(run(2, [true; 4]), (sums.clone(), one.clone()));
        assert_eq!(
            one.len() as u64,
            sums.iter().map(|s| u64::from(s.decisions)).sum::<u64>()
        );
        for i in 1..one.len() {
            assert!((one.hand[i - 1], one.step[i - 1]) < (one.hand[i], one.step[i]));
        }
        for i in 0..one.len() {
            let a = one.action[i] as usize;
            assert_eq!(one.mask[i * MASK_BYTES + a / 8] >> (a % 8) & 1, 1);
            let s = &sums[(one.hand[i] - 10) as usize];
            assert_eq!(one.delta[i], s.deltas[one.seat[i] as usize]);
            assert_eq!(one.won[i], s.winners[one.seat[i] as usize]);
            assert_eq!(one.end[i], end_code(s.kind));
            if one.won[i] {
                assert_eq!(one.shanten[i], -1);
            }
        }
        let (_, some) = run(2, [false, true, false, true]);
        assert!(some.seat.iter().all(|&s| s % 2 == 1));
        assert_eq!(some.len(), one.seat.iter().filter(|&&s| s % 2 == 1).count());
    }
}
