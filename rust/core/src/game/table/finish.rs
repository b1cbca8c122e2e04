//! Ending the hand: the result and its settlement.

use super::*;

impl Game {
    pub(super) fn base_result(&self, kind: EndKind) -> HandResult {
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

    pub(super) fn finish_win(
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
            && !self.tallies.any_claim()
            && if self_draw {
                // A seat's first ordinary draw is the only one before it
                // first discards: every other turn it draws on ends with a
                // discard, a kong (whose draws are replacements) or the end.
                replacement.is_none() && !self.tallies.has_discarded(s)
            } else {
                !robbed && from == Some(dealer) && self.n_discards == 1
            };
        self.finish(r);
    }

    pub(super) fn finish_win_multi(&mut self, winners: u8, tile: Tile, from: u8, robbed: bool) {
        let mut r = self.base_result(EndKind::Win);
        for s in 0..4u8 {
            r.winners[s as usize] = winners >> s & 1 == 1;
        }
        r.tile = Some(tile);
        r.from = Some(from);
        r.robbed_kong = robbed;
        r.earthly = !robbed
            && from == self.deal.dealer
            && !self.tallies.any_claim()
            && self.n_discards == 1;
        self.finish(r);
    }

    pub(super) fn finish_other(&mut self, kind: EndKind, leaver: Option<u8>) {
        let mut r = self.base_result(kind);
        r.leaver = leaver;
        self.finish(r);
    }

    pub(super) fn finish(&mut self, mut r: HandResult) {
        match crate::game::settle::settle(self, &r) {
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
}
