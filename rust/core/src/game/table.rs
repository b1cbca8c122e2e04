//! The table state machine: one hand of any ruleset, from the deal to the
//! settlement. See the [`crate::game`] module docs for the flow and the
//! decisions taken where docs/rules.md is silent.

use super::action::{Action, ActionMask};
use super::claims::{Claim, Queue};
use super::event::Event;
use super::judge::{kept_completing, misses_a_suit, Judge, KindSets};
use super::result::{EndKind, HandResult};
use super::wall::{Deal, Wall};
use crate::error::Error;
use crate::hand::{Hand, Meld, MeldKind};
use crate::ruleset::{Family, KongDraw, PassScope, Ruleset};
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
    /// Each seat's concealed kind sets, kept in step with `hands`.
    sets: [KindSets; 4],
    pub(crate) meld_from: [[Option<u8>; 4]; 4],
    pub(crate) discards: [Discard; MAX_DISCARDS],
    pub(crate) n_discards: u8,
    /// The face-up discards not claimed, by kind, kept with the discards
    /// and claims (agents read it every decision: a walk over the
    /// discards cost each of them about a hundred instructions a turn).
    pond: Counts,
    /// Each seat's kinds discarded face up by another seat since it
    /// declared ting (the tiles it let pass), kept with the discards.
    let_pass: [u64; 4],
    /// The tiles of every seat's melds that every seat sees, by kind,
    /// kept with the melds (for the agents, like `pond`).
    meld_counts: Counts,
    pub(crate) ting: [bool; 4],
    pass_hand: [bool; 4],
    pass_kinds: [u64; 4],
    pass_turn: [bool; 4],
    no_kong: [u64; 4],
    /// Each seat's kinds melded as a pong (not yet a kong), kept with its
    /// melds: the added-kong candidates are a few bit operations instead
    /// of a walk over the melds (whose count varies from seat to seat, a
    /// branch that was mispredicted about 24 times a hand).
    pongs: [u64; 4],
    /// Each seat's melded kinds (any meld), kept with its melds: with its
    /// held kinds, the suits it holds (Sichuan 缺一门) without a walk over
    /// the melds.
    meld_kinds: [u64; 4],
    ready_lb: [i8; 4],
    turn_lb: i8,
    /// Where ting is required (outside Sichuan), each declared seat's
    /// natural kinds it wins with on a discard or a robbed kong, and by
    /// self-draw ([`Judge::declared_wins`]), kept from its declaration
    /// and renewed at its kongs ([`Game::renew_wins`]); read only for
    /// declared seats.
    win_on: [u64; 4],
    win_self: [u64; 4],
    /// The completing kinds of the hands kept by the turn's ting
    /// declarations (up to four of them, [`Judge::declarable_keeping`]):
    /// written by [`Game::ting_kinds`], read when one of its `Ting`
    /// actions is played, in the same turn.
    ting_kept: [u64; 4],
    pub(crate) kongs: u8,
    /// The live tiles ([`Game::live_tiles`]), kept with the draws and the
    /// kongs: each draw's exhaustion test is one load.
    live: u8,
    any_claim: bool,
    /// Sichuan: the seats whose held and melded kinds hold all three
    /// suits, as a 4-bit mask (0 in the other families). None of them may
    /// win on a discard (缺一门), so most discards need no per-seat test.
    /// A seat's kinds lose a suit only when it discards (a claim moves the
    /// kind into a meld), and every Sichuan discard renews the
    /// discarder's bit (every Sichuan discard is face up, of a natural
    /// tile, and answered through [`Game::sichuan_responses`]: the
    /// family has neither ting nor wild kinds), so a set bit is never
    /// stale.
    suited: u8,
    has_discarded: [bool; 4],
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
}

/// `SEAT_LANES[m]`: all ones for the seats of the 4-bit mask `m`, zero
/// for the others.
const SEAT_LANES: [[u64; 4]; 16] = {
    let mut t = [[0u64; 4]; 16];
    let mut m = 0;
    while m < 16 {
        let mut o = 0;
        while o < 4 {
            if m >> o & 1 == 1 {
                t[m][o] = u64::MAX;
            }
            o += 1;
        }
        m += 1;
    }
    t
};

/// The ready bound of a seat without one (its first turn, after a kong,
/// a declared seat): at or below 0, so the turn computes it, and far
/// enough above `i8::MIN` that the carry's `- 1` at the discard cannot
/// overflow (a bound is at most 14).
const NO_BOUND: i8 = -64;

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
        let mut g = Game {
            rules: rules.clone(),
            judge: Judge::new(rules, deal.wilds),
            deal,
            seed,
            wall,
            hands,
            sets: hands.map(|h| KindSets::of(&h.concealed)),
            meld_from: [[None; 4]; 4],
            discards: [NO_DISCARD; MAX_DISCARDS],
            n_discards: 0,
            pond: [0; KINDS],
            let_pass: [0; 4],
            meld_counts: [0; KINDS],
            ting: [false; 4],
            pass_hand: [false; 4],
            pass_kinds: [0; 4],
            pass_turn: [false; 4],
            no_kong: [0; 4],
            pongs: [0; 4],
            meld_kinds: [0; 4],
            ready_lb: [NO_BOUND; 4],
            turn_lb: NO_BOUND,
            win_on: [0; 4],
            win_self: [0; 4],
            ting_kept: [0; 4],
            kongs: 0,
            live: wall
                .remaining()
                .saturating_sub(usize::from(rules.wall_reserve.0)) as u8,
            any_claim: false,
            suited: 0,
            has_discarded: [false; 4],
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
        };
        g.suited = g.suited_seats();
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
            sets,
            meld_from,
            discards,
            n_discards,
            pond,
            let_pass,
            meld_counts,
            ting,
            pass_hand,
            pass_kinds,
            pass_turn,
            no_kong,
            pongs,
            meld_kinds,
            ready_lb,
            turn_lb,
            win_on,
            win_self,
            ting_kept,
            kongs,
            live,
            any_claim,
            suited,
            has_discarded,
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
        *sets = new_hands.map(|h| KindSets::of(&h.concealed));
        *meld_from = [[None; 4]; 4];
        *discards = [NO_DISCARD; MAX_DISCARDS];
        *n_discards = 0;
        *pond = [0; KINDS];
        *let_pass = [0; 4];
        *meld_counts = [0; KINDS];
        *ting = [false; 4];
        *pass_hand = [false; 4];
        *pass_kinds = [0; 4];
        *pass_turn = [false; 4];
        *no_kong = [0; 4];
        *pongs = [0; 4];
        *meld_kinds = [0; 4];
        *ready_lb = [NO_BOUND; 4];
        *turn_lb = NO_BOUND;
        *win_on = [0; 4];
        *win_self = [0; 4];
        *ting_kept = [0; 4];
        *kongs = 0;
        *live = new_wall
            .remaining()
            .saturating_sub(usize::from(rules.wall_reserve.0)) as u8;
        *any_claim = false;
        *suited = 0;
        *has_discarded = [false; 4];
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
        self.suited = self.suited_seats();
        self.advance();
        Ok(())
    }

    /// A table set to a position given piece by piece
    /// ([`super::position`] checks the pieces, then calls this): the
    /// fields the table keeps in step with the hands, melds and discards
    /// are derived from them, then the legal actions of the seat to act.
    /// `queue: None` for a `Respond` phase opens the answers afresh and
    /// skips to `observer` (as if every seat asked before it passed).
    pub(crate) fn assemble(a: super::position::Assembly) -> Result<Game, Error> {
        let super::position::Assembly {
            rules,
            deal,
            seed,
            wall,
            hands,
            meld_from,
            discards: ds,
            ting,
            scores,
            kongs,
            kongs_made,
            locks,
            phase,
            queue,
            observer,
        } = a;
        let mut discards = [NO_DISCARD; MAX_DISCARDS];
        let n = ds.len().min(MAX_DISCARDS);
        discards[..n].copy_from_slice(&ds[..n]);
        let (mut pond, mut let_pass, mut meld_counts) = ([0u8; KINDS], [0u64; 4], [0u8; KINDS]);
        let mut declared = [false; 4];
        let mut has_discarded = [false; 4];
        for d in &discards[..n] {
            let s = d.seat as usize & 3;
            has_discarded[s] = true;
            if d.face_down {
                declared[s] = true;
                continue;
            }
            if !d.claimed {
                pond[d.tile.index()] += 1;
            }
            for (o, m) in let_pass.iter_mut().enumerate() {
                if o != s && declared[o] {
                    *m |= bit(d.tile);
                }
            }
        }
        let (mut pongs, mut meld_kinds) = ([0u64; 4], [0u64; 4]);
        for (s, h) in hands.iter().enumerate() {
            for m in h.melds() {
                if !(m.kind == MeldKind::ConcealedKong && rules.hide_concealed_kong) {
                    meld_counts[m.tile.index()] += m.kind.size();
                }
                meld_kinds[s] |= bit(m.tile);
                if m.kind == MeldKind::Pong {
                    pongs[s] |= bit(m.tile);
                }
            }
        }
        let any_claim = meld_from.iter().flatten().any(Option::is_some);
        let mut kong_list = [Kong::own(0, Tile::M1, KongKind::Concealed); 16];
        let n_kong_list = kongs_made.len().min(16);
        kong_list[..n_kong_list].copy_from_slice(&kongs_made[..n_kong_list]);
        let reserve = usize::from(rules.wall_reserve.0)
            + usize::from(rules.wall_reserve.1) * usize::from(kongs);
        let live = wall.remaining().saturating_sub(reserve) as u8;
        let (pass_hand, pass_kinds, pass_turn, no_kong) = locks;
        let mut g = Game {
            judge: Judge::new(&rules, deal.wilds),
            rules,
            deal,
            seed,
            wall,
            hands,
            sets: hands.map(|h| KindSets::of(&h.concealed)),
            meld_from,
            discards,
            n_discards: n as u8,
            pond,
            let_pass,
            meld_counts,
            ting,
            pass_hand,
            pass_kinds,
            pass_turn,
            no_kong,
            pongs,
            meld_kinds,
            ready_lb: [NO_BOUND; 4],
            turn_lb: NO_BOUND,
            win_on: [0; 4],
            win_self: [0; 4],
            ting_kept: [0; 4],
            kongs,
            live,
            any_claim,
            suited: 0,
            has_discarded,
            phase,
            queue: Queue::default(),
            to_act: observer,
            legal: ActionMask::EMPTY,
            result: None,
            scores,
            robbed: None,
            kong_list,
            n_kong_list: n_kong_list as u8,
            settlement: None,
            settle_error: None,
            record: true,
            events: Vec::new(),
        };
        g.suited = g.suited_seats();
        for s in 0..4 {
            if g.ting[s] && g.keeps_wins() {
                // The kept winning kinds are those of the 13 tiles: on the
                // seat's own turn, without the tile it drew.
                let mut h = g.hands[s];
                if let Phase::Turn {
                    seat,
                    drawn: Some(d),
                    ..
                } = g.phase
                {
                    if usize::from(seat) == s && h.concealed[d.index()] > 0 {
                        h.concealed[d.index()] -= 1;
                    }
                }
                (g.win_on[s], g.win_self[s]) = g.judge.declared_wins(&h);
            }
        }
        match g.phase {
            Phase::Turn {
                seat,
                drawn,
                last_live,
                after_claim,
                ..
            } => {
                g.to_act = seat;
                if let Some(auto) = g.turn_legal_of(seat, drawn, last_live, after_claim) {
                    g.apply(auto, true);
                }
            }
            Phase::Respond { from, tile, rob } => {
                match queue {
                    Some(q) => g.queue = q,
                    None => {
                        g.open_responses(from, tile, rob);
                        if !matches!(g.phase, Phase::Respond { .. }) {
                            return Err(Error::InvalidPosition(format!(
                                "seat {observer} cannot answer {tile}: nobody may claim it"
                            )));
                        }
                        while !g.queue.done() && g.queue.current().0 != observer {
                            g.queue.advance();
                        }
                        if g.queue.done() {
                            return Err(Error::InvalidPosition(format!(
                                "seat {observer} has nothing to answer to {tile}"
                            )));
                        }
                    }
                }
                if let Some(auto) = g.respond_legal() {
                    g.apply(auto, true);
                }
            }
            Phase::Over | Phase::Draw { .. } => {
                return Err(Error::InvalidPosition(
                    "a position is rebuilt only where a seat is to act".into(),
                ))
            }
        }
        Ok(g)
    }

    /// The seats' private table state no observation shows: the 过胡
    /// locks (by hand, by kind, until the next draw) and the kong kinds
    /// forfeited by a pong.
    pub(crate) fn private_locks(&self) -> super::position::Locks {
        (
            self.pass_hand,
            self.pass_kinds,
            self.pass_turn,
            self.no_kong,
        )
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
        &self.pond
    }

    /// The tiles of every seat's melds that every seat sees, by kind: all
    /// of them but the concealed kongs where the ruleset hides those
    /// (`hide_concealed_kong`).
    pub fn meld_counts(&self) -> &Counts {
        &self.meld_counts
    }

    /// The kinds discarded face up by the other seats since `seat`
    /// declared ting, as a bit mask by kind index (0 before it declares):
    /// the tiles it let pass. A declared seat that lets a tile pass
    /// either does not wait on it or may not win on it (过胡), so 包胡
    /// defence reads them as safe.
    pub fn let_pass(&self, seat: u8) -> u64 {
        self.let_pass[(seat & 3) as usize]
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
        self.sets[s].change(k, old, n);
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
        self.sets[s].add_one(k, old);
    }

    /// Seat `s` gives up one `t`, which it holds (a discard or an added
    /// kong).
    #[inline]
    fn remove_one(&mut self, s: usize, t: Tile) {
        let k = t.index();
        let old = self.hands[s].concealed[k];
        self.hands[s].concealed[k] = old - 1;
        self.sets[s].remove_one(k, old);
    }

    /// The recorded events (empty when recording is off).
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Tiles in the wall not reserved: what may still be drawn.
    pub fn live_tiles(&self) -> usize {
        let reserve = self.rules.wall_reserve.0 as usize
            + self.rules.wall_reserve.1 as usize * self.kongs as usize;
        debug_assert_eq!(
            usize::from(self.live),
            self.wall.remaining().saturating_sub(reserve)
        );
        usize::from(self.live)
    }

    /// A kong is made: one more replacement tile is reserved (the live
    /// count stays `remaining − reserve`, at least 0).
    fn count_kong(&mut self) {
        self.kongs += 1;
        self.live = self.live.saturating_sub(self.rules.wall_reserve.1);
        debug_assert_eq!(usize::from(self.live), self.live_tiles());
    }

    /// Whether `seat` may still win on a discard (no 过胡 lock; with
    /// `pass_scope = "tile"` only some kinds are locked, and this is true).
    pub fn may_win_discards(&self, seat: u8) -> bool {
        let s = (seat & 3) as usize;
        if self.rules.ting_required {
            !(self.rules.pass_scope == PassScope::Hand && self.pass_hand[s])
        } else {
            !self.pass_turn[s]
        }
    }

    /// The kinds `seat` may not win on a discard because of a
    /// `pass_scope = "tile"` 过胡 lock, as a bit mask by kind index; 0
    /// under the other pass scopes (see [`Game::may_win_discards`]).
    pub fn locked_kinds(&self, seat: u8) -> u64 {
        if self.rules.ting_required && self.rules.pass_scope == PassScope::Tile {
            self.pass_kinds[(seat & 3) as usize]
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

    /// Plays `action` for the seat to act. An illegal action returns
    /// [`Error::IllegalAction`] naming the reason and changes nothing.
    ///
    /// ```
    /// use koudian_core::game::{Action, Game};
    /// use koudian_core::Ruleset;
    /// let mut g = Game::new(&Ruleset::shanxi(), 1, None).unwrap();
    /// let log = g.log();
    /// assert!(g.step(Action::Pong).is_err()); // nothing to pong
    /// assert_eq!(g.log(), log);
    /// let first = g.legal_actions().iter().next().unwrap();
    /// g.step(first).unwrap();
    /// ```
    pub fn step(&mut self, action: Action) -> Result<(), Error> {
        self.step_inline(action)
    }

    /// [`Game::step`]'s body, inlined into the self-play loop
    /// ([`crate::simulate`]): a call of its own saved and restored six
    /// registers and returned its result through memory on every move.
    #[inline(always)]
    pub(crate) fn step_inline(&mut self, action: Action) -> Result<(), Error> {
        // A finished hand's mask is empty, so one test covers both
        // refusals; building the message stays out of the hot path.
        match action {
            // Most moves: Discard(t) is bit t of the mask's first word (a
            // tile's index is below 34), and a discard is legal only on a
            // turn: reached without the general test's dispatch on the
            // action, nor `apply`'s on the phase and the action.
            Action::Discard(t) if self.legal.0[0] >> (t.index() & 63) & 1 == 1 => {
                let seat = self.to_act;
                self.emit(Event::Act {
                    seat,
                    action,
                    auto: false,
                });
                self.discard::<false>(seat, t);
            }
            _ if !self.legal.contains(action) => return Err(self.refusal(action)),
            _ => self.apply(action, false),
        }
        // The advance inlined: every step ends here, and a call of its
        // own saved and restored six registers per step (about 1,200
        // instructions a hand of self-play), which `step` mostly saves
        // already.
        self.advance_inline();
        Ok(())
    }

    /// The error of a refused [`Game::step`].
    #[cold]
    #[inline(never)]
    fn refusal(&self, action: Action) -> Error {
        if self.is_over() {
            return Error::IllegalAction("the hand is over; no action is legal".into());
        }
        Error::IllegalAction(self.why_illegal(action))
    }

    /// [`Game::step`] by dense action index.
    pub fn step_index(&mut self, index: usize) -> Result<(), Error> {
        self.step(Action::from_index(index)?)
    }

    /// Linxian 逃跑: `seat` abandons the hand, at any moment.
    ///
    /// ```
    /// use koudian_core::game::{EndKind, Game};
    /// use koudian_core::Ruleset;
    /// let mut g = Game::new(&Ruleset::linxian(), 1, None).unwrap();
    /// g.leave(2).unwrap();
    /// assert_eq!(g.result().unwrap().kind, EndKind::Left);
    /// ```
    pub fn leave(&mut self, seat: u8) -> Result<(), Error> {
        if self.rules.family != Family::Linxian {
            return Err(Error::IllegalAction(
                "leaving (逃跑) exists only in the linxian family".into(),
            ));
        }
        if seat > 3 {
            return Err(Error::IllegalAction(format!(
                "seat {seat} does not exist (seats are 0-3)"
            )));
        }
        if self.is_over() {
            return Err(Error::IllegalAction("the hand is over".into()));
        }
        self.emit(Event::Act {
            seat,
            action: Action::Leave,
            auto: false,
        });
        self.finish_other(EndKind::Left, Some(seat));
        Ok(())
    }

    fn why_illegal(&self, a: Action) -> String {
        let seat = self.to_act;
        let what = match self.phase {
            Phase::Turn { .. } => "on its turn",
            Phase::Respond { rob: true, .. } => "answering an added kong",
            _ => "answering a discard",
        };
        let reason = match a {
            Action::Discard(_)
            | Action::Ting(_)
            | Action::ConcealedKong(_)
            | Action::AddedKong(_)
                if !matches!(self.phase, Phase::Turn { .. }) =>
            {
                "only the seat whose turn it is may discard or kong from its hand".to_string()
            }
            Action::Discard(t) | Action::Ting(t)
                if self.hands[seat as usize].concealed[t.index()] == 0 =>
            {
                format!("seat {seat} holds no {t}")
            }
            Action::Discard(t) if self.ting[seat as usize] => {
                format!("seat {seat} has declared ting and must discard the tile it drew, not {t}")
            }
            Action::Ting(_) if !self.rules.ting_required => {
                "this ruleset has no ting declaration".to_string()
            }
            Action::Ting(_) if self.ting[seat as usize] => {
                format!("seat {seat} has already declared ting")
            }
            Action::Ting(t) => format!(
                "discarding {t} does not leave a ready hand with a wait worth {}+ points",
                self.rules.ting_min_points
            ),
            Action::Pong if self.ting[seat as usize] => {
                "a player who has declared ting may not pong".to_string()
            }
            Action::Win => "the hand does not win here under this ruleset".to_string(),
            Action::Leave => "leaving (逃跑) exists only in the linxian family".to_string(),
            _ => "not among the legal actions".to_string(),
        };
        let legal: Vec<String> = self.legal.iter().map(|x| x.to_string()).collect();
        format!(
            "{a} is illegal for seat {seat} {what}: {reason} (legal: {})",
            legal.join(", ")
        )
    }

    /// Runs automatic steps until a seat has a real choice or the hand
    /// ends (the deal's path; [`Game::step`] inlines the same body).
    #[inline(never)]
    fn advance(&mut self) {
        self.advance_inline();
    }

    /// [`Game::advance`]'s body, inlined into [`Game::step`].
    #[inline(always)]
    fn advance_inline(&mut self) {
        loop {
            // The usual step first, tested alone (a branch on the phase,
            // not the jump over all of them): a draw, then that turn's
            // legal actions straight from the drawn tile, without going
            // round the loop to read back the phase just set.
            let phase = self.phase;
            let (seat, drawn, last_live, after_claim) =
                if let Phase::Draw { seat, replacement } = phase {
                    match self.draw(seat, replacement) {
                        Some((drawn, last_live)) => (seat, Some(drawn), last_live, false),
                        None => continue,
                    }
                } else {
                    match phase {
                        // Over (a draw is taken above).
                        Phase::Over | Phase::Draw { .. } => return,
                        Phase::Turn {
                            seat,
                            drawn,
                            last_live,
                            after_claim,
                            ..
                        } => (seat, drawn, last_live, after_claim),
                        Phase::Respond { .. } => {
                            if self.queue.done() {
                                self.resolve();
                            } else if let Some(auto) = self.respond_legal() {
                                self.apply(auto, true);
                            } else {
                                return;
                            }
                            continue;
                        }
                    }
                };
            if let Some(auto) = self.turn_legal_of(seat, drawn, last_live, after_claim) {
                self.apply(auto, true);
            } else {
                return;
            }
        }
    }

    /// `seat` draws (a replacement tile for a kong of kind
    /// `replacement`): its turn begins, and the tile and whether it was
    /// the last live one are returned; or the wall is exhausted and the
    /// hand is over (`None`).
    #[inline(always)]
    fn draw(&mut self, seat: u8, replacement: Option<MeldKind>) -> Option<(Tile, bool)> {
        if self.live == 0 {
            self.finish_other(EndKind::Exhausted, None);
            return None;
        }
        self.live -= 1;
        let t = if replacement.is_some() && self.rules.kong_draw == KongDraw::Tail {
            self.wall.draw_back()
        } else {
            self.wall.draw_front()
        };
        // Seats are 0-3: the mask spares the index checks.
        let s = (seat & 3) as usize;
        self.add_one(s, t);
        self.pass_turn[s] = false;
        self.emit(Event::Draw {
            seat,
            tile: t,
            replacement: replacement.is_some(),
        });
        let last_live = self.rules.family == Family::Linxian && self.live == 0;
        self.phase = Phase::Turn {
            seat,
            drawn: Some(t),
            replacement,
            last_live,
            after_claim: false,
        };
        Some((t, last_live))
    }

    /// [`Judge::may_win_self`] for seat `s`, `drawn` the tile it drew:
    /// where the table keeps the declared seats' winning kinds, a natural
    /// tile drawn by a declared seat is one bit (its hand is the kept
    /// 13 tiles plus the drawn one, see [`Game::win_on`]); a wild tile
    /// (worth the best of the waits) and the other cases ask the judge.
    #[inline(always)]
    fn may_win_self(&self, s: usize, drawn: Option<Tile>, ting: bool) -> bool {
        if let Some(d) = drawn {
            if ting && self.keeps_wins() && !self.judge.is_wild(d) {
                let win = self.win_self[s] & bit(d) != 0;
                debug_assert_eq!(
                    win,
                    self.judge
                        .may_win_self(&self.hands[s], &self.sets[s], drawn, ting)
                );
                return win;
            }
        }
        self.judge
            .may_win_self(&self.hands[s], &self.sets[s], drawn, ting)
    }

    fn must_win(&self, seat: u8) -> bool {
        (self.rules.must_win && (self.ting[seat as usize] || !self.rules.ting_required))
            || (self.rules.family == Family::Sichuan && self.live_tiles() <= 4)
    }

    /// Computes the legal actions of the turn (the phase's fields:
    /// `seat`, `drawn`, `last_live`, `after_claim`); returns an action to
    /// take automatically when the seat has no real choice.
    #[inline(always)]
    fn turn_legal_of(
        &mut self,
        seat: u8,
        drawn: Option<Tile>,
        last_live: bool,
        after_claim: bool,
    ) -> Option<Action> {
        let s = (seat & 3) as usize;
        let ting = self.ting[s];
        let linxian = self.rules.family == Family::Linxian;
        self.to_act = seat;
        // Where ting is required, only a declared seat may win (the
        // judge's first test, here on the flag at hand: most turns stop
        // there); Sichuan 缺一门 from the kept kind sets first: most hands
        // hold every suit (the judge's own test walks the melds).
        let can_win = !after_claim
            && (!self.rules.ting_required || ting)
            && (self.rules.family != Family::Sichuan || self.lacks_a_suit(s, 0))
            && self.may_win_self(s, drawn, ting);
        // The mask's three words as locals (a mask written through a
        // variable index lives in memory): Discard(t) is bit t of the
        // first word, Ting(t) bit 34 + t across the first two, Win, Pass
        // and Leave bits of the last.
        let last = |a: Action| 1u64 << (a.index() - 128);
        let (mut w0, mut w1, mut w2) = (0u64, 0u64, 0u64);
        if can_win {
            w2 |= last(Action::Win);
        }
        if last_live {
            w2 |= last(Action::Pass);
        } else {
            if !after_claim {
                let k = self.turn_kongs(seat, drawn);
                w0 |= k.0[0];
                w1 |= k.0[1];
                w2 |= k.0[2];
            }
            match (ting && !after_claim, drawn) {
                (true, Some(d)) => w0 |= bit(d),
                _ => {
                    // The held kinds as a bit set are the discards.
                    w0 |= self.sets[s].held();
                    if self.ting_possible(seat, ting) {
                        let kinds = self.ting_kinds(seat);
                        let first = Action::Ting(Tile::from_index_unchecked(0)).index();
                        w0 |= kinds << first;
                        w1 |= kinds >> (64 - first);
                    }
                }
            }
        }
        let only = ActionMask([w0, w1, w2]);
        if linxian {
            w2 |= last(Action::Leave);
        }
        self.legal = ActionMask([w0, w1, w2]);
        if can_win && self.must_win(seat) {
            return Some(Action::Win);
        }
        // A declared player's only move, or the Linxian last tile's pass,
        // is played by the table.
        if (ting || last_live) && only.len() == 1 {
            return only.nth(0);
        }
        None
    }

    /// Whether the seat to act might declare ting this turn. Declaring
    /// needs a hand ready after some discard (shanten ≤ 0). Shanten drops
    /// by at most one per turn (a discard never lowers it, a draw or a pong
    /// by at most one), so a bound carried from the seat's previous turn
    /// often answers without looking at the hand; a kong resets it.
    /// (`ting`: whether the seat has declared, which the turn has read.)
    #[inline(always)]
    fn ting_possible(&mut self, seat: u8, ting: bool) -> bool {
        let s = (seat & 3) as usize;
        if !self.rules.ting_required || ting {
            self.turn_lb = NO_BOUND;
            return false;
        }
        if self.ready_lb[s] > 0 {
            self.turn_lb = self.ready_lb[s];
            return false;
        }
        let lb = self.judge.ready_bound_sets(&self.hands[s], &self.sets[s]);
        self.turn_lb = lb;
        lb <= 0
    }

    /// The kinds whose face-down discard declares ting (the seat may be
    /// ready).
    #[inline(never)]
    fn ting_kinds(&mut self, seat: u8) -> u64 {
        let s = (seat & 3) as usize;
        self.judge
            .declarable_keeping(&self.hands[s], &self.sets[s], &mut self.ting_kept)
    }

    /// The seat's kong actions on its turn, `drawn` the tile it drew.
    #[inline(always)]
    fn turn_kongs(&self, seat: u8, drawn: Option<Tile>) -> ActionMask {
        let s = (seat & 3) as usize;
        // Kinds held 4 times (concealed kongs) and ponged kinds with the
        // 4th tile in hand (added kongs, unless forfeited): the usual hand
        // has neither, and one test skips the rest.
        let fours = self.sets[s].four();
        let added = self.pongs[s] & self.sets[s].held() & !self.no_kong[s];
        if fours | added == 0 {
            return ActionMask::EMPTY;
        }
        self.kong_choices(s, drawn, fours, added)
    }

    /// [`Game::turn_kongs`] with candidates: after ting only the drawn
    /// kind may be konged, and a kong needs a live tile to replace it.
    #[cold]
    #[inline(never)]
    fn kong_choices(&self, s: usize, drawn: Option<Tile>, fours: u64, added: u64) -> ActionMask {
        let allowed = if self.ting[s] {
            drawn.map_or(0, bit)
        } else {
            !0
        };
        let (fours, added) = (fours & allowed, added & allowed);
        if fours | added == 0 || !self.kong_room() {
            return ActionMask::EMPTY;
        }
        self.kong_actions(s, fours, added)
    }

    /// The kongs of seat `s` among the candidate kinds `fours` (held four
    /// times) and `added` (ponged, the fourth in hand): after ting, only
    /// those that keep the waits.
    #[inline(always)]
    fn kong_actions(&self, s: usize, fours: u64, added: u64) -> ActionMask {
        let mut m = ActionMask::EMPTY;
        let hand = &self.hands[s];
        let ting = self.ting[s];
        let mut rest = fours;
        while rest != 0 {
            let k = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let t = Tile::from_index_unchecked(k as u8);
            let ok = !ting || {
                let mut before = *hand;
                before.concealed[k] -= 1;
                let mut after = *hand;
                after.concealed[k] = 0;
                let after = Judge::with_meld(&after, Meld::new(MeldKind::ConcealedKong, t));
                self.judge.ting_kong_allowed(&before, &after)
            };
            if ok {
                m.insert(Action::ConcealedKong(t));
            }
        }
        let mut rest = added;
        while rest != 0 {
            let k = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let t = Tile::from_index_unchecked(k as u8);
            let ok = !ting || {
                let mut before = *hand;
                before.concealed[k] -= 1;
                let mut after = before;
                let pong = Meld::new(MeldKind::Pong, t);
                if let Some(i) = after.melds().iter().position(|m| *m == pong) {
                    after.set_meld(i, Meld::new(MeldKind::AddedKong, t));
                }
                self.judge.ting_kong_allowed(&before, &after)
            };
            if ok {
                m.insert(Action::AddedKong(t));
            }
        }
        m
    }

    /// [`Judge::may_win_on`] for seat `s` and `tile`; `KEPT` where the
    /// table keeps the declared seats' winning kinds ([`Game::keeps_wins`]):
    /// then one bit (a seat that has not declared may not win; a declared
    /// seat's 13 tiles are those the kept mask was made from, see
    /// [`Game::win_on`]).
    #[inline(always)]
    fn may_win_on<const KEPT: bool>(&self, s: usize, tile: Tile) -> bool {
        let plain = || {
            self.judge
                .may_win_on(&self.hands[s], &self.sets[s], tile, self.ting[s])
        };
        if KEPT {
            debug_assert!(self.keeps_wins());
            let win = self.ting[s] && self.win_on[s] & bit(tile) != 0;
            debug_assert_eq!(win, plain());
            win
        } else {
            plain()
        }
    }

    /// What `seat` may answer to `tile` from `from`: a [`Claim`] set.
    fn options(&self, seat: u8, tile: Tile, rob: bool) -> Claim {
        self.options_with::<false>(seat, tile, rob)
    }

    /// [`Game::options`]; `KEPT` (where [`Game::keeps_wins`]) reads the
    /// declared seats' kept winning kinds instead of asking the judge
    /// (the same answers).
    #[inline(always)]
    fn options_with<const KEPT: bool>(&self, seat: u8, tile: Tile, rob: bool) -> Claim {
        let s = seat as usize;
        let hand = &self.hands[s];
        let mut o = Claim::NONE;
        let n = hand.concealed[tile.index()];
        // The usual answer, decided without the judge: a seat that has not
        // declared may not win where ting is required, and holding fewer
        // than two of the tile it can neither pong nor kong.
        if self.rules.ting_required && !self.ting[s] && n < 2 {
            return o;
        }
        let locked = if self.rules.ting_required {
            match self.rules.pass_scope {
                PassScope::Hand => self.pass_hand[s],
                PassScope::Tile => self.pass_kinds[s] & bit(tile) != 0,
            }
        } else {
            self.pass_turn[s]
        };
        if !locked && self.may_win_on::<KEPT>(s, tile) {
            o.insert(Claim::WIN);
        }
        if rob {
            return o;
        }
        if !self.ting[s] && n >= 2 {
            o.insert(Claim::PONG);
        }
        if n == 3 && self.kong_room() {
            let ok = !self.ting[s] || {
                let mut after = *hand;
                after.concealed[tile.index()] = 0;
                let after = Judge::with_meld(&after, Meld::new(MeldKind::ExposedKong, tile));
                self.judge.ting_kong_allowed(hand, &after)
            };
            if ok {
                o.insert(Claim::KONG);
            }
        }
        o
    }

    /// Opens the answers to a face-up discard or an added kong.
    #[inline]
    fn open_responses(&mut self, from: u8, tile: Tile, rob: bool) {
        // The usual discard in the families with ting: nobody has declared,
        // so nobody may win on it (what `ask` would find, seat by seat,
        // with branches that follow the random hands). Nobody holding two
        // of it: nobody is asked (what resolving an empty queue would do).
        // Otherwise only one seat can: four copies exist and the discarder
        // held one; it may pong, or kong holding three.
        if self.rules.ting_required && !rob && self.ting == [false; 4] {
            // Whether another seat holds two: the four seats' sets at once.
            // The discarder may hold two itself (it held three), but then
            // the others hold at most one between them (four copies), so
            // its own bit is masked off without losing an answer.
            let two = |s: usize| self.sets[s].two();
            let others = (two(0) | two(1) | two(2) | two(3)) & !two(from as usize);
            if others & bit(tile) == 0 {
                self.phase = Phase::Draw {
                    seat: next(from),
                    replacement: None,
                };
                return;
            }
            let holds_two =
                |i: u8| (self.sets[((from + i) & 3) as usize].two() >> tile.index() & 1) as u8;
            let (a, b, c) = (holds_two(1), holds_two(2), holds_two(3));
            // Exactly one of a, b, c is set: the seat that is.
            debug_assert_eq!(a + b + c, 1);
            let seat = (from + a + 2 * b + 3 * c) & 3;
            let mut o = Claim::PONG;
            if self.hands[seat as usize].concealed[tile.index()] == 3 && self.kong_room() {
                o.insert(Claim::KONG);
            }
            let mut q = Queue::default();
            q.push(seat, o);
            self.queue = q;
            self.phase = Phase::Respond {
                from,
                tile,
                rob: false,
            };
            return;
        }
        // Sichuan: a seat may answer only holding two of the tile (pong,
        // kong) or, to win, missing a suit with the tile added (缺一门)
        // and not locked by a declined win; most random hands hold all
        // three suits, so most discards reach nobody (what `ask` would
        // find, seat by seat, at several times the cost).
        if self.rules.family == Family::Sichuan && !rob {
            self.sichuan_responses(from, tile);
            return;
        }
        if self.keeps_wins() && !rob {
            self.declared_responses(from, tile);
            return;
        }
        self.ask::<false>(from, tile, rob);
    }

    /// Opens the answers to a face-up discard where ting is required
    /// (outside Sichuan) and someone has declared: a seat may answer
    /// only holding two of the tile (pong, kong) or winning on it, which
    /// only a declared seat waiting on it may (its kept `win_on`, 0 for
    /// the others); most discards reach nobody (what `ask` would find,
    /// seat by seat).
    #[inline(never)]
    fn declared_responses(&mut self, from: u8, tile: Tile) {
        let b = bit(tile);
        let may = |i: u8| {
            let s = usize::from((from + i) & 3);
            self.sets[s].two() | self.win_on[s]
        };
        if (may(1) | may(2) | may(3)) & b == 0 {
            debug_assert!((1..4).all(|i| self.options((from + i) & 3, tile, false).is_empty()));
            self.phase = Phase::Draw {
                seat: next(from),
                replacement: None,
            };
        } else {
            self.ask::<true>(from, tile, false);
        }
    }

    /// Sichuan: [`Game::suited`]'s mask of the seats holding all three
    /// suits; 0 in the other families.
    fn suited_seats(&self) -> u8 {
        if self.rules.family != Family::Sichuan {
            return 0;
        }
        (0..4).fold(0, |m, s| m | u8::from(!self.lacks_a_suit(s, 0)) << s)
    }

    /// Opens the answers to a face-up Sichuan discard.
    #[inline(never)]
    fn sichuan_responses(&mut self, from: u8, tile: Tile) {
        // The discarder's suits after its discard (the only move that can
        // take a suit from a seat; drawing may give one back).
        let f = from & 3;
        let all = u8::from(!self.lacks_a_suit(usize::from(f), 0));
        self.suited = self.suited & !(1 << f) | all << f;
        debug_assert_eq!(self.suited & !self.suited_seats(), 0);
        if self.nobody_answers_kept(from, tile) {
            self.phase = Phase::Draw {
                seat: next(from),
                replacement: None,
            };
        } else {
            self.ask::<false>(from, tile, false);
        }
    }

    /// Whether seat `s`'s held and melded kinds, with `extra`, lack a
    /// suit (Sichuan 缺一门).
    #[inline(always)]
    fn lacks_a_suit(&self, s: usize, extra: u64) -> bool {
        misses_a_suit(self.sets[s].held() | self.meld_kinds[s] | extra)
    }

    /// Sichuan: whether no seat but `from` may answer its discard `tile`
    /// (every [`Game::options`] empty), from the kind sets alone: a
    /// necessary condition of each option is missing for every seat.
    #[inline]
    fn nobody_answers(&self, from: u8, tile: Tile) -> bool {
        let b = bit(tile);
        let mut any = 0;
        for i in 1..4 {
            let s = ((from + i) & 3) as usize;
            let may_win = self.lacks_a_suit(s, b) & !self.pass_turn[s];
            any |= u64::from(may_win) | self.sets[s].two() & b;
        }
        any == 0
    }

    /// [`Game::nobody_answers`] with the kept [`Game::suited`] mask: a
    /// seat holding all three suits cannot lack one with `tile` added, so
    /// only the others (in random play, rarely any) are tested.
    #[inline(always)]
    fn nobody_answers_kept(&self, from: u8, tile: Tile) -> bool {
        let b = bit(tile);
        let two = |i: u8| self.sets[usize::from((from + i) & 3)].two();
        let quiet = if (two(1) | two(2) | two(3)) & b != 0 {
            false
        } else {
            let mut rest = 0xF & !(1u8 << (from & 3)) & !self.suited;
            let mut any = false;
            while rest != 0 {
                let s = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                any |= self.lacks_a_suit(s, b) & !self.pass_turn[s];
            }
            !any
        };
        debug_assert_eq!(quiet, self.nobody_answers(from, tile));
        quiet
    }

    /// Builds the queue of seats to ask about `tile` (`KEPT`: see
    /// [`Game::options_with`]).
    #[inline(never)]
    fn ask<const KEPT: bool>(&mut self, from: u8, tile: Tile, rob: bool) {
        let mut q = Queue::default();
        // Winners first, in turn order from the discarder (就近截胡), then
        // the seat that can only pong or kong: one at most, as that takes
        // two of the tile, of which the discarder held one.
        let mut claimer = None;
        for i in 1..4 {
            let s = (from + i) & 3;
            let o = self.options_with::<KEPT>(s, tile, rob);
            if o.has(Claim::WIN) {
                q.push(s, o);
            } else if !o.is_empty() {
                debug_assert!(claimer.is_none());
                claimer = Some((s, o));
            }
        }
        if let Some((s, o)) = claimer {
            q.push(s, o);
        }
        if q.done() && !rob {
            // Nobody to ask: what resolving the empty queue does.
            self.phase = Phase::Draw {
                seat: next(from),
                replacement: None,
            };
            return;
        }
        self.queue = q;
        self.phase = Phase::Respond { from, tile, rob };
    }

    fn respond_legal(&mut self) -> Option<Action> {
        let (seat, o) = self.queue.current();
        self.to_act = seat;
        let mut m = ActionMask::EMPTY;
        if o.has(Claim::WIN) {
            m.insert(Action::Win);
        }
        if o.has(Claim::PONG) {
            m.insert(Action::Pong);
        }
        if o.has(Claim::KONG) {
            m.insert(Action::Kong);
        }
        m.insert(Action::Pass);
        if self.rules.family == Family::Linxian {
            m.insert(Action::Leave);
        }
        self.legal = m;
        if o.has(Claim::WIN) && self.must_win(seat) {
            return Some(Action::Win);
        }
        None
    }

    /// The declined-win lock (过胡).
    fn lock_pass(&mut self, seat: u8, tile: Tile) {
        let s = seat as usize;
        if !self.rules.ting_required {
            self.pass_turn[s] = true;
        } else {
            match self.rules.pass_scope {
                PassScope::Hand => self.pass_hand[s] = true,
                PassScope::Tile => self.pass_kinds[s] |= bit(tile),
            }
        }
    }

    pub(crate) fn apply(&mut self, action: Action, auto: bool) {
        let seat = self.to_act;
        let s = seat as usize;
        self.emit(Event::Act { seat, action, auto });
        match self.phase {
            Phase::Turn {
                drawn, replacement, ..
            } => match action {
                Action::Discard(t) => self.discard::<false>(seat, t),
                Action::Ting(t) => {
                    self.discard::<true>(seat, t);
                    self.declare_wins(s, t);
                }
                Action::ConcealedKong(t) => {
                    self.ready_lb[s] = NO_BOUND;
                    self.set_count(s, t, 0);
                    self.push_meld(s, Meld::new(MeldKind::ConcealedKong, t), None);
                    self.renew_wins_if_declared(s);
                    self.count_kong();
                    self.record_kong(Kong::own(seat, t, KongKind::Concealed));
                    self.phase = Phase::Draw {
                        seat,
                        replacement: Some(MeldKind::ConcealedKong),
                    };
                }
                Action::AddedKong(t) => {
                    self.ready_lb[s] = NO_BOUND;
                    self.remove_one(s, t);
                    self.set_pong_kind(s, t, MeldKind::AddedKong);
                    self.renew_wins_if_declared(s);
                    if self.linxian_kong_draw(seat, t) {
                        // The kong never happens: the tile goes back.
                        self.add_one(s, t);
                        self.set_pong_kind(s, t, MeldKind::Pong);
                        self.finish_other(EndKind::KongDraw, None);
                    } else {
                        self.open_responses(seat, t, true);
                    }
                }
                Action::Win => self.finish_win(seat, drawn, None, true, false, replacement),
                Action::Pass => self.finish_other(EndKind::Exhausted, None),
                Action::Leave => self.finish_other(EndKind::Left, Some(seat)),
                Action::Pong | Action::Kong => {}
            },
            Phase::Respond { tile, .. } => {
                let (_, o) = self.queue.current();
                match action {
                    Action::Win => {
                        self.queue.win(seat);
                        if self.rules.family != Family::Sichuan {
                            self.queue.finish();
                        }
                    }
                    Action::Pong | Action::Kong => {
                        if o.has(Claim::WIN) {
                            self.lock_pass(seat, tile);
                        }
                        if action == Action::Pong
                            && o.has(Claim::KONG)
                            && !self.rules.kong_after_pong
                        {
                            // Held for resolution; the forfeit is applied
                            // only if the pong happens.
                            self.queue.claim(seat, Claim::PONG | Claim::FORFEIT);
                        } else {
                            self.queue.claim(
                                seat,
                                if action == Action::Pong {
                                    Claim::PONG
                                } else {
                                    Claim::KONG
                                },
                            );
                        }
                    }
                    Action::Pass if o.has(Claim::WIN) => self.lock_pass(seat, tile),
                    Action::Leave => {
                        self.finish_other(EndKind::Left, Some(seat));
                        return;
                    }
                    _ => {}
                }
                self.queue.advance();
            }
            Phase::Over | Phase::Draw { .. } => {}
        }
    }

    /// `seat` discards `t` on its turn, face up or (declaring ting) face
    /// down. (A constant `face_down`: the face-up discard, one of the
    /// table's most frequent moves, compiled without the declaration.)
    #[inline]
    fn discard<const FACE_DOWN: bool>(&mut self, seat: u8, t: Tile) {
        let face_down = FACE_DOWN;
        let s = seat as usize;
        self.remove_one(s, t);
        self.discards[self.n_discards as usize] = Discard {
            seat,
            tile: t,
            face_down,
            claimed: false,
        };
        self.n_discards += 1;
        self.has_discarded[s] = true;
        self.ready_lb[s] = self.turn_lb - 1;
        if face_down {
            self.ting[s] = true;
        } else {
            self.pond[t.index()] += 1;
            // Most discards come before anyone declares (one compare).
            if self.ting != [false; 4] {
                self.let_pass_all(s, t);
            }
        }
        if face_down || self.judge.is_wild(t) {
            self.phase = Phase::Draw {
                seat: next(seat),
                replacement: None,
            };
        } else {
            self.open_responses(seat, t, false);
        }
    }

    /// Every declared seat but the discarder `s` lets the face-up discard
    /// `t` pass (or wins on it, which ends the hand): the seats as a
    /// 4-bit mask, which picks their lanes from [`SEAT_LANES`] (two
    /// vector and-ors instead of a test per seat).
    #[inline]
    fn let_pass_all(&mut self, s: usize, t: Tile) {
        // The 0/1 bytes of `ting` gathered into bits 24-27 (the products
        // of the four bytes land on distinct bits: no carries).
        let bytes = u32::from_le_bytes(self.ting.map(u8::from));
        let declared = ((u64::from(bytes) * 0x0102_0408) >> 24) as usize & 0xf;
        let lanes = &SEAT_LANES[declared & !(1 << s)];
        for (m, &l) in self.let_pass.iter_mut().zip(lanes) {
            *m |= bit(t) & l;
        }
    }

    /// Seat `s` has just declared ting (its hand 13-type): its kept
    /// winning kinds, where the table keeps them.
    #[inline(never)]
    fn renew_wins(&mut self, s: usize) {
        if self.keeps_wins() {
            (self.win_on[s], self.win_self[s]) = self.judge.declared_wins(&self.hands[s]);
        }
    }

    /// Seat `s` has just declared ting discarding `t` face down: its kept
    /// winning kinds from the completing kinds [`Game::ting_kinds`] found
    /// for that discard this turn (the legal `Ting(t)` came from it), when
    /// it kept them, else as [`Game::renew_wins`] (debug builds compare).
    #[cold]
    #[inline(never)]
    fn declare_wins(&mut self, s: usize, t: Tile) {
        if !self.keeps_wins() {
            return;
        }
        match kept_completing(&self.ting_kept, t.index()) {
            Some(c) => {
                let wins = self.judge.wins_of_completing(c);
                debug_assert_eq!(wins, self.judge.declared_wins(&self.hands[s]));
                (self.win_on[s], self.win_self[s]) = wins;
            }
            None => self.renew_wins(s),
        }
    }

    /// After a kong of seat `s` (its hand 13-type again): a declared
    /// seat's kept winning kinds follow its new concealed tiles.
    #[inline]
    fn renew_wins_if_declared(&mut self, s: usize) {
        if self.ting[s] {
            self.renew_wins(s);
        }
    }

    /// Whether the table keeps the declared seats' winning kinds
    /// ([`Game::win_on`]): where ting is required, outside Sichuan (whose
    /// 缺一门 test is the judge's).
    #[inline(always)]
    fn keeps_wins(&self) -> bool {
        self.rules.ting_required && self.rules.family != Family::Sichuan
    }

    fn push_meld(&mut self, s: usize, meld: Meld, from: Option<u8>) {
        let i = self.hands[s].n_melds();
        if self.hands[s].push_meld(meld).is_ok() {
            if !(meld.kind == MeldKind::ConcealedKong && self.rules.hide_concealed_kong) {
                self.meld_counts[meld.tile.index()] += meld.kind.size();
            }
            self.meld_from[s][i] = from;
            self.meld_kinds[s] |= bit(meld.tile);
            if meld.kind == MeldKind::Pong {
                self.pongs[s] |= bit(meld.tile);
            }
        }
    }

    fn set_pong_kind(&mut self, s: usize, t: Tile, kind: MeldKind) {
        let i = self.hands[s].melds().iter().position(|m| {
            m.tile == t && m.kind != MeldKind::ConcealedKong && m.kind != MeldKind::ExposedKong
        });
        if let Some(i) = i {
            // A pong made a kong, or an added kong robbed back to a pong.
            let old = self.hands[s].melds()[i].kind.size();
            let n = &mut self.meld_counts[t.index()];
            *n = *n - old + kind.size();
            self.hands[s].set_meld(i, Meld::new(kind, t));
            if kind == MeldKind::Pong {
                self.pongs[s] |= bit(t);
            } else {
                self.pongs[s] &= !bit(t);
            }
        }
    }

    /// Linxian: a non-ting player's added kong that all three declared
    /// others wait on (and could win on a discard) draws the hand.
    fn linxian_kong_draw(&self, konger: u8, t: Tile) -> bool {
        if self.rules.family != Family::Linxian || self.ting[konger as usize] {
            return false;
        }
        let (_, min_discard) = self.rules.point_rule.minimums();
        if t.points() < min_discard {
            return false;
        }
        (1..4).all(|i| {
            let s = ((konger + i) & 3) as usize;
            self.ting[s] && self.judge.waits(&self.hands[s]).mask() & bit(t) != 0
        })
    }

    fn resolve(&mut self) {
        let Phase::Respond { from, tile, rob } = self.phase else {
            return;
        };
        if self.queue.winners != 0 {
            let winners = self.queue.winners;
            if rob {
                self.set_pong_kind(from as usize, tile, MeldKind::Pong);
                self.robbed = Some(tile);
            }
            self.finish_win_multi(winners, tile, from, rob);
            return;
        }
        if let Some((seat, claim)) = self.queue.pending {
            let s = seat as usize;
            self.discards[self.n_discards as usize - 1].claimed = true;
            self.pond[tile.index()] -= 1;
            self.any_claim = true;
            if claim.has(Claim::KONG) {
                self.ready_lb[s] = NO_BOUND;
                self.add_count(s, tile, -3);
                self.push_meld(s, Meld::new(MeldKind::ExposedKong, tile), Some(from));
                self.renew_wins_if_declared(s);
                self.count_kong();
                self.record_kong(Kong::exposed(seat, tile, from, self.ting[from as usize]));
                self.phase = Phase::Draw {
                    seat,
                    replacement: Some(MeldKind::ExposedKong),
                };
            } else {
                self.add_count(s, tile, -2);
                self.push_meld(s, Meld::new(MeldKind::Pong, tile), Some(from));
                if claim.has(Claim::FORFEIT) {
                    self.no_kong[s] |= bit(tile);
                }
                self.phase = Phase::Turn {
                    seat,
                    drawn: None,
                    replacement: None,
                    last_live: false,
                    after_claim: true,
                };
            }
            return;
        }
        if rob {
            self.count_kong();
            self.record_kong(Kong::own(from, tile, KongKind::Added));
            self.phase = Phase::Draw {
                seat: from,
                replacement: Some(MeldKind::AddedKong),
            };
        } else {
            self.phase = Phase::Draw {
                seat: next(from),
                replacement: None,
            };
        }
    }

    fn base_result(&self, kind: EndKind) -> HandResult {
        HandResult {
            kind,
            winners: [false; 4],
            tile: None,
            from: None,
            self_draw: false,
            robbed_kong: false,
            replacement: None,
            heavenly: false,
            earthly: false,
            leaver: None,
            ting: self.ting,
            dealer: self.deal.dealer,
            any_kong: self.kongs > 0,
            deltas: [0; 4],
        }
    }

    fn finish_win(
        &mut self,
        seat: u8,
        tile: Option<Tile>,
        from: Option<u8>,
        self_draw: bool,
        robbed: bool,
        replacement: Option<MeldKind>,
    ) {
        let s = seat as usize;
        let dealer = self.deal.dealer;
        let mut r = self.base_result(EndKind::Win);
        r.winners[s] = true;
        r.tile = tile;
        r.from = from;
        r.self_draw = self_draw;
        r.robbed_kong = robbed;
        r.replacement = replacement;
        r.heavenly = self_draw && seat == dealer && tile.is_none();
        r.earthly = seat != dealer
            && !self.any_claim
            && if self_draw {
                // A seat's first ordinary draw is the only one before it
                // first discards: every other turn it draws on ends with a
                // discard, a kong (whose draws are replacements) or the end.
                replacement.is_none() && !self.has_discarded[s]
            } else {
                !robbed && from == Some(dealer) && self.n_discards == 1
            };
        self.finish(r);
    }

    fn finish_win_multi(&mut self, winners: u8, tile: Tile, from: u8, robbed: bool) {
        let mut r = self.base_result(EndKind::Win);
        for s in 0..4u8 {
            r.winners[s as usize] = winners >> s & 1 == 1;
        }
        r.tile = Some(tile);
        r.from = Some(from);
        r.robbed_kong = robbed;
        r.earthly = !robbed && from == self.deal.dealer && !self.any_claim && self.n_discards == 1;
        self.finish(r);
    }

    fn finish_other(&mut self, kind: EndKind, leaver: Option<u8>) {
        let mut r = self.base_result(kind);
        r.leaver = leaver;
        self.finish(r);
    }

    fn finish(&mut self, mut r: HandResult) {
        match super::settle::settle(self, &r) {
            Ok(s) => {
                r.deltas = s.deltas;
                self.settlement = Some(s);
            }
            Err(e) => self.settle_error = Some(e),
        }
        self.result = Some(r);
        self.phase = Phase::Over;
        self.legal = ActionMask::EMPTY;
        self.emit(Event::End(r));
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
mod tests {
    use super::*;

    /// A legal action that claims or kongs whenever it may (so that melds
    /// happen often), else a random one other than leaving.
    fn meld_seeking_pick(g: &Game, next: &mut impl FnMut() -> u64) -> Action {
        let mut legal: Vec<Action> = g.legal_actions().iter().collect();
        if legal.len() > 1 {
            legal.retain(|&a| a != Action::Leave);
        }
        let claim = legal.iter().copied().find(|a| {
            matches!(
                a,
                Action::Pong | Action::Kong | Action::ConcealedKong(_) | Action::AddedKong(_)
            )
        });
        claim.unwrap_or_else(|| legal[(next() % legal.len() as u64) as usize])
    }

    /// A table redealt after a finished hand is the table `Game::new`
    /// deals for the same seed (every field, through `Debug`), and plays
    /// the same hand.
    #[test]
    fn redeal_equals_a_new_game() {
        let presets = crate::testing::presets();
        for rules in &presets {
            let mut g = Game::new(rules, 0, None).unwrap();
            for seed in 1..200u64 {
                // Play with the first non-leaving legal action, so that
                // claims and kongs happen, then redeal.
                while !g.is_over() {
                    let a = g
                        .legal_actions()
                        .iter()
                        .find(|&a| a != Action::Leave)
                        .unwrap();
                    g.step(a).unwrap();
                }
                let dealer = (seed % 5 < 4).then_some((seed % 4) as u8);
                g.redeal(seed, dealer).unwrap();
                let mut fresh = Game::new(rules, seed, dealer).unwrap();
                assert_eq!(format!("{g:?}"), format!("{fresh:?}"), "seed {seed}");
                let mut other = g.clone();
                while !other.is_over() {
                    let a = other.legal_actions().iter().last().unwrap();
                    other.step(a).unwrap();
                    fresh.step(a).unwrap();
                }
                assert_eq!(other.log(), fresh.log());
            }
        }
    }

    /// 地胡 by self-draw is a non-dealer's win on its first ordinary draw,
    /// before any discard of its own and any claim: the table reads it
    /// off "has not discarded yet" (its only ordinary draw before a first
    /// discard is the first). Checked on an arranged hand, then against
    /// the draws counted in the log on every self-drawn win of many
    /// random hands.
    #[test]
    fn earthly_self_draw_is_a_first_draw_before_any_discard() {
        let rules = Ruleset::sichuan();
        let deal = Deal::arranged(
            &rules,
            [
                "123456789p12345s",
                "1112223334445m",
                "666777888p9996s",
                "66677788899m12s",
            ],
            "5m",
            "",
            0,
            None,
        )
        .unwrap();
        let mut g = Game::from_deal(&rules, deal).unwrap();
        g.step(Action::Discard(Tile::new(17).unwrap())).unwrap();
        assert!(g.legal_actions().contains(Action::Win), "{:?}", g.phase());
        g.step(Action::Win).unwrap();
        let r = *g.result().unwrap();
        assert!(r.self_draw && r.winners[1] && r.earthly, "{r:?}");

        let mut next = crate::testing::xorshift(0x5DEE_CE66_D1CE_4E5B);
        let (mut wins, mut earthly) = (0, 0);
        for rules in &crate::testing::presets() {
            for seed in 0..6000 {
                let mut g = Game::new(rules, seed, None).unwrap();
                while !g.is_over() {
                    g.step(meld_seeking_pick(&g, &mut next)).unwrap();
                }
                let r = *g.result().unwrap();
                if !(r.kind == EndKind::Win && r.self_draw) {
                    continue;
                }
                let w = r.winners.iter().position(|&x| x).unwrap() as u8;
                let mut draws = 0;
                let mut discarded = false;
                for e in g.events() {
                    match *e {
                        Event::Draw {
                            seat,
                            replacement: false,
                            ..
                        } if seat == w => draws += 1,
                        Event::Act {
                            seat,
                            action: Action::Discard(_) | Action::Ting(_),
                            ..
                        } if seat == w => discarded = true,
                        _ => {}
                    }
                }
                let plain = w != r.dealer
                    && !g.any_claim
                    && r.replacement.is_none()
                    && draws == 1
                    && !discarded;
                assert_eq!(r.earthly, plain, "{r:?}");
                wins += 1;
                earthly += usize::from(plain);
            }
        }
        assert!(wins > 300, "{wins} {earthly}");
    }

    /// `step`'s one-bit test of a discard accepts exactly the discards of
    /// the legal mask, in every phase (turns, answers, the finished hand),
    /// and what it accepts plays as `apply` would.
    #[test]
    fn step_accepts_exactly_the_legal_discards() {
        for rules in &crate::testing::presets() {
            for seed in 0..10 {
                let mut g = Game::new(rules, seed, None).unwrap();
                for i in 0usize.. {
                    for t in Tile::all() {
                        let a = Action::Discard(t);
                        let mut h = g.clone();
                        assert_eq!(h.step(a).is_ok(), g.legal_actions().contains(a), "{a}");
                        if g.legal_actions().contains(a) {
                            let mut plain = g.clone();
                            plain.apply(a, false);
                            plain.advance();
                            assert_eq!(format!("{h:?}"), format!("{plain:?}"));
                        }
                    }
                    let legal: Vec<Action> = g
                        .legal_actions()
                        .iter()
                        .filter(|&a| a != Action::Leave)
                        .collect();
                    if legal.is_empty() {
                        break;
                    }
                    g.step(legal[i * 7 % legal.len()]).unwrap();
                }
                assert!(g.is_over());
            }
        }
    }

    /// Sichuan's shortcut for a discard nobody may answer agrees with the
    /// seat-by-seat options: whenever it says nobody, every other seat's
    /// options are empty, on every tile at every step of many hands
    /// (melds, kongs and declined wins included); and it does say so on
    /// most discards, while some other discards do have answers.
    #[test]
    fn sichuan_nobody_answers_only_when_no_seat_has_an_option() {
        let rules = Ruleset::sichuan();
        let mut next = crate::testing::xorshift(0x2545_F491_4F6C_DD1D);
        let (mut nobody, mut answered) = (0usize, 0usize);
        for seed in 0..300 {
            let mut g = Game::new(&rules, seed, None).unwrap();
            while !g.is_over() {
                if let Phase::Turn { seat: from, .. } = g.phase {
                    for t in Tile::all().take(27) {
                        let quiet = g.nobody_answers(from, t);
                        let any = (1..4).any(|i| !g.options((from + i) & 3, t, false).is_empty());
                        assert!(!(quiet && any), "seed {seed}: {t} from seat {from}");
                        nobody += usize::from(quiet);
                        answered += usize::from(any);
                    }
                }
                g.step(meld_seeking_pick(&g, &mut next)).unwrap();
            }
        }
        assert!(nobody > 100_000 && answered > 10_000, "{nobody} {answered}");
    }

    /// The pond, the let-pass masks and the meld counts kept with the
    /// discards, claims and melds equal a fresh count over the discard
    /// list and the melds after every step of many hands of every preset
    /// (claims and kongs made whenever possible).
    #[test]
    fn pond_and_let_pass_stay_in_step_with_the_discards() {
        let mut next = crate::testing::xorshift(0x2545_F491_4F6C_DD1D);
        let (mut claimed, mut passed, mut kongs) = (0, 0, 0);
        for rules in &crate::testing::presets() {
            for seed in 0..200 {
                let mut g = Game::new(rules, seed, None).unwrap();
                loop {
                    let mut pond = [0u8; KINDS];
                    for d in g.discards().iter().filter(|d| !d.face_down && !d.claimed) {
                        pond[d.tile.index()] += 1;
                    }
                    assert_eq!(g.pond(), &pond);
                    let mut melded = [0u8; KINDS];
                    for h in &g.hands {
                        for m in h.melds() {
                            if !(m.kind == MeldKind::ConcealedKong && rules.hide_concealed_kong) {
                                melded[m.tile.index()] += m.kind.size();
                            }
                        }
                    }
                    assert_eq!(g.meld_counts(), &melded);
                    kongs += melded.iter().filter(|&&n| n == 4).count();
                    claimed += g.discards().iter().filter(|d| d.claimed).count();
                    for o in 0..4u8 {
                        let all = g.discards();
                        let mut m = 0;
                        let mut declared = false;
                        for d in all {
                            if d.face_down && d.seat == o {
                                declared = true;
                            } else if declared && !d.face_down && d.seat != o {
                                m |= bit(d.tile);
                            }
                        }
                        assert_eq!(g.let_pass(o), m, "seat {o}");
                        passed += usize::from(m != 0);
                    }
                    if g.is_over() {
                        break;
                    }
                    let a = meld_seeking_pick(&g, &mut next);
                    g.step(a).unwrap();
                }
            }
        }
        assert!(
            claimed > 1_000 && passed > 1_000 && kongs > 1_000,
            "{claimed} {passed} {kongs}"
        );
    }

    /// The kind sets kept in step by every count change equal the sets
    /// recomputed from the hands, after every step of many random hands
    /// (kongs, pongs, robbed kongs and the Linxian kong draw included).
    #[test]
    fn kind_sets_stay_in_step_with_the_hands() {
        let presets = crate::testing::presets();
        let mut next = crate::testing::xorshift(0x9E37_79B9_7F4A_7C15);
        // Turns on which some discard declares ting, so that the
        // comparison below is not only over empty sets.
        let mut declaring = 0;
        for rules in &presets {
            for seed in 0..300 {
                let mut g = Game::new(rules, seed, None).unwrap();
                while !g.is_over() {
                    // Sichuan's kept mask of the seats holding every suit
                    // never holds a seat that lacks one.
                    assert_eq!(g.suited & !g.suited_seats(), 0, "{:?}", g.phase);
                    for s in 0..4 {
                        assert_eq!(g.sets[s], KindSets::of(&g.hands[s].concealed));
                        let pongs = g.hands[s]
                            .melds()
                            .iter()
                            .filter(|m| m.kind == MeldKind::Pong)
                            .fold(0, |p, m| p | bit(m.tile));
                        assert_eq!(g.pongs[s], pongs);
                        let melded = g.hands[s].melds().iter().fold(0, |k, m| k | bit(m.tile));
                        assert_eq!(g.meld_kinds[s], melded);
                        // 缺一门 from the kept sets, against the hand's
                        // kinds counted afresh, with and without a tile.
                        for extra in [0, 1 << (seed % 34)] {
                            let kinds = Tile::all()
                                .filter(|t| g.hands[s].all_counts()[t.index()] > 0)
                                .fold(extra, |k, t| k | bit(t));
                            let lacks = (0..3).any(|suit| kinds >> (9 * suit) & 0x1FF == 0);
                            assert_eq!(g.lacks_a_suit(s, extra), lacks);
                        }
                    }
                    if let (Phase::Turn { seat, .. }, true) = (g.phase, seed < 40) {
                        // The judge's unchecked ting question agrees with
                        // the checked one on every kind of the table's hands.
                        let hand = g.hands[seat as usize];
                        let mut kinds = 0u64;
                        for t in Tile::all() {
                            if g.judge.can_declare(&hand, t) {
                                kinds |= bit(t);
                            }
                        }
                        assert_eq!(
                            g.judge.declarable(&hand, &g.sets[seat as usize]),
                            kinds,
                            "{hand:?}"
                        );
                        declaring += usize::from(kinds != 0);
                        for t in Tile::all() {
                            assert_eq!(
                                g.judge.can_declare(&hand, t),
                                crate::ting::can_declare_ting(&hand, t, &g.judge.wilds, rules)
                                    .unwrap_or(false),
                                "{hand:?} {t}"
                            );
                        }
                    }
                    g.step(meld_seeking_pick(&g, &mut next)).unwrap();
                }
                for s in 0..4 {
                    assert_eq!(g.sets[s], KindSets::of(&g.hands[s].concealed));
                }
            }
        }
        assert!(declaring > 20, "only {declaring} turns could declare ting");
    }

    /// The declared seats' kept winning kinds equal the judge's from
    /// their hands after every step of many hands whose players declare
    /// ting whenever they may (and claim and kong whenever they may, so
    /// that declared seats hold melds and kong too); debug builds also compare every
    /// answer read from them with the judge's own.
    #[test]
    fn kept_winning_kinds_follow_the_declared_hands() {
        let mut next = crate::testing::xorshift(0x2545_F491_4F6C_DD1D);
        let (mut declared, mut melded) = (0, 0);
        for rules in crate::testing::presets() {
            for seed in 0..300 {
                let mut g = Game::new(&rules, seed, None).unwrap();
                while !g.is_over() {
                    for s in 0..4 {
                        let h = &g.hands[s];
                        let size = h.concealed.iter().map(|&n| usize::from(n)).sum::<usize>()
                            + 3 * h.n_melds();
                        if g.ting[s] && g.keeps_wins() && size == 13 {
                            let wins = g.judge.declared_wins(h);
                            assert_eq!((g.win_on[s], g.win_self[s]), wins, "{h:?}");
                            declared += 1;
                            melded += usize::from(h.n_melds() > 0);
                        } else if !g.ting[s] {
                            assert_eq!(g.win_on[s], 0);
                        }
                    }
                    let ting = g
                        .legal_actions()
                        .iter()
                        .find(|a| matches!(a, Action::Ting(_) | Action::Win));
                    let a = ting.unwrap_or_else(|| meld_seeking_pick(&g, &mut next));
                    g.step(a).unwrap();
                }
            }
        }
        assert!(declared > 1000 && melded > 10, "{declared} {melded}");
    }
}
