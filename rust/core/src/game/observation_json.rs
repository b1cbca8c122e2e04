//! The observation's wire format: what an external bot receives as the
//! protocol's `observation` (`koudian.protocol`) and what
//! `Observation.to_json()` returns in Python. One writer, one set of
//! names, built on the event log's JSON writer ([`super::log_text`]).
//!
//! The object's keys, in this order: `seat`, `dealer`, `to_act`,
//! `pending` (`{"kind", "from", "tile"}`), `hand` (tile notation),
//! `drawn`, `concealed_count`, `melds` (a list per seat of `{"kind",
//! "tile", "from"}`), `ting`, `discards` (`{"seat", "tile", "face_down",
//! "claimed"}`), `wall_remaining`, `live_remaining`, `kongs`, `wilds`,
//! `face_up_in_wall` (tile notation), `may_win_discards`, `locked_kinds`,
//! `scores`. A tile is its notation (`"5m"`), a hidden one `null`.

use super::log_text::{boolean, int, json_str, opt_u8, quoted_tile, uint};
use super::observation::Observation;
use crate::tile::{self, Tile};

fn opt_tile(out: &mut Vec<u8>, t: Option<Tile>) {
    match t {
        Some(t) => quoted_tile(out, t),
        None => out.extend_from_slice(b"null"),
    }
}

/// `"key":`.
fn key(out: &mut Vec<u8>, k: &str) {
    json_str(out, k);
    out.push(b':');
}

/// `[a,b,…]` of `items`, each written by `each`.
fn list<T>(out: &mut Vec<u8>, items: impl IntoIterator<Item = T>, each: impl Fn(&mut Vec<u8>, T)) {
    out.push(b'[');
    for (i, x) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        each(out, x);
    }
    out.push(b']');
}

impl Observation {
    /// Appends the observation in its wire format (the module docs list
    /// the keys) to `out`.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        let o = self;
        out.push(b'{');
        key(out, "seat");
        uint(out, o.seat.into());
        out.push(b',');
        key(out, "dealer");
        uint(out, o.dealer.into());
        out.push(b',');
        key(out, "to_act");
        opt_u8(out, o.to_act);
        out.push(b',');
        key(out, "pending");
        let (from, pending_tile) = o.pending.answered();
        out.push(b'{');
        key(out, "kind");
        json_str(out, o.pending.name());
        out.push(b',');
        key(out, "from");
        opt_u8(out, from);
        out.push(b',');
        key(out, "tile");
        opt_tile(out, pending_tile);
        out.extend_from_slice(b"},");
        key(out, "hand");
        json_str(out, &tile::format_counts(&o.concealed));
        out.push(b',');
        key(out, "drawn");
        opt_tile(out, o.drawn);
        out.push(b',');
        key(out, "concealed_count");
        list(out, o.concealed_count, |out, n| uint(out, n.into()));
        out.push(b',');
        key(out, "melds");
        list(out, &o.melds, |out, seat| {
            list(out, seat.iter().flatten(), |out, m| {
                out.push(b'{');
                key(out, "kind");
                json_str(out, m.kind.name());
                out.push(b',');
                key(out, "tile");
                opt_tile(out, m.tile);
                out.push(b',');
                key(out, "from");
                opt_u8(out, m.from);
                out.push(b'}');
            })
        });
        out.push(b',');
        key(out, "ting");
        list(out, o.ting, boolean);
        out.push(b',');
        key(out, "discards");
        list(out, o.discards(), |out, d| {
            out.push(b'{');
            key(out, "seat");
            uint(out, d.seat.into());
            out.push(b',');
            key(out, "tile");
            opt_tile(out, d.tile);
            out.push(b',');
            key(out, "face_down");
            boolean(out, d.face_down);
            out.push(b',');
            key(out, "claimed");
            boolean(out, d.claimed);
            out.push(b'}');
        });
        out.push(b',');
        key(out, "wall_remaining");
        uint(out, o.wall_remaining.into());
        out.push(b',');
        key(out, "live_remaining");
        uint(out, o.live_remaining.into());
        out.push(b',');
        key(out, "kongs");
        uint(out, o.kongs.into());
        out.push(b',');
        key(out, "wilds");
        list(out, o.wilds.kinds(), quoted_tile);
        out.push(b',');
        key(out, "face_up_in_wall");
        json_str(out, &tile::format_counts(&o.face_up_in_wall));
        out.push(b',');
        key(out, "may_win_discards");
        boolean(out, o.may_win_discards);
        out.push(b',');
        key(out, "locked_kinds");
        list(out, o.locked_kind_tiles(), quoted_tile);
        out.push(b',');
        key(out, "scores");
        list(out, o.scores, int);
        out.push(b'}');
    }

    /// The observation in its wire format, one JSON object (the module
    /// docs list the keys).
    ///
    /// ```
    /// use koudian_core::game::Game;
    /// use koudian_core::Ruleset;
    /// let g = Game::new(&Ruleset::shanxi(), 1, None).unwrap();
    /// let j = g.observe(2).to_json();
    /// assert!(j.starts_with(r#"{"seat":2,"dealer":0,"to_act":0,"pending":{"kind":"none","#));
    /// ```
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(1024);
        self.write_json(&mut out);
        // Every byte written is ASCII or copied from a `&str`.
        String::from_utf8(out).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use crate::game::{Action, Game};
    use crate::Ruleset;

    /// The whole object for a table in play: a discard answered, a pong
    /// made, a face-down ting discard hidden from the other seats.
    #[test]
    fn wire_format_of_a_table_in_play() {
        let r = Ruleset::shanxi();
        let g = Game::new(&r, 7, Some(0)).unwrap();
        let o = g.observe(0);
        let j = o.to_json();
        let want_start = format!(
            r#"{{"seat":0,"dealer":0,"to_act":0,"pending":{{"kind":"turn","from":null,"tile":null}},"hand":"{}","drawn":"#,
            crate::tile::format_counts(&o.concealed)
        );
        assert!(j.starts_with(&want_start), "{j}");
        assert!(
            j.ends_with(r#""may_win_discards":true,"locked_kinds":[],"scores":[0,0,0,0]}"#),
            "{j}"
        );
        // Step until a seat answers a discard, and check its pending part.
        let mut g = g;
        for _ in 0..200 {
            let Some(seat) = g.to_act() else { break };
            let o = g.observe(seat);
            if let (Some(from), Some(t)) = o.pending.answered() {
                let part = format!(r#""pending":{{"kind":"discard","from":{from},"tile":"{t}"}}"#);
                assert!(o.to_json().contains(&part), "{}", o.to_json());
                return;
            }
            let a = g.legal_actions_for(seat).iter().next().unwrap();
            g.step(a).unwrap();
        }
        panic!("no discard was answered");
    }

    #[test]
    fn a_meld_is_kind_tile_from() {
        let r = Ruleset::shanxi();
        for seed in 0..100 {
            let mut g = Game::new(&r, seed, Some(0)).unwrap();
            while let Some(seat) = g.to_act() {
                let legal = g.legal_actions_for(seat);
                let a = if legal.contains(Action::Pong) {
                    Action::Pong
                } else {
                    legal.iter().find(|a| *a != Action::Leave).unwrap()
                };
                g.step(a).unwrap();
                if a == Action::Pong {
                    let o = g.observe((seat + 1) & 3);
                    let m = o.melds[seat as usize][0].unwrap();
                    let (t, from) = (m.tile.unwrap(), m.from.unwrap());
                    let part = format!(r#"[{{"kind":"pong","tile":"{t}","from":{from}}}]"#);
                    assert!(o.to_json().contains(&part), "{}", o.to_json());
                    return;
                }
            }
        }
        panic!("no pong in 100 hands");
    }
}
