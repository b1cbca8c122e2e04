//! The shape functions under a whole ruleset: [`crate::shape`],
//! [`crate::waits`] and [`crate::shanten`] answer for the tiles' shape
//! alone; this layer adds the ruleset's two rules about which
//! tiles a hand may hold and win with.
//!
//! * `no_honors` (the Sichuan preset, docs/rules.md §5 "108 tiles"): an honor
//!   tile in the hand, its melds or the wild kinds is bad input, an
//!   [`Error::InvalidHand`] naming the tile (a batch names the row too).
//! * 缺一门 (the sichuan family, docs/rules.md §5): a win lacks one of the
//!   three suits. A complete hand whose tiles (concealed and melds) hold
//!   all three suits is not a win and has no decomposition; a wait is
//!   never a kind whose addition leaves the hand holding all three suits
//!   (so a 13-tile hand already holding three suits waits on nothing).
//!   Shanten stays the shape distance: it does not count the tiles needed
//!   to give up a suit.
//!
//! The batch forms see only each row's counts (and, for waits, its `held`
//! row): a meld's tiles count towards its suits only through `held`.
//!
//! Both rules are decided once per call or batch: under the other presets
//! each function is the shape function itself, at its cost.
//!
//! ```
//! use koudian_core::{hand::Hand, legal, ruleset::Ruleset, tile::parse, Wildcards};
//! let rules = legal::HandRules::from(&Ruleset::sichuan());
//! let three = Hand::from_tiles(&parse("123m456p789s11155s").unwrap(), &[]).unwrap();
//! assert!(!legal::is_win(&three, &Wildcards::NONE, &rules).unwrap());
//! let honors = Hand::from_tiles(&parse("123m456p789s11122z").unwrap(), &[]).unwrap();
//! assert!(legal::is_win(&honors, &Wildcards::NONE, &rules).is_err());
//! ```

use crate::error::Error;
use crate::hand::Hand;
use crate::ruleset::Ruleset;
use crate::shanten as core_shanten;
use crate::shape::{self, Decomposition, ShapeRules};
use crate::tile::{Counts, Suit, Tile};
use crate::waits::{self, WaitRow, Waits};
use crate::wildcard::Wildcards;

/// What a ruleset asks of a hand: its shapes, and whether honors are in
/// play and a win must lack a suit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HandRules {
    /// The shapes allowed.
    pub shape: ShapeRules,
    /// Honor tiles are not in play (`no_honors`): holding one is an error.
    pub no_honors: bool,
    /// 缺一门 (the sichuan family): a win lacks one of the three suits.
    pub que_yi_men: bool,
}

impl From<&Ruleset> for HandRules {
    fn from(r: &Ruleset) -> Self {
        HandRules {
            shape: ShapeRules::from(r),
            no_honors: r.no_honors,
            que_yi_men: r.family.needs_missing_suit(),
        }
    }
}

impl From<ShapeRules> for HandRules {
    /// The shapes alone: honors in play, no 缺一门.
    fn from(shape: ShapeRules) -> Self {
        HandRules {
            shape,
            no_honors: false,
            que_yi_men: false,
        }
    }
}

impl HandRules {
    /// Errors when honors are not in play and `all` (every tile of a hand)
    /// or the wild kinds hold one.
    pub fn check_tiles(&self, all: &Counts, wilds: &Wildcards) -> Result<(), Error> {
        if !self.no_honors {
            return Ok(());
        }
        match honor_in(all, wilds) {
            Some(t) => Err(not_in_play(t)),
            None => Ok(()),
        }
    }

    /// The hand's tiles, melds included, after the honor check; `None`
    /// when neither rule applies, so that the other families pay nothing
    /// (not even the counts) on top of the shape function.
    fn tiles_of(&self, hand: &Hand, wilds: &Wildcards) -> Result<Option<Counts>, Error> {
        if !self.no_honors && !self.que_yi_men {
            return Ok(None);
        }
        let all = hand.all_counts();
        self.check_tiles(&all, wilds)?;
        Ok(Some(all))
    }

    /// Whether the hand's tiles `all` may win at all: under 缺一门 they
    /// must lack a suit.
    fn may_win(&self, all: Option<&Counts>) -> bool {
        !self.que_yi_men || all.is_none_or(|a| suit_mask(a) != 0b111)
    }

    /// The kinds in play (bit `i` for kind `i`): the 27 suited kinds
    /// under `no_honors`, else all 34. The one place that decides which
    /// kinds a wait, a wild tile's value or a winning tile may be.
    pub fn kinds_in_play(&self) -> u64 {
        if self.no_honors {
            SUITED_KINDS
        } else {
            waits::ALL_KINDS
        }
    }

    /// `held` (empty, or one row per hand of `counts`) checked: at most 4
    /// of a kind, and at least the hand's own tiles.
    fn check_held(&self, counts: &[Counts], held: &[Counts]) -> Result<(), Error> {
        for (row, (c, h)) in counts.iter().zip(held).enumerate() {
            if let Some(k) = (0..c.len()).find(|&k| h[k] > 4 || h[k] < c[k]) {
                return Err(Error::InvalidTiles(format!(
                    "held row {row}: {} of tile index {k} (0-4, and at least the hand's {})",
                    h[k], c[k]
                )));
            }
        }
        Ok(())
    }

    /// Row by row [`HandRules::check_tiles`], naming the first bad row.
    fn check_rows(&self, counts: &[Counts], wilds: &Wildcards) -> Result<(), Error> {
        if !self.no_honors {
            return Ok(());
        }
        if let Some(t) = honor_in(&[0; 34], wilds) {
            return Err(not_in_play(t));
        }
        for (row, c) in counts.iter().enumerate() {
            if let Some(t) = honor_in(c, wilds) {
                return Err(Error::InvalidHand(format!("row {row}: {}", not_in_play(t))));
            }
        }
        Ok(())
    }
}

/// The 27 suited kinds (bit `i` for kind `i`).
const SUITED_KINDS: u64 = (1 << 27) - 1;

/// [`HandRules::kinds_in_play`] of a ruleset.
pub fn kinds_in_play(rules: &Ruleset) -> u64 {
    HandRules::from(rules).kinds_in_play()
}

/// How many kinds are in play: 27 under `no_honors`, else 34 (the kinds
/// of [`kinds_in_play`] are the first this many indices).
#[inline]
pub const fn kind_count(rules: &Ruleset) -> usize {
    rules.tile_total() / 4
}

// 缺一门 (Sichuan, docs/rules.md §5), the one definition: on counts
// ([`suit_mask`], [`que_yi_men_kinds`]) for the hand functions and
// settlement, and on kind sets ([`misses_a_suit`]) for the table's
// incremental sets.

/// The suits `all` holds (every tile of a hand, melds included): bit 0
/// 万, bit 1 饼, bit 2 条.
pub(crate) fn suit_mask(all: &Counts) -> u8 {
    [Suit::Man, Suit::Pin, Suit::Sou]
        .iter()
        .enumerate()
        .filter(|&(_, &s)| Tile::all().any(|t| t.suit() == s && all[t.index()] > 0))
        .fold(0, |m, (i, _)| m | 1 << i)
}

/// 缺一门 (docs/rules.md §5): the kinds (bit `i` for kind `i`) whose addition
/// still leaves a hand holding `all` short of one suit: every kind when
/// it holds at most one suit, none of the third suit when it holds two,
/// only the honors when it holds all three.
pub(crate) fn que_yi_men_kinds(all: &Counts) -> u64 {
    const HONORS: u64 = waits::ALL_KINDS & !SUITED_KINDS;
    let m = suit_mask(all);
    (0..3)
        .filter(|&s| m.count_ones() < 2 || (m >> s & 1 == 1 && m.count_ones() == 2))
        .fold(HONORS, |k, s| k | 0x1FF << (9 * s))
}

/// Sichuan 缺一门 on a kind set (bit `i` for kind index `i`): whether it
/// holds no kind of some suit.
#[inline(always)]
pub(crate) fn misses_a_suit(kinds: u64) -> bool {
    const SUIT: u64 = 0x1FF;
    (kinds & SUIT == 0) | (kinds & SUIT << 9 == 0) | (kinds & SUIT << 18 == 0)
}

fn honor_in(all: &Counts, wilds: &Wildcards) -> Option<Tile> {
    Tile::all()
        .filter(|t| t.is_honor())
        .find(|t| all[t.index()] > 0 || wilds.is_wild(*t))
}

fn not_in_play(t: Tile) -> Error {
    Error::InvalidHand(format!(
        "honor tile {t} is not in play (the ruleset sets no_honors: 108 tiles)"
    ))
}

/// Whether the complete hand wins under `rules`: [`shape::is_win`], and
/// under 缺一门 the hand's tiles (melds included) lack a suit. Errors on
/// an honor tile when honors are not in play.
pub fn is_win(hand: &Hand, wilds: &Wildcards, rules: &HandRules) -> Result<bool, Error> {
    let all = rules.tiles_of(hand, wilds)?;
    Ok(rules.may_win(all.as_ref())
        && shape::is_win(&hand.concealed, hand.n_melds(), wilds, &rules.shape))
}

/// [`shape::decompose()`] under `rules`: empty when [`is_win`] is false.
pub fn decompose(
    hand: &Hand,
    wilds: &Wildcards,
    rules: &HandRules,
) -> Result<Vec<Decomposition>, Error> {
    let all = rules.tiles_of(hand, wilds)?;
    if !rules.may_win(all.as_ref()) {
        return Ok(Vec::new());
    }
    Ok(shape::decompose(hand, wilds, &rules.shape))
}

/// [`waits::waits`] under `rules`: only kinds in play (no honor under
/// `no_honors`, a wild wait worth the best kind in play it stands for);
/// under 缺一门, only the kinds whose addition leaves the hand lacking a
/// suit.
pub fn waits(hand: &Hand, wilds: &Wildcards, rules: &HandRules) -> Result<Waits, Error> {
    let all = rules.tiles_of(hand, wilds)?;
    let w = waits::waits_in_play(hand, wilds, &rules.shape, rules.kinds_in_play())?;
    Ok(match all {
        Some(a) if rules.que_yi_men => w.only(que_yi_men_kinds(&a)),
        _ => w,
    })
}

/// [`core_shanten::shanten`] after the honor check: the shape distance,
/// 缺一门 not counted.
pub fn shanten(hand: &Hand, wilds: &Wildcards, rules: &HandRules) -> Result<i8, Error> {
    rules.tiles_of(hand, wilds)?;
    core_shanten::shanten(hand, wilds, &rules.shape)
}

/// [`shape::is_win_batch_checked`] under `rules` (a row holding all three
/// suits is `false` under 缺一门; an honor tile is an error naming its
/// row when honors are not in play). Returns whether every row was a
/// valid hand.
pub fn is_win_batch_checked(
    counts: &[Counts],
    n_melds: &[u8],
    wilds: &Wildcards,
    rules: &HandRules,
    out: &mut [bool],
    threads: usize,
) -> Result<bool, Error> {
    rules.check_rows(counts, wilds)?;
    let all_valid = win_batch(counts, n_melds, wilds, &rules.shape, out, threads)?;
    if rules.que_yi_men {
        drop_three_suits(counts, out);
    }
    Ok(all_valid)
}

/// [`shape::is_win_batch_checked`] compiled on its own, as a caller of the
/// shape function alone gets it (inlined into this layer, its row loop
/// took 1% more instructions per hand).
#[inline(never)]
fn win_batch(
    counts: &[Counts],
    n_melds: &[u8],
    wilds: &Wildcards,
    shape: &ShapeRules,
    out: &mut [bool],
    threads: usize,
) -> Result<bool, Error> {
    shape::is_win_batch_checked(counts, n_melds, wilds, shape, out, threads)
}

/// 缺一门 over a batch's answers: a second pass, out of line, so that the
/// shape batch's loop is compiled as it is for the other families.
#[cold]
#[inline(never)]
fn drop_three_suits(counts: &[Counts], out: &mut [bool]) {
    for (h, r) in counts.iter().zip(out.iter_mut()) {
        *r &= suit_mask(h) != 0b111;
    }
}

/// [`waits::waits_batch_checked`] under `rules`: only kinds in play
/// ([`HandRules::kinds_in_play`]); under 缺一门 a row keeps only the waits
/// that leave it lacking a suit (its suits read from its `held` row when
/// given, else from its counts). A `held` row with a count above 4 or
/// below the row's own is an [`Error::InvalidTiles`] naming the row.
pub fn waits_batch_checked<O: WaitRow>(
    counts: &[Counts],
    n_melds: &[u8],
    held: &[Counts],
    wilds: &Wildcards,
    rules: &HandRules,
    out: &mut [O],
    threads: usize,
) -> Result<bool, Error> {
    rules.check_rows(counts, wilds)?;
    rules.check_held(counts, held)?;
    let in_play = rules.kinds_in_play();
    if !rules.que_yi_men {
        return waits::waits_batch_only(
            counts,
            n_melds,
            held,
            wilds,
            &rules.shape,
            out,
            threads,
            in_play,
            |_| u64::MAX,
        );
    }
    waits::waits_batch_only(
        counts,
        n_melds,
        held,
        wilds,
        &rules.shape,
        out,
        threads,
        in_play,
        que_yi_men_kinds,
    )
}

/// [`core_shanten::shanten_batch`] after the honor check (shape distance,
/// 缺一门 not counted).
pub fn shanten_batch(
    counts: &[Counts],
    n_melds: &[u8],
    wilds: &Wildcards,
    rules: &HandRules,
    out: &mut [i8],
    threads: usize,
) -> Result<(), Error> {
    rules.check_rows(counts, wilds)?;
    core_shanten::shanten_batch(counts, n_melds, wilds, &rules.shape, out, threads)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile::{counts_of, parse};

    fn hand(s: &str) -> Hand {
        Hand::from_tiles(&parse(s).unwrap(), &[]).unwrap()
    }

    #[test]
    fn sichuan_que_yi_men_win_and_waits() {
        let r = HandRules::from(&Ruleset::sichuan());
        let w = Wildcards::NONE;
        assert!(!is_win(&hand("123m456p789s11155s"), &w, &r).unwrap());
        assert!(decompose(&hand("123m456p789s11155s"), &w, &r)
            .unwrap()
            .is_empty());
        assert!(is_win(&hand("123m456m789s11155s"), &w, &r).unwrap());
        // 123m 456p 789s 5s5s + ?: every wait adds to a three-suit hand.
        assert!(waits(&hand("123m456p789s1155s"), &w, &r)
            .unwrap()
            .is_empty());
        // Two suits: waits on 1s/5s stay, both in the held suits.
        let two = waits(&hand("123m456m789s1155s"), &w, &r).unwrap();
        assert_eq!(two.len(), 2);
        // The batch agrees.
        let c = [counts_of(&parse("123m456p789s11155s").unwrap()).unwrap()];
        let mut out = [true];
        assert!(is_win_batch_checked(&c, &[0], &w, &r, &mut out, 1).unwrap());
        assert!(!out[0]);
        // Honors are bad input.
        let e = is_win(&hand("123m456p789s11122z"), &w, &r).unwrap_err();
        assert!(e.to_string().contains("honor tile 1z"));
        // Shanxi is the shape alone.
        let s = HandRules::from(&Ruleset::shanxi());
        assert!(is_win(&hand("123m456p789s11155s"), &w, &s).unwrap());
    }
}
