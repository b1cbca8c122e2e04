//! Answers to a discard or an added kong (docs/rules.md §3 "Claims and
//! priority"): who is asked, in which order, and what wins.
//!
//! Every seat with something to answer is asked once, in this order: the
//! seats that may win, in turn order from the discarder (就近截胡: the
//! nearest one first), then the one seat that may only pong or kong (four
//! copies exist, so at most one other seat can claim). A win ends the
//! asking at once in Shanxi and Linxian (one winner per hand); in Sichuan
//! every seat that may win is asked and all who win share the tile
//! (一炮多响). A pong or kong is held until everyone who may win has
//! declined, so a win always beats it. Declining a win (by passing or by
//! claiming instead) sets the 过胡 lock.

use std::ops::BitOr;

/// A set of claim options, and the pong-forfeits-kong marker.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Claim(pub u8);

impl Claim {
    /// Nothing.
    pub const NONE: Claim = Claim(0);
    /// May win on the tile.
    pub const WIN: Claim = Claim(1);
    /// May pong it.
    pub const PONG: Claim = Claim(2);
    /// May kong it (点杠).
    pub const KONG: Claim = Claim(4);
    /// A chosen pong that gives up the kong of the kind.
    pub const FORFEIT: Claim = Claim(8);

    /// Whether every option of `o` is in the set.
    #[inline]
    pub const fn has(self, o: Claim) -> bool {
        self.0 & o.0 == o.0 && o.0 != 0
    }

    /// Adds `o`.
    #[inline]
    pub fn insert(&mut self, o: Claim) {
        self.0 |= o.0;
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl BitOr for Claim {
    type Output = Claim;
    fn bitor(self, o: Claim) -> Claim {
        Claim(self.0 | o.0)
    }
}

/// The seats to ask, in order, and what they answered so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Queue {
    seats: [u8; 3],
    opts: [Claim; 3],
    len: u8,
    pos: u8,
    /// Seats that won, as a bit set.
    pub winners: u8,
    /// The pong or kong waiting for the winners to decline.
    pub pending: Option<(u8, Claim)>,
}

impl Queue {
    pub(crate) fn push(&mut self, seat: u8, o: Claim) {
        if (self.len as usize) < 3 {
            self.seats[self.len as usize] = seat;
            self.opts[self.len as usize] = o;
            self.len += 1;
        }
    }

    /// Whether everyone has answered.
    #[inline]
    pub fn done(&self) -> bool {
        self.pos >= self.len
    }

    /// The seat being asked and its options.
    #[inline]
    pub fn current(&self) -> (u8, Claim) {
        let i = (self.pos as usize).min(2);
        (self.seats[i], self.opts[i])
    }

    /// The seats still to be asked after the current one, with options.
    pub fn waiting(&self) -> impl Iterator<Item = (u8, Claim)> + '_ {
        (self.pos as usize + 1..self.len as usize).map(|i| (self.seats[i], self.opts[i]))
    }

    pub(crate) fn win(&mut self, seat: u8) {
        self.winners |= 1 << seat;
    }

    pub(crate) fn claim(&mut self, seat: u8, c: Claim) {
        self.pending = Some((seat, c));
    }

    pub(crate) fn advance(&mut self) {
        self.pos = self.pos.saturating_add(1);
    }

    pub(crate) fn finish(&mut self) {
        self.pos = self.len;
    }
}
