//! Records greedy ×4 self-play for profiling (`valgrind --tool=callgrind`):
//! `record_rows [hands] [threads] [recorded 0/1]`, every seat recorded
//! (or, with `0`, the same games unrecorded); prints the rows and the time.

use koudian_core::agent::builtin;
use koudian_core::record::{simulate_dataset, RecordOptions};
use koudian_core::Ruleset;
use std::time::Instant;

fn main() {
    let arg = |i: usize, d: u64| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(d)
    };
    let (hands, threads, recorded) = (arg(1, 2000), arg(2, 1) as usize, arg(3, 1) == 1);
    let options = RecordOptions {
        seats: [recorded; 4],
        ..RecordOptions::default()
    };
    let t = Instant::now();
    let r = simulate_dataset(
        &Ruleset::shanxi(),
        0..hands,
        1,
        threads,
        |_| builtin("greedy", 0),
        options,
        |_, s| s.decisions,
    )
    .expect("record");
    let dt = t.elapsed().as_secs_f64();
    println!(
        "{hands} hands, {} rows, {:.1} us a hand",
        r.parts.iter().map(|p| p.len()).sum::<usize>(),
        1e6 * dt / hands as f64
    );
}
