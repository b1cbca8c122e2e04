//! The lane operations the AVX2 and AVX-512 kernels are written with:
//! each module gives the same names (`V` a vector of 32-bit lanes, one
//! hand each, `M` a lane mask, `L` the lanes per vector, and the
//! operations), so that a kernel's body is written once as a macro and
//! compiled in each module with that module's target features.

/// AVX2: 8 hands per 256-bit vector, booleans as lanes of all ones.
pub(crate) mod avx2 {
    use std::arch::x86_64::*;

    pub(crate) type V = __m256i;
    pub(crate) type M = __m256i;
    /// Hands per vector.
    pub(crate) const L: usize = 8;
    pub(crate) const FULL: u32 = 0xff;

    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn splat(x: i32) -> V {
        _mm256_set1_epi32(x)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn row_offsets() -> V {
        _mm256_setr_epi32(0, 34, 68, 102, 136, 170, 204, 238)
    }
    /// # Safety
    /// Every lane's `base + SCALE × index` must start 4 readable bytes.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn gather<const SCALE: i32>(base: *const u8, idx: V) -> V {
        // SAFETY: the caller's.
        unsafe { _mm256_i32gather_epi32::<SCALE>(base.cast(), idx) }
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn melds_of(m: &[u8]) -> V {
        let mut b = [0u8; 8];
        b.copy_from_slice(&m[..L]);
        _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(i64::from_le_bytes(b)))
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn add(a: V, b: V) -> V {
        _mm256_add_epi32(a, b)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn sub(a: V, b: V) -> V {
        _mm256_sub_epi32(a, b)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn and(a: V, b: V) -> V {
        _mm256_and_si256(a, b)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn or(a: V, b: V) -> V {
        _mm256_or_si256(a, b)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn mullo(a: V, b: V) -> V {
        _mm256_mullo_epi32(a, b)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn srli<const N: i32>(a: V) -> V {
        _mm256_srli_epi32::<N>(a)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn min_i32(a: V, b: V) -> V {
        _mm256_min_epi32(a, b)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn min_u32(a: V, b: V) -> V {
        _mm256_min_epu32(a, b)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn max_u8(a: V, b: V) -> V {
        _mm256_max_epu8(a, b)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn maddubs(a: V, b: V) -> V {
        _mm256_maddubs_epi16(a, b)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn madd(a: V, b: V) -> V {
        _mm256_madd_epi16(a, b)
    }
    /// The sum of each lane's four bytes (each sum below 256).
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn byte_sum(a: V) -> V {
        _mm256_srli_epi32::<24>(_mm256_mullo_epi32(a, _mm256_set1_epi32(0x0101_0101)))
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn bytes_at_most_4(a: V) -> M {
        // A lane is unchanged by a byte minimum with 4 iff every byte ≤ 4.
        _mm256_cmpeq_epi32(_mm256_min_epu8(a, _mm256_set1_epi8(4)), a)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn gt(a: V, b: V) -> M {
        _mm256_cmpgt_epi32(a, b)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn eq(a: V, b: V) -> M {
        _mm256_cmpeq_epi32(a, b)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn mand(a: M, b: M) -> M {
        _mm256_and_si256(a, b)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn mor(a: M, b: M) -> M {
        _mm256_or_si256(a, b)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn mnot(a: M) -> M {
        _mm256_xor_si256(a, _mm256_set1_epi32(-1))
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn mnone() -> M {
        _mm256_setzero_si256()
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn bits(a: M) -> u32 {
        _mm256_movemask_ps(_mm256_castsi256_ps(a)) as u32
    }
    /// Bit `i` of `b` as `out[i]`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn store_bools(b: u32, out: &mut [bool]) {
        for (i, o) in out.iter_mut().enumerate().take(L) {
            *o = b >> i & 1 == 1;
        }
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn max_i32(a: V, b: V) -> V {
        _mm256_max_epi32(a, b)
    }
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn slli<const N: i32>(a: V) -> V {
        _mm256_slli_epi32::<N>(a)
    }
    /// The lanes as an array.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn lanes(a: V) -> [u32; L] {
        let mut out = [0u32; L];
        // SAFETY: a 32-byte store into a 32-byte array.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), a) };
        out
    }
    /// `a` in the lanes of `m`, `b` elsewhere.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn select(m: M, a: V, b: V) -> V {
        _mm256_blendv_epi8(b, a, m)
    }
}

/// AVX-512 (F, BW, VL): 16 hands per 512-bit vector, booleans as mask
/// registers.
pub(crate) mod avx512 {
    use std::arch::x86_64::*;

    pub(crate) type V = __m512i;
    pub(crate) type M = __mmask16;
    /// Hands per vector.
    pub(crate) const L: usize = 16;
    pub(crate) const FULL: u32 = 0xffff;

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn splat(x: i32) -> V {
        _mm512_set1_epi32(x)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn row_offsets() -> V {
        _mm512_mullo_epi32(
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            _mm512_set1_epi32(34),
        )
    }
    /// # Safety
    /// Every lane's `base + SCALE × index` must start 4 readable bytes.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) unsafe fn gather<const SCALE: i32>(base: *const u8, idx: V) -> V {
        // SAFETY: the caller's.
        unsafe { _mm512_i32gather_epi32::<SCALE>(idx, base.cast()) }
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn melds_of(m: &[u8]) -> V {
        let mut b = [0u8; 16];
        b.copy_from_slice(&m[..L]);
        let (lo, hi) = b.split_at(8);
        let word = |x: &[u8]| i64::from_le_bytes(x.try_into().unwrap_or([0; 8]));
        _mm512_cvtepu8_epi32(_mm_set_epi64x(word(hi), word(lo)))
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn add(a: V, b: V) -> V {
        _mm512_add_epi32(a, b)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn sub(a: V, b: V) -> V {
        _mm512_sub_epi32(a, b)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn and(a: V, b: V) -> V {
        _mm512_and_si512(a, b)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn or(a: V, b: V) -> V {
        _mm512_or_si512(a, b)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn mullo(a: V, b: V) -> V {
        _mm512_mullo_epi32(a, b)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn srli<const N: u32>(a: V) -> V {
        _mm512_srli_epi32::<N>(a)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn min_i32(a: V, b: V) -> V {
        _mm512_min_epi32(a, b)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn min_u32(a: V, b: V) -> V {
        _mm512_min_epu32(a, b)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn max_u8(a: V, b: V) -> V {
        _mm512_max_epu8(a, b)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn maddubs(a: V, b: V) -> V {
        _mm512_maddubs_epi16(a, b)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn madd(a: V, b: V) -> V {
        _mm512_madd_epi16(a, b)
    }
    /// The sum of each lane's four bytes (each sum below 256).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn byte_sum(a: V) -> V {
        _mm512_srli_epi32::<24>(_mm512_mullo_epi32(a, _mm512_set1_epi32(0x0101_0101)))
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn bytes_at_most_4(a: V) -> M {
        // A lane is unchanged by a byte minimum with 4 iff every byte ≤ 4.
        _mm512_cmpeq_epi32_mask(_mm512_min_epu8(a, _mm512_set1_epi8(4)), a)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn gt(a: V, b: V) -> M {
        _mm512_cmpgt_epi32_mask(a, b)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn eq(a: V, b: V) -> M {
        _mm512_cmpeq_epi32_mask(a, b)
    }
    #[inline]
    pub(crate) fn mand(a: M, b: M) -> M {
        a & b
    }
    #[inline]
    pub(crate) fn mor(a: M, b: M) -> M {
        a | b
    }
    #[inline]
    pub(crate) fn mnot(a: M) -> M {
        !a
    }
    #[inline]
    pub(crate) fn mnone() -> M {
        0
    }
    #[inline]
    pub(crate) fn bits(a: M) -> u32 {
        u32::from(a)
    }
    /// Bit `i` of `b` as `out[i]`: one masked byte store of 1s.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn store_bools(b: u32, out: &mut [bool]) {
        let ones = _mm_maskz_set1_epi8(b as u16, 1);
        assert!(out.len() >= L);
        // SAFETY: 16 bytes of 0 or 1 (the two valid `bool`s) stored into
        // the first 16 of `out`, which has at least 16.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), ones) };
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn max_i32(a: V, b: V) -> V {
        _mm512_max_epi32(a, b)
    }
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn slli<const N: u32>(a: V) -> V {
        _mm512_slli_epi32::<N>(a)
    }
    /// The lanes as an array.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn lanes(a: V) -> [u32; L] {
        let mut out = [0u32; L];
        // SAFETY: a 64-byte store into a 64-byte array.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), a) };
        out
    }
    /// `a` in the lanes of `m`, `b` elsewhere.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn select(m: M, a: V, b: V) -> V {
        _mm512_mask_blend_epi32(m, b, a)
    }
}
