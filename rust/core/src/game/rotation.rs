//! Who deals next (`dealer_rotation`, docs/rules.md §3-§5) and matches of
//! several hands with running totals.
//!
//! Decisions: after a player leaves (逃跑) the deal passes to the
//! dealer's 下家. A Linxian match of four rounds (四圈) ends when the deal
//! has moved on 16 seats; a deal that jumps (rotation `winner`) counts the
//! seats it moves over.

use super::result::{EndKind, HandResult};
use super::table::Game;
use super::wall::mix_seed;
use crate::error::Error;
use crate::ruleset::{DealerRotation, Ruleset};

/// The dealer of the next hand.
///
/// ```
/// use koudian_core::game::{next_dealer, Game};
/// use koudian_core::ruleset::DealerRotation;
/// let mut g = Game::new(&koudian_core::Ruleset::shanxi(), 5, Some(2)).unwrap();
/// while let Some(a) = g.legal_actions().iter().next() { g.step(a).unwrap(); }
/// let r = g.result().unwrap();
/// let d = next_dealer(DealerRotation::Winner, r);
/// assert!(d < 4);
/// ```
pub fn next_dealer(rotation: DealerRotation, r: &HandResult) -> u8 {
    let dealer = r.dealer;
    let pass = (dealer + 1) & 3;
    let winners: Vec<u8> = r.winner_seats().collect();
    match r.kind {
        EndKind::Left => pass,
        EndKind::Win => match rotation {
            DealerRotation::Winner => winners[0],
            DealerRotation::Round | DealerRotation::Next => {
                if winners.contains(&dealer) {
                    dealer
                } else {
                    pass
                }
            }
            DealerRotation::Sichuan => {
                if winners.len() > 1 {
                    r.from.unwrap_or(dealer)
                } else {
                    winners[0]
                }
            }
        },
        EndKind::Exhausted | EndKind::KongDraw => match rotation {
            DealerRotation::Winner | DealerRotation::Next => pass,
            DealerRotation::Round => {
                if r.any_kong {
                    pass
                } else {
                    dealer
                }
            }
            DealerRotation::Sichuan => dealer,
        },
    }
}

/// How long a match lasts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatchLength {
    /// A fixed number of hands.
    Hands(u32),
    /// Full rounds (圈): the deal moves on 4 seats per round.
    Rounds(u32),
}

/// A match: hands dealt one after another with the ruleset's dealer
/// rotation and running totals. The caller plays each [`Game`] (with any
/// agents) and hands it back with [`Match::record`].
///
/// ```
/// use koudian_core::game::{Match, MatchLength};
/// use koudian_core::Ruleset;
/// let mut m = Match::new(&Ruleset::linxian(), 9, MatchLength::Hands(3)).unwrap();
/// while let Some(mut g) = m.next_game().unwrap() {
///     while let Some(a) = g.legal_actions().iter().find(|a| a.name() != "leave") {
///         g.step(a).unwrap();
///     }
///     m.record(&g).unwrap();
/// }
/// assert_eq!(m.hands_played(), 3);
/// assert_eq!(m.totals().iter().sum::<i64>(), 0);
/// ```
#[derive(Clone, Debug)]
pub struct Match {
    rules: Ruleset,
    seed: u64,
    length: MatchLength,
    dealer: Option<u8>,
    totals: [i64; 4],
    hands: u32,
    moves: u32,
    results: Vec<HandResult>,
    /// The last hand recorded ([`fingerprint`]).
    last: Option<u64>,
    /// The seed [`Match::next_game_from`] dealt the next hand from, with
    /// that hand's index.
    dealt: Option<(u32, u64)>,
}

/// A finished game's wall, seed, dealer and result, hashed: the same
/// game recorded twice has the same print.
fn fingerprint(g: &Game, r: &HandResult) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (g.seed(), g.dealer(), r, g.deal.wall.tiles()).hash(&mut h);
    h.finish()
}

impl Match {
    /// A match from `seed`; the first dealer is seat 0, or the dice's
    /// choice when the ruleset rolls dice.
    pub fn new(rules: &Ruleset, seed: u64, length: MatchLength) -> Result<Match, Error> {
        rules.validate()?;
        Ok(Match {
            rules: rules.clone(),
            seed,
            length,
            dealer: None,
            totals: [0; 4],
            hands: 0,
            moves: 0,
            results: Vec::new(),
            last: None,
            dealt: None,
        })
    }

    /// Whether the match is over.
    pub fn is_over(&self) -> bool {
        match self.length {
            MatchLength::Hands(n) => self.hands >= n,
            MatchLength::Rounds(r) => self.moves >= 4 * r,
        }
    }

    /// The seed of hand `i` of the match.
    pub fn hand_seed(&self, i: u32) -> u64 {
        mix_seed(self.seed, u64::from(i))
    }

    /// The next hand to play (with the running totals set), or `None` when
    /// the match is over.
    pub fn next_game(&self) -> Result<Option<Game>, Error> {
        if self.is_over() {
            return Ok(None);
        }
        let mut g = Game::new(&self.rules, self.hand_seed(self.hands), self.dealer)?;
        g.set_scores(self.totals);
        Ok(Some(g))
    }

    /// The next hand dealt from `seed` instead of [`Match::hand_seed`]
    /// (running totals and dealer as [`Match::next_game`]); [`Match::record`]
    /// then accepts it as the next hand. For a server whose hand seeds
    /// must not give each other away: `hand_seed` is invertible (one
    /// hand's seed gives the match seed and so every later hand), so such
    /// a server derives each hand's seed with a key of its own and deals
    /// it here.
    pub fn next_game_from(&mut self, seed: u64) -> Result<Option<Game>, Error> {
        if self.is_over() {
            return Ok(None);
        }
        let mut g = Game::new(&self.rules, seed, self.dealer)?;
        g.set_scores(self.totals);
        self.dealt = Some((self.hands, seed));
        Ok(Some(g))
    }

    /// Records a finished hand: totals, hand count, next dealer. Refused
    /// (the match unchanged) for a hand that is not over, that is not this
    /// match's next hand (the hand [`Match::next_game`] deals, by its seed,
    /// or a prepared wall, [`Deal::arranged`](super::Deal::arranged), for
    /// tests and puzzles; either with the match's ruleset and next dealer),
    /// that was just recorded, whose settlement failed, or whose deltas
    /// would overflow the totals.
    pub fn record(&mut self, g: &Game) -> Result<(), Error> {
        let r = g.result().ok_or_else(|| {
            Error::IllegalAction("the hand is not over; finish it before recording".into())
        })?;
        if self.is_over() {
            return Err(Error::IllegalAction("the match is over".into()));
        }
        let ours = g
            .seed()
            .is_none_or(|s| s == self.hand_seed(self.hands) || self.dealt == Some((self.hands, s)))
            && *g.rules() == self.rules
            && self.dealer.is_none_or(|d| d == g.dealer());
        // A dealt hand recorded again no longer has the next hand's seed;
        // a prepared one is compared with the last hand recorded.
        let print = fingerprint(g, r);
        if !ours || self.last == Some(print) {
            return Err(Error::IllegalAction(format!(
                "this game is not hand {} of the match (record each hand of next_game once)",
                self.hands
            )));
        }
        if let Some(e) = g.settlement_error() {
            return Err(e.clone());
        }
        let mut totals = self.totals;
        for (t, d) in totals.iter_mut().zip(r.deltas) {
            *t = t.checked_add(d).ok_or_else(|| {
                Error::InvalidArgument("the match totals would overflow a 64-bit integer".into())
            })?;
        }
        self.totals = totals;
        self.last = Some(print);
        let next = next_dealer(self.rules.dealer_rotation, r);
        self.moves += u32::from((next + 4 - r.dealer) & 3);
        self.dealer = Some(next);
        self.hands += 1;
        self.results.push(*r);
        Ok(())
    }

    /// Running totals.
    pub fn totals(&self) -> [i64; 4] {
        self.totals
    }

    /// Hands played.
    pub fn hands_played(&self) -> u32 {
        self.hands
    }

    /// The results of the hands played, in order.
    pub fn results(&self) -> &[HandResult] {
        &self.results
    }

    /// The dealer of the next hand (`None` before the first: seat 0 or
    /// the dice).
    pub fn dealer(&self) -> Option<u8> {
        self.dealer
    }
}
