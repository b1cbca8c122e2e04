//! koudian-core: a rules engine for Shanxi 扣点点 (Koudian) mahjong and its
//! relatives, Linxian 抠点 and basic Sichuan mahjong.
//!
//! The file tree reads like the rule book: [`tile`] (§1), [`shape`] (§2),
//! [`waits`] and [`shanten`] (§2 "ready"), [`legal`] (those under a whole
//! ruleset: 不带风, Sichuan's 缺一门), [`ting`] (§3 报听), [`score`]
//! (§3-§5 values and payments), [`game`] (the table), [`ruleset`] (every
//! option).
#![warn(missing_docs)]

pub mod agent;
pub mod arena;
pub mod batch;
pub mod discard;
pub mod error;
pub mod game;
pub mod hand;
mod kind_sets;
pub mod legal;
pub mod log_compress;
mod parallel;
pub mod record;
pub mod rng;
pub mod ruleset;
pub mod score;
pub mod shanten;
pub mod shape;
pub mod simd;
pub mod simulate;
#[cfg(test)]
mod testing;
pub mod tile;
pub mod ting;
pub mod vec_env;
pub mod waits;
pub mod wildcard;

pub use error::Error;
pub use hand::{Hand, Meld, MeldKind};
pub use parallel::MAX_THREADS;
pub use ruleset::Ruleset;
pub use tile::{Counts, Tile};
pub use wildcard::Wildcards;
