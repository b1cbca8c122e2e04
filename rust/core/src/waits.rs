//! Waits (听口) of a hand one tile short, and "ready" (听牌): docs/rules.md §2
//! "Waits and ready".
//!
//! * A natural kind is a wait when drawing it completes the hand, while the
//!   player's own concealed tiles and melds hold fewer than 4 of it (a 5th
//!   copy cannot be drawn). It is worth its points.
//! * A wild kind is a wait when a drawn wild tile completes the hand, i.e.
//!   when the tile could stand for at least one kind (a 5th copy included:
//!   the 5-copy limit binds physical tiles only), again only while the
//!   player holds fewer than 4 physical tiles of the wild kind. It is worth
//!   the highest points among the kinds it could stand for there (a wild
//!   tile may stand for its own kind, so that kind's points count too).
//! * Seven pairs and thirteen orphans count when the ruleset allows them.
//!
//! Method (ALGORITHMS.md "Waits"): the natural counts' table entries are
//! looked up once; adding one tile changes a single group's key, so each
//! of the 34 candidate kinds costs one table load and a few additions. A
//! kind the hand already holds 4 times naturally (only a wild tile can add
//! a 5th) is decided without a 5-digit key: five copies lie either in a
//! triplet (the rest then holds 2) or in the pair plus three sets.
//!
//! A batch on a CPU with AVX2 or AVX-512, and on aarch64 (NEON), finds
//! the completing kinds of 8, 16 or 4 hands per vector instead (`crate::simd`, `simd/waits.rs`), the
//! rare hands (a kind held 4 times, seven pairs or thirteen orphans in
//! reach, invalid rows) by this module's rules; the waits follow from
//! them as here.

use crate::error::Error;
use crate::hand::Hand;
use crate::parallel::run_checked_chunks;
use crate::shape::tables::{need0, need1, suit_neighbours, SuitIndex, POW5};
use crate::shape::win::{check_batch, valid_size, Checker, ORPHAN_MASK};
use crate::shape::ShapeRules;
use crate::simd::Isa;
use crate::tile::{Counts, Tile, KINDS};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;
const NIBBLES: u64 = 0x0f0f_0f0f_0f0f_0f0f;
/// Gathers bit 0 of each byte into 8 bits.
const GATHER: u64 = 0x0102_0408_1020_4080;
use crate::wildcard::Wildcards;

/// The waits of a hand: which kinds complete it and what each is worth.
///
/// ```
/// use koudian_core::{hand::Hand, shape::ShapeRules, tile::{parse, Tile}, waits::waits, Wildcards};
/// let hand = Hand::from_tiles(&parse("1112345678999m").unwrap(), &[]).unwrap();
/// let w = waits(&hand, &Wildcards::NONE, &ShapeRules::ALL).unwrap();
/// assert_eq!(w.len(), 9); // 九莲宝灯 waits on every 万
/// assert_eq!(w.best_points(), Some(9));
/// assert_eq!(w.points(Tile::M1), Some(1));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Waits {
    /// Bit `i` set when kind `i` is a wait.
    mask: u64,
    /// The waits that are wild kinds (a subset of `mask`).
    wild: u64,
    /// Points of every wild wait.
    wild_points: u8,
}

impl Waits {
    /// No waits (a hand that is not ready).
    pub const NONE: Waits = Waits {
        mask: 0,
        wild: 0,
        wild_points: 0,
    };

    /// These waits less every kind outside `kinds` (bit `i` for kind `i`).
    #[inline]
    pub(crate) fn only(self, kinds: u64) -> Waits {
        let wild = self.wild & kinds;
        Waits {
            mask: self.mask & kinds,
            wild,
            wild_points: if wild == 0 { 0 } else { self.wild_points },
        }
    }

    /// Whether the hand is ready (听牌): at least one wait.
    #[inline]
    pub fn is_ready(&self) -> bool {
        self.mask != 0
    }

    /// The waits as a 34-bit mask, bit `i` for kind `i`.
    #[inline]
    pub fn mask(&self) -> u64 {
        self.mask
    }

    /// Number of waiting kinds.
    #[inline]
    pub fn len(&self) -> usize {
        self.mask.count_ones() as usize
    }

    /// Whether there are no waits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.mask == 0
    }

    /// Whether `t` is a wait.
    #[inline]
    pub fn contains(&self, t: Tile) -> bool {
        self.mask >> t.index() & 1 == 1
    }

    /// What winning on `t` is worth in points, or `None` if `t` is not a
    /// wait. A wild kind is worth the best kind it can stand for.
    #[inline]
    pub fn points(&self, t: Tile) -> Option<u8> {
        if !self.contains(t) {
            None
        } else if self.wild >> t.index() & 1 == 1 {
            Some(self.wild_points)
        } else {
            Some(t.points())
        }
    }

    /// The highest points among the waits, or `None` when not ready.
    pub fn best_points(&self) -> Option<u8> {
        self.iter().map(|(_, p)| p).max()
    }

    /// The waits in index order, with their points.
    pub fn iter(&self) -> impl Iterator<Item = (Tile, u8)> + '_ {
        self.tiles().map(|t| {
            let p = if self.wild >> t.index() & 1 == 1 {
                self.wild_points
            } else {
                t.points()
            };
            (t, p)
        })
    }

    /// The waiting kinds in index order.
    pub fn tiles(&self) -> impl Iterator<Item = Tile> + '_ {
        let mut m = self.mask;
        std::iter::from_fn(move || {
            if m == 0 {
                return None;
            }
            let i = m.trailing_zeros();
            m &= m - 1;
            Some(Tile::from_index_unchecked(i as u8))
        })
    }

    /// The waits as 34 booleans.
    pub fn to_bools(&self) -> [bool; KINDS] {
        let mut b = [false; KINDS];
        for (i, x) in b.iter_mut().enumerate() {
            *x = self.mask >> i & 1 == 1;
        }
        b
    }
}

/// The waits of `hand`, which must hold `13 − 3 × melds` concealed tiles
/// (wild tiles at their own index). Errors name the wrong size.
///
/// ```
/// use koudian_core::{hand::Hand, shape::ShapeRules, tile::{parse, Tile}, waits::waits, Wildcards};
/// // 123m 456p 789s 11z + 5z: waits on 1z (10 points) and nothing else…
/// let hand = Hand::from_tiles(&parse("123m456p789s1155z").unwrap(), &[]).unwrap();
/// let w = waits(&hand, &Wildcards::NONE, &ShapeRules::ALL).unwrap();
/// assert_eq!(w.tiles().collect::<Vec<_>>(), vec![Tile::EAST, Tile::WHITE]);
/// // …and with 红中 wild, drawing a 红中 wins too, worth 10.
/// let red = Wildcards::new(&[Tile::RED]).unwrap();
/// let w = waits(&hand, &red, &ShapeRules::ALL).unwrap();
/// assert_eq!(w.points(Tile::RED), Some(10));
/// ```
pub fn waits(hand: &Hand, wilds: &Wildcards, rules: &ShapeRules) -> Result<Waits, Error> {
    waits_in_play(hand, wilds, rules, ALL_KINDS)
}

/// Every kind (bit `i` for kind `i`).
pub(crate) const ALL_KINDS: u64 = (1 << KINDS) - 1;

/// [`waits`] over the kinds in play only (`in_play`, bit `i` for kind
/// `i`; see [`crate::legal::kinds_in_play`]): a kind not in play is never
/// a wait, and a wild wait is worth the best kind in play it can stand
/// for.
pub(crate) fn waits_in_play(
    hand: &Hand,
    wilds: &Wildcards,
    rules: &ShapeRules,
    in_play: u64,
) -> Result<Waits, Error> {
    hand.check_size(false)?;
    let checker = Checker::new(wilds, rules);
    let complete = completing_kinds(&checker, &hand.concealed, hand.n_melds()) & in_play;
    Ok(waits_of_completing(&checker, complete, &hand.all_counts()))
}

/// The counts-level [`waits`] for hot loops: `concealed` holds the
/// concealed tiles (wild tiles at their own index), `held` every physical
/// tile the player owns (concealed plus melds, as [`Hand::all_counts`];
/// pass `concealed` when melds hold none of the kinds that matter), and
/// `n_melds` the number of melds.
///
/// Invalid input (a count above 4, more than 4 melds, or a concealed part
/// that is not `13 − 3 × n_melds` tiles) gives [`Waits::NONE`] rather than
/// an error, so that the call costs no allocation.
///
/// ```
/// use koudian_core::{shape::ShapeRules, tile::{parse, counts_of, Tile}, waits::waits_counts, Wildcards};
/// let c = counts_of(&parse("2345m").unwrap()).unwrap();
/// let w = waits_counts(&c, &c, 3, &Wildcards::NONE, &ShapeRules::ALL);
/// assert_eq!(w.tiles().collect::<Vec<_>>(), vec![Tile::new(1).unwrap(), Tile::new(4).unwrap()]);
/// ```
pub fn waits_counts(
    concealed: &Counts,
    held: &Counts,
    n_melds: usize,
    wilds: &Wildcards,
    rules: &ShapeRules,
) -> Waits {
    waits_counts_in_play(concealed, held, n_melds, wilds, rules, ALL_KINDS)
}

/// [`waits_counts`] over the kinds in play only (as [`waits_in_play`]).
pub(crate) fn waits_counts_in_play(
    concealed: &Counts,
    held: &Counts,
    n_melds: usize,
    wilds: &Wildcards,
    rules: &ShapeRules,
    in_play: u64,
) -> Waits {
    let checker = Checker::new(wilds, rules);
    if !valid_size(concealed, n_melds, 13) {
        return Waits::NONE;
    }
    let complete = completing_kinds(&checker, concealed, n_melds) & in_play;
    waits_of_completing(&checker, complete, held)
}

/// [`waits_counts`] over many hands: `out[i]` is the wait mask (bit `i`
/// for kind `i`) of `counts[i]` with `n_melds[i]` melds (`n_melds[0]` for
/// every hand when it has one entry). `held` is empty (each hand's melds
/// are taken to hold none of its kinds) or gives each hand's own physical
/// tiles, melds included, for the 4-copy limit.
///
/// An invalid row gives mask 0; mismatched lengths are an
/// [`Error::InvalidHand`]. `threads` works as in
/// [`crate::shape::is_win_batch`]; the result never depends on it.
///
/// ```
/// use koudian_core::{shape::ShapeRules, tile::{parse, counts_of}, waits::waits_batch, Wildcards};
/// let hands = [counts_of(&parse("123m456p789s1155z").unwrap()).unwrap()];
/// let mut out = [0u64; 1];
/// waits_batch(&hands, &[0], &[], &Wildcards::NONE, &ShapeRules::ALL, &mut out, 1).unwrap();
/// assert_eq!(out[0], 1 << 27 | 1 << 31);
/// ```
pub fn waits_batch<O: WaitRow>(
    counts: &[Counts],
    n_melds: &[u8],
    held: &[Counts],
    wilds: &Wildcards,
    rules: &ShapeRules,
    out: &mut [O],
    threads: usize,
) -> Result<(), Error> {
    waits_batch_checked(counts, n_melds, held, wilds, rules, out, threads).map(|_| ())
}

/// [`waits_batch`], also telling whether every row was a valid hand (an
/// invalid row's mask is 0, like a valid hand's without waits), found in
/// the same pass: a caller who must report bad rows looks for them only
/// when there are some.
///
/// ```
/// use koudian_core::{shape::ShapeRules, tile::{parse, counts_of}, waits::waits_batch_checked, Wildcards};
/// let hands = [counts_of(&parse("123m456p789s1155z").unwrap()).unwrap(), [0; 34]];
/// let mut out = [0u64; 2];
/// let all_valid = waits_batch_checked(&hands, &[0], &[], &Wildcards::NONE, &ShapeRules::ALL, &mut out, 1).unwrap();
/// assert!(!all_valid);
/// ```
pub fn waits_batch_checked<O: WaitRow>(
    counts: &[Counts],
    n_melds: &[u8],
    held: &[Counts],
    wilds: &Wildcards,
    rules: &ShapeRules,
    out: &mut [O],
    threads: usize,
) -> Result<bool, Error> {
    waits_batch_only(
        counts,
        n_melds,
        held,
        wilds,
        rules,
        out,
        threads,
        ALL_KINDS,
        |_| u64::MAX,
    )
}

/// [`waits_batch_checked`] keeping of each row's waits only the kinds
/// `allowed(own)` gives, `own` being the row's physical tiles (its `held`
/// row, else its counts), over the kinds `in_play` (as [`waits_in_play`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn waits_batch_only<O: WaitRow>(
    counts: &[Counts],
    n_melds: &[u8],
    held: &[Counts],
    wilds: &Wildcards,
    rules: &ShapeRules,
    out: &mut [O],
    threads: usize,
    in_play: u64,
    allowed: impl Fn(&Counts) -> u64 + Sync + Send,
) -> Result<bool, Error> {
    check_batch(counts.len(), n_melds, out.len(), "waits_batch")?;
    if !held.is_empty() && held.len() != counts.len() {
        return Err(Error::InvalidHand(format!(
            "waits_batch: held has {} rows for {} hands; give 0 or {}",
            held.len(),
            counts.len(),
            counts.len()
        )));
    }
    let isa = crate::simd::isa()?;
    let checker = Checker::new(wilds, rules);
    run_checked_chunks(counts, out, threads, |start, c, o| {
        if isa != Isa::Scalar {
            return rows_on(isa, &checker, start, c, n_melds, held, o, in_play, &allowed);
        }
        let mut ok = true;
        for (j, (h, r)) in c.iter().zip(o.iter_mut()).enumerate() {
            let i = start + j;
            let m = if n_melds.len() == 1 {
                n_melds[0]
            } else {
                n_melds[i]
            } as usize;
            let own = if held.is_empty() { h } else { &held[i] };
            let valid = valid_size(h, m, 13);
            ok &= valid;
            *r = O::from_mask(if valid {
                let complete = completing_kinds(&checker, h, m) & in_play;
                waits_of_completing(&checker, complete, own).mask & allowed(own)
            } else {
                0
            });
        }
        ok
    })
}

/// [`completing_kinds`] of a row, or [`INVALID`] when it is not a valid
/// hand of `13 − 3 × n_melds` tiles: what a batch's rows need of the hand
/// itself (the kernels' answer per row, [`crate::simd`]).
#[inline]
pub(crate) fn complete_row(checker: &Checker, c: &Counts, n_melds: usize) -> u64 {
    if valid_size(c, n_melds, 13) {
        completing_kinds(checker, c, n_melds)
    } else {
        INVALID
    }
}

/// [`complete_row`]'s answer for a row that is not a valid hand (no
/// completing-kinds mask has bits above 33).
pub(crate) const INVALID: u64 = u64::MAX;

/// The rows `c` (the batch's rows from `start`) of [`waits_batch_only`]
/// on the kernels of `isa`: their completing kinds by the kernel, a
/// stretch of rows at a time, then each row's waits as the scalar loop
/// finds them from its completing kinds. Whether every row was valid.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn rows_on<O: WaitRow>(
    isa: Isa,
    checker: &Checker,
    start: usize,
    c: &[Counts],
    n_melds: &[u8],
    held: &[Counts],
    o: &mut [O],
    in_play: u64,
    allowed: &impl Fn(&Counts) -> u64,
) -> bool {
    // A stretch small enough to stay in L1 between the two passes.
    const STRETCH: usize = 256;
    let mut complete = [0u64; STRETCH];
    let mut ok = true;
    let mut wild_mask = 0u64;
    for &t in &checker.wild[..checker.n_wild] {
        wild_mask |= 1 << t;
    }
    for (k, (cs, os)) in c.chunks(STRETCH).zip(o.chunks_mut(STRETCH)).enumerate() {
        let at = start + k * STRETCH;
        let ms = if n_melds.len() == 1 {
            n_melds
        } else {
            &n_melds[at..at + cs.len()]
        };
        let comp = &mut complete[..cs.len()];
        complete_rows_on(isa, checker, cs, ms, comp);
        for (j, ((h, r), &x)) in cs.iter().zip(os.iter_mut()).zip(comp.iter()).enumerate() {
            let own = if held.is_empty() { h } else { &held[at + j] };
            let valid = x != INVALID;
            ok &= valid;
            *r = O::from_mask(if valid {
                wait_mask(wild_mask, x & in_play, own) & allowed(own)
            } else {
                0
            });
        }
    }
    ok
}

/// [`waits_of_completing`]'s mask without its branch on `complete`
/// (half of a batch's hands have no waits, and the branch would guess
/// wrong on many of them), for the kernels' rows: `wild_mask` the wild
/// kinds, `complete` the completing kinds, `held` the physical tiles.
#[inline(always)]
fn wait_mask(wild_mask: u64, complete: u64, held: &Counts) -> u64 {
    let any = 0u64.wrapping_sub(u64::from(complete != 0));
    ((complete & !wild_mask) | (wild_mask & any)) & below_four(held)
}

/// [`complete_row`] of each row of `c` into `out`, on the kernel of
/// `isa` (the scalar path row by row for [`Isa::Scalar`]). `n_melds`
/// holds one entry, or one per row.
#[inline]
pub(crate) fn complete_rows_on(
    isa: Isa,
    checker: &Checker,
    c: &[Counts],
    n_melds: &[u8],
    out: &mut [u64],
) {
    match isa {
        // SAFETY: `isa` came from `simd::isa` (or a test that checked
        // `Isa::available`), which gives a path only when the CPU has its
        // instructions.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe {
            crate::simd::waits::avx512::complete_rows(checker, c, n_melds, out)
        },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { crate::simd::waits::avx2::complete_rows(checker, c, n_melds, out) },
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => unsafe { crate::simd::waits::neon::complete_rows(checker, c, n_melds, out) },
        _ => {
            for (i, (h, x)) in c.iter().zip(out.iter_mut()).enumerate() {
                let m = if n_melds.len() == 1 {
                    n_melds[0]
                } else {
                    n_melds[i]
                };
                *x = complete_row(checker, h, usize::from(m));
            }
        }
    }
}

/// A batch's output row: the wait mask itself, or one `bool` per kind
/// (the layout of a numpy `(N, 34)` bool array, filled inside the batch's
/// threads while the row is in cache).
///
/// ```
/// use koudian_core::waits::WaitRow;
/// let row = <[bool; 34]>::from_mask(1 << 27 | 1 << 31);
/// assert!(row[27] && row[31] && row.iter().filter(|&&b| b).count() == 2);
/// ```
pub trait WaitRow: Send {
    /// The row of a wait mask (bit `i` for kind `i`).
    fn from_mask(mask: u64) -> Self;
}

impl WaitRow for u64 {
    #[inline(always)]
    fn from_mask(mask: u64) -> u64 {
        mask
    }
}

impl WaitRow for [bool; KINDS] {
    #[inline(always)]
    fn from_mask(mask: u64) -> [bool; KINDS] {
        // Eight kinds at a time: each byte of the mask spread to 8 bytes of
        // 0 or 1 through a 2 KiB table.
        let mut bytes = [0u8; 40];
        for (j, part) in bytes.chunks_exact_mut(8).enumerate() {
            part.copy_from_slice(&SPREAD[(mask >> (8 * j)) as usize & 0xff].to_le_bytes());
        }
        let mut row = [0u8; KINDS];
        row.copy_from_slice(&bytes[..KINDS]);
        // SAFETY: every byte of a SPREAD entry is 0 or 1, the two valid
        // bit patterns of `bool`; reading them as `bool`s saves a compare
        // per kind (a third of a numpy waits batch's time, the row written
        // once more).
        unsafe { std::mem::transmute::<[u8; KINDS], [bool; KINDS]>(row) }
    }
}

/// `SPREAD[b]`: bit `i` of `b` as byte `i` (0 or 1).
static SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            t[b] |= ((b as u64 >> i) & 1) << (8 * i);
            i += 1;
        }
        b += 1;
    }
    t
};

/// Waits of a valid 13 − 3 × melds hand (the judge's tests compare
/// with it).
#[cfg(test)]
#[inline]
pub(crate) fn waits_unchecked(
    checker: &Checker,
    concealed: &Counts,
    n_melds: usize,
    held: &Counts,
) -> Waits {
    waits_of_completing(checker, completing_kinds(checker, concealed, n_melds), held)
}

/// The waits of a valid 13 − 3 × melds hand from its [`completing_kinds`]
/// `complete`.
#[inline]
pub(crate) fn waits_of_completing(checker: &Checker, complete: u64, held: &Counts) -> Waits {
    if complete == 0 {
        return Waits::NONE;
    }
    let mut wild_mask = 0u64;
    for &t in &checker.wild[..checker.n_wild] {
        wild_mask |= 1 << t;
    }
    let drawable = below_four(held);
    let wild = wild_mask & drawable;
    Waits {
        mask: (complete & !wild_mask & drawable) | wild,
        wild,
        wild_points: if wild != 0 { best_points(complete) } else { 0 },
    }
}

/// The kinds held fewer than 4 times (bit `i` for kind `i`): the kinds
/// that can still be drawn.
#[inline(always)]
fn below_four(held: &Counts) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // Unsigned: x < 4 where min(x, 3) = x (any byte value).
        // SAFETY: SSE2 is part of the x86-64 baseline.
        crate::tile::KindBytes::load(held)
            .mask(|x| unsafe { _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(3)), x) })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        below_four_plain(held)
    }
}

/// [`below_four`] kind by kind (other targets, and its test).
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
fn below_four_plain(held: &Counts) -> u64 {
    let mut drawable = 0u64;
    for (i, &n) in held.iter().enumerate() {
        drawable |= ((n < 4) as u64) << i;
    }
    drawable
}

/// Highest points among the kinds of `mask` (0 for an empty mask): what a
/// wild tile that may stand for any of them is worth, the one rule of a
/// wild wait's value and of a self-drawn wild winning tile's
/// ([`crate::score`]).
#[inline]
pub(crate) fn best_points(mask: u64) -> u8 {
    if mask >> 27 != 0 {
        return 10;
    }
    let mut best = 0;
    for s in 0..3 {
        let m = (mask >> (9 * s)) & 0x1ff;
        if m != 0 {
            best = best.max(64 - m.leading_zeros() as u8);
        }
    }
    best
}

/// Kinds `t` such that the natural tiles plus one natural `t` (a 5th copy
/// allowed), with the hand's wild tiles, form a winning shape. A natural
/// kind completes the hand when drawn iff it is here; a drawn wild tile
/// completes it iff this is not empty.
#[inline]
pub(crate) fn completing_kinds(checker: &Checker, c: &Counts, n_melds: usize) -> u64 {
    let neighbours = suit_neighbours();
    let sc = checker.scan(c);
    let (keys, w) = (sc.keys, sc.w);
    let e = checker.entries(&keys);
    let n0 = e.map(need0);
    let d = e.map(|x| need1(x) - need0(x));
    let sum0: i32 = n0.iter().sum();
    let (odd_kinds, fours) = checker.natural_bits(c);
    let mut out = 0u64;
    for s in 0..4 {
        let mut other = i32::MAX;
        for (j, &dj) in d.iter().enumerate() {
            if j != s {
                other = other.min(dj);
            }
        }
        let key = keys[s];
        let ranks = if s < 3 { 9 } else { 7 };
        // With one more tile of rank r the hand wins iff, for that rank's
        // entry x, need1(x) ≤ lim or need0(x) ≤ lim − other. The entries of
        // ranks 0..8 are compared as bytes of one word at once.
        let lim = w - (sum0 - n0[s]);
        let t1 = (lim + 1).clamp(0, 16) as u64;
        let t0 = (lim - other + 1).clamp(0, 16) as u64;
        let mut xs = 0u64;
        // A kind held 4 times naturally would need a 5-digit key; it is
        // redone below (its entry here is meaningless but in bounds).
        let mut ninth = 0xff;
        if s < 3 {
            let [lo, hi] = sc.parts[s];
            let slot = SuitIndex::of_parts(lo, hi);
            xs = neighbours.first8[slot];
            ninth = neighbours.ninth[slot];
        } else {
            for (r, &p) in POW5.iter().enumerate().take(ranks) {
                let x = checker.entry(s, key + p);
                xs |= (x as u64) << (8 * r);
            }
        }
        let hi = (xs >> 4) & NIBBLES;
        let lo = xs & NIBBLES;
        // Per byte: t + 0x7f − v has bit 7 set iff v < t (no borrows:
        // t ≤ 16, v ≤ 15).
        let bias = 0x7f * ONES;
        let ok = ((t1 * ONES + bias - hi) | (t0 * ONES + bias - lo)) & HIGH;
        let mut bits = ((ok >> 7).wrapping_mul(GATHER) >> 56) & ((1 << ranks.min(8)) - 1);
        if ranks == 9 {
            let win = need1(ninth) <= lim || need0(ninth) <= lim - other;
            bits |= (win as u64) << 8;
        }
        out |= bits << (9 * s);
    }
    out = five_copies(checker, out, fours, &keys, &n0, &d, sum0, w);
    if n_melds == 0 {
        let rules = checker.rules;
        if rules.seven_pairs {
            let all = (1u64 << KINDS) - 1;
            if sc.odd - 1 <= w {
                out |= odd_kinds;
            }
            if sc.odd < w {
                out |= all & !odd_kinds;
            }
        }
        // Only a hand whose natural tiles already fit can complete it.
        if rules.thirteen_orphans && sc.orphans_fit {
            let mut natural = *c;
            for &t in &checker.wild[..checker.n_wild] {
                natural[t] = 0;
            }
            out |= orphan_completions(&natural);
        }
    }
    out
}

/// `out` with the bits of the kinds `fours` (held 4 times naturally)
/// decided: whether a fifth copy completes the hand, given the natural
/// keys, each group's `need0` and `need1 − need0`, the sum `sum0` of the
/// `need0`s, and the wild tiles `w`
/// (the part of [`completing_kinds`] that a 5-digit key would need; the
/// kernels call it for their lanes with such kinds, [`crate::simd`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn five_copies(
    checker: &Checker,
    mut out: u64,
    fours: u64,
    keys: &[u32; 4],
    n0: &[i32; 4],
    d: &[i32; 4],
    sum0: i32,
    w: i32,
) -> u64 {
    let mut f = fours;
    while f != 0 {
        let t = f.trailing_zeros() as usize;
        f &= f - 1;
        let s = t / 9;
        let p = POW5[t % 9];
        let mut other = i32::MAX;
        for (j, &dj) in d.iter().enumerate() {
            if j != s {
                other = other.min(dj);
            }
        }
        let base = sum0 - n0[s];
        // Five copies: a triplet of them and the pair elsewhere or among
        // the other two, or the pair of them and the other three in sets
        // (only 4 sets: without a triplet at most 4 copies sit in
        // sequences, so the pair must hold 2).
        let tri = checker.entry(s, keys[s] - 2 * p);
        let pair = checker.entry(s, keys[s] - p);
        let win = base + need0(tri) + (need1(tri) - need0(tri)).min(other) <= w
            || base + need0(pair) <= w;
        out = (out & !(1 << t)) | (win as u64) << t;
    }
    out
}

/// Orphan kinds whose addition makes thirteen orphans possible (the wild
/// tiles, exactly as many as the missing tiles, fill the rest).
#[inline]
fn orphan_completions(natural: &Counts) -> u64 {
    let mut ones = 0u64;
    let mut twos = 0u32;
    for (i, &n) in natural.iter().enumerate() {
        if n == 0 {
            continue;
        }
        if ORPHAN_MASK >> i & 1 == 0 || n > 2 {
            return 0;
        }
        if n == 1 {
            ones |= 1 << i;
        } else {
            twos += 1;
        }
    }
    match twos {
        // Any orphan kind but one held once would double it.
        0 => ORPHAN_MASK,
        // The pair is taken: only a kind not yet held.
        1 => ORPHAN_MASK & !ones & !held_twice(natural),
        _ => 0,
    }
}

#[inline]
fn held_twice(natural: &Counts) -> u64 {
    let mut m = 0u64;
    for (i, &n) in natural.iter().enumerate() {
        m |= ((n == 2) as u64) << i;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`best_points`] (a wild tile's worth) is the plain maximum of the
    /// kinds' points, 0 for no kind, on every single kind and random
    /// masks.
    #[test]
    fn best_points_is_the_highest_kind_points() {
        let plain = |m: u64| {
            Tile::all()
                .filter(|t| m >> t.index() & 1 == 1)
                .map(|t| t.points())
                .max()
                .unwrap_or(0)
        };
        let mut next = crate::testing::xorshift(0x5DEE_CE66_D1CE_4E5B);
        let all = (1u64 << KINDS) - 1;
        let singles = (0..KINDS).map(|k| 1u64 << k);
        for m in singles
            .chain([0, all])
            .chain((0..5_000).map(|_| next() & all >> (next() % 34)))
        {
            assert_eq!(best_points(m), plain(m), "mask {m:#x}");
        }
    }

    /// A numpy row of a wait mask has kind `i` true exactly when bit `i`
    /// is set, for every single kind, the full mask and random masks.
    #[test]
    fn bool_rows_spell_out_the_mask() {
        let mut next = crate::testing::xorshift(0x9E37_79B9_7F4A_7C15);
        let all = (1u64 << KINDS) - 1;
        let masks = (0..KINDS)
            .map(|i| 1u64 << i)
            .chain([0, all])
            .chain((0..1000).map(|_| next() & all));
        for m in masks {
            let row = <[bool; KINDS]>::from_mask(m);
            for (i, &b) in row.iter().enumerate() {
                assert_eq!(b, m >> i & 1 == 1, "mask {m:#x}, kind {i}");
            }
        }
    }

    /// The vector test of the drawable kinds equals the kind-by-kind one,
    /// on counts 0-4 and on any byte values.
    #[test]
    fn below_four_both_ways_agree() {
        let mut next = crate::testing::xorshift(0xA076_1D64_78BD_642F);
        for i in 0..100_000u32 {
            let mut c = [0u8; KINDS];
            for n in c.iter_mut() {
                let r = next();
                *n = if i % 4 == 0 { r as u8 } else { (r % 5) as u8 };
            }
            assert_eq!(below_four(&c), below_four_plain(&c), "{c:?}");
        }
    }
}
