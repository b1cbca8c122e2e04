//! The mc agent's options and its departure rule.

use super::{choose, McConfig, Tally};
use crate::agent::{builtin, SeatView};
use crate::error::Error;
use crate::game::{Action, Game};
use crate::ruleset::Ruleset;
use crate::tile::Tile;

/// A tally with the paired differences `diffs` to greedy's choice.
fn tally(action: Action, diffs: &[f64]) -> Tally {
    let mut t = Tally::new(action);
    for &d in diffs {
        t.add(d, d);
    }
    t
}

fn message(e: Error) -> String {
    e.to_string()
}

/// `cost` parses as a number of points² per point or `off`, and
/// `far=-1` (search only once another seat has declared) is accepted;
/// out-of-range and malformed values are errors naming the option.
#[test]
fn cost_and_far_options_parse_with_bounds() {
    for c in [McConfig::FAST, McConfig::DEFAULT, McConfig::STRONG] {
        assert_eq!(c.cost, f64::INFINITY);
    }
    assert_eq!(McConfig::parse("cost=40").unwrap().cost, 40.0);
    assert_eq!(McConfig::parse("cost=2.5").unwrap().cost, 2.5);
    assert_eq!(
        McConfig::parse("cost=9:cost=off").unwrap().cost,
        f64::INFINITY
    );
    assert_eq!(McConfig::parse("budget=strong:cost=7").unwrap().cost, 7.0);
    for bad in [
        "cost=0", "cost=0.5", "cost=-3", "cost=abc", "cost=", "cost=inf", "cost=NaN", "cost=1e6",
    ] {
        let e = McConfig::parse(bad).expect_err(bad);
        assert!(matches!(e, Error::InvalidRuleset(_)), "{bad}");
        assert!(message(e).contains("cost"), "{bad}");
    }
    assert_eq!(McConfig::parse("far=-1").unwrap().far, Some(-1));
    for bad in ["far=-2", "far=9", "far=x"] {
        assert!(message(McConfig::parse(bad).expect_err(bad)).contains("far"));
    }
    assert!(message(McConfig::parse("speed=1").unwrap_err()).contains("cost"));
    assert!(builtin("mc:cost=0", 0).is_err());
}

/// `far=-1` searches only once another seat has declared: before any
/// declaration it plays greedy's choice at every decision.
#[test]
fn far_minus_one_waits_for_a_declaration() {
    let rules = Ruleset::shanxi();
    let mut searched_after = 0;
    for seed in 0..6u64 {
        let mut g = Game::new(&rules, seed, None).unwrap();
        let mut mc = builtin("mc:far=-1:top=5:margin=0", seed).unwrap();
        let mut greedy = builtin("greedy", seed).unwrap();
        while let Some(s) = g.to_act() {
            let v = SeatView::new(&g, s);
            let declared = (0..4u8).any(|o| o != s && g.is_ting(o));
            let (m, gr) = (mc.act(&v), greedy.act(&v));
            if !declared {
                assert_eq!(m, gr);
            } else {
                searched_after += usize::from(m != gr);
            }
            g.step(gr).unwrap();
        }
    }
    // With no margin the search does depart once someone has declared.
    assert!(searched_after > 0);
}

/// The departure rule on hand-made tallies: greedy unless a candidate
/// leads by more than `margin` standard errors; among those, the largest
/// lead within the cost; `cost` off is the margin alone.
#[test]
fn choose_applies_margin_then_cost() {
    let g = Tally::new(Action::Discard(Tile::M1));
    let a = Action::Discard(Tile::M9);
    let b = Action::Discard(Tile::P1);
    // Steady: lead 2 on every table but two (mean 1.8, mean square 3.6).
    let mut steady = vec![2.0; 18];
    steady.extend([0.0, 0.0]);
    // Wild: lead 4 on average by ±30 swings (mean square ~ 900).
    let wild: Vec<f64> = (0..400)
        .map(|i| if i % 2 == 0 { 34.0 } else { -26.0 })
        .collect();
    let tallies = [g, tally(a, &steady), tally(b, &wild)];
    // Off: the larger lead (4 > 1.8), both being clear of the margin.
    assert_eq!(choose(&tallies, 2.0, f64::INFINITY), 2);
    // The wild one costs 900 / 4 = 225 points² a point, the steady 2.
    assert_eq!(choose(&tallies, 2.0, 100.0), 1);
    assert_eq!(choose(&tallies, 2.0, 300.0), 2);
    assert_eq!(choose(&tallies, 2.0, 1.5), 0);
    // A margin neither clears keeps greedy's choice whatever the cost.
    assert_eq!(choose(&tallies, 1000.0, f64::INFINITY), 0);
    // A candidate behind greedy is never chosen.
    let behind = [g, tally(a, &[-2.0; 20])];
    assert_eq!(choose(&behind, 0.0, f64::INFINITY), 0);
    // One table is no evidence.
    assert_eq!(choose(&[g, tally(a, &[5.0])], 0.0, f64::INFINITY), 0);
}

/// With `cost=off` the default budget plays exactly as before the option
/// (the same actions), and a tight cost departs from greedy only where no
/// cost departs too, to the same action (the tables are the same; the
/// cost only vetoes), every action legal.
#[test]
fn cost_off_is_the_margin_rule_and_a_tight_cost_departs_less() {
    let rules = Ruleset::shanxi();
    let (mut off_departs, mut tight_departs) = (0, 0);
    for seed in 0..4u64 {
        let mut g = Game::new(&rules, seed, None).unwrap();
        let mut off = builtin("mc:cost=off", seed).unwrap();
        let mut plain = builtin("mc:cost=off:far=-1:top=5", seed).unwrap();
        let mut tight = builtin("mc:cost=1", seed).unwrap();
        let mut greedy = builtin("greedy", seed).unwrap();
        while let Some(s) = g.to_act() {
            let v = SeatView::new(&g, s);
            let (x, y, t, gr) = (off.act(&v), plain.act(&v), tight.act(&v), greedy.act(&v));
            assert!(v.legal().contains(t));
            assert_eq!(x, y);
            if t != gr {
                assert_eq!(t, x);
            }
            off_departs += usize::from(x != gr);
            tight_departs += usize::from(t != gr);
            g.step(x).unwrap();
        }
    }
    assert!(off_departs > 0, "no departure to veto");
    assert!(
        tight_departs < off_departs,
        "{tight_departs} vs {off_departs}"
    );
}
