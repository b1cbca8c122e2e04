//! Win detection by table lookups (RULES.md §2, ALGORITHMS.md "Win
//! detection with wildcards").
//!
//! A hand is split into its natural tiles and `w` wild tiles. The standard
//! shape wins iff `Σ need0 + min(need1 − need0) ≤ w` over the four groups
//! (three suits and the honors; see [`super::tables`]): the pair sits in one
//! group, every natural tile is used, and the wild tiles left over always
//! come in threes (the tile count is 2 mod 3), which make sets of their
//! own. Melds only remove tiles, so the formula is the same with melds.
//! Seven pairs and thirteen orphans have closed forms:
//!
//! * seven pairs: no melds, and the kinds with an odd natural count (each
//!   needs one wild tile to pair it) are at most `w`; a 4-of-a-kind is two
//!   pairs, and several wild tiles may pair up with each other or stand
//!   for one kind;
//! * thirteen orphans: no melds, every natural tile is one of the 13 kinds,
//!   none held three times, at most one held twice; the wild tiles fill the
//!   missing kinds and the pair.
//!
//! Cost: one check is four table loads plus about 80 simple operations
//! (measured throughput in `benches/win.rs`). The tables take about 2.1 MB
//! and are built on the first call (see [`super::tables`]).

use super::tables::{need0, need1, tables, Tables, POW5};
use super::ShapeRules;
use crate::error::Error;
use crate::tile::{Counts, KINDS};
use crate::wildcard::Wildcards;
use rayon::prelude::*;

/// Bit `i` set for each thirteen-orphans kind.
pub(crate) const ORPHAN_MASK: u64 =
    1 << 0 | 1 << 8 | 1 << 9 | 1 << 17 | 1 << 18 | 1 << 26 | 0x7f << 27;

/// Everything a check needs besides the counts, resolved once per call or
/// per batch.
#[derive(Clone, Copy)]
pub(crate) struct Checker {
    pub suit: &'static [u8],
    pub honor: &'static [u8],
    /// The wild kinds, `n_wild` of them used.
    pub wild: [usize; 2],
    pub n_wild: usize,
    pub rules: ShapeRules,
}

impl Checker {
    pub(crate) fn new(wilds: &Wildcards, rules: &ShapeRules) -> Checker {
        let t: &'static Tables = tables();
        let mut wild = [0usize; 2];
        let mut n_wild = 0;
        for k in wilds.kinds() {
            wild[n_wild] = k.index();
            n_wild += 1;
        }
        Checker {
            suit: &t.suit,
            honor: t.honor(rules.wind_sets),
            wild,
            n_wild,
            rules: *rules,
        }
    }

    /// Whether `c` is a valid complete hand with `n_melds` melds and wins.
    #[inline]
    pub(crate) fn is_win(&self, c: &Counts, n_melds: usize) -> bool {
        valid_size(c, n_melds, 14) && self.is_win_unchecked(c, n_melds)
    }

    /// The four natural group keys and the number of wild tiles.
    #[inline(always)]
    pub(crate) fn natural_keys(&self, c: &Counts) -> ([u32; 4], i32) {
        let mut keys = group_keys(c);
        let mut w = 0i32;
        for &t in &self.wild[..self.n_wild] {
            let n = c[t];
            w += n as i32;
            // Honors: 27 = 3 × 9, so t / 9 = 3 and t % 9 is the honor rank.
            keys[t / 9] -= n as u32 * POW5[t % 9];
        }
        (keys, w)
    }

    /// The packed need entry of each group.
    #[inline(always)]
    pub(crate) fn entries(&self, keys: &[u32; 4]) -> [u8; 4] {
        [
            self.suit[keys[0] as usize],
            self.suit[keys[1] as usize],
            self.suit[keys[2] as usize],
            self.honor[keys[3] as usize],
        ]
    }

    /// Win check; `c` has entries ≤ 4 and `14 − 3 × n_melds` tiles.
    #[inline]
    pub(crate) fn is_win_unchecked(&self, c: &Counts, n_melds: usize) -> bool {
        let (keys, w) = self.natural_keys(c);
        if standard_need(&self.entries(&keys)) <= w {
            return true;
        }
        if n_melds != 0 {
            return false;
        }
        (self.rules.seven_pairs && self.seven_pairs_need(c) <= w)
            || (self.rules.thirteen_orphans && self.thirteen_orphans(c))
    }

    /// Kinds with an odd natural count.
    #[inline]
    pub(crate) fn seven_pairs_need(&self, c: &Counts) -> i32 {
        let mut odd = 0i32;
        for &n in c {
            odd += (n & 1) as i32;
        }
        for &t in &self.wild[..self.n_wild] {
            odd -= (c[t] & 1) as i32;
        }
        odd
    }

    #[inline]
    fn thirteen_orphans(&self, c: &Counts) -> bool {
        let mut wild_mask = 0u64;
        for &t in &self.wild[..self.n_wild] {
            wild_mask |= 1 << t;
        }
        let mut doubled = 0;
        for (i, &n) in c.iter().enumerate() {
            if n == 0 || wild_mask >> i & 1 == 1 {
                continue;
            }
            if ORPHAN_MASK >> i & 1 == 0 || n > 2 {
                return false;
            }
            doubled += (n == 2) as u32;
        }
        doubled <= 1
    }
}

/// The base-5 keys of the three suits and the honors.
#[inline(always)]
pub(crate) fn group_keys(c: &Counts) -> [u32; 4] {
    let mut keys = [0u32; 4];
    for (s, key) in keys.iter_mut().enumerate().take(3) {
        let b = 9 * s;
        let mut x = 0u32;
        for r in (0..9).rev() {
            x = x * 5 + c[b + r] as u32;
        }
        *key = x;
    }
    let mut x = 0u32;
    for r in (0..7).rev() {
        x = x * 5 + c[27 + r] as u32;
    }
    keys[3] = x;
    keys
}

/// Fewest wild tiles for the standard shape given the four group entries.
#[inline(always)]
pub(crate) fn standard_need(e: &[u8; 4]) -> i32 {
    let mut sum = 0;
    let mut best = i32::MAX;
    for &x in e {
        sum += need0(x);
        best = best.min(need1(x) - need0(x));
    }
    sum + best
}

/// Whether every count is ≤ 4, there are at most 4 melds, and the hand
/// holds `full − 3 × n_melds` tiles.
#[inline(always)]
pub(crate) fn valid_size(c: &Counts, n_melds: usize, full: u32) -> bool {
    let mut sum = 0u32;
    let mut max = 0u8;
    for &n in c {
        sum += n as u32;
        max = max.max(n);
    }
    n_melds <= 4 && max <= 4 && sum + 3 * n_melds as u32 == full
}

/// Whether `concealed` (which must hold `14 - 3 × n_melds` tiles, wild
/// tiles at their own index) plus `n_melds` melds is a complete hand.
///
/// Melds are never wild and count as sets, so only their number matters.
/// Any count above 4, more than 4 melds, or a concealed part of the wrong
/// size gives `false`.
///
/// ```
/// use koudian_core::{shape::{is_win, ShapeRules}, tile::{parse, counts_of}, Wildcards, Tile};
/// let c = counts_of(&parse("123m456p789s11233z").unwrap()).unwrap();
/// assert!(!is_win(&c, 0, &Wildcards::NONE, &ShapeRules::ALL));
/// let w = Wildcards::new(&[Tile::EAST]).unwrap();
/// assert!(is_win(&c, 0, &w, &ShapeRules::ALL));
/// ```
pub fn is_win(concealed: &Counts, n_melds: usize, wilds: &Wildcards, rules: &ShapeRules) -> bool {
    Checker::new(wilds, rules).is_win(concealed, n_melds)
}

/// Checks that a batch's arrays agree in length; returns the per-row meld
/// count lookup.
pub(crate) fn check_batch(
    rows: usize,
    n_melds: &[u8],
    out_len: usize,
    what: &str,
) -> Result<(), Error> {
    if out_len != rows {
        return Err(Error::InvalidHand(format!(
            "{what}: output has {out_len} rows for {rows} hands"
        )));
    }
    if n_melds.len() != 1 && n_melds.len() != rows {
        return Err(Error::InvalidHand(format!(
            "{what}: n_melds has {} entries; give 1 (for every hand) or {rows}",
            n_melds.len()
        )));
    }
    Ok(())
}

/// Runs `f(row_index_offset, counts_chunk, out_chunk)` over `threads`
/// contiguous chunks (rayon's global pool when `threads > 1`). Each row's
/// result depends on that row only, so the output never depends on the
/// thread count.
pub(crate) fn run_chunks<O: Send>(
    counts: &[Counts],
    out: &mut [O],
    threads: usize,
    f: impl Fn(usize, &[Counts], &mut [O]) + Sync,
) {
    let threads = if threads == 0 {
        rayon::current_num_threads()
    } else {
        threads
    };
    if threads <= 1 || counts.len() < 2 * 1024 {
        f(0, counts, out);
        return;
    }
    let chunk = counts.len().div_ceil(threads);
    out.par_chunks_mut(chunk)
        .zip(counts.par_chunks(chunk))
        .enumerate()
        .for_each(|(i, (o, c))| f(i * chunk, c, o));
}

/// [`is_win`] over many hands: `out[i]` is whether `counts[i]` with
/// `n_melds[i]` melds (or `n_melds[0]` for every hand when it has one
/// entry) is a win.
///
/// Rows are checked like [`is_win`]: a row with a count above 4, more than
/// 4 melds or the wrong number of tiles is `false` (it is not an error, so
/// one bad row does not spoil a batch). Mismatched array lengths are an
/// [`Error::InvalidHand`]. `threads` > 1 splits the rows into that many
/// contiguous chunks on rayon's global pool; 0 means every core. The
/// result never depends on `threads`.
///
/// ```
/// use koudian_core::{shape::{is_win_batch, ShapeRules}, tile::{parse, counts_of}, Wildcards};
/// let hands = [
///     counts_of(&parse("123m456p789s11122z").unwrap()).unwrap(),
///     counts_of(&parse("123m456p789s11157z").unwrap()).unwrap(),
/// ];
/// let mut out = [false; 2];
/// is_win_batch(&hands, &[0], &Wildcards::NONE, &ShapeRules::ALL, &mut out, 1).unwrap();
/// assert_eq!(out, [true, false]);
/// ```
pub fn is_win_batch(
    counts: &[Counts],
    n_melds: &[u8],
    wilds: &Wildcards,
    rules: &ShapeRules,
    out: &mut [bool],
    threads: usize,
) -> Result<(), Error> {
    check_batch(counts.len(), n_melds, out.len(), "is_win_batch")?;
    let checker = Checker::new(wilds, rules);
    run_chunks(counts, out, threads, |start, c, o| {
        if n_melds.len() == 1 {
            let m = n_melds[0] as usize;
            for (h, r) in c.iter().zip(o.iter_mut()) {
                *r = checker.is_win(h, m);
            }
        } else {
            let m = &n_melds[start..start + c.len()];
            for ((h, r), &m) in c.iter().zip(o.iter_mut()).zip(m) {
                *r = checker.is_win(h, m as usize);
            }
        }
    });
    Ok(())
}

const _: () = assert!(KINDS == 34);
