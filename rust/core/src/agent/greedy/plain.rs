//! The plain evaluator: every [`Eval`] question answered from scratch by
//! the shanten module's calculator (the body of the public
//! [`shanten_counts`](crate::shanten::shanten_counts), without its size
//! check, since the void suit's tiles are left out) and [`waits_counts`],
//! one hand at a time, with no kept table and no shortcut. The tests run
//! the policy on it and on the fast evaluator and compare.

use super::*;

/// The plain evaluator of one decision.
pub(crate) struct Plain<'a> {
    f: Facts<'a>,
    calc: Calculator,
    unseen: Counts,
}

/// The levels of every candidate, from scratch.
pub(crate) struct PlainDiscards {
    /// The level of each candidate kind.
    level: [u8; KINDS],
}

impl<'a> Plain<'a> {
    pub(crate) fn new(game: &'a Game, seat: u8) -> Plain<'a> {
        let (wilds, shape) = (game.wilds(), ShapeRules::from(game.rules()));
        let f = Facts::new(game, seat, (wilds, shape, wilds.mask()));
        Plain {
            calc: Calculator::new(&f.wilds, &f.shape),
            unseen: unseen_plain(game, seat),
            f,
        }
    }

    /// The shanten of `c` as the shape analysis sees it.
    fn sh(&self, c: &Counts, melds: usize) -> i8 {
        self.calc.shanten(&self.f.eff(c), melds)
    }

    /// The level (`shanten + 1`; a ready hand that cannot declare one step
    /// from ready) of the concealed counts `c`.
    fn level_of(&self, c: &Counts, melds: usize) -> u8 {
        let sh = self.sh(c, melds);
        let sh = sh + i8::from(self.f.ting_required && sh == 0);
        (sh + 1) as u8
    }

    /// `c` without one tile of kind `k`.
    fn without(c: &Counts, k: usize) -> Counts {
        let mut h = *c;
        h[k] -= 1;
        h
    }
}

impl<'a> Eval<'a> for Plain<'a> {
    type Discards = PlainDiscards;
    type Counting = ();

    fn facts(&self) -> &Facts<'a> {
        &self.f
    }

    fn unseen(&mut self) -> Counts {
        self.unseen
    }

    fn shanten(&mut self, c: &Counts, melds: usize) -> i8 {
        self.sh(c, melds)
    }

    fn best_discard_shanten(&mut self, c: &Counts, melds: usize) -> i8 {
        let mut best = i8::MAX;
        let mut any_wild = i8::MAX;
        for k in (0..KINDS).filter(|&k| c[k] > 0) {
            let s = self.sh(&Plain::without(c, k), melds);
            if self.f.is_wild(k) {
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

    fn discards(&mut self, discards: KindSet) -> (Candidates, PlainDiscards) {
        let c = self.f.hand.concealed;
        let n = self.f.hand.n_melds();
        let held = KindSet::held(&c).intersection(discards);
        let mut level = [0u8; KINDS];
        if held.is_empty() {
            let cs = Candidates {
                cands: held,
                all_wild: false,
                lowest: 0,
            };
            return (cs, PlainDiscards { level });
        }
        let wild = KindSet(self.f.wild_mask);
        let all_wild = held.difference(wild).is_empty();
        // Wild tiles never go while anything else may.
        let cands = if all_wild {
            held
        } else {
            held.difference(wild)
        };
        for t in cands {
            level[t.index()] = self.level_of(&Plain::without(&c, t.index()), n);
        }
        // The hand's own level: no discard goes below it (a wild one leaves
        // one wild fewer).
        let lowest = if all_wild {
            level[cands.first().expect("not empty").index()]
        } else {
            self.level_of(&c, n)
        };
        let cs = Candidates {
            cands,
            all_wild,
            lowest,
        };
        (cs, PlainDiscards { level })
    }

    fn least_far(&mut self, d: &mut PlainDiscards, keep: &Keep, set: KindSet) -> Tile {
        let void = self.f.void_mask;
        set.iter()
            .min_by_key(|t| {
                let k = t.index();
                let sh = d.level[k] as i8 - 1;
                keep.key(cand_key(false, sh, true, 0, 0), void, k)
            })
            .expect("a candidate")
    }

    fn levels(&mut self, d: &mut PlainDiscards, c: &Candidates) -> [u64; 16] {
        let mut by = [0u64; 16];
        for t in c.cands {
            by[usize::from(d.level[t.index()] & 15)] |= bit(t.index());
        }
        by
    }

    fn counting(&mut self, _: &PlainDiscards, _: bool) {}

    fn improving(&mut self, _: &PlainDiscards, _: &(), _: &Candidates, k: usize) -> u32 {
        let c = self.f.hand.concealed;
        let n = self.f.hand.n_melds();
        let h = Plain::without(&c, k);
        let sh = self.sh(&h, n);
        // The kinds that may lower it: near the 14 tiles' natural ones.
        let (natural, _) = self.f.wilds.split(&self.f.eff(&c));
        let orphans = n == 0 && self.f.shape.thirteen_orphans;
        let near = near_plain(&natural, orphans, self.f.shape.wind_sets);
        let (h_natural, _) = self.f.wilds.split(&self.f.eff(&h));
        let mut total = 0;
        for j in 0..KINDS {
            let u = u32::from(self.unseen[j]);
            if u == 0 || self.f.is_void(j) {
                continue;
            }
            let improves = if self.f.is_wild(j) {
                sh >= 0
            } else if near >> j & 1 == 0 || h_natural[j] >= 4 {
                false
            } else {
                let mut h2 = h;
                h2[j] += 1;
                self.sh(&h2, n) < sh
            };
            total += u * u32::from(improves);
        }
        total
    }
}
