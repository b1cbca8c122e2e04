//! Native agents: the [`Agent`] trait and the built-in [`RandomAgent`].
//!
//! An agent sees the table through a [`SeatView`]: the seat's own tiles,
//! its legal actions, and (materialized on demand) its full
//! [`Observation`]. A view cannot reach other seats' hidden tiles, so an
//! agent cannot cheat; it costs nothing until the agent asks for more
//! than the legal actions.

#[cfg(test)]
mod decisions;
pub mod greedy;
pub mod mc;
pub mod nn;
mod ranked;

pub use greedy::GreedyAgent;
pub use mc::MonteCarloAgent;
pub use nn::NnAgent;
pub use ranked::{rank_actions, RankedAction};

use crate::error::Error;
use crate::game::action::BY_INDEX;
use crate::game::{Action, ActionMask, Game, Observation};
use crate::tile::{Counts, Tile};

/// One seat's window on the table, handed to [`Agent::act`].
#[derive(Clone, Copy, Debug)]
pub struct SeatView<'a> {
    game: &'a Game,
    seat: u8,
}

impl<'a> SeatView<'a> {
    /// The view of `seat` (seats above 3 wrap).
    pub fn new(game: &'a Game, seat: u8) -> SeatView<'a> {
        SeatView {
            game,
            seat: seat & 3,
        }
    }

    /// The seat.
    pub fn seat(&self) -> u8 {
        self.seat
    }

    /// The seat's legal actions (empty unless it is to act).
    pub fn legal(&self) -> ActionMask {
        self.game.legal_actions_for(self.seat)
    }

    /// The seat's own concealed tiles.
    pub fn concealed(&self) -> Counts {
        self.game.hand(self.seat).concealed
    }

    /// Whether `t` is a wild kind of this hand.
    pub fn is_wild(&self, t: Tile) -> bool {
        self.game.wilds().is_wild(t)
    }

    /// The table behind the view: for a binding handing the view on to
    /// an agent outside Rust, which is given only the seat's observation
    /// (the Python binding's `NativeAgent` acts on a snapshot of it).
    /// Agents read the table through the view's other methods.
    #[doc(hidden)]
    pub fn game(&self) -> &'a Game {
        self.game
    }

    /// Everything the seat may see.
    pub fn observation(&self) -> Observation {
        self.game.observe(self.seat)
    }
}

/// What an agent answered for one decision: an action (legal or not,
/// the game loop judges), or something that is no action at all (an
/// agent living outside Rust may answer anything; its description, such
/// as a Python `repr`, names it in the fault reported).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// An action.
    Action(Action),
    /// No action: what was answered instead.
    NotAnAction(String),
    /// An action the agent played for itself after a fault it reports on
    /// its own (an external bot's timeout: its own fallback): played like
    /// [`Answer::Action`], the hand counted as faulted.
    Faulted(Action),
}

/// A player: given its view, returns one of its legal actions.
///
/// Native agents implement [`Agent::act`]; an agent that lives outside
/// Rust (the Python binding's) implements [`Agent::decide`], which may
/// answer a non-action or fail. The game loop
/// ([`crate::simulate::play_out`]) plays the fallback
/// ([`ActionMask::fallback`]) for an answer that is not legal and stops
/// the run with the agent's error.
pub trait Agent: Send {
    /// Chooses an action; it must be in `view.legal()`.
    fn act(&mut self, view: &SeatView<'_>) -> Action;

    /// The answer the game loop asks for: by default [`Agent::act`]'s.
    /// An error stops the run and is returned by it. An agent that
    /// overrides it must also override [`Agent::decides`].
    #[inline]
    fn decide(&mut self, view: &SeatView<'_>) -> Result<Answer, Error> {
        Ok(Answer::Action(self.act(view)))
    }

    /// Whether the game loop must ask [`Agent::decide`] (an agent that
    /// overrides it) rather than [`Agent::act`]. Asked once a hand: a
    /// native agent's decisions then cost one call, as before the loop
    /// took agents that may fail (the fallible answer is a larger value
    /// returned through memory, measurably slower for `random`).
    fn decides(&self) -> bool {
        false
    }

    /// Called before each hand with a seed for this seat and hand, so that
    /// an agent's randomness depends only on the game, never on threads.
    fn reset(&mut self, seed: u64) {
        let _ = seed;
    }

    /// For an agent that estimates the values of its candidates (`mc`):
    /// plays exactly as [`Agent::act`] would (same action, same seeds
    /// consumed) and, where it estimated two or more candidates, writes
    /// their values into `values` (indexed by [`Action::index`]; the
    /// caller fills it with NaN first). `None` (the default) from an
    /// agent that does not estimate: the caller then asks `act`. The
    /// dataset recorder keeps the values as soft targets for learners.
    fn act_valued(
        &mut self,
        view: &SeatView<'_>,
        values: &mut [f32; crate::game::N_ACTIONS],
    ) -> Option<Action> {
        let _ = (view, values);
        None
    }

    /// The learned agent behind this one, if it is one: the self-play
    /// runner then evaluates its decisions in batches with other tables'
    /// (the same decisions as [`Agent::decide`]'s, batched or not).
    fn as_nn(&mut self) -> Option<&mut NnAgent> {
        None
    }
}

/// Plays a uniformly random legal action (never [`Action::Leave`]).
///
/// ```
/// use koudian_core::agent::{Agent, RandomAgent, SeatView};
/// use koudian_core::game::Game;
/// use koudian_core::Ruleset;
/// let g = Game::new(&Ruleset::shanxi(), 1, None).unwrap();
/// let mut a = RandomAgent::new(5);
/// let seat = g.to_act().unwrap();
/// let action = a.act(&SeatView::new(&g, seat));
/// assert!(g.legal_actions().contains(action));
/// ```
#[derive(Clone, Debug)]
pub struct RandomAgent {
    rng: SplitMix,
}

impl RandomAgent {
    /// A random agent with its own seeded stream.
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent {
            rng: SplitMix(seed),
        }
    }
}

/// The agents' random source, defined in [`crate::rng`] (re-exported
/// here, where the agents have always taken it from).
pub(crate) use crate::rng::SplitMix;

impl Agent for RandomAgent {
    fn act(&mut self, view: &SeatView<'_>) -> Action {
        let [w0, w1, w2] = view.legal().0;
        self.choose(w0, w1, w2)
    }

    fn reset(&mut self, seed: u64) {
        self.rng = SplitMix(seed);
    }
}

/// The dense index bit of [`Action::Leave`] in the mask's last word.
const LEAVE: u64 = 1 << (N_LEAVE - 128);

impl RandomAgent {
    /// [`Agent::act`] on the legal mask: uniform over the actions in
    /// index order, Leave dropped unless it is the only one.
    /// The mask's words are passed apart, in registers (an array argument
    /// is passed through memory).
    #[inline(always)]
    fn choose(&mut self, w0: u64, w1: u64, w2: u64) -> Action {
        // Most decisions are a turn's discards (and ting declarations),
        // all in the first word: the same draw and pick as `pick`'s (a
        // test compares them), without choosing the word (a branch taken
        // the same way turn after turn), and without `pick`'s registers
        // to save.
        if w1 | w2 & !LEAVE == 0 && w0 != 0 {
            let r = self.rng.below(w0.count_ones());
            return BY_INDEX[select(w0, r) as usize & 63];
        }
        self.pick(w0, w1, w2)
    }

    /// The pick of [`Agent::act`] on any mask: uniform over the actions
    /// in index order, Leave dropped unless it is the only one.
    /// Branch-free where the data is random (a mispredicted branch costs
    /// more than the arithmetic): the word holding the pick and the bit
    /// within it are selected, not searched.
    #[inline(never)]
    fn pick(&mut self, w0: u64, w1: u64, mut w2: u64) -> Action {
        let (c0, c1) = (w0.count_ones(), w1.count_ones());
        if w0 | w1 | w2 & !LEAVE != 0 {
            w2 &= !LEAVE;
        }
        let n = c0 + c1 + w2.count_ones();
        // One draw per decision even without a choice: the stream (and so
        // every later pick) is part of the seed contract.
        let r = self.rng.below(n.max(1));
        if n == 0 {
            return Action::Pass;
        }
        let (in1, in2) = (r >= c0, r >= c0 + c1);
        let (word, before) = if in2 {
            (w2, c0 + c1)
        } else if in1 {
            (w1, c0)
        } else {
            (w0, 0)
        };
        let i = 64 * (usize::from(in1) + usize::from(in2)) + select(word, r - before) as usize;
        // A game's mask has no bit past the last action; a hand-made one
        // might, and gets Pass as before.
        BY_INDEX.get(i).copied().unwrap_or(Action::Pass)
    }
}

/// The position of the `r`-th set bit (from 0, lowest first) of `x`,
/// which has more than `r` set bits; branch-free: three halving steps
/// (keep the low half when it holds the bit, POPCNT on x86-64-v2), then a
/// table within the byte.
#[inline]
fn select(x: u64, r: u32) -> u32 {
    /// `IN_BYTE[b * 8 + k]`: the position of the `k`-th set bit of byte `b`.
    const IN_BYTE: [u8; 2048] = {
        let mut t = [0u8; 2048];
        let mut b = 0;
        while b < 256 {
            let mut k = 0;
            let mut i = 0;
            while i < 8 {
                if b >> i & 1 == 1 {
                    t[b * 8 + k] = i as u8;
                    k += 1;
                }
                i += 1;
            }
            b += 1;
        }
        t
    };
    let (mut x, mut r, mut pos) = (x, r, 0u32);
    for half in [32u32, 16, 8] {
        let low = (x & ((1u64 << half) - 1)).count_ones();
        let up = r >= low;
        x = if up { x >> half } else { x };
        r = if up { r - low } else { r };
        pos += if up { half } else { 0 };
    }
    pos + u32::from(IN_BYTE[(x as usize & 0xFF) * 8 + (r as usize & 7)])
}

/// The dense index of [`Action::Leave`].
const N_LEAVE: usize = Action::Leave.index();

/// A built-in agent by spec: `"random"`, `"greedy"`, `"mc"` with
/// optional `":"`-separated options (`"mc:rollouts=200"`,
/// `"mc:budget=fast"`, see [`mc::McConfig::parse`]), or the learned agent
/// `"nn"` (the default model embedded in the build), `"nn:PATH"` (a model
/// file) with the option `temp=T` (see [`nn::NnConfig::parse`]).
///
/// ```
/// assert!(koudian_core::agent::builtin("random", 1).is_ok());
/// assert!(koudian_core::agent::builtin("mc:budget=strong", 1).is_ok());
/// assert!(koudian_core::agent::builtin("clever", 1).is_err());
/// assert!(koudian_core::agent::builtin("greedy:x=1", 1).is_err());
/// ```
pub fn builtin(name: &str, seed: u64) -> Result<Box<dyn Agent>, Error> {
    let (base, options) = name.split_once(':').unwrap_or((name, ""));
    match (base, options.is_empty()) {
        ("random", true) => Ok(Box::new(RandomAgent::new(seed))),
        ("greedy", true) => Ok(Box::new(GreedyAgent::new(seed))),
        ("mc", _) => Ok(Box::new(MonteCarloAgent::new(
            mc::McConfig::parse(options)?,
            seed,
        ))),
        ("nn", _) => Ok(Box::new(NnAgent::new(&nn::NnConfig::parse(options)?, seed)?)),
        ("random" | "greedy", false) => Err(Error::InvalidRuleset(format!(
            "the built-in agent {base:?} takes no options (got {name:?})"
        ))),
        _ => Err(Error::InvalidRuleset(format!(
            "unknown built-in agent {name:?} (available: \"random\", \"greedy\", \"mc\", \"mc:rollouts=N\", \"mc:budget=fast|default|strong\", \"nn\", \"nn:PATH\", \"nn:temp=T\")"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::{select, RandomAgent, LEAVE};

    /// The first-word shortcut of `choose` makes the general pick's
    /// choices and draws: the same actions from the same seeds, on masks
    /// with and without bits past the first word (Leave among them).
    #[test]
    fn choose_picks_what_the_general_pick_picks() {
        let mut next = crate::testing::xorshift(0x0123_4567_89AB_CDEF);
        let (mut fast, mut plain) = (RandomAgent::new(3), RandomAgent::new(3));
        let mut shortcut = 0;
        for i in 0..200_000u32 {
            let (a, b, c) = (next(), next(), next());
            let w2_mask = (1u64 << (crate::game::N_ACTIONS - 128)) - 1;
            let mask = match i % 6 {
                // Discards only, sparse or dense.
                0 => [a & b & 0x3_FFFF_FFFF, 0, 0],
                1 => [a, 0, 0],
                // Discards with Leave (Linxian).
                2 => [a & 0x3_FFFF_FFFF, 0, LEAVE],
                // Claims and wins, Leave alone, nothing.
                3 => [0, 0, c & w2_mask],
                4 => [0, 0, LEAVE * u64::from(a & 1 == 1)],
                _ => [a & c, b & c, c & w2_mask],
            };
            shortcut += usize::from(mask[1] | mask[2] & !LEAVE == 0 && mask[0] != 0);
            let [w0, w1, w2] = mask;
            assert_eq!(fast.choose(w0, w1, w2), plain.pick(w0, w1, w2), "{mask:x?}");
        }
        assert!(shortcut > 50_000, "{shortcut}");
        assert_eq!(fast.rng.0, plain.rng.0);
    }

    #[test]
    fn select_finds_the_rth_set_bit() {
        let mut next = crate::testing::xorshift(0x1234_5678_9ABC_DEF0);
        for i in 0..20_000u32 {
            let z = next();
            // Sparse and dense words, and every rank of each.
            let x = match i % 3 {
                0 => z,
                1 => z & z >> 3,
                _ => z | z << 5,
            };
            let mut rest = x;
            for r in 0..x.count_ones() {
                assert_eq!(select(x, r), rest.trailing_zeros(), "{x:#x} {r}");
                rest &= rest - 1;
            }
        }
        assert_eq!(select(u64::MAX, 63), 63);
        assert_eq!(select(1 << 63, 0), 63);
    }
}
