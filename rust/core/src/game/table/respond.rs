//! The answers to a face-up discard or an added kong: who may win, pong
//! or kong, the queue of seats asked, the 过胡 locks and the resolution.

use super::*;

impl Game {
    /// [`Judge::may_win_on`] for seat `s` and `tile`; `KEPT` where the
    /// table keeps the declared seats' winning kinds ([`Game::keeps_wins`]):
    /// then one bit (a seat that has not declared may not win; a declared
    /// seat's 13 tiles are those the kept mask was made from, see
    /// [`Game::win_on`]).
    #[inline(always)]
    pub(super) fn may_win_on<const KEPT: bool>(&self, s: usize, tile: Tile) -> bool {
        let plain = || {
            self.judge
                .may_win_on(&self.hands[s], self.tallies.sets(s), tile, self.ting[s])
        };
        if KEPT {
            debug_assert!(self.keeps_wins());
            let win = self.ting[s] && self.tallies.win_on(s) & bit(tile) != 0;
            debug_assert_eq!(win, plain());
            win
        } else {
            plain()
        }
    }

    /// What `seat` may answer to `tile` from `from`: a [`Claim`] set.
    pub(super) fn options(&self, seat: u8, tile: Tile, rob: bool) -> Claim {
        self.options_with::<false>(seat, tile, rob)
    }

    /// [`Game::options`]; `KEPT` (where [`Game::keeps_wins`]) reads the
    /// declared seats' kept winning kinds instead of asking the judge
    /// (the same answers).
    #[inline(always)]
    pub(super) fn options_with<const KEPT: bool>(&self, seat: u8, tile: Tile, rob: bool) -> Claim {
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
        let locks = self.tallies.pass_locks(s);
        let locked = if self.rules.ting_required {
            match self.rules.pass_scope {
                PassScope::Hand => locks.hand,
                PassScope::Tile => locks.kinds & bit(tile) != 0,
            }
        } else {
            locks.turn
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
    pub(super) fn open_responses(&mut self, from: u8, tile: Tile, rob: bool) {
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
            let two = |s: usize| self.tallies.sets(s).two();
            let others = (two(0) | two(1) | two(2) | two(3)) & !two(from as usize);
            if others & bit(tile) == 0 {
                self.phase = Phase::Draw {
                    seat: next(from),
                    replacement: None,
                };
                return;
            }
            let holds_two = |i: u8| {
                (self.tallies.sets(((from + i) & 3) as usize).two() >> tile.index() & 1) as u8
            };
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
        if self.rules.family.needs_missing_suit() && !rob {
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
    pub(super) fn declared_responses(&mut self, from: u8, tile: Tile) {
        let b = bit(tile);
        let may = |i: u8| {
            let s = usize::from((from + i) & 3);
            self.tallies.sets(s).two() | self.tallies.win_on(s)
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
    pub(super) fn suited_seats(&self) -> u8 {
        if !self.rules.family.needs_missing_suit() {
            return 0;
        }
        (0..4).fold(0, |m, s| m | u8::from(!self.lacks_a_suit(s, 0)) << s)
    }

    /// Opens the answers to a face-up Sichuan discard.
    #[inline(never)]
    pub(super) fn sichuan_responses(&mut self, from: u8, tile: Tile) {
        // The discarder's suits after its discard (the only move that can
        // take a suit from a seat; drawing may give one back).
        let f = from & 3;
        let all = u8::from(!self.lacks_a_suit(usize::from(f), 0));
        let suited = self.tallies.suited() & !(1 << f) | all << f;
        self.tallies.on_suited(suited);
        debug_assert_eq!(suited & !self.suited_seats(), 0);
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
    pub(super) fn lacks_a_suit(&self, s: usize, extra: u64) -> bool {
        misses_a_suit(self.tallies.sets(s).held() | self.tallies.meld_kinds(s) | extra)
    }

    /// Sichuan: whether no seat but `from` may answer its discard `tile`
    /// (every [`Game::options`] empty), from the kind sets alone: a
    /// necessary condition of each option is missing for every seat.
    #[inline]
    pub(super) fn nobody_answers(&self, from: u8, tile: Tile) -> bool {
        let b = bit(tile);
        let mut any = 0;
        for i in 1..4 {
            let s = ((from + i) & 3) as usize;
            let may_win = self.lacks_a_suit(s, b) & !self.tallies.pass_locks(s).turn;
            any |= u64::from(may_win) | self.tallies.sets(s).two() & b;
        }
        any == 0
    }

    /// [`Game::nobody_answers`] with the kept [`Game::suited`] mask: a
    /// seat holding all three suits cannot lack one with `tile` added, so
    /// only the others (in random play, rarely any) are tested.
    #[inline(always)]
    pub(super) fn nobody_answers_kept(&self, from: u8, tile: Tile) -> bool {
        let b = bit(tile);
        let two = |i: u8| self.tallies.sets(usize::from((from + i) & 3)).two();
        let quiet = if (two(1) | two(2) | two(3)) & b != 0 {
            false
        } else {
            let mut rest = 0xF & !(1u8 << (from & 3)) & !self.tallies.suited();
            let mut any = false;
            while rest != 0 {
                let s = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                any |= self.lacks_a_suit(s, b) & !self.tallies.pass_locks(s).turn;
            }
            !any
        };
        debug_assert_eq!(quiet, self.nobody_answers(from, tile));
        quiet
    }

    /// Builds the queue of seats to ask about `tile` (`KEPT`: see
    /// [`Game::options_with`]).
    #[inline(never)]
    pub(super) fn ask<const KEPT: bool>(&mut self, from: u8, tile: Tile, rob: bool) {
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

    pub(super) fn respond_legal(&mut self) -> Option<Action> {
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
        if self.rules.family.allows_leaving() {
            m.insert(Action::Leave);
        }
        self.legal = m;
        if o.has(Claim::WIN) && self.must_win(seat) {
            return Some(Action::Win);
        }
        None
    }

    /// The declined-win lock (过胡).
    pub(super) fn lock_pass(&mut self, seat: u8, tile: Tile) {
        self.tallies.on_pass(&self.rules, seat as usize, tile);
    }

    pub(super) fn resolve(&mut self) {
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
            self.tallies.on_claim(tile);
            if claim.has(Claim::KONG) {
                self.add_count(s, tile, -3);
                self.push_meld(s, Meld::new(MeldKind::ExposedKong, tile), Some(from));
                self.renew_wins_if_declared(s);
                self.count_kong(s);
                self.record_kong(Kong::exposed(seat, tile, from, self.ting[from as usize]));
                self.phase = Phase::Draw {
                    seat,
                    replacement: Some(MeldKind::ExposedKong),
                };
            } else {
                self.add_count(s, tile, -2);
                self.push_meld(s, Meld::new(MeldKind::Pong, tile), Some(from));
                if claim.has(Claim::FORFEIT) {
                    self.tallies.on_kong_forfeit(s, tile);
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
            self.count_kong(from as usize);
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
}
