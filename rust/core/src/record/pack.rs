//! The packed observation: a row of planes stored losslessly in a few
//! bytes by each plane's form.
//!
//! Each plane is stored by its form in the layout: a plane of 0/1 per
//! kind as 34 bits (5 bytes, bit `k % 8` of byte `k / 8`), a plane of
//! small counts per kind as 34 nibbles (17 bytes, kind `k` in the low
//! nibble of byte `k / 2` when `k` is even, else the high one), a plane
//! constant across kinds as its one value (a byte), and a plane with one
//! value 1-3 at one kind at most (version 2's recent discards) as one
//! byte, `0` for none or `1 + 34 (v - 1) + k`, and a plane of whole
//! numbers up to 255 per kind (version 3's improving-tile counts) as 34
//! bytes. Version 3 packs its 2,686 values into [`OBS_BYTES`] = 426
//! bytes (version 2's 258, then the look-ahead planes' 168); version 2
//! (the datasets written before version 3 was recorded) its 2,244 into
//! [`OBS_BYTES_V2`] = 258; version 1 (29 planes, before version 2) into
//! [`OBS_BYTES_V1`] = 201 (its plane 24, live tiles / 136, as the count).
//! Packing is lossless, and checked: a row that does not fit its layout
//! is an error, never a silent loss. [`unpack_planes`] gives the planes
//! back exactly.

use crate::agent::greedy::lookahead::LOOKAHEAD_PLANES;
use crate::error::Error;
use crate::game::encode::{Encoding, N_PLANES, RECENT_DISCARDS};
use crate::game::N_ACTIONS;
use crate::tile::KINDS;

/// Version of the packed observation layout of [`OBS_BYTES`] rows (1 is
/// the layout of [`OBS_BYTES_V1`] rows, 2 of [`OBS_BYTES_V2`] rows).
pub const OBS_PACK_VERSION: u32 = 3;

/// The observation encoding the rows pack: version 3, version 2's planes
/// and the look-ahead planes (a learner needs them; the recorder has the
/// table).
pub const OBS_ENCODING_VERSION: u32 = RECORDED.version();

/// The encoding recorded.
const RECORDED: Encoding = Encoding::V3;

/// How one plane is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// 0 or 1 per kind: 34 bits.
    Bits,
    /// A whole number 0-15 per kind: 34 nibbles.
    Nibbles,
    /// One whole number 0-255 for every kind.
    Constant,
    /// A value 1-3 at one kind at most, zeros elsewhere: one byte.
    OneHot,
    /// A whole number 0-255 per kind: 34 bytes.
    Bytes,
}

pub(super) const BITS_BYTES: usize = KINDS.div_ceil(8);
pub(super) const NIBBLES_BYTES: usize = KINDS.div_ceil(2);

/// The form of each plane of version 1 (see [`encode`]'s table): melds,
/// discards and face-up wall tiles are counts; the seat flags, live tiles
/// and the question asked are constant rows.
const FORMS_V1: [Form; N_PLANES] = {
    let mut f = [Form::Bits; N_PLANES];
    let mut p = 5;
    while p <= 12 {
        f[p] = Form::Nibbles;
        p += 1;
    }
    f[14] = Form::Nibbles;
    let mut p = 16;
    while p < N_PLANES {
        f[p] = Form::Constant;
        p += 1;
    }
    f
};

/// Planes of version 2.
pub(super) const N_PLANES_V2: usize = Encoding::V2.n_planes();

/// The form of each plane of version 2: version 1's for planes 0-28, the
/// 过胡 locks and claimed-from melds as bits, concealed counts and scores
/// as constant rows, each recent discard as one kind at most.
pub(super) const FORMS_V2: [Form; N_PLANES_V2] = {
    let mut f = [Form::Bits; N_PLANES_V2];
    let mut p = 0;
    while p < N_PLANES {
        f[p] = FORMS_V1[p];
        p += 1;
    }
    let mut p = 34;
    while p < 42 {
        f[p] = Form::Constant;
        p += 1;
    }
    while p < 42 + 4 * RECENT_DISCARDS {
        f[p] = Form::OneHot;
        p += 1;
    }
    f
};

/// The form of each look-ahead plane (`agent/greedy/lookahead.rs`'s
/// table): levels and unseen copies as counts, tile counts and values as
/// bytes, the danger and greedy's choice as bits, the hand's levels, the
/// flag and greedy's choice's code as constant rows.
pub(super) const FORMS_LOOKAHEAD: [Form; LOOKAHEAD_PLANES] = [
    Form::Nibbles,
    Form::Bytes,
    Form::Bits,
    Form::Bytes,
    Form::Bytes,
    Form::Nibbles,
    Form::Constant,
    Form::Constant,
    Form::Constant,
    Form::Nibbles,
    Form::Constant,
    Form::Bits,
    Form::Constant,
];

/// Planes of version 3.
pub(super) const N_PLANES_V3: usize = Encoding::V3.n_planes();

/// The form of each plane of version 3: version 2's, then the look-ahead
/// planes' (so a packed version 3 row is a packed version 2 row followed
/// by the packed look-ahead planes).
pub(super) const FORMS_V3: [Form; N_PLANES_V3] = {
    let mut f = [Form::Bits; N_PLANES_V3];
    let mut p = 0;
    while p < N_PLANES_V2 {
        f[p] = FORMS_V2[p];
        p += 1;
    }
    while p < N_PLANES_V3 {
        f[p] = FORMS_LOOKAHEAD[p - N_PLANES_V2];
        p += 1;
    }
    f
};

pub(super) const fn form_bytes(f: Form) -> usize {
    match f {
        Form::Bits => BITS_BYTES,
        Form::Nibbles => NIBBLES_BYTES,
        Form::Constant | Form::OneHot => 1,
        Form::Bytes => KINDS,
    }
}

/// The forms of `enc`'s planes.
const fn forms(enc: Encoding) -> &'static [Form] {
    match enc {
        Encoding::V1 => &FORMS_V1,
        Encoding::V2 => &FORMS_V2,
        Encoding::V3 => &FORMS_V3,
    }
}

const fn packed_bytes(forms: &[Form]) -> usize {
    let mut n = 0;
    let mut p = 0;
    while p < forms.len() {
        n += form_bytes(forms[p]);
        p += 1;
    }
    n
}

/// Bytes of one packed observation of the recorded encoding (version 3).
pub const OBS_BYTES: usize = packed_bytes(&FORMS_V3);

/// Bytes of one packed version 2 observation (pack version 2: datasets
/// recorded before version 3 was).
pub const OBS_BYTES_V2: usize = packed_bytes(&FORMS_V2);

/// Bytes of the packed look-ahead planes that end a version 3 row.
pub(super) const LOOKAHEAD_BYTES: usize = packed_bytes(&FORMS_LOOKAHEAD);

/// Bytes of one packed version 1 observation (pack version 1).
pub const OBS_BYTES_V1: usize = packed_bytes(&FORMS_V1);

/// Bytes of one packed legal mask.
pub const MASK_BYTES: usize = N_ACTIONS.div_ceil(8);

/// Bytes of one packed observation of `enc`.
pub const fn obs_bytes(enc: Encoding) -> usize {
    match enc {
        Encoding::V1 => OBS_BYTES_V1,
        Encoding::V2 => OBS_BYTES_V2,
        Encoding::V3 => OBS_BYTES,
    }
}

/// The encoding whose packed rows are `width` bytes wide.
pub fn encoding_of_width(width: usize) -> Result<Encoding, Error> {
    match width {
        OBS_BYTES => Ok(Encoding::V3),
        OBS_BYTES_V2 => Ok(Encoding::V2),
        OBS_BYTES_V1 => Ok(Encoding::V1),
        w => Err(Error::InvalidArgument(format!(
            "a packed observation is {OBS_BYTES} bytes (encoding version 3), {OBS_BYTES_V2} \
             (version 2) or {OBS_BYTES_V1} (version 1), not {w}"
        ))),
    }
}

pub(super) fn unfit(p: usize, form: Form) -> Error {
    Error::InvalidArgument(format!(
        "plane {p} does not fit its packed form ({form:?}): not an observation of this encoding"
    ))
}

/// The 8 bytes of `row` from `at` as a little-endian word.
#[inline]
pub(super) fn word(row: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&row[at..at + 8]);
    u64::from_le_bytes(w)
}

pub(super) const ONES: u64 = 0x0101_0101_0101_0101;

/// Packs the whole-number planes `row` (`forms.len() × 34` values) into
/// `out` (every byte written), or the error naming the first plane that
/// does not fit. Eight values at a time (the 34 of a plane as four words
/// and two bytes): this runs for every recorded decision.
pub(super) fn pack_row(forms: &[Form], row: &[u8], out: &mut [u8]) -> Result<(), Error> {
    // By runs of planes of one form (nine in version 2): one dispatch a
    // run, and monomorphic inner loops the branch predictor follows.
    let (mut p, mut at) = (0, 0);
    while p < forms.len() {
        let form = forms[p];
        let mut q = p + 1;
        while q < forms.len() && forms[q] == form {
            q += 1;
        }
        let width = form_bytes(form);
        let planes = row[p * KINDS..q * KINDS].chunks_exact(KINDS);
        let outs = out[at..at + (q - p) * width].chunks_exact_mut(width);
        let fits = match form {
            Form::Bits => planes
                .zip(outs)
                .fold(true, |ok, (r, o)| pack_bits(r, o) & ok),
            Form::Nibbles => planes
                .zip(outs)
                .fold(true, |ok, (r, o)| pack_nibbles(r, o) & ok),
            Form::Constant => planes
                .zip(outs)
                .fold(true, |ok, (r, o)| pack_constant(r, o) & ok),
            Form::OneHot => planes
                .zip(outs)
                .fold(true, |ok, (r, o)| pack_one_hot(r, o) & ok),
            Form::Bytes => {
                for (r, o) in planes.zip(outs) {
                    o.copy_from_slice(r);
                }
                true
            }
        };
        if !fits {
            // Name the first plane of the run that does not fit.
            let bad = (p..q)
                .find(|&x| {
                    let r = &row[x * KINDS..(x + 1) * KINDS];
                    let mut o = [0u8; NIBBLES_BYTES];
                    !match form {
                        Form::Bits => pack_bits(r, &mut o),
                        Form::Nibbles => pack_nibbles(r, &mut o),
                        Form::Constant => pack_constant(r, &mut o),
                        Form::OneHot => pack_one_hot(r, &mut o),
                        Form::Bytes => true,
                    }
                })
                .unwrap_or(p);
            return Err(unfit(bad, form));
        }
        at += (q - p) * width;
        p = q;
    }
    Ok(())
}

/// The eight bytes of 0/1 of `w` as eight bits, byte i to bit i: the
/// multiply gathers each byte's low bit into the top byte.
#[inline(always)]
pub(super) fn gather_bits(w: u64) -> u64 {
    w.wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// Bytes of 0/1, byte i to bit i. Whether every value fits.
#[inline]
fn pack_bits(row: &[u8], out: &mut [u8]) -> bool {
    let mut bits = 0u64;
    let mut over = 0u64;
    for c in 0..4 {
        let w = word(row, 8 * c);
        over |= w & !ONES;
        bits |= gather_bits(w) << (8 * c);
    }
    let (a, b) = (row[32], row[33]);
    over |= u64::from((a | b) & !1);
    bits |= u64::from(a) << 32 | u64::from(b) << 33;
    out[..BITS_BYTES].copy_from_slice(&bits.to_le_bytes()[..BITS_BYTES]);
    over == 0
}

#[inline]
pub(super) fn pack_nibbles(row: &[u8], out: &mut [u8]) -> bool {
    let mut over = 0u64;
    for c in 0..4 {
        let w = word(row, 8 * c);
        over |= w & !(15 * ONES);
        // Byte 2j of `w | w >> 4` is value 2j, value 2j + 1 as its high
        // nibble; gather the even bytes.
        let mut z = (w | w >> 4) & 0x00FF_00FF_00FF_00FF;
        z = (z | z >> 8) & 0x0000_FFFF_0000_FFFF;
        z = (z | z >> 16) & 0xFFFF_FFFF;
        out[4 * c..4 * c + 4].copy_from_slice(&(z as u32).to_le_bytes());
    }
    let (a, b) = (row[32], row[33]);
    over |= u64::from((a | b) & !15);
    out[16] = a | b << 4;
    over == 0
}

#[inline]
fn pack_constant(row: &[u8], out: &mut [u8]) -> bool {
    let v = row[0];
    let splat = u64::from(v) * ONES;
    out[0] = v;
    (0..4).all(|c| word(row, 8 * c) == splat) && row[32] == v && row[33] == v
}

#[inline]
fn pack_one_hot(row: &[u8], out: &mut [u8]) -> bool {
    // Nearly every plane is all zeros: a word at a time.
    let mut code = 0u8;
    let mut fits = true;
    let mut put = |k: usize, v: u8| {
        fits &= code == 0 && v <= 3;
        code = 1 + 34 * (v.min(3) - 1) + k as u8;
    };
    for c in 0..4 {
        let mut w = word(row, 8 * c);
        while w != 0 {
            let i = w.trailing_zeros() as usize / 8;
            put(8 * c + i, (w >> (8 * i)) as u8);
            w &= !(0xFF << (8 * i));
        }
    }
    for (k, &v) in row.iter().enumerate().skip(32) {
        if v != 0 {
            put(k, v);
        }
    }
    out[0] = code;
    fits
}

/// The whole-number planes packed by [`pack_row`], into `out`.
pub(super) fn unpack_row(forms: &[Form], packed: &[u8], out: &mut [u8]) {
    let mut at = 0;
    for (row, &form) in out.chunks_exact_mut(KINDS).zip(forms) {
        match form {
            Form::Bits => {
                for (k, v) in row.iter_mut().enumerate() {
                    *v = (packed[at + k / 8] >> (k % 8)) & 1;
                }
            }
            Form::Nibbles => {
                for (k, v) in row.iter_mut().enumerate() {
                    *v = (packed[at + k / 2] >> (4 * (k % 2))) & 15;
                }
            }
            Form::Constant => row.fill(packed[at]),
            Form::Bytes => row.copy_from_slice(&packed[at..at + KINDS]),
            Form::OneHot => {
                row.fill(0);
                if let Some(c) = packed[at].checked_sub(1) {
                    if let Some(v) = row.get_mut(usize::from(c % 34)) {
                        *v = 1 + c / 34;
                    }
                }
            }
        }
        at += form_bytes(form);
    }
}

/// Version 1's plane 24 (live tiles / 136) as a whole number.
const LIVE_PLANE: usize = 24;
const LIVE_SCALE: f32 = 136.0;

/// Packs version 2 planes (`u8`, as [`crate::game::encode::encode_into`] writes them)
/// into `out` ([`OBS_BYTES_V2`] bytes, overwritten). Errors if a plane does
/// not fit its form (never for an encoded observation).
///
/// ```
/// use koudian_core::game::encode::{encode_into, Encoding};
/// use koudian_core::game::Game;
/// use koudian_core::record::{pack_planes, unpack_planes, OBS_BYTES_V2};
/// use koudian_core::Ruleset;
/// let g = Game::new(&Ruleset::shanxi(), 3, None).unwrap();
/// let mut planes = [0u8; 66 * 34];
/// encode_into(&g.observe(0), Encoding::V2, &mut planes).unwrap();
/// let mut packed = [0u8; OBS_BYTES_V2];
/// pack_planes(&planes, &mut packed).unwrap();
/// let mut back = [0u8; 66 * 34];
/// unpack_planes(&packed, &mut back);
/// assert_eq!(back, planes);
/// ```
pub fn pack_planes(
    planes: &[u8; Encoding::V2.len()],
    out: &mut [u8; OBS_BYTES_V2],
) -> Result<(), Error> {
    pack_row(&FORMS_V2, planes, out)
}

/// The version 2 planes packed by [`pack_planes`], into `out`.
pub fn unpack_planes(packed: &[u8; OBS_BYTES_V2], out: &mut [u8; Encoding::V2.len()]) {
    unpack_row(&FORMS_V2, packed, out);
}

/// Packs the whole-number planes `planes` of `enc` (version 2 or 3: `u8`
/// rows of `enc.len()` values) into `out` ([`obs_bytes`]`(enc)` bytes,
/// overwritten). Errors on other lengths or versions, or when a plane
/// does not fit its form.
///
/// ```
/// use koudian_core::game::encode::Encoding;
/// use koudian_core::record::{pack_encoded, unpack_encoded, obs_bytes};
/// let mut planes = vec![0u8; Encoding::V3.len()];
/// planes[66 * 34 + 34 + 5] = 200; // improving tiles of a discard: a byte
/// let mut packed = vec![0u8; obs_bytes(Encoding::V3)];
/// pack_encoded(Encoding::V3, &planes, &mut packed).unwrap();
/// let mut back = vec![9u8; Encoding::V3.len()];
/// unpack_encoded(Encoding::V3, &packed, &mut back).unwrap();
/// assert_eq!(back, planes);
/// ```
pub fn pack_encoded(enc: Encoding, planes: &[u8], out: &mut [u8]) -> Result<(), Error> {
    check_lengths(enc, planes.len(), out.len())?;
    pack_row(forms(enc), planes, out)
}

/// The planes of `enc` (version 2 or 3) packed by [`pack_encoded`], into
/// `out`; errors on other lengths or versions.
pub fn unpack_encoded(enc: Encoding, packed: &[u8], out: &mut [u8]) -> Result<(), Error> {
    check_lengths(enc, out.len(), packed.len())?;
    unpack_row(forms(enc), packed, out);
    Ok(())
}

fn check_lengths(enc: Encoding, planes: usize, packed: usize) -> Result<(), Error> {
    if enc == Encoding::V1 || planes != enc.len() || packed != obs_bytes(enc) {
        return Err(Error::InvalidArgument(format!(
            "packing encoding version {} takes rows of {} values into {} bytes, not {planes} \
             into {packed} (version 1 packs with pack_obs)",
            enc.version(),
            enc.len(),
            obs_bytes(enc)
        )));
    }
    Ok(())
}

/// Packs the planes of [`crate::game::encode::planes`] (version 1) into `out`
/// ([`OBS_BYTES_V1`] bytes, overwritten): the layout of datasets
/// recorded before version 2 was.
///
/// ```
/// use koudian_core::game::{encode, Game};
/// use koudian_core::record::{pack_obs, unpack_obs, OBS_BYTES_V1};
/// use koudian_core::Ruleset;
/// let g = Game::new(&Ruleset::shanxi(), 3, None).unwrap();
/// let planes = encode::planes(&g.observe(0));
/// let mut packed = [0u8; OBS_BYTES_V1];
/// pack_obs(&planes, &mut packed).unwrap();
/// let mut back = [0f32; encode::N_PLANES * 34];
/// unpack_obs(&packed, &mut back);
/// assert_eq!(back, planes);
/// ```
pub fn pack_obs(
    planes: &[f32; N_PLANES * KINDS],
    out: &mut [u8; OBS_BYTES_V1],
) -> Result<(), Error> {
    let mut row = [0u8; N_PLANES * KINDS];
    for (i, (r, &v)) in row.iter_mut().zip(planes.iter()).enumerate() {
        // Plane 24 is `n / 136`: times 136 it is `n` up to rounding.
        let (v, slack) = if i / KINDS == LIVE_PLANE {
            (v * LIVE_SCALE, 1e-3)
        } else {
            (v, 0.0)
        };
        let whole = v.round();
        if (whole - v).abs() > slack || !(0.0..=255.0).contains(&whole) {
            return Err(unfit(i / KINDS, FORMS_V1[i / KINDS]));
        }
        *r = whole as u8;
    }
    pack_row(&FORMS_V1, &row, out)
}

/// The version 1 planes packed by [`pack_obs`], written to `out`
/// (`N_PLANES × 34` values, row-major).
pub fn unpack_obs(packed: &[u8; OBS_BYTES_V1], out: &mut [f32]) {
    let mut row = [0u8; N_PLANES * KINDS];
    unpack_row(&FORMS_V1, packed, &mut row);
    for (i, (o, &v)) in out.iter_mut().zip(row.iter()).enumerate() {
        *o = if i / KINDS == LIVE_PLANE {
            f32::from(v) / LIVE_SCALE
        } else {
            f32::from(v)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{builtin, Agent};
    use crate::game::encode;
    use crate::game::Game;
    use crate::ruleset::Ruleset;

    fn rulesets() -> Vec<Ruleset> {
        let tile_locks =
            Ruleset::from_toml("family = \"shanxi\"\npass_scope = \"tile\"\n").unwrap();
        vec![
            Ruleset::shanxi(),
            Ruleset::sichuan(),
            Ruleset::linxian(),
            tile_locks,
        ]
    }

    /// The packed observation gives back the planes exactly, in both
    /// encodings, for every seat at every decision of many random hands
    /// of every family.
    #[test]
    fn packing_is_lossless() {
        for rules in rulesets() {
            for seed in 0..30 {
                let mut g = Game::new(&rules, seed, None).unwrap();
                g.set_scores([seed as i64 * 37 - 400, 0, 200, -3]);
                let mut agents: [Box<dyn Agent>; 4] =
                    std::array::from_fn(|s| builtin("random", seed * 4 + s as u64).unwrap());
                while let Some(seat) = g.to_act() {
                    for s in 0..4 {
                        let o = g.observe(s);
                        let p = encode::planes(&o);
                        let mut packed = [0u8; OBS_BYTES_V1];
                        pack_obs(&p, &mut packed).unwrap();
                        let mut back = [0f32; N_PLANES * KINDS];
                        unpack_obs(&packed, &mut back);
                        assert_eq!(back, p, "v1 seed {seed} seat {s}");
                        let mut p2 = [0u8; Encoding::V2.len()];
                        encode::encode_into(&o, Encoding::V2, &mut p2).unwrap();
                        let mut packed = [0u8; OBS_BYTES_V2];
                        pack_planes(&p2, &mut packed).unwrap();
                        let mut back = [0u8; Encoding::V2.len()];
                        unpack_planes(&packed, &mut back);
                        assert_eq!(back, p2, "v2 seed {seed} seat {s}");
                        let mut p3 = vec![0u8; Encoding::V3.len()];
                        encode::write(
                            &crate::game::view::GameView::new(&g, s),
                            Encoding::V3,
                            &mut p3,
                        );
                        assert_eq!(p3[..p2.len()], p2[..], "v3 starts as v2");
                        let mut packed = vec![0u8; OBS_BYTES];
                        pack_encoded(Encoding::V3, &p3, &mut packed).unwrap();
                        let mut back = vec![0u8; Encoding::V3.len()];
                        unpack_encoded(Encoding::V3, &packed, &mut back).unwrap();
                        assert_eq!(back, p3, "v3 seed {seed} seat {s}");
                    }
                    let a = agents[seat as usize].act(&crate::agent::SeatView::new(&g, seat));
                    if g.step(a).is_err() {
                        let first = g.legal_actions().iter().next().unwrap();
                        g.step(first).unwrap();
                    }
                }
            }
        }
    }

    /// The one-value-at-a-time packer `pack_row` replaced: its reference.
    fn reference_pack(forms: &[Form], row: &[u8], out: &mut [u8]) -> Result<(), Error> {
        let mut at = 0;
        for (p, (row, &form)) in row.chunks_exact(KINDS).zip(forms).enumerate() {
            match form {
                Form::Bits => {
                    let mut bits = 0u64;
                    let mut over = 0u8;
                    for (k, &v) in row.iter().enumerate() {
                        bits |= u64::from(v & 1) << k;
                        over |= v & !1;
                    }
                    if over != 0 {
                        return Err(unfit(p, form));
                    }
                    out[at..at + BITS_BYTES].copy_from_slice(&bits.to_le_bytes()[..BITS_BYTES]);
                }
                Form::Nibbles => {
                    let mut over = 0u8;
                    for (o, pair) in out[at..at + NIBBLES_BYTES]
                        .iter_mut()
                        .zip(row.chunks_exact(2))
                    {
                        over |= (pair[0] | pair[1]) & !15;
                        *o = pair[0] | (pair[1] << 4);
                    }
                    if over != 0 {
                        return Err(unfit(p, form));
                    }
                }
                Form::Constant => {
                    if row.iter().any(|&v| v != row[0]) {
                        return Err(unfit(p, form));
                    }
                    out[at] = row[0];
                }
                Form::OneHot => {
                    let mut code = 0u8;
                    for (k, &v) in row.iter().enumerate() {
                        if v != 0 {
                            if code != 0 || v > 3 {
                                return Err(unfit(p, form));
                            }
                            code = 1 + 34 * (v - 1) + k as u8;
                        }
                    }
                    out[at] = code;
                }
                Form::Bytes => out[at..at + KINDS].copy_from_slice(row),
            }
            at += form_bytes(form);
        }
        Ok(())
    }

    /// The word-at-a-time packer writes the reference's bytes, and
    /// refuses what it refuses, on random rows of every form (values
    /// drawn mostly in range, sometimes out of it).
    #[test]
    fn packing_matches_the_reference_on_random_rows() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let (mut fast, mut slow) = ([0u8; OBS_BYTES_V2], [0u8; OBS_BYTES_V2]);
        let mut refused = 0;
        for n in 0..20_000 {
            let mut row = [0u8; Encoding::V2.len()];
            for (p, plane) in row.chunks_exact_mut(KINDS).enumerate() {
                let wild = n % 7 == 0 && rng.next_u32() % 40 == 0;
                match FORMS_V2[p] {
                    Form::Bits => plane
                        .iter_mut()
                        .for_each(|v| *v = (rng.next_u32() % 2) as u8),
                    Form::Nibbles => plane
                        .iter_mut()
                        .for_each(|v| *v = (rng.next_u32() % 16) as u8),
                    Form::Constant => plane.fill(rng.next_u32() as u8),
                    Form::Bytes => plane.iter_mut().for_each(|v| *v = rng.next_u32() as u8),
                    Form::OneHot => {
                        if rng.next_u32() % 2 == 0 {
                            plane[(rng.next_u32() % 34) as usize] = 1 + (rng.next_u32() % 3) as u8;
                        }
                    }
                }
                if wild {
                    plane[(rng.next_u32() % 34) as usize] = rng.next_u32() as u8;
                }
            }
            let a = pack_row(&FORMS_V2, &row, &mut fast);
            let b = reference_pack(&FORMS_V2, &row, &mut slow);
            assert_eq!(a.is_ok(), b.is_ok(), "row {n}");
            if a.is_ok() {
                assert_eq!(fast, slow, "row {n}");
            } else {
                refused += 1;
            }
        }
        assert!(refused > 50, "{refused}");
    }

    /// A row that does not fit its layout is refused, not packed lossily.
    #[test]
    fn rows_that_do_not_fit_are_refused() {
        let mut packed = [0u8; OBS_BYTES_V2];
        for (plane, k, v) in [(0, 3, 2), (5, 0, 16), (16, 1, 1), (42, 0, 4)] {
            let mut row = [0u8; Encoding::V2.len()];
            row[plane * KINDS + k] = v;
            assert!(pack_planes(&row, &mut packed).is_err(), "plane {plane}");
        }
        let mut row = [0u8; Encoding::V2.len()];
        row[42 * KINDS] = 1;
        row[42 * KINDS + 5] = 2;
        assert!(
            pack_planes(&row, &mut packed).is_err(),
            "two kinds in a one-hot plane"
        );
        row[42 * KINDS] = 0;
        pack_planes(&row, &mut packed).unwrap();
        let mut v1 = [0f32; N_PLANES * KINDS];
        v1[7] = 0.5;
        assert!(pack_obs(&v1, &mut [0u8; OBS_BYTES_V1]).is_err());
        assert_eq!(encoding_of_width(OBS_BYTES_V2).unwrap(), Encoding::V2);
        assert_eq!(encoding_of_width(OBS_BYTES).unwrap(), Encoding::V3);
        assert_eq!(encoding_of_width(OBS_BYTES_V1).unwrap(), Encoding::V1);
        assert!(encoding_of_width(7).is_err());
    }
}
