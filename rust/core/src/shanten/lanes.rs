//! Byte-lane kernels of the shanten tables: a group's needs as 16 byte
//! lanes ([`Lanes`]), their min-plus product ([`combine`], and the
//! agent's [`combine_padded`]), and the lane masks the greedy agent's
//! incremental evaluator compares one-tile variants with. The shanten
//! calculator (`table.rs`, `mod.rs`) and the agent share them; the only
//! SIMD of either outside the table look-ups is here.

/// A group's needs: `[need[0][0], .., need[4][0], need[0][1], .., need[4][1]]`
/// (the layout other modules read).
pub(crate) type Needs = [u8; 10];

/// A group's needs as 16 byte lanes, laid out for vectorized min-plus
/// products: lanes 0-4 hold `need[0..5][0]`, lanes 8-12 `need[0..5][1]`,
/// the other lanes [`INF`].
pub(crate) type Lanes = [u8; 16];

/// "Impossible" in a [`Needs`] lane; sums saturate, so it stays large.
pub(crate) const INF: u8 = 0x80;

/// Lane of `need[m][1]`.
pub(crate) const P1: usize = 8;

/// [`Lanes`] in the [`Needs`] layout.
#[inline(always)]
pub(crate) fn to_needs(l: &Lanes) -> Needs {
    let mut n = [0u8; 10];
    n[..5].copy_from_slice(&l[..5]);
    n[5..].copy_from_slice(&l[P1..P1 + 5]);
    n
}

/// `SHIFT_MASK[k]`: lanes that a shift by `k` leaves without a value (the
/// first `k` lanes of each half, and the padding).
const SHIFT_MASK: [Lanes; 5] = {
    let mut t = [[0u8; 16]; 5];
    let mut k = 0;
    while k < 5 {
        let mut i = 0;
        while i < 16 {
            let m = i % 8;
            t[k][i] = if m < k || m > 4 { 0xff } else { 0 };
            i += 1;
        }
        k += 1;
    }
    t
};

/// `a` moved up by `k` lanes (zeros shifted in).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn shift_up(a: &Lanes, k: usize) -> Lanes {
    let mut r = [0u8; 16];
    r[k..].copy_from_slice(&a[..16 - k]);
    r
}

/// Min-plus product of two groups' needs, for up to 4 sets and one pair:
/// `r[m][0] = min a[k][0] + b[m-k][0]`, `r[m][1] = min (a[k][0] + b[m-k][1],
/// a[k][1] + b[m-k][0])`, lane-wise over 16 bytes: byte-vector saturating
/// adds, ors and mins. On x86-64 it is written with SSE2 intrinsics (part
/// of the x86-64 baseline), elsewhere as plain loops that compilers
/// vectorize less well; a test checks the two agree.
#[inline(always)]
pub(crate) fn combine(a: &Lanes, b: &Lanes) -> Lanes {
    #[cfg(target_arch = "x86_64")]
    {
        combine_sse2(a, b)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        combine_portable(a, b)
    }
}

/// [`combine`] with SSE2 intrinsics.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn combine_sse2(a: &Lanes, b: &Lanes) -> Lanes {
    use std::arch::x86_64::*;
    let mut out = [0u8; 16];
    // SAFETY: SSE2 is enabled on every x86-64 target (it is part of the
    // architecture's baseline), and the only memory accesses are unaligned
    // 16-byte loads and stores of 16-byte arrays.
    unsafe {
        let load = |v: &Lanes| _mm_loadu_si128(v.as_ptr().cast());
        let bv = load(b);
        // b's pair-free half, moved into the pair half (the low lanes it
        // leaves are masked below).
        let b_up = _mm_slli_si128::<8>(bv);
        let low_half = _mm_set_epi64x(0, -1);
        let mut r = bv;
        macro_rules! step {
            ($k:literal) => {{
                let a0 = _mm_set1_epi8(a[$k] as i8);
                let a1 = _mm_set1_epi8(a[P1 + $k] as i8);
                let mask = load(&SHIFT_MASK[$k]);
                let c0 = _mm_or_si128(_mm_adds_epu8(_mm_slli_si128::<$k>(bv), a0), mask);
                let c1 = _mm_or_si128(
                    _mm_adds_epu8(_mm_slli_si128::<$k>(b_up), a1),
                    _mm_or_si128(mask, low_half),
                );
                r = _mm_min_epu8(r, _mm_min_epu8(c0, c1));
            }};
        }
        step!(0);
        step!(1);
        step!(2);
        step!(3);
        step!(4);
        _mm_storeu_si128(out.as_mut_ptr().cast(), r);
    }
    out
}

/// [`combine`] as plain loops (the non-x86-64 build, and the check of the
/// SSE2 one).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn combine_portable(a: &Lanes, b: &Lanes) -> Lanes {
    // b's pair-free half, moved into the pair half.
    let b_low_up = {
        let mut r = shift_up(b, P1);
        for x in &mut r[..P1] {
            *x = INF;
        }
        r
    };
    let mut r = *b;
    for k in 0..5 {
        let sb = shift_up(b, k);
        let sl = shift_up(&b_low_up, k);
        let (a0, a1) = (a[k], a[P1 + k]);
        let mask = &SHIFT_MASK[k];
        for i in 0..16 {
            let c0 = sb[i].saturating_add(a0) | mask[i];
            let c1 = sl[i].saturating_add(a1) | mask[i] | if i < P1 { 0xff } else { 0 };
            r[i] = r[i].min(c0).min(c1);
        }
    }
    r
}

/// Min-plus product of two groups' needs (at most 4 sets, one pair): the
/// shanten module's byte-vector product ([`crate::shanten::combine`], the
/// portable form and the debug check), in SSSE3 where the release builds
/// have it. Like it, it relies on every `need[0][0]` being 0 and all
/// needs finite (below 0x80); the unused lanes of its inputs must be at
/// least 0x80 (the table's "impossible", kept by products), as they are
/// for every group's needs and product the agent builds.
#[inline(always)]
pub(crate) fn combine_padded(a: &Lanes, b: &Lanes) -> Lanes {
    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
    let r = combine_ssse3(a, b);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "ssse3")))]
    let r = combine(a, b);
    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3", debug_assertions))]
    assert_eq!(r, combine(a, b));
    r
}

/// `BROADCAST[k]`: the byte shuffle filling every lane with lane `k`.
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
pub(crate) static BROADCAST: [Lanes; 13] = {
    let mut t = [[0u8; 16]; 13];
    let mut k = 0;
    while k < 13 {
        t[k] = [k as u8; 16];
        k += 1;
    }
    t
};

/// The unused lanes of a product's needs (5-7, `P1 + 5`-15).
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
pub(crate) const UNUSED_LANES: Lanes = {
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        if i % P1 > 4 {
            t[i] = 0xff;
        }
        i += 1;
    }
    t
};

/// 0xff in lane 4 only.
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
pub(crate) const LANE_4: Lanes = {
    let mut t = [0u8; 16];
    t[4] = 0xff;
    t
};

/// [`combine`] in SSSE3: each of `a`'s needs broadcast by one byte
/// shuffle, `b` moved up by one `palignr` that shifts in "impossible"
/// (0xff) rather than zeros, so no per-step masks: a sum that crosses
/// from `b`'s unused lanes 5-7 into its pair half is at least 0x80, above
/// every real need (lane 4, which crosses at the last step, is masked
/// there), and the unused lanes of the result are `b`'s own, as
/// in the shanten module's form (a test and debug builds compare the
/// two).
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
#[inline(always)]
pub(crate) fn combine_ssse3(a: &Lanes, b: &Lanes) -> Lanes {
    use std::arch::x86_64::*;
    const _: () = assert!(P1 == 8);
    let mut out = [0u8; 16];
    // SAFETY: SSSE3 (and so SSE2) is enabled at compile time (the cfg
    // above); the loads and the store are of 16-byte arrays.
    unsafe {
        let load = |v: &Lanes| _mm_loadu_si128(v.as_ptr().cast());
        let (av, bv) = (load(a), load(b));
        let ones = _mm_set1_epi8(-1);
        // b's pair-free half in the pair half, "impossible" below.
        let b_up = _mm_or_si128(_mm_slli_si128::<8>(bv), _mm_set_epi64x(0, -1));
        let at = |k: usize| _mm_shuffle_epi8(av, load(&BROADCAST[k]));
        // a[0] is 0: the first pair-free term is b itself.
        let mut r = _mm_min_epu8(bv, _mm_adds_epu8(b_up, at(P1)));
        macro_rules! step {
            ($k:literal, $s:literal) => {{
                let c0 = _mm_adds_epu8(_mm_alignr_epi8::<$s>(bv, ones), at($k));
                let c1 = _mm_adds_epu8(_mm_alignr_epi8::<$s>(b_up, ones), at(P1 + $k));
                r = _mm_min_epu8(r, _mm_min_epu8(c0, c1));
            }};
        }
        step!(1, 15);
        step!(2, 14);
        step!(3, 13);
        // Moved up by 4, b's `need[4][0]` (lane 4) reaches lane `P1`: made
        // "impossible" there.
        let bv4 = _mm_or_si128(bv, load(&LANE_4));
        let c0 = _mm_adds_epu8(_mm_alignr_epi8::<12>(bv4, ones), at(4));
        let c1 = _mm_adds_epu8(_mm_alignr_epi8::<12>(b_up, ones), at(P1 + 4));
        r = _mm_min_epu8(r, _mm_min_epu8(c0, c1));
        // The unused lanes as b's.
        let r = _mm_min_epu8(_mm_or_si128(r, load(&UNUSED_LANES)), bv);
        _mm_storeu_si128(out.as_mut_ptr().cast(), r);
    }
    out
}

/// [`to_needs`] back in the vector layout (unused lanes "impossible").
#[inline]
pub(crate) fn lanes_of(n: &[u8; 10]) -> Lanes {
    let mut l = [0x80u8; 16];
    l[..5].copy_from_slice(&n[..5]);
    l[P1..P1 + 5].copy_from_slice(&n[5..]);
    l
}

/// Lane masks of up to 16 one-tile variants of a group, one per variant
/// (entry `i` for the group's kind `i`). Only the entries a caller asked
/// for are meaningful (the others hold 0 or values of earlier counts), so
/// callers mask the results of [`hitting`] with the kinds they asked for.
#[derive(Clone, Copy, Default)]
pub(crate) struct Slots(pub(crate) [u16; 16]);

/// The used lanes of [`Lanes`] (`need[0..5][0]`, `need[0..5][1]`) as a
/// lane mask.
pub(crate) const USED_LANES: u16 = 0x1f | 0x1f << P1;

/// The used lanes where `a < b`: the definition that [`lanes_moved`]
/// computes with one compare for a one-tile change (its debug check and
/// the tests use it; nothing else needs the general form).
pub(crate) fn lanes_below(a: &Lanes, b: &Lanes) -> u16 {
    let mut m = 0u16;
    for i in 0..16 {
        m |= u16::from(a[i] < b[i]) << i;
    }
    m & USED_LANES
}

/// [`lanes_below`] of a one-tile change (`a` the needs after a tile
/// added to `b`, or `b` those after a tile removed from `a`): a one-tile
/// change moves each need one way only, so `a` is at most `b` in every
/// used lane and the lanes below are the lanes that differ, one compare
/// fewer (checked against [`lanes_below`] in debug builds).
#[inline(always)]
pub(crate) fn lanes_moved(a: &Lanes, b: &Lanes) -> u16 {
    #[cfg(target_arch = "x86_64")]
    let m = lanes_moved_sse2(a, b);
    #[cfg(not(target_arch = "x86_64"))]
    let m = lanes_moved_portable(a, b);
    debug_assert_eq!(m, lanes_moved_portable(a, b));
    debug_assert_eq!(m, lanes_below(a, b));
    m
}

/// [`lanes_moved`] as a loop (other targets, and the check of the SSE2
/// form): the used lanes where `a != b`.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn lanes_moved_portable(a: &Lanes, b: &Lanes) -> u16 {
    let mut m = 0u16;
    for i in 0..16 {
        m |= u16::from(a[i] != b[i]) << i;
    }
    m & USED_LANES
}

/// [`lanes_moved`] with SSE2: one byte compare.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn lanes_moved_sse2(a: &Lanes, b: &Lanes) -> u16 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // always available; the only memory accesses are unaligned 16-byte
    // loads of `a` and `b`.
    unsafe {
        let x = _mm_loadu_si128(a.as_ptr().cast());
        let y = _mm_loadu_si128(b.as_ptr().cast());
        !(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) as u16) & USED_LANES
    }
}

/// The used lanes of a group's needs `x` where the sum with the
/// [`partner_lanes`] product `p` (saturating) equals `d`: with `d` the
/// hand's deficiency, the lanes some best allocation uses (a tile lowers
/// the standard shape's deficiency exactly when it lowers one of them;
/// a removal raises it exactly when it raises all of them).
#[inline(always)]
pub(crate) fn tight_lanes(x: &Lanes, p: &Lanes, d: u8) -> u16 {
    #[cfg(target_arch = "x86_64")]
    let m = tight_lanes_sse2(x, p, d);
    #[cfg(not(target_arch = "x86_64"))]
    let m = tight_lanes_portable(x, p, d);
    debug_assert_eq!(m, tight_lanes_portable(x, p, d));
    m
}

/// [`tight_lanes`] as a loop (other targets, and the check of the SSE2
/// form).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn tight_lanes_portable(x: &Lanes, p: &Lanes, d: u8) -> u16 {
    let mut m = 0u16;
    for i in 0..16 {
        m |= u16::from(x[i].saturating_add(p[i]) == d) << i;
    }
    m & USED_LANES
}

/// [`tight_lanes`] with SSE2: one saturating add and compare.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn tight_lanes_sse2(x: &Lanes, p: &Lanes, d: u8) -> u16 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // always available; the only memory accesses are unaligned 16-byte
    // loads of `x` and `p`.
    unsafe {
        let s = _mm_adds_epu8(
            _mm_loadu_si128(x.as_ptr().cast()),
            _mm_loadu_si128(p.as_ptr().cast()),
        );
        _mm_movemask_epi8(_mm_cmpeq_epi8(s, _mm_set1_epi8(d as i8))) as u16 & USED_LANES
    }
}

/// The used lanes where the needs `x` are 0 (which nothing lowers).
#[inline(always)]
pub(crate) fn zero_lanes(x: &Lanes) -> u16 {
    #[cfg(target_arch = "x86_64")]
    let m = zero_lanes_sse2(x);
    #[cfg(not(target_arch = "x86_64"))]
    let m = zero_lanes_portable(x);
    debug_assert_eq!(m, zero_lanes_portable(x));
    m
}

/// [`zero_lanes`] as a loop (other targets, and the check of the SSE2
/// form).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn zero_lanes_portable(x: &Lanes) -> u16 {
    let mut m = 0u16;
    for (i, &v) in x.iter().enumerate() {
        m |= u16::from(v == 0) << i;
    }
    m & USED_LANES
}

/// [`zero_lanes`] with SSE2: one compare with zero.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn zero_lanes_sse2(x: &Lanes) -> u16 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // always available; the only memory access is an unaligned 16-byte
    // load of `x`.
    unsafe {
        let v = _mm_loadu_si128(x.as_ptr().cast());
        _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) as u16 & USED_LANES
    }
}

/// The entries `i` of `m` that share a lane with `t`, as bits.
#[inline(always)]
pub(crate) fn hitting(m: &Slots, t: u16) -> u16 {
    #[cfg(target_arch = "x86_64")]
    let bits = hitting_sse2(m, t);
    #[cfg(not(target_arch = "x86_64"))]
    let bits = hitting_portable(m, t);
    debug_assert_eq!(bits, hitting_portable(m, t));
    bits
}

/// [`hitting`] as a loop (other targets, and the check of the SSE2 form).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn hitting_portable(m: &Slots, t: u16) -> u16 {
    let mut bits = 0u16;
    for (i, &x) in m.0.iter().enumerate() {
        bits |= u16::from(x & t != 0) << i;
    }
    bits
}

/// [`hitting`] with SSE2: eight 16-bit lanes at a time, the zero tests
/// packed to bytes for one byte mask.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn hitting_sse2(m: &Slots, t: u16) -> u16 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // always available; the only memory accesses are two unaligned
    // 16-byte loads within the 32-byte `m`.
    unsafe {
        let lo = _mm_loadu_si128(m.0.as_ptr().cast());
        let hi = _mm_loadu_si128(m.0.as_ptr().add(8).cast());
        let tb = _mm_set1_epi16(t as i16);
        let z = _mm_setzero_si128();
        let a = _mm_cmpeq_epi16(_mm_and_si128(lo, tb), z);
        let b = _mm_cmpeq_epi16(_mm_and_si128(hi, tb), z);
        !(_mm_movemask_epi8(_mm_packs_epi16(a, b)) as u16)
    }
}

/// Debug check of the one-step property the lane masks rely on: `to`, a
/// one-tile change of `from` (`added`: a tile more), moves each used lane
/// by at most one, down when a tile is added, up when one is removed.
#[inline(always)]
pub(crate) fn debug_one_step(from: &Lanes, to: &Lanes, added: bool) {
    #[cfg(debug_assertions)]
    for &lane in &ROW_LANE {
        let (a, b) = (from[lane], to[lane]);
        let ok = if added {
            b <= a && a <= b + 1
        } else {
            a <= b && b <= a + 1
        };
        assert!(ok, "lane {lane}: {a} -> {b} (added: {added})");
    }
    let _ = (from, to, added);
}

/// The used lanes of [`Lanes`] (`need[0..5][0]`, `need[0..5][1]`).
#[cfg(any(test, debug_assertions))]
pub(crate) const ROW_LANE: [usize; 10] = [0, 1, 2, 3, 4, P1, P1 + 1, P1 + 2, P1 + 3, P1 + 4];
