//! Threads for the batch functions (`is_win_batch`, `waits_batch`,
//! `shanten_batch`) and for [`crate::simulate::simulate`]: how their
//! `threads` argument is honoured.
//!
//! * `threads = 1`: the calling thread alone.
//! * `threads = 0`: one thread per core.
//! * `threads = k > 1`: exactly `k` threads.
//!
//! `threads` above [`MAX_THREADS`] is refused
//! ([`Error::InvalidArgument`]). Threads are started on the first call
//! that asks for them and kept for the process (starting threads on every
//! call would cost more than a small batch), for at most [`KEPT_COUNTS`]
//! distinct thread counts per kind of work: a call with yet another count
//! starts its threads for that call alone and ends them before returning,
//! so that no sequence of distinct `threads` values can pile up threads.
//!
//! A batch runs on the calling thread and `k - 1` kept helper threads (a
//! crew per helper count; [`run_chunks`]). The rows are cut into chunks of
//! [`MIN_CHUNK`] to [`MAX_CHUNK`] rows, about eight per thread for
//! mid-sized batches, which the threads claim as they become free. The
//! caller starts at once and the helpers join as they wake: waking an idle
//! virtual CPU can take milliseconds, and handing the whole batch to a
//! pool (as rayon's `install` does) paid that for the first worker, again
//! for the second, and once more to wake the caller at the end. A thread
//! slowed by other work on the machine hands its share to the others, and
//! the last chunk, which one thread finishes alone, is short. Every row's
//! result depends on that row only, so the output never depends on the
//! thread count.
//!
//! A [`crate::vec_env::VecEnv`] step runs the same way ([`run_tasks`]:
//! tasks of 64 tables). A helper that finished its share watches for the
//! next call for a millisecond before it sleeps, so that back-to-back
//! calls (an env's steps, a loop of batches) do not wait for it to wake.
//!
//! Self-play ([`crate::simulate::simulate`]: long runs of uneven games)
//! uses rayon pools of exactly `k` threads ([`Workers`]).

use crate::error::Error;
use crate::tile::Counts;
use rayon::ThreadPool;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

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

/// Most threads a `threads` argument may ask for (a generous multiple of
/// any core count this engine is run on; each thread is a stack and a
/// kernel task, and asking for 10^9 exhausted the process's limit).
pub const MAX_THREADS: usize = 256;

/// Distinct thread counts whose threads are kept, per kind of work (batch
/// crews, self-play pools); other counts get threads for one call.
pub const KEPT_COUNTS: usize = 4;

/// `threads` checked against [`MAX_THREADS`], with `0` resolved to one
/// thread per core (at most [`MAX_THREADS`]).
pub(crate) fn thread_count(threads: usize) -> Result<usize, Error> {
    match threads {
        0 => Ok(std::thread::available_parallelism()
            .map_or(1, |k| k.get())
            .min(MAX_THREADS)),
        k if k > MAX_THREADS => Err(Error::InvalidArgument(format!(
            "threads must be at most {MAX_THREADS} (0: one per core), got {k}"
        ))),
        k => Ok(k),
    }
}

/// The pools started so far, by thread count (leaked: they live as long as
/// the process, like rayon's global pool).
static POOLS: Mutex<Vec<(usize, &'static ThreadPool)>> = Mutex::new(Vec::new());

/// Where work asked to run on `threads` threads runs.
pub(crate) enum Workers {
    /// The calling thread (`threads = 1`).
    Caller,
    /// Rayon's global pool (`threads = 0`).
    Global,
    /// A kept pool of exactly that many threads (`threads > 1`).
    Pool(&'static ThreadPool),
    /// A pool of exactly that many threads for this call only (the kept
    /// counts are taken); its threads end when it is dropped.
    Once(ThreadPool),
}

impl Workers {
    /// The workers for a `threads` argument (see the [module docs](self)).
    pub(crate) fn new(threads: usize) -> Result<Workers, Error> {
        if threads == 0 {
            thread_count(0)?;
            return Ok(Workers::Global);
        }
        Ok(match thread_count(threads)? {
            1 => Workers::Caller,
            k => pool(k)?,
        })
    }

    /// Runs `f` where its rayon parallel iterators use these workers (for
    /// [`Workers::Caller`], callers run a sequential path instead).
    pub(crate) fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match self {
            Workers::Pool(p) => p.install(f),
            Workers::Once(p) => p.install(f),
            Workers::Caller | Workers::Global => f(),
        }
    }

    /// The number of threads `install` runs on, read without entering
    /// the pool (a hop to a pool thread costs more than a small batch).
    pub(crate) fn width(&self) -> usize {
        match self {
            Workers::Pool(p) => p.current_num_threads(),
            Workers::Once(p) => p.current_num_threads(),
            Workers::Caller => 1,
            Workers::Global => rayon::current_num_threads(),
        }
    }
}

/// A pool of exactly `threads` threads (`threads` > 1): the kept one, or
/// one for this call once [`KEPT_COUNTS`] other counts are kept.
fn pool(threads: usize) -> Result<Workers, Error> {
    // A poisoned lock only means another thread panicked while holding it;
    // the list itself is always consistent.
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&(_, p)) = pools.iter().find(|(k, _)| *k == threads) {
        return Ok(Workers::Pool(p));
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::InvalidArgument(format!("cannot start {threads} threads: {e}")))?;
    if pools.len() >= KEPT_COUNTS {
        return Ok(Workers::Once(p));
    }
    let p: &'static ThreadPool = Box::leak(Box::new(p));
    pools.push((threads, p));
    Ok(Workers::Pool(p))
}

/// Runs `f(first_row, counts_chunk, out_chunk)` over contiguous chunks of
/// the rows with `threads` threads (see the [module docs](self)) and
/// folds the chunks' results with `combine` (associative and commutative:
/// the chunks finish in any order; `identity` is its neutral value). Every
/// chunk runs.
pub(crate) fn run_chunks<O: Send, R: Send + Copy>(
    counts: &[Counts],
    out: &mut [O],
    threads: usize,
    identity: R,
    combine: impl Fn(R, R) -> R + Sync,
    f: impl Fn(usize, &[Counts], &mut [O]) -> R + Sync,
) -> Result<R, Error> {
    run_chunks_on(counts, out, threads, true, identity, combine, f)
}

/// [`run_chunks`], with `f` given copies of the rows ([`on_copy`]) or,
/// without `copy`, the caller's rows themselves: then `f` must stay in
/// bounds whatever the rows hold, and may change under it (every table
/// index it computes masked or clamped), and read a row by value before
/// handing it to code that checks it first.
fn run_chunks_on<O: Send, R: Send + Copy>(
    counts: &[Counts],
    out: &mut [O],
    threads: usize,
    copy: bool,
    identity: R,
    combine: impl Fn(R, R) -> R + Sync,
    f: impl Fn(usize, &[Counts], &mut [O]) -> R + Sync,
) -> Result<R, Error> {
    let n = counts.len();
    let helpers = thread_count(threads)? - 1;
    if helpers == 0 || n < 2 * MIN_CHUNK {
        let mut acc = identity;
        for (i, (c, o)) in counts
            .chunks(MAX_CHUNK)
            .zip(out.chunks_mut(MAX_CHUNK))
            .enumerate()
        {
            acc = combine(acc, on_copy(&f, copy, i * MAX_CHUNK, c, o));
        }
        return Ok(acc);
    }
    let chunk = chunk_rows(n, helpers + 1);
    let out = OutPtr(out.as_mut_ptr());
    let task = |c: usize| {
        let lo = c * chunk;
        let hi = (lo + chunk).min(n);
        // SAFETY: `lo..hi` lies within the `n` output rows (`c` is below
        // `n.div_ceil(chunk)`) and no other thread runs task `c` (see
        // `OutPtr`); `out` stays borrowed until `run_tasks` returns.
        let rows = unsafe { std::slice::from_raw_parts_mut(out.at(lo), hi - lo) };
        on_copy(&f, copy, lo, &counts[lo..hi], rows)
    };
    run_tasks(
        Team::new(helpers)?,
        n.div_ceil(chunk),
        identity,
        &combine,
        &task,
    )
}

/// Kept threads that run tasks with a calling thread ([`run_tasks`]):
/// the calling thread and `helpers` others.
#[derive(Clone, Copy)]
pub(crate) struct Team {
    helpers: usize,
    /// `None` once [`KEPT_COUNTS`] other helper counts are kept: the
    /// helpers are started for each call.
    crew: Option<&'static Crew>,
}

impl Team {
    /// The team of `helpers` helper threads (started on the first call
    /// that asks for that count and kept; see the [module docs](self)).
    pub(crate) fn new(helpers: usize) -> Result<Team, Error> {
        Ok(Team {
            helpers,
            crew: match helpers {
                0 => None,
                h => crew(h)?,
            },
        })
    }

    /// Whether the helpers are kept (else each call starts its own).
    pub(crate) fn kept(&self) -> bool {
        self.helpers == 0 || self.crew.is_some()
    }
}

/// Runs `f(task)` for every task in `0..tasks` on the calling thread and
/// the team's helpers, and folds the results with `combine`
/// (associative and commutative; `identity` its neutral value). The
/// tasks are cut into one contiguous span per thread ([`Spans`]): the
/// caller starts on its span at once, helpers join as they wake, and
/// whoever is free takes the others' tasks from the back. A panic in a
/// task, on any thread, panics the caller.
pub(crate) fn run_tasks<R, C, F>(
    team: Team,
    tasks: usize,
    identity: R,
    combine: &C,
    f: &F,
) -> Result<R, Error>
where
    R: Send + Copy,
    C: Fn(R, R) -> R + Sync,
    F: Fn(usize) -> R + Sync,
{
    if team.helpers == 0 || tasks < 2 {
        return Ok((0..tasks).fold(identity, |acc, t| combine(acc, f(t))));
    }
    let job = Job {
        spans: Spans::new(tasks, team.helpers + 1),
        identity,
        combine,
        f,
        helped: Mutex::new(identity),
        failed: AtomicBool::new(false),
    };
    let r = match team.crew {
        Some(crew) => crew.run(&job),
        None => run_once(&job, team.helpers)?,
    };
    if job.failed.load(Ordering::Acquire) {
        panic!("a koudian helper thread panicked in a batch");
    }
    let helped = *job.helped.lock().unwrap_or_else(|e| e.into_inner());
    Ok(combine(r, helped))
}

thread_local! {
    /// The rows of the chunk a thread works on (at most [`MAX_CHUNK`]).
    static ROWS: std::cell::RefCell<Vec<Counts>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `f(start, rows, out)` on a copy of `rows`: a chunk is read from the
/// caller's rows once, into a buffer the thread keeps (in its cache), and
/// checked and worked on from there. The caller's rows may be memory
/// another thread writes meanwhile (a numpy array shared with another
/// Python thread: the binding releases the GIL); a row changing between
/// its check and its use once indexed a table out of bounds. A copy of
/// the whole input instead cost up to a quarter of `is_win_batch`'s time
/// on 10^6 rows (a fresh 34 MB written and read back).
///
/// Without `copy`, `f` on the caller's rows themselves.
fn on_copy<O, R>(
    f: &impl Fn(usize, &[Counts], &mut [O]) -> R,
    copy: bool,
    start: usize,
    rows: &[Counts],
    out: &mut [O],
) -> R {
    if !copy {
        return f(start, rows, out);
    }
    ROWS.with(|buf| match buf.try_borrow_mut() {
        Ok(mut b) => {
            b.clear();
            b.extend_from_slice(rows);
            f(start, &b, out)
        }
        // `f` itself ran a batch on this thread: a buffer of its own.
        Err(_) => {
            let copy: Vec<Counts> = rows.to_vec();
            f(start, &copy, out)
        }
    })
}

/// The output rows of a batch, written chunk by chunk from several
/// threads.
pub(crate) struct OutPtr<O>(pub(crate) *mut O);

// SAFETY: the pointer is only turned into slices of disjoint chunks, each
// claimed by exactly one thread (`Spans`), while the caller's `&mut`
// borrow of the rows is held; `O: Send` lets the rows be written from
// another thread.
unsafe impl<O: Send> Sync for OutPtr<O> {}

impl<O> OutPtr<O> {
    /// The pointer to row `i` (a method, so that a closure captures the
    /// `Sync` wrapper rather than its raw pointer field).
    ///
    /// # Safety
    /// `i` is within the rows the pointer was taken from.
    pub(crate) unsafe fn at(&self, i: usize) -> *mut O {
        // SAFETY: see above.
        unsafe { self.0.add(i) }
    }
}

/// One set of tasks shared by the calling thread and its helpers.
struct Job<'a, R, C, F> {
    spans: Spans,
    identity: R,
    combine: &'a C,
    f: &'a F,
    /// The helpers' results, folded.
    helped: Mutex<R>,
    failed: AtomicBool,
}

impl<R, C, F> Job<'_, R, C, F>
where
    R: Send + Copy,
    C: Fn(R, R) -> R + Sync,
    F: Fn(usize) -> R + Sync,
{
    /// Runs the tasks of span `me` from its front, then the other spans'
    /// tasks from their backs, until none is left; the fold of their
    /// results.
    fn work(&self, me: usize) -> R {
        let mut acc = self.identity;
        let k = self.spans.0.len();
        for s in (0..k).map(|i| (me + i) % k) {
            while let Some(c) = self.spans.claim(s, s == me) {
                acc = (self.combine)(acc, (self.f)(c));
            }
        }
        acc
    }

    /// A helper's share: its tasks' results folded into `helped`; a panic
    /// is recorded for the caller instead of killing the helper.
    ///
    /// # Safety
    /// `p` points to a live `Self` (guaranteed by [`Crew::run`] while the
    /// helper is registered in the job).
    unsafe fn help(p: *const (), me: usize) {
        // SAFETY: see above.
        let job = unsafe { &*(p as *const Self) };
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.work(me))) {
            Ok(r) => {
                let mut h = job.helped.lock().unwrap_or_else(|e| e.into_inner());
                *h = (job.combine)(*h, r);
            }
            Err(_) => job.failed.store(true, Ordering::Release),
        }
    }
}

/// The chunks of a [`Job`] cut into one contiguous span per thread: each
/// thread takes its own span's chunks from the front, then, when it runs
/// out, other spans' chunks from the back. Each thread thus writes its own
/// region of the output, as rayon's halving did: threads interleaving
/// chunk by chunk fault in the same fresh pages of the output at once
/// (`waits_batch` writes 34 bytes a row), which cost a third of the
/// two-thread rate.
struct Spans(Vec<AtomicU64>);

impl Spans {
    /// `chunks` chunks in `k` spans, as `front << 32 | back` (the span's
    /// chunks are `front..back`).
    fn new(chunks: usize, k: usize) -> Spans {
        Spans(
            (0..k)
                .map(|s| {
                    AtomicU64::new(((chunks * s / k) as u64) << 32 | (chunks * (s + 1) / k) as u64)
                })
                .collect(),
        )
    }

    /// Claims the first (`front`) or last chunk left in span `s`.
    fn claim(&self, s: usize, front: bool) -> Option<usize> {
        let span = &self.0[s];
        let mut v = span.load(Ordering::Relaxed);
        loop {
            let (f, b) = (v >> 32, v & 0xffff_ffff);
            if f >= b {
                return None;
            }
            let (next, c) = if front {
                (v + (1 << 32), f)
            } else {
                (v - 1, b - 1)
            };
            match span.compare_exchange_weak(v, next, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(c as usize),
                Err(now) => v = now,
            }
        }
    }
}

/// A type-erased [`Job`] as the helpers see it.
#[derive(Clone, Copy)]
struct JobRef {
    data: *const (),
    help: unsafe fn(*const (), usize),
}

// SAFETY: a `JobRef` is only followed by a helper registered in the job
// (`Crew::run` keeps the job alive until every registered helper has left),
// and the job itself is `Sync`.
unsafe impl Send for JobRef {}

/// Kept helper threads that join a calling thread on its batch.
///
/// The caller starts on its chunks at once; helpers join as they wake, and
/// the caller waits only for the chunks already claimed, never for a
/// helper that has not woken yet (waking an idle virtual CPU can take
/// milliseconds).
struct Crew {
    state: Mutex<CrewState>,
    /// A job was posted.
    posted: Condvar,
    /// The last registered helper left the job.
    left: Condvar,
    /// Helpers registered in the current job.
    active: AtomicUsize,
    /// A caller is using the crew (another caller runs alone meanwhile).
    busy: AtomicBool,
    /// `CrewState::generation`, readable without the lock: a helper that
    /// just finished a job watches it for a while before it sleeps.
    posted_gen: AtomicU64,
}

struct CrewState {
    job: Option<JobRef>,
    /// Bumped on every post, so that a helper joins each job once.
    generation: u64,
}

/// The crews started so far, by helper count (leaked: they live as long as
/// the process).
static CREWS: Mutex<Vec<(usize, &'static Crew)>> = Mutex::new(Vec::new());

/// The kept crew of exactly `helpers` helper threads, `None` once
/// [`KEPT_COUNTS`] other counts are kept.
fn crew(helpers: usize) -> Result<Option<&'static Crew>, Error> {
    let mut crews = CREWS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&(_, c)) = crews.iter().find(|(k, _)| *k == helpers) {
        return Ok(Some(c));
    }
    if crews.len() >= KEPT_COUNTS {
        return Ok(None);
    }
    let c: &'static Crew = Box::leak(Box::new(Crew {
        state: Mutex::new(CrewState {
            job: None,
            generation: 0,
        }),
        posted: Condvar::new(),
        left: Condvar::new(),
        active: AtomicUsize::new(0),
        busy: AtomicBool::new(false),
        posted_gen: AtomicU64::new(0),
    }));
    for i in 0..helpers {
        std::thread::Builder::new()
            .name(format!("koudian-helper-{i}"))
            .spawn(move || c.serve(1 + i))
            .map_err(|e| {
                Error::InvalidArgument(format!("cannot start {helpers} helper threads: {e}"))
            })?;
    }
    crews.push((helpers, c));
    Ok(Some(c))
}

/// Runs `job` on the calling thread and `helpers` threads started for it
/// and joined before returning (a thread count that is not kept); the
/// caller's share of the results.
fn run_once<R, C, F>(job: &Job<'_, R, C, F>, helpers: usize) -> Result<R, Error>
where
    R: Send + Copy,
    C: Fn(R, R) -> R + Sync,
    F: Fn(usize) -> R + Sync,
{
    std::thread::scope(|s| {
        for i in 0..helpers {
            let p = job as *const Job<'_, R, C, F> as usize;
            std::thread::Builder::new()
                .name(format!("koudian-once-{i}"))
                // SAFETY: the scope joins this thread before `job` goes.
                .spawn_scoped(s, move || unsafe {
                    Job::<R, C, F>::help(p as *const (), 1 + i)
                })
                .map_err(|e| {
                    Error::InvalidArgument(format!("cannot start {helpers} helper threads: {e}"))
                })?;
        }
        Ok(job.work(0))
    })
}

impl Crew {
    /// A helper's life: join each posted job once, while it is posted.
    fn serve(&self, me: usize) {
        let mut seen = 0;
        loop {
            // Calls often come back to back (a `VecEnv` steps every few
            // hundred microseconds, a loop of batches as often): a helper
            // that slept between them would be woken for each, which on a
            // virtual machine can take longer than the call, so it waits
            // for the next post awake for a while first.
            let idle = Instant::now();
            'watch: while self.posted_gen.load(Ordering::Acquire) == seen {
                for _ in 0..64 {
                    std::hint::spin_loop();
                }
                // On a busy host, the CPU goes to whoever else is ready
                // (the caller, another process) rather than to the wait.
                std::thread::yield_now();
                if idle.elapsed() >= IDLE_SPIN {
                    break 'watch;
                }
            }
            let job = {
                let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    match st.job {
                        Some(j) if st.generation != seen => {
                            seen = st.generation;
                            // Registered under the lock, so that the caller,
                            // which withdraws the job under it, waits for us.
                            self.active.fetch_add(1, Ordering::Relaxed);
                            break j;
                        }
                        _ => st = self.posted.wait(st).unwrap_or_else(|e| e.into_inner()),
                    }
                }
            };
            // SAFETY: registered above; the caller keeps the job alive until
            // `active` drops back to zero.
            unsafe { (job.help)(job.data, me) };
            if self.active.fetch_sub(1, Ordering::Release) == 1 {
                let _st = self.state.lock().unwrap_or_else(|e| e.into_inner());
                self.left.notify_all();
            }
        }
    }

    /// Runs `job` on the calling thread with whichever helpers join it;
    /// returns the caller's share of the results once every helper has
    /// left the job.
    fn run<R, C, F>(&self, job: &Job<'_, R, C, F>) -> R
    where
        R: Send + Copy,
        C: Fn(R, R) -> R + Sync,
        F: Fn(usize) -> R + Sync,
    {
        if self.busy.swap(true, Ordering::Acquire) {
            // Another thread's batch has the crew: this one runs alone.
            return job.work(0);
        }
        {
            let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
            st.job = Some(JobRef {
                data: job as *const Job<'_, R, C, F> as *const (),
                help: Job::<R, C, F>::help,
            });
            st.generation += 1;
            self.posted_gen.store(st.generation, Ordering::Release);
            self.posted.notify_all();
        }
        // A panic must not leave the job posted on an unwound stack: the
        // caller withdraws it and waits for the helpers first.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.work(0)));
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.job = None;
        // The helpers still in the job are finishing their last chunk (a
        // millisecond at most): spin rather than sleep, since waking this
        // thread again could take longer than the chunk.
        drop(st);
        let start = Instant::now();
        while self.active.load(Ordering::Acquire) != 0 && start.elapsed() < SPIN {
            for _ in 0..64 {
                std::hint::spin_loop();
            }
            // A helper preempted on this CPU by this wait gets it back.
            std::thread::yield_now();
        }
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while self.active.load(Ordering::Acquire) != 0 {
            st = self.left.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        drop(st);
        self.busy.store(false, Ordering::Release);
        r.unwrap_or_else(|p| std::panic::resume_unwind(p))
    }
}

/// How long the caller spins on its helpers' last chunks before sleeping:
/// about the time of the largest chunk.
const SPIN: Duration = Duration::from_millis(2);

/// How long a helper that finished a job stays awake for the next one
/// before it sleeps: longer than the gap between two `VecEnv` steps or two
/// batch calls in a loop, short enough to cost little when none comes.
const IDLE_SPIN: Duration = Duration::from_millis(1);

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

/// [`run_checked_chunks`] on the caller's rows themselves, no copy: for
/// kernels that stay in bounds on any bytes (see [`run_chunks_on`]).
pub(crate) fn run_checked_chunks_in_place<O: Send>(
    counts: &[Counts],
    out: &mut [O],
    threads: usize,
    f: impl Fn(usize, &[Counts], &mut [O]) -> bool + Sync + Send,
) -> Result<bool, Error> {
    run_chunks_on(counts, out, threads, false, true, |a, b| a & b, f)
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

    /// Every task runs exactly once, on a team of kept helpers or of
    /// helpers started for the call, and the results are all folded.
    #[test]
    fn every_task_runs_once() {
        let teams = [
            Team::new(0).unwrap(),
            Team::new(1).unwrap(),
            Team::new(2).unwrap(),
            Team {
                helpers: 3,
                crew: None,
            },
        ];
        for team in teams {
            for tasks in [0usize, 1, 2, 7, 100] {
                let runs: Vec<AtomicUsize> = (0..tasks).map(|_| AtomicUsize::new(0)).collect();
                let sum = run_tasks(team, tasks, 0usize, &|a, b| a + b, &|t| {
                    runs[t].fetch_add(1, Ordering::Relaxed);
                    t + 1
                })
                .unwrap();
                assert_eq!(sum, tasks * (tasks + 1) / 2, "{tasks}");
                assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
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

    /// Callers sharing a crew at the same time each get their own rows
    /// (one of them runs alone while the other has the crew).
    #[test]
    fn concurrent_callers_get_their_own_rows() {
        let n = 20 * MIN_CHUNK + 7;
        std::thread::scope(|scope| {
            for t in 0..4u8 {
                scope.spawn(move || {
                    let counts: Vec<Counts> = (0..n).map(|i| [(i % 7) as u8 + t; 34]).collect();
                    for _ in 0..20 {
                        let mut out = vec![0u8; n];
                        let sum = run_chunks(
                            &counts,
                            &mut out,
                            2,
                            0u64,
                            |a, b| a + b,
                            |_, c, o| {
                                for (row, slot) in c.iter().zip(o.iter_mut()) {
                                    *slot = row[0] * 2;
                                }
                                c.iter().map(|r| u64::from(r[0])).sum()
                            },
                        )
                        .unwrap();
                        assert!(out.iter().zip(&counts).all(|(&o, c)| o == c[0] * 2));
                        assert_eq!(sum, counts.iter().map(|r| u64::from(r[0])).sum::<u64>());
                    }
                });
            }
        });
    }

    /// A panic in a chunk reaches the caller (whichever thread ran the
    /// chunk), and the crew serves the next batch.
    #[test]
    fn a_panicking_chunk_panics_the_caller_and_the_crew_survives() {
        let n = 16 * MIN_CHUNK;
        let counts: Vec<Counts> = (0..n).map(|i| [(i % 200) as u8; 34]).collect();
        for _ in 0..10 {
            let r = std::panic::catch_unwind(|| {
                let mut out = vec![0u8; n];
                run_chunks(
                    &counts,
                    &mut out,
                    2,
                    (),
                    |_, _| (),
                    |start, _, _| {
                        assert!(start < 5 * MIN_CHUNK, "deliberate panic");
                    },
                )
            });
            assert!(r.is_err());
        }
        let mut out = vec![0usize; n];
        run_chunks(
            &counts,
            &mut out,
            2,
            (),
            |_, _| (),
            |start, c, o| {
                for (j, slot) in o.iter_mut().enumerate().take(c.len()) {
                    *slot = start + j;
                }
            },
        )
        .unwrap();
        assert!(out.iter().enumerate().all(|(i, &v)| v == i));
    }

    /// Threads claiming their own span from the front and the others'
    /// from the back take every chunk exactly once.
    #[test]
    fn spans_hand_out_every_chunk_once() {
        for (chunks, k) in [(0, 2), (1, 2), (7, 3), (1000, 2), (1001, 5)] {
            let spans = Spans::new(chunks, k);
            let taken: Vec<Vec<usize>> = std::thread::scope(|scope| {
                let hs: Vec<_> = (0..k)
                    .map(|me| {
                        let spans = &spans;
                        scope.spawn(move || {
                            let mut got = Vec::new();
                            for s in (0..k).map(|i| (me + i) % k) {
                                while let Some(c) = spans.claim(s, s == me) {
                                    got.push(c);
                                }
                            }
                            got
                        })
                    })
                    .collect();
                hs.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let mut all: Vec<usize> = taken.iter().flatten().copied().collect();
            all.sort_unstable();
            assert_eq!(all, (0..chunks).collect::<Vec<_>>(), "{chunks} {k}");
        }
        // Alone: the own span in order from its front, then the next span
        // from its back.
        let spans = Spans::new(6, 2);
        let order: Vec<usize> = (0..6)
            .map(|i| spans.claim(usize::from(i >= 3), i < 3).unwrap())
            .collect();
        assert_eq!(order, [0, 1, 2, 5, 4, 3]);
        assert_eq!(spans.claim(0, true), None);
    }

    /// A pool is started once per thread count and reused.
    #[test]
    fn pools_are_kept() {
        let kept = |w: Workers| match w {
            Workers::Pool(p) => Some(p as *const ThreadPool),
            _ => None,
        };
        let a = kept(pool(3).unwrap());
        assert!(a.is_some());
        assert_eq!(a, kept(pool(3).unwrap()));
        // Other counts fill the kept set; one more gets a pool of its own,
        // of the asked size, that goes with the call.
        for k in 4..4 + KEPT_COUNTS {
            pool(k).unwrap();
        }
        match pool(40).unwrap() {
            Workers::Once(p) => assert_eq!(p.current_num_threads(), 40),
            _ => panic!("a fifth count was kept"),
        }
        assert_eq!(a, kept(pool(3).unwrap()));
    }

    /// A thread count above the limit is an error naming the limit, and a
    /// count that is not kept still visits every row once.
    #[test]
    fn thread_counts_are_bounded() {
        let e = thread_count(MAX_THREADS + 1).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(ref m) if m.contains("256")));
        assert!(thread_count(usize::MAX).is_err());
        assert!((1..=MAX_THREADS).contains(&thread_count(0).unwrap()));
        let n = 5 * MIN_CHUNK + 7;
        let counts = vec![[0u8; 34]; n];
        for threads in [2, 3, 5, 6, 7, 9, 11] {
            let mut out = vec![usize::MAX; n];
            let ok = run_checked_chunks(&counts, &mut out, threads, |start, rows, out| {
                for (i, o) in out.iter_mut().enumerate().take(rows.len()) {
                    *o = start + i;
                }
                true
            })
            .unwrap();
            assert!(ok);
            assert!(
                out.iter().enumerate().all(|(i, &o)| i == o),
                "threads={threads}"
            );
        }
    }
}
