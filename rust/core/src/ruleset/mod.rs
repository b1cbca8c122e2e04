//! Rulesets: every option named in docs/rules.md, their defaults, and
//! validation. Presets live as TOML files in the Python package; the core
//! only knows option names, types and consistency rules, so a preset is
//! `Ruleset::default()` plus `set` calls.

use crate::error::Error;

/// The game family: which chapter of docs/rules.md drives table flow and
/// scoring (§3 Shanxi, §4 Linxian, §5 Sichuan).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// 山西扣点点.
    Shanxi,
    /// 临县抠点.
    Linxian,
    /// 四川麻将 (basic points).
    Sichuan,
}

/// The family's own rules of the table's flow, each named by what it does,
/// so that the table reads as the flow of the rules rather than as a list
/// of family exceptions (docs/rules.md §3-§5).
impl Family {
    /// A player may abandon the hand at any moment (Linxian 逃跑).
    #[inline]
    pub(crate) fn allows_leaving(self) -> bool {
        self == Family::Linxian
    }

    /// A hand wins only lacking a suit (Sichuan 缺一门).
    #[inline]
    pub(crate) fn needs_missing_suit(self) -> bool {
        self == Family::Sichuan
    }

    /// One discard may have several winners (Sichuan 一炮多响); in the
    /// other families the first winner in turn order from the discarder
    /// takes it (就近截胡) and the others are not asked.
    #[inline]
    pub(crate) fn several_winners(self) -> bool {
        self == Family::Sichuan
    }

    /// The last live tile belongs to its drawer, who wins on it or passes,
    /// which draws the hand (Linxian); elsewhere it is discarded as usual.
    #[inline]
    pub(crate) fn keeps_last_tile(self) -> bool {
        self == Family::Linxian
    }

    /// With this many live tiles or fewer a player who can win must win
    /// (Sichuan: four); `None` where no such rule applies.
    #[inline]
    pub(crate) fn must_win_within(self) -> Option<usize> {
        (self == Family::Sichuan).then_some(4)
    }

    /// A non-ting player's added kong of a tile that all three other
    /// players, all ting, wait on draws the hand (Linxian).
    #[inline]
    pub(crate) fn all_waiting_kong_draws(self) -> bool {
        self == Family::Linxian
    }
}

/// Which wildcards (耗子) a hand has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Haozi {
    /// No wildcard.
    None,
    /// One random kind (`shanxi-haozi`).
    Single,
    /// One random honor kind (`shanxi-feng-haozi`).
    Feng,
    /// Two different random kinds (`shanxi-double-haozi`).
    Double,
}

/// How the wild kind is chosen (`haozi_pick`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HaoziPick {
    /// Drawn uniformly by the game's RNG and announced.
    Random,
    /// The last wall tile is turned up; the next kind in sequence is wild.
    Indicator,
}

/// Which winning tiles may win how (`point_rule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PointRule {
    /// 1-2 never; 3-5 self-draw only; 6+ both.
    Standard,
    /// 1-4 never; 5 self-draw only; 6+ both.
    Strict,
    /// No point restriction (Sichuan).
    None,
}

impl PointRule {
    /// Fewest points a winning tile needs when self-drawn, and on a discard.
    pub const fn minimums(self) -> (u8, u8) {
        match self {
            PointRule::Standard => (3, 6),
            PointRule::Strict => (5, 6),
            PointRule::None => (0, 0),
        }
    }
}

/// What passing a win (过胡) forbids (`pass_scope`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PassScope {
    /// Only self-draw wins for the rest of the hand.
    Hand,
    /// Only that tile kind may no longer be won on a discard.
    Tile,
}

/// Who deals next (`dealer_rotation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DealerRotation {
    /// The winner deals; a drawn hand passes the deal to the dealer's 下家.
    Winner,
    /// Dealer keeps on his win, else 下家; a drawn hand passes only if a
    /// kong was made (一圈/带庄).
    Round,
    /// Dealer keeps on his win, else 下家; a drawn hand passes (Linxian).
    Next,
    /// The winner deals; several winners: the discarder; drawn: dealer
    /// keeps (Sichuan).
    Sichuan,
}

/// Which value a drawn hand's 查叫 charges (`chajiao`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Chajiao {
    /// The smallest value the ready player could win with (the seed).
    Min,
    /// The largest (common modern convention).
    Max,
}

/// Where kong replacement tiles come from (`kong_draw`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KongDraw {
    /// The tail of the wall (Koudian).
    Tail,
    /// The front, in drawing order (Sichuan).
    Front,
}

/// A value of one option, for name-based access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// One of a fixed set of names.
    Str(String),
    /// A pair of integers (`wall_reserve`).
    Pair(i64, i64),
}

/// A complete, validated ruleset. Build it from `Ruleset::shanxi()` (or
/// another family default) and [`Ruleset::set`].
///
/// ```
/// use koudian_core::ruleset::{Ruleset, OptionValue};
/// let mut r = Ruleset::shanxi();
/// r.set("special_hands", OptionValue::Bool(true)).unwrap();
/// assert!(r.special_hands);
/// assert!(r.set("speshal_hands", OptionValue::Bool(true)).unwrap_err()
///     .to_string().contains("special_hands"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ruleset {
    /// Game family (§3/§4/§5).
    pub family: Family,
    /// 108 tiles, no honors (不带风).
    pub no_honors: bool,
    /// Wildcard mode (耗子).
    pub haozi: Haozi,
    /// How the wild kind is chosen.
    pub haozi_pick: HaoziPick,
    /// 七小对 allowed.
    pub seven_pairs: bool,
    /// 十三幺 allowed.
    pub thirteen_orphans: bool,
    /// 风嘴子: three different winds, or 中发白, form a set.
    pub wind_sets: bool,
    /// Tiles kept back at the end of the wall: base, and more per kong.
    pub wall_reserve: (u8, u8),
    /// Players must declare ting (报听) to win.
    pub ting_required: bool,
    /// Declaring ting needs a wait worth at least this many points.
    pub ting_min_points: u8,
    /// Which winning tiles may win how.
    pub point_rule: PointRule,
    /// What passing a win forbids.
    pub pass_scope: PassScope,
    /// 有胡必胡: ting players take every available win.
    pub must_win: bool,
    /// After 碰, the 4th tile may still be added as a kong.
    pub kong_after_pong: bool,
    /// 改变听口不能杠: after ting, a kong must keep the waits identical.
    pub kong_keeps_waits: bool,
    /// 点杠包杠.
    pub kong_giver_pays: bool,
    /// 点炮包杠.
    pub discarder_pays_kongs: bool,
    /// Kongs are settled only in a won hand (Shanxi, Sichuan; off in the
    /// `sichuan` preset, whose 刮风下雨 is paid at any hand end).
    pub kongs_need_win: bool,
    /// 带庄: ±5 between dealer and winner.
    pub dealer_bonus: bool,
    /// 自摸庄分翻倍: the dealer bonus is 10 on a self-draw.
    pub dealer_self_draw_double: bool,
    /// 清一色、一条龙、七小对加番.
    pub special_hands: bool,
    /// Who deals next.
    pub dealer_rotation: DealerRotation,
    /// Linxian 逃跑 penalty, in base stakes per other player (0 to
    /// [`MAX_LEAVE_PENALTY`]).
    pub leave_penalty: u32,
    /// The room's base stake every payment is multiplied by (1 to
    /// [`MAX_BASE_STAKE`]).
    pub base_stake: u32,
    /// Sichuan 查叫 convention.
    pub chajiao: Chajiao,
    /// Sichuan 刮风下雨 kong payments.
    pub kong_payments: bool,
    /// Where kong replacement tiles come from.
    pub kong_draw: KongDraw,
    /// A concealed kong's kind is hidden until settlement (Linxian).
    pub hide_concealed_kong: bool,
    /// Dice decide the first dealer and the break point (Linxian).
    pub dice: bool,
}

/// Largest `base_stake` (底分): with it and [`MAX_LEAVE_PENALTY`] the
/// largest hand settles far below `i64` (a few times 10^12), so no
/// settlement can overflow.
pub const MAX_BASE_STAKE: u32 = 1_000_000;

/// Largest `leave_penalty` (逃跑, in base stakes per other player).
pub const MAX_LEAVE_PENALTY: u32 = 1_000;

mod presets;

/// Names, in declaration order, with one-line documentation.
pub const OPTIONS: &[(&str, &str)] = &[
    (
        "family",
        "game family: \"shanxi\" (§3), \"linxian\" (§4) or \"sichuan\" (§5)",
    ),
    ("no_honors", "不带风: play with 108 tiles, no honors"),
    (
        "haozi",
        "wildcards (耗子): \"none\", \"single\", \"feng\" (one honor) or \"double\"",
    ),
    (
        "haozi_pick",
        "how the wild kind is chosen: \"random\" or \"indicator\"",
    ),
    ("seven_pairs", "七小对 is a winning shape"),
    ("thirteen_orphans", "十三幺 is a winning shape"),
    (
        "wind_sets",
        "风嘴子: any 3 different winds, or 中发白, form a set",
    ),
    (
        "wall_reserve",
        "[base, per_kong]: live-wall tiles kept back before the hand is drawn",
    ),
    (
        "ting_required",
        "a player must declare ting (报听) before winning",
    ),
    (
        "ting_min_points",
        "declaring ting needs a wait worth at least this many points",
    ),
    (
        "point_rule",
        "\"standard\" (3+ self-draw, 6+ discard), \"strict\" (5+/6+) or \"none\"",
    ),
    (
        "pass_scope",
        "过胡: \"hand\" (self-draw only afterwards) or \"tile\" (that kind only)",
    ),
    (
        "must_win",
        "有胡必胡: a ting player takes every available win",
    ),
    (
        "kong_after_pong",
        "after 碰, the 4th tile may later be added as a kong",
    ),
    (
        "kong_keeps_waits",
        "改变听口不能杠: after ting a kong must keep the waits exactly",
    ),
    (
        "kong_giver_pays",
        "点杠包杠: a non-ting kong giver pays all three shares",
    ),
    (
        "discarder_pays_kongs",
        "点炮包杠: a non-ting discarder who deals in pays the hand's kongs",
    ),
    (
        "kongs_need_win",
        "kongs are settled only in a hand someone wins",
    ),
    ("dealer_bonus", "带庄: ±5 between the dealer and the winner"),
    (
        "dealer_self_draw_double",
        "自摸庄分翻倍: the dealer bonus is 10 on a self-draw",
    ),
    (
        "special_hands",
        "清一色、一条龙、七小对加番 (ignored with wildcards)",
    ),
    (
        "dealer_rotation",
        "\"winner\", \"round\", \"next\" or \"sichuan\"",
    ),
    (
        "leave_penalty",
        "逃跑: base stakes the leaver pays each other player (0-1000)",
    ),
    (
        "base_stake",
        "the room's base stake (1-1000000); every payment is multiplied by it",
    ),
    ("chajiao", "查叫 at a drawn hand: \"min\" or \"max\" value"),
    ("kong_payments", "刮风下雨 kong payments (Sichuan)"),
    (
        "kong_draw",
        "kong replacement from the wall's \"tail\" or \"front\"",
    ),
    (
        "hide_concealed_kong",
        "a concealed kong's kind stays hidden until settlement",
    ),
    (
        "dice",
        "dice decide the first dealer and the wall's break point",
    ),
];

fn enum_names(name: &str) -> &'static [&'static str] {
    match name {
        "family" => &["shanxi", "linxian", "sichuan"],
        "haozi" => &["none", "single", "feng", "double"],
        "haozi_pick" => &["random", "indicator"],
        "point_rule" => &["standard", "strict", "none"],
        "pass_scope" => &["hand", "tile"],
        "dealer_rotation" => &["winner", "round", "next", "sichuan"],
        "chajiao" => &["min", "max"],
        "kong_draw" => &["tail", "front"],
        _ => &[],
    }
}

impl Default for Ruleset {
    fn default() -> Self {
        Ruleset::shanxi()
    }
}

impl Ruleset {
    /// The `shanxi` preset: docs/rules.md §3 defaults.
    pub fn shanxi() -> Ruleset {
        Ruleset {
            family: Family::Shanxi,
            no_honors: false,
            haozi: Haozi::None,
            haozi_pick: HaoziPick::Random,
            seven_pairs: true,
            thirteen_orphans: true,
            wind_sets: false,
            wall_reserve: (0, 0),
            ting_required: true,
            ting_min_points: 6,
            point_rule: PointRule::Standard,
            pass_scope: PassScope::Hand,
            must_win: false,
            kong_after_pong: false,
            kong_keeps_waits: false,
            kong_giver_pays: false,
            discarder_pays_kongs: false,
            kongs_need_win: true,
            dealer_bonus: false,
            dealer_self_draw_double: false,
            special_hands: false,
            dealer_rotation: DealerRotation::Winner,
            leave_penalty: 10,
            base_stake: 1,
            chajiao: Chajiao::Min,
            kong_payments: false,
            kong_draw: KongDraw::Tail,
            hide_concealed_kong: false,
            dice: false,
        }
    }

    /// The `linxian` preset: docs/rules.md §4.
    pub fn linxian() -> Ruleset {
        Ruleset {
            family: Family::Linxian,
            seven_pairs: false,
            thirteen_orphans: false,
            wall_reserve: (12, 2),
            ting_min_points: 3,
            kong_keeps_waits: true,
            dealer_rotation: DealerRotation::Next,
            hide_concealed_kong: true,
            dice: true,
            ..Ruleset::shanxi()
        }
    }

    /// The `sichuan` preset: docs/rules.md §5.
    pub fn sichuan() -> Ruleset {
        Ruleset {
            family: Family::Sichuan,
            no_honors: true,
            thirteen_orphans: false,
            ting_required: false,
            ting_min_points: 0,
            point_rule: PointRule::None,
            dealer_rotation: DealerRotation::Sichuan,
            kong_draw: KongDraw::Front,
            // 刮风下雨 is paid whatever the hand's end (docs/rules.md §5).
            kongs_need_win: false,
            ..Ruleset::shanxi()
        }
    }

    /// The family's default ruleset.
    pub fn for_family(family: Family) -> Ruleset {
        match family {
            Family::Shanxi => Ruleset::shanxi(),
            Family::Linxian => Ruleset::linxian(),
            Family::Sichuan => Ruleset::sichuan(),
        }
    }

    /// Number of tiles in play (136, or 108 without honors).
    pub const fn tile_total(&self) -> usize {
        if self.no_honors {
            108
        } else {
            136
        }
    }

    /// Tiles kept back at the end of the wall after `kongs` kongs
    /// (`wall_reserve`: the base, and more per kong): the one formula of
    /// the reserve, which live tiles exclude.
    ///
    /// ```
    /// use koudian_core::Ruleset;
    /// assert_eq!(Ruleset::linxian().wall_reserve_after(3), 12 + 2 * 3);
    /// assert_eq!(Ruleset::shanxi().wall_reserve_after(3), 0);
    /// ```
    #[inline]
    pub const fn wall_reserve_after(&self, kongs: u8) -> usize {
        self.wall_reserve.0 as usize + self.wall_reserve.1 as usize * kongs as usize
    }

    /// Number of wild kinds each hand gets.
    pub const fn wild_kinds(&self) -> usize {
        match self.haozi {
            Haozi::None => 0,
            Haozi::Single | Haozi::Feng => 1,
            Haozi::Double => 2,
        }
    }

    /// A ruleset from TOML text with one `option = value` line per option
    /// (the format of the shipped presets and of `Ruleset.to_toml`): the
    /// `family` option, when given, starts from that family's defaults,
    /// then every other option is set and the whole is validated.
    ///
    /// ```
    /// use koudian_core::ruleset::{Family, Ruleset};
    /// let r = Ruleset::from_toml("family = \"linxian\"\nbase_stake = 2").unwrap();
    /// assert_eq!((r.family, r.base_stake), (Family::Linxian, 2));
    /// assert!(Ruleset::from_toml("seven_pairs = 3").is_err());
    /// ```
    pub fn from_toml(text: &str) -> Result<Ruleset, Error> {
        let table: toml::Table = text
            .parse()
            .map_err(|e| Error::InvalidRuleset(format!("invalid TOML: {e}")))?;
        let value = |name: &str, v: &toml::Value| -> Result<OptionValue, Error> {
            let int = |v: &toml::Value| v.as_integer();
            Ok(match v {
                toml::Value::Boolean(b) => OptionValue::Bool(*b),
                toml::Value::Integer(i) => OptionValue::Int(*i),
                toml::Value::String(s) => OptionValue::Str(s.clone()),
                toml::Value::Array(a) => match a.as_slice() {
                    [x, y] if int(x).is_some() && int(y).is_some() => {
                        OptionValue::Pair(int(x).unwrap_or(0), int(y).unwrap_or(0))
                    }
                    _ => {
                        return Err(Error::InvalidRuleset(format!(
                            "option {name}: an array must hold two integers"
                        )))
                    }
                },
                other => {
                    return Err(Error::InvalidRuleset(format!(
                        "option {name}: unsupported TOML value of type {}",
                        other.type_str()
                    )))
                }
            })
        };
        let options = table
            .iter()
            .map(|(name, v)| Ok((name.clone(), value(name, v)?)))
            .collect::<Result<Vec<_>, Error>>()?;
        Ruleset::with_options(None, &options)
    }

    /// `base` (the shanxi defaults when `None`) with `options` applied and
    /// the result validated. `family`, when given, comes first: a family
    /// other than `base`'s (any family, without a base) starts from that
    /// family's defaults, which the other options then change.
    ///
    /// ```
    /// use koudian_core::ruleset::{Family, OptionValue, Ruleset};
    /// let opts = [
    ///     ("base_stake".to_string(), OptionValue::Int(3)),
    ///     ("family".to_string(), OptionValue::Str("sichuan".into())),
    /// ];
    /// let r = Ruleset::with_options(None, &opts).unwrap();
    /// assert_eq!((r.family, r.base_stake), (Family::Sichuan, 3));
    ///
    /// // 不带风 also drops the shapes that need honors, unless named too.
    /// let opts = [("no_honors".to_string(), OptionValue::Bool(true))];
    /// let r = Ruleset::with_options(Some(Ruleset::shanxi()), &opts).unwrap();
    /// assert!(r.no_honors && !r.thirteen_orphans && !r.wind_sets);
    /// ```
    pub fn with_options(
        base: Option<Ruleset>,
        options: &[(String, OptionValue)],
    ) -> Result<Ruleset, Error> {
        let base_given = base.is_some();
        let mut r = base.unwrap_or_else(Ruleset::shanxi);
        if let Some((_, f)) = options.iter().find(|(name, _)| name == "family") {
            let mut probe = Ruleset::shanxi();
            probe.set("family", f.clone())?;
            if !base_given || probe.family != r.family {
                r = Ruleset::for_family(probe.family);
            }
        }
        for (name, v) in options {
            if name != "family" {
                r.set(name, v.clone())?;
            }
        }
        // 不带风 on a base whose shapes need honors (every shanxi preset has
        // 十三幺): the honor-only shapes go with the honors, unless the
        // options name them too, which `validate` then refuses.
        let given = |o: &str| options.iter().any(|(name, _)| name == o);
        if r.no_honors && given("no_honors") {
            if !given("thirteen_orphans") {
                r.thirteen_orphans = false;
            }
            if !given("wind_sets") {
                r.wind_sets = false;
            }
        }
        r.validate()?;
        Ok(r)
    }

    /// The value of option `name`.
    pub fn get(&self, name: &str) -> Result<OptionValue, Error> {
        use OptionValue::*;
        let s = |v: &str| Str(v.to_string());
        Ok(match name {
            "family" => s(enum_names(name)[self.family as usize]),
            "no_honors" => Bool(self.no_honors),
            "haozi" => s(enum_names(name)[self.haozi as usize]),
            "haozi_pick" => s(enum_names(name)[self.haozi_pick as usize]),
            "seven_pairs" => Bool(self.seven_pairs),
            "thirteen_orphans" => Bool(self.thirteen_orphans),
            "wind_sets" => Bool(self.wind_sets),
            "wall_reserve" => Pair(self.wall_reserve.0 as i64, self.wall_reserve.1 as i64),
            "ting_required" => Bool(self.ting_required),
            "ting_min_points" => Int(self.ting_min_points as i64),
            "point_rule" => s(enum_names(name)[self.point_rule as usize]),
            "pass_scope" => s(enum_names(name)[self.pass_scope as usize]),
            "must_win" => Bool(self.must_win),
            "kong_after_pong" => Bool(self.kong_after_pong),
            "kong_keeps_waits" => Bool(self.kong_keeps_waits),
            "kong_giver_pays" => Bool(self.kong_giver_pays),
            "discarder_pays_kongs" => Bool(self.discarder_pays_kongs),
            "kongs_need_win" => Bool(self.kongs_need_win),
            "dealer_bonus" => Bool(self.dealer_bonus),
            "dealer_self_draw_double" => Bool(self.dealer_self_draw_double),
            "special_hands" => Bool(self.special_hands),
            "dealer_rotation" => s(enum_names(name)[self.dealer_rotation as usize]),
            "leave_penalty" => Int(self.leave_penalty as i64),
            "base_stake" => Int(self.base_stake as i64),
            "chajiao" => s(enum_names(name)[self.chajiao as usize]),
            "kong_payments" => Bool(self.kong_payments),
            "kong_draw" => s(enum_names(name)[self.kong_draw as usize]),
            "hide_concealed_kong" => Bool(self.hide_concealed_kong),
            "dice" => Bool(self.dice),
            _ => return Err(unknown_option(name)),
        })
    }

    /// Sets option `name` (type-checked; cross-option consistency is
    /// checked by [`Ruleset::validate`]).
    pub fn set(&mut self, name: &str, value: OptionValue) -> Result<(), Error> {
        let current = self.get(name)?;
        let wrong_type = |v: &OptionValue| {
            Error::InvalidRuleset(format!(
                "option {name} takes {}, got {}",
                type_name(&current, name),
                describe(v)
            ))
        };
        match (&current, &value) {
            (OptionValue::Bool(_), OptionValue::Bool(b)) => self.set_bool(name, *b),
            (OptionValue::Int(_), OptionValue::Int(i)) => {
                let v = u32::try_from(*i).map_err(|_| {
                    Error::InvalidRuleset(format!(
                        "option {name} must be a non-negative integer, got {i}"
                    ))
                })?;
                match name {
                    "ting_min_points" => {
                        self.ting_min_points =
                            u8::try_from(v).ok().filter(|&p| p <= 10).ok_or_else(|| {
                                Error::InvalidRuleset(format!(
                                    "ting_min_points must be 0-10, got {i}"
                                ))
                            })?
                    }
                    "leave_penalty" => {
                        money_ranges(self.base_stake, v)?;
                        self.leave_penalty = v
                    }
                    _ => {
                        money_ranges(v, self.leave_penalty)?;
                        self.base_stake = v
                    }
                }
            }
            (OptionValue::Pair(..), OptionValue::Pair(a, b)) => {
                let (a, b) = (
                    u8::try_from(*a).ok().filter(|&x| x <= 60),
                    u8::try_from(*b).ok().filter(|&x| x <= 8),
                );
                match (a, b) {
                    (Some(a), Some(b)) => self.wall_reserve = (a, b),
                    _ => {
                        return Err(Error::InvalidRuleset(
                            "wall_reserve must be [base 0-60, per_kong 0-8]".into(),
                        ))
                    }
                }
            }
            (OptionValue::Str(_), OptionValue::Str(v)) => self.set_enum(name, v)?,
            _ => return Err(wrong_type(&value)),
        }
        Ok(())
    }

    fn set_bool(&mut self, name: &str, b: bool) {
        let field = match name {
            "no_honors" => &mut self.no_honors,
            "seven_pairs" => &mut self.seven_pairs,
            "thirteen_orphans" => &mut self.thirteen_orphans,
            "wind_sets" => &mut self.wind_sets,
            "ting_required" => &mut self.ting_required,
            "must_win" => &mut self.must_win,
            "kong_after_pong" => &mut self.kong_after_pong,
            "kong_keeps_waits" => &mut self.kong_keeps_waits,
            "kong_giver_pays" => &mut self.kong_giver_pays,
            "discarder_pays_kongs" => &mut self.discarder_pays_kongs,
            "kongs_need_win" => &mut self.kongs_need_win,
            "dealer_bonus" => &mut self.dealer_bonus,
            "dealer_self_draw_double" => &mut self.dealer_self_draw_double,
            "special_hands" => &mut self.special_hands,
            "kong_payments" => &mut self.kong_payments,
            "hide_concealed_kong" => &mut self.hide_concealed_kong,
            _ => &mut self.dice,
        };
        *field = b;
    }

    fn set_enum(&mut self, name: &str, v: &str) -> Result<(), Error> {
        let names = enum_names(name);
        let i = names.iter().position(|&n| n == v).ok_or_else(|| {
            Error::InvalidRuleset(format!(
                "option {name} must be one of {}, got {}{}",
                names
                    .iter()
                    .map(|n| format!("{n:?}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                quoted(v),
                suggest(v, names)
                    .map(|s| format!(" (did you mean {s:?}?)"))
                    .unwrap_or_default()
            ))
        })?;
        match name {
            "family" => self.family = [Family::Shanxi, Family::Linxian, Family::Sichuan][i],
            "haozi" => self.haozi = [Haozi::None, Haozi::Single, Haozi::Feng, Haozi::Double][i],
            "haozi_pick" => self.haozi_pick = [HaoziPick::Random, HaoziPick::Indicator][i],
            "point_rule" => {
                self.point_rule = [PointRule::Standard, PointRule::Strict, PointRule::None][i]
            }
            "pass_scope" => self.pass_scope = [PassScope::Hand, PassScope::Tile][i],
            "dealer_rotation" => {
                self.dealer_rotation = [
                    DealerRotation::Winner,
                    DealerRotation::Round,
                    DealerRotation::Next,
                    DealerRotation::Sichuan,
                ][i]
            }
            "chajiao" => self.chajiao = [Chajiao::Min, Chajiao::Max][i],
            _ => self.kong_draw = [KongDraw::Tail, KongDraw::Front][i],
        }
        Ok(())
    }

    /// Checks cross-option consistency (docs/rules.md §3: `no_honors` excludes
    /// `feng` wildcards; `dealer_self_draw_double` needs `dealer_bonus`;
    /// `dealer_bonus` forces `dealer_rotation = "round"`).
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |m: &str| Err(Error::InvalidRuleset(m.to_string()));
        // The fields are public: the ranges `set` enforces are checked
        // again here, since every settlement relies on them.
        money_ranges(self.base_stake, self.leave_penalty)?;
        if self.family == Family::Sichuan && !self.no_honors {
            return bad("the sichuan family is a 108-tile game: it requires no_honors = true");
        }
        if self.no_honors && self.haozi == Haozi::Feng {
            return bad(
                "no_honors cannot be combined with haozi = \"feng\" (wild honors need honors)",
            );
        }
        if self.no_honors && self.thirteen_orphans {
            return bad("no_honors cannot be combined with thirteen_orphans (十三幺 needs honors)");
        }
        if self.no_honors && self.wind_sets {
            return bad("no_honors cannot be combined with wind_sets (风嘴子 needs honors)");
        }
        if self.dealer_self_draw_double && !self.dealer_bonus {
            return bad("dealer_self_draw_double requires dealer_bonus (自摸庄分翻倍 needs 带庄)");
        }
        if self.dealer_bonus && self.dealer_rotation != DealerRotation::Round {
            return bad(
                "dealer_bonus requires dealer_rotation = \"round\" (带庄 ties the deal to 一圈)",
            );
        }
        if self.haozi != Haozi::None && self.family != Family::Shanxi {
            return bad("wildcards (haozi) exist only in the shanxi family");
        }
        if self.family == Family::Sichuan && self.ting_required {
            return bad("the sichuan family has no ting declaration: set ting_required = false");
        }
        if self.family != Family::Sichuan && !self.ting_required {
            return bad("the Koudian families (shanxi, linxian) require ting_required = true");
        }
        Ok(())
    }
}

/// Checks `base_stake` (1 to [`MAX_BASE_STAKE`]) and `leave_penalty` (0
/// to [`MAX_LEAVE_PENALTY`]).
fn money_ranges(base_stake: u32, leave_penalty: u32) -> Result<(), Error> {
    if !(1..=MAX_BASE_STAKE).contains(&base_stake) {
        return Err(Error::InvalidRuleset(format!(
            "base_stake must be at least 1 and at most {MAX_BASE_STAKE}, got {base_stake}"
        )));
    }
    if leave_penalty > MAX_LEAVE_PENALTY {
        return Err(Error::InvalidRuleset(format!(
            "leave_penalty must be 0-{MAX_LEAVE_PENALTY}, got {leave_penalty}"
        )));
    }
    Ok(())
}

/// `word` as an error message quotes it: at most 60 characters of it.
fn quoted(word: &str) -> String {
    match word.char_indices().nth(60) {
        None => format!("{word:?}"),
        Some((end, _)) => format!("{:?}… ({} bytes)", &word[..end], word.len()),
    }
}

fn unknown_option(name: &str) -> Error {
    let names: Vec<&str> = OPTIONS.iter().map(|(n, _)| *n).collect();
    Error::InvalidRuleset(format!(
        "unknown ruleset option {}{}",
        quoted(name),
        suggest(name, &names)
            .map(|s| format!(" (did you mean {s:?}?)"))
            .unwrap_or_default()
    ))
}

fn type_name(current: &OptionValue, name: &str) -> String {
    match current {
        OptionValue::Bool(_) => "a boolean".into(),
        OptionValue::Int(_) => "an integer".into(),
        OptionValue::Pair(..) => "a pair of integers".into(),
        OptionValue::Str(_) => format!("one of {:?}", enum_names(name)),
    }
}

fn describe(v: &OptionValue) -> String {
    match v {
        OptionValue::Bool(b) => format!("boolean {b}"),
        OptionValue::Int(i) => format!("integer {i}"),
        OptionValue::Pair(a, b) => format!("pair [{a}, {b}]"),
        OptionValue::Str(s) => format!("string {s:?}"),
    }
}

/// The closest name within edit distance 3, for "did you mean" hints.
fn suggest<'a>(word: &str, names: &[&'a str]) -> Option<&'a str> {
    // A suggestion is at most 3 edits away, so its length differs by at
    // most 3: a longer word (a 1 MB name once cost seconds) has none, and
    // only names of about its length are compared.
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let len = word.chars().take(longest + 4).count();
    if len > longest + 3 {
        return None;
    }
    names
        .iter()
        .filter(|n| n.chars().count().abs_diff(len) <= 3)
        .map(|n| (edit_distance(word, n), *n))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, n)| n)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur.push(
                (prev[j] + usize::from(ca != cb))
                    .min(prev[j + 1] + 1)
                    .min(cur[j] + 1),
            );
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_toml_starts_from_the_family_and_names_bad_options() {
        let r = Ruleset::from_toml("seven_pairs = false\nfamily = \"sichuan\"").unwrap();
        assert_eq!(
            r,
            Ruleset {
                seven_pairs: false,
                ..Ruleset::sichuan()
            }
        );
        assert_eq!(
            Ruleset::from_toml("wall_reserve = [12, 2]")
                .unwrap()
                .wall_reserve,
            (12, 2)
        );
        for (text, needle) in [
            ("sevenpairs = true", "sevenpairs"),
            ("seven_pairs = 1", "seven_pairs"),
            ("wall_reserve = [1, 2, 3]", "wall_reserve"),
            ("base_stake = 1.5", "base_stake"),
            ("family = ", "invalid TOML"),
        ] {
            let e = Ruleset::from_toml(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn every_option_round_trips_through_get_and_set() {
        for family in [Family::Shanxi, Family::Linxian, Family::Sichuan] {
            let r = Ruleset::for_family(family);
            r.validate().unwrap();
            let mut copy = Ruleset::shanxi();
            for (name, _) in OPTIONS {
                copy.set(name, r.get(name).unwrap()).unwrap();
            }
            assert_eq!(copy, r);
        }
    }

    #[test]
    fn incompatible_options_are_refused() {
        let mut r = Ruleset::shanxi();
        r.dealer_self_draw_double = true;
        assert!(r
            .validate()
            .unwrap_err()
            .to_string()
            .contains("dealer_bonus"));
        let mut r = Ruleset::shanxi();
        r.no_honors = true;
        r.thirteen_orphans = false;
        r.haozi = Haozi::Feng;
        assert!(r.validate().unwrap_err().to_string().contains("no_honors"));
    }

    // The family's rules of the table's flow (docs/rules.md §3-§5), each
    // asked of every family: which one has it, and that the others do not.
    const FAMILIES: [Family; 3] = [Family::Shanxi, Family::Linxian, Family::Sichuan];

    /// The families for which `rule` holds.
    fn having(rule: impl Fn(Family) -> bool) -> Vec<Family> {
        FAMILIES.into_iter().filter(|&f| rule(f)).collect()
    }

    #[test]
    fn only_linxian_lets_a_player_leave_the_hand() {
        // 逃跑 (§4): a Linxian player may abandon the hand at any moment.
        assert_eq!(having(Family::allows_leaving), [Family::Linxian]);
    }

    #[test]
    fn only_sichuan_wins_need_a_missing_suit() {
        // 缺一门 (§5): a Sichuan hand wins only lacking a suit.
        assert_eq!(having(Family::needs_missing_suit), [Family::Sichuan]);
    }

    #[test]
    fn only_sichuan_lets_one_discard_have_several_winners() {
        // 一炮多响 (§5); elsewhere 就近截胡: the nearest winner takes it.
        assert_eq!(having(Family::several_winners), [Family::Sichuan]);
    }

    #[test]
    fn only_linxian_keeps_the_last_live_tile_for_its_drawer() {
        // §4: the drawer of the last live tile wins on it or passes.
        assert_eq!(having(Family::keeps_last_tile), [Family::Linxian]);
    }

    #[test]
    fn only_sichuan_forces_a_win_within_the_last_four_live_tiles() {
        // §5: with four live tiles or fewer a player who can win must win.
        let within: Vec<_> = FAMILIES.map(Family::must_win_within).into();
        assert_eq!(within, [None, None, Some(4)]);
    }

    #[test]
    fn only_linxian_draws_on_an_added_kong_of_everyones_wait() {
        // §4: a non-ting player's added kong of a tile that all three other
        // players, all ting, wait on draws the hand.
        assert_eq!(having(Family::all_waiting_kong_draws), [Family::Linxian]);
    }
}
