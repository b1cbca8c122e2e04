//! What one seat sees, read straight from the [`Game`] without building
//! an [`Observation`]: the encoder's input for the vectorized
//! environment. The hiding rules live here once; [`Game::observe`] builds
//! its [`Observation`] from the same functions, so both views agree.

use super::encode::ponds::{self, DiscardRows, Ponds};
use super::encode::View;
use super::observation::{Observation, Pending, SeenDiscard, SeenMeld};
use super::table::{Discard, Game, Phase, TableMeld};
use crate::agent::greedy::lookahead::{Lookahead, LOOKAHEAD_PLANES};
use crate::hand::MeldKind;
use crate::tile::{Counts, Tile, KINDS};
use crate::wildcard::Wildcards;

impl Game {
    /// Seat `s`'s meld `tm` as `seat` sees it.
    #[inline]
    pub(crate) fn seen_meld(&self, s: u8, seat: u8, tm: TableMeld) -> SeenMeld {
        let hidden = self.rules.hide_concealed_kong
            && s != seat
            && tm.meld.kind == MeldKind::ConcealedKong
            && !self.is_over();
        SeenMeld {
            kind: tm.meld.kind,
            tile: (!hidden).then_some(tm.meld.tile),
            from: tm.from,
        }
    }

    /// Discard `d` as `seat` sees it.
    #[inline]
    pub(crate) fn seen_discard(d: &Discard, seat: u8) -> SeenDiscard {
        SeenDiscard {
            seat: d.seat,
            tile: (!d.face_down || d.seat == seat).then_some(d.tile),
            face_down: d.face_down,
            claimed: d.claimed,
        }
    }

    /// Tiles still in the wall that lie face up, by kind.
    #[inline]
    pub(crate) fn face_up_in_wall(&self) -> Counts {
        let mut face_up = [0u8; KINDS];
        let tiles = self.deal.wall.tiles();
        let first_up = tiles.len() - self.deal.revealed as usize;
        // Once the wall is drawn out the range is empty (start past end).
        for i in first_up.max(self.wall.head())..self.wall.tail() {
            face_up[tiles[i].index()] += 1;
        }
        face_up
    }

    /// What `seat` is asked, and the tile it drew on its turn.
    #[inline]
    pub(crate) fn pending_for(&self, seat: u8) -> (Pending, Option<Tile>) {
        match self.phase {
            Phase::Turn { seat: s, drawn, .. } if s == seat => (Pending::Turn, drawn),
            Phase::Respond { from, tile, rob } if self.to_act() == Some(seat) => (
                if rob {
                    Pending::AddedKong { from, tile }
                } else {
                    Pending::Discard { from, tile }
                },
                None,
            ),
            _ => (Pending::None, None),
        }
    }
}

/// `seat`'s view of `game` (seats above 3 wrap), for the encoder.
#[derive(Clone, Copy)]
pub(crate) struct GameView<'a> {
    game: &'a Game,
    seat: u8,
    /// The game's discards folded in so far (else walked in full).
    ponds: Option<&'a Ponds>,
}

impl<'a> GameView<'a> {
    /// `seat`'s view of `game`.
    pub(crate) fn new(game: &'a Game, seat: u8) -> GameView<'a> {
        GameView {
            game,
            seat: seat & 3,
            ponds: None,
        }
    }

    /// [`GameView::new`] reading the discard planes from `ponds`, caught
    /// up with `game` ([`Ponds::catch_up`]).
    pub(crate) fn with_ponds(game: &'a Game, seat: u8, ponds: &'a Ponds) -> GameView<'a> {
        GameView {
            ponds: Some(ponds),
            ..GameView::new(game, seat)
        }
    }
}

impl View for GameView<'_> {
    fn seat(&self) -> u8 {
        self.seat
    }
    fn dealer(&self) -> u8 {
        self.game.deal.dealer
    }
    fn concealed(&self) -> Counts {
        self.game.hands[self.seat as usize].concealed
    }
    fn pending_drawn(&self) -> (Pending, Option<Tile>) {
        self.game.pending_for(self.seat)
    }
    // Always inlined: the encoder's closure (which writes planes 5-8 and
    // 30-33) then stays inside the encoder, on each instruction set's
    // copy of it (`simd/obs.rs`).
    #[inline(always)]
    fn each_meld(&self, mut f: impl FnMut(u8, SeenMeld)) {
        for s in 0..4u8 {
            for tm in self.game.table_melds(s) {
                f(s, self.game.seen_meld(s, self.seat, tm));
            }
        }
    }
    type Discard = Discard;
    #[inline]
    fn discard_list(&self) -> &[Discard] {
        self.game.discards()
    }
    #[inline]
    fn discard_rows(&self) -> DiscardRows {
        match self.ponds {
            Some(p) => {
                let rows = p.rows(self.game, self.seat);
                // The kept rows rely on only the latest discard changing.
                debug_assert_eq!(rows, ponds::walk(self));
                rows
            }
            None => ponds::walk(self),
        }
    }
    fn wilds(&self) -> Wildcards {
        self.game.deal.wilds
    }
    fn face_up_in_wall(&self) -> Counts {
        self.game.face_up_in_wall()
    }
    fn ting(&self) -> [bool; 4] {
        self.game.ting
    }
    fn live_remaining(&self) -> u8 {
        self.game.live_tiles() as u8
    }
    fn may_win_discards(&self) -> bool {
        self.game.may_win_discards(self.seat)
    }
    fn locked_kinds(&self) -> u64 {
        self.game.locked_kinds(self.seat)
    }
    fn concealed_count(&self) -> [u8; 4] {
        std::array::from_fn(|s| tile_count(&self.game.hands[s].concealed))
    }
    fn scores(&self) -> [i64; 4] {
        self.game.scores
    }
    fn lookahead(&self, out: &mut Lookahead) {
        crate::agent::greedy::lookahead::lookahead(self.game, self.seat, out);
    }
}

impl View for Observation {
    fn seat(&self) -> u8 {
        self.seat
    }
    fn dealer(&self) -> u8 {
        self.dealer
    }
    fn concealed(&self) -> Counts {
        self.concealed
    }
    fn pending_drawn(&self) -> (Pending, Option<Tile>) {
        (self.pending, self.drawn)
    }
    #[inline]
    fn each_meld(&self, mut f: impl FnMut(u8, SeenMeld)) {
        for (s, seat) in self.melds.iter().enumerate() {
            for &m in seat.iter().flatten() {
                f(s as u8, m);
            }
        }
    }
    type Discard = SeenDiscard;
    #[inline]
    fn discard_list(&self) -> &[SeenDiscard] {
        self.discards()
    }
    fn wilds(&self) -> Wildcards {
        self.wilds
    }
    fn face_up_in_wall(&self) -> Counts {
        self.face_up_in_wall
    }
    fn ting(&self) -> [bool; 4] {
        self.ting
    }
    fn live_remaining(&self) -> u8 {
        self.live_remaining
    }
    fn may_win_discards(&self) -> bool {
        self.may_win_discards
    }
    fn locked_kinds(&self) -> u64 {
        self.locked_kinds
    }
    fn concealed_count(&self) -> [u8; 4] {
        self.concealed_count
    }
    fn scores(&self) -> [i64; 4] {
        self.scores
    }
    fn lookahead(&self, out: &mut Lookahead) {
        *out = [[0; KINDS]; LOOKAHEAD_PLANES];
    }
}

/// The number of tiles in `c` (at most 4 a kind, so at most 136): eight
/// kinds a word, summed by one multiplication, not 34 additions (the
/// encoder asks for four hands a step).
#[inline]
pub(crate) fn tile_count(c: &Counts) -> u8 {
    let (words, tail) = c.as_chunks::<8>();
    // Each byte of the sum of four words is at most 16: no carries.
    let sum: u64 = words.iter().map(|w| u64::from_le_bytes(*w)).sum();
    let bytes = sum.wrapping_mul(0x0101_0101_0101_0101) >> 56;
    bytes as u8 + tail.iter().sum::<u8>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::encode::{write, Encoding};
    use crate::game::Action;
    use crate::ruleset::Ruleset;

    /// [`tile_count`] is the plain sum of the counts, on every count of
    /// up to four a kind at each position and on random hands.
    #[test]
    fn tile_count_is_the_sum() {
        let mut c = [0u8; KINDS];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = (x % KINDS as u64) as usize;
            c[k] = ((x >> 8) % 5) as u8;
            assert_eq!(
                u32::from(tile_count(&c)),
                c.iter().map(|&n| u32::from(n)).sum::<u32>()
            );
        }
        assert_eq!(tile_count(&[4; KINDS]), 136);
    }

    /// Encoding the game straight for a seat gives the row of its
    /// observation, for every seat of every position of many hands of
    /// every family (hidden kongs and face-down discards included), in
    /// both encodings, over a dirty row.
    #[test]
    fn game_view_rows_equal_observation_rows() {
        let mut hide = Ruleset::shanxi();
        hide.hide_concealed_kong = true;
        for rules in [
            Ruleset::shanxi(),
            Ruleset::linxian(),
            Ruleset::sichuan(),
            hide,
        ] {
            for seed in 0..12u64 {
                let mut g = Game::new(&rules, seed, None).unwrap();
                let mut turn = 0usize;
                loop {
                    for s in 0..4 {
                        for enc in [Encoding::V1, Encoding::V2] {
                            let mut a = vec![-1f32; enc.len()];
                            let mut b = vec![-2f32; enc.len()];
                            write(&g.observe(s), enc, &mut a);
                            write(&GameView::new(&g, s), enc, &mut b);
                            assert_eq!(a, b, "seed {seed} seat {s} {enc:?}");
                        }
                    }
                    if g.to_act().is_none() {
                        break;
                    }
                    // Vary the choices: not always the same legal action.
                    let legal: Vec<Action> = g.legal_actions().iter().collect();
                    g.step(legal[(seed as usize + turn) % legal.len()]).unwrap();
                    turn += 1;
                }
            }
        }
    }
}
