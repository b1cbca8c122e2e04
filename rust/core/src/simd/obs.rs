//! The vectorized environment's row writer on each instruction set: a
//! table's observation row ([`crate::game::encode`]) and its
//! legal-action mask row.
//!
//! * **Scalar**: the encoder as it is (`encode::write`), and the mask a
//!   byte of action bits at a time through a table of 8 bools per byte.
//! * **AVX2** (AVX-512 takes the same code: a row is 34 values a plane
//!   and 141 actions, too short for 64-byte vectors to pay): the same
//!   encoder compiled a second time with AVX2 enabled
//!   (`#[target_feature]` around the encoder's `#[inline(always)]`
//!   body: one source, so each plane keeps its one owner), whose plane
//!   fills and whole-plane stores become 32-byte stores and broadcasts;
//!   and the mask 32 actions a vector (four bytes of action bits
//!   broadcast, each byte shuffled to the 8 lanes of its actions, each
//!   lane's bit tested) instead of 8 a table look-up.
//!
//! Instructions a row (`valgrind --tool=callgrind` on
//! `examples/vec_env_steps.rs 256 100 1 V DTYPE` with `KOUDIAN_SIMD=scalar`
//! and `=avx2`, `--toggle-collect` on `Table::write`, over its 25,856
//! rows): the encoder's own function, `u8` version 2 825 → 818, `f32`
//! version 1 842 → 661, `f32` version 2 1,277 → 1,050 (and the same
//! `memset` calls both ways); the mask 79 → 57; a table's whole write (the
//! pond catch-up and the view's look-ups included) `u8` version 2 1,509 →
//! 1,468 (−3%), `f32` version 1 1,519 → 1,338 (−12%), version 3 −0.3% (the
//! look-ahead planes, computed by scalar code, are 90% of it). The scalar
//! path's count is the one before this module (1,512 for `u8` version 2).
//! But the writer is bound by its stores (an `f32` row of version 2 is
//! 8,976 bytes; 256 tables' rows overflow the L2 cache) and is a third of a
//! `u8` step, so whole steps run within a few percent of the scalar path's
//! (`koudian bench --env`'s writer lines). Tried and dropped (an AMD EPYC
//! host, one thread, 256 tables, `examples/vec_env_steps.rs ... compare`):
//! `f32` rows of versions 2 and 3 written as `u8` into a row on the stack
//! and widened 8 values a vector (`vpmovzxbd`, `vcvtdq2ps`) into the
//! caller's row, 0.88x the scalar path's steps for version 2 (the stack
//! row's clearing and stores cost more than the cleared planes they spare);
//! the same with non-temporal stores, slower still (the rows no longer stay
//! in the L3 cache).
//!
//! Every path writes the scalar path's bytes (tested for every encoding,
//! both value types and several rule sets: `vec_env/tests.rs`).

use super::Isa;
use crate::game::encode::{self, Cell, Encoding, View};
use crate::game::N_ACTIONS;

/// Writes `o` in `enc` into `obs` (exactly `enc.len()` values) on `isa`,
/// as [`encode::write`] does.
#[inline]
pub(crate) fn write<T: Cell>(isa: Isa, o: &impl View, enc: Encoding, obs: &mut [T]) {
    match isa {
        // SAFETY: `isa` came from `simd::isa`, which gives a path only
        // when the CPU has its instructions.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 | Isa::Avx512 => unsafe { avx2::write(o, enc, obs) },
        _ => encode::write(o, enc, obs),
    }
}

/// Expands the legal-action bits `bits` (action `a` is bit `a % 64` of
/// word `a / 64`) into `out` on `isa`.
#[inline(always)]
pub(crate) fn mask(isa: Isa, bits: [u64; 3], out: &mut [bool; N_ACTIONS]) {
    match isa {
        // SAFETY: as in `write`.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 | Isa::Avx512 => unsafe { avx2::mask(bits, out) },
        _ => mask_scalar(bits, out),
    }
}

/// [`mask`] on the scalar path: eight entries a table look-up, not one
/// bit test each.
#[inline(always)]
fn mask_scalar(bits: [u64; 3], out: &mut [bool; N_ACTIONS]) {
    let mut bytes = [0u8; 24];
    for (b, w) in bytes.chunks_exact_mut(8).zip(bits) {
        b.copy_from_slice(&w.to_le_bytes());
    }
    // Fixed-size copies (inline stores, not a `memcpy` call each).
    let (chunks, tail) = out.as_chunks_mut::<8>();
    for (m, &b) in chunks.iter_mut().zip(&bytes) {
        *m = BYTE_BITS[b as usize];
    }
    let last = BYTE_BITS[bytes[N_ACTIONS / 8] as usize];
    tail.copy_from_slice(&last[..N_ACTIONS % 8]);
}

/// `BYTE_BITS[b][j]`: bit `j` of byte `b`.
static BYTE_BITS: [[bool; 8]; 256] = {
    let mut t = [[false; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            t[b][j] = b >> j & 1 == 1;
            j += 1;
        }
        b += 1;
    }
    t
};

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Cell, Encoding, View, N_ACTIONS};
    use crate::game::encode;
    use std::arch::x86_64::*;

    /// [`super::write`] with AVX2: the encoder's one source, compiled
    /// again (`encode::write` and its planes are always inlined).
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn write<T: Cell>(o: &impl View, enc: Encoding, obs: &mut [T]) {
        encode::write(o, enc, obs);
    }

    /// [`super::mask`] with AVX2: 32 actions a vector.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn mask(bits: [u64; 3], out: &mut [bool; N_ACTIONS]) {
        // Lane `i` of a vector takes byte `i / 8` of the broadcast 4
        // bytes (a shuffle stays within its 128-bit half: the upper half
        // takes bytes 2 and 3) and tests bit `i % 8` of it.
        let pick = _mm256_setr_epi8(
            0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, //
            2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
        );
        let bit = _mm256_set1_epi64x(0x8040_2010_0804_0201u64 as i64);
        let one = _mm256_set1_epi8(1);
        let lanes = |w: u32| {
            let b = _mm256_shuffle_epi8(_mm256_set1_epi32(w as i32), pick);
            // 0xff where the bit is set, then 1.
            _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(b, bit), bit), one)
        };
        let word = |k: usize| (bits[k / 2] >> (32 * (k % 2))) as u32;
        let p = out.as_mut_ptr().cast::<__m256i>();
        for k in 0..N_ACTIONS / 32 {
            // SAFETY: 32 bools from `32 k`, within the 141 (k < 4); a
            // bool is a byte, and each lane holds 0 or 1.
            unsafe { _mm256_storeu_si256(p.cast::<u8>().add(32 * k).cast(), lanes(word(k))) };
        }
        let mut last = [false; 32];
        // SAFETY: 32 bools into `last`, each 0 or 1.
        unsafe { _mm256_storeu_si256(last.as_mut_ptr().cast(), lanes(word(N_ACTIONS / 32))) };
        out[N_ACTIONS / 32 * 32..].copy_from_slice(&last[..N_ACTIONS % 32]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every path expands the scalar path's masks, and only the bits of
    /// actions (bits 141 and up are ignored), on seeded words: sparse,
    /// dense, all ones, each single bit.
    #[test]
    fn every_path_expands_the_mask_bits() {
        let mut rng = crate::rng::Prng::new(0x0b5);
        let mut next = move || rng.next_u64();
        let mut words: Vec<[u64; 3]> = (0..3000)
            .map(|i| {
                let w = [next(), next(), next()];
                match i % 3 {
                    0 => w,
                    1 => w.map(|x| x & next() & next()),
                    _ => w.map(|x| x | next()),
                }
            })
            .collect();
        words.push([u64::MAX; 3]);
        words.extend((0..192).map(|b| {
            let mut w = [0; 3];
            w[b / 64] = 1 << (b % 64);
            w
        }));
        for i in Isa::ALL {
            if !i.available() {
                eprintln!("this CPU lacks {i}: its mask expansion is not run here");
                continue;
            }
            for w in &words {
                let mut got = [true; N_ACTIONS];
                mask(i, *w, &mut got);
                let want: Vec<bool> = (0..N_ACTIONS)
                    .map(|a| w[a / 64] >> (a % 64) & 1 == 1)
                    .collect();
                assert_eq!(&got[..], &want[..], "{i} {w:x?}");
            }
        }
    }
}
