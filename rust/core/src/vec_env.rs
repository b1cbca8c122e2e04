//! A vectorized environment: `N` tables stepped together, for training.
//!
//! Every call advances every table by one decision of its learner seats
//! and writes the results into the caller's buffers ([`Buffers`]),
//! allocated once: the observation rows of the seat to act (in an
//! [`Encoding`], as `u8` or `f32`), its legal-action mask, the seat, the
//! reward and whether the hand ended.
//!
//! * **Learners.** [`Learners::All`]: every decision of every table comes
//!   back (self-play). [`Learners::Seat`]`(s)`: only seat `s`'s; the other
//!   seats are played inside the step by a built-in agent
//!   ([`crate::agent::builtin`]), so a step returns at the learner's next
//!   decision.
//! * **Seeds.** Table `i`'s hand `k` (counting from 0 at each seeded
//!   reset) is dealt from `mix_seed(mix_seed(seed, i), k)` with seat
//!   `(i + k) % 4` dealing, and opponent seat `s` is reset with
//!   `mix_seed(hand seed, 1 + s)` (as in [`crate::simulate`]). Tables
//!   never share state, so the results never depend on the thread count.
//! * **Auto-reset** (Gymnasium's "same step" mode). When a table's hand
//!   ends in a step, that step's `terminated[i]` is set, `reward[i]` is the
//!   settlement delta of the learner seat (with all seats learners: of the
//!   seat that made the last decision), the finished hand's last
//!   observation of that seat goes to `final_obs[i]` and its four deltas
//!   to `final_deltas[i]`, and the table deals its next hand at once: the
//!   step's `obs[i]` is already the new hand's first decision. The finished
//!   hand is kept until the next one ends ([`VecEnv::game`] with
//!   `finished`, and its log). Under [`Learners::Seat`], a hand that ends
//!   before the learner's first decision (a heavenly win, say) is skipped:
//!   the table deals the next one.
//! * **Illegal actions** ([`OnIllegal`]): every action is checked before
//!   any is played; [`OnIllegal::Error`] refuses the batch with the first
//!   bad table named and leaves every table as it was;
//!   [`OnIllegal::Fallback`] plays the table's first legal action (never
//!   leaving when another is legal) and sets `fault[i]`.
//! * **No allocation per step**: tables are redealt in place, their
//!   opponents reset, the event record keeps its capacity.
//! * **Instruction set**: the observation rows and masks are written on
//!   the path [`crate::simd`] chooses for the process (AVX2 where the CPU
//!   has it: `simd/obs.rs`), resolved once per `reset` or `step` on the
//!   calling thread ([`crate::simd::with_isa`] forces one); every path
//!   writes the same bytes.

use crate::agent::{builtin, Agent, Answer, SeatView};
use crate::error::Error;
use crate::game::encode::ponds::Ponds;
use crate::game::encode::{Cell, Encoding};
use crate::game::view::GameView;
use crate::game::{mix_seed, Action, Game, N_ACTIONS};
use crate::parallel::{run_tasks, thread_count, OutPtr, Team, Workers};
use crate::ruleset::Ruleset;
use crate::shape::ShapeRules;
use crate::simd::{self, Isa};
use std::sync::Mutex;

mod rows;
#[cfg(test)]
mod tests;

pub use rows::Rows;

/// Which seats the caller plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Learners {
    /// All four (self-play).
    All,
    /// One seat; built-in agents play the others.
    Seat(u8),
}

/// An optional reward shaping, added to the reward of each learner
/// decision after which the hand goes on (off by default: the reward is
/// the settlement delta alone). See [`VecEnv::set_shaping`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shaping {
    /// No shaping.
    Off,
    /// `scale × (shanten before − shanten after)` of the acting seat's
    /// own hand across its action ([`crate::shanten::shanten`]: the shape
    /// distance with the table's wild kinds): a discard that keeps the
    /// hand's distance earns 0, one that breaks a shape `−scale`, a
    /// claim that brings the hand nearer `+scale` a step. Draws and the
    /// other seats' moves are never counted, and the hand-ending decision
    /// gets the settlement delta alone.
    Shanten(f32),
}

/// What a step does with an illegal action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnIllegal {
    /// Refuse the whole batch, naming the table; nothing changes.
    Error,
    /// Play the table's fallback action and set its fault flag.
    Fallback,
}

/// The caller's output arrays for `n` tables in an encoding of `p`
/// planes, each written in place by [`VecEnv::reset`] and
/// [`VecEnv::step`].
pub struct Buffers<'a, T> {
    /// `n × p × 34`: the observation of the seat to act.
    pub obs: &'a mut [T],
    /// `n × 141`: that seat's legal actions.
    pub masks: &'a mut [bool],
    /// `n`: the seat to act.
    pub to_act: &'a mut [i64],
    /// `n`: the learner's settlement delta when the hand ended this step,
    /// else 0.
    pub reward: &'a mut [f32],
    /// `n`: the hand ended this step.
    pub terminated: &'a mut [bool],
    /// `n × p × 34`: the ended hand's final observation (written only
    /// where `terminated`).
    pub final_obs: &'a mut [T],
    /// `n × 4`: the ended hand's settlement deltas (written only where
    /// `terminated`).
    pub final_deltas: &'a mut [i64],
    /// `n`: this step played the fallback for an illegal action.
    pub fault: &'a mut [bool],
}

impl<'a, T> Buffers<'a, T> {
    /// Checks every length against `n` tables of `row` values.
    fn check(&self, n: usize, row: usize) -> Result<(), Error> {
        let lens = [
            ("obs", self.obs.len(), n * row),
            ("masks", self.masks.len(), n * N_ACTIONS),
            ("to_act", self.to_act.len(), n),
            ("reward", self.reward.len(), n),
            ("terminated", self.terminated.len(), n),
            ("final_obs", self.final_obs.len(), n * row),
            ("final_deltas", self.final_deltas.len(), n * 4),
            ("fault", self.fault.len(), n),
        ];
        for (name, got, want) in lens {
            if got != want {
                return Err(Error::InvalidHand(format!(
                    "buffer {name} holds {got} values, {want} needed for {n} tables"
                )));
            }
        }
        Ok(())
    }

    /// The first `k` tables' rows and the rest.
    fn split(self, k: usize, row: usize) -> (Buffers<'a, T>, Buffers<'a, T>) {
        let (obs, obs2) = self.obs.split_at_mut(k * row);
        let (masks, masks2) = self.masks.split_at_mut(k * N_ACTIONS);
        let (to_act, to_act2) = self.to_act.split_at_mut(k);
        let (reward, reward2) = self.reward.split_at_mut(k);
        let (terminated, terminated2) = self.terminated.split_at_mut(k);
        let (final_obs, final_obs2) = self.final_obs.split_at_mut(k * row);
        let (final_deltas, final_deltas2) = self.final_deltas.split_at_mut(k * 4);
        let (fault, fault2) = self.fault.split_at_mut(k);
        (
            Buffers {
                obs,
                masks,
                to_act,
                reward,
                terminated,
                final_obs,
                final_deltas,
                fault,
            },
            Buffers {
                obs: obs2,
                masks: masks2,
                to_act: to_act2,
                reward: reward2,
                terminated: terminated2,
                final_obs: final_obs2,
                final_deltas: final_deltas2,
                fault: fault2,
            },
        )
    }

    /// Table `i`'s rows (a reborrow: no split of the eight slices a table).
    #[inline]
    fn row(&mut self, i: usize, row: usize) -> Buffers<'_, T> {
        Buffers {
            obs: &mut self.obs[i * row..][..row],
            masks: &mut self.masks[i * N_ACTIONS..][..N_ACTIONS],
            to_act: &mut self.to_act[i..][..1],
            reward: &mut self.reward[i..][..1],
            terminated: &mut self.terminated[i..][..1],
            final_obs: &mut self.final_obs[i * row..][..row],
            final_deltas: &mut self.final_deltas[i * 4..][..4],
            fault: &mut self.fault[i..][..1],
        }
    }

    /// A reborrow, to hand out rows without giving up the buffers.
    fn reborrow(&mut self) -> Buffers<'_, T> {
        Buffers {
            obs: self.obs,
            masks: self.masks,
            to_act: self.to_act,
            reward: self.reward,
            terminated: self.terminated,
            final_obs: self.final_obs,
            final_deltas: self.final_deltas,
            fault: self.fault,
        }
    }
}

// The games are read from several threads at once (`first_illegal`).
const _: fn() = || {
    fn sync<T: Sync>() {}
    sync::<Game>();
};

/// One table: its hand in play, the last finished hand, the opponents.
struct Table {
    game: Game,
    /// The last hand that ended (a copy of the first deal until one has).
    last: Game,
    finished_one: bool,
    /// The index `k` of the hand in play.
    hand: u64,
    /// The table's seed (`mix_seed(seed, i)`).
    seed: u64,
    /// The table's number `i`.
    index: u64,
    /// The built-in agents of the seats the caller does not play.
    agents: [Option<Box<dyn Agent>>; 4],
    /// `game`'s discards folded in for the encoder (reset at each deal).
    ponds: Ponds,
}

/// The most tables one [`VecEnv`] holds. A table costs about 64 KiB
/// once its hands are under way (measured: resident memory per table over
/// 400 steps of 2,000 tables, shanxi, `f32` observations, one learner
/// seat; 58 KiB with all four learners, 51 KiB for sichuan): its hand in
/// play and the last finished one with their records, its opponents, its
/// rows of the output arrays. So one env stays under about 4 GiB, and a
/// count that cannot be meant (`10**7` tables would be 640 GB) is refused
/// before anything is allocated. More tables: several envs.
pub const MAX_ENVS: usize = 1 << 16;

/// The refusal of a table count `got` outside `1..=MAX_ENVS` (a
/// `Display` so that a binding can name a value no `usize` holds).
pub fn bad_num_envs(got: impl std::fmt::Display) -> Error {
    Error::InvalidRuleset(format!(
        "num_envs must be an integer from 1 to {MAX_ENVS} (MAX_ENVS), got {got}"
    ))
}

/// Tables in a task handed to a thread: some 25 µs of work, far above
/// the cost of claiming a task (one atomic operation), short enough for
/// the threads to even out their shares. A step of fewer than twice as
/// many tables runs on the calling thread alone: a second thread would
/// save less than the wait for it costs when the host is busy (a
/// preempted helper holds its task until it runs again).
const BLOCK: usize = 64;

/// Tables a rayon task steps without splitting further, on an env's own
/// pool (see [`VecEnv::new`]): enough work (tens of microseconds) to pay
/// for a rayon task and a pool thread's wake-up.
const POOL_BLOCK: usize = 64;

/// `N` tables, stepped together (see the [module docs](self)).
///
/// ```
/// use koudian_core::game::encode::Encoding;
/// use koudian_core::vec_env::{Buffers, Learners, OnIllegal, VecEnv};
/// use koudian_core::Ruleset;
/// let n = 4;
/// let mut env = VecEnv::new(&Ruleset::shanxi(), n, Learners::All, "greedy", 7, 1, Encoding::V2).unwrap();
/// let row = Encoding::V2.len();
/// let (mut obs, mut fin) = (vec![0u8; n * row], vec![0u8; n * row]);
/// let mut masks = vec![false; n * 141];
/// let (mut to_act, mut deltas) = (vec![0i64; n], vec![0i64; n * 4]);
/// let (mut reward, mut term, mut fault) = (vec![0f32; n], vec![false; n], vec![false; n]);
/// let mut out = Buffers {
///     obs: &mut obs, masks: &mut masks, to_act: &mut to_act, reward: &mut reward,
///     terminated: &mut term, final_obs: &mut fin, final_deltas: &mut deltas, fault: &mut fault,
/// };
/// env.reset(None, &mut out).unwrap();
/// for _ in 0..500 {
///     // The first legal action of each table.
///     let actions: Vec<i64> = (0..n)
///         .map(|i| out.masks[i * 141..][..141].iter().position(|&m| m).unwrap() as i64)
///         .collect();
///     env.step(&actions, OnIllegal::Error, &mut out).unwrap();
/// }
/// assert!(env.hands_finished() > 0);
/// ```
pub struct VecEnv {
    rules: Ruleset,
    learners: Learners,
    seed: u64,
    /// Where the steps run, taken once (a step never locks the list of
    /// kept threads): the calling thread and kept helpers, which join it
    /// as they wake ([`run_tasks`]). Handing the step to a rayon pool
    /// instead (`install`) left the caller asleep while a pool thread
    /// woke, then the second, then woke the caller at the end: at 1,024
    /// tables (about 0.4 ms a step on one thread) two threads gave 1.39×
    /// one on a quiet 2-CPU host.
    team: Team,
    /// With helper threads that are not kept (the kept thread counts are
    /// all taken), a pool of the env's own instead: starting threads at
    /// every step would cost more than the step.
    pool: Option<Workers>,
    /// The thread count (the caller's included).
    width: usize,
    encoding: Encoding,
    shaping: Shaping,
    /// The shape rules of `rules` (for [`Shaping::Shanten`]).
    shape: ShapeRules,
    tables: Vec<Table>,
    started: bool,
    finished: u64,
}

impl VecEnv {
    /// `num_envs` tables of `rules`; `opponents` names the built-in agent
    /// of the seats outside `learners` ([`crate::agent::builtin`]);
    /// `threads` as for the batch functions (0: all cores, 1: the caller,
    /// `k`: the caller and `k - 1` kept helper threads, the batches'
    /// own). The tables are dealt their hand 0.
    pub fn new(
        rules: &Ruleset,
        num_envs: usize,
        learners: Learners,
        opponents: &str,
        seed: u64,
        threads: usize,
        encoding: Encoding,
    ) -> Result<VecEnv, Error> {
        rules.validate()?;
        // An unusable `KOUDIAN_SIMD` is refused here, not at the first step.
        simd::isa()?;
        if !(1..=MAX_ENVS).contains(&num_envs) {
            return Err(bad_num_envs(num_envs));
        }
        if let Learners::Seat(s) = learners {
            if s > 3 {
                return Err(Error::InvalidRuleset(format!(
                    "learner seat {s} is not a seat (0-3)"
                )));
            }
        }
        let width = thread_count(threads)?;
        let team = Team::new(width - 1)?;
        let pool = match team.kept() {
            true => None,
            false => Some(Workers::new(threads)?),
        };
        // The one large block of the env (a few KiB a table); reserved
        // fallibly so that a failure is an error, not an abort.
        let mut tables = Vec::new();
        tables.try_reserve_exact(num_envs).map_err(|_| {
            Error::OutOfMemory(format!(
                "not enough memory for {num_envs} tables ({} bytes of table state before the hands)",
                num_envs.saturating_mul(std::mem::size_of::<Table>())
            ))
        })?;
        for i in 0..num_envs as u64 {
            let mut agents: [Option<Box<dyn Agent>>; 4] = [None, None, None, None];
            if let Learners::Seat(me) = learners {
                for (s, a) in agents.iter_mut().enumerate() {
                    if s != me as usize {
                        *a = Some(builtin(opponents, 0)?);
                    }
                }
            }
            let table_seed = mix_seed(seed, i);
            let mut game = Game::new(rules, mix_seed(table_seed, 0), Some((i % 4) as u8))?;
            game.set_recording(true);
            tables.push(Table {
                last: game.clone(),
                game,
                finished_one: false,
                hand: 0,
                seed: table_seed,
                index: i,
                agents,
                ponds: Ponds::default(),
            });
        }
        Ok(VecEnv {
            rules: rules.clone(),
            shaping: Shaping::Off,
            shape: ShapeRules::from(rules),
            learners,
            seed,
            team,
            pool,
            width,
            encoding,
            tables,
            started: false,
            finished: 0,
        })
    }

    /// Sets the reward shaping of the next steps (off after
    /// [`VecEnv::new`]); a scale that is not finite is an error.
    ///
    /// ```
    /// use koudian_core::game::encode::Encoding;
    /// use koudian_core::vec_env::{Learners, Shaping, VecEnv};
    /// use koudian_core::Ruleset;
    /// let mut env = VecEnv::new(&Ruleset::shanxi(), 2, Learners::All, "greedy", 0, 1, Encoding::V2).unwrap();
    /// env.set_shaping(Shaping::Shanten(0.1)).unwrap();
    /// assert!(env.set_shaping(Shaping::Shanten(f32::NAN)).is_err());
    /// assert_eq!(env.shaping(), Shaping::Shanten(0.1));
    /// ```
    pub fn set_shaping(&mut self, shaping: Shaping) -> Result<(), Error> {
        if let Shaping::Shanten(scale) = shaping {
            if !scale.is_finite() {
                return Err(Error::InvalidArgument(format!(
                    "the shanten shaping scale must be a finite number, got {scale}"
                )));
            }
        }
        self.shaping = shaping;
        Ok(())
    }

    /// The reward shaping.
    pub fn shaping(&self) -> Shaping {
        self.shaping
    }

    /// Number of tables.
    pub fn num_envs(&self) -> usize {
        self.tables.len()
    }

    /// The encoding of the observations.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The ruleset.
    pub fn rules(&self) -> &Ruleset {
        &self.rules
    }

    /// The master seed (the last reset's, or the constructor's).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The learner seats.
    pub fn learners(&self) -> Learners {
        self.learners
    }

    /// Hands finished since construction (skipped ones included).
    pub fn hands_finished(&self) -> u64 {
        self.finished
    }

    /// Table `i`'s hand in play, or (`finished`) the last one that ended
    /// there (`None` before any has).
    pub fn game(&self, i: usize, finished: bool) -> Result<Option<&Game>, Error> {
        let t = self.tables.get(i).ok_or_else(|| {
            Error::InvalidRuleset(format!(
                "table {i} does not exist ({} tables)",
                self.tables.len()
            ))
        })?;
        Ok(match finished {
            false => Some(&t.game),
            true => t.finished_one.then_some(&t.last),
        })
    }

    /// Deals every table a new hand and writes its first decision: with
    /// `seed`, hand 0 of that seed (see the [module docs](self)); without,
    /// each table's next hand (the first call after [`VecEnv::new`] keeps
    /// the hands dealt there).
    pub fn reset<T: Cell>(
        &mut self,
        seed: Option<u64>,
        out: &mut Buffers<'_, T>,
    ) -> Result<(), Error> {
        let row = self.encoding.len();
        out.check(self.tables.len(), row)?;
        // The writer's instruction set, resolved once for the call on this
        // thread and handed to the helpers with the rows.
        let isa = simd::isa()?;
        if let Some(s) = seed {
            self.seed = s;
            for t in &mut self.tables {
                t.seed = mix_seed(s, t.index);
                t.hand = 0;
                t.finished_one = false;
            }
        }
        let next = seed.is_none() && self.started;
        self.started = true;
        let (learners, enc) = (self.learners, self.encoding);
        let skipped = self.run(out.reborrow(), |t, o| {
            if next {
                t.hand += 1;
            }
            let skipped = t.deal(learners)?;
            o.reward[0] = 0.0;
            o.terminated[0] = false;
            o.fault[0] = false;
            t.write(learners, enc, isa, o);
            Ok(skipped)
        })?;
        self.finished += skipped;
        Ok(())
    }

    /// Plays `actions[i]` (a dense action index) at table `i` for the seat
    /// to act, plays the opponents up to the learner's next decision,
    /// auto-resets finished tables and writes the outputs (see the
    /// [module docs](self)).
    pub fn step<A, T>(
        &mut self,
        actions: &[A],
        on_illegal: OnIllegal,
        out: &mut Buffers<'_, T>,
    ) -> Result<(), Error>
    where
        A: Copy + Default + Into<i64> + Sync,
        T: Cell,
    {
        let n = self.tables.len();
        if actions.len() != n {
            return Err(Error::IllegalAction(format!(
                "{} actions for {n} tables",
                actions.len()
            )));
        }
        if !self.started {
            return Err(Error::IllegalAction(
                "reset the environment before the first step".into(),
            ));
        }
        out.check(n, self.encoding.len())?;
        if on_illegal == OnIllegal::Error {
            if let Some(i) = self.first_illegal(actions)? {
                let t = &self.tables[i];
                return Err(refusal(i, &t.game, actions[i].into()));
            }
        }
        let (learners, enc) = (self.learners, self.encoding);
        let isa = simd::isa()?;
        let (shaping, shape) = (self.shaping, self.shape);
        let finished = self.run_with(actions, out.reborrow(), |t, a, o| {
            let a: i64 = a.into();
            let legal = (0..N_ACTIONS as i64).contains(&a)
                && t.game.legal_actions().contains_index(a as usize);
            let action = match legal {
                true => Action::from_index(a as usize)?,
                false => fallback(&t.game)?,
            };
            o.fault[0] = !legal;
            let seat = t.game.to_act().unwrap_or(0);
            let before = match shaping {
                Shaping::Off => 0,
                Shaping::Shanten(_) => shanten_of(&t.game, seat, &shape),
            };
            t.game.step_inline(action)?;
            o.reward[0] = match shaping {
                Shaping::Shanten(scale) if !t.game.is_over() => {
                    scale * f32::from(before - shanten_of(&t.game, seat, &shape))
                }
                _ => 0.0,
            };
            let mut ended = t.play_opponents(learners)?;
            o.terminated[0] = t.game.is_over();
            if t.game.is_over() {
                let me = match learners {
                    Learners::All => seat,
                    Learners::Seat(s) => s,
                };
                let deltas = t.game.result().map_or([0; 4], |r| r.deltas);
                o.reward[0] = deltas[me as usize] as f32;
                o.final_deltas.copy_from_slice(&deltas);
                t.ponds.catch_up(&t.game);
                let view = GameView::with_ponds(&t.game, me, &t.ponds);
                simd::obs::write(isa, &view, enc, o.final_obs);
                // The finished hand becomes the kept one; the previous
                // kept table is redealt in place.
                std::mem::swap(&mut t.game, &mut t.last);
                t.finished_one = true;
                t.hand += 1;
                ended += 1 + t.deal(learners)?;
            }
            t.write(learners, enc, isa, o);
            Ok(ended)
        })?;
        self.finished += finished;
        Ok(())
    }

    /// The first table whose action is illegal, checked on the env's
    /// threads like a step: each reads the tables it stepped last (their
    /// state in its own cache), where the calling thread alone read
    /// every table's, half of them from the other core's cache, before
    /// the step could start.
    fn first_illegal<A>(&self, actions: &[A]) -> Result<Option<usize>, Error>
    where
        A: Copy + Into<i64> + Sync,
    {
        let n = self.tables.len();
        let tables = OutPtr(self.tables.as_ptr().cast_mut());
        let bad = |lo: usize, hi: usize| {
            (lo..hi).find(|&i| {
                let a: i64 = actions[i].into();
                // SAFETY: `i < n`; the tables are only read while `&self`
                // is held, and only their games, which are `Sync`.
                let g: &Game = unsafe { &*std::ptr::addr_of!((*tables.at(i)).game) };
                !(0..N_ACTIONS as i64).contains(&a) || !g.legal_actions().contains_index(a as usize)
            })
        };
        if self.width == 1 || n < 2 * BLOCK || self.pool.is_some() {
            return Ok(bad(0, n));
        }
        let first = |a: Option<usize>, b: Option<usize>| match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        run_tasks(self.team, n.div_ceil(BLOCK), None, &first, &|c| {
            bad(c * BLOCK, ((c + 1) * BLOCK).min(n))
        })
    }

    /// Runs `f(table, its rows)` over every table on the env's threads;
    /// the sum of the results.
    fn run<T: Cell>(
        &mut self,
        out: Buffers<'_, T>,
        f: impl Fn(&mut Table, Buffers<'_, T>) -> Result<u64, Error> + Sync,
    ) -> Result<u64, Error> {
        self.run_with::<i64, T>(&[], out, |t, _, o| f(t, o))
    }

    /// [`VecEnv::run`] with each table's action (`actions` empty: none).
    fn run_with<A, T>(
        &mut self,
        actions: &[A],
        out: Buffers<'_, T>,
        f: impl Fn(&mut Table, A, Buffers<'_, T>) -> Result<u64, Error> + Sync,
    ) -> Result<u64, Error>
    where
        A: Copy + Default + Sync,
        T: Cell,
    {
        let row = self.encoding.len();
        let n = self.tables.len();
        let width = self.width;
        let block = BLOCK;
        let tables = &mut self.tables[..];
        if width == 1 || n < 2 * block {
            // Too few tables to split: the calling thread steps them all.
            return blocks(tables, actions, out, row, usize::MAX, &f);
        }
        if let Some(pool) = &self.pool {
            let block = n.div_ceil(4 * width).max(POOL_BLOCK);
            return pool.install(|| blocks(tables, actions, out, row, block, &f));
        }
        let shared = Shared::new(tables, out);
        // The first error by table index, whichever thread met it, so
        // that the error does not depend on the thread count.
        let failed: Mutex<Option<(usize, Error)>> = Mutex::new(None);
        let task = |c: usize| {
            let lo = c * block;
            let hi = (lo + block).min(n);
            // SAFETY: task `c` is run by one thread only, and the tasks'
            // table ranges are disjoint and within the `n` tables.
            let (tables, out) = unsafe { shared.rows(lo, hi, row) };
            let acts = &actions[lo.min(actions.len())..hi.min(actions.len())];
            match steps(tables, acts, out, row, &f) {
                Ok(k) => k,
                Err((i, e)) => {
                    let mut first = failed.lock().unwrap_or_else(|e| e.into_inner());
                    if first.as_ref().is_none_or(|(j, _)| lo + i < *j) {
                        *first = Some((lo + i, e));
                    }
                    0
                }
            }
        };
        let total = run_tasks(self.team, n.div_ceil(block), 0, &|a, b| a + b, &task)?;
        match failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some((_, e)) => Err(e),
            None => Ok(total),
        }
    }
}

/// The tables and output rows of a step, shared by the threads of a
/// [`Team`], each of which takes disjoint ranges of tables.
struct Shared<'a, T> {
    tables: *mut Table,
    n: usize,
    obs: *mut T,
    masks: *mut bool,
    to_act: *mut i64,
    reward: *mut f32,
    terminated: *mut bool,
    final_obs: *mut T,
    final_deltas: *mut i64,
    fault: *mut bool,
    _borrow: std::marker::PhantomData<(&'a mut [Table], Buffers<'a, T>)>,
}

// SAFETY: the pointers are only turned into disjoint ranges of tables and
// rows (`Shared::rows`), each used by one thread, while the `&mut`
// borrows they come from are held (`'a`); tables and cells may be sent
// to another thread.
unsafe impl<T: Send> Sync for Shared<'_, T> {}

impl<'a, T> Shared<'a, T> {
    fn new(tables: &'a mut [Table], out: Buffers<'a, T>) -> Shared<'a, T> {
        Shared {
            n: tables.len(),
            tables: tables.as_mut_ptr(),
            obs: out.obs.as_mut_ptr(),
            masks: out.masks.as_mut_ptr(),
            to_act: out.to_act.as_mut_ptr(),
            reward: out.reward.as_mut_ptr(),
            terminated: out.terminated.as_mut_ptr(),
            final_obs: out.final_obs.as_mut_ptr(),
            final_deltas: out.final_deltas.as_mut_ptr(),
            fault: out.fault.as_mut_ptr(),
            _borrow: std::marker::PhantomData,
        }
    }

    /// Tables `lo..hi` and their rows (`row` cells of observation each).
    ///
    /// # Safety
    /// `lo <= hi <= n` (the buffers were checked for `n` tables), and no
    /// other live borrow from `self` overlaps `lo..hi`.
    #[allow(clippy::mut_from_ref)]
    unsafe fn rows(&self, lo: usize, hi: usize, row: usize) -> (&mut [Table], Buffers<'_, T>) {
        use std::slice::from_raw_parts_mut as part;
        assert!(lo <= hi && hi <= self.n);
        let k = hi - lo;
        // SAFETY: see above.
        unsafe {
            (
                part(self.tables.add(lo), k),
                Buffers {
                    obs: part(self.obs.add(lo * row), k * row),
                    masks: part(self.masks.add(lo * N_ACTIONS), k * N_ACTIONS),
                    to_act: part(self.to_act.add(lo), k),
                    reward: part(self.reward.add(lo), k),
                    terminated: part(self.terminated.add(lo), k),
                    final_obs: part(self.final_obs.add(lo * row), k * row),
                    final_deltas: part(self.final_deltas.add(lo * 4), k * 4),
                    fault: part(self.fault.add(lo), k),
                },
            )
        }
    }
}

/// Steps `tables` (with their `actions`, if any, and rows of `out`),
/// halving with `rayon::join` down to `block` tables.
fn blocks<A, T, F>(
    tables: &mut [Table],
    actions: &[A],
    out: Buffers<'_, T>,
    row: usize,
    block: usize,
    f: &F,
) -> Result<u64, Error>
where
    A: Copy + Default + Sync,
    T: Cell,
    F: Fn(&mut Table, A, Buffers<'_, T>) -> Result<u64, Error> + Sync,
{
    if tables.len() > block {
        let mid = tables.len() / 2;
        let (ta, tb) = tables.split_at_mut(mid);
        let (aa, ab) = actions.split_at(mid.min(actions.len()));
        let (oa, ob) = out.split(mid, row);
        let (ra, rb) = rayon::join(
            || blocks(ta, aa, oa, row, block, f),
            || blocks(tb, ab, ob, row, block, f),
        );
        return Ok(ra? + rb?);
    }
    steps(tables, actions, out, row, f).map_err(|(_, e)| e)
}

/// Steps `tables` in order on this thread; the sum of the results, or the
/// index of the first failing table with its error.
fn steps<A, T, F>(
    tables: &mut [Table],
    actions: &[A],
    out: Buffers<'_, T>,
    row: usize,
    f: &F,
) -> Result<u64, (usize, Error)>
where
    A: Copy + Default,
    F: Fn(&mut Table, A, Buffers<'_, T>) -> Result<u64, Error>,
{
    let mut total = 0;
    let mut out = out;
    for (i, t) in tables.iter_mut().enumerate() {
        total += f(
            t,
            actions.get(i).copied().unwrap_or_default(),
            out.row(i, row),
        )
        .map_err(|e| (i, e))?;
    }
    Ok(total)
}

impl Table {
    /// Deals hand `self.hand` (redealing in place) and, for one learner
    /// seat, plays the opponents up to its first decision, dealing again
    /// while hands end before it; the number of hands skipped so.
    fn deal(&mut self, learners: Learners) -> Result<u64, Error> {
        let mut skipped = 0;
        loop {
            let seed = mix_seed(self.seed, self.hand);
            let dealer = ((self.index + self.hand) % 4) as u8;
            self.game.redeal(seed, Some(dealer))?;
            self.ponds.reset();
            for (s, a) in self.agents.iter_mut().enumerate() {
                if let Some(a) = a {
                    a.reset(mix_seed(seed, 1 + s as u64));
                }
            }
            self.play_opponents(learners)?;
            if !self.game.is_over() {
                return Ok(skipped);
            }
            skipped += 1;
            self.hand += 1;
        }
    }

    /// Plays the built-in agents while one of theirs is to act; 0 (a
    /// count for the callers' sums).
    #[inline]
    fn play_opponents(&mut self, learners: Learners) -> Result<u64, Error> {
        let Learners::Seat(me) = learners else {
            return Ok(0);
        };
        while let Some(seat) = self.game.to_act() {
            if seat == me {
                break;
            }
            let Some(agent) = self.agents[(seat & 3) as usize].as_mut() else {
                break;
            };
            let view = SeatView::new(&self.game, seat);
            // An agent that may fail (the nn agent: a model without the
            // ruleset's family) answers through `decide`; its error
            // stops the step.
            let a = if agent.decides() {
                match agent.decide(&view)? {
                    Answer::Action(a) | Answer::Faulted(a) => a,
                    Answer::NotAnAction(_) => Action::Pass,
                }
            } else {
                agent.act(&view)
            };
            if self.game.step_inline(a).is_err() {
                let fb = fallback(&self.game)?;
                self.game.step(fb)?;
            }
        }
        Ok(0)
    }

    /// Writes the decision in play: observation, mask, seat.
    #[inline]
    fn write<T: Cell>(&mut self, learners: Learners, enc: Encoding, isa: Isa, o: Buffers<'_, T>) {
        let seat = match (learners, self.game.to_act()) {
            (_, Some(s)) => s,
            (Learners::Seat(s), None) => s,
            (Learners::All, None) => 0,
        };
        self.ponds.catch_up(&self.game);
        let view = GameView::with_ponds(&self.game, seat, &self.ponds);
        simd::obs::write(isa, &view, enc, o.obs);
        let masks: &mut [bool; N_ACTIONS] = o.masks.try_into().expect("a table's mask row");
        simd::obs::mask(isa, self.game.legal_actions_for(seat).0, masks);
        o.to_act[0] = i64::from(seat);
    }
}

/// Shanten of `seat`'s hand in `g` with the table's wild kinds (0 for a
/// tile count shanten does not take, which a table never holds).
fn shanten_of(g: &Game, seat: u8, shape: &ShapeRules) -> i8 {
    let hand = g.hand(seat);
    crate::shanten::shanten(hand, &g.deal.wilds, shape).unwrap_or(0)
}

/// The action played for an illegal one: the first legal action, never
/// leaving when another is legal.
fn fallback(g: &Game) -> Result<Action, Error> {
    g.legal_actions()
        .fallback()
        .ok_or_else(|| Error::IllegalAction("no legal action".into()))
}

/// The error for table `i`'s illegal action `a`, with the table's reason.
#[cold]
fn refusal(i: usize, g: &Game, a: i64) -> Error {
    let why = match usize::try_from(a)
        .map_err(|_| ())
        .and_then(|a| Action::from_index(a).map_err(|_| ()))
    {
        Err(()) => format!("action index {a} is out of range 0..{N_ACTIONS}"),
        Ok(action) => {
            let mut probe = g.clone();
            probe.set_recording(false);
            match probe.step(action) {
                Err(e) => format!("{action} (index {a}): {e}"),
                Ok(()) => format!("{action} (index {a}) is not legal"),
            }
        }
    };
    Error::IllegalAction(format!("table {i}: {why}; no table was stepped"))
}
