//! Lockstep self-play: when a seat is the learned agent `nn`, each worker
//! plays [`LOCKSTEP_TABLES`] consecutive games of the run at once, each on
//! its own table with its own agents and recorder, through the one game
//! loop ([`play_until`]), which stops a table where an nn seat is to act.
//! The waiting decisions of all the worker's tables are then evaluated in
//! one forward pass per model, and each agent picks its action from its
//! row's logits with its own seeded stream.
//!
//! A row's logits do not depend on the other rows of its batch (see
//! [`crate::agent::nn::forward`]), each table's agents are reset from its
//! game's seed, and results come back in game order: a game's log and
//! summary are the same as when it is played alone ([`super::play_out`]),
//! whatever the batch or the thread count (tests hold it).

use super::{answered, deal_of, play_until, reset_agents, HandSummary, Recorder, Tally};
use crate::agent::nn::{encode_row, Model, Scratch};
use crate::agent::{Agent, Answer};
use crate::error::Error;
use crate::game::{Game, N_ACTIONS};
use crate::parallel::Workers;
use crate::ruleset::Ruleset;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Arc;

/// Tables a worker plays at once when a seat is an nn agent: enough rows
/// per forward pass to amortize its dense products (measured: 32 tables
/// of nn×4 batch ~30 decisions a pass), few enough to keep every table's
/// state in cache.
pub const LOCKSTEP_TABLES: usize = 32;

/// Whether the run's agents include an nn seat (an agent that cannot be
/// built leaves the choice to the usual path, which reports it).
pub(super) fn wanted<F>(make: &F) -> bool
where
    F: Fn(usize) -> Result<Box<dyn Agent>, Error>,
{
    (0..4).any(|s| make(s).is_ok_and(|mut a| a.as_nn().is_some()))
}

/// One table of a worker.
struct Table<R> {
    agents: [Box<dyn Agent>; 4],
    /// The nn seats, whose decisions are batched.
    batched: [bool; 4],
    game: Option<Game>,
    rec: R,
}

/// One worker's tables and batch buffers, kept between its chunks.
struct Worker<R> {
    tables: Vec<Table<R>>,
    /// The decisions waiting: (table, seat, model).
    pending: Vec<(usize, u8, Arc<Model>)>,
    rows: Vec<f32>,
    logits: Vec<f32>,
    values: Vec<f32>,
    scratch: Scratch,
}

/// [`super::simulate_recorded`] with an nn seat: the games `games` in
/// chunks of [`LOCKSTEP_TABLES`], each chunk played in lockstep by one
/// worker.
pub(super) fn run<R, F, M>(
    rules: &Ruleset,
    games: Range<u64>,
    seed: u64,
    workers: &Workers,
    make: &F,
    recorder: &M,
) -> Result<Vec<R::Hand>, Error>
where
    R: Recorder,
    F: Fn(usize) -> Result<Box<dyn Agent>, Error> + Sync,
    M: Fn() -> R + Sync,
{
    let k = LOCKSTEP_TABLES as u64;
    let chunks: Vec<Range<u64>> = (games.start..games.end)
        .step_by(LOCKSTEP_TABLES)
        .map(|a| a..(a.saturating_add(k)).min(games.end))
        .collect();
    let init = || Worker {
        tables: Vec::new(),
        pending: Vec::new(),
        rows: Vec::new(),
        logits: Vec::new(),
        values: Vec::new(),
        scratch: Scratch::default(),
    };
    let one = |w: &mut Worker<R>, c: Range<u64>| w.play(rules, seed, c, make, recorder);
    let parts: Vec<Vec<R::Hand>> = match workers {
        Workers::Caller => {
            let mut w = init();
            chunks
                .into_iter()
                .map(|c| one(&mut w, c))
                .collect::<Result<_, _>>()?
        }
        _ => workers.install(|| {
            chunks
                .into_par_iter()
                .map_init(init, one)
                .collect::<Result<_, _>>()
        })?,
    };
    Ok(parts.into_iter().flatten().collect())
}

impl<R: Recorder> Worker<R> {
    /// Plays the games `games` (at most [`LOCKSTEP_TABLES`]) in lockstep;
    /// their hands in game order.
    fn play<F, M>(
        &mut self,
        rules: &Ruleset,
        seed: u64,
        games: Range<u64>,
        make: &F,
        recorder: &M,
    ) -> Result<Vec<R::Hand>, Error>
    where
        F: Fn(usize) -> Result<Box<dyn Agent>, Error>,
        M: Fn() -> R,
    {
        let n = games.clone().count();
        while self.tables.len() < n {
            let mut agents = [make(0)?, make(1)?, make(2)?, make(3)?];
            let batched = std::array::from_fn(|s| agents[s].as_nn().is_some());
            self.tables.push(Table {
                agents,
                batched,
                game: None,
                rec: recorder(),
            });
        }
        let Worker {
            tables,
            pending,
            rows,
            logits,
            values,
            scratch,
        } = self;
        let mut tallies = Vec::with_capacity(n);
        for (t, i) in tables.iter_mut().zip(games) {
            let (game_seed, dealer) = deal_of(seed, i);
            let g = match &mut t.game {
                Some(g) => {
                    g.redeal(game_seed, Some(dealer))?;
                    g
                }
                None => {
                    let mut g = Game::new(rules, game_seed, Some(dealer))?;
                    g.set_recording(t.rec.wants_events());
                    t.game.insert(g)
                }
            };
            t.rec.start(i, g);
            reset_agents(&mut t.agents, game_seed);
            tallies.push(Tally::of(&mut t.agents));
        }
        let mut out: Vec<Option<R::Hand>> = (0..n).map(|_| None).collect();
        let mut live: Vec<usize> = (0..n).collect();
        while !live.is_empty() {
            pending.clear();
            let mut still = Vec::with_capacity(live.len());
            for &k in &live {
                let t = &mut tables[k];
                let g = t.game.as_mut().ok_or_else(undealt)?;
                let tally = &mut tallies[k];
                match play_until::<true, _, _>(g, &mut t.agents, &mut t.rec, tally, t.batched)? {
                    Some(seat) => {
                        let nn = t.agents[usize::from(seat & 3)]
                            .as_nn()
                            .ok_or_else(undealt)?;
                        pending.push((k, seat, nn.model_for_game(g)?));
                        still.push(k);
                    }
                    None => {
                        let (decisions, fault) = tally.settle(g)?;
                        let summary = HandSummary::of(g, decisions, fault)?;
                        out[k] = Some(t.rec.finish(g, summary));
                    }
                }
            }
            live = still;
            // One batch per model: the waiting decisions grouped by it.
            pending.sort_by_key(|p| Arc::as_ptr(&p.2) as usize);
            for group in pending.chunk_by(|a, b| Arc::ptr_eq(&a.2, &b.2)) {
                let model = &group[0].2;
                let inputs = model.inputs();
                rows.resize(group.len() * inputs, 0.0);
                logits.resize(group.len() * N_ACTIONS, 0.0);
                values.resize(group.len(), 0.0);
                for (row, &(k, seat, _)) in rows.chunks_exact_mut(inputs).zip(group) {
                    let g = tables[k].game.as_ref().ok_or_else(undealt)?;
                    encode_row(model, g, seat, row);
                }
                model.forward(rows, logits, values, scratch)?;
                for (l, &(k, seat, _)) in logits.chunks_exact(N_ACTIONS).zip(group) {
                    let t = &mut tables[k];
                    let g = t.game.as_mut().ok_or_else(undealt)?;
                    let nn = t.agents[usize::from(seat & 3)]
                        .as_nn()
                        .ok_or_else(undealt)?;
                    let a = nn.choose_from(l, g.legal_actions_for(seat));
                    answered(g, seat, Answer::Action(a), &mut t.rec, &mut tallies[k])?;
                }
            }
        }
        out.into_iter().map(|h| h.ok_or_else(undealt)).collect()
    }
}

/// A table state the lockstep loop never leaves (kept an error, not a
/// panic).
fn undealt() -> Error {
    Error::InvalidArgument("lockstep play lost a table (a bug)".into())
}

#[cfg(test)]
mod tests {
    use super::super::{play_run_game, simulate_recorded};
    use super::*;
    use crate::agent::builtin;
    use crate::agent::nn::{random_model, NnAgent};
    use crate::game::Action;
    use crate::ruleset::Family;

    /// Records every action played.
    #[derive(Default)]
    struct Actions(Vec<Action>);

    impl Recorder for Actions {
        type Hand = (Vec<Action>, HandSummary);
        fn played(&mut self, a: Action) {
            self.0.push(a);
        }
        fn finish(&mut self, _: &Game, s: HandSummary) -> Self::Hand {
            (std::mem::take(&mut self.0), s)
        }
    }

    /// Lockstep runs (1 and 2 threads, nn×4 and nn with others, greedy
    /// and sampled) play every game exactly as it is played alone.
    #[test]
    fn lockstep_play_equals_play_alone() {
        let fams = [Family::Shanxi, Family::Linxian, Family::Sichuan];
        let model = Arc::new(Model::from_bytes(&random_model(&[24, 12], &fams, 3), "r").unwrap());
        for name in ["shanxi", "linxian", "sichuan"] {
            let rules = Ruleset::preset(name).unwrap();
            for (mix, temp) in [(false, None), (true, None), (false, Some(1.5))] {
                let make = |s: usize| -> Result<Box<dyn Agent>, Error> {
                    if mix && s % 2 == 1 {
                        return builtin(if s == 1 { "greedy" } else { "random" }, 0);
                    }
                    Ok(Box::new(NnAgent::with_model(Arc::clone(&model), temp, 0)))
                };
                assert!(wanted(&make));
                let games = 0..(LOCKSTEP_TABLES as u64 + 9);
                let one =
                    simulate_recorded(&rules, games.clone(), 4, 1, make, Actions::default).unwrap();
                let two =
                    simulate_recorded(&rules, games.clone(), 4, 2, make, Actions::default).unwrap();
                assert_eq!(one, two, "{name} {mix} {temp:?}");
                let mut seats: [Box<dyn Agent>; 4] = std::array::from_fn(|s| make(s).unwrap());
                for i in games {
                    let mut rec = Actions::default();
                    let (g, d, f) =
                        play_run_game(&rules, 4, i, &mut seats, false, &mut rec).unwrap();
                    let alone = rec.finish(&g, HandSummary::of(&g, d, f).unwrap());
                    assert_eq!(one[i as usize], alone, "{name} game {i} {mix} {temp:?}");
                }
            }
        }
    }
}
