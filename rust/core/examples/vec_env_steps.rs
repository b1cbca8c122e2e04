//! Steps a self-play `VecEnv` for profiling (`valgrind --tool=callgrind`):
//! `vec_env_steps [tables] [steps] [threads] [version] [u8|f32] [compare]`,
//! first legal action each table, planes of version 2 in `u8` by default;
//! prints table steps and the time. The row writer's instruction set is
//! the process's choice (`KOUDIAN_SIMD=scalar|avx2` forces one).
//!
//! With `compare`: two envs of the same seed (the same positions), one
//! writing on the scalar path and the other on the process's choice,
//! stepped in turns 2 steps at a time so that both paths meet the
//! same load, swapping paths every turn, each timed in the thread's CPU
//! time (one thread; Linux); prints both rates, their ratio and the
//! median of the chunks' own ratios (each pair of chunks met the same
//! moment of a shared host).

use koudian_core::game::encode::{Cell, Encoding};
use koudian_core::simd::{self, with_isa, Isa};
use koudian_core::vec_env::{Learners, OnIllegal, Rows, VecEnv};
use koudian_core::Ruleset;
use std::time::{Duration, Instant};

fn main() {
    let arg = |i: usize, d: usize| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(d)
    };
    let (n, steps, threads) = (arg(1, 256), arg(2, 200), arg(3, 1));
    let enc = Encoding::from_version(arg(4, 2) as u32).expect("a version");
    let compare = std::env::args().nth(6).as_deref() == Some("compare");
    match std::env::args().nth(5).as_deref() {
        Some("f32") => run::<f32>(n, steps, threads, enc, compare),
        _ => run::<u8>(n, steps, threads, enc, compare),
    }
}

/// An env with its arrays, reset.
struct Stepper<T> {
    env: VecEnv,
    rows: Rows<T>,
    actions: Vec<i64>,
}

impl<T: Cell> Stepper<T> {
    fn new(n: usize, threads: usize, enc: Encoding) -> Stepper<T> {
        let rules = Ruleset::shanxi();
        let mut env =
            VecEnv::new(&rules, n, Learners::All, "greedy", 7, threads, enc).expect("env");
        let mut rows = Rows::new(n, enc);
        env.reset(None, &mut rows.buffers()).expect("reset");
        Stepper {
            env,
            rows,
            actions: vec![0; n],
        }
    }

    /// `k` steps on `isa`; their time (with `cpu`, this thread's CPU
    /// time: the time the host gave the other processes left out).
    fn steps(&mut self, k: usize, isa: Isa, cpu: bool) -> Duration {
        with_isa(isa, || {
            let start = Clock::now(cpu);
            for _ in 0..k {
                self.rows.first_legal(&mut self.actions);
                let mut out = self.rows.buffers();
                self.env
                    .step(&self.actions, OnIllegal::Error, &mut out)
                    .expect("step");
            }
            start.elapsed()
        })
        .expect("a path this CPU has")
    }
}

fn run<T: Cell + PartialEq>(n: usize, steps: usize, threads: usize, enc: Encoding, compare: bool) {
    let isa = simd::isa().expect("KOUDIAN_SIMD");
    let total = (n * steps) as f64;
    if !compare {
        let mut s = Stepper::<T>::new(n, threads, enc);
        let dt = s.steps(steps, isa, false).as_secs_f64();
        println!(
            "{total} table steps in {dt:.3} s: {:.0} steps/s on {isa}; {} hands",
            total / dt,
            s.env.hands_finished()
        );
        return;
    }
    let (mut a, mut b) = (
        Stepper::<T>::new(n, threads, enc),
        Stepper::<T>::new(n, threads, enc),
    );
    let (mut ta, mut tb) = (Duration::ZERO, Duration::ZERO);
    let mut ratios = Vec::new();
    for (j, k) in (0..steps).step_by(2).enumerate() {
        let k = (steps - k).min(2);
        // The envs take turns (each chunk follows the other env's: both
        // paths start with the other env's tables in the caches) and swap
        // paths every chunk (where their rows lie in memory counts for
        // neither path), so each path runs first in half the pairs.
        let (pa, pb) = if j % 2 == 0 {
            (Isa::Scalar, isa)
        } else {
            (isa, Isa::Scalar)
        };
        let (ta_, tb_) = (a.steps(k, pa, true), b.steps(k, pb, true));
        let (da, db) = if j % 2 == 0 { (ta_, tb_) } else { (tb_, ta_) };
        ta += da;
        tb += db;
        ratios.push(da.as_secs_f64() / db.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    assert!(a.rows.obs == b.rows.obs, "both paths write the same rows");
    let (ra, rb) = (total / ta.as_secs_f64(), total / tb.as_secs_f64());
    println!(
        "{n} tables, v{} {}: scalar {ra:.0} steps/s, {isa} {rb:.0} steps/s: {:.3}x overall, \
         {:.3}x the median of {} chunks' ratios",
        enc.version(),
        std::any::type_name::<T>(),
        rb / ra,
        ratios[ratios.len() / 2],
        ratios.len()
    );
}

/// A start time: the wall clock, or this thread's CPU time.
enum Clock {
    Wall(Instant),
    Cpu(Duration),
}

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, t: *mut Timespec) -> i32;
}

/// This thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`, Linux).
fn thread_cpu() -> Duration {
    let mut t = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `t` is a valid `struct timespec` on 64-bit Linux.
    assert_eq!(unsafe { clock_gettime(3, &mut t) }, 0, "clock_gettime");
    Duration::new(t.sec as u64, t.nsec as u32)
}

impl Clock {
    fn now(cpu: bool) -> Clock {
        match cpu {
            true => Clock::Cpu(thread_cpu()),
            false => Clock::Wall(Instant::now()),
        }
    }

    fn elapsed(&self) -> Duration {
        match self {
            Clock::Wall(t) => t.elapsed(),
            Clock::Cpu(t) => thread_cpu() - *t,
        }
    }
}
