//! The need tables behind [`super::is_win`] and [`crate::waits`].
//!
//! For a group of tile kinds (one suit, or the honors) and its natural
//! counts read as a base-5 key, an entry holds two numbers: the fewest wild
//! tiles that turn *every* tile of the group into complete sets (`need0`),
//! and the same with exactly one pair as well (`need1`). An empty group
//! needs 0 and 2. Both are packed in one byte (`need0 | need1 << 4`,
//! saturating at 15, far above the 8 wild tiles a hand can hold).
//!
//! * Suit table: one byte for each of the 405,350 suit keys whose digit
//!   sum is at most 14 (every key a hand of at most 14 concealed tiles can
//!   produce), stored densely: [`SuitIndex`] maps a key to its slot with
//!   two look-ups in small tables (16 kB and 2 kB). A sparse array over
//!   all 5^9 keys would need 1.95 MB and spread the reachable entries over
//!   about 30,000 cache lines; the dense one (406 kB used of a 512 kB array
//!   whose unused end is never written) fits the 1 MB second-level cache
//!   of the machines we measure on with room to spare for the caller's
//!   data.
//! * Honor tables: 5^7 = 78,125 entries each (in 128 kB arrays, so that a
//!   masked key needs no bounds check), one with only triplets and one
//!   with 风嘴子 wind sets (any 3 different winds, or 中发白), built from a
//!   4-wind and a 3-dragon table because no set mixes winds and dragons.
//!
//! * Suit neighbours ([`SuitNeighbours`], for the waits only): per suit
//!   slot, the entries of the suit with one more tile of each rank, built
//!   from the suit table on the first waits call (4.5 MB allocated, 3.6 MB
//!   written).
//!
//! The win tables: together 0.77 MB allocated, of which 0.56 MB is written (untouched
//! pages of a zeroed allocation cost nothing), built once, on first use,
//! behind a `OnceLock` (a few milliseconds; the first-call cost is printed by `benches/win.rs`
//! and budgeted by the Python test suite). Importing the library costs
//! nothing and the wheel carries no table.

use std::sync::OnceLock;

/// Powers of 5: the weight of each rank in a key.
pub(crate) const POW5: [u32; 10] = [
    1, 5, 25, 125, 625, 3_125, 15_625, 78_125, 390_625, 1_953_125,
];
/// Number of suit keys with digit sum at most 14 (the dense table's size).
pub(crate) const SUIT_KEYS: usize = 405_350;
/// Number of honor keys.
pub(crate) const HONOR_KEYS: usize = 78_125;
/// An honor table's length: a power of two, so that a masked key of any
/// digits lies inside it (keys past [`HONOR_KEYS`] read 0, never used).
pub(crate) const HONOR_LEN: usize = 1 << 17;

const _: () = assert!(HONOR_KEYS <= HONOR_LEN);
/// Most concealed tiles a hand holds.
const MAX_TILES: u32 = 14;
/// Saturation value of a packed need.
const CAP: u8 = 15;

/// The slot of a suit key in the dense suit table: the key's high five
/// digits (ranks 5-9) select a block, and the low four digits (ranks 1-4)
/// are ranked by digit sum first, so that the low parts allowed with a
/// given high part (digit sum at most 14 minus the high part's) are exactly
/// the first ones of the block.
pub(crate) struct SuitIndex;

/// Digit sum of a base-5 number below 5^5.
const fn digit_sum(mut x: u32) -> u32 {
    let mut s = 0;
    while x > 0 {
        s += x % 5;
        x /= 5;
    }
    s
}

/// `LOW_RANK[lo]`: rank of the four low digits `lo` among all 625, ordered
/// by (digit sum, value).
/// Padded to 1024 entries so that a look-up masks its index instead of
/// checking it, and by one more so that a 4-byte gather of entry 1023
/// stays inside (the AVX kernels, [`crate::simd`]).
pub(crate) static LOW_RANK: [u16; 1025] = {
    let mut t = [0u16; 1025];
    let mut rank = 0u16;
    let mut sum = 0;
    while sum <= 16 {
        let mut lo = 0;
        while lo < 625 {
            if digit_sum(lo) == sum {
                t[lo as usize] = rank;
                rank += 1;
            }
            lo += 1;
        }
        sum += 1;
    }
    t
};

/// `HIGH_BASE[hi]`: first slot of the block of the five high digits `hi`
/// (0 when their digit sum exceeds 14: no hand reaches such keys), padded
/// to 4096 entries like [`LOW_RANK`].
pub(crate) static HIGH_BASE: [u32; 4096] = {
    // `at_most[b]`: low parts with digit sum at most `b`.
    let mut at_most = [0u32; MAX_TILES as usize + 1];
    let mut lo = 0;
    while lo < 625 {
        let mut b = digit_sum(lo) as usize;
        while b <= MAX_TILES as usize {
            at_most[b] += 1;
            b += 1;
        }
        lo += 1;
    }
    let mut t = [0u32; 4096];
    let mut off = 0u32;
    let mut hi = 0;
    while hi < 3125 {
        let s = digit_sum(hi);
        if s <= MAX_TILES {
            t[hi as usize] = off;
            off += at_most[(MAX_TILES - s) as usize];
        }
        hi += 1;
    }
    assert!(off as usize == SUIT_KEYS);
    t
};

/// The dense suit table's length: a power of two above [`SUIT_KEYS`] plus
/// the largest low rank, so that every slot [`SuitIndex`] gives, for any
/// parts, lies inside it once masked (an unreachable key reads a
/// meaningless entry, never out of bounds, and no look-up needs a check).
pub(crate) const SUIT_LEN: usize = 1 << 19;

const _: () = assert!(SUIT_KEYS + 1024 <= SUIT_LEN);

impl SuitIndex {
    /// The slot of `key` (any key below 5^9; meaningful when its digit sum
    /// is at most 14).
    #[inline(always)]
    pub(crate) fn of(key: u32) -> usize {
        Self::of_parts(key % 625, key / 625)
    }

    /// The slot of the key `lo + 625 × hi` (`lo` < 625, `hi` < 3125;
    /// larger parts give some slot inside the table).
    #[inline(always)]
    pub(crate) fn of_parts(lo: u32, hi: u32) -> usize {
        (Self::high(hi) + Self::low(lo)) & (SUIT_LEN - 1)
    }

    /// The high part's share of a slot (its block's start).
    #[inline(always)]
    pub(crate) fn high(hi: u32) -> usize {
        HIGH_BASE[hi as usize & 4095] as usize
    }

    /// The low part's share of a slot (its rank in the block).
    #[inline(always)]
    pub(crate) fn low(lo: u32) -> usize {
        LOW_RANK[lo as usize & 1023] as usize
    }
}

/// The built tables.
pub(crate) struct Tables {
    /// Per suit key, at its [`SuitIndex`] slot.
    pub suit: Box<[u8; SUIT_LEN]>,
    /// Per honor key: `[triplets only, with wind sets]`.
    pub honor: [Box<[u8; HONOR_LEN]>; 2],
}

impl Tables {
    /// The honor table for the `wind_sets` option.
    #[inline]
    pub fn honor(&self, wind_sets: bool) -> &[u8; HONOR_LEN] {
        &self.honor[wind_sets as usize]
    }
}

static TABLES: OnceLock<Tables> = OnceLock::new();

/// The tables, built on first call.
#[inline]
pub(crate) fn tables() -> &'static Tables {
    TABLES.get_or_init(build)
}

/// For each suit slot, the entries of the same suit with one more tile of
/// each rank (the waits' question "which tile completes it?"), so that a
/// suit's nine candidates are two loads instead of nine look-ups. Built
/// from the suit table on the first waits call (4.5 MB allocated, 3.6 MB
/// written, about 10-20 ms); a rank already held 4 times, or a suit of 14
/// tiles, reads `0xff` (needs 15: never completes).
pub(crate) struct SuitNeighbours {
    /// Ranks 1-8, one byte each (rank 1 lowest).
    pub first8: Box<[u64; SUIT_LEN]>,
    /// Rank 9.
    pub ninth: Box<[u8; SUIT_LEN]>,
}

static NEIGHBOURS: OnceLock<SuitNeighbours> = OnceLock::new();

/// The [`SuitNeighbours`], built on first call.
#[inline]
pub(crate) fn suit_neighbours() -> &'static SuitNeighbours {
    NEIGHBOURS.get_or_init(|| build_neighbours(&tables().suit))
}

fn build_neighbours(suit: &[u8; SUIT_LEN]) -> SuitNeighbours {
    let mut first8: Box<[u64; SUIT_LEN]> = vec![0u64; SUIT_LEN]
        .into_boxed_slice()
        .try_into()
        .expect("SUIT_LEN slots");
    let mut ninth: Box<[u8; SUIT_LEN]> = vec![0u8; SUIT_LEN]
        .into_boxed_slice()
        .try_into()
        .expect("SUIT_LEN slots");
    // Per part: its digit sum, and the part with one more tile of each
    // rank (None when that rank holds 4), so that the loop below only adds.
    fn parts<const D: usize>(n: u32) -> Vec<(u32, [Option<u32>; D])> {
        (0..n)
            .map(|x| {
                let more = std::array::from_fn(|r| (x / POW5[r] % 5 < 4).then(|| x + POW5[r]));
                (digit_sum(x), more)
            })
            .collect()
    }
    let los = parts::<4>(POW5[4]);
    let his = parts::<5>(POW5[5]);
    for (hi, (sum_hi, hi_more)) in his.iter().enumerate() {
        if *sum_hi > MAX_TILES {
            continue;
        }
        let base_hi = SuitIndex::high(hi as u32);
        for (lo, (sum_lo, lo_more)) in los.iter().enumerate() {
            let sum = sum_hi + sum_lo;
            if sum > MAX_TILES {
                continue;
            }
            let room = sum < MAX_TILES;
            let base_lo = SuitIndex::low(lo as u32);
            let entry = |slot: Option<usize>| match slot {
                Some(i) if room => suit[i & (SUIT_LEN - 1)],
                _ => 0xff,
            };
            let mut w = 0u64;
            for r in 0..4 {
                let by_lo = lo_more[r].map(|l| base_hi + SuitIndex::low(l));
                let by_hi = hi_more[r].map(|h| SuitIndex::high(h) + base_lo);
                w |= u64::from(entry(by_lo)) << (8 * r) | u64::from(entry(by_hi)) << (8 * (r + 4));
            }
            let slot = (base_hi + base_lo) & (SUIT_LEN - 1);
            first8[slot] = w;
            ninth[slot] = entry(hi_more[4].map(|h| SuitIndex::high(h) + base_lo));
        }
    }
    SuitNeighbours { first8, ninth }
}

#[inline]
fn pack(need0: u8, need1: u8) -> u8 {
    need0.min(CAP) | need1.min(CAP) << 4
}

#[inline]
pub(crate) fn need0(e: u8) -> i32 {
    (e & 15) as i32
}

#[inline]
pub(crate) fn need1(e: u8) -> i32 {
    (e >> 4) as i32
}

fn build() -> Tables {
    let mut suit: Box<[u8; SUIT_LEN]> = vec![0u8; SUIT_LEN]
        .into_boxed_slice()
        .try_into()
        .expect("the suit table has SUIT_LEN entries");
    build_suit(&mut suit[..]);
    let honor = [build_honor(false), build_honor(true)];
    Tables { suit, honor }
}

/// Fills every suit key of digit sum ≤ 14 in increasing key order, so that
/// the keys an entry depends on (the same key with tiles removed) are done.
fn build_suit(t: &mut [u8]) {
    let mut digits = [0u8; 9];
    suit_rec(t, &mut digits, 8, 0, 0);
}

fn suit_rec(t: &mut [u8], d: &mut [u8; 9], pos: usize, key: u32, sum: u32) {
    for v in 0..=4u8 {
        let s = sum + v as u32;
        if s > MAX_TILES {
            break;
        }
        d[pos] = v;
        let k = key + v as u32 * POW5[pos];
        if pos == 0 {
            t[SuitIndex::of(k)] = suit_entry(t, d, k);
        } else {
            suit_rec(t, d, pos - 1, k, s);
        }
    }
    d[pos] = 0;
}

/// One suit entry from the entries of smaller keys: the copy of the lowest
/// rank present is in the pair, or in a set whose other members are
/// natural (when present) or wild.
fn suit_entry(t: &[u8], d: &[u8; 9], k: u32) -> u8 {
    let Some(i) = d.iter().position(|&n| n > 0) else {
        return pack(0, 2);
    };
    let p = POW5[i];
    let at = |key: u32| t[SuitIndex::of(key)];
    let mut b0 = CAP;
    let mut b1 = CAP;
    // The pair holds this copy: with a second natural copy or with a wild.
    if d[i] >= 2 {
        b1 = b1.min(need0(at(k - 2 * p)) as u8);
    }
    b1 = b1.min(1 + need0(at(k - p)) as u8);
    let mut set = |cost: u8, sub: u32| {
        let e = at(sub);
        b0 = b0.min(cost + need0(e) as u8);
        b1 = b1.min(cost + need1(e) as u8);
    };
    // Triplets with 3, 2 or 1 natural copies.
    if d[i] >= 3 {
        set(0, k - 3 * p);
    }
    if d[i] >= 2 {
        set(1, k - 2 * p);
    }
    set(2, k - p);
    // Sequences: naturals {i, i+1, i+2}, {i, i+1} (the set i..i+2 or
    // i-1..i+1 with one wild), {i, i+2} (wild middle). A sequence holding
    // only rank i costs as much as the triplet with two wilds.
    if i < 8 && d[i + 1] > 0 {
        set(1, k - p - POW5[i + 1]);
        if i + 2 <= 8 && d[i + 2] > 0 {
            set(0, k - p - POW5[i + 1] - POW5[i + 2]);
        }
    }
    if i + 2 <= 8 && d[i + 2] > 0 {
        set(1, k - p - POW5[i + 2]);
    }
    pack(b0, b1)
}

/// A table over a small group of honor kinds whose sets are triplets plus
/// `mixed` (each a list of distinct kinds of the group).
fn build_group(kinds: usize, mixed: &[&[usize]]) -> Vec<u8> {
    let size = POW5[kinds] as usize;
    let mut t = vec![0u8; size];
    for k in 0..size {
        let mut d = [0u8; 4];
        let mut x = k;
        for di in d.iter_mut().take(kinds) {
            *di = (x % 5) as u8;
            x /= 5;
        }
        let Some(i) = d.iter().position(|&n| n > 0) else {
            t[k] = pack(0, 2);
            continue;
        };
        let k = k as u32;
        let p = POW5[i];
        let mut b0 = CAP;
        let mut b1 = CAP;
        if d[i] >= 2 {
            b1 = b1.min(need0(t[(k - 2 * p) as usize]) as u8);
        }
        b1 = b1.min(1 + need0(t[(k - p) as usize]) as u8);
        let mut set = |cost: u8, sub: u32| {
            let e = t[sub as usize];
            b0 = b0.min(cost + need0(e) as u8);
            b1 = b1.min(cost + need1(e) as u8);
        };
        if d[i] >= 3 {
            set(0, k - 3 * p);
        }
        if d[i] >= 2 {
            set(1, k - 2 * p);
        }
        set(2, k - p);
        for m in mixed.iter().filter(|m| m.contains(&i)) {
            // Every other member is natural (if present) or wild.
            let others: Vec<usize> = m.iter().copied().filter(|&j| j != i).collect();
            for mask in 0..1u32 << others.len() {
                let mut sub = k - p;
                let mut cost = 2u8;
                let mut ok = true;
                for (b, &j) in others.iter().enumerate() {
                    if mask >> b & 1 == 1 {
                        if d[j] == 0 {
                            ok = false;
                        }
                        sub = sub.wrapping_sub(POW5[j]);
                        cost -= 1;
                    }
                }
                if ok {
                    set(cost, sub);
                }
            }
        }
        t[k as usize] = pack(b0, b1);
    }
    t
}

/// The honor table: winds are kinds 0..4 of the key, dragons 4..7.
fn build_honor(wind_sets: bool) -> Box<[u8; HONOR_LEN]> {
    let (winds, dragons) = if wind_sets {
        let w: &[&[usize]] = &[&[0, 1, 2], &[0, 1, 3], &[0, 2, 3], &[1, 2, 3]];
        (build_group(4, w), build_group(3, &[&[0, 1, 2]]))
    } else {
        (build_group(4, &[]), build_group(3, &[]))
    };
    let mut t: Box<[u8; HONOR_LEN]> = vec![0u8; HONOR_LEN]
        .into_boxed_slice()
        .try_into()
        .expect("an honor table has HONOR_LEN entries");
    for (dk, &de) in dragons.iter().enumerate() {
        for (wk, &we) in winds.iter().enumerate() {
            let n0 = need0(we) + need0(de);
            let n1 = (need1(we) + need0(de)).min(need0(we) + need1(de));
            t[wk + 625 * dk] = pack(n0 as u8, n1 as u8);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every reachable suit key's neighbours are the entries of the key
    /// with one more tile, looked up directly (or `0xff` without room).
    #[test]
    fn suit_neighbours_are_the_keys_with_one_more_tile() {
        let t = tables();
        let nb = suit_neighbours();
        for key in 0..POW5[9] {
            let digits: [u32; 9] = std::array::from_fn(|r| key / POW5[r] % 5);
            let sum: u32 = digits.iter().sum();
            if sum > MAX_TILES {
                continue;
            }
            let slot = SuitIndex::of(key);
            for (r, &d) in digits.iter().enumerate() {
                let want = if d < 4 && sum < MAX_TILES {
                    t.suit[SuitIndex::of(key + POW5[r])]
                } else {
                    0xff
                };
                let got = if r < 8 {
                    (nb.first8[slot] >> (8 * r)) as u8
                } else {
                    nb.ninth[slot]
                };
                assert_eq!(got, want, "key {key}, rank {r}");
            }
        }
    }

    #[test]
    fn empty_group_needs_a_wild_pair() {
        let t = tables();
        let e = t.suit[SuitIndex::of(0)];
        assert_eq!((need0(e), need1(e)), (0, 2));
        assert_eq!((need0(t.honor[1][0]), need1(t.honor[1][0])), (0, 2));
    }

    #[test]
    fn reachable_suit_keys() {
        let t = tables();
        // Every reachable key other than 0 needs at least something paired
        // or set, so its packed entry is non-zero (0 would mean unreached).
        let mut d = [0u8; 9];
        let mut n = 0;
        fn count(d: &mut [u8; 9], pos: usize, sum: u32, n: &mut usize) {
            for v in 0..=4u8 {
                if sum + v as u32 > MAX_TILES {
                    break;
                }
                d[pos] = v;
                if pos == 0 {
                    *n += 1;
                } else {
                    count(d, pos - 1, sum + v as u32, n);
                }
            }
        }
        count(&mut d, 8, 0, &mut n);
        assert_eq!(n, SUIT_KEYS);
        assert!(t.suit[SuitIndex::of(1)] != 0);
    }

    #[test]
    fn suit_index_is_a_bijection_onto_the_dense_table() {
        let mut seen = vec![false; SUIT_KEYS];
        for key in 0..5u32.pow(9) {
            let sum: u32 = (0..9).map(|i| key / POW5[i] % 5).sum();
            let slot = SuitIndex::of(key);
            assert!(slot < SUIT_LEN);
            if sum <= MAX_TILES {
                assert!(!seen[slot], "slot {slot} taken twice");
                seen[slot] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }
}
