//! Steps a self-play `VecEnv` for profiling (`valgrind --tool=callgrind`):
//! `vec_env_steps [tables] [steps] [threads]`, first legal action each
//! table, `u8` planes of version 2; prints table steps and the time.

use koudian_core::game::encode::Encoding;
use koudian_core::vec_env::{Buffers, Learners, OnIllegal, VecEnv};
use koudian_core::Ruleset;
use std::time::Instant;

fn main() {
    let arg = |i: usize, d: usize| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(d)
    };
    let (n, steps, threads) = (arg(1, 256), arg(2, 200), arg(3, 1));
    let enc = Encoding::V2;
    let mut env = VecEnv::new(
        &Ruleset::shanxi(),
        n,
        Learners::All,
        "greedy",
        7,
        threads,
        enc,
    )
    .expect("env");
    let row = enc.len();
    let (mut obs, mut fin) = (vec![0u8; n * row], vec![0u8; n * row]);
    let mut masks = vec![false; n * 141];
    let (mut to_act, mut deltas) = (vec![0i64; n], vec![0i64; n * 4]);
    let (mut reward, mut term, mut fault) = (vec![0f32; n], vec![false; n], vec![false; n]);
    let mut out = Buffers {
        obs: &mut obs,
        masks: &mut masks,
        to_act: &mut to_act,
        reward: &mut reward,
        terminated: &mut term,
        final_obs: &mut fin,
        final_deltas: &mut deltas,
        fault: &mut fault,
    };
    env.reset(None, &mut out).expect("reset");
    let mut actions = vec![0i64; n];
    let start = Instant::now();
    for _ in 0..steps {
        for (i, a) in actions.iter_mut().enumerate() {
            *a = out.masks[i * 141..][..141]
                .iter()
                .position(|&m| m)
                .unwrap_or(0) as i64;
        }
        env.step(&actions, OnIllegal::Error, &mut out)
            .expect("step");
    }
    let dt = start.elapsed().as_secs_f64();
    let total = (n * steps) as f64;
    println!(
        "{} table steps in {dt:.3} s: {:.0} steps/s; {} hands",
        total,
        total / dt,
        env.hands_finished()
    );
}
