//! NEON (aarch64): 4 hands per 128-bit vector, booleans as lanes of all
//! ones. The names and the results of the x86-64 modules beside it
//! (`simd/ops.rs`), so that the kernels' bodies compile here unchanged:
//! where x86-64 has an instruction NEON lacks, its result is built from
//! NEON's (`maddubs`, `madd`, `bits`), exactly, whatever the lanes hold.
//!
//! NEON has no gathers: a table look-up moves the lanes' indices to
//! integer registers and loads each word there ([`gather`], and the
//! kernels' look-ups written for AVX2 with [`pairs`] and
//! [`bytes_to_lanes`]), as the AVX2 kernels do on AMD's cores.
//!
//! NEON is part of every aarch64 CPU: [`Isa::Neon`](crate::simd::Isa) is
//! always available there. The functions still carry
//! `#[target_feature(enable = "neon")]`, as the x86-64 ones carry theirs.

use std::arch::aarch64::*;

pub(crate) type V = uint32x4_t;
pub(crate) type M = uint32x4_t;
/// Hands per vector.
pub(crate) const L: usize = 4;
pub(crate) const FULL: u32 = 0xf;

/// The lanes as signed 32-bit integers.
#[target_feature(enable = "neon")]
#[inline]
fn s32(a: V) -> int32x4_t {
    vreinterpretq_s32_u32(a)
}

#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn splat(x: i32) -> V {
    vdupq_n_u32(x as u32)
}
/// # Safety
/// Every lane's `base + SCALE × index` must start 4 readable bytes.
///
/// Four scalar loads, the indices moved to integer registers first.
#[target_feature(enable = "neon")]
#[inline]
pub(crate) unsafe fn gather<const SCALE: i32>(base: *const u8, idx: V) -> V {
    let i = pairs(idx);
    // SAFETY: the caller's (each lane's 4 bytes are readable).
    let w: [u32; L] = std::array::from_fn(|k| unsafe {
        base.add(SCALE as usize * i[k] as usize)
            .cast::<u32>()
            .read_unaligned()
    });
    // SAFETY: a 16-byte load of a 16-byte array.
    unsafe { vld1q_u32(w.as_ptr()) }
}
/// `row_words!(base; o0, o1, ...)`: the 4-byte words at the byte offsets
/// `o0, o1, ...` (constants, each at most 27 or 30 itself) of each of the
/// [`L`] 34-byte rows at `base`, one row per lane, as an array of
/// vectors.
///
/// As AVX2's: the rows' first 32 bytes are loaded and transposed (two
/// 4 × 4 word transposes, 16 shuffles), a word across two columns is a
/// shift and a shift-insert, and the word at 30 is loaded lane by lane.
/// A macro, so that it is always inlined.
///
/// # Safety
/// `base` starts `34 × L` readable bytes (an `unsafe` context).
macro_rules! neon_row_words {
    ($base:expr; $($o:expr),+ $(,)?) => {{
        use ::std::arch::aarch64::*;
        let base: *const u8 = $base;
        // Each row's bytes 0-15 and 16-31 (byte loads: the rows are
        // 2-byte aligned).
        let r: [[uint32x4_t; 2]; 4] = ::std::array::from_fn(|h| {
            [0, 16].map(|at| vreinterpretq_u32_u8(vld1q_u8(base.add(34 * h + at))))
        });
        // Four rows' words `4j .. 4j + 4` (lane h: row h's word j).
        let transpose = |x: [uint32x4_t; 4]| -> [uint32x4_t; 4] {
            // [x0.0, x1.0, x0.2, x1.2], [x0.1, x1.1, x0.3, x1.3], and so
            // for rows 2 and 3; then their halves paired.
            let (a0, a1) = (vtrn1q_u32(x[0], x[1]), vtrn2q_u32(x[0], x[1]));
            let (b0, b1) = (vtrn1q_u32(x[2], x[3]), vtrn2q_u32(x[2], x[3]));
            [
                vcombine_u32(vget_low_u32(a0), vget_low_u32(b0)),
                vcombine_u32(vget_low_u32(a1), vget_low_u32(b1)),
                vcombine_u32(vget_high_u32(a0), vget_high_u32(b0)),
                vcombine_u32(vget_high_u32(a1), vget_high_u32(b1)),
            ]
        };
        let lo = transpose(r.map(|x| x[0]));
        let hi = transpose(r.map(|x| x[1]));
        // `col[j]`: bytes `4j .. 4j + 4` of each row.
        let col = [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]];
        [$({
            // A constant, so that the match below is resolved when
            // compiling.
            const O: usize = $o;
            match (O / 4, O % 4) {
                (7, 2) => {
                    let w: [u32; 4] = ::std::array::from_fn(|h| {
                        base.add(34 * h + 30).cast::<u32>().read_unaligned()
                    });
                    vld1q_u32(w.as_ptr())
                }
                (q, 0) => col[q],
                // The high bytes of one column, the low ones of the next
                // inserted above them.
                (q, 1) => vsliq_n_u32::<24>(vshrq_n_u32::<8>(col[q]), col[q + 1]),
                (q, 2) => vsliq_n_u32::<16>(vshrq_n_u32::<16>(col[q]), col[q + 1]),
                (q, _) => vsliq_n_u32::<8>(vshrq_n_u32::<24>(col[q]), col[q + 1]),
            }
        }),+]
    }};
}
pub(crate) use super::piece_words;
pub(crate) use neon_row_words as row_words;
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn melds_of(m: &[u8]) -> V {
    let mut b = [0u8; 8];
    b[..L].copy_from_slice(&m[..L]);
    bytes_to_lanes(u64::from_le_bytes(b))
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn add(a: V, b: V) -> V {
    vaddq_u32(a, b)
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn sub(a: V, b: V) -> V {
    vsubq_u32(a, b)
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn and(a: V, b: V) -> V {
    vandq_u32(a, b)
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn or(a: V, b: V) -> V {
    vorrq_u32(a, b)
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn mullo(a: V, b: V) -> V {
    vmulq_u32(a, b)
}
/// A logical shift right by `N` (0 included: the kernels shift every
/// piece by its table's shift, which may be 0).
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn srli<const N: i32>(a: V) -> V {
    // A shift by a negative count shifts right.
    vshlq_u32(a, vdupq_n_s32(-N))
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn slli<const N: i32>(a: V) -> V {
    vshlq_u32(a, vdupq_n_s32(N))
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn min_i32(a: V, b: V) -> V {
    vreinterpretq_u32_s32(vminq_s32(s32(a), s32(b)))
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn max_i32(a: V, b: V) -> V {
    vreinterpretq_u32_s32(vmaxq_s32(s32(a), s32(b)))
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn min_u32(a: V, b: V) -> V {
    vminq_u32(a, b)
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn max_u8(a: V, b: V) -> V {
    vreinterpretq_u32_u8(vmaxq_u8(vreinterpretq_u8_u32(a), vreinterpretq_u8_u32(b)))
}
/// x86-64's `pmaddubsw`: each unsigned byte of `a` times the signed byte
/// of `b` beside it, the two products of each 16-bit lane added with
/// signed saturation.
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn maddubs(a: V, b: V) -> V {
    let (a, b) = (vreinterpretq_u8_u32(a), vreinterpretq_s8_u32(b));
    // Each product fits 16 bits (255 × -128 to 255 × 127).
    let wide = |a: uint16x8_t, b: int16x8_t| vmulq_s16(vreinterpretq_s16_u16(a), b);
    let lo = wide(vmovl_u8(vget_low_u8(a)), vmovl_s8(vget_low_s8(b)));
    let hi = wide(vmovl_high_u8(a), vmovl_high_s8(b));
    // The even products beside the odd ones.
    vreinterpretq_u32_s16(vqaddq_s16(vuzp1q_s16(lo, hi), vuzp2q_s16(lo, hi)))
}
/// x86-64's `pmaddwd`: the signed 16-bit halves of `a` times those of
/// `b`, the two products of each 32-bit lane added.
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn madd(a: V, b: V) -> V {
    let (a, b) = (vreinterpretq_s16_u32(a), vreinterpretq_s16_u32(b));
    let lo = vmull_s16(vget_low_s16(a), vget_low_s16(b));
    let hi = vmull_high_s16(a, b);
    vreinterpretq_u32_s32(vpaddq_s32(lo, hi))
}
/// The sum of each lane's four bytes (each sum below 256).
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn byte_sum(a: V) -> V {
    vshrq_n_u32::<24>(vmulq_u32(a, vdupq_n_u32(0x0101_0101)))
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn bytes_at_most_4(a: V) -> M {
    // A lane is unchanged by a byte minimum with 4 iff every byte ≤ 4.
    let min = vminq_u8(vreinterpretq_u8_u32(a), vdupq_n_u8(4));
    vceqq_u32(vreinterpretq_u32_u8(min), a)
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn gt(a: V, b: V) -> M {
    vcgtq_s32(s32(a), s32(b))
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn eq(a: V, b: V) -> M {
    vceqq_u32(a, b)
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn mand(a: M, b: M) -> M {
    vandq_u32(a, b)
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn mor(a: M, b: M) -> M {
    vorrq_u32(a, b)
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn mnot(a: M) -> M {
    vmvnq_u32(a)
}
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn mnone() -> M {
    vdupq_n_u32(0)
}
/// Lane `i`'s boolean as bit `i`: each lane masked to its bit, then
/// added across.
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn bits(a: M) -> u32 {
    // SAFETY: a 16-byte load of a 16-byte array.
    let bit = unsafe { vld1q_u32([1u32, 2, 4, 8].as_ptr()) };
    vaddvq_u32(vandq_u32(a, bit))
}
/// Bit `i` of `b` as `out[i]`.
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn store_bools(b: u32, out: &mut [bool]) {
    for (i, o) in out.iter_mut().enumerate().take(L) {
        *o = b >> i & 1 == 1;
    }
}
/// The lanes as an array.
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn lanes(a: V) -> [u32; L] {
    let mut out = [0u32; L];
    // SAFETY: a 16-byte store into a 16-byte array.
    unsafe { vst1q_u32(out.as_mut_ptr(), a) };
    out
}
/// The lanes in integer registers, for look-ups made lane by lane there
/// (AVX2's name, whose lanes leave two by two; here four lane moves).
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn pairs(a: V) -> [u32; L] {
    [
        vgetq_lane_u32::<0>(a),
        vgetq_lane_u32::<1>(a),
        vgetq_lane_u32::<2>(a),
        vgetq_lane_u32::<3>(a),
    ]
}
/// The lanes stored to memory, each to be read by a load of its own
/// (AVX2's `in_memory`: the compiler cannot see through the store).
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn in_memory(a: V) -> [u32; L] {
    let mut out = [0u32; L];
    // SAFETY: a 16-byte store into a 16-byte array; the asm is no
    // instruction (it only names the array's address).
    unsafe {
        vst1q_u32(out.as_mut_ptr(), a);
        std::arch::asm!("/* {p} */", p = in(reg) out.as_mut_ptr(), options(nostack, preserves_flags));
    }
    out
}
/// Byte `i` of `b` as lane `i` (its four low bytes).
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn bytes_to_lanes(b: u64) -> V {
    // SAFETY: an 8-byte load of an 8-byte array.
    let x = unsafe { vld1_u8(b.to_le_bytes().as_ptr()) };
    vmovl_u16(vget_low_u16(vmovl_u8(x)))
}
/// `a`: the AVX2 kernels order their scalar look-ups a suit at a time
/// with it (on AMD's cores, all at once spilled registers); NEON's are
/// left in the compiler's order, unmeasured.
#[inline]
pub(crate) fn after(a: V, _dep: V) -> V {
    a
}
/// `a`, as [`after`].
#[inline]
pub(crate) fn after_word(a: V, _dep: u32) -> V {
    a
}
/// Each lane's low byte (the lane as `u8`, truncated) into `out`.
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn store_low_bytes(a: V, out: &mut [u8]) {
    let narrow = vmovn_u16(vcombine_u16(vmovn_u32(a), vdup_n_u16(0)));
    let mut b = [0u8; 8];
    // SAFETY: an 8-byte store into an 8-byte array.
    unsafe { vst1_u8(b.as_mut_ptr(), narrow) };
    out[..L].copy_from_slice(&b[..L]);
}
/// `a` in the lanes of `m`, `b` elsewhere.
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn select(m: M, a: V, b: V) -> V {
    vbslq_u32(m, a, b)
}
/// Each byte of `idx` (below 16) replaced by that byte of `table`.
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn lookup16(table: [u8; 16], idx: V) -> V {
    // SAFETY: a 16-byte load of a 16-byte array.
    let t = unsafe { vld1q_u8(table.as_ptr()) };
    vreinterpretq_u32_u8(vqtbl1q_u8(t, vreinterpretq_u8_u32(idx)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: [u32; L]) -> V {
        // SAFETY: a 16-byte load of a 16-byte array.
        unsafe { vld1q_u32(x.as_ptr()) }
    }

    /// The operations built for x86-64's instructions equal those
    /// instructions' definitions (saturation and wrapping included), and
    /// the lane moves keep the lanes' order, on arbitrary lanes.
    #[test]
    fn operations_match_their_definitions() {
        let mut next = crate::testing::xorshift(0x4E30_4E00_0000_0001);
        for round in 0..20_000 {
            let (x, y): ([u32; L], [u32; L]) = if round % 4 == 0 {
                // Extremes: saturation of the byte products' sums.
                let e = [0x0000_0000, 0xffff_ffff, 0x7f7f_7f7f, 0x8080_8080];
                (
                    std::array::from_fn(|_| e[(next() % 4) as usize]),
                    std::array::from_fn(|_| e[(next() % 4) as usize]),
                )
            } else {
                (
                    std::array::from_fn(|_| next() as u32),
                    std::array::from_fn(|_| next() as u32),
                )
            };
            // SAFETY: NEON is part of every aarch64 CPU.
            let (ma, md, bs, b4) = unsafe {
                (
                    lanes(maddubs(v(x), v(y))),
                    lanes(madd(v(x), v(y))),
                    lanes(byte_sum(v(x))),
                    bits(bytes_at_most_4(v(x))),
                )
            };
            for j in 0..L {
                let (a, b) = (x[j].to_le_bytes(), y[j].to_le_bytes());
                let half = |h: usize| {
                    let p = |i: usize| i32::from(a[i]) * i32::from(b[i] as i8);
                    (p(2 * h) + p(2 * h + 1)).clamp(-32768, 32767) as i16 as u16
                };
                assert_eq!(ma[j], u32::from(half(0)) | u32::from(half(1)) << 16);
                let (a, b) = (
                    [x[j] as i16, (x[j] >> 16) as i16],
                    [y[j] as i16, (y[j] >> 16) as i16],
                );
                let want = (i32::from(a[0]) * i32::from(b[0]))
                    .wrapping_add(i32::from(a[1]) * i32::from(b[1]));
                assert_eq!(md[j], want as u32);
                // The sum when it is below 256, as x86-64's multiply.
                assert_eq!(bs[j], x[j].wrapping_mul(0x0101_0101) >> 24);
                assert_eq!(b4 >> j & 1 == 1, x[j].to_le_bytes().iter().all(|&c| c <= 4));
            }
            let b = next();
            // SAFETY: as above.
            unsafe {
                assert_eq!(pairs(v(x)), x);
                assert_eq!(in_memory(v(x)), x);
                // x86-64's byte shuffle, for indices below 16.
                let table: [u8; 16] = std::array::from_fn(|i| (y[i / 4] >> (8 * (i % 4))) as u8);
                let idx = x.map(|w| w & 0x0f0f_0f0f);
                assert_eq!(
                    lanes(lookup16(table, v(idx))),
                    idx.map(|w| u32::from_le_bytes(w.to_le_bytes().map(|i| table[i as usize])))
                );
                let mut low = [0u8; L];
                store_low_bytes(v(x), &mut low);
                assert_eq!(low, x.map(|w| w as u8));
                assert_eq!(lanes(srli::<0>(v(x))), x);
                assert_eq!(lanes(srli::<24>(v(x))), x.map(|w| w >> 24));
                assert_eq!(lanes(slli::<16>(v(x))), x.map(|w| w << 16));
                assert_eq!(
                    lanes(bytes_to_lanes(b)),
                    std::array::from_fn(|j| (b >> (8 * j)) as u8 as u32)
                );
                assert_eq!(
                    lanes(melds_of(&b.to_le_bytes()[..L])),
                    lanes(bytes_to_lanes(b))
                );
                assert_eq!(
                    lanes(min_i32(v(x), v(y))),
                    std::array::from_fn(|j| (x[j] as i32).min(y[j] as i32) as u32)
                );
                let m = gt(v(x), v(y));
                assert_eq!(
                    bits(m),
                    (0..L)
                        .map(|j| u32::from(x[j] as i32 > y[j] as i32) << j)
                        .sum::<u32>()
                );
                assert_eq!(
                    lanes(select(m, v(x), v(y))),
                    std::array::from_fn(|j| (x[j] as i32).max(y[j] as i32) as u32)
                );
            }
        }
    }

    /// `row_words!` reads each row's word at every offset it takes.
    #[test]
    fn row_words_are_the_rows_words() {
        let mut next = crate::testing::xorshift(0x4E30_4E00_0000_0002);
        for _ in 0..1000 {
            let rows: [u8; 34 * L] = std::array::from_fn(|_| next() as u8);
            // SAFETY: `rows` holds `34 × L` bytes; NEON is part of every
            // aarch64 CPU.
            let got: [V; 30] = unsafe {
                row_words!(
                    rows.as_ptr();
                    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                    20, 21, 22, 23, 24, 25, 26, 27, 28, 30,
                )
            };
            for (i, &w) in got.iter().enumerate() {
                let o = if i == 29 { 30 } else { i };
                let want: [u32; L] = std::array::from_fn(|h| {
                    u32::from_le_bytes(rows[34 * h + o..34 * h + o + 4].try_into().unwrap())
                });
                // SAFETY: as above.
                assert_eq!(unsafe { lanes(w) }, want, "offset {o}");
            }
        }
    }
}
