//! What one seat may see (docs/rules.md §6 "Hidden information is hidden"):
//! its own tiles, and everything public — discards (a ting declaration's
//! face-down discard as hidden), melds (a concealed kong's kind hidden
//! where `hide_concealed_kong`), ting declarations, the wall count, the
//! wild kinds and any face-up indicator tiles, scores, and its legal
//! actions. Never another seat's concealed tiles.

use super::action::ActionMask;
use super::table::{Game, MAX_DISCARDS};
use crate::hand::MeldKind;
use crate::tile::{Counts, Tile};
use crate::wildcard::Wildcards;

/// A meld as the observer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SeenMeld {
    /// Pong or which kong.
    pub kind: MeldKind,
    /// The kind, `None` for another seat's concealed kong when the ruleset
    /// hides it.
    pub tile: Option<Tile>,
    /// Claimed from this seat's discard.
    pub from: Option<u8>,
}

/// A discard as the observer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SeenDiscard {
    /// Who discarded.
    pub seat: u8,
    /// The tile; `None` for another seat's face-down ting discard.
    pub tile: Option<Tile>,
    /// A ting declaration's face-down discard.
    pub face_down: bool,
    /// Claimed into a meld.
    pub claimed: bool,
}

/// The answer the observer is asked for, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pending {
    /// Nobody is asked anything of the observer.
    None,
    /// Its own turn.
    Turn,
    /// Answer `tile` discarded by `from`.
    Discard {
        /// The discarder.
        from: u8,
        /// The tile.
        tile: Tile,
    },
    /// Answer `from`'s added kong of `tile` (rob it or pass).
    AddedKong {
        /// The konger.
        from: u8,
        /// The tile.
        tile: Tile,
    },
}

impl Pending {
    /// Its name in the wire format and the Python API: `none`, `turn`,
    /// `discard` (answer a discard) or `added_kong` (rob it or pass).
    pub const fn name(self) -> &'static str {
        match self {
            Pending::None => "none",
            Pending::Turn => "turn",
            Pending::Discard { .. } => "discard",
            Pending::AddedKong { .. } => "added_kong",
        }
    }

    /// The seat and the tile the observer answers, if it answers one.
    pub const fn answered(self) -> (Option<u8>, Option<Tile>) {
        match self {
            Pending::Discard { from, tile } | Pending::AddedKong { from, tile } => {
                (Some(from), Some(tile))
            }
            Pending::None | Pending::Turn => (None, None),
        }
    }
}

/// One seat's view of the table. Fixed size, no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Observation {
    /// The observer.
    pub seat: u8,
    /// The dealer.
    pub dealer: u8,
    /// The seat to act (`None` once the hand is over).
    pub to_act: Option<u8>,
    /// What the observer is asked.
    pub pending: Pending,
    /// The observer's concealed tiles.
    pub concealed: Counts,
    /// The tile the observer just drew, on its turn.
    pub drawn: Option<Tile>,
    /// Concealed tile count of every seat.
    pub concealed_count: [u8; 4],
    /// Melds of every seat.
    pub melds: [[Option<SeenMeld>; 4]; 4],
    /// Who has declared ting.
    pub ting: [bool; 4],
    /// Discards so far (the first `n_discards` entries).
    pub discards: [SeenDiscard; MAX_DISCARDS],
    /// Number of discards.
    pub n_discards: u8,
    /// Tiles left in the wall, reserved ones included.
    pub wall_remaining: u8,
    /// Tiles that may still be drawn.
    pub live_remaining: u8,
    /// Kongs made so far.
    pub kongs: u8,
    /// The wild kinds.
    pub wilds: Wildcards,
    /// Tiles still in the wall that lie face up (wildcard indicators).
    pub face_up_in_wall: Counts,
    /// The observer's own 过胡 lock: may it still win on a discard?
    pub may_win_discards: bool,
    /// The kinds the observer may not win on a discard because of a
    /// `pass_scope = "tile"` 过胡 lock, as a bit mask by kind index (bit
    /// `k` for kind `k`). Always 0 under the other pass scopes, where
    /// [`may_win_discards`](Self::may_win_discards) says everything.
    pub locked_kinds: u64,
    /// Running scores.
    pub scores: [i64; 4],
    /// The observer's legal actions (empty unless it is to act).
    pub legal: ActionMask,
}

impl Observation {
    /// The discards, in order.
    pub fn discards(&self) -> &[SeenDiscard] {
        &self.discards[..self.n_discards as usize]
    }

    /// The kinds of [`locked_kinds`](Self::locked_kinds), in kind order.
    pub fn locked_kind_tiles(&self) -> impl Iterator<Item = Tile> + '_ {
        Tile::all().filter(|t| self.locked_kinds & (1 << t.index()) != 0)
    }

    /// Every tile the observer can see by kind: own concealed tiles,
    /// visible melds, face-up discards, face-up wall tiles.
    pub fn visible_counts(&self) -> Counts {
        let mut c = self.concealed;
        for seat in &self.melds {
            for m in seat.iter().flatten() {
                if let Some(t) = m.tile {
                    c[t.index()] += m.kind.size();
                }
            }
        }
        for d in self.discards() {
            if let (Some(t), false) = (d.tile, d.claimed) {
                c[t.index()] += 1;
            }
        }
        for (n, up) in c.iter_mut().zip(self.face_up_in_wall) {
            *n += up;
        }
        c
    }
}

impl Game {
    /// What `seat` sees (seats above 3 wrap).
    ///
    /// ```
    /// use koudian_core::game::Game;
    /// use koudian_core::Ruleset;
    /// let g = Game::new(&Ruleset::shanxi(), 1, None).unwrap();
    /// let o = g.observe(2);
    /// assert_eq!(o.concealed, g.hand(2).concealed);
    /// assert_eq!(o.concealed_count, [14, 13, 13, 13]);
    /// ```
    pub fn observe(&self, seat: u8) -> Observation {
        let seat = seat & 3;
        let mut melds = [[None; 4]; 4];
        let mut counts = [0u8; 4];
        for s in 0..4u8 {
            counts[s as usize] = self.hands[s as usize].tile_count() as u8;
            for (i, tm) in self.table_melds(s).enumerate() {
                melds[s as usize][i] = Some(self.seen_meld(s, seat, tm));
            }
        }
        let mut discards = [SeenDiscard {
            seat: 0,
            tile: None,
            face_down: false,
            claimed: false,
        }; MAX_DISCARDS];
        for (o, d) in discards.iter_mut().zip(self.discards()) {
            *o = Game::seen_discard(d, seat);
        }
        let face_up = self.face_up_in_wall();
        let to_act = self.to_act();
        let (pending, drawn) = self.pending_for(seat);
        Observation {
            seat,
            dealer: self.deal.dealer,
            to_act,
            pending,
            concealed: self.hands[seat as usize].concealed,
            drawn,
            concealed_count: counts,
            melds,
            ting: self.ting,
            discards,
            n_discards: self.n_discards,
            wall_remaining: self.wall.remaining() as u8,
            live_remaining: self.live_tiles() as u8,
            kongs: self.kongs,
            wilds: self.deal.wilds,
            face_up_in_wall: face_up,
            may_win_discards: self.may_win_discards(seat),
            locked_kinds: self.locked_kinds(seat),
            scores: self.scores,
            legal: self.legal_actions_for(seat),
        }
    }
}
