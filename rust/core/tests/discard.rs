//! Discard analysis (docs/rules.md §2 waits, §3 报听) against one call per
//! discard of the single-hand functions under the ruleset (`legal`: each
//! shape function tested against brute force in `shanten.rs`, `waits.rs`
//! and `ting.rs`; Sichuan's 缺一门 and no-honors rules in `legal.rs`).

mod common;

use koudian_core::discard::discard_options;
use koudian_core::hand::{Hand, Meld, MeldKind};
use koudian_core::legal::{shanten, waits, HandRules};
use koudian_core::ruleset::Ruleset;
use koudian_core::tile::{parse, Counts, Tile, KINDS};
use koudian_core::ting::can_declare_ting;
use koudian_core::waits::Waits;
use koudian_core::Wildcards;

use common::Rng;

/// A complete-size hand of the first `kinds` kinds: `n` pongs and
/// `14 - 3n` concealed tiles, half of them close to a win.
fn random_hand(rng: &mut Rng, wk: &[usize], kinds: usize) -> Hand {
    let n_melds = [0, 0, 0, 1, 2, 3][rng.below(6)];
    let size = 14 - 3 * n_melds;
    let mut left = [4u8; KINDS];
    let mut melds = Vec::new();
    while melds.len() < n_melds {
        let k = rng.below(kinds);
        if left[k] == 4 && !wk.contains(&k) {
            left[k] = 1;
            melds.push(Meld::new(MeldKind::Pong, Tile::new(k as u8).unwrap()));
        }
    }
    let mut c: Counts = [0; KINDS];
    let mut n = 0;
    let mut add = |c: &mut Counts, k: usize, n: &mut usize| {
        if *n < size && left[k] > 0 {
            left[k] -= 1;
            c[k] += 1;
            *n += 1;
        }
    };
    if rng.below(2) == 0 {
        let p = rng.below(kinds);
        add(&mut c, p, &mut n);
        add(&mut c, p, &mut n);
        for _ in 0..4 {
            let s = rng.below(3) * 9 + rng.below(7);
            for k in s..s + 3 {
                add(&mut c, k, &mut n);
            }
        }
    }
    for &k in wk {
        if rng.below(3) == 0 {
            add(&mut c, k, &mut n);
        }
    }
    while n < size {
        let k = rng.below(kinds);
        add(&mut c, k, &mut n);
    }
    Hand::new(c, &melds).unwrap()
}

fn check(hand: &Hand, wilds: &Wildcards, rules: &Ruleset) -> usize {
    let opts = discard_options(hand, wilds, rules).unwrap();
    let kinds: Vec<usize> = (0..KINDS).filter(|&k| hand.concealed[k] > 0).collect();
    assert_eq!(opts.len(), kinds.len());
    let shape = HandRules::from(rules);
    let mut ready = 0;
    for (o, &k) in opts.iter().zip(&kinds) {
        assert_eq!(o.discard.index(), k);
        let mut rest = *hand;
        rest.concealed[k] -= 1;
        let s = shanten(&rest, wilds, &shape).unwrap();
        assert_eq!(o.shanten, s, "shanten after discarding {}", o.discard);
        let w = if s == 0 {
            waits(&rest, wilds, &shape).unwrap()
        } else {
            Waits::NONE
        };
        // Not ready ⇒ no waits at all, whatever the shanten.
        assert!(s == 0 || !waits(&rest, wilds, &shape).unwrap().is_ready());
        assert_eq!(o.waits, w);
        assert_eq!(o.best_points, w.best_points().unwrap_or(0));
        assert_eq!(
            o.can_declare_ting,
            can_declare_ting(hand, o.discard, wilds, rules).unwrap()
        );
        ready += usize::from(w.is_ready());
    }
    ready
}

fn compare(wild_kinds: usize, seed: u64) {
    let mut rng = Rng(seed);
    let presets = [Ruleset::shanxi(), Ruleset::linxian(), Ruleset::sichuan(), {
        let mut r = Ruleset::shanxi();
        r.wind_sets = true;
        r
    }];
    let mut ready = 0;
    for i in 0..100_000 {
        let rules = &presets[i % presets.len()];
        // No honor tiles where they are not in play (Sichuan's 108 tiles).
        let kinds = if rules.no_honors { 27 } else { KINDS };
        let mut wk = Vec::new();
        while wk.len() < wild_kinds {
            let k = rng.below(kinds);
            if !wk.contains(&k) {
                wk.push(k);
            }
        }
        let h = random_hand(&mut rng, &wk, kinds);
        let tiles: Vec<Tile> = wk.iter().map(|&k| Tile::new(k as u8).unwrap()).collect();
        ready += check(&h, &Wildcards::new(&tiles).unwrap(), rules);
    }
    assert!(
        ready > 10_000,
        "the sample must hold ready discards: {ready}"
    );
}

#[test]
fn discard_options_match_single_calls_without_wildcards() {
    compare(0, 21);
}

#[test]
fn discard_options_match_single_calls_with_one_wild_kind() {
    compare(1, 22);
}

#[test]
fn discard_options_match_single_calls_with_two_wild_kinds() {
    compare(2, 23);
}

#[test]
fn discarding_a_wild_tile_is_an_option() {
    // 中 wild: 23m + 中 is a set, so the hand is complete; discarding the
    // 中 is allowed and leaves 23m waiting on 1m/4m, and on 中 standing for
    // either (worth 4): no 6+ for Shanxi.
    let red = Wildcards::new(&[Tile::RED]).unwrap();
    let hand = Hand::from_tiles(&parse("123m456p789s23m117z").unwrap(), &[]).unwrap();
    let opts = discard_options(&hand, &red, &Ruleset::shanxi()).unwrap();
    let red_opt = opts.iter().find(|o| o.discard == Tile::RED).unwrap();
    assert_eq!(red_opt.shanten, 0);
    assert_eq!(
        red_opt.waits.tiles().collect::<Vec<_>>(),
        vec![Tile::M1, Tile::new(3).unwrap(), Tile::RED]
    );
    assert_eq!(red_opt.waits.points(Tile::RED), Some(4));
    assert_eq!(red_opt.best_points, 4);
    assert!(!red_opt.can_declare_ting);
    // Keeping the wild and discarding 东 leaves a wild wait worth 10.
    let east = opts.iter().find(|o| o.discard == Tile::EAST).unwrap();
    assert_eq!((east.shanten, east.best_points), (0, 10));
    assert!(east.can_declare_ting);
}

#[test]
fn discard_options_need_a_complete_size_hand() {
    let hand = Hand::from_tiles(&parse("123m456p789s23m1z").unwrap(), &[]).unwrap();
    let e = discard_options(&hand, &Wildcards::NONE, &Ruleset::shanxi()).unwrap_err();
    assert!(e.to_string().contains("12 concealed tiles"), "{e}");
}

#[test]
fn discard_flags_follow_the_ting_threshold() {
    // Discarding 东 waits on 1m/4m: ready, declarable in Linxian (3+) but
    // not in Shanxi (6+); Sichuan has no ting.
    let hand = Hand::from_tiles(&parse("123m456p789s23m111z").unwrap(), &[]).unwrap();
    let flag = |r: &Ruleset| {
        discard_options(&hand, &Wildcards::NONE, r)
            .unwrap()
            .into_iter()
            .find(|o| o.discard == Tile::EAST)
            .unwrap()
            .can_declare_ting
    };
    assert!(!flag(&Ruleset::shanxi()));
    assert!(flag(&Ruleset::linxian()));
    // Sichuan: honors are not in play; without them, no option may ting.
    let e = discard_options(&hand, &Wildcards::NONE, &Ruleset::sichuan()).unwrap_err();
    assert!(e.to_string().contains("honor tile 1z"), "{e}");
    let hand = Hand::from_tiles(&parse("123m456m789m23m111p").unwrap(), &[]).unwrap();
    let opts = discard_options(&hand, &Wildcards::NONE, &Ruleset::sichuan()).unwrap();
    assert!(opts.iter().all(|o| !o.can_declare_ting));
}
