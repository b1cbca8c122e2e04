//! Candidate keys: a discard's lexicographic key packed into one integer
//! ([`cand_key`]), the keep values it ends with ([`Keep`]), and the running
//! minimums of a decision ([`Ranked`]).

use super::*;

/// A discard candidate's sort key: smaller is a better discard. The
/// order of the tuple (wild, shanten, not junk, fewer improving tiles,
/// keep value, tile index), each field in its own bits of one integer (so
/// that the best candidate is a branch-free minimum). The improving tiles
/// start at 0 and are counted in later ([`with_quality`]).
#[inline(always)]
pub(crate) fn cand_key(wild: bool, sh: i8, junk: bool, keep: u32, k: usize) -> u64 {
    // Bit 63 stays free (the pick of a safe tile uses it); the tile index
    // is the low 6 bits.
    debug_assert!(keep < 1 << 15 && k < 64);
    u64::from(wild) << 62
        | ((i16::from(sh) + 128) as u64) << 54
        | u64::from(!junk) << 53
        | u64::from(u32::MAX) << 21
        | u64::from(keep) << 6
        | k as u64
}

/// [`cand_key`] with `quality` improving tiles (the key had none).
#[inline(always)]
pub(crate) fn with_quality(key: u64, quality: u32) -> u64 {
    debug_assert_eq!(key >> 21 & u64::from(u32::MAX), u64::from(u32::MAX));
    key - (u64::from(quality) << 21)
}

/// The shanten field of a [`cand_key`].
#[inline(always)]
pub(crate) fn key_shanten(key: u64) -> i8 {
    ((key >> 54 & 0xff) as i16 - 128) as i8
}

/// How much a hand wants to keep one tile of kind `k` (lower: discard
/// first): neighbours within two ranks and copies, then points in the
/// Koudian families (waits need points) or centrality in Sichuan. The
/// plain form of [`Keep::of`]: its check in debug builds and tests.
#[cfg(any(test, debug_assertions))]
pub(crate) fn keep_value(c: &Counts, k: usize, family: Family) -> u32 {
    let mut conn = 4 * (c[k] as u32 - 1);
    if k < 27 {
        let r = k % 9;
        let base = k - r;
        for (d, w) in [(1usize, 2u32), (2, 1)] {
            if r >= d {
                conn += w * c[base + r - d] as u32;
            }
            if r + d < 9 {
                conn += w * c[base + r + d] as u32;
            }
        }
    }
    let t = Tile::from_index_unchecked(k as u8);
    let tail = match family {
        Family::Sichuan => {
            if k < 27 {
                4 - (t.rank() as i32 - 5).unsigned_abs()
            } else {
                0
            }
        }
        _ => t.points() as u32,
    };
    conn * 16 + tail
}

/// The keys that decide a discard as candidates are counted: the least,
/// the least safe one (bit 63 set for the kinds of `danger`), and, when
/// no candidate is safe (`no_safe`: then the cheapest of the best is
/// shed), the least (points, key) counted. Keys only decrease as they
/// are counted, so these stay minimums.
#[derive(Clone, Copy)]
pub(crate) struct Ranked {
    pub(crate) best: u64,
    pub(crate) best_safe: u64,
    pub(crate) cheapest: Option<(u8, u64)>,
    pub(crate) danger: u64,
    pub(crate) no_safe: bool,
}

impl Ranked {
    /// The (points, key) of `key` (its kind in the low 6 bits).
    #[inline(always)]
    pub(crate) fn priced(key: u64) -> (u8, u64) {
        (Tile::from_index_unchecked((key & 63) as u8).points(), key)
    }

    /// Whether a candidate whose key is at least `bound` may still change
    /// one of the three.
    #[inline(always)]
    pub(crate) fn may_change(&self, bound: u64) -> bool {
        bound < self.best
            || bound | (self.danger >> (bound & 63) & 1) << 63 < self.best_safe
            || self.no_safe && self.cheapest.is_none_or(|c| Ranked::priced(bound) < c)
    }

    /// Takes a counted candidate's key.
    #[inline(always)]
    pub(crate) fn offer(&mut self, key: u64) {
        self.best = self.best.min(key);
        self.best_safe = self
            .best_safe
            .min(key | (self.danger >> (key & 63) & 1) << 63);
        if self.no_safe && self.cheapest.is_none_or(|c| Ranked::priced(key) < c) {
            self.cheapest = Some(Ranked::priced(key));
        }
    }
}

/// The keys ([`cand_key`]) of the candidates in `at_min` (shanten
/// `min_sh`) and `at_safe` (the others at `safe_sh`): the least key and
/// the least safe one (bit 63 set for the kinds of `danger`); the kinds
/// of `void` are junk. The same keys as [`cand_key`] kind by kind
/// (checked in debug builds and by `level_keys_match_the_plain_keys`),
/// with the bits of each level computed once and picked by a look-up,
/// and the low bits (keep value and tile index) read from [`Keep`].
#[inline(always)]
pub(crate) fn level_keys(
    keep: &Keep,
    (at_min, at_safe): (u64, u64),
    (min_sh, safe_sh): (i8, i8),
    (all_wild, void, danger): (bool, u64, u64),
) -> (u64, u64) {
    // The bits a key's shanten and wildness set, per level (a junk key
    // lacks bit 53, which `cand_key` sets for the others); indexed by "at
    // the lowest shanten".
    let high = |sh: i8| cand_key(all_wild, sh, true, 0, 0);
    let h = [high(safe_sh), high(min_sh)];
    let (mut best, mut best_safe) = (u64::MAX, u64::MAX);
    let mut m = at_min | at_safe;
    while m != 0 {
        let k = m.trailing_zeros() as usize;
        m &= m - 1;
        let key = keep.key(h[(at_min >> k & 1) as usize], void, k);
        best = best.min(key);
        best_safe = best_safe.min(key | (danger >> k & 1) << 63);
    }
    (best, best_safe)
}

/// `KEEP_TAIL[sichuan][k]`: the tie-break after connectedness in
/// [`keep_value`] (points, or centrality in Sichuan) shifted above the
/// tile index, with the index: the low bits of a [`cand_key`] but for
/// the connectedness (16-bit lanes for [`Keep::new`]).
pub(crate) const KEEP_TAIL: [[u16; 48]; 2] = {
    let mut t = [[0u16; 48]; 2];
    let mut k = 0;
    while k < KINDS {
        let tile = Tile::from_index_unchecked(k as u8);
        let points = tile.points() as u16;
        let centre = if k < 27 {
            let r = tile.rank() as i32;
            (4 - if r > 5 { r - 5 } else { 5 - r }) as u16
        } else {
            0
        };
        t[0][k] = points << 6 | k as u16;
        t[1][k] = centre << 6 | k as u16;
        k += 1;
    }
    t
};

/// `KEEP_NEAR[d]` (`d` = 0..4 for the offsets −2, −1, +1, +2): 0xff for
/// the kinds whose neighbour at that offset is in the same suit (honors
/// have none), so that shifted count vectors add up only same-suit
/// neighbours.
pub(crate) const KEEP_NEAR: [[u8; 48]; 4] = {
    let mut t = [[0u8; 48]; 4];
    let offsets = [-2i32, -1, 1, 2];
    let mut d = 0;
    while d < 4 {
        let mut k = 0;
        while k < 27 {
            let r = (k % 9) as i32 + offsets[d];
            if r >= 0 && r < 9 {
                t[d][k] = 0xff;
            }
            k += 1;
        }
        d += 1;
    }
    t
};

/// [`keep_value`] of every kind of one hand, computed for all kinds at
/// once (16 at a time with SSE2) and kept as the low 16 bits of a
/// [`cand_key`]: `keep << 6 | k`. (A keep value is at most 36 × 16 + 10,
/// so it fits 10 bits.)
pub(crate) struct Keep {
    /// `keep_value(k) << 6 | k` for the kinds held (meaningless for the
    /// others; 64 entries so that a 6-bit index needs no bounds check).
    pub(crate) low: [u16; 64],
}

impl Keep {
    #[inline(always)]
    pub(crate) fn new(c: &Counts, family: Family) -> Keep {
        let tail = &KEEP_TAIL[usize::from(family == Family::Sichuan)];
        #[cfg(target_arch = "x86_64")]
        let k = Keep::new_sse2(c, tail);
        #[cfg(not(target_arch = "x86_64"))]
        let k = Keep::new_portable(c, tail);
        #[cfg(debug_assertions)]
        {
            let plain = Keep::new_portable(c, tail);
            for k2 in (0..KINDS).filter(|&x| c[x] > 0) {
                assert_eq!(k.low[k2], plain.low[k2]);
                assert_eq!(u32::from(k.low[k2] >> 6), keep_value(c, k2, family));
            }
        }
        k
    }

    /// [`Keep::new`] kind by kind (other targets, and the check of the
    /// SSE2 form).
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    pub(crate) fn new_portable(c: &Counts, tail: &[u16; 48]) -> Keep {
        let mut low = [0u16; 64];
        for (k, l) in low.iter_mut().enumerate().take(KINDS) {
            let at = |d: usize, j: i32| {
                let j = k as i32 + j;
                if KEEP_NEAR[d][k] != 0 {
                    u16::from(c[j as usize])
                } else {
                    0
                }
            };
            let w = at(0, -2) + 2 * at(1, -1) + 4 * u16::from(c[k]) + 2 * at(2, 1) + at(3, 2);
            *l = (w.wrapping_sub(4) << 10).wrapping_add(tail[k]);
        }
        Keep { low }
    }

    /// [`Keep::new`] with SSE2: the counts and their same-suit neighbours
    /// as five shifted, masked byte vectors, weighted and summed (at most
    /// 40 per byte), then widened to 16 bits and put above the tails.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn new_sse2(c: &Counts, tail: &[u16; 48]) -> Keep {
        use std::arch::x86_64::*;
        // Two zeros before the counts and enough after them for the
        // loads at offsets 0..=4 of three 16-byte chunks.
        let mut buf = [0u8; 56];
        buf[2..2 + KINDS].copy_from_slice(c);
        let mut low = [0u16; 64];
        // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics
        // are always available; every load is of 16 bytes at offsets up
        // to 16 × 2 + 4 + 16 = 52 of the 56-byte `buf`, or within the
        // 48-byte mask rows and tails, and the stores are within the
        // 64-entry `low`.
        unsafe {
            let load = |p: *const u8| _mm_loadu_si128(p.cast());
            let four = _mm_set1_epi8(4);
            let zero = _mm_setzero_si128();
            for ch in 0..3 {
                let at = |o: usize| load(buf.as_ptr().add(16 * ch + o));
                let near = |d: usize, o: usize| {
                    _mm_and_si128(at(o), load(KEEP_NEAR[d].as_ptr().add(16 * ch)))
                };
                let outer = _mm_add_epi8(near(0, 0), near(3, 4));
                let inner = _mm_add_epi8(near(1, 1), near(2, 3));
                let own = at(2);
                let own2 = _mm_add_epi8(own, own);
                let w = _mm_add_epi8(
                    outer,
                    _mm_add_epi8(_mm_add_epi8(inner, own2), _mm_add_epi8(inner, own2)),
                );
                let conn = _mm_sub_epi8(w, four);
                for half in 0..2 {
                    let wide = if half == 0 {
                        _mm_unpacklo_epi8(conn, zero)
                    } else {
                        _mm_unpackhi_epi8(conn, zero)
                    };
                    let i = 16 * ch + 8 * half;
                    let t = _mm_loadu_si128(tail.as_ptr().add(i).cast());
                    let v = _mm_add_epi16(_mm_slli_epi16::<10>(wide), t);
                    _mm_storeu_si128(low.as_mut_ptr().add(i).cast(), v);
                }
            }
        }
        Keep { low }
    }

    /// The kind of `m` (kinds held, not empty) with the least keep key
    /// (keep value, then index).
    #[inline(always)]
    pub(crate) fn least(&self, m: u64) -> usize {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
        let k = self.least_sse41(m);
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse4.1")))]
        let k = self.least_portable(m);
        debug_assert_eq!(k, self.least_portable(m));
        k
    }

    /// [`Keep::least`] kind by kind (builds without SSE4.1, and the check
    /// of the vector form).
    #[cfg_attr(
        all(target_arch = "x86_64", target_feature = "sse4.1"),
        allow(dead_code)
    )]
    pub(crate) fn least_portable(&self, m: u64) -> usize {
        (0..KINDS)
            .filter(|&k| m >> k & 1 == 1)
            .map(|k| self.low[k])
            .min()
            .map_or(0, |l| usize::from(l & 63))
    }

    /// [`Keep::least`] eight kinds at a time: the kinds outside `m` made
    /// 0xffff by a mask spread from its bits, an unsigned minimum, and one
    /// horizontal minimum (SSE4.1, part of the x86-64-v2 level the
    /// release builds target); the index is the key's low 6 bits.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    #[inline(always)]
    pub(crate) fn least_sse41(&self, m: u64) -> usize {
        use std::arch::x86_64::*;
        // SAFETY: SSE4.1 (and so SSE2) is enabled at compile time (the
        // cfg above); the loads are of 16-byte chunks of the 128-byte
        // `low`.
        unsafe {
            let bit_of = _mm_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128);
            let mut acc = _mm_set1_epi16(-1);
            for c in 0..5 {
                let v = _mm_loadu_si128(self.low.as_ptr().add(8 * c).cast());
                let bits = _mm_set1_epi16((m >> (8 * c)) as u8 as i16);
                let sel = _mm_cmpeq_epi16(_mm_and_si128(bits, bit_of), bit_of);
                // Not selected: all ones.
                let v = _mm_or_si128(v, _mm_andnot_si128(sel, _mm_set1_epi16(-1)));
                acc = _mm_min_epu16(acc, v);
            }
            (_mm_cvtsi128_si32(_mm_minpos_epu16(acc)) & 63) as usize
        }
    }

    /// [`keep_value`] of kind `k` (held).
    #[inline(always)]
    pub(crate) fn of(&self, k: usize) -> u32 {
        u32::from(self.low[k & 63] >> 6)
    }

    /// The [`cand_key`] of kind `k` (held) from the bits its level sets
    /// for a junk key (`high`) and the junk kinds (`void`).
    #[inline(always)]
    pub(crate) fn key(&self, high: u64, void: u64, k: usize) -> u64 {
        // The non-junk kinds also have bit 53.
        high | (!void >> k & 1) << 53 | u64::from(self.low[k & 63])
    }

    /// [`Keep::of`] checked against [`keep_value`] in debug builds.
    #[inline(always)]
    pub(crate) fn checked(&self, c: &Counts, k: usize, family: Family) -> u32 {
        let v = self.of(k);
        #[cfg(debug_assertions)]
        assert_eq!(v, keep_value(c, k, family));
        let _ = (c, family);
        v
    }
}
