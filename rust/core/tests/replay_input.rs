//! What `replay` refuses, and how (docs/rules.md, "Logs"): every refusal
//! is `Error::InvalidLog`; a multi-hand log says how many hands it holds;
//! a header whose seed was edited no longer deals its wall and is caught.

use koudian_core::game::{log_hands, replay, Game};
use koudian_core::{Error, Ruleset};

fn played(rules: &Ruleset, seed: u64, dealer: Option<u8>) -> Game {
    let mut g = Game::new(rules, seed, dealer).unwrap();
    while let Some(a) = g.legal_actions().iter().next() {
        g.step(a).unwrap();
    }
    g
}

fn invalid_log(log: &str) -> String {
    match replay(log) {
        Err(Error::InvalidLog(m)) => m,
        other => panic!("expected InvalidLog, got {other:?}"),
    }
}

#[test]
fn a_log_of_several_hands_is_refused_naming_the_count() {
    let logs: String = (0..3)
        .map(|s| played(&Ruleset::shanxi(), s, None).log())
        .collect();
    assert_eq!(log_hands(&logs), 3);
    let m = invalid_log(&logs);
    assert!(m.contains("this log holds 3 hands"), "{m}");
}

#[test]
fn an_edited_seed_is_detected_not_reported_as_the_new_seed() {
    for rules in [Ruleset::shanxi(), Ruleset::linxian(), Ruleset::sichuan()] {
        let g = played(&rules, 11, None);
        let log = g.log();
        assert!(replay(&log).is_ok());
        let edited = log.replacen("\"seed\":11,", "\"seed\":12,", 1);
        assert_ne!(edited, log, "the header holds the seed");
        let m = invalid_log(&edited);
        assert!(m.contains("seed 12 does not deal"), "{m}");
    }
}

#[test]
fn a_given_dealer_and_a_match_hand_replay_with_their_seed() {
    // A given dealer (later hands of a match) rolls no dealer dice: the
    // seed check must deal the same way.
    for rules in [Ruleset::linxian(), Ruleset::shanxi()] {
        let g = played(&rules, 5, Some(2));
        assert_eq!(replay(&g.log()).unwrap().log(), g.log());
    }
}

#[test]
fn malformed_lines_and_bad_tiles_are_invalid_logs() {
    let log = played(&Ruleset::shanxi(), 3, None).log();
    let mut lines: Vec<&str> = log.lines().collect();
    lines[2] = "{\"type\":\"action\",";
    invalid_log(&(lines.join("\n") + "\n"));
    invalid_log("not json");
    invalid_log("");
    let bad_tile = log.replacen("\"tile\":\"", "\"tile\":\"0", 1);
    invalid_log(&bad_tile);
}
