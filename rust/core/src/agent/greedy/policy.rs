//! The strategy (see the [module docs](super)): win, respond to a
//! discard, kong, declare ting, discard, 包胡 defence; written on the
//! questions of [`Ctx`].

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
    pub(crate) passed: [u64; 4],
    /// Kinds each opponent holds a visible kong of.
    pub(crate) kongs: [u64; 4],
    /// Opponents with at least one meld (no thirteen orphans).
    pub(crate) melded: [bool; 4],
}

impl<'a> Ctx<'a> {
    pub(crate) fn decide(&mut self, legal: ActionMask) -> Action {
        if legal.contains(Action::Win) {
            return Action::Win;
        }
        match self.game.phase() {
            Phase::Respond { tile, .. } => self.respond(legal, tile),
            _ => self.turn(legal),
        }
    }

    // -- Answering a discard or an added kong.

    pub(crate) fn respond(&mut self, legal: ActionMask, t: Tile) -> Action {
        let k = t.index();
        let ting = self.game.is_ting(self.seat);
        let c = self.hand.concealed;
        let n = self.hand.n_melds();
        if legal.contains(Action::Kong) && !self.is_void(k) {
            if ting {
                return Action::Kong;
            }
            let now = self.shanten(&c, n);
            let mut after = c;
            after[k] -= 3;
            if self.shanten(&after, n + 1) <= now {
                return Action::Kong;
            }
        }
        if legal.contains(Action::Pong) && !ting && !self.is_void(k) {
            let now = self.shanten(&c, n);
            let mut after = c;
            after[k] -= 2;
            if self.best_discard_shanten_below(&after, n + 1, now) {
                return Action::Pong;
            }
        }
        Action::Pass
    }

    // -- The agent's own turn.

    pub(crate) fn turn(&mut self, legal: ActionMask) -> Action {
        let ting = self.game.is_ting(self.seat);
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
        let any_discard = discards != 0;
        let any_ting = tings != 0;
        if !any_discard && !any_ting {
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
        if any_ting {
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
        let c = self.hand.concealed;
        let n = self.hand.n_melds();
        let best = self.best_discard_shanten(&c, n);
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
            if self.is_void(k) {
                continue;
            }
            if matches!(a, Action::AddedKong(_)) {
                if let Some(th) = &threat {
                    if self.dangerous(th, k) {
                        continue;
                    }
                }
            }
            if self.shanten(&after, melds) <= best {
                return Some(*a);
            }
        }
        None
    }

    /// The best legal ting discard (`tings`: the kinds of the legal ting
    /// discards).
    pub(crate) fn best_ting(&mut self, tings: u64) -> Option<Tile> {
        let c = self.hand.concealed;
        let n = self.hand.n_melds();
        let unseen = self.unseen();
        let keep = Keep::new(&c, self.family);
        let mut best: Option<(TingKey, Tile)> = None;
        for k in 0..KINDS {
            let t = Tile::from_index_unchecked(k as u8);
            if c[k] == 0 || tings & bit(k) == 0 {
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
                keep.checked(&c, k, self.family),
                k,
            );
            if best.is_none_or(|(b, _)| key < b) {
                best = Some((key, t));
            }
        }
        best.map(|(_, t)| t)
    }

    /// Live winning copies, and their value, of a ready hand's waits.
    pub(crate) fn wait_quality(&self, w: &Waits, unseen: &Counts) -> (u32, u32) {
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

    /// The best face-up discard (`discards`: the kinds of the legal
    /// discards).
    pub(crate) fn best_discard(&mut self, discards: u64) -> Option<Tile> {
        self.best_discard_with(discards, true)
    }

    /// [`Ctx::best_discard`], with the shortcut far from ready
    /// ([`Ctx::first_at_lowest`]) or without it (its check in debug
    /// builds).
    pub(crate) fn best_discard_with(&mut self, discards: u64, shortcut: bool) -> Option<Tile> {
        let c = self.hand.concealed;
        let n = self.hand.n_melds();
        // The partners as they are asked for (far from ready, one or two).
        let mut b14 = self.base_without_partners(&c, n);
        let threat = self.threat();
        let danger = match &threat {
            Some(th) => self.danger_mask(th),
            None => 0,
        };
        // The candidates: the legal discards held, the wild tiles only
        // when nothing else may go (a wild key always loses to a natural
        // one, so the others never count).
        let natural = b14.held;
        debug_assert_eq!(natural, Planes::new(&b14.natural).held());
        // The kinds held: the natural ones, and the wild and void-suit
        // kinds that the analysis leaves out.
        let mut held = natural;
        let mut m = (self.wild_mask | self.void_mask) & discards;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            held |= u64::from(c[k] > 0) << k;
        }
        debug_assert_eq!(held, Planes::new(&c).held() & (natural | discards));
        let cands = discards & held;
        if cands == 0 {
            return None;
        }
        let all_wild = cands & !self.wild_mask == 0;
        let cands = if all_wild {
            cands
        } else {
            cands & !self.wild_mask
        };
        // Discarding a wild tile leaves one wild fewer and the natural
        // tiles as they are; so does a junk (void-suit) tile, with the wild
        // count unchanged.
        let w = if all_wild {
            b14.w.saturating_sub(1)
        } else {
            b14.w
        };
        let keep = Keep::new(&c, self.family);
        let ting_required = self.ting_required;
        let level_of = |d: u8| {
            let q = d.saturating_sub(w);
            // A ready hand that cannot declare cannot win: one step from
            // ready.
            q + u8::from(ting_required & (q == 1))
        };
        // Two or more from ready whatever goes: no tiles are counted, the
        // lowest level's least key is the answer, or with a threat, when
        // that is dangerous, the least safe key (folding: safe at any
        // cost). When nothing is safe, the full pass sheds the cheapest.
        let lowest = level_of(b14.d);
        if shortcut && !all_wild && lowest > UKEIRE_SHANTEN as u8 + 1 {
            let mut t = Some(self.first_at_lowest(&mut b14, &keep, cands, (lowest, w)));
            if t.is_some_and(|k| danger >> k.index() & 1 == 1) {
                debug_assert!(threat.is_some() && lowest > FOLD_SHANTEN as u8);
                let safe = cands & !danger;
                t = (safe != 0).then(|| self.first_at_lowest(&mut b14, &keep, safe, (lowest, w)));
            }
            if t.is_some() {
                debug_assert_eq!(t, self.best_discard_with(discards, false));
                return t;
            }
        }
        self.best_discard_full(
            &mut b14,
            &keep,
            (cands, natural),
            (all_wild, w, lowest),
            (threat, danger),
        )
    }

    /// The rest of [`Ctx::best_discard_with`] when the shortcut does not
    /// answer: every candidate's shanten, and the improving tiles of the
    /// ties that may change the choice. Not inlined, so that the frame
    /// and spills of this larger part do not weigh on the shortcut.
    #[inline(never)]
    pub(crate) fn best_discard_full(
        &mut self,
        b14: &mut Base,
        keep: &Keep,
        (cands, natural): (u64, u64),
        (all_wild, w, lowest): (bool, u8, u8),
        (threat, danger): (Option<Threat>, u64),
    ) -> Option<Tile> {
        let c = self.hand.concealed;
        let n = self.hand.n_melds();
        // By `shanten + 1`: the candidates' kinds, and bit `sh + 1`: some
        // candidate, some safe one, has that shanten (the decision below
        // works on these masks rather than on filtered passes).
        let mut by_sh = [0u64; 16];
        let (mut levels, mut safe_levels) = (0u16, 0u16);
        b14.fill_partners(false);
        let b14: &Base = b14;
        let removal = self.removal_deficiencies(b14, natural);
        // The candidates sorted into shanten levels (`shanten + 1`) by
        // masks, not kind by kind: the natural discards' levels as bytes
        // ([`removal_levels`]), gathered by one compare per level present;
        // a wild or void-suit discard leaves the hand's deficiency.
        let lv = removal_levels(&removal, &b14.natural, w, self.ting_required);
        let mut place = |m: u64, level: u8| {
            debug_assert!(level < 16);
            let level = usize::from(level & 15);
            by_sh[level] |= m;
            levels |= u16::from(m != 0) << level;
            safe_levels |= u16::from(m & !danger != 0) << level;
        };
        let mut rest = cands & natural;
        while rest != 0 {
            let level = lv[rest.trailing_zeros() as usize];
            let m = rest & kinds_at_level(&lv, level);
            rest &= !m;
            place(m, level);
        }
        place(cands & !natural, lowest);
        let min_sh = levels.trailing_zeros() as i8 - 1;
        let folding = threat.is_some() && min_sh >= FOLD_SHANTEN;
        let safe_min = (safe_levels != 0).then(|| safe_levels.trailing_zeros() as i8 - 1);
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
            (all_wild, self.void_mask, danger),
        );
        // The key of kind `k` at shanten `sh` before counting (as
        // [`cand_key`]).
        let void = self.void_mask;
        let key_at = |sh: i8, k: usize| keep.key(cand_key(all_wild, sh, true, 0, 0), void, k);
        // The plain pass, kind by kind, in debug builds: the same levels
        // and keys.
        #[cfg(debug_assertions)]
        let mut plain_keys = {
            let mut plain = [0u64; KINDS];
            let (mut by, mut lvls, mut sl) = ([0u64; 16], 0u16, 0u16);
            let mut m = cands;
            while m != 0 {
                let k = m.trailing_zeros() as usize;
                m &= m - 1;
                let sh = if natural >> k & 1 == 1 {
                    let rem = self.groups.after(self.calc, &b14.natural, k);
                    let d = b14.deficiency_with(k, false, &rem);
                    assert_eq!(d, removal.of(k, b14.natural[k]));
                    Base::to_shanten(d, b14.w)
                } else {
                    b14.shanten_without(self.calc, &self.wilds, k)
                };
                let sh = sh + i8::from(self.ting_required & (sh == 0));
                let level = (sh + 1) as usize & 15;
                by[level] |= bit(k);
                lvls |= 1 << level;
                sl |= u16::from(danger >> k & 1 == 0) << level;
                let junk = self.void_mask >> k & 1 == 1;
                plain[k] = cand_key(all_wild, sh, junk, keep_value(&c, k, self.family), k);
                if (at_min | by_sh[(safe_sh + 1) as usize & 15]) >> k & 1 == 1 {
                    assert_eq!(plain[k], key_at(sh, k));
                }
            }
            assert_eq!((by, lvls, sl), (by_sh, levels, safe_levels));
            plain
        };
        // Which shanten level deserves the tile counting.
        let target = match (threat.is_some(), safe_min) {
            (true, Some(s)) if folding || s <= min_sh + SAFE_ALLOWANCE => s,
            _ => min_sh,
        };
        let mut tied = by_sh[(target + 1) as usize & 15];
        // A junk (void-suit) key beats every other of its shanten whatever
        // the counts: without a threat (only the best key matters then)
        // the others need no counting.
        if threat.is_none() && tied & self.void_mask != 0 {
            tied &= self.void_mask;
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
            // The deficiency a candidate's discard leaves.
            let d_without = |k: usize| {
                if natural >> k & 1 == 1 {
                    removal.of(k, b14.natural[k])
                } else {
                    b14.d
                }
            };
            let unseen = self.unseen();
            let masks = CountMasks::new(&b14.natural);
            let planes = Planes::new(&unseen);
            // Kinds worth counting: unseen copies, outside the void suit;
            // the wild ones apart (they improve any incomplete hand).
            let wild = self.wild_mask();
            let live = (planes.0[0] | planes.0[1] | planes.0[2]) & !self.void_mask;
            let wild_copies = planes.copies(live & wild);
            let near = self.near(&b14.natural, b14.orphans) & live & !wild;
            // Only the best key, the best safe one and (when no candidate
            // is safe) the cheapest matter: candidates are taken in the
            // order of the best key their count could give
            // ([`Ctx::ukeire_bound`], which may be the count itself), and
            // counted only when that bound can still beat one of these
            // (which only decrease). Debug builds count every candidate,
            // and check that the bounds hold and that the results are the
            // same.
            let prune = target != 0;
            let mut m = if prune { 0 } else { tied };
            if prune {
                let u14 = self.improvers_14(b14, &masks, near);
                // At most 14 (the kinds of 14 tiles).
                let mut bounds = [u64::MAX; 16];
                let mut nb = 0;
                let mut t = tied;
                while t != 0 {
                    let k = t.trailing_zeros() as usize;
                    t &= t - 1;
                    let d = d_without(k);
                    let (ub, exact) = self.ukeire_bound(
                        b14,
                        &masks,
                        (k, all_wild, d),
                        (near, u14),
                        wild_copies,
                        &planes,
                    );
                    #[cfg(debug_assertions)]
                    {
                        let count =
                            self.ukeire(b14, &masks, (k, all_wild, d), near, wild_copies, &planes);
                        assert!(count <= ub, "bound {ub} < {count} for {k}");
                        assert!(!exact || count == ub, "inexact {ub} > {count} for {k}");
                    }
                    let key = with_quality(key_at(target, k), ub);
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
                    let d = d_without(k);
                    let quality =
                        self.ukeire(b14, &masks, (k, all_wild, d), near, wild_copies, &planes);
                    ranked.offer(with_quality(key_at(target, k), quality));
                }
                // The full count, in debug builds (for the checks below).
                #[cfg(debug_assertions)]
                {
                    m = tied;
                }
            }
            while m != 0 {
                let k = m.trailing_zeros() as usize;
                m &= m - 1;
                // Every tied candidate has the shanten `target`.
                let quality = if target == 0 {
                    let mut h = c;
                    h[k] -= 1;
                    let mut held = self.hand.all_counts();
                    held[k] -= 1;
                    let w = waits_counts(&self.eff(&h), &held, n, &self.wilds, &self.shape);
                    self.wait_quality(&w, &unseen).0
                } else {
                    let d = d_without(k);
                    self.ukeire(b14, &masks, (k, all_wild, d), near, wild_copies, &planes)
                };
                // A key only decreases: the minimums stay minimums.
                let key = with_quality(key_at(target, k), quality);
                #[cfg(debug_assertions)]
                {
                    plain_keys[k] = with_quality(plain_keys[k], quality);
                    if prune {
                        // Counted above (or bounded away).
                        continue;
                    }
                }
                ranked.offer(key);
            }
        }
        let Ranked {
            best,
            best_safe,
            cheapest: cheapest_counted,
            ..
        } = ranked;
        #[cfg(debug_assertions)]
        {
            let mut m = cands;
            let (mut b, mut bs) = (u64::MAX, u64::MAX);
            while m != 0 {
                let k = m.trailing_zeros() as usize;
                m &= m - 1;
                b = b.min(plain_keys[k]);
                bs = bs.min(plain_keys[k] | (danger >> k & 1) << 63);
            }
            assert_eq!((b, bs), (best, best_safe));
        }
        let tile = |key: u64| Tile::from_index_unchecked((key & 63) as u8);
        if threat.is_none() || danger >> (best & 63) & 1 == 0 {
            return Some(tile(best));
        }
        if let Some(s) = safe_min {
            if (folding || s <= min_sh + SAFE_ALLOWANCE) && best_safe >> 63 == 0 {
                return Some(tile(best_safe));
            }
            return Some(tile(best));
        }
        // Everything is dangerous: shed the cheapest among the best shapes
        // (every candidate is as wild as the best).
        // (The best key has the lowest shanten: its kinds are keyed.)
        debug_assert_eq!(key_shanten(best), min_sh);
        // With a threat and no safe level the counted candidates (if any)
        // are those at the lowest shanten, already ranked above.
        if counted {
            debug_assert_eq!(tied, at_min);
            #[cfg(debug_assertions)]
            {
                let plain = (0..KINDS)
                    .filter(|&k| at_min >> k & 1 == 1)
                    .map(|k| (tile(plain_keys[k]).points(), plain_keys[k]))
                    .min();
                assert_eq!(plain, cheapest_counted);
            }
            return cheapest_counted.map(|(_, key)| tile(key));
        }
        let mut cheapest: Option<(u8, u64)> = None;
        let mut m = at_min;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            let key = key_at(min_sh, k);
            let x = (tile(key).points(), key);
            if cheapest.is_none_or(|c| x < c) {
                cheapest = Some(x);
            }
        }
        cheapest.map(|(_, key)| tile(key))
    }

    // -- 包胡 defence.

    /// Public facts about declared opponents, or `None` when no face-up
    /// discard of the agent can make it pay 包胡.
    pub(crate) fn threat(&mut self) -> Option<Threat> {
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
        for (o, p) in th.passed.iter_mut().enumerate() {
            *p = self.game.let_pass(o as u8);
        }
        #[cfg(debug_assertions)]
        assert_eq!(Some(&th), Ctx::threat_passes(self.game, th).as_ref());
        Some(th)
    }

    /// `th` with its passed kinds recomputed from every discard afresh:
    /// the check of [`Ctx::threat`] in debug builds and tests.
    #[cfg(any(test, debug_assertions))]
    pub(crate) fn threat_passes(game: &Game, mut th: Threat) -> Option<Threat> {
        let all = game.discards();
        for (o, p) in th.passed.iter_mut().enumerate() {
            // After its declaration (its one face-down discard), the
            // face-up discards of the other seats.
            let from = all
                .iter()
                .position(|d| d.face_down && usize::from(d.seat) == o);
            *p = all[from.map_or(all.len(), |i| i + 1)..]
                .iter()
                .filter(|d| !d.face_down && usize::from(d.seat) != o)
                .fold(0, |m, d| m | bit(d.tile.index()));
        }
        Some(th)
    }

    /// The kinds whose face-up discard may let a declared opponent win on
    /// it with the agent paying for everyone ([`Ctx::dangerous`] for every
    /// kind at once).
    pub(crate) fn danger_mask(&mut self, th: &Threat) -> u64 {
        // Tiles worth at least the discard-win minimum: honors (10 points)
        // and the suited ranks from the minimum up.
        let mut worth = 0u64;
        for (k, m) in GROUP_KINDS.iter().enumerate() {
            worth |= if k == 3 {
                if self.min_discard <= 10 {
                    *m
                } else {
                    0
                }
            } else {
                let from = self.min_discard.clamp(1, 10) - 1;
                (0x1ffu64 >> from << from) << (9 * k)
            };
        }
        let wild = self.wild_mask;
        let mut honor_dead = 0u64;
        if !self.shape.wind_sets && self.wilds.is_empty() {
            let u = self.unseen();
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
                let dead = if !self.shape.thirteen_orphans || th.melded[o] {
                    honor_dead
                } else {
                    0
                };
                danger |= !th.passed[o] & !th.kongs[o] & !dead;
            }
        }
        let m = danger & worth & !wild;
        debug_assert!((0..KINDS).all(|k| (m >> k & 1 == 1) == self.dangerous(th, k)));
        m
    }

    /// Whether discarding kind `k` face up may let a declared opponent win
    /// on it with the agent paying for everyone.
    pub(crate) fn dangerous(&mut self, th: &Threat, k: usize) -> bool {
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
