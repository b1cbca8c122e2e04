//! Look-ahead features: what the greedy evaluator knows about each
//! candidate action of one seat, as planes of small integers (the last
//! [`LOOKAHEAD_PLANES`] planes of observation encoding version 3,
//! `game/encode.rs`).
//!
//! A network over the raw planes has to learn shanten, improving tiles
//! and the 包胡 danger from scratch, and a small one never learns them
//! well: imitating greedy from version 2 reached 80% agreement and played
//! a point a hand worse than greedy. These are the numbers a player
//! computes before choosing (Suphx's "look-ahead features"), computed by
//! the one evaluator the greedy agent uses, from public information only
//! (the seat's own tiles and what the table shows), so the planes leak
//! nothing an observation does not. A level is `shanten + 1`, a ready
//! hand that cannot reach the point minimum counting one step from ready
//! (the evaluator's levels); 0 means "no such action".
//!
//! | plane | content |
//! |---|---|
//! | 0 | the level after each legal face-up discard (per kind) |
//! | 1 | live tiles that lower that level (ukeire), for the discards at the lowest level and the next, capped at 255 |
//! | 2 | 1 where a face-up discard of the kind may make the seat pay 包胡 to a declared opponent |
//! | 3 | each legal ting discard: the live winning copies of the waits it leaves (capped at 255) |
//! | 4 | each legal ting discard: their value (live copies × points, doubled for waits that may win on a discard), halved, capped at 255 |
//! | 5 | each legal concealed or added kong: the level after it |
//! | 6 | the hand's level now (all columns): on a turn the lowest after a discard, when answering the level as it is |
//! | 7 | answering a discard: the level after a pong and its best discard (all columns; 0 when no pong is legal) |
//! | 8 | answering a discard: the level after a kong of it (all columns; 0 when none is legal) |
//! | 9 | copies of each kind the seat cannot see |
//! | 10 | all ones when the seat has something to decide |
//! | 11 | the greedy policy's choice, when it is a per-kind action (a discard, ting or kong of the kind): 1 at its kind |
//! | 12 | the greedy policy's choice as a code (all columns): 0 nothing to decide, 1 discard, 2 ting, 3 concealed kong, 4 added kong, 5 win, 6 pong, 7 kong, 8 pass, 9 leave |
//!
//! Planes 11-12 make the net a learned correction of the greedy policy
//! (its tie-breaks, connectedness and 包胡 defence are hard to learn from
//! the numbers above): the net learns where the expert (mc) plays
//! otherwise.

use super::*;
use std::cell::RefCell;

/// The look-ahead planes' count.
pub const LOOKAHEAD_PLANES: usize = 13;

/// The look-ahead planes of one seat.
pub type Lookahead = [[u8; KINDS]; LOOKAHEAD_PLANES];

thread_local! {
    /// The evaluator's caches (pure functions of what they are keyed by,
    /// as the agent's own: they never change an answer), one per thread so
    /// that encoding a row needs no scratch from its caller.
    static SCRATCH: RefCell<(Box<Groups>, Option<Box<Setup>>)> = RefCell::default();
}

/// The look-ahead planes of `seat` in `game`, written over `out` (all
/// zeros when the seat has nothing to decide).
pub fn lookahead(game: &Game, seat: u8, out: &mut Lookahead) {
    SCRATCH.with_borrow_mut(|(groups, setup)| {
        let legal = game.legal_actions_for(seat);
        let mut ctx = Ctx::new(game, seat, groups, setup);
        write(&mut ctx, legal, out);
        if !legal.is_empty() {
            let a = Policy::<_, false>::new(&mut ctx).decide(legal);
            write_choice(a, out);
        }
    });
}

/// Planes 11 and 12: the greedy policy's choice `a`.
pub(crate) fn write_choice(a: Action, out: &mut Lookahead) {
    let code = match a {
        Action::Discard(_) => 1,
        Action::Ting(_) => 2,
        Action::ConcealedKong(_) => 3,
        Action::AddedKong(_) => 4,
        Action::Win => 5,
        Action::Pong => 6,
        Action::Kong => 7,
        Action::Pass => 8,
        Action::Leave => 9,
    };
    out[12] = [code; KINDS];
    if let Action::Discard(t) | Action::Ting(t) | Action::ConcealedKong(t) | Action::AddedKong(t) =
        a
    {
        out[11][t.index()] = 1;
    }
}

/// [`lookahead`] on the evaluator `e` (the tests compare the fast one with
/// the plain one).
pub(crate) fn write<'a, E: Eval<'a>>(e: &mut E, legal: ActionMask, out: &mut Lookahead) {
    *out = [[0; KINDS]; LOOKAHEAD_PLANES];
    out[9] = e.unseen();
    if legal.is_empty() {
        return;
    }
    out[10] = [1; KINDS];
    let f = e.facts();
    let game = f.game;
    let (c, n) = (f.hand.concealed, f.hand.n_melds());
    let level = |s: i8| (s + 1).clamp(0, 15) as u8;
    if let Phase::Respond { tile, .. } = game.phase() {
        let k = tile.index();
        out[6] = [level(e.shanten(&c, n)); KINDS];
        if legal.contains(Action::Pong) && c[k] >= 2 {
            let mut after = c;
            after[k] -= 2;
            out[7] = [level(e.best_discard_shanten(&after, n + 1)); KINDS];
        }
        if legal.contains(Action::Kong) && c[k] >= 3 {
            let mut after = c;
            after[k] -= 3;
            out[8] = [level(e.shanten(&after, n + 1)); KINDS];
        }
        return;
    }
    let discards = kinds_from(
        &legal,
        Action::Discard(Tile::from_index_unchecked(0)).index(),
    );
    if discards != 0 {
        let (cs, mut d) = e.discards(KindSet(discards));
        if !cs.cands.is_empty() {
            let by = e.levels(&mut d, &cs);
            for (l, &m) in by.iter().enumerate() {
                for k in bits(m) {
                    out[0][k] = l as u8;
                }
            }
            let lowest = by.iter().position(|&m| m != 0).unwrap_or(0);
            out[6] = [lowest as u8; KINDS];
            let counting = e.counting(&d, false);
            for k in bits(by[lowest] | by.get(lowest + 1).copied().unwrap_or(0)) {
                out[1][k] = e.improving(&d, &counting, &cs, k).min(255) as u8;
            }
        }
        let mut p = Policy::<_, false>::new(e);
        if let Some(th) = p.threat() {
            for k in bits(p.danger_mask(&th)) {
                out[2][k] = 1;
            }
        }
    }
    let tings = kinds_from(&legal, Action::Ting(Tile::from_index_unchecked(0)).index());
    if tings != 0 {
        let f = e.facts();
        let all = f.hand.all_counts();
        let unseen = e.unseen();
        for k in bits(tings) {
            if c[k] == 0 {
                continue;
            }
            let (mut h, mut held) = (c, all);
            h[k] -= 1;
            held[k] -= 1;
            let w = e.waits(&h, &held, n);
            let (live, value) = Policy::<_, false>::new(e).wait_quality(&w, &unseen);
            out[3][k] = live.min(255) as u8;
            out[4][k] = (value / 2).min(255) as u8;
        }
    }
    for (base, concealed) in [
        (
            Action::ConcealedKong(Tile::from_index_unchecked(0)).index(),
            true,
        ),
        (
            Action::AddedKong(Tile::from_index_unchecked(0)).index(),
            false,
        ),
    ] {
        for k in bits(kinds_from(&legal, base)) {
            let mut after = c;
            let melds = if concealed {
                after[k] = 0;
                n + 1
            } else {
                after[k] = after[k].saturating_sub(1);
                n
            };
            out[5][k] = level(e.shanten(&after, melds));
        }
    }
}

/// The set bits of `m`, lowest first.
fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            k
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::greedy::plain::Plain;
    use crate::ruleset::Ruleset;

    /// The fast evaluator's planes equal the plain one's (every question
    /// answered from scratch by the shanten module and `waits_counts`),
    /// for every seat at every step of many hands of every preset.
    #[test]
    fn fast_and_plain_evaluators_write_the_same_planes() {
        let mut agents: Vec<GreedyAgent> = (0..4).map(GreedyAgent::new).collect();
        let mut positions = 0;
        for name in Ruleset::preset_names() {
            let rules = Ruleset::preset(name).unwrap();
            for seed in 0..6 {
                let mut g = Game::new(&rules, seed, None).unwrap();
                while let Some(seat) = g.to_act() {
                    for s in 0..4u8 {
                        let mut fast = [[0; KINDS]; LOOKAHEAD_PLANES];
                        lookahead(&g, s, &mut fast);
                        let mut plain = [[7; KINDS]; LOOKAHEAD_PLANES];
                        let mut e = Plain::new(&g, s);
                        let legal = g.legal_actions_for(s);
                        write(&mut e, legal, &mut plain);
                        if !legal.is_empty() {
                            let a = GreedyAgent::new(0).act(&SeatView::new(&g, s));
                            write_choice(a, &mut plain);
                        }
                        assert_eq!(fast, plain, "seed {seed} seat {s}");
                        positions += 1;
                    }
                    let a = agents[seat as usize].act(&SeatView::new(&g, seat));
                    g.step(a).unwrap();
                }
            }
        }
        assert!(positions > 1000);
    }

    /// The planes answer what the greedy agent compares: its discard is
    /// at the lowest level, and a seat with nothing to decide gets zeros
    /// but for the unseen copies.
    #[test]
    fn greedy_discards_at_the_lowest_level_without_a_threat() {
        let mut checked = 0;
        for seed in 0..20 {
            let mut g = Game::new(&Ruleset::sichuan(), seed, None).unwrap();
            let mut agent = GreedyAgent::new(0);
            while let Some(seat) = g.to_act() {
                let mut la = [[0; KINDS]; LOOKAHEAD_PLANES];
                lookahead(&g, (seat + 1) % 4, &mut la);
                if g.legal_actions_for((seat + 1) % 4).is_empty() {
                    assert!(la[..9].iter().all(|p| p.iter().all(|&v| v == 0)));
                    assert_eq!(la[10], [0; KINDS]);
                }
                let a = agent.act(&SeatView::new(&g, seat));
                lookahead(&g, seat, &mut la);
                assert!(la[12][0] > 0);
                if let Action::Discard(t) = a {
                    assert_eq!(la[0][t.index()], la[6][0], "seed {seed}");
                    assert_eq!(la[11][t.index()], 1);
                    assert_eq!(la[12][0], 1);
                    checked += 1;
                }
                g.step(a).unwrap();
            }
        }
        assert!(checked > 100);
    }
}
