//! Win detection by table lookups (docs/rules.md §2, ALGORITHMS.md "Win
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
//! Cost: one pass over the counts read as 64-bit words (validity, size,
//! group keys, odd kinds, all without branches; the thirteen-orphans fit
//! is looked at only when every natural tile is an orphan), then four
//! table loads; a batch prepares 32 hands before loading their entries so
//! that the loads overlap. About 280 instructions per hand in a batch
//! (callgrind; throughput in `benches/win.rs`). On CPUs with AVX2 or
//! AVX-512, and on aarch64 (NEON), a batch runs the same arithmetic 8, 16
//! or 4 hands per vector instead (`crate::simd`, 68 instructions per hand
//! with AVX2). The tables take 0.77 MB and are built on the first call
//! (see [`super::tables`]).

use super::tables::{need0, need1, tables, SuitIndex, Tables, HONOR_LEN, POW5, SUIT_LEN};
use super::ShapeRules;
use crate::error::Error;
use crate::parallel::{run_checked_chunks, run_checked_chunks_in_place};
use crate::simd::Isa;
use crate::tile::{Counts, KindSet, KINDS};
use crate::wildcard::Wildcards;

/// Bit `i` set for each thirteen-orphans kind ([`KindSet::ORPHANS`]).
pub(crate) const ORPHAN_MASK: u64 = KindSet::ORPHANS.0;

/// Everything a check needs besides the counts, resolved once per call or
/// per batch.
#[derive(Clone, Copy)]
pub(crate) struct Checker {
    pub suit: &'static [u8; SUIT_LEN],
    pub honor: &'static [u8; HONOR_LEN],
    /// The wild kinds, `n_wild` of them used.
    pub wild: [usize; 2],
    pub n_wild: usize,
    pub rules: ShapeRules,
    masks: WildMasks,
}

/// Byte masks clearing the wild kinds out of the words [`Checker::scan`]
/// reads.
#[derive(Clone, Copy)]
struct WildMasks {
    /// Words at bytes 0, 8, 16, 24, 32.
    natural: [u64; 5],
    /// Key words at bytes 0, 9, 18 and 26.
    key: [u64; 4],
    /// The 9th digit of each suit (bytes 8, 17, 26): 0 or 0xff.
    ninth: [u8; 3],
}

impl WildMasks {
    #[inline]
    fn new(wild: &[usize]) -> WildMasks {
        let mut m = WildMasks {
            natural: [u64::MAX; 5],
            key: [u64::MAX; 4],
            ninth: [0xff; 3],
        };
        for &t in wild {
            m.natural[t / 8] &= !(0xff << (8 * (t % 8)));
            let (s, r) = (t / 9, t % 9);
            if s < 3 && r == 8 {
                m.ninth[s] = 0;
            } else if s < 3 {
                m.key[s] &= !(0xff << (8 * r));
            } else {
                // The honor word starts at byte 26.
                m.key[3] &= !(0xff << (8 * (t - 26)));
            }
        }
        m
    }
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
            masks: WildMasks::new(&wild[..n_wild]),
        }
    }

    /// Whether `c` is a valid complete hand with `n_melds` melds and wins.
    #[inline]
    pub(crate) fn is_win(&self, c: &Counts, n_melds: usize) -> bool {
        self.finish(&self.prepare(c, n_melds))
    }

    /// Whether `c` with `n_melds` melds wins, and whether it is a valid
    /// complete hand (the SIMD kernels' tail rows, [`crate::simd`]).
    #[inline]
    pub(crate) fn check_row(&self, c: &Counts, n_melds: usize) -> (bool, bool) {
        let p = self.prepare(c, n_melds);
        (self.finish(&p), p.valid)
    }

    /// Everything about one hand but the table loads, without branches on
    /// the hand (a batch prepares a chunk of hands, then loads all their
    /// entries back to back, so that the loads overlap).
    #[inline(always)]
    fn prepare(&self, c: &Counts, n_melds: usize) -> Prepared {
        let sc = self.scan(c);
        let valid = sc.counts_ok & (n_melds <= 4) & (sc.tiles + 3 * n_melds.min(5) as u32 == 14);
        // An invalid hand's keys may be anything: the look-ups mask them
        // into the tables, and its verdict ignores what they read.
        let slot = |[lo, hi]: [u32; 2]| SuitIndex::of_parts(lo, hi) as u32;
        let keys = [
            slot(sc.parts[0]),
            slot(sc.parts[1]),
            slot(sc.parts[2]),
            sc.keys[3],
        ];
        let mut other = false;
        if self.rules.seven_pairs {
            other |= sc.odd <= sc.w;
        }
        if self.rules.thirteen_orphans {
            other |= sc.orphans_fit;
        }
        Prepared {
            keys,
            w: sc.w,
            valid,
            other: valid & (n_melds == 0) & other,
        }
    }

    /// One pass over the counts as 64-bit words (SIMD within a register):
    /// validity, size, wild tiles, natural group keys, odd kinds and the
    /// thirteen-orphans fit. Never panics, whatever the counts. Wild tiles
    /// are masked out of each word (no stores: a store followed by wider
    /// loads of the same bytes would stall).
    #[inline(always)]
    pub(crate) fn scan(&self, c: &Counts) -> Scan {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let word = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&c[at..at + 8]);
            u64::from_le_bytes(w)
        };
        let words = [
            word(0),
            word(8),
            word(16),
            word(24),
            u16::from_le_bytes([c[32], c[33]]) as u64,
        ];
        // Per-byte sums over the five words, added up across bytes once at
        // the end (a multiply by ONES sums the bytes into the top one):
        // cheaper than a population count per word, which baseline x86-64
        // lacks.
        let mut over = 0u64;
        let mut tiles_v = 0u64;
        let mut natural_v = 0u64;
        let mut odd_v = 0u64;
        let mut outside = 0u64;
        for i in 0..5 {
            let x = words[i];
            // A byte above 4 has bit 7 set in itself or in itself + 0x7b.
            over |= (x | x.wrapping_add(0x7b * ONES)) & HIGH;
            // Each byte ends at most 5 × 4 = 20 when the counts are valid.
            tiles_v = tiles_v.wrapping_add(x);
            // Natural tiles (meaningful when every count is ≤ 4).
            let x = x & self.masks.natural[i];
            natural_v = natural_v.wrapping_add(x);
            odd_v += x & ONES;
            outside |= x & !ORPHAN_BYTES[i];
        }
        let byte_sum = |v: u64| (v.wrapping_mul(ONES) >> 56) as u32;
        let tiles = byte_sum(tiles_v);
        // Only hands whose natural tiles are all orphans (rare) look closer:
        // none held 3 times, at most one held twice.
        let orphans_fit = outside == 0 && {
            let mut three = 0u64;
            let mut twos_v = 0u64;
            for (&x, &natural) in words.iter().zip(&self.masks.natural) {
                let x = x & natural;
                three |= x.wrapping_add(0x7d * ONES) & HIGH;
                // Counts 2 and 3 have bit 1 set (4 does not).
                twos_v += (x >> 1) & ONES;
            }
            three == 0 && byte_sum(twos_v) <= 1
        };
        let w = tiles.wrapping_sub(byte_sum(natural_v)) as i32;
        let m = &self.masks;
        let suit = |s: usize| {
            let (lo, hi) = swar_key4x2(word(9 * s) & m.key[s]);
            [lo, hi + (c[9 * s + 8] & m.ninth[s]) as u32 * POW5[4]]
        };
        let parts = [suit(0), suit(1), suit(2)];
        let key = |[lo, hi]: [u32; 2]| lo + hi * POW5[4];
        Scan {
            keys: [
                key(parts[0]),
                key(parts[1]),
                key(parts[2]),
                swar_key8((word(26) & m.key[3]) >> 8),
            ],
            parts,
            w,
            tiles,
            counts_ok: over == 0,
            odd: byte_sum(odd_v) as i32,
            orphans_fit,
        }
    }

    /// Bit masks over the 34 kinds of the natural counts (wild kinds
    /// cleared): held an odd number of times, and held 4 times. The counts
    /// must be ≤ 4.
    #[inline(always)]
    pub(crate) fn natural_bits(&self, c: &Counts) -> (u64, u64) {
        const ONES: u64 = 0x0101_0101_0101_0101;
        /// Gathers bit 0 of each byte into 8 bits.
        const GATHER: u64 = 0x0102_0408_1020_4080;
        let mut odd = 0u64;
        let mut four = 0u64;
        for i in 0..5 {
            let mut w = [0u8; 8];
            let n = if i < 4 { 8 } else { 2 };
            w[..n].copy_from_slice(&c[8 * i..8 * i + n]);
            let x = u64::from_le_bytes(w) & self.masks.natural[i];
            odd |= ((x & ONES).wrapping_mul(GATHER) >> 56) << (8 * i);
            four |= (((x >> 2) & ONES).wrapping_mul(GATHER) >> 56) << (8 * i);
        }
        (odd, four)
    }

    /// The verdict on a prepared hand.
    #[inline(always)]
    fn finish(&self, p: &Prepared) -> bool {
        let e = [
            self.suit[p.keys[0] as usize & (SUIT_LEN - 1)],
            self.suit[p.keys[1] as usize & (SUIT_LEN - 1)],
            self.suit[p.keys[2] as usize & (SUIT_LEN - 1)],
            self.honor[p.keys[3] as usize & (HONOR_LEN - 1)],
        ];
        (p.valid & (standard_need(&e) <= p.w)) | p.other
    }

    /// Checks rows `c` into `out` on the instruction set `isa`: its
    /// kernel ([`crate::simd`]), or the scalar path
    /// ([`Checker::check_rows`]); returns whether every row was a valid
    /// hand.
    #[inline]
    pub(crate) fn check_rows_on(
        &self,
        isa: Isa,
        c: &[Counts],
        n_melds: &[u8],
        out: &mut [bool],
    ) -> bool {
        match isa {
            // SAFETY: `isa` came from `simd::isa`, which gives a path only
            // when the CPU has its instructions.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe { crate::simd::win::avx512::check_rows(self, c, n_melds, out) },
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { crate::simd::win::avx2::check_rows(self, c, n_melds, out) },
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => unsafe { crate::simd::win::neon::check_rows(self, c, n_melds, out) },
            _ => self.check_rows(c, n_melds, out),
        }
    }

    /// Checks rows `c` into `out` in chunks (see [`Checker::prepare`]);
    /// returns whether every row was a valid hand.
    #[inline]
    pub(crate) fn check_rows(&self, c: &[Counts], n_melds: &[u8], out: &mut [bool]) -> bool {
        const CHUNK: usize = 32;
        let mut all_valid = true;
        let mut pre = [Prepared::default(); CHUNK];
        for (i, (cc, oc)) in c.chunks(CHUNK).zip(out.chunks_mut(CHUNK)).enumerate() {
            if n_melds.len() == 1 {
                let m = n_melds[0] as usize;
                for (p, h) in pre.iter_mut().zip(cc) {
                    *p = self.prepare(h, m);
                }
            } else {
                let ms = &n_melds[i * CHUNK..i * CHUNK + cc.len()];
                for ((p, h), &m) in pre.iter_mut().zip(cc).zip(ms) {
                    *p = self.prepare(h, m as usize);
                }
            }
            for (r, p) in oc.iter_mut().zip(&pre) {
                *r = self.finish(p);
                all_valid &= p.valid;
            }
        }
        all_valid
    }

    /// The packed need entry of each group.
    #[inline(always)]
    pub(crate) fn entries(&self, keys: &[u32; 4]) -> [u8; 4] {
        [
            self.suit[SuitIndex::of(keys[0])],
            self.suit[SuitIndex::of(keys[1])],
            self.suit[SuitIndex::of(keys[2])],
            self.honor[keys[3] as usize],
        ]
    }

    /// The packed need entry of group `g` (0-2 suits, 3 honors) for `key`,
    /// or 0 when `key` lies past the group's keys. A key whose digit sum
    /// exceeds 14 reads a meaningless entry.
    #[inline(always)]
    pub(crate) fn entry(&self, g: usize, key: u32) -> u8 {
        if g < 3 {
            if key < 5 * POW5[8] {
                self.suit[SuitIndex::of(key)]
            } else {
                0
            }
        } else {
            self.honor.get(key as usize).copied().unwrap_or(0)
        }
    }
}

/// What one pass over a hand's counts finds (see [`Checker::scan`]).
#[derive(Clone, Copy)]
pub(crate) struct Scan {
    /// Natural group keys (meaningful when `counts_ok`).
    pub keys: [u32; 4],
    /// The suit keys' low (ranks 1-4) and high (ranks 5-9) parts.
    pub parts: [[u32; 2]; 3],
    /// Wild tiles held.
    pub w: i32,
    /// Tiles held (meaningful when `counts_ok`).
    pub tiles: u32,
    /// Every count ≤ 4.
    pub counts_ok: bool,
    /// Natural kinds held an odd number of times.
    pub odd: i32,
    /// The natural tiles fit thirteen orphans.
    pub orphans_fit: bool,
}

/// 0xff in the bytes of thirteen-orphans kinds, per 8-kind word.
const ORPHAN_BYTES: [u64; 5] = {
    let mut a = [0u64; 5];
    let mut i = 0;
    while i < KINDS {
        if ORPHAN_MASK >> i & 1 == 1 {
            a[i / 8] |= 0xff << (8 * (i % 8));
        }
        i += 1;
    }
    a
};

/// The base-5 values of the low and the high 4 byte digits of `x` (lowest
/// byte = lowest digit), by pairwise combination.
#[inline(always)]
fn swar_key4x2(x: u64) -> (u32, u32) {
    const M8: u64 = 0x00ff_00ff_00ff_00ff;
    const M16: u64 = 0x0000_ffff_0000_ffff;
    let a = (x & M8) + ((x >> 8) & M8) * 5;
    let b = (a & M16) + ((a >> 16) & M16) * 25;
    ((b & 0xffff_ffff) as u32, (b >> 32) as u32)
}

/// The base-5 value of 8 byte digits (lowest byte = lowest digit).
#[inline(always)]
fn swar_key8(x: u64) -> u32 {
    let (lo, hi) = swar_key4x2(x);
    lo + hi * POW5[4]
}

/// A hand ready for its table loads.
#[derive(Clone, Copy, Default)]
struct Prepared {
    /// The three suit table slots and the honor key.
    keys: [u32; 4],
    w: i32,
    valid: bool,
    /// Valid and a seven pairs or thirteen orphans win.
    other: bool,
}

/// The base-5 keys of the three suits and the honors.
#[inline(always)]
pub(crate) fn group_keys(c: &Counts) -> [u32; 4] {
    let mut keys = [0u32; 4];
    for (s, key) in keys.iter_mut().enumerate() {
        let b = 9 * s;
        let len = if s < 3 { 9 } else { 7 };
        *key = c[b..b + len]
            .iter()
            .zip(&POW5)
            .map(|(&n, &p)| n as u32 * p)
            .sum();
    }
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

/// [`is_win`] over many hands: `out[i]` is whether `counts[i]` with
/// `n_melds[i]` melds (or `n_melds[0]` for every hand when it has one
/// entry) is a win.
///
/// Rows are checked like [`is_win`]: a row with a count above 4, more than
/// 4 melds or the wrong number of tiles is `false` (it is not an error, so
/// one bad row does not spoil a batch). Mismatched array lengths are an
/// [`Error::InvalidHand`]. `threads`: 1 = this thread, 0 = one per core
/// (rayon's global pool), `k` > 1 = a pool of `k` threads kept for the
/// process. The result never depends on `threads`.
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
    is_win_batch_checked(counts, n_melds, wilds, rules, out, threads).map(|_| ())
}

/// [`is_win_batch`], also telling whether every row was a valid hand (a
/// count above 4, more than 4 melds or a wrong size makes a row invalid,
/// and its answer `false`). Found in the same pass, so that a caller who
/// must report bad rows looks for them only when there are some.
///
/// ```
/// use koudian_core::{shape::{is_win_batch_checked, ShapeRules}, tile::{parse, counts_of}, Wildcards};
/// let good = counts_of(&parse("123m456p789s11122z").unwrap()).unwrap();
/// let mut out = [false; 2];
/// let all_valid = is_win_batch_checked(&[good, [0; 34]], &[0], &Wildcards::NONE, &ShapeRules::ALL, &mut out, 1).unwrap();
/// assert_eq!((out, all_valid), ([true, false], false));
/// ```
pub fn is_win_batch_checked(
    counts: &[Counts],
    n_melds: &[u8],
    wilds: &Wildcards,
    rules: &ShapeRules,
    out: &mut [bool],
    threads: usize,
) -> Result<bool, Error> {
    check_batch(counts.len(), n_melds, out.len(), "is_win_batch")?;
    let isa = crate::simd::isa()?;
    let checker = Checker::new(wilds, rules);
    let chunk = |start: usize, c: &[Counts], o: &mut [bool]| {
        let m = if n_melds.len() == 1 {
            n_melds
        } else {
            &n_melds[start..start + c.len()]
        };
        checker.check_rows_on(isa, c, m, o)
    };
    match isa {
        // The kernels read the caller's rows in place: every table index
        // they compute is masked or clamped into its table, so rows that
        // change meanwhile (a numpy array another Python thread writes)
        // change only answers, and the few rows they hand to the scalar
        // path are read by value first. The copy of the rows the scalar
        // path needs cost the AVX2 kernel 13% of its rate on an AMD EPYC
        // host (78 → 90 M rows/s on one thread without it).
        Isa::Avx2 | Isa::Avx512 | Isa::Neon => {
            run_checked_chunks_in_place(counts, out, threads, chunk)
        }
        Isa::Scalar => run_checked_chunks(counts, out, threads, chunk),
    }
}

const _: () = assert!(KINDS == 34);
