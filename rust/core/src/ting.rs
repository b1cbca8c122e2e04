//! Declaring ready (报听) and who may win on what (docs/rules.md §3, §4).
//!
//! * [`can_declare_ting`]: ting is declared together with a discard; after
//!   that discard the hand must be ready with a wait worth at least
//!   `ting_min_points` (6 in Shanxi, 3 in Linxian). A wild wait is worth
//!   the best kind it can stand for (docs/rules.md §2), so it counts at that
//!   value. Rulesets without ting (`ting_required = false`, Sichuan) never
//!   declare.
//! * [`may_win`]: the `point_rule` (`standard`: 1-2 never, 3-5 self-draw
//!   only, 6+ both; `strict`: 1-4 never, 5 self-draw only, 6+ both;
//!   `none`: always). Linxian's "6+ on a discard, 3+ by self-draw" is the
//!   standard rule. Robbing a kong counts as winning on a discard.
//! * [`winning_tile_points`]: a natural tile is worth its points; a
//!   self-drawn wild tile is worth the highest points among the hand's
//!   waits (equal to what the wild wait is worth: any natural wait is a
//!   kind the wild tile could stand for); a discarded wild tile can never
//!   be claimed, so it wins nothing.
//! * [`ting_kong_allowed`]: after declaring, a kong is allowed if the hand
//!   is still ready with a wait worth `ting_min_points` or more; with
//!   `kong_keeps_waits` (改变听口不能杠; on in Linxian) only if the waiting
//!   kinds stay exactly the same (decision: the kinds are compared, not
//!   the wild wait's value, which follows from them).

use crate::error::Error;
use crate::hand::Hand;
use crate::ruleset::Ruleset;
use crate::shape::ShapeRules;
use crate::tile::{check_copies, Tile};
use crate::waits::{waits_in_play, Waits};
use crate::wildcard::Wildcards;

/// Whether a winning tile worth `points` may win, by self-draw or on a
/// discard (robbing a kong counts as a discard), under `rules.point_rule`.
///
/// ```
/// use koudian_core::{ruleset::Ruleset, ting::may_win};
/// let r = Ruleset::shanxi();
/// assert!(!may_win(&r, 2, true));
/// assert!(may_win(&r, 4, true) && !may_win(&r, 4, false));
/// assert!(may_win(&r, 6, false));
/// ```
pub fn may_win(rules: &Ruleset, points: u8, self_draw: bool) -> bool {
    let (self_draw_min, discard_min) = rules.point_rule.minimums();
    points
        >= if self_draw {
            self_draw_min
        } else {
            discard_min
        }
}

/// The waits of `hand` over the kinds in play under `rules`.
fn waits_of(hand: &Hand, wilds: &Wildcards, rules: &Ruleset) -> Result<Waits, Error> {
    waits_in_play(
        hand,
        wilds,
        &ShapeRules::from(rules),
        crate::legal::kinds_in_play(rules),
    )
}

/// Whether discarding `discard` from the complete hand `hand` (`14 − 3 ×
/// melds` concealed tiles) may declare ting: the rest is ready and some
/// wait is worth at least `rules.ting_min_points`. Errors when the hand
/// has the wrong size or does not hold `discard`.
///
/// ```
/// use koudian_core::{hand::Hand, ruleset::Ruleset, ting::can_declare_ting, tile::{parse, Tile}, Wildcards};
/// // 123m 456p 789s 23m 111z: discarding 1z waits on 1m/4m (worth 1 and 4).
/// let hand = Hand::from_tiles(&parse("123m456p789s23m111z").unwrap(), &[]).unwrap();
/// let one_z = Tile::EAST;
/// assert!(!can_declare_ting(&hand, one_z, &Wildcards::NONE, &Ruleset::shanxi()).unwrap());
/// assert!(can_declare_ting(&hand, one_z, &Wildcards::NONE, &Ruleset::linxian()).unwrap());
/// ```
pub fn can_declare_ting(
    hand: &Hand,
    discard: Tile,
    wilds: &Wildcards,
    rules: &Ruleset,
) -> Result<bool, Error> {
    let rest = after_discard(hand, discard)?;
    if !rules.ting_required {
        return Ok(false);
    }
    let w = waits_of(&rest, wilds, rules)?;
    Ok(worth_ting(&w, rules))
}

/// Whether waits allow declaring ting: ready, with a wait worth at least
/// `ting_min_points`.
#[inline]
pub(crate) fn worth_ting(w: &Waits, rules: &Ruleset) -> bool {
    w.best_points().is_some_and(|p| p >= rules.ting_min_points)
}

/// The hand after discarding `discard`, checked.
pub(crate) fn after_discard(hand: &Hand, discard: Tile) -> Result<Hand, Error> {
    hand.check_size(true)?;
    check_copies(&hand.all_counts())?;
    let mut rest = *hand;
    let n = &mut rest.concealed[discard.index()];
    if *n == 0 {
        return Err(Error::InvalidHand(format!(
            "cannot discard {discard}: the hand holds none"
        )));
    }
    *n -= 1;
    Ok(rest)
}

/// What `tile` is worth as the winning tile of `hand` (one tile short:
/// `13 − 3 × melds` concealed tiles), or `None` when it does not win: it
/// does not complete the hand, or it is a wild tile on a discard (never
/// claimable). A self-drawn wild tile is worth the highest points among
/// the hand's waits.
///
/// ```
/// use koudian_core::{hand::Hand, ruleset::Ruleset, ting::winning_tile_points, tile::{parse, Tile}, Wildcards};
/// let hand = Hand::from_tiles(&parse("123m456p789s23m55z").unwrap(), &[]).unwrap();
/// let red = Wildcards::new(&[Tile::RED]).unwrap();
/// let r = Ruleset::shanxi();
/// let m1 = Tile::M1;
/// let m4 = Tile::new(3).unwrap();
/// assert_eq!(winning_tile_points(&hand, m1, true, &red, &r).unwrap(), Some(1));
/// assert_eq!(winning_tile_points(&hand, m4, false, &red, &r).unwrap(), Some(4));
/// assert_eq!(winning_tile_points(&hand, Tile::RED, true, &red, &r).unwrap(), Some(4));
/// assert_eq!(winning_tile_points(&hand, Tile::RED, false, &red, &r).unwrap(), None);
/// ```
pub fn winning_tile_points(
    hand: &Hand,
    tile: Tile,
    self_draw: bool,
    wilds: &Wildcards,
    rules: &Ruleset,
) -> Result<Option<u8>, Error> {
    check_copies(&hand.all_counts())?;
    let w = waits_of(hand, wilds, rules)?;
    Ok(tile_points(&w, tile, self_draw, wilds))
}

/// [`winning_tile_points`] from the hand's waits.
#[inline]
pub(crate) fn tile_points(w: &Waits, tile: Tile, self_draw: bool, wilds: &Wildcards) -> Option<u8> {
    if wilds.is_wild(tile) {
        if !self_draw {
            return None;
        }
        // The wild kind's wait value is the best wait's points: every
        // natural wait is a kind the wild tile could stand for.
        return w.points(tile);
    }
    w.points(tile)
}

/// Whether a player who has declared ting may make a kong: `before` is the
/// ready hand before the kong (one tile short), `after` the hand with the
/// kong made, before its replacement tile (again one tile short). Allowed
/// iff `after` is ready with a wait worth at least `ting_min_points`, and,
/// with `kong_keeps_waits`, its waiting kinds equal `before`'s. Errors
/// when the sizes are wrong or `after` is not `before` plus one kong.
///
/// ```
/// use koudian_core::{hand::{Hand, Meld, MeldKind}, ruleset::Ruleset, ting::ting_kong_allowed, tile::{parse, Tile}, Wildcards};
/// // Ready on 6p/9p; a concealed kong of 1m keeps those waits.
/// let before = Hand::from_tiles(&parse("111m78p234s567s99s").unwrap(), &[]).unwrap();
/// let after = Hand::from_tiles(&parse("78p234s567s99s").unwrap(),
///     &[Meld::new(MeldKind::ConcealedKong, Tile::M1)]).unwrap();
/// assert!(ting_kong_allowed(&before, &after, &Wildcards::NONE, &Ruleset::linxian()).unwrap());
/// ```
pub fn ting_kong_allowed(
    before: &Hand,
    after: &Hand,
    wilds: &Wildcards,
    rules: &Ruleset,
) -> Result<bool, Error> {
    check_kong(before, after)?;
    let wa = waits_of(after, wilds, rules)?;
    if !worth_ting(&wa, rules) {
        return Ok(false);
    }
    if rules.kong_keeps_waits {
        let wb = waits_of(before, wilds, rules)?;
        return Ok(wa.mask() == wb.mask());
    }
    Ok(true)
}

/// Checks that `after` is `before` plus one kong: both one tile short,
/// and `after` holds exactly one more physical tile, of a kind it has a
/// kong of.
fn check_kong(before: &Hand, after: &Hand) -> Result<(), Error> {
    before.check_size(false)?;
    after.check_size(false)?;
    check_copies(&before.all_counts())?;
    check_copies(&after.all_counts())?;
    let (b, a) = (before.all_counts(), after.all_counts());
    let mut extra = None;
    for (k, (&nb, &na)) in b.iter().zip(&a).enumerate() {
        if na == nb {
            continue;
        }
        if na != nb + 1 || extra.is_some() {
            return Err(Error::InvalidHand(
                "the hand after the kong must hold the hand before it plus one tile".into(),
            ));
        }
        extra = Some(k);
    }
    let is_kong_of = |k: usize| {
        after
            .melds()
            .iter()
            .any(|m| m.kind.is_kong() && m.tile.index() == k)
    };
    match extra {
        Some(k) if is_kong_of(k) => Ok(()),
        _ => Err(Error::InvalidHand(
            "the hand after the kong must add one tile of a kind it has a kong of".into(),
        )),
    }
}
