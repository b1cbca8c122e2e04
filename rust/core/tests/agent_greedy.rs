//! The greedy baseline agent (issue 6): every behaviour its docs promise,
//! checked decision by decision in seeded self-play against simple
//! references written here from public information only (the shanten and
//! waits APIs, observations), plus the margin over random play.

mod common;
use common::presets;

use koudian_core::agent::{builtin, Agent, GreedyAgent, RandomAgent, SeatView};
use koudian_core::game::{Action, Game, Observation, Phase};
use koudian_core::ruleset::{Family, Ruleset};
use koudian_core::shanten::shanten_counts;
use koudian_core::shape::ShapeRules;
use koudian_core::simulate::{simulate, HandSummary};
use koudian_core::waits::waits_counts;
use koudian_core::{Counts, Tile};

// ---------------------------------------------------------------------------
// Simple references, from the seat's observation only.

fn shape_rules(r: &Ruleset) -> ShapeRules {
    ShapeRules::from(r)
}

fn n_melds(o: &Observation) -> usize {
    o.melds[o.seat as usize].iter().flatten().count()
}

fn own_held(o: &Observation) -> Counts {
    let mut c = o.concealed;
    for m in o.melds[o.seat as usize].iter().flatten() {
        c[m.tile.unwrap().index()] += m.kind.size();
    }
    c
}

/// Sichuan 缺一门 reference: fewest tiles among suits without a meld.
fn void_suit(o: &Observation, g: &Game) -> Option<usize> {
    if g.rules().family != Family::Sichuan {
        return None;
    }
    (0..3)
        .filter(|&s| {
            !o.melds[o.seat as usize]
                .iter()
                .flatten()
                .any(|m| m.tile.unwrap().index() / 9 == s)
        })
        .min_by_key(|&s| (o.concealed[9 * s..9 * s + 9].iter().sum::<u8>(), s))
}

/// Whether the hand still holds tiles of the Sichuan void suit.
fn holds_void(o: &Observation, g: &Game) -> bool {
    void_suit(o, g).is_some_and(|v| o.concealed[9 * v..9 * v + 9].iter().any(|&n| n > 0))
}

fn shanten(g: &Game, c: &Counts, melds: usize) -> i8 {
    shanten_counts(c, melds, &g.wilds(), &shape_rules(g.rules())).unwrap()
}

/// Shanten as the agent must rank discards: in the Koudian families a
/// ready hand that reached the plain discard path cannot declare (a ting
/// discard would have been legal), so it counts as 1.
fn ranked_shanten(g: &Game, o: &Observation, c: &Counts) -> i8 {
    let sh = shanten(g, c, n_melds(o));
    if g.rules().ting_required {
        sh.max(1)
    } else {
        sh
    }
}

fn unseen(o: &Observation, g: &Game) -> Counts {
    let vis = o.visible_counts();
    let kinds = g.rules().tile_total() / 4;
    let mut u = [0u8; 34];
    for k in 0..kinds {
        u[k] = 4 - vis[k].min(4);
    }
    u
}

/// Kinds each declared opponent has let pass (discarded face up by
/// another seat after its declaration).
fn passed(o: &Observation) -> [u64; 4] {
    let mut declared = [false; 4];
    let mut p = [0u64; 4];
    for d in o.discards() {
        if d.face_down {
            declared[d.seat as usize] = true;
        } else if let Some(t) = d.tile {
            for s in 0..4 {
                if declared[s] && s != d.seat as usize {
                    p[s] |= 1 << t.index();
                }
            }
        }
    }
    p
}

/// Whether a face-up discard of `t` is safe against every declared
/// opponent, by the rules the agent documents.
fn safe(o: &Observation, g: &Game, t: Tile) -> bool {
    let r = g.rules();
    let (_, min_discard) = r.point_rule.minimums();
    if t.points() < min_discard || g.wilds().is_wild(t) {
        return true;
    }
    let p = passed(o);
    let all_seen = o.visible_counts()[t.index()] >= 4;
    (0..4).all(|s| {
        if s == o.seat as usize || !o.ting[s] {
            return true;
        }
        let melds: Vec<_> = o.melds[s].iter().flatten().collect();
        p[s] >> t.index() & 1 == 1
            || melds.iter().any(|m| m.kind.is_kong() && m.tile == Some(t))
            || (t.is_honor()
                && !r.wind_sets
                && g.wilds().is_empty()
                && all_seen
                && (!r.thirteen_orphans || !melds.is_empty()))
    })
}

// ---------------------------------------------------------------------------
// Seeded play with per-decision checks.

/// Which seats are greedy in a table of `mix`: 0 = all four, else seat 0
/// greedy and the rest random.
fn agents(mix: u8, seed: u64) -> Vec<Box<dyn Agent>> {
    (0..4u64)
        .map(|s| -> Box<dyn Agent> {
            if mix == 0 || s == 0 {
                Box::new(GreedyAgent::new(seed + s))
            } else {
                Box::new(RandomAgent::new(seed * 4 + s))
            }
        })
        .collect()
}

#[derive(Default, Debug)]
struct Tally {
    decisions: u64,
    discards_checked: u64,
    tings: u64,
    wins: u64,
    pongs: u64,
    defended: u64,
}

/// Plays one hand, calling `check` before each greedy decision.
fn play(rules: &Ruleset, seed: u64, mix: u8, mut check: impl FnMut(&Game, u8, Action)) -> Game {
    let mut g = Game::new(rules, seed, Some((seed % 4) as u8)).unwrap();
    g.set_recording(false);
    let mut a = agents(mix, seed);
    let mut steps = 0;
    while let Some(seat) = g.to_act() {
        let act = a[seat as usize].act(&SeatView::new(&g, seat));
        if mix == 0 || seat == 0 {
            check(&g, seat, act);
        }
        g.step(act)
            .unwrap_or_else(|e| panic!("seed {seed} seat {seat}: {e}"));
        steps += 1;
        assert!(steps < 1000, "hand does not end");
    }
    assert!(g.settlement_error().is_none());
    assert_eq!(g.result().unwrap().deltas.iter().sum::<i64>(), 0);
    g
}

/// Every promise of the agent, checked at one decision.
fn check_decision(g: &Game, seat: u8, act: Action, t: &mut Tally) {
    let legal = g.legal_actions();
    assert!(legal.contains(act), "illegal {act} (legal {legal:?})");
    assert_ne!(act, Action::Leave, "the greedy agent never leaves");
    t.decisions += 1;
    // Wins whenever allowed.
    if legal.contains(Action::Win) {
        assert_eq!(act, Action::Win, "greedy must take a legal win");
        t.wins += 1;
        return;
    }
    let o = g.observe(seat);
    let rules = g.rules();
    let wild = |t: Tile| g.wilds().is_wild(t);
    let ting_options: Vec<Tile> = legal
        .iter()
        .filter_map(|a| match a {
            Action::Ting(t) => Some(t),
            _ => None,
        })
        .collect();
    let kong_taken = matches!(
        act,
        Action::ConcealedKong(_) | Action::AddedKong(_) | Action::Kong
    );
    // Declares ting as soon as allowed (unless it kongs first), with the
    // wait holding the most live winning copies, non-wild discards first.
    if !ting_options.is_empty() && !kong_taken {
        let Action::Ting(chosen) = act else {
            panic!("ting was legal ({ting_options:?}) but greedy played {act}");
        };
        t.tings += 1;
        let u = unseen(&o, g);
        let (min_self, _) = rules.point_rule.minimums();
        let live = |d: Tile| -> u32 {
            let mut c = o.concealed;
            c[d.index()] -= 1;
            let mut held = own_held(&o);
            held[d.index()] -= 1;
            let w = waits_counts(&c, &held, n_melds(&o), &g.wilds(), &shape_rules(rules));
            w.iter()
                .filter(|&(_, p)| p >= min_self)
                .map(|(x, _)| u[x.index()] as u32)
                .sum()
        };
        let any_natural = ting_options.iter().any(|&d| !wild(d));
        assert!(!any_natural || !wild(chosen), "ting discarded a wild tile");
        let best = ting_options
            .iter()
            .filter(|&&d| wild(d) == wild(chosen))
            .map(|&d| live(d))
            .max()
            .unwrap();
        assert_eq!(live(chosen), best, "ting wait is not the liveliest");
        return;
    }
    match (g.phase(), act) {
        (Phase::Respond { tile, .. }, Action::Pong) => {
            // Pongs only when it lowers the shanten.
            t.pongs += 1;
            assert!(!g.is_ting(seat));
            if holds_void(&o, g) {
                assert_ne!(Some(tile.index() / 9), void_suit(&o, g));
                return;
            }
            let now = shanten(g, &o.concealed, n_melds(&o));
            let mut after = o.concealed;
            after[tile.index()] -= 2;
            let mut best = i8::MAX;
            for k in 0..34 {
                if after[k] > 0 && !wild(Tile::new(k as u8).unwrap()) {
                    let mut e = after;
                    e[k] -= 1;
                    best = best.min(shanten(g, &e, n_melds(&o) + 1));
                }
            }
            assert!(
                best < now,
                "pong of {tile} does not lower shanten {now} -> {best}"
            );
        }
        (Phase::Turn { .. }, Action::Discard(d)) if !g.is_ting(seat) => {
            let cands: Vec<Tile> = legal
                .iter()
                .filter_map(|a| match a {
                    Action::Discard(t) => Some(t),
                    _ => None,
                })
                .collect();
            let natural: Vec<Tile> = cands.iter().copied().filter(|&t| !wild(t)).collect();
            // Wild tiles only when nothing else may go.
            if !natural.is_empty() {
                assert!(!wild(d), "discarded wild {d} with {natural:?} available");
            }
            let pool = if natural.is_empty() { &cands } else { &natural };
            let sh = |t: Tile| {
                let mut c = o.concealed;
                c[t.index()] -= 1;
                ranked_shanten(g, &o, &c)
            };
            let min = if holds_void(&o, g) {
                0
            } else {
                pool.iter().map(|&t| sh(t)).min().unwrap()
            };
            let threatened = rules.ting_required && (0..4).any(|s| s != seat as usize && o.ting[s]);
            if holds_void(&o, g) {
                // Sichuan 缺一门: the void suit's tiles go first.
                assert_eq!(
                    Some(d.index() / 9),
                    void_suit(&o, g),
                    "void suit not cleared first"
                );
                t.discards_checked += 1;
            } else if !threatened {
                // Picks the shanten-minimizing discard.
                assert_eq!(sh(d), min, "discard {d} is not shanten-minimal");
                t.discards_checked += 1;
            } else {
                // 包胡 defence: an unsafe discard only when no safe one is
                // within one shanten (or folding is pointless: none safe).
                let safe_min = pool
                    .iter()
                    .filter(|&&t| safe(&o, g, t))
                    .map(|&t| sh(t))
                    .min();
                if !safe(&o, g, d) {
                    if let Some(s) = safe_min {
                        assert!(
                            s > min + 1 && min < 2,
                            "unsafe {d} although a safe discard costs {s} vs {min}"
                        );
                    }
                } else {
                    t.defended += 1;
                }
            }
        }
        _ => {}
    }
}

fn soak(mix: u8, hands: u64) {
    for (name, rules) in presets() {
        let mut t = Tally::default();
        for seed in 0..hands {
            play(&rules, seed, mix, |g, s, a| check_decision(g, s, a, &mut t));
        }
        eprintln!("{name} mix {mix}: {t:?}");
        assert!(t.decisions > 0 && t.discards_checked > 0);
        if rules.ting_required {
            assert!(t.tings > 0, "{name}: greedy never declared");
        }
        // With must_win the table takes wins itself.
        assert!(rules.must_win || t.wins > 0, "{name}: greedy never won");
    }
}

#[test]
fn greedy_never_makes_an_illegal_action_and_keeps_every_promise_all_greedy() {
    soak(0, 400);
}

#[test]
fn greedy_never_makes_an_illegal_action_and_keeps_every_promise_against_random() {
    soak(1, 400);
}

#[test]
fn greedy_never_makes_an_illegal_action_in_native_self_play() {
    for (name, rules) in presets() {
        for mix in 0..2u8 {
            let r = simulate(&rules, 2000, 99, 0, |s| -> Box<dyn Agent> {
                if mix == 0 || s == 0 {
                    Box::new(GreedyAgent::new(s as u64))
                } else {
                    Box::new(RandomAgent::new(s as u64))
                }
            })
            .unwrap();
            assert!(
                r.iter().all(|h| !h.agent_fault),
                "{name}: an agent played an illegal action"
            );
            assert!(r.iter().all(|h| h.deltas.iter().sum::<i64>() == 0));
        }
    }
}

// ---------------------------------------------------------------------------
// Hand-built positions.

fn arranged(rules: &Ruleset, hands: [&str; 4]) -> Game {
    common::deal(rules, hands, "", "", 0)
}

fn tile(s: &str) -> Tile {
    Tile::from_notation(s).unwrap()
}

fn greedy_first_move(g: &Game) -> Action {
    GreedyAgent::new(0).act(&SeatView::new(g, 0))
}

#[test]
fn greedy_picks_the_shanten_minimizing_discard() {
    // 123m 456m 11p 4566p 7p 9p: discarding 9p (waits 5p/8p, 7 live) or
    // 6p (waits 8p, 4 live) leaves the hand ready; 9p keeps more.
    let g = arranged(
        &Ruleset::sichuan(),
        [
            "123456m11456679p",
            "1112223334445s",
            "6667778889995s",
            "777888999m2233p",
        ],
    );
    assert_eq!(greedy_first_move(&g), Action::Discard(tile("9p")));
}

#[test]
fn greedy_clears_the_void_suit_first_in_sichuan() {
    // 缺一门: one 条 tile against six 万 and seven 筒: the 5s goes.
    let g = arranged(
        &Ruleset::sichuan(),
        [
            "123456m45678p11p5s",
            "1112223334446s",
            "5557778889999s",
            "777888999m2233p",
        ],
    );
    assert_eq!(greedy_first_move(&g), Action::Discard(tile("5s")));
}

#[test]
fn greedy_declares_ting_when_allowed_with_the_best_wait() {
    // 123m 456m 789p 55z 67s 9s: discarding 9s waits on 5s/8s (8 live
    // copies), discarding 6s waits on 8s alone (kanchan): both may declare
    // (a wait worth 6+), the two-sided wait is chosen.
    let g = arranged(
        &Ruleset::shanxi(),
        [
            "123456m789p679s55z",
            "1112223334445s",
            "1112223334445p",
            "1112223334446z",
        ],
    );
    let legal = g.legal_actions();
    assert!(legal.contains(Action::Ting(tile("9s"))));
    assert!(legal.contains(Action::Ting(tile("6s"))));
    assert_eq!(greedy_first_move(&g), Action::Ting(tile("9s")));
}

#[test]
fn greedy_takes_a_win() {
    // The dealer's 14 tiles are complete and lack 条: 天胡 in Sichuan.
    let g = arranged(
        &Ruleset::sichuan(),
        [
            "123456m456789p11p",
            "1112223334445s",
            "6667778889995s",
            "777888999m2233p",
        ],
    );
    assert!(g.legal_actions().contains(Action::Win));
    assert_eq!(greedy_first_move(&g), Action::Win);
}

#[test]
fn builtin_knows_greedy() {
    let g = arranged(
        &Ruleset::sichuan(),
        [
            "123456m456789p11p",
            "1112223334445s",
            "6667778889995s",
            "777888999m2233p",
        ],
    );
    let mut a = builtin("greedy", 1).unwrap();
    assert_eq!(a.act(&SeatView::new(&g, 0)), Action::Win);
    match builtin("smart", 1) {
        Err(e) => assert!(e.to_string().contains("greedy")),
        Ok(_) => panic!("unknown agent accepted"),
    }
}

#[test]
fn greedy_is_deterministic_given_its_seed_and_thread_count() {
    for (_, rules) in presets().into_iter().take(3) {
        let mk = |s: usize| -> Box<dyn Agent> { builtin("greedy", s as u64).unwrap() };
        let a = simulate(&rules, 300, 5, 1, mk).unwrap();
        let b = simulate(&rules, 300, 5, 2, mk).unwrap();
        assert_eq!(a, b);
    }
}

// ---------------------------------------------------------------------------
// The margin.

struct SeatStats {
    mean: f64,
    se: f64,
    win_rate: f64,
    bao: f64,
}

fn stats(r: &[HandSummary], seat: usize) -> SeatStats {
    let n = r.len() as f64;
    let xs: Vec<f64> = r.iter().map(|h| h.deltas[seat] as f64).collect();
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let wins = r.iter().filter(|h| h.winners[seat]).count() as f64;
    let bao = r
        .iter()
        .filter(|h| h.from == Some(seat as u8) && !h.ting[seat] && h.deltas[seat] < 0)
        .count() as f64;
    SeatStats {
        mean,
        se: (var / n).sqrt(),
        win_rate: wins / n,
        bao: bao / n,
    }
}

fn margin(name: &str, rules: &Ruleset, hands: u64) {
    let r = simulate(rules, hands, 2026, 0, |s| -> Box<dyn Agent> {
        if s == 0 {
            Box::new(GreedyAgent::new(0))
        } else {
            Box::new(RandomAgent::new(s as u64))
        }
    })
    .unwrap();
    let g = stats(&r, 0);
    eprintln!(
        "{name}: greedy win {:.1}% mean {:+.2} ± {:.2} (95% CI), dealt-in {:.2}%",
        100.0 * g.win_rate,
        g.mean,
        1.96 * g.se,
        100.0 * g.bao
    );
    for s in 1..4 {
        let x = stats(&r, s);
        eprintln!(
            "{name}: random seat {s} win {:.1}% mean {:+.2} ± {:.2}",
            100.0 * x.win_rate,
            x.mean,
            1.96 * x.se
        );
        assert!(
            g.mean - 3.0 * g.se > x.mean + 3.0 * x.se,
            "{name}: greedy {:.2}±{:.2} not far above random seat {s} {:.2}±{:.2}",
            g.mean,
            g.se,
            x.mean,
            x.se
        );
        assert!(g.win_rate > 2.0 * x.win_rate);
    }
}

#[test]
fn greedy_beats_three_random_agents_by_a_wide_margin_in_shanxi() {
    margin("shanxi", &Ruleset::shanxi(), 4000);
}

#[test]
fn greedy_beats_three_random_agents_by_a_wide_margin_in_linxian() {
    margin("linxian", &Ruleset::linxian(), 4000);
}

#[test]
fn greedy_beats_three_random_agents_by_a_wide_margin_in_sichuan() {
    margin("sichuan", &Ruleset::sichuan(), 4000);
}
