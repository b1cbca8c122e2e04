//! The duplicate arena for native agents: every seeded deal (wall, dealer,
//! wild kinds) is played by several tables of the same agents, so that
//! the luck of the deal cancels when agents are compared.
//!
//! * Duplicate format: the line-up is rotated through the seats (table
//!   `r` seats line-up entry `i` at seat `(i + r) mod 4`), so each entry
//!   plays each seat of each deal once; for a 1-vs-3 line-up (one spec
//!   once, another three times) the reference table, the three-times spec
//!   at all four seats, also plays every deal.
//! * Single format: each deal is played once, by the line-up as given.
//!
//! Common random numbers: deal `d` of a run with seed `m` is dealt from
//! `mix_seed(m, d)` with seat `d mod 4` dealing, and the agent at seat
//! `s` is reset with `mix_seed(mix_seed(m, d), 1 + s)`, at every table:
//! an agent's randomness depends on the deal and the seat, never on which
//! agent sits there, so a hand in which one agent plays as another would
//! is identical at both tables. Records come back in deal order, whatever
//! the thread count. The statistics are the caller's (the Python
//! `koudian.arena`, which also plays Python and external agents).

use crate::agent::{builtin, Agent};
use crate::error::Error;
use crate::game::Game;
use crate::parallel::Workers;
use crate::ruleset::Ruleset;
use crate::score::PaymentReason;
use crate::simulate::{deal_of, play_out, reset_agents, Both, HandSummary, Recorder};
pub use luck::{luck_seed, Departures};
use rayon::prelude::*;
use std::ops::Range;

pub mod luck;
pub mod record;

/// The most wall shuffles a departure's gain may be averaged over.
pub const MAX_WALLS: u32 = 100_000;

/// How the deals are played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Every deal by every rotation of the line-up (and the reference
    /// table of a 1-vs-3 line-up).
    Duplicate,
    /// Every deal once, by the line-up as given.
    Single,
}

/// One seat of one table of one deal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeatRecord {
    /// The deal's index in the run.
    pub deal: u64,
    /// The table: the rotation `0..4` (0 in single format), or 4 for the
    /// reference table.
    pub table: u8,
    /// The seat.
    pub seat: u8,
    /// The line-up entry seated there (`0..4`); at the reference table,
    /// the entry whose spec it plays (the first entry of that spec).
    pub entry: u8,
    /// The seat's settlement.
    pub delta: i64,
    /// It won.
    pub won: bool,
    /// It won by self-draw.
    pub self_draw: bool,
    /// It had declared ting at the end.
    pub ting: bool,
    /// It discarded (or konged) the winning tile.
    pub dealt_in: bool,
    /// It paid another seat's share of a win (包胡 / 一包三).
    pub baohu_paid: bool,
    /// An agent decision (anyone's) at the table was illegal.
    pub fault: bool,
    /// At the lone entry's seat of a rotation table of a run that takes
    /// the luck of the wall out ([`arena_with`]): the reference table's
    /// settlement at this seat plus the gains of the lone agent's
    /// departures from greedy, each averaged over shuffles of the undrawn
    /// wall. Its mean is the mean of `delta`; its spread is far smaller.
    pub adjusted: Option<f64>,
}

/// The tables of a line-up: for each, the line-up entry at each seat.
///
/// ```
/// use koudian_core::arena::{tables, Format};
/// let specs = ["mc", "greedy", "greedy", "greedy"].map(String::from);
/// let t = tables(&specs, Format::Duplicate);
/// assert_eq!(t.len(), 5); // four rotations and the reference table
/// assert_eq!(t[1], [3, 0, 1, 2]);
/// assert_eq!(t[4], [1, 1, 1, 1]);
/// ```
pub fn tables(specs: &[String; 4], format: Format) -> Vec<[u8; 4]> {
    if format == Format::Single {
        return vec![[0, 1, 2, 3]];
    }
    let mut t: Vec<[u8; 4]> = (0..4u8)
        .map(|r| std::array::from_fn(|s| (s as u8 + 4 - r) & 3))
        .collect();
    if let Some(reference) = reference_entry(specs) {
        t.push([reference; 4]);
    }
    t
}

/// For a 1-vs-3 line-up, the first entry of the spec given three times.
fn reference_entry(specs: &[String; 4]) -> Option<u8> {
    one_vs_three(specs).map(|(_, three)| three)
}

/// For a 1-vs-3 line-up, the entry of the spec given once and the first
/// entry of the spec given three times.
fn one_vs_three(specs: &[String; 4]) -> Option<(u8, u8)> {
    let count = |s: &String| specs.iter().filter(|x| *x == s).count();
    let three = specs.iter().position(|s| count(s) == 3)?;
    let one = specs.iter().position(|s| count(s) == 1)?;
    Some((one as u8, three as u8))
}

/// Whether the luck of the wall can be taken out of a run of `specs`: a
/// 1-vs-3 line-up whose three-times spec is `"greedy"` (the gains of a
/// departure are played on with greedy at every seat).
///
/// ```
/// use koudian_core::arena::adjustable;
/// assert!(adjustable(&["mc", "greedy", "greedy", "greedy"].map(String::from)));
/// assert!(!adjustable(&["greedy", "random", "random", "random"].map(String::from)));
/// assert!(!adjustable(&["mc", "mc", "greedy", "greedy"].map(String::from)));
/// ```
pub fn adjustable(specs: &[String; 4]) -> bool {
    reference_entry(specs).is_some_and(|e| specs[usize::from(e)] == "greedy")
}

/// Plays the deals `deals` of the run `seed` with the native agents
/// `specs` (built-in specs, [`builtin`]) on `threads` threads (as
/// [`crate::simulate::simulate`]); returns every seat of every table of
/// every deal, deal by deal, table by table, seat by seat.
///
/// ```
/// use koudian_core::arena::{arena, Format};
/// use koudian_core::Ruleset;
/// let specs = ["random", "greedy", "greedy", "greedy"].map(String::from);
/// let r = arena(&Ruleset::shanxi(), &specs, 0..3, 7, 1, Format::Duplicate).unwrap();
/// assert_eq!(r.len(), 3 * 5 * 4);
/// assert!(arena(&Ruleset::shanxi(), &specs, 0..3, 7, 2, Format::Duplicate).unwrap() == r);
/// assert!(r.iter().all(|x| x.adjusted.is_none()));
/// ```
pub fn arena(
    rules: &Ruleset,
    specs: &[String; 4],
    deals: Range<u64>,
    seed: u64,
    threads: usize,
    format: Format,
) -> Result<Vec<SeatRecord>, Error> {
    arena_with(rules, specs, deals, seed, threads, format, 0)
}

/// [`arena`] that, with `walls > 0`, also takes the luck of the wall out
/// ([`luck`]): the lone entry's rows at the rotation tables carry
/// [`SeatRecord::adjusted`], its departures' gains each averaged over
/// `walls` shuffles of the undrawn wall (drawn from the deal's seed and
/// the seat, so the same whatever the thread count). Refused unless the
/// run is in duplicate format and [`adjustable`], or if `walls` exceeds
/// [`MAX_WALLS`].
///
/// ```
/// use koudian_core::arena::{arena, arena_with, Format};
/// use koudian_core::Ruleset;
/// let rules = Ruleset::shanxi();
/// let specs = ["random", "greedy", "greedy", "greedy"].map(String::from);
/// let r = arena_with(&rules, &specs, 0..2, 7, 1, Format::Duplicate, 4).unwrap();
/// let lone: Vec<_> = r.iter().filter(|x| x.table < 4 && x.entry == 0).collect();
/// assert!(lone.iter().all(|x| x.adjusted.is_some()));
/// assert_eq!(r.iter().filter(|x| x.adjusted.is_some()).count(), lone.len());
/// // The hands are the plain run's.
/// let plain = arena(&rules, &specs, 0..2, 7, 1, Format::Duplicate).unwrap();
/// assert!(r.iter().zip(&plain).all(|(a, b)| a.delta == b.delta));
/// let four = ["random", "random", "greedy", "greedy"].map(String::from);
/// assert!(arena_with(&rules, &four, 0..2, 7, 1, Format::Duplicate, 4).is_err());
/// ```
#[allow(clippy::too_many_arguments)]
pub fn arena_with(
    rules: &Ruleset,
    specs: &[String; 4],
    deals: Range<u64>,
    seed: u64,
    threads: usize,
    format: Format,
    walls: u32,
) -> Result<Vec<SeatRecord>, Error> {
    for s in specs {
        builtin(s, 0)?;
    }
    let run = Run {
        rules,
        labels: specs,
        seed,
        format,
        walls,
    };
    let (records, _) = arena_of(
        &run,
        deals,
        threads,
        |e| builtin(&specs[usize::from(e)], 0),
        || (),
    )?;
    Ok(records)
}

/// What an arena run is, beside its agents: the ruleset, the line-up's
/// labels (equal labels are the same agent: they make the tables,
/// [`tables`], and the lone entry of a 1-vs-3 line-up), the master seed,
/// the format and the shuffles of the wall per departure (0: the luck
/// of the wall kept).
#[derive(Clone, Copy, Debug)]
pub struct Run<'a> {
    /// The rules of every hand.
    pub rules: &'a Ruleset,
    /// One label per line-up entry.
    pub labels: &'a [String; 4],
    /// The master seed.
    pub seed: u64,
    /// How the deals are played.
    pub format: Format,
    /// Shuffles of the undrawn wall per departure of the lone agent
    /// ([`arena_with`]); 0 keeps the luck of the wall.
    pub walls: u32,
}

/// The arena of any agents: [`arena_with`] whose line-up entry `e`'s
/// agent at each table is built by `make(e)` (once per table per
/// worker; an agent outside Rust may share one object between them), and
/// whose every hand is also told to a [`Recorder`] per worker (built by
/// `recorder()`) as [`crate::simulate::simulate_recorded`] does: `start`
/// with the hand id `deal * tables + table`, its decisions and faults,
/// and `finish`. Returns the seat records (deal by deal, table by table,
/// seat by seat) and the recorder's hands (deal by deal, table by table),
/// whatever the thread count: one play of each deal gives both, the
/// luck correction too.
///
/// ```
/// use koudian_core::agent::builtin;
/// use koudian_core::arena::{arena, arena_of, Format, Run};
/// use koudian_core::Ruleset;
/// let rules = Ruleset::shanxi();
/// let specs = ["random", "greedy", "greedy", "greedy"].map(String::from);
/// let run = Run { rules: &rules, labels: &specs, seed: 7, format: Format::Duplicate, walls: 0 };
/// let (recs, hands) =
///     arena_of(&run, 0..3, 1, |e| builtin(&specs[usize::from(e)], 0), || ()).unwrap();
/// assert_eq!(recs, arena(&rules, &specs, 0..3, 7, 1, Format::Duplicate).unwrap());
/// assert_eq!(hands.len(), 3 * 5);
/// ```
pub fn arena_of<R, F, M>(
    run: &Run<'_>,
    deals: Range<u64>,
    threads: usize,
    make: F,
    recorder: M,
) -> Result<(Vec<SeatRecord>, Vec<R::Hand>), Error>
where
    R: Recorder,
    F: Fn(u8) -> Result<Box<dyn Agent>, Error> + Sync,
    M: Fn() -> R + Sync,
{
    let &Run {
        rules,
        labels: specs,
        seed,
        format,
        walls,
    } = run;
    rules.validate()?;
    if walls > MAX_WALLS {
        return Err(Error::InvalidArgument(format!(
            "walls = {walls}: at most {MAX_WALLS} shuffles of the wall per departure"
        )));
    }
    if walls > 0 && (format != Format::Duplicate || !adjustable(specs)) {
        return Err(Error::InvalidArgument(format!(
            "the luck of the wall is taken out only of a duplicate 1-vs-3 run against three \"greedy\" (got {specs:?}, {format:?} format)"
        )));
    }
    // The lone entry, when its rows are adjusted.
    let lone = one_vs_three(specs)
        .filter(|_| walls > 0)
        .map(|(one, _)| one);
    let layout = tables(specs, format);
    let n_tables = layout.len() as u64;
    let workers = Workers::new(threads)?;
    type Seats = [Box<dyn Agent>; 4];
    type Worker<R> = Result<(Vec<Seats>, Departures, R), Error>;
    let init = || -> Worker<R> {
        let tables = layout
            .iter()
            .map(|t| Ok([make(t[0])?, make(t[1])?, make(t[2])?, make(t[3])?]))
            .collect::<Result<_, Error>>()?;
        Ok((
            tables,
            Departures::with(luck::Walls::Shuffled(walls)),
            recorder(),
        ))
    };
    type Deal<H> = (Vec<SeatRecord>, Vec<H>);
    let one = |worker: &mut Worker<R>, d: u64| -> Result<Deal<R::Hand>, Error> {
        let (agents, watch, rec) = worker.as_mut().map_err(|e| e.clone())?;
        let (game_seed, dealer) = deal_of(seed, d);
        let mut out = Vec::with_capacity(layout.len() * 4);
        let mut hands = Vec::with_capacity(layout.len());
        // The lone rows' indices in `out` and their departures' gains.
        let mut gains: Vec<(usize, f64)> = Vec::new();
        for (ti, (seats, entries)) in agents.iter_mut().zip(&layout).enumerate() {
            let lone_seat = lone
                .filter(|_| ti < 4)
                .and_then(|e| entries.iter().position(|&x| x == e));
            let mut g = Game::new(rules, game_seed, Some(dealer))?;
            g.set_recording(rec.wants_events());
            rec.start(d * n_tables + ti as u64, &g);
            reset_agents(seats, game_seed);
            let (decisions, fault) = match lone_seat {
                Some(s) => {
                    watch.begin(s as u8, luck_seed(game_seed, s as u8));
                    let played = play_out(&mut g, seats, &mut Both(watch, rec))?;
                    gains.push((out.len() + s, watch.gain()));
                    played
                }
                None => play_out(&mut g, seats, rec)?,
            };
            let summary = HandSummary::of(&g, decisions, fault)?;
            out.extend(SeatRecord::of(
                &g,
                &summary,
                d,
                table_of(format, ti),
                entries,
            ));
            hands.push(rec.finish(&g, summary));
        }
        // The reference table is the last: its settlement at the lone
        // seat plus the departures' gains.
        let reference = out.len().saturating_sub(4);
        for (i, gain) in gains {
            let seat = usize::from(out[i].seat);
            out[i].adjusted = Some(out[reference + seat].delta as f64 + gain);
        }
        Ok((out, hands))
    };
    let per_deal: Vec<Deal<R::Hand>> = match workers {
        Workers::Caller => {
            let mut w = init();
            deals.map(|d| one(&mut w, d)).collect::<Result<_, _>>()?
        }
        _ => workers.install(|| {
            deals
                .into_par_iter()
                .map_init(init, one)
                .collect::<Result<_, _>>()
        })?,
    };
    let mut records = Vec::with_capacity(per_deal.iter().map(|x| x.0.len()).sum());
    let mut hands = Vec::with_capacity(per_deal.iter().map(|x| x.1.len()).sum());
    for (r, h) in per_deal {
        records.extend(r);
        hands.extend(h);
    }
    Ok((records, hands))
}

/// The record's table number of rotation `ti`: 0 in single format.
fn table_of(format: Format, ti: usize) -> u8 {
    if format == Format::Duplicate {
        ti as u8
    } else {
        0
    }
}

impl SeatRecord {
    /// The four seat records of the finished table `g` of deal `deal`
    /// (table `table`, line-up entry `entries[s]` at seat `s`): the one
    /// statement of how a hand's end makes the arena's per-seat record
    /// (`adjusted` left `None`; the arena sets it).
    pub fn of(
        g: &Game,
        summary: &HandSummary,
        deal: u64,
        table: u8,
        entries: &[u8; 4],
    ) -> [SeatRecord; 4] {
        let covered = |s: usize| {
            g.settlement().is_some_and(|st| {
                st.payments.iter().any(|p| {
                    usize::from(p.payer) == s
                        && matches!(p.reason, PaymentReason::WinCovered { .. })
                })
            })
        };
        let r = summary;
        let any_win = r.winners.iter().any(|&w| w);
        std::array::from_fn(|s| SeatRecord {
            deal,
            table,
            seat: s as u8,
            entry: entries[s],
            delta: r.deltas[s],
            won: r.winners[s],
            self_draw: r.winners[s] && r.self_draw,
            ting: r.ting[s],
            dealt_in: any_win && !r.self_draw && r.from == Some(s as u8),
            baohu_paid: covered(s),
            fault: r.agent_fault,
            adjusted: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line-up entry sits at every seat exactly once per deal in
    /// duplicate format, and the reference table exists only for 1 vs 3.
    #[test]
    fn the_rotation_covers_each_seat_once_per_deal() {
        let lineups = [
            (["mc", "greedy", "greedy", "greedy"], 5),
            (["greedy", "random", "greedy", "greedy"], 5),
            (["a", "b", "c", "d"], 4),
            (["a", "a", "b", "b"], 4),
            (["a", "a", "a", "a"], 4),
        ];
        for (l, n_tables) in lineups {
            let specs = l.map(String::from);
            let t = tables(&specs, Format::Duplicate);
            for entry in 0..4u8 {
                for seat in 0..4 {
                    let n = t[..4].iter().filter(|tb| tb[seat] == entry).count();
                    assert_eq!(n, 1, "{l:?} entry {entry} seat {seat}");
                }
            }
            assert_eq!(t.len(), n_tables, "{l:?}");
        }
        // And the records of a run follow the layout.
        let specs = ["random", "greedy", "greedy", "greedy"].map(String::from);
        let recs = arena(&Ruleset::sichuan(), &specs, 0..4, 3, 2, Format::Duplicate).unwrap();
        for d in 0..4u64 {
            for entry in 0..4u8 {
                let seats: Vec<u8> = recs
                    .iter()
                    .filter(|r| r.deal == d && r.table < 4 && r.entry == entry)
                    .map(|r| r.seat)
                    .collect();
                let mut sorted = seats.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, [0, 1, 2, 3], "deal {d} entry {entry}");
            }
        }
    }

    /// Tables of the same agents play exactly the same hands (the seeds
    /// depend on the deal and the seat, not the table): every difference
    /// is 0, even for random agents.
    #[test]
    fn an_agent_against_itself_differs_by_exactly_zero() {
        let specs = ["random", "random", "random", "random"].map(String::from);
        let recs = arena(&Ruleset::shanxi(), &specs, 0..20, 5, 1, Format::Duplicate).unwrap();
        for d in 0..20u64 {
            let at = |t: u8, s: u8| {
                recs.iter()
                    .find(|r| r.deal == d && r.table == t && r.seat == s)
                    .unwrap()
                    .delta
            };
            for t in 1..4 {
                for s in 0..4 {
                    assert_eq!(at(0, s), at(t, s));
                }
            }
        }
    }

    /// The per-deal advantage of the lone entry (entry 0) over the
    /// reference table: its delta minus the reference's in the same seat,
    /// summed over the rotations.
    fn advantages(recs: &[SeatRecord], deals: u64) -> Vec<i64> {
        (0..deals)
            .map(|d| {
                let at = |t: u8, s: u8| {
                    recs.iter()
                        .find(|r| r.deal == d && r.table == t && r.seat == s)
                        .unwrap()
                };
                (0..4)
                    .map(|t| {
                        let lone = (0..4).map(|s| at(t, s)).find(|r| r.entry == 0).unwrap();
                        lone.delta - at(4, lone.seat).delta
                    })
                    .sum()
            })
            .collect()
    }

    /// Common random numbers hold: `mc:top=1` plays greedy's choice at
    /// every decision (its only candidate), so against three greedy it
    /// plays the reference table's hands exactly: every deal's advantage
    /// is 0, not just their mean; and four greedy agents play the same
    /// hand at every rotation, which is the reference table's.
    #[test]
    fn an_agent_equal_to_the_reference_differs_by_exactly_zero() {
        for rules in [Ruleset::shanxi(), Ruleset::linxian(), Ruleset::sichuan()] {
            let specs = ["mc:top=1", "greedy", "greedy", "greedy"].map(String::from);
            let recs = arena(&rules, &specs, 0..12, 9, 2, Format::Duplicate).unwrap();
            assert!(recs.iter().any(|r| r.delta != 0));
            assert_eq!(advantages(&recs, 12), vec![0; 12]);
            // Four greedy: every rotation is the same hand, seat by seat,
            // and it is the reference table of the 1-vs-3 run.
            let greedy = ["greedy"; 4].map(String::from);
            let all = arena(&rules, &greedy, 0..12, 9, 1, Format::Duplicate).unwrap();
            for r in &all {
                let reference = recs
                    .iter()
                    .find(|x| x.deal == r.deal && x.table == 4 && x.seat == r.seat)
                    .unwrap();
                assert_eq!(
                    r.delta, reference.delta,
                    "deal {} table {}",
                    r.deal, r.table
                );
            }
        }
    }

    /// The lone agent's per-deal advantage over the reference table, as
    /// played and with the luck of the wall taken out.
    fn luck_run(lone: &str, n: u64, walls: u32) -> (Vec<f64>, Vec<f64>) {
        let rules = Ruleset::shanxi();
        let specs = [lone, "greedy", "greedy", "greedy"].map(String::from);
        let recs = arena_with(&rules, &specs, 0..n, 3, 2, Format::Duplicate, walls).unwrap();
        let again = arena_with(&rules, &specs, 0..4, 3, 1, Format::Duplicate, walls).unwrap();
        assert!(recs[..again.len()] == again[..]);
        let plain = arena(&rules, &specs, 0..n, 3, 2, Format::Duplicate).unwrap();
        assert!(recs.iter().zip(&plain).all(|(a, b)| a.delta == b.delta));
        let (mut raw, mut adj) = (vec![0.0; n as usize], vec![0.0; n as usize]);
        for r in &recs {
            assert_eq!(r.adjusted.is_some(), r.table < 4 && r.entry == 0);
            if let Some(a) = r.adjusted {
                let reference = recs
                    .iter()
                    .find(|x| x.deal == r.deal && x.table == 4 && x.seat == r.seat)
                    .unwrap()
                    .delta as f64;
                raw[r.deal as usize] += r.delta as f64 - reference;
                adj[r.deal as usize] += a - reference;
            }
        }
        (raw, adj)
    }

    fn mean(v: &[f64]) -> f64 {
        v.iter().sum::<f64>() / v.len() as f64
    }

    fn var(v: &[f64]) -> f64 {
        let m = mean(v);
        v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64
    }

    /// The luck of the wall taken out keeps the mean: over the same deals
    /// the adjusted advantage and the played one differ by less than three
    /// standard errors of their paired difference. Random play departs
    /// from greedy at almost every decision, so every one of its gains is
    /// checked this way; the rows carry the adjusted value only at the
    /// lone seat of the rotation tables, the same with any thread count.
    #[test]
    fn the_luck_of_the_wall_keeps_the_mean() {
        let (raw, adj) = luck_run("random", 48, 8);
        let diff: Vec<f64> = raw.iter().zip(&adj).map(|(a, b)| a - b).collect();
        let se = (var(&diff) / diff.len() as f64).sqrt();
        assert!(mean(&raw) < 0.0, "random loses to greedy: {}", mean(&raw));
        assert!(
            mean(&diff).abs() < 3.0 * se,
            "{} vs {} (se {se})",
            mean(&raw),
            mean(&adj)
        );
    }

    /// For a search agent, whose few departures each change the rest of
    /// its hand, the luck taken out narrows the spread of the advantage.
    #[test]
    fn the_luck_of_the_wall_taken_out_narrows_a_search_agents_spread() {
        let (raw, adj) = luck_run("mc:budget=fast", 40, 16);
        assert!(raw.iter().any(|&x| x != 0.0));
        assert!(
            var(&adj) < 0.6 * var(&raw),
            "{} vs {}",
            var(&adj),
            var(&raw)
        );
    }

    /// Where the luck cannot be taken out, the run is refused, not played
    /// plain: no reference of four greedy, single format, too many walls.
    #[test]
    fn the_luck_of_the_wall_is_refused_where_it_cannot_be_taken_out() {
        let rules = Ruleset::shanxi();
        let one_vs_greedy = ["random", "greedy", "greedy", "greedy"].map(String::from);
        for (specs, format, walls) in [
            (
                ["greedy", "random", "random", "random"].map(String::from),
                Format::Duplicate,
                4,
            ),
            (
                ["random", "random", "greedy", "greedy"].map(String::from),
                Format::Duplicate,
                4,
            ),
            (one_vs_greedy.clone(), Format::Single, 4),
            (one_vs_greedy.clone(), Format::Duplicate, MAX_WALLS + 1),
        ] {
            let e = arena_with(&rules, &specs, 0..1, 1, 1, format, walls).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
        }
    }
}
