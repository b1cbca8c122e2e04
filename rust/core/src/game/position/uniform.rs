//! [`sample_hidden`]: a completion of what one seat cannot see, drawn
//! uniformly among the consistent ones (one declared hand by rejection;
//! two or more, or one beside a hidden kong, by the joint draw).

use super::joint::Work;
use super::rebuild::declarable_ready;
use super::*;
use crate::rng::{partial_shuffle, shuffle};

/// Draws a completion of what the seat of `obs` cannot see, uniformly
/// among those consistent with the public information: the unseen tiles
/// (four of each kind in play, less every tile the seat sees) dealt at
/// random to the other seats' concealed tiles, the undrawn wall and the
/// face-down discards, each hidden concealed kong a kind none of whose
/// tiles is seen, and every declared seat's hand ready with a wait worth
/// declaring. This is the determinization step of a search: a table
/// rebuilt from the completion ([`Game::from_observation`]) shows the seat
/// exactly `obs`.
///
/// Exactly uniform, with the tiles told apart, among the consistent
/// completions, however many seats have declared. Each arrangement of the
/// tiles left after the declared hands and the hidden kongs is equally
/// consistent, and their number does not depend on which tiles those
/// took, so only the declared hands and the kongs' kinds need care; the
/// rest is dealt uniformly. With no declared hand and no hidden kong
/// there is nothing to condition on; one declared hand and no hidden kong
/// is redrawn alone until ready (a random hand of the unseen tiles is
/// ready once in 300 to 10,000 draws). Two or more declared hands, or one
/// beside a hidden kong, are drawn together (module `sample`): each
/// seat's ready hands are listed as count vectors over the unseen tiles,
/// weighted by the number of ways to pick their tiles, all but the
/// largest hand are drawn from their lists, and the proposal is kept with
/// the exact chance that tiles picked so are disjoint, then the largest
/// is drawn once as a uniform set of the tiles left and the proposal kept
/// when it is ready (a 4-tile or smaller largest hand is listed too). The
/// kongs' kinds are drawn with each proposal in proportion to the listed
/// hands' total weights among the tiles they leave, which makes their
/// law exact too. A list is capped (400,000 hands, 3,000,000 enumeration
/// steps): a seat past a cap is drawn on its own by rejection from all the
/// unseen tiles and the proposal kept by the same disjoint chance (still
/// exact, except for the kongs' kinds when such a seat owns a hidden kong
/// of its own: they are then weighed by the listed seats only). A joint
/// draw stops after 1,500,000 proposals and readiness tests: the
/// completion then follows the sequential law instead (each declared hand
/// uniform among the ready ones the earlier left: consistent, not exactly
/// uniform). So a consistent observation always gets a consistent
/// completion in bounded time; the error is left for observations with no
/// consistent completion (a declared hand no unseen tiles can make ready,
/// a hidden kong with no wholly unseen kind).
///
/// Measured with `examples/sample_cost.rs` (40 greedy hands per ruleset,
/// every position with two or more declared seats; release build without
/// LTO on a shared 2-core machine at load 1.9-2.6), milliseconds per
/// completion, median / 90th percentile / most:
///
/// | declared | shanxi | linxian |
/// |---|---|---|
/// | 1 | 0.13 / 0.9 / 8 | 0.24 / 2.0 / 16 |
/// | 2 | 18 / 85 / 320 | 53 / 107 / 536 |
/// | 3 | 30 / 355 / 529 | 496 / 690 / 923 |
///
/// with no error in 1,048 completions with declared seats (the rejection
/// draw it replaced: 25-85 ms with two declared seats on shanxi, 200 ms
/// and 8% errors on linxian, 0.4-2.4 s and mostly errors with three). On
/// 212 positions with three declared seats about a third of the
/// completions passed the work cap and followed the sequential law (two
/// hands of 10 or 13 tiles past the list caps); with two declared seats
/// (135 positions) the work cap was never reached, and two positions had
/// the kongs' kinds weighed by the listed seats only (a hidden kong of a
/// declared seat past the list caps).
///
/// The seats' private locks are not sampled: only the observer's own are
/// known (from `obs`), the others' are taken as unlocked.
///
/// ```
/// use koudian_core::game::{sample_hidden, Game, Prng};
/// use koudian_core::Ruleset;
/// let rules = Ruleset::sichuan();
/// let g = Game::new(&rules, 5, None).unwrap();
/// let obs = g.observe(g.to_act().unwrap());
/// let h = sample_hidden(&rules, &obs, &mut Prng::new(9)).unwrap();
/// assert_eq!(h.wall.len(), usize::from(obs.wall_remaining));
/// ```
pub fn sample_hidden(rules: &Ruleset, obs: &Observation, rng: &mut Prng) -> Result<Hidden, Error> {
    rules.validate()?;
    let judge = Judge::new(rules, obs.wilds);
    sample_by(
        &judge,
        rules,
        obs,
        &mut SplitMix(rng.next_u64()),
        Sampling::Exact,
    )
}

/// How [`sample_by`] draws the declared seats' hands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sampling {
    /// Exactly uniform ([`sample_hidden`]): the joint draw of module
    /// `sample` for two or more declared hands or one beside a hidden
    /// kong, rejection for one alone.
    Exact,
    /// Each declared hand redrawn alone (up to 200,000 times) until
    /// ready, among the tiles the earlier ones left, the hidden kongs'
    /// kinds drawn once: exactly uniform only when at most one seat has
    /// declared and no kong is hidden, an approximation otherwise, and far cheaper when two hands must be
    /// ready at once (the mc agent's determinization in every rollout).
    Sequential,
}

/// [`sample_by`] sequentially, with the table's judge: what the mc agent
/// draws its tables with.
pub(crate) fn sample_with(
    judge: &Judge,
    rules: &Ruleset,
    obs: &Observation,
    rng: &mut SplitMix,
) -> Result<Hidden, Error> {
    sample_by(judge, rules, obs, rng, Sampling::Sequential)
}

/// Draws of one declared hand before [`Sampling::Sequential`] gives up.
pub(super) const SEQUENTIAL_TRIES: usize = 200_000;
/// Hand draws before [`Sampling::Exact`] gives up.
pub(super) const EXACT_TRIES: usize = 2_000_000;

/// Each hidden kong's kind, uniform among the kinds wholly unseen (taken
/// out of `unseen`).
pub(super) fn draw_kongs(
    unseen: &mut Counts,
    n_kongs: usize,
    in_play: usize,
    rng: &mut SplitMix,
) -> Result<Vec<Tile>, Error> {
    let mut kongs = Vec::with_capacity(n_kongs);
    for _ in 0..n_kongs {
        let whole: Vec<usize> = (0..in_play).filter(|&k| unseen[k] == 4).collect();
        if whole.is_empty() {
            return Err(bad("no kind is left for a hidden concealed kong".into()));
        }
        let k = whole[rng.below(whole.len() as u32) as usize];
        unseen[k] = 0;
        kongs.push(kind(k));
    }
    Ok(kongs)
}

/// The tiles of `counts`, kind by kind.
pub(super) fn tiles_of(counts: &Counts, into: &mut Vec<Tile>) {
    into.clear();
    for (k, &c) in counts.iter().enumerate() {
        into.extend(std::iter::repeat_n(kind(k), usize::from(c)));
    }
}

/// Every seat's melds with the hidden kongs' kinds filled in.
pub(super) fn melds_with(obs: &Observation, kongs: &[Tile]) -> [[Option<Meld>; 4]; 4] {
    let mut kong_iter = kongs.iter();
    let mut melds_of = [[None; 4]; 4];
    for (seat_melds, seen) in melds_of.iter_mut().zip(&obs.melds) {
        for (i, m) in seen.iter().flatten().enumerate() {
            seat_melds[i] = Some(match m.tile {
                Some(t) => Meld::new(m.kind, t),
                None => Meld::new(m.kind, *kong_iter.next().unwrap_or(&Tile::M1)),
            });
        }
    }
    melds_of
}

/// [`sample_hidden`] with the table's judge, by `sampling`.
pub(crate) fn sample_by(
    judge: &Judge,
    rules: &Ruleset,
    obs: &Observation,
    rng: &mut SplitMix,
    sampling: Sampling,
) -> Result<Hidden, Error> {
    sample_counted(judge, rules, obs, rng, sampling, &mut Work::default())
}

/// Fresh sequential draws after the exact joint draw passed a cap.
pub(super) const FALLBACK_TRIES: usize = 8;

/// [`sample_by`], counting its work in `work`.
pub(crate) fn sample_counted(
    judge: &Judge,
    rules: &Ruleset,
    obs: &Observation,
    rng: &mut SplitMix,
    sampling: Sampling,
    work: &mut Work,
) -> Result<Hidden, Error> {
    let me = usize::from(obs.seat & 3);
    let in_play = crate::legal::kind_count(rules);
    let seen = obs.visible_counts();
    let mut unseen = [0u8; KINDS];
    for k in 0..in_play {
        unseen[k] = 4u8.checked_sub(seen[k]).ok_or_else(|| {
            bad(format!(
                "the observation shows {} of a kind, more than four",
                seen[k]
            ))
        })?;
    }
    for (k, &n) in seen.iter().enumerate().skip(in_play) {
        if n > 0 {
            return Err(bad(format!(
                "the observation shows tile kind {k}, not in play"
            )));
        }
    }
    // Hidden kongs: kinds wholly unseen.
    let n_kongs = obs
        .melds
        .iter()
        .flatten()
        .flatten()
        .filter(|m| m.tile.is_none())
        .count();
    let mut rest = unseen;
    let mut concealed_kongs = draw_kongs(&mut rest, n_kongs, in_play, rng)?;
    // The face-up wall tiles are seen; they stay the wall's last.
    let n_up: usize = obs.face_up_in_wall.iter().map(|&c| usize::from(c)).sum();
    let mut up: Vec<Tile> = Vec::with_capacity(n_up);
    tiles_of(&obs.face_up_in_wall, &mut up);
    shuffle(&mut up, rng);
    let mut pool: Vec<Tile> = Vec::with_capacity(136);
    tiles_of(&rest, &mut pool);
    let n_down = obs.discards().iter().filter(|d| d.tile.is_none()).count();
    let undrawn = usize::from(obs.wall_remaining)
        .checked_sub(n_up)
        .ok_or_else(|| bad("the wall holds fewer tiles than lie face up in it".into()))?;
    let others: usize = (0..4)
        .filter(|&s| s != me)
        .map(|s| usize::from(obs.concealed_count[s]))
        .sum();
    if pool.len() != others + n_down + undrawn {
        return Err(bad(format!(
            "{} tiles are unseen, the observation hides {}",
            pool.len(),
            others + n_down + undrawn
        )));
    }
    let mut concealed = [[0u8; KINDS]; 4];
    concealed[me] = obs.concealed;
    // Declared seats first, each drawn until ready, then the others.
    let mut order: Vec<usize> = (0..4).filter(|&s| s != me && obs.ting[s]).collect();
    order.extend((0..4).filter(|&s| s != me && !obs.ting[s]));
    let mut melds_of = melds_with(obs, &concealed_kongs);
    let checked: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&s| obs.ting[s] && rules.ting_required && obs.concealed_count[s] % 3 == 1)
        .collect();
    if sampling == Sampling::Exact && (checked.len() > 1 || n_kongs > 0 && !checked.is_empty()) {
        // Two or more declared hands, or one beside a hidden kong: drawn
        // together with the hidden kongs' kinds (module `sample`), the other seats dealt from the
        // rest.
        let melds_of_seat: Vec<Box<super::joint::MeldsOf<'_>>> = checked
            .iter()
            .map(|&s| {
                Box::new(move |a: &[Tile]| {
                    melds_with(obs, a)[s].iter().flatten().copied().collect()
                }) as Box<super::joint::MeldsOf<'_>>
            })
            .collect();
        let kong_owner: Vec<usize> = (0..4)
            .flat_map(|s| {
                obs.melds[s]
                    .iter()
                    .flatten()
                    .filter(|m| m.tile.is_none())
                    .map(move |_| s)
            })
            .collect();
        let seats: Vec<super::joint::Seat<'_>> = checked
            .iter()
            .zip(&melds_of_seat)
            .map(|(&s, melds)| super::joint::Seat {
                n: usize::from(obs.concealed_count[s]),
                melds: melds.as_ref(),
                own_kongs: (0..n_kongs).filter(|&j| kong_owner[j] == s).collect(),
            })
            .collect();
        let whole: Vec<usize> = (0..in_play).filter(|&k| unseen[k] == 4).collect();
        let Some(d) = super::joint::draw(
            judge,
            rules,
            &super::joint::Unseen {
                tiles: &unseen,
                whole: &whole,
                n_kongs,
            },
            &seats,
            rng,
            work,
        )?
        else {
            // A cap passed: the sequential law instead (documented at
            // `sample_hidden`), a few fresh tries.
            work.fallback = true;
            let mut last = None;
            for _ in 0..FALLBACK_TRIES {
                match sample_counted(judge, rules, obs, rng, Sampling::Sequential, work) {
                    Ok(h) => return Ok(h),
                    Err(e) => last = Some(e),
                }
            }
            return Err(last.unwrap_or_else(|| bad("no completion found".into())));
        };
        work.exact = d.exact;
        rest = unseen;
        concealed_kongs = d.kongs;
        for t in &concealed_kongs {
            rest[t.index()] = 0;
        }
        for (&s, h) in checked.iter().zip(&d.hands) {
            concealed[s] = *h;
            for k in 0..KINDS {
                rest[k] -= h[k];
            }
        }
        tiles_of(&rest, &mut pool);
        melds_of = melds_with(obs, &concealed_kongs);
        order.retain(|s| !checked.contains(s));
    }
    let mut draws = 0;
    let mut start;
    'joint: loop {
        start = 0;
        for &s in &order {
            let n = usize::from(obs.concealed_count[s]);
            let melds: Vec<Meld> = melds_of[s].iter().flatten().copied().collect();
            let mut tries = 0;
            loop {
                partial_shuffle(&mut pool[start..], n, rng);
                let mut c = [0u8; KINDS];
                for t in &pool[start..start + n] {
                    c[t.index()] += 1;
                }
                if !obs.ting[s] || !rules.ting_required || n % 3 != 1 {
                    concealed[s] = c;
                    break;
                }
                let h = Hand::new(c, &melds)?;
                if declarable_ready(judge, &h) {
                    concealed[s] = c;
                    break;
                }
                tries += 1;
                draws += 1;
                let limit = match sampling {
                    Sampling::Sequential => tries >= SEQUENTIAL_TRIES,
                    Sampling::Exact => draws >= EXACT_TRIES,
                };
                if limit {
                    return Err(bad(format!(
                        "no ready hand for declared seat {s} found among the unseen tiles \
                         (after {draws} draws)"
                    )));
                }
                if sampling == Sampling::Exact {
                    // Start the whole draw again: the kongs' kinds too
                    // (they change which hands are ready and which tiles
                    // are left), the earlier declared hands too.
                    if n_kongs > 0 {
                        rest = unseen;
                        concealed_kongs = draw_kongs(&mut rest, n_kongs, in_play, rng)?;
                        tiles_of(&rest, &mut pool);
                        melds_of = melds_with(obs, &concealed_kongs);
                    }
                    continue 'joint;
                }
            }
            start += n;
        }
        break;
    }
    shuffle(&mut pool[start..], rng);
    let face_down = pool[start..start + n_down].to_vec();
    let mut wall = pool[start + n_down..].to_vec();
    wall.extend_from_slice(&up);
    let (mut pass_hand, mut pass_kinds, mut pass_turn) = ([false; 4], [0u64; 4], [false; 4]);
    if rules.ting_required {
        pass_hand[me] = !obs.may_win_discards;
        pass_kinds[me] = obs.locked_kinds;
    } else {
        pass_turn[me] = !obs.may_win_discards;
    }
    let mut no_kong = [0u64; 4];
    no_kong[me] = own_forfeits(obs);
    Ok(Hidden {
        concealed,
        wall,
        face_down,
        concealed_kongs,
        pass_hand,
        pass_kinds,
        pass_turn,
        no_kong,
        replacement: None,
        claims: None,
    })
}

/// The observer's forfeited kongs as far as its legal actions show them:
/// on its turn, a held fourth tile of a pong it may not add.
pub(super) fn own_forfeits(obs: &Observation) -> u64 {
    use crate::game::action::Action;
    if obs.pending != Pending::Turn || obs.drawn.is_none() && obs.n_discards > 0 {
        return 0;
    }
    let mut m = 0u64;
    let me = usize::from(obs.seat & 3);
    for sm in obs.melds[me].iter().flatten() {
        if let (MeldKind::Pong, Some(t)) = (sm.kind, sm.tile) {
            if obs.concealed[t.index()] > 0 && !obs.legal.contains(Action::AddedKong(t)) {
                m |= 1 << t.index();
            }
        }
    }
    m
}
