//! The lane operations the AVX2, AVX-512 and NEON kernels are written
//! with: each module gives the same names (`V` a vector of 32-bit lanes,
//! one hand each, `M` a lane mask, `L` the lanes per vector, and the
//! operations), so that a kernel's body is written once as a macro and
//! compiled in each module with that module's target features. The
//! x86-64 modules are below, NEON's (aarch64) in `ops/neon.rs`.

/// `suit_slot!(hi, lo)`: the suit table slot of the lanes' natural keys
/// (`lo`: the four low base-5 digits, `hi`: the five high ones), from
/// two gathers, clamped to `SUIT_LEN - 4` so that the word a gather
/// reads at it lies inside the table. Written with the lane operations
/// in scope where it is used (any module below).
macro_rules! suit_slot {
    ($hi:expr, $lo:expr) => {{
        let (hi, lo): (V, V) = ($hi, $lo);
        // SAFETY: indices masked into the padded tables as the scalar
        // SuitIndex masks them (LOW_RANK has a spare word past its 1024
        // masked entries).
        let slot = unsafe {
            add(
                gather::<4>(
                    crate::shape::tables::HIGH_BASE.as_ptr().cast(),
                    and(hi, splat(4095)),
                ),
                and(
                    gather::<2>(
                        crate::shape::tables::LOW_RANK.as_ptr().cast(),
                        and(lo, splat(1023)),
                    ),
                    splat(0xffff),
                ),
            )
        };
        let len = crate::shape::tables::SUIT_LEN as i32;
        min_u32(and(slot, splat(len - 1)), splat(len - 4))
    }};
}
pub(crate) use suit_slot;

/// `piece_words!(base, PIECES)`: `row_words!` at the eleven offsets of a
/// kernel's `PIECES` table (`[(usize, u32); 11]`, offset and shift), as
/// `[V; 11]`; `row_words!` is the one in scope where it is used (each
/// module below re-exports this macro beside its own).
///
/// # Safety
/// As `row_words!`'s, and every offset at most 30.
macro_rules! piece_words {
    ($base:expr, $pieces:expr) => {
        row_words!(
            $base;
            $pieces[0].0, $pieces[1].0, $pieces[2].0, $pieces[3].0, $pieces[4].0,
            $pieces[5].0, $pieces[6].0, $pieces[7].0, $pieces[8].0, $pieces[9].0,
            $pieces[10].0,
        )
    };
}
pub(crate) use piece_words;

/// NEON (aarch64): 4 hands per 128-bit vector (`ops/neon.rs`).
#[cfg(target_arch = "aarch64")]
pub(crate) mod neon;

/// AVX2: 8 hands per 256-bit vector, booleans as lanes of all ones.
#[cfg(target_arch = "x86_64")]
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
    /// # Safety
    /// Every lane's `base + SCALE × index` must start 4 readable bytes.
    ///
    /// Eight scalar loads rather than `vpgatherdd`: AMD's Zen cores run a
    /// gather as microcode, about 12 cycles for eight lanes (measured on
    /// an AMD EPYC host of this project, AVX2 without AVX-512: ten
    /// independent gathers 33-36 ns, the same lanes by these extracts,
    /// loads and inserts 21-23 ns; the `is_win` kernel 1.64× the scalar
    /// path with them, 1.55× with its rows transposed but its look-ups
    /// still gathers). The AVX-512 kernels (Intel's cores run gathers in
    /// hardware) keep theirs.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn gather<const SCALE: i32>(base: *const u8, idx: V) -> V {
        // The indices two by two from 64-bit lanes, the words put back
        // with inserts: eight words stored to memory and loaded as one
        // vector would wait for the stores (no store forwarding from
        // several stores to one load).
        let (lo, hi) = (
            _mm256_castsi256_si128(idx),
            _mm256_extracti128_si256::<1>(idx),
        );
        let pairs = [
            _mm_cvtsi128_si64(lo) as u64,
            _mm_extract_epi64::<1>(lo) as u64,
            _mm_cvtsi128_si64(hi) as u64,
            _mm_extract_epi64::<1>(hi) as u64,
        ];
        // SAFETY: the caller's (each lane's 4 bytes are readable).
        let w: [i32; L] = std::array::from_fn(|k| unsafe {
            let i = (pairs[k / 2] >> (32 * (k % 2))) as u32 as usize;
            base.add(SCALE as usize * i).cast::<i32>().read_unaligned()
        });
        let half = |w: &[i32]| {
            let x = _mm_insert_epi32::<1>(_mm_cvtsi32_si128(w[0]), w[1]);
            _mm_insert_epi32::<3>(_mm_insert_epi32::<2>(x, w[2]), w[3])
        };
        _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(half(&w[..4])), half(&w[4..]))
    }
    /// `row_words!(base; o0, o1, ...)`: the 4-byte words at the byte
    /// offsets `o0, o1, ...` (constants, each at most 27 or 30 itself) of
    /// each of the [`L`] 34-byte rows at `base`, one row per lane, as an
    /// array of vectors.
    ///
    /// The rows' first 32 bytes are loaded and transposed (eight 4-byte
    /// columns, 24 shuffles), a word across two columns is two shifts and
    /// an or, and the word at 30 is loaded lane by lane: eleven row
    /// gathers cost 38 ns a block of eight hands on an EPYC of this
    /// project's hosts (microcoded gathers), this 12-15 ns. A macro, so
    /// that it is always inlined: as an `#[inline]` function the compiler
    /// called it, its eleven vectors returned through memory.
    ///
    /// # Safety
    /// `base` starts `34 × L` readable bytes (an `unsafe` context).
    macro_rules! avx2_row_words {
        ($base:expr; $($o:expr),+ $(,)?) => {{
            use ::std::arch::x86_64::*;
            let base: *const u8 = $base;
            let r: [__m256i; 8] =
                ::std::array::from_fn(|h| _mm256_loadu_si256(base.add(34 * h).cast()));
            let a = [
                _mm256_unpacklo_epi32(r[0], r[1]),
                _mm256_unpackhi_epi32(r[0], r[1]),
                _mm256_unpacklo_epi32(r[2], r[3]),
                _mm256_unpackhi_epi32(r[2], r[3]),
                _mm256_unpacklo_epi32(r[4], r[5]),
                _mm256_unpackhi_epi32(r[4], r[5]),
                _mm256_unpacklo_epi32(r[6], r[7]),
                _mm256_unpackhi_epi32(r[6], r[7]),
            ];
            let b = [
                _mm256_unpacklo_epi64(a[0], a[2]),
                _mm256_unpackhi_epi64(a[0], a[2]),
                _mm256_unpacklo_epi64(a[1], a[3]),
                _mm256_unpackhi_epi64(a[1], a[3]),
                _mm256_unpacklo_epi64(a[4], a[6]),
                _mm256_unpackhi_epi64(a[4], a[6]),
                _mm256_unpacklo_epi64(a[5], a[7]),
                _mm256_unpackhi_epi64(a[5], a[7]),
            ];
            // `col[j]`: bytes `4j .. 4j + 4` of each row.
            let col = [
                _mm256_permute2x128_si256::<0x20>(b[0], b[4]),
                _mm256_permute2x128_si256::<0x20>(b[1], b[5]),
                _mm256_permute2x128_si256::<0x20>(b[2], b[6]),
                _mm256_permute2x128_si256::<0x20>(b[3], b[7]),
                _mm256_permute2x128_si256::<0x31>(b[0], b[4]),
                _mm256_permute2x128_si256::<0x31>(b[1], b[5]),
                _mm256_permute2x128_si256::<0x31>(b[2], b[6]),
                _mm256_permute2x128_si256::<0x31>(b[3], b[7]),
            ];
            [$({
                // A constant, so that the match below is resolved when
                // compiling (a map over an array of offsets was a loop
                // with a jump table).
                const O: usize = $o;
                match (O / 4, O % 4) {
                    (7, 2) => {
                        let w: [u32; 8] = ::std::array::from_fn(|h| {
                            base.add(34 * h + 30).cast::<u32>().read_unaligned()
                        });
                        _mm256_loadu_si256(w.as_ptr().cast())
                    }
                    (q, 0) => col[q],
                    (q, 1) => _mm256_or_si256(
                        _mm256_srli_epi32::<8>(col[q]),
                        _mm256_slli_epi32::<24>(col[q + 1]),
                    ),
                    (q, 2) => _mm256_or_si256(
                        _mm256_srli_epi32::<16>(col[q]),
                        _mm256_slli_epi32::<16>(col[q + 1]),
                    ),
                    (q, _) => _mm256_or_si256(
                        _mm256_srli_epi32::<24>(col[q]),
                        _mm256_slli_epi32::<8>(col[q + 1]),
                    ),
                }
            }),+]
        }};
    }
    pub(crate) use super::piece_words;
    pub(crate) use avx2_row_words as row_words;
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
        // Bit i to bit 7 of byte i (a multiply spreads the byte, a mask
        // keeps bit i of byte i, adding 0x7f carries it to bit 7), then
        // to bit 0: eight `bool`s in one store, not eight.
        let spread = (u64::from(b as u8).wrapping_mul(0x0101_0101_0101_0101)
            & 0x8040_2010_0804_0201)
            + 0x7f7f_7f7f_7f7f_7f7f;
        let bytes = (spread >> 7 & 0x0101_0101_0101_0101).to_le_bytes();
        let out: &mut [bool; L] = (&mut out[..L]).try_into().expect("L bools");
        // Each byte 0 or 1: the two valid `bool`s.
        *out = bytes.map(|x| x == 1);
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
    /// The lanes in integer registers, two by two from 64-bit extracts,
    /// for look-ups made lane by lane in integer registers. The moves are
    /// inline assembly, here and in [`bytes_to_lanes`], so that the
    /// compiler does not turn such look-ups back into one extract and
    /// one vector insert from memory per lane: AMD's Zen cores run those
    /// on the FP side's two load/store pipes (three cycles of them per
    /// insert), the AVX2 kernels' bottleneck with them.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn pairs(a: V) -> [u32; L] {
        let halves = [_mm256_castsi256_si128(a), _mm256_extracti128_si256::<1>(a)];
        let mut q = [0u64; 4];
        for (h, x) in halves.into_iter().enumerate() {
            let (lo, hi): (u64, u64);
            // SAFETY: two register moves (AVX, which this function's
            // target features include); no memory, stack or flags.
            unsafe {
                std::arch::asm!(
                    "vmovq {lo}, {x}",
                    "vpextrq {hi}, {x}, 1",
                    x = in(xmm_reg) x,
                    lo = out(reg) lo,
                    hi = out(reg) hi,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
            q[2 * h] = lo;
            q[2 * h + 1] = hi;
        }
        std::array::from_fn(|k| (q[k / 2] >> (32 * (k % 2))) as u32)
    }
    /// The lanes stored to memory, where each is read by a load of its
    /// own: the compiler cannot see through the store (an empty `asm!`
    /// may read and write the array), so it cannot turn the loads back
    /// into extracts. A lane then costs one load (folded into its
    /// address arithmetic when it is a table index) where [`pairs`]
    /// costs about one and a half moves and shifts.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn in_memory(a: V) -> [u32; L] {
        let mut out = [0u32; L];
        // SAFETY: a 32-byte store into a 32-byte array; the asm is no
        // instruction (it only names the array's address).
        unsafe {
            _mm256_storeu_si256(out.as_mut_ptr().cast(), a);
            std::arch::asm!("/* {p} */", p = in(reg) out.as_mut_ptr(), options(nostack, preserves_flags));
        }
        out
    }
    /// Byte `i` of `b` as lane `i`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn bytes_to_lanes(b: u64) -> V {
        let x: __m128i;
        // SAFETY: one register move (AVX, which this function's target
        // features include); no memory, stack or flags.
        unsafe {
            std::arch::asm!(
                "vmovq {x}, {b}",
                b = in(reg) b,
                x = out(xmm_reg) x,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        _mm256_cvtepu8_epi32(x)
    }
    /// `a`, once `dep` is computed: a register the compiler cannot see
    /// through, so that work on `a` is not scheduled before `dep`'s (the
    /// scalar look-ups of the AVX2 kernels run a suit at a time instead
    /// of all at once, with their registers spilled).
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn after(a: V, dep: V) -> V {
        let mut a = a;
        // SAFETY: no instruction; no memory, stack or flags.
        unsafe {
            std::arch::asm!(
                "/* {a} after {dep} */",
                a = inout(ymm_reg) a,
                dep = in(ymm_reg) dep,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        a
    }
    /// `a`, once the scalar `dep` is computed: [`after`] for a
    /// dependence on a word read in an integer register.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn after_word(a: V, dep: u32) -> V {
        let mut a = a;
        // SAFETY: no instruction; no memory, stack or flags.
        unsafe {
            std::arch::asm!(
                "/* {a} after {dep:e} */",
                a = inout(ymm_reg) a,
                dep = in(reg) dep,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        a
    }
    /// Each lane's low byte (the lane as `u8`, truncated) into `out`, in
    /// one store.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn store_low_bytes(a: V, out: &mut [u8]) {
        let out: &mut [u8; L] = (&mut out[..L]).try_into().expect("L bytes");
        // Bytes 0, 4, 8, 12 of each 128-bit half to its first four.
        let pick = _mm256_setr_epi8(
            0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, //
            0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        );
        let x = _mm256_shuffle_epi8(a, pick);
        let x = _mm_unpacklo_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256::<1>(x));
        *out = (_mm_cvtsi128_si64(x) as u64).to_le_bytes();
    }
    /// `a` in the lanes of `m`, `b` elsewhere.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn select(m: M, a: V, b: V) -> V {
        _mm256_blendv_epi8(b, a, m)
    }
    /// Each byte of `idx` (below 16) replaced by that byte of `table`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn lookup16(table: [u8; 16], idx: V) -> V {
        // SAFETY: a 16-byte load of a 16-byte array.
        let t = unsafe { _mm_loadu_si128(table.as_ptr().cast()) };
        _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(t), idx)
    }
}

/// AVX-512 (F, BW, VL): 16 hands per 512-bit vector, booleans as mask
/// registers.
#[cfg(target_arch = "x86_64")]
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
    /// `row_words!(base; o0, o1, ...)`: the 4-byte words at the byte
    /// offsets `o0, o1, ...` (each at most 30) of each of the [`L`]
    /// 34-byte rows at `base`, one row per lane: a gather each (Intel's
    /// AVX-512 cores run gathers in hardware).
    ///
    /// # Safety
    /// `base` starts `34 × L` readable bytes (an `unsafe` context).
    macro_rules! avx512_row_words {
        ($base:expr; $($o:expr),+ $(,)?) => {{
            let base: *const u8 = $base;
            let row_at = row_offsets();
            [$(gather::<1>(base.add($o), row_at)),+]
        }};
    }
    pub(crate) use super::piece_words;
    pub(crate) use avx512_row_words as row_words;
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
    /// `a` (the AVX-512 kernels gather their entries: no order to keep).
    #[inline]
    pub(crate) fn after(a: V, _dep: V) -> V {
        a
    }
    /// `a`, as [`after`].
    #[inline]
    pub(crate) fn after_word(a: V, _dep: u32) -> V {
        a
    }
    /// Each lane's low byte (the lane as `u8`, truncated) into `out`, in
    /// one store.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn store_low_bytes(a: V, out: &mut [u8]) {
        assert!(out.len() >= L);
        // SAFETY: a 16-byte store into the first 16 of `out`, which has
        // at least 16.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), _mm512_cvtepi32_epi8(a)) };
    }
    /// `a` in the lanes of `m`, `b` elsewhere.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn select(m: M, a: V, b: V) -> V {
        _mm512_mask_blend_epi32(m, b, a)
    }
    /// Each byte of `idx` (below 16) replaced by that byte of `table`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    #[inline]
    pub(crate) fn lookup16(table: [u8; 16], idx: V) -> V {
        // SAFETY: a 16-byte load of a 16-byte array.
        let t = unsafe { _mm_loadu_si128(table.as_ptr().cast()) };
        _mm512_shuffle_epi8(_mm512_broadcast_i32x4(t), idx)
    }
}
