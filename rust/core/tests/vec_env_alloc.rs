//! `VecEnv::step` allocates nothing in steady state: a counting global
//! allocator (this test binary's own) sees no allocation over many steps
//! once every table's buffers have reached their size.

use koudian_core::game::encode::Encoding;
use koudian_core::vec_env::{Buffers, Learners, OnIllegal, VecEnv};
use koudian_core::Ruleset;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator, counting calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations of `steps` first-legal-action steps after `warm` steps.
fn allocations(learners: Learners, n: usize, warm: usize, steps: usize) -> usize {
    let enc = Encoding::V2;
    let mut env = VecEnv::new(&Ruleset::shanxi(), n, learners, "greedy", 3, 1, enc).unwrap();
    let row = enc.len();
    let (mut obs, mut fin) = (vec![0u8; n * row], vec![0u8; n * row]);
    let mut masks = vec![false; n * 141];
    let (mut to_act, mut deltas) = (vec![0i64; n], vec![0i64; n * 4]);
    let (mut reward, mut term, mut fault) = (vec![0f32; n], vec![false; n], vec![false; n]);
    let mut actions = vec![0i64; n];
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
    env.reset(None, &mut out).unwrap();
    let mut count = 0;
    for s in 0..warm + steps {
        for (i, a) in actions.iter_mut().enumerate() {
            *a = out.masks[i * 141..][..141].iter().position(|&m| m).unwrap() as i64;
        }
        let before = ALLOCS.load(Ordering::Relaxed);
        env.step(&actions, OnIllegal::Error, &mut out).unwrap();
        if s >= warm {
            count += ALLOCS.load(Ordering::Relaxed) - before;
        }
    }
    count
}

/// Steady state: no allocation in 2,000 steps of 16 tables, self-play
/// and one learner against greedy agents (the event records keep their
/// capacity from hand to hand; a hand longer than any the table has kept
/// could still grow one, which the warm-up makes rare and the bound
/// allows a few times).
#[test]
fn steps_allocate_nothing_in_steady_state() {
    for learners in [Learners::All, Learners::Seat(1)] {
        let n = allocations(learners, 16, 3_000, 2_000);
        eprintln!("{learners:?}: {n} allocations in 2,000 steps of 16 tables");
        assert!(n <= 8, "{learners:?}: {n} allocations");
    }
}
