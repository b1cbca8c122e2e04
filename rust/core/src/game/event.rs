//! The event log: one JSON object per line (JSON Lines), read here
//! without dependencies (written by `log_text`), and [`replay`].
//!
//! Line 1, `"type":"header"`: format name and version, engine version,
//! every ruleset option (docs/rules.md names), the seed (`null` for a prepared
//! deal), the dealer, the dice (`[dealer's pair, opened wall owner's
//! pair]` or `null`), with dice also `dealer_rolls` (the first-dealer
//! roll-off, `[[a,b],…]`, or `null` when the dealer was given; a log
//! without the key reads as `null`, and [`replay`] checks that the dealer
//! won it), the wild kinds, how many tiles were turned up to find them, the whole wall in drawing order (a tile string such as
//! `"1m5p7z…"`), and the seats' running scores. Line 2, `"type":"deal"`:
//! the four starting hands. Then one line per event:
//!
//! * `{"type":"draw","seat":1,"tile":"3p","replacement":false}`
//! * `{"type":"action","seat":1,"action":"discard","tile":"3p","index":11,"auto":false}`
//!   — `action` is an [`Action`] name, `tile` is present for actions
//!   that name one, `index` is the dense encoding, `auto` marks moves the
//!   table played itself (a declared player's forced discard, 有胡必胡…).
//! * `{"type":"end","kind":"win",…,"deltas":[…]}` — the [`HandResult`].
//!
//! The log holds hidden information (it is the referee's record). Keys
//! come in a fixed order and numbers are integers, so the same ruleset,
//! seed and actions give the same bytes. [`replay`] rebuilds the game from
//! the header and re-applies the non-automatic actions, checking that
//! every line comes out identical.

use super::action::Action;
use super::result::HandResult;
use super::table::Game;
use super::wall::{check_dealer_rolls, Deal, Wall};
use crate::error::Error;
use crate::ruleset::{OptionValue, Ruleset};
use crate::tile::Tile;
use crate::wildcard::Wildcards;

/// The log format's version.
pub const LOG_VERSION: u32 = 1;

/// One thing that happened at the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A seat drew a tile (a kong replacement when `replacement`).
    Draw {
        /// Who.
        seat: u8,
        /// What.
        tile: Tile,
        /// A kong's replacement tile.
        replacement: bool,
    },
    /// A seat acted (or the table acted for it, `auto`).
    Act {
        /// Who.
        seat: u8,
        /// What.
        action: Action,
        /// Played by the table, not chosen.
        auto: bool,
    },
    /// The hand ended.
    End(HandResult),
}

/// A parsed JSON value (the subset the log uses).
#[derive(Clone, Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(i64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(kv) => kv.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn err(&self, what: &str) -> String {
        format!("{what} at byte {}", self.i)
    }

    fn lit(&mut self, word: &str, v: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.err("unexpected token"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > 16 {
            return Err(self.err("nesting too deep"));
        }
        self.ws();
        match self.s.get(self.i) {
            None => Err(self.err("unexpected end")),
            Some(b'n') => self.lit("null", Json::Null),
            Some(b't') => self.lit("true", Json::Bool(true)),
            Some(b'f') => self.lit("false", Json::Bool(false)),
            Some(b'"') => self.string().map(Json::Str),
            Some(b'[') => {
                self.i += 1;
                let mut v = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Arr(v));
                }
                loop {
                    v.push(self.value(depth + 1)?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Arr(v));
                        }
                        _ => return Err(self.err("expected , or ]")),
                    }
                }
            }
            Some(b'{') => {
                self.i += 1;
                let mut kv = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Obj(kv));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    self.ws();
                    if self.s.get(self.i) != Some(&b':') {
                        return Err(self.err("expected :"));
                    }
                    self.i += 1;
                    kv.push((k, self.value(depth + 1)?));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Obj(kv));
                        }
                        _ => return Err(self.err("expected , or }")),
                    }
                }
            }
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let start = self.i;
                self.i += 1;
                while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
                    self.i += 1;
                }
                std::str::from_utf8(&self.s[start..self.i])
                    .ok()
                    .and_then(|x| {
                        x.parse::<i64>()
                            .ok()
                            .or_else(|| x.parse::<u64>().ok().map(|u| u as i64))
                    })
                    .map(Json::Num)
                    .ok_or_else(|| self.err("bad integer"))
            }
            Some(_) => Err(self.err("unexpected character")),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        if self.s.get(self.i) != Some(&b'"') {
            return Err(self.err("expected a string"));
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return Err(self.err("unterminated string")),
                Some(b'"') => {
                    self.i += 1;
                    return String::from_utf8(out).map_err(|_| self.err("invalid UTF-8"));
                }
                Some(b'\\') => {
                    let c = self.s.get(self.i + 1).copied();
                    self.i += 2;
                    match c {
                        Some(b'"') => out.push(b'"'),
                        Some(b'\\') => out.push(b'\\'),
                        Some(b'/') => out.push(b'/'),
                        Some(b'n') => out.push(b'\n'),
                        Some(b't') => out.push(b'\t'),
                        Some(b'u') => {
                            let hex = self
                                .s
                                .get(self.i..self.i + 4)
                                .and_then(|h| std::str::from_utf8(h).ok())
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .and_then(char::from_u32)
                                .ok_or_else(|| self.err("bad \\u escape"))?;
                            self.i += 4;
                            let mut buf = [0; 4];
                            out.extend_from_slice(hex.encode_utf8(&mut buf).as_bytes());
                        }
                        _ => return Err(self.err("bad escape")),
                    }
                }
                Some(&c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }
}

fn parse_line(line: &str, n: usize) -> Result<Json, Error> {
    let mut p = Parser {
        s: line.as_bytes(),
        i: 0,
    };
    let v = p.value(0).map_err(|e| bad(n, &e))?;
    p.ws();
    if p.i != p.s.len() {
        return Err(bad(n, "trailing characters"));
    }
    Ok(v)
}

/// `N` dice from a header array: `None` when it does not hold `N` values,
/// the error `out_of_range` (line 1) when one is not 1-6.
fn dice_of<const N: usize>(a: &[Json], out_of_range: &str) -> Result<Option<[u8; N]>, Error> {
    if a.len() != N {
        return Ok(None);
    }
    let mut d = [0u8; N];
    for (x, j) in d.iter_mut().zip(a) {
        match j {
            Json::Num(n) if (1..=6).contains(n) => *x = *n as u8,
            _ => return Err(bad(1, out_of_range)),
        }
    }
    Ok(Some(d))
}

fn bad(line: usize, what: &str) -> Error {
    Error::InvalidLog(format!("log line {line}: {what}"))
}

/// How many hands a log text holds: its header lines. A `--log` file of
/// self-play holds one hand after another; [`replay`] takes one.
///
/// ```
/// use koudian_core::game::{log_hands, Game};
/// use koudian_core::Ruleset;
/// let g = Game::new(&Ruleset::shanxi(), 1, None).unwrap();
/// assert_eq!(log_hands(&g.log()), 1);
/// assert_eq!(log_hands(&(g.log() + &g.log())), 2);
/// ```
pub fn log_hands(log: &str) -> usize {
    log.lines()
        .filter(|l| l.trim_start().starts_with("{\"type\":\"header\""))
        .count()
}

/// Refuses a header whose `seed` does not deal its `wall`, wild kinds and
/// dice: an edited seed (or wall) would otherwise replay as a hand of the
/// new seed that the seed never dealt.
fn check_seed(rules: &Ruleset, deal: &Deal, seed: u64) -> Result<(), Error> {
    let dealt = |dealer: Option<u8>| -> Result<bool, Error> {
        let d = Deal::random(rules, seed, dealer)?;
        Ok(d.wall.tiles() == deal.wall.tiles()
            && d.wilds == deal.wilds
            && d.dice == deal.dice
            && d.dealer == deal.dealer)
    };
    // A rolled first dealer consumed dice before the wall's break: a log
    // from before `dealer_rolls` was recorded may be either.
    let same = if deal.dealer_rolls.is_some() {
        dealt(None)?
    } else {
        dealt(Some(deal.dealer))? || (rules.dice && dealt(None)?)
    };
    if same {
        Ok(())
    } else {
        Err(bad(
            1,
            &format!(
                "the header's seed {seed} does not deal its wall, wild kinds and dice \
                 (the seed or the wall was edited)"
            ),
        ))
    }
}

fn field<'a>(v: &'a Json, key: &str, line: usize) -> Result<&'a Json, Error> {
    v.get(key)
        .ok_or_else(|| bad(line, &format!("missing field {key:?}")))
}

fn int(v: &Json, key: &str, line: usize) -> Result<i64, Error> {
    match field(v, key, line)? {
        Json::Num(n) => Ok(*n),
        _ => Err(bad(line, &format!("field {key:?} must be an integer"))),
    }
}

fn string<'a>(v: &'a Json, key: &str, line: usize) -> Result<&'a str, Error> {
    match field(v, key, line)? {
        Json::Str(s) => Ok(s),
        _ => Err(bad(line, &format!("field {key:?} must be a string"))),
    }
}

fn seat_of(v: &Json, key: &str, line: usize) -> Result<u8, Error> {
    let s = int(v, key, line)?;
    u8::try_from(s)
        .ok()
        .filter(|&x| x < 4)
        .ok_or_else(|| bad(line, &format!("{key} {s} is not a seat 0-3")))
}

fn rules_of(v: &Json) -> Result<Ruleset, Error> {
    let Json::Obj(kv) = field(v, "rules", 1)? else {
        return Err(bad(1, "rules must be an object"));
    };
    let mut r = Ruleset::shanxi();
    for (k, val) in kv {
        let ov = match val {
            Json::Bool(b) => OptionValue::Bool(*b),
            Json::Num(i) => OptionValue::Int(*i),
            Json::Str(s) => OptionValue::Str(s.clone()),
            Json::Arr(a) => match a.as_slice() {
                [Json::Num(x), Json::Num(y)] => OptionValue::Pair(*x, *y),
                _ => return Err(bad(1, &format!("option {k} has a malformed pair"))),
            },
            _ => return Err(bad(1, &format!("option {k} has a malformed value"))),
        };
        r.set(k, ov)?;
    }
    r.validate()?;
    Ok(r)
}

/// Replays a log: rebuilds the hand from its header and re-applies every
/// chosen action, calling `each` with the game after the deal and after
/// every action. Errors when the log is malformed, an action is illegal,
/// or any regenerated line differs from the log's.
pub fn replay_each(log: &str, each: impl FnMut(&Game)) -> Result<Game, Error> {
    let hands = log_hands(log);
    if hands > 1 {
        return Err(Error::InvalidLog(format!(
            "this log holds {hands} hands (one header line each); replay takes one hand: \
             split the log at its header lines"
        )));
    }
    // Every refusal of a log is an invalid log, whatever part of it
    // (a tile, an option, an action) was bad.
    replay_lines(log, each).map_err(|e| match e {
        Error::InvalidLog(_) => e,
        other => Error::InvalidLog(format!("log: {other}")),
    })
}

fn replay_lines(log: &str, mut each: impl FnMut(&Game)) -> Result<Game, Error> {
    let lines: Vec<&str> = log.lines().collect();
    let header = parse_line(lines.first().copied().unwrap_or(""), 1)?;
    if string(&header, "type", 1)? != "header" || string(&header, "format", 1)? != "koudian-log" {
        return Err(bad(1, "not a koudian log header"));
    }
    let version = int(&header, "version", 1)?;
    if version != i64::from(LOG_VERSION) {
        return Err(bad(
            1,
            &format!("log format version {version}; this engine reads {LOG_VERSION}"),
        ));
    }
    let rules = rules_of(&header)?;
    let wall_tiles = crate::tile::parse(string(&header, "wall", 1)?)?;
    let wall = Wall::from_tiles(&rules, &wall_tiles)?;
    let dealer = seat_of(&header, "dealer", 1)?;
    let dice = match field(&header, "dice", 1)? {
        Json::Null => None,
        Json::Arr(a) => match dice_of::<4>(a, "dice must be 1-6")? {
            Some(d) => Some(d),
            None => return Err(bad(1, "dice must be null or four dice")),
        },
        _ => return Err(bad(1, "dice must be null or four dice")),
    };
    if dice.is_some() != rules.dice {
        return Err(bad(
            1,
            "dice must be four dice when the ruleset rolls dice (dice = true), else null",
        ));
    }
    // Logs written before the first-dealer roll-off was recorded have no
    // `dealer_rolls`: read as null.
    let dealer_rolls = match header.get("dealer_rolls") {
        None | Some(Json::Null) => None,
        Some(Json::Arr(a)) => {
            let mut rolls = Vec::with_capacity(a.len());
            for j in a {
                let pair = match j {
                    Json::Arr(p) => dice_of::<2>(p, "dealer_rolls: dice must be 1-6")?,
                    _ => None,
                };
                match pair {
                    Some(pair) => rolls.push(pair),
                    None => return Err(bad(1, "dealer_rolls must be pairs of dice")),
                }
            }
            check_dealer_rolls(&rolls, dealer).map_err(|e| bad(1, &e))?;
            if dice.is_none() {
                return Err(bad(1, "dealer_rolls without dice"));
            }
            Some(rolls)
        }
        Some(_) => return Err(bad(1, "dealer_rolls must be null or a list of pairs")),
    };
    let mut wild_kinds = Vec::new();
    if let Json::Arr(a) = field(&header, "wilds", 1)? {
        for j in a {
            match j {
                Json::Str(s) => wild_kinds.push(Tile::from_notation(s)?),
                _ => return Err(bad(1, "wilds must be tile strings")),
            }
        }
    }
    let wilds = Wildcards::new(&wild_kinds)?;
    if wilds.len() != rules.wild_kinds() {
        return Err(bad(1, "wild kinds do not match the ruleset"));
    }
    let revealed =
        u8::try_from(int(&header, "revealed", 1)?).map_err(|_| bad(1, "revealed out of range"))?;
    let seed = match field(&header, "seed", 1)? {
        Json::Null => None,
        Json::Num(n) => Some(*n as u64),
        _ => return Err(bad(1, "seed must be an integer or null")),
    };
    let deal = Deal {
        wall,
        dealer,
        dice,
        dealer_rolls,
        wilds,
        revealed,
    };
    if let Some(s) = seed {
        check_seed(&rules, &deal, s)?;
    }
    let mut g = Game::build(&rules, deal, seed)?;
    if let Some(Json::Arr(a)) = header.get("scores") {
        let mut sc = [0i64; 4];
        for (x, j) in sc.iter_mut().zip(a) {
            if let Json::Num(n) = j {
                *x = *n;
            }
        }
        g.set_scores(sc);
    }
    each(&g);
    for (i, line) in lines.iter().enumerate().skip(2) {
        let n = i + 1;
        let v = parse_line(line, n)?;
        if string(&v, "type", n)? != "action" || matches!(v.get("auto"), Some(Json::Bool(true))) {
            continue;
        }
        let seat = seat_of(&v, "seat", n)?;
        let tile = match v.get("tile") {
            Some(Json::Str(s)) => Some(Tile::from_notation(s)?),
            _ => None,
        };
        let action = Action::from_name(string(&v, "action", n)?, tile)?;
        if action == Action::Leave {
            g.leave(seat)?;
        } else {
            if g.to_act() != Some(seat) {
                return Err(bad(
                    n,
                    &format!("seat {seat} acts but seat {:?} is to act", g.to_act()),
                ));
            }
            g.step(action).map_err(|e| bad(n, &e.to_string()))?;
        }
        each(&g);
    }
    let again = g.log();
    let old_header = header.get("dealer_rolls").is_none();
    for (i, (a, b)) in again.lines().zip(log.lines()).enumerate() {
        // A header written before `dealer_rolls` was recorded lacks the
        // field (read as null).
        let same =
            a == b || (i == 0 && old_header && a.replacen("\"dealer_rolls\":null,", "", 1) == b);
        if !same {
            return Err(bad(
                i + 1,
                &format!("replay differs: regenerated {a:?}, log has {b:?}"),
            ));
        }
    }
    if again.lines().count() != log.lines().count() {
        return Err(bad(
            again.lines().count().min(log.lines().count()) + 1,
            "replay and log have different lengths",
        ));
    }
    Ok(g)
}

/// [`replay_each`] without a callback.
///
/// ```
/// use koudian_core::game::{Game, replay};
/// use koudian_core::Ruleset;
/// let mut g = Game::new(&Ruleset::sichuan(), 3, None).unwrap();
/// while let Some(a) = g.legal_actions().iter().next() {
///     g.step(a).unwrap();
/// }
/// assert_eq!(replay(&g.log()).unwrap().log(), g.log());
/// ```
pub fn replay(log: &str) -> Result<Game, Error> {
    replay_each(log, |_| {})
}
