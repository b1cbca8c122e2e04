//! Observation encodings: one seat's view as numeric planes for learners.
//!
//! A plane is one row of 34 values, one per tile kind (1-9m, 1-9p, 1-9s,
//! 东南西北白发中); "seat r" means r seats after the observer (0 is the
//! observer). "All ones" fills the 34 columns. An encoding is chosen by
//! its version ([`Encoding`]); [`ENCODING_VERSION`] is the newest. The
//! one encoder, [`encode_into`], writes a caller's row in place (no
//! allocation), as `u8` or `f32`: the vectorized environment writes its
//! batch rows with it and `Observation.planes()` its array.
//!
//! # Version 1 (29 planes, float32 only)
//!
//! The first layout, the default of `Observation.planes()` and the
//! PettingZoo env.
//!
//! | plane | content |
//! |---|---|
//! | 0-3 | own concealed tiles: 1 where the count of the kind is ≥ 1, ≥ 2, ≥ 3, = 4 |
//! | 4 | the tile just drawn (one-hot) |
//! | 5-8 | melds of seat r: tiles per kind (a hidden concealed kong is left out) |
//! | 9-12 | face-up discards of seat r still in the pond, per kind |
//! | 13 | wild kinds (耗子) |
//! | 14 | face-up tiles still in the wall (wildcard indicators) |
//! | 15 | the tile to answer (a discard or an added kong), one-hot |
//! | 16-19 | all ones if seat r has declared ting |
//! | 20-23 | all ones if seat r is the dealer |
//! | 24 | live tiles left / 136 (all columns) |
//! | 25 | all ones if the observer may still win on a discard (no 过胡) |
//! | 26-28 | all ones if the observer is asked: on its turn / to answer a discard / to answer an added kong |
//!
//! # Version 2 (66 planes, uint8 or float32)
//!
//! Every value is a small integer (0-255), the same in `u8` and in `f32`
//! (a learner scales them itself), so that a `u8` batch loses nothing.
//! Planes 0-28 are version 1's, except plane 24, which holds the count.
//!
//! | plane | content |
//! |---|---|
//! | 0-23 | as version 1 |
//! | 24 | live tiles left, as a count 0-136 (all columns) |
//! | 25-28 | as version 1 |
//! | 29 | the kinds the observer may not win on a discard because of a `pass_scope = "tile"` 过胡 lock |
//! | 30-33 | melds claimed from seat r's discard: 1 at the meld's kind (the meld's owner is in planes 5-8; a kind has at most one meld at a table; a concealed kong is claimed from nobody) |
//! | 34-37 | concealed tiles held by seat r, as a count (all columns; a count short of 13/14 less the melds shows a hidden concealed kong) |
//! | 38-41 | running score of seat r: `clamp(128 + score, 0, 255)` (all columns; one point per unit, 128 is zero) |
//! | 42-65 | the 6 most recent discards of seat r, newest first: plane `42 + 6r + j` for its j-th latest, 1 at the kind if face up and still in the pond, 2 if claimed into a meld, 3 for the observer's own face-down ting discard; a row of zeros when seat r made fewer discards or the discard lies face down out of the observer's sight |

use super::observation::{Observation, Pending};
use crate::error::Error;
use crate::tile::KINDS;

/// The newest encoding's version.
pub const ENCODING_VERSION: u32 = 2;

/// Number of planes of version 1 ([`planes`]).
pub const N_PLANES: usize = 29;

/// Recent discards per seat in version 2.
pub const RECENT_DISCARDS: usize = 6;

/// A plane layout, by version (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// The 29 planes (float32 only: plane 24 is a fraction).
    V1,
    /// The 66 planes of small integers.
    V2,
}

impl Encoding {
    /// The layout of `version` (1 or 2).
    ///
    /// ```
    /// use koudian_core::game::encode::{Encoding, ENCODING_VERSION};
    /// assert_eq!(Encoding::from_version(ENCODING_VERSION).unwrap().n_planes(), 66);
    /// assert!(Encoding::from_version(9).is_err());
    /// ```
    pub fn from_version(version: u32) -> Result<Encoding, Error> {
        match version {
            1 => Ok(Encoding::V1),
            2 => Ok(Encoding::V2),
            v => Err(Error::InvalidRuleset(format!(
                "unknown observation encoding version {v} (available: 1, 2)"
            ))),
        }
    }

    /// The version number.
    pub const fn version(self) -> u32 {
        match self {
            Encoding::V1 => 1,
            Encoding::V2 => 2,
        }
    }

    /// Number of planes.
    pub const fn n_planes(self) -> usize {
        match self {
            Encoding::V1 => N_PLANES,
            Encoding::V2 => 42 + 4 * RECENT_DISCARDS,
        }
    }

    /// Values per observation (`n_planes × 34`).
    pub const fn len(self) -> usize {
        self.n_planes() * KINDS
    }

    /// Whether the encoding is empty (never: for clippy's `len` rule).
    pub const fn is_empty(self) -> bool {
        false
    }
}

/// A plane value type: `u8` or `f32`.
pub trait Cell: Copy + Default + Send + Sync + 'static {
    /// Whether the type holds version 1's fraction (plane 24).
    const FRACTIONS: bool;
    /// The value `v`.
    fn of(v: u8) -> Self;
    /// `self + v` (planes 5-14 sum tiles per kind; never above 4 there).
    fn plus(self, v: u8) -> Self;
    /// `n / d` as version 1 stores it (only called where `FRACTIONS`).
    fn ratio(n: u8, d: f32) -> Self;
}

impl Cell for u8 {
    const FRACTIONS: bool = false;
    #[inline]
    fn of(v: u8) -> u8 {
        v
    }
    #[inline]
    fn plus(self, v: u8) -> u8 {
        self.saturating_add(v)
    }
    fn ratio(n: u8, _: f32) -> u8 {
        n
    }
}

impl Cell for f32 {
    const FRACTIONS: bool = true;
    #[inline]
    fn of(v: u8) -> f32 {
        f32::from(v)
    }
    #[inline]
    fn plus(self, v: u8) -> f32 {
        self + f32::from(v)
    }
    fn ratio(n: u8, d: f32) -> f32 {
        f32::from(n) / d
    }
}

/// Writes `o` in `enc` into `out` (exactly `enc.len()` values, row-major
/// `n_planes × 34`, relative to the observer), overwriting all of it.
///
/// Errors if `out` has another length, or for version 1 in `u8` (its
/// plane 24 is a fraction).
///
/// ```
/// use koudian_core::game::encode::{encode_into, Encoding};
/// use koudian_core::game::Game;
/// use koudian_core::Ruleset;
/// let g = Game::new(&Ruleset::shanxi(), 1, None).unwrap();
/// let mut row = [0u8; 66 * 34];
/// encode_into(&g.observe(0), Encoding::V2, &mut row).unwrap();
/// assert_eq!(row[24 * 34], g.live_tiles() as u8); // live tiles, a count
/// assert!(encode_into(&g.observe(0), Encoding::V1, &mut row[..29 * 34]).is_err());
/// ```
pub fn encode_into<T: Cell>(o: &Observation, enc: Encoding, out: &mut [T]) -> Result<(), Error> {
    if out.len() != enc.len() {
        return Err(Error::InvalidHand(format!(
            "an encoding version {} row holds {} values, not {}",
            enc.version(),
            enc.len(),
            out.len()
        )));
    }
    if enc == Encoding::V1 && !T::FRACTIONS {
        return Err(Error::InvalidHand(
            "encoding version 1 is float32 only (plane 24 is a fraction)".into(),
        ));
    }
    write(o, enc, out);
    Ok(())
}

/// [`encode_into`] once the length and type are checked.
#[inline]
pub(crate) fn write<T: Cell>(o: &Observation, enc: Encoding, out: &mut [T]) {
    out.fill(T::default());
    let rel = |s: u8| ((s + 4 - o.seat) & 3) as usize;
    let at = |plane: usize, k: usize| plane * KINDS + k;
    let fill = |out: &mut [T], plane: usize, v: T| out[at(plane, 0)..at(plane + 1, 0)].fill(v);
    let one = T::of(1);
    for (k, &c) in o.concealed.iter().enumerate() {
        // Branch-free: four stores a kind (the count is at most 4).
        for n in 0..4 {
            out[at(n, k)] = T::of(u8::from(c > n as u8));
        }
    }
    if let Some(t) = o.drawn {
        out[at(4, t.index())] = one;
    }
    let v2 = enc == Encoding::V2;
    for (s, seat) in o.melds.iter().enumerate() {
        for m in seat.iter().flatten() {
            if let Some(t) = m.tile {
                let i = at(5 + rel(s as u8), t.index());
                out[i] = out[i].plus(m.kind.size());
                if let (true, Some(from)) = (v2, m.from) {
                    out[at(30 + rel(from), t.index())] = one;
                }
            }
        }
    }
    // One pass over the discards, newest first: the pond (planes 9-12)
    // and, in version 2, each seat's latest ones (planes 42-65).
    let mut seen = [0usize; 4];
    for d in o.discards().iter().rev() {
        let r = rel(d.seat);
        let Some(t) = d.tile else {
            seen[r] += 1;
            continue;
        };
        if !d.claimed {
            let i = at(9 + r, t.index());
            out[i] = out[i].plus(1);
        }
        if v2 && seen[r] < RECENT_DISCARDS {
            let v = if d.claimed {
                2
            } else if d.face_down {
                3
            } else {
                1
            };
            out[at(42 + RECENT_DISCARDS * r + seen[r], t.index())] = T::of(v);
        }
        seen[r] += 1;
    }
    for t in o.wilds.kinds() {
        out[at(13, t.index())] = one;
    }
    for k in 0..KINDS {
        out[at(14, k)] = T::of(o.face_up_in_wall[k]);
    }
    let pending = match o.pending {
        Pending::None => None,
        Pending::Turn => Some((26, None)),
        Pending::Discard { tile, .. } => Some((27, Some(tile))),
        Pending::AddedKong { tile, .. } => Some((28, Some(tile))),
    };
    if let Some((plane, tile)) = pending {
        if let Some(t) = tile {
            out[at(15, t.index())] = one;
        }
        fill(out, plane, one);
    }
    for s in 0..4u8 {
        if o.ting[s as usize] {
            fill(out, 16 + rel(s), one);
        }
    }
    fill(out, 20 + rel(o.dealer), one);
    let live = if v2 {
        T::of(o.live_remaining)
    } else {
        T::ratio(o.live_remaining, 136.0)
    };
    fill(out, 24, live);
    if o.may_win_discards {
        fill(out, 25, one);
    }
    if !v2 {
        return;
    }
    for k in 0..KINDS {
        if o.locked_kinds >> k & 1 == 1 {
            out[at(29, k)] = one;
        }
    }
    for s in 0..4u8 {
        let r = rel(s);
        fill(out, 34 + r, T::of(o.concealed_count[s as usize]));
        let score = (128 + o.scores[s as usize].clamp(-128, 127)) as u8;
        fill(out, 38 + r, T::of(score));
    }
}

/// The observation in version 1 as `N_PLANES × 34` values, row-major,
/// relative to the observer.
///
/// ```
/// use koudian_core::game::{encode, Game};
/// use koudian_core::Ruleset;
/// let g = Game::new(&Ruleset::shanxi(), 1, None).unwrap();
/// let p = encode::planes(&g.observe(0));
/// // Plane 0: the kinds the observer holds at least once.
/// let held = g.hand(0).concealed.iter().filter(|&&n| n > 0).count();
/// assert_eq!(p[..34].iter().filter(|&&v| v == 1.0).count(), held);
/// ```
pub fn planes(o: &Observation) -> [f32; N_PLANES * KINDS] {
    let mut p = [0f32; N_PLANES * KINDS];
    write(o, Encoding::V1, &mut p);
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::ruleset::Ruleset;

    /// The `u8` and `f32` rows of version 2 hold the same values, and
    /// every write overwrites the whole row (a dirty row gives the same
    /// result), on many positions of every family.
    #[test]
    fn u8_and_f32_rows_agree_and_overwrite() {
        for rules in [Ruleset::shanxi(), Ruleset::linxian(), Ruleset::sichuan()] {
            for seed in 0..8 {
                let mut g = Game::new(&rules, seed, None).unwrap();
                while let Some(seat) = g.to_act() {
                    for s in 0..4 {
                        let o = g.observe(s);
                        let mut a = [7u8; 66 * KINDS];
                        let mut b = [-1f32; 66 * KINDS];
                        encode_into(&o, Encoding::V2, &mut a).unwrap();
                        encode_into(&o, Encoding::V2, &mut b).unwrap();
                        assert!(a.iter().zip(&b).all(|(&x, &y)| f32::from(x) == y));
                        let v1 = planes(&o);
                        // Version 2 keeps version 1's planes but 24.
                        for (i, (&x, &y)) in v1.iter().zip(&b).enumerate() {
                            if i / KINDS != 24 {
                                assert_eq!(x, y, "plane {}", i / KINDS);
                            }
                        }
                    }
                    let a = g.legal_actions().iter().last().unwrap();
                    let _ = seat;
                    g.step(a).unwrap();
                }
            }
        }
    }

    /// A row of the wrong length is an error naming both lengths.
    #[test]
    fn a_short_row_is_an_error() {
        let g = Game::new(&Ruleset::shanxi(), 1, None).unwrap();
        let mut row = [0f32; 10];
        let e = encode_into(&g.observe(0), Encoding::V2, &mut row).unwrap_err();
        assert!(e.to_string().contains("2244") && e.to_string().contains("10"));
    }
}
