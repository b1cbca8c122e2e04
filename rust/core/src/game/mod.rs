//! The table (docs/rules.md §3-§6): one state machine for every ruleset, the
//! event log, observations, matches.
//!
//! * [`wall`]: seeded shuffle, dice, deal, wildcard choice, prepared walls.
//! * [`action`]: [`Action`] and its dense encoding (the RL action space).
//! * [`table`]: [`Game`], one hand from deal to settlement.
//! * [`claims`]: who answers a discard first, and what beats what.
//! * [`observation`]: what one seat may see (and `render`: its text,
//!   `Display` on [`Observation`]).
//! * [`position`]: a table rebuilt from an observation and a completion
//!   of what it hides ([`Game::from_observation`], [`sample_hidden`]).
//! * [`event`]: the JSON Lines log and [`replay`].
//! * [`rotation`]: who deals next, and [`Match`] (N hands or 四圈).
//!
//! # Flow
//!
//! The dealer starts with 14 tiles and acts first. Draws are made by the
//! table, not chosen: a seat's turn begins with its draw. On its turn a
//! seat may win (自摸), kong (暗杠 / 补杠), discard, or declare ting with
//! a face-down discard. A face-up discard that is not wild is offered to
//! the other seats ([`claims`]); an added kong is offered to the seats
//! that may rob it. Exactly one seat is asked at a time ([`Game::to_act`]).
//!
//! The table plays a seat's move itself (logged with `"auto":true`) when
//! the seat has no choice: a declared player's draw that neither wins nor
//! allows a kong is discarded; a win is taken under `must_win` (有胡必胡)
//! and in Sichuan when four or fewer live tiles remain; the Linxian last
//! live tile that cannot win ends the hand.
//!
//! # Decisions where docs/rules.md is silent
//!
//! * After a pong the player must discard (no kong, no win before it);
//!   he may declare ting with that discard.
//! * A player who has declared ting may kong only with the tile he just
//!   drew (暗杠 of a held triplet + the draw, or 补杠 onto his pong), or
//!   claim 点杠 on a discard onto his concealed triplet, each only when
//!   [`crate::ting::ting_kong_allowed`] holds ("no changing tiles").
//! * 补杠 may be made with any held 4th tile of a pong, not only a fresh
//!   draw, unless the kong of that kind was forfeited by choosing 碰 when
//!   杠 was offered (`kong_after_pong` off).
//! * A kong needs a live tile left for its replacement (with the Linxian
//!   reserve counted after the kong's extra 2).
//! * The Linxian "last live tile belongs to the drawer" rule applies to
//!   the linxian family only; in Shanxi and Sichuan the last tile is
//!   discarded as usual and may be claimed.
//! * Sichuan has no ting, so 过胡 there is the players' usual 过水: a
//!   declined win on a discard locks discard wins until the seat's next
//!   draw (`pass_scope` applies to the Koudian families).
//! * Linxian "all three wait on the kong tile": checked when a player who
//!   has not declared ting adds a kong (补杠) of a tile worth 6+ and all
//!   three others have declared and hold it among their waits; the hand
//!   is then drawn (`kind: kong_draw`).
//! * Leaving (逃跑, linxian only) is an action of the seat to act and also
//!   [`Game::leave`] for any seat at any moment. The built-in random agent
//!   never leaves.
//! * With `haozi_pick = "indicator"` the indicator tile(s) stay in the
//!   wall face up and are drawn normally (kong replacements come from that
//!   end); observations show them while they are in the wall.

pub mod action;
pub mod claims;
pub mod encode;
pub mod event;
mod judge;
mod log_text;
pub mod observation;
mod observation_json;
pub mod position;
mod render;
pub mod result;
pub mod rotation;
mod settle;
pub mod table;
pub(crate) mod view;
pub mod wall;
pub(crate) mod worlds;

pub use action::{Action, ActionMask, N_ACTIONS};
pub use event::{log_hands, replay, replay_each, Event, LOG_VERSION};
pub use log_text::LogWriter;
pub use observation::{Observation, Pending, SeenDiscard, SeenMeld};
pub use position::{sample_hidden, Hidden};
pub use result::{EndKind, HandResult};
pub use rotation::{next_dealer, Match, MatchLength};
pub use table::{Discard, Game, Phase, TableMeld};
pub use wall::{mix_seed, Deal, Prng, Wall};
