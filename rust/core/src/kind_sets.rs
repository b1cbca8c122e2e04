//! Word-wise summaries of a hand's concealed counts ([`KindSets`]), kept
//! by the table in step with every change of a count: the table's
//! questions ([`crate::game`]'s judge) and the shanten lower bound
//! ([`crate::shanten::bound`]) read them instead of passing over the 34
//! counts.

/// Word-wise summaries of one seat's concealed counts, which the table
/// keeps in step with every change of a count so that a turn's questions
/// need no pass over the 34 counts. `at_least[i]` has bit `k` set when
/// kind `k` is held more than `i` times, so a draw or a discard changes
/// one bit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct KindSets {
    /// Kinds held at least 1, 2, 3, 4 times.
    pub(crate) at_least: [u64; 4],
    /// Concealed tiles.
    pub(crate) tiles: i32,
    /// Pairs (a 4 counting two).
    pub(crate) pairs: i32,
}

impl KindSets {
    /// The summaries of counts `c` (each at most 4), computed afresh.
    #[inline]
    pub(crate) fn of(c: &crate::tile::Counts) -> KindSets {
        #[cfg(target_arch = "x86_64")]
        {
            KindSets::of_sse2(c)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            KindSets::of_words(c)
        }
    }

    /// [`KindSets::of`] in SSE2 (every x86-64 CPU has it): one compare and
    /// one byte-mask per level and 16 kinds (kinds 0-15, 16-31, and 18-33
    /// for the last two), against about 200 instructions for the word
    /// version's gathers. A new table deals four hands, so this is part
    /// of every hand's cost. The tile and pair counts follow from the
    /// sets (a count is the number of levels it reaches; a pair is level
    /// 2, two pairs level 4).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn of_sse2(c: &crate::tile::Counts) -> KindSets {
        use std::arch::x86_64::*;
        let v = crate::tile::KindBytes::load(c);
        let at_least = std::array::from_fn(|l| {
            // SAFETY: SSE2 is part of the x86-64 baseline.
            v.mask(|x| unsafe { _mm_cmpgt_epi8(x, _mm_set1_epi8(l as i8)) })
        });
        let n = |l: usize| at_least[l].count_ones() as i32;
        KindSets {
            at_least,
            tiles: n(0) + n(1) + n(2) + n(3),
            pairs: n(1) + n(3),
        }
    }

    /// [`KindSets::of`] eight counts at a time in 64-bit words.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn of_words(c: &crate::tile::Counts) -> KindSets {
        const LOW: u64 = 0x0101_0101_0101_0101;
        const GATHER: u64 = 0x0102_0408_1020_4080;
        let mut s = KindSets::default();
        for (i, ch) in c.chunks(8).enumerate() {
            let mut b = [0u8; 8];
            b[..ch.len()].copy_from_slice(ch);
            let x = u64::from_le_bytes(b);
            // Counts are at most 4: bit 2 alone means 4.
            let four = x >> 2 & LOW;
            let levels = [
                (x | x >> 1 | x >> 2) & LOW,
                (x >> 1 | x >> 2) & LOW,
                (x & x >> 1 | x >> 2) & LOW,
                four,
            ];
            for (l, f) in s.at_least.iter_mut().zip(levels) {
                *l |= (f.wrapping_mul(GATHER) >> 56) << (8 * i);
            }
            s.tiles += (x.wrapping_mul(LOW) >> 56) as i32;
            s.pairs += (((x >> 1) & (3 * LOW)).wrapping_mul(LOW) >> 56) as i32;
        }
        s
    }

    /// Kinds held.
    #[inline]
    pub(crate) fn held(&self) -> u64 {
        self.at_least[0]
    }

    /// Kinds held exactly once.
    #[inline]
    pub(crate) fn single(&self) -> u64 {
        self.at_least[0] & !self.at_least[1]
    }

    /// Kinds held at least twice.
    #[inline]
    pub(crate) fn two(&self) -> u64 {
        self.at_least[1]
    }

    /// Kinds held four times.
    #[inline]
    pub(crate) fn four(&self) -> u64 {
        self.at_least[3]
    }

    /// Kind `k`'s count goes from `old` (below 4) to `old + 1`: one bit
    /// turns on. Draws and discards are most count changes, so they get
    /// this and [`KindSets::remove_one`], without the loop and the
    /// data-dependent branch of [`KindSets::change`].
    #[inline]
    pub(crate) fn add_one(&mut self, k: usize, old: u8) {
        self.at_least[usize::from(old & 3)] |= 1 << k;
        self.tiles += 1;
        // 1 -> 2 and 3 -> 4 make a pair.
        self.pairs += i32::from(old & 1);
    }

    /// Kind `k`'s count goes from `old` (1 to 4) to `old - 1`: one bit
    /// turns off.
    #[inline]
    pub(crate) fn remove_one(&mut self, k: usize, old: u8) {
        self.at_least[usize::from(old.wrapping_sub(1) & 3)] &= !(1 << k);
        self.tiles -= 1;
        // 2 -> 1 and 4 -> 3 break a pair.
        self.pairs -= i32::from(!old & 1);
    }

    /// Kind `k`'s count goes from `old` to `new` (both at most 4).
    #[inline]
    pub(crate) fn change(&mut self, k: usize, old: u8, new: u8) {
        let b = 1u64 << k;
        if new > old {
            for l in old..new {
                self.at_least[(l & 3) as usize] |= b;
            }
        } else {
            for l in new..old {
                self.at_least[(l & 3) as usize] &= !b;
            }
        }
        self.tiles += i32::from(new) - i32::from(old);
        self.pairs += i32::from(new / 2) - i32::from(old / 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;
    use crate::tile::KINDS;

    /// The SSE2 kind sets equal the word version's on random counts
    /// (every count 0-4, sparse and dense).
    #[test]
    fn kind_sets_of_both_ways_agree() {
        let mut r = Rng(4242);
        for i in 0..100_000 {
            let mut c = [0u8; KINDS];
            for n in c.iter_mut() {
                if r.below(4) <= i % 4 {
                    *n = r.below(5) as u8;
                }
            }
            assert_eq!(KindSets::of(&c), KindSets::of_words(&c), "{c:?}");
        }
    }

    #[test]
    fn kind_sets_kept_by_changes_equal_kind_sets_recomputed() {
        let mut r = Rng(99);
        let mut c = [0u8; KINDS];
        let mut ks = KindSets::of(&c);
        for _ in 0..200_000 {
            let k = r.below(KINDS as u64) as usize;
            // The one-step changes half of the time (when they apply).
            let new = match r.below(4) {
                0 if c[k] < 4 => {
                    ks.add_one(k, c[k]);
                    c[k] + 1
                }
                1 if c[k] > 0 => {
                    ks.remove_one(k, c[k]);
                    c[k] - 1
                }
                _ => {
                    let new = r.below(5) as u8;
                    ks.change(k, c[k], new);
                    new
                }
            };
            c[k] = new;
            assert_eq!(ks, KindSets::of(&c), "{c:?}");
            for (l, &set) in ks.at_least.iter().enumerate() {
                for (kind, &n) in c.iter().enumerate() {
                    assert_eq!(set >> kind & 1 == 1, n as usize > l, "{c:?}");
                }
            }
            let tiles: i32 = c.iter().map(|&n| i32::from(n)).sum();
            let pairs: i32 = c.iter().map(|&n| i32::from(n / 2)).sum();
            assert_eq!((ks.tiles, ks.pairs), (tiles, pairs));
        }
    }
}
