//! Tallies of a hand's counts as masks and bit planes: the kinds held
//! n times, seven-pairs and thirteen-orphans tallies, copies of a set of
//! kinds.

use super::*;

/// Fewest tiles seven pairs misses from its tallies.
#[inline(always)]
pub(crate) fn seven_pairs_missing(pairs: u8, singles: u8) -> u8 {
    if pairs >= 7 {
        0
    } else {
        let missing = 7 - pairs;
        missing + missing.saturating_sub(singles)
    }
}

/// For thirteen orphans, what removing one tile of a kind held `n` times
/// does depends on this class: 1 for an orphan held once (a kind lost), 2
/// for an orphan held twice (the pair lost), 0 otherwise (a surplus tile).
#[inline(always)]
pub(crate) fn orphan_class(orphan: bool, n: u8) -> usize {
    usize::from(orphan) * (usize::from(n == 1) + 2 * usize::from(n == 2))
}

/// The shanten group of kind `k`: 0-2 the suits, 3 the honors.
#[inline(always)]
pub(crate) fn group_of(k: usize) -> usize {
    // The honors (27..34) all give 3.
    k / 9
}

/// The 13 thirteen-orphans kinds as a mask.
pub(crate) const ORPHANS: u64 = KindSet::ORPHANS.0;

/// The kinds of each shanten group as masks.
pub(crate) const GROUP_KINDS: [u64; 4] = [0x1ff, 0x1ff << 9, 0x1ff << 18, 0x7f << 27];

pub(crate) const LOW: u64 = 0x0101_0101_0101_0101;

/// Sum of the bytes of `x` (the sum must fit a byte).
#[cfg(any(test, debug_assertions))]
#[inline(always)]
pub(crate) fn byte_sum(x: u64) -> u8 {
    (x.wrapping_mul(LOW) >> 56) as u8
}

/// `ORPHAN_BYTES[w]`: 0x01 in the bytes of word `w` (kinds `8w..8w + 8`)
/// that are thirteen-orphans kinds.
#[cfg(any(test, debug_assertions))]
pub(crate) const ORPHAN_BYTES: [u64; 5] = {
    let mut t = [0u64; 5];
    let mut k = 0;
    while k < KINDS {
        if ORPHANS >> k & 1 == 1 {
            t[k / 8] |= 1 << (8 * (k % 8));
        }
        k += 1;
    }
    t
};

/// Seven-pairs and orphans tallies of natural counts (each at most 4),
/// eight counts at a time: pairs (a 4-of-a-kind is two), single copies,
/// orphan kinds held, orphan kinds held twice or more. The plain form of
/// [`Planes::tallies`], its check in debug builds.
#[cfg(any(test, debug_assertions))]
pub(crate) fn tallies(c: &Counts) -> (u8, u8, u8, u8) {
    let (mut pairs, mut singles, mut ok, mut op) = (0u8, 0u8, 0u8, 0u8);
    for (w, m) in ORPHAN_BYTES.iter().enumerate() {
        let mut b = [0u8; 8];
        let chunk = &c[8 * w..(8 * w + 8).min(KINDS)];
        b[..chunk.len()].copy_from_slice(chunk);
        let x = u64::from_le_bytes(b);
        pairs += byte_sum((x >> 1) & (0x7f * LOW));
        singles += byte_sum(x & LOW);
        // Counts have 3 bits: bit 0 of (x | x>>1 | x>>2) is "held", of
        // (x>>1 | x>>2) "held twice".
        ok += byte_sum((x | x >> 1 | x >> 2) & m);
        op += byte_sum((x >> 1 | x >> 2) & m);
    }
    (pairs, singles, ok, op)
}

/// The kinds held exactly `n` times, as bit masks (`by_count[n]`).
#[derive(Clone, Copy)]
pub(crate) struct CountMasks {
    pub(crate) by_count: [u64; 5],
}

impl CountMasks {
    pub(crate) fn new(c: &Counts) -> CountMasks {
        // From the counts' bit planes (counts are at most 4).
        let [p0, p1, p2] = Planes::new(c).0;
        let all = (1u64 << KINDS) - 1;
        let by_count = [
            all & !(p0 | p1 | p2),
            p0 & !p1 & !p2,
            p1 & !p0 & !p2,
            p0 & p1,
            p2,
        ];
        debug_assert!((0..KINDS).all(|k| by_count[c[k] as usize] >> k & 1 == 1));
        CountMasks { by_count }
    }

    /// The masks after removing one copy of kind `k` (held `n > 0` times).
    #[inline(always)]
    pub(crate) fn without(&self, k: usize, n: u8) -> CountMasks {
        let mut m = *self;
        m.by_count[n as usize] &= !bit(k);
        m.by_count[n as usize - 1] |= bit(k);
        m
    }
}

/// Unseen counts (each at most 4) as three bit planes, so that the copies
/// of a set of kinds add up with three population counts.
#[derive(Clone, Copy)]
pub(crate) struct Planes(pub(crate) [u64; 3]);

impl Planes {
    #[inline]
    pub(crate) fn new(u: &Counts) -> Planes {
        #[cfg(target_arch = "x86_64")]
        let p = Planes::new_sse2(u);
        #[cfg(not(target_arch = "x86_64"))]
        let p = Planes::new_portable(u);
        debug_assert_eq!(p.0, Planes::new_portable(u).0);
        p
    }

    /// [`Planes::new`] with SSE2: bit `b` of every count moved to the top
    /// of its byte (a 16-bit shift keeps each byte's own bit there), then
    /// one byte mask per 16 counts.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn new_sse2(u: &Counts) -> Planes {
        use std::arch::x86_64::*;
        let mut padded = [0u8; 48];
        padded[..KINDS].copy_from_slice(u);
        let mut p = [0u64; 3];
        // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics
        // are always available; the only memory accesses are unaligned
        // 16-byte loads within the 48-byte `padded`.
        unsafe {
            for (w, chunk) in padded.chunks_exact(16).enumerate() {
                let x = _mm_loadu_si128(chunk.as_ptr().cast());
                let m = [
                    _mm_movemask_epi8(_mm_slli_epi16::<7>(x)),
                    _mm_movemask_epi8(_mm_slli_epi16::<6>(x)),
                    _mm_movemask_epi8(_mm_slli_epi16::<5>(x)),
                ];
                for (plane, m) in p.iter_mut().zip(m) {
                    *plane |= u64::from(m as u16) << (16 * w);
                }
            }
        }
        Planes(p)
    }

    /// [`Planes::new`] as word arithmetic (other targets, and the check of
    /// the SSE2 form).
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    #[inline(always)]
    pub(crate) fn new_portable(u: &Counts) -> Planes {
        let mut p = [0u64; 3];
        // Eight counts at a time: bit `b` of each byte gathered into one
        // byte (the multiply moves byte `j`'s bit to bit `56 + j`).
        for w in 0..5 {
            let mut bytes = [0u8; 8];
            let chunk = &u[8 * w..(8 * w + 8).min(KINDS)];
            bytes[..chunk.len()].copy_from_slice(chunk);
            let x = u64::from_le_bytes(bytes);
            for (b, plane) in p.iter_mut().enumerate() {
                let bits = (x >> b & LOW).wrapping_mul(0x0102_0408_1020_4080) >> 56;
                *plane |= bits << (8 * w);
            }
        }
        debug_assert!(
            (0..KINDS).all(|k| { (0..3).all(|b| (p[b] >> k & 1) as u8 == u[k] >> b & 1) })
        );
        Planes(p)
    }

    /// The kinds with a nonzero count.
    #[inline(always)]
    pub(crate) fn held(&self) -> u64 {
        self.0[0] | self.0[1] | self.0[2]
    }

    /// [`tallies`] of counts of at most 4 from their planes: a count holds
    /// a single when odd, one pair when 2 or 3 (bit 1), two when 4 (bit
    /// 2).
    #[inline(always)]
    pub(crate) fn tallies(&self) -> (u8, u8, u8, u8) {
        let [p0, p1, p2] = self.0;
        let pairs = p1.count_ones() + 2 * p2.count_ones();
        let twice = (p1 | p2) & ORPHANS;
        (
            pairs as u8,
            p0.count_ones() as u8,
            (self.held() & ORPHANS).count_ones() as u8,
            twice.count_ones() as u8,
        )
    }

    /// The unseen copies of the kinds in `m`.
    #[inline(always)]
    pub(crate) fn copies(&self, m: u64) -> u32 {
        let [a, b, c] = self.0;
        (m & a).count_ones() + 2 * (m & b).count_ones() + 4 * (m & c).count_ones()
    }
}

/// Kinds that may lower the shanten of a hand holding `natural` (see
/// [`Ctx::near`]), kind by kind: its check in debug builds and the plain
/// ranking's.
#[cfg(any(test, debug_assertions))]
pub(crate) fn near_plain(natural: &Counts, orphans: bool, wind_sets: bool) -> u64 {
    let mut near = 0u64;
    for (k, &n) in natural.iter().enumerate() {
        if n == 0 {
            continue;
        }
        if k < 27 {
            let r = k % 9;
            let lo = k - r.min(2);
            let hi = (k - r + 8).min(k + 2);
            for j in lo..=hi {
                near |= bit(j);
            }
        } else if wind_sets {
            near |= if k < 31 { 0xf << 27 } else { 0x7 << 31 };
        } else {
            near |= bit(k);
        }
    }
    if orphans {
        near |= ORPHANS;
    }
    near
}
