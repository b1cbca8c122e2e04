//! Observation encodings: one seat's view as numeric planes for learners.
//!
//! A plane is one row of 34 values, one per tile kind (1-9m, 1-9p, 1-9s,
//! 东南西北白发中); "seat r" means r seats after the observer (0 is the
//! observer). "All ones" fills the 34 columns. An encoding is chosen by
//! its version ([`Encoding`]); [`ENCODING_VERSION`] is the default. The
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
//!
//! # Version 3 (79 planes, uint8 or float32; from the table only)
//!
//! Version 2's 66 planes, then the 13 look-ahead planes of
//! [`crate::agent::greedy::lookahead`] (66 + its plane number): what the
//! greedy evaluator knows of each candidate action (the level after each
//! discard, its improving tiles, the 包胡 danger, the ting discards' waits,
//! the kongs' and the pong's levels, the unseen copies). They are computed
//! from the table for the seat, from public information only, so an
//! [`Observation`] alone is refused version 3 ([`encode_into`]); the table
//! writes it ([`encode_seat`], the vectorized environment, datasets, the
//! `nn` agent).
use super::observation::{Observation, Pending, SeenDiscard, SeenMeld};
use super::table::{Discard, Game};
use crate::agent::greedy::lookahead::{Lookahead, LOOKAHEAD_PLANES};
use crate::error::Error;
use crate::tile::{Counts, Tile, KINDS};
use crate::wildcard::Wildcards;

/// What the encoder reads of one seat's view: an [`Observation`], or the
/// game itself for the seat (the vectorized environment, which so skips
/// building the observation). Both implementations share the hiding
/// rules (`game/view.rs`), and the encoder exists once.
pub(crate) trait View {
    fn seat(&self) -> u8;
    fn dealer(&self) -> u8;
    fn concealed(&self) -> Counts;
    /// What the seat is asked, and the tile it drew on its turn.
    fn pending_drawn(&self) -> (Pending, Option<Tile>);
    /// `f(seat, meld)` for every meld at the table.
    fn each_meld(&self, f: impl FnMut(u8, SeenMeld));
    /// How the discards are stored.
    type Discard: SeenBy;
    /// Every discard, oldest first (the encoder walks the slice itself:
    /// the pond pass runs over every discard of the hand each step).
    fn discard_list(&self) -> &[Self::Discard];
    /// The discard planes' contents (by default from [`View::discard_list`]).
    #[inline]
    fn discard_rows(&self) -> ponds::DiscardRows {
        ponds::walk(self)
    }
    fn wilds(&self) -> Wildcards;
    fn face_up_in_wall(&self) -> Counts;
    fn ting(&self) -> [bool; 4];
    fn live_remaining(&self) -> u8;
    fn may_win_discards(&self) -> bool;
    fn locked_kinds(&self) -> u64;
    fn concealed_count(&self) -> [u8; 4];
    fn scores(&self) -> [i64; 4];
    /// The look-ahead planes of version 3 (the greedy evaluator's answers:
    /// [`crate::agent::greedy::lookahead`]). Only the table has them: an
    /// [`Observation`] is refused version 3 by [`encode_into`] before it
    /// gets here, so its implementation writes zeros.
    fn lookahead(&self, out: &mut Lookahead);
}

/// A discard as some seat sees it: the game's [`Discard`], or an
/// observation's [`SeenDiscard`] (already seen by its observer).
pub(crate) trait SeenBy: Copy {
    /// The discard as `seat` sees it.
    fn seen_by(self, seat: u8) -> SeenDiscard;
}

impl SeenBy for SeenDiscard {
    #[inline(always)]
    fn seen_by(self, _: u8) -> SeenDiscard {
        self
    }
}

impl SeenBy for Discard {
    #[inline(always)]
    fn seen_by(self, seat: u8) -> SeenDiscard {
        Game::seen_discard(&self, seat)
    }
}

/// The default encoding's version (the vectorized environment's): the
/// newest an observation alone can be written in. Version 3 adds the
/// look-ahead planes, computed from the table (datasets record it, the
/// `nn` agent reads it, the vectorized environment writes it on request).
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
    /// Version 2's planes and the look-ahead planes (79 in all), written
    /// from the table only.
    V3,
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
            3 => Ok(Encoding::V3),
            v => Err(Error::InvalidRuleset(format!(
                "unknown observation encoding version {v} (available: 1, 2, 3)"
            ))),
        }
    }

    /// The version number.
    pub const fn version(self) -> u32 {
        match self {
            Encoding::V1 => 1,
            Encoding::V2 => 2,
            Encoding::V3 => 3,
        }
    }

    /// Number of planes.
    pub const fn n_planes(self) -> usize {
        match self {
            Encoding::V1 => N_PLANES,
            Encoding::V2 => 42 + 4 * RECENT_DISCARDS,
            Encoding::V3 => 42 + 4 * RECENT_DISCARDS + LOOKAHEAD_PLANES,
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
    check_row::<T>(enc, out.len())?;
    if enc == Encoding::V3 {
        return Err(Error::InvalidHand(
            "encoding version 3 (the look-ahead planes) is written from the table, not from an \
             observation: the vectorized environment, datasets and the nn agent write it"
                .into(),
        ));
    }
    write(o, enc, out);
    Ok(())
}

/// Writes `seat`'s view of `game` in `enc` into `out`, as [`encode_into`]
/// writes its observation, and version 3 too (the table has the
/// look-ahead planes an observation lacks).
///
/// ```
/// use koudian_core::game::encode::{encode_into, encode_seat, Encoding};
/// use koudian_core::game::Game;
/// use koudian_core::Ruleset;
/// let g = Game::new(&Ruleset::shanxi(), 1, None).unwrap();
/// let seat = g.to_act().unwrap();
/// let mut row = vec![0u8; Encoding::V3.len()];
/// encode_seat(&g, seat, Encoding::V3, &mut row).unwrap();
/// let mut v2 = vec![0u8; Encoding::V2.len()];
/// encode_into(&g.observe(seat), Encoding::V2, &mut v2).unwrap();
/// assert_eq!(row[..v2.len()], v2[..]);
/// assert_eq!(row[(Encoding::V3.n_planes() - 1) * 34], 1); // it has a decision
/// ```
pub fn encode_seat<T: Cell>(
    game: &Game,
    seat: u8,
    enc: Encoding,
    out: &mut [T],
) -> Result<(), Error> {
    if seat > 3 {
        return Err(Error::InvalidArgument(format!("seat {seat} is not 0-3")));
    }
    check_row::<T>(enc, out.len())?;
    write(&super::view::GameView::new(game, seat), enc, out);
    Ok(())
}

/// Whether a row of `len` values of `T` can hold `enc`.
fn check_row<T: Cell>(enc: Encoding, len: usize) -> Result<(), Error> {
    if len != enc.len() {
        return Err(Error::InvalidHand(format!(
            "an encoding version {} row holds {} values, not {}",
            enc.version(),
            enc.len(),
            len
        )));
    }
    if enc == Encoding::V1 && !T::FRACTIONS {
        return Err(Error::InvalidHand(
            "encoding version 1 is float32 only (plane 24 is a fraction)".into(),
        ));
    }
    Ok(())
}

/// [`encode_into`] once the length and type are checked (a row of
/// another length is a caller's bug: it panics). Always inlined, with
/// [`write_planes`], so that the vectorized environment's AVX2 writer
/// (`simd/obs.rs`) compiles this one source again with AVX2 enabled.
#[inline(always)]
pub(crate) fn write<T: Cell>(o: &impl View, enc: Encoding, out: &mut [T]) {
    let (planes, rest) = out.as_chunks_mut::<KINDS>();
    assert!(rest.is_empty() && planes.len() == enc.n_planes());
    match enc {
        Encoding::V1 => write_planes::<T, N_PLANES>(o, planes.try_into().expect("29 planes")),
        Encoding::V2 => write_planes::<T, V2_PLANES>(o, planes.try_into().expect("66 planes")),
        Encoding::V3 => {
            let (v2, ahead) = planes.split_at_mut(V2_PLANES);
            write_planes::<T, V2_PLANES>(o, v2.try_into().expect("66 planes"));
            let mut la = [[0u8; KINDS]; LOOKAHEAD_PLANES];
            o.lookahead(&mut la);
            for (p, l) in ahead.iter_mut().zip(&la) {
                for (v, &x) in p.iter_mut().zip(l) {
                    *v = T::of(x);
                }
            }
        }
    }
}

/// Planes of version 2.
const V2_PLANES: usize = Encoding::V2.n_planes();

/// [`write`] into `P` planes (`P` picks the version), tuned for the
/// vectorized environment, which writes a row per table step: the planes
/// are fixed-size rows (no bounds check on a plane), a plane that holds
/// one value or a test of every kind is stored whole in one pass (the
/// compiler turns those into wide stores) instead of being cleared and
/// then set, and the recent-discard pass stops once every seat has its
/// six. `reference::write` is the plain form the tests compare with.
#[inline(always)]
fn write_planes<T: Cell, const P: usize>(o: &impl View, p: &mut [[T; KINDS]; P]) {
    let me = o.seat();
    let rel = |s: u8| (s.wrapping_sub(me) & 3) as usize;
    let v2 = P == V2_PLANES;
    let (zero, one) = (T::default(), T::of(1));
    let bit = |b: bool| T::of(u8::from(b));
    // The one-hot and summed planes (4-13, 15, 30-33, 42-65) start from
    // zeros; every other plane is stored whole below.
    p[4..14].as_flattened_mut().fill(zero);
    p[15] = [zero; KINDS];
    if v2 {
        p[30..34].as_flattened_mut().fill(zero);
        p[42..].as_flattened_mut().fill(zero);
    }
    let c = o.concealed();
    for (n, plane) in p[..4].iter_mut().enumerate() {
        for (v, &c) in plane.iter_mut().zip(&c) {
            *v = bit(c > n as u8);
        }
    }
    let (pending, drawn) = o.pending_drawn();
    if let Some(t) = drawn {
        p[4][t.index()] = one;
    }
    o.each_meld(|s, m| {
        if let Some(t) = m.tile {
            let v = &mut p[5 + rel(s)][t.index()];
            *v = v.plus(m.kind.size());
            if let (true, Some(from)) = (v2, m.from) {
                p[30 + rel(from)][t.index()] = one;
            }
        }
    });
    // The pond (planes 9-12) and, in version 2, each seat's latest
    // discards (planes 42-65).
    let rows = o.discard_rows();
    for (s, counts) in rows.pond.iter().enumerate() {
        for (v, &n) in p[9 + rel(s as u8)].iter_mut().zip(counts) {
            *v = T::of(n);
        }
    }
    if v2 {
        for (s, recent) in rows.recent.iter().enumerate() {
            let first = 42 + RECENT_DISCARDS * rel(s as u8);
            // A cell out of sight holds value 0: storing it into the
            // zeroed plane costs less than a branch.
            for (j, &(k, v)) in recent.iter().enumerate() {
                p[first + j][k as usize] = T::of(v);
            }
        }
    }
    for t in o.wilds().kinds() {
        p[13][t.index()] = one;
    }
    for (v, &n) in p[14].iter_mut().zip(&o.face_up_in_wall()) {
        *v = T::of(n);
    }
    let asked = match pending {
        Pending::None => 0,
        Pending::Turn => 26,
        Pending::Discard { tile, .. } | Pending::AddedKong { tile, .. } => {
            p[15][tile.index()] = one;
            if matches!(pending, Pending::Discard { .. }) {
                27
            } else {
                28
            }
        }
    };
    for (plane, row) in (26..).zip(&mut p[26..29]) {
        *row = [bit(plane == asked); KINDS];
    }
    let (ting, dealer) = (o.ting(), o.dealer());
    for s in 0..4u8 {
        p[16 + rel(s)] = [bit(ting[s as usize]); KINDS];
        p[20 + rel(s)] = [bit(s == dealer); KINDS];
    }
    p[24] = [match v2 {
        true => T::of(o.live_remaining()),
        false => T::ratio(o.live_remaining(), 136.0),
    }; KINDS];
    p[25] = [bit(o.may_win_discards()); KINDS];
    if !v2 {
        return;
    }
    let locked = o.locked_kinds();
    p[29] = [zero; KINDS];
    if locked != 0 {
        for (k, v) in p[29].iter_mut().enumerate() {
            *v = bit(locked >> k & 1 == 1);
        }
    }
    let (counts, scores) = (o.concealed_count(), o.scores());
    for s in 0..4u8 {
        let r = rel(s);
        p[34 + r] = [T::of(counts[s as usize]); KINDS];
        let score = (128 + scores[s as usize].clamp(-128, 127)) as u8;
        p[38 + r] = [T::of(score); KINDS];
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

pub(crate) mod ponds;

#[cfg(test)]
pub(crate) mod reference;

#[cfg(test)]
pub(crate) mod tests {
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

    /// The three families, and Shanxi with hidden concealed kongs and with
    /// tile-scope 过胡 locks: the rule sets the encoder tests play.
    pub(crate) fn rule_sets() -> [Ruleset; 5] {
        let mut hide = Ruleset::shanxi();
        hide.hide_concealed_kong = true;
        let mut locks = Ruleset::shanxi();
        locks.pass_scope = crate::ruleset::PassScope::Tile;
        [
            Ruleset::shanxi(),
            Ruleset::linxian(),
            Ruleset::sichuan(),
            hide,
            locks,
        ]
    }

    /// The fast encoder writes the plain reference's rows, for every seat
    /// of every position of many hands of every family (hidden kongs,
    /// face-down discards, 过胡 locks and scores included), in both
    /// encodings and both value types, over a dirty row.
    #[test]
    fn fast_rows_equal_the_reference() {
        use crate::game::view::GameView;
        fn same<T: Cell + PartialEq + std::fmt::Debug>(o: &impl View, enc: Encoding, dirt: T) {
            let mut a = vec![dirt; enc.len()];
            let mut b = vec![dirt; enc.len()];
            write(o, enc, &mut a);
            reference::write(o, enc, &mut b);
            assert_eq!(a, b, "seat {} {enc:?}", o.seat());
        }
        let mut positions = 0;
        for rules in rule_sets() {
            for seed in 0..10u64 {
                let mut g = Game::new(&rules, seed, None).unwrap();
                g.set_scores([seed as i64 * 40 - 200, 130, -129, 5]);
                let mut turn = 0usize;
                loop {
                    for s in 0..4 {
                        let v = GameView::new(&g, s);
                        same(&v, Encoding::V1, -1f32);
                        same(&v, Encoding::V2, 9u8);
                        same(&v, Encoding::V2, -3f32);
                        same(&g.observe(s), Encoding::V2, 200u8);
                        positions += 1;
                    }
                    if g.to_act().is_none() {
                        break;
                    }
                    // Pass half the wins offered on a discard (so that
                    // 过胡 locks happen), else vary the choice.
                    let legal: Vec<_> = g.legal_actions().iter().collect();
                    let pass = legal.contains(&crate::game::Action::Pass) && turn.is_multiple_of(2);
                    let a = match pass {
                        true => crate::game::Action::Pass,
                        false => legal[(seed as usize * 7 + turn) % legal.len()],
                    };
                    g.step(a).unwrap();
                    turn += 1;
                }
            }
        }
        assert!(positions > 4000);
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
