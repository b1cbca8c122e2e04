//! Soak: thousands of seeded random games per preset, checking the table's
//! invariants after every step (docs/rules.md §6): tile conservation, no fifth
//! copy, hand sizes, observations never leak hidden tiles, zero-sum
//! settlements the scorer accepts, replay equal to the original, and
//! determinism across thread counts.

mod common;
use common::presets;

use koudian_core::agent::{Agent, RandomAgent, SeatView};
use koudian_core::game::{replay, Action, Game, Phase, Prng};
use koudian_core::ruleset::Ruleset;
use koudian_core::shanten::shanten_counts;
use koudian_core::shape::{is_win, ShapeRules};
use koudian_core::simulate::simulate;
use koudian_core::Wildcards;
use koudian_core::{MeldKind, Tile};

/// Brute-force reference for the legal ting declarations (no wildcards):
/// discarding `k` leaves a hand that some natural kind (fewer than 4
/// held, melds included) completes, worth `ting_min_points` or more.
fn reference_ting(g: &Game, seat: u8) -> Vec<Action> {
    let rules = g.rules();
    let shape = ShapeRules::from(rules);
    let h = g.hand(seat);
    let kinds = rules.tile_total() / 4;
    let mut out = Vec::new();
    for k in 0..34 {
        if h.concealed[k] == 0 {
            continue;
        }
        let mut rest = *h;
        rest.concealed[k] -= 1;
        let all = rest.all_counts();
        let ok = (0..kinds).any(|j| {
            let mut c = rest.concealed;
            c[j] += 1;
            all[j] < 4
                && Tile::new(j as u8).unwrap().points() >= rules.ting_min_points
                && is_win(&c, rest.n_melds(), &Wildcards::NONE, &shape)
        });
        if ok {
            out.push(Action::Ting(Tile::new(k as u8).unwrap()));
        }
    }
    out
}

static TING_SEEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn check_invariants(g: &Game, name: &str) {
    if let (
        Phase::Turn {
            seat,
            last_live: false,
            ..
        },
        true,
    ) = (g.phase(), g.wilds().is_empty())
    {
        if g.rules().ting_required && !g.is_ting(seat) {
            let legal: Vec<Action> = g
                .legal_actions()
                .iter()
                .filter(|a| matches!(a, Action::Ting(_)))
                .collect();
            assert_eq!(legal, reference_ting(g, seat), "{name}: ting declarations");
            if !legal.is_empty() {
                TING_SEEN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }
    let rules = g.rules();
    let kinds = rules.tile_total() / 4;
    let census = g.tile_census();
    for (k, &n) in census.iter().enumerate() {
        let want = if k < kinds { 4 } else { 0 };
        assert_eq!(n, want, "{name}: {} copies of kind {k} accounted for", n);
    }
    for s in 0..4u8 {
        let h = g.hand(s);
        assert!(h.all_counts().iter().all(|&n| n <= 4), "{name}: fifth copy");
        let size = h.tile_count() + 3 * h.n_melds();
        let acting = matches!(g.phase(), Phase::Turn { seat, .. } if seat == s);
        let want = if acting && !g.is_over() { 14 } else { 13 };
        if !g.is_over() {
            assert_eq!(size, want, "{name}: seat {s} holds {size} tiles");
        }
        // Observations: own tiles only, hidden things hidden.
        let o = g.observe(s);
        assert_eq!(o.concealed, h.concealed);
        for t in 0..4u8 {
            assert_eq!(
                o.concealed_count[t as usize] as usize,
                g.hand(t).tile_count()
            );
        }
        for d in o.discards() {
            if d.face_down && d.seat != s {
                assert_eq!(d.tile, None, "{name}: face-down discard leaked");
            }
        }
        for (t, melds) in o.melds.iter().enumerate() {
            for m in melds.iter().flatten() {
                if rules.hide_concealed_kong
                    && t as u8 != s
                    && m.kind == MeldKind::ConcealedKong
                    && !g.is_over()
                {
                    assert_eq!(m.tile, None, "{name}: concealed kong kind leaked");
                }
            }
        }
        assert!(o.visible_counts().iter().all(|&n| n <= 4));
        assert_eq!(o.legal, g.legal_actions_for(s));
    }
    if let Some(a) = g.to_act() {
        assert!(
            !g.legal_actions().is_empty(),
            "{name}: seat {a} to act with no legal action"
        );
    }
}

/// A test agent that reaches wins, kongs and robbed kongs often: it wins
/// and declares whenever it may, konges, pongs half the time, and
/// otherwise discards a tile that keeps its shanten lowest (random ties).
struct Eager(Prng);

impl Agent for Eager {
    fn act(&mut self, view: &SeatView<'_>) -> Action {
        let legal = view.legal();
        let o = view.observation();
        for a in legal.iter() {
            if matches!(
                a,
                Action::Win
                    | Action::Ting(_)
                    | Action::ConcealedKong(_)
                    | Action::AddedKong(_)
                    | Action::Kong
            ) {
                return a;
            }
        }
        if legal.contains(Action::Pong) && self.0.below(2) == 0 {
            return Action::Pong;
        }
        let mut best = (i8::MAX, Vec::new());
        let melds = o.melds[o.seat as usize].iter().flatten().count();
        for a in legal.iter() {
            if let Action::Discard(t) = a {
                let mut c = o.concealed;
                c[t.index()] -= 1;
                let sh = shanten_counts(&c, melds, &o.wilds, &ShapeRules::ALL).unwrap_or(8);
                if sh < best.0 {
                    best = (sh, vec![a]);
                } else if sh == best.0 {
                    best.1.push(a);
                }
            }
        }
        if best.1.is_empty() {
            return if legal.contains(Action::Pass) {
                Action::Pass
            } else {
                legal.iter().next().unwrap()
            };
        }
        best.1[self.0.below(best.1.len() as u32) as usize]
    }
}

fn play(rules: &Ruleset, seed: u64, name: &str, check_each: bool) -> Game {
    play_with(rules, seed, name, check_each, false)
}

fn play_with(rules: &Ruleset, seed: u64, name: &str, check_each: bool, eager: bool) -> Game {
    let mut g = Game::new(rules, seed, Some((seed % 4) as u8)).unwrap();
    let mut agents: Vec<Box<dyn Agent>> = (0..4)
        .map(|s| -> Box<dyn Agent> {
            if eager {
                Box::new(Eager(Prng::new(seed * 4 + s)))
            } else {
                Box::new(RandomAgent::new(seed * 4 + s))
            }
        })
        .collect();
    check_invariants(&g, name);
    let mut steps = 0;
    while let Some(seat) = g.to_act() {
        let a = agents[seat as usize].act(&SeatView::new(&g, seat));
        g.step(a).unwrap();
        if check_each {
            check_invariants(&g, name);
        }
        steps += 1;
        assert!(steps < 1000, "{name}: hand does not end");
    }
    check_invariants(&g, name);
    let r = g.result().unwrap();
    assert!(
        g.settlement_error().is_none(),
        "{name} seed {seed}: scorer refused the hand: {}\n{}",
        g.settlement_error().unwrap(),
        g.log()
    );
    assert_eq!(r.deltas.iter().sum::<i64>(), 0, "{name}: not zero-sum");
    g
}

#[test]
fn soak_every_preset_keeps_invariants_after_every_step() {
    for (name, rules) in presets() {
        let mut wins = 0;
        let n = 200;
        let mut eager_wins = 0;
        let mut kongs = 0;
        for seed in 0..n {
            let g = play(&rules, seed, name, seed < 100);
            if g.result().unwrap().kind == koudian_core::game::EndKind::Win {
                wins += 1;
            }
            let g = play_with(&rules, seed, name, seed < 100, true);
            if g.result().unwrap().kind == koudian_core::game::EndKind::Win {
                eager_wins += 1;
            }
            kongs += g.kong_list().len();
        }
        eprintln!("{name}: random {wins}/{n} won; eager {eager_wins}/{n} won, {kongs} kongs");
    }
    let seen = TING_SEEN.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("states with a legal ting declaration checked: {seen}");
    assert!(seen > 100);
}

#[test]
fn soak_replay_reproduces_the_log_byte_for_byte() {
    for (name, rules) in presets() {
        for seed in 0..60 {
            let g = play_with(&rules, seed, name, false, seed % 2 == 0);
            let log = g.log();
            let r = replay(&log).unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            assert_eq!(r.log(), log);
            let again = play_with(&rules, seed, name, false, seed % 2 == 0);
            assert_eq!(
                again.log(),
                log,
                "{name}: same seed and actions, different log"
            );
        }
    }
}

#[test]
fn simulate_is_independent_of_thread_count() {
    for (_, rules) in presets() {
        let mk = |s: usize| -> Box<dyn Agent> { Box::new(RandomAgent::new(s as u64)) };
        let a = simulate(&rules, 200, 11, 1, mk).unwrap();
        let b = simulate(&rules, 200, 11, 2, mk).unwrap();
        assert_eq!(a, b);
        assert!(a
            .iter()
            .all(|h| h.deltas.iter().sum::<i64>() == 0 && !h.agent_fault));
    }
}

#[test]
fn tiles_are_conserved_in_the_108_tile_game() {
    let g = play(&Ruleset::sichuan(), 5, "sichuan", true);
    assert!(g.wall().tiles().iter().all(|t: &Tile| !t.is_honor()));
}
