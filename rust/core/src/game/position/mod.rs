//! Positions: a table rebuilt from one seat's [`Observation`] and a
//! [`Hidden`] completion of what that seat cannot see, and
//! [`sample_hidden`], which draws such a completion uniformly among those
//! consistent with the public information (the determinization step of a
//! search: sample the hidden tiles, then play on a fully known table).
//!
//! What a seat cannot see is the other seats' concealed tiles, the order
//! of the wall, the other seats' face-down ting discards, the kinds of
//! their concealed kongs where `hide_concealed_kong` hides them, and the
//! table's private state of each seat: its 过胡 locks and the kongs it
//! forfeited by choosing a pong. A rebuilt table has no event log before
//! the position, lists its kongs ([`Game::kong_list`]) by seat and meld
//! rather than in the order they were made (the same payments), and is
//! rebuilt only where the observer is to act.
//!
//! ```
//! use koudian_core::game::{sample_hidden, Game, Prng};
//! use koudian_core::Ruleset;
//! let rules = Ruleset::shanxi();
//! let g = Game::new(&rules, 3, None).unwrap();
//! let seat = g.to_act().unwrap();
//! let obs = g.observe(seat);
//! // The true completion rebuilds the same table...
//! let same = Game::from_observation(&rules, &obs, &g.hidden(seat), None).unwrap();
//! assert_eq!(same.observe(seat), obs);
//! // ... and a sampled one a table the seat cannot tell from it.
//! let h = sample_hidden(&rules, &obs, &mut Prng::new(1)).unwrap();
//! let world = Game::from_observation(&rules, &obs, &h, None).unwrap();
//! assert_eq!(world.observe(seat), obs);
//! ```
//!
//! The module's parts: `rebuild` ([`Game::from_observation`],
//! [`Game::hidden`]), `uniform` ([`sample_hidden`]: the draw of a
//! completion, one declared hand by rejection), `joint` (the exact joint
//! draw of two or more declared hands), and their tests.

use super::claims::Queue;
use super::judge::Judge;
use super::observation::{Observation, Pending};
use super::table::{Discard, Game, Phase, PrivateLocks};
use super::wall::{Deal, Prng, Wall};
use crate::error::Error;
use crate::hand::{Hand, Meld, MeldKind};
use crate::ruleset::{Family, KongDraw, Ruleset};
use crate::score::{Kong, KongKind};
use crate::tile::{Counts, Tile, KINDS};

/// A completion of what one seat cannot see (see the [module](self)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hidden {
    /// Every seat's concealed tiles by kind (the observer's are its own).
    pub concealed: [Counts; 4],
    /// The undrawn wall, front (next draw) first: as many tiles as the
    /// observation's `wall_remaining`, the face-up indicator tiles last.
    pub wall: Vec<Tile>,
    /// The tile of each discard the observation shows face down, in
    /// discard order.
    pub face_down: Vec<Tile>,
    /// The kind of each meld the observation hides (another seat's
    /// concealed kong), seat by seat, in meld order.
    pub concealed_kongs: Vec<Tile>,
    /// 过胡 locks by hand (`pass_scope = "hand"`), per seat.
    pub pass_hand: [bool; 4],
    /// 过胡 locks by kind (`pass_scope = "tile"`), a bit per kind, per seat.
    pub pass_kinds: [u64; 4],
    /// Sichuan 过水 locks until the seat's next draw, per seat.
    pub pass_turn: [bool; 4],
    /// Kong kinds forfeited by choosing a pong, a bit per kind, per seat.
    pub no_kong: [u64; 4],
    /// On a turn that began with a kong's replacement tile: that kong's
    /// kind (a 杠上开花 chance). Public, but not in the observation.
    pub replacement: Option<MeldKind>,
    /// The answers so far to the discard being answered, as the true
    /// table holds them ([`Game::hidden`] keeps them); `None` opens the
    /// answers afresh as if every seat asked before the observer passed.
    pub claims: Option<Queue>,
}

impl Default for Hidden {
    /// The empty completion (of no position).
    fn default() -> Hidden {
        Hidden {
            concealed: [[0; KINDS]; 4],
            wall: Vec::new(),
            face_down: Vec::new(),
            concealed_kongs: Vec::new(),
            pass_hand: [false; 4],
            pass_kinds: [0; 4],
            pass_turn: [false; 4],
            no_kong: [0; 4],
            replacement: None,
            claims: None,
        }
    }
}

/// The tile of kind index `k` (below 34).
fn kind(k: usize) -> Tile {
    Tile::new(k as u8).unwrap_or(Tile::M1)
}

/// The pieces [`Game::assemble`] builds a table from.
pub(crate) struct Assembly {
    pub rules: Ruleset,
    pub deal: Deal,
    pub seed: Option<u64>,
    pub wall: Wall,
    pub hands: [Hand; 4],
    pub meld_from: [[Option<u8>; 4]; 4],
    pub discards: Vec<Discard>,
    pub ting: [bool; 4],
    pub scores: [i64; 4],
    pub kongs: u8,
    pub kongs_made: Vec<Kong>,
    pub locks: PrivateLocks,
    pub phase: Phase,
    pub queue: Option<Queue>,
    pub observer: u8,
}

fn bad(m: String) -> Error {
    Error::InvalidPosition(m)
}

mod joint;
mod rebuild;
#[cfg(test)]
mod tests;
mod uniform;

pub(crate) use crate::rng::SplitMix;
pub use uniform::sample_hidden;
pub(crate) use uniform::sample_with;
