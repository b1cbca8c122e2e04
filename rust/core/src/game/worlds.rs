//! Successive completions of one observation for a search: the first is
//! [`sample_with`]'s, each next one a cheap step away from the last.
//!
//! A completion's costly part is a declared seat's hand: it must be ready
//! with a wait worth declaring, and a random hand drawn from the unseen
//! tiles is ready about once in two thousand draws, so [`sample_with`]'s
//! rejection costs milliseconds wherever an opponent has declared. A
//! search needs many completions of the same observation, so after the
//! first one the declared hands walk a Markov chain instead: a proposal
//! swaps a uniformly chosen tile of the hand with a uniformly chosen
//! unseen tile outside the declared hands, and is kept when the hand stays
//! ready with a wait worth declaring. The proposal is symmetric and the
//! target uniform on the ready hands, so the chain's stationary law is
//! the uniform one `sample_hidden` draws from, narrowed by what the seat
//! has shown since declaring (see [`refused`]): a hand that would win on
//! a tile the seat let pass, or by self-draw with a tile it drew and
//! discarded, is not kept, since a player who may win takes the win (a
//! declared greedy seat always does; on shanxi this added +0.17 ± 0.16 a
//! hand to mc's duplicate advantage over greedy, 3,000 deals, and +0.16 ±
//! 0.10 on shanxi-double-haozi, 2,400); successive completions are
//! correlated (a few swaps apart), which a search averaging over many of
//! them can afford. Everything else the seat cannot see (the undeclared
//! seats' tiles, the wall's order, the face-down discards) is dealt
//! afresh, uniformly, every time.
//!
//! Hidden concealed kongs keep the first completion's kinds.

use super::judge::Judge;
use super::observation::Observation;
use super::position::{sample_with, Hidden};
use super::table::Game;
use crate::error::Error;
use crate::hand::Hand;
use crate::rng::{partial_shuffle, shuffle, SplitMix};
use crate::ruleset::Ruleset;
use crate::tile::{tiles_of, Counts, Tile, KINDS};

/// Swap proposals per declared hand between two completions.
const PROPOSALS: usize = 24;
/// Rounds of tilted swaps before the first completion.
const TILT_BURN_IN: usize = 6;

/// Completions of one observation, one after another (see the
/// [module docs](self)).
pub(crate) struct Worlds<'a> {
    judge: &'a Judge,
    hidden: Hidden,
    /// The declared seats' hands (concealed tiles and melds), and whether
    /// each was started afresh (then walked longer before the first use).
    declared: Vec<(usize, Hand, bool)>,
    /// The undeclared other seats and their concealed tile counts.
    open: Vec<(usize, usize)>,
    /// The unseen tiles outside the declared hands: dealt to the open
    /// seats, the face-down discards and the wall's undrawn front.
    pool: Vec<Tile>,
    n_down: usize,
    /// Wall tiles before the face-up ones, which stay at its end.
    n_front: usize,
    rng: SplitMix,
    started: bool,
    /// How strongly the open seats' hands lean towards ready (see
    /// [`Worlds::tilt`]); 0 deals them uniformly.
    beta: f64,
    /// Melds of each seat, for the open hands' shanten.
    n_melds: [usize; 4],
    /// By seat, the natural kinds it has shown it does not win with (see
    /// [`refused`]): on a discard, by self-draw.
    refused: [(u64, u64); 4],
}

impl<'a> Worlds<'a> {
    /// The chain for `obs`, seeded. The first completion is
    /// [`sample_with`]'s draw with every declared seat's hand replaced by
    /// a ready one ([`mend`]): the hand `hints` gives for that seat (its
    /// concealed counts, as an earlier chain of the same hand left them: a
    /// declared hand changes only by kongs) where it has the right size,
    /// else the sampled one, then walked. Where no ready hand is reached,
    /// the exact (slow) draw of [`sample_with`] starts the chain instead.
    pub(crate) fn new(
        judge: &'a Judge,
        rules: &Ruleset,
        obs: &Observation,
        hints: &[Option<Counts>; 4],
        seed: u64,
    ) -> Result<Worlds<'a>, Error> {
        let mut rng = SplitMix(seed);
        let me = usize::from(obs.seat & 3);
        let hinted = |s: usize| {
            hints[s].filter(|c| {
                c.iter().map(|&n| usize::from(n)).sum::<usize>()
                    == usize::from(obs.concealed_count[s])
            })
        };
        let mut plain = *obs;
        for s in (0..4).filter(|&s| s != me && declared(rules, obs, s)) {
            plain.ting[s] = false;
        }
        let mut hidden = sample_with(judge, rules, &plain, &mut rng)?;
        let first = Game::from_observation(rules, &plain, &hidden, None)?;
        let mut pool = Vec::with_capacity(136);
        for s in (0..4).filter(|&s| s != me) {
            pool.extend(tiles_of(&hidden.concealed[s]));
        }
        let n_front = extend_rest(&mut pool, obs, &hidden);
        let mut declared_hands = Vec::new();
        let mut open = Vec::new();
        for s in (0..4).filter(|&s| s != me) {
            if !declared(rules, obs, s) {
                open.push((s, usize::from(obs.concealed_count[s])));
                continue;
            }
            let mut hand = *first.hand(s as u8);
            let hint = hinted(s);
            if let Some(h) = hint {
                hand.concealed = h;
            }
            if !mend(judge, &mut hand, &mut pool, &mut rng) {
                return Worlds::exact(judge, obs, rules, rng);
            }
            hidden.concealed[s] = hand.concealed;
            declared_hands.push((s, hand, hint.is_none()));
        }
        let mut w = Worlds::assemble(judge, hidden, declared_hands, open, pool, n_front, rng);
        w.refused = refused(obs);
        for d in 0..w.declared.len() {
            if w.declared[d].2 {
                for _ in 0..BURN_IN {
                    w.walk(d);
                }
            }
            w.settle(d);
        }
        w.deal();
        Ok(w)
    }

    /// The chain started from [`sample_with`]'s exact draw.
    fn exact(
        judge: &'a Judge,
        obs: &Observation,
        rules: &Ruleset,
        mut rng: SplitMix,
    ) -> Result<Worlds<'a>, Error> {
        let me = usize::from(obs.seat & 3);
        let hidden = sample_with(judge, rules, obs, &mut rng)?;
        let first = Game::from_observation(rules, obs, &hidden, None)?;
        let mut pool = Vec::with_capacity(136);
        let mut declared_hands = Vec::new();
        let mut open = Vec::new();
        for s in (0..4).filter(|&s| s != me) {
            if declared(rules, obs, s) {
                declared_hands.push((s, *first.hand(s as u8), false));
            } else {
                open.push((s, usize::from(obs.concealed_count[s])));
                pool.extend(tiles_of(&hidden.concealed[s]));
            }
        }
        let n_front = extend_rest(&mut pool, obs, &hidden);
        let mut w = Worlds::assemble(judge, hidden, declared_hands, open, pool, n_front, rng);
        w.refused = refused(obs);
        for d in 0..w.declared.len() {
            w.settle(d);
        }
        // The walks swapped with the open seats' tiles too: deal them afresh.
        w.deal();
        Ok(w)
    }

    /// The chain of a first completion, whose unseen tiles outside the
    /// declared hands are `pool` (the open seats' first, then those of
    /// [`extend_rest`]).
    fn assemble(
        judge: &'a Judge,
        hidden: Hidden,
        declared: Vec<(usize, Hand, bool)>,
        open: Vec<(usize, usize)>,
        pool: Vec<Tile>,
        n_front: usize,
        rng: SplitMix,
    ) -> Worlds<'a> {
        Worlds {
            judge,
            n_down: hidden.face_down.len(),
            hidden,
            declared,
            open,
            pool,
            n_front,
            rng,
            started: false,
            beta: 0.0,
            n_melds: [0; 4],
            refused: [(0, 0); 4],
        }
    }

    /// How far `hand`, seat `seat`'s declared hand, is from what the seat
    /// has shown: the number of refused kinds it would win with (`None`:
    /// not ready with a wait worth declaring).
    fn misfit(&self, seat: usize, hand: &Hand) -> Option<u32> {
        if !self.judge.ready_to_declare(hand) {
            return None;
        }
        let (no_on, no_own) = self.refused[seat];
        if no_on | no_own == 0 {
            return Some(0);
        }
        let (on, own) = self.judge.declared_wins(hand);
        Some((on & no_on).count_ones() + (own & no_own).count_ones())
    }

    /// Walks the `d`-th declared hand until it wins with none of the kinds
    /// its seat refused, for at most [`SETTLE`] rounds (a kong after the
    /// declaration may have changed the waits: then the least misfit
    /// reached stays).
    fn settle(&mut self, d: usize) {
        for _ in 0..SETTLE {
            let (seat, hand, _) = self.declared[d];
            if self.misfit(seat, &hand) == Some(0) {
                return;
            }
            self.walk(d);
        }
    }

    /// Leans the open seats' hands towards ready: their tiles walk a
    /// Metropolis chain of swaps with the wall and the face-down discards
    /// whose target weighs a hand by `exp(-beta × shanten)` (0: uniform).
    /// Opponents who have played a while hold hands nearer ready than
    /// random tiles are, and a search that meets only random hands
    /// underrates their threat.
    pub(crate) fn with_tilt(mut self, beta: f64, obs: &Observation) -> Worlds<'a> {
        if beta <= 0.0 {
            return self;
        }
        self.beta = beta;
        for s in 0..4 {
            self.n_melds[s] = obs.melds[s].iter().flatten().count();
        }
        for _ in 0..TILT_BURN_IN {
            self.tilt();
        }
        self.deal_rest();
        self
    }

    /// The declared seats' hands as they stand, for the next chain's
    /// hints.
    pub(crate) fn hints(&self) -> [Option<Counts>; 4] {
        let mut h = [None; 4];
        for &(s, hand, _) in &self.declared {
            h[s] = Some(hand.concealed);
        }
        h
    }

    /// The next completion.
    pub(crate) fn next_world(&mut self) -> &Hidden {
        if !self.started {
            self.started = true;
            return &self.hidden;
        }
        for d in 0..self.declared.len() {
            self.walk(d);
        }
        if self.beta > 0.0 {
            self.tilt();
            self.deal_rest();
        } else {
            self.deal();
        }
        &self.hidden
    }

    /// The open seats' tiles, at the pool's front.
    fn n_open(&self) -> usize {
        self.open.iter().map(|&(_, n)| n).sum()
    }

    /// One round of [`PROPOSALS`] tilted swaps per open hand (one tile
    /// short: the hands a seat holds while another acts).
    fn tilt(&mut self) {
        let n_open = self.n_open();
        let rest = self.pool.len() - n_open;
        if rest == 0 {
            return;
        }
        let mut at = 0;
        for o in 0..self.open.len() {
            let (s, n) = self.open[o];
            if n % 3 == 1 {
                let mut c = self.hidden.concealed[s];
                let mut sh = self.judge.shanten(&c, self.n_melds[s]);
                for _ in 0..PROPOSALS {
                    let i = at + self.rng.below(n as u32) as usize;
                    let j = n_open + self.rng.below(rest as u32) as usize;
                    let (out, inn) = (self.pool[i].index(), self.pool[j].index());
                    if out == inn {
                        continue;
                    }
                    c[out] -= 1;
                    c[inn] += 1;
                    let next = self.judge.shanten(&c, self.n_melds[s]);
                    let up = f64::from(next - sh);
                    let keep = up <= 0.0
                        || f64::from(self.rng.below(1 << 24))
                            < (-self.beta * up).exp() * f64::from(1u32 << 24);
                    if keep {
                        self.pool.swap(i, j);
                        sh = next;
                    } else {
                        c[out] += 1;
                        c[inn] -= 1;
                    }
                }
                self.hidden.concealed[s] = c;
            }
            at += n;
        }
    }

    /// Deals the pool's tiles past the open hands afresh to the face-down
    /// discards and the wall's front (the open hands stay).
    fn deal_rest(&mut self) {
        let n_open = self.n_open();
        shuffle(&mut self.pool[n_open..], &mut self.rng);
        let at = n_open;
        self.hidden
            .face_down
            .copy_from_slice(&self.pool[at..at + self.n_down]);
        self.hidden.wall[..self.n_front]
            .copy_from_slice(&self.pool[at + self.n_down..at + self.n_down + self.n_front]);
    }

    /// Deals the pool afresh to the open seats, the face-down discards
    /// and the wall's front.
    fn deal(&mut self) {
        shuffle(&mut self.pool, &mut self.rng);
        let mut at = 0;
        for &(s, n) in &self.open {
            let mut c = [0u8; KINDS];
            for t in &self.pool[at..at + n] {
                c[t.index()] += 1;
            }
            self.hidden.concealed[s] = c;
            at += n;
        }
        self.hidden
            .face_down
            .copy_from_slice(&self.pool[at..at + self.n_down]);
        at += self.n_down;
        self.hidden.wall[..self.n_front].copy_from_slice(&self.pool[at..at + self.n_front]);
    }

    /// [`PROPOSALS`] swap proposals for the `d`-th declared hand.
    fn walk(&mut self, d: usize) {
        let (seat, mut hand, _) = self.declared[d];
        let n: u32 = hand.concealed.iter().map(|&c| u32::from(c)).sum();
        if n == 0 || self.pool.is_empty() {
            return;
        }
        // Tilted open hands keep their place in the pool: swap with the
        // tiles past them only.
        let from = if self.beta > 0.0 { self.n_open() } else { 0 };
        let mut misfit = self.misfit(seat, &hand).unwrap_or(u32::MAX);
        for _ in 0..PROPOSALS {
            let out = uniform_kind(&hand.concealed, n, &mut self.rng);
            if from >= self.pool.len() {
                return;
            }
            let j = from + self.rng.below((self.pool.len() - from) as u32) as usize;
            let inn = self.pool[j].index();
            if inn == out {
                continue;
            }
            let mut next = hand;
            next.concealed[out] -= 1;
            next.concealed[inn] += 1;
            // Uniform on the ready hands that fit what the seat has shown
            // (symmetric proposals); from a misfit start, downhill.
            if let Some(m) = self.misfit(seat, &next).filter(|&m| m <= misfit) {
                hand = next;
                misfit = m;
                self.pool[j] = Tile::from_index_unchecked(out as u8);
            }
        }
        self.declared[d].1 = hand;
        self.hidden.concealed[seat] = hand.concealed;
    }
}

/// Swap proposals a fresh declared hand walks before its first use.
const BURN_IN: usize = 4;
/// Rounds of swap proposals a declared hand may walk to fit what its seat
/// has shown.
const SETTLE: usize = 40;

/// By seat, the natural kinds a declared seat has shown it does not win
/// with, reading it as a player who takes every win it may (greedy does;
/// `pass_scope` locks make a passed win rare and costly): the kinds
/// discarded face up by the others since its ting discard (it could have
/// won on each), and the kinds it discarded face up itself since (it drew
/// each and could have won by self-draw).
fn refused(obs: &Observation) -> [(u64, u64); 4] {
    let mut out = [(0u64, 0u64); 4];
    let mut declared = [false; 4];
    for d in obs.discards() {
        let s = usize::from(d.seat & 3);
        if d.face_down {
            declared[s] = true;
            continue;
        }
        let Some(t) = d.tile else { continue };
        let b = 1u64 << t.index();
        for (o, r) in out.iter_mut().enumerate() {
            if declared[o] && obs.ting[o] {
                if o == s {
                    r.1 |= b;
                } else {
                    r.0 |= b;
                }
            }
        }
    }
    out
}

/// Swap proposals [`mend`] tries before it gives up.
const CLIMB: usize = 3_000;

/// Makes `hand` (a hint an earlier chain left, or a sampled hand) a ready
/// hand with a wait worth declaring, of tiles taken from `pool`: the tiles
/// the pool no longer holds are replaced by random pool tiles, then random
/// swaps with the pool that do not raise the shanten are kept until the
/// hand is ready (a hill climb: its end point is walked by the chain
/// afterwards, which forgets where it started). False where none is
/// reached within [`CLIMB`] proposals.
fn mend(judge: &Judge, hand: &mut Hand, pool: &mut Vec<Tile>, rng: &mut SplitMix) -> bool {
    let mut have = [0u8; KINDS];
    for t in pool.iter() {
        have[t.index()] += 1;
    }
    let mut keep = hand.concealed;
    let mut missing = 0usize;
    for (k, n) in keep.iter_mut().enumerate() {
        if *n > have[k] {
            missing += usize::from(*n - have[k]);
            *n = have[k];
        }
    }
    take(pool, &keep);
    let len = pool.len();
    if missing > len {
        return false;
    }
    partial_shuffle(pool, missing, rng);
    for t in pool.drain(..missing) {
        keep[t.index()] += 1;
    }
    hand.concealed = keep;
    if judge.ready_to_declare(hand) {
        return true;
    }
    let n: u32 = hand.concealed.iter().map(|&c| u32::from(c)).sum();
    if n == 0 || pool.is_empty() {
        return false;
    }
    let mut sh = judge.shanten(&hand.concealed, hand.n_melds());
    for _ in 0..CLIMB {
        let out = uniform_kind(&hand.concealed, n, rng);
        let j = rng.below(pool.len() as u32) as usize;
        let inn = pool[j].index();
        if inn == out {
            continue;
        }
        let mut next = *hand;
        next.concealed[out] -= 1;
        next.concealed[inn] += 1;
        let s = judge.shanten(&next.concealed, next.n_melds());
        if s > sh {
            continue;
        }
        if s <= 0 && !judge.ready_to_declare(&next) {
            continue;
        }
        *hand = next;
        pool[j] = Tile::from_index_unchecked(out as u8);
        sh = s;
        if sh <= 0 {
            return true;
        }
    }
    false
}

/// Removes the tiles of `c` from `pool`; false (the pool unchanged) where
/// it lacks one.
fn take(pool: &mut Vec<Tile>, c: &Counts) -> bool {
    let mut have = [0u8; KINDS];
    for t in pool.iter() {
        have[t.index()] += 1;
    }
    if c.iter().zip(&have).any(|(need, got)| need > got) {
        return false;
    }
    let mut left = *c;
    pool.retain(|t| {
        let n = &mut left[t.index()];
        if *n > 0 {
            *n -= 1;
            false
        } else {
            true
        }
    });
    true
}

/// Appends the face-down discards and the wall's tiles before its face-up
/// ones (which stay at its end) to `pool`: how many wall tiles that is.
fn extend_rest(pool: &mut Vec<Tile>, obs: &Observation, hidden: &Hidden) -> usize {
    let n_up: usize = obs.face_up_in_wall.iter().map(|&c| usize::from(c)).sum();
    let n_front = hidden.wall.len().saturating_sub(n_up);
    pool.extend_from_slice(&hidden.face_down);
    pool.extend_from_slice(&hidden.wall[..n_front]);
    n_front
}

/// Whether seat `s` of `obs` has declared ting with a hand one tile
/// short (the hands that must be ready).
fn declared(rules: &Ruleset, obs: &Observation, s: usize) -> bool {
    obs.ting[s] && rules.ting_required && obs.concealed_count[s] % 3 == 1
}

/// The kind of a uniformly chosen tile of `c`, which holds `n` tiles: the
/// drawn index counted through the kinds in order.
fn uniform_kind(c: &Counts, n: u32, rng: &mut SplitMix) -> usize {
    let mut i = rng.below(n);
    let mut k = 0;
    while u32::from(c[k]) <= i {
        i -= u32::from(c[k]);
        k += 1;
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{builtin, SeatView};

    /// Every completion of the chain rebuilds a table the seat cannot
    /// tell from the true one, with every declared hand ready, whether the
    /// chain starts afresh or from the last decision's hints; the true
    /// declared hands (greedy takes every win) never win with a kind their
    /// seat refused, and the sampled ones hardly ever.
    #[test]
    fn worlds_are_consistent_with_the_observation() {
        let (mut checked, mut failed) = (0, 0);
        let (mut sampled, mut misfits, mut refusing) = (0, 0, 0);
        for rules in crate::testing::presets() {
            for seed in 0..12u64 {
                let mut g = Game::new(&rules, seed, None).unwrap();
                let mut greedy = builtin("greedy", 0).unwrap();
                let mut hints = [None; 4];
                while let Some(s) = g.to_act() {
                    if g.legal_actions().len() > 1 && (0..4).any(|o| o != s && g.is_ting(o)) {
                        let obs = g.observe(s);
                        let no = refused(&obs);
                        for o in (0..4).filter(|&o| o != usize::from(s) && g.is_ting(o as u8)) {
                            let hand = g.hand(o as u8);
                            if hand.concealed.iter().sum::<u8>() % 3 != 1 {
                                continue;
                            }
                            let (on, own) = g.judge.declared_wins(hand);
                            assert_eq!(on & no[o].0, 0, "seat {o} wins on a kind it let pass");
                            assert_eq!(own & no[o].1, 0, "seat {o} wins with a kind it discarded");
                            refusing += usize::from(no[o] != (0, 0));
                        }
                        for (h, tilt) in [([None; 4], 0.0), (hints, 0.0), (hints, 1.0)] {
                            // A rare position has no ready hand within the
                            // draws' bound: the error mc falls back on.
                            let Ok(w) = Worlds::new(&g.judge, &rules, &obs, &h, seed) else {
                                failed += 1;
                                continue;
                            };
                            let mut w = w.with_tilt(tilt, &obs);
                            for _ in 0..6 {
                                let hidden = w.next_world().clone();
                                let rebuilt =
                                    Game::from_observation(&rules, &obs, &hidden, None).unwrap();
                                assert_eq!(rebuilt.observe(s), obs);
                                for &(d, hand, _) in &w.declared {
                                    assert!(g.judge.ready_to_declare(&hand), "seat {d}");
                                    assert_eq!(hidden.concealed[d], hand.concealed);
                                    sampled += 1;
                                    misfits += usize::from(w.misfit(d, &hand) != Some(0));
                                }
                                checked += 1;
                            }
                            hints = w.hints();
                        }
                    }
                    let a = greedy.act(&SeatView::new(&g, s));
                    g.step(a).unwrap();
                }
            }
        }
        assert!(checked > 100, "{checked} worlds checked");
        assert!(
            failed * 50 < checked,
            "{failed} chains failed, {checked} worlds checked"
        );
        assert!(
            refusing > 50,
            "{refusing} declared seats had refused a kind"
        );
        assert!(
            misfits * 100 < sampled,
            "{misfits} of {sampled} sampled declared hands win with a refused kind"
        );
    }

    /// The same seed and hints give the same completions.
    #[test]
    fn worlds_are_deterministic() {
        let rules = Ruleset::shanxi();
        let mut g = Game::new(&rules, 4, None).unwrap();
        let mut greedy = builtin("greedy", 0).unwrap();
        while let Some(s) = g.to_act() {
            if (0..4).any(|o| o != s && g.is_ting(o)) {
                let obs = g.observe(s);
                let draw = |seed| {
                    let mut w = Worlds::new(&g.judge, &rules, &obs, &[None; 4], seed).unwrap();
                    (0..4).map(|_| w.next_world().clone()).collect::<Vec<_>>()
                };
                assert_eq!(draw(1), draw(1));
                assert_ne!(draw(1), draw(2));
                return;
            }
            let a = greedy.act(&SeatView::new(&g, s));
            g.step(a).unwrap();
        }
        panic!("no declared seat in this hand: pick another seed");
    }
}
