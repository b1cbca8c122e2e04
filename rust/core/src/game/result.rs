//! How a hand ended (the facts settlement needs) and the settlement call.

use crate::hand::MeldKind;
use crate::tile::Tile;

/// Why the hand ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndKind {
    /// Someone won (one winner; several in Sichuan 一炮多响).
    Win,
    /// The live wall ran out (荒庄), or the Linxian last live tile did not
    /// win.
    Exhausted,
    /// Linxian: all three others had declared ting and waited on the tile
    /// of a non-ting player's added kong.
    KongDraw,
    /// A player left (Linxian 逃跑).
    Left,
}

impl EndKind {
    /// The log name: `win`, `exhausted`, `kong_draw`, `left`.
    pub const fn name(self) -> &'static str {
        match self {
            EndKind::Win => "win",
            EndKind::Exhausted => "exhausted",
            EndKind::KongDraw => "kong_draw",
            EndKind::Left => "left",
        }
    }

    /// The kind of log name `s`.
    pub fn from_name(s: &str) -> Option<EndKind> {
        [
            EndKind::Win,
            EndKind::Exhausted,
            EndKind::KongDraw,
            EndKind::Left,
        ]
        .into_iter()
        .find(|k| k.name() == s)
    }
}

/// The end of a hand: who won what from whom, and the payments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HandResult {
    /// Why it ended.
    pub kind: EndKind,
    /// Winning seats (several only in Sichuan).
    pub winners: [bool; 4],
    /// The winning tile (none for 天胡, which has no last tile).
    pub tile: Option<Tile>,
    /// The discarder, or the konger whose added kong was robbed; `None`
    /// on a self-draw.
    pub from: Option<u8>,
    /// Won by self-draw (杠上开花 included).
    pub self_draw: bool,
    /// Won by robbing an added kong (抢杠).
    pub robbed_kong: bool,
    /// Won on the replacement tile of this kind of kong (杠上开花).
    pub replacement: Option<MeldKind>,
    /// 天胡: the dealer won with his first 14 tiles.
    pub heavenly: bool,
    /// 地胡: a non-dealer won before any claim, on the dealer's first
    /// discard or on his own first draw.
    pub earthly: bool,
    /// Who left (Linxian 逃跑).
    pub leaver: Option<u8>,
    /// Which seats had declared ting when the hand ended.
    pub ting: [bool; 4],
    /// The dealer of the hand.
    pub dealer: u8,
    /// Whether any kong was made in the hand (dealer rotation `round`).
    pub any_kong: bool,
    /// Score change of each seat (zero-sum), base stake included.
    pub deltas: [i64; 4],
}

impl HandResult {
    /// The seats that won, in seat order.
    pub fn winner_seats(&self) -> impl Iterator<Item = u8> + '_ {
        (0..4u8).filter(|&s| self.winners[s as usize])
    }
}
