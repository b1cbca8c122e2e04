//! Issue 21 in the core: the rules found wrong (wild tiles under
//! `no_honors`), the money options' bounds and checked match totals, a
//! match refusing games that are not its own, empty batches, and the
//! "did you mean" work on long names.

use koudian_core::discard::discard_options;
use koudian_core::game::{Game, Match, MatchLength};
use koudian_core::hand::Hand;
use koudian_core::legal::{self, HandRules};
use koudian_core::ruleset::{Family, Haozi, OptionValue, Ruleset};
use koudian_core::shape::ShapeRules;
use koudian_core::tile::{parse, Tile};
use koudian_core::ting::winning_tile_points;
use koudian_core::{Error, Wildcards};

fn t(s: &str) -> Tile {
    Tile::from_notation(s).unwrap()
}

fn hand(s: &str) -> Hand {
    Hand::from_tiles(&parse(s).unwrap(), &[]).unwrap()
}

fn haozi_no_honors() -> Ruleset {
    let mut r = Ruleset::shanxi();
    r.haozi = Haozi::Single;
    r.no_honors = true;
    r.thirteen_orphans = false;
    r.validate().unwrap();
    r
}

/// Item 19: with 5p wild, `123456789m123p` + 5p waits on suited kinds only
/// and the wild tile is worth 9 (the best kind in play), not 10.
#[test]
fn wild_tiles_under_no_honors_stand_for_kinds_in_play_only() {
    let r = haozi_no_honors();
    let wild = Wildcards::new(&[t("5p")]).unwrap();
    let h = hand("123456789m123p5p");
    let w = legal::waits(&h, &wild, &HandRules::from(&r)).unwrap();
    assert!(w.is_ready());
    assert!(
        w.tiles().all(|x| !x.is_honor()),
        "{:?}",
        w.tiles().collect::<Vec<_>>()
    );
    assert_eq!(w.points(t("5p")), Some(9));
    assert_eq!(
        winning_tile_points(&h, t("5p"), true, &wild, &r).unwrap(),
        Some(9)
    );
    // The same hand with honors in play: a wild pair partner may be an
    // honor, worth 10.
    let mut with_honors = r.clone();
    with_honors.no_honors = false;
    assert_eq!(
        winning_tile_points(&h, t("5p"), true, &wild, &with_honors).unwrap(),
        Some(10)
    );
    let full = hand("123456789m123p5p9s");
    for o in discard_options(&full, &wild, &r).unwrap() {
        assert!(o.waits.tiles().all(|x| !x.is_honor()));
        assert!(o.best_points <= 9);
    }
    // The shape layer alone still knows no ruleset.
    let shape = koudian_core::waits::waits(&h, &wild, &ShapeRules::from(&r)).unwrap();
    assert!(shape.tiles().any(|x| x.is_honor()));
}

/// Item 13: Sichuan is a 108-tile game.
#[test]
fn sichuan_without_no_honors_is_refused() {
    let mut r = Ruleset::sichuan();
    r.no_honors = false;
    assert!(matches!(r.validate(), Err(Error::InvalidRuleset(m)) if m.contains("108")));
    let opts = [
        ("family".to_string(), OptionValue::Str("sichuan".into())),
        ("no_honors".to_string(), OptionValue::Bool(false)),
    ];
    assert!(Ruleset::with_options(None, &opts).is_err());
}

/// Item 14: the money options are bounded; a public field set past the
/// bound is refused by `validate` (and so by `Game::new`).
#[test]
fn money_options_are_bounded() {
    let mut r = Ruleset::linxian();
    assert!(r.set("leave_penalty", OptionValue::Int(1001)).is_err());
    assert!(r.set("base_stake", OptionValue::Int(1_000_001)).is_err());
    assert!(r.set("base_stake", OptionValue::Int(0)).is_err());
    r.set("leave_penalty", OptionValue::Int(1000)).unwrap();
    r.set("base_stake", OptionValue::Int(1_000_000)).unwrap();
    let mut g = Game::new(&r, 1, None).unwrap();
    g.leave(0).unwrap();
    assert!(g.settlement_error().is_none());
    assert_eq!(
        g.result().unwrap().deltas,
        [-3_000_000_000, 1_000_000_000, 1_000_000_000, 1_000_000_000]
    );
    r.base_stake = u32::MAX;
    assert!(Game::new(&r, 1, None).is_err());
}

/// Items 14, 18: a match records each of its own hands once; another
/// game, or the same one again, is refused with the match unchanged.
#[test]
fn a_match_records_only_its_next_hand() {
    let r = Ruleset::linxian();
    let mut m = Match::new(&r, 7, MatchLength::Hands(3)).unwrap();
    let mut g = m.next_game().unwrap().unwrap();
    g.leave(2).unwrap();
    m.record(&g).unwrap();
    let before = (m.totals(), m.hands_played());
    assert!(m.record(&g).is_err());
    let mut foreign = Game::new(&r, 99, None).unwrap();
    foreign.leave(1).unwrap();
    assert!(m.record(&foreign).is_err());
    let mut other_rules = m.next_game().unwrap().unwrap();
    other_rules.leave(0).unwrap();
    let mut r2 = r.clone();
    r2.base_stake = 2;
    let mut m2 = Match::new(&r2, 7, MatchLength::Hands(3)).unwrap();
    assert!(m2.record(&other_rules).is_err());
    assert_eq!((m.totals(), m.hands_played()), before);
}

/// Issue 35 item 7: a hand dealt from a seed of the caller's choosing
/// (a server's keyed seed) is recorded as the next hand, once; a hand of
/// that seed dealt elsewhere for a later index is not.
#[test]
fn a_match_records_a_hand_dealt_from_a_given_seed() {
    let r = Ruleset::linxian();
    let mut m = Match::new(&r, 7, MatchLength::Hands(3)).unwrap();
    let mut g = m.next_game_from(0xDEAD_BEEF).unwrap().unwrap();
    assert_eq!(g.seed(), Some(0xDEAD_BEEF));
    g.leave(2).unwrap();
    m.record(&g).unwrap();
    assert_eq!(m.hands_played(), 1);
    assert!(m.record(&g).is_err());
    // The seed was given for hand 0 only.
    let mut again = Game::new(&r, 0xDEAD_BEEF, m.dealer()).unwrap();
    again.leave(1).unwrap();
    assert!(m.record(&again).is_err());
    let mut h = m.next_game_from(5).unwrap().unwrap();
    assert_eq!(h.dealer(), m.dealer().unwrap());
    h.leave(0).unwrap();
    m.record(&h).unwrap();
    assert_eq!(m.hands_played(), 2);
}

/// Item 10: every batch answers an empty batch, whatever `n_melds` holds.
#[test]
fn empty_batches() {
    let rules = HandRules::from(&Ruleset::shanxi());
    let w = Wildcards::NONE;
    for n_melds in [&[][..], &[0][..]] {
        for threads in [0, 1, 2] {
            legal::shanten_batch(&[], n_melds, &w, &rules, &mut [], threads).unwrap();
            legal::is_win_batch_checked(&[], n_melds, &w, &rules, &mut [], threads).unwrap();
            let mut out: [u64; 0] = [];
            legal::waits_batch_checked(&[], n_melds, &[], &w, &rules, &mut out, threads).unwrap();
        }
    }
    // Mismatched lengths are errors.
    let c = [[0u8; 34]; 2];
    assert!(legal::shanten_batch(&c, &[], &w, &rules, &mut [0; 2], 1).is_err());
    assert!(legal::shanten_batch(&c, &[0; 3], &w, &rules, &mut [0; 2], 1).is_err());
    assert!(legal::shanten_batch(&c, &[0], &w, &rules, &mut [0; 1], 1).is_err());
}

/// Item 16: an unknown name of a megabyte is answered at once, and its
/// message quotes only its start.
#[test]
fn a_long_unknown_option_is_cheap() {
    let long = "x".repeat(1 << 20);
    let start = std::time::Instant::now();
    let e = Ruleset::shanxi()
        .set(&long, OptionValue::Bool(true))
        .unwrap_err();
    assert!(start.elapsed().as_millis() < 200, "{:?}", start.elapsed());
    assert!(e.to_string().len() < 200);
    let e = Ruleset::shanxi()
        .set("haozi", OptionValue::Str(long))
        .unwrap_err();
    assert!(e.to_string().len() < 400);
    let e = Ruleset::shanxi()
        .set("seven_pair", OptionValue::Bool(true))
        .unwrap_err();
    assert!(e.to_string().contains("seven_pairs"));
    assert_eq!(Ruleset::sichuan().family, Family::Sichuan);
}
