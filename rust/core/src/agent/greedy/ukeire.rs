//! The fast evaluator's answers about discards: the deficiency each
//! discard leaves ([`Removal`]), improving tiles (exact counts and upper
//! bounds) and the shortcut far from ready ([`Ctx::first_at_lowest`]).

use super::*;

/// The deficiencies after discarding one natural tile of each kind
/// ([`Ctx::removal_deficiencies`]).
pub(crate) struct Removal {
    /// The standard shape's deficiency of the hand.
    pub(crate) standard: u8,
    /// The kinds whose removal raises it (by one).
    pub(crate) raises: u64,
    /// Seven pairs' and thirteen orphans' (the smaller) after removing
    /// from a count of `n`: `special[5 * orphan + n]` (`orphan`: 1 for
    /// the thirteen-orphans kinds).
    pub(crate) special: [u8; 10],
}

impl Removal {
    /// The deficiency after discarding one of kind `k`, held `n > 0`
    /// times.
    #[inline(always)]
    pub(crate) fn of(&self, k: usize, n: u8) -> u8 {
        let i = 5 * (ORPHANS >> k & 1) as usize + n as usize;
        (self.standard + (self.raises >> k & 1) as u8).min(self.special[i.min(9)])
    }
}

/// `ORPHAN_FIVE[k]`: 5 for the thirteen-orphans kinds, else 0 (the
/// class offset of [`Removal::special`]), padded to 48 bytes.
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
pub(crate) const ORPHAN_FIVE: [u8; 48] = {
    let mut t = [0u8; 48];
    let mut k = 0;
    while k < KINDS {
        if ORPHANS >> k & 1 == 1 {
            t[k] = 5;
        }
        k += 1;
    }
    t
};

/// The shanten level (`shanten + 1`, a ready hand that cannot declare
/// counting as one step from ready) after discarding one natural tile
/// of each kind, by kind ([`Removal::of`] with the count held, then the
/// wild tiles `w`); meaningless for the kinds not held, 0 past the last
/// kind.
#[inline(always)]
pub(crate) fn removal_levels(
    r: &Removal,
    natural: &Counts,
    w: u8,
    ting_required: bool,
) -> [u8; 48] {
    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
    let lv = removal_levels_ssse3(r, natural, w, ting_required);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "ssse3")))]
    let lv = removal_levels_portable(r, natural, w, ting_required);
    debug_assert_eq!(lv, removal_levels_portable(r, natural, w, ting_required));
    lv
}

/// [`removal_levels`] kind by kind (builds without SSSE3, and the check
/// of the vector form).
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "ssse3"),
    allow(dead_code)
)]
pub(crate) fn removal_levels_portable(
    r: &Removal,
    natural: &Counts,
    w: u8,
    ting_required: bool,
) -> [u8; 48] {
    let mut lv = [0u8; 48];
    for (k, (l, &n)) in lv.iter_mut().zip(natural.iter()).enumerate() {
        let q = r.of(k, n).saturating_sub(w);
        *l = q + u8::from(ting_required & (q == 1));
    }
    lv
}

/// [`removal_levels`] 16 kinds at a time: the raising kinds' bits spread
/// to bytes, the seven-pairs and orphans class looked up by one byte
/// shuffle (SSSE3, part of the x86-64-v2 level the release builds
/// target).
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
#[inline(always)]
pub(crate) fn removal_levels_ssse3(
    r: &Removal,
    natural: &Counts,
    w: u8,
    ting_required: bool,
) -> [u8; 48] {
    use std::arch::x86_64::*;
    let mut padded = [0u8; 48];
    padded[..KINDS].copy_from_slice(natural);
    let mut special = [0u8; 16];
    special[..10].copy_from_slice(&r.special);
    let mut out = [0u8; 48];
    // SAFETY: SSSE3 (and so SSE2) is enabled at compile time (the cfg
    // above); the loads and stores are of 16-byte chunks within 16- and
    // 48-byte arrays.
    unsafe {
        let table = _mm_loadu_si128(special.as_ptr().cast());
        let standard = _mm_set1_epi8(r.standard as i8);
        let wv = _mm_set1_epi8(w as i8);
        let one = _mm_set1_epi8(1);
        let tr = _mm_set1_epi8(i8::from(ting_required));
        let bit_of = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
        let spread = _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
        for c in 0..3 {
            let n = _mm_loadu_si128(padded[16 * c..].as_ptr().cast());
            let idx = _mm_add_epi8(n, _mm_loadu_si128(ORPHAN_FIVE[16 * c..].as_ptr().cast()));
            let special = _mm_shuffle_epi8(table, idx);
            let bits = _mm_set1_epi16((r.raises >> (16 * c)) as u16 as i16);
            let bits = _mm_and_si128(_mm_shuffle_epi8(bits, spread), bit_of);
            let raised = _mm_and_si128(_mm_cmpeq_epi8(bits, bit_of), one);
            let d = _mm_min_epu8(_mm_add_epi8(standard, raised), special);
            let q = _mm_subs_epu8(d, wv);
            let lv = _mm_add_epi8(q, _mm_and_si128(_mm_cmpeq_epi8(q, one), tr));
            _mm_storeu_si128(out[16 * c..].as_mut_ptr().cast(), lv);
        }
    }
    out[KINDS..].fill(0);
    out
}

/// The kinds whose byte in `lv` ([`removal_levels`]) is `level`, as a
/// mask.
#[inline(always)]
pub(crate) fn kinds_at_level(lv: &[u8; 48], level: u8) -> u64 {
    #[cfg(target_arch = "x86_64")]
    let m = kinds_at_level_sse2(lv, level);
    #[cfg(not(target_arch = "x86_64"))]
    let m = kinds_at_level_portable(lv, level);
    debug_assert_eq!(m, kinds_at_level_portable(lv, level));
    m
}

/// [`kinds_at_level`] kind by kind (other targets, and the check of the
/// SSE2 form).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn kinds_at_level_portable(lv: &[u8; 48], level: u8) -> u64 {
    let mut m = 0u64;
    for (k, &l) in lv.iter().enumerate().take(KINDS) {
        m |= u64::from(l == level) << k;
    }
    m
}

/// [`kinds_at_level`] with SSE2: one compare and byte mask per 16 kinds.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn kinds_at_level_sse2(lv: &[u8; 48], level: u8) -> u64 {
    use std::arch::x86_64::*;
    let mut m = 0u64;
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // always available; the loads are of 16-byte chunks of `lv`.
    unsafe {
        let l = _mm_set1_epi8(level as i8);
        for c in 0..3 {
            let x = _mm_loadu_si128(lv[16 * c..].as_ptr().cast());
            m |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(x, l)) as u16) << (16 * c);
        }
    }
    m & ((1u64 << KINDS) - 1)
}

impl<'a> Ctx<'a> {
    /// Kinds that may lower the shanten of a hand holding `natural`: the
    /// kinds within two ranks of a held suited tile, held honors (every
    /// honor of the subgroup with 风嘴子), the orphans when thirteen
    /// orphans is possible. A far tile can only start a new group, which
    /// never helps a hand that already has a spare tile.
    pub(crate) fn near(&self, natural: &Counts, orphans: bool) -> u64 {
        // On masks (which kinds are held is random data).
        let [p0, p1, p2] = Planes::new(natural).0;
        let held = p0 | p1 | p2;
        let mut near = 0u64;
        for kinds in &GROUP_KINDS[..3] {
            let h = held & kinds;
            near |= (h | h << 1 | h << 2 | h >> 1 | h >> 2) & kinds;
        }
        let honors = held & GROUP_KINDS[3];
        near |= if self.f.shape.wind_sets {
            let (winds, dragons) = (0xfu64 << 27, 0x7u64 << 31);
            (winds & (u64::from(honors & winds != 0)).wrapping_neg())
                | (dragons & (u64::from(honors & dragons != 0)).wrapping_neg())
        } else {
            honors
        };
        if orphans {
            near |= ORPHANS;
        }
        #[cfg(debug_assertions)]
        assert_eq!(near, near_plain(natural, orphans, self.f.shape.wind_sets));
        near
    }

    /// Live copies of the tiles that lower the shanten of the 13-type hand
    /// left by discarding a tile of kind `t` (`wild` or not, leaving the
    /// deficiency `d`) from the hand of `b14` (`masks`
    /// its counts). `near` holds the natural kinds worth trying (live,
    /// outside the void suit, near the hand), `wild_copies` the live
    /// copies of the wild kinds, `planes` the unseen counts.
    ///
    /// Each group's candidates are tested at once: the lanes of the
    /// group's needs that one tile of each kind added (or, in the
    /// discarded tile's own group, swapped in for it) lowers are kept by
    /// [`Groups`], and [`hitting`] compares all of them with the lanes
    /// tight against the other groups' product, so there is no branch per
    /// kind on random data.
    #[inline(always)]
    pub(crate) fn ukeire(
        &mut self,
        b14: &Base,
        masks: &CountMasks,
        (t, wild, d): (usize, bool, u8),
        near: u64,
        wild_copies: u32,
        planes: &Planes,
    ) -> u32 {
        let gt = group_of(t);
        let natural_t = !wild && b14.natural[t] > 0;
        let mut b = *b14;
        let masks = if natural_t {
            let rem = self.groups.after(self.calc, &b14.natural, t);
            b.remove_counts(t, &rem, d);
            masks.without(t, b14.natural[t])
        } else {
            // A wild tile or a junk (void-suit) tile leaves the natural
            // analysis, hence the deficiency, unchanged.
            b.w -= u8::from(wild);
            *masks
        };
        let sh = b.shanten();
        if sh < 0 {
            // Nothing lowers a complete hand (a 13-type hand never is).
            return 0;
        }
        // With the shanten at least 0 and the wild count fixed, a tile
        // lowers the shanten exactly when it lowers the deficiency (so
        // `b.d` is at least 1).
        let special = b.special_improvers(&masks);
        let near = near & !masks.by_count[4];
        let mut improves = special;
        // The partners of the groups other than `gt` change with it; they
        // are computed as in [`Base::from_groups`], but only for halves
        // with kinds to try (not for a Sichuan hand's void suit and
        // honors, nor for a hand without honors); the others stay stale.
        if natural_t {
            let s = b.sets;
            let g = &b.groups;
            let p = &mut b.partner;
            // As in [`Base::remove`], constant indices per half.
            if gt < 2 {
                if near & GROUP_KINDS[1 - gt] != 0 {
                    p[1 - gt] = partner_lanes(&combine(&g[gt], &b14.halves[1]), s);
                }
                if near & (GROUP_KINDS[2] | GROUP_KINDS[3]) != 0 {
                    let ab = combine(&g[0], &g[1]);
                    p[2] = partner_lanes(&combine(&ab, &g[3]), s);
                    p[3] = partner_lanes(&combine(&ab, &g[2]), s);
                }
            } else {
                if near & (GROUP_KINDS[0] | GROUP_KINDS[1]) != 0 {
                    let cd = combine(&g[2], &g[3]);
                    p[0] = partner_lanes(&combine(&g[1], &cd), s);
                    p[1] = partner_lanes(&combine(&g[0], &cd), s);
                }
                if near & GROUP_KINDS[5 - gt] != 0 {
                    p[5 - gt] = partner_lanes(&combine(&b14.halves[0], &g[gt]), s);
                }
            }
            #[cfg(debug_assertions)]
            {
                let mut full = *b14;
                full.remove(t, &b.groups[gt], d);
                for (g, kinds) in GROUP_KINDS.iter().enumerate() {
                    if near & kinds != 0 {
                        assert_eq!(b.partner[g], full.partner[g]);
                    }
                }
            }
        }
        for (g, kinds) in GROUP_KINDS.iter().enumerate() {
            let want = near & kinds;
            if want == 0 {
                continue;
            }
            // A kind lowers the standard shape's deficiency exactly when
            // it lowers a tight lane of its group (which a zero need
            // cannot be): a group without one needs no look-ups.
            let x = &b.groups[g];
            let tight = tight_lanes(x, &b.partner[g], b.d) & !zero_lanes(x);
            if tight == 0 {
                continue;
            }
            // Outside the discarded tile's group a kind's change is that
            // of the 14-tile hand's group with it added (that group holds
            // at most 13 natural tiles then).
            let lo = group_span(g).0;
            let (m, want) = if natural_t && g == gt {
                let want = self.swap_candidates(b14, t, tight, want);
                (self.groups.swapped(self.calc, &b14.natural, t, want), want)
            } else {
                (self.groups.added(self.calc, &b14.natural, g, want), want)
            };
            improves |= (u64::from(hitting(m, tight)) << lo) & want;
        }
        // A wild tile improves any hand not yet complete.
        let total = wild_copies + planes.copies(near & improves);
        debug_assert!(!natural_t || to_needs(&b.groups[gt]) == self.calc.group(&b.natural, gt));
        debug_assert_eq!(total, {
            let wild_live = planes.0.iter().fold(0, |a, p| a | p) & self.f.wild_mask;
            self.ukeire_exact(&b, (near, wild_live), &self.unseen.unwrap_or([0; KINDS]))
        });
        total
    }

    /// The kinds of `near` that lower the standard shape's deficiency of
    /// the 14 tiles of `b14` (`masks` its counts) through their group's
    /// tight lanes, and whether that is exact: a group that holds every
    /// natural tile (the tables stop at 14 tiles a group) gives all its
    /// kinds of `near` instead.
    ///
    /// A kind outside the group of a discard that leaves the deficiency
    /// as it was improves the 13 tiles left only if it is one of these:
    /// the other groups' product only grows by the discard (by one at
    /// most, lane by lane), so a lane tight for the 13 tiles is tight for
    /// the 14 ([`Ctx::ukeire_bound`]).
    pub(crate) fn improvers_14(
        &mut self,
        b14: &Base,
        masks: &CountMasks,
        near: u64,
    ) -> (u64, bool) {
        let near = near & !masks.by_count[4];
        let (mut u, mut exact) = (0u64, true);
        for (g, kinds) in GROUP_KINDS.iter().enumerate() {
            let want = near & kinds;
            if want == 0 {
                continue;
            }
            if b14.held & !kinds == 0 {
                u |= want;
                exact = false;
                continue;
            }
            let x = &b14.groups[g];
            let tight = tight_lanes(x, &b14.partner[g], b14.d) & !zero_lanes(x);
            if tight == 0 {
                continue;
            }
            let m = self.groups.added(self.calc, &b14.natural, g, want);
            u |= (u64::from(hitting(m, tight)) << group_span(g).0) & want;
        }
        (u, exact)
    }

    /// An upper bound on [`Ctx::ukeire`] with the same arguments (`u14`:
    /// [`Ctx::improvers_14`] of `near`), and whether it is exact, without
    /// the other groups' products.
    ///
    /// When the discard leaves the deficiency as it was, the kinds that
    /// may improve are the special shapes' improvers, outside the
    /// discarded tile's group those that improve the 14 tiles, and in its
    /// group those of the swap candidates ([`Ctx::swap_candidates`]) that
    /// lower a tight lane of the group without the tile, exactly as
    /// [`Ctx::ukeire`] finds them (the group's partner, the product of
    /// the other groups, does not change); otherwise there is no bound
    /// (`u32::MAX`). So only the other groups' part may be too large (the
    /// swaps' look-ups, which the count would make too, narrow the bound
    /// enough to spare more counts than they cost), and the bound is the
    /// count itself when the discard keeps every lane of its group that
    /// is tight for the 14 tiles (or is a wild or junk tile: the natural
    /// tiles stay): every best allocation of the 14 tiles then survives,
    /// so the other groups' tight lanes are those of the 14 tiles.
    pub(crate) fn ukeire_bound(
        &mut self,
        b14: &Base,
        masks: &CountMasks,
        (t, wild, d): (usize, bool, u8),
        (near, (u14, u14_exact)): (u64, (u64, bool)),
        wild_copies: u32,
        planes: &Planes,
    ) -> (u32, bool) {
        if d != b14.d {
            return (u32::MAX, false);
        }
        if Base::to_shanten(d, b14.w - u8::from(wild)) < 0 {
            return (0, true);
        }
        let gt = group_of(t);
        let natural_t = !wild && b14.natural[t] > 0;
        let (masks, tallies) = if natural_t {
            (masks.without(t, b14.natural[t]), b14.tallies_with(t, false))
        } else {
            (*masks, b14.tallies())
        };
        let near = near & !masks.by_count[4];
        let mut cand = b14.special_improvers_with(tallies, d, &masks) | u14 & !GROUP_KINDS[gt];
        let want = near & GROUP_KINDS[gt];
        let exact = if natural_t {
            let rem = self.groups.after(self.calc, &b14.natural, t);
            let i = t - group_span(gt).0;
            let kept = self.groups.entry(&b14.natural, gt).rem_kept.0[i];
            let (x, p) = (&b14.groups[gt], &b14.partner[gt]);
            let exact = tight_lanes(x, p, d) & !kept == 0;
            let tight = tight_lanes(&rem, p, d) & !zero_lanes(&rem);
            if want != 0 && tight != 0 {
                let swaps = self.swap_candidates(b14, t, tight, want);
                let m = self.groups.swapped(self.calc, &b14.natural, t, swaps);
                cand |= swaps & u64::from(hitting(m, tight)) << group_span(gt).0;
            }
            exact
        } else {
            // The natural tiles are those of the 14.
            cand |= u14 & GROUP_KINDS[gt];
            u14_exact
        };
        (wild_copies + planes.copies(near & cand), exact)
    }

    /// The kinds of `want` (kinds of the group of `t`, held at most 3
    /// times once `t` is removed) that may lower a lane of `tight` (lanes
    /// of that group's needs without `t`) when swapped in for `t`, so that
    /// only they need a look-up ([`Groups::swapped`]).
    ///
    /// A tile added never raises a need and a tile removed never lowers
    /// one, by one at most. So when every tight lane is one that removing
    /// `t` left as it was (always so when the removal does not raise the
    /// deficiency: a raised lane cannot be tight then), a kind lowers a
    /// tight lane of the group without `t` only if it lowers that lane of
    /// the group as it is (its [`Groups::added`] lanes, which the other
    /// candidates of the group share), and `t` itself, which restores the
    /// group, lowers only raised lanes. Otherwise, or when the group holds
    /// every natural tile (the tables stop at 14 tiles a group), all of
    /// `want`.
    #[inline(always)]
    pub(crate) fn swap_candidates(&mut self, b14: &Base, t: usize, tight: u16, want: u64) -> u64 {
        let g = group_of(t);
        let (lo, i) = (group_span(g).0, t - group_span(g).0);
        let kept = self.groups.entry(&b14.natural, g).rem_kept.0[i];
        if tight & !kept != 0 || b14.held & !GROUP_KINDS[g] == 0 {
            return want;
        }
        let others = want & !bit(t);
        let add = self.groups.added(self.calc, &b14.natural, g, others);
        others & u64::from(hitting(add, tight)) << lo
    }

    /// [`Ctx::ukeire`] the plain way, each hand with one tile added
    /// analysed from scratch (group needs from the shanten module's table
    /// layout): the check of its shortcuts in debug builds.
    pub(crate) fn ukeire_exact(
        &self,
        b: &Base,
        (near, wild_live): (u64, u64),
        unseen: &Counts,
    ) -> u32 {
        let sh = b.shanten();
        let mut total = 0u32;
        for k in 0..KINDS {
            let u = unseen[k] as u32;
            if wild_live & bit(k) != 0 {
                total += u * u32::from(sh >= 0);
            } else if near & bit(k) != 0 && b.natural[k] < 4 {
                let mut nat = b.natural;
                nat[k] += 1;
                let groups = self.calc.groups(&nat).0.map(|n| lanes_of(&n));
                let fresh = Base::from_groups(nat, b.w, 4 - b.sets, groups, &self.f.shape);
                total += u * u32::from(fresh.shanten() < sh);
            }
        }
        total
    }

    /// The deficiency after discarding one copy of each natural kind held
    /// in `b` (`held`, as a mask; by kind; meaningless for the other
    /// kinds): the standard shape's rises by one exactly when the removal
    /// raises every tight lane of its group, found per group for all its
    /// kinds at once ([`hitting`] of the kept removal lanes); then seven
    /// pairs and thirteen orphans from the tallies, which a removal
    /// changes by the count's parity and for orphan kinds held once or
    /// twice only (no branch per kind).
    #[inline(always)]
    pub(crate) fn removal_deficiencies(&mut self, b: &Base, held: u64) -> Removal {
        debug_assert_eq!(held, Planes::new(&b.natural).held());
        let standard_d = b.standard;
        let mut raises = 0u64;
        for (g, partner) in b.partner.iter().enumerate() {
            let hg = held & GROUP_KINDS[g];
            if hg == 0 {
                continue;
            }
            debug_assert!(b.filled >> g & 1 == 1);
            let tight = tight_lanes(&b.groups[g], partner, standard_d);
            // A best allocation that leaves the group unused (lane 0,
            // need 0 with or without a tile) survives every removal: no
            // look-ups.
            if tight & 1 != 0 {
                continue;
            }
            let kept = self.groups.removed(self.calc, &b.natural, g, held);
            raises |= (u64::from(!hitting(kept, tight)) << group_span(g).0) & hg;
        }
        Removal {
            standard: standard_d,
            raises,
            special: Ctx::removal_special(b),
        }
    }

    /// [`Removal::special`] of `b`.
    #[inline(always)]
    pub(crate) fn removal_special(b: &Base) -> [u8; 10] {
        let seven = if b.seven {
            [
                Ctx::seven_after_removal(b, false),
                Ctx::seven_after_removal(b, true),
            ]
        } else {
            [u8::MAX; 2]
        };
        let orphans = if b.orphans {
            // By class ([`orphan_class`]): other kinds, an orphan held
            // once, an orphan held twice.
            [
                Ctx::orphans_after_removal(b, false, 0),
                Ctx::orphans_after_removal(b, true, 1),
                Ctx::orphans_after_removal(b, true, 2),
            ]
        } else {
            [u8::MAX; 3]
        };
        // By count: the parity for seven pairs, the class for thirteen
        // orphans.
        std::array::from_fn(|i| {
            let (orphan, n) = (i >= 5, (i % 5) as u8);
            seven[usize::from(n & 1)].min(orphans[orphan_class(orphan, n)])
        })
    }

    /// The entry of [`Ctx::removal_special`] for kind `k` held `n > 0`
    /// times (`special[5 * orphan + n]`, capped at 9), alone: the same
    /// cases without the other nine.
    #[inline(always)]
    pub(crate) fn removal_special_of(b: &Base, k: usize, n: u8) -> u8 {
        let orphan = ORPHANS >> k & 1 == 1;
        let seven = if b.seven {
            Ctx::seven_after_removal(b, n & 1 == 1)
        } else {
            u8::MAX
        };
        let orphans = if b.orphans {
            Ctx::orphans_after_removal(b, orphan, n)
        } else {
            u8::MAX
        };
        let d = seven.min(orphans);
        debug_assert_eq!(d, {
            let i = 5 * usize::from(orphan) + usize::from(n);
            Ctx::removal_special(b)[i.min(9)]
        });
        d
    }

    /// Seven pairs' deficiency (when the shape is possible) after one
    /// tile of a kind held an odd (`odd`) or even number of times is
    /// removed from `b`: an even count loses a pair and leaves a single,
    /// an odd one loses a single (each only asked for when such a count
    /// exists).
    #[inline(always)]
    pub(crate) fn seven_after_removal(b: &Base, odd: bool) -> u8 {
        let (p, sg) = (b.pairs, b.singles);
        if odd {
            seven_pairs_missing(p, sg.saturating_sub(1))
        } else {
            seven_pairs_missing(p.saturating_sub(1), sg + 1)
        }
    }

    /// Thirteen orphans' deficiency (when the shape is possible) after one
    /// tile of a kind held `n > 0` times, an orphan kind or not (`orphan`),
    /// is removed from `b`: an orphan held once loses a kind, one held
    /// twice its pair, any other tile is surplus.
    #[inline(always)]
    pub(crate) fn orphans_after_removal(b: &Base, orphan: bool, n: u8) -> u8 {
        let (ok, op) = (b.orphan_kinds, b.orphan_pairs);
        if orphan && n == 1 {
            (15 - ok).saturating_sub(u8::from(op > 0))
        } else if orphan && n == 2 {
            14u8.saturating_sub(ok + u8::from(op > 1))
        } else {
            14 - ok - u8::from(op > 0)
        }
    }

    /// The best discard among `cands` (natural or junk kinds held) of the
    /// hand of `b` (`keep` its keep values) when every discard is at
    /// least two from ready and there is no threat, so that no tiles are
    /// counted: the least key among the candidates at the lowest level
    /// (`shanten + 1`, `w` wild tiles).
    ///
    /// A discard never lowers the deficiency and raises it by one at most,
    /// so the levels are `lowest` (the hand's own) and the next one: the
    /// candidates are tried in the order of their keys within a level
    /// (junk first, then keep value and index), each removal worked out
    /// alone as in [`Ctx::removal_deficiencies`], and the first at
    /// `lowest` is the best; when none is, the first of all. Far from
    /// ready the first candidates are mostly loose tiles that do not raise
    /// the deficiency, so most of the hand needs no removal look-ups.
    pub(crate) fn first_at_lowest(
        &mut self,
        b: &mut Base,
        keep: &Keep,
        cands: u64,
        (lowest, w): (u8, u8),
    ) -> Tile {
        let standard_d = b.standard;
        // The order within a level: junk (bit 16 clear) first.
        let void = self.f.void_mask;
        let order = |k: usize| u32::from(void >> k & 1 == 0) << 16 | u32::from(keep.low[k & 63]);
        let mut first = None;
        let mut rest = cands;
        while rest != 0 {
            let k = if first.is_none() {
                // The first pick, which is mostly the answer, at once: the
                // least keep key among the junk candidates if any, else
                // among all.
                let junk = rest & void;
                keep.least(if junk != 0 { junk } else { rest })
            } else {
                let (mut k, mut o) = (0, u32::MAX);
                let mut m = rest;
                while m != 0 {
                    let j = m.trailing_zeros() as usize;
                    m &= m - 1;
                    if order(j) < o {
                        (k, o) = (j, order(j));
                    }
                }
                k
            };
            debug_assert_eq!(
                k,
                (0..KINDS)
                    .filter(|&j| rest >> j & 1 == 1)
                    .min_by_key(|&j| order(j))
                    .unwrap_or(0)
            );
            rest &= !bit(k);
            first = first.or(Some(k));
            let d = if b.held >> k & 1 == 1 {
                let g = group_of(k);
                b.fill_partner(g);
                let tight = tight_lanes(&b.groups[g], &b.partner[g], standard_d);
                // As in [`Ctx::removal_deficiencies`].
                let raises = tight & 1 == 0 && {
                    self.groups.after(self.calc, &b.natural, k);
                    let e = self.groups.entry(&b.natural, g);
                    e.rem_kept.0[k - group_span(g).0] & tight == 0
                };
                // [`Removal::of`] with only this kind's special entry
                // worked out (most decisions try one kind).
                let n = b.natural[k];
                let d = (standard_d + u8::from(raises)).min(Ctx::removal_special_of(b, k, n));
                debug_assert_eq!(d, {
                    let removal = Removal {
                        standard: standard_d,
                        raises: u64::from(raises) << k,
                        special: Ctx::removal_special(b),
                    };
                    removal.of(k, n)
                });
                d
            } else {
                // A junk tile leaves the analysis as it is.
                b.d
            };
            let q = d.saturating_sub(w);
            if q + u8::from(self.f.ting_required & (q == 1)) == lowest {
                return Tile::from_index_unchecked(k as u8);
            }
        }
        Tile::from_index_unchecked(first.unwrap_or(0) as u8)
    }
}
