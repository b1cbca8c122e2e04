//! The greedy policy as a ranking of every legal action, on the plain
//! evaluation: [`shanten`](crate::shanten)'s calculator one tile at a time
//! and [`waits_counts`], with no shortcut. [`GreedyAgent::rank`] answers
//! with it, and the tests check that its first action is the fast agent's
//! at every recorded and seeded decision.
//!
//! The order, rule by rule of the [module docs](super): a win first; in
//! answer to a discard the kong or pong taken, then pass, then the ones
//! declined; on its own turn the kongs taken, the ting discards (most
//! live winning tiles, highest value, least kept tile), the face-up
//! discards (wild last, lower shanten, void-suit first, more improving
//! tiles where counted, less kept tile, tile index; with a 包胡 threat
//! the safe ones first when the policy prefers them, or the cheapest of
//! the best shapes first when none is safe), the kongs declined; then any
//! other legal action in index order, leaving the table last.

use super::{bit, keep_value, near_plain, unseen_plain, GreedyAgent, ORPHANS};
use crate::agent::{RankedAction, SeatView};
use crate::game::{Action, ActionMask, Game, Phase};
use crate::hand::{Hand, MeldKind};
use crate::ruleset::Family;
use crate::shanten::Calculator;
use crate::shape::ShapeRules;
use crate::tile::{Counts, Tile, KINDS};
use crate::waits::{waits_counts, Waits};
use crate::wildcard::Wildcards;

impl GreedyAgent {
    /// Every legal action of the view's seat, best first, with the numbers
    /// the policy compared (`shanten`, `improving` live tiles where
    /// counted, `wait_value` of a ting discard, `danger` under a 包胡
    /// threat); empty when the seat is not to act. The first action is the
    /// one [`Agent::act`](crate::agent::Agent::act) plays.
    ///
    /// ```
    /// use koudian_core::agent::{Agent, GreedyAgent, SeatView};
    /// use koudian_core::game::Game;
    /// use koudian_core::Ruleset;
    /// let g = Game::new(&Ruleset::sichuan(), 9, None).unwrap();
    /// let view = SeatView::new(&g, g.to_act().unwrap());
    /// let mut agent = GreedyAgent::new(0);
    /// let ranked = agent.rank(&view);
    /// assert_eq!(ranked[0].action, agent.act(&view));
    /// assert!(ranked[0].number("shanten").is_some());
    /// ```
    pub fn rank(&mut self, view: &SeatView<'_>) -> Vec<RankedAction> {
        let legal = view.legal();
        if legal.is_empty() {
            return Vec::new();
        }
        Ctx::new(view.game, view.seat).rank(legal)
    }
}

/// A ranking being built: each action once, in the order pushed.
#[derive(Default)]
struct Rankings(Vec<(Action, Vec<(&'static str, f64)>)>);

impl Rankings {
    fn push(&mut self, a: Action, numbers: Vec<(&'static str, f64)>) {
        if !self.0.iter().any(|(b, _)| *b == a) {
            self.0.push((a, numbers));
        }
    }

    /// The ranking, completed by the legal actions not ranked (in index
    /// order, leaving last), valued minus their rank.
    fn finish(mut self, legal: ActionMask) -> Vec<RankedAction> {
        for a in legal.iter().filter(|&a| a != Action::Leave) {
            self.push(a, vec![]);
        }
        if legal.contains(Action::Leave) {
            self.push(Action::Leave, vec![]);
        }
        self.0
            .into_iter()
            .enumerate()
            .map(|(i, (action, numbers))| RankedAction {
                action,
                value: 0.0 - i as f64,
                numbers,
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------
// Incremental shanten.

/// A group's needs, laid out as the shanten tables give them:
/// `[m sets for m in 0..5, m sets + pair for m in 0..5]`.
type Needs = [u8; 10];

/// Min-plus product of two groups' needs (at most 4 sets, one pair).
#[inline(always)]
fn combine(a: &Needs, b: &Needs) -> Needs {
    let mut r = [u8::MAX; 10];
    for m in 0..5 {
        for k in 0..=m {
            r[m] = r[m].min(a[k] + b[m - k]);
            r[5 + m] = r[5 + m].min(a[k] + b[5 + m - k]).min(a[5 + k] + b[m - k]);
        }
    }
    r
}

/// The shanten group of kind `k`: 0-2 the suits, 3 the honors.
#[inline(always)]
fn group_of(k: usize) -> usize {
    (k / 9).min(3)
}

/// A hand's shanten with everything precomputed so that the shanten after
/// adding or removing one tile costs one group lookup and a few minimums
/// (the [`crate::shanten`] definition, wild tiles included).
#[derive(Clone, Copy)]
struct Base {
    natural: Counts,
    w: u8,
    sets: usize,
    groups: [Needs; 4],
    /// Min-plus product of the three groups other than `g`.
    others: [Needs; 4],
    pairs: u8,
    singles: u8,
    orphan_kinds: u8,
    orphan_pairs: u8,
    seven: bool,
    orphans: bool,
    d: u8,
}

impl Base {
    fn new(
        calc: &Calculator,
        wilds: &Wildcards,
        rules: &ShapeRules,
        c: &Counts,
        melds: usize,
    ) -> Base {
        let (natural, w) = wilds.split(c);
        Base::from_groups(natural, w, melds, calc.groups(&natural).0, rules)
    }

    /// A base from natural counts whose group needs are already known.
    fn from_groups(
        natural: Counts,
        w: u8,
        melds: usize,
        g: [Needs; 4],
        rules: &ShapeRules,
    ) -> Base {
        let ab = combine(&g[0], &g[1]);
        let cd = combine(&g[2], &g[3]);
        let others = [
            combine(&g[1], &cd),
            combine(&g[0], &cd),
            combine(&ab, &g[3]),
            combine(&ab, &g[2]),
        ];
        let (mut pairs, mut singles, mut ok, mut op) = (0u8, 0u8, 0u8, 0u8);
        for (k, &n) in natural.iter().enumerate() {
            pairs += n >> 1;
            singles += n & 1;
            if ORPHANS >> k & 1 == 1 {
                ok += u8::from(n > 0);
                op += u8::from(n > 1);
            }
        }
        let mut b = Base {
            natural,
            w,
            sets: 4 - melds.min(4),
            groups: g,
            others,
            pairs,
            singles,
            orphan_kinds: ok,
            orphan_pairs: op,
            seven: melds == 0 && rules.seven_pairs,
            orphans: melds == 0 && rules.thirteen_orphans,
            d: 0,
        };
        b.d = b.deficiency(3, &g[3], pairs, singles, ok, op);
        b
    }

    /// Fewest missing tiles with group `g` replaced by `x` and the given
    /// seven-pairs and orphans tallies.
    #[inline(always)]
    fn deficiency(&self, g: usize, x: &Needs, pairs: u8, singles: u8, ok: u8, op: u8) -> u8 {
        let o = &self.others[g];
        let s = self.sets;
        let mut d = u8::MAX;
        for k in 0..=s {
            d = d.min(o[k] + x[5 + s - k]).min(o[5 + k] + x[s - k]);
        }
        if self.seven {
            let sp = if pairs >= 7 {
                0
            } else {
                let missing = 7 - pairs;
                missing + missing.saturating_sub(singles)
            };
            d = d.min(sp);
        }
        if self.orphans {
            d = d.min(14 - ok - u8::from(op > 0));
        }
        d
    }

    #[inline(always)]
    fn to_shanten(d: u8, w: u8) -> i8 {
        d.saturating_sub(w) as i8 - 1
    }

    /// The shanten of the hand as it is.
    fn shanten(&self) -> i8 {
        Base::to_shanten(self.d, self.w)
    }

    /// The needs of kind `k`'s group after adding (`add`) or removing one
    /// natural tile of kind `k` (the count must stay within 0..=4).
    #[inline]
    fn group_after(&self, calc: &Calculator, k: usize, add: bool) -> Needs {
        let mut c = self.natural;
        c[k] = if add { c[k] + 1 } else { c[k] - 1 };
        calc.group(&c, group_of(k))
    }

    /// The shanten after adding (`add`) or removing one natural tile of
    /// kind `k` (which must keep the count within 0..=4).
    #[inline]
    fn shanten_natural(&self, calc: &Calculator, k: usize, add: bool) -> i8 {
        self.shanten_with(k, add, &self.group_after(calc, k, add))
    }

    /// [`Base::shanten_natural`] with the changed group's needs given.
    #[inline]
    fn shanten_with(&self, k: usize, add: bool, x: &Needs) -> i8 {
        let n = self.natural[k];
        let m = if add { n + 1 } else { n - 1 };
        let g = group_of(k);
        let pairs = self.pairs - (n >> 1) + (m >> 1);
        let singles = self.singles - (n & 1) + (m & 1);
        let (mut ok, mut op) = (self.orphan_kinds, self.orphan_pairs);
        if ORPHANS >> k & 1 == 1 {
            ok = ok - u8::from(n > 0) + u8::from(m > 0);
            op = op - u8::from(n > 1) + u8::from(m > 1);
        }
        Base::to_shanten(self.deficiency(g, x, pairs, singles, ok, op), self.w)
    }

    /// The shanten after removing one tile of kind `k` (wild or not).
    #[inline]
    fn shanten_without(&self, calc: &Calculator, wilds: &Wildcards, k: usize) -> i8 {
        if wilds.is_wild(Tile::from_index_unchecked(k as u8)) {
            Base::to_shanten(self.d, self.w.saturating_sub(1))
        } else if self.natural[k] == 0 {
            // A tile the analysis ignores (a Sichuan void-suit tile).
            self.shanten()
        } else {
            self.shanten_natural(calc, k, false)
        }
    }
}

// ---------------------------------------------------------------------------
// One decision.

/// Allowed shanten cost of a safe discard over the best unsafe one while
/// the agent is still close to ready.
const SAFE_ALLOWANCE: i8 = 1;
/// From this shanten on, the agent folds: safe tiles at any cost.
const FOLD_SHANTEN: i8 = 2;
/// Highest shanten at which ties are split by counting improving tiles.
const UKEIRE_SHANTEN: i8 = 1;

/// Ranks ting discards (smaller is better): wild, live, value, keep, index.
type TingKey = (bool, u32, u32, u32, usize);

/// One discard candidate and what it leaves.
#[derive(Clone, Copy)]
struct Cand {
    tile: Tile,
    sh: i8,
    /// Needs of the tile's group after the discard.
    rem: Needs,
    /// Live improving tiles (the waits' when ready), when counted.
    quality: Option<u32>,
    keep: u32,
    wild: bool,
    junk: bool,
    danger: bool,
}

impl Cand {
    /// Sort key: smaller is a better discard.
    #[inline]
    fn key(&self) -> (bool, i8, bool, u32, u32, usize) {
        (
            self.wild,
            self.sh,
            !self.junk,
            u32::MAX - self.quality.unwrap_or(0),
            self.keep,
            self.tile.index(),
        )
    }
}

/// Public facts about the declared opponents, for the 包胡 defence.
struct Threat {
    /// Declared opponents (never the agent itself).
    ting: [bool; 4],
    /// Kinds each declared opponent has let pass since declaring.
    passed: [u64; 4],
    /// Kinds each opponent holds a visible kong of.
    kongs: [u64; 4],
    /// Opponents with at least one meld (no thirteen orphans).
    melded: [bool; 4],
}

struct Ctx<'a> {
    game: &'a Game,
    seat: u8,
    hand: Hand,
    wilds: Wildcards,
    shape: ShapeRules,
    calc: Calculator,
    family: Family,
    ting_required: bool,
    min_self: u8,
    min_discard: u8,
    /// Sichuan: the suit to clear (缺一门).
    void: Option<usize>,
    unseen: Option<Counts>,
}

impl<'a> Ctx<'a> {
    fn new(game: &'a Game, seat: u8) -> Ctx<'a> {
        let rules = game.rules();
        let wilds = game.wilds();
        let shape = ShapeRules::from(rules);
        let hand = *game.hand(seat);
        let (min_self, min_discard) = rules.point_rule.minimums();
        let mut ctx = Ctx {
            game,
            seat,
            hand,
            wilds,
            shape,
            calc: Calculator::new(&wilds, &shape),
            family: rules.family,
            ting_required: rules.ting_required,
            min_self,
            min_discard,
            void: None,
            unseen: None,
        };
        if rules.family == Family::Sichuan {
            ctx.void = ctx.void_suit();
        }
        ctx
    }

    /// 缺一门: the suit with the fewest tiles among those without a meld.
    fn void_suit(&self) -> Option<usize> {
        let mut best: Option<(u8, usize)> = None;
        for s in 0..3 {
            if self.hand.melds().iter().any(|m| m.tile.index() / 9 == s) {
                continue;
            }
            let n: u8 = self.hand.concealed[9 * s..9 * s + 9].iter().sum();
            if best.is_none_or(|(b, _)| n < b) {
                best = Some((n, s));
            }
        }
        best.map(|(_, s)| s)
    }

    #[inline]
    fn is_void(&self, k: usize) -> bool {
        self.void == Some(k / 9) && k < 27
    }

    /// The counts the shape analysis sees: void-suit tiles left out.
    fn eff(&self, c: &Counts) -> Counts {
        let mut e = *c;
        if let Some(s) = self.void {
            e[9 * s..9 * s + 9].fill(0);
        }
        e
    }

    fn base(&self, c: &Counts, melds: usize) -> Base {
        Base::new(&self.calc, &self.wilds, &self.shape, &self.eff(c), melds)
    }

    fn is_wild(&self, k: usize) -> bool {
        self.wilds.is_wild(Tile::from_index_unchecked(k as u8))
    }

    /// Copies of each kind the agent cannot see (its own tiles, face-up
    /// discards, visible melds and face-up wall tiles are seen); 0 for
    /// kinds not in play.
    fn unseen(&mut self) -> Counts {
        *self
            .unseen
            .get_or_insert_with(|| unseen_plain(self.game, self.seat))
    }

    /// Every legal action, best first (see [`rank`]).
    fn rank(&mut self, legal: ActionMask) -> Vec<RankedAction> {
        let mut out = Rankings::default();
        // Win whenever the table allows it.
        if legal.contains(Action::Win) {
            out.push(Action::Win, vec![]);
        }
        match self.game.phase() {
            Phase::Respond { tile, .. } => self.rank_response(legal, tile, &mut out),
            _ => self.rank_turn(legal, &mut out),
        }
        out.finish(legal)
    }

    // -- Answering a discard or an added kong.

    /// Kong when it does not raise the shanten (always after ting), pong
    /// only when it lowers it (after its best discard), else pass; the
    /// options not taken follow in that order.
    fn rank_response(&mut self, legal: ActionMask, t: Tile, out: &mut Rankings) {
        let k = t.index();
        let ting = self.game.is_ting(self.seat);
        let c = self.hand.concealed;
        let n = self.hand.n_melds();
        let now = self.base(&c, n).shanten();
        let sh = |x: i8| vec![("shanten", f64::from(x))];
        let mut declined = Vec::new();
        if legal.contains(Action::Kong) {
            // 缺一门: never a kong of the void suit.
            let after = if self.is_void(k) {
                None
            } else {
                let mut x = c;
                x[k] -= 3;
                Some(self.base(&x, n + 1).shanten())
            };
            match after {
                Some(s) if ting || s <= now => out.push(Action::Kong, sh(s)),
                Some(s) => declined.push((Action::Kong, sh(s))),
                None => declined.push((Action::Kong, vec![])),
            }
        }
        if legal.contains(Action::Pong) {
            let after = if ting || self.is_void(k) {
                None
            } else {
                let mut x = c;
                x[k] -= 2;
                Some(self.best_discard_shanten(&x, n + 1))
            };
            match after {
                Some(s) if s < now => out.push(Action::Pong, sh(s)),
                Some(s) => declined.push((Action::Pong, sh(s))),
                None => declined.push((Action::Pong, vec![])),
            }
        }
        if legal.contains(Action::Pass) {
            out.push(Action::Pass, sh(now));
        }
        for (a, numbers) in declined {
            out.push(a, numbers);
        }
    }

    // -- The agent's own turn.

    fn rank_turn(&mut self, legal: ActionMask, out: &mut Rankings) {
        let ting = self.game.is_ting(self.seat);
        let kongs: Vec<Action> = legal
            .iter()
            .filter(|a| matches!(a, Action::ConcealedKong(_) | Action::AddedKong(_)))
            .collect();
        let any_discard = legal.iter().any(|a| matches!(a, Action::Discard(_)));
        let any_ting = legal.iter().any(|a| matches!(a, Action::Ting(_)));
        if !any_discard && !any_ting {
            // The Linxian last live tile that does not win: pass, else a
            // kong.
            if legal.contains(Action::Pass) {
                out.push(Action::Pass, vec![]);
            }
            return;
        }
        if ting {
            // After ting: every kong the table offers, else the drawn
            // tile (the one legal discard).
            for &k in &kongs {
                out.push(k, vec![]);
            }
            return;
        }
        // A kong that does not raise the shanten (and, added, may not be
        // robbed for 包胡) goes first; the others after the discards.
        let good = self.good_kongs(&kongs);
        for &(a, s, keep) in &good {
            if keep {
                out.push(a, vec![("shanten", f64::from(s))]);
            }
        }
        // Declare ting as soon as any ting discard is legal.
        if any_ting {
            self.rank_tings(legal, out);
        }
        self.rank_discards(legal, out);
        for &(a, s, keep) in &good {
            if !keep {
                out.push(a, vec![("shanten", f64::from(s))]);
            }
        }
    }

    /// Each legal kong, its shanten after, and whether it is taken: not
    /// above the best discard's shanten, not of the void suit, an added
    /// kong not of an unsafe tile.
    fn good_kongs(&mut self, kongs: &[Action]) -> Vec<(Action, i8, bool)> {
        let c = self.hand.concealed;
        let n = self.hand.n_melds();
        let best = self.best_discard_shanten(&c, n);
        let threat = self.threat();
        let mut out = Vec::new();
        for &a in kongs {
            let (k, after, melds) = match a {
                Action::ConcealedKong(t) => {
                    let mut x = c;
                    x[t.index()] = 0;
                    (t.index(), x, n + 1)
                }
                Action::AddedKong(t) => {
                    let mut x = c;
                    x[t.index()] -= 1;
                    (t.index(), x, n)
                }
                _ => continue,
            };
            let s = self.base(&after, melds).shanten();
            let unsafe_added = matches!(a, Action::AddedKong(_))
                && threat.as_ref().is_some_and(|th| self.dangerous(th, k));
            out.push((a, s, !self.is_void(k) && !unsafe_added && s <= best));
        }
        out
    }

    /// The legal ting discards: the most live winning tiles, then the
    /// highest value, then the least kept tile.
    fn rank_tings(&mut self, legal: ActionMask, out: &mut Rankings) {
        let c = self.hand.concealed;
        let n = self.hand.n_melds();
        let unseen = self.unseen();
        let mut tings: Vec<(TingKey, Tile)> = Vec::new();
        for k in 0..KINDS {
            let t = Tile::from_index_unchecked(k as u8);
            if c[k] == 0 || !legal.contains(Action::Ting(t)) {
                continue;
            }
            let mut h = c;
            h[k] -= 1;
            let mut held = self.hand.all_counts();
            held[k] -= 1;
            let w = waits_counts(&h, &held, n, &self.wilds, &self.shape);
            let (live, value) = self.wait_quality(&w, &unseen);
            let key = (
                self.is_wild(k),
                u32::MAX - live,
                u32::MAX - value,
                keep_value(&c, k, self.family),
                k,
            );
            tings.push((key, t));
        }
        tings.sort();
        for (key, t) in tings {
            out.push(
                Action::Ting(t),
                vec![
                    ("shanten", 0.0),
                    ("improving", f64::from(u32::MAX - key.1)),
                    ("wait_value", f64::from(u32::MAX - key.2)),
                    // A ting discard is face down: never dangerous.
                    ("danger", 0.0),
                ],
            );
        }
    }

    /// The face-up discards, best first.
    fn rank_discards(&mut self, legal: ActionMask, out: &mut Rankings) {
        let c = self.hand.concealed;
        let n = self.hand.n_melds();
        let b14 = self.base(&c, n);
        let threat = self.threat();
        let mut cands: Vec<Cand> = Vec::new();
        for k in 0..KINDS {
            let t = Tile::from_index_unchecked(k as u8);
            if c[k] == 0 || !legal.contains(Action::Discard(t)) {
                continue;
            }
            let wild = self.is_wild(k);
            let natural = !wild && b14.natural[k] > 0;
            let rem = if natural {
                b14.group_after(&self.calc, k, false)
            } else {
                b14.groups[group_of(k)]
            };
            let sh = if natural {
                b14.shanten_with(k, false, &rem)
            } else {
                b14.shanten_without(&self.calc, &self.wilds, k)
            };
            cands.push(Cand {
                tile: t,
                // A ready hand that cannot declare cannot win: one step
                // from ready.
                sh: if self.ting_required && sh == 0 { 1 } else { sh },
                rem,
                quality: None,
                keep: keep_value(&c, k, self.family),
                // Wild tiles never go while anything else may.
                wild,
                // 缺一门: the void suit's tiles first among equals.
                junk: self.is_void(k),
                danger: threat.as_ref().is_some_and(|th| self.dangerous(th, k)),
            });
        }
        if cands.is_empty() {
            return;
        }
        let all_wild = cands.iter().all(|x| x.wild);
        let counts = |x: &Cand| all_wild || !x.wild;
        let min_sh = cands.iter().filter(|x| counts(x)).map(|x| x.sh).min();
        let min_sh = min_sh.unwrap_or(0);
        // 包胡 defence: a safe tile when it costs at most one shanten, and
        // at any cost once two or more from ready (folding).
        let folding = threat.is_some() && min_sh >= FOLD_SHANTEN;
        let safe_min = cands
            .iter()
            .filter(|x| counts(x) && !x.danger)
            .map(|x| x.sh)
            .min();
        let prefer_safe =
            threat.is_some() && safe_min.is_some_and(|s| folding || s <= min_sh + SAFE_ALLOWANCE);
        // The level whose ties are split by counting improving tiles: the
        // waits when ready, the tiles that lower the shanten at one.
        let target = match safe_min {
            Some(s) if prefer_safe => s,
            _ => min_sh,
        };
        let tied = cands.iter().filter(|x| x.sh == target && counts(x)).count();
        if tied > 1 && (0..=UKEIRE_SHANTEN).contains(&target) {
            let unseen = self.unseen();
            let mut memo = [None; KINDS];
            let near = self.near(&b14.natural, b14.orphans);
            for x in cands.iter_mut() {
                if x.sh != target || !counts(x) {
                    continue;
                }
                let mut h = c;
                h[x.tile.index()] -= 1;
                x.quality = Some(if x.sh == 0 {
                    let mut held = self.hand.all_counts();
                    held[x.tile.index()] -= 1;
                    let w = waits_counts(&self.eff(&h), &held, n, &self.wilds, &self.shape);
                    self.wait_quality(&w, &unseen).0
                } else {
                    self.ukeire(&b14, x.tile.index(), &x.rem, &mut memo, near, &unseen)
                });
            }
        }
        cands.sort_by_key(Cand::key);
        if threat.is_some() && cands[0].danger {
            if prefer_safe {
                // The safe ones first, each part in key order.
                cands.sort_by_key(|x| (x.danger, x.key()));
            } else if safe_min.is_none() {
                // Everything is dangerous: shed the cheapest among the
                // best shapes.
                let best = (cands[0].wild, cands[0].sh);
                cands.sort_by_key(|x| {
                    let top = (x.wild, x.sh) == best;
                    (!top, if top { x.tile.points() } else { 0 }, x.key())
                });
            }
        }
        for x in cands {
            let mut numbers = vec![("shanten", f64::from(x.sh))];
            if let Some(q) = x.quality {
                numbers.push(("improving", f64::from(q)));
            }
            if threat.is_some() {
                numbers.push(("danger", f64::from(u8::from(x.danger))));
            }
            out.push(Action::Discard(x.tile), numbers);
        }
    }

    /// Lowest shanten over the non-wild discards of a 14-type hand.
    fn best_discard_shanten(&self, c: &Counts, melds: usize) -> i8 {
        let b = self.base(c, melds);
        let mut best = i8::MAX;
        let mut any_wild = i8::MAX;
        for (k, &n) in c.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let s = b.shanten_without(&self.calc, &self.wilds, k);
            if self.is_wild(k) {
                any_wild = any_wild.min(s);
            } else {
                best = best.min(s);
            }
        }
        if best == i8::MAX {
            any_wild
        } else {
            best
        }
    }

    /// Live winning copies, and their value, of a ready hand's waits.
    fn wait_quality(&self, w: &Waits, unseen: &Counts) -> (u32, u32) {
        let mut live = 0u32;
        let mut value = 0u32;
        for (t, p) in w.iter() {
            if self.is_void(t.index()) {
                continue;
            }
            let n = unseen[t.index()] as u32;
            if !self.ting_required {
                live += n;
                value += n;
                continue;
            }
            if p < self.min_self {
                continue;
            }
            live += n;
            let on_discard = p >= self.min_discard && !self.is_wild(t.index());
            value += n * p as u32 * if on_discard { 2 } else { 1 };
        }
        (live, value)
    }

    /// Kinds that may lower the shanten of a hand holding `natural`: the
    /// kinds within two ranks of a held suited tile, held honors (every
    /// honor of the subgroup with 风嘴子), the orphans when thirteen
    /// orphans is possible. A far tile can only start a new group, which
    /// never helps a hand that already has a spare tile.
    fn near(&self, natural: &Counts, orphans: bool) -> u64 {
        near_plain(natural, orphans, self.shape.wind_sets)
    }

    /// Live copies of the tiles that lower the shanten of the 13-type hand
    /// left by discarding `t` from the hand of `b14`. `rem` is the needs
    /// of `t`'s group after the discard; `memo` caches the needs of each
    /// group of `b14` with one tile added, shared by all candidates.
    fn ukeire(
        &self,
        b14: &Base,
        t: usize,
        rem: &Needs,
        memo: &mut [Option<Needs>; KINDS],
        near: u64,
        unseen: &Counts,
    ) -> u32 {
        let gt = group_of(t);
        let natural_t = !self.is_wild(t) && b14.natural[t] > 0;
        let b = if natural_t {
            let mut natural = b14.natural;
            natural[t] -= 1;
            let mut groups = b14.groups;
            groups[gt] = *rem;
            Base::from_groups(natural, b14.w, 4 - b14.sets, groups, &self.shape)
        } else {
            // A wild tile or a junk (void-suit) tile leaves the natural
            // analysis unchanged.
            let w = b14.w - u8::from(self.is_wild(t));
            Base::from_groups(b14.natural, w, 4 - b14.sets, b14.groups, &self.shape)
        };
        let sh = b.shanten();
        let mut total = 0u32;
        for k in 0..KINDS {
            let u = unseen[k];
            if u == 0 || self.is_void(k) {
                continue;
            }
            let improves = if self.is_wild(k) {
                sh >= 0
            } else if near & bit(k) == 0 || b.natural[k] >= 4 {
                false
            } else if natural_t && group_of(k) == gt {
                b.shanten_natural(&self.calc, k, true) < sh
            } else {
                let x = *memo[k].get_or_insert_with(|| b14.group_after(&self.calc, k, true));
                b.shanten_with(k, true, &x) < sh
            };
            if improves {
                total += u as u32;
            }
        }
        total
    }

    // -- 包胡 defence.

    /// Public facts about declared opponents, or `None` when no face-up
    /// discard of the agent can make it pay 包胡.
    fn threat(&self) -> Option<Threat> {
        if !self.ting_required || self.game.is_ting(self.seat) {
            return None;
        }
        let me = self.seat;
        let mut th = Threat {
            ting: [false; 4],
            passed: [0; 4],
            kongs: [0; 4],
            melded: [false; 4],
        };
        for s in 0..4u8 {
            th.ting[s as usize] = s != me && self.game.is_ting(s);
        }
        if !th.ting.iter().any(|&x| x) {
            return None;
        }
        let hide = self.game.rules().hide_concealed_kong;
        for s in 0..4u8 {
            for tm in self.game.table_melds(s) {
                th.melded[s as usize] = true;
                let hidden = hide && s != me && tm.meld.kind == MeldKind::ConcealedKong;
                if tm.meld.kind.is_kong() && !hidden {
                    th.kongs[s as usize] |= bit(tm.meld.tile.index());
                }
            }
        }
        let mut declared = [false; 4];
        for d in self.game.discards() {
            if d.face_down {
                declared[d.seat as usize] = true;
                continue;
            }
            for (o, (&dec, passed)) in declared.iter().zip(th.passed.iter_mut()).enumerate() {
                if dec && o != d.seat as usize {
                    *passed |= bit(d.tile.index());
                }
            }
        }
        Some(th)
    }

    /// Whether discarding kind `k` face up may let a declared opponent win
    /// on it with the agent paying for everyone.
    fn dangerous(&mut self, th: &Threat, k: usize) -> bool {
        let t = Tile::from_index_unchecked(k as u8);
        if t.points() < self.min_discard || self.is_wild(k) {
            return false;
        }
        let honor_dead =
            k >= 27 && !self.shape.wind_sets && self.wilds.is_empty() && self.unseen()[k] == 0;
        (0..4).any(|o| {
            th.ting[o]
                && th.passed[o] & bit(k) == 0
                && th.kongs[o] & bit(k) == 0
                && !(honor_dead && (!self.shape.thirteen_orphans || th.melded[o]))
        })
    }
}
