//! The text rendering of an [`Observation`]: the table as one seat sees
//! it, for people (examples, debugging, a terminal game). Presentation of
//! core data only, so it lives beside the data rather than in each
//! binding; the machine forms are the observation's fields, its JSON and
//! its planes.

use super::action::Action;
use super::observation::{Observation, Pending, SeenDiscard, SeenMeld};
use crate::hand::MeldKind;
use crate::tile::{self, Tile};
use std::fmt;

/// The glyph and notation of a tile: `🀋 5m`.
fn tile_text(t: Tile) -> String {
    format!("{} {t}", t.glyph())
}

/// A back of a tile: a face-down discard, or a kong whose kind is hidden.
const FACE_DOWN: char = '🀫';

fn meld_text(m: &SeenMeld) -> String {
    let what = match m.kind {
        MeldKind::Pong => "pong",
        MeldKind::ExposedKong => "kong",
        MeldKind::AddedKong => "added kong",
        MeldKind::ConcealedKong => "concealed kong",
    };
    let size = usize::from(m.kind.size());
    let tiles = match m.tile {
        Some(t) => {
            let all = vec![t; size];
            format!("{} {}", tile::glyphs(&all), tile::format_tiles(&all))
        }
        None => format!("{} (kind hidden)", FACE_DOWN.to_string().repeat(size)),
    };
    match m.from {
        Some(s) => format!("{tiles} {what} from seat {s}"),
        None => format!("{tiles} {what}"),
    }
}

fn discard_text(d: &SeenDiscard) -> String {
    let mut s = match d.tile {
        Some(t) => tile_text(t),
        None => FACE_DOWN.to_string(),
    };
    if d.face_down {
        s.push_str(" (ting, face down)");
    }
    if d.claimed {
        s.push_str(" (claimed)");
    }
    s
}

/// What the observer is asked, in words.
fn asked(o: &Observation) -> String {
    match (o.pending, o.to_act) {
        (_, None) => "the hand is over".to_string(),
        (Pending::Turn, _) => match o.drawn {
            Some(t) => format!("your turn, you drew {}", tile_text(t)),
            None => "your turn".to_string(),
        },
        (Pending::Discard { from, tile }, _) => {
            format!("seat {from} discarded {}: answer it", tile_text(tile))
        }
        (Pending::AddedKong { from, tile }, _) => {
            format!(
                "seat {from} adds a kong of {}: rob it or pass",
                tile_text(tile)
            )
        }
        (Pending::None, Some(s)) => format!("seat {s} is to act; nothing is asked of you"),
    }
}

fn actions_text(o: &Observation) -> String {
    let all: Vec<Action> = o.legal.iter().collect();
    let names: Vec<String> = all.iter().map(Action::to_string).collect();
    names.join(", ")
}

impl fmt::Display for Observation {
    /// The table as the observer sees it, one line per item: the header
    /// (observer, dealer, tiles left, kongs, wild kinds), then every seat
    /// in turn order from the observer (its score, ting, concealed count,
    /// melds and pond in order, face-down discards marked 🀫), the
    /// observer's own hand with glyphs and notation, and what is asked
    /// with the legal actions.
    ///
    /// ```
    /// use koudian_core::game::Game;
    /// use koudian_core::Ruleset;
    /// let g = Game::new(&Ruleset::shanxi(), 1, None).unwrap();
    /// let text = g.observe(0).to_string();
    /// assert!(text.starts_with("seat 0 sees"));
    /// assert!(text.contains("your turn"));
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = self;
        write!(
            f,
            "seat {} sees · dealer seat {} · {} tiles left ({} live) · {} kong(s)",
            o.seat, o.dealer, o.wall_remaining, o.live_remaining, o.kongs
        )?;
        if !o.wilds.is_empty() {
            let wild: Vec<String> = o.wilds.kinds().map(tile_text).collect();
            write!(f, " · wild {}", wild.join(", "))?;
        }
        let up = tile::tiles_of(&o.face_up_in_wall);
        if !up.is_empty() {
            let shown: Vec<String> = up.into_iter().map(tile_text).collect();
            write!(f, " · face up in the wall {}", shown.join(", "))?;
        }
        writeln!(f)?;
        for k in 0..4u8 {
            let s = (o.seat + k) & 3;
            let who = if s == o.seat { " (you)" } else { "" };
            let dealer = if s == o.dealer { ", dealer" } else { "" };
            let ting = if o.ting[s as usize] { ", ting" } else { "" };
            writeln!(
                f,
                "seat {s}{who}{dealer}{ting}: score {:+}, {} concealed",
                o.scores[s as usize], o.concealed_count[s as usize]
            )?;
            if s == o.seat {
                let hand = tile::tiles_of(&o.concealed);
                writeln!(
                    f,
                    "  hand   {}  {}",
                    tile::glyphs(&hand),
                    tile::format_tiles(&hand)
                )?;
            }
            let melds: Vec<String> = o.melds[s as usize]
                .iter()
                .flatten()
                .map(meld_text)
                .collect();
            if !melds.is_empty() {
                writeln!(f, "  melds  {}", melds.join(" · "))?;
            }
            let pond: Vec<String> = o
                .discards()
                .iter()
                .filter(|d| d.seat == s)
                .map(discard_text)
                .collect();
            writeln!(
                f,
                "  pond   {}",
                if pond.is_empty() {
                    "-".to_string()
                } else {
                    pond.join(" · ")
                }
            )?;
        }
        if !o.may_win_discards {
            writeln!(f, "you passed a win (过胡): discard wins are locked")?;
        }
        write!(f, "asked: {}", asked(o))?;
        if !o.legal.is_empty() {
            write!(f, "\nlegal: {}", actions_text(o))?;
        }
        Ok(())
    }
}

impl Observation {
    /// One line: observer, what is asked, hand, number of legal actions.
    ///
    /// ```
    /// use koudian_core::game::Game;
    /// use koudian_core::Ruleset;
    /// let g = Game::new(&Ruleset::shanxi(), 1, None).unwrap();
    /// assert!(g.observe(1).summary().starts_with("seat 1: "));
    /// ```
    pub fn summary(&self) -> String {
        let hand = tile::tiles_of(&self.concealed);
        format!(
            "seat {}: {}; hand {} {}; {} legal action(s)",
            self.seat,
            asked(self),
            tile::glyphs(&hand),
            tile::format_tiles(&hand),
            self.legal.len()
        )
    }
}
