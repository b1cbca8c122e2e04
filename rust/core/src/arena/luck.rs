//! The luck of the wall, taken out of a 1-vs-3 arena against greedy: a
//! control variate in the manner of AIVAT, with the wall as the chance
//! event (docs/arena.md, "The luck of the wall").
//!
//! At a rotation table the lone agent plays with three greedy opponents;
//! the reference table plays the same deal with four greedy. The two
//! hands part only where the lone agent *departs*: plays an action that
//! greedy, in its place, would not. Write `R_j(a)` for the lone seat's
//! settlement when `a` is played at its `j`-th departure and greedy then
//! plays every seat to the end of the hand. Between departures the table
//! plays as greedy would, so `R_j(a_j) = R_{j+1}(g_{j+1})` (`a_j` played,
//! `g_j` greedy's choice), and the advantage telescopes, exactly:
//!
//! ```text
//! delta(lone) - delta(reference) = sum over j of [R_j(a_j) - R_j(g_j)]
//! ```
//!
//! (`departures_add_up_to_the_advantage` checks it on the true wall). No
//! agent ever sees the undrawn wall, so given everything the table holds
//! at a departure, the order of the wall is a uniform shuffle of its
//! tiles, whatever was chosen. Each gain is therefore replaced by its
//! mean over `K` fresh shuffles of the undrawn wall (the face-up
//! indicator tiles stay where they lie), both actions on the same
//! shuffles: the expected advantage is the same, and the luck of the
//! draws after each departure, most of the variance of the advantage, is
//! averaged out. The lone agent's decisions are the hand's own: nothing
//! of its play is replayed or resampled.
//!
//! The shuffles of departure `j` of the lone agent at seat `s` of the hand
//! dealt from `h` are drawn from `mix_seed(luck_seed(h, s), j)`, so the
//! native arena and the Python game loop (which watches an agent written
//! in Python with a [`Departures`] of its own) give the same values.
//!
//! ```
//! use koudian_core::agent::{builtin, Agent, SeatView};
//! use koudian_core::arena::{luck_seed, Departures};
//! use koudian_core::game::Game;
//! use koudian_core::Ruleset;
//! let mut g = Game::new(&Ruleset::shanxi(), 5, None).unwrap();
//! let mut agents: Vec<_> = (0..4)
//!     .map(|s| builtin(if s == 0 { "random" } else { "greedy" }, s).unwrap())
//!     .collect();
//! let mut watch = Departures::new(8).unwrap();
//! watch.begin(0, luck_seed(5, 0));
//! while let Some(seat) = g.to_act() {
//!     let a = agents[seat as usize].act(&SeatView::new(&g, seat));
//!     watch.decision(&g, seat, a);
//!     g.step(a).unwrap();
//! }
//! assert!(watch.departures() > 0 && watch.gain().is_finite());
//! ```

use super::MAX_WALLS;
use crate::agent::mc::rollout;
use crate::agent::{Agent, GreedyAgent, SeatView};
use crate::error::Error;
use crate::game::{mix_seed, Action, Game, Prng};
use crate::simulate::{HandSummary, Recorder};

/// The stream of a seat's wall shuffles, mixed into the hand's seed: apart
/// from every agent's stream (`mix_seed(hand seed, 1 + seat)`).
const LUCK_STREAM: u64 = 0x4c55_434b;

/// The seed of the wall shuffles of the lone agent at `seat` of the hand
/// dealt from `game_seed`: the same at every table, whatever the thread.
pub fn luck_seed(game_seed: u64, seat: u8) -> u64 {
    mix_seed(mix_seed(game_seed, 1 + u64::from(seat)), LUCK_STREAM)
}

/// Which walls a departure's gain is played on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Walls {
    /// The hand's own wall (the telescoping identity; tests).
    #[cfg_attr(not(test), allow(dead_code))]
    True,
    /// The mean over this many shuffles of the undrawn wall.
    Shuffled(u32),
}

/// Watches the lone seat's decisions of one hand and adds up the gains of
/// its departures from greedy (see the [module](self)): told of each
/// decision by [`Departures::decision`], or as the [`Recorder`] of the
/// play.
#[derive(Debug)]
pub struct Departures {
    walls: Walls,
    seat: u8,
    seed: u64,
    greedy: GreedyAgent,
    /// At the lone seat's decision being played: greedy's choice and the
    /// table before it.
    pending: Option<(Action, Game)>,
    gain: f64,
    departures: u32,
}

impl Departures {
    /// A watcher whose gains are each the mean over `walls` shuffles of
    /// the undrawn wall (1 to [`MAX_WALLS`]); [`Departures::begin`] names
    /// the seat.
    pub fn new(walls: u32) -> Result<Departures, Error> {
        if walls == 0 || walls > MAX_WALLS {
            return Err(Error::InvalidArgument(format!(
                "walls = {walls}: give 1 to {MAX_WALLS} shuffles of the wall per departure"
            )));
        }
        Ok(Departures::with(Walls::Shuffled(walls)))
    }

    pub(crate) fn with(walls: Walls) -> Departures {
        Departures {
            walls,
            seat: 0,
            seed: 0,
            greedy: GreedyAgent::new(0),
            pending: None,
            gain: 0.0,
            departures: 0,
        }
    }

    /// Starts a hand with the lone agent at `seat`, its shuffles drawn
    /// from `seed` ([`luck_seed`]).
    pub fn begin(&mut self, seat: u8, seed: u64) {
        self.seat = seat & 3;
        self.seed = seed;
        self.pending = None;
        self.gain = 0.0;
        self.departures = 0;
    }

    /// `seat` is about to play `action` on `g`: a departure of the lone
    /// seat from greedy's choice adds its gain.
    pub fn decision(&mut self, g: &Game, seat: u8, action: Action) {
        if let Some(greedy) = self.greedy_choice(g, seat) {
            if action != greedy {
                self.depart(g, action, greedy);
            }
        }
    }

    /// Greedy's choice where `seat` is the lone seat and has a choice (a
    /// decision without one is never a departure).
    fn greedy_choice(&mut self, g: &Game, seat: u8) -> Option<Action> {
        (seat == self.seat && g.legal_actions().len() > 1)
            .then(|| self.greedy.act(&SeatView::new(g, seat)))
    }

    /// The gains of the hand's departures so far.
    pub fn gain(&self) -> f64 {
        self.gain
    }

    /// The hand's departures so far.
    pub fn departures(&self) -> u32 {
        self.departures
    }

    fn depart(&mut self, g: &Game, played: Action, greedy: Action) {
        let gain = self.gain_of(g, played, greedy);
        self.gain += gain;
        self.departures += 1;
    }

    /// The gain of playing `played` rather than `greedy` on `g`, with
    /// greedy playing on, on the walls of `self.walls`.
    fn gain_of(&mut self, g: &Game, played: Action, greedy: Action) -> f64 {
        let seat = self.seat;
        match self.walls {
            Walls::True => {
                (rollout(&mut self.greedy, g, played, seat)
                    - rollout(&mut self.greedy, g, greedy, seat)) as f64
            }
            Walls::Shuffled(k) => {
                let obs = g.observe(seat);
                let mut hidden = g.hidden(seat);
                let n_up: usize = obs.face_up_in_wall.iter().map(|&c| usize::from(c)).sum();
                let front = hidden.wall.len().saturating_sub(n_up);
                let mut rng = Prng::new(mix_seed(self.seed, u64::from(self.departures)));
                let mut sum = 0i64;
                let mut n = 0i64;
                for _ in 0..k {
                    rng.shuffle(&mut hidden.wall[..front]);
                    // The table is rebuilt from what it holds but for the
                    // wall's order; it cannot be refused (the same tiles).
                    let Ok(mut base) = Game::from_observation(g.rules(), &obs, &hidden, None)
                    else {
                        continue;
                    };
                    base.set_recording(false);
                    sum += rollout(&mut self.greedy, &base, played, seat)
                        - rollout(&mut self.greedy, &base, greedy, seat);
                    n += 1;
                }
                if n == 0 {
                    0.0
                } else {
                    sum as f64 / n as f64
                }
            }
        }
    }
}

impl Recorder for Departures {
    type Hand = f64;

    fn before(&mut self, g: &Game, seat: u8) {
        // The action is known only once played: keep the table before it.
        self.pending = self.greedy_choice(g, seat).map(|a| (a, g.clone()));
    }

    fn played(&mut self, action: Action) {
        if let Some((greedy, g)) = self.pending.take() {
            if action != greedy {
                self.depart(&g, action, greedy);
            }
        }
    }

    fn finish(&mut self, _: &Game, _: HandSummary) -> f64 {
        self.gain
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::builtin;
    use crate::simulate::play_hand_with;

    /// The telescoping identity: on the hand's own wall, the gains of the
    /// lone agent's departures add up to its advantage over the reference
    /// table exactly, deal by deal, on every preset, for a search agent
    /// and for random play (which departs at almost every decision).
    #[test]
    fn departures_add_up_to_the_advantage() {
        for (i, rules) in crate::testing::presets().into_iter().enumerate() {
            for (lone, deals) in [("mc:budget=fast:far=8", 16u64), ("random", 4)] {
                let mut departed = 0;
                for d in 0..deals {
                    let seed = mix_seed(11, d);
                    let dealer = Some((d % 4) as u8);
                    let seat = (d % 4) as u8;
                    let mut reference: [Box<dyn Agent>; 4] =
                        std::array::from_fn(|_| builtin("greedy", 0).unwrap());
                    let mut watch = Departures::with(Walls::True);
                    let (r, _, _) =
                        play_hand_with(&rules, seed, dealer, &mut reference, false, &mut ())
                            .unwrap();
                    let mut table: [Box<dyn Agent>; 4] = std::array::from_fn(|s| {
                        builtin(
                            if s == usize::from(seat) {
                                lone
                            } else {
                                "greedy"
                            },
                            0,
                        )
                        .unwrap()
                    });
                    watch.begin(seat, luck_seed(seed, seat));
                    let (g, _, _) =
                        play_hand_with(&rules, seed, dealer, &mut table, false, &mut watch)
                            .unwrap();
                    let advantage = g.result().unwrap().deltas[usize::from(seat)]
                        - r.result().unwrap().deltas[usize::from(seat)];
                    assert_eq!(watch.gain, advantage as f64, "preset {i} {lone} deal {d}");
                    departed += watch.departures;
                }
                assert!(departed > 0, "preset {i} {lone}: no departures");
            }
        }
    }

    /// A table rebuilt from the true completion plays the continuation the
    /// table itself plays: the shuffled walls differ from the true one only
    /// in their order.
    #[test]
    fn the_rebuilt_table_plays_the_same_continuation() {
        let mut greedy = GreedyAgent::new(0);
        let mut checked = 0;
        for (i, rules) in crate::testing::presets().into_iter().enumerate() {
            for d in 0..4u64 {
                let mut g = Game::new(&rules, 100 + d, None).unwrap();
                let mut agents: [Box<dyn Agent>; 4] =
                    std::array::from_fn(|s| builtin("random", s as u64 + d).unwrap());
                while let Some(seat) = g.to_act() {
                    if g.legal_actions().len() > 1 && checked % 3 == 0 {
                        let obs = g.observe(seat);
                        let rebuilt =
                            Game::from_observation(g.rules(), &obs, &g.hidden(seat), None).unwrap();
                        for a in g.legal_actions().iter().take(3) {
                            assert_eq!(
                                rollout(&mut greedy, &g, a, seat),
                                rollout(&mut greedy, &rebuilt, a, seat),
                                "preset {i} seed {} action {a:?}",
                                100 + d
                            );
                        }
                    }
                    checked += 1;
                    let a = agents[usize::from(seat)].act(&SeatView::new(&g, seat));
                    g.step(a).unwrap();
                }
            }
        }
        assert!(checked > 100);
    }
}
