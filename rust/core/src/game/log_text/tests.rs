//! The log writer against the `format!`-based writer it replaced, kept
//! here as the reference: byte for byte on every line of many random hands
//! of every family and option set.

use super::*;
use crate::agent::{builtin, Agent, SeatView};
use crate::tile::format_counts;
use std::fmt::Write;

mod reference {
    use super::*;

    fn tiles_str(tiles: &[Tile]) -> String {
        let mut s = String::with_capacity(tiles.len() * 2);
        for t in tiles {
            let _ = write!(s, "{t}");
        }
        s
    }

    fn opt_u8(v: Option<u8>) -> String {
        v.map_or("null".to_string(), |x| x.to_string())
    }

    fn bools(b: &[bool; 4]) -> String {
        format!("[{},{},{},{}]", b[0], b[1], b[2], b[3])
    }

    pub(super) fn json_str(s: &str) -> String {
        let mut o = String::with_capacity(s.len() + 2);
        o.push('"');
        for c in s.chars() {
            match c {
                '"' => o.push_str("\\\""),
                '\\' => o.push_str("\\\\"),
                '\n' => o.push_str("\\n"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(o, "\\u{:04x}", c as u32);
                }
                c => o.push(c),
            }
        }
        o.push('"');
        o
    }

    fn option_json(v: &OptionValue) -> String {
        match v {
            OptionValue::Bool(b) => b.to_string(),
            OptionValue::Int(i) => i.to_string(),
            OptionValue::Str(s) => json_str(s),
            OptionValue::Pair(a, b) => format!("[{a},{b}]"),
        }
    }

    pub(super) fn event(e: &Event) -> String {
        match *e {
            Event::Draw {
                seat,
                tile,
                replacement,
            } => format!(
                "{{\"type\":\"draw\",\"seat\":{seat},\"tile\":\"{tile}\",\"replacement\":{replacement}}}"
            ),
            Event::Act { seat, action, auto } => {
                let tile = action
                    .tile()
                    .map(|t| format!(",\"tile\":\"{t}\""))
                    .unwrap_or_default();
                format!(
                    "{{\"type\":\"action\",\"seat\":{seat},\"action\":\"{}\"{tile},\"index\":{},\"auto\":{auto}}}",
                    action.name(),
                    action.index()
                )
            }
            Event::End(r) => {
                let winners: Vec<String> = r.winner_seats().map(|s| s.to_string()).collect();
                format!(
                    "{{\"type\":\"end\",\"kind\":\"{}\",\"winners\":[{}],\"tile\":{},\"from\":{},\
                     \"self_draw\":{},\"robbed_kong\":{},\"replacement\":{},\"heavenly\":{},\
                     \"earthly\":{},\"leaver\":{},\"ting\":{},\"deltas\":[{},{},{},{}]}}",
                    r.kind.name(),
                    winners.join(","),
                    r.tile.map_or("null".to_string(), |t| format!("\"{t}\"")),
                    opt_u8(r.from),
                    r.self_draw,
                    r.robbed_kong,
                    r.replacement
                        .map_or("null".to_string(), |k| format!("\"{}\"", k.name())),
                    r.heavenly,
                    r.earthly,
                    opt_u8(r.leaver),
                    bools(&r.ting),
                    r.deltas[0],
                    r.deltas[1],
                    r.deltas[2],
                    r.deltas[3]
                )
            }
        }
    }

    fn header(g: &Game) -> String {
        let mut rules = String::from("{");
        for (i, (name, _)) in OPTIONS.iter().enumerate() {
            if i > 0 {
                rules.push(',');
            }
            let v = g
                .rules
                .get(name)
                .map(|v| option_json(&v))
                .unwrap_or_else(|_| "null".into());
            let _ = write!(rules, "{}:{v}", json_str(name));
        }
        rules.push('}');
        let d = &g.deal;
        let dice = d.dice.map_or("null".to_string(), |x| {
            format!("[{},{},{},{}]", x[0], x[1], x[2], x[3])
        });
        let dealer_rolls = match (&d.dealer_rolls, g.rules.dice) {
            (_, false) => String::new(),
            (None, true) => "\"dealer_rolls\":null,".to_string(),
            (Some(r), true) => {
                let pairs: Vec<String> = r.iter().map(|p| format!("[{},{}]", p[0], p[1])).collect();
                format!("\"dealer_rolls\":[{}],", pairs.join(","))
            }
        };
        let wilds: Vec<String> = d.wilds.kinds().map(|t| format!("\"{t}\"")).collect();
        format!(
            "{{\"type\":\"header\",\"format\":\"koudian-log\",\"version\":{LOG_VERSION},\
             \"engine\":\"koudian-core {}\",\"rules\":{rules},\"seed\":{},\"dealer\":{},\
             \"dice\":{dice},{dealer_rolls}\"wilds\":[{}],\"revealed\":{},\"wall\":\"{}\",\
             \"scores\":[{},{},{},{}]}}",
            env!("CARGO_PKG_VERSION"),
            g.seed.map_or("null".to_string(), |s| s.to_string()),
            d.dealer,
            wilds.join(","),
            d.revealed,
            tiles_str(d.wall.tiles()),
            g.scores[0],
            g.scores[1],
            g.scores[2],
            g.scores[3]
        )
    }

    fn deal_line(g: &Game) -> String {
        let mut hands: [crate::tile::Counts; 4] = [[0; 34]; 4];
        let tiles = g.deal.wall.tiles();
        for i in 0..4 {
            let seat = (g.deal.dealer as usize + i) % 4;
            for t in &tiles[13 * i..13 * i + 13] {
                hands[seat][t.index()] += 1;
            }
        }
        hands[g.deal.dealer as usize][tiles[52].index()] += 1;
        format!(
            "{{\"type\":\"deal\",\"dealer\":{},\"hands\":[\"{}\",\"{}\",\"{}\",\"{}\"]}}",
            g.deal.dealer,
            format_counts(&hands[0]),
            format_counts(&hands[1]),
            format_counts(&hands[2]),
            format_counts(&hands[3])
        )
    }

    pub(super) fn log(g: &Game) -> String {
        let mut s = header(g);
        s.push('\n');
        s.push_str(&deal_line(g));
        s.push('\n');
        for e in &g.events {
            s.push_str(&event(e));
            s.push('\n');
        }
        s
    }
}

/// Rulesets with dice (dealer_rolls), wilds, string, pair and integer
/// options, scores carried in, every family.
fn rulesets() -> Vec<Ruleset> {
    let mut out = vec![Ruleset::shanxi(), Ruleset::sichuan(), Ruleset::linxian()];
    for text in [
        "family = \"shanxi\"\nhaozi = \"single\"\nhaozi_pick = \"indicator\"\ndice = true\n",
        "family = \"shanxi\"\nhaozi = \"double\"\nwall_reserve = [4, 2]\npass_scope = \"tile\"\n",
    ] {
        out.push(Ruleset::from_toml(text).unwrap());
    }
    out
}

/// Every line of the log of many random and greedy hands is the
/// reference's, and a writer reused across hands (and rulesets) writes
/// each hand's log exactly.
#[test]
fn the_writer_matches_the_reference_byte_for_byte() {
    let mut w = LogWriter::default();
    let mut many = Vec::new();
    let mut expected = String::new();
    let mut hands = 0;
    for rules in rulesets() {
        for seed in 0..40u64 {
            let kind = if seed % 3 == 0 { "greedy" } else { "random" };
            let mut g = Game::new(
                &rules,
                seed * 7919,
                if seed % 2 == 0 {
                    None
                } else {
                    Some((seed % 4) as u8)
                },
            )
            .unwrap();
            g.set_recording(true);
            g.set_scores([seed as i64 - 20, -(seed as i64), 1 << 40, -(1 << 40)]);
            let mut agents: [Box<dyn Agent>; 4] =
                std::array::from_fn(|s| builtin(kind, seed * 4 + s as u64).unwrap());
            let mut moves = 0;
            while let Some(seat) = g.to_act() {
                if moves == 0 {
                    assert_eq!(g.log(), reference::log(&g), "after the deal");
                }
                moves += 1;
                let a = agents[seat as usize].act(&SeatView::new(&g, seat));
                if g.step(a).is_err() {
                    let first = g.legal_actions().iter().next().unwrap();
                    g.step(first).unwrap();
                }
                if seed == 5 && moves == 9 {
                    let _ = g.leave((seat + 1) % 4);
                }
            }
            let want = reference::log(&g);
            assert_eq!(g.log(), want, "{:?} seed {seed}", rules.family);
            assert_eq!(g.log_header(), want.lines().next().unwrap());
            for e in &g.events {
                assert_eq!(e.to_json(), reference::event(e));
            }
            w.write(&g, &mut many);
            expected.push_str(&want);
            hands += 1;
        }
    }
    assert_eq!(String::from_utf8(many).unwrap(), expected);
    assert!(hands > 100);
}

/// Strings are escaped as the reference escapes them.
#[test]
fn strings_escape_as_the_reference() {
    for s in [
        "plain",
        "q\"uote",
        "back\\slash",
        "new\nline",
        "tab\tbell\u{7}",
        "中文",
        "",
    ] {
        let mut out = Vec::new();
        json_str(&mut out, s);
        assert_eq!(String::from_utf8(out).unwrap(), reference::json_str(s));
    }
}

/// Integers at their extremes.
#[test]
fn integers_at_the_extremes() {
    for v in [0i64, 1, -1, 9, 10, -10, i64::MAX, i64::MIN, 1 << 53] {
        let mut out = Vec::new();
        int(&mut out, v);
        assert_eq!(String::from_utf8(out).unwrap(), v.to_string());
    }
    let mut out = Vec::new();
    uint(&mut out, u64::MAX);
    assert_eq!(String::from_utf8(out).unwrap(), u64::MAX.to_string());
    // Every number across the short paths' edges.
    for v in (0..2000u64).chain([9_999, 10_000, 123_456_789]) {
        let mut out = Vec::new();
        uint(&mut out, v);
        assert_eq!(String::from_utf8(out).unwrap(), v.to_string());
    }
}

/// The writer's copy of the action names is `Action::name`'s.
#[test]
fn action_names_are_the_actions_own() {
    for i in 0..crate::game::N_ACTIONS {
        let a = Action::from_index(i).unwrap();
        let mut out = Vec::new();
        action_name(&mut out, a);
        assert_eq!(out, a.name().as_bytes(), "{a:?}");
    }
}
