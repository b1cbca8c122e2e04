//! The table's derived tallies: what the [`Game`](super::Game) could
//! recompute from its hands, melds, discards and wall, but keeps in step
//! with them because an agent or the next legal mask reads it at every
//! decision (a walk over the melds or the discards cost each reader
//! about a hundred instructions a turn).
//!
//! The fields are private to this module: the table reports what
//! happened (`on_draw`, `on_discard`, `on_claim`, `on_meld`, ...) and
//! this module alone writes the tallies, so one place shows how each
//! stays in step with the state it is derived from. Each method is
//! inlined into the table's hot paths (the self-play instruction counts
//! are unchanged by the move).

use super::Discard;
use crate::game::judge::Judge;
use crate::hand::{Hand, Meld, MeldKind};
use crate::kind_sets::KindSets;
use crate::ruleset::{PassScope, Ruleset};
use crate::tile::{Counts, Tile, KINDS};

/// The ready bound of a seat without one (its first turn, after a kong,
/// a declared seat): at or below 0, so the turn computes it, and far
/// enough above `i8::MIN` that the carry's `- 1` at the discard cannot
/// overflow (a bound is at most 14).
pub(super) const NO_BOUND: i8 = -64;

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

#[inline]
fn bit(t: Tile) -> u64 {
    1u64 << t.index()
}

/// One seat's 过胡 locks: on the whole hand (`pass_scope = "hand"`), by
/// kind (`pass_scope = "tile"`, a bit per kind), and Sichuan's 过水 until
/// the seat's next draw. Which of them applies is the ruleset's
/// (`ting_required`, `pass_scope`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PassLocks {
    /// Locked on every discard for the rest of the hand.
    pub hand: bool,
    /// Locked on these kinds (bit `i` for kind index `i`).
    pub kinds: u64,
    /// Locked until the seat's next draw.
    pub turn: bool,
}

/// The seats' private table state no observation shows: each seat's 过胡
/// locks and the kong kinds it forfeited by choosing a pong (a bit per
/// kind). What [`Tallies::assembled`] takes and [`Tallies::locks`] gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PrivateLocks {
    /// 过胡 locks by hand, per seat.
    pub pass_hand: [bool; 4],
    /// 过胡 locks by kind, a bit per kind, per seat.
    pub pass_kinds: [u64; 4],
    /// Sichuan 过水 locks until the seat's next draw, per seat.
    pub pass_turn: [bool; 4],
    /// Kong kinds forfeited by choosing a pong, a bit per kind, per seat.
    pub no_kong: [u64; 4],
}

/// The tallies a table keeps in step with its state (see the module doc).
#[derive(Clone, Debug)]
pub(crate) struct Tallies {
    /// Each seat's concealed kind sets, kept in step with the hands.
    sets: [KindSets; 4],
    /// The face-up discards not claimed, by kind, kept with the discards
    /// and claims (agents read it every decision).
    pond: Counts,
    /// Each seat's kinds discarded face up by another seat since it
    /// declared ting (the tiles it let pass), kept with the discards.
    let_pass: [u64; 4],
    /// The tiles of every seat's melds that every seat sees, by kind,
    /// kept with the melds (for the agents, like `pond`).
    meld_counts: Counts,
    /// Each seat's kinds melded as a pong (not yet a kong), kept with its
    /// melds: the added-kong candidates are a few bit operations instead
    /// of a walk over the melds (whose count varies from seat to seat, a
    /// branch that was mispredicted about 24 times a hand).
    pongs: [u64; 4],
    /// Each seat's melded kinds (any meld), kept with its melds: with its
    /// held kinds, the suits it holds (Sichuan 缺一门) without a walk over
    /// the melds.
    meld_kinds: [u64; 4],
    /// The 过胡 locks: for the whole hand (`pass_scope = "hand"`), by
    /// kind (`"tile"`), until the seat's next draw (no ting).
    pass_hand: [bool; 4],
    pass_kinds: [u64; 4],
    pass_turn: [bool; 4],
    /// The kinds whose kong a seat forfeited by ponging instead.
    no_kong: [u64; 4],
    /// A lower bound of each seat's shanten carried from its last turn
    /// (see `Game::ting_possible`), and the bound of the turn at hand.
    ready_lb: [i8; 4],
    turn_lb: i8,
    /// Where ting is required (outside Sichuan), each declared seat's
    /// natural kinds it wins with on a discard or a robbed kong, and by
    /// self-draw ([`Judge::declared_wins`]), kept from its declaration
    /// and renewed at its kongs; read only for declared seats.
    win_on: [u64; 4],
    win_self: [u64; 4],
    /// The completing kinds of the hands kept by the turn's ting
    /// declarations (up to four of them, [`Judge::declarable_keeping`]):
    /// written when the turn's ting kinds are found, read when one of its
    /// `Ting` actions is played, in the same turn.
    ting_kept: [u64; 4],
    /// The live tiles (`Game::live_tiles`), kept with the draws and the
    /// kongs: each draw's exhaustion test is one load.
    live: u8,
    /// Some discard has been claimed.
    any_claim: bool,
    /// Sichuan: the seats whose held and melded kinds hold all three
    /// suits, as a 4-bit mask (0 in the other families). None of them may
    /// win on a discard (缺一门), so most discards need no per-seat test.
    /// A seat's kinds lose a suit only when it discards (a claim moves the
    /// kind into a meld), and every Sichuan discard renews the
    /// discarder's bit (every Sichuan discard is face up, of a natural
    /// tile, and answered through `Game::sichuan_responses`: the
    /// family has neither ting nor wild kinds), so a set bit is never
    /// stale.
    suited: u8,
    /// Each seat has discarded at least once.
    has_discarded: [bool; 4],
}

impl Tallies {
    /// The tallies of a hand just dealt: `hands` concealed, nothing
    /// melded nor discarded, `live` tiles to draw.
    #[inline]
    pub(super) fn dealt(hands: &[Hand; 4], live: u8) -> Tallies {
        Tallies {
            sets: hands.map(|h| KindSets::of(&h.concealed)),
            pond: [0; KINDS],
            let_pass: [0; 4],
            meld_counts: [0; KINDS],
            pongs: [0; 4],
            meld_kinds: [0; 4],
            pass_hand: [false; 4],
            pass_kinds: [0; 4],
            pass_turn: [false; 4],
            no_kong: [0; 4],
            ready_lb: [NO_BOUND; 4],
            turn_lb: NO_BOUND,
            win_on: [0; 4],
            win_self: [0; 4],
            ting_kept: [0; 4],
            live,
            any_claim: false,
            suited: 0,
            has_discarded: [false; 4],
        }
    }

    /// The tallies of a position given piece by piece (`Game::assemble`):
    /// derived from the hands, their melds and the discards, with the
    /// given 过胡 locks and forfeited kongs; no ready bounds nor kept
    /// waits yet (the caller renews the waits).
    pub(super) fn assembled(
        rules: &Ruleset,
        hands: &[Hand; 4],
        discards: &[Discard],
        locks: PrivateLocks,
        live: u8,
        any_claim: bool,
    ) -> Tallies {
        let mut t = Tallies::dealt(hands, live);
        let mut declared = [false; 4];
        for d in discards {
            let s = d.seat as usize & 3;
            t.has_discarded[s] = true;
            if d.face_down {
                declared[s] = true;
                continue;
            }
            if !d.claimed {
                t.pond[d.tile.index()] += 1;
            }
            for (o, m) in t.let_pass.iter_mut().enumerate() {
                if o != s && declared[o] {
                    *m |= bit(d.tile);
                }
            }
        }
        for (s, h) in hands.iter().enumerate() {
            for &m in h.melds() {
                let hidden = m.kind == MeldKind::ConcealedKong && rules.hide_concealed_kong;
                t.on_meld(s, m, hidden);
            }
        }
        PrivateLocks {
            pass_hand: t.pass_hand,
            pass_kinds: t.pass_kinds,
            pass_turn: t.pass_turn,
            no_kong: t.no_kong,
        } = locks;
        t.any_claim = any_claim;
        t
    }

    /// The 过胡 locks (by hand, by kind, until the next draw) and the
    /// forfeited kong kinds, for [`Tallies::assembled`].
    pub(super) fn locks(&self) -> PrivateLocks {
        PrivateLocks {
            pass_hand: self.pass_hand,
            pass_kinds: self.pass_kinds,
            pass_turn: self.pass_turn,
            no_kong: self.no_kong,
        }
    }

    // Reads.

    /// Seat `s`'s concealed kind sets.
    #[inline(always)]
    pub(super) fn sets(&self, s: usize) -> &KindSets {
        &self.sets[s]
    }

    /// The face-up discards not claimed, by kind.
    #[inline(always)]
    pub(super) fn pond(&self) -> &Counts {
        &self.pond
    }

    /// The visible meld tiles, by kind.
    #[inline(always)]
    pub(super) fn meld_counts(&self) -> &Counts {
        &self.meld_counts
    }

    /// Seat `s`'s kinds let pass since it declared.
    #[inline(always)]
    pub(super) fn let_pass(&self, s: usize) -> u64 {
        self.let_pass[s]
    }

    /// Seat `s`'s ponged kinds.
    #[inline(always)]
    pub(super) fn pongs(&self, s: usize) -> u64 {
        self.pongs[s]
    }

    /// Seat `s`'s melded kinds.
    #[inline(always)]
    pub(super) fn meld_kinds(&self, s: usize) -> u64 {
        self.meld_kinds[s]
    }

    /// Seat `s`'s 过胡 locks.
    #[inline(always)]
    pub(super) fn pass_locks(&self, s: usize) -> PassLocks {
        PassLocks {
            hand: self.pass_hand[s],
            kinds: self.pass_kinds[s],
            turn: self.pass_turn[s],
        }
    }

    /// Seat `s`'s forfeited kong kinds.
    #[inline(always)]
    pub(super) fn no_kong(&self, s: usize) -> u64 {
        self.no_kong[s]
    }

    /// Seat `s`'s carried ready bound.
    #[inline(always)]
    pub(super) fn ready_bound(&self, s: usize) -> i8 {
        self.ready_lb[s]
    }

    /// Seat `s`'s kept winning kinds: (on a discard, by self-draw).
    #[inline(always)]
    pub(super) fn wins(&self, s: usize) -> (u64, u64) {
        (self.win_on[s], self.win_self[s])
    }

    /// Seat `s`'s kept winning kinds on a discard.
    #[inline(always)]
    pub(super) fn win_on(&self, s: usize) -> u64 {
        self.win_on[s]
    }

    /// The completing kinds kept by the turn's ting declarations.
    #[inline(always)]
    pub(super) fn ting_kept(&self) -> &[u64; 4] {
        &self.ting_kept
    }

    /// The live tiles.
    #[inline(always)]
    pub(super) fn live(&self) -> u8 {
        self.live
    }

    /// Whether some discard has been claimed.
    #[inline(always)]
    pub(super) fn any_claim(&self) -> bool {
        self.any_claim
    }

    /// Sichuan: the seats holding all three suits (4-bit mask).
    #[inline(always)]
    pub(super) fn suited(&self) -> u8 {
        self.suited
    }

    /// Whether seat `s` has discarded.
    #[inline(always)]
    pub(super) fn has_discarded(&self, s: usize) -> bool {
        self.has_discarded[s]
    }

    // Mutations: the table reports each change of its state.

    /// Seat `s`'s concealed count of kind `k` went from `old` to `n`.
    #[inline]
    pub(super) fn on_count(&mut self, s: usize, k: usize, old: u8, n: u8) {
        self.sets[s].change(k, old, n);
    }

    /// Seat `s` gained one of kind `k`, of which it held `old`.
    #[inline]
    pub(super) fn on_gain(&mut self, s: usize, k: usize, old: u8) {
        self.sets[s].add_one(k, old);
    }

    /// Seat `s` gave up one of kind `k`, of which it held `old`.
    #[inline]
    pub(super) fn on_loss(&mut self, s: usize, k: usize, old: u8) {
        self.sets[s].remove_one(k, old);
    }

    /// Seat `s` draws a live tile: one fewer live, and its turn's 过胡
    /// lock (no ting) ends.
    #[inline(always)]
    pub(super) fn on_draw(&mut self, s: usize) {
        self.live -= 1;
        self.pass_turn[s] = false;
    }

    /// Seat `s` makes a kong: its hand changes shape (the ready bound
    /// is dropped) and one more replacement tile, `reserve_per_kong`, is
    /// reserved (the live count stays `remaining − reserve`, at least 0).
    #[inline]
    pub(super) fn on_kong(&mut self, s: usize, reserve_per_kong: u8) {
        self.ready_lb[s] = NO_BOUND;
        self.live = self.live.saturating_sub(reserve_per_kong);
    }

    /// An added kong of seat `s` is offered (it may be robbed): its hand
    /// changes shape.
    #[inline]
    pub(super) fn on_added_kong_offer(&mut self, s: usize) {
        self.ready_lb[s] = NO_BOUND;
    }

    /// The ready bound found for the turn at hand.
    #[inline(always)]
    pub(super) fn on_turn_bound(&mut self, lb: i8) {
        self.turn_lb = lb;
    }

    /// The ting kinds of seat `s`'s turn, keeping their completing kinds
    /// for [`Tallies::ting_kept`].
    #[inline(always)]
    pub(super) fn on_ting_kinds(&mut self, judge: &Judge, hand: &Hand, s: usize) -> u64 {
        judge.declarable_keeping(hand, &self.sets[s], &mut self.ting_kept)
    }

    /// Seat `s` discards `t` (face down: declaring ting); `ting` the
    /// declared seats before it (the discarder not yet among them).
    #[inline(always)]
    pub(super) fn on_discard(&mut self, s: usize, t: Tile, face_down: bool, ting: &[bool; 4]) {
        self.has_discarded[s] = true;
        // A discard lowers no shanten: the bound carries to its next turn.
        self.ready_lb[s] = self.turn_lb - 1;
        if !face_down {
            self.pond[t.index()] += 1;
            // Most discards come before anyone declares (one compare).
            if *ting != [false; 4] {
                self.let_pass_all(s, t, ting);
            }
        }
    }

    /// Every declared seat but the discarder `s` lets the face-up discard
    /// `t` pass (or wins on it, which ends the hand): the seats as a
    /// 4-bit mask, which picks their lanes from [`SEAT_LANES`] (two
    /// vector and-ors instead of a test per seat).
    #[inline]
    fn let_pass_all(&mut self, s: usize, t: Tile, ting: &[bool; 4]) {
        // The 0/1 bytes of `ting` gathered into bits 24-27 (the products
        // of the four bytes land on distinct bits: no carries).
        let bytes = u32::from_le_bytes(ting.map(u8::from));
        let declared = ((u64::from(bytes) * 0x0102_0408) >> 24) as usize & 0xf;
        let lanes = &SEAT_LANES[declared & !(1 << s)];
        for (m, &l) in self.let_pass.iter_mut().zip(lanes) {
            *m |= bit(t) & l;
        }
    }

    /// The last discard, `t`, is claimed: it leaves the pond.
    #[inline]
    pub(super) fn on_claim(&mut self, t: Tile) {
        self.pond[t.index()] -= 1;
        self.any_claim = true;
    }

    /// Seat `s` melds `meld` (`hidden`: a concealed kong the ruleset
    /// hides from the others).
    #[inline]
    pub(super) fn on_meld(&mut self, s: usize, meld: Meld, hidden: bool) {
        if !hidden {
            self.meld_counts[meld.tile.index()] += meld.kind.size();
        }
        self.meld_kinds[s] |= bit(meld.tile);
        if meld.kind == MeldKind::Pong {
            self.pongs[s] |= bit(meld.tile);
        }
    }

    /// Seat `s`'s meld of `t` of `old_size` tiles becomes `kind` (a pong
    /// made a kong, or an added kong robbed back to a pong).
    #[inline]
    pub(super) fn on_meld_kind(&mut self, s: usize, t: Tile, old_size: u8, kind: MeldKind) {
        let n = &mut self.meld_counts[t.index()];
        *n = *n - old_size + kind.size();
        if kind == MeldKind::Pong {
            self.pongs[s] |= bit(t);
        } else {
            self.pongs[s] &= !bit(t);
        }
    }

    /// Seat `s` ponged `t` holding the fourth, where a kong after a pong
    /// is forfeited.
    #[inline]
    pub(super) fn on_kong_forfeit(&mut self, s: usize, t: Tile) {
        self.no_kong[s] |= bit(t);
    }

    /// Seat `s` declined a win on `t` (过胡): its lock under `rules`.
    #[inline]
    pub(super) fn on_pass(&mut self, rules: &Ruleset, s: usize, t: Tile) {
        if !rules.ting_required {
            self.pass_turn[s] = true;
        } else {
            match rules.pass_scope {
                PassScope::Hand => self.pass_hand[s] = true,
                PassScope::Tile => self.pass_kinds[s] |= bit(t),
            }
        }
    }

    /// Seat `s`'s kept winning kinds (on a discard, by self-draw).
    #[inline]
    pub(super) fn on_wins(&mut self, s: usize, wins: (u64, u64)) {
        (self.win_on[s], self.win_self[s]) = wins;
    }

    /// Sichuan: the seats holding all three suits.
    #[inline]
    pub(super) fn on_suited(&mut self, mask: u8) {
        self.suited = mask;
    }
}
