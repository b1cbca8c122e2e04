//! The batch path of [`shanten_batch`](super::shanten_batch): rows taken
//! sixteen at a time, with the standard shape's min-plus products computed
//! across hands instead of within one.
//!
//! A single hand's products (man × pin, sou × honors, then the pair of
//! halves) are about 80 byte operations each whose lanes are one hand's
//! `(sets, pair)` slots, and about a third of a hand's cost. Across a block
//! the same products are one fixed sequence of adds and minimums whose 16
//! lanes are 16 hands, shared by all of them: a few operations per hand.
//! What stays per hand is what depends on its counts: the row check, the
//! four table look-ups (kept packed, one `u32` per group), and the
//! seven-pairs and thirteen-orphans closed forms.
//!
//! The result is the single-hand [`Calculator::shanten`]'s, lane for lane
//! (a test compares them on random rows of every shape option, wildcard
//! count and meld count, with blocks cut short).

use super::table::{group_entries_kept, KEEP_ALL};
use super::{seven_pairs_deficiency_of, size_check, thirteen_orphans_deficiency_of, Calculator};
use crate::simd::Isa;
use crate::tile::Counts;

/// Hands per block: one byte lane each in a 128-bit vector.
pub(crate) const B: usize = 16;

/// A group's `need[m][p]` (`m` sets, `p` pairs) for the hands of a block.
struct Needs {
    n0: [V; 5],
    n1: [V; 5],
}

/// The packed table entries of a block's hands, one row per group.
type Entries = [[u32; B]; 4];

impl Calculator {
    /// Shanten of `rows` (with `n_melds` per row, or one value for all) into
    /// `out`; `start` is the index of `rows[0]` in the whole batch. Returns
    /// the index of the first row that is not a valid hand, if any (`out` is
    /// then partly written).
    pub(super) fn batch_rows(
        &self,
        isa: Isa,
        start: usize,
        rows: &[Counts],
        n_melds: &[u8],
        out: &mut [i8],
    ) -> Option<usize> {
        let mut melds = [n_melds[0]; B];
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        let consts = (isa != Isa::Scalar).then(|| crate::simd::shanten::Consts::new(self));
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        let consts: Option<()> = None;
        let mut i = 0;
        while i < rows.len() {
            let first = start + i;
            // The kernels: two blocks at once (32 byte lanes) where their
            // meld counts agree.
            #[cfg(target_arch = "x86_64")]
            if let (Some(c), true) = (&consts, rows.len() - i >= 2 * B) {
                let ms = &n_melds[if n_melds.len() == 1 {
                    0..1
                } else {
                    first..first + 2 * B
                }];
                if ms.iter().all(|&m| m == ms[0]) {
                    use crate::simd::shanten::{avx2, avx512};
                    let (r, o) = (&rows[i..i + 2 * B], &mut out[i..i + 2 * B]);
                    // SAFETY: `isa` came from `simd::isa`, which gives a
                    // path only when the CPU has its instructions (and
                    // `consts` exists only off the scalar path).
                    let bad = unsafe {
                        match isa {
                            Isa::Avx512 => avx512::blocks2(c, r, ms[0], o),
                            _ => avx2::blocks2(c, r, ms[0], o),
                        }
                    };
                    if let Some(j) = bad {
                        return Some(first + j);
                    }
                    i += 2 * B;
                    continue;
                }
            }
            let n = B.min(rows.len() - i);
            let (block, o) = (&rows[i..i + n], &mut out[i..i + n]);
            i += n;
            if n_melds.len() != 1 {
                melds[..block.len()].copy_from_slice(&n_melds[first..first + block.len()]);
            }
            let mut p = PerHand {
                entries: [[0; B]; 4],
                other: [u8::MAX; B],
                wild: [0u8; B],
            };
            if let (Some(c), true) = (&consts, block.len() == B) {
                if let Some(j) = self.block_on(isa, c, block, &melds, &mut p, o) {
                    return Some(first + j);
                }
                continue;
            }
            let bad = if self.wilds.is_empty() {
                self.per_hand::<false>(block, &melds, &mut p)
            } else {
                self.per_hand::<true>(block, &melds, &mut p)
            };
            if let Some(j) = bad {
                return Some(first + j);
            }
            finish(&p, block.len(), &melds, o);
        }
        None
    }

    /// A full block on the kernel of `isa` ([`crate::simd`]), with this
    /// calculator's kernel constants `k`: the shanten into `out`, or the
    /// first row that is not a valid hand.
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    #[inline]
    fn block_on(
        &self,
        isa: Isa,
        k: &crate::simd::shanten::Consts,
        rows: &[Counts],
        melds: &[u8; B],
        p: &mut PerHand,
        out: &mut [i8],
    ) -> Option<usize> {
        match isa {
            // SAFETY: `isa` came from `simd::isa`, which gives a path only
            // when the CPU has its instructions.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe { crate::simd::shanten::avx512::block(k, rows, melds, p, out) },
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { crate::simd::shanten::avx2::block(k, rows, melds, p, out) },
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => unsafe { crate::simd::shanten::neon::block(k, rows, melds, p, out) },
            _ => {
                let bad = self.per_hand::<true>(rows, melds, p);
                if bad.is_none() {
                    finish(p, rows.len(), melds, out);
                }
                bad
            }
        }
    }

    /// Other targets have no kernels.
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    #[inline]
    fn block_on(
        &self,
        _isa: Isa,
        _k: &(),
        rows: &[Counts],
        melds: &[u8; B],
        p: &mut PerHand,
        out: &mut [i8],
    ) -> Option<usize> {
        let bad = self.per_hand::<true>(rows, melds, p);
        if bad.is_none() {
            finish(p, rows.len(), melds, out);
        }
        bad
    }

    /// What depends on each hand of a block of at most [`B`] rows alone:
    /// its table entries, and what the other shapes and the wild tiles
    /// give (the standard shape's part comes after, across the block);
    /// the first row that is not a valid hand, if any. `WILD`: whether
    /// any kind is wild (without, the rows are their own natural counts
    /// and need no copy).
    #[inline(always)]
    fn per_hand<const WILD: bool>(
        &self,
        rows: &[Counts],
        melds: &[u8; B],
        p: &mut PerHand,
    ) -> Option<usize> {
        for (j, c) in rows.iter().enumerate() {
            let m = melds[j] as usize;
            let (ok, total) = size_check(c, m);
            if !ok {
                return Some(j);
            }
            // The natural counts are `c & keep`, applied to the words
            // as they are read rather than written out as a copy.
            if WILD {
                p.wild[j] = self.wild_kinds.iter().map(|&(k, m)| c[k] & m).sum();
            }
            let keep = if WILD { &self.keep } else { &KEEP_ALL };
            let e = group_entries_kept(c, keep, self.capped, self.honors);
            for (g, e) in e.into_iter().enumerate() {
                p.entries[g][j] = e;
            }
            if m == 0 {
                let mut d = u8::MAX;
                if self.rules.seven_pairs {
                    d = d.min(seven_pairs_deficiency_of(c, keep, total - p.wild[j]));
                }
                if self.rules.thirteen_orphans {
                    d = d.min(thirteen_orphans_deficiency_of(c, keep));
                }
                p.other[j] = d;
            }
        }
        None
    }
}

/// What depends on each hand of a block alone (see
/// [`Calculator::per_hand`]): the packed table entries, one row per group;
/// the fewest tiles seven pairs or thirteen orphans miss (`u8::MAX`:
/// neither counts, or the hand has melds); the wild tiles held.
pub(crate) struct PerHand {
    pub(crate) entries: Entries,
    pub(crate) other: [u8; B],
    pub(crate) wild: [u8; B],
}

/// The shanten of the first `n` hands of a block from their
/// [`PerHand`]: the standard shape's min-plus products across the block,
/// then each hand's answer.
#[inline(always)]
pub(crate) fn finish(p: &PerHand, n: usize, melds: &[u8; B], out: &mut [i8]) {
    let standard = standard_rows(p, n, melds);
    for (j, o) in out.iter_mut().enumerate().take(n) {
        let d = standard[4 - melds[j].min(4) as usize][j].min(p.other[j]);
        *o = d.saturating_sub(p.wild[j]) as i8 - 1;
    }
}

/// The fewest tiles the standard shape misses, per number of sets (row
/// `sets`) and hand (column), for the first `n` hands of a block: the
/// min-plus products across the block, for each number of sets the
/// hands ask for (all five only when the meld counts differ within the
/// block; the other rows `u8::MAX`).
#[inline(always)]
pub(crate) fn standard_rows(p: &PerHand, n: usize, melds: &[u8; B]) -> [[u8; B]; 5] {
    let entries = &p.entries;
    let ab = product(&needs(&entries[0]), &needs(&entries[1]));
    let cd = product(&needs(&entries[2]), &needs(&entries[3]));
    let mut standard = [[u8::MAX; B]; 5];
    let mut wanted = 0u8;
    for &m in &melds[..n] {
        wanted |= 1 << (4 - m.min(4));
    }
    for (sets, s) in standard.iter_mut().enumerate() {
        if wanted >> sets & 1 != 0 {
            *s = with_one_pair(&ab, &cd, sets).to_bytes();
        }
    }
    standard
}

/// The needs of a group from its packed entries, lane per hand.
#[inline(always)]
fn needs(e: &[u32; B]) -> Needs {
    let f = V::fields(e);
    let mut n = Needs {
        n0: [V::ZERO; 5],
        n1: [V::ZERO; 5],
    };
    for m in 1..5 {
        n.n0[m] = n.n0[m - 1].add(f[m - 1]);
    }
    for m in 0..5 {
        n.n1[m] = n.n0[m].add(f[4 + m]);
    }
    n
}

/// Min-plus product of two groups for up to 4 sets and at most one pair.
#[inline(always)]
fn product(a: &Needs, b: &Needs) -> Needs {
    // need[0][0] is 0 for every group, so the k = 0 and k = m terms of
    // need[m][0] are b's and a's own.
    let mut r = Needs {
        n0: [V::ZERO; 5],
        n1: [V::ZERO; 5],
    };
    for m in 0..5 {
        let mut r0 = a.n0[m].min(b.n0[m]);
        let mut r1 = b.n1[m].min(a.n1[m]);
        for k in 1..m {
            r0 = r0.min(a.n0[k].add(b.n0[m - k]));
        }
        for k in 1..=m {
            r1 = r1.min(a.n0[k].add(b.n1[m - k]));
            r1 = r1.min(a.n1[m - k].add(b.n0[k]));
        }
        r.n0[m] = r0;
        r.n1[m] = r1;
    }
    r
}

/// Fewest tiles the standard shape misses with `sets` sets and one pair,
/// from the two halves' products.
#[inline(always)]
fn with_one_pair(ab: &Needs, cd: &Needs, sets: usize) -> V {
    let mut best = ab.n0[0].add(cd.n1[sets]).min(ab.n1[0].add(cd.n0[sets]));
    for k in 1..=sets {
        best = best.min(ab.n0[k].add(cd.n1[sets - k]));
        best = best.min(ab.n1[k].add(cd.n0[sets - k]));
    }
    best
}

/// 16 byte lanes, one per hand of a block. Needs are at most 15 per group
/// and 60 in all, so sums never overflow a lane.
#[derive(Clone, Copy)]
struct V(lanes::Raw);

impl V {
    const ZERO: V = V(lanes::ZERO);

    #[inline(always)]
    fn add(self, o: V) -> V {
        V(lanes::add(self.0, o.0))
    }

    #[inline(always)]
    fn min(self, o: V) -> V {
        V(lanes::min(self.0, o.0))
    }

    #[inline(always)]
    fn to_bytes(self) -> [u8; B] {
        lanes::to_bytes(self.0)
    }

    /// The 9 two-bit fields of 16 packed entries (field `f` in bits
    /// `2f..2f + 2`: the rise of `need[·][0]` from `f` to `f + 1` sets for
    /// `f < 4`, `need[m][1] - need[m][0]` for `f = 4 + m`).
    #[inline(always)]
    fn fields(e: &[u32; B]) -> [V; 9] {
        lanes::fields(e).map(V)
    }
}

/// The lane operations with SSE2 intrinsics (part of the x86-64 baseline):
/// the compiler's own vectorization of the plain loops below spills and
/// shuffles far more.
#[cfg(target_arch = "x86_64")]
mod lanes {
    use std::arch::x86_64::*;

    pub(super) type Raw = __m128i;

    // SAFETY (every block below): SSE2 is enabled on every x86-64 target,
    // and the only memory accesses are unaligned 16-byte loads and stores
    // within arrays of 16 bytes or more.

    /// All lanes 0 (`_mm_setzero_si128` is not a `const fn`).
    pub(super) const ZERO: Raw = unsafe { std::mem::transmute::<[u8; 16], Raw>([0; 16]) };

    #[inline(always)]
    pub(super) fn add(a: Raw, b: Raw) -> Raw {
        unsafe { _mm_add_epi8(a, b) }
    }

    #[inline(always)]
    pub(super) fn min(a: Raw, b: Raw) -> Raw {
        unsafe { _mm_min_epu8(a, b) }
    }

    #[cfg(test)]
    pub(super) fn from_bytes(a: [u8; 16]) -> Raw {
        unsafe { _mm_loadu_si128(a.as_ptr().cast()) }
    }

    #[inline(always)]
    pub(super) fn to_bytes(a: Raw) -> [u8; 16] {
        let mut out = [0u8; 16];
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), a) };
        out
    }

    #[inline(always)]
    pub(super) fn fields(e: &[u32; 16]) -> [Raw; 9] {
        unsafe {
            let q: [Raw; 4] = std::array::from_fn(|i| _mm_loadu_si128(e[4 * i..].as_ptr().cast()));
            // 32-bit lanes down to bytes (values fit: at most 255).
            let narrow = |x: [Raw; 4]| {
                _mm_packus_epi16(_mm_packs_epi32(x[0], x[1]), _mm_packs_epi32(x[2], x[3]))
            };
            let byte = _mm_set1_epi32(0xff);
            // Entries hold 18 bits: the third plane needs no mask.
            let planes = [
                narrow(q.map(|x| _mm_and_si128(x, byte))),
                narrow(q.map(|x| _mm_and_si128(_mm_srli_epi32::<8>(x), byte))),
                narrow(q.map(|x| _mm_srli_epi32::<16>(x))),
            ];
            // A byte field by a 16-bit shift: bits that cross from the next
            // byte land above bit 1 and are masked off.
            let three = _mm_set1_epi8(3);
            let field = |p: Raw, k: i32| {
                let s = match k {
                    0 => p,
                    1 => _mm_srli_epi16::<2>(p),
                    2 => _mm_srli_epi16::<4>(p),
                    _ => _mm_srli_epi16::<6>(p),
                };
                _mm_and_si128(s, three)
            };
            std::array::from_fn(|f| {
                if f == 8 {
                    planes[2]
                } else {
                    field(planes[f / 4], (f % 4) as i32)
                }
            })
        }
    }
}

/// The lane operations as plain loops (other architectures, and the check
/// of the SSE2 ones).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
mod portable {
    pub(super) type Raw = [u8; 16];

    pub(super) const ZERO: Raw = [0; 16];

    pub(super) fn add(a: Raw, b: Raw) -> Raw {
        std::array::from_fn(|i| a[i].wrapping_add(b[i]))
    }

    pub(super) fn min(a: Raw, b: Raw) -> Raw {
        std::array::from_fn(|i| a[i].min(b[i]))
    }

    pub(super) fn to_bytes(a: Raw) -> [u8; 16] {
        a
    }

    #[cfg(test)]
    pub(super) fn from_bytes(a: [u8; 16]) -> Raw {
        a
    }

    pub(super) fn fields(e: &[u32; 16]) -> [Raw; 9] {
        std::array::from_fn(|f| std::array::from_fn(|h| ((e[h] >> (2 * f)) & 3) as u8))
    }
}

#[cfg(not(target_arch = "x86_64"))]
use portable as lanes;

#[cfg(test)]
mod tests {
    use super::*;

    /// The SSE2 lane operations equal the plain loops on arbitrary lanes
    /// and on arbitrary 18-bit entries.
    #[test]
    fn lane_operations_match_the_portable_loops() {
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15u64);
        for _ in 0..20_000 {
            let a: [u8; 16] = std::array::from_fn(|_| (next() % 61) as u8);
            let b: [u8; 16] = std::array::from_fn(|_| (next() % 61) as u8);
            let e: [u32; 16] = std::array::from_fn(|_| (next() & 0x3_ffff) as u32);
            let (va, vb) = (lanes::from_bytes(a), lanes::from_bytes(b));
            assert_eq!(lanes::to_bytes(lanes::add(va, vb)), portable::add(a, b));
            assert_eq!(lanes::to_bytes(lanes::min(va, vb)), portable::min(a, b));
            let got = lanes::fields(&e).map(lanes::to_bytes);
            assert_eq!(got, portable::fields(&e), "{e:?}");
        }
    }
}
