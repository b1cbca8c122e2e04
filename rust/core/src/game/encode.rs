//! Observation encodings: one seat's view as numeric planes for learners.
//!
//! A plane is one row of 34 values, one per tile kind (1-9m, 1-9p, 1-9s,
//! 东南西北白发中); "seat r" means r seats after the observer (0 is the
//! observer). The layout of [`planes`] (29 planes, the first encoding,
//! documented in `koudian.env`):
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

use super::observation::{Observation, Pending};
use crate::tile::KINDS;

/// Number of planes of [`planes`].
pub const N_PLANES: usize = 29;

/// The observation as `N_PLANES × 34` values, row-major, relative to the
/// observer.
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
    let mut set = |plane: usize, k: usize, v: f32| p[plane * KINDS + k] += v;
    let rel = |s: u8| ((s + 4 - o.seat) & 3) as usize;
    for k in 0..KINDS {
        for n in 0..o.concealed[k].min(4) as usize {
            set(n, k, 1.0);
        }
    }
    if let Some(t) = o.drawn {
        set(4, t.index(), 1.0);
    }
    for (s, seat) in o.melds.iter().enumerate() {
        for m in seat.iter().flatten() {
            if let Some(t) = m.tile {
                set(5 + rel(s as u8), t.index(), f32::from(m.kind.size()));
            }
        }
    }
    for d in o.discards() {
        if let (Some(t), false) = (d.tile, d.claimed) {
            set(9 + rel(d.seat), t.index(), 1.0);
        }
    }
    for t in o.wilds.kinds() {
        set(13, t.index(), 1.0);
    }
    for k in 0..KINDS {
        set(14, k, f32::from(o.face_up_in_wall[k]));
    }
    let pending = match o.pending {
        Pending::None => None,
        Pending::Turn => Some((26, None)),
        Pending::Discard { tile, .. } => Some((27, Some(tile))),
        Pending::AddedKong { tile, .. } => Some((28, Some(tile))),
    };
    if let Some((_, Some(t))) = pending {
        set(15, t.index(), 1.0);
    }
    for k in 0..KINDS {
        for s in 0..4u8 {
            if o.ting[s as usize] {
                set(16 + rel(s), k, 1.0);
            }
        }
        set(20 + rel(o.dealer), k, 1.0);
        set(24, k, f32::from(o.live_remaining) / 136.0);
        if o.may_win_discards {
            set(25, k, 1.0);
        }
        if let Some((plane, _)) = pending {
            set(plane, k, 1.0);
        }
    }
    p
}
