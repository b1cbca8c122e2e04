//! A player's hand: concealed tiles as counts, plus exposed or concealed
//! melds (副露). Fixed size, no allocation, so hot loops can copy it.

use crate::error::Error;
use crate::tile::{check_copies, Counts, Tile, KINDS};

/// The kinds of meld (docs/rules.md §3 "Kinds of kong").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeldKind {
    /// 碰: three of a kind claimed from a discard.
    Pong,
    /// 点杠/吃杠: a discard claimed onto a concealed triplet.
    ExposedKong,
    /// 补杠/明杠: a drawn tile added to one's own pong.
    AddedKong,
    /// 暗杠: four drawn tiles.
    ConcealedKong,
}

impl MeldKind {
    /// The kind's name in logs and the wire format (`"pong"`,
    /// `"exposed_kong"`, `"added_kong"`, `"concealed_kong"`): the one
    /// spelling every writer uses.
    ///
    /// ```
    /// use koudian_core::hand::MeldKind;
    /// assert_eq!(MeldKind::ExposedKong.name(), "exposed_kong");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            MeldKind::Pong => "pong",
            MeldKind::ExposedKong => "exposed_kong",
            MeldKind::AddedKong => "added_kong",
            MeldKind::ConcealedKong => "concealed_kong",
        }
    }

    /// Whether this meld is a kong (4 tiles).
    pub const fn is_kong(self) -> bool {
        !matches!(self, MeldKind::Pong)
    }

    /// Physical tiles in the meld.
    pub const fn size(self) -> u8 {
        if self.is_kong() {
            4
        } else {
            3
        }
    }
}

/// One meld: a kind and the tile it is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Meld {
    /// Pong or which kong.
    pub kind: MeldKind,
    /// The tile kind.
    pub tile: Tile,
}

impl Meld {
    /// A meld of `kind` made of `tile`.
    pub const fn new(kind: MeldKind, tile: Tile) -> Meld {
        Meld { kind, tile }
    }

    /// A meld from its notation (its `Display`): `"555z"` (pong),
    /// `"5555z"` (exposed kong), `"+5555z"` (added kong) or `"[5555z]"`
    /// (concealed kong). A malformed meld is an [`Error::InvalidHand`]
    /// saying how to write one; a bad tile an [`Error::InvalidTiles`].
    ///
    /// ```
    /// use koudian_core::hand::{Meld, MeldKind};
    /// use koudian_core::tile::Tile;
    /// let m = Meld::parse("+5555z").unwrap();
    /// assert_eq!(m, Meld::new(MeldKind::AddedKong, Tile::WHITE));
    /// assert_eq!(m.to_string(), "+5555z");
    /// assert!(Meld::parse("55z").is_err());
    /// ```
    pub fn parse(s: &str) -> Result<Meld, Error> {
        let t = s.trim();
        let (body, hint) = if let Some(b) = t.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
            (b, Some(MeldKind::ConcealedKong))
        } else if let Some(b) = t.strip_prefix('+') {
            (b, Some(MeldKind::AddedKong))
        } else {
            (t, None)
        };
        let tiles = crate::tile::parse(body)?;
        let bad = |why: &str| {
            Error::InvalidHand(format!(
                "meld {s:?}: {why}; write \"555z\" (pong), \"5555z\" (exposed kong), \
                 \"+5555z\" (added kong) or \"[5555z]\" (concealed kong)"
            ))
        };
        let first = *tiles.first().ok_or_else(|| bad("no tiles"))?;
        if tiles.iter().any(|&x| x != first) {
            return Err(bad("a meld is made of one kind"));
        }
        let kind = match (tiles.len(), hint) {
            (3, None) => MeldKind::Pong,
            (4, None) => MeldKind::ExposedKong,
            (4, Some(k)) => k,
            _ => return Err(bad("a pong has 3 tiles and a kong 4")),
        };
        Ok(Meld::new(kind, first))
    }
}

/// The meld's notation, as [`Meld::parse`] reads it.
impl std::fmt::Display for Meld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let body = crate::tile::format_tiles(&vec![self.tile; self.kind.size() as usize]);
        match self.kind {
            MeldKind::Pong | MeldKind::ExposedKong => f.write_str(&body),
            MeldKind::AddedKong => write!(f, "+{body}"),
            MeldKind::ConcealedKong => write!(f, "[{body}]"),
        }
    }
}

/// Up to four melds, stored inline.
pub const MAX_MELDS: usize = 4;

/// Concealed tiles plus melds.
///
/// ```
/// use koudian_core::hand::{Hand, Meld, MeldKind};
/// use koudian_core::tile::{parse, Tile};
/// let hand = Hand::from_tiles(&parse("123m456p789s1z").unwrap(),
///     &[Meld::new(MeldKind::Pong, Tile::RED)]).unwrap();
/// assert_eq!(hand.n_melds(), 1);
/// assert_eq!(hand.tile_count(), 10);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hand {
    /// Concealed tiles, wild tiles included at their own index.
    pub concealed: Counts,
    melds: [Meld; MAX_MELDS],
    n_melds: u8,
}

impl Hand {
    /// The hand without tiles or melds (what `Hand::new([0; KINDS], &[])`
    /// returns, without its check: the table deals into it every hand).
    pub(crate) const EMPTY: Hand = Hand {
        concealed: [0; KINDS],
        melds: [Meld::new(MeldKind::Pong, Tile::M1); MAX_MELDS],
        n_melds: 0,
    };

    /// A hand from counts and melds; checks the 4-copy limit (melds
    /// included) and that there are at most 4 melds.
    pub fn new(concealed: Counts, melds: &[Meld]) -> Result<Hand, Error> {
        if melds.len() > MAX_MELDS {
            return Err(Error::InvalidHand(format!(
                "{} melds, at most {MAX_MELDS}",
                melds.len()
            )));
        }
        let mut arr = [Meld::new(MeldKind::Pong, Tile::M1); MAX_MELDS];
        arr[..melds.len()].copy_from_slice(melds);
        let hand = Hand {
            concealed,
            melds: arr,
            n_melds: melds.len() as u8,
        };
        check_copies(&hand.all_counts())?;
        Ok(hand)
    }

    /// A hand from a tile list and melds.
    pub fn from_tiles(tiles: &[Tile], melds: &[Meld]) -> Result<Hand, Error> {
        let mut c = [0u8; KINDS];
        for t in tiles {
            c[t.index()] = c[t.index()].saturating_add(1);
        }
        Hand::new(c, melds)
    }

    /// The melds.
    #[inline]
    pub fn melds(&self) -> &[Meld] {
        &self.melds[..self.n_melds as usize]
    }

    /// Number of melds.
    #[inline]
    pub fn n_melds(&self) -> usize {
        self.n_melds as usize
    }

    /// Adds a meld (the caller removes its tiles from `concealed`).
    pub fn push_meld(&mut self, meld: Meld) -> Result<(), Error> {
        if self.n_melds as usize >= MAX_MELDS {
            return Err(Error::InvalidHand("a hand holds at most 4 melds".into()));
        }
        self.melds[self.n_melds as usize] = meld;
        self.n_melds += 1;
        Ok(())
    }

    /// Replaces meld `i` (a pong becoming an added kong).
    pub fn set_meld(&mut self, i: usize, meld: Meld) {
        if i < self.n_melds as usize {
            self.melds[i] = meld;
        }
    }

    /// Number of concealed tiles.
    #[inline]
    pub fn tile_count(&self) -> usize {
        self.concealed.iter().map(|&n| n as usize).sum()
    }

    /// Counts of concealed tiles plus every physical tile in melds.
    pub fn all_counts(&self) -> Counts {
        let mut c = self.concealed;
        for m in self.melds() {
            c[m.tile.index()] = c[m.tile.index()].saturating_add(m.kind.size());
        }
        c
    }

    /// Checks that the concealed part has `14 - 3 × melds` tiles (a
    /// complete hand) or `13 - 3 × melds` (one short), as `expected`
    /// says; the error states the expected size.
    pub fn check_size(&self, complete: bool) -> Result<(), Error> {
        let want = if complete { 14 } else { 13 } - 3 * self.n_melds();
        let have = self.tile_count();
        if have != want {
            return Err(Error::InvalidHand(format!(
                "hand has {have} concealed tiles; with {} meld(s) a {} hand needs {want}",
                self.n_melds(),
                if complete { "complete" } else { "waiting" }
            )));
        }
        Ok(())
    }
}
