//! Tiles (牌): the 34 kinds, their points, and every notation players use.
//!
//! Index convention (docs/rules.md §1, shared by every mahjong library):
//! `0..=8` 1-9 万 (`m`), `9..=17` 1-9 筒 (`p`), `18..=26` 1-9 条 (`s`),
//! `27..=33` 东南西北白发中 (`1z`..`7z`).

use crate::error::Error;
use std::fmt;

/// Number of tile kinds.
pub const KINDS: usize = 34;

/// Counts of each of the 34 kinds, the representation every hot path uses.
pub type Counts = [u8; KINDS];

/// The three suits and the honors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    /// 万 characters, `m`.
    Man,
    /// 筒 dots, `p`.
    Pin,
    /// 条 bamboo, `s`.
    Sou,
    /// 字 honors, `z`.
    Honor,
}

impl Suit {
    /// The notation letter (`m`, `p`, `s`, `z`).
    pub const fn letter(self) -> char {
        match self {
            Suit::Man => 'm',
            Suit::Pin => 'p',
            Suit::Sou => 's',
            Suit::Honor => 'z',
        }
    }
}

/// One tile kind, `0..34`.
///
/// ```
/// use koudian_core::tile::{Tile, Suit};
/// let t = Tile::from_notation("7z").unwrap();
/// assert_eq!(t, Tile::RED);
/// assert_eq!(t.points(), 10);
/// assert_eq!(Tile::new(22).unwrap().to_string(), "5s");
/// assert_eq!(Tile::new(22).unwrap().suit(), Suit::Sou);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tile(u8);

const GLYPHS: [char; KINDS] = [
    '🀇', '🀈', '🀉', '🀊', '🀋', '🀌', '🀍', '🀎', '🀏', // m
    '🀙', '🀚', '🀛', '🀜', '🀝', '🀞', '🀟', '🀠', '🀡', // p
    '🀐', '🀑', '🀒', '🀓', '🀔', '🀕', '🀖', '🀗', '🀘', // s
    '🀀', '🀁', '🀂', '🀃', '🀆', '🀅', '🀄', // E S W N white green red
];

const NUMERALS: [&str; 9] = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
const SUIT_NAMES: [&str; 3] = ["万", "筒", "条"];
const HONOR_NAMES: [&str; 7] = ["东", "南", "西", "北", "白", "发", "中"];
const HONOR_LONG_NAMES: [&str; 7] = ["东风", "南风", "西风", "北风", "白板", "发财", "红中"];

impl Tile {
    /// 1万.
    pub const M1: Tile = Tile(0);
    /// 9万.
    pub const M9: Tile = Tile(8);
    /// 1筒.
    pub const P1: Tile = Tile(9);
    /// 9筒.
    pub const P9: Tile = Tile(17);
    /// 1条.
    pub const S1: Tile = Tile(18);
    /// 9条.
    pub const S9: Tile = Tile(26);
    /// 东.
    pub const EAST: Tile = Tile(27);
    /// 南.
    pub const SOUTH: Tile = Tile(28);
    /// 西.
    pub const WEST: Tile = Tile(29);
    /// 北.
    pub const NORTH: Tile = Tile(30);
    /// 白 (white dragon).
    pub const WHITE: Tile = Tile(31);
    /// 发 (green dragon).
    pub const GREEN: Tile = Tile(32);
    /// 中 (red dragon).
    pub const RED: Tile = Tile(33);

    /// The tile of kind `index`, or an error when `index >= 34`.
    pub fn new(index: u8) -> Result<Tile, Error> {
        if (index as usize) < KINDS {
            Ok(Tile(index))
        } else {
            Err(Error::InvalidTiles(format!(
                "tile index {index} is out of range 0..34"
            )))
        }
    }

    /// The tile of kind `index`; the caller guarantees `index < 34`.
    #[inline]
    pub(crate) const fn from_index_unchecked(index: u8) -> Tile {
        Tile(index)
    }

    /// Every kind, in index order.
    pub fn all() -> impl Iterator<Item = Tile> {
        (0..KINDS as u8).map(Tile)
    }

    /// The kind's index, `0..34`.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The kind's index as a byte.
    #[inline]
    pub const fn id(self) -> u8 {
        self.0
    }

    /// Which suit (or honors).
    #[inline]
    pub const fn suit(self) -> Suit {
        match self.0 / 9 {
            0 => Suit::Man,
            1 => Suit::Pin,
            2 => Suit::Sou,
            _ => Suit::Honor,
        }
    }

    /// Rank 1-9 for suited tiles, 1-7 for honors (东南西北白发中).
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 % 9 + 1
    }

    /// Whether this is an honor (字牌).
    #[inline]
    pub const fn is_honor(self) -> bool {
        self.0 >= 27
    }

    /// Whether this is a 1, a 9 or an honor (幺九).
    #[inline]
    pub const fn is_terminal_or_honor(self) -> bool {
        self.is_honor() || self.rank() == 1 || self.rank() == 9
    }

    /// Points (点数): a suited tile is worth its rank, an honor 10.
    #[inline]
    pub const fn points(self) -> u8 {
        if self.is_honor() {
            10
        } else {
            self.rank()
        }
    }

    /// The Unicode glyph (U+1F000 block).
    pub const fn glyph(self) -> char {
        GLYPHS[self.0 as usize]
    }

    /// The Chinese name: `一万`, `五筒`, `九条`, `东`, `白`, `发`, `中`.
    pub fn chinese(self) -> String {
        if self.is_honor() {
            HONOR_NAMES[(self.0 - 27) as usize].to_string()
        } else {
            format!(
                "{}{}",
                NUMERALS[(self.rank() - 1) as usize],
                SUIT_NAMES[(self.0 / 9) as usize]
            )
        }
    }

    /// Parses exactly one tile: notation (`5m`), a glyph, or a Chinese name.
    pub fn from_notation(s: &str) -> Result<Tile, Error> {
        let tiles = parse(s)?;
        match tiles.as_slice() {
            [t] => Ok(*t),
            _ => Err(Error::InvalidTiles(format!(
                "{s:?} is {} tiles, expected exactly one",
                tiles.len()
            ))),
        }
    }

    /// The next kind in the indicator sequence (docs/rules.md §3 `indicator`):
    /// ranks wrap 9→1 in a suit, 东→南→西→北→东, 中→发→白→中.
    pub const fn indicator_next(self) -> Tile {
        let i = self.0;
        if i < 27 {
            let base = i / 9 * 9;
            Tile(base + (i - base + 1) % 9)
        } else if i < 31 {
            Tile(27 + (i - 27 + 1) % 4)
        } else {
            // 白31 发32 中33: 中→发→白→中
            match i {
                33 => Tile(32),
                32 => Tile(31),
                _ => Tile(33),
            }
        }
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank(), self.suit().letter())
    }
}

fn glyph_tile(c: char) -> Option<Tile> {
    GLYPHS.iter().position(|&g| g == c).map(|i| Tile(i as u8))
}

fn numeral_rank(c: char) -> Option<u8> {
    let s = c.to_string();
    NUMERALS
        .iter()
        .position(|&n| n == s)
        .map(|i| i as u8 + 1)
        .or(match c {
            '两' | '贰' => Some(2),
            _ => None,
        })
}

fn suit_of_char(c: char) -> Option<u8> {
    match c {
        '万' | '萬' => Some(0),
        '筒' | '饼' | '餅' => Some(1),
        '条' | '條' | '索' => Some(2),
        _ => None,
    }
}

fn honor_of_chars(chars: &[char], i: usize) -> Option<(Tile, usize)> {
    // Longest names first so that 红中 is not read as a stray 红.
    for (k, long) in HONOR_LONG_NAMES.iter().enumerate() {
        let n: Vec<char> = long.chars().collect();
        if chars[i..].starts_with(&n) {
            return Some((Tile(27 + k as u8), n.len()));
        }
    }
    let alias = match chars[i] {
        '東' => Some(0),
        '西' => Some(2),
        '北' => Some(3),
        '發' => Some(5),
        _ => None,
    };
    let c = chars[i].to_string();
    HONOR_NAMES
        .iter()
        .position(|&h| h == c)
        .or(alias)
        .map(|k| (Tile(27 + k as u8), 1))
}

/// Parses a hand in any mix of notation (`123m456p11z`), Unicode glyphs
/// (`🀇🀈`) and Chinese names (`一万二万红中`). Spaces are ignored. The
/// error names the offending character and its (0-based, in characters)
/// position.
///
/// ```
/// use koudian_core::tile::{parse, format_tiles};
/// let hand = parse("3m12m 东🀄").unwrap();
/// assert_eq!(format_tiles(&hand), "123m17z");
/// assert!(parse("12x").unwrap_err().to_string().contains("'x' at position 2"));
/// ```
pub fn parse(s: &str) -> Result<Vec<Tile>, Error> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::with_capacity(chars.len());
    let mut digits: Vec<(u8, usize)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            digits.push((c as u8 - b'0', i));
            i += 1;
            continue;
        }
        if let Some(suit) = match c {
            'm' | 'M' => Some(0u8),
            'p' | 'P' => Some(1),
            's' | 'S' => Some(2),
            'z' | 'Z' => Some(3),
            _ => None,
        } {
            if digits.is_empty() {
                return Err(bad_char(
                    c,
                    i,
                    "a suit letter must follow at least one digit",
                ));
            }
            for &(d, pos) in &digits {
                let max = if suit == 3 { 7 } else { 9 };
                if d == 0 || d > max {
                    return Err(bad_char(
                        char::from(b'0' + d),
                        pos,
                        &format!("rank must be 1-{max} before '{c}'"),
                    ));
                }
                out.push(Tile(suit * 9 + d - 1));
            }
            digits.clear();
            i += 1;
            continue;
        }
        if !digits.is_empty() {
            return Err(bad_char(c, i, "expected m, p, s or z after digits"));
        }
        if c.is_whitespace() || c == ',' {
            i += 1;
            continue;
        }
        if let Some(t) = glyph_tile(c) {
            out.push(t);
            i += 1;
            continue;
        }
        if numeral_rank(c).is_some() {
            // A run of numerals before one suit name, as players write
            // them: 四五六筒 is 456p, like 456p in notation.
            let mut end = i;
            while chars.get(end).and_then(|&n| numeral_rank(n)).is_some() {
                end += 1;
            }
            if let Some(suit) = chars.get(end).and_then(|&n| suit_of_char(n)) {
                for &n in &chars[i..end] {
                    if let Some(rank) = numeral_rank(n) {
                        out.push(Tile(suit * 9 + rank - 1));
                    }
                }
                i = end + 1;
                continue;
            }
            let at = end.min(chars.len() - 1);
            return Err(bad_char(
                chars[at],
                at,
                "Chinese numerals must be followed by 万, 筒 or 条 (一万, 四五六筒)",
            ));
        }
        if let Some((t, len)) = honor_of_chars(&chars, i) {
            out.push(t);
            i += len;
            continue;
        }
        return Err(bad_char(c, i, "not a tile"));
    }
    if let Some(&(d, pos)) = digits.first() {
        return Err(bad_char(
            char::from(b'0' + d),
            pos,
            "digits must be followed by m, p, s or z",
        ));
    }
    Ok(out)
}

fn bad_char(c: char, pos: usize, why: &str) -> Error {
    Error::InvalidTiles(format!("invalid character {c:?} at position {pos}: {why}"))
}

/// Canonical sorted notation: `123m456p789s11z`.
pub fn format_tiles(tiles: &[Tile]) -> String {
    let mut sorted = tiles.to_vec();
    sorted.sort_unstable();
    let mut s = String::new();
    for (i, t) in sorted.iter().enumerate() {
        s.push(char::from(b'0' + t.rank()));
        if sorted.get(i + 1).is_none_or(|n| n.suit() != t.suit()) {
            s.push(t.suit().letter());
        }
    }
    s
}

/// Canonical notation of a 34-count array.
pub fn format_counts(counts: &Counts) -> String {
    format_tiles(&tiles_of(counts))
}

/// Glyph rendering of tiles in the given order.
pub fn glyphs(tiles: &[Tile]) -> String {
    tiles.iter().map(|t| t.glyph()).collect()
}

/// Counts per kind. Errors only if a kind appears more than 255 times;
/// the 4-copy limit is checked by [`check_copies`].
pub fn counts_of(tiles: &[Tile]) -> Result<Counts, Error> {
    let mut c = [0u8; KINDS];
    for t in tiles {
        c[t.index()] = c[t.index()]
            .checked_add(1)
            .ok_or_else(|| Error::InvalidTiles("too many tiles".into()))?;
    }
    Ok(c)
}

/// Tiles of a count array in index order.
pub fn tiles_of(counts: &Counts) -> Vec<Tile> {
    let mut v = Vec::with_capacity(14);
    for (i, &n) in counts.iter().enumerate() {
        for _ in 0..n {
            v.push(Tile(i as u8));
        }
    }
    v
}

/// Errors when any kind has more than 4 copies.
pub fn check_copies(counts: &Counts) -> Result<(), Error> {
    for (i, &n) in counts.iter().enumerate() {
        if n > 4 {
            return Err(Error::InvalidTiles(format!(
                "{} copies of {} (at most 4 of a kind)",
                n,
                Tile(i as u8)
            )));
        }
    }
    Ok(())
}

/// The kind indices of [`KindSet::ORPHANS`] in order: the thirteen kinds
/// of thirteen orphans (幺九), for the loops over them.
pub(crate) const ORPHAN_KINDS: [usize; 13] = {
    let mut out = [0usize; 13];
    let (mut k, mut n) = (0, 0);
    while k < KINDS {
        if KindSet::ORPHANS.0 >> k & 1 == 1 {
            out[n] = k;
            n += 1;
        }
        k += 1;
    }
    out
};

/// A set of tile kinds: bit `k` for kind `k` of the 34 (a `u64` with the
/// top 30 bits clear). It is the mask the hot paths compute with, named:
/// `Copy`, every operation one or two instructions.
///
/// ```
/// use koudian_core::tile::{KindSet, Tile};
/// let mut s = KindSet::EMPTY;
/// s.insert(Tile::M1);
/// s.insert(Tile::RED);
/// assert!(s.contains(Tile::RED) && !s.contains(Tile::M9));
/// assert_eq!(s.len(), 2);
/// assert_eq!(s.iter().collect::<Vec<_>>(), [Tile::M1, Tile::RED]);
/// assert_eq!(s.union(KindSet::HONORS).len(), 8);
/// assert!(KindSet::ORPHANS.contains(Tile::S9));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KindSet(pub u64);

impl KindSet {
    /// No kind.
    pub const EMPTY: KindSet = KindSet(0);
    /// All 34 kinds.
    pub const ALL: KindSet = KindSet((1 << KINDS) - 1);
    /// The seven honors (东南西北白发中).
    pub const HONORS: KindSet = KindSet(0x7f << 27);
    /// The thirteen kinds of thirteen orphans (十三幺): the terminals and
    /// the honors.
    pub const ORPHANS: KindSet =
        KindSet(1 | 1 << 8 | 1 << 9 | 1 << 17 | 1 << 18 | 1 << 26 | 0x7f << 27);

    /// The nine kinds of suit `s` (0 万, 1 筒, 2 条), or the seven honors
    /// for `s == 3`.
    ///
    /// ```
    /// use koudian_core::tile::{KindSet, Tile};
    /// assert!(KindSet::suit(1).contains(Tile::P1));
    /// assert_eq!(KindSet::suit(3), KindSet::HONORS);
    /// ```
    #[inline]
    pub const fn suit(s: usize) -> KindSet {
        if s >= 3 {
            KindSet::HONORS
        } else {
            KindSet(0x1ff << (9 * s))
        }
    }

    /// The set of one kind.
    #[inline]
    pub const fn of(t: Tile) -> KindSet {
        KindSet(1 << t.0)
    }

    /// The kinds with at least one copy in `c`.
    ///
    /// ```
    /// use koudian_core::tile::{counts_of, parse, KindSet, Tile};
    /// let c = counts_of(&parse("112m7z").unwrap()).unwrap();
    /// let kinds: Vec<usize> = KindSet::held(&c).iter().map(Tile::index).collect();
    /// assert_eq!(kinds, [0, 1, 33]);
    /// ```
    #[inline]
    pub fn held(c: &Counts) -> KindSet {
        KindSet(
            c.iter()
                .enumerate()
                .fold(0, |m, (k, &n)| m | u64::from(n > 0) << k),
        )
    }

    /// Whether kind `t` is in the set.
    #[inline]
    pub const fn contains(self, t: Tile) -> bool {
        self.0 >> t.0 & 1 == 1
    }

    /// Adds kind `t`.
    #[inline]
    pub fn insert(&mut self, t: Tile) {
        self.0 |= 1 << t.0;
    }

    /// Removes kind `t`.
    ///
    /// ```
    /// use koudian_core::tile::{KindSet, Tile};
    /// let mut s = KindSet::HONORS;
    /// s.remove(Tile::EAST);
    /// assert_eq!((s.len(), s.contains(Tile::EAST)), (6, false));
    /// ```
    #[inline]
    pub fn remove(&mut self, t: Tile) {
        self.0 &= !(1 << t.0);
    }

    /// The kinds in either set.
    #[inline]
    pub const fn union(self, other: KindSet) -> KindSet {
        KindSet(self.0 | other.0)
    }

    /// The kinds in both sets.
    #[inline]
    pub const fn intersection(self, other: KindSet) -> KindSet {
        KindSet(self.0 & other.0)
    }

    /// The kinds of `self` not in `other`.
    ///
    /// ```
    /// use koudian_core::tile::KindSet;
    /// assert_eq!(KindSet::ORPHANS.difference(KindSet::HONORS).len(), 6);
    /// assert_eq!(KindSet::ALL.difference(KindSet::ALL), KindSet::EMPTY);
    /// ```
    #[inline]
    pub const fn difference(self, other: KindSet) -> KindSet {
        KindSet(self.0 & !other.0)
    }

    /// How many kinds the set has.
    #[inline]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set has no kind.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The lowest kind of the set, if any.
    #[inline]
    pub const fn first(self) -> Option<Tile> {
        if self.0 == 0 {
            None
        } else {
            Some(Tile(self.0.trailing_zeros() as u8))
        }
    }

    /// The kinds in index order.
    #[inline]
    pub fn iter(self) -> KindSetIter {
        KindSetIter(self.0)
    }
}

impl IntoIterator for KindSet {
    type Item = Tile;
    type IntoIter = KindSetIter;
    #[inline]
    fn into_iter(self) -> KindSetIter {
        self.iter()
    }
}

impl FromIterator<Tile> for KindSet {
    /// ```
    /// use koudian_core::tile::{KindSet, Tile};
    /// let s: KindSet = [Tile::M1, Tile::M1, Tile::P9].into_iter().collect();
    /// assert_eq!(s.len(), 2);
    /// ```
    fn from_iter<I: IntoIterator<Item = Tile>>(it: I) -> KindSet {
        let mut s = KindSet::EMPTY;
        for t in it {
            s.insert(t);
        }
        s
    }
}

/// The kinds of a [`KindSet`], lowest first.
#[derive(Clone, Debug)]
pub struct KindSetIter(u64);

impl Iterator for KindSetIter {
    type Item = Tile;
    #[inline]
    fn next(&mut self) -> Option<Tile> {
        if self.0 == 0 {
            return None;
        }
        let k = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Tile(k))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for KindSetIter {}

/// Kind masks from byte tests on counts, 16 kinds per SSE2 compare.
///
/// The counts are read as three 16-byte vectors: kinds 0-15, 16-31 and
/// 18-33 (the last load overlaps the second so that no read passes the
/// 34 bytes), and a byte test on each gives bit `k` for kind `k`.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct KindBytes([std::arch::x86_64::__m128i; 3]);

#[cfg(target_arch = "x86_64")]
impl KindBytes {
    /// The three vectors of `c`.
    #[inline(always)]
    pub(crate) fn load(c: &Counts) -> KindBytes {
        use std::arch::x86_64::_mm_loadu_si128;
        // SAFETY: SSE2 is part of the x86-64 baseline; the unaligned
        // 16-byte loads read bytes 0-15, 16-31 and 18-33 of the 34-byte
        // array.
        unsafe {
            KindBytes([
                _mm_loadu_si128(c.as_ptr().cast()),
                _mm_loadu_si128(c.as_ptr().add(16).cast()),
                _mm_loadu_si128(c.as_ptr().add(KINDS - 16).cast()),
            ])
        }
    }

    /// The kinds whose byte `test` sets to 0xff (a byte compare: every
    /// byte 0 or 0xff; only the top bit of each is read).
    #[inline(always)]
    pub(crate) fn mask(
        self,
        test: impl Fn(std::arch::x86_64::__m128i) -> std::arch::x86_64::__m128i,
    ) -> u64 {
        use std::arch::x86_64::_mm_movemask_epi8;
        // SAFETY: SSE2 is part of the x86-64 baseline.
        let m = |x| u64::from(unsafe { _mm_movemask_epi8(test(x)) } as u16);
        // Kinds 32 and 33 are the last two bytes of the third vector.
        m(self.0[0]) | m(self.0[1]) << 16 | (m(self.0[2]) >> 14) << 32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thirteen-orphans kinds, as a set and as a list, are the
    /// terminals and the honors.
    #[test]
    fn orphan_kinds_are_the_terminals_and_honors() {
        let plain: Vec<usize> = Tile::all()
            .filter(|t| t.is_terminal_or_honor())
            .map(Tile::index)
            .collect();
        assert_eq!(ORPHAN_KINDS.to_vec(), plain);
        assert_eq!(KindSet::ORPHANS.0.count_ones(), 13);
    }
}
