//! The core's random sources, each defined once.
//!
//! * [`Prng`]: the table's source (walls, dice, wild kinds): ChaCha8
//!   seeded with `seed_from_u64`, unbiased bounded sampling by Lemire's
//!   multiply-and-reject and a Fisher-Yates shuffle written here, so a
//!   seed means the same wall on every platform for a given engine
//!   version.
//! * `SplitMix`: SplitMix64 with the same bounded sampling, for the
//!   agents and the samplers of hidden tiles: their draws need no
//!   cryptographic quality, a fresh stream must cost nothing, and a
//!   declared hand may take hundreds of draws (ChaCha's blocks cost more
//!   than the readiness test).
//! * [`mix_seed`]: the SplitMix64 finalizer that derives independent
//!   seeds (per hand of a simulation, per agent) from a master seed.
//!
//! `koudian_core::game::{Prng, mix_seed}` are the same items, re-exported.

use crate::game::wall::MAX_TILES;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// The game's random source: ChaCha8 plus unbiased bounded sampling.
#[derive(Clone, Debug)]
pub struct Prng(ChaCha8Rng);

impl Prng {
    /// The stream of `seed`.
    pub fn new(seed: u64) -> Prng {
        Prng(ChaCha8Rng::seed_from_u64(seed))
    }

    /// A uniform integer in `0..n` (`n > 0`), without modulo bias.
    ///
    /// ```
    /// use koudian_core::game::Prng;
    /// let mut r = Prng::new(7);
    /// assert!((0..100).all(|_| r.below(6) < 6));
    /// ```
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        below_from(n.max(1), || self.0.next_u32())
    }

    /// A 64-bit word.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// One die, 1-6.
    pub fn die(&mut self) -> u8 {
        self.below(6) as u8 + 1
    }

    /// Fisher-Yates shuffle.
    #[inline(never)]
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        let steps = items.len().saturating_sub(1);
        if steps > MAX_TILES {
            // Longer than any wall: every word from the generator.
            let none = ArrayWords {
                words: [0; MAX_TILES],
                len: 0,
            };
            self.shuffle_from(items, steps, &none, 0);
            return;
        }
        // Each step takes one word of the stream, and only a rejection
        // (probability below n / 2^32) takes more: the words are read in
        // one call, in stream order, and a rejection continues from the
        // next unread word (read ahead first, then the generator's), so
        // the shuffle, and the stream after it, are those of one `below`
        // per step. Reading the words one by one cost the generator's
        // index check and update per step.
        let words = self.read_ahead(steps);
        self.shuffle_words(items, &words);
    }

    /// The shuffle of `items` (at most `MAX_TILES + 1`) with the words
    /// read ahead for it.
    #[inline(always)]
    fn shuffle_words<T>(&mut self, items: &mut [T], words: &ArrayWords) {
        let steps = words.len;
        for i in (1..items.len().min(steps + 1)).rev() {
            // Step `i` reads word `steps - i`, which was read ahead.
            let n = i as u32 + 1;
            let m = u64::from(words.words[steps - i]) * u64::from(n);
            if (m as u32) < n {
                // Perhaps a rejection: this step and the rest the plain
                // way, from the same word on.
                self.shuffle_from(items, i, words, steps - i);
                return;
            }
            items.swap(i, (m >> 32) as usize);
        }
    }

    /// Fisher-Yates steps `i` down to 1 of [`Prng::shuffle`], the words
    /// taken from `words` from its `next`-th on, then from the generator
    /// (a rejection among the words read ahead, or a slice longer than a
    /// wall).
    #[cold]
    #[inline(never)]
    fn shuffle_from<T>(&mut self, items: &mut [T], i: usize, words: &ArrayWords, next: usize) {
        let mut next = next;
        let rng = &mut self.0;
        for i in (1..=i).rev() {
            let j = below_from(i as u32 + 1, || {
                let w = match words.get(next) {
                    Some(&w) => w,
                    None => rng.next_u32(),
                };
                next += 1;
                w
            });
            items.swap(i, j as usize);
        }
    }

    /// The next `k` words of the stream (at most [`MAX_TILES`]), as `k`
    /// calls of `next_u32` would give them, in one read.
    #[inline(always)]
    fn read_ahead(&mut self, k: usize) -> ArrayWords {
        let k = k.min(MAX_TILES);
        let mut bytes = [0u8; 4 * MAX_TILES];
        // The generator fills bytes word by word, each little-endian.
        self.0.fill_bytes(&mut bytes[..4 * k]);
        let mut words = [0u32; MAX_TILES];
        for (w, b) in words.iter_mut().zip(bytes.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        ArrayWords { words, len: k }
    }
}

/// Words read ahead from a stream: the first `len` of `words`.
struct ArrayWords {
    words: [u32; MAX_TILES],
    len: usize,
}

impl ArrayWords {
    #[inline(always)]
    fn get(&self, i: usize) -> Option<&u32> {
        self.words[..self.len].get(i)
    }
}

/// A uniform integer in `0..n` (`n > 0`) from the words `next` gives,
/// without modulo bias (Lemire's multiply-and-reject).
#[inline(always)]
fn below_from(n: u32, mut next: impl FnMut() -> u32) -> u32 {
    let mut m = u64::from(next()) * u64::from(n);
    if (m as u32) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u32) < threshold {
            m = u64::from(next()) * u64::from(n);
        }
    }
    (m >> 32) as u32
}

/// The SplitMix64 increment (the golden ratio in 64 bits).
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 output function: a well-mixed word of the state `z`.
#[inline(always)]
const fn finalize(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// SplitMix64 with unbiased bounded sampling: the agents' random source
/// and the hidden-tile samplers' (seeded from the caller's [`Prng`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    /// The high 32 bits of the next output.
    #[inline]
    pub(crate) fn next_u32(&mut self) -> u32 {
        self.0 = self.0.wrapping_add(GOLDEN);
        (finalize(self.0) >> 32) as u32
    }

    /// Uniform in `0..n` (Lemire's multiply-and-reject); `0` for `n = 0`.
    #[inline]
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        below_from(n.max(1), || self.next_u32())
    }
}

/// Fisher-Yates.
pub(crate) fn shuffle<T>(v: &mut [T], rng: &mut SplitMix) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        v.swap(i, j);
    }
}

/// Puts a uniform random `n`-subset (in random order) at the front of `v`.
pub(crate) fn partial_shuffle<T>(v: &mut [T], n: usize, rng: &mut SplitMix) {
    let len = v.len();
    for i in 0..n.min(len) {
        let j = i + rng.below((len - i) as u32) as usize;
        v.swap(i, j);
    }
}

/// SplitMix64 finalizer: derives independent seeds (per game of a
/// simulation, per agent) from a master seed.
///
/// ```
/// use koudian_core::game::mix_seed;
/// assert_ne!(mix_seed(1, 0), mix_seed(1, 1));
/// assert_eq!(mix_seed(1, 5), mix_seed(1, 5));
/// ```
pub const fn mix_seed(seed: u64, index: u64) -> u64 {
    finalize(
        seed.wrapping_add(index.wrapping_mul(GOLDEN))
            .wrapping_add(GOLDEN),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain Fisher-Yates: one `below` per step, each word read from
    /// the generator as it is needed.
    fn shuffle_one_by_one<T>(rng: &mut Prng, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = rng.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// The buffered shuffle gives the plain shuffle's order and leaves
    /// the stream where the plain one does, for every length up to a
    /// full wall and past it (the unbuffered branch).
    #[test]
    fn buffered_shuffle_matches_the_word_by_word_shuffle() {
        for seed in 0..300u64 {
            for len in [0usize, 1, 2, 3, 7, 64, 65, 108, 135, 136, 137, 140] {
                let mut a = Prng::new(seed);
                let mut b = a.clone();
                let mut x: Vec<usize> = (0..len).collect();
                let mut y = x.clone();
                a.shuffle(&mut x);
                shuffle_one_by_one(&mut b, &mut y);
                assert_eq!(x, y, "seed {seed}, {len} items");
                assert_eq!(a.next_u64(), b.next_u64(), "seed {seed}, {len} items");
            }
        }
    }

    /// Read-ahead words are the stream's next words, and the generator
    /// continues after them: what a rejection during the shuffle relies
    /// on.
    #[test]
    fn read_ahead_words_continue_the_stream() {
        for k in [0usize, 1, 5, 63, 64, 65, 135, 136] {
            let mut a = Prng::new(k as u64);
            let mut b = a.clone();
            let words = a.read_ahead(k);
            for i in 0..k {
                assert_eq!(words.get(i), Some(&b.0.next_u32()), "word {i} of {k}");
            }
            assert_eq!(words.get(k), None);
            for _ in 0..70 {
                assert_eq!(a.0.next_u32(), b.0.next_u32(), "after {k} words");
            }
        }
    }

    /// A rejected word in the middle of the read-ahead words: the
    /// shuffle continues the plain way with the next words, read ahead
    /// or not, as one `below` per step over the same stream would.
    #[test]
    fn a_rejection_continues_with_the_next_words() {
        for seed in 0..50u64 {
            for at in [0usize, 1, 40, 131, 133] {
                let mut a = Prng::new(seed);
                let mut b = a.clone();
                let mut words = a.read_ahead(135);
                // Step 136 - at draws below(136 - at): 0 is rejected
                // (136 - at is not a power of two here).
                words.words[at] = 0;
                let mut x: Vec<u8> = (0..136).collect();
                a.shuffle_words(&mut x, &words);
                // The same word sequence: the altered read-ahead words,
                // then the generator after them.
                let ahead = b.read_ahead(135);
                let mut k = 0;
                let mut source = || {
                    k += 1;
                    match k - 1 {
                        i if i == at => 0,
                        i if i < 135 => ahead.words[i],
                        _ => b.0.next_u32(),
                    }
                };
                let mut y: Vec<u8> = (0..136).collect();
                for i in (1..136usize).rev() {
                    let j = below_from(i as u32 + 1, &mut source);
                    y.swap(i, j as usize);
                }
                assert!(k > 135, "no rejection (seed {seed}, at {at})");
                assert_eq!(x, y, "seed {seed}, at {at}");
                assert_eq!(a.0.next_u32(), b.0.next_u32(), "seed {seed}, at {at}");
            }
        }
    }

    /// Rejections draw further words: a source whose first words are
    /// rejected gives what the plain loop over the same words gives.
    #[test]
    fn rejected_words_are_replaced_by_the_next_ones() {
        for n in [3u32, 5, 6, 7, 100, 135, 136] {
            // 0 multiplies to a low half of 0, below the threshold of
            // any n that is not a power of two: rejected.
            let script = [0u32, 0, 0x8000_0001, 7];
            let mut i = 0;
            let got = below_from(n, || {
                i += 1;
                script[i - 1]
            });
            assert_eq!(i, 3, "n = {n}");
            assert_eq!(got, ((u64::from(script[2]) * u64::from(n)) >> 32) as u32);
        }
    }
}
