//! The AVX2, AVX-512 and NEON kernels of `shanten_batch`: what depends on
//! each hand alone ([`PerHand`]: the four table entries, the seven pairs
//! and thirteen orphans deficiencies, the wild tiles), 8 (AVX2), 16
//! (AVX-512) or 4 (NEON) hands per vector, one hand per 32-bit lane. The
//! standard shape's min-plus products, already across the hands of a
//! block of 16 (`shanten/batch.rs`), follow unchanged (the x86-64
//! kernels take two blocks of one meld count at once over 32 byte lanes).
//!
//! A block's rows are read as eleven words per row (`row_words!`, as the
//! `is_win` kernel reads them; [`PIECES`]:
//! per suit ranks 1-4, rank 5, ranks 6-9; the honors in two words), so
//! that every lane holds its hand's words; then the scalar path's
//! arithmetic lane by lane: the row check, tile and wild counts, the
//! odd kinds and the orphans held (each piece's counts coded by a byte
//! look-up, [`NATURAL_CODE`] and [`ORPHAN_CODE`], so that one byte sum
//! gives two counts), the suits' table slots (two small tables, the high
//! part with rank 1 as its top digit, as `shanten/table.rs` ranks them)
//! and entries, the honors' entry (AVX-512 gathers; AVX2 and NEON look
//! each lane up in integer registers). A block's answers equal the
//! scalar path's, lane for lane (tested on every path against it and
//! against the search reference).
//!
//! Every look-up reads inside its table or its block: word offsets are
//! at most 30 of a 34-byte row; every key is clamped to its table as the
//! scalar look-ups clamp or mask it (no valid hand's key reaches a
//! clamp; an invalid row's block is an error, its entries unused); and
//! a slot made of any two small-table entries reads inside the suit
//! tables' padding (`table.rs`'s `PADDED`), so that slots need no clamp.

use super::win::piece_mask;
use crate::shanten::batch::{standard_rows, PerHand, B};
use crate::shanten::table::{HI_SLOT, HONOR_KEYS, LO, N_KEYS, PADDED};
use crate::shanten::Calculator;
use crate::shape::win::ORPHAN_MASK;
use crate::tile::{Counts, KINDS};

/// The word offsets gathered from each row, and how far each word is
/// shifted right so that the shifted words cover the 34 kinds once each:
/// per suit `s` ranks 1-4 (at `9s`), rank 5 (the top byte of the word at
/// `9s + 1`), ranks 6-9 (at `9s + 5`); the honors at 27 and, above kind
/// 30, at 30.
const PIECES: [(usize, u32); 11] = [
    (0, 0),
    (1, 24),
    (5, 0),
    (9, 0),
    (10, 24),
    (14, 0),
    (18, 0),
    (19, 24),
    (23, 0),
    (27, 0),
    (30, 8),
];

/// Per piece, 0xff in the bytes of its (unshifted) word that it counts:
/// those at and above its shift (the bytes below are another piece's).
const COUNTED: [u32; 11] = {
    let mut m = [0u32; 11];
    let mut i = 0;
    while i < 11 {
        m[i] = u32::MAX << PIECES[i].1;
        i += 1;
    }
    m
};

/// Per piece, 0xff in its counted bytes of the thirteen orphans' kinds.
const ORPHANS: [u32; 11] = {
    let mut m = [0u32; 11];
    let mut i = 0;
    while i < 11 {
        m[i] = piece_mask((PIECES[i].0, 0), ORPHAN_MASK) & COUNTED[i];
        i += 1;
    }
    m
};

/// A natural kind's count `c` as `c + 16 × (c odd)`: a row's codes add
/// up to its natural tiles plus 16 × its odd kinds (each at most 14 in a
/// valid row, so the two never mix).
const NATURAL_CODE: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut c = 0;
    while c < 16 {
        t[c] = (c + 16 * (c & 1)) as u8;
        c += 1;
    }
    t
};

/// An orphan kind's count `c` as `(c ≥ 1) + 16 × (c ≥ 2)`: a row's codes
/// add up to the orphan kinds it holds plus 16 × those it holds twice.
const ORPHAN_CODE: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut c = 1;
    while c < 16 {
        t[c] = if c >= 2 { 17 } else { 1 };
        c += 1;
    }
    t
};

/// What a block needs of a [`Calculator`], as 32-bit lane constants
/// (made once per batch call's chunk of rows).
pub(crate) struct Consts {
    /// Per piece, the natural kinds' bytes among those it counts
    /// ([`COUNTED`]) of its (unshifted) word.
    keep: [u32; 11],
    seven_pairs: bool,
    thirteen_orphans: bool,
    /// The padded tables from the calculator's variant (capped or not):
    /// its entries, 4 bytes each, then the other variant's or the
    /// padding (`table.rs`'s `PADDED`).
    suit: *const u8,
    honors: *const u8,
}

impl Consts {
    pub(crate) fn new(calc: &Calculator) -> Consts {
        let mut natural = 0u64;
        for (k, &m) in calc.keep.iter().enumerate() {
            natural |= u64::from(m != 0) << k;
        }
        let base = if calc.capped { 0 } else { 4 * N_KEYS };
        Consts {
            keep: std::array::from_fn(|i| piece_mask((PIECES[i].0, 0), natural) & COUNTED[i]),
            seven_pairs: calc.rules.seven_pairs,
            thirteen_orphans: calc.rules.thirteen_orphans,
            // SAFETY: `base` is inside the padded tables (at most
            // 4 × N_KEYS of their 8 × N_KEYS + 4 × SUIT_PAD bytes).
            suit: unsafe { std::ptr::addr_of!(PADDED).cast::<u8>().add(base) },
            honors: calc.honors.0.as_ptr().cast(),
        }
    }
}

const _: () = assert!(KINDS == 34 && B == 16);

/// The kernel body, written once over each instruction set's lane
/// operations (`crate::simd::ops`), compiled with its target features.
macro_rules! kernel {
    ($features:literal) => {
        /// The shanten of a block of [`B`] rows into `out`, by way of
        /// their [`PerHand`] (`p`; `k`: the calculator's [`Consts`]); the
        /// first row that is not a valid hand, if any (`out` is then
        /// unwritten).
        #[target_feature(enable = $features)]
        pub(crate) fn block(
            k: &Consts,
            rows: &[Counts],
            melds: &[u8; B],
            p: &mut PerHand,
            out: &mut [i8],
        ) -> Option<usize> {
            assert!(rows.len() == B);
            for at in (0..B).step_by(L) {
                let m = melds_of(&melds[at..at + L]);
                if let Some(j) = part::<0>(k, &rows[at..at + L], m, at, p) {
                    return Some(at + j);
                }
            }
            // The products across the block, compiled here with this
            // path's instructions (three-operand forms: fewer copies).
            let standard = standard_rows(p, B, melds);
            let m = melds[0];
            if melds.iter().all(|&x| x == m) {
                // One meld count: the answers of the block at once, as
                // `finish` finds them hand by hand.
                out16(&standard[4 - usize::from(m.min(4))], p, out);
            } else {
                for (j, o) in out.iter_mut().enumerate().take(B) {
                    let d = standard[4 - melds[j].min(4) as usize][j].min(p.other[j]);
                    *o = d.saturating_sub(p.wild[j]) as i8 - 1;
                }
            }
            None
        }

        /// [`L`] rows of a block, from row `at`. `SITE` makes one copy
        /// per caller (`block` and `blocks2`), so that each copy has one
        /// call site and is inlined into its caller's loop, its
        /// constants made once per call of the caller (a target-feature
        /// function cannot be `#[inline(always)]`).
        #[target_feature(enable = $features)]
        #[inline]
        fn part<const SITE: u8>(
            k: &Consts,
            rows: &[Counts],
            melds: V,
            at: usize,
            p: &mut PerHand,
        ) -> Option<usize> {
            assert!(rows.len() == L);
            let base = rows.as_ptr().cast::<u8>();
            // SAFETY: the `L` rows checked above (`34 × L` bytes); the
            // offsets are at most 30 (PIECES).
            let words: [V; 11] = unsafe { piece_words!(base, PIECES) };
            let mut top = splat(0);
            let mut tiles_v = splat(0);
            let mut natural_v = splat(0);
            let mut orphans_v = splat(0);
            // One piece: its counts added to the sums (its counted bytes
            // only), its natural word given back (its counted bytes).
            macro_rules! piece {
                ($i:literal) => {{
                    let word = words[$i];
                    top = max_u8(top, word);
                    let nat = and(word, splat(k.keep[$i] as i32));
                    tiles_v = add(
                        tiles_v,
                        if COUNTED[$i] == u32::MAX {
                            word
                        } else {
                            and(word, splat(COUNTED[$i] as i32))
                        },
                    );
                    natural_v = add(natural_v, lookup16(NATURAL_CODE, nat));
                    if ORPHANS[$i] != 0 {
                        let orph = and(nat, splat(ORPHANS[$i] as i32));
                        orphans_v = add(orphans_v, lookup16(ORPHAN_CODE, orph));
                    }
                    nat
                }};
            }
            // Four base-5 digits, the first the highest.
            let key4 = |x: V| madd(maddubs(x, splat(0x0105_0105)), splat(0x0001_0019));
            // A suit's keys from its three natural words (ranks 1-4, the
            // word whose top byte is rank 5, ranks 6-9), clamped into the
            // tables as the scalar look-ups clamp them (an invalid row's
            // keys are clamped like any: its block is an error): the high
            // part's key into HI_SLOT (3125 words), the low part's at its
            // digit sum into LO (its 10,000 16-bit entries read as
            // words: at most 9,998).
            let suit = |a: V, b: V, c: V| -> (V, V) {
                let r5 = srli::<24>(b);
                let hi = add(mullo(key4(a), splat(5)), r5);
                let lo = key4(c);
                let sum = add(byte_sum(a), r5);
                let lo_at = add(mullo(min_u32(sum, splat(15)), splat(625)), lo);
                (min_u32(hi, splat(3124)), min_u32(lo_at, splat(9998)))
            };
            // Each suit's look-ups after the previous suit's slots
            // (`done`: its last), so that they run a suit at a time, but
            // not after its entries: those miss the caches (1.6 MB a
            // variant), and waiting for them would put each miss in line.
            let (hi, lo) = suit(piece!(0), piece!(1), piece!(2));
            let done = suit_entries!(k, hi, lo, &mut p.entries[0][at..at + L]);
            let (hi, lo) = suit(piece!(3), piece!(4), piece!(5));
            let done = suit_entries!(k, after_word(hi, done), lo, &mut p.entries[1][at..at + L]);
            let (hi, lo) = suit(piece!(6), piece!(7), piece!(8));
            let done = suit_entries!(k, after_word(hi, done), lo, &mut p.entries[2][at..at + L]);
            // The honors: 5^6 东 + .. + 125 北, then 25 白 + 5 发 + 中.
            let key3 = |x: V| madd(maddubs(x, splat(0x0001_0105)), splat(0x0001_0005));
            let (h0, h1) = (piece!(9), piece!(10));
            let honor = add(mullo(key4(h0), splat(125)), key3(srli::<8>(h1)));
            // Clamped as `HonorTable::at` clamps: inside the table.
            let honor = min_u32(honor, splat(HONOR_KEYS as i32 - 1));
            honor_entries!(k, after_word(honor, done), &mut p.entries[3][at..at + L]);
            let counts_ok = bytes_at_most_4(top);
            let tiles = byte_sum(tiles_v);
            // Natural tiles and odd kinds, each at most 14 in a valid row
            // (an invalid row's are unused): see NATURAL_CODE.
            let codes = byte_sum(natural_v);
            let natural = and(codes, splat(15));
            let size = add(tiles, mullo(min_u32(melds, splat(5)), splat(3)));
            let valid = mand(
                mand(counts_ok, gt(splat(5), melds)),
                mor(eq(size, splat(13)), eq(size, splat(14))),
            );
            let ok = bits(valid);
            if ok != FULL {
                return Some((!ok & FULL).trailing_zeros() as usize);
            }
            // Seven pairs: each missing pair takes one tile onto a single,
            // else two new tiles.
            let singles = srli::<4>(codes);
            let pairs = srli::<1>(sub(natural, singles));
            let missing = max_i32(sub(splat(7), pairs), splat(0));
            let sp = add(missing, max_i32(sub(missing, singles), splat(0)));
            // Thirteen orphans: 14 less the kinds held, less one for a
            // pair (ORPHAN_CODE).
            let orphans = byte_sum(orphans_v);
            let to = sub(
                sub(splat(14), and(orphans, splat(15))),
                min_i32(srli::<4>(orphans), splat(1)),
            );
            let mut other = splat(255);
            if k.seven_pairs {
                other = min_i32(other, sp);
            }
            if k.thirteen_orphans {
                other = min_i32(other, to);
            }
            let other = select(eq(melds, splat(0)), other, splat(255));
            store_low_bytes(other, &mut p.other[at..at + L]);
            store_low_bytes(sub(tiles, natural), &mut p.wild[at..at + L]);
            None
        }
    };
}

/// Two blocks whose hands have one meld count at once (`blocks2`): the
/// per-hand part by the path's [`L`] lanes, the min-plus products over 32
/// byte lanes (AVX2 instructions, which the AVX-512 path has too).
#[cfg(target_arch = "x86_64")]
macro_rules! blocks2 {
    ($features:literal) => {
        /// 32 byte lanes, one per hand of two blocks.
        type W = __m256i;

        /// The shanten of two blocks (`2 × B` rows, every hand with `melds`
        /// melds) into `out`, as [`block`] gives each block's: the per-hand
        /// part [`L`] hands at a time, then the products of `shanten/batch.rs`
        /// over 32 byte lanes at once. The first row that is not a valid
        /// hand, if any (`out` then unwritten).
        #[target_feature(enable = $features)]
        pub(crate) fn blocks2(
            k: &Consts,
            rows: &[Counts],
            melds: u8,
            out: &mut [i8],
        ) -> Option<usize> {
            assert!(rows.len() == 2 * B && out.len() == 2 * B);
            let new = || PerHand {
                entries: [[0; B]; 4],
                other: [u8::MAX; B],
                wild: [0u8; B],
            };
            let mut p = [new(), new()];
            let m = splat(i32::from(melds));
            for at in (0..2 * B).step_by(L) {
                let (h, j) = (at / B, at % B);
                if let Some(bad) = part::<1>(k, &rows[at..at + L], m, j, &mut p[h]) {
                    return Some(at + bad);
                }
            }
            // The 32 hands' entries of a group as byte planes (bits 0-7,
            // 8-15, 16-17), hands in the packs' order (see `natural`).
            let planes = |g: usize| -> [W; 3] {
                let load = |h: usize, j: usize| {
                    // SAFETY: a 32-byte load of 8 entries inside a row of 16.
                    unsafe { _mm256_loadu_si256(p[h].entries[g][j..j + 8].as_ptr().cast()) }
                };
                let q = [load(0, 0), load(0, 8), load(1, 0), load(1, 8)];
                let narrow = |x: [W; 4]| {
                    _mm256_packus_epi16(
                        _mm256_packus_epi32(x[0], x[1]),
                        _mm256_packus_epi32(x[2], x[3]),
                    )
                };
                let byte = _mm256_set1_epi32(0xff);
                [
                    narrow(q.map(|x| _mm256_and_si256(x, byte))),
                    narrow(q.map(|x| _mm256_and_si256(_mm256_srli_epi32::<8>(x), byte))),
                    narrow(q.map(|x| _mm256_srli_epi32::<16>(x))),
                ]
            };
            // A group's needs, as `needs` makes them: the 2-bit fields of
            // its entries (by 16-bit shifts: bits that cross from the next
            // byte land above bit 1 and are masked off).
            let three = _mm256_set1_epi8(3);
            let needs = |g: usize| -> ([W; 5], [W; 5]) {
                let pl = planes(g);
                let f = |i: usize| -> W {
                    let x = pl[i / 4];
                    let s = match i % 4 {
                        0 => x,
                        1 => _mm256_srli_epi16::<2>(x),
                        2 => _mm256_srli_epi16::<4>(x),
                        _ => _mm256_srli_epi16::<6>(x),
                    };
                    _mm256_and_si256(s, three)
                };
                let mut n0 = [_mm256_setzero_si256(); 5];
                for m in 1..5 {
                    n0[m] = _mm256_add_epi8(n0[m - 1], f(m - 1));
                }
                let mut n1 = [_mm256_setzero_si256(); 5];
                for m in 0..4 {
                    n1[m] = _mm256_add_epi8(n0[m], f(4 + m));
                }
                n1[4] = _mm256_add_epi8(n0[4], pl[2]);
                (n0, n1)
            };
            let (add8, min8) = (
                |a: W, b: W| _mm256_add_epi8(a, b),
                |a: W, b: W| _mm256_min_epu8(a, b),
            );
            // `product`: the min-plus product of two groups. The inner
            // loops run over fixed ranges (the terms chosen by
            // conditions on constants) so that llvm unrolls them in full:
            // with bounds that follow `m` it kept both loops, at about
            // 18 instructions a hand.
            let product = |a: &([W; 5], [W; 5]), b: &([W; 5], [W; 5])| -> ([W; 5], [W; 5]) {
                let mut r = ([_mm256_setzero_si256(); 5], [_mm256_setzero_si256(); 5]);
                for m in 0..5 {
                    let mut r0 = min8(a.0[m], b.0[m]);
                    let mut r1 = min8(b.1[m], a.1[m]);
                    for q in 1..5 {
                        if q < m {
                            r0 = min8(r0, add8(a.0[q], b.0[m - q]));
                        }
                        if q <= m {
                            r1 = min8(r1, add8(a.0[q], b.1[m - q]));
                            r1 = min8(r1, add8(a.1[m - q], b.0[q]));
                        }
                    }
                    r.0[m] = r0;
                    r.1[m] = r1;
                }
                r
            };
            let ab = product(&needs(0), &needs(1));
            let cd = product(&needs(2), &needs(3));
            // `with_one_pair` for the hands' number of sets.
            let sets = 4 - usize::from(melds.min(4));
            let mut best = min8(add8(ab.0[0], cd.1[sets]), add8(ab.1[0], cd.0[sets]));
            for q in 1..=sets {
                best = min8(best, add8(ab.0[q], cd.1[sets - q]));
                best = min8(best, add8(ab.1[q], cd.0[sets - q]));
            }
            // The packs' order ([0-3, 8-11, 16-19, 24-27 | 4-7, ..]) back to
            // the hands'.
            let natural =
                _mm256_permutevar8x32_epi32(best, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
            // SAFETY: 16-byte loads of 16-byte arrays, and a 32-byte store
            // into `out`, which has 32 bytes.
            unsafe {
                let two = |a: &[u8; B], b: &[u8; B]| {
                    _mm256_set_m128i(
                        _mm_loadu_si128(b.as_ptr().cast()),
                        _mm_loadu_si128(a.as_ptr().cast()),
                    )
                };
                let d = min8(natural, two(&p[0].other, &p[1].other));
                let d = _mm256_sub_epi8(
                    _mm256_subs_epu8(d, two(&p[0].wild, &p[1].wild)),
                    _mm256_set1_epi8(1),
                );
                _mm256_storeu_si256(out.as_mut_ptr().cast(), d);
            }
            None
        }
    };
}

/// `min(standard, other) − wild` (saturating at 0), less 1, per hand of a
/// block into `out` (16 bytes): the shanten `finish` gives hand by hand.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn out16(standard: &[u8; B], p: &PerHand, out: &mut [i8]) {
    use std::arch::x86_64::*;
    assert!(out.len() >= B);
    // SAFETY: 16-byte loads of 16-byte arrays, and a 16-byte store into
    // the first 16 of `out`, which has at least 16.
    unsafe {
        let load = |x: &[u8; B]| _mm_loadu_si128(x.as_ptr().cast());
        let d = _mm_min_epu8(load(standard), load(&p.other));
        let d = _mm_sub_epi8(_mm_subs_epu8(d, load(&p.wild)), _mm_set1_epi8(1));
        _mm_storeu_si128(out.as_mut_ptr().cast(), d);
    }
}

/// The same with NEON: a block's hands in one 16-byte vector.
#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
#[inline]
fn out16(standard: &[u8; B], p: &PerHand, out: &mut [i8]) {
    use std::arch::aarch64::*;
    assert!(out.len() >= B);
    // SAFETY: 16-byte loads of 16-byte arrays, and a 16-byte store into
    // the first 16 of `out`, which has at least 16.
    unsafe {
        let load = |x: &[u8; B]| vld1q_u8(x.as_ptr());
        let d = vminq_u8(load(standard), load(&p.other));
        let d = vsubq_u8(vqsubq_u8(d, load(&p.wild)), vdupq_n_u8(1));
        vst1q_u8(out.as_mut_ptr().cast(), d);
    }
}

/// The table look-ups by scalar loads (AVX2, NEON): each lane's slot
/// made and its entry read in integer registers.
mod by_loads {
    /// A suit's entries of the lanes' clamped keys (`hi`, `lo`: see
    /// `suit` in `part`) into `out`; the last lane's slot, for the next
    /// suit's `after_word`. The keys leave the vector packed two to a lane
    /// (`pairs`). Through memory instead (`in_memory`, as the honors' do)
    /// a lane costs two instructions fewer (92 a hand rather than 104),
    /// but the kernel ran at 2.28-2.37× the scalar path rather than
    /// 2.57-2.62× (AMD EPYC, Zen 3): each suit's keys then wait for a
    /// store to be forwarded, on the path from one suit to the next.
    /// Vector inserts from memory (three per lane, as gathers) load the
    /// FP side's two load/store pipes of AMD's Zen cores, which they made
    /// the AVX2 kernel's bottleneck.
    macro_rules! suit_entries {
        ($k:expr, $hi:expr, $lo:expr, $out:expr) => {{
            let (k, hi, lo, out): (&Consts, V, V, &mut [u32]) = ($k, $hi, $lo, $out);
            let keys = pairs(or(slli::<16>(hi), lo));
            let low = LO.as_flattened();
            let mut last = 0;
            for (o, &x) in out[..L].iter_mut().zip(&keys) {
                let (h, l) = (x >> 16, x & 0xffff);
                // SAFETY: `h` ≤ 3124 and `l` ≤ 9998 (the keys were clamped
                // so): entries of HI_SLOT (3125) and LO (10,000). Their sum
                // is below N_KEYS + SUIT_PAD (`table.rs` asserts it), a
                // word inside the padded tables from either variant's
                // start.
                let slot = unsafe {
                    *HI_SLOT.get_unchecked(h as usize) as usize
                        + usize::from(*low.get_unchecked(l as usize))
                };
                *o = unsafe { k.suit.add(4 * slot).cast::<u32>().read_unaligned() };
                last = slot as u32;
            }
            last
        }};
    }

    /// The honor entries of the lanes' clamped keys into `out`: each
    /// lane's key loaded from memory (`in_memory`; nothing waits on
    /// these entries within the block, and by `pairs` the kernel ran a
    /// little slower, 2.51-2.61× the scalar path rather than 2.57-2.68×).
    macro_rules! honor_entries {
        ($k:expr, $honor:expr, $out:expr) => {{
            let (k, honor, out): (&Consts, V, &mut [u32]) = ($k, $honor, $out);
            for (o, &x) in out[..L].iter_mut().zip(&in_memory(honor)) {
                // SAFETY: `x` < HONOR_KEYS (clamped so): inside the table.
                *o = unsafe { k.honors.add(4 * x as usize).cast::<u32>().read_unaligned() };
            }
        }};
    }

    pub(super) use {honor_entries, suit_entries};
}

/// AVX2: 8 hands per 256-bit vector, a block in two parts (two blocks of
/// one meld count at once, [`blocks2`](avx2::blocks2)).
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use super::by_loads::{honor_entries, suit_entries};
    use super::*;
    use crate::simd::ops::avx2::*;
    use std::arch::x86_64::*;

    kernel!("avx2");

    blocks2!("avx2");
}

/// AVX-512 (F, BW, VL): 16 hands per 512-bit vector, a block at once
/// (two blocks of one meld count at once, [`blocks2`](avx512::blocks2)).
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512 {
    use super::*;
    use crate::simd::ops::avx512::*;
    use std::arch::x86_64::*;

    /// A suit's entries of the lanes' clamped keys (`hi`, `lo`: see
    /// `suit` in `part`) into `out`: three gathers.
    macro_rules! suit_entries {
        ($k:expr, $hi:expr, $lo:expr, $out:expr) => {{
            let (k, hi, lo, out): (&Consts, V, V, &mut [u32]) = ($k, $hi, $lo, $out);
            // SAFETY: indices clamped into HI_SLOT (3125 words) and LO
            // (its 10,000 16-bit entries read as words: at most 9,998);
            // the slot is below N_KEYS + SUIT_PAD (`table.rs` asserts
            // it), a word inside the padded tables from either variant's
            // start.
            let e = unsafe {
                let slot = add(
                    gather::<4>(HI_SLOT.as_ptr().cast(), hi),
                    and(gather::<2>(LO.as_ptr().cast(), lo), splat(0xffff)),
                );
                gather::<4>(k.suit, slot)
            };
            out[..L].copy_from_slice(&lanes(e));
            0u32
        }};
    }

    /// The honor entries of the lanes' clamped keys into `out`: one
    /// gather.
    macro_rules! honor_entries {
        ($k:expr, $honor:expr, $out:expr) => {{
            let (k, honor, out): (&Consts, V, &mut [u32]) = ($k, $honor, $out);
            // SAFETY: clamped into the table by the caller.
            out[..L].copy_from_slice(&lanes(unsafe { gather::<4>(k.honors, honor) }));
        }};
    }

    kernel!("avx512f,avx512bw,avx512vl,avx2");
    blocks2!("avx512f,avx512bw,avx512vl,avx2");
}

/// NEON: 4 hands per 128-bit vector, a block in four parts, its min-plus
/// products by `shanten/batch.rs` (16 byte lanes: one block).
#[cfg(target_arch = "aarch64")]
pub(crate) mod neon {
    use super::by_loads::{honor_entries, suit_entries};
    use super::*;
    use crate::simd::ops::neon::*;

    kernel!("neon");
}
