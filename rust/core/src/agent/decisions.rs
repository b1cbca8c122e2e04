//! The greedy agent's recorded decisions (`tests/data/greedy_decisions.txt`):
//! the hands they were recorded on, the file's format, its generator and
//! the check that an agent still decides exactly so.
//!
//! The file was written by the plain agent of before the restructure
//! (`greedy_reference.rs`, the unoptimized agent of commit 1117afd) with
//! `cargo test -p koudian-core --lib record_greedy_decisions -- --ignored`,
//! and is never rewritten for a policy change by accident: a change of
//! the policy shows as a failing check, and is recorded again on purpose.
//!
//! # Format
//!
//! Lines starting with `#` are comments. Every other line is one hand:
//!
//! ```text
//! PRESET MIX SEED: A A A ...
//! ```
//!
//! * `PRESET`: a name of [`rulesets`];
//! * `MIX`: `0` all four seats greedy, `1` seat 0 greedy and seat `s` of
//!   1-3 `RandomAgent::new(SEED * 4 + s)` (as `tests/agent_greedy.rs`);
//! * `SEED`: the deal seed; the dealer is seat `SEED % 4`;
//! * `A`: each greedy decision of the hand in order, as
//!   [`Action::index`]. The hand is played with these actions (and the
//!   random seats' own), so it replays the same whatever the agent under
//!   test decides.
#![cfg(test)]

use crate::agent::{Agent, RandomAgent, SeatView};
use crate::game::{Action, Game};
use crate::ruleset::{PassScope, Ruleset};

/// Where the record lives, from the crate's root.
pub(crate) const PATH: &str = "tests/data/greedy_decisions.txt";

/// Hands per preset and mix.
const HANDS: u64 = 150;

/// The rulesets of the record by name: the six shipped presets' table
/// variants and Shanxi with every shape and claim option on.
pub(crate) fn rulesets() -> Vec<(&'static str, Ruleset)> {
    let mut options = Ruleset::shanxi();
    options.must_win = true;
    options.pass_scope = PassScope::Tile;
    options.kong_after_pong = true;
    options.kong_keeps_waits = true;
    options.wind_sets = true;
    options.special_hands = true;
    let shipped = [
        "shanxi",
        "shanxi-haozi",
        "shanxi-feng-haozi",
        "shanxi-double-haozi",
        "linxian",
        "sichuan",
    ];
    let mut v: Vec<(&'static str, Ruleset)> = shipped
        .into_iter()
        .map(|name| (name, Ruleset::preset(name).expect("a shipped preset")))
        .collect();
    v.push(("shanxi-options", options));
    v
}

/// Plays one hand of the record: `decide` is asked at every greedy
/// decision and returns the action to play (the recorded one when
/// checking, its own when recording).
pub(crate) fn play(
    rules: &Ruleset,
    mix: u8,
    seed: u64,
    mut decide: impl FnMut(&SeatView<'_>, usize) -> Action,
) {
    let mut g = Game::new(rules, seed, Some((seed % 4) as u8)).unwrap();
    g.set_recording(false);
    let mut random = [1, 2, 3].map(|s| RandomAgent::new(seed * 4 + s));
    let mut i = 0;
    while let Some(seat) = g.to_act() {
        let view = SeatView::new(&g, seat);
        let act = if mix == 0 || seat == 0 {
            i += 1;
            decide(&view, i - 1)
        } else {
            random[seat as usize - 1].act(&view)
        };
        g.step(act).unwrap();
    }
}

/// The hands of the record, in the file's order.
fn hands() -> impl Iterator<Item = (&'static str, Ruleset, u8, u64)> {
    rulesets().into_iter().flat_map(|(name, rules)| {
        (0..2u8).flat_map(move |mix| {
            let rules = rules.clone();
            (0..HANDS).map(move |seed| (name, rules.clone(), mix, seed))
        })
    })
}

/// One parsed hand line.
pub(crate) struct Hand {
    pub preset: String,
    pub mix: u8,
    pub seed: u64,
    pub actions: Vec<Action>,
}

/// The record, parsed.
pub(crate) fn load() -> Vec<Hand> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(PATH);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (head, acts) = l.split_once(':').expect("PRESET MIX SEED: ...");
            let mut head = head.split_whitespace();
            let mut next = || head.next().expect("PRESET MIX SEED");
            Hand {
                preset: next().to_string(),
                mix: next().parse().expect("MIX"),
                seed: next().parse().expect("SEED"),
                actions: acts
                    .split_whitespace()
                    .map(|a| Action::from_index(a.parse().expect("action index")).unwrap())
                    .collect(),
            }
        })
        .collect()
}

/// Checks that `make_agent()`'s agents (one per seat, reused across every
/// hand, as in `simulate`) decide every recorded decision alike; the
/// number of decisions checked.
pub(crate) fn check<A: Agent>(mut make_agent: impl FnMut(u64) -> A) -> u64 {
    let record = load();
    let rules: std::collections::HashMap<_, _> = rulesets().into_iter().collect();
    let mut agents = [0, 1, 2, 3].map(&mut make_agent);
    let mut checked = 0;
    for h in &record {
        let r = &rules[h.preset.as_str()];
        for (s, a) in agents.iter_mut().enumerate() {
            a.reset(h.seed + s as u64);
        }
        play(r, h.mix, h.seed, |view, i| {
            let want = h.actions[i];
            let got = agents[view.seat() as usize].act(view);
            assert_eq!(
                got,
                want,
                "{} mix {} seed {} decision {i} (seat {})",
                h.preset,
                h.mix,
                h.seed,
                view.seat()
            );
            checked += 1;
            want
        });
    }
    assert_eq!(record.len() as u64, rulesets().len() as u64 * 2 * HANDS);
    checked
}

/// Writes the record with `make_agent`'s agents.
pub(crate) fn record<A: Agent>(mut make_agent: impl FnMut(u64) -> A) {
    use std::fmt::Write;
    let mut out = String::from(
        "# The greedy agent's decisions on seeded hands: format and generator in\n\
         # rust/core/src/agent/decisions.rs (PRESET MIX SEED: action indices).\n",
    );
    for (name, rules, mix, seed) in hands() {
        let mut agents = [0, 1, 2, 3].map(|s| make_agent(seed + s));
        write!(out, "{name} {mix} {seed}:").unwrap();
        play(&rules, mix, seed, |view, _| {
            let a = agents[view.seat() as usize].act(view);
            write!(out, " {}", a.index()).unwrap();
            a
        });
        out.push('\n');
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(PATH);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, out).unwrap();
}
