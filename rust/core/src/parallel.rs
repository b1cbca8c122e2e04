//! Threads for the batch functions (`is_win_batch`, `waits_batch`,
//! `shanten_batch`) and for [`crate::simulate::simulate`]: how their
//! `threads` argument is honoured.
//!
//! * `threads = 1`: the calling thread, no pool.
//! * `threads = 0`: rayon's global pool (one thread per core).
//! * `threads = k > 1`: a pool of exactly `k` threads, started on the first
//!   call that asks for `k` and kept for the process (starting threads on
//!   every call would cost more than a small batch).
//!
//! The rows are cut into chunks of [`MIN_CHUNK`] to [`MAX_CHUNK`] rows,
//! about eight per thread for mid-sized batches, which the pool's threads
//! take as they become free: a thread slowed by other work on the machine
//! (or woken late: waking an idle virtual CPU can take milliseconds) hands
//! its share to the others instead of holding the whole call back, and the
//! last chunk, which one thread finishes alone, is short. Every row's
//! result depends on that row only, so the output never depends on the
//! thread count.

use crate::error::Error;
use crate::tile::Counts;
use rayon::prelude::*;
use rayon::ThreadPool;
use std::sync::Mutex;

/// Fewest rows in a chunk handed to a thread (a few tens of microseconds
/// of work for the lightest batch, far above rayon's cost per task).
pub(crate) const MIN_CHUNK: usize = 4096;

/// Most rows in a chunk: a fraction of a millisecond for the lightest batch
/// and about a millisecond for the heaviest, so that the threads finish
/// within that of each other (with 2 threads on 10^6 rows, eight chunks
/// per thread left one thread alone for up to 2 ms of a 16 ms call).
pub(crate) const MAX_CHUNK: usize = 16384;

/// Chunks per thread at least: enough for the threads to even out their
/// shares.
const CHUNKS_PER_THREAD: usize = 8;

/// The pools started so far, by thread count (leaked: they live as long as
/// the process, like rayon's global pool).
static POOLS: Mutex<Vec<(usize, &'static ThreadPool)>> = Mutex::new(Vec::new());

/// Where work asked to run on `threads` threads runs.
#[derive(Clone, Copy)]
pub(crate) enum Workers {
    /// The calling thread (`threads = 1`).
    Caller,
    /// Rayon's global pool (`threads = 0`).
    Global,
    /// A kept pool of exactly that many threads (`threads > 1`).
    Pool(&'static ThreadPool),
}

impl Workers {
    /// The workers for a `threads` argument (see the [module docs](self)).
    pub(crate) fn new(threads: usize) -> Result<Workers, Error> {
        Ok(match threads {
            0 => Workers::Global,
            1 => Workers::Caller,
            k => Workers::Pool(pool(k)?),
        })
    }

    /// How many threads share the work.
    pub(crate) fn width(self) -> usize {
        match self {
            Workers::Caller => 1,
            Workers::Global => rayon::current_num_threads(),
            Workers::Pool(p) => p.current_num_threads(),
        }
    }

    /// Runs `f` where its rayon parallel iterators use these workers (for
    /// [`Workers::Caller`], callers run a sequential path instead).
    pub(crate) fn install<R: Send>(self, f: impl FnOnce() -> R + Send) -> R {
        match self {
            Workers::Pool(p) => p.install(f),
            Workers::Caller | Workers::Global => f(),
        }
    }
}

/// The pool of exactly `threads` threads (`threads` > 1).
fn pool(threads: usize) -> Result<&'static ThreadPool, Error> {
    // A poisoned lock only means another thread panicked while holding it;
    // the list itself is always consistent.
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&(_, p)) = pools.iter().find(|(k, _)| *k == threads) {
        return Ok(p);
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::InvalidHand(format!("cannot start {threads} threads: {e}")))?;
    let p: &'static ThreadPool = Box::leak(Box::new(p));
    pools.push((threads, p));
    Ok(p)
}

/// Runs `f(first_row, counts_chunk, out_chunk)` over contiguous chunks of
/// the rows with `threads` threads (see the [module docs](self)) and
/// folds the chunks' results with `combine` (associative; `identity` is
/// its neutral value). Every chunk runs.
pub(crate) fn run_chunks<O: Send, R: Send + Sync + Copy>(
    counts: &[Counts],
    out: &mut [O],
    threads: usize,
    identity: R,
    combine: impl Fn(R, R) -> R + Sync + Send,
    f: impl Fn(usize, &[Counts], &mut [O]) -> R + Sync + Send,
) -> Result<R, Error> {
    let n = counts.len();
    if threads == 1 || n < 2 * MIN_CHUNK {
        return Ok(f(0, counts, out));
    }
    let workers = Workers::new(threads)?;
    let chunk = chunk_rows(n, workers.width());
    Ok(workers.install(move || {
        out.par_chunks_mut(chunk)
            .zip(counts.par_chunks(chunk))
            .enumerate()
            .map(|(i, (o, c))| f(i * chunk, c, o))
            .reduce(|| identity, &combine)
    }))
}

/// Rows per chunk for `n` rows on `width` threads.
fn chunk_rows(n: usize, width: usize) -> usize {
    n.div_ceil(width * CHUNKS_PER_THREAD)
        .clamp(MIN_CHUNK, MAX_CHUNK)
}

/// [`run_chunks`] for chunk functions that tell whether all their rows
/// were valid: whether every row of every chunk was.
pub(crate) fn run_checked_chunks<O: Send>(
    counts: &[Counts],
    out: &mut [O],
    threads: usize,
    f: impl Fn(usize, &[Counts], &mut [O]) -> bool + Sync + Send,
) -> Result<bool, Error> {
    run_chunks(counts, out, threads, true, |a, b| a & b, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row is visited once with its own index, whatever the thread
    /// count, and the chunks' results are all folded.
    #[test]
    fn chunks_cover_every_row_once() {
        for n in [0, 1, 2 * MIN_CHUNK - 1, 2 * MIN_CHUNK, 100_003] {
            let counts: Vec<Counts> = (0..n).map(|i| [(i % 251) as u8; 34]).collect();
            for threads in [0, 1, 2, 3] {
                let mut out = vec![usize::MAX; n];
                let rows = run_chunks(
                    &counts,
                    &mut out,
                    threads,
                    0usize,
                    |a, b| a + b,
                    |start, c, o| {
                        for (j, (row, slot)) in c.iter().zip(o.iter_mut()).enumerate() {
                            assert_eq!(row[0] as usize, (start + j) % 251);
                            *slot = start + j;
                        }
                        c.len()
                    },
                )
                .unwrap();
                assert_eq!(rows, n);
                assert!(
                    out.iter().enumerate().all(|(i, &v)| v == i),
                    "{n} {threads}"
                );
            }
        }
    }

    /// Chunks stay between the bounds and give every thread several.
    #[test]
    fn chunk_sizes() {
        assert_eq!(chunk_rows(100_000, 2), 6250);
        assert_eq!(chunk_rows(10_000, 2), MIN_CHUNK);
        assert_eq!(chunk_rows(1_000_000, 2), MAX_CHUNK);
        for n in [2 * MIN_CHUNK, 50_000, 100_000, 1 << 20, 10_000_000] {
            for width in [2, 3, 8] {
                let c = chunk_rows(n, width);
                assert!((MIN_CHUNK..=MAX_CHUNK).contains(&c));
                assert!(n.div_ceil(c) >= 2.min(width), "{n} {width}");
            }
        }
    }

    /// A pool is started once per thread count and reused.
    #[test]
    fn pools_are_kept() {
        let a = pool(3).unwrap() as *const ThreadPool;
        let b = pool(3).unwrap() as *const ThreadPool;
        assert_eq!(a, b);
        assert_eq!(pool(3).unwrap().current_num_threads(), 3);
    }
}
