//! A finished hand, as the table saw it ([`Outcome`]), and the checks that
//! it could have happened before anything is paid.

use super::{hand_value, HandValue, KongKind, WinContext};
use crate::error::Error;
use crate::hand::{Hand, MeldKind};
use crate::ruleset::{Family, Ruleset};
use crate::tile::{Tile, KINDS};
use crate::wildcard::Wildcards;

/// A seat at the table, `0..4`; turn order goes 0 → 1 → 2 → 3 → 0 (each
/// seat's 下家 is the next one).
pub type Seat = u8;

/// How a hand ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandEnd {
    /// The (single) winner drew the winning tile, a kong replacement
    /// (杠上开花) included.
    SelfDraw,
    /// Won on `discarder`'s discard; several winners only in Sichuan
    /// (一炮多响).
    Discard {
        /// Who discarded the winning tile.
        discarder: Seat,
    },
    /// Won by robbing `konger`'s added kong (抢杠); the robbed kong stays a
    /// pong and is not listed in [`Outcome::kongs`]. Several winners only
    /// in Sichuan.
    RobbedKong {
        /// Who tried to add the kong.
        konger: Seat,
    },
    /// 荒庄 / 流局: the wall ran out, nobody won.
    Drawn,
    /// 逃跑 (Linxian only): `leaver` abandoned the hand.
    Left {
        /// Who left.
        leaver: Seat,
    },
}

impl HandEnd {
    /// Its name in the Python API (`Outcome(dealer, end, by=…)`):
    /// `self_draw`, `discard`, `robbed_kong`, `drawn`, `left`.
    pub const fn name(self) -> &'static str {
        match self {
            HandEnd::SelfDraw => "self_draw",
            HandEnd::Discard { .. } => "discard",
            HandEnd::RobbedKong { .. } => "robbed_kong",
            HandEnd::Drawn => "drawn",
            HandEnd::Left { .. } => "left",
        }
    }

    /// The end named `end` ([`HandEnd::name`]), with `by` the seat it
    /// needs (the discarder, konger or leaver) and only then; anything
    /// else is an [`Error::InconsistentOutcome`] saying what was wrong.
    ///
    /// ```
    /// use koudian_core::score::HandEnd;
    /// assert_eq!(HandEnd::from_name("discard", Some(2)), Ok(HandEnd::Discard { discarder: 2 }));
    /// assert!(HandEnd::from_name("discard", None).is_err());
    /// assert!(HandEnd::from_name("drawn", Some(1)).is_err());
    /// ```
    pub fn from_name(end: &str, by: Option<i64>) -> Result<HandEnd, Error> {
        let bad = |m: String| Error::InconsistentOutcome(m);
        let need = |what: &str| -> Result<Seat, Error> {
            let v = by.ok_or_else(|| bad(format!("end={end:?} needs by= (the {what}'s seat)")))?;
            u8::try_from(v)
                .ok()
                .filter(|&s| s < 4)
                .ok_or_else(|| bad(format!("{what} is seat {v}; seats are 0-3")))
        };
        let alone = |e: HandEnd| match by {
            None => Ok(e),
            Some(_) => Err(bad(format!("end={end:?} takes no by= seat"))),
        };
        match end {
            "self_draw" => alone(HandEnd::SelfDraw),
            "drawn" => alone(HandEnd::Drawn),
            "discard" => Ok(HandEnd::Discard {
                discarder: need("discarder")?,
            }),
            "robbed_kong" => Ok(HandEnd::RobbedKong {
                konger: need("konger")?,
            }),
            "left" => Ok(HandEnd::Left {
                leaver: need("leaver")?,
            }),
            _ => Err(bad(format!(
                "end must be \"self_draw\", \"discard\", \"robbed_kong\", \"drawn\" or \"left\", got {end:?}"
            ))),
        }
    }
}

/// One winner: who, with which hand, on which tile.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Win {
    /// The winner's seat.
    pub seat: Seat,
    /// The complete hand, winning tile among its concealed tiles, melds
    /// (every kong of this seat in [`Outcome::kongs`]) as its own melds.
    pub hand: Hand,
    /// The tile that completed the hand.
    pub win_tile: Tile,
    /// For a win on a kong's replacement tile (杠上开花): the index in
    /// [`Outcome::kongs`] of that kong (one of the winner's own). Needs a
    /// [`HandEnd::SelfDraw`] end.
    pub kong_bloom: Option<usize>,
    /// 天胡 (Sichuan): the dealer's initial 14 tiles.
    pub heavenly: bool,
    /// 地胡 (Sichuan): a non-dealer won before any claim was made.
    pub earthly: bool,
}

impl Win {
    /// A winner with no kong bloom, 天胡 or 地胡.
    ///
    /// ```
    /// use koudian_core::{hand::Hand, tile::{parse, Tile}, score::Win};
    /// let hand = Hand::from_tiles(&parse("123m456m789m234p88s").unwrap(), &[]).unwrap();
    /// let w = Win::new(2, hand, Tile::from_notation("8s").unwrap());
    /// assert_eq!((w.seat, w.kong_bloom), (2, None));
    /// ```
    pub fn new(seat: Seat, hand: Hand, win_tile: Tile) -> Win {
        Win {
            seat,
            hand,
            win_tile,
            kong_bloom: None,
            heavenly: false,
            earthly: false,
        }
    }
}

/// One kong made during the hand (a robbed kong is not one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kong {
    /// Whose kong.
    pub owner: Seat,
    /// Its tile kind.
    pub tile: Tile,
    /// Exposed (点杠), added (补杠) or concealed (暗杠).
    pub kind: KongKind,
    /// For an exposed kong: who discarded the 4th tile (required); `None`
    /// for the other kinds.
    pub giver: Option<Seat>,
    /// Whether the giver had declared ting when he discarded the kong tile
    /// (Shanxi `kong_giver_pays`); `false` for the other kinds.
    pub giver_ting: bool,
}

impl Kong {
    /// An added or concealed kong (no giver).
    ///
    /// ```
    /// use koudian_core::{score::{Kong, KongKind}, Tile};
    /// let k = Kong::own(3, Tile::RED, KongKind::Concealed);
    /// assert_eq!(k.giver, None);
    /// ```
    pub fn own(owner: Seat, tile: Tile, kind: KongKind) -> Kong {
        Kong {
            owner,
            tile,
            kind,
            giver: None,
            giver_ting: false,
        }
    }

    /// An exposed kong claimed from `giver`'s discard; `giver_ting` says
    /// whether the giver had declared ting when he discarded it.
    ///
    /// ```
    /// use koudian_core::{score::{Kong, KongKind}, Tile};
    /// let k = Kong::exposed(3, Tile::RED, 1, false);
    /// assert_eq!((k.kind, k.giver), (KongKind::Exposed, Some(1)));
    /// ```
    pub fn exposed(owner: Seat, tile: Tile, giver: Seat, giver_ting: bool) -> Kong {
        Kong {
            owner,
            tile,
            kind: KongKind::Exposed,
            giver: Some(giver),
            giver_ting,
        }
    }
}

/// A finished hand: everything settlement needs to know.
///
/// ```
/// use koudian_core::{hand::Hand, tile::{parse, Tile}, Ruleset};
/// use koudian_core::score::{settle, HandEnd, Outcome, Win};
/// let hand = Hand::from_tiles(&parse("123m456m789m234p88s").unwrap(), &[]).unwrap();
/// let mut o = Outcome::new(0, HandEnd::SelfDraw);
/// o.winners.push(Win::new(2, hand, Tile::from_notation("8s").unwrap()));
/// o.ting[2] = true;
/// let s = settle(&o, &Ruleset::shanxi()).unwrap();
/// assert_eq!(s.deltas, [-16, -16, 48, -16]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The dealer's seat (庄家).
    pub dealer: Seat,
    /// How the hand ended.
    pub end: HandEnd,
    /// The winners: one for a win, several only on a Sichuan discard or
    /// robbed kong (一炮多响), none for a drawn or abandoned hand.
    pub winners: Vec<Win>,
    /// Which seats had declared ting (报听) by the end of the hand
    /// (Koudian; ignored in Sichuan).
    pub ting: [bool; 4],
    /// Every kong made during the hand.
    pub kongs: Vec<Kong>,
    /// Final hands of non-winners, when known (required for all four
    /// seats at a drawn Sichuan hand, for 查叫: 13 tiles counting melds as
    /// 3). Used to check tile counts; a winner's entry, if given, must
    /// equal his winning hand.
    pub hands: [Option<Hand>; 4],
    /// The hand's wild kinds (耗子), as many as the ruleset deals.
    pub wilds: Wildcards,
}

impl Outcome {
    /// An outcome with no winners, ting, kongs or hands yet.
    ///
    /// ```
    /// use koudian_core::{score::{settle, HandEnd, Outcome}, Ruleset};
    /// let drawn = Outcome::new(0, HandEnd::Drawn);
    /// assert_eq!(settle(&drawn, &Ruleset::shanxi()).unwrap().deltas, [0; 4]);
    /// ```
    pub fn new(dealer: Seat, end: HandEnd) -> Outcome {
        Outcome {
            dealer,
            end,
            winners: Vec::new(),
            ting: [false; 4],
            kongs: Vec::new(),
            hands: [None; 4],
            wilds: Wildcards::NONE,
        }
    }

    /// The winning context of winner `w` under this end: self-draw,
    /// kong replacement (from [`Win::kong_bloom`]), robbed kong, 天胡/地胡
    /// and the wild kinds, as [`hand_value`] takes them.
    ///
    /// ```
    /// use koudian_core::{hand::Hand, tile::{parse, Tile}};
    /// use koudian_core::score::{HandEnd, Outcome, Win};
    /// let hand = Hand::from_tiles(&parse("123m456m789m234p88s").unwrap(), &[]).unwrap();
    /// let o = Outcome::new(0, HandEnd::RobbedKong { konger: 1 });
    /// let ctx = o.context(&Win::new(2, hand, Tile::from_notation("8s").unwrap()));
    /// assert!(ctx.robbed_kong && !ctx.self_draw);
    /// ```
    pub fn context(&self, w: &Win) -> WinContext {
        WinContext {
            self_draw: self.end == HandEnd::SelfDraw,
            kong_replacement: w.kong_bloom.and_then(|i| self.kongs.get(i)).map(|k| k.kind),
            robbed_kong: matches!(self.end, HandEnd::RobbedKong { .. }),
            heavenly: w.heavenly,
            earthly: w.earthly,
            wilds: self.wilds,
        }
    }
}

/// What validation computed: each winner's value, in `winners` order.
pub(super) struct Checked {
    pub values: Vec<HandValue>,
}

fn bad<T>(m: String) -> Result<T, Error> {
    Err(Error::InconsistentOutcome(m))
}

fn seat_ok(what: &str, s: Seat) -> Result<(), Error> {
    if s >= 4 {
        return bad(format!("{what} is seat {s}; seats are 0-3"));
    }
    Ok(())
}

/// Checks that `o` could have happened under `rules`, and values the wins.
/// `from_table`: `o` is the outcome the table builds from its own state:
/// its ruleset was validated when the table was built, and its
/// kong list, hands and wild kinds are the table's, kept consistent move
/// by move (the soak test's census after every step, and the settlement
/// never objecting), so the ruleset, kong and hand checks cannot fail and
/// are skipped (about 750 instructions a hand); debug builds still run
/// them. The other checks and the valuation are the same.
pub(super) fn check(o: &Outcome, rules: &Ruleset, from_table: bool) -> Result<Checked, Error> {
    if from_table {
        debug_assert!(rules.validate().is_ok());
    } else {
        rules.validate()?;
    }
    seat_ok("the dealer", o.dealer)?;
    let sichuan = rules.family == Family::Sichuan;
    match o.end {
        HandEnd::SelfDraw => {
            if o.winners.len() != 1 {
                return bad(format!(
                    "a self-drawn hand has exactly one winner, {} given",
                    o.winners.len()
                ));
            }
        }
        HandEnd::Discard { discarder: d } | HandEnd::RobbedKong { konger: d } => {
            seat_ok("the discarder or konger", d)?;
            if o.winners.is_empty() {
                return bad("a hand won on a discard or robbed kong needs a winner".into());
            }
            if o.winners.len() > 1 && !sichuan {
                return bad(format!(
                    "{} winners on one tile: only Sichuan allows several (一炮多响); \
                     elsewhere the nearest player wins",
                    o.winners.len()
                ));
            }
            if o.winners.iter().any(|w| w.seat == d) {
                return bad(format!("seat {d} cannot win on his own discard or kong"));
            }
        }
        HandEnd::Drawn => {
            if !o.winners.is_empty() {
                return bad("a drawn hand (荒庄) has no winner".into());
            }
        }
        HandEnd::Left { leaver } => {
            seat_ok("the leaver", leaver)?;
            if rules.family != Family::Linxian {
                return bad("leaving a hand (逃跑) is settled only in the linxian family".into());
            }
            if !o.winners.is_empty() {
                return bad("a hand ended by a player leaving (逃跑) has no winner".into());
            }
        }
    }
    for (i, w) in o.winners.iter().enumerate() {
        seat_ok("a winner", w.seat)?;
        if o.winners[..i].iter().any(|v| v.seat == w.seat) {
            return bad(format!("seat {} is listed as a winner twice", w.seat));
        }
        if !sichuan && !o.ting[w.seat as usize] {
            return bad(format!(
                "seat {} won without having declared ting (报听)",
                w.seat
            ));
        }
        if sichuan && (w.heavenly || w.earthly) {
            if w.heavenly && w.seat != o.dealer {
                return bad(format!("seat {} is not the dealer: no 天胡", w.seat));
            }
            if w.earthly && w.seat == o.dealer {
                return bad(format!(
                    "seat {} is the dealer: 地胡 is a non-dealer's",
                    w.seat
                ));
            }
            // Before any claim (docs/rules.md §5): no pong or exposed kong,
            // hence no added kong either; a concealed kong is not a claim.
            // The winner himself has not melded: 天胡 is the initial 14,
            // 地胡 comes on his first draw or before it.
            if w.hand.n_melds() > 0 || o.kongs.iter().any(|k| k.kind != KongKind::Concealed) {
                return bad(
                    "天胡/地胡 come before any claim (a pong or a kong of another's tile)".into(),
                );
            }
        }
        if let Some(i) = w.kong_bloom {
            let Some(k) = o.kongs.get(i) else {
                return bad(format!(
                    "seat {}'s kong bloom refers to kong #{i}, but only {} kongs are listed",
                    w.seat,
                    o.kongs.len()
                ));
            };
            if k.owner != w.seat {
                return bad(format!(
                    "seat {} won on the replacement of seat {}'s kong",
                    w.seat, k.owner
                ));
            }
            if o.end != HandEnd::SelfDraw {
                return bad("a win on a kong replacement (杠上开花) is a self-draw".into());
            }
        }
    }
    if from_table {
        debug_assert!(check_kongs(o).is_ok(), "{:?}", check_kongs(o));
        debug_assert!(check_tiles(o, rules).is_ok(), "{:?}", check_tiles(o, rules));
    } else {
        check_kongs(o)?;
        check_tiles(o, rules)?;
    }
    // A deal's wild kinds are its caller's (`Deal::wilds` is public): checked
    // for the table too.
    check_wilds_and_hands(o, rules)?;
    let mut values = Vec::with_capacity(o.winners.len());
    for w in &o.winners {
        let v = hand_value(&w.hand, w.win_tile, &o.context(w), rules).map_err(|e| {
            Error::InconsistentOutcome(format!("seat {} holds no win: {e}", w.seat))
        })?;
        values.push(v);
    }
    if let HandEnd::Discard { .. } | HandEnd::RobbedKong { .. } = o.end {
        let t = o.winners[0].win_tile;
        if let Some(w) = o.winners.iter().find(|w| w.win_tile != t) {
            return bad(format!(
                "the winners of one discard won on different tiles ({t} and {})",
                w.win_tile
            ));
        }
    }
    if let HandEnd::RobbedKong { konger } = o.end {
        if let Some(h) = &o.hands[konger as usize] {
            let t = o.winners[0].win_tile;
            if !h
                .melds()
                .iter()
                .any(|m| m.kind == MeldKind::Pong && m.tile == t)
            {
                return bad(format!(
                    "seat {konger}'s robbed kong of {t} should have left a pong of {t}"
                ));
            }
        }
    }
    Ok(Checked { values })
}

fn check_kongs(o: &Outcome) -> Result<(), Error> {
    for (i, k) in o.kongs.iter().enumerate() {
        seat_ok("a kong's owner", k.owner)?;
        if let Some(j) = o.kongs[..i].iter().position(|x| x.tile == k.tile) {
            return bad(format!(
                "kongs #{j} and #{i} are both of {}: that is more than 4 copies",
                k.tile
            ));
        }
        match (k.kind, k.giver) {
            (KongKind::Exposed, None) => {
                return bad(format!("exposed kong of {} has no giver", k.tile))
            }
            (KongKind::Exposed, Some(g)) => {
                seat_ok("a kong's giver", g)?;
                if g == k.owner {
                    return bad(format!(
                        "seat {g} cannot give himself the exposed kong of {}",
                        k.tile
                    ));
                }
                if k.giver_ting && !o.ting[g as usize] {
                    return bad(format!(
                        "seat {g} had declared ting when giving the kong of {} \
                         but is not ting at the end",
                        k.tile
                    ));
                }
            }
            (kind, Some(_)) => {
                return bad(format!(
                    "{} of {} has a giver: only an exposed kong has one",
                    kind.english(),
                    k.tile
                ))
            }
            (_, None) if k.giver_ting => {
                return bad(format!(
                    "the kong of {} has no giver but giver_ting is set",
                    k.tile
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Every known hand agrees with the kong list; no kind exceeds 4
/// physical copies; tiles are in play.
fn check_tiles(o: &Outcome, rules: &Ruleset) -> Result<(), Error> {
    let mut known: [Option<&Hand>; 4] = [None; 4];
    for (s, h) in o.hands.iter().enumerate() {
        known[s] = h.as_ref();
    }
    for w in &o.winners {
        let s = w.seat as usize;
        if let Some(h) = known[s] {
            if *h != w.hand {
                return bad(format!(
                    "seat {s}'s hand differs between `winners` and `hands`"
                ));
            }
        }
        known[s] = Some(&w.hand);
    }
    let mut physical = [0u32; KINDS];
    for s in 0..4u8 {
        let mine = o.kongs.iter().filter(|k| k.owner == s);
        match known[s as usize] {
            Some(h) => {
                let mut listed: Vec<(Tile, MeldKind)> =
                    mine.map(|k| (k.tile, k.kind.meld_kind())).collect();
                let mut held: Vec<(Tile, MeldKind)> = h
                    .melds()
                    .iter()
                    .filter(|m| m.kind.is_kong())
                    .map(|m| (m.tile, m.kind))
                    .collect();
                listed.sort_by_key(|(t, k)| (*t, *k as u8));
                held.sort_by_key(|(t, k)| (*t, *k as u8));
                if listed != held {
                    return bad(format!(
                        "seat {s}'s hand holds kongs {:?} but the kong list gives {:?}",
                        held, listed
                    ));
                }
                for (p, n) in physical.iter_mut().zip(h.all_counts()) {
                    *p += n as u32;
                }
            }
            None => {
                for k in mine {
                    physical[k.tile.index()] += 4;
                }
            }
        }
    }
    // One discarded tile completes every winner's hand at once.
    if let HandEnd::Discard { .. } | HandEnd::RobbedKong { .. } = o.end {
        if let Some(w) = o.winners.first() {
            let extra = o.winners.len() as u32 - 1;
            let n = &mut physical[w.win_tile.index()];
            *n = n.saturating_sub(extra);
        }
    }
    for t in Tile::all() {
        let n = physical[t.index()];
        if n > 4 {
            return bad(format!(
                "{n} copies of {t} are in play (hands and kongs): at most 4 exist"
            ));
        }
        if n > 0 && rules.no_honors && t.is_honor() {
            return bad(format!("{t} is an honor: not in play in a 108-tile game"));
        }
    }
    Ok(())
}

/// The wild kinds are the ruleset's number; a drawn Sichuan hand gives
/// every final hand.
fn check_wilds_and_hands(o: &Outcome, rules: &Ruleset) -> Result<(), Error> {
    if o.wilds.len() != rules.wild_kinds() {
        return bad(format!(
            "the ruleset deals {} wild kind(s), the outcome gives {}",
            rules.wild_kinds(),
            o.wilds.len()
        ));
    }
    if rules.family == Family::Sichuan && o.end == HandEnd::Drawn {
        if let Some(s) = (0..4).find(|&s| o.hands[s].is_none()) {
            return bad(format!(
                "a drawn Sichuan hand needs every final hand for 查叫; seat {s}'s is missing"
            ));
        }
    }
    Ok(())
}
