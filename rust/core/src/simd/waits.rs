//! The AVX2, AVX-512 and NEON kernels of `waits_batch`: the completing
//! kinds ([`completing_kinds`](crate::waits::completing_kinds)) of 8
//! (AVX2), 16 (AVX-512) or 4 (NEON) hands per vector, one hand per 32-bit
//! lane.
//!
//! A block's rows are read as the `is_win` kernel reads them (eleven
//! words per row, [`PIECES`], by `row_words!`): validity, tile and wild counts, the
//! natural group keys, then per group its need entry, and the entries of
//! the group with one more tile of each rank: a suit's from
//! [`SuitNeighbours`](crate::shape::tables::SuitNeighbours) (two word
//! gathers and one byte gather per suit), the honors' by seven byte
//! gathers. Each candidate rank's test is the scalar path's, four ranks
//! per lane word at once (`need1 ≤ lim` or `need0 ≤ lim − other`, by
//! bytes with no borrows), and the four results of a word become four
//! bits by one multiply. A gather is AVX-512's instruction, and with
//! AVX2 and NEON (which has none) one scalar load per lane (`gather` of
//! `simd/ops`).
//!
//! What the scalar path does besides, on few hands, the kernel leaves to
//! it, lane by lane: a row that is not a valid hand, a hand holding some
//! natural kind 4 times (its fifth copy is decided apart), and, without
//! melds, a hand seven pairs could complete (at most one more odd kind
//! than wild tiles) or whose natural tiles are all orphans. Every other
//! lane's answer is the scalar path's by the same arithmetic (tested on
//! every path against it and against the brute-force search).
//!
//! Every gather reads inside its table or its block, as in the `is_win`
//! kernel: suit slots clamped 3 below the end of the byte tables, the
//! honor key clamped so that its farthest neighbour (key + 5^6) is too;
//! no valid hand's index reaches a clamp.

use super::win::{Consts, PIECES};
use crate::shape::tables::{suit_neighbours, HONOR_LEN, POW5};
use crate::shape::win::Checker;
use crate::tile::Counts;
use crate::waits::{complete_row, five_copies};

/// What a block's lanes give: the completing kinds 0-31 (`low`) and
/// 32-33 (`high`) of each lane, the lanes (as bits) the scalar path must
/// redo (`scalar`), the lanes with a kind held 4 times naturally
/// (`four`), and for those the keys and needs [`five_copies`] takes.
struct Block<V> {
    low: V,
    high: V,
    scalar: u32,
    four: u32,
    keys: [V; 4],
    n0: [V; 4],
    d: [V; 4],
    w: V,
}

/// The kernel body, written once over each instruction set's lane
/// operations (`crate::simd::ops`), compiled with its target features.
macro_rules! kernel {
    ($features:literal) => {
        /// The completing kinds of each row of `rows` into `out`
        /// ([`complete_row`]'s answer: [`INVALID`](crate::waits::INVALID)
        /// for a row that is not a valid hand), in blocks of [`L`], the
        /// last `rows.len() % L` by the scalar path. `n_melds` holds one
        /// entry, or one per row.
        #[target_feature(enable = $features)]
        pub(crate) fn complete_rows(
            ch: &Checker,
            rows: &[Counts],
            n_melds: &[u8],
            out: &mut [u64],
        ) {
            assert!(out.len() == rows.len());
            let k = Consts::new(ch);
            let blocks = rows.len() / L;
            let one_meld = n_melds.len() == 1;
            let meld = |i: usize| usize::from(if one_meld { n_melds[0] } else { n_melds[i] });
            for b in 0..blocks {
                let at = b * L;
                let melds = if one_meld {
                    splat(i32::from(n_melds[0]))
                } else {
                    melds_of(&n_melds[at..at + L])
                };
                let r = block(ch, &k, &rows[at..at + L], melds);
                let (lo, hi) = (lanes(r.low), lanes(r.high));
                for j in 0..L {
                    out[at + j] = if r.scalar >> j & 1 == 1 {
                        complete_row(ch, &rows[at + j], meld(at + j))
                    } else {
                        u64::from(lo[j]) | u64::from(hi[j]) << 32
                    };
                }
                let fives = r.four & !r.scalar;
                if fives != 0 {
                    // A kind held 4 times: its bit by the scalar path's
                    // rule, from the lanes' keys and needs.
                    let keys = r.keys.map(|x| lanes(x));
                    let n0 = r.n0.map(|x| lanes(x));
                    let d = r.d.map(|x| lanes(x));
                    let w = lanes(r.w);
                    let mut f = fives;
                    while f != 0 {
                        let j = f.trailing_zeros() as usize;
                        f &= f - 1;
                        let (_, fours) = ch.natural_bits(&rows[at + j]);
                        let n0 = n0.map(|x| x[j] as i32);
                        out[at + j] = five_copies(
                            ch,
                            out[at + j],
                            fours,
                            &keys.map(|x| x[j]),
                            &n0,
                            &d.map(|x| x[j] as i32),
                            n0.iter().sum(),
                            w[j] as i32,
                        );
                    }
                }
            }
            for i in blocks * L..rows.len() {
                out[i] = complete_row(ch, &rows[i], meld(i));
            }
        }

        /// One block of [`L`] rows: the completing kinds 0-31 and 32-33
        /// of each lane, and the lanes (as bits) the scalar path must
        /// redo.
        #[target_feature(enable = $features)]
        #[inline]
        fn block(ch: &Checker, k: &Consts, rows: &[Counts], melds: V) -> Block<V> {
            assert!(rows.len() == L);
            let nb = suit_neighbours();
            let base = rows.as_ptr().cast::<u8>();
            // SAFETY: the `L` rows checked above (`34 × L` bytes); the
            // offsets are at most 30 (PIECES).
            let words: [V; 11] = unsafe { piece_words!(base, PIECES) };
            let mut top = words[0];
            for &w in &words[1..] {
                top = max_u8(top, w);
            }
            let counts_ok = bytes_at_most_4(top);
            let ones = splat(0x0101_0101);
            let mut tiles_v = splat(0);
            let mut natural_v = splat(0);
            let mut odd_v = splat(0);
            let mut outside = splat(0);
            let mut held = splat(0);
            let mut nat = [splat(0); 11];
            // Unrolled by hand, so that each shift is an immediate.
            macro_rules! piece {
                ($i:literal, $shift:literal) => {{
                    const _: () = assert!(PIECES[$i].1 == $shift);
                    nat[$i] = and(words[$i], splat(k.keep[$i] as i32));
                    tiles_v = add(tiles_v, srli::<$shift>(words[$i]));
                    let x = srli::<$shift>(nat[$i]);
                    natural_v = add(natural_v, x);
                    odd_v = add(odd_v, and(x, ones));
                    outside = or(outside, and(x, splat(k.outside[$i] as i32)));
                    held = or(held, x);
                }};
            }
            piece!(0, 0);
            piece!(1, 0);
            piece!(2, 24);
            piece!(3, 0);
            piece!(4, 0);
            piece!(5, 24);
            piece!(6, 0);
            piece!(7, 0);
            piece!(8, 24);
            piece!(9, 0);
            piece!(10, 8);
            let tiles = byte_sum(tiles_v);
            let w = sub(tiles, byte_sum(natural_v));
            let odd = byte_sum(odd_v);
            let valid = mand(
                mand(counts_ok, gt(splat(5), melds)),
                eq(
                    add(tiles, mullo(min_u32(melds, splat(5)), splat(3))),
                    splat(13),
                ),
            );
            // Left to the scalar path: invalid rows, a natural count of 4
            // (bit 2, the counts being ≤ 4), and without melds the
            // seven pairs and thirteen orphans candidates.
            let four = mnot(eq(and(held, splat(0x0404_0404)), splat(0)));
            let mut special = mnone();
            if k.seven_pairs {
                special = mor(special, mnot(gt(odd, add(w, splat(1)))));
            }
            if k.thirteen_orphans {
                special = mor(special, eq(outside, splat(0)));
            }
            let scalar = mor(mnot(valid), mand(special, eq(melds, splat(0))));
            // The natural keys: four base-5 digits by two multiply-adds.
            let key4 = |x: V| madd(maddubs(x, splat(0x0501_0501)), splat(0x0019_0001));
            let pow5_4 = splat(625);
            let mut slot = [splat(0); 3];
            let mut keys = [splat(0); 4];
            let mut e = [splat(0); 4];
            for s in 0..3 {
                let lo = key4(nat[3 * s]);
                let hi = add(
                    key4(nat[3 * s + 1]),
                    mullo(srli::<24>(nat[3 * s + 2]), pow5_4),
                );
                keys[s] = add(lo, mullo(hi, pow5_4));
                slot[s] = crate::simd::ops::suit_slot!(hi, lo);
                // SAFETY: slot ≤ SUIT_LEN - 4: the word read lies inside
                // the table.
                e[s] = and(
                    unsafe { gather::<1>(ch.suit.as_ptr(), slot[s]) },
                    splat(0xff),
                );
            }
            let honor = add(key4(nat[9]), mullo(key4(srli::<8>(nat[10])), pow5_4));
            let far = (HONOR_LEN - 4) as i32 - POW5[6] as i32;
            let honor = min_u32(and(honor, splat(HONOR_LEN as i32 - 1)), splat(far));
            keys[3] = honor;
            // SAFETY: honor + 5^6 ≤ HONOR_LEN - 4: inside the table.
            let honor_at = |p: u32| -> V {
                and(
                    unsafe { gather::<1>(ch.honor.as_ptr(), add(honor, splat(p as i32))) },
                    splat(0xff),
                )
            };
            e[3] = honor_at(0);
            let n0 = e.map(|x| and(x, splat(15)));
            let d: [V; 4] = std::array::from_fn(|g| sub(srli::<4>(e[g]), n0[g]));
            let sum0 = add(add(n0[0], n0[1]), add(n0[2], n0[3]));
            let (m01, m23) = (min_i32(d[0], d[1]), min_i32(d[2], d[3]));
            let other = [
                min_i32(d[1], m23),
                min_i32(d[0], m23),
                min_i32(m01, d[3]),
                min_i32(m01, d[2]),
            ];
            let byte_ones = splat(0x0101_0101);
            let nibbles = splat(0x0f0f_0f0f);
            let clamp16 = |x: V| max_i32(min_i32(x, splat(16)), splat(0));
            // The ranks of one word of entries (byte r: rank r's) that
            // complete the group, as bits 0-3: per byte, `t + 0x7f − v`
            // has bit 7 set iff v < t (no borrows: t ≤ 16, v ≤ 15).
            let test4 = |xs: V, t1: V, t0: V| -> V {
                let hi = and(srli::<4>(xs), nibbles);
                let lo = and(xs, nibbles);
                let ok = and(or(sub(t1, hi), sub(t0, lo)), splat(0x8080_8080u32 as i32));
                srli::<28>(mullo(srli::<7>(ok), splat(0x1020_4080)))
            };
            // The thresholds of group g as bytes: t1 = lim + 1, t0 =
            // lim − other + 1, each clamped to 0..=16, plus 0x7f.
            let limits = |g: usize| -> (V, V) {
                let lim = add(sub(w, sum0), n0[g]);
                let t1 = clamp16(add(lim, splat(1)));
                let t0 = clamp16(add(sub(lim, other[g]), splat(1)));
                let bias = splat(0x7f7f_7f7f);
                (
                    add(mullo(t1, byte_ones), bias),
                    add(mullo(t0, byte_ones), bias),
                )
            };
            let mut low = splat(0);
            let first8 = nb.first8.as_ptr().cast::<u8>();
            for s in 0..3 {
                let (t1, t0) = limits(s);
                // SAFETY: slot < SUIT_LEN: the 8-byte entry read (as two
                // words) and the byte word (slot ≤ SUIT_LEN - 4) lie
                // inside their tables.
                let (a, b, c) = unsafe {
                    (
                        gather::<8>(first8, slot[s]),
                        gather::<8>(first8.add(4), slot[s]),
                        and(gather::<1>(nb.ninth.as_ptr(), slot[s]), splat(0xff)),
                    )
                };
                let suit = or(
                    or(test4(a, t1, t0), slli::<4>(test4(b, t1, t0))),
                    slli::<8>(and(test4(c, t1, t0), splat(1))),
                );
                low = or(
                    low,
                    match s {
                        0 => suit,
                        1 => slli::<9>(suit),
                        _ => slli::<18>(suit),
                    },
                );
            }
            let (t1, t0) = limits(3);
            let h = |r: usize| honor_at(POW5[r]);
            let w0 = or(
                or(h(0), slli::<8>(h(1))),
                or(slli::<16>(h(2)), slli::<24>(h(3))),
            );
            let w1 = or(or(h(4), slli::<8>(h(5))), slli::<16>(h(6)));
            let honors = or(
                test4(w0, t1, t0),
                slli::<4>(and(test4(w1, t1, t0), splat(7))),
            );
            low = or(low, slli::<27>(honors));
            Block {
                low,
                high: srli::<5>(honors),
                scalar: bits(scalar),
                four: bits(four),
                keys,
                n0,
                d,
                w,
            }
        }
    };
}

/// AVX2: 8 hands per 256-bit vector.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use super::*;
    use crate::simd::ops::avx2::*;

    kernel!("avx2");
}

/// AVX-512 (F, BW, VL): 16 hands per 512-bit vector.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512 {
    use super::*;
    use crate::simd::ops::avx512::*;

    kernel!("avx512f,avx512bw,avx512vl,avx2");
}

/// NEON: 4 hands per 128-bit vector.
#[cfg(target_arch = "aarch64")]
pub(crate) mod neon {
    use super::*;
    use crate::simd::ops::neon::*;

    kernel!("neon");
}
