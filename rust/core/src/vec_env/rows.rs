//! [`Rows`]: output arrays of a [`VecEnv`](super::VecEnv) owned in one
//! place, for probes and benchmarks that step an env from Rust.

use super::Buffers;
use crate::game::encode::{Cell, Encoding};
use crate::game::N_ACTIONS;

/// The output arrays of `n` tables in an encoding, allocated once; lend
/// them to a step with [`Rows::buffers`].
///
/// ```
/// use koudian_core::game::encode::Encoding;
/// use koudian_core::vec_env::{Learners, OnIllegal, Rows, VecEnv};
/// use koudian_core::Ruleset;
/// let mut env = VecEnv::new(&Ruleset::shanxi(), 3, Learners::All, "greedy", 7, 1, Encoding::V2).unwrap();
/// let mut rows = Rows::<f32>::new(3, Encoding::V2);
/// env.reset(None, &mut rows.buffers()).unwrap();
/// let mut actions = [0i64; 3];
/// for _ in 0..100 {
///     rows.first_legal(&mut actions);
///     env.step(&actions, OnIllegal::Error, &mut rows.buffers()).unwrap();
/// }
/// assert_eq!(rows.obs.len(), 3 * Encoding::V2.len());
/// ```
pub struct Rows<T> {
    /// `n × enc.len()` observations.
    pub obs: Vec<T>,
    /// `n × 141` legal-action masks.
    pub masks: Vec<bool>,
    /// `n` seats to act.
    pub to_act: Vec<i64>,
    /// `n` rewards.
    pub reward: Vec<f32>,
    /// `n` hand-ended flags.
    pub terminated: Vec<bool>,
    /// `n × enc.len()` final observations.
    pub final_obs: Vec<T>,
    /// `n × 4` settlement deltas.
    pub final_deltas: Vec<i64>,
    /// `n` fallback flags.
    pub fault: Vec<bool>,
}

impl<T: Cell> Rows<T> {
    /// Zeroed arrays for `n` tables of `enc`.
    pub fn new(n: usize, enc: Encoding) -> Rows<T> {
        Rows {
            obs: vec![T::default(); n * enc.len()],
            masks: vec![false; n * N_ACTIONS],
            to_act: vec![0; n],
            reward: vec![0.0; n],
            terminated: vec![false; n],
            final_obs: vec![T::default(); n * enc.len()],
            final_deltas: vec![0; n * 4],
            fault: vec![false; n],
        }
    }

    /// The arrays as a step's [`Buffers`].
    pub fn buffers(&mut self) -> Buffers<'_, T> {
        Buffers {
            obs: &mut self.obs,
            masks: &mut self.masks,
            to_act: &mut self.to_act,
            reward: &mut self.reward,
            terminated: &mut self.terminated,
            final_obs: &mut self.final_obs,
            final_deltas: &mut self.final_deltas,
            fault: &mut self.fault,
        }
    }

    /// Each table's first legal action, from its mask, into `actions`.
    pub fn first_legal(&self, actions: &mut [i64]) {
        for (a, m) in actions.iter_mut().zip(self.masks.chunks_exact(N_ACTIONS)) {
            *a = m.iter().position(|&x| x).unwrap_or(0) as i64;
        }
    }
}
