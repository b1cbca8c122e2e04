//! Stepping: [`Game::step`] checks an action against the legal mask and
//! plays it, then the table advances through the automatic moves
//! (draws, forced wins, the declared seats' only discard) to the next
//! real choice.

use super::*;

impl Game {
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
        self.moves += 1;
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
    pub(super) fn refusal(&self, action: Action) -> Error {
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
        if !self.rules.family.allows_leaving() {
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
        self.moves += 1;
        Ok(())
    }

    pub(super) fn why_illegal(&self, a: Action) -> String {
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
    pub(super) fn advance(&mut self) {
        self.advance_inline();
    }

    /// [`Game::advance`]'s body, inlined into [`Game::step`].
    #[inline(always)]
    pub(super) fn advance_inline(&mut self) {
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
                    self.set_count(s, t, 0);
                    self.push_meld(s, Meld::new(MeldKind::ConcealedKong, t), None);
                    self.renew_wins_if_declared(s);
                    self.count_kong(s);
                    self.record_kong(Kong::own(seat, t, KongKind::Concealed));
                    self.phase = Phase::Draw {
                        seat,
                        replacement: Some(MeldKind::ConcealedKong),
                    };
                }
                Action::AddedKong(t) => {
                    self.tallies.on_added_kong_offer(s);
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
                        if !self.rules.family.several_winners() {
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
}
