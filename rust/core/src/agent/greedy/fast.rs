//! The fast evaluator's answers to [`Eval`]: [`Ctx`] with the kept group
//! needs of [`Groups`] (one group re-looked-up per tile changed), the
//! removal levels of every discard at once ([`Ctx::removal_deficiencies`],
//! [`removal_levels`]) and the improving tiles by lanes
//! ([`Ctx::ukeire`], [`Ctx::ukeire_bound`]).

use super::*;

/// The analysis of the 14 tiles shared by one discard decision.
pub(crate) struct FastDiscards {
    b14: Base,
    /// The natural kinds held.
    natural: u64,
    /// The wild tiles the candidates' levels count.
    w: u8,
    lowest: u8,
    /// The deficiency each natural discard leaves (after
    /// [`Eval::levels`]).
    removal: Removal,
}

impl FastDiscards {
    /// The deficiency a candidate's discard leaves.
    #[inline(always)]
    fn without(&self, k: usize) -> u8 {
        if self.natural >> k & 1 == 1 {
            self.removal.of(k, self.b14.natural[k])
        } else {
            self.b14.d
        }
    }
}

/// The tallies for counting improving tiles.
pub(crate) struct FastCounting {
    masks: CountMasks,
    planes: Planes,
    /// Natural kinds worth trying: live, outside the void suit, near the
    /// hand.
    near: u64,
    /// Live copies of the wild kinds.
    wild_copies: u32,
    /// [`Ctx::improvers_14`] (for the bounds).
    u14: (u64, bool),
}

/// The level (`shanten + 1`) of a deficiency `d` with `w` wild tiles; a
/// ready hand that cannot declare is one step from ready.
#[inline(always)]
pub(crate) fn level_of(d: u8, w: u8, ting_required: bool) -> u8 {
    let q = d.saturating_sub(w);
    q + u8::from(ting_required & (q == 1))
}

impl<'a> Eval<'a> for Ctx<'a> {
    type Discards = FastDiscards;
    type Counting = FastCounting;

    #[inline(always)]
    fn facts(&self) -> &Facts<'a> {
        &self.f
    }

    #[inline]
    fn unseen(&mut self) -> Counts {
        Ctx::unseen(self)
    }

    #[inline]
    fn shanten(&mut self, c: &Counts, melds: usize) -> i8 {
        Ctx::shanten(self, c, melds)
    }

    #[inline]
    fn best_discard_shanten(&mut self, c: &Counts, melds: usize) -> i8 {
        Ctx::best_discard_shanten(self, c, melds)
    }

    #[inline]
    fn best_discard_shanten_below(&mut self, c: &Counts, melds: usize, cut: i8) -> bool {
        Ctx::best_discard_shanten_below(self, c, melds, cut)
    }

    #[inline(always)]
    fn discards(&mut self, discards: KindSet) -> (Candidates, FastDiscards) {
        let discards = discards.0;
        let c = self.f.hand.concealed;
        let n = self.f.hand.n_melds();
        // Built in place (the base is large): the partners as they are
        // asked for (far from ready, one or two).
        let mut d = FastDiscards {
            b14: self.base_without_partners(&c, n),
            natural: 0,
            w: 0,
            lowest: 0,
            removal: Removal {
                standard: 0,
                raises: 0,
                special: [0; 10],
            },
        };
        let natural = d.b14.held;
        debug_assert_eq!(natural, Planes::new(&d.b14.natural).held());
        // The kinds held: the natural ones, and the wild and void-suit
        // kinds that the analysis leaves out.
        let wild = self.f.wild_mask;
        let mut held = natural;
        let mut m = (wild | self.f.void_mask) & discards;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            held |= u64::from(c[k] > 0) << k;
        }
        debug_assert_eq!(held, Planes::new(&c).held() & (natural | discards));
        let cands = discards & held;
        let all_wild = cands & !wild == 0;
        let cands = if all_wild { cands } else { cands & !wild };
        // Discarding a wild tile leaves one wild fewer and the natural
        // tiles as they are; so does a junk (void-suit) tile, with the
        // wild count unchanged.
        let w = if all_wild {
            d.b14.w.saturating_sub(1)
        } else {
            d.b14.w
        };
        let lowest = level_of(d.b14.d, w, self.f.ting_required);
        (d.natural, d.w, d.lowest) = (natural, w, lowest);
        let cs = Candidates {
            cands: KindSet(cands),
            all_wild,
            lowest,
        };
        (cs, d)
    }

    #[inline(always)]
    fn least_far(&mut self, d: &mut FastDiscards, keep: &Keep, set: KindSet) -> Tile {
        let lw = (d.lowest, d.w);
        self.first_at_lowest(&mut d.b14, keep, set.0, lw)
    }

    #[inline(always)]
    fn levels(&mut self, d: &mut FastDiscards, c: &Candidates) -> [u64; 16] {
        d.b14.fill_partners(false);
        d.removal = self.removal_deficiencies(&d.b14, d.natural);
        // The candidates sorted into levels by masks, not kind by kind:
        // the natural discards' levels as bytes ([`removal_levels`]),
        // gathered by one compare per level present; a wild or void-suit
        // discard leaves the hand's deficiency.
        let lv = removal_levels(&d.removal, &d.b14.natural, d.w, self.f.ting_required);
        let mut by = [0u64; 16];
        let mut rest = c.cands.0 & d.natural;
        while rest != 0 {
            let level = lv[rest.trailing_zeros() as usize];
            let m = rest & kinds_at_level(&lv, level);
            rest &= !m;
            by[usize::from(level & 15)] |= m;
        }
        by[usize::from(c.lowest & 15)] |= c.cands.0 & !d.natural;
        by
    }

    #[inline(always)]
    fn counting(&mut self, d: &FastDiscards, bounds: bool) -> FastCounting {
        let unseen = Ctx::unseen(self);
        let b14 = &d.b14;
        let masks = CountMasks::new(&b14.natural);
        let planes = Planes::new(&unseen);
        // Kinds worth counting: unseen copies, outside the void suit; the
        // wild ones apart (they improve any incomplete hand).
        let wild = self.f.wild_mask;
        let live = (planes.0[0] | planes.0[1] | planes.0[2]) & !self.f.void_mask;
        let wild_copies = planes.copies(live & wild);
        let near = self.near(&b14.natural, b14.orphans) & live & !wild;
        let u14 = if bounds {
            self.improvers_14(b14, &masks, near)
        } else {
            (0, true)
        };
        FastCounting {
            masks,
            planes,
            near,
            wild_copies,
            u14,
        }
    }

    #[inline(always)]
    fn improving(&mut self, d: &FastDiscards, n: &FastCounting, c: &Candidates, k: usize) -> u32 {
        let dk = d.without(k);
        self.ukeire(
            &d.b14,
            &n.masks,
            (k, c.all_wild, dk),
            n.near,
            n.wild_copies,
            &n.planes,
        )
    }

    #[inline(always)]
    fn improving_bound(
        &mut self,
        d: &FastDiscards,
        n: &FastCounting,
        c: &Candidates,
        k: usize,
    ) -> (u32, bool) {
        let dk = d.without(k);
        self.ukeire_bound(
            &d.b14,
            &n.masks,
            (k, c.all_wild, dk),
            (n.near, n.u14),
            n.wild_copies,
            &n.planes,
        )
    }
}
