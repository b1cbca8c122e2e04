//! Writing the event log (the JSON Lines of [`super::event`], whose module
//! docs give the format) straight into a caller's byte buffer: no
//! `format!`, no allocation per line or per value, so that self-play can
//! log every hand at a fraction of the cost of playing it. The one
//! writer: [`Game::log`], [`Game::log_header`] and [`Event::to_json`] are
//! built on it.

use super::action::Action;
use super::event::{Event, LOG_VERSION};
use super::table::Game;
use crate::hand::MeldKind;
use crate::ruleset::{OptionValue, Ruleset, OPTIONS};
use crate::tile::{Tile, KINDS};

/// Appends the decimal digits of `v`. Seats, tile indices and action
/// indices (below 1000) are most of a log's numbers: their digits go in
/// as one fixed-size slice each, without the general loop's copy.
pub(super) fn uint(out: &mut Vec<u8>, mut v: u64) {
    if v < 10 {
        out.push(b'0' + v as u8);
        return;
    }
    if v < 100 {
        out.extend_from_slice(&[b'0' + (v / 10) as u8, b'0' + (v % 10) as u8]);
        return;
    }
    if v < 1000 {
        let d = [
            b'0' + (v / 100) as u8,
            b'0' + (v / 10 % 10) as u8,
            b'0' + (v % 10) as u8,
        ];
        out.extend_from_slice(&d);
        return;
    }
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

pub(super) fn int(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    uint(out, v.unsigned_abs());
}

pub(super) fn boolean(out: &mut Vec<u8>, b: bool) {
    // Two fixed-size copies rather than one of a chosen length.
    if b {
        out.extend_from_slice(b"true");
    } else {
        out.extend_from_slice(b"false");
    }
}

/// A tile's notation, e.g. `3p` (its `Display`).
fn tile(out: &mut Vec<u8>, t: Tile) {
    out.push(b'0' + t.rank());
    out.push(t.suit().letter() as u8);
}

pub(super) fn quoted_tile(out: &mut Vec<u8>, t: Tile) {
    out.extend_from_slice(&[b'"', b'0' + t.rank(), t.suit().letter() as u8, b'"']);
}

/// `a.name()`, each name a fixed-size copy (an action line's name was
/// one copy of a looked-up length).
fn action_name(out: &mut Vec<u8>, a: Action) {
    out.extend_from_slice(match a {
        Action::Discard(_) => b"discard",
        Action::Ting(_) => b"ting",
        Action::ConcealedKong(_) => b"concealed_kong",
        Action::AddedKong(_) => b"added_kong",
        Action::Win => b"win",
        Action::Pong => b"pong",
        Action::Kong => b"kong",
        Action::Pass => b"pass",
        Action::Leave => b"leave",
    });
}

pub(super) fn opt_u8(out: &mut Vec<u8>, v: Option<u8>) {
    match v {
        Some(x) => uint(out, x.into()),
        None => out.extend_from_slice(b"null"),
    }
}

/// A JSON string of `s`: quotes, backslashes, newlines and control
/// characters escaped.
pub(super) fn json_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for &b in s.as_bytes() {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            c if c < 0x20 => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(c >> 4)]);
                out.push(HEX[usize::from(c & 15)]);
            }
            // UTF-8 bytes of other characters are copied as they are.
            c => out.push(c),
        }
    }
    out.push(b'"');
}

fn option_json(out: &mut Vec<u8>, v: &OptionValue) {
    match v {
        OptionValue::Bool(b) => boolean(out, *b),
        OptionValue::Int(i) => int(out, *i),
        OptionValue::Str(s) => json_str(out, s),
        OptionValue::Pair(a, b) => {
            out.push(b'[');
            int(out, *a);
            out.push(b',');
            int(out, *b);
            out.push(b']');
        }
    }
}

/// `[a,b,c,d]` of four values written by `each`.
fn four<T: Copy>(out: &mut Vec<u8>, v: &[T; 4], each: impl Fn(&mut Vec<u8>, T)) {
    out.push(b'[');
    for (i, &x) in v.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        each(out, x);
    }
    out.push(b']');
}

/// The header's `rules` object of `rules`: every option by its
/// docs/rules.md name, in [`OPTIONS`] order.
fn rules_json(out: &mut Vec<u8>, rules: &Ruleset) {
    out.push(b'{');
    for (i, (name, _)) in OPTIONS.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json_str(out, name);
        out.push(b':');
        match rules.get(name) {
            Ok(v) => option_json(out, &v),
            Err(_) => out.extend_from_slice(b"null"),
        }
    }
    out.push(b'}');
}

impl Event {
    /// Appends the event as one JSON line (no newline) to `out`.
    ///
    /// ```
    /// use koudian_core::game::{Event, Game};
    /// use koudian_core::tile::Tile;
    /// let e = Event::Draw { seat: 1, tile: Tile::from_notation("3p").unwrap(), replacement: false };
    /// let mut out = Vec::new();
    /// e.write_json(&mut out);
    /// assert_eq!(out, br#"{"type":"draw","seat":1,"tile":"3p","replacement":false}"#);
    /// ```
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match *self {
            Event::Draw {
                seat,
                tile: t,
                replacement,
            } => {
                out.extend_from_slice(b"{\"type\":\"draw\",\"seat\":");
                uint(out, seat.into());
                out.extend_from_slice(b",\"tile\":");
                quoted_tile(out, t);
                out.extend_from_slice(b",\"replacement\":");
                boolean(out, replacement);
                out.push(b'}');
            }
            Event::Act { seat, action, auto } => {
                out.extend_from_slice(b"{\"type\":\"action\",\"seat\":");
                uint(out, seat.into());
                out.extend_from_slice(b",\"action\":\"");
                action_name(out, action);
                out.push(b'"');
                if let Some(t) = action.tile() {
                    out.extend_from_slice(b",\"tile\":");
                    quoted_tile(out, t);
                }
                out.extend_from_slice(b",\"index\":");
                uint(out, action.index() as u64);
                out.extend_from_slice(b",\"auto\":");
                boolean(out, auto);
                out.push(b'}');
            }
            Event::End(r) => {
                out.extend_from_slice(b"{\"type\":\"end\",\"kind\":\"");
                out.extend_from_slice(r.kind.name().as_bytes());
                out.extend_from_slice(b"\",\"winners\":[");
                for (i, s) in r.winner_seats().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    uint(out, s.into());
                }
                out.extend_from_slice(b"],\"tile\":");
                match r.tile {
                    Some(t) => quoted_tile(out, t),
                    None => out.extend_from_slice(b"null"),
                }
                out.extend_from_slice(b",\"from\":");
                opt_u8(out, r.from);
                out.extend_from_slice(b",\"self_draw\":");
                boolean(out, r.self_draw);
                out.extend_from_slice(b",\"robbed_kong\":");
                boolean(out, r.robbed_kong);
                out.extend_from_slice(b",\"replacement\":");
                match r.replacement {
                    Some(k) => {
                        out.push(b'"');
                        out.extend_from_slice(MeldKind::name(k).as_bytes());
                        out.push(b'"');
                    }
                    None => out.extend_from_slice(b"null"),
                }
                out.extend_from_slice(b",\"heavenly\":");
                boolean(out, r.heavenly);
                out.extend_from_slice(b",\"earthly\":");
                boolean(out, r.earthly);
                out.extend_from_slice(b",\"leaver\":");
                opt_u8(out, r.leaver);
                out.extend_from_slice(b",\"ting\":");
                four(out, &r.ting, boolean);
                out.extend_from_slice(b",\"deltas\":");
                four(out, &r.deltas, int);
                out.push(b'}');
            }
        }
    }

    /// The event as one JSON line (no newline).
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(96);
        self.write_json(&mut out);
        text(out)
    }
}

/// The log bytes as a string: the writer only ever appends the bytes of
/// `str`s and ASCII, so they are UTF-8.
fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Writes whole logs of many hands into one buffer, keeping the header's
/// `rules` object of the last ruleset seen (the same for every hand of a
/// self-play run).
///
/// ```
/// use koudian_core::game::{Game, LogWriter};
/// use koudian_core::Ruleset;
/// let (a, b) = (Game::new(&Ruleset::shanxi(), 1, None).unwrap(), Game::new(&Ruleset::shanxi(), 2, None).unwrap());
/// let (mut w, mut out) = (LogWriter::default(), Vec::new());
/// w.write(&a, &mut out);
/// w.write(&b, &mut out);
/// assert_eq!(out, (a.log() + &b.log()).into_bytes());
/// ```
#[derive(Clone, Debug, Default)]
pub struct LogWriter {
    rules: Option<Ruleset>,
    rules_json: Vec<u8>,
}

impl LogWriter {
    /// Appends `g`'s whole log so far ([`Game::log`]) to `out`.
    pub fn write(&mut self, g: &Game, out: &mut Vec<u8>) {
        // About 72 bytes an event and 1.5 KiB for the header and deal.
        out.reserve(1536 + g.events.len() * 72);
        self.write_header(g, out);
        out.push(b'\n');
        write_deal(g, out);
        out.push(b'\n');
        for e in &g.events {
            e.write_json(out);
            out.push(b'\n');
        }
    }

    fn write_header(&mut self, g: &Game, out: &mut Vec<u8>) {
        if self.rules.as_ref() != Some(&g.rules) {
            self.rules_json.clear();
            rules_json(&mut self.rules_json, &g.rules);
            self.rules = Some(g.rules.clone());
        }
        out.extend_from_slice(b"{\"type\":\"header\",\"format\":\"koudian-log\",\"version\":");
        uint(out, LOG_VERSION.into());
        out.extend_from_slice(
            concat!(
                ",\"engine\":\"koudian-core ",
                env!("CARGO_PKG_VERSION"),
                "\",\"rules\":"
            )
            .as_bytes(),
        );
        out.extend_from_slice(&self.rules_json);
        out.extend_from_slice(b",\"seed\":");
        match g.seed {
            Some(s) => uint(out, s),
            None => out.extend_from_slice(b"null"),
        }
        let d = &g.deal;
        out.extend_from_slice(b",\"dealer\":");
        uint(out, d.dealer.into());
        out.extend_from_slice(b",\"dice\":");
        match d.dice {
            Some(x) => four(out, &x, |o, v| uint(o, v.into())),
            None => out.extend_from_slice(b"null"),
        }
        out.push(b',');
        // Only rulesets that roll dice write `dealer_rolls`, so the logs
        // of the others are as before the field.
        if g.rules.dice {
            out.extend_from_slice(b"\"dealer_rolls\":");
            match &d.dealer_rolls {
                None => out.extend_from_slice(b"null"),
                Some(r) => {
                    out.push(b'[');
                    for (i, p) in r.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        out.push(b'[');
                        uint(out, p[0].into());
                        out.push(b',');
                        uint(out, p[1].into());
                        out.push(b']');
                    }
                    out.push(b']');
                }
            }
            out.push(b',');
        }
        out.extend_from_slice(b"\"wilds\":[");
        for (i, t) in d.wilds.kinds().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            quoted_tile(out, t);
        }
        out.extend_from_slice(b"],\"revealed\":");
        uint(out, d.revealed.into());
        out.extend_from_slice(b",\"wall\":\"");
        let tiles = d.wall.tiles();
        out.reserve(2 * tiles.len());
        for &t in tiles {
            tile(out, t);
        }
        out.extend_from_slice(b"\",\"scores\":");
        four(out, &g.scores, int);
        out.push(b'}');
    }
}

/// The deal line: the four starting hands in canonical notation.
fn write_deal(g: &Game, out: &mut Vec<u8>) {
    let mut hands = [[0u8; KINDS]; 4];
    let tiles = g.deal.wall.tiles();
    let dealer = g.deal.dealer as usize;
    for i in 0..4 {
        for t in &tiles[13 * i..13 * i + 13] {
            hands[(dealer + i) % 4][t.index()] += 1;
        }
    }
    hands[dealer][tiles[52].index()] += 1;
    out.extend_from_slice(b"{\"type\":\"deal\",\"dealer\":");
    uint(out, g.deal.dealer.into());
    out.extend_from_slice(b",\"hands\":[");
    for (s, h) in hands.iter().enumerate() {
        if s > 0 {
            out.push(b',');
        }
        out.push(b'"');
        counts_notation(out, h);
        out.push(b'"');
    }
    out.extend_from_slice(b"]}");
}

/// `crate::tile::format_counts`: ranks in kind order, each suit's letter
/// after its last rank.
fn counts_notation(out: &mut Vec<u8>, counts: &[u8; KINDS]) {
    for suit in 0..4 {
        let kinds = suit * 9..(suit * 9 + 9).min(KINDS);
        let mut any = false;
        for k in kinds {
            for _ in 0..counts[k] {
                out.push(b'0' + (k % 9) as u8 + 1);
                any = true;
            }
        }
        if any {
            out.push(b"mpsz"[suit]);
        }
    }
}

impl Game {
    /// The header line of the log.
    pub fn log_header(&self) -> String {
        let mut out = Vec::with_capacity(1536);
        LogWriter::default().write_header(self, &mut out);
        text(out)
    }

    /// The whole log so far as JSON Lines (each line ends with `\n`).
    /// [`LogWriter`] appends it to a buffer instead.
    ///
    /// ```
    /// use koudian_core::game::Game;
    /// use koudian_core::Ruleset;
    /// let g = Game::new(&Ruleset::sichuan(), 5, None).unwrap();
    /// let log = g.log();
    /// assert!(log.starts_with("{\"type\":\"header\",\"format\":\"koudian-log\""));
    /// assert_eq!(log, Game::new(&Ruleset::sichuan(), 5, None).unwrap().log());
    /// ```
    pub fn log(&self) -> String {
        let mut out = Vec::with_capacity(1536 + self.events.len() * 72);
        LogWriter::default().write(self, &mut out);
        text(out)
    }
}

#[cfg(test)]
mod tests;
