//! Ranked candidate actions: every legal action of a seat, best first,
//! with the numbers an agent compared ([`rank_actions`]). The review and
//! web pages show them; the first is exactly what the agent plays.

use crate::agent::mc::{McConfig, MonteCarloAgent};
use crate::agent::nn::{NnAgent, NnConfig};
use crate::agent::{GreedyAgent, SeatView};
use crate::error::Error;
use crate::game::{Action, Game};

/// One legal action as an agent ranks it.
///
/// `value` is one summary number, higher is better, comparable only
/// within one ranking (the greedy agent: minus the rank, as its order is
/// lexicographic); `numbers` are the named quantities the agent compared
/// (the greedy agent: `shanten`, `improving` live tiles, `wait_value`,
/// `danger`, where they apply).
#[derive(Clone, Debug, PartialEq)]
pub struct RankedAction {
    /// The action.
    pub action: Action,
    /// Summary value, higher is better.
    pub value: f64,
    /// The named numbers compared, in a fixed order.
    pub numbers: Vec<(&'static str, f64)>,
}

impl RankedAction {
    /// The number named `name`, if the agent compared it.
    pub fn number(&self, name: &str) -> Option<f64> {
        self.numbers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| v)
    }
}

/// Every legal action of `seat` in `game`, best first, as the agent of
/// spec `agent` ranks them (`"greedy"`, or `"mc"` with its options, e.g.
/// `"mc:rollouts=200"`, seeded with `seed` as [`MonteCarloAgent::new`]);
/// empty when the seat is not to act, an error naming the spec when it is
/// not known. The mc values are estimated mean settlement points (see
/// [`MonteCarloAgent::rank`]); the nn values are the policy's logits (see
/// [`NnAgent::rank`]).
///
/// ```
/// use koudian_core::agent::{rank_actions, Agent, GreedyAgent, SeatView};
/// use koudian_core::game::Game;
/// use koudian_core::Ruleset;
/// let g = Game::new(&Ruleset::shanxi(), 3, None).unwrap();
/// let seat = g.to_act().unwrap();
/// let ranked = rank_actions(&g, seat, "greedy", 0).unwrap();
/// assert_eq!(ranked.len(), g.legal_actions().len());
/// let played = GreedyAgent::new(0).act(&SeatView::new(&g, seat));
/// assert_eq!(ranked[0].action, played);
/// assert!(rank_actions(&g, (seat + 1) % 4, "greedy", 0).unwrap().is_empty());
/// assert!(rank_actions(&g, seat, "clever", 0).is_err());
/// ```
pub fn rank_actions(
    game: &Game,
    seat: u8,
    agent: &str,
    seed: u64,
) -> Result<Vec<RankedAction>, Error> {
    let view = SeatView::new(game, seat);
    let (base, options) = agent.split_once(':').unwrap_or((agent, ""));
    match base {
        "greedy" if options.is_empty() => Ok(GreedyAgent::new(seed).rank(&view)),
        "mc" => Ok(MonteCarloAgent::new(McConfig::parse(options)?, seed).rank(&view)),
        "nn" => NnAgent::new(&NnConfig::parse(options)?, seed)?.rank(&view),
        _ => Err(Error::InvalidRuleset(format!(
            "unknown agent {agent:?} for ranking (available: \"greedy\", \"mc\", \"mc:rollouts=N\", \"nn\", \"nn:PATH\")"
        ))),
    }
}
