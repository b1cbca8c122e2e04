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

use super::table::suit_entry;
use super::{seven_pairs_deficiency, size_ok, thirteen_orphans_deficiency, Calculator};
use crate::tile::Counts;

/// Hands per block: one byte lane each in a 128-bit vector.
const B: usize = 16;

/// One byte per hand of the block.
type V = [u8; B];

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
        start: usize,
        rows: &[Counts],
        n_melds: &[u8],
        out: &mut [i8],
    ) -> Option<usize> {
        let mut melds = [n_melds[0]; B];
        for (k, (block, o)) in rows.chunks(B).zip(out.chunks_mut(B)).enumerate() {
            let first = start + k * B;
            if n_melds.len() != 1 {
                melds[..block.len()].copy_from_slice(&n_melds[first..first + block.len()]);
            }
            let bad = if self.wilds.is_empty() {
                self.block::<false>(block, &melds, o)
            } else {
                self.block::<true>(block, &melds, o)
            };
            if let Some(j) = bad {
                return Some(first + j);
            }
        }
        None
    }

    /// One block of at most [`B`] rows. `WILD`: whether any kind is wild
    /// (without, the rows are their own natural counts and need no copy).
    #[inline(always)]
    fn block<const WILD: bool>(
        &self,
        rows: &[Counts],
        melds: &[u8; B],
        out: &mut [i8],
    ) -> Option<usize> {
        // Per hand: the table entries, and what the other shapes and the
        // wild tiles give (the standard shape's part comes after).
        let mut entries: Entries = [[0; B]; 4];
        let mut other = [u8::MAX; B];
        let mut wild = [0u8; B];
        for (j, c) in rows.iter().enumerate() {
            let m = melds[j] as usize;
            if !size_ok(c, m) {
                return Some(j);
            }
            let split;
            let natural = if WILD {
                split = self.wilds.split(c);
                wild[j] = split.1;
                &split.0
            } else {
                c
            };
            entries[0][j] = suit_entry(&natural[0..9], self.capped);
            entries[1][j] = suit_entry(&natural[9..18], self.capped);
            entries[2][j] = suit_entry(&natural[18..27], self.capped);
            entries[3][j] = self.honors.entry(natural);
            if m == 0 {
                let mut d = u8::MAX;
                if self.rules.seven_pairs {
                    d = d.min(seven_pairs_deficiency(natural));
                }
                if self.rules.thirteen_orphans {
                    d = d.min(thirteen_orphans_deficiency(natural));
                }
                other[j] = d;
            }
        }
        let ab = product(&needs(&entries[0]), &needs(&entries[1]));
        let cd = product(&needs(&entries[2]), &needs(&entries[3]));
        // The standard shape for each number of sets the block's hands ask
        // for (all five only when the meld counts differ within the block).
        let mut standard = [[u8::MAX; B]; 5];
        let mut wanted = 0u8;
        for &m in &melds[..rows.len()] {
            wanted |= 1 << (4 - m.min(4));
        }
        for (sets, s) in standard.iter_mut().enumerate() {
            if wanted >> sets & 1 != 0 {
                *s = with_one_pair(&ab, &cd, sets);
            }
        }
        for (j, o) in out.iter_mut().enumerate().take(rows.len()) {
            let d = standard[4 - melds[j].min(4) as usize][j].min(other[j]);
            *o = d.saturating_sub(wild[j]) as i8 - 1;
        }
        None
    }
}

/// The needs of a group from its packed entries, lane per hand.
#[inline(always)]
fn needs(e: &[u32; B]) -> Needs {
    let mut n = Needs {
        n0: [[0; B]; 5],
        n1: [[0; B]; 5],
    };
    // Field f of an entry (bits 2f..2f + 2): the rise of need[·][0] from
    // f to f + 1 sets (f < 4) and need[m][1] - need[m][0] (f = 4 + m).
    // Cut into byte planes first, so that each field is a byte shift.
    let planes: [V; 3] = std::array::from_fn(|p| std::array::from_fn(|h| (e[h] >> (8 * p)) as u8));
    let fields: [V; 9] = std::array::from_fn(|f| {
        let plane = &planes[f / 4];
        std::array::from_fn(|h| (plane[h] >> (2 * (f % 4))) & 3)
    });
    for m in 1..5 {
        n.n0[m] = add(&n.n0[m - 1], &fields[m - 1]);
    }
    for m in 0..5 {
        n.n1[m] = add(&n.n0[m], &fields[4 + m]);
    }
    n
}

/// Lane-wise sum (needs are at most 15 per group and 60 in all: no lane
/// overflows).
#[inline(always)]
fn add(a: &V, b: &V) -> V {
    std::array::from_fn(|i| a[i].wrapping_add(b[i]))
}

/// Lane-wise minimum.
#[inline(always)]
fn min(a: &V, b: &V) -> V {
    std::array::from_fn(|i| a[i].min(b[i]))
}

/// Min-plus product of two groups for up to 4 sets and at most one pair.
#[inline(always)]
fn product(a: &Needs, b: &Needs) -> Needs {
    // need[0][0] is 0 for every group, so the k = 0 and k = m terms of
    // need[m][0] are b's and a's own.
    let mut r = Needs {
        n0: [[0; B]; 5],
        n1: [[0; B]; 5],
    };
    for m in 0..5 {
        let mut r0 = min(&a.n0[m], &b.n0[m]);
        let mut r1 = min(&b.n1[m], &a.n1[m]);
        for k in 1..m {
            r0 = min(&r0, &add(&a.n0[k], &b.n0[m - k]));
        }
        for k in 1..=m {
            r1 = min(&r1, &add(&a.n0[k], &b.n1[m - k]));
            r1 = min(&r1, &add(&a.n1[m - k], &b.n0[k]));
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
    let mut best = [u8::MAX; B];
    for k in 0..=sets {
        best = min(&best, &add(&ab.n0[k], &cd.n1[sets - k]));
        best = min(&best, &add(&ab.n1[k], &cd.n0[sets - k]));
    }
    best
}
