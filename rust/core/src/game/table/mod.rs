//! The table state machine: one hand of any ruleset, from the deal to the
//! settlement. See the [`crate::game`] module docs for the flow and the
//! decisions taken where docs/rules.md is silent.
//!
//! One concern per file: this one holds the state, its construction and
//! its accessors; `apply.rs` steps actions, `turn.rs` is a seat's own
//! turn (draw, discard, ting, kongs), `respond.rs` the answers to a
//! discard or an added kong, `finish.rs` ends the hand and settles it.

mod apply;
mod assemble;
mod finish;
mod respond;
mod tallies;
pub(crate) use tallies::PrivateLocks;
mod turn;

use self::tallies::{Tallies, NO_BOUND};
use super::action::{Action, ActionMask};
use super::claims::{Claim, Queue};
use super::event::Event;
use super::judge::{kept_completing, Judge};
use super::result::{EndKind, HandResult};
use super::wall::{Deal, Wall};
use crate::error::Error;
use crate::hand::{Hand, Meld, MeldKind};
use crate::legal::misses_a_suit;
use crate::ruleset::{KongDraw, PassScope, Ruleset};
use crate::score::{Kong, KongKind, Settlement};
use crate::tile::{Counts, Tile, KINDS};
use crate::wildcard::Wildcards;

/// Most discards one hand can hold (every live tile drawn and discarded,
/// plus one discard per claim).
pub const MAX_DISCARDS: usize = 136;

/// One discard as the table keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Discard {
    /// Who discarded it.
    pub seat: u8,
    /// The tile (hidden from others when `face_down`).
    pub tile: Tile,
    /// A ting declaration's face-down discard.
    pub face_down: bool,
    /// Claimed into a pong or kong (no longer in the pond).
    pub claimed: bool,
}

/// A meld with the seat it was claimed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TableMeld {
    /// The meld.
    pub meld: Meld,
    /// The discarder of the claimed tile (pong, exposed kong, and an added
    /// kong's pong); `None` for a concealed kong.
    pub from: Option<u8>,
}

/// What the table waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// `seat` acts on its own turn.
    Turn {
        /// The seat.
        seat: u8,
        /// The tile it just drew (`None` for the dealer's first turn and
        /// after a pong).
        drawn: Option<Tile>,
        /// The drawn tile replaces this kind of kong (杠上开花 chance).
        replacement: Option<MeldKind>,
        /// Linxian: this is the last live tile (win it or the hand is drawn).
        last_live: bool,
        /// Just ponged: must discard.
        after_claim: bool,
    },
    /// Seats answer a discard (or, `rob`, an added kong), one at a time.
    Respond {
        /// The discarder or konger.
        from: u8,
        /// The tile.
        tile: Tile,
        /// An added kong that may be robbed.
        rob: bool,
    },
    /// The hand is over.
    Over,
    /// Internal: `seat` is about to draw (from the front or, for a kong,
    /// a replacement).
    Draw {
        /// The seat.
        seat: u8,
        /// Replacing this kind of kong.
        replacement: Option<MeldKind>,
    },
}

/// One hand at the table.
///
/// ```
/// use koudian_core::game::{Game, Action};
/// use koudian_core::Ruleset;
/// let mut g = Game::new(&Ruleset::shanxi(), 7, None).unwrap();
/// while !g.is_over() {
///     let a = g.legal_actions().iter().next().unwrap();
///     g.step(a).unwrap();
/// }
/// assert_eq!(g.result().unwrap().deltas.iter().sum::<i64>(), 0);
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    pub(crate) rules: Ruleset,
    pub(crate) judge: Judge,
    pub(crate) deal: Deal,
    pub(crate) seed: Option<u64>,
    pub(crate) wall: Wall,
    pub(crate) hands: [Hand; 4],
    pub(crate) meld_from: [[Option<u8>; 4]; 4],
    pub(crate) discards: [Discard; MAX_DISCARDS],
    pub(crate) n_discards: u8,
    pub(crate) ting: [bool; 4],
    pub(crate) kongs: u8,
    /// What the table derives from the hands, melds, discards and wall
    /// and keeps in step with them (written only through its `on_*`
    /// methods).
    tallies: Tallies,
    pub(crate) phase: Phase,
    pub(crate) queue: Queue,
    to_act: u8,
    legal: ActionMask,
    pub(crate) result: Option<HandResult>,
    pub(crate) scores: [i64; 4],
    pub(crate) robbed: Option<Tile>,
    kong_list: [Kong; 16],
    n_kong_list: u8,
    settlement: Option<Settlement>,
    settle_error: Option<Error>,
    record: bool,
    pub(crate) events: Vec<Event>,
    /// Actions played at this table ([`Game::moves`]).
    moves: u64,
}

const NO_DISCARD: Discard = Discard {
    seat: 0,
    tile: Tile::M1,
    face_down: false,
    claimed: false,
};

#[inline]
fn bit(t: Tile) -> u64 {
    1u64 << t.index()
}

#[inline]
fn next(seat: u8) -> u8 {
    (seat + 1) & 3
}

impl Game {
    /// A new hand dealt from `seed`. `dealer` defaults to seat 0, or to the
    /// dice when the ruleset rolls them.
    pub fn new(rules: &Ruleset, seed: u64, dealer: Option<u8>) -> Result<Game, Error> {
        let deal = Deal::random(rules, seed, dealer)?;
        // `Deal::random` has validated the ruleset and dealt a wall of its
        // size: `build`'s checks of both would pass.
        Game::build_checked(rules, deal, Some(seed))
    }

    /// A hand from a prepared deal (tests, puzzles, replays).
    ///
    /// ```
    /// use koudian_core::game::{Action, Deal, Game};
    /// use koudian_core::{Ruleset, Tile};
    /// let rules = Ruleset::shanxi();
    /// let deal = Deal::arranged(&rules,
    ///     ["123456789m99s78p1z", "123s456s777m2356z", "345p666s888s22m56z", "1234z444z55667z9p"],
    ///     "", "", 0, None).unwrap();
    /// let mut g = Game::from_deal(&rules, deal).unwrap();
    /// // Discarding 1z leaves 123456789m 99s 78p, waiting on 6p/9p: ting.
    /// g.step(Action::Ting(Tile::EAST)).unwrap();
    /// assert!(g.is_ting(0));
    /// ```
    pub fn from_deal(rules: &Ruleset, deal: Deal) -> Result<Game, Error> {
        Game::build(rules, deal, None)
    }

    pub(crate) fn build(rules: &Ruleset, deal: Deal, seed: Option<u64>) -> Result<Game, Error> {
        rules.validate()?;
        if deal.wall.tiles().len() != rules.tile_total() {
            return Err(Error::InvalidTiles(format!(
                "the deal's wall has {} tiles, the ruleset plays with {}",
                deal.wall.tiles().len(),
                rules.tile_total()
            )));
        }
        Game::build_checked(rules, deal, seed)
    }

    /// [`Game::build`] for a valid ruleset and a deal of its wall size.
    fn build_checked(rules: &Ruleset, deal: Deal, seed: Option<u64>) -> Result<Game, Error> {
        debug_assert!(rules.validate().is_ok());
        debug_assert_eq!(deal.wall.tiles().len(), rules.tile_total());
        let (wall, hands) = Game::deal_hands(&deal)?;
        let first = deal.dealer;
        let live = wall.remaining().saturating_sub(rules.wall_reserve_after(0)) as u8;
        let mut g = Game {
            rules: rules.clone(),
            judge: Judge::new(rules, deal.wilds),
            deal,
            seed,
            wall,
            hands,
            meld_from: [[None; 4]; 4],
            discards: [NO_DISCARD; MAX_DISCARDS],
            n_discards: 0,
            ting: [false; 4],
            kongs: 0,
            tallies: Tallies::dealt(&hands, live),
            phase: Phase::Turn {
                seat: first,
                drawn: None,
                replacement: None,
                last_live: false,
                after_claim: false,
            },
            queue: Queue::default(),
            to_act: first,
            legal: ActionMask::EMPTY,
            result: None,
            scores: [0; 4],
            robbed: None,
            kong_list: [Kong::own(0, Tile::M1, KongKind::Concealed); 16],
            n_kong_list: 0,
            settlement: None,
            settle_error: None,
            record: true,
            events: Vec::new(),
            moves: 0,
        };
        g.tallies.on_suited(g.suited_seats());
        g.advance();
        Ok(g)
    }

    /// The wall after the deal and the hands dealt from it: starting with
    /// the dealer, in turn order, 13 tiles each, then the dealer's 14th.
    #[inline(always)]
    fn deal_hands(deal: &Deal) -> Result<(Wall, [Hand; 4]), Error> {
        const DEALT: usize = 4 * 13 + 1;
        // The empty hand as a constant: `Hand::new`'s 4-copy check of 34
        // zero counts cost about 140 instructions a hand.
        debug_assert_eq!(Hand::new([0; KINDS], &[]).ok(), Some(Hand::EMPTY));
        let mut hands = [Hand::EMPTY; 4];
        let Some(dealt) = deal.wall.undrawn().get(..DEALT) else {
            return Err(Error::InvalidTiles(format!(
                "the deal's wall has {} undrawn tiles, fewer than the {DEALT} dealt",
                deal.wall.remaining()
            )));
        };
        // The first 52 tiles as four runs of 13 (a slice per seat, no
        // draw one by one), then the dealer's 14th.
        for (i, run) in dealt[..52].chunks_exact(13).enumerate() {
            let counts = &mut hands[(deal.dealer as usize + i) & 3].concealed;
            for t in run {
                counts[t.index()] += 1;
            }
        }
        hands[(deal.dealer & 3) as usize].concealed[dealt[52].index()] += 1;
        let mut wall = deal.wall;
        wall.skip_front(DEALT);
        Ok((wall, hands))
    }

    /// Starts a new hand of the same ruleset at this table, dealt from
    /// `seed` as [`Game::new`] would (a test compares the two field by
    /// field), keeping the recording setting and the event buffer's
    /// memory. Native self-play plays many hands this way: the table is
    /// not rebuilt and moved (about 2 KB) for every hand.
    pub(crate) fn redeal(&mut self, seed: u64, dealer: Option<u8>) -> Result<(), Error> {
        let deal = Deal::random(&self.rules, seed, dealer)?;
        let (new_wall, new_hands) = Game::deal_hands(&deal)?;
        let first = deal.dealer;
        // Every field is named (no `..`), so a field added to `Game`
        // cannot be left out here without a compile error.
        let Game {
            rules,
            judge,
            deal: old_deal,
            seed: old_seed,
            wall,
            hands,
            meld_from,
            discards,
            n_discards,
            ting,
            kongs,
            tallies,
            phase,
            queue,
            to_act,
            legal,
            result,
            scores,
            robbed,
            kong_list,
            n_kong_list,
            settlement,
            settle_error,
            record: _,
            events,
            moves,
        } = self;
        // The judge depends only on the ruleset and the wild kinds: kept
        // when the new deal has the same wild kinds (always, without
        // wildcards).
        if judge.wilds != deal.wilds {
            *judge = Judge::new(rules, deal.wilds);
        }
        *old_deal = deal;
        *old_seed = Some(seed);
        *wall = new_wall;
        *hands = new_hands;
        *meld_from = [[None; 4]; 4];
        *discards = [NO_DISCARD; MAX_DISCARDS];
        *n_discards = 0;
        *ting = [false; 4];
        *kongs = 0;
        let live = new_wall
            .remaining()
            .saturating_sub(rules.wall_reserve_after(0)) as u8;
        *tallies = Tallies::dealt(&new_hands, live);
        *phase = Phase::Turn {
            seat: first,
            drawn: None,
            replacement: None,
            last_live: false,
            after_claim: false,
        };
        *queue = Queue::default();
        *to_act = first;
        *legal = ActionMask::EMPTY;
        *result = None;
        *scores = [0; 4];
        *robbed = None;
        *kong_list = [Kong::own(0, Tile::M1, KongKind::Concealed); 16];
        *n_kong_list = 0;
        *settlement = None;
        *settle_error = None;
        events.clear();
        *moves = 0;
        self.tallies.on_suited(self.suited_seats());
        self.advance();
        Ok(())
    }

    /// Turns the event record (and so [`Game::log`]) on or off; off saves
    /// time in bulk self-play. On by default.
    pub fn set_recording(&mut self, on: bool) {
        self.record = on;
        if !on {
            self.events.clear();
        }
    }

    /// Sets the running totals shown in observations (a match's scores).
    pub fn set_scores(&mut self, scores: [i64; 4]) {
        self.scores = scores;
    }

    /// The running totals given by [`Game::set_scores`].
    pub fn scores(&self) -> [i64; 4] {
        self.scores
    }

    /// The ruleset.
    pub fn rules(&self) -> &Ruleset {
        &self.rules
    }

    /// The deal the hand started from.
    pub fn deal(&self) -> &Deal {
        &self.deal
    }

    /// The seed, when dealt from one.
    pub fn seed(&self) -> Option<u64> {
        self.seed
    }

    /// The dealer.
    pub fn dealer(&self) -> u8 {
        self.deal.dealer
    }

    /// The wild kinds of the hand.
    pub fn wilds(&self) -> Wildcards {
        self.deal.wilds
    }

    /// The wall as it stands.
    pub fn wall(&self) -> &Wall {
        &self.wall
    }

    /// Full hand of a seat (hidden information: for logging, debugging
    /// and settlement, never for agents).
    pub fn hand(&self, seat: u8) -> &Hand {
        &self.hands[(seat & 3) as usize]
    }

    /// A seat's melds with where each was claimed from.
    pub fn table_melds(&self, seat: u8) -> impl Iterator<Item = TableMeld> + '_ {
        let s = (seat & 3) as usize;
        self.hands[s]
            .melds()
            .iter()
            .zip(self.meld_from[s].iter())
            .map(|(&meld, &from)| TableMeld { meld, from })
    }

    /// Every discard so far, in order.
    pub fn discards(&self) -> &[Discard] {
        &self.discards[..self.n_discards as usize]
    }

    /// The face-up discards not claimed, by kind.
    ///
    /// ```
    /// use koudian_core::game::{Action, Game};
    /// use koudian_core::Ruleset;
    /// let mut g = Game::new(&Ruleset::sichuan(), 1, None).unwrap();
    /// assert_eq!(g.pond().iter().sum::<u8>(), 0);
    /// let t = g.legal_actions().iter().find_map(|a| match a {
    ///     Action::Discard(t) => Some(t),
    ///     _ => None,
    /// }).unwrap();
    /// g.step(Action::Discard(t)).unwrap();
    /// assert_eq!(g.pond()[t.index()], 1);
    /// ```
    pub fn pond(&self) -> &Counts {
        self.tallies.pond()
    }

    /// The tiles of every seat's melds that every seat sees, by kind: all
    /// of them but the concealed kongs where the ruleset hides those
    /// (`hide_concealed_kong`).
    pub fn meld_counts(&self) -> &Counts {
        self.tallies.meld_counts()
    }

    /// The kinds discarded face up by the other seats since `seat`
    /// declared ting, as a bit mask by kind index (0 before it declares):
    /// the tiles it let pass. A declared seat that lets a tile pass
    /// either does not wait on it or may not win on it (过胡), so 包胡
    /// defence reads them as safe.
    pub fn let_pass(&self, seat: u8) -> u64 {
        self.tallies.let_pass((seat & 3) as usize)
    }

    /// Whether a seat has declared ting.
    pub fn is_ting(&self, seat: u8) -> bool {
        self.ting[(seat & 3) as usize]
    }

    /// Kongs made so far.
    pub fn kongs(&self) -> u8 {
        self.kongs
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Actions played at this table so far: every successful
    /// [`Game::step`] and [`Game::leave`] (automatic moves not counted).
    /// A copy keeps the count, so an observation can tell whether its
    /// table has moved since it was taken.
    ///
    /// ```
    /// use koudian_core::game::Game;
    /// use koudian_core::Ruleset;
    /// let mut g = Game::new(&Ruleset::shanxi(), 1, None).unwrap();
    /// assert_eq!(g.moves(), 0);
    /// let first = g.legal_actions().iter().next().unwrap();
    /// g.step(first).unwrap();
    /// assert_eq!(g.moves(), 1);
    /// ```
    pub fn moves(&self) -> u64 {
        self.moves
    }

    /// Whether the hand is over.
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }

    /// The seat to act, `None` once the hand is over.
    pub fn to_act(&self) -> Option<u8> {
        (!self.is_over()).then_some(self.to_act)
    }

    /// The exact legal actions of the seat to act.
    pub fn legal_actions(&self) -> ActionMask {
        self.legal
    }

    /// The legal actions of `seat`: empty unless it is the seat to act.
    pub fn legal_actions_for(&self, seat: u8) -> ActionMask {
        if self.to_act() == Some(seat) {
            self.legal
        } else {
            ActionMask::EMPTY
        }
    }

    /// The result, once the hand is over.
    pub fn result(&self) -> Option<&HandResult> {
        self.result.as_ref()
    }

    /// The itemized settlement of the finished hand.
    pub fn settlement(&self) -> Option<&Settlement> {
        self.settlement.as_ref()
    }

    /// The scorer's objection to the finished hand, if it had one (then
    /// the deltas are all zero). The soak test requires it never happens.
    pub fn settlement_error(&self) -> Option<&Error> {
        self.settle_error.as_ref()
    }

    /// Every kong made so far, in order (a robbed kong is not one).
    pub fn kong_list(&self) -> &[Kong] {
        &self.kong_list[..self.n_kong_list as usize]
    }

    fn record_kong(&mut self, k: Kong) {
        if (self.n_kong_list as usize) < self.kong_list.len() {
            self.kong_list[self.n_kong_list as usize] = k;
            self.n_kong_list += 1;
        }
    }

    /// Sets seat `s`'s concealed count of `t` to `n`, keeping its kind
    /// sets in step.
    #[inline]
    fn set_count(&mut self, s: usize, t: Tile, n: u8) {
        let k = t.index();
        let old = self.hands[s].concealed[k];
        self.hands[s].concealed[k] = n;
        self.tallies.on_count(s, k, old, n);
    }

    /// Adds `d` to seat `s`'s concealed count of `t` (`d` < 0 removes).
    #[inline]
    fn add_count(&mut self, s: usize, t: Tile, d: i8) {
        let n = self.hands[s].concealed[t.index()].wrapping_add_signed(d);
        self.set_count(s, t, n);
    }

    /// Seat `s` gains one `t` (a draw, or a tile given back): the hot
    /// path of [`Game::add_count`].
    #[inline]
    fn add_one(&mut self, s: usize, t: Tile) {
        let k = t.index();
        let old = self.hands[s].concealed[k];
        self.hands[s].concealed[k] = old + 1;
        self.tallies.on_gain(s, k, old);
    }

    /// Seat `s` gives up one `t`, which it holds (a discard or an added
    /// kong).
    #[inline]
    fn remove_one(&mut self, s: usize, t: Tile) {
        let k = t.index();
        let old = self.hands[s].concealed[k];
        self.hands[s].concealed[k] = old - 1;
        self.tallies.on_loss(s, k, old);
    }

    /// The recorded events (empty when recording is off).
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Tiles in the wall not reserved: what may still be drawn.
    pub fn live_tiles(&self) -> usize {
        let reserve = self.rules.wall_reserve_after(self.kongs);
        debug_assert_eq!(
            usize::from(self.tallies.live()),
            self.wall.remaining().saturating_sub(reserve)
        );
        usize::from(self.tallies.live())
    }

    /// Seat `s` makes a kong: one more replacement tile is reserved (the
    /// live count stays `remaining − reserve`, at least 0).
    fn count_kong(&mut self, s: usize) {
        self.kongs += 1;
        self.tallies.on_kong(s, self.rules.wall_reserve.1);
        debug_assert_eq!(usize::from(self.tallies.live()), self.live_tiles());
    }

    /// Whether `seat` may still win on a discard (no 过胡 lock; with
    /// `pass_scope = "tile"` only some kinds are locked, and this is true).
    pub fn may_win_discards(&self, seat: u8) -> bool {
        let locks = self.tallies.pass_locks((seat & 3) as usize);
        if self.rules.ting_required {
            !(self.rules.pass_scope == PassScope::Hand && locks.hand)
        } else {
            !locks.turn
        }
    }

    /// The kinds `seat` may not win on a discard because of a
    /// `pass_scope = "tile"` 过胡 lock, as a bit mask by kind index; 0
    /// under the other pass scopes (see [`Game::may_win_discards`]).
    pub fn locked_kinds(&self, seat: u8) -> u64 {
        if self.rules.ting_required && self.rules.pass_scope == PassScope::Tile {
            self.tallies.pass_locks((seat & 3) as usize).kinds
        } else {
            0
        }
    }

    /// Whether a kong made now leaves a live tile to replace it: the wall
    /// holds more than the reserve with one more kong.
    fn kong_room(&self) -> bool {
        self.live_tiles() > usize::from(self.rules.wall_reserve.1)
    }

    fn emit(&mut self, e: Event) {
        if self.record {
            self.events.push(e);
        }
    }

    /// Every tile's whereabouts by kind: wall + hands + melds + pond (+ a
    /// robbed kong tile). Always 4 per kind in play; the soak test checks
    /// it after every step.
    pub fn tile_census(&self) -> Counts {
        let mut c = [0u8; KINDS];
        for t in self.wall.undrawn() {
            c[t.index()] += 1;
        }
        for h in &self.hands {
            for (k, n) in h.all_counts().iter().enumerate() {
                c[k] += n;
            }
        }
        for d in self.discards() {
            if !d.claimed {
                c[d.tile.index()] += 1;
            }
        }
        if let Some(t) = self.robbed {
            c[t.index()] += 1;
        }
        c
    }
}

#[cfg(test)]
mod tests;
