//! The wall (牌墙): the seeded shuffle, the dice, the deal, wildcard choice,
//! and prepared walls for tests and puzzles.
//!
//! Drawing order: the wall is an array in drawing order. Ordinary draws
//! take from the front; replacement tiles after a kong from the back
//! (`kong_draw = "tail"`) or the front (`"front"`). Dealing: starting with
//! the dealer and going round in turn order, each seat takes 13
//! consecutive tiles from the front, then the dealer takes one more.
//!
//! Dice (`dice`, Linxian; 林县 text: "參與遊戲人分別擲色子，所擲兩顆色子點數
//! 相加，擲數大者為首起東家"; "莊家擲色子……從莊家開始數起……由壘該垛的遊戲者
//! 再擲色子一次……加上莊家所擲色子的點數"):
//!
//! * First dealer, only when none is given (a match's first hand): seats
//!   0-3 each roll two dice; the highest sum deals. When several tie for
//!   the highest, only they roll again (in seat order), until one is
//!   highest (the text says nothing of ties; re-rolling is the usual
//!   practice). Every roll is kept in [`Deal::dealer_rolls`].
//! * Break point: the dealer rolls two dice (sum `d`); counting the dealer
//!   as 1 in turn order, seat `w = (dealer + d - 1) mod 4` owns the wall
//!   that is opened; `w` rolls two dice (sum `o`); `d + o` stacks (two
//!   tiles a stack) are left from that wall's right end and drawing starts
//!   after them: the shuffled wall is rotated to start at tile
//!   `(w × (tiles / 4) + 2 (d + o)) mod tiles`. [`Deal::dice`] is
//!   `[dealer's pair, owner's pair]`.
//!
//! Every die comes from the game's RNG after the shuffle: the roll-off
//! first, then the dealer's pair and the owner's pair.
//!
//! Randomness: [`Prng`] ([`crate::rng`]), so a seed means the same wall
//! on every platform for a given engine version.

use crate::error::Error;
use crate::ruleset::{Haozi, HaoziPick, Ruleset};
use crate::tile::{Tile, KINDS};
use crate::wildcard::Wildcards;

/// The table's random source and the seed mixer, defined in
/// [`crate::rng`] (this path is public API).
pub use crate::rng::{mix_seed, Prng};

/// Most tiles a wall holds.
pub const MAX_TILES: usize = 136;

/// A full wall before the shuffle: four of each kind, in kind order.
const IN_KIND_ORDER: [Tile; MAX_TILES] = {
    let mut t = [Tile::M1; MAX_TILES];
    let mut i = 0;
    while i < MAX_TILES {
        t[i] = Tile::from_index_unchecked((i / 4) as u8);
        i += 1;
    }
    t
};

/// The tiles of the wall in drawing order, with the front and back
/// positions of the live part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wall {
    tiles: [Tile; MAX_TILES],
    len: u8,
    head: u8,
    tail: u8,
}

impl Wall {
    /// A wall from tiles in drawing order; it must hold exactly 4 copies
    /// of each kind in play (34 kinds, or the 27 suited kinds with
    /// `no_honors`).
    ///
    /// ```
    /// use koudian_core::game::Wall;
    /// use koudian_core::{Ruleset, Tile};
    /// let tiles: Vec<Tile> = Tile::all().flat_map(|t| [t; 4]).collect();
    /// assert_eq!(Wall::from_tiles(&Ruleset::shanxi(), &tiles).unwrap().remaining(), 136);
    /// assert!(Wall::from_tiles(&Ruleset::shanxi(), &tiles[1..]).is_err());
    /// ```
    pub fn from_tiles(rules: &Ruleset, tiles: &[Tile]) -> Result<Wall, Error> {
        let total = rules.tile_total();
        let kinds = crate::legal::kind_count(rules);
        let mut counts = [0usize; KINDS];
        for t in tiles {
            counts[t.index()] += 1;
        }
        for (k, &n) in counts.iter().enumerate() {
            let want = if k < kinds { 4 } else { 0 };
            if n != want {
                return Err(Error::InvalidTiles(format!(
                    "a wall of {total} tiles holds {want} of {}, this one holds {n}",
                    Tile::from_index_unchecked(k as u8)
                )));
            }
        }
        let mut arr = [Tile::M1; MAX_TILES];
        arr[..total].copy_from_slice(tiles);
        Ok(Wall {
            tiles: arr,
            len: total as u8,
            head: 0,
            tail: total as u8,
        })
    }

    /// Every tile of the wall in drawing order, drawn ones included.
    pub fn tiles(&self) -> &[Tile] {
        &self.tiles[..self.len as usize]
    }

    /// Tiles not yet drawn (live and reserved).
    #[inline]
    pub fn remaining(&self) -> usize {
        (self.tail - self.head) as usize
    }

    /// Index of the next front draw.
    #[inline]
    pub fn head(&self) -> usize {
        self.head as usize
    }

    /// One past the index of the next back draw.
    #[inline]
    pub fn tail(&self) -> usize {
        self.tail as usize
    }

    /// A wall of `tiles` (all of the ruleset's, in drawing order) drawn
    /// to `head` from the front and to `tail` from the back: a rebuilt
    /// position's ([`super::position`], which checks the census).
    pub(crate) fn positioned(tiles: &[Tile], head: usize, tail: usize) -> Wall {
        let mut w = Wall {
            tiles: [Tile::M1; MAX_TILES],
            len: tiles.len().min(MAX_TILES) as u8,
            head: 0,
            tail: 0,
        };
        w.tiles[..w.len as usize].copy_from_slice(&tiles[..w.len as usize]);
        w.tail = tail.min(w.len as usize) as u8;
        w.head = head.min(w.tail as usize) as u8;
        w
    }

    /// The undrawn tiles, front first.
    pub fn undrawn(&self) -> &[Tile] {
        &self.tiles[self.head as usize..self.tail as usize]
    }

    #[inline]
    pub(crate) fn draw_front(&mut self) -> Tile {
        let t = self.tiles[self.head as usize];
        self.head += 1;
        t
    }

    /// Takes `n` tiles from the front at once (at most those left).
    #[inline]
    pub(crate) fn skip_front(&mut self, n: usize) {
        self.head += n.min(self.remaining()) as u8;
    }

    #[inline]
    pub(crate) fn draw_back(&mut self) -> Tile {
        self.tail -= 1;
        self.tiles[self.tail as usize]
    }
}

/// The first dealer by the dice: seats 0-3 each roll two dice, the tied
/// highest roll again until one is highest. Returns the dealer and every
/// roll in order.
fn roll_for_dealer(rng: &mut Prng) -> (u8, Vec<[u8; 2]>) {
    let mut rolls = Vec::with_capacity(4);
    let mut rolling: Vec<u8> = vec![0, 1, 2, 3];
    loop {
        let round: Vec<[u8; 2]> = rolling.iter().map(|_| [rng.die(), rng.die()]).collect();
        rolls.extend_from_slice(&round);
        match dealer_of_round(&rolling, &round) {
            Ok(seat) => return (seat, rolls),
            Err(tied) => rolling = tied,
        }
    }
}

/// One round of the first-dealer roll-off: the seat with the one highest
/// sum, or the seats tied for it.
fn dealer_of_round(seats: &[u8], round: &[[u8; 2]]) -> Result<u8, Vec<u8>> {
    let best = round.iter().map(|r| r[0] + r[1]).max().unwrap_or(0);
    let top: Vec<u8> = seats
        .iter()
        .zip(round)
        .filter(|(_, r)| r[0] + r[1] == best)
        .map(|(&s, _)| s)
        .collect();
    if top.len() == 1 {
        Ok(top[0])
    } else {
        Err(top)
    }
}

/// Checks recorded first-dealer rolls: dice 1-6, each round made of the
/// seats tied in the round before (all four at first), and the last round
/// won by `dealer` alone.
pub(crate) fn check_dealer_rolls(rolls: &[[u8; 2]], dealer: u8) -> Result<(), String> {
    if rolls.iter().flatten().any(|x| !(1..=6).contains(x)) {
        return Err("dealer_rolls: dice must be 1-6".into());
    }
    let mut seats: Vec<u8> = vec![0, 1, 2, 3];
    let mut rest = rolls;
    loop {
        if rest.len() < seats.len() {
            return Err(format!(
                "dealer_rolls: the roll-off ends before one seat is highest ({} rolls)",
                rolls.len()
            ));
        }
        let (round, after) = rest.split_at(seats.len());
        match dealer_of_round(&seats, round) {
            Ok(seat) if after.is_empty() => {
                return if seat == dealer {
                    Ok(())
                } else {
                    Err(format!(
                        "dealer_rolls: seat {seat} rolled highest but the dealer is seat {dealer}"
                    ))
                }
            }
            Ok(seat) => {
                return Err(format!(
                    "dealer_rolls: {} rolls after seat {seat} rolled highest",
                    after.len()
                ))
            }
            Err(tied) => {
                seats = tied;
                rest = after;
            }
        }
    }
}

/// Where the wall starts after the break-point dice `d` (dealer's pair,
/// then the opened wall owner's pair), in tiles from the shuffled wall's
/// front.
fn break_start(total: usize, dealer: u8, d: [u8; 4]) -> usize {
    let first = (d[0] + d[1]) as usize;
    let owner = (dealer as usize + first - 1) % 4;
    let stacks = first + (d[2] + d[3]) as usize;
    let per_side = total / 4;
    (owner * per_side + 2 * stacks) % total
}

/// Everything fixed before the first action: the wall, the dealer, the
/// dice and the wildcards. [`Deal::random`] makes one from a seed;
/// [`Deal::prepared`] and [`Deal::arranged`] from given tiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deal {
    /// The wall in drawing order (hands are dealt from its front).
    pub wall: Wall,
    /// The dealer's seat.
    pub dealer: u8,
    /// The break-point dice, when rolled: the dealer's pair (which picks
    /// the wall to open) then the pair of that wall's owner (which, added
    /// to the dealer's, counts the stacks left before the first draw).
    pub dice: Option<[u8; 4]>,
    /// The rolls that chose the first dealer, when the dice chose one: the
    /// first round is seats 0-3 in order; each later round is the seats
    /// tied for the highest sum of the round before, in seat order. The
    /// dealer is the one highest sum of the last round. `None` when the
    /// dealer was given or no dice are rolled.
    pub dealer_rolls: Option<Vec<[u8; 2]>>,
    /// The wild kinds.
    pub wilds: Wildcards,
    /// With `haozi_pick = "indicator"`: how many tiles at the back of the
    /// wall were turned face up to find the wild kinds (they stay in the
    /// wall, face up).
    pub revealed: u8,
}

impl Deal {
    /// The deal of `seed`: shuffle, dice (when the ruleset rolls them: the
    /// first-dealer roll-off only when `dealer` is `None`, then the
    /// break-point pairs; see the module doc), wildcards.
    ///
    /// ```
    /// use koudian_core::game::Deal;
    /// use koudian_core::Ruleset;
    /// let a = Deal::random(&Ruleset::shanxi(), 42, None).unwrap();
    /// assert_eq!(a, Deal::random(&Ruleset::shanxi(), 42, None).unwrap());
    /// assert_eq!(a.dealer, 0);
    /// ```
    pub fn random(rules: &Ruleset, seed: u64, dealer: Option<u8>) -> Result<Deal, Error> {
        rules.validate()?;
        check_seat(dealer)?;
        let mut rng = Prng::new(seed);
        let total = rules.tile_total();
        // Four of each kind in kind order, then (walls without honors)
        // the unused places as a prepared wall leaves them.
        let mut tiles = IN_KIND_ORDER;
        tiles[total.min(MAX_TILES)..].fill(Tile::M1);
        rng.shuffle(&mut tiles[..total]);
        let mut dice = None;
        let mut dealer_rolls = None;
        let mut dealer_seat = dealer.unwrap_or(0);
        if rules.dice {
            if dealer.is_none() {
                let (seat, rolls) = roll_for_dealer(&mut rng);
                dealer_seat = seat;
                dealer_rolls = Some(rolls);
            }
            let d = [rng.die(), rng.die(), rng.die(), rng.die()];
            tiles[..total].rotate_left(break_start(total, dealer_seat, d));
            dice = Some(d);
        }
        let mut wall = Wall {
            tiles,
            len: total as u8,
            head: 0,
            tail: total as u8,
        };
        let (wilds, revealed) = match rules.haozi_pick {
            HaoziPick::Random => (random_wilds(rules, &mut rng), 0),
            HaoziPick::Indicator => indicator_wilds(rules, &wall)?,
        };
        wall.head = 0;
        Ok(Deal {
            wall,
            dealer: dealer_seat,
            dice,
            dealer_rolls,
            wilds,
            revealed,
        })
    }

    /// A deal of a given wall (drawing order). `wilds` must be given for a
    /// wildcard ruleset with `haozi_pick = "random"`; with `"indicator"`
    /// it may be left out and is then read from the back of the wall.
    pub fn prepared(
        rules: &Ruleset,
        tiles: &[Tile],
        dealer: u8,
        wilds: Option<&[Tile]>,
    ) -> Result<Deal, Error> {
        rules.validate()?;
        check_seat(Some(dealer))?;
        let wall = Wall::from_tiles(rules, tiles)?;
        let (wilds, revealed) = match (wilds, rules.haozi_pick) {
            (Some(w), _) => (checked_wilds(rules, w)?, 0),
            (None, _) if rules.haozi == Haozi::None => (Wildcards::NONE, 0),
            (None, HaoziPick::Indicator) => indicator_wilds(rules, &wall)?,
            (None, HaoziPick::Random) => {
                return Err(Error::InvalidTiles(
                    "a prepared deal of a wildcard ruleset with haozi_pick = \"random\" \
                     needs the wild kinds"
                        .into(),
                ))
            }
        };
        Ok(Deal {
            wall,
            dealer,
            dice: None,
            dealer_rolls: None,
            wilds,
            revealed,
        })
    }

    /// A deal built from what matters in a test or puzzle: each seat's
    /// starting tiles (`hands[seat]`, 14 for the dealer, 13 for the others,
    /// in notation), the tiles drawn from the front after the deal, in
    /// order, and the tiles drawn from the back (kong replacements), in
    /// order. The rest of the wall is filled with the remaining tiles in
    /// kind order.
    ///
    /// ```
    /// use koudian_core::game::Deal;
    /// use koudian_core::Ruleset;
    /// let d = Deal::arranged(&Ruleset::shanxi(),
    ///     ["11122233344455m", "1112223334445p", "1112223334445s", "1111222233334z"],
    ///     "9m", "", 0, None).unwrap();
    /// assert_eq!(d.wall.tiles()[53].to_string(), "9m");
    /// ```
    pub fn arranged(
        rules: &Ruleset,
        hands: [&str; 4],
        front: &str,
        back: &str,
        dealer: u8,
        wilds: Option<&[Tile]>,
    ) -> Result<Deal, Error> {
        check_seat(Some(dealer))?;
        let mut parsed: Vec<Vec<Tile>> = Vec::with_capacity(4);
        for (seat, h) in hands.iter().enumerate() {
            let tiles = crate::tile::parse(h)?;
            let want = if seat as u8 == dealer { 14 } else { 13 };
            if tiles.len() != want {
                return Err(Error::InvalidTiles(format!(
                    "seat {seat} must start with {want} tiles, got {}",
                    tiles.len()
                )));
            }
            parsed.push(tiles);
        }
        let front = crate::tile::parse(front)?;
        let back = crate::tile::parse(back)?;
        let total = rules.tile_total();
        let mut left = [0i32; KINDS];
        for k in left.iter_mut().take(crate::legal::kind_count(rules)) {
            *k = 4;
        }
        let mut head: Vec<Tile> = Vec::with_capacity(total);
        for i in 0..4 {
            let seat = (dealer as usize + i) % 4;
            head.extend_from_slice(&parsed[seat][..13]);
        }
        head.push(parsed[dealer as usize][13]);
        head.extend_from_slice(&front);
        for t in head.iter().chain(back.iter()) {
            left[t.index()] -= 1;
            if left[t.index()] < 0 {
                return Err(Error::InvalidTiles(format!(
                    "the arranged wall uses more {t} than the {total}-tile set holds"
                )));
            }
        }
        let mut tiles = head;
        for (k, &n) in left.iter().enumerate() {
            for _ in 0..n {
                tiles.push(Tile::from_index_unchecked(k as u8));
            }
        }
        tiles.extend(back.iter().rev());
        Deal::prepared(rules, &tiles, dealer, wilds)
    }
}

fn check_seat(seat: Option<u8>) -> Result<(), Error> {
    match seat {
        Some(s) if s > 3 => Err(Error::IllegalAction(format!(
            "seat {s} does not exist (seats are 0-3)"
        ))),
        _ => Ok(()),
    }
}

fn checked_wilds(rules: &Ruleset, kinds: &[Tile]) -> Result<Wildcards, Error> {
    let w = Wildcards::new(kinds)?;
    if w.len() != rules.wild_kinds() {
        return Err(Error::InvalidTiles(format!(
            "the ruleset has {} wild kind(s), {} given",
            rules.wild_kinds(),
            w.len()
        )));
    }
    for t in w.kinds() {
        if rules.haozi == Haozi::Feng && !t.is_honor() {
            return Err(Error::InvalidTiles(format!(
                "feng-haozi wildcards are honors; {t} is not"
            )));
        }
        if t.index() >= crate::legal::kind_count(rules) {
            return Err(Error::InvalidTiles(format!("{t} is not in play")));
        }
    }
    Ok(w)
}

fn random_wilds(rules: &Ruleset, rng: &mut Prng) -> Wildcards {
    let kinds = crate::legal::kind_count(rules) as u32;
    let t = |i: u32| Tile::from_index_unchecked(i as u8);
    match rules.haozi {
        Haozi::None => Wildcards::NONE,
        Haozi::Single => Wildcards::new(&[t(rng.below(kinds))]).unwrap_or_default(),
        Haozi::Feng => Wildcards::new(&[t(27 + rng.below(7))]).unwrap_or_default(),
        Haozi::Double => {
            let a = rng.below(kinds);
            let mut b = rng.below(kinds - 1);
            if b >= a {
                b += 1;
            }
            Wildcards::new(&[t(a), t(b)]).unwrap_or_default()
        }
    }
}

/// The indicator rule of docs/rules.md §3: the last wall tile is turned up and
/// the next kind is wild; `feng` keeps turning tiles until an honor shows;
/// `double` makes the next two kinds wild.
fn indicator_wilds(rules: &Ruleset, wall: &Wall) -> Result<(Wildcards, u8), Error> {
    let tiles = wall.tiles();
    match rules.haozi {
        Haozi::None => Ok((Wildcards::NONE, 0)),
        Haozi::Single => {
            let ind = tiles[tiles.len() - 1];
            Ok((Wildcards::new(&[ind.indicator_next()])?, 1))
        }
        Haozi::Double => {
            let a = tiles[tiles.len() - 1].indicator_next();
            Ok((Wildcards::new(&[a, a.indicator_next()])?, 1))
        }
        Haozi::Feng => {
            for (i, t) in tiles.iter().rev().enumerate() {
                if t.is_honor() {
                    return Ok((Wildcards::new(&[t.indicator_next()])?, i as u8 + 1));
                }
            }
            Err(Error::InvalidTiles(
                "the wall holds no honor to indicate".into(),
            ))
        }
    }
}
