//! [`Facts`], what one decision knows of the position, and [`Ctx`], the
//! fast evaluator: the shanten questions of [`Eval`] answered from the
//! agent's kept shape tables.

use super::*;

/// What one decision knows of the position: the hand, the rules that
/// matter to the policy, the wild kinds and the void suit (缺一门).
pub(crate) struct Facts<'a> {
    pub(crate) game: &'a Game,
    pub(crate) seat: u8,
    pub(crate) hand: &'a Hand,
    pub(crate) wilds: Wildcards,
    pub(crate) shape: ShapeRules,
    /// The wild kinds as a mask.
    pub(crate) wild_mask: u64,
    /// The void suit's kinds as a mask (0 outside Sichuan).
    pub(crate) void_mask: u64,
    pub(crate) family: Family,
    pub(crate) ting_required: bool,
    pub(crate) min_self: u8,
    pub(crate) min_discard: u8,
    /// Sichuan: the suit to clear (缺一门).
    pub(crate) void: Option<usize>,
}

impl<'a> Facts<'a> {
    /// The facts of `seat` in `game`, whose wildcards are `wilds` (the
    /// kinds `wild_mask`) and shape rules `shape`.
    #[inline(always)]
    pub(crate) fn new(
        game: &'a Game,
        seat: u8,
        (wilds, shape, wild_mask): (Wildcards, ShapeRules, u64),
    ) -> Facts<'a> {
        let rules = game.rules();
        let hand = game.hand(seat);
        let (min_self, min_discard) = rules.point_rule.minimums();
        let void = if rules.family == Family::Sichuan {
            void_suit(hand)
        } else {
            None
        };
        Facts {
            game,
            seat,
            hand,
            wilds,
            shape,
            wild_mask,
            void_mask: void.map_or(0, |s| GROUP_KINDS[s]),
            family: rules.family,
            ting_required: rules.ting_required,
            min_self,
            min_discard,
            void,
        }
    }

    #[inline]
    pub(crate) fn is_void(&self, k: usize) -> bool {
        debug_assert_eq!(
            self.void_mask >> k & 1 == 1,
            self.void == Some(k / 9) && k < 27
        );
        self.void_mask >> k & 1 == 1
    }

    #[inline]
    pub(crate) fn is_wild(&self, k: usize) -> bool {
        debug_assert_eq!(
            self.wild_mask >> k & 1 == 1,
            self.wilds.is_wild(Tile::from_index_unchecked(k as u8))
        );
        self.wild_mask >> k & 1 == 1
    }

    /// The counts the shape analysis sees: void-suit tiles left out.
    pub(crate) fn eff(&self, c: &Counts) -> Counts {
        let mut e = *c;
        if let Some(s) = self.void {
            e[9 * s..9 * s + 9].fill(0);
        }
        e
    }
}

/// The fast evaluator: the kept shape tables of the agent ([`Groups`],
/// the calculator) answering [`Eval`] incrementally.
pub(crate) struct Ctx<'a> {
    pub(crate) f: Facts<'a>,
    pub(crate) groups: &'a mut Groups,
    pub(crate) calc: &'a Calculator,
    pub(crate) unseen: Option<Counts>,
}

/// The kinds of the legal actions of one per-kind family (discards,
/// tings, concealed or added kongs), whose dense indices start at `base`.
#[inline(always)]
pub(crate) fn kinds_from(legal: &ActionMask, base: usize) -> u64 {
    let i = base / 64;
    let next = legal.0.get(i + 1).copied().unwrap_or(0);
    let w = u128::from(legal.0[i]) | u128::from(next) << 64;
    (w >> (base % 64)) as u64 & ((1u64 << KINDS) - 1)
}

/// 缺一门: the suit with the fewest tiles among those without a meld
/// (ties: the lower suit).
pub(crate) fn void_suit(hand: &Hand) -> Option<usize> {
    let mut best: Option<(u8, usize)> = None;
    for s in 0..3 {
        if hand.melds().iter().any(|m| m.tile.index() / 9 == s) {
            continue;
        }
        let n: u8 = hand.concealed[9 * s..9 * s + 9].iter().sum();
        if best.is_none_or(|(b, _)| n < b) {
            best = Some((n, s));
        }
    }
    best.map(|(_, s)| s)
}

#[inline]
pub(crate) fn bit(k: usize) -> u64 {
    1u64 << k
}

impl<'a> Ctx<'a> {
    #[inline(always)]
    pub(crate) fn new(
        game: &'a Game,
        seat: u8,
        groups: &'a mut Groups,
        setup: &'a mut Option<Box<Setup>>,
    ) -> Ctx<'a> {
        let (wilds, shape) = (game.wilds(), ShapeRules::from(game.rules()));
        let setup = Setup::refresh(setup, wilds, shape);
        let calc = &setup.calc;
        groups.prepare(calc);
        Ctx {
            f: Facts::new(game, seat, (wilds, shape, setup.wild_mask)),
            groups,
            calc,
            unseen: None,
        }
    }

    /// The counts the shape analysis sees: void-suit tiles left out.
    pub(crate) fn eff(&self, c: &Counts) -> Counts {
        self.f.eff(c)
    }

    /// The natural counts and the number of wild tiles that the shape
    /// analysis sees in `c` ([`Wildcards::split`] of [`Ctx::eff`]), on
    /// one copy of the counts, the wild kinds read from their mask.
    #[inline(always)]
    pub(crate) fn split(&self, c: &Counts) -> (Counts, u8) {
        let mut natural = *c;
        if let Some(s) = self.f.void {
            natural[9 * s..9 * s + 9].fill(0);
        }
        let mut w = 0;
        let mut m = self.f.wild_mask;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            w += natural[k];
            natural[k] = 0;
        }
        debug_assert_eq!((natural, w), self.f.wilds.split(&self.eff(c)));
        (natural, w)
    }

    /// The shanten of the hand `c` with `melds` melds, from the kept group
    /// needs and two products (the shanten module's own formula).
    pub(crate) fn shanten(&mut self, c: &Counts, melds: usize) -> i8 {
        let (natural, w) = self.split(c);
        let g = self.groups.sync(self.calc, &natural);
        let halves = self.groups.halves();
        // A base's deficiency (the vector form of the standard shape's
        // and the special shapes' from the bit planes), of which only
        // the shanten is kept: the rest is never stored.
        let s = Base::with_halves(natural, w, melds, g, halves, &self.f.shape).shanten();
        debug_assert_eq!(
            s,
            self.calc
                .of_halves(&natural, &halves[0], &halves[1], w, melds)
        );
        s
    }

    pub(crate) fn base(&mut self, c: &Counts, melds: usize) -> Base {
        let mut b = self.base_without_partners(c, melds);
        b.fill_partners(false);
        b
    }

    /// [`Ctx::base`] with no partner computed yet ([`Base::fill_partner`]
    /// computes them as they are asked for).
    #[inline(always)]
    pub(crate) fn base_without_partners(&mut self, c: &Counts, melds: usize) -> Base {
        let (natural, w) = self.split(c);
        let groups = self.groups.sync(self.calc, &natural);
        let halves = self.groups.halves();
        Base::with_halves(natural, w, melds, groups, halves, &self.f.shape)
    }

    /// Copies of each kind the agent cannot see (its own tiles, face-up
    /// discards, visible melds and face-up wall tiles are seen); 0 for
    /// kinds not in play.
    pub(crate) fn unseen(&mut self) -> Counts {
        if let Some(u) = self.unseen {
            return u;
        }
        let g = self.f.game;
        let me = self.f.seat;
        // Its own tiles, the face-up discards and the melds all see.
        let mut vis = self.f.hand.concealed;
        for ((v, &p), &m) in vis.iter_mut().zip(g.pond()).zip(g.meld_counts()) {
            *v += p + m;
        }
        // Its own concealed kongs, where the others cannot see them.
        if g.rules().hide_concealed_kong {
            for m in self.f.hand.melds() {
                if m.kind == MeldKind::ConcealedKong {
                    vis[m.tile.index()] += 4;
                }
            }
        }
        // Its own ting discard, face down (it opens no responses, so it
        // is never claimed).
        if g.is_ting(me) {
            if let Some(d) = g.discards().iter().find(|d| d.face_down && d.seat == me) {
                vis[d.tile.index()] += 1;
            }
        }
        let u = self.unseen_of(vis);
        #[cfg(debug_assertions)]
        assert_eq!(u, unseen_plain(self.f.game, self.f.seat));
        self.unseen = Some(u);
        u
    }

    /// The unseen counts from the copies seen in hands, discards and
    /// melds (`vis`), adding the face-up wall tiles.
    #[inline]
    pub(crate) fn unseen_of(&self, mut vis: Counts) -> Counts {
        let g = self.f.game;
        // Most rulesets reveal no indicator: skip the wall there.
        if g.deal().revealed > 0 {
            for (v, up) in vis.iter_mut().zip(g.face_up_in_wall()) {
                *v += up;
            }
        }
        let kinds = crate::legal::kind_count(g.rules());
        // Every kind at once (a fixed-length loop the compiler vectorizes),
        // then the kinds not in play cleared.
        let mut u = [0u8; KINDS];
        for (u, &v) in u.iter_mut().zip(vis.iter()) {
            *u = 4u8.saturating_sub(v);
        }
        u[kinds.min(KINDS)..].fill(0);
        u
    }

    /// Whether [`Ctx::best_discard_shanten`] is below `cut`: not when the
    /// 14-type hand itself is not (a discard never lowers the shanten: a
    /// tile less never lowers a need, a wild tile less is one wild fewer),
    /// which needs no discard analysis.
    pub(crate) fn best_discard_shanten_below(&mut self, c: &Counts, melds: usize, cut: i8) -> bool {
        // The partners only when the discards are analysed.
        let mut b = self.base_without_partners(c, melds);
        if b.shanten() >= cut {
            #[cfg(debug_assertions)]
            {
                let mut full = b;
                full.fill_partners(false);
                assert!(self.best_discard_shanten_of(&full, c) >= b.shanten());
            }
            return false;
        }
        b.fill_partners(false);
        self.best_discard_shanten_of(&b, c) < cut
    }

    /// Lowest shanten over the non-wild discards of a 14-type hand.
    pub(crate) fn best_discard_shanten(&mut self, c: &Counts, melds: usize) -> i8 {
        let b = self.base(c, melds);
        self.best_discard_shanten_of(&b, c)
    }

    /// [`Ctx::best_discard_shanten`] of the hand `c`, whose base is `b`.
    #[inline(always)]
    pub(crate) fn best_discard_shanten_of(&mut self, b: &Base, c: &Counts) -> i8 {
        // A local copy (fewer instructions than reading through the
        // reference across the `&mut self` calls below).
        let b = *b;
        // The natural discards all at once (the shanten grows with the
        // deficiency); a void-suit tile leaves the hand's deficiency, a
        // wild one also one wild fewer.
        let natural = b.held;
        let removal = self.removal_deficiencies(&b, natural);
        let mut d = u8::MAX;
        let mut m = natural;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            d = d.min(removal.of(k, b.natural[k]));
        }
        let mut held = natural;
        let mut m = self.f.wild_mask | self.f.void_mask;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            held |= u64::from(c[k] > 0) << k;
        }
        if held & !natural & !self.f.wild_mask != 0 {
            d = d.min(b.d);
        }
        if d != u8::MAX {
            Base::to_shanten(d, b.w)
        } else if held & self.f.wild_mask != 0 {
            Base::to_shanten(b.d, b.w.saturating_sub(1))
        } else {
            i8::MAX
        }
    }
}

/// Copies of each kind that `seat` cannot see (its own tiles, face-up
/// discards, visible melds and face-up wall tiles are seen; 0 for kinds
/// not in play), counted afresh from every discard and meld: the plain
/// form of [`Ctx::unseen`] (its check in debug builds) and the plain
/// evaluator's count.
#[cfg(any(test, debug_assertions))]
pub(crate) fn unseen_plain(g: &Game, me: u8) -> Counts {
    let hide = g.rules().hide_concealed_kong;
    let mut vis = g.hand(me).all_counts();
    for s in (0..4u8).filter(|&s| s != me) {
        for tm in g.table_melds(s) {
            if hide && tm.meld.kind == MeldKind::ConcealedKong {
                continue;
            }
            vis[tm.meld.tile.index()] += tm.meld.kind.size();
        }
    }
    for d in g.discards() {
        if !d.claimed && (!d.face_down || d.seat == me) {
            vis[d.tile.index()] += 1;
        }
    }
    if g.deal().revealed > 0 {
        for (v, up) in vis.iter_mut().zip(g.face_up_in_wall()) {
            *v += up;
        }
    }
    let kinds = crate::legal::kind_count(g.rules());
    let mut u = [0u8; KINDS];
    for (u, &v) in u.iter_mut().zip(vis.iter()).take(kinds) {
        *u = 4u8.saturating_sub(v);
    }
    u
}
