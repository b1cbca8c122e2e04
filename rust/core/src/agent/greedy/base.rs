//! [`Base`]: one hand's shanten with everything precomputed, so that the
//! shanten after one tile added or removed is one group look-up and a few
//! minimums.

use super::*;

/// A hand's shanten with everything precomputed so that the shanten after
/// adding or removing one tile costs one group lookup and a few minimums
/// (the [`crate::shanten`] definition, wild tiles included).
#[derive(Clone, Copy)]
pub(crate) struct Base {
    pub(crate) natural: Counts,
    /// The kinds of `natural` held, as a mask.
    pub(crate) held: u64,
    pub(crate) w: u8,
    pub(crate) sets: usize,
    pub(crate) groups: [Lanes; 4],
    /// Min-plus products of groups 0 × 1 and 2 × 3.
    pub(crate) halves: [Lanes; 2],
    /// The min-plus product of the three groups other than `g`, lined up
    /// for [`partner_missing`] ([`partner_lanes`]); only for the groups of
    /// `filled` (the others "impossible").
    pub(crate) partner: [Lanes; 4],
    /// The groups whose partner is computed, as bits.
    pub(crate) filled: u8,
    /// The standard shape's deficiency (`d` is the least of it and the
    /// special shapes').
    pub(crate) standard: u8,
    pub(crate) pairs: u8,
    pub(crate) singles: u8,
    pub(crate) orphan_kinds: u8,
    pub(crate) orphan_pairs: u8,
    pub(crate) seven: bool,
    pub(crate) orphans: bool,
    pub(crate) d: u8,
}

impl Base {
    #[cfg(test)]
    pub(crate) fn new(
        calc: &Calculator,
        wilds: &Wildcards,
        rules: &ShapeRules,
        c: &Counts,
        melds: usize,
    ) -> Base {
        let (natural, w) = wilds.split(c);
        Base::from_groups(natural, w, melds, calc.lanes(&natural).0, rules)
    }

    /// A base from natural counts whose group needs are already known.
    pub(crate) fn from_groups(
        natural: Counts,
        w: u8,
        melds: usize,
        g: [Lanes; 4],
        rules: &ShapeRules,
    ) -> Base {
        Base::with_partners(natural, w, melds, g, rules, true)
    }

    /// [`Base::from_groups`] with the partners of every group (`every`),
    /// or only of those the agent may ask for ([`Base::fill_partners`]).
    #[inline(always)]
    pub(crate) fn with_partners(
        natural: Counts,
        w: u8,
        melds: usize,
        g: [Lanes; 4],
        rules: &ShapeRules,
        every: bool,
    ) -> Base {
        let halves = [combine(&g[0], &g[1]), combine(&g[2], &g[3])];
        let mut b = Base::with_halves(natural, w, melds, g, halves, rules);
        b.fill_partners(every);
        b
    }

    /// A base with the two halves' products given and no partner computed
    /// yet (they are the costly part: a decision far from ready asks for
    /// one or two), its deficiency from the two halves.
    #[inline(always)]
    pub(crate) fn with_halves(
        natural: Counts,
        w: u8,
        melds: usize,
        g: [Lanes; 4],
        [ab, cd]: [Lanes; 2],
        rules: &ShapeRules,
    ) -> Base {
        let planes = Planes::new(&natural);
        let held = planes.held();
        let (pairs, singles, ok, op) = planes.tallies();
        #[cfg(debug_assertions)]
        assert_eq!((pairs, singles, ok, op), tallies(&natural));
        let sets = 4 - melds.min(4);
        let (seven, orphans) = (
            melds == 0 && rules.seven_pairs,
            melds == 0 && rules.thirteen_orphans,
        );
        let standard = crate::shanten::standard_missing(&ab, &cd, melds);
        let mut d = standard;
        if seven {
            d = d.min(seven_pairs_missing(pairs, singles));
        }
        if orphans {
            d = d.min(14 - ok - u8::from(op > 0));
        }
        const STALE: Lanes = [0xff; 16];
        Base {
            natural,
            held,
            w,
            sets,
            groups: g,
            halves: [ab, cd],
            partner: [STALE; 4],
            filled: 0,
            standard,
            pairs,
            singles,
            orphan_kinds: ok,
            orphan_pairs: op,
            seven,
            orphans,
            d,
        }
    }

    /// Computes the partners of every group (`every`), or of those the
    /// agent may ask for: the groups holding natural tiles (a kind that
    /// may lower the shanten is near a tile held, so in the same group),
    /// every group when thirteen orphans is possible (whose kinds are in
    /// every group). The others stay "impossible" (a Sichuan hand's
    /// honors and cleared void suit, a hand without honors).
    #[inline(always)]
    pub(crate) fn fill_partners(&mut self, every: bool) {
        let every = every | self.orphans;
        let held = self.held;
        let needed = |i: usize| every | (held & GROUP_KINDS[i] != 0);
        if (0..4).all(needed) {
            // The usual case, straight-line.
            let (g, [ab, cd], s) = (&self.groups, &self.halves, self.sets);
            self.partner = [
                partner_lanes(&combine(&g[1], cd), s),
                partner_lanes(&combine(&g[0], cd), s),
                partner_lanes(&combine(ab, &g[3]), s),
                partner_lanes(&combine(ab, &g[2]), s),
            ];
            self.filled = 0xf;
        } else {
            for g in (0..4).filter(|&i| needed(i)) {
                self.fill_partner(g);
            }
        }
        #[cfg(debug_assertions)]
        for g in (0..4).filter(|&i| self.filled >> i & 1 == 1) {
            assert_eq!(
                partner_missing(&self.partner[g], &self.groups[g]),
                self.standard
            );
        }
    }

    /// Computes the partner of group `g` (if not yet). Not inlined: in a
    /// loop the compiler would hoist the four groups' product set-ups out
    /// of it, for the one or two partners asked for.
    #[inline(never)]
    pub(crate) fn fill_partner(&mut self, g: usize) {
        if self.filled >> g & 1 == 1 {
            return;
        }
        let (gr, [ab, cd], s) = (&self.groups, &self.halves, self.sets);
        self.partner[g] = match g {
            0 => partner_lanes(&combine(&gr[1], cd), s),
            1 => partner_lanes(&combine(&gr[0], cd), s),
            2 => partner_lanes(&combine(ab, &gr[3]), s),
            _ => partner_lanes(&combine(ab, &gr[2]), s),
        };
        self.filled |= 1 << g;
        debug_assert_eq!(
            partner_missing(&self.partner[g], &self.groups[g]),
            self.standard
        );
    }

    /// Makes this the base after removing one natural tile of kind `k`
    /// (held), whose group's needs become `rem`, and whose deficiency is
    /// `d`: the same as [`Base::from_groups`] on the smaller hand, with
    /// only the products involving `k`'s group recomputed and the tallies
    /// updated rather than recounted (in place: a base is too large to
    /// copy around cheaply). The agent computes the products it needs
    /// itself ([`Ctx::ukeire`]); this is their check in debug builds.
    #[cfg(any(test, debug_assertions))]
    pub(crate) fn remove(&mut self, k: usize, rem: &Lanes, d: u8) {
        self.remove_counts(k, rem, d);
        let b = self;
        let gk = group_of(k);
        let g = &b.groups;
        let s = b.sets;
        // The partner of group `gk` does not involve it: it stays. The
        // products as in `from_groups`, the unchanged half reused.
        if gk < 2 {
            let ab = combine(&g[0], &g[1]);
            let cd = b.halves[1];
            b.partner[1 - gk] = partner_lanes(&combine(&g[gk], &cd), s);
            b.partner[2] = partner_lanes(&combine(&ab, &g[3]), s);
            b.partner[3] = partner_lanes(&combine(&ab, &g[2]), s);
            b.halves[0] = ab;
        } else {
            let ab = b.halves[0];
            let cd = combine(&g[2], &g[3]);
            b.partner[0] = partner_lanes(&combine(&g[1], &cd), s);
            b.partner[1] = partner_lanes(&combine(&g[0], &cd), s);
            b.partner[5 - gk] = partner_lanes(&combine(&ab, &g[gk]), s);
            b.halves[1] = cd;
        }
    }

    /// [`Base::remove`] but for the products: the counts, the needs of
    /// `k`'s group, the tallies and the deficiency only (the halves and
    /// the partners of the other groups are left stale).
    #[inline(always)]
    pub(crate) fn remove_counts(&mut self, k: usize, rem: &Lanes, d: u8) {
        let b = self;
        let n = b.natural[k];
        let m = n - 1;
        b.natural[k] = m;
        b.groups[group_of(k)] = *rem;
        b.held &= !(u64::from(m == 0) << k);
        b.pairs = b.pairs - (n >> 1) + (m >> 1);
        b.singles = b.singles - (n & 1) + (m & 1);
        if ORPHANS >> k & 1 == 1 {
            b.orphan_kinds = b.orphan_kinds - u8::from(n > 0) + u8::from(m > 0);
            b.orphan_pairs = b.orphan_pairs - u8::from(n > 1) + u8::from(m > 1);
        }
        b.d = d;
    }

    /// Fewest missing tiles with group `g` replaced by `x` and the given
    /// seven-pairs and orphans tallies.
    #[cfg(test)]
    #[inline(always)]
    pub(crate) fn deficiency(
        &self,
        g: usize,
        x: &Lanes,
        pairs: u8,
        singles: u8,
        ok: u8,
        op: u8,
    ) -> u8 {
        let mut d = partner_missing(&self.partner[g], x);
        if self.seven {
            d = d.min(seven_pairs_missing(pairs, singles));
        }
        if self.orphans {
            d = d.min(14 - ok - u8::from(op > 0));
        }
        d
    }

    #[inline(always)]
    pub(crate) fn to_shanten(d: u8, w: u8) -> i8 {
        d.saturating_sub(w) as i8 - 1
    }

    /// The shanten of the hand as it is.
    pub(crate) fn shanten(&self) -> i8 {
        Base::to_shanten(self.d, self.w)
    }

    /// The needs of kind `k`'s group after adding (`add`) or removing one
    /// natural tile of kind `k` (the count must stay within 0..=4).
    #[cfg(test)]
    #[inline]
    pub(crate) fn group_after(&self, calc: &Calculator, k: usize, add: bool) -> Lanes {
        let mut c = self.natural;
        c[k] = if add { c[k] + 1 } else { c[k] - 1 };
        calc.group_lanes(&c, group_of(k))
    }

    /// The shanten after adding (`add`) or removing one natural tile of
    /// kind `k` (which must keep the count within 0..=4).
    #[cfg(test)]
    #[inline]
    pub(crate) fn shanten_natural(&self, calc: &Calculator, k: usize, add: bool) -> i8 {
        self.shanten_with(k, add, &self.group_after(calc, k, add))
    }

    /// The seven-pairs and orphans tallies: pairs, singles, orphan kinds
    /// held, orphan kinds held twice or more.
    #[inline(always)]
    pub(crate) fn tallies(&self) -> (u8, u8, u8, u8) {
        (
            self.pairs,
            self.singles,
            self.orphan_kinds,
            self.orphan_pairs,
        )
    }

    /// [`Base::tallies`] after adding (`add`) or removing one natural tile
    /// of kind `k` (the count must stay within 0..=4).
    #[inline(always)]
    pub(crate) fn tallies_with(&self, k: usize, add: bool) -> (u8, u8, u8, u8) {
        let n = self.natural[k];
        let m = if add { n + 1 } else { n - 1 };
        let pairs = self.pairs - (n >> 1) + (m >> 1);
        let singles = self.singles - (n & 1) + (m & 1);
        let (mut ok, mut op) = (self.orphan_kinds, self.orphan_pairs);
        if ORPHANS >> k & 1 == 1 {
            ok = ok - u8::from(n > 0) + u8::from(m > 0);
            op = op - u8::from(n > 1) + u8::from(m > 1);
        }
        (pairs, singles, ok, op)
    }

    /// The deficiency after adding (`add`) or removing one natural tile of
    /// kind `k`, whose group's needs become `x`.
    #[cfg(test)]
    #[inline]
    pub(crate) fn deficiency_with(&self, k: usize, add: bool, x: &Lanes) -> u8 {
        let (pairs, singles, ok, op) = self.tallies_with(k, add);
        self.deficiency(group_of(k), x, pairs, singles, ok, op)
    }

    /// [`Base::shanten_natural`] with the changed group's needs given.
    #[cfg(test)]
    #[inline]
    pub(crate) fn shanten_with(&self, k: usize, add: bool, x: &Lanes) -> i8 {
        Base::to_shanten(self.deficiency_with(k, add, x), self.w)
    }

    /// The kinds (among those held fewer than 4 times, `masks` giving the
    /// hand's counts) whose addition lowers the deficiency through seven
    /// pairs or thirteen orphans alone.
    #[inline]
    pub(crate) fn special_improvers(&self, masks: &CountMasks) -> u64 {
        self.special_improvers_with(self.tallies(), self.d, masks)
    }

    /// [`Base::special_improvers`] of a hand of the same shape rules with
    /// the given tallies ([`Base::tallies`]) and deficiency `d`.
    #[inline(always)]
    pub(crate) fn special_improvers_with(
        &self,
        (pairs, singles, ok, op): (u8, u8, u8, u8),
        d: u8,
        masks: &CountMasks,
    ) -> u64 {
        let [m0, m1, m2, m3, _] = masks.by_count;
        let mut s = 0u64;
        if self.seven {
            // An odd count makes a pair, an even one a single.
            let odd = seven_pairs_missing(pairs + 1, singles.saturating_sub(1));
            if odd < d {
                s |= m1 | m3;
            }
            if seven_pairs_missing(pairs, singles + 1) < d {
                s |= m0 | m2;
            }
        }
        if self.orphans {
            if 14u8.saturating_sub(ok + 1 + u8::from(op > 0)) < d {
                s |= ORPHANS & m0;
            }
            if 14 - ok - 1 < d {
                s |= ORPHANS & m1;
            }
        }
        s
    }

    /// The shanten after removing one tile of kind `k` (wild or not).
    #[cfg(test)]
    #[inline]
    pub(crate) fn shanten_without(&self, calc: &Calculator, wilds: &Wildcards, k: usize) -> i8 {
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
