//! The greedy policy as a ranking of every legal action
//! ([`GreedyAgent::rank`]): the policy's choice first, then its choice
//! with that action taken away, and so on, each with the numbers the
//! policy compared to choose it ([`Note`]). So the ranking is the policy
//! itself (no second copy of its rules): a discard ranks after another
//! exactly when the policy prefers the other, a declined pong after the
//! pass. The actions the policy never picks (leaving the table, a kong
//! it would not take with nothing else left) follow in index order,
//! leaving last.

use super::*;
use crate::agent::RankedAction;

impl GreedyAgent {
    /// Every legal action of the view's seat, best first, with the numbers
    /// the policy compared (`shanten`, `improving` live tiles where
    /// counted, `wait_value` of a ting discard, `danger` under a 包胡
    /// threat); empty when the seat is not to act. The first action is the
    /// one [`Agent::act`] plays.
    ///
    /// ```
    /// use koudian_core::agent::{Agent, GreedyAgent, SeatView};
    /// use koudian_core::game::Game;
    /// use koudian_core::Ruleset;
    /// let g = Game::new(&Ruleset::sichuan(), 9, None).unwrap();
    /// let view = SeatView::new(&g, g.to_act().unwrap());
    /// let mut agent = GreedyAgent::new(0);
    /// let ranked = agent.rank(&view);
    /// assert_eq!(ranked[0].action, agent.act(&view));
    /// assert!(ranked[0].number("shanten").is_some());
    /// ```
    pub fn rank(&mut self, view: &SeatView<'_>) -> Vec<RankedAction> {
        let mut left = view.legal();
        let mut out = Vec::with_capacity(left.len());
        while !left.is_empty() {
            let mut ctx = Ctx::new(view.game, view.seat, &mut self.groups, &mut self.setup);
            let mut p = Policy::<_, true>::new(&mut ctx);
            let a = p.decide(left);
            if !left.contains(a) || a == Action::Leave {
                break;
            }
            left.remove(a);
            out.push((a, numbers(&p.note)));
        }
        // What the policy never picks: in index order, leaving last.
        let rest = left.iter().filter(|&a| a != Action::Leave);
        out.extend(rest.map(|a| (a, Vec::new())));
        if left.contains(Action::Leave) {
            out.push((Action::Leave, Vec::new()));
        }
        out.into_iter()
            .enumerate()
            .map(|(i, (action, numbers))| RankedAction {
                action,
                value: 0.0 - i as f64,
                numbers,
            })
            .collect()
    }
}

/// The named numbers of a [`Note`], in a fixed order.
fn numbers(n: &Note) -> Vec<(&'static str, f64)> {
    let mut out = Vec::new();
    if let Some(s) = n.shanten {
        out.push(("shanten", f64::from(s)));
    }
    if let Some(q) = n.improving {
        out.push(("improving", f64::from(q)));
    }
    if let Some(v) = n.wait_value {
        out.push(("wait_value", f64::from(v)));
    }
    if let Some(d) = n.danger {
        out.push(("danger", f64::from(u8::from(d))));
    }
    out
}
