//! The discard planes (pond, planes 9-12; recent discards, planes 42-65)
//! from the discards as the observer sees them: walked in full
//! ([`walk`]), or kept up to date hand by hand ([`Ponds`]) so that a table
//! stepped a decision at a time adds only its new discards instead of
//! walking the whole hand again (that walk was half the encoder's work).

use super::{SeenBy, View, RECENT_DISCARDS};
use crate::game::observation::SeenDiscard;
use crate::game::table::Game;
use crate::tile::KINDS;

/// The discard planes' contents, by absolute seat.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DiscardRows {
    /// Face-up discards not claimed, by seat and kind.
    pub pond: [[u8; KINDS]; 4],
    /// Each seat's latest discards, newest first: `(kind, value)` with
    /// value 1 face up in the pond, 2 claimed, 3 the observer's own
    /// face-down one, 0 none (fewer discards, or one out of sight: then
    /// the kind is any kind, and means nothing).
    pub recent: [[(u8, u8); RECENT_DISCARDS]; 4],
}

/// Equal contents: the kinds of value-0 cells do not count.
impl PartialEq for DiscardRows {
    fn eq(&self, other: &DiscardRows) -> bool {
        let cells = |r: &DiscardRows| r.recent.map(|s| s.map(|(k, v)| (k * u8::from(v != 0), v)));
        self.pond == other.pond && cells(self) == cells(other)
    }
}

impl DiscardRows {
    const EMPTY: DiscardRows = DiscardRows {
        pond: [[0; KINDS]; 4],
        recent: [[(0, 0); RECENT_DISCARDS]; 4],
    };
}

/// The value of a seen recent discard in planes 42-65.
#[inline(always)]
fn recent_value(claimed: bool, face_down: bool) -> u8 {
    1 + u8::from(claimed) + 2 * u8::from(face_down & !claimed)
}

/// The discard rows of `o`, walking all its discards (the pond needs
/// every one) and the latest ones newest first.
#[inline]
pub(crate) fn walk<V: View + ?Sized>(o: &V) -> DiscardRows {
    let me = o.seat();
    let discards = o.discard_list();
    let mut rows = DiscardRows::EMPTY;
    for d in discards {
        let d = d.seen_by(me);
        if let Some(t) = d.tile {
            rows.pond[(d.seat & 3) as usize][t.index()] += u8::from(!d.claimed);
        }
    }
    let mut seen = [0usize; 4];
    let mut full = 0;
    for d in discards.iter().rev() {
        let d = d.seen_by(me);
        let s = (d.seat & 3) as usize;
        let j = seen[s];
        if j >= RECENT_DISCARDS {
            continue;
        }
        if let Some(t) = d.tile {
            rows.recent[s][j] = (t.index() as u8, recent_value(d.claimed, d.face_down));
        }
        seen[s] = j + 1;
        full += usize::from(j + 1 == RECENT_DISCARDS);
        if full == 4 {
            break;
        }
    }
    rows
}

/// One hand's discards folded in as they come, for every observer.
///
/// Only a hand's latest discard can still change (a claim marks it), so
/// every earlier one is counted once into the pond of its seat (face up,
/// or face down: those only their discarder sees); the latest is added
/// at each [`Ponds::rows`]. Each seat's latest discards are kept as
/// indices and read afresh. [`Ponds::reset`] starts a new hand.
#[derive(Clone)]
pub(crate) struct Ponds {
    /// Discards counted into `up` / `down`.
    settled: usize,
    /// Discards entered into `recent`.
    entered: usize,
    up: [[u8; KINDS]; 4],
    down: [[u8; KINDS]; 4],
    /// Each seat's latest discards (indices), newest first.
    recent: [[u16; RECENT_DISCARDS]; 4],
    /// Their `(kind, value seen by the discarder, value seen by the
    /// others)`, as of the last catch-up.
    seen: [[(u8, u8, u8); RECENT_DISCARDS]; 4],
    n_recent: [u8; 4],
}

impl Default for Ponds {
    fn default() -> Ponds {
        Ponds {
            settled: 0,
            entered: 0,
            up: [[0; KINDS]; 4],
            down: [[0; KINDS]; 4],
            recent: [[0; RECENT_DISCARDS]; 4],
            seen: [[(0, 0, 0); RECENT_DISCARDS]; 4],
            n_recent: [0; 4],
        }
    }
}

impl Ponds {
    /// Forgets the hand (a new one is dealt).
    pub(crate) fn reset(&mut self) {
        *self = Ponds::default();
    }

    /// Folds in `game`'s discards since the last call (a list shorter
    /// than what was folded is a new hand: starts again).
    #[inline]
    pub(crate) fn catch_up(&mut self, game: &Game) {
        let discards = game.discards();
        if discards.len() < self.entered {
            self.reset();
        }
        for (i, d) in discards.iter().enumerate().skip(self.entered) {
            let s = (d.seat & 3) as usize;
            self.recent[s].copy_within(0..RECENT_DISCARDS - 1, 1);
            self.recent[s][0] = i as u16;
            self.seen[s].copy_within(0..RECENT_DISCARDS - 1, 1);
            self.n_recent[s] = (self.n_recent[s] + 1).min(RECENT_DISCARDS as u8);
        }
        self.entered = discards.len();
        // Values of the discards that could have changed since the last
        // catch-up (that one's latest and the new ones; indices are newest
        // first): an earlier one was computed after a later discard was
        // made, so with its final flags.
        for s in 0..4 {
            let n = self.n_recent[s] as usize;
            for (&i, seen) in self.recent[s][..n].iter().zip(&mut self.seen[s]) {
                if (i as usize) < self.settled {
                    break;
                }
                let d = discards[i as usize];
                let value = |v: SeenDiscard| match v.tile {
                    Some(_) => recent_value(v.claimed, v.face_down),
                    None => 0,
                };
                let own = value(d.seen_by(d.seat));
                let other = value(d.seen_by(d.seat.wrapping_add(1) & 3));
                *seen = (d.tile.index() as u8, own, other);
            }
        }
        let settle = discards.len().saturating_sub(1);
        for d in discards.get(self.settled..settle).unwrap_or(&[]) {
            if !d.claimed {
                let pond = match d.face_down {
                    true => &mut self.down,
                    false => &mut self.up,
                };
                pond[(d.seat & 3) as usize][d.tile.index()] += 1;
            }
        }
        self.settled = self.settled.max(settle);
    }

    /// The discard rows as `seat` sees `game` (caught up with
    /// [`Ponds::catch_up`]).
    #[inline]
    pub(crate) fn rows(&self, game: &Game, seat: u8) -> DiscardRows {
        let discards = game.discards();
        let me = (seat & 3) as usize;
        let mut rows = DiscardRows {
            pond: self.up,
            recent: [[(0, 0); RECENT_DISCARDS]; 4],
        };
        for (v, &n) in rows.pond[me].iter_mut().zip(&self.down[me]) {
            *v += n;
        }
        if let Some(last) = discards[self.settled..].first() {
            let d = last.seen_by(seat);
            if let (Some(t), false) = (d.tile, d.claimed) {
                rows.pond[(d.seat & 3) as usize][t.index()] += 1;
            }
        }
        for (s, row) in rows.recent.iter_mut().enumerate() {
            let n = self.n_recent[s] as usize;
            for (cell, &(k, own, other)) in row.iter_mut().zip(&self.seen[s][..n]) {
                *cell = (k, if s == me { own } else { other });
            }
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::view::GameView;
    use crate::game::Action;

    /// Kept rows equal walked rows for every seat of every position of
    /// many hands of every family (face-down ting discards, claims,
    /// hidden kongs), caught up after every step or only every few steps
    /// (as between a 1-vs-3 learner's decisions), and across redeals.
    #[test]
    fn kept_rows_equal_walked_rows() {
        let mut checked = 0;
        for rules in super::super::tests::rule_sets() {
            for every in [1usize, 3] {
                let mut g = Game::new(&rules, 0, None).unwrap();
                let mut ponds = Ponds::default();
                let mut claims = 0;
                for seed in 0..8u64 {
                    g.redeal(seed, None).unwrap();
                    ponds.reset();
                    let mut turn = 0usize;
                    loop {
                        if turn.is_multiple_of(every) || g.to_act().is_none() {
                            ponds.catch_up(&g);
                            for s in 0..4 {
                                let kept = ponds.rows(&g, s);
                                assert_eq!(
                                    kept,
                                    walk(&GameView::new(&g, s)),
                                    "seed {seed} seat {s}"
                                );
                                checked += 1;
                            }
                        }
                        if g.to_act().is_none() {
                            break;
                        }
                        let legal: Vec<Action> = g.legal_actions().iter().collect();
                        let a = legal[(seed as usize * 5 + turn) % legal.len()];
                        claims += usize::from(matches!(a, Action::Pong | Action::Kong));
                        g.step(a).unwrap();
                        turn += 1;
                    }
                }
                assert!(claims > 0, "no claim in {every}");
            }
        }
        assert!(checked > 5000);
    }
}
