//! [`Groups`]: the shape-table look-ups the agent keeps between its
//! decisions (each group's needs and their one-tile changes).

use super::*;

/// Group needs looked up for the agent's hands, kept between its
/// decisions: between two turns a hand changes in one or two groups, so
/// most groups (and their one-tile changes) are looked up once for many
/// decisions.
///
/// Group needs depend only on the group's natural counts and on the
/// calculator's table variant ([`Calculator::group_variant`]: capped at 4
/// copies or not, 风嘴子 or not), so an entry is keyed by exactly these and
/// stays right across decisions, claims, kongs, hands and games: another
/// variant clears everything, different counts replace the group's entry.
/// Debug builds check every value handed out against a fresh lookup.
#[derive(Clone)]
pub(crate) struct Groups {
    /// [`Calculator::group_variant`] of the entries, `None` before the
    /// first use.
    pub(crate) variant: Option<(bool, bool)>,
    pub(crate) entries: [GroupEntry; 4],
    /// The products of groups 0 × 1 and 2 × 3 ([`Groups::halves`]), each
    /// kept while bit 0 or 1 of `halves_ok` is set: until one of its
    /// groups' counts changes (between two decisions of one agent a tile
    /// drawn and one discarded change one or two groups).
    pub(crate) halves: [Lanes; 2],
    pub(crate) halves_ok: u8,
    /// The natural counts of the last [`Groups::sync`], and in `synced`
    /// the groups whose entries hold them (bit `g`): a group's entry is
    /// current exactly when its bit is set and its counts equal those of
    /// `last` ([`changed_groups`] finds the others for all four groups at
    /// once).
    pub(crate) last: Counts,
    pub(crate) synced: u8,
}

impl Default for Groups {
    fn default() -> Groups {
        Groups {
            variant: None,
            entries: Default::default(),
            halves: [[0; 16]; 2],
            halves_ok: 0,
            last: [0; KINDS],
            synced: 0,
        }
    }
}

/// The groups (bit `g`) in which the counts `a` and `b` differ.
#[inline(always)]
pub(crate) fn changed_groups(a: &Counts, b: &Counts) -> u8 {
    #[cfg(target_arch = "x86_64")]
    let m = changed_groups_sse2(a, b);
    #[cfg(not(target_arch = "x86_64"))]
    let m = changed_groups_portable(a, b);
    debug_assert_eq!(m, changed_groups_portable(a, b));
    m
}

/// [`changed_groups`] group by group (other targets, and the check of the
/// SSE2 form).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn changed_groups_portable(a: &Counts, b: &Counts) -> u8 {
    (0..4).fold(0, |m, g| {
        let (lo, n) = group_span(g);
        m | u8::from(a[lo..lo + n] != b[lo..lo + n]) << g
    })
}

/// [`changed_groups`] with SSE2: the kinds whose counts are equal as one
/// 34-bit mask (three byte compares; the last load overlaps the second),
/// then one test per group.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn changed_groups_sse2(a: &Counts, b: &Counts) -> u8 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // always available; the loads are of bytes 0..16, 16..32 and 18..34
    // of the 34-byte arrays.
    let eq = unsafe {
        let same = |i: usize| {
            let x = _mm_loadu_si128(a[i..i + 16].as_ptr().cast());
            let y = _mm_loadu_si128(b[i..i + 16].as_ptr().cast());
            u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) as u16)
        };
        same(0) | same(16) << 16 | (same(18) >> 14) << 32
    };
    let ne = !eq;
    u8::from(ne & GROUP_KINDS[0] != 0)
        | u8::from(ne & GROUP_KINDS[1] != 0) << 1
        | u8::from(ne & GROUP_KINDS[2] != 0) << 2
        | u8::from(ne & GROUP_KINDS[3] != 0) << 3
}

/// One group's natural counts, its needs, and what one-tile changes do to
/// them, as they are asked for (`rem_ok`: bit `i` set when slot `i` holds
/// a value; `i` is the kind's index within the group).
///
/// A one-tile change moves every need by at most one, and only one way
/// (a tile more never costs, and saves at most itself; checked in debug
/// builds and by `one_tile_changes_move_needs_by_one`), so a change is
/// kept as the lanes it moves ([`Slots`]) rather than as needs. Whether
/// it changes a hand's deficiency then depends only on the lanes that are
/// tight in the hand ([`tight_lanes`]), for the whole group at once
/// ([`hitting`]), without a branch per kind.
#[derive(Clone, Default)]
pub(crate) struct GroupEntry {
    pub(crate) valid: bool,
    pub(crate) counts: [u8; 9],
    pub(crate) lanes: Lanes,
    /// The table position of `counts` ([`group_pos`]): a one-tile
    /// change's needs are one add of [`POS_STEP`] and a look-up away.
    pub(crate) pos: u64,
    /// One tile of kind `i` removed, as needs, and in `rem_kept` the used
    /// lanes that stay (the others rise by one); both valid when bit `i`
    /// of `rem_ok` is set.
    pub(crate) rem: [Lanes; 9],
    pub(crate) rem_kept: Slots,
    pub(crate) rem_ok: u16,
    /// The lanes that one tile of kind `i` added lowers (bit `i` of
    /// `add_ok`).
    pub(crate) add: Slots,
    pub(crate) add_ok: u16,
    /// `swap[i]`: the lanes of `rem[i]` that one tile of kind `j` added
    /// lowers, entry `j` (bit `j` of `swap_ok[i]`).
    pub(crate) swap: [Slots; 9],
    pub(crate) swap_ok: [u16; 9],
}

impl GroupEntry {
    /// Looks up the additions of the kinds of `missing` to group `g` (this
    /// entry's) for [`Groups::added`].
    #[inline(never)]
    pub(crate) fn fill_added(&mut self, calc: &Calculator, g: usize, missing: u16) {
        debug_assert!(self.counts.iter().map(|&n| n as u32).sum::<u32>() <= 13);
        self.add_ok |= missing;
        let (lanes, slots) = (&self.lanes, &mut self.add);
        calc.lanes_added(g, self.pos, missing, |i, add| {
            debug_one_step(lanes, &add, true);
            slots.0[i & 15] = lanes_moved(&add, lanes);
        });
    }

    /// Looks up the needs of group `g` (this entry's) with one tile of
    /// its kind `i` removed, and the lanes that stay.
    #[inline(always)]
    pub(crate) fn fill_removal(&mut self, calc: &Calculator, g: usize, i: usize) {
        let rem = calc.lanes_at(g, self.pos - pos_step(g, i));
        debug_one_step(&self.lanes, &rem, false);
        self.rem[i] = rem;
        self.rem_kept.0[i] = USED_LANES & !lanes_moved(&self.lanes, &rem);
    }
}

impl std::fmt::Debug for Groups {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Groups")
            .field("variant", &self.variant)
            .finish_non_exhaustive()
    }
}

/// The change of a [`group_pos`] of group `g` when one tile of its kind
/// `i` is added.
#[inline(always)]
pub(crate) fn pos_step(g: usize, i: usize) -> u64 {
    POS_STEP[usize::from(g == 3)][i]
}

/// First kind and number of kinds of group `g`.
#[inline(always)]
pub(crate) fn group_span(g: usize) -> (usize, usize) {
    debug_assert!(g < 4);
    // The honors start at 27 = 9 × 3 too: no branch for the first kind.
    (9 * g, if g < 3 { 9 } else { 7 })
}

impl Groups {
    /// Makes the entries valid for `calc`.
    pub(crate) fn prepare(&mut self, calc: &Calculator) {
        let variant = Some(calc.group_variant());
        if self.variant != variant {
            *self = Groups {
                variant,
                ..Groups::default()
            };
        }
    }

    /// `natural` followed by two zeros, so that every group's key is
    /// nine counts from `9 g` on.
    #[inline(always)]
    pub(crate) fn padded(natural: &Counts) -> [u8; 36] {
        let mut p = [0u8; 36];
        p[..KINDS].copy_from_slice(natural);
        p
    }

    /// [`group_key`] from [`Groups::padded`] counts, without a branch on
    /// the group (the honors are a group like the suits here).
    #[inline(always)]
    pub(crate) fn key_padded(padded: &[u8; 36], g: usize) -> [u8; 9] {
        let mut key = [0u8; 9];
        key.copy_from_slice(&padded[9 * g..9 * g + 9]);
        key
    }

    /// Makes the entries those of the natural counts `natural` and returns
    /// every group's needs (inlined: it is most of a base's work). Until
    /// the next call, [`Groups::after`] and [`Groups::swapped`] answer for
    /// `natural` only.
    #[inline(always)]
    pub(crate) fn sync(&mut self, calc: &Calculator, natural: &Counts) -> [Lanes; 4] {
        // The groups to look up again: those that changed since the last
        // sync, and those never synced (or cleared).
        let stale = changed_groups(&self.last, natural) | (!self.synced & 0xf);
        if stale != 0 {
            let padded = Groups::padded(natural);
            // Unrolled by group (a constant group makes the look-ups
            // cheaper than a loop over the stale bits).
            for (g, e) in self.entries.iter_mut().enumerate() {
                if stale >> g & 1 == 0 {
                    continue;
                }
                let key = Groups::key_padded(&padded, g);
                debug_assert_eq!(key, group_key(natural, g));
                self.halves_ok &= !(1 << (g >> 1));
                e.valid = true;
                e.counts = key;
                e.pos = group_pos(g, &key);
                e.lanes = calc.lanes_at(g, e.pos);
                // One-tile changes are looked up as they are asked for;
                // the others keep stale values, which callers mask out.
                e.rem_ok = 0;
                e.add_ok = 0;
                e.swap_ok = [0; 9];
            }
            self.last = *natural;
            self.synced = 0xf;
        }
        let e = &self.entries;
        let out = [e[0].lanes, e[1].lanes, e[2].lanes, e[3].lanes];
        #[cfg(debug_assertions)]
        for (g, e) in self.entries.iter().enumerate() {
            assert!(e.valid && e.counts == group_key(natural, g));
            assert_eq!(to_needs(&e.lanes), to_needs(&calc.group_lanes(natural, g)));
        }
        out
    }

    /// The products of groups 0 × 1 and 2 × 3 for the counts of the last
    /// [`Groups::sync`], as kept or computed afresh.
    #[inline(always)]
    pub(crate) fn halves(&mut self) -> [Lanes; 2] {
        for h in 0..2 {
            if self.halves_ok >> h & 1 == 0 {
                let e = &self.entries;
                self.halves[h] = combine(&e[2 * h].lanes, &e[2 * h + 1].lanes);
            }
        }
        self.halves_ok = 3;
        debug_assert!((0..2).all(|h| {
            let e = &self.entries;
            self.halves[h] == combine(&e[2 * h].lanes, &e[2 * h + 1].lanes)
        }));
        self.halves
    }

    /// The entry of group `g`, synchronized with `natural`.
    #[inline(always)]
    pub(crate) fn entry(&mut self, natural: &Counts, g: usize) -> &mut GroupEntry {
        let e = &mut self.entries[g];
        debug_assert!(e.valid && e.counts == group_key(natural, g));
        e
    }

    /// The needs of kind `k`'s group after removing one natural tile of
    /// kind `k` (held), for the counts of the last [`Groups::sync`].
    #[inline(always)]
    pub(crate) fn after(&mut self, calc: &Calculator, natural: &Counts, k: usize) -> Lanes {
        let g = group_of(k);
        let i = k - group_span(g).0;
        let e = self.entry(natural, g);
        if e.rem_ok >> i & 1 == 0 {
            e.fill_removal(calc, g, i);
            e.rem_ok |= 1 << i;
        }
        debug_assert_eq!(to_needs(&e.rem[i]), {
            let mut c = *natural;
            c[k] -= 1;
            to_needs(&calc.group_lanes(&c, g))
        });
        e.rem[i]
    }

    /// The lanes of group `g` that stay when one tile of each held kind
    /// (`held`: the kinds of `natural` held, as a mask) is removed (the
    /// other entries are stale), for the counts of the last
    /// [`Groups::sync`].
    #[inline(always)]
    pub(crate) fn removed(
        &mut self,
        calc: &Calculator,
        natural: &Counts,
        g: usize,
        held: u64,
    ) -> &Slots {
        let lo = group_span(g).0;
        let held = (held >> lo) as u16 & 0x1ff;
        let e = self.entry(natural, g);
        let mut missing = held & !e.rem_ok;
        e.rem_ok |= missing;
        while missing != 0 {
            let i = missing.trailing_zeros() as usize;
            missing &= missing - 1;
            e.fill_removal(calc, g, i);
        }
        #[cfg(debug_assertions)]
        for i in 0..group_span(g).1 {
            if held >> i & 1 == 1 {
                let mut c = *natural;
                c[lo + i] -= 1;
                assert_eq!(to_needs(&e.rem[i]), to_needs(&calc.group_lanes(&c, g)));
                let stay = ROW_LANE
                    .iter()
                    .fold(0u16, |m, &l| m | u16::from(e.rem[i][l] == e.lanes[l]) << l);
                assert_eq!(e.rem_kept.0[i], stay);
            }
        }
        &e.rem_kept
    }

    /// The lanes of group `g` that one natural tile of each kind of `need`
    /// (kinds of group `g`, held at most 3 times) added lowers (the other
    /// entries are stale), for the counts of the last [`Groups::sync`]
    /// (which must hold at most 13 tiles in the group: the tables stop at
    /// 14).
    #[inline(always)]
    pub(crate) fn added(
        &mut self,
        calc: &Calculator,
        natural: &Counts,
        g: usize,
        need: u64,
    ) -> &Slots {
        let lo = group_span(g).0;
        let e = self.entry(natural, g);
        let need = (need >> lo) as u16;
        let missing = need & !e.add_ok;
        // The look-ups apart: most calls find every slot kept.
        if missing != 0 {
            e.fill_added(calc, g, missing);
        }
        #[cfg(debug_assertions)]
        for i in (0..group_span(g).1).filter(|&i| need >> i & 1 == 1) {
            let mut c = *natural;
            c[lo + i] += 1;
            let add = lanes_of(&calc.group(&c, g));
            assert_eq!(e.add.0[i], lanes_below(&add, &e.lanes));
        }
        &e.add
    }

    /// The lanes of the needs of the group of kind `t` (held) without one
    /// tile of `t` that one tile of each kind of `need` (kinds of the
    /// group, held at most 3 times once `t` is removed) added lowers
    /// (entry `t`: the group as it is; the other entries are stale), for
    /// the counts of the last [`Groups::sync`]. The needs without `t`
    /// ([`Groups::after`]) must be kept.
    #[inline]
    pub(crate) fn swapped(
        &mut self,
        calc: &Calculator,
        natural: &Counts,
        t: usize,
        need: u64,
    ) -> &Slots {
        let g = group_of(t);
        let lo = group_span(g).0;
        let i = t - lo;
        let e = self.entry(natural, g);
        debug_assert!(e.rem_ok >> i & 1 == 1);
        let need = (need >> lo) as u16;
        let missing = need & !e.swap_ok[i];
        if missing != 0 {
            e.swap_ok[i] |= missing;
            let pos = e.pos - pos_step(g, i);
            let rem = e.rem[i];
            let slots = &mut e.swap[i];
            // Drawing the discarded tile back restores the group.
            if missing >> i & 1 == 1 {
                debug_one_step(&rem, &e.lanes, true);
                slots.0[i] = lanes_moved(&e.lanes, &rem);
            }
            calc.lanes_added(g, pos, missing & !(1 << i), |j, add| {
                debug_one_step(&rem, &add, true);
                slots.0[j & 15] = lanes_moved(&add, &rem);
            });
        }
        #[cfg(debug_assertions)]
        for j in (0..group_span(g).1).filter(|&j| need >> j & 1 == 1) {
            let mut c = *natural;
            c[t] -= 1;
            let rem = lanes_of(&calc.group(&c, g));
            c[lo + j] += 1;
            let add = lanes_of(&calc.group(&c, g));
            assert_eq!(e.swap[i].0[j], lanes_below(&add, &rem));
        }
        &e.swap[i]
    }
}
