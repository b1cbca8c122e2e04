//! The AVX2, AVX-512 and NEON kernels of `is_win_batch`: [`Checker`]'s
//! scan and table look-ups with one hand per 32-bit lane, 8 (AVX2), 16
//! (AVX-512) or 4 (NEON) hands per vector.
//!
//! The rows of a block are read as 4-byte words at fixed offsets of each
//! 34-byte row (`row_words!`: with AVX2 and NEON the block's rows
//! transposed, with AVX-512 a gather per offset; eleven offsets: the four
//! base-5 digits of each suit's low part, of its high part, its ninth
//! digit, the honors), so that every lane holds its hand's words and
//! everything after is the scalar path's arithmetic lane by lane:
//! validity, tile count, wild tiles, odd kinds, the thirteen-orphans fit,
//! the group keys (two multiply-adds per four digits), then the suit
//! slots ([`SuitIndex`]'s two small tables) and the need entries, each
//! one look-up of 8, 16 or 4 lanes (AVX-512: gathers; AVX2 and NEON: the
//! keys moved to integer registers and the tables read there, which AMD's
//! cores run faster than their microcoded gathers and NEON, which has no
//! gathers, needs). A block's answers equal [`Checker::check_row`]'s,
//! lane for lane (tested on every path against it and against the
//! brute-force search).
//!
//! Every gather reads inside its table or its block: word offsets are at
//! most 30 of a 34-byte row; table indices are masked like the scalar
//! look-ups' and clamped 3 bytes below the end of a byte table (which no
//! valid hand's index reaches: an invalid hand's answer ignores what it
//! reads), and the 16-bit [`LOW_RANK`](super::super::shape::tables) table
//! is padded by one word.

use crate::shape::win::{Checker, ORPHAN_MASK};
use crate::tile::{Counts, KINDS};

/// The word offsets gathered from each row, and how far each word is
/// shifted right so that the shifted words cover the 34 kinds once each
/// (for the sums): the ninth digit of a suit sits in the top byte of the
/// word at `9s + 5`, and kinds 31-33 in the word at 30 above kind 30,
/// which the word at 27 holds.
pub(crate) const PIECES: [(usize, u32); 11] = [
    (0, 0),
    (4, 0),
    (5, 24),
    (9, 0),
    (13, 0),
    (14, 24),
    (18, 0),
    (22, 0),
    (23, 24),
    (27, 0),
    (30, 8),
];

/// The bytes of a piece's shifted word whose kind `keep` keeps, as 0xff.
pub(crate) const fn piece_mask(p: (usize, u32), keep: u64) -> u32 {
    let (off, shift) = p;
    let first = off + (shift / 8) as usize;
    let mut m = 0u32;
    let mut j = 0;
    while j < 4 - (shift / 8) as usize {
        if keep >> (first + j) & 1 == 1 {
            m |= 0xff << (8 * j);
        }
        j += 1;
    }
    m
}

/// What a block needs of a [`Checker`], as 32-bit lane constants.
#[derive(Clone, Copy)]
pub(crate) struct Consts {
    /// Per piece, the natural kinds' bytes of its (unshifted) word.
    pub(crate) keep: [u32; 11],
    /// Per piece, the shifted word's natural non-orphan bytes.
    pub(crate) outside: [u32; 11],
    pub(crate) seven_pairs: bool,
    pub(crate) thirteen_orphans: bool,
}

impl Consts {
    pub(crate) fn new(ch: &Checker) -> Consts {
        let mut natural = (1u64 << KINDS) - 1;
        for &t in &ch.wild[..ch.n_wild] {
            natural &= !(1 << t);
        }
        let keep = PIECES.map(|(off, _)| piece_mask((off, 0), natural));
        let outside = PIECES.map(|p| piece_mask(p, natural & !ORPHAN_MASK));
        Consts {
            keep,
            outside,
            seven_pairs: ch.rules.seven_pairs,
            thirteen_orphans: ch.rules.thirteen_orphans,
        }
    }
}

/// The kernel body, written once over each instruction set's lane
/// operations (`$m`: a module of `V`, `M`, `L` and the operations below,
/// compiled with its target features).
macro_rules! kernel {
    ($features:literal) => {
        /// The rows of `rows` in blocks of [`L`] into `out`, the last
        /// `rows.len() % L` by the scalar path; whether every row was a
        /// valid hand. `n_melds` holds one entry, or one per row.
        #[target_feature(enable = $features)]
        pub(crate) fn check_rows(
            ch: &Checker,
            rows: &[Counts],
            n_melds: &[u8],
            out: &mut [bool],
        ) -> bool {
            let k = super::Consts::new(ch);
            let blocks = rows.len() / L;
            let mut all_valid = true;
            let one_meld = n_melds.len() == 1;
            for b in 0..blocks {
                let at = b * L;
                let melds = if one_meld {
                    splat(i32::from(n_melds[0]))
                } else {
                    melds_of(&n_melds[at..at + L])
                };
                let (win, valid) = block(ch, &k, &rows[at..at + L], melds);
                all_valid &= bits(valid) == FULL;
                store_bools(bits(win), &mut out[at..at + L]);
            }
            for i in blocks * L..rows.len() {
                let m = if one_meld { n_melds[0] } else { n_melds[i] };
                // Read once, by value: the rows may be the caller's memory,
                // which another thread may write meanwhile, and the scalar
                // path indexes its tables by a row it checked first.
                // SAFETY: `i < rows.len()`.
                let row: Counts = unsafe { std::ptr::read_volatile(&rows[i]) };
                let (win, valid) = ch.check_row(&row, usize::from(m));
                out[i] = win;
                all_valid &= valid;
            }
            all_valid
        }

        /// One block of [`L`] rows: whether each wins, and whether each is
        /// a valid hand.
        #[target_feature(enable = $features)]
        #[inline]
        fn block(ch: &Checker, k: &super::Consts, rows: &[Counts], melds: V) -> (M, M) {
            assert!(rows.len() == L);
            let base = rows.as_ptr().cast::<u8>();
            // SAFETY: the `L` rows checked above (`34 × L` bytes); the
            // offsets are at most 30 (PIECES).
            let mut words: [V; 11] = unsafe { piece_words!(base, super::PIECES) };
            let mut top = splat(0);
            let mut tiles_v = splat(0);
            let mut natural_v = splat(0);
            let mut odd_v = splat(0);
            // The lanes whose suits' natural ranks 2-8 are all 0 (a
            // valid hand's, whose digits are ≤ 4: low key below 5 and
            // ranks 5-8's key 0): the hands that may be thirteen orphans.
            let mut plain = mnot(mnone());
            let ones = splat(0x0101_0101);
            // One piece: its counts added to the sums, its natural word
            // given back (unshifted). Unrolled by hand, so that each shift
            // is an immediate and no word goes through the stack.
            macro_rules! piece {
                ($i:literal, $shift:literal) => {{
                    const _: () = assert!(super::PIECES[$i].1 == $shift);
                    // Every count ≤ 4: the bytes' maximum over all words
                    // (which cover every kind) is.
                    top = max_u8(top, words[$i]);
                    let nat = and(words[$i], splat(k.keep[$i] as i32));
                    tiles_v = add(tiles_v, srli::<$shift>(words[$i]));
                    let x = srli::<$shift>(nat);
                    natural_v = add(natural_v, x);
                    odd_v = add(odd_v, and(x, ones));
                    nat
                }};
            }
            // The natural keys: four base-5 digits by two multiply-adds.
            let key4 = |x: V| madd(maddubs(x, splat(0x0501_0501)), splat(0x0019_0001));
            let pow5_4 = splat(625);
            let mut need0 = splat(0);
            let mut best = splat(i32::MAX);
            // A suit from its pieces (the four low digits, the four high
            // ones, the ninth), its entry looked up where its keys are
            // made, so that few vectors are live at once.
            macro_rules! suit {
                ($a:literal, $b:literal, $c:literal) => {{
                    // Its words after the previous suit's entries
                    // (`best`), so that the scalar look-ups run a suit at
                    // a time instead of all at once, their keys spilled.
                    for i in [$a, $b, $c] {
                        words[i] = after(words[i], best);
                    }
                    let (a, b, c) = (piece!($a, 0), piece!($b, 0), piece!($c, 24));
                    let lo = key4(a);
                    let mid = key4(b);
                    plain = mand(plain, mand(gt(splat(5), lo), eq(mid, splat(0))));
                    let hi = add(mid, mullo(srli::<24>(c), pow5_4));
                    let e = suit_entries!(ch, hi, lo);
                    let (n0, n1) = (and(e, splat(15)), srli::<4>(e));
                    need0 = add(need0, n0);
                    best = min_i32(best, sub(n1, n0));
                }};
            }
            suit!(0, 1, 2);
            suit!(3, 4, 5);
            suit!(6, 7, 8);
            let (h0, h1) = (piece!(9, 0), piece!(10, 8));
            let honor = add(key4(h0), mullo(key4(srli::<8>(h1)), pow5_4));
            let e = honor_entries!(ch, honor);
            let (n0, n1) = (and(e, splat(15)), srli::<4>(e));
            let need = add(add(need0, n0), min_i32(best, sub(n1, n0)));
            let counts_ok = bytes_at_most_4(top);
            let tiles = byte_sum(tiles_v);
            let w = sub(tiles, byte_sum(natural_v));
            let odd = byte_sum(odd_v);
            // Thirteen orphans: only a hand with no natural tile outside
            // the orphans can fit, so the test (none outside, no count of
            // 3 or more, at most one pair) is made for the rare blocks
            // with a lane that may (`plain`: every valid hand with none
            // outside, and any other lane's answer is false), from their
            // rows read again.
            let mut orphans_fit = mnone();
            if k.thirteen_orphans && bits(plain) != 0 {
                // SAFETY: as above.
                let words: [V; 11] = unsafe { piece_words!(base, super::PIECES) };
                let mut outside = splat(0);
                let mut three = splat(0);
                let mut twos_v = splat(0);
                macro_rules! orphans {
                    ($i:literal, $shift:literal) => {{
                        let x = srli::<$shift>(and(words[$i], splat(k.keep[$i] as i32)));
                        outside = or(outside, and(x, splat(k.outside[$i] as i32)));
                        // Counts 3 and 4 (≤ 4) reach bit 7 with 0x7d added;
                        // 2 and 3 have bit 1 set.
                        three = or(three, add(x, splat(0x7d7d_7d7d)));
                        twos_v = add(twos_v, and(srli::<1>(x), ones));
                    }};
                }
                orphans!(0, 0);
                orphans!(1, 0);
                orphans!(2, 24);
                orphans!(3, 0);
                orphans!(4, 0);
                orphans!(5, 24);
                orphans!(6, 0);
                orphans!(7, 0);
                orphans!(8, 24);
                orphans!(9, 0);
                orphans!(10, 8);
                orphans_fit = mand(
                    mand(
                        eq(outside, splat(0)),
                        eq(and(three, splat(0x8080_8080u32 as i32)), splat(0)),
                    ),
                    gt(splat(2), byte_sum(twos_v)),
                );
            }
            let size = add(tiles, mullo(min_u32(melds, splat(5)), splat(3)));
            let valid = mand(mand(counts_ok, gt(splat(5), melds)), eq(size, splat(14)));
            let mut other = mnone();
            if k.seven_pairs {
                other = mor(other, mnot(gt(odd, w)));
            }
            if k.thirteen_orphans {
                other = mor(other, orphans_fit);
            }
            let other = mand(other, mand(valid, eq(melds, splat(0))));
            let win = mor(mand(valid, mnot(gt(need, w))), other);
            (win, valid)
        }
    };
}

/// The table look-ups by scalar loads (AVX2, NEON): each lane's slot
/// made in an integer register.
mod by_loads {
    /// The suit entries of the lanes' natural keys (`lo`: the four low
    /// digits, `hi`: the five high ones), looked up as the scalar path
    /// looks them up, each lane's slot made in an integer register: the
    /// keys leave the vector once, packed two to a lane (`pairs`), and
    /// the entries come back as one word of bytes (`bytes_to_lanes`).
    /// Vector inserts from memory (three per lane as gathers) load the FP
    /// side's two load/store pipes of AMD's Zen cores, the bottleneck of
    /// the AVX2 kernel with them.
    macro_rules! suit_entries {
        ($ch:expr, $hi:expr, $lo:expr) => {{
            use crate::shape::tables::{HIGH_BASE, LOW_RANK};
            let (ch, hi, lo): (&Checker, V, V) = ($ch, $hi, $lo);
            // Masked as the scalar SuitIndex masks them, and scaled to
            // byte offsets (HIGH_BASE's entries are 4 bytes, LOW_RANK's 2),
            // so that a lane's two parts are one shift and one move each.
            let keys = pairs(or(
                slli::<18>(and(hi, splat(4095))),
                slli::<1>(and(lo, splat(1023))),
            ));
            let (high, low) = (
                HIGH_BASE.as_ptr().cast::<u8>(),
                LOW_RANK.as_ptr().cast::<u8>(),
            );
            let mut packed = 0u64;
            for (k, &x) in keys.iter().enumerate() {
                // SAFETY: `x >> 16` < 4 × 4096 and `x & 0xffff` < 2 × 1024,
                // multiples of 4 and 2: entries of HIGH_BASE and LOW_RANK.
                // A slot is below SUIT_KEYS + 625 ≤ SUIT_LEN (no
                // HIGH_BASE entry exceeds SUIT_KEYS, no LOW_RANK one 624),
                // so it needs no mask.
                let slot = unsafe {
                    high.add((x >> 16) as usize).cast::<u32>().read() as usize
                        + usize::from(low.add((x & 0xffff) as usize).cast::<u16>().read())
                };
                packed |= u64::from(unsafe { *ch.suit.get_unchecked(slot) }) << (8 * k);
            }
            bytes_to_lanes(packed)
        }};
    }

    /// The honor entries of the lanes' keys, as `suit_entries!` finds
    /// its own.
    macro_rules! honor_entries {
        ($ch:expr, $honor:expr) => {{
            use crate::shape::tables::HONOR_LEN;
            let (ch, honor): (&Checker, V) = ($ch, $honor);
            // Masked in the vector, once for the eight lanes.
            let keys = pairs(and(honor, splat(HONOR_LEN as i32 - 1)));
            let mut packed = 0u64;
            for (k, &x) in keys.iter().enumerate() {
                // SAFETY: `x` < HONOR_LEN (masked so).
                packed |= u64::from(unsafe { *ch.honor.get_unchecked(x as usize) }) << (8 * k);
            }
            bytes_to_lanes(packed)
        }};
    }

    pub(super) use {honor_entries, suit_entries};
}

/// AVX2: 8 hands per 256-bit vector.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use super::by_loads::{honor_entries, suit_entries};
    use super::{Checker, Counts};
    use crate::simd::ops::avx2::*;

    kernel!("avx2");
}

/// AVX-512 (F, BW, VL): 16 hands per 512-bit vector.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512 {
    use super::{Checker, Counts};
    use crate::shape::tables::HONOR_LEN;
    use crate::simd::ops::avx512::*;

    /// The suit entries of the lanes' natural keys (`lo`: the four low
    /// digits, `hi`: the five high ones): three gathers.
    macro_rules! suit_entries {
        ($ch:expr, $hi:expr, $lo:expr) => {{
            let (ch, hi, lo): (&Checker, V, V) = ($ch, $hi, $lo);
            let slot = crate::simd::ops::suit_slot!(hi, lo);
            // SAFETY: slot ≤ SUIT_LEN - 4: the word read lies inside
            // the table.
            and(unsafe { gather::<1>(ch.suit.as_ptr(), slot) }, splat(0xff))
        }};
    }

    /// The honor entries of the lanes' keys: one gather.
    macro_rules! honor_entries {
        ($ch:expr, $honor:expr) => {{
            let (ch, honor): (&Checker, V) = ($ch, $honor);
            let honor = min_u32(
                and(honor, splat(HONOR_LEN as i32 - 1)),
                splat(HONOR_LEN as i32 - 4),
            );
            // SAFETY: honor ≤ HONOR_LEN - 4: inside the table.
            and(
                unsafe { gather::<1>(ch.honor.as_ptr(), honor) },
                splat(0xff),
            )
        }};
    }

    kernel!("avx512f,avx512bw,avx512vl,avx2");
}

/// NEON: 4 hands per 128-bit vector.
#[cfg(target_arch = "aarch64")]
pub(crate) mod neon {
    use super::by_loads::{honor_entries, suit_entries};
    use super::{Checker, Counts};
    use crate::simd::ops::neon::*;

    kernel!("neon");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::ShapeRules;
    use crate::simd::Isa;
    use crate::tile::Tile;
    use crate::wildcard::Wildcards;

    /// A random row: a complete hand (4 sets and a pair, some tiles then
    /// swapped), random tiles, orphans only (maybe one tile moved), or
    /// (rarely) any bytes, with 0-4 melds.
    pub(crate) fn random_row(next: &mut impl FnMut() -> u64) -> (Counts, u8) {
        let mut c = [0u8; KINDS];
        let melds = (next() % 5) as u8;
        let size = 14 - 3 * melds as usize;
        match next() % 10 {
            // Orphans only (thirteen orphans, or near it), then maybe one
            // tile moved anywhere.
            8 | 9 => {
                let mut n = 0;
                while n < size {
                    let k = crate::tile::ORPHAN_KINDS[(next() % 13) as usize];
                    if c[k] < 4 && (c[k] < 2 || next().is_multiple_of(4)) {
                        c[k] += 1;
                        n += 1;
                    }
                }
                if next().is_multiple_of(2) {
                    let from = crate::tile::ORPHAN_KINDS[(next() % 13) as usize];
                    if c[from] > 0 {
                        c[from] -= 1;
                        c[(next() % KINDS as u64) as usize] += 1;
                    }
                }
            }
            0 => {
                for x in c.iter_mut() {
                    *x = if next().is_multiple_of(4) {
                        next() as u8
                    } else {
                        (next() % 6) as u8
                    };
                }
            }
            1..=3 => {
                let mut n = 0;
                while n < size {
                    let k = (next() % KINDS as u64) as usize;
                    if c[k] < 4 {
                        c[k] += 1;
                        n += 1;
                    }
                }
            }
            _ => {
                let p = (next() % KINDS as u64) as usize;
                c[p] += 2;
                for _ in 0..(size - 2) / 3 {
                    if next().is_multiple_of(2) {
                        let s = (next() % 3) as usize;
                        let r = (next() % 7) as usize;
                        for j in 0..3 {
                            c[9 * s + r + j] += 1;
                        }
                    } else {
                        c[(next() % KINDS as u64) as usize] += 3;
                    }
                }
                for _ in 0..next() % 3 {
                    let from = (next() % KINDS as u64) as usize;
                    if c[from] > 0 {
                        c[from] -= 1;
                        c[(next() % KINDS as u64) as usize] += 1;
                    }
                }
                if next().is_multiple_of(16) {
                    c[(next() % KINDS as u64) as usize] += 1;
                }
            }
        }
        (
            c,
            if next().is_multiple_of(64) {
                5 + (next() % 250) as u8
            } else {
                melds
            },
        )
    }

    /// Wild kind sets that reach every kind of place in a row: none, the
    /// ninth digit of a suit, an honor in each word, a low digit, two.
    pub(crate) fn wild_sets() -> Vec<Wildcards> {
        let w = |k: &[u8]| {
            Wildcards::new(
                &k.iter()
                    .map(|&i| Tile::from_index_unchecked(i))
                    .collect::<Vec<_>>(),
            )
            .unwrap()
        };
        vec![
            Wildcards::NONE,
            w(&[31]),
            w(&[8]),
            w(&[26]),
            w(&[30]),
            w(&[33]),
            w(&[0]),
            w(&[13, 27]),
            w(&[31, 33]),
            w(&[17, 4]),
            w(&[22, 32]),
        ]
    }

    /// Each kernel equals the scalar path row for row (and on the
    /// all-valid flag), with per-row and shared meld counts, on every
    /// shape option set and wild set, with blocks cut short.
    #[test]
    fn kernels_equal_the_scalar_path() {
        let mut next = crate::testing::xorshift(0x51D0_0000_0000_0001);
        let rows: Vec<(Counts, u8)> = (0..4099).map(|_| random_row(&mut next)).collect();
        let counts: Vec<Counts> = rows.iter().map(|r| r.0).collect();
        let melds: Vec<u8> = rows.iter().map(|r| r.1).collect();
        let all = ShapeRules::ALL;
        let rule_sets = [
            all,
            ShapeRules::STANDARD_ONLY,
            ShapeRules {
                seven_pairs: false,
                ..all
            },
            ShapeRules {
                thirteen_orphans: false,
                ..all
            },
            ShapeRules {
                wind_sets: false,
                ..all
            },
        ];
        let mut wins = 0;
        let mut orphan_wins = 0;
        for rules in rule_sets {
            for wilds in wild_sets() {
                let ch = Checker::new(&wilds, &rules);
                for (lo, hi) in [(0, counts.len()), (3, 40), (1, 17), (5, 5)] {
                    for ms in [&melds[lo..hi], &[0u8][..], &[1u8][..]] {
                        let c = &counts[lo..hi];
                        let mut want = vec![false; c.len()];
                        let want_ok = ch.check_rows(c, ms, &mut want);
                        for isa in Isa::ALL {
                            if isa == Isa::Scalar || !isa.available() {
                                continue;
                            }
                            let mut got = vec![true; c.len()];
                            let ok = ch.check_rows_on(isa, c, ms, &mut got);
                            assert_eq!(
                                (&got, ok),
                                (&want, want_ok),
                                "{isa} {rules:?} {wilds:?} {lo}..{hi}"
                            );
                        }
                        wins += want.iter().filter(|&&x| x).count();
                        // Wins of orphans only: thirteen orphans.
                        orphan_wins += want
                            .iter()
                            .zip(c)
                            .filter(|(&x, row)| {
                                x && (0..KINDS)
                                    .all(|k| row[k] == 0 || crate::tile::ORPHAN_KINDS.contains(&k))
                            })
                            .count();
                    }
                }
            }
        }
        assert!(wins > 10_000, "{wins}");
        assert!(orphan_wins > 1_000, "{orphan_wins}");
    }
}
