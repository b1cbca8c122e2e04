//! A table set to a position given piece by piece ([`super::super::position`]
//! checks the pieces): the tallies derived from them, then the legal
//! actions of the seat to act.

use super::PrivateLocks;
use super::*;
use crate::game::position::Assembly;

impl Game {
    /// A table set to a position given piece by piece
    /// ([`super::super::position`] checks the pieces, then calls this): the
    /// fields the table keeps in step with the hands, melds and discards
    /// are derived from them, then the legal actions of the seat to act.
    /// `queue: None` for a `Respond` phase opens the answers afresh and
    /// skips to `observer` (as if every seat asked before it passed).
    pub(crate) fn assemble(a: Assembly) -> Result<Game, Error> {
        let Assembly {
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
        let any_claim = meld_from.iter().flatten().any(Option::is_some);
        let mut kong_list = [Kong::own(0, Tile::M1, KongKind::Concealed); 16];
        let n_kong_list = kongs_made.len().min(16);
        kong_list[..n_kong_list].copy_from_slice(&kongs_made[..n_kong_list]);
        let reserve = rules.wall_reserve_after(kongs);
        let live = wall.remaining().saturating_sub(reserve) as u8;
        let tallies = Tallies::assembled(&rules, &hands, &discards[..n], locks, live, any_claim);
        let mut g = Game {
            judge: Judge::new(&rules, deal.wilds),
            rules,
            deal,
            seed,
            wall,
            hands,
            meld_from,
            discards,
            n_discards: n as u8,
            ting,
            kongs,
            tallies,
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
            moves: 0,
        };
        g.tallies.on_suited(g.suited_seats());
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
                g.tallies.on_wins(s, g.judge.declared_wins(&h));
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
    pub(crate) fn private_locks(&self) -> PrivateLocks {
        self.tallies.locks()
    }
}
