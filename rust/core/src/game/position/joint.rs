//! The exact joint draw of two or more declared hands for
//! [`sample_hidden`](super::sample_hidden): lists of each declared seat's
//! ready hands, weighted, and a rejection step whose acceptance is known
//! in closed form.
//!
//! # The law
//!
//! Tiles told apart, a completion is uniform among the consistent ones.
//! Every arrangement of the tiles left after the declared hands and the
//! hidden kongs is equally consistent, and their number does not depend
//! on which tiles the declared hands took, so the declared hands' count
//! vectors `h_1..h_m` and the kongs' kinds `K` have the law
//!
//! ```text
//! P(K, h_1..h_m) ∝ Π_s ready_s,K(h_s) · Π_k u_k! / (Π_s h_s,k! · (u_k − Σ_s h_s,k)!)
//! ```
//!
//! with `u` the unseen tiles less the kongs' (the multinomial counts the
//! ways to pick the hands' copies out of the unseen ones).
//!
//! # The draw
//!
//! Each declared seat's *list*: its ready hands as count vectors over the
//! unseen tiles, each weighted by `w(h) = Π_k C(u_k, h_k)` (its number of
//! copy sets), enumerated kind by kind and pruned by the exact shanten (a
//! prefix `P` of a ready hand missing `r` tiles has shanten at most `r`:
//! removing a tile raises the shanten by at most one). A proposal draws
//! each listed hand independently in proportion to `w`, and is accepted
//! with probability
//!
//! ```text
//! A = Π_k (u_k)_(Σ_s h_s,k) / Π_s (u_k)_(h_s,k)      ((x)_n falling factorials)
//! ```
//!
//! the chance that independently drawn copy sets of those counts are
//! disjoint: the accepted tuples have exactly the law above. A seat
//! whose list would pass [`LIST_CAP`] hands or [`NODE_CAP`] enumeration
//! steps (a 10- or 13-tile hand over many unseen tiles) is not listed: if
//! it is the only one, it is drawn last, once per proposal, as a uniform
//! set of the tiles the others left, the proposal kept when it is ready
//! (the same law: a uniform set of the rest times its readiness is the
//! last factor of the multinomial); if two or more are not listed, each
//! is drawn on its own as a uniform ready set of all the unseen tiles
//! (by rejection) and the same `A` decides. Hidden kongs' kinds are drawn
//! with the proposal, in proportion to the product of the listed seats'
//! total weights among the tiles the kinds leave, which cancels the
//! listed draws' normalisation, so the kinds too have the exact law; an
//! unlisted seat is drawn from all the unseen tiles and the proposal
//! refused when it holds a tile of a kong's kind, which keeps its draw
//! independent of the kinds, except for a seat owning a hidden kong
//! (its ready hands depend on its kong's kind): with such a seat among
//! two or more unlisted the kinds are weighed by the listed seats only,
//! an approximation ([`Work::exact`] tells).
//!
//! Weights are `f64` (a hand's weight is below `6^13`), so the law is
//! exact up to floating-point rounding of the cumulative weights.

use crate::error::Error;
use crate::game::judge::Judge;
use crate::hand::{Hand, Meld};
use crate::rng::{partial_shuffle, SplitMix};
use crate::ruleset::Ruleset;
use crate::shape::ShapeRules;
use crate::tile::{Counts, Tile, KINDS};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Most hands in one seat's list (about 14 MB of count vectors).
pub(crate) const LIST_CAP: usize = 400_000;
/// Hand sizes always listed, even the largest of the declared hands.
pub(crate) const LIST_ALWAYS: usize = 4;
/// Most enumeration steps (shanten look-ups) for one seat's list.
pub(crate) const NODE_CAP: usize = 3_000_000;
/// Most proposals and readiness tests of one joint draw before the
/// caller falls back (see [`sample_hidden`](super::sample_hidden)).
pub(crate) const WORK_CAP: usize = 1_500_000;
/// Most kong-kind assignments weighed (more: the caller falls back).
pub(crate) const KONG_CAP: usize = 2_000;

/// One seat's ready hands with their cumulative weights.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReadyList {
    pub(crate) hands: Vec<Counts>,
    cum: Vec<f64>,
}

impl ReadyList {
    fn push(&mut self, h: Counts, w: f64) {
        let last = self.cum.last().copied().unwrap_or(0.0);
        self.hands.push(h);
        self.cum.push(last + w);
    }

    /// The total weight.
    pub(crate) fn total(&self) -> f64 {
        self.cum.last().copied().unwrap_or(0.0)
    }

    /// A hand drawn in proportion to its weight (`None` when empty).
    fn draw(&self, rng: &mut SplitMix) -> Option<&Counts> {
        let x = unit(rng) * self.total();
        let i = self.cum.partition_point(|&c| c <= x);
        self.hands.get(i.min(self.hands.len().saturating_sub(1)))
    }

    /// The total weight by the kinds of `kinds` (a bit set) the hands hold.
    fn by_mask(&self, kinds: u64) -> Vec<(u64, f64)> {
        let mut agg: HashMap<u64, f64> = HashMap::new();
        let mut last = 0.0;
        for (h, &c) in self.hands.iter().zip(&self.cum) {
            let m = (0..KINDS)
                .filter(|&k| kinds >> k & 1 == 1 && h[k] > 0)
                .fold(0u64, |m, k| m | 1 << k);
            *agg.entry(m).or_insert(0.0) += c - last;
            last = c;
        }
        let mut v: Vec<(u64, f64)> = agg.into_iter().collect();
        v.sort_by_key(|x| x.0);
        v
    }
}

/// Uniform in `[0, 1)`, 52 bits.
fn unit(rng: &mut SplitMix) -> f64 {
    let hi = f64::from(rng.below(1 << 26));
    let lo = f64::from(rng.below(1 << 26));
    (hi * f64::from(1u32 << 26) + lo) / (1u64 << 52) as f64
}

/// `C(n, k)` for small `n`.
fn binom(n: u8, k: u8) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
}

/// The number of copy sets of counts `h` among `pool`: `Π_k C(pool_k, h_k)`.
pub(crate) fn weight(pool: &Counts, h: &Counts) -> f64 {
    pool.iter()
        .zip(h)
        .filter(|(_, &c)| c > 0)
        .map(|(&u, &c)| binom(u, c))
        .product()
}

/// The chance that independent uniform copy sets of counts `hands` out
/// of `pool` are pairwise disjoint (the proposal's acceptance, see the
/// [module](self)).
pub(crate) fn disjoint_chance(pool: &Counts, hands: &[&Counts]) -> f64 {
    let mut a = 1.0;
    for k in 0..KINDS {
        let u = f64::from(pool[k]);
        let mut used = 0.0;
        for h in hands {
            // Picking h_k copies among the u − used left, over among all u.
            for i in 0..h[k] {
                let i = f64::from(i);
                let left = u - used - i;
                if left <= 0.0 {
                    return 0.0;
                }
                a *= left / (u - i);
            }
            used += f64::from(h[k]);
        }
    }
    a
}

/// Every count vector of `n` tiles out of `pool` that, with `melds`, is
/// ready with a wait worth declaring, weighted by its copy sets; `None`
/// when the list would pass `list_cap` hands or `node_cap` steps.
///
/// A ready hand's natural tiles `N` and wild tiles `W` are a complete
/// hand less `W + 1` tiles (the wild ones stand for `W` of them, the wait
/// is the last), with every natural tile used. So the candidates are the
/// *partial complete hands*: the standard shape's sets and pair walked
/// kind by kind (sequences left open carried to the next kinds), each
/// needed slot a natural tile of the pool or a hole, at most
/// `wild copies + 1` holes; seven pairs and thirteen orphans likewise.
/// Each candidate `N` is spread with its `W` wild tiles over the wild
/// kinds in every way the pool allows, and kept when the judge finds it
/// ready with a wait worth declaring (the judge decides; the walk only
/// must not miss a ready hand, which the tests check against a brute
/// force and against hands found by rejection).
pub(crate) fn ready_list(
    judge: &Judge,
    rules: &Ruleset,
    pool: &Counts,
    n: usize,
    melds: &[Meld],
    node_cap: usize,
    list_cap: usize,
) -> Option<ReadyList> {
    let shape = &ShapeRules::from(rules);
    let wild_kinds: Vec<usize> = judge.wilds.kinds().map(|t| t.index()).collect();
    let mut natural = *pool;
    let mut wild_avail = 0usize;
    for &k in &wild_kinds {
        wild_avail += usize::from(natural[k]);
        natural[k] = 0;
    }
    let mut gen = Gen {
        natural,
        hole_cap: wild_avail.min(n) + 1,
        wind_sets: shape.wind_sets,
        cur: [0; KINDS],
        nodes: 0,
        node_cap,
        found: HashMap::default(),
        list_cap,
        pair_supply: [0; KINDS + 1],
    };
    for k in (0..KINDS).rev() {
        gen.pair_supply[k] = gen.pair_supply[k + 1] + usize::from(natural[k]);
    }
    if n % 3 != 1 {
        return None;
    }
    let sets = (n - 1) / 3;
    let done = gen.standard(0, 0, 0, sets, 1, (0, NO_HOLE))
        && (!(shape.seven_pairs && melds.is_empty() && n == 13) || gen.pairs(0, 0, 0))
        && (!(shape.thirteen_orphans && melds.is_empty() && n == 13) || gen.orphans());
    if !done {
        return None;
    }
    let mut cands: Vec<(Counts, u64)> = gen.found.into_iter().collect();
    cands.sort_unstable();
    let in_play = crate::legal::kind_count(rules);
    let mut out = ReadyList::default();
    for (nat, waits) in cands {
        let w = n - nat.iter().map(|&c| usize::from(c)).sum::<usize>();
        if w == 0 && waits != 0 {
            // A known wait (the one hole of a walk with no wild tile): a
            // natural kind in play of which the hand holds fewer than
            // four, completing it; worth its points, so the hand is ready
            // with a wait worth declaring when they reach the minimum
            // (the judge's answer, without finding every wait).
            let all = Hand::new(nat, melds).map(|h| h.all_counts());
            let known = all.is_ok_and(|all| {
                (0..in_play).any(|k| {
                    waits >> k & 1 == 1
                        && all[k] < 4
                        && !judge.is_wild(kind(k))
                        && kind(k).points() >= rules.ting_min_points
                })
            });
            if known {
                if out.hands.len() >= list_cap {
                    return None;
                }
                out.push(nat, weight(pool, &nat));
                continue;
            }
        }
        // Every spread of the w wild tiles over the wild kinds.
        let spreads: Vec<Counts> = match wild_kinds.as_slice() {
            [] => (w == 0).then_some(nat).into_iter().collect(),
            [a] => (w <= usize::from(pool[*a]))
                .then(|| {
                    let mut h = nat;
                    h[*a] = w as u8;
                    h
                })
                .into_iter()
                .collect(),
            [a, b, ..] => (0..=w.min(usize::from(pool[*a])))
                .filter(|&x| w - x <= usize::from(pool[*b]))
                .map(|x| {
                    let mut h = nat;
                    h[*a] = x as u8;
                    h[*b] = (w - x) as u8;
                    h
                })
                .collect(),
        };
        for h in spreads {
            if Hand::new(h, melds).is_ok_and(|hand| judge.ready_to_declare(&hand)) {
                if out.hands.len() >= list_cap {
                    return None;
                }
                out.push(h, weight(pool, &h));
            }
        }
    }
    Some(out)
}

/// The walk of [`ready_list`]'s candidates.
struct Gen {
    /// The pool less the wild kinds.
    natural: Counts,
    /// Most holes: the wild copies (at most the hand size) plus the wait.
    hole_cap: usize,
    wind_sets: bool,
    cur: Counts,
    nodes: usize,
    node_cap: usize,
    /// The candidates, each with the kinds of its one hole where a walk
    /// with a single hole knew it.
    found: HashMap<Counts, u64, BuildHasherDefault<WordHash>>,
    list_cap: usize,
    /// Natural tiles of the kinds from index k on.
    pair_supply: [usize; KINDS + 1],
}

/// A multiply-rotate hash of whole words: the walk records millions of
/// candidates (many twice), and SipHash took a third of its time.
#[derive(Default)]
struct WordHash(u64);

impl Hasher for WordHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.0 =
                (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
}

/// No hole's kind known.
const NO_HOLE: usize = usize::MAX;

/// 风嘴子 sets: three different winds, or the three dragons.
const WIND_SETS: [[usize; 3]; 5] = [
    [27, 28, 29],
    [27, 28, 30],
    [27, 29, 30],
    [28, 29, 30],
    [31, 32, 33],
];

impl Gen {
    /// Counts a step; false past the cap.
    fn step(&mut self) -> bool {
        self.nodes += 1;
        self.nodes <= self.node_cap
    }

    /// Keeps the candidate; `hole` is the kind of its only hole
    /// ([`NO_HOLE`] when unknown or not the only one).
    fn record(&mut self, hole: usize) -> bool {
        let bit = if hole < KINDS { 1u64 << hole } else { 0 };
        *self.found.entry(self.cur).or_insert(0) |= bit;
        self.found.len() <= self.list_cap.saturating_mul(4)
    }

    /// The standard shape from suit kind `i` on: `a` sequences need their
    /// last tile here, `b` their middle one (and the last next), `sets`
    /// and `pair` still to start, `holes` used.
    fn standard(
        &mut self,
        i: usize,
        a: usize,
        b: usize,
        sets: usize,
        pair: usize,
        (holes, hole_at): (usize, usize),
    ) -> bool {
        if i == 27 {
            return a + b > 0 || self.honors(sets, pair, holes, hole_at);
        }
        if !self.step() {
            return false;
        }
        let r = i % 9;
        // Sequences start at ranks 1-7 only.
        let max_seq = if r <= 6 { sets } else { 0 };
        for s in 0..=max_seq {
            for t in 0..=(sets - s) {
                for p in 0..=pair {
                    let need = a + b + s + 3 * t + 2 * p;
                    let room = self.hole_cap - holes;
                    let lo = need.saturating_sub(room);
                    let hi = need.min(usize::from(self.natural[i]));
                    for c in lo..=hi {
                        self.cur[i] = c as u8;
                        let at = if holes == 0 && need > c { i } else { hole_at };
                        let ok = self.standard(
                            i + 1,
                            b,
                            s,
                            sets - s - t,
                            pair - p,
                            (holes + need - c, at),
                        );
                        if !ok {
                            return false;
                        }
                    }
                }
            }
        }
        self.cur[i] = 0;
        true
    }

    /// The honors: wind sets first (when played), then kind by kind.
    fn honors(&mut self, sets: usize, pair: usize, holes: usize, hole_at: usize) -> bool {
        let mut need = [0usize; 7];
        if self.wind_sets {
            self.wind(0, sets, pair, (holes, hole_at), &mut need)
        } else {
            self.honor_kinds(27, sets, pair, (holes, hole_at), &need)
        }
    }

    fn wind(
        &mut self,
        j: usize,
        sets: usize,
        pair: usize,
        holes: (usize, usize),
        need: &mut [usize; 7],
    ) -> bool {
        if j == WIND_SETS.len() {
            return self.honor_kinds(27, sets, pair, holes, need);
        }
        for m in 0..=sets {
            for &k in &WIND_SETS[j] {
                need[k - 27] += m;
            }
            let ok = self.wind(j + 1, sets - m, pair, holes, need);
            for &k in &WIND_SETS[j] {
                need[k - 27] -= m;
            }
            if !ok {
                return false;
            }
        }
        true
    }

    fn honor_kinds(
        &mut self,
        i: usize,
        sets: usize,
        pair: usize,
        (holes, hole_at): (usize, usize),
        need: &[usize; 7],
    ) -> bool {
        if i == KINDS {
            // Sets of holes only: any kind's.
            let h = holes + 3 * sets + 2 * pair;
            let at = if h == 1 { hole_at } else { NO_HOLE };
            return h < 1 || h > self.hole_cap || self.record(at);
        }
        if !self.step() {
            return false;
        }
        for t in 0..=sets {
            for p in 0..=pair {
                let want = need[i - 27] + 3 * t + 2 * p;
                let room = self.hole_cap - holes;
                let lo = want.saturating_sub(room);
                let hi = want.min(usize::from(self.natural[i]));
                for c in lo..=hi {
                    self.cur[i] = c as u8;
                    let at = if holes == 0 && want > c { i } else { hole_at };
                    let next = (holes + want - c, at);
                    if !self.honor_kinds(i + 1, sets - t, pair - p, next, need) {
                        return false;
                    }
                }
            }
        }
        self.cur[i] = 0;
        true
    }

    /// Seven pairs: every kind 0-4 natural tiles, each odd one a pair
    /// short of a tile; `pairs` and `singles` so far.
    fn pairs(&mut self, i: usize, pairs: usize, singles: usize) -> bool {
        let held: usize = self.cur.iter().map(|&c| usize::from(c)).sum();
        if i == KINDS {
            let holes = 14 - held;
            return pairs + singles > 7
                || holes < 1
                || holes > self.hole_cap
                || self.record(NO_HOLE);
        }
        if !self.step() {
            return false;
        }
        // At most `hole_cap` holes: enough natural tiles must be left.
        if held + self.pair_supply[i] + self.hole_cap < 14 {
            return true;
        }
        for c in 0..=usize::from(self.natural[i]).min(13 - held) {
            let (p, s) = (pairs + c / 2, singles + c % 2);
            if p + s > 7 || s > self.hole_cap {
                continue;
            }
            self.cur[i] = c as u8;
            if !self.pairs(i + 1, p, s) {
                return false;
            }
        }
        self.cur[i] = 0;
        true
    }

    /// Thirteen orphans: natural orphans, at most two of one kind and one
    /// of the others.
    fn orphans(&mut self) -> bool {
        let kinds: Vec<usize> = crate::tile::KindSet::ORPHANS
            .iter()
            .map(|t| t.index())
            .filter(|&k| self.natural[k] > 0)
            .collect();
        let saved = self.cur;
        for subset in 0u32..1 << kinds.len() {
            for double in 0..=kinds.len() {
                if double < kinds.len() && subset >> double & 1 == 0 {
                    continue;
                }
                if !self.step() {
                    return false;
                }
                self.cur = [0; KINDS];
                for (j, &k) in kinds.iter().enumerate() {
                    if subset >> j & 1 == 1 {
                        self.cur[k] = 1 + u8::from(j == double && self.natural[k] >= 2);
                    }
                }
                if double < kinds.len() && self.cur[kinds[double]] < 2 {
                    continue;
                }
                let held: usize = self.cur.iter().map(|&c| usize::from(c)).sum();
                let holes = 14usize.saturating_sub(held);
                if held <= 13 && holes >= 1 && holes <= self.hole_cap && !self.record(NO_HOLE) {
                    return false;
                }
            }
        }
        self.cur = saved;
        true
    }
}

/// The declared hands and hidden kongs' kinds [`draw`] gives.
pub(crate) struct Drawn {
    /// Each hidden kong's kind, in the observation's meld order.
    pub(crate) kongs: Vec<Tile>,
    /// Each seat's hand, in the order of the seats asked for.
    pub(crate) hands: Vec<Counts>,
    /// Whether the law is the exact one (see the [module](self)).
    pub(crate) exact: bool,
}

/// The unseen tiles [`draw`] deals from.
#[derive(Clone, Copy)]
pub(crate) struct Unseen<'a> {
    /// Every unseen tile by kind, the hidden kongs' included.
    pub(crate) tiles: &'a Counts,
    /// The kinds none of whose tiles is seen.
    pub(crate) whole: &'a [usize],
    /// The hidden concealed kongs.
    pub(crate) n_kongs: usize,
}

/// A seat's melds given the hidden kongs' kinds.
pub(crate) type MeldsOf<'a> = dyn Fn(&[Tile]) -> Vec<Meld> + 'a;

/// A list's weights by the wholly unseen kinds its hands hold, by the
/// kinds of the seat's own kongs.
type ByMask = HashMap<Vec<Tile>, Vec<(u64, f64)>>;

/// What [`draw`] needs to know of a declared seat.
pub(crate) struct Seat<'a> {
    /// Concealed tiles.
    pub(crate) n: usize,
    /// The seat's melds for each assignment of kinds to the hidden kongs
    /// (an assignment is a list of kinds, one per hidden kong).
    pub(crate) melds: &'a MeldsOf<'a>,
    /// The hidden kongs (their indices) among this seat's melds.
    pub(crate) own_kongs: Vec<usize>,
}

/// The limits of one joint draw (the constants; tests lower them to
/// reach every path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Caps {
    /// Most hands in a list.
    pub(crate) list: usize,
    /// Most enumeration steps for a list.
    pub(crate) nodes: usize,
    /// Hand sizes listed even when the largest.
    pub(crate) list_always: usize,
    /// Most proposals and tests.
    pub(crate) work: usize,
}

impl Default for Caps {
    fn default() -> Caps {
        Caps {
            list: LIST_CAP,
            nodes: NODE_CAP,
            list_always: LIST_ALWAYS,
            work: WORK_CAP,
        }
    }
}

/// Counts of work done, for the caps and the tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Work {
    /// The limits.
    pub(crate) caps: Caps,
    /// Hands listed over all seats (and kong-kind assignments).
    pub(crate) listed: usize,
    /// Proposals made.
    pub(crate) proposals: usize,
    /// Readiness tests of unlisted hands and draws from the lists.
    pub(crate) tests: usize,
    /// Whether a cap was passed and the sequential law used instead.
    pub(crate) fallback: bool,
    /// Whether the joint draw's law was the exact one.
    pub(crate) exact: bool,
}

impl Work {
    fn spent(&self) -> usize {
        self.proposals + self.tests
    }
}

/// The tiles of `counts`, kind by kind.
fn tiles_into(counts: &Counts, into: &mut Vec<Tile>) {
    into.clear();
    for (k, &c) in counts.iter().enumerate() {
        into.extend(std::iter::repeat_n(kind(k), usize::from(c)));
    }
}

/// The tile of kind index `k`.
fn kind(k: usize) -> Tile {
    Tile::new(k as u8).unwrap_or(Tile::M1)
}

/// The kind bits of `kinds`.
fn mask_of(kinds: &[Tile]) -> u64 {
    kinds.iter().fold(0, |m, t| m | 1 << t.index())
}

/// Every assignment of distinct kinds of `whole` to `n` hidden kongs, in
/// order (`None` past [`KONG_CAP`]).
fn assignments(whole: &[usize], n: usize) -> Option<Vec<Vec<Tile>>> {
    let mut out = vec![Vec::new()];
    for _ in 0..n {
        let mut next = Vec::new();
        for a in &out {
            for &k in whole {
                if !a.contains(&kind(k)) {
                    let mut b = a.clone();
                    b.push(kind(k));
                    next.push(b);
                    if next.len() > KONG_CAP {
                        return None;
                    }
                }
            }
        }
        out = next;
    }
    Some(out)
}

/// The declared seats' hands and the hidden kongs' kinds, drawn together
/// with the law of the [module](self) from `unseen` (every unseen tile,
/// the kongs' included) and `whole` (the kinds none of whose tiles is
/// seen); `Ok(None)` when a cap is passed (the caller falls back).
///
/// A first try leaves the largest hand out of the lists and spends a
/// quarter of the work cap; when it has not drawn, a second lists every
/// hand it can and spends the rest. Each try alone draws with the exact
/// law from fresh randomness, so the draw does too, whichever try gives
/// it.
pub(crate) fn draw(
    judge: &Judge,
    rules: &Ruleset,
    unseen: &Unseen<'_>,
    seats: &[Seat<'_>],
    rng: &mut SplitMix,
    work: &mut Work,
) -> Result<Option<Drawn>, Error> {
    let cap = work.caps.work;
    if let Some(d) = draw_once(judge, rules, unseen, seats, rng, work, (false, cap / 4))? {
        return Ok(Some(d));
    }
    draw_once(judge, rules, unseen, seats, rng, work, (true, cap))
}

/// One try of [`draw`]: `list_largest` lists the largest hand too (where
/// its caps allow), until `budget` proposals and tests in all.
fn draw_once(
    judge: &Judge,
    rules: &Ruleset,
    unseen: &Unseen<'_>,
    seats: &[Seat<'_>],
    rng: &mut SplitMix,
    work: &mut Work,
    (list_largest, budget): (bool, usize),
) -> Result<Option<Drawn>, Error> {
    let Unseen {
        tiles: unseen,
        whole,
        n_kongs,
    } = *unseen;
    if whole.len() < n_kongs {
        return Err(Error::InvalidPosition(
            "no kind is left for a hidden concealed kong".into(),
        ));
    }
    let Some(assigns) = assignments(whole, n_kongs) else {
        return Ok(None);
    };
    // Seats by hand size: the smaller ones are listed first.
    let mut order: Vec<usize> = (0..seats.len()).collect();
    order.sort_by_key(|&i| seats[i].n);
    // Per seat: its lists by the kinds of its own kongs (one list when it
    // has none), over the unseen tiles less every kong kind it holds.
    let mut lists: Vec<Option<HashMap<Vec<Tile>, ReadyList>>> = Vec::new();
    for (j, &i) in order.iter().enumerate() {
        let seat = &seats[i];
        let mut by_own: HashMap<Vec<Tile>, ReadyList> = HashMap::new();
        // The largest hand is drawn last, once per proposal, unless it is
        // small (its list is then cheap and saves the proposals).
        let mut ok = j + 1 < order.len() || seat.n <= work.caps.list_always || list_largest;
        for a in assigns.iter().filter(|_| ok) {
            let own: Vec<Tile> = seat.own_kongs.iter().map(|&x| a[x]).collect();
            if by_own.contains_key(&own) {
                continue;
            }
            let mut pool = *unseen;
            for t in &own {
                pool[t.index()] = 0;
            }
            let melds = (seat.melds)(a);
            match ready_list(
                judge,
                rules,
                &pool,
                seat.n,
                &melds,
                work.caps.nodes,
                work.caps.list,
            ) {
                Some(l) => {
                    work.listed += l.hands.len();
                    by_own.insert(own, l);
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        lists.push(ok.then_some(by_own));
    }
    let unlisted: Vec<usize> = (0..order.len()).filter(|&j| lists[j].is_none()).collect();
    // Each assignment's proposal weight: the product of the listed seats'
    // totals among the tiles it leaves (from each list's weight by the
    // wholly unseen kinds its hands hold).
    let whole_mask = whole.iter().fold(0u64, |m, &k| m | 1 << k);
    let by_mask: Vec<Option<ByMask>> = lists
        .iter()
        .map(|l| {
            l.as_ref().map(|by_own| {
                by_own
                    .iter()
                    .map(|(own, l)| (own.clone(), l.by_mask(whole_mask)))
                    .collect()
            })
        })
        .collect();
    let own_of =
        |i: usize, a: &[Tile]| -> Vec<Tile> { seats[i].own_kongs.iter().map(|&x| a[x]).collect() };
    let mut cum = Vec::with_capacity(assigns.len());
    let mut acc = 0.0;
    for a in &assigns {
        let mask = mask_of(a);
        let mut w = 1.0;
        for (j, &i) in order.iter().enumerate() {
            if let Some(m) = &by_mask[j] {
                w *= m[&own_of(i, a)]
                    .iter()
                    .filter(|(hm, _)| hm & mask == 0)
                    .map(|x| x.1)
                    .sum::<f64>();
            }
        }
        acc += w;
        cum.push(acc);
    }
    if acc <= 0.0 {
        return Err(Error::InvalidPosition(
            "no ready hands for the declared seats among the unseen tiles".into(),
        ));
    }
    let exact = unlisted.len() <= 1
        || unlisted
            .iter()
            .all(|&j| seats[order[j]].own_kongs.is_empty());
    loop {
        if work.spent() >= budget {
            return Ok(None);
        }
        work.proposals += 1;
        let x = unit(rng) * acc;
        let ai = cum.partition_point(|&c| c <= x).min(assigns.len() - 1);
        let a = &assigns[ai];
        let mask = mask_of(a);
        let mut pool = *unseen;
        for t in a {
            pool[t.index()] = 0;
        }
        let mut hands: Vec<Counts> = vec![[0; KINDS]; order.len()];
        for (j, &i) in order.iter().enumerate() {
            let Some(by_own) = &lists[j] else { continue };
            // In proportion to the weight among the hands holding no tile
            // of the kongs' kinds: drawn from the whole list until one
            // holds none (the assignment's weight made it likely).
            let l = &by_own[&own_of(i, a)];
            loop {
                if work.spent() >= budget {
                    return Ok(None);
                }
                work.tests += 1;
                let h = *l.draw(rng).unwrap_or(&[0; KINDS]);
                if (0..KINDS).all(|k| mask >> k & 1 == 0 || h[k] == 0) {
                    hands[j] = h;
                    break;
                }
            }
        }
        if unlisted.len() >= 2 {
            // Each on its own, a uniform ready set of all the unseen tiles
            // (less the seat's own kongs' kinds), the proposal refused
            // when it holds a tile of another kong's kind: for a seat
            // owning no hidden kong the draw then does not depend on the
            // kinds, which keeps the law exact.
            let mut tiles = Vec::with_capacity(136);
            for &j in &unlisted {
                let seat = &seats[order[j]];
                let melds = (seat.melds)(a);
                let mut own_pool = *unseen;
                for &x in &seat.own_kongs {
                    own_pool[a[x].index()] = 0;
                }
                tiles_into(&own_pool, &mut tiles);
                loop {
                    if work.spent() >= budget {
                        return Ok(None);
                    }
                    work.tests += 1;
                    partial_shuffle(&mut tiles, seat.n, rng);
                    let mut c = [0u8; KINDS];
                    for t in &tiles[..seat.n] {
                        c[t.index()] += 1;
                    }
                    if Hand::new(c, &melds).is_ok_and(|h| judge.ready_to_declare(&h)) {
                        hands[j] = c;
                        break;
                    }
                }
            }
            if hands
                .iter()
                .any(|h| (0..KINDS).any(|k| mask >> k & 1 == 1 && h[k] > 0))
            {
                continue;
            }
        }
        let last = (unlisted.len() == 1).then(|| unlisted[0]);
        let drawn: Vec<&Counts> = hands
            .iter()
            .enumerate()
            .filter(|&(j, _)| Some(j) != last)
            .map(|(_, h)| h)
            .collect();
        if unit(rng) >= disjoint_chance(&pool, &drawn) {
            continue;
        }
        if let Some(j) = last {
            // Once, a uniform set of the tiles the others left.
            let mut rest = pool;
            for h in &drawn {
                for k in 0..KINDS {
                    rest[k] -= h[k];
                }
            }
            let mut tiles = Vec::with_capacity(136);
            tiles_into(&rest, &mut tiles);
            let seat = &seats[order[j]];
            work.tests += 1;
            partial_shuffle(&mut tiles, seat.n, rng);
            let mut c = [0u8; KINDS];
            for t in &tiles[..seat.n.min(tiles.len())] {
                c[t.index()] += 1;
            }
            let melds = (seat.melds)(a);
            if !Hand::new(c, &melds).is_ok_and(|h| judge.ready_to_declare(&h)) {
                continue;
            }
            hands[j] = c;
        }
        let mut out = vec![[0u8; KINDS]; seats.len()];
        for (j, &i) in order.iter().enumerate() {
            out[i] = hands[j];
        }
        return Ok(Some(Drawn {
            kongs: a.clone(),
            hands: out,
            exact,
        }));
    }
}
