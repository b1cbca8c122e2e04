//! The built-in greedy baseline, [`GreedyAgent`]: a fast, deterministic
//! player that bot writers can measure themselves against.
//!
//! # Strategy
//!
//! * **Win** whenever the table allows it (a ting declaration, the point
//!   rules and 缺一门 are the table's to check: a legal win is taken).
//! * **Declare ting** (报听) as soon as any `Ting` discard is legal. Among
//!   the legal ting discards it keeps the wait with the most live winning
//!   tiles (copies not visible to it, wild copies included, of the waits
//!   whose points may win at all under `point_rule`), then the highest
//!   value (live copies × points, doubled for waits that may also win on a
//!   discard). A ting discard is face down, so it is never dangerous.
//! * **Discard** to minimize shanten, then to maximize the live tiles that
//!   improve the hand: the waits when the discard leaves it ready, the
//!   tiles that lower the shanten (ukeire) at shanten 1. Ties go to
//!   the least connected tile (fewest neighbours within two ranks); in the
//!   Koudian families the lower-point tile goes first (waits need points),
//!   in Sichuan the more terminal one. Wild tiles are never discarded while
//!   anything else may be, since they help every shape.
//! * **Points** (Shanxi, Linxian): a ready hand whose waits cannot reach
//!   `ting_min_points` can never win, so such a discard counts as one step
//!   from ready (shanten 1) with no improving tiles.
//! * **Pong** only when it lowers the shanten (after its best discard);
//!   **kong** (concealed, added or on a discard) when it does not raise it.
//!   After ting it takes every kong the table offers (the table has
//!   already checked that the waits survive).
//! * **包胡 defence** (Shanxi, Linxian): while it has not declared, a
//!   face-up discard of a tile worth `≥` the discard-win minimum that a
//!   declared opponent may win on makes it pay all three shares. It judges
//!   "may win on" conservatively from public information only: a tile is
//!   safe against a declared opponent when it cannot be won on a discard
//!   (too few points, or wild), when that opponent has let it pass since
//!   declaring (a copy discarded face up by another seat, the hand going
//!   on: either it is not a wait or the 过胡 lock forbids it), when the
//!   opponent holds a kong of it (no 5th copy), or when it is an honor of
//!   which all four copies are visible without wildcards or 风嘴子 (an
//!   honor wait needs a copy in hand) and the opponent cannot be on
//!   thirteen orphans. A safe tile is preferred when it costs at most one
//!   shanten, and always once the agent is two or more from ready
//!   (folding: its own win is then unlikely). When every candidate is
//!   unsafe it sheds the cheapest. An added kong of an unsafe tile (it may
//!   be robbed) is skipped too.
//! * **缺一门** (Sichuan): the void suit is the suit with the fewest tiles
//!   among those without a meld (ties: the lower suit index); its tiles
//!   count as junk for shanten, go first among equal discards, are never
//!   ponged or konged, and never count as improving tiles.
//!
//! # Decisions where the brief is silent
//!
//! * "Passed" tiles stay safe even if the opponent later changes its waits
//!   by a kong after ting (rare, and not publicly datable).
//! * "All copies visible" alone does not make a suited tile safe: a
//!   closed or edge wait holds no copy of the winning tile.
//! * A ting discard may be a wild tile when no other ting discard exists
//!   (a hand that never declares can never win).
//!
//! # Where things are
//!
//! * `policy.rs`: the strategy above, written once (`Policy`), on the
//!   questions of an evaluator: `eval.rs` (`Eval`: shanten after a
//!   change, the discards' levels, improving tiles, waits, unseen copies).
//!   The policy is generic over the evaluator and monomorphized, so the
//!   fast path pays nothing for the trait.
//! * The fast evaluator: `fast.rs` (its `Eval` answers), `ctx.rs` (the
//!   position's `Facts` and the shanten questions), `base.rs` (one hand's
//!   shanten with everything precomputed), `groups.rs` (the kept group
//!   needs), `ukeire.rs` (removal levels, improving tiles and their
//!   bounds), `tally.rs` (bit planes of counts), `keys.rs` (candidate keys
//!   packed into integers); the lane kernels are
//!   `shanten/lanes.rs`'s.
//! * `plain.rs` (tests only): every question answered from scratch by the
//!   shanten module's calculator and [`waits_counts`]; the tests check
//!   that both evaluators answer alike and that the policy makes the
//!   recorded decisions (`tests/data/greedy_decisions.txt`) on both.
//! * `rank.rs`: [`GreedyAgent::rank`], the policy's choices one after the
//!   other with the numbers it compared.
//!
//! # Determinism and speed
//!
//! The agent uses no randomness and no memory of past decisions: every tie
//! is broken by a fixed order, ending with the tile index, so the same view
//! always gives the same action (the seed passed to [`Agent::reset`] is
//! kept only for reporting). Between decisions it keeps only caches that
//! are pure functions of what they are checked against, so a fresh agent
//! and a reused one decide alike: shape-table look-ups (each group's needs
//! and their one-tile changes, the latter as the need lanes each change
//! moves, so that a whole group's variants are tested at once against the
//! lanes a best split of the hand uses; keyed by the group's counts and
//! the table variant), the shanten calculator and the wild kinds (keyed by
//! the wildcards and the shape rules). The discards' public tallies (the
//! face-up copies, the tiles each declared seat let pass) are the
//! table's, kept with its discards ([`Game::pond`], [`Game::let_pass`]).
//! Decisions allocate nothing: shanten comes from
//! the table-based calculator with one group re-looked-up per tile
//! changed, waits from the counts-level [`waits_counts`].
//!
//! Within a decision, work that cannot change the action is skipped, each
//! shortcut exact (proved in its doc comment from the shape tables'
//! monotonicity: a tile added never raises a need, one removed never
//! lowers one, by one at most) and compared with the full computation in
//! debug builds: far from ready the candidates are tried in key order
//! and the first at the hand's own level wins, with the other groups'
//! products computed only for the groups tried; improving tiles are
//! counted only for candidates whose upper bound can still win, and
//! without the other groups' products when the discard keeps every best
//! split of the hand; a pong that does not lower the 14-type hand's own
//! shanten needs no discard analysis.
//!
//! It reads only public information through its [`SeatView`]: its own
//! tiles, face-up discards, visible melds, the ting declarations and the
//! face-up wall indicators.

use super::{Agent, SeatView};
use crate::error::Error;
use crate::game::{Action, ActionMask, Game, Phase};
use crate::hand::{Hand, MeldKind};
use crate::ruleset::Family;
use crate::shanten::lanes::{combine_padded as combine, *};
use crate::shanten::{group_key, group_pos, partner_lanes, partner_missing, Calculator, POS_STEP};
use crate::shape::ShapeRules;
use crate::tile::{Counts, KindSet, Tile, KINDS};
use crate::waits::{waits_counts, Waits};
use crate::wildcard::Wildcards;

mod base;
mod ctx;
mod eval;
mod fast;
mod groups;
mod keys;
pub mod lookahead;
#[cfg(test)]
mod plain;
mod policy;
mod rank;
mod tally;
mod ukeire;

use base::*;
use ctx::*;
use eval::*;
use groups::*;
use keys::*;
use policy::*;
use tally::*;
use ukeire::*;

/// The greedy baseline agent (see the [module docs](self) for its
/// strategy).
///
/// ```
/// use koudian_core::agent::{Agent, GreedyAgent, SeatView};
/// use koudian_core::game::Game;
/// use koudian_core::Ruleset;
/// let mut g = Game::new(&Ruleset::shanxi(), 3, None).unwrap();
/// let mut agents = [0, 1, 2, 3].map(GreedyAgent::new);
/// while let Some(seat) = g.to_act() {
///     let a = agents[seat as usize].act(&SeatView::new(&g, seat));
///     g.step(a).unwrap();
/// }
/// assert_eq!(g.result().unwrap().deltas.iter().sum::<i64>(), 0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct GreedyAgent {
    seed: u64,
    /// Shape analysis kept between decisions (a pure function of the
    /// counts it is keyed by: it never changes a decision).
    groups: Box<Groups>,
    /// The calculator and wild kinds of the last table variant (a pure
    /// function of the wildcards and shape rules it is keyed by).
    setup: Option<Box<Setup>>,
}

/// What depends only on the wildcards and the shape rules, kept between
/// decisions: building the calculator costs more than a whole
/// decision's look-ups of it.
#[derive(Clone)]
struct Setup {
    wilds: Wildcards,
    shape: ShapeRules,
    calc: Calculator,
    /// The wild kinds as a mask.
    wild_mask: u64,
}

impl Setup {
    fn new(wilds: Wildcards, shape: ShapeRules) -> Setup {
        Setup {
            wilds,
            shape,
            calc: Calculator::new(&wilds, &shape),
            wild_mask: wilds.mask(),
        }
    }

    /// Makes `kept` the setup of `wilds` and `shape`.
    #[inline]
    fn refresh(kept: &mut Option<Box<Setup>>, wilds: Wildcards, shape: ShapeRules) -> &Setup {
        match kept {
            Some(s) if s.wilds == wilds && s.shape == shape => {}
            _ => *kept = Some(Box::new(Setup::new(wilds, shape))),
        }
        let s = kept.as_deref().expect("set above");
        debug_assert_eq!(s.calc.group_variant(), {
            Calculator::new(&wilds, &shape).group_variant()
        });
        s
    }
}

impl std::fmt::Debug for Setup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Setup")
            .field("wilds", &self.wilds)
            .field("shape", &self.shape)
            .finish_non_exhaustive()
    }
}

impl GreedyAgent {
    /// A greedy agent. It is deterministic; the seed is only recorded.
    pub fn new(seed: u64) -> GreedyAgent {
        GreedyAgent {
            seed,
            groups: Box::default(),
            setup: None,
        }
    }

    /// The seed given at construction or by the last [`Agent::reset`].
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl Agent for GreedyAgent {
    fn act(&mut self, view: &SeatView<'_>) -> Action {
        let legal = view.legal();
        let mut ctx = Ctx::new(view.game, view.seat, &mut self.groups, &mut self.setup);
        let a = Policy::<_, false>::new(&mut ctx).decide(legal);
        if legal.contains(a) {
            return a;
        }
        // Unreachable by construction; never hand the table an illegal move.
        legal.fallback().unwrap_or(Action::Pass)
    }

    fn reset(&mut self, seed: u64) {
        self.seed = seed;
    }
}

/// The greedy agent's choice for `seat` in `game`, or an error when the
/// seat has nothing to decide.
///
/// ```
/// use koudian_core::agent::greedy::greedy_action;
/// use koudian_core::game::Game;
/// use koudian_core::Ruleset;
/// let g = Game::new(&Ruleset::sichuan(), 9, None).unwrap();
/// let seat = g.to_act().unwrap();
/// assert!(g.legal_actions().contains(greedy_action(&g, seat).unwrap()));
/// assert!(greedy_action(&g, (seat + 1) % 4).is_err());
/// ```
pub fn greedy_action(game: &Game, seat: u8) -> Result<Action, Error> {
    let view = SeatView::new(game, seat);
    if view.legal().is_empty() {
        return Err(Error::IllegalAction(format!(
            "seat {seat} has no decision to make now"
        )));
    }
    Ok(GreedyAgent::new(0).act(&view))
}

#[cfg(test)]
mod tests;
