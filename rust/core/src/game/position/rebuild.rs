//! [`Game::from_observation`] and [`Game::hidden`]: a table rebuilt
//! from one seat's observation and a completion of what it hides, and
//! the true completion of a table.

use super::*;

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
        let PrivateLocks {
            pass_hand,
            pass_kinds,
            pass_turn,
            no_kong,
        } = self.private_locks();
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
        let in_play = crate::legal::kind_count(rules);
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
            locks: PrivateLocks {
                pass_hand: hidden.pass_hand,
                pass_kinds: hidden.pass_kinds,
                pass_turn: hidden.pass_turn,
                no_kong: hidden.no_kong,
            },
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
pub(super) fn declarable_ready(judge: &Judge, h: &Hand) -> bool {
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
