//! Scoring (docs/rules.md §3-§5): what a winning hand is worth ([`hand_value`])
//! and who pays whom when a hand ends ([`settle()`]).
//!
//! * `shanxi.rs`: 扣点点 values (tile points × special-hand multiplier,
//!   doubled on self-draw) and payments (包胡 / 三家均摊, kongs, 带庄).
//! * `linxian.rs`: 抠点 values and the seed's settlement formula, 逃跑.
//! * `sichuan.rs`: pattern values (番型 + 根 + 杠上花 + 抢杠), 一炮多响,
//!   引杠, 查叫 ([`chajiao_value`]), 刮风下雨.
//! * `outcome.rs`: the typed description of a finished hand ([`Outcome`])
//!   and its consistency checks; `ledger.rs`: the zero-sum ledger
//!   ([`Settlement`]); [`settle()`] here picks the family.
//!
//! # Decisions where docs/rules.md is silent
//!
//! * Every payment, in every family, is multiplied by the ruleset's
//!   `base_stake` (the Linxian 逃跑 penalty is `leave_penalty × base_stake`).
//! * A winning hand must be a legal win under the ruleset, or
//!   [`hand_value`] refuses it: a winning shape, the point rule (Koudian:
//!   `point_rule` minimums, self-draw vs discard; a win on any kong
//!   replacement is a self-draw, robbing a kong is a discard), a discarded
//!   or robbed wild tile never wins, Sichuan 缺一门. Whether the winner had
//!   declared ting is a fact of the table, checked by [`settle()`].
//! * Shanxi: a self-drawn wild tile is worth the highest points among the
//!   kinds in play (honors only when the ruleset has them) that it could
//!   stand for to complete the hand, a 5th copy included (§2 "Waits").
//!   Thirteen orphans carries no multiplier (it is not in the seed's list).
//!   The special-hand multiplier is the largest over every decomposition;
//!   清一色 is a property of all tiles, melds included.
//! * Shanxi and Linxian 天胡/地胡 flags are ignored (they are Sichuan
//!   patterns only).
//! * Shanxi `discarder_pays_kongs` also applies to a robbed kong (which
//!   docs/rules.md §3 says counts as winning on the konger's discard); kong
//!   payments are computed first (with `kong_giver_pays`), then redirected.
//!   Whether a kong giver had declared ting is taken at the time of the
//!   kong ([`Kong::giver_ting`]), not at the end of the hand. With
//!   `kongs_need_win` off, a drawn hand settles its kongs with
//!   `kong_giver_pays` applying as in a won hand. A self-drawn wild tile's
//!   points (its best wait) are also the points the point rule checks.
//! * A robbed kong is not a kong: it is not listed in [`Outcome::kongs`]
//!   and scores nothing (it stays a pong).
//! * Linxian: the Shanxi-only options (`kong_giver_pays`,
//!   `discarder_pays_kongs`, `kongs_need_win`, `dealer_bonus`,
//!   `special_hands`) have no effect; §4 fixes its own rules. In a hand
//!   ended by 逃跑 nobody won by self-draw, so 1-2 point kongs score 0 there,
//!   and the leaver's own kongs score nothing.
//! * Sichuan: 刮风下雨 (`kong_payments`) is paid in every hand end, won or
//!   drawn, as it is paid at the moment of the kong at the table, with
//!   `kongs_need_win` off (the preset); with it on, only in a won hand. 天胡 and
//!   地胡 compete with the shape patterns (the largest applies); 清一色 +
//!   幺九 is not a listed pattern and counts 3. The self-draw itself adds
//!   nothing to a Sichuan value (basic points): it changes who pays. The
//!   根, 杠上花 and 抢杠 extras add to every pattern, 清七对 and 天胡 included.
//! * Sichuan 查叫: a player is ready when some kind he holds fewer than 4
//!   of completes his hand into a legal win (缺一门 included); a ready
//!   player receives from every non-ready player; ready players and
//!   non-ready players do not pay among themselves. The value counts 根
//!   (kongs included), like any win on a discard.

mod ledger;
mod linxian;
mod outcome;
mod shanxi;
mod sichuan;

pub use ledger::{Payment, PaymentReason, Settlement};
pub use outcome::{HandEnd, Kong, Outcome, Seat, Win};
pub use sichuan::chajiao_value;

use crate::error::Error;
use crate::hand::{Hand, MeldKind};
use crate::ruleset::{Family, Haozi, Ruleset};
use crate::tile::{Suit, Tile, KINDS};
use crate::wildcard::Wildcards;
use ledger::Ledger;
use outcome::check;
use std::fmt;

/// The three kinds of kong (docs/rules.md §3 "Kinds of kong").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KongKind {
    /// 点杠/吃杠: a discard claimed onto a concealed triplet.
    Exposed,
    /// 补杠/明杠: a drawn tile added to one's own pong.
    Added,
    /// 暗杠: four drawn tiles.
    Concealed,
}

impl KongKind {
    /// The kong kind of a meld, `None` for a pong.
    ///
    /// ```
    /// use koudian_core::{score::KongKind, MeldKind};
    /// assert_eq!(KongKind::from_meld(MeldKind::AddedKong), Some(KongKind::Added));
    /// assert_eq!(KongKind::from_meld(MeldKind::Pong), None);
    /// ```
    pub const fn from_meld(kind: MeldKind) -> Option<KongKind> {
        match kind {
            MeldKind::Pong => None,
            MeldKind::ExposedKong => Some(KongKind::Exposed),
            MeldKind::AddedKong => Some(KongKind::Added),
            MeldKind::ConcealedKong => Some(KongKind::Concealed),
        }
    }

    /// The kong kind named `name`: its short name (`exposed`, `added`,
    /// `concealed`) or its meld kind's ([`MeldKind::name`]:
    /// `exposed_kong` …); `None` for any other text.
    ///
    /// ```
    /// use koudian_core::score::KongKind;
    /// assert_eq!(KongKind::from_name("added"), Some(KongKind::Added));
    /// assert_eq!(KongKind::from_name("concealed_kong"), Some(KongKind::Concealed));
    /// assert_eq!(KongKind::from_name("pong"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<KongKind> {
        [KongKind::Exposed, KongKind::Added, KongKind::Concealed]
            .into_iter()
            .find(|k| name == k.short_name() || name == k.meld_kind().name())
    }

    /// The short name: `exposed`, `added`, `concealed`.
    pub const fn short_name(self) -> &'static str {
        match self {
            KongKind::Exposed => "exposed",
            KongKind::Added => "added",
            KongKind::Concealed => "concealed",
        }
    }

    /// The meld kind this kong is.
    pub const fn meld_kind(self) -> MeldKind {
        match self {
            KongKind::Exposed => MeldKind::ExposedKong,
            KongKind::Added => MeldKind::AddedKong,
            KongKind::Concealed => MeldKind::ConcealedKong,
        }
    }

    /// Chinese name (点杠, 补杠, 暗杠).
    ///
    /// ```
    /// use koudian_core::score::KongKind;
    /// assert_eq!(KongKind::Concealed.chinese(), "暗杠");
    /// assert_eq!(KongKind::Concealed.to_string(), "暗杠 concealed kong");
    /// ```
    pub const fn chinese(self) -> &'static str {
        match self {
            KongKind::Exposed => "点杠",
            KongKind::Added => "补杠",
            KongKind::Concealed => "暗杠",
        }
    }

    /// English name.
    pub const fn english(self) -> &'static str {
        match self {
            KongKind::Exposed => "exposed kong",
            KongKind::Added => "added kong",
            KongKind::Concealed => "concealed kong",
        }
    }
}

impl fmt::Display for KongKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.chinese(), self.english())
    }
}

/// How a hand was won, as far as its value depends on it.
///
/// ```
/// use koudian_core::score::{WinContext, KongKind};
/// let ctx = WinContext { kong_replacement: Some(KongKind::Concealed), ..WinContext::self_draw() };
/// assert!(ctx.check().is_ok());
/// let bad = WinContext { kong_replacement: Some(KongKind::Added), ..WinContext::discard() };
/// assert!(bad.check().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WinContext {
    /// The winner drew the winning tile (自摸), a kong replacement included.
    pub self_draw: bool,
    /// Won on the replacement tile of a kong of this kind (杠上开花); it
    /// is a self-draw, so `self_draw` must be set.
    pub kong_replacement: Option<KongKind>,
    /// Won by robbing an added kong (抢杠); not a self-draw.
    pub robbed_kong: bool,
    /// 天胡: the dealer's initial 14 tiles (Sichuan only; a self-draw).
    pub heavenly: bool,
    /// 地胡: a non-dealer's win before any claim, on the dealer's first
    /// discard or his own first draw (Sichuan only).
    pub earthly: bool,
    /// The hand's wild kinds (耗子); as many as the ruleset deals.
    pub wilds: Wildcards,
}

impl WinContext {
    /// A plain self-draw, no wildcards.
    pub const fn self_draw() -> WinContext {
        WinContext {
            self_draw: true,
            kong_replacement: None,
            robbed_kong: false,
            heavenly: false,
            earthly: false,
            wilds: Wildcards::NONE,
        }
    }

    /// A plain win on a discard, no wildcards.
    pub const fn discard() -> WinContext {
        WinContext {
            self_draw: false,
            ..WinContext::self_draw()
        }
    }

    /// Checks that the flags can hold together.
    pub fn check(&self) -> Result<(), Error> {
        let bad = |m: &str| Err(Error::InconsistentOutcome(m.to_string()));
        if self.kong_replacement.is_some() && !self.self_draw {
            return bad("a win on a kong replacement tile (杠上开花) is a self-draw");
        }
        if self.robbed_kong && self.self_draw {
            return bad("robbing a kong (抢杠) is not a self-draw");
        }
        if self.heavenly && self.earthly {
            return bad("a win cannot be both 天胡 and 地胡");
        }
        if self.heavenly && !self.self_draw {
            return bad("天胡 is the dealer's own initial 14 tiles: a self-draw");
        }
        if (self.heavenly || self.earthly) && (self.kong_replacement.is_some() || self.robbed_kong)
        {
            return bad("天胡/地胡 come before any kong");
        }
        Ok(())
    }
}

/// A named pattern that contributed to a hand's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pattern {
    /// 自摸: self-drawn (Koudian: doubles the value).
    SelfDraw,
    /// 杠上开花 / 杠上花: won on a kong replacement tile.
    KongBloom,
    /// 抢杠: won by robbing an added kong.
    RobbingKong,
    /// 清一色: one suit, no honors, melds included.
    FullFlush,
    /// 一条龙: 123, 456, 789 of one suit (Shanxi).
    PureStraight,
    /// 七小对 / 七对: seven pairs (no 4-of-a-kind for the Shanxi ×2).
    SevenPairs,
    /// 黄金七小对: seven pairs holding one 4-of-a-kind (Shanxi).
    GoldenSevenPairs,
    /// 豪华七小对: seven pairs holding two 4-of-a-kinds (Shanxi).
    LuxurySevenPairs,
    /// 豪华黄金七小对: seven pairs holding three 4-of-a-kinds (Shanxi).
    LuxuryGoldenSevenPairs,
    /// 平胡: a plain standard hand (Sichuan).
    BasicHand,
    /// 对对胡: all triplets (Sichuan).
    AllTriplets,
    /// 幺九: every set and the pair hold a 1 or a 9 (Sichuan).
    Terminals,
    /// 清对: 清一色 + 对对胡 (Sichuan).
    FlushTriplets,
    /// 将对: every set a triplet of a 2, 5 or 8, pair of a 2, 5 or 8.
    TwoFiveEight,
    /// 清七对: 清一色 + 七对 (Sichuan).
    FlushSevenPairs,
    /// 天胡: the dealer's initial 14 tiles (Sichuan).
    Heavenly,
    /// 地胡: a non-dealer's win before any claim (Sichuan).
    Earthly,
    /// 根: all four tiles of this kind in the winning hand (Sichuan).
    Root(Tile),
}

impl Pattern {
    /// Chinese name.
    ///
    /// ```
    /// use koudian_core::score::Pattern;
    /// assert_eq!(Pattern::GoldenSevenPairs.chinese(), "黄金七小对");
    /// assert_eq!(Pattern::GoldenSevenPairs.english(), "golden seven pairs");
    /// ```
    pub const fn chinese(self) -> &'static str {
        use Pattern::*;
        match self {
            SelfDraw => "自摸",
            KongBloom => "杠上开花",
            RobbingKong => "抢杠",
            FullFlush => "清一色",
            PureStraight => "一条龙",
            SevenPairs => "七小对",
            GoldenSevenPairs => "黄金七小对",
            LuxurySevenPairs => "豪华七小对",
            LuxuryGoldenSevenPairs => "豪华黄金七小对",
            BasicHand => "平胡",
            AllTriplets => "对对胡",
            Terminals => "幺九",
            FlushTriplets => "清对",
            TwoFiveEight => "将对",
            FlushSevenPairs => "清七对",
            Heavenly => "天胡",
            Earthly => "地胡",
            Root(_) => "根",
        }
    }

    /// Snake-case identifier, the pattern's name in the Python API
    /// (`Pattern.code`) and in tallies: `self_draw`, `kong_bloom`,
    /// `robbing_kong`, `full_flush`, `pure_straight`, `seven_pairs`,
    /// `golden_seven_pairs`, `luxury_seven_pairs`,
    /// `luxury_golden_seven_pairs`, `basic_hand`, `all_triplets`,
    /// `terminals`, `flush_triplets`, `two_five_eight`,
    /// `flush_seven_pairs`, `heavenly`, `earthly`, `root`. Spelled out
    /// here, not derived from the variant's name, so that renaming a
    /// variant cannot change a public name.
    pub const fn code(self) -> &'static str {
        use Pattern::*;
        match self {
            SelfDraw => "self_draw",
            KongBloom => "kong_bloom",
            RobbingKong => "robbing_kong",
            FullFlush => "full_flush",
            PureStraight => "pure_straight",
            SevenPairs => "seven_pairs",
            GoldenSevenPairs => "golden_seven_pairs",
            LuxurySevenPairs => "luxury_seven_pairs",
            LuxuryGoldenSevenPairs => "luxury_golden_seven_pairs",
            BasicHand => "basic_hand",
            AllTriplets => "all_triplets",
            Terminals => "terminals",
            FlushTriplets => "flush_triplets",
            TwoFiveEight => "two_five_eight",
            FlushSevenPairs => "flush_seven_pairs",
            Heavenly => "heavenly",
            Earthly => "earthly",
            Root(_) => "root",
        }
    }

    /// Chinese name as the rules of `family` say it: Sichuan players say
    /// 七对 and 杠上花 where the Koudian games say 七小对 and 杠上开花
    /// (docs/rules.md §5); every other name is the same in every family.
    ///
    /// ```
    /// use koudian_core::ruleset::Family;
    /// use koudian_core::score::Pattern;
    /// assert_eq!(Pattern::SevenPairs.chinese_in(Family::Sichuan), "七对");
    /// assert_eq!(Pattern::SevenPairs.chinese_in(Family::Shanxi), "七小对");
    /// assert_eq!(Pattern::KongBloom.chinese_in(Family::Sichuan), "杠上花");
    /// ```
    pub const fn chinese_in(self, family: crate::ruleset::Family) -> &'static str {
        match (self, family) {
            (Pattern::SevenPairs, crate::ruleset::Family::Sichuan) => "七对",
            (Pattern::KongBloom, crate::ruleset::Family::Sichuan) => "杠上花",
            _ => self.chinese(),
        }
    }

    /// English name.
    pub const fn english(self) -> &'static str {
        use Pattern::*;
        match self {
            SelfDraw => "self-draw",
            KongBloom => "win on a kong replacement",
            RobbingKong => "robbing a kong",
            FullFlush => "full flush",
            PureStraight => "pure straight",
            SevenPairs => "seven pairs",
            GoldenSevenPairs => "golden seven pairs",
            LuxurySevenPairs => "luxury seven pairs",
            LuxuryGoldenSevenPairs => "luxury golden seven pairs",
            BasicHand => "basic hand",
            AllTriplets => "all triplets",
            Terminals => "terminals in every set",
            FlushTriplets => "full flush all triplets",
            TwoFiveEight => "2-5-8 triplets",
            FlushSevenPairs => "full flush seven pairs",
            Heavenly => "heavenly hand",
            Earthly => "earthly hand",
            Root(_) => "root",
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Root(t) => write!(f, "根 {t} (all four of a kind)"),
            _ => write!(f, "{} ({})", self.chinese(), self.english()),
        }
    }
}

/// What a winning hand is worth: `total = base × multiplier + bonus`.
///
/// Koudian (Shanxi, Linxian): `base` is the winning tile's points,
/// `multiplier` the special-hand multiplier times the self-draw doubling,
/// `bonus` 0. Sichuan: `base` is the largest pattern's value,
/// `multiplier` 1, `bonus` the 根, 杠上花 and 抢杠 extras.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HandValue {
    /// What each payer owes (before the base stake and 带庄).
    pub total: u32,
    /// Winning tile points (Koudian) or pattern value (Sichuan).
    pub base: u32,
    /// Product of the multipliers applied to `base`.
    pub multiplier: u32,
    /// Additive extras (Sichuan 根, 杠上花, 抢杠).
    pub bonus: u32,
    /// The patterns that gave the value, largest first.
    pub patterns: Vec<Pattern>,
    /// The family that valued it: its text names the patterns as that
    /// game says them ([`Pattern::chinese_in`]: 七对 and 杠上花 in Sichuan).
    pub family: crate::ruleset::Family,
}

impl fmt::Display for HandValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {}", self.total, self.base)?;
        if self.multiplier != 1 {
            write!(f, " × {}", self.multiplier)?;
        }
        if self.bonus != 0 {
            write!(f, " + {}", self.bonus)?;
        }
        if !self.patterns.is_empty() {
            let names: Vec<String> = self
                .patterns
                .iter()
                .map(|p| match p {
                    Pattern::Root(_) => p.to_string(),
                    _ => format!("{} ({})", p.chinese_in(self.family), p.english()),
                })
                .collect();
            write!(f, " [{}]", names.join(", "))?;
        }
        Ok(())
    }
}

/// The value of a winning hand under `rules`.
///
/// `hand` is complete (the winning tile included among its concealed
/// tiles, melds as the hand's own melds); `win_tile` is the tile that
/// completed it. Errors: [`Error::InvalidHand`] for a malformed hand, a
/// hand that is not a legal win under the rules (shape, point rule, 缺一门,
/// a discarded wild tile), or tiles not in play; [`Error::InconsistentOutcome`]
/// for contradictory context flags.
///
/// ```
/// use koudian_core::{hand::Hand, tile::{parse, Tile}, Ruleset};
/// use koudian_core::score::{hand_value, WinContext};
/// let hand = Hand::from_tiles(&parse("123m456m789m234p88s").unwrap(), &[]).unwrap();
/// let p8 = Tile::from_notation("8s").unwrap();
/// let v = hand_value(&hand, p8, &WinContext::self_draw(), &Ruleset::shanxi()).unwrap();
/// assert_eq!(v.total, 16); // 8 points, doubled on self-draw
/// let mut rules = Ruleset::shanxi();
/// rules.special_hands = true; // 一条龙 ×2
/// assert_eq!(hand_value(&hand, p8, &WinContext::self_draw(), &rules).unwrap().total, 32);
/// ```
pub fn hand_value(
    hand: &Hand,
    win_tile: Tile,
    ctx: &WinContext,
    rules: &Ruleset,
) -> Result<HandValue, Error> {
    check_input(hand, win_tile, ctx, rules)?;
    match rules.family {
        Family::Shanxi => shanxi::hand_value(hand, win_tile, ctx, rules),
        Family::Linxian => linxian::hand_value(hand, win_tile, ctx, rules),
        Family::Sichuan => sichuan::hand_value(hand, win_tile, ctx, rules),
    }
}

/// Checks what every family needs: context, tiles in play, wild kinds,
/// size, the winning tile among the concealed tiles.
fn check_input(
    hand: &Hand,
    win_tile: Tile,
    ctx: &WinContext,
    rules: &Ruleset,
) -> Result<(), Error> {
    ctx.check()?;
    let all = hand.all_counts();
    if rules.no_honors {
        if let Some(t) = Tile::all().find(|t| t.is_honor() && all[t.index()] > 0) {
            return Err(Error::InvalidHand(format!(
                "honor tile {t} is not in play in a 108-tile game"
            )));
        }
    }
    if ctx.wilds.len() != rules.wild_kinds() {
        return Err(Error::InvalidHand(format!(
            "the ruleset deals {} wild kind(s) (haozi), the hand gives {}",
            rules.wild_kinds(),
            ctx.wilds.len()
        )));
    }
    if rules.haozi == Haozi::Feng {
        if let Some(t) = ctx.wilds.kinds().find(|t| !t.is_honor()) {
            return Err(Error::InvalidHand(format!(
                "wild kind {t} is not an honor, but the ruleset's wildcards are honors (feng haozi)"
            )));
        }
    }
    hand.check_size(true)?;
    if hand.concealed[win_tile.index()] == 0 {
        return Err(Error::InvalidHand(format!(
            "the winning tile {win_tile} is not among the hand's concealed tiles"
        )));
    }
    if ctx.wilds.is_wild(win_tile) && !ctx.self_draw {
        return Err(Error::InvalidHand(format!(
            "{win_tile} is wild: a discarded or robbed wild tile can never be won"
        )));
    }
    Ok(())
}

/// Whether every tile (melds included) is of one suit, no honors.
fn is_full_flush(hand: &Hand) -> bool {
    let all = hand.all_counts();
    let mut suits = Tile::all().filter(|t| all[t.index()] > 0).map(|t| t.suit());
    match suits.next() {
        Some(first) => first != Suit::Honor && suits.all(|s| s == first),
        None => false,
    }
}

/// The number of 4-of-a-kinds (all 4 tiles of a kind in the hand, melds
/// included).
fn four_of_a_kinds(hand: &Hand) -> impl Iterator<Item = Tile> {
    let all = hand.all_counts();
    (0..KINDS as u8).filter_map(move |i| {
        let t = Tile::new(i).ok()?;
        (all[t.index()] >= 4).then_some(t)
    })
}

/// Koudian point-rule check: whether a `points`-point winning tile may win
/// by self-draw / on a discard (docs/rules.md §3 `point_rule`, §4 thresholds).
fn check_point_rule(points: u8, self_draw: bool, rules: &Ruleset) -> Result<(), Error> {
    let (min_self, min_discard) = rules.point_rule.minimums();
    let need = if self_draw { min_self } else { min_discard };
    if points < need {
        let how = if self_draw {
            "by self-draw"
        } else {
            "on a discard or a robbed kong"
        };
        return Err(Error::InvalidHand(format!(
            "a {points}-point winning tile cannot win {how} (needs {need}+ points)"
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------- settle

/// Settles a finished hand under `rules`: checks that `outcome` is
/// consistent ([`Error::InconsistentOutcome`] naming what is not), values
/// each winner's hand, and returns every payment and the per-seat deltas.
///
/// ```
/// use koudian_core::{hand::{Hand, Meld, MeldKind}, tile::{parse, Tile}, Ruleset};
/// use koudian_core::score::{settle, HandEnd, Kong, KongKind, Outcome, Win};
/// // docs/rules.md §4 worked example: A (0) exposed kong of 东 (10), C (2) a
/// // concealed kong of 6p, B (1, ting) discards 8m, D (3) wins; base 10.
/// let mut rules = Ruleset::linxian();
/// rules.base_stake = 10;
/// let hand = Hand::from_tiles(&parse("123m456m88m234s678s").unwrap(), &[]).unwrap();
/// let mut o = Outcome::new(0, HandEnd::Discard { discarder: 1 });
/// o.winners.push(Win::new(3, hand, Tile::from_notation("8m").unwrap()));
/// o.ting = [false, true, false, true];
/// o.kongs.push(Kong::exposed(0, Tile::EAST, 1, false));
/// o.kongs.push(Kong::own(2, Tile::from_notation("6p").unwrap(), KongKind::Concealed));
/// let s = settle(&o, &rules).unwrap();
/// assert_eq!(s.deltas, [100, -300, 180, 20]);
/// ```
pub fn settle(outcome: &Outcome, rules: &Ruleset) -> Result<Settlement, Error> {
    settle_with(outcome, rules, false)
}

/// [`settle`] of the outcome the table builds from its own state: the
/// checks its bookkeeping guarantees are skipped (see `check`).
pub(crate) fn settle_from_table(outcome: &Outcome, rules: &Ruleset) -> Result<Settlement, Error> {
    settle_with(outcome, rules, true)
}

fn settle_with(outcome: &Outcome, rules: &Ruleset, from_table: bool) -> Result<Settlement, Error> {
    let checked = check(outcome, rules, from_table)?;
    let mut ledger = Ledger::new(rules.base_stake);
    match rules.family {
        Family::Shanxi => shanxi::settle(outcome, &checked, rules, &mut ledger)?,
        Family::Linxian => linxian::settle(outcome, &checked, rules, &mut ledger)?,
        Family::Sichuan => sichuan::settle(outcome, &checked, rules, &mut ledger)?,
    }
    ledger.finish()
}
