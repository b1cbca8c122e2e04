//! A seat's own turn: the draw, its legal actions (win, discards, ting,
//! kongs), the discard and the kongs' bookkeeping.

use super::*;
use crate::tile::KindSet;

impl Game {
    /// `seat` draws (a replacement tile for a kong of kind
    /// `replacement`): its turn begins, and the tile and whether it was
    /// the last live one are returned; or the wall is exhausted and the
    /// hand is over (`None`).
    #[inline(always)]
    pub(super) fn draw(&mut self, seat: u8, replacement: Option<MeldKind>) -> Option<(Tile, bool)> {
        if self.tallies.live() == 0 {
            self.finish_other(EndKind::Exhausted, None);
            return None;
        }
        self.tallies.on_draw((seat & 3) as usize);
        let t = if replacement.is_some() && self.rules.kong_draw == KongDraw::Tail {
            self.wall.draw_back()
        } else {
            self.wall.draw_front()
        };
        // Seats are 0-3: the mask spares the index checks.
        let s = (seat & 3) as usize;
        self.add_one(s, t);
        self.emit(Event::Draw {
            seat,
            tile: t,
            replacement: replacement.is_some(),
        });
        let last_live = self.rules.family.keeps_last_tile() && self.tallies.live() == 0;
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
    pub(super) fn may_win_self(&self, s: usize, drawn: Option<Tile>, ting: bool) -> bool {
        if let Some(d) = drawn {
            if ting && self.keeps_wins() && !self.judge.is_wild(d) {
                let win = self.tallies.wins(s).1 & bit(d) != 0;
                debug_assert_eq!(
                    win,
                    self.judge
                        .may_win_self(&self.hands[s], self.tallies.sets(s), drawn, ting)
                );
                return win;
            }
        }
        self.judge
            .may_win_self(&self.hands[s], self.tallies.sets(s), drawn, ting)
    }

    pub(super) fn must_win(&self, seat: u8) -> bool {
        (self.rules.must_win && (self.ting[seat as usize] || !self.rules.ting_required))
            || self
                .rules
                .family
                .must_win_within()
                .is_some_and(|n| self.live_tiles() <= n)
    }

    /// Computes the legal actions of the turn (the phase's fields:
    /// `seat`, `drawn`, `last_live`, `after_claim`); returns an action to
    /// take automatically when the seat has no real choice.
    #[inline(always)]
    pub(super) fn turn_legal_of(
        &mut self,
        seat: u8,
        drawn: Option<Tile>,
        last_live: bool,
        after_claim: bool,
    ) -> Option<Action> {
        let s = (seat & 3) as usize;
        let ting = self.ting[s];
        let may_leave = self.rules.family.allows_leaving();
        self.to_act = seat;
        // Where ting is required, only a declared seat may win (the
        // judge's first test, here on the flag at hand: most turns stop
        // there); Sichuan 缺一门 from the kept kind sets first: most hands
        // hold every suit (the judge's own test walks the melds).
        let can_win = !after_claim
            && (!self.rules.ting_required || ting)
            && (!self.rules.family.needs_missing_suit() || self.lacks_a_suit(s, 0))
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
                    w0 |= self.tallies.sets(s).held();
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
        if may_leave {
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
    pub(super) fn ting_possible(&mut self, seat: u8, ting: bool) -> bool {
        let s = (seat & 3) as usize;
        if !self.rules.ting_required || ting {
            self.tallies.on_turn_bound(NO_BOUND);
            return false;
        }
        let carried = self.tallies.ready_bound(s);
        if carried > 0 {
            self.tallies.on_turn_bound(carried);
            return false;
        }
        let lb = self
            .judge
            .ready_bound_sets(&self.hands[s], self.tallies.sets(s));
        self.tallies.on_turn_bound(lb);
        lb <= 0
    }

    /// The kinds whose face-down discard declares ting (the seat may be
    /// ready).
    #[inline(never)]
    pub(super) fn ting_kinds(&mut self, seat: u8) -> u64 {
        let s = (seat & 3) as usize;
        self.tallies.on_ting_kinds(&self.judge, &self.hands[s], s)
    }

    /// The seat's kong actions on its turn, `drawn` the tile it drew.
    #[inline(always)]
    pub(super) fn turn_kongs(&self, seat: u8, drawn: Option<Tile>) -> ActionMask {
        let s = (seat & 3) as usize;
        // Kinds held 4 times (concealed kongs) and ponged kinds with the
        // 4th tile in hand (added kongs, unless forfeited): the usual hand
        // has neither, and one test skips the rest.
        let fours = self.tallies.sets(s).four();
        let added = self.tallies.pongs(s) & self.tallies.sets(s).held() & !self.tallies.no_kong(s);
        if fours | added == 0 {
            return ActionMask::EMPTY;
        }
        self.kong_choices(s, drawn, fours, added)
    }

    /// [`Game::turn_kongs`] with candidates: after ting only the drawn
    /// kind may be konged, and a kong needs a live tile to replace it.
    #[cold]
    #[inline(never)]
    pub(super) fn kong_choices(
        &self,
        s: usize,
        drawn: Option<Tile>,
        fours: u64,
        added: u64,
    ) -> ActionMask {
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
    pub(super) fn kong_actions(&self, s: usize, fours: u64, added: u64) -> ActionMask {
        let mut m = ActionMask::EMPTY;
        let hand = &self.hands[s];
        let ting = self.ting[s];
        // The hand one tile short before the kong, against which the
        // waits after it are judged.
        let before = |k: usize| {
            let mut b = *hand;
            b.concealed[k] -= 1;
            b
        };
        for t in KindSet(fours) {
            let k = t.index();
            let ok = !ting || {
                let mut after = *hand;
                after.concealed[k] = 0;
                let after = Judge::with_meld(&after, Meld::new(MeldKind::ConcealedKong, t));
                self.judge.ting_kong_allowed(&before(k), &after)
            };
            if ok {
                m.insert(Action::ConcealedKong(t));
            }
        }
        for t in KindSet(added) {
            let k = t.index();
            let ok = !ting || {
                let before = before(k);
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

    /// `seat` discards `t` on its turn, face up or (declaring ting) face
    /// down. (A constant `face_down`: the face-up discard, one of the
    /// table's most frequent moves, compiled without the declaration.)
    #[inline]
    pub(super) fn discard<const FACE_DOWN: bool>(&mut self, seat: u8, t: Tile) {
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
        self.tallies.on_discard(s, t, face_down, &self.ting);
        if face_down {
            self.ting[s] = true;
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

    /// Seat `s` has just declared ting (its hand 13-type): its kept
    /// winning kinds, where the table keeps them.
    #[inline(never)]
    pub(super) fn renew_wins(&mut self, s: usize) {
        if self.keeps_wins() {
            self.tallies
                .on_wins(s, self.judge.declared_wins(&self.hands[s]));
        }
    }

    /// Seat `s` has just declared ting discarding `t` face down: its kept
    /// winning kinds from the completing kinds [`Game::ting_kinds`] found
    /// for that discard this turn (the legal `Ting(t)` came from it), when
    /// it kept them, else as [`Game::renew_wins`] (debug builds compare).
    #[cold]
    #[inline(never)]
    pub(super) fn declare_wins(&mut self, s: usize, t: Tile) {
        if !self.keeps_wins() {
            return;
        }
        match kept_completing(self.tallies.ting_kept(), t.index()) {
            Some(c) => {
                let wins = self.judge.wins_of_completing(c);
                debug_assert_eq!(wins, self.judge.declared_wins(&self.hands[s]));
                self.tallies.on_wins(s, wins);
            }
            None => self.renew_wins(s),
        }
    }

    /// After a kong of seat `s` (its hand 13-type again): a declared
    /// seat's kept winning kinds follow its new concealed tiles.
    #[inline]
    pub(super) fn renew_wins_if_declared(&mut self, s: usize) {
        if self.ting[s] {
            self.renew_wins(s);
        }
    }

    /// Whether the table keeps the declared seats' winning kinds
    /// ([`Game::win_on`]): where ting is required, outside Sichuan (whose
    /// 缺一门 test is the judge's).
    #[inline(always)]
    pub(super) fn keeps_wins(&self) -> bool {
        self.rules.ting_required && !self.rules.family.needs_missing_suit()
    }

    pub(super) fn push_meld(&mut self, s: usize, meld: Meld, from: Option<u8>) {
        let i = self.hands[s].n_melds();
        if self.hands[s].push_meld(meld).is_ok() {
            let hidden = meld.kind == MeldKind::ConcealedKong && self.rules.hide_concealed_kong;
            self.tallies.on_meld(s, meld, hidden);
            self.meld_from[s][i] = from;
        }
    }

    pub(super) fn set_pong_kind(&mut self, s: usize, t: Tile, kind: MeldKind) {
        let i = self.hands[s].melds().iter().position(|m| {
            m.tile == t && m.kind != MeldKind::ConcealedKong && m.kind != MeldKind::ExposedKong
        });
        if let Some(i) = i {
            // A pong made a kong, or an added kong robbed back to a pong.
            let old = self.hands[s].melds()[i].kind.size();
            self.tallies.on_meld_kind(s, t, old, kind);
            self.hands[s].set_meld(i, Meld::new(kind, t));
        }
    }

    /// Linxian: a non-ting player's added kong that all three declared
    /// others wait on (and could win on a discard) draws the hand.
    pub(super) fn linxian_kong_draw(&self, konger: u8, t: Tile) -> bool {
        if !self.rules.family.all_waiting_kong_draws() || self.ting[konger as usize] {
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
}
