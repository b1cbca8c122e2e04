//! Actions (行动) and their dense integer encoding, the RL action space.
//!
//! | index       | action                                            |
//! |-------------|---------------------------------------------------|
//! | `0..34`     | `Discard(tile)`: discard face up                  |
//! | `34..68`    | `Ting(tile)`: declare ting, discarding face down  |
//! | `68..102`   | `ConcealedKong(tile)` (暗杠)                      |
//! | `102..136`  | `AddedKong(tile)` (补杠, robbable)                |
//! | `136`       | `Win` (自摸, on a discard, or robbing a kong)     |
//! | `137`       | `Pong` the pending discard                        |
//! | `138`       | `Kong` the pending discard (点杠)                 |
//! | `139`       | `Pass` (decline a claim or win; Linxian last tile)|
//! | `140`       | `Leave` (Linxian 逃跑)                            |
//!
//! The tile in an action is its kind index (docs/rules.md §1), so
//! `Discard(5m)` is `4` and `Ting(5m)` is `34 + 4`.

use crate::error::Error;
use crate::tile::{Tile, KINDS};
use std::fmt;

/// Size of the dense action space.
pub const N_ACTIONS: usize = 141;

/// One decision of the seat to act.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Discard a tile face up.
    Discard(Tile),
    /// Declare ting (报听), discarding this tile face down.
    Ting(Tile),
    /// Kong four concealed tiles (暗杠).
    ConcealedKong(Tile),
    /// Add a tile to one's own pong (补杠); other players may rob it.
    AddedKong(Tile),
    /// Win: by self-draw on one's own turn, else on the pending tile.
    Win,
    /// Pong the pending discard.
    Pong,
    /// Kong the pending discard onto a concealed triplet (点杠).
    Kong,
    /// Decline (a claim, a win on a discard, the Linxian last tile).
    Pass,
    /// Abandon the hand (Linxian 逃跑).
    Leave,
}

const K: usize = KINDS;

impl Action {
    /// The dense index, `0..N_ACTIONS` (see the module table).
    ///
    /// ```
    /// use koudian_core::game::Action;
    /// use koudian_core::Tile;
    /// assert_eq!(Action::Discard(Tile::M1).index(), 0);
    /// assert_eq!(Action::Ting(Tile::RED).index(), 67);
    /// assert_eq!(Action::from_index(139).unwrap(), Action::Pass);
    /// ```
    #[inline]
    pub const fn index(self) -> usize {
        match self {
            Action::Discard(t) => t.index(),
            Action::Ting(t) => K + t.index(),
            Action::ConcealedKong(t) => 2 * K + t.index(),
            Action::AddedKong(t) => 3 * K + t.index(),
            Action::Win => 4 * K,
            Action::Pong => 4 * K + 1,
            Action::Kong => 4 * K + 2,
            Action::Pass => 4 * K + 3,
            Action::Leave => 4 * K + 4,
        }
    }

    /// The action of dense index `i`, or an error naming the bad index.
    pub fn from_index(i: usize) -> Result<Action, Error> {
        let t = |j: usize| Tile::from_index_unchecked(j as u8);
        Ok(match i {
            _ if i < K => Action::Discard(t(i)),
            _ if i < 2 * K => Action::Ting(t(i - K)),
            _ if i < 3 * K => Action::ConcealedKong(t(i - 2 * K)),
            _ if i < 4 * K => Action::AddedKong(t(i - 3 * K)),
            136 => Action::Win,
            137 => Action::Pong,
            138 => Action::Kong,
            139 => Action::Pass,
            140 => Action::Leave,
            _ => {
                return Err(Error::IllegalAction(format!(
                    "action index {i} is out of range 0..{N_ACTIONS}"
                )))
            }
        })
    }

    /// The log name of the action's type: `discard`, `ting`,
    /// `concealed_kong`, `added_kong`, `win`, `pong`, `kong`, `pass`, `leave`.
    pub const fn name(self) -> &'static str {
        match self {
            Action::Discard(_) => "discard",
            Action::Ting(_) => "ting",
            Action::ConcealedKong(_) => "concealed_kong",
            Action::AddedKong(_) => "added_kong",
            Action::Win => "win",
            Action::Pong => "pong",
            Action::Kong => "kong",
            Action::Pass => "pass",
            Action::Leave => "leave",
        }
    }

    /// The tile named by the action, if any.
    pub const fn tile(self) -> Option<Tile> {
        match self {
            Action::Discard(t)
            | Action::Ting(t)
            | Action::ConcealedKong(t)
            | Action::AddedKong(t) => Some(t),
            _ => None,
        }
    }

    /// The action of type `name` (as [`Action::name`] gives) and tile.
    ///
    /// ```
    /// use koudian_core::game::Action;
    /// use koudian_core::Tile;
    /// assert_eq!(Action::from_name("ting", Some(Tile::RED)).unwrap(), Action::Ting(Tile::RED));
    /// assert!(Action::from_name("chow", None).is_err());
    /// // A tile where the action takes none is refused, not dropped.
    /// assert!(Action::from_name("pong", Some(Tile::RED)).is_err());
    /// ```
    pub fn from_name(name: &str, tile: Option<Tile>) -> Result<Action, Error> {
        let need = |f: fn(Tile) -> Action| {
            tile.map(f)
                .ok_or_else(|| Error::IllegalAction(format!("action {name:?} needs a tile")))
        };
        let bare = |a: Action| match tile {
            None => Ok(a),
            // Refused rather than dropped: "pong 5m" must not silently
            // become a pong of whatever tile is pending.
            Some(t) => Err(Error::IllegalAction(format!(
                "action {name:?} takes no tile, got {t} (write just \"{name}\")"
            ))),
        };
        match name {
            "discard" => need(Action::Discard),
            "ting" => need(Action::Ting),
            "concealed_kong" => need(Action::ConcealedKong),
            "added_kong" => need(Action::AddedKong),
            "win" => bare(Action::Win),
            "pong" => bare(Action::Pong),
            "kong" => bare(Action::Kong),
            "pass" => bare(Action::Pass),
            "leave" => bare(Action::Leave),
            _ => Err(Error::IllegalAction(format!(
                "unknown action {name:?} (expected discard, ting, concealed_kong, added_kong, \
                 win, pong, kong, pass or leave)"
            ))),
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.tile() {
            Some(t) => write!(f, "{} {}", self.name(), t),
            None => f.write_str(self.name()),
        }
    }
}

/// Every action by dense index, for decoding an index known to be in
/// range (a legal mask's bit) with one load instead of the compare chain
/// and the `Result` of [`Action::from_index`]; a test checks it against
/// [`Action::from_index`].
pub(crate) const BY_INDEX: [Action; N_ACTIONS] = {
    let mut t = [Action::Pass; N_ACTIONS];
    let mut i = 0;
    while i < N_ACTIONS {
        let tile = Tile::from_index_unchecked((i % K) as u8);
        t[i] = match i / K {
            0 => Action::Discard(tile),
            1 => Action::Ting(tile),
            2 => Action::ConcealedKong(tile),
            3 => Action::AddedKong(tile),
            _ => match i {
                136 => Action::Win,
                137 => Action::Pong,
                138 => Action::Kong,
                139 => Action::Pass,
                _ => Action::Leave,
            },
        };
        i += 1;
    }
    t
};

/// A set of actions as a 141-bit mask over the dense encoding.
///
/// ```
/// use koudian_core::game::{Action, ActionMask};
/// let mut m = ActionMask::EMPTY;
/// m.insert(Action::Pass);
/// m.insert(Action::Win);
/// assert!(m.contains(Action::Win));
/// assert_eq!(m.iter().collect::<Vec<_>>(), vec![Action::Win, Action::Pass]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ActionMask(pub [u64; 3]);

impl ActionMask {
    /// No action.
    pub const EMPTY: ActionMask = ActionMask([0; 3]);

    /// Adds an action.
    #[inline]
    pub fn insert(&mut self, a: Action) {
        let i = a.index();
        self.0[i >> 6] |= 1 << (i & 63);
    }

    /// Removes an action.
    #[inline]
    pub fn remove(&mut self, a: Action) {
        let i = a.index();
        self.0[i >> 6] &= !(1 << (i & 63));
    }

    /// Whether the action is in the set.
    #[inline]
    pub fn contains(&self, a: Action) -> bool {
        self.contains_index(a.index())
    }

    /// Whether the dense index is in the set (false when out of range).
    #[inline]
    pub fn contains_index(&self, i: usize) -> bool {
        i < N_ACTIONS && self.0[i >> 6] >> (i & 63) & 1 == 1
    }

    /// Number of actions.
    #[inline]
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether no action is set.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 3]
    }

    /// The fallback played for an agent that answered no legal action:
    /// the first legal action in dense index order that is not
    /// [`Action::Leave`] (Leave only when it is the only one); `None` for
    /// an empty mask. The one statement of the rule: the game loop
    /// ([`crate::simulate::play_out`]), the vectorized environment, the
    /// greedy agent's guard and the Python `fallback_action` use it.
    ///
    /// ```
    /// use koudian_core::game::{Action, ActionMask};
    /// let mut m = ActionMask::EMPTY;
    /// assert_eq!(m.fallback(), None);
    /// m.insert(Action::Leave);
    /// assert_eq!(m.fallback(), Some(Action::Leave));
    /// m.insert(Action::Pass);
    /// assert_eq!(m.fallback(), Some(Action::Pass));
    /// ```
    pub fn fallback(&self) -> Option<Action> {
        let mut rest = *self;
        rest.remove(Action::Leave);
        let first = rest.iter().next();
        first.or_else(|| self.iter().next())
    }

    /// The `n`-th action in index order.
    pub fn nth(&self, mut n: usize) -> Option<Action> {
        for (w, &word) in self.0.iter().enumerate() {
            let c = word.count_ones() as usize;
            if n < c {
                let mut x = word;
                for _ in 0..n {
                    x &= x - 1;
                }
                return Action::from_index(w * 64 + x.trailing_zeros() as usize).ok();
            }
            n -= c;
        }
        None
    }

    /// The actions in index order.
    pub fn iter(&self) -> impl Iterator<Item = Action> + '_ {
        (0..3).flat_map(move |w| {
            let mut x = self.0[w];
            std::iter::from_fn(move || {
                if x == 0 {
                    return None;
                }
                let i = x.trailing_zeros() as usize;
                x &= x - 1;
                Action::from_index(w * 64 + i).ok()
            })
        })
    }

    /// The mask as 141 booleans, one per dense index.
    pub fn to_bools(&self) -> [bool; N_ACTIONS] {
        let mut out = [false; N_ACTIONS];
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.contains_index(i);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_table_agrees_with_from_index_and_index() {
        for (i, &a) in BY_INDEX.iter().enumerate() {
            assert_eq!(Action::from_index(i).unwrap(), a);
            assert_eq!(a.index(), i);
        }
    }
}
