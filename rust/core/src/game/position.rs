//! Positions: a table rebuilt from one seat's [`Observation`] and a
//! [`Hidden`] completion of what that seat cannot see, and
//! [`sample_hidden`], which draws such a completion uniformly among those
//! consistent with the public information (the determinization step of a
//! search: sample the hidden tiles, then play on a fully known table).
//!
//! What a seat cannot see is the other seats' concealed tiles, the order
//! of the wall, the other seats' face-down ting discards, the kinds of
//! their concealed kongs where `hide_concealed_kong` hides them, and the
//! table's private state of each seat: its 过胡 locks and the kongs it
//! forfeited by choosing a pong. A rebuilt table has no event log before
//! the position, lists its kongs ([`Game::kong_list`]) by seat and meld
//! rather than in the order they were made (the same payments), and is
//! rebuilt only where the observer is to act.
//!
//! ```
//! use koudian_core::game::{sample_hidden, Game, Prng};
//! use koudian_core::Ruleset;
//! let rules = Ruleset::shanxi();
//! let g = Game::new(&rules, 3, None).unwrap();
//! let seat = g.to_act().unwrap();
//! let obs = g.observe(seat);
//! // The true completion rebuilds the same table...
//! let same = Game::from_observation(&rules, &obs, &g.hidden(seat), None).unwrap();
//! assert_eq!(same.observe(seat), obs);
//! // ... and a sampled one a table the seat cannot tell from it.
//! let h = sample_hidden(&rules, &obs, &mut Prng::new(1)).unwrap();
//! let world = Game::from_observation(&rules, &obs, &h, None).unwrap();
//! assert_eq!(world.observe(seat), obs);
//! ```

use super::claims::Queue;
use super::judge::Judge;
use super::observation::{Observation, Pending};
use super::table::{Discard, Game, Phase};
use super::wall::{Deal, Prng, Wall};
use crate::error::Error;
use crate::hand::{Hand, Meld, MeldKind};
use crate::ruleset::{Family, KongDraw, Ruleset};
use crate::score::{Kong, KongKind};
use crate::tile::{Counts, Tile, KINDS};

/// The seats' private locks: 过胡 by hand, by kind (a bit per kind), until
/// the next draw, and the kong kinds forfeited by a pong (a bit per kind).
pub(crate) type Locks = ([bool; 4], [u64; 4], [bool; 4], [u64; 4]);

/// A completion of what one seat cannot see (see the [module](self)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hidden {
    /// Every seat's concealed tiles by kind (the observer's are its own).
    pub concealed: [Counts; 4],
    /// The undrawn wall, front (next draw) first: as many tiles as the
    /// observation's `wall_remaining`, the face-up indicator tiles last.
    pub wall: Vec<Tile>,
    /// The tile of each discard the observation shows face down, in
    /// discard order.
    pub face_down: Vec<Tile>,
    /// The kind of each meld the observation hides (another seat's
    /// concealed kong), seat by seat, in meld order.
    pub concealed_kongs: Vec<Tile>,
    /// 过胡 locks by hand (`pass_scope = "hand"`), per seat.
    pub pass_hand: [bool; 4],
    /// 过胡 locks by kind (`pass_scope = "tile"`), a bit per kind, per seat.
    pub pass_kinds: [u64; 4],
    /// Sichuan 过水 locks until the seat's next draw, per seat.
    pub pass_turn: [bool; 4],
    /// Kong kinds forfeited by choosing a pong, a bit per kind, per seat.
    pub no_kong: [u64; 4],
    /// On a turn that began with a kong's replacement tile: that kong's
    /// kind (a 杠上开花 chance). Public, but not in the observation.
    pub replacement: Option<MeldKind>,
    /// The answers so far to the discard being answered, as the true
    /// table holds them ([`Game::hidden`] keeps them); `None` opens the
    /// answers afresh as if every seat asked before the observer passed.
    pub claims: Option<Queue>,
}

impl Default for Hidden {
    /// The empty completion (of no position).
    fn default() -> Hidden {
        Hidden {
            concealed: [[0; KINDS]; 4],
            wall: Vec::new(),
            face_down: Vec::new(),
            concealed_kongs: Vec::new(),
            pass_hand: [false; 4],
            pass_kinds: [0; 4],
            pass_turn: [false; 4],
            no_kong: [0; 4],
            replacement: None,
            claims: None,
        }
    }
}

/// The tile of kind index `k` (below 34).
fn kind(k: usize) -> Tile {
    Tile::new(k as u8).unwrap_or(Tile::M1)
}

/// The pieces [`Game::assemble`] builds a table from.
pub(crate) struct Assembly {
    pub rules: Ruleset,
    pub deal: Deal,
    pub seed: Option<u64>,
    pub wall: Wall,
    pub hands: [Hand; 4],
    pub meld_from: [[Option<u8>; 4]; 4],
    pub discards: Vec<Discard>,
    pub ting: [bool; 4],
    pub scores: [i64; 4],
    pub kongs: u8,
    pub kongs_made: Vec<Kong>,
    pub locks: Locks,
    pub phase: Phase,
    pub queue: Option<Queue>,
    pub observer: u8,
}

fn bad(m: String) -> Error {
    Error::InvalidPosition(m)
}

/// The number of tile kinds the ruleset plays with (27 without honors).
fn kinds_in_play(rules: &Ruleset) -> usize {
    rules.tile_total() / 4
}

impl Game {
    /// The true completion of what `seat` cannot see at this table: with
    /// the seat's observation it rebuilds this table
    /// ([`Game::from_observation`]).
    pub fn hidden(&self, seat: u8) -> Hidden {
        let seat = seat & 3;
        let obs_hidden_kong = |s: u8, m: &Meld| {
            self.rules.hide_concealed_kong
                && s != seat
                && m.kind == MeldKind::ConcealedKong
                && !self.is_over()
        };
        let mut concealed_kongs = Vec::new();
        for s in 0..4u8 {
            for m in self.hands[s as usize].melds() {
                if obs_hidden_kong(s, m) {
                    concealed_kongs.push(m.tile);
                }
            }
        }
        let face_down = self
            .discards()
            .iter()
            .filter(|d| d.face_down && d.seat != seat)
            .map(|d| d.tile)
            .collect();
        let (pass_hand, pass_kinds, pass_turn, no_kong) = self.private_locks();
        let replacement = match self.phase {
            Phase::Turn { replacement, .. } => replacement,
            _ => None,
        };
        Hidden {
            concealed: self.hands.map(|h| h.concealed),
            wall: self.wall.undrawn().to_vec(),
            face_down,
            concealed_kongs,
            pass_hand,
            pass_kinds,
            pass_turn,
            no_kong,
            replacement,
            claims: matches!(self.phase, Phase::Respond { .. }).then_some(self.queue),
        }
    }

    /// The table of `obs` (the seat to act's observation, under `rules`)
    /// with `hidden` filling in what the seat cannot see; `seed` is only
    /// recorded. Checked: each seat's concealed count, the tile census
    /// (four of each kind in play), the face-down and concealed-kong
    /// tiles, the face-up wall tiles, every declared seat's hand ready
    /// with a wait worth declaring, and finally that the rebuilt table
    /// shows the seat exactly `obs` (its locks and legal actions
    /// included). From the true completion ([`Game::hidden`]) the table
    /// continues exactly as the original; it has no log of the hand
    /// before the position.
    ///
    /// ```
    /// use koudian_core::game::{Game, Hidden};
    /// use koudian_core::Ruleset;
    /// let g = Game::new(&Ruleset::shanxi(), 1, None).unwrap();
    /// let obs = g.observe(g.to_act().unwrap());
    /// assert!(Game::from_observation(&Ruleset::shanxi(), &obs, &Hidden::default(), None).is_err());
    /// ```
    pub fn from_observation(
        rules: &Ruleset,
        obs: &Observation,
        hidden: &Hidden,
        seed: Option<u64>,
    ) -> Result<Game, Error> {
        rules.validate()?;
        let me = obs.seat & 3;
        if obs.to_act != Some(me) || obs.pending == Pending::None {
            return Err(bad(format!(
                "seat {me} is not to act: a position is rebuilt from the observation of the seat to act"
            )));
        }
        let judge = Judge::new(rules, obs.wilds);
        // Hands: concealed tiles and melds (hidden kongs filled in).
        let mut kongs_hidden = hidden.concealed_kongs.iter();
        let mut hands = [Hand::EMPTY; 4];
        let mut meld_from = [[None; 4]; 4];
        for s in 0..4usize {
            let concealed = hidden.concealed[s];
            if s == usize::from(me) && concealed != obs.concealed {
                return Err(bad(format!(
                    "the completion's concealed tiles of seat {me} are not the observer's own"
                )));
            }
            let n: usize = concealed.iter().map(|&c| usize::from(c)).sum();
            if n != usize::from(obs.concealed_count[s]) {
                return Err(bad(format!(
                    "seat {s} holds {} concealed tiles, the completion gives it {n}",
                    obs.concealed_count[s]
                )));
            }
            let mut melds = Vec::new();
            for (i, m) in obs.melds[s].iter().flatten().enumerate() {
                let tile = match m.tile {
                    Some(t) => t,
                    None => *kongs_hidden.next().ok_or_else(|| {
                        bad(
                            "the completion names fewer concealed kongs than the observation hides"
                                .into(),
                        )
                    })?,
                };
                melds.push(Meld::new(m.kind, tile));
                meld_from[s][i] = m.from;
            }
            hands[s] = Hand::new(concealed, &melds)?;
        }
        if kongs_hidden.next().is_some() {
            return Err(bad(
                "the completion names more concealed kongs than the observation hides".into(),
            ));
        }
        // Discards (face-down ones filled in).
        let mut down = hidden.face_down.iter();
        let mut discards = Vec::with_capacity(obs.discards().len());
        for d in obs.discards() {
            let tile = match d.tile {
                Some(t) => t,
                None => *down.next().ok_or_else(|| {
                    bad(
                        "the completion names fewer face-down discards than the observation hides"
                            .into(),
                    )
                })?,
            };
            discards.push(Discard {
                seat: d.seat,
                tile,
                face_down: d.face_down,
                claimed: d.claimed,
            });
        }
        if down.next().is_some() {
            return Err(bad(
                "the completion names more face-down discards than the observation hides".into(),
            ));
        }
        // The tile census: hands, melds, unclaimed discards and the wall.
        if hidden.wall.len() != usize::from(obs.wall_remaining) {
            return Err(bad(format!(
                "the wall holds {} tiles, the completion gives {}",
                obs.wall_remaining,
                hidden.wall.len()
            )));
        }
        let mut census = [0u32; KINDS];
        for h in &hands {
            for (c, &n) in census.iter_mut().zip(&h.concealed) {
                *c += u32::from(n);
            }
            for m in h.melds() {
                census[m.tile.index()] += u32::from(m.kind.size());
            }
        }
        for d in discards.iter().filter(|d| !d.claimed) {
            census[d.tile.index()] += 1;
        }
        for t in &hidden.wall {
            census[t.index()] += 1;
        }
        let in_play = kinds_in_play(rules);
        for (k, &c) in census.iter().enumerate() {
            let want = if k < in_play { 4 } else { 0 };
            if c != want {
                return Err(bad(format!(
                    "the position holds {c} of {}, the ruleset plays with {want}",
                    kind(k)
                )));
            }
        }
        // Declared hands must be ready with a wait worth declaring.
        let phase = turn_phase(rules, obs, hidden.replacement);
        for (s, &hand) in hands.iter().enumerate() {
            if !obs.ting[s] {
                continue;
            }
            let mut h = hand;
            if let (Phase::Turn { drawn: Some(d), .. }, true) = (phase, s == usize::from(me)) {
                h.concealed[d.index()] = h.concealed[d.index()].saturating_sub(1);
            }
            if h.tile_count() % 3 == 1 && !declarable_ready(&judge, &h) {
                return Err(bad(format!(
                    "seat {s} has declared ting but its hand is not ready with a wait worth declaring"
                )));
            }
        }
        // Kongs made, in seat and meld order (an added kong being offered
        // for robbing is not one yet).
        let robbing = match obs.pending {
            Pending::AddedKong { from, tile } => Some((from, tile)),
            _ => None,
        };
        let mut kongs_made = Vec::new();
        for (s, h) in hands.iter().enumerate() {
            for (i, m) in h.melds().iter().enumerate() {
                match m.kind {
                    MeldKind::ConcealedKong => {
                        kongs_made.push(Kong::own(s as u8, m.tile, KongKind::Concealed));
                    }
                    MeldKind::AddedKong if robbing != Some((s as u8, m.tile)) => {
                        kongs_made.push(Kong::own(s as u8, m.tile, KongKind::Added));
                    }
                    MeldKind::ExposedKong => {
                        let giver = meld_from[s][i].unwrap_or(0);
                        kongs_made.push(Kong::exposed(
                            s as u8,
                            m.tile,
                            giver,
                            declared_before_giving(&discards, giver, m.tile),
                        ));
                    }
                    _ => {}
                }
            }
        }
        if kongs_made.len() != usize::from(obs.kongs) {
            return Err(bad(format!(
                "the observation counts {} kongs, its melds hold {}",
                obs.kongs,
                kongs_made.len()
            )));
        }
        // The wall: the drawn tiles (any order: nobody draws them again)
        // around the undrawn ones, the face-up ones last.
        let n_up: usize = obs.face_up_in_wall.iter().map(|&c| usize::from(c)).sum();
        let mut up = [0u8; KINDS];
        for t in &hidden.wall[hidden.wall.len() - n_up.min(hidden.wall.len())..] {
            up[t.index()] += 1;
        }
        if up != obs.face_up_in_wall {
            return Err(bad(
                "the completion's last wall tiles are not the face-up tiles the observation shows"
                    .into(),
            ));
        }
        let total = rules.tile_total();
        let back = if rules.kong_draw == KongDraw::Tail {
            usize::from(obs.kongs)
        } else {
            0
        };
        let tail = total - back;
        let head = tail - hidden.wall.len();
        let mut drawn = Vec::with_capacity(total - hidden.wall.len());
        let mut rest = [4u8; KINDS];
        for t in &hidden.wall {
            rest[t.index()] -= 1;
        }
        for (k, &n) in rest.iter().enumerate().take(in_play) {
            let t = kind(k);
            drawn.extend(std::iter::repeat_n(t, usize::from(n)));
        }
        let mut tiles = drawn[..head].to_vec();
        tiles.extend_from_slice(&hidden.wall);
        tiles.extend_from_slice(&drawn[head..]);
        let wall = Wall::positioned(&tiles, head, tail);
        let deal = Deal {
            wall: Wall::positioned(&tiles, 0, total),
            dealer: obs.dealer,
            dice: None,
            dealer_rolls: None,
            wilds: obs.wilds,
            revealed: (total - tail + n_up) as u8,
        };
        let phase = match obs.pending {
            Pending::Discard { from, tile } => Phase::Respond {
                from,
                tile,
                rob: false,
            },
            Pending::AddedKong { from, tile } => Phase::Respond {
                from,
                tile,
                rob: true,
            },
            _ => phase,
        };
        let g = Game::assemble(Assembly {
            rules: rules.clone(),
            deal,
            seed,
            wall,
            hands,
            meld_from,
            discards,
            ting: obs.ting,
            scores: obs.scores,
            kongs: obs.kongs,
            kongs_made,
            locks: (
                hidden.pass_hand,
                hidden.pass_kinds,
                hidden.pass_turn,
                hidden.no_kong,
            ),
            phase,
            queue: hidden.claims,
            observer: me,
        })?;
        let seen = g.observe(me);
        if seen != *obs {
            return Err(bad(format!(
                "the rebuilt table shows seat {me} another position ({})",
                first_difference(&seen, obs)
            )));
        }
        Ok(g)
    }
}

/// The observer's turn as the table holds it (a claim's turn has no
/// drawn tile; so has the dealer's first, before any discard).
fn turn_phase(rules: &Ruleset, obs: &Observation, replacement: Option<MeldKind>) -> Phase {
    let seat = obs.seat & 3;
    let first = seat == obs.dealer && obs.n_discards == 0;
    Phase::Turn {
        seat,
        drawn: obs.drawn,
        replacement: obs.drawn.and(replacement),
        last_live: rules.family == Family::Linxian
            && obs.live_remaining == 0
            && obs.drawn.is_some(),
        after_claim: obs.drawn.is_none() && !first,
    }
}

/// Whether the giver of an exposed kong of `t` had declared ting when it
/// discarded the tile (a face-down discard of its own came before).
fn declared_before_giving(discards: &[Discard], giver: u8, t: Tile) -> bool {
    let given = discards
        .iter()
        .position(|d| d.seat == giver && d.claimed && d.tile == t && !d.face_down);
    given.is_some_and(|i| discards[..i].iter().any(|d| d.seat == giver && d.face_down))
}

/// Whether a 13-type hand is ready with a wait worth declaring ting on.
fn declarable_ready(judge: &Judge, h: &Hand) -> bool {
    judge.ready_to_declare(h)
}

/// The first field in which two observations differ, for an error.
fn first_difference(a: &Observation, b: &Observation) -> &'static str {
    if a.legal != b.legal {
        "its legal actions"
    } else if a.may_win_discards != b.may_win_discards || a.locked_kinds != b.locked_kinds {
        "its 过胡 lock"
    } else if a.face_up_in_wall != b.face_up_in_wall {
        "the face-up wall tiles"
    } else if a.live_remaining != b.live_remaining {
        "the live tiles"
    } else if a.pending != b.pending || a.to_act != b.to_act {
        "who is asked what"
    } else {
        "its melds or discards"
    }
}

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
        &mut Fast(rng.next_u64()),
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
    rng: &mut Fast,
) -> Result<Hidden, Error> {
    sample_by(judge, rules, obs, rng, Sampling::Sequential)
}

/// Draws of one declared hand before [`Sampling::Sequential`] gives up.
const SEQUENTIAL_TRIES: usize = 200_000;
/// Hand draws before [`Sampling::Exact`] gives up.
const EXACT_TRIES: usize = 2_000_000;

/// Each hidden kong's kind, uniform among the kinds wholly unseen (taken
/// out of `unseen`).
fn draw_kongs(
    unseen: &mut Counts,
    n_kongs: usize,
    in_play: usize,
    rng: &mut Fast,
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
fn tiles_of(counts: &Counts, into: &mut Vec<Tile>) {
    into.clear();
    for (k, &c) in counts.iter().enumerate() {
        into.extend(std::iter::repeat_n(kind(k), usize::from(c)));
    }
}

/// Every seat's melds with the hidden kongs' kinds filled in.
fn melds_with(obs: &Observation, kongs: &[Tile]) -> [[Option<Meld>; 4]; 4] {
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
    rng: &mut Fast,
    sampling: Sampling,
) -> Result<Hidden, Error> {
    sample_counted(judge, rules, obs, rng, sampling, &mut Work::default())
}

/// Fresh sequential draws after the exact joint draw passed a cap.
const FALLBACK_TRIES: usize = 8;

/// [`sample_by`], counting its work in `work`.
pub(crate) fn sample_counted(
    judge: &Judge,
    rules: &Ruleset,
    obs: &Observation,
    rng: &mut Fast,
    sampling: Sampling,
    work: &mut Work,
) -> Result<Hidden, Error> {
    let me = usize::from(obs.seat & 3);
    let in_play = kinds_in_play(rules);
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
        let melds_of_seat: Vec<Box<sample::MeldsOf<'_>>> = checked
            .iter()
            .map(|&s| {
                Box::new(move |a: &[Tile]| {
                    melds_with(obs, a)[s].iter().flatten().copied().collect()
                }) as Box<sample::MeldsOf<'_>>
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
        let seats: Vec<sample::Seat<'_>> = checked
            .iter()
            .zip(&melds_of_seat)
            .map(|(&s, melds)| sample::Seat {
                n: usize::from(obs.concealed_count[s]),
                melds: melds.as_ref(),
                own_kongs: (0..n_kongs).filter(|&j| kong_owner[j] == s).collect(),
            })
            .collect();
        let whole: Vec<usize> = (0..in_play).filter(|&k| unseen[k] == 4).collect();
        let Some(d) = sample::draw(
            judge,
            rules,
            &sample::Unseen {
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
fn own_forfeits(obs: &Observation) -> u64 {
    use super::action::Action;
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

/// SplitMix64 with Lemire's bounded draws, seeded from the caller's
/// [`Prng`]: a declared hand may take hundreds of draws, and ChaCha's
/// blocks cost more than the readiness test.
pub(crate) struct Fast(pub(crate) u64);

impl Fast {
    /// Uniform in `0..n` (`0` for `n = 0`).
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        let n = n.max(1);
        loop {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            let x = ((z ^ (z >> 31)) >> 32) as u32;
            let m = u64::from(x) * u64::from(n);
            if (m as u32) >= n.wrapping_neg() % n {
                return (m >> 32) as u32;
            }
        }
    }
}

/// Fisher-Yates.
pub(crate) fn shuffle(v: &mut [Tile], rng: &mut Fast) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        v.swap(i, j);
    }
}

/// Puts a uniform random `n`-subset (in random order) at the front of `v`.
pub(crate) fn partial_shuffle<T>(v: &mut [T], n: usize, rng: &mut Fast) {
    let len = v.len();
    for i in 0..n.min(len) {
        let j = i + rng.below((len - i) as u32) as usize;
        v.swap(i, j);
    }
}

#[path = "sample.rs"]
mod sample;
use sample::Work;

#[cfg(test)]
#[path = "sampling_tests.rs"]
mod sampling_tests;
