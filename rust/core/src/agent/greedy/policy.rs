//! The strategy (see the [module docs](super)), written once: win,
//! respond to a discard, kong, declare ting, discard, 包胡 defence, each
//! rule on the questions of an evaluator ([`Eval`]). [`GreedyAgent::act`]
//! runs it on the fast evaluator ([`Ctx`]), [`GreedyAgent::rank`] too,
//! noting the numbers it compared ([`Note`]); the tests also run it on
//! the plain evaluator and compare.

use super::*;

/// Allowed shanten cost of a safe discard over the best unsafe one while
/// the agent is still close to ready.
pub(crate) const SAFE_ALLOWANCE: i8 = 1;
/// From this shanten on, the agent folds: safe tiles at any cost.
pub(crate) const FOLD_SHANTEN: i8 = 2;
/// Highest shanten at which ties are split by counting improving tiles.
pub(crate) const UKEIRE_SHANTEN: i8 = 1;

/// Ranks ting discards (smaller is better): wild, live, value, keep, index.
pub(crate) type TingKey = (bool, u32, u32, u32, usize);

/// Public facts about the declared opponents, for the 包胡 defence.
#[derive(Clone, Copy)]
#[cfg_attr(any(test, debug_assertions), derive(Debug, PartialEq))]
pub(crate) struct Threat {
    /// Declared opponents (never the agent itself).
    pub(crate) ting: [bool; 4],
    /// Kinds each declared opponent has let pass since declaring.
    pub(crate) passed: [KindSet; 4],
    /// Kinds each opponent holds a visible kong of.
    pub(crate) kongs: [KindSet; 4],
    /// Opponents with at least one meld (no thirteen orphans).
    pub(crate) melded: [bool; 4],
}

/// The numbers the policy compared for the action it chose (noted only
/// when `NOTE`: for [`GreedyAgent::rank`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Note {
    pub(crate) shanten: Option<i8>,
    pub(crate) improving: Option<u32>,
    pub(crate) wait_value: Option<u32>,
    pub(crate) danger: Option<bool>,
}

/// The greedy policy on the evaluator `E`; with `NOTE` it also notes the
/// numbers behind each choice. It borrows the evaluator (which stays where
/// it was built: no copy of it per decision).
pub(crate) struct Policy<'p, 'a, E: Eval<'a>, const NOTE: bool> {
    pub(crate) e: &'p mut E,
    pub(crate) note: Note,
    _facts: std::marker::PhantomData<&'a ()>,
}

impl<'p, 'a, E: Eval<'a>, const NOTE: bool> Policy<'p, 'a, E, NOTE> {
    #[inline(always)]
    pub(crate) fn new(e: &'p mut E) -> Self {
        Policy {
            e,
            note: Note::default(),
            _facts: std::marker::PhantomData,
        }
    }

    #[inline(always)]
    fn f(&self) -> &Facts<'a> {
        self.e.facts()
    }

    /// The action for `legal`: a win whenever the table allows it, else
    /// the answer to a discard or the turn's action.
    pub(crate) fn decide(&mut self, legal: ActionMask) -> Action {
        if legal.contains(Action::Win) {
            return Action::Win;
        }
        match self.f().game.phase() {
            Phase::Respond { tile, .. } => self.respond(legal, tile),
            _ => self.turn(legal),
        }
    }

    // -- Answering a discard or an added kong.

    /// Kong when it does not raise the shanten (always after ting), pong
    /// only when it lowers it (after its best discard), else pass; never a
    /// kong or pong of the void suit (缺一门).
    pub(crate) fn respond(&mut self, legal: ActionMask, t: Tile) -> Action {
        let k = t.index();
        let f = self.f();
        let ting = f.game.is_ting(f.seat);
        let c = f.hand.concealed;
        let n = f.hand.n_melds();
        let void = f.is_void(k);
        if legal.contains(Action::Kong) && !void {
            if ting {
                return Action::Kong;
            }
            let now = self.e.shanten(&c, n);
            let mut after = c;
            after[k] -= 3;
            let s = self.e.shanten(&after, n + 1);
            if s <= now {
                if NOTE {
                    self.note.shanten = Some(s);
                }
                return Action::Kong;
            }
        }
        if legal.contains(Action::Pong) && !ting && !void {
            let now = self.e.shanten(&c, n);
            let mut after = c;
            after[k] -= 2;
            if self.e.best_discard_shanten_below(&after, n + 1, now) {
                if NOTE {
                    self.note.shanten = Some(self.e.best_discard_shanten(&after, n + 1));
                }
                return Action::Pong;
            }
        }
        if NOTE {
            self.note.shanten = Some(self.e.shanten(&c, n));
        }
        Action::Pass
    }

    // -- The agent's own turn.

    /// After ting every kong the table offers, else the drawn tile; before
    /// it a good kong, a ting discard as soon as one is legal, else the
    /// best face-up discard.
    pub(crate) fn turn(&mut self, legal: ActionMask) -> Action {
        let f = self.f();
        let ting = f.game.is_ting(f.seat);
        // The legal actions read as per-kind masks: an iterator over the
        // action set costs hundreds of instructions and mispredicted
        // branches per turn.
        let discards = kinds_from(
            &legal,
            Action::Discard(Tile::from_index_unchecked(0)).index(),
        );
        let tings = kinds_from(&legal, Action::Ting(Tile::from_index_unchecked(0)).index());
        let mut kongs = [None::<Action>; 8];
        let mut n_kongs = 0;
        // Concealed kongs first, then added ones, each by kind (the order
        // of the action set).
        for (mut m, kong) in [
            (
                kinds_from(
                    &legal,
                    Action::ConcealedKong(Tile::from_index_unchecked(0)).index(),
                ),
                Action::ConcealedKong as fn(Tile) -> Action,
            ),
            (
                kinds_from(
                    &legal,
                    Action::AddedKong(Tile::from_index_unchecked(0)).index(),
                ),
                Action::AddedKong,
            ),
        ] {
            while m != 0 && n_kongs < kongs.len() {
                let k = m.trailing_zeros() as u8;
                m &= m - 1;
                kongs[n_kongs] = Some(kong(Tile::from_index_unchecked(k)));
                n_kongs += 1;
            }
        }
        if discards == 0 && tings == 0 {
            // The Linxian last live tile that does not win.
            if legal.contains(Action::Pass) {
                return Action::Pass;
            }
            return kongs[0].unwrap_or(Action::Pass);
        }
        if ting {
            if let Some(k) = kongs[0] {
                return k;
            }
            if discards == 0 {
                return Action::Pass;
            }
            return Action::Discard(Tile::from_index_unchecked(discards.trailing_zeros() as u8));
        }
        if n_kongs > 0 {
            if let Some(k) = self.good_kong(&kongs[..n_kongs]) {
                return k;
            }
        }
        if tings != 0 {
            if let Some(t) = self.best_ting(tings) {
                return Action::Ting(t);
            }
        }
        match self.best_discard(discards) {
            Some(t) => Action::Discard(t),
            None => legal
                .iter()
                .find(|&a| a != Action::Leave)
                .unwrap_or(Action::Pass),
        }
    }

    /// A kong that does not raise the shanten over the best discard (and,
    /// for an added kong, may not be robbed for 包胡).
    pub(crate) fn good_kong(&mut self, kongs: &[Option<Action>]) -> Option<Action> {
        let f = self.f();
        let c = f.hand.concealed;
        let n = f.hand.n_melds();
        let best = self.e.best_discard_shanten(&c, n);
        let threat = self.threat();
        for a in kongs.iter().flatten() {
            let (k, after, melds) = match *a {
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
            if self.f().is_void(k) {
                continue;
            }
            if matches!(a, Action::AddedKong(_)) {
                if let Some(th) = &threat {
                    if self.dangerous(th, k) {
                        continue;
                    }
                }
            }
            let s = self.e.shanten(&after, melds);
            if s <= best {
                if NOTE {
                    self.note.shanten = Some(s);
                }
                return Some(*a);
            }
        }
        None
    }

    /// The best legal ting discard (`tings`: the kinds of the legal ting
    /// discards): never a wild tile while another may go, then the most
    /// live winning tiles, the highest value, the least kept tile.
    pub(crate) fn best_ting(&mut self, tings: u64) -> Option<Tile> {
        let f = self.f();
        let c = f.hand.concealed;
        let all = f.hand.all_counts();
        let n = f.hand.n_melds();
        let family = f.family;
        let unseen = self.e.unseen();
        let keep = Keep::new(&c, family);
        let mut best: Option<(TingKey, Tile)> = None;
        for k in 0..KINDS {
            let t = Tile::from_index_unchecked(k as u8);
            if c[k] == 0 || tings & bit(k) == 0 {
                continue;
            }
            let mut h = c;
            h[k] -= 1;
            let mut held = all;
            held[k] -= 1;
            let w = self.e.waits(&h, &held, n);
            let (live, value) = self.wait_quality(&w, &unseen);
            let key = (
                self.f().is_wild(k),
                u32::MAX - live,
                u32::MAX - value,
                keep.checked(&c, k, family),
                k,
            );
            if best.is_none_or(|(b, _)| key < b) {
                best = Some((key, t));
            }
        }
        if NOTE {
            if let Some(((_, live, value, _, _), _)) = best {
                self.note = Note {
                    shanten: Some(0),
                    improving: Some(u32::MAX - live),
                    wait_value: Some(u32::MAX - value),
                    // A ting discard is face down: never dangerous.
                    danger: Some(false),
                };
            }
        }
        best.map(|(_, t)| t)
    }

    /// Live winning copies, and their value, of a ready hand's waits:
    /// copies not visible, outside the void suit, of the waits whose
    /// points may win at all; the value counts points, doubled for waits
    /// that may also win on a discard.
    pub(crate) fn wait_quality(&self, w: &Waits, unseen: &Counts) -> (u32, u32) {
        let f = self.f();
        let mut live = 0u32;
        let mut value = 0u32;
        for (t, p) in w.iter() {
            if f.is_void(t.index()) {
                continue;
            }
            let n = unseen[t.index()] as u32;
            if !f.ting_required {
                live += n;
                value += n;
                continue;
            }
            if p < f.min_self {
                continue;
            }
            live += n;
            let on_discard = p >= f.min_discard && !f.is_wild(t.index());
            value += n * p as u32 * if on_discard { 2 } else { 1 };
        }
        (live, value)
    }

    /// The key ([`cand_key`]) of candidate `k` at shanten `sh` before its
    /// improving tiles are counted.
    #[inline(always)]
    fn key_at(&self, keep: &Keep, all_wild: bool, sh: i8, k: usize) -> u64 {
        keep.key(cand_key(all_wild, sh, true, 0, 0), self.f().void_mask, k)
    }

    /// The best face-up discard (`discards`: the kinds of the legal
    /// discards): the least key ([`cand_key`]: wild last, lower shanten,
    /// void-suit first, more improving tiles where counted, less kept
    /// tile, tile index), with the 包胡 defence.
    pub(crate) fn best_discard(&mut self, discards: u64) -> Option<Tile> {
        let (cs, mut d) = self.e.discards(KindSet(discards));
        if cs.cands.is_empty() {
            return None;
        }
        let threat = self.threat();
        let danger = match &threat {
            Some(th) => self.danger_mask(th),
            None => 0,
        };
        let f = self.f();
        let keep = Keep::new(&f.hand.concealed, f.family);
        // Two or more from ready whatever goes: no tiles are counted, the
        // least key is the answer, or with a threat, when that is
        // dangerous, the least safe key (folding: safe at any cost). When
        // nothing is safe, the full pass sheds the cheapest.
        if !cs.all_wild && cs.lowest > UKEIRE_SHANTEN as u8 + 1 {
            let mut t = Some(self.e.least_far(&mut d, &keep, cs.cands));
            if t.is_some_and(|k| danger >> k.index() & 1 == 1) {
                debug_assert!(threat.is_some() && cs.lowest > FOLD_SHANTEN as u8);
                let safe = cs.cands.0 & !danger;
                t = (safe != 0).then(|| self.e.least_far(&mut d, &keep, KindSet(safe)));
            }
            if let Some(t) = t {
                if NOTE {
                    let level = self.e.level(&mut d, &cs, t.index());
                    self.note.shanten = Some(level as i8 - 1);
                    self.note.danger = threat.is_some().then_some(false);
                }
                return Some(t);
            }
        }
        self.best_discard_full(&keep, &cs, &mut d, (threat, danger))
    }

    /// The rest of [`Policy::best_discard`] when the shortcut does not
    /// answer: every candidate's level, and the improving tiles of the
    /// ties that may change the choice. Not inlined, so that the frame
    /// and spills of this larger part do not weigh on the shortcut.
    #[inline(never)]
    pub(crate) fn best_discard_full(
        &mut self,
        keep: &Keep,
        cs: &Candidates,
        d: &mut E::Discards,
        (threat, danger): (Option<Threat>, u64),
    ) -> Option<Tile> {
        let all_wild = cs.all_wild;
        let void = self.f().void_mask;
        // By `shanten + 1`: the candidates' kinds, and bit `sh + 1`: some
        // candidate, some safe one, has that shanten (the decision below
        // works on these masks rather than on filtered passes).
        let by_sh = self.e.levels(d, cs);
        // The lowest level, and the lowest with a safe candidate (the
        // candidates are never empty).
        let lowest_with = |m: u64| by_sh.iter().position(|&x| x & m != 0);
        let min_sh = lowest_with(u64::MAX).unwrap_or(0) as i8 - 1;
        let folding = threat.is_some() && min_sh >= FOLD_SHANTEN;
        let safe_min = lowest_with(!danger).map(|l| l as i8 - 1);
        // Keys by kind, and the best key, and the best safe one (bit 63
        // set when there is none), as branch-free minimums; only at the
        // lowest shanten and the lowest safe one, where the minimums and
        // the counted ties are (a higher shanten makes a larger key).
        let min_level = (min_sh + 1) as usize & 15;
        let safe_sh = safe_min.unwrap_or(min_sh);
        let at_min = by_sh[min_level];
        let (best, best_safe) = level_keys(
            keep,
            (at_min, by_sh[(safe_sh + 1) as usize & 15]),
            (min_sh, safe_sh),
            (all_wild, void, danger),
        );
        // 包胡 defence: which shanten level deserves the tile counting (a
        // safe tile when it costs at most one shanten, and at any cost
        // once two or more from ready).
        let target = match (threat.is_some(), safe_min) {
            (true, Some(s)) if folding || s <= min_sh + SAFE_ALLOWANCE => s,
            _ => min_sh,
        };
        let mut tied = by_sh[(target + 1) as usize & 15];
        // A junk (void-suit) key beats every other of its shanten whatever
        // the counts: without a threat (only the best key matters then)
        // the others need no counting.
        if threat.is_none() && tied & void != 0 {
            tied &= void;
        }
        // Counting only splits ties: a lone candidate needs none.
        let counted = tied.count_ones() > 1 && (0..=UKEIRE_SHANTEN).contains(&target);
        let mut ranked = Ranked {
            best,
            best_safe,
            cheapest: None,
            danger,
            no_safe: threat.is_some() && safe_min.is_none(),
        };
        if counted {
            self.count_ties(keep, cs, d, (target, tied), &mut ranked);
        }
        let Ranked {
            best,
            best_safe,
            cheapest: cheapest_counted,
            ..
        } = ranked;
        let tile = |key: u64| Tile::from_index_unchecked((key & 63) as u8);
        let chosen = if threat.is_none() || danger >> (best & 63) & 1 == 0 {
            best
        } else if let Some(s) = safe_min {
            if (folding || s <= min_sh + SAFE_ALLOWANCE) && best_safe >> 63 == 0 {
                best_safe
            } else {
                best
            }
        } else {
            // Everything is dangerous: shed the cheapest among the best
            // shapes (every candidate is as wild as the best; the best key
            // has the lowest shanten: its kinds are keyed). With a threat
            // and no safe level the counted candidates (if any) are those
            // at the lowest shanten, already ranked above.
            debug_assert_eq!(key_shanten(best), min_sh);
            if counted {
                debug_assert_eq!(tied, at_min);
                cheapest_counted?.1
            } else {
                let mut cheapest: Option<(u8, u64)> = None;
                let mut m = at_min;
                while m != 0 {
                    let k = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let x = Ranked::priced(self.key_at(keep, all_wild, min_sh, k));
                    if cheapest.is_none_or(|c| x < c) {
                        cheapest = Some(x);
                    }
                }
                cheapest?.1
            }
        };
        if NOTE {
            let k = (chosen & 63) as usize;
            let sh = key_shanten(chosen & !(1 << 63));
            let q = u32::MAX - ((chosen >> 21) & u64::from(u32::MAX)) as u32;
            self.note.shanten = Some(sh);
            self.note.improving = (counted && sh == target && tied >> k & 1 == 1).then_some(q);
            self.note.danger = threat.is_some().then_some(danger >> k & 1 == 1);
        }
        Some(tile(chosen))
    }

    /// Counts the improving tiles of the `tied` candidates at shanten
    /// `target` into `ranked`: the waits' live copies when ready, the
    /// tiles that lower the shanten at one. Only the best key, the best
    /// safe one and (when no candidate is safe) the cheapest matter:
    /// candidates are taken in the order of the best key their count could
    /// give ([`Eval::improving_bound`], which may be the count itself),
    /// and counted only when that bound can still beat one of these
    /// (which only decrease).
    #[inline(always)]
    fn count_ties(
        &mut self,
        keep: &Keep,
        cs: &Candidates,
        d: &E::Discards,
        (target, tied): (i8, u64),
        ranked: &mut Ranked,
    ) {
        let all_wild = cs.all_wild;
        if target != 0 {
            let n = self.e.counting(d, true);
            // At most 14 (the kinds of 14 tiles).
            let mut bounds = [u64::MAX; 16];
            let mut nb = 0;
            let mut t = tied;
            while t != 0 {
                let k = t.trailing_zeros() as usize;
                t &= t - 1;
                let (ub, exact) = self.e.improving_bound(d, &n, cs, k);
                #[cfg(debug_assertions)]
                {
                    let count = self.e.improving(d, &n, cs, k);
                    assert!(count <= ub, "bound {ub} < {count} for {k}");
                    assert!(!exact || count == ub, "inexact {ub} > {count} for {k}");
                }
                let key = with_quality(self.key_at(keep, all_wild, target, k), ub);
                if exact {
                    // Counted already.
                    ranked.offer(key);
                } else {
                    bounds[nb] = key;
                    nb += 1;
                }
            }
            loop {
                let (i, bound) = bounds[..nb]
                    .iter()
                    .enumerate()
                    .fold((0, u64::MAX), |a, (i, &b)| if b < a.1 { (i, b) } else { a });
                if bound == u64::MAX {
                    break;
                }
                bounds[i] = u64::MAX;
                if !ranked.may_change(bound) {
                    continue;
                }
                let k = (bound & 63) as usize;
                let quality = self.e.improving(d, &n, cs, k);
                ranked.offer(with_quality(
                    self.key_at(keep, all_wild, target, k),
                    quality,
                ));
            }
            return;
        }
        // Ready: the live winning copies of each tied candidate's waits.
        let f = self.f();
        let c = f.hand.concealed;
        let all = f.hand.all_counts();
        let melds = f.hand.n_melds();
        let unseen = self.e.unseen();
        let mut m = tied;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            let mut h = c;
            h[k] -= 1;
            let mut held = all;
            held[k] -= 1;
            let h = self.f().eff(&h);
            let w = self.e.waits(&h, &held, melds);
            let quality = self.wait_quality(&w, &unseen).0;
            // A key only decreases: the minimums stay minimums.
            ranked.offer(with_quality(
                self.key_at(keep, all_wild, target, k),
                quality,
            ));
        }
    }

    // -- 包胡 defence.

    /// Public facts about declared opponents, or `None` when no face-up
    /// discard of the agent can make it pay 包胡.
    pub(crate) fn threat(&self) -> Option<Threat> {
        let f = self.f();
        let (game, me) = (f.game, f.seat);
        if !f.ting_required || game.is_ting(me) {
            return None;
        }
        let mut th = Threat {
            ting: [false; 4],
            passed: [KindSet::EMPTY; 4],
            kongs: [KindSet::EMPTY; 4],
            melded: [false; 4],
        };
        for s in 0..4u8 {
            th.ting[s as usize] = s != me && game.is_ting(s);
        }
        if !th.ting.iter().any(|&x| x) {
            return None;
        }
        let hide = game.rules().hide_concealed_kong;
        for s in 0..4u8 {
            for tm in game.table_melds(s) {
                th.melded[s as usize] = true;
                let hidden = hide && s != me && tm.meld.kind == MeldKind::ConcealedKong;
                if tm.meld.kind.is_kong() && !hidden {
                    th.kongs[s as usize].insert(tm.meld.tile);
                }
            }
        }
        for (o, p) in th.passed.iter_mut().enumerate() {
            *p = KindSet(game.let_pass(o as u8));
        }
        #[cfg(debug_assertions)]
        assert_eq!(Some(&th), threat_passes(game, th).as_ref());
        Some(th)
    }

    /// The kinds whose face-up discard may let a declared opponent win on
    /// it with the agent paying for everyone ([`Policy::dangerous`] for
    /// every kind at once).
    pub(crate) fn danger_mask(&mut self, th: &Threat) -> u64 {
        let f = self.f();
        let (min_discard, wild) = (f.min_discard, f.wild_mask);
        let orphans = f.shape.thirteen_orphans;
        let honors_count = !f.shape.wind_sets && f.wilds.is_empty();
        // Tiles worth at least the discard-win minimum: honors (10 points)
        // and the suited ranks from the minimum up.
        let mut worth = 0u64;
        for (k, m) in GROUP_KINDS.iter().enumerate() {
            worth |= if k == 3 {
                if min_discard <= 10 {
                    *m
                } else {
                    0
                }
            } else {
                let from = min_discard.clamp(1, 10) - 1;
                (0x1ffu64 >> from << from) << (9 * k)
            };
        }
        // An honor of which all four copies are visible, without
        // wildcards or 风嘴子: an honor wait needs a copy in hand.
        let mut honor_dead = 0u64;
        if honors_count {
            let u = self.e.unseen();
            // The honors' counts as one word (at most 4 each, so three
            // bits): bit 0 of each byte set when the count is not 0, then
            // gathered into one byte (the multiply moves byte `j`'s bit 0
            // to bit `56 + j`).
            let mut w = [0u8; 8];
            w[..7].copy_from_slice(&u[27..]);
            let x = u64::from_le_bytes(w);
            let live = ((x | x >> 1 | x >> 2) & LOW).wrapping_mul(0x0102_0408_1020_4080) >> 56;
            honor_dead = (!live & 0x7f) << 27;
            debug_assert_eq!(
                honor_dead,
                (27..KINDS)
                    .filter(|&k| u[k] == 0)
                    .fold(0, |m, k| m | bit(k))
            );
        }
        let mut danger = 0u64;
        for o in 0..4 {
            if th.ting[o] {
                // Thirteen orphans may wait on a dead honor.
                let dead = if !orphans || th.melded[o] {
                    honor_dead
                } else {
                    0
                };
                danger |= !th.passed[o].0 & !th.kongs[o].0 & !dead;
            }
        }
        let m = danger & worth & !wild;
        debug_assert!((0..KINDS).all(|k| (m >> k & 1 == 1) == self.dangerous(th, k)));
        m
    }

    /// Whether discarding kind `k` face up may let a declared opponent win
    /// on it with the agent paying for everyone: worth the discard-win
    /// minimum, not wild, and some declared opponent has not let it pass,
    /// holds no kong of it, and may wait on it.
    pub(crate) fn dangerous(&mut self, th: &Threat, k: usize) -> bool {
        let f = self.f();
        let t = Tile::from_index_unchecked(k as u8);
        if t.points() < f.min_discard || f.is_wild(k) {
            return false;
        }
        let orphans = f.shape.thirteen_orphans;
        let honor_dead =
            k >= 27 && !f.shape.wind_sets && f.wilds.is_empty() && self.e.unseen()[k] == 0;
        (0..4).any(|o| {
            th.ting[o]
                && !th.passed[o].contains(t)
                && !th.kongs[o].contains(t)
                && !(honor_dead && (!orphans || th.melded[o]))
        })
    }
}

/// `th` with its passed kinds recomputed from every discard afresh: the
/// check of [`Policy::threat`] in debug builds and tests.
#[cfg(any(test, debug_assertions))]
pub(crate) fn threat_passes(game: &Game, mut th: Threat) -> Option<Threat> {
    let all = game.discards();
    for (o, p) in th.passed.iter_mut().enumerate() {
        // After its declaration (its one face-down discard), the face-up
        // discards of the other seats.
        let from = all
            .iter()
            .position(|d| d.face_down && usize::from(d.seat) == o);
        *p = all[from.map_or(all.len(), |i| i + 1)..]
            .iter()
            .filter(|d| !d.face_down && usize::from(d.seat) != o)
            .map(|d| d.tile)
            .collect();
    }
    Some(th)
}
