//! Helpers shared by the integration tests: the seeded generator, the
//! preset list, and tables dealt from a prepared wall. Each test crate
//! uses only some of them.
#![allow(dead_code)]

use koudian_core::game::{Deal, Game};
use koudian_core::ruleset::{Haozi, HaoziPick, OptionValue, PassScope, Ruleset};
use koudian_core::Tile;

/// SplitMix64: a small seeded generator, so the tests need no extra
/// crate.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Every table variant the soak and agent tests play: the shipped
/// presets' variants, indicator-picked wild kinds, and option sets.
pub fn presets() -> Vec<(&'static str, Ruleset)> {
    let mut v = vec![
        ("shanxi", Ruleset::shanxi()),
        ("linxian", Ruleset::linxian()),
        ("sichuan", Ruleset::sichuan()),
    ];
    let mut r = Ruleset::shanxi();
    r.haozi = Haozi::Single;
    v.push(("shanxi-haozi", r.clone()));
    r.haozi_pick = HaoziPick::Indicator;
    v.push(("shanxi-haozi-indicator", r));
    let mut r = Ruleset::shanxi();
    r.haozi = Haozi::Feng;
    v.push(("shanxi-feng-haozi", r.clone()));
    r.haozi_pick = HaoziPick::Indicator;
    v.push(("shanxi-feng-haozi-indicator", r));
    let mut r = Ruleset::shanxi();
    r.haozi = Haozi::Double;
    v.push(("shanxi-double-haozi", r));
    let mut r = Ruleset::shanxi();
    r.must_win = true;
    r.pass_scope = PassScope::Tile;
    r.kong_after_pong = true;
    r.kong_keeps_waits = true;
    r.wind_sets = true;
    r.special_hands = true;
    v.push(("shanxi-options", r));
    let mut r = Ruleset::shanxi();
    r.no_honors = true;
    r.thirteen_orphans = false;
    r.set("dealer_bonus", OptionValue::Bool(true)).unwrap();
    r.set("dealer_rotation", OptionValue::Str("round".into()))
        .unwrap();
    r.point_rule = koudian_core::ruleset::PointRule::Strict;
    v.push(("shanxi-108-strict", r));
    let mut r = Ruleset::sichuan();
    r.kong_payments = true;
    r.must_win = true;
    v.push(("sichuan-options", r));
    v
}

/// A tile from its notation.
pub fn t(s: &str) -> Tile {
    Tile::from_notation(s).unwrap()
}

/// A table dealt from a prepared wall: the four hands, the tiles drawn
/// from the front and from the back, and the dealer.
pub fn deal(rules: &Ruleset, hands: [&str; 4], front: &str, back: &str, dealer: u8) -> Game {
    let d = Deal::arranged(rules, hands, front, back, dealer, None).unwrap();
    Game::from_deal(rules, d).unwrap()
}

/// [`deal`] with the wild kind `wild`, seat 0 dealing, nothing drawn from
/// the back.
pub fn deal_wild(rules: &Ruleset, hands: [&str; 4], front: &str, wild: &str) -> Game {
    let d = Deal::arranged(rules, hands, front, "", 0, Some(&[t(wild)])).unwrap();
    Game::from_deal(rules, d).unwrap()
}
