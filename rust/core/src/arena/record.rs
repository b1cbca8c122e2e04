//! The recorded arena: one play of each deal gives the seat records
//! (with [`SeatRecord::adjusted`] when the luck of the wall is taken out)
//! and every table's decision rows, as [`crate::record::simulate_dataset`]
//! records self-play.

use super::{arena_of, tables, Run, SeatRecord};
use crate::agent::{Agent, Answer};
use crate::error::Error;
use crate::game::{Action, Game};
use crate::legal::HandRules;
use crate::parallel::Workers;
use crate::record::{parts_of, Block, DatasetRecorder, Decisions, RecordOptions};
use crate::simulate::{HandSummary, Recorder};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Mutex;

/// What [`arena_dataset`] returns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArenaRecorded {
    /// Every seat of every table of every deal, deal by deal, table by
    /// table, seat by seat (as [`super::arena_with`]).
    pub records: Vec<SeatRecord>,
    /// For each table, its decision rows of the chosen seats in (deal,
    /// decision) order, as consecutive parts (one per worker); each row's
    /// hand id is `deal * tables + table`.
    pub tables: Vec<Vec<Decisions>>,
    /// The hands played (tables × deals): each deal is played once.
    pub hands: u64,
}

/// One [`Recorder`] per table, each told only its table's hands (the
/// hand id `deal * tables + table` says which), so that each table's
/// rows fill buffers of their own, in deal order.
struct PerTable<R> {
    each: Vec<R>,
    tables: u64,
    at: usize,
}

impl<R: Recorder> Recorder for PerTable<R> {
    type Hand = R::Hand;

    fn wants_events(&self) -> bool {
        self.each.iter().any(|r| r.wants_events())
    }

    fn start(&mut self, index: u64, g: &Game) {
        self.at = (index % self.tables) as usize;
        self.each[self.at].start(index, g);
    }

    fn before(&mut self, g: &Game, seat: u8) {
        self.each[self.at].before(g, seat);
    }

    fn fault(&mut self, seat: u8, answer: &Answer, fallback: Action) {
        self.each[self.at].fault(seat, answer, fallback);
    }

    fn played(&mut self, action: Action) {
        self.each[self.at].played(action);
    }

    fn finish(&mut self, g: &Game, summary: HandSummary) -> R::Hand {
        self.each[self.at].finish(g, summary)
    }
}

/// [`super::arena_of`] of the deals `deals` with line-up entry `e` played
/// by `make(e)`, recording the decisions of the seats marked in `seats`
/// at every table: the seat records (with `adjusted` when `run.walls >
/// 0`) and each table's rows, from one play of each deal. The deals are
/// split into one range of consecutive deals per worker, so each table's
/// parts are its rows in deal order whatever the thread count.
///
/// ```
/// use koudian_core::agent::builtin;
/// use koudian_core::arena::record::arena_dataset;
/// use koudian_core::arena::{arena_with, Format, Run};
/// use koudian_core::Ruleset;
/// let rules = Ruleset::shanxi();
/// let specs = ["random", "greedy", "greedy", "greedy"].map(String::from);
/// let run = Run { rules: &rules, labels: &specs, seed: 7, format: Format::Duplicate, walls: 2 };
/// let r = arena_dataset(&run, 0..3, 2, |e| builtin(&specs[usize::from(e)], 0), [true; 4])
///     .unwrap();
/// assert_eq!(r.records, arena_with(&rules, &specs, 0..3, 7, 1, Format::Duplicate, 2).unwrap());
/// assert_eq!((r.tables.len(), r.hands), (5, 3 * 5));
/// ```
pub fn arena_dataset<F>(
    run: &Run<'_>,
    deals: Range<u64>,
    threads: usize,
    make: F,
    seats: [bool; 4],
) -> Result<ArenaRecorded, Error>
where
    F: Fn(u8) -> Result<Box<dyn Agent>, Error> + Sync,
{
    run.rules.validate()?;
    let n_tables = tables(run.labels, run.format).len();
    let options = RecordOptions {
        seats,
        ..RecordOptions::default()
    };
    let hand_rules = HandRules::from(run.rules);
    let keep = |_: &Game, _: HandSummary| ();
    type Part = (Vec<SeatRecord>, u64, Vec<Decisions>);
    let part = |r: Range<u64>| -> Result<Part, Error> {
        let homes: Vec<Mutex<Block>> = (0..n_tables).map(|_| Mutex::default()).collect();
        let (records, hands) = arena_of(run, r, 1, &make, || PerTable {
            each: homes
                .iter()
                .map(|h| DatasetRecorder::new(options, hand_rules, h, &keep))
                .collect(),
            tables: n_tables as u64,
            at: 0,
        })?;
        let played = hands.len() as u64;
        hands.into_iter().collect::<Result<Vec<()>, Error>>()?;
        let rows = homes
            .into_iter()
            .map(|h| h.into_inner().unwrap_or_else(|e| e.into_inner()).rows)
            .collect();
        Ok((records, played, rows))
    };
    let workers = Workers::new(threads)?;
    let ranges = parts_of(deals, workers.width());
    let parts: Vec<Part> = match workers {
        Workers::Caller => ranges.into_iter().map(part).collect::<Result<_, _>>()?,
        _ => workers.install(|| ranges.into_par_iter().map(part).collect::<Result<_, _>>())?,
    };
    let mut out = ArenaRecorded {
        records: Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum()),
        tables: (0..n_tables).map(|_| Vec::new()).collect(),
        hands: 0,
    };
    for (records, played, rows) in parts {
        out.records.extend(records);
        out.hands += played;
        for (t, r) in out.tables.iter_mut().zip(rows) {
            if !r.is_empty() || t.is_empty() {
                t.push(r);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::builtin;
    use crate::arena::{arena_with, Format};
    use crate::record::simulate_dataset;
    use crate::ruleset::Ruleset;

    /// One play of each deal gives `arena_with`'s records (the luck
    /// correction too) and, at each table, the rows `simulate_dataset`
    /// records of the same games with that table's line-up, the hand
    /// ids `deal * tables + table`; the same on 1 and 3 threads.
    #[test]
    fn one_play_gives_the_records_and_every_tables_rows() {
        let rules = Ruleset::shanxi();
        let specs = ["random", "greedy", "greedy", "greedy"].map(String::from);
        let run = Run {
            rules: &rules,
            labels: &specs,
            seed: 11,
            format: Format::Duplicate,
            walls: 3,
        };
        let seats = [true, false, true, true];
        let make = |e: u8| builtin(&specs[usize::from(e)], 0);
        let got = arena_dataset(&run, 4..10, 1, make, seats).unwrap();
        let want = arena_with(&rules, &specs, 4..10, 11, 1, Format::Duplicate, 3).unwrap();
        assert_eq!(got.records, want);
        assert_eq!(got.hands, 6 * 5);
        let layout = tables(&specs, Format::Duplicate);
        for (t, entries) in layout.iter().enumerate() {
            let options = RecordOptions {
                seats,
                ..RecordOptions::default()
            };
            let mut rows = simulate_dataset(
                &rules,
                4..10,
                11,
                1,
                |s| builtin(&specs[usize::from(entries[s])], 0),
                options,
                |_, _| (),
            )
            .unwrap()
            .into_rows();
            for h in rows.hand.iter_mut() {
                *h = *h * layout.len() as u64 + t as u64;
            }
            let mine = Decisions::concat(got.tables[t].clone());
            assert!(!mine.is_empty());
            assert!(mine == rows, "table {t}");
        }
        let three = arena_dataset(&run, 4..10, 3, make, seats).unwrap();
        assert_eq!(three.records, got.records);
        let joined = |r: &ArenaRecorded| -> Vec<Decisions> {
            r.tables
                .iter()
                .map(|p| Decisions::concat(p.clone()))
                .collect()
        };
        assert!(joined(&three) == joined(&got));
    }
}
