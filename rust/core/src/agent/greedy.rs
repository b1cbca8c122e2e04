//! The built-in greedy baseline, [`GreedyAgent`]: a fast, deterministic
//! player that bot writers can measure themselves against.
//!
//! # Strategy
//!
//! * **Win** whenever the table allows it (a ting declaration, the point
//!   rules and 缺一门 are the table's to check: a legal win is taken).
//! * **Declare ting** (报听) as soon as any `Ting` discard is legal. Among
//!   the legal ting discards it keeps the wait with the most live winning
//!   tiles (copies not visible to it, wild copies included, of the waits
//!   whose points may win at all under `point_rule`), then the highest
//!   value (live copies × points, doubled for waits that may also win on a
//!   discard). A ting discard is face down, so it is never dangerous.
//! * **Discard** to minimize shanten, then to maximize the live tiles that
//!   improve the hand: the waits when the discard leaves it ready, the
//!   tiles that lower the shanten (ukeire) at shanten 1. Ties go to
//!   the least connected tile (fewest neighbours within two ranks); in the
//!   Koudian families the lower-point tile goes first (waits need points),
//!   in Sichuan the more terminal one. Wild tiles are never discarded while
//!   anything else may be, since they help every shape.
//! * **Points** (Shanxi, Linxian): a ready hand whose waits cannot reach
//!   `ting_min_points` can never win, so such a discard counts as one step
//!   from ready (shanten 1) with no improving tiles.
//! * **Pong** only when it lowers the shanten (after its best discard);
//!   **kong** (concealed, added or on a discard) when it does not raise it.
//!   After ting it takes every kong the table offers (the table has
//!   already checked that the waits survive).
//! * **包胡 defence** (Shanxi, Linxian): while it has not declared, a
//!   face-up discard of a tile worth `≥` the discard-win minimum that a
//!   declared opponent may win on makes it pay all three shares. It judges
//!   "may win on" conservatively from public information only: a tile is
//!   safe against a declared opponent when it cannot be won on a discard
//!   (too few points, or wild), when that opponent has let it pass since
//!   declaring (a copy discarded face up by another seat, the hand going
//!   on: either it is not a wait or the 过胡 lock forbids it), when the
//!   opponent holds a kong of it (no 5th copy), or when it is an honor of
//!   which all four copies are visible without wildcards or 风嘴子 (an
//!   honor wait needs a copy in hand) and the opponent cannot be on
//!   thirteen orphans. A safe tile is preferred when it costs at most one
//!   shanten, and always once the agent is two or more from ready
//!   (folding: its own win is then unlikely). When every candidate is
//!   unsafe it sheds the cheapest. An added kong of an unsafe tile (it may
//!   be robbed) is skipped too.
//! * **缺一门** (Sichuan): the void suit is the suit with the fewest tiles
//!   among those without a meld (ties: the lower suit index); its tiles
//!   count as junk for shanten, go first among equal discards, are never
//!   ponged or konged, and never count as improving tiles.
//!
//! # Decisions where the brief is silent
//!
//! * "Passed" tiles stay safe even if the opponent later changes its waits
//!   by a kong after ting (rare, and not publicly datable).
//! * "All copies visible" alone does not make a suited tile safe: a
//!   closed or edge wait holds no copy of the winning tile.
//! * A ting discard may be a wild tile when no other ting discard exists
//!   (a hand that never declares can never win).
//!
//! # Determinism and speed
//!
//! The agent uses no randomness and no memory of past decisions: every tie
//! is broken by a fixed order, ending with the tile index, so the same view
//! always gives the same action (the seed passed to [`Agent::reset`] is
//! kept only for reporting). Between decisions it keeps only caches that
//! are pure functions of what they are checked against, so a fresh agent
//! and a reused one decide alike: shape-table look-ups (each group's needs
//! and their one-tile changes, the latter as the need lanes each change
//! moves, so that a whole group's variants are tested at once against the
//! lanes a best split of the hand uses; keyed by the group's counts and
//! the table variant), the shanten calculator and the wild kinds (keyed by
//! the wildcards and the shape rules). The discards' public tallies (the
//! face-up copies, the tiles each declared seat let pass) are the
//! table's, kept with its discards ([`Game::pond`], [`Game::let_pass`]).
//! Decisions allocate nothing: shanten comes from
//! the table-based calculator with one group re-looked-up per tile
//! changed, waits from the counts-level [`waits_counts`].
//!
//! Within a decision, work that cannot change the action is skipped, each
//! shortcut exact (proved in its doc comment from the shape tables'
//! monotonicity: a tile added never raises a need, one removed never
//! lowers one, by one at most) and compared with the full computation in
//! debug builds: far from ready the candidates are tried in key order
//! and the first at the hand's own level wins, with the other groups'
//! products computed only for the groups tried; improving tiles are
//! counted only for candidates whose upper bound can still win, and
//! without the other groups' products when the discard keeps every best
//! split of the hand; a pong that does not lower the 14-type hand's own
//! shanten needs no discard analysis.
//!
//! It reads only public information through its [`SeatView`]: its own
//! tiles, face-up discards, visible melds, the ting declarations and the
//! face-up wall indicators.

use super::{Agent, SeatView};
use crate::error::Error;
use crate::game::{Action, ActionMask, Game, Phase};
use crate::hand::{Hand, MeldKind};
use crate::ruleset::Family;
use crate::shanten::{group_key, group_pos, partner_lanes, partner_missing, Calculator, POS_STEP};
use crate::shape::ShapeRules;
use crate::tile::{Counts, Tile, KINDS};
use crate::waits::{waits_counts, Waits};
use crate::wildcard::Wildcards;

/// The greedy baseline agent (see the [module docs](self) for its
/// strategy).
///
/// ```
/// use koudian_core::agent::{Agent, GreedyAgent, SeatView};
/// use koudian_core::game::Game;
/// use koudian_core::Ruleset;
/// let mut g = Game::new(&Ruleset::shanxi(), 3, None).unwrap();
/// let mut agents = [0, 1, 2, 3].map(GreedyAgent::new);
/// while let Some(seat) = g.to_act() {
///     let a = agents[seat as usize].act(&SeatView::new(&g, seat));
///     g.step(a).unwrap();
/// }
/// assert_eq!(g.result().unwrap().deltas.iter().sum::<i64>(), 0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct GreedyAgent {
    seed: u64,
    /// Shape analysis kept between decisions (a pure function of the
    /// counts it is keyed by: it never changes a decision).
    groups: Box<Groups>,
    /// The calculator and wild kinds of the last table variant (a pure
    /// function of the wildcards and shape rules it is keyed by).
    setup: Option<Box<Setup>>,
}

/// What depends only on the wildcards and the shape rules, kept between
/// decisions: building the calculator costs more than a whole
/// decision's look-ups of it.
#[derive(Clone)]
struct Setup {
    wilds: Wildcards,
    shape: ShapeRules,
    calc: Calculator,
    /// The wild kinds as a mask.
    wild_mask: u64,
}

impl Setup {
    fn new(wilds: Wildcards, shape: ShapeRules) -> Setup {
        Setup {
            wilds,
            shape,
            calc: Calculator::new(&wilds, &shape),
            wild_mask: wilds.mask(),
        }
    }

    /// Makes `kept` the setup of `wilds` and `shape`.
    #[inline]
    fn refresh(kept: &mut Option<Box<Setup>>, wilds: Wildcards, shape: ShapeRules) -> &Setup {
        match kept {
            Some(s) if s.wilds == wilds && s.shape == shape => {}
            _ => *kept = Some(Box::new(Setup::new(wilds, shape))),
        }
        let s = kept.as_deref().expect("set above");
        debug_assert_eq!(s.calc.group_variant(), {
            Calculator::new(&wilds, &shape).group_variant()
        });
        s
    }
}

impl std::fmt::Debug for Setup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Setup")
            .field("wilds", &self.wilds)
            .field("shape", &self.shape)
            .finish_non_exhaustive()
    }
}

impl GreedyAgent {
    /// A greedy agent. It is deterministic; the seed is only recorded.
    pub fn new(seed: u64) -> GreedyAgent {
        GreedyAgent {
            seed,
            groups: Box::default(),
            setup: None,
        }
    }

    /// The seed given at construction or by the last [`Agent::reset`].
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl Agent for GreedyAgent {
    fn act(&mut self, view: &SeatView<'_>) -> Action {
        let legal = view.legal();
        let a = Ctx::new(view.game, view.seat, &mut self.groups, &mut self.setup).decide(legal);
        if legal.contains(a) {
            return a;
        }
        // Unreachable by construction; never hand the table an illegal move.
        let fallback = legal.iter().find(|&x| x != Action::Leave);
        fallback.unwrap_or(Action::Pass)
    }

    fn reset(&mut self, seed: u64) {
        self.seed = seed;
    }
}

/// The greedy agent's choice for `seat` in `game`, or an error when the
/// seat has nothing to decide.
///
/// ```
/// use koudian_core::agent::greedy::greedy_action;
/// use koudian_core::game::Game;
/// use koudian_core::Ruleset;
/// let g = Game::new(&Ruleset::sichuan(), 9, None).unwrap();
/// let seat = g.to_act().unwrap();
/// assert!(g.legal_actions().contains(greedy_action(&g, seat).unwrap()));
/// assert!(greedy_action(&g, (seat + 1) % 4).is_err());
/// ```
pub fn greedy_action(game: &Game, seat: u8) -> Result<Action, Error> {
    let view = SeatView::new(game, seat);
    if view.legal().is_empty() {
        return Err(Error::IllegalAction(format!(
            "seat {seat} has no decision to make now"
        )));
    }
    Ok(GreedyAgent::new(0).act(&view))
}

// ---------------------------------------------------------------------------
// Incremental shanten.

/// A group's needs in the shanten module's 16-lane vector layout: lanes
/// `0..5` hold `need[m][0]` (m sets), lanes `P..P + 5` hold `need[m][1]`
/// (m sets and a pair), the others are "impossible" (at least 0x80).
type Lanes = [u8; 16];

/// Lane of `need[0][1]`.
const P: usize = crate::shanten::PAIR_LANE;

/// Min-plus product of two groups' needs (at most 4 sets, one pair): the
/// shanten module's byte-vector product ([`crate::shanten::combine`], the
/// portable form and the debug check), in SSSE3 where the release builds
/// have it. Like it, it relies on every `need[0][0]` being 0 and all
/// needs finite (below 0x80); the unused lanes of its inputs must be at
/// least 0x80 (the table's "impossible", kept by products), as they are
/// for every group's needs and product the agent builds.
#[inline(always)]
fn combine(a: &Lanes, b: &Lanes) -> Lanes {
    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
    let r = combine_ssse3(a, b);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "ssse3")))]
    let r = crate::shanten::combine(a, b);
    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3", debug_assertions))]
    assert_eq!(r, crate::shanten::combine(a, b));
    r
}

/// `BROADCAST[k]`: the byte shuffle filling every lane with lane `k`.
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
static BROADCAST: [Lanes; 13] = {
    let mut t = [[0u8; 16]; 13];
    let mut k = 0;
    while k < 13 {
        t[k] = [k as u8; 16];
        k += 1;
    }
    t
};

/// The unused lanes of a product's needs (5-7, `P + 5`-15).
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
const UNUSED_LANES: Lanes = {
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        if i % P > 4 {
            t[i] = 0xff;
        }
        i += 1;
    }
    t
};

/// 0xff in lane 4 only.
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
const LANE_4: Lanes = {
    let mut t = [0u8; 16];
    t[4] = 0xff;
    t
};

/// [`combine`] in SSSE3: each of `a`'s needs broadcast by one byte
/// shuffle, `b` moved up by one `palignr` that shifts in "impossible"
/// (0xff) rather than zeros, so no per-step masks: a sum that crosses
/// from `b`'s unused lanes 5-7 into its pair half is at least 0x80, above
/// every real need (lane 4, which crosses at the last step, is masked
/// there), and the unused lanes of the result are `b`'s own, as
/// in the shanten module's form (a test and debug builds compare the
/// two).
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
#[inline(always)]
fn combine_ssse3(a: &Lanes, b: &Lanes) -> Lanes {
    use std::arch::x86_64::*;
    const _: () = assert!(P == 8);
    let mut out = [0u8; 16];
    // SAFETY: SSSE3 (and so SSE2) is enabled at compile time (the cfg
    // above); the loads and the store are of 16-byte arrays.
    unsafe {
        let load = |v: &Lanes| _mm_loadu_si128(v.as_ptr().cast());
        let (av, bv) = (load(a), load(b));
        let ones = _mm_set1_epi8(-1);
        // b's pair-free half in the pair half, "impossible" below.
        let b_up = _mm_or_si128(_mm_slli_si128::<8>(bv), _mm_set_epi64x(0, -1));
        let at = |k: usize| _mm_shuffle_epi8(av, load(&BROADCAST[k]));
        // a[0] is 0: the first pair-free term is b itself.
        let mut r = _mm_min_epu8(bv, _mm_adds_epu8(b_up, at(P)));
        macro_rules! step {
            ($k:literal, $s:literal) => {{
                let c0 = _mm_adds_epu8(_mm_alignr_epi8::<$s>(bv, ones), at($k));
                let c1 = _mm_adds_epu8(_mm_alignr_epi8::<$s>(b_up, ones), at(P + $k));
                r = _mm_min_epu8(r, _mm_min_epu8(c0, c1));
            }};
        }
        step!(1, 15);
        step!(2, 14);
        step!(3, 13);
        // Moved up by 4, b's `need[4][0]` (lane 4) reaches lane `P`: made
        // "impossible" there.
        let bv4 = _mm_or_si128(bv, load(&LANE_4));
        let c0 = _mm_adds_epu8(_mm_alignr_epi8::<12>(bv4, ones), at(4));
        let c1 = _mm_adds_epu8(_mm_alignr_epi8::<12>(b_up, ones), at(P + 4));
        r = _mm_min_epu8(r, _mm_min_epu8(c0, c1));
        // The unused lanes as b's.
        let r = _mm_min_epu8(_mm_or_si128(r, load(&UNUSED_LANES)), bv);
        _mm_storeu_si128(out.as_mut_ptr().cast(), r);
    }
    out
}

/// The used lanes of a group's needs: `[need[0..5][0], need[0..5][1]]`.
#[inline]
fn needs_of(l: &Lanes) -> [u8; 10] {
    let mut n = [0u8; 10];
    n[..5].copy_from_slice(&l[..5]);
    n[5..].copy_from_slice(&l[P..P + 5]);
    n
}

/// [`needs_of`] back in the vector layout (unused lanes "impossible").
#[inline]
fn lanes_of(n: &[u8; 10]) -> Lanes {
    let mut l = [0x80u8; 16];
    l[..5].copy_from_slice(&n[..5]);
    l[P..P + 5].copy_from_slice(&n[5..]);
    l
}

/// Fewest tiles seven pairs misses from its tallies.
#[inline(always)]
fn seven_pairs_missing(pairs: u8, singles: u8) -> u8 {
    if pairs >= 7 {
        0
    } else {
        let missing = 7 - pairs;
        missing + missing.saturating_sub(singles)
    }
}

/// For thirteen orphans, what removing one tile of a kind held `n` times
/// does depends on this class: 1 for an orphan held once (a kind lost), 2
/// for an orphan held twice (the pair lost), 0 otherwise (a surplus tile).
#[inline(always)]
fn orphan_class(orphan: bool, n: u8) -> usize {
    usize::from(orphan) * (usize::from(n == 1) + 2 * usize::from(n == 2))
}

/// The shanten group of kind `k`: 0-2 the suits, 3 the honors.
#[inline(always)]
fn group_of(k: usize) -> usize {
    // The honors (27..34) all give 3.
    k / 9
}

/// The 13 thirteen-orphans kinds as a mask.
const ORPHANS: u64 = 1 << 0 | 1 << 8 | 1 << 9 | 1 << 17 | 1 << 18 | 1 << 26 | 0x7f << 27;

/// The kinds of each shanten group as masks.
const GROUP_KINDS: [u64; 4] = [0x1ff, 0x1ff << 9, 0x1ff << 18, 0x7f << 27];

const LOW: u64 = 0x0101_0101_0101_0101;

/// Sum of the bytes of `x` (the sum must fit a byte).
#[cfg(any(test, debug_assertions))]
#[inline(always)]
fn byte_sum(x: u64) -> u8 {
    (x.wrapping_mul(LOW) >> 56) as u8
}

/// `ORPHAN_BYTES[w]`: 0x01 in the bytes of word `w` (kinds `8w..8w + 8`)
/// that are thirteen-orphans kinds.
#[cfg(any(test, debug_assertions))]
const ORPHAN_BYTES: [u64; 5] = {
    let mut t = [0u64; 5];
    let mut k = 0;
    while k < KINDS {
        if ORPHANS >> k & 1 == 1 {
            t[k / 8] |= 1 << (8 * (k % 8));
        }
        k += 1;
    }
    t
};

/// Seven-pairs and orphans tallies of natural counts (each at most 4),
/// eight counts at a time: pairs (a 4-of-a-kind is two), single copies,
/// orphan kinds held, orphan kinds held twice or more. The plain form of
/// [`Planes::tallies`], its check in debug builds.
#[cfg(any(test, debug_assertions))]
fn tallies(c: &Counts) -> (u8, u8, u8, u8) {
    let (mut pairs, mut singles, mut ok, mut op) = (0u8, 0u8, 0u8, 0u8);
    for (w, m) in ORPHAN_BYTES.iter().enumerate() {
        let mut b = [0u8; 8];
        let chunk = &c[8 * w..(8 * w + 8).min(KINDS)];
        b[..chunk.len()].copy_from_slice(chunk);
        let x = u64::from_le_bytes(b);
        pairs += byte_sum((x >> 1) & (0x7f * LOW));
        singles += byte_sum(x & LOW);
        // Counts have 3 bits: bit 0 of (x | x>>1 | x>>2) is "held", of
        // (x>>1 | x>>2) "held twice".
        ok += byte_sum((x | x >> 1 | x >> 2) & m);
        op += byte_sum((x >> 1 | x >> 2) & m);
    }
    (pairs, singles, ok, op)
}

/// The kinds held exactly `n` times, as bit masks (`by_count[n]`).
#[derive(Clone, Copy)]
struct CountMasks {
    by_count: [u64; 5],
}

impl CountMasks {
    fn new(c: &Counts) -> CountMasks {
        // From the counts' bit planes (counts are at most 4).
        let [p0, p1, p2] = Planes::new(c).0;
        let all = (1u64 << KINDS) - 1;
        let by_count = [
            all & !(p0 | p1 | p2),
            p0 & !p1 & !p2,
            p1 & !p0 & !p2,
            p0 & p1,
            p2,
        ];
        debug_assert!((0..KINDS).all(|k| by_count[c[k] as usize] >> k & 1 == 1));
        CountMasks { by_count }
    }

    /// The masks after removing one copy of kind `k` (held `n > 0` times).
    #[inline(always)]
    fn without(&self, k: usize, n: u8) -> CountMasks {
        let mut m = *self;
        m.by_count[n as usize] &= !bit(k);
        m.by_count[n as usize - 1] |= bit(k);
        m
    }
}

/// A hand's shanten with everything precomputed so that the shanten after
/// adding or removing one tile costs one group lookup and a few minimums
/// (the [`crate::shanten`] definition, wild tiles included).
#[derive(Clone, Copy)]
struct Base {
    natural: Counts,
    /// The kinds of `natural` held, as a mask.
    held: u64,
    w: u8,
    sets: usize,
    groups: [Lanes; 4],
    /// Min-plus products of groups 0 × 1 and 2 × 3.
    halves: [Lanes; 2],
    /// The min-plus product of the three groups other than `g`, lined up
    /// for [`partner_missing`] ([`partner_lanes`]); only for the groups of
    /// `filled` (the others "impossible").
    partner: [Lanes; 4],
    /// The groups whose partner is computed, as bits.
    filled: u8,
    /// The standard shape's deficiency (`d` is the least of it and the
    /// special shapes').
    standard: u8,
    pairs: u8,
    singles: u8,
    orphan_kinds: u8,
    orphan_pairs: u8,
    seven: bool,
    orphans: bool,
    d: u8,
}

impl Base {
    #[cfg(test)]
    fn new(
        calc: &Calculator,
        wilds: &Wildcards,
        rules: &ShapeRules,
        c: &Counts,
        melds: usize,
    ) -> Base {
        let (natural, w) = wilds.split(c);
        Base::from_groups(natural, w, melds, calc.lanes(&natural).0, rules)
    }

    /// A base from natural counts whose group needs are already known.
    fn from_groups(
        natural: Counts,
        w: u8,
        melds: usize,
        g: [Lanes; 4],
        rules: &ShapeRules,
    ) -> Base {
        Base::with_partners(natural, w, melds, g, rules, true)
    }

    /// [`Base::from_groups`] with the partners of every group (`every`),
    /// or only of those the agent may ask for ([`Base::fill_partners`]).
    #[inline(always)]
    fn with_partners(
        natural: Counts,
        w: u8,
        melds: usize,
        g: [Lanes; 4],
        rules: &ShapeRules,
        every: bool,
    ) -> Base {
        let halves = [combine(&g[0], &g[1]), combine(&g[2], &g[3])];
        let mut b = Base::with_halves(natural, w, melds, g, halves, rules);
        b.fill_partners(every);
        b
    }

    /// A base with the two halves' products given and no partner computed
    /// yet (they are the costly part: a decision far from ready asks for
    /// one or two), its deficiency from the two halves.
    #[inline(always)]
    fn with_halves(
        natural: Counts,
        w: u8,
        melds: usize,
        g: [Lanes; 4],
        [ab, cd]: [Lanes; 2],
        rules: &ShapeRules,
    ) -> Base {
        let planes = Planes::new(&natural);
        let held = planes.held();
        let (pairs, singles, ok, op) = planes.tallies();
        #[cfg(debug_assertions)]
        assert_eq!((pairs, singles, ok, op), tallies(&natural));
        let sets = 4 - melds.min(4);
        let (seven, orphans) = (
            melds == 0 && rules.seven_pairs,
            melds == 0 && rules.thirteen_orphans,
        );
        let standard = crate::shanten::standard_missing(&ab, &cd, melds);
        let mut d = standard;
        if seven {
            d = d.min(seven_pairs_missing(pairs, singles));
        }
        if orphans {
            d = d.min(14 - ok - u8::from(op > 0));
        }
        const STALE: Lanes = [0xff; 16];
        Base {
            natural,
            held,
            w,
            sets,
            groups: g,
            halves: [ab, cd],
            partner: [STALE; 4],
            filled: 0,
            standard,
            pairs,
            singles,
            orphan_kinds: ok,
            orphan_pairs: op,
            seven,
            orphans,
            d,
        }
    }

    /// Computes the partners of every group (`every`), or of those the
    /// agent may ask for: the groups holding natural tiles (a kind that
    /// may lower the shanten is near a tile held, so in the same group),
    /// every group when thirteen orphans is possible (whose kinds are in
    /// every group). The others stay "impossible" (a Sichuan hand's
    /// honors and cleared void suit, a hand without honors).
    #[inline(always)]
    fn fill_partners(&mut self, every: bool) {
        let every = every | self.orphans;
        let held = self.held;
        let needed = |i: usize| every | (held & GROUP_KINDS[i] != 0);
        if (0..4).all(needed) {
            // The usual case, straight-line.
            let (g, [ab, cd], s) = (&self.groups, &self.halves, self.sets);
            self.partner = [
                partner_lanes(&combine(&g[1], cd), s),
                partner_lanes(&combine(&g[0], cd), s),
                partner_lanes(&combine(ab, &g[3]), s),
                partner_lanes(&combine(ab, &g[2]), s),
            ];
            self.filled = 0xf;
        } else {
            for g in (0..4).filter(|&i| needed(i)) {
                self.fill_partner(g);
            }
        }
        #[cfg(debug_assertions)]
        for g in (0..4).filter(|&i| self.filled >> i & 1 == 1) {
            assert_eq!(
                partner_missing(&self.partner[g], &self.groups[g]),
                self.standard
            );
        }
    }

    /// Computes the partner of group `g` (if not yet). Not inlined: in a
    /// loop the compiler would hoist the four groups' product set-ups out
    /// of it, for the one or two partners asked for.
    #[inline(never)]
    fn fill_partner(&mut self, g: usize) {
        if self.filled >> g & 1 == 1 {
            return;
        }
        let (gr, [ab, cd], s) = (&self.groups, &self.halves, self.sets);
        self.partner[g] = match g {
            0 => partner_lanes(&combine(&gr[1], cd), s),
            1 => partner_lanes(&combine(&gr[0], cd), s),
            2 => partner_lanes(&combine(ab, &gr[3]), s),
            _ => partner_lanes(&combine(ab, &gr[2]), s),
        };
        self.filled |= 1 << g;
        debug_assert_eq!(
            partner_missing(&self.partner[g], &self.groups[g]),
            self.standard
        );
    }

    /// Makes this the base after removing one natural tile of kind `k`
    /// (held), whose group's needs become `rem`, and whose deficiency is
    /// `d`: the same as [`Base::from_groups`] on the smaller hand, with
    /// only the products involving `k`'s group recomputed and the tallies
    /// updated rather than recounted (in place: a base is too large to
    /// copy around cheaply). The agent computes the products it needs
    /// itself ([`Ctx::ukeire`]); this is their check in debug builds.
    #[cfg(any(test, debug_assertions))]
    fn remove(&mut self, k: usize, rem: &Lanes, d: u8) {
        self.remove_counts(k, rem, d);
        let b = self;
        let gk = group_of(k);
        let g = &b.groups;
        let s = b.sets;
        // The partner of group `gk` does not involve it: it stays. The
        // products as in `from_groups`, the unchanged half reused.
        if gk < 2 {
            let ab = combine(&g[0], &g[1]);
            let cd = b.halves[1];
            b.partner[1 - gk] = partner_lanes(&combine(&g[gk], &cd), s);
            b.partner[2] = partner_lanes(&combine(&ab, &g[3]), s);
            b.partner[3] = partner_lanes(&combine(&ab, &g[2]), s);
            b.halves[0] = ab;
        } else {
            let ab = b.halves[0];
            let cd = combine(&g[2], &g[3]);
            b.partner[0] = partner_lanes(&combine(&g[1], &cd), s);
            b.partner[1] = partner_lanes(&combine(&g[0], &cd), s);
            b.partner[5 - gk] = partner_lanes(&combine(&ab, &g[gk]), s);
            b.halves[1] = cd;
        }
    }

    /// [`Base::remove`] but for the products: the counts, the needs of
    /// `k`'s group, the tallies and the deficiency only (the halves and
    /// the partners of the other groups are left stale).
    #[inline(always)]
    fn remove_counts(&mut self, k: usize, rem: &Lanes, d: u8) {
        let b = self;
        let n = b.natural[k];
        let m = n - 1;
        b.natural[k] = m;
        b.groups[group_of(k)] = *rem;
        b.held &= !(u64::from(m == 0) << k);
        b.pairs = b.pairs - (n >> 1) + (m >> 1);
        b.singles = b.singles - (n & 1) + (m & 1);
        if ORPHANS >> k & 1 == 1 {
            b.orphan_kinds = b.orphan_kinds - u8::from(n > 0) + u8::from(m > 0);
            b.orphan_pairs = b.orphan_pairs - u8::from(n > 1) + u8::from(m > 1);
        }
        b.d = d;
    }

    /// Fewest missing tiles with group `g` replaced by `x` and the given
    /// seven-pairs and orphans tallies.
    #[inline(always)]
    fn deficiency(&self, g: usize, x: &Lanes, pairs: u8, singles: u8, ok: u8, op: u8) -> u8 {
        let mut d = partner_missing(&self.partner[g], x);
        if self.seven {
            d = d.min(seven_pairs_missing(pairs, singles));
        }
        if self.orphans {
            d = d.min(14 - ok - u8::from(op > 0));
        }
        d
    }

    #[inline(always)]
    fn to_shanten(d: u8, w: u8) -> i8 {
        d.saturating_sub(w) as i8 - 1
    }

    /// The shanten of the hand as it is.
    fn shanten(&self) -> i8 {
        Base::to_shanten(self.d, self.w)
    }

    /// The needs of kind `k`'s group after adding (`add`) or removing one
    /// natural tile of kind `k` (the count must stay within 0..=4).
    #[inline]
    fn group_after(&self, calc: &Calculator, k: usize, add: bool) -> Lanes {
        let mut c = self.natural;
        c[k] = if add { c[k] + 1 } else { c[k] - 1 };
        calc.group_lanes(&c, group_of(k))
    }

    /// The shanten after adding (`add`) or removing one natural tile of
    /// kind `k` (which must keep the count within 0..=4).
    #[inline]
    fn shanten_natural(&self, calc: &Calculator, k: usize, add: bool) -> i8 {
        self.shanten_with(k, add, &self.group_after(calc, k, add))
    }

    /// The seven-pairs and orphans tallies: pairs, singles, orphan kinds
    /// held, orphan kinds held twice or more.
    #[inline(always)]
    fn tallies(&self) -> (u8, u8, u8, u8) {
        (
            self.pairs,
            self.singles,
            self.orphan_kinds,
            self.orphan_pairs,
        )
    }

    /// [`Base::tallies`] after adding (`add`) or removing one natural tile
    /// of kind `k` (the count must stay within 0..=4).
    #[inline(always)]
    fn tallies_with(&self, k: usize, add: bool) -> (u8, u8, u8, u8) {
        let n = self.natural[k];
        let m = if add { n + 1 } else { n - 1 };
        let pairs = self.pairs - (n >> 1) + (m >> 1);
        let singles = self.singles - (n & 1) + (m & 1);
        let (mut ok, mut op) = (self.orphan_kinds, self.orphan_pairs);
        if ORPHANS >> k & 1 == 1 {
            ok = ok - u8::from(n > 0) + u8::from(m > 0);
            op = op - u8::from(n > 1) + u8::from(m > 1);
        }
        (pairs, singles, ok, op)
    }

    /// The deficiency after adding (`add`) or removing one natural tile of
    /// kind `k`, whose group's needs become `x`.
    #[inline]
    fn deficiency_with(&self, k: usize, add: bool, x: &Lanes) -> u8 {
        let (pairs, singles, ok, op) = self.tallies_with(k, add);
        self.deficiency(group_of(k), x, pairs, singles, ok, op)
    }

    /// [`Base::shanten_natural`] with the changed group's needs given.
    #[inline]
    fn shanten_with(&self, k: usize, add: bool, x: &Lanes) -> i8 {
        Base::to_shanten(self.deficiency_with(k, add, x), self.w)
    }

    /// The kinds (among those held fewer than 4 times, `masks` giving the
    /// hand's counts) whose addition lowers the deficiency through seven
    /// pairs or thirteen orphans alone.
    #[inline]
    fn special_improvers(&self, masks: &CountMasks) -> u64 {
        self.special_improvers_with(self.tallies(), self.d, masks)
    }

    /// [`Base::special_improvers`] of a hand of the same shape rules with
    /// the given tallies ([`Base::tallies`]) and deficiency `d`.
    #[inline(always)]
    fn special_improvers_with(
        &self,
        (pairs, singles, ok, op): (u8, u8, u8, u8),
        d: u8,
        masks: &CountMasks,
    ) -> u64 {
        let [m0, m1, m2, m3, _] = masks.by_count;
        let mut s = 0u64;
        if self.seven {
            // An odd count makes a pair, an even one a single.
            let odd = seven_pairs_missing(pairs + 1, singles.saturating_sub(1));
            if odd < d {
                s |= m1 | m3;
            }
            if seven_pairs_missing(pairs, singles + 1) < d {
                s |= m0 | m2;
            }
        }
        if self.orphans {
            if 14u8.saturating_sub(ok + 1 + u8::from(op > 0)) < d {
                s |= ORPHANS & m0;
            }
            if 14 - ok - 1 < d {
                s |= ORPHANS & m1;
            }
        }
        s
    }

    /// The shanten after removing one tile of kind `k` (wild or not).
    #[inline]
    fn shanten_without(&self, calc: &Calculator, wilds: &Wildcards, k: usize) -> i8 {
        if wilds.is_wild(Tile::from_index_unchecked(k as u8)) {
            Base::to_shanten(self.d, self.w.saturating_sub(1))
        } else if self.natural[k] == 0 {
            // A tile the analysis ignores (a Sichuan void-suit tile).
            self.shanten()
        } else {
            self.shanten_natural(calc, k, false)
        }
    }
}

/// Group needs looked up for the agent's hands, kept between its
/// decisions: between two turns a hand changes in one or two groups, so
/// most groups (and their one-tile changes) are looked up once for many
/// decisions.
///
/// Group needs depend only on the group's natural counts and on the
/// calculator's table variant ([`Calculator::group_variant`]: capped at 4
/// copies or not, 风嘴子 or not), so an entry is keyed by exactly these and
/// stays right across decisions, claims, kongs, hands and games: another
/// variant clears everything, different counts replace the group's entry.
/// Debug builds check every value handed out against a fresh lookup.
#[derive(Clone)]
struct Groups {
    /// [`Calculator::group_variant`] of the entries, `None` before the
    /// first use.
    variant: Option<(bool, bool)>,
    entries: [GroupEntry; 4],
    /// The products of groups 0 × 1 and 2 × 3 ([`Groups::halves`]), each
    /// kept while bit 0 or 1 of `halves_ok` is set: until one of its
    /// groups' counts changes (between two decisions of one agent a tile
    /// drawn and one discarded change one or two groups).
    halves: [Lanes; 2],
    halves_ok: u8,
    /// The natural counts of the last [`Groups::sync`], and in `synced`
    /// the groups whose entries hold them (bit `g`): a group's entry is
    /// current exactly when its bit is set and its counts equal those of
    /// `last` ([`changed_groups`] finds the others for all four groups at
    /// once).
    last: Counts,
    synced: u8,
}

impl Default for Groups {
    fn default() -> Groups {
        Groups {
            variant: None,
            entries: Default::default(),
            halves: [[0; 16]; 2],
            halves_ok: 0,
            last: [0; KINDS],
            synced: 0,
        }
    }
}

/// The groups (bit `g`) in which the counts `a` and `b` differ.
#[inline(always)]
fn changed_groups(a: &Counts, b: &Counts) -> u8 {
    #[cfg(target_arch = "x86_64")]
    let m = changed_groups_sse2(a, b);
    #[cfg(not(target_arch = "x86_64"))]
    let m = changed_groups_portable(a, b);
    debug_assert_eq!(m, changed_groups_portable(a, b));
    m
}

/// [`changed_groups`] group by group (other targets, and the check of the
/// SSE2 form).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn changed_groups_portable(a: &Counts, b: &Counts) -> u8 {
    (0..4).fold(0, |m, g| {
        let (lo, n) = group_span(g);
        m | u8::from(a[lo..lo + n] != b[lo..lo + n]) << g
    })
}

/// [`changed_groups`] with SSE2: the kinds whose counts are equal as one
/// 34-bit mask (three byte compares; the last load overlaps the second),
/// then one test per group.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn changed_groups_sse2(a: &Counts, b: &Counts) -> u8 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // always available; the loads are of bytes 0..16, 16..32 and 18..34
    // of the 34-byte arrays.
    let eq = unsafe {
        let same = |i: usize| {
            let x = _mm_loadu_si128(a[i..i + 16].as_ptr().cast());
            let y = _mm_loadu_si128(b[i..i + 16].as_ptr().cast());
            u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) as u16)
        };
        same(0) | same(16) << 16 | (same(18) >> 14) << 32
    };
    let ne = !eq;
    u8::from(ne & GROUP_KINDS[0] != 0)
        | u8::from(ne & GROUP_KINDS[1] != 0) << 1
        | u8::from(ne & GROUP_KINDS[2] != 0) << 2
        | u8::from(ne & GROUP_KINDS[3] != 0) << 3
}

/// One group's natural counts, its needs, and what one-tile changes do to
/// them, as they are asked for (`rem_ok`: bit `i` set when slot `i` holds
/// a value; `i` is the kind's index within the group).
///
/// A one-tile change moves every need by at most one, and only one way
/// (a tile more never costs, and saves at most itself; checked in debug
/// builds and by `one_tile_changes_move_needs_by_one`), so a change is
/// kept as the lanes it moves ([`Slots`]) rather than as needs. Whether
/// it changes a hand's deficiency then depends only on the lanes that are
/// tight in the hand ([`tight_lanes`]), for the whole group at once
/// ([`hitting`]), without a branch per kind.
#[derive(Clone, Default)]
struct GroupEntry {
    valid: bool,
    counts: [u8; 9],
    lanes: Lanes,
    /// The table position of `counts` ([`group_pos`]): a one-tile
    /// change's needs are one add of [`POS_STEP`] and a look-up away.
    pos: u64,
    /// One tile of kind `i` removed, as needs, and in `rem_kept` the used
    /// lanes that stay (the others rise by one); both valid when bit `i`
    /// of `rem_ok` is set.
    rem: [Lanes; 9],
    rem_kept: Slots,
    rem_ok: u16,
    /// The lanes that one tile of kind `i` added lowers (bit `i` of
    /// `add_ok`).
    add: Slots,
    add_ok: u16,
    /// `swap[i]`: the lanes of `rem[i]` that one tile of kind `j` added
    /// lowers, entry `j` (bit `j` of `swap_ok[i]`).
    swap: [Slots; 9],
    swap_ok: [u16; 9],
}

impl GroupEntry {
    /// Looks up the additions of the kinds of `missing` to group `g` (this
    /// entry's) for [`Groups::added`].
    #[inline(never)]
    fn fill_added(&mut self, calc: &Calculator, g: usize, missing: u16) {
        debug_assert!(self.counts.iter().map(|&n| n as u32).sum::<u32>() <= 13);
        self.add_ok |= missing;
        let (lanes, slots) = (&self.lanes, &mut self.add);
        calc.lanes_added(g, self.pos, missing, |i, add| {
            debug_one_step(lanes, &add, true);
            slots.0[i & 15] = lanes_moved(&add, lanes);
        });
    }

    /// Looks up the needs of group `g` (this entry's) with one tile of
    /// its kind `i` removed, and the lanes that stay.
    #[inline(always)]
    fn fill_removal(&mut self, calc: &Calculator, g: usize, i: usize) {
        let rem = calc.lanes_at(g, self.pos - pos_step(g, i));
        debug_one_step(&self.lanes, &rem, false);
        self.rem[i] = rem;
        self.rem_kept.0[i] = USED_LANES & !lanes_moved(&self.lanes, &rem);
    }
}

/// Lane masks of up to 16 one-tile variants of a group, one per variant
/// (entry `i` for the group's kind `i`). Only the entries a caller asked
/// for are meaningful (the others hold 0 or values of earlier counts), so
/// callers mask the results of [`hitting`] with the kinds they asked for.
#[derive(Clone, Copy, Default)]
struct Slots([u16; 16]);

/// The used lanes of [`Lanes`] (`need[0..5][0]`, `need[0..5][1]`) as a
/// lane mask.
const USED_LANES: u16 = 0x1f | 0x1f << P;

/// The used lanes where `a < b`: the definition that [`lanes_moved`]
/// computes with one compare for a one-tile change (its debug check and
/// the tests use it; nothing else needs the general form).
fn lanes_below(a: &Lanes, b: &Lanes) -> u16 {
    let mut m = 0u16;
    for i in 0..16 {
        m |= u16::from(a[i] < b[i]) << i;
    }
    m & USED_LANES
}

/// [`lanes_below`] of a one-tile change (`a` the needs after a tile
/// added to `b`, or `b` those after a tile removed from `a`): a one-tile
/// change moves each need one way only, so `a` is at most `b` in every
/// used lane and the lanes below are the lanes that differ, one compare
/// fewer (checked against [`lanes_below`] in debug builds).
#[inline(always)]
fn lanes_moved(a: &Lanes, b: &Lanes) -> u16 {
    #[cfg(target_arch = "x86_64")]
    let m = lanes_moved_sse2(a, b);
    #[cfg(not(target_arch = "x86_64"))]
    let m = lanes_moved_portable(a, b);
    debug_assert_eq!(m, lanes_moved_portable(a, b));
    debug_assert_eq!(m, lanes_below(a, b));
    m
}

/// [`lanes_moved`] as a loop (other targets, and the check of the SSE2
/// form): the used lanes where `a != b`.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn lanes_moved_portable(a: &Lanes, b: &Lanes) -> u16 {
    let mut m = 0u16;
    for i in 0..16 {
        m |= u16::from(a[i] != b[i]) << i;
    }
    m & USED_LANES
}

/// [`lanes_moved`] with SSE2: one byte compare.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lanes_moved_sse2(a: &Lanes, b: &Lanes) -> u16 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // always available; the only memory accesses are unaligned 16-byte
    // loads of `a` and `b`.
    unsafe {
        let x = _mm_loadu_si128(a.as_ptr().cast());
        let y = _mm_loadu_si128(b.as_ptr().cast());
        !(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) as u16) & USED_LANES
    }
}

/// The used lanes of a group's needs `x` where the sum with the
/// [`partner_lanes`] product `p` (saturating) equals `d`: with `d` the
/// hand's deficiency, the lanes some best allocation uses (a tile lowers
/// the standard shape's deficiency exactly when it lowers one of them;
/// a removal raises it exactly when it raises all of them).
#[inline(always)]
fn tight_lanes(x: &Lanes, p: &Lanes, d: u8) -> u16 {
    #[cfg(target_arch = "x86_64")]
    let m = tight_lanes_sse2(x, p, d);
    #[cfg(not(target_arch = "x86_64"))]
    let m = tight_lanes_portable(x, p, d);
    debug_assert_eq!(m, tight_lanes_portable(x, p, d));
    m
}

/// [`tight_lanes`] as a loop (other targets, and the check of the SSE2
/// form).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn tight_lanes_portable(x: &Lanes, p: &Lanes, d: u8) -> u16 {
    let mut m = 0u16;
    for i in 0..16 {
        m |= u16::from(x[i].saturating_add(p[i]) == d) << i;
    }
    m & USED_LANES
}

/// [`tight_lanes`] with SSE2: one saturating add and compare.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn tight_lanes_sse2(x: &Lanes, p: &Lanes, d: u8) -> u16 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // always available; the only memory accesses are unaligned 16-byte
    // loads of `x` and `p`.
    unsafe {
        let s = _mm_adds_epu8(
            _mm_loadu_si128(x.as_ptr().cast()),
            _mm_loadu_si128(p.as_ptr().cast()),
        );
        _mm_movemask_epi8(_mm_cmpeq_epi8(s, _mm_set1_epi8(d as i8))) as u16 & USED_LANES
    }
}

/// The used lanes where the needs `x` are 0 (which nothing lowers).
#[inline(always)]
fn zero_lanes(x: &Lanes) -> u16 {
    #[cfg(target_arch = "x86_64")]
    let m = zero_lanes_sse2(x);
    #[cfg(not(target_arch = "x86_64"))]
    let m = zero_lanes_portable(x);
    debug_assert_eq!(m, zero_lanes_portable(x));
    m
}

/// [`zero_lanes`] as a loop (other targets, and the check of the SSE2
/// form).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn zero_lanes_portable(x: &Lanes) -> u16 {
    let mut m = 0u16;
    for (i, &v) in x.iter().enumerate() {
        m |= u16::from(v == 0) << i;
    }
    m & USED_LANES
}

/// [`zero_lanes`] with SSE2: one compare with zero.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn zero_lanes_sse2(x: &Lanes) -> u16 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // always available; the only memory access is an unaligned 16-byte
    // load of `x`.
    unsafe {
        let v = _mm_loadu_si128(x.as_ptr().cast());
        _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) as u16 & USED_LANES
    }
}

/// The entries `i` of `m` that share a lane with `t`, as bits.
#[inline(always)]
fn hitting(m: &Slots, t: u16) -> u16 {
    #[cfg(target_arch = "x86_64")]
    let bits = hitting_sse2(m, t);
    #[cfg(not(target_arch = "x86_64"))]
    let bits = hitting_portable(m, t);
    debug_assert_eq!(bits, hitting_portable(m, t));
    bits
}

/// [`hitting`] as a loop (other targets, and the check of the SSE2 form).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn hitting_portable(m: &Slots, t: u16) -> u16 {
    let mut bits = 0u16;
    for (i, &x) in m.0.iter().enumerate() {
        bits |= u16::from(x & t != 0) << i;
    }
    bits
}

/// [`hitting`] with SSE2: eight 16-bit lanes at a time, the zero tests
/// packed to bytes for one byte mask.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn hitting_sse2(m: &Slots, t: u16) -> u16 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // always available; the only memory accesses are two unaligned
    // 16-byte loads within the 32-byte `m`.
    unsafe {
        let lo = _mm_loadu_si128(m.0.as_ptr().cast());
        let hi = _mm_loadu_si128(m.0.as_ptr().add(8).cast());
        let tb = _mm_set1_epi16(t as i16);
        let z = _mm_setzero_si128();
        let a = _mm_cmpeq_epi16(_mm_and_si128(lo, tb), z);
        let b = _mm_cmpeq_epi16(_mm_and_si128(hi, tb), z);
        !(_mm_movemask_epi8(_mm_packs_epi16(a, b)) as u16)
    }
}

/// Debug check of the one-step property the lane masks rely on: `to`, a
/// one-tile change of `from` (`added`: a tile more), moves each used lane
/// by at most one, down when a tile is added, up when one is removed.
#[inline(always)]
fn debug_one_step(from: &Lanes, to: &Lanes, added: bool) {
    #[cfg(debug_assertions)]
    for &lane in &ROW_LANE {
        let (a, b) = (from[lane], to[lane]);
        let ok = if added {
            b <= a && a <= b + 1
        } else {
            a <= b && b <= a + 1
        };
        assert!(ok, "lane {lane}: {a} -> {b} (added: {added})");
    }
    let _ = (from, to, added);
}

/// The used lanes of [`Lanes`] (`need[0..5][0]`, `need[0..5][1]`).
#[cfg(any(test, debug_assertions))]
const ROW_LANE: [usize; 10] = [0, 1, 2, 3, 4, P, P + 1, P + 2, P + 3, P + 4];

/// Unseen counts (each at most 4) as three bit planes, so that the copies
/// of a set of kinds add up with three population counts.
#[derive(Clone, Copy)]
struct Planes([u64; 3]);

impl Planes {
    #[inline]
    fn new(u: &Counts) -> Planes {
        #[cfg(target_arch = "x86_64")]
        let p = Planes::new_sse2(u);
        #[cfg(not(target_arch = "x86_64"))]
        let p = Planes::new_portable(u);
        debug_assert_eq!(p.0, Planes::new_portable(u).0);
        p
    }

    /// [`Planes::new`] with SSE2: bit `b` of every count moved to the top
    /// of its byte (a 16-bit shift keeps each byte's own bit there), then
    /// one byte mask per 16 counts.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn new_sse2(u: &Counts) -> Planes {
        use std::arch::x86_64::*;
        let mut padded = [0u8; 48];
        padded[..KINDS].copy_from_slice(u);
        let mut p = [0u64; 3];
        // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics
        // are always available; the only memory accesses are unaligned
        // 16-byte loads within the 48-byte `padded`.
        unsafe {
            for (w, chunk) in padded.chunks_exact(16).enumerate() {
                let x = _mm_loadu_si128(chunk.as_ptr().cast());
                let m = [
                    _mm_movemask_epi8(_mm_slli_epi16::<7>(x)),
                    _mm_movemask_epi8(_mm_slli_epi16::<6>(x)),
                    _mm_movemask_epi8(_mm_slli_epi16::<5>(x)),
                ];
                for (plane, m) in p.iter_mut().zip(m) {
                    *plane |= u64::from(m as u16) << (16 * w);
                }
            }
        }
        Planes(p)
    }

    /// [`Planes::new`] as word arithmetic (other targets, and the check of
    /// the SSE2 form).
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    #[inline(always)]
    fn new_portable(u: &Counts) -> Planes {
        let mut p = [0u64; 3];
        // Eight counts at a time: bit `b` of each byte gathered into one
        // byte (the multiply moves byte `j`'s bit to bit `56 + j`).
        for w in 0..5 {
            let mut bytes = [0u8; 8];
            let chunk = &u[8 * w..(8 * w + 8).min(KINDS)];
            bytes[..chunk.len()].copy_from_slice(chunk);
            let x = u64::from_le_bytes(bytes);
            for (b, plane) in p.iter_mut().enumerate() {
                let bits = (x >> b & LOW).wrapping_mul(0x0102_0408_1020_4080) >> 56;
                *plane |= bits << (8 * w);
            }
        }
        debug_assert!(
            (0..KINDS).all(|k| { (0..3).all(|b| (p[b] >> k & 1) as u8 == u[k] >> b & 1) })
        );
        Planes(p)
    }

    /// The kinds with a nonzero count.
    #[inline(always)]
    fn held(&self) -> u64 {
        self.0[0] | self.0[1] | self.0[2]
    }

    /// [`tallies`] of counts of at most 4 from their planes: a count holds
    /// a single when odd, one pair when 2 or 3 (bit 1), two when 4 (bit
    /// 2).
    #[inline(always)]
    fn tallies(&self) -> (u8, u8, u8, u8) {
        let [p0, p1, p2] = self.0;
        let pairs = p1.count_ones() + 2 * p2.count_ones();
        let twice = (p1 | p2) & ORPHANS;
        (
            pairs as u8,
            p0.count_ones() as u8,
            (self.held() & ORPHANS).count_ones() as u8,
            twice.count_ones() as u8,
        )
    }

    /// The unseen copies of the kinds in `m`.
    #[inline(always)]
    fn copies(&self, m: u64) -> u32 {
        let [a, b, c] = self.0;
        (m & a).count_ones() + 2 * (m & b).count_ones() + 4 * (m & c).count_ones()
    }
}

impl std::fmt::Debug for Groups {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Groups")
            .field("variant", &self.variant)
            .finish_non_exhaustive()
    }
}

/// The change of a [`group_pos`] of group `g` when one tile of its kind
/// `i` is added.
#[inline(always)]
fn pos_step(g: usize, i: usize) -> u64 {
    POS_STEP[usize::from(g == 3)][i]
}

/// First kind and number of kinds of group `g`.
#[inline(always)]
fn group_span(g: usize) -> (usize, usize) {
    debug_assert!(g < 4);
    // The honors start at 27 = 9 × 3 too: no branch for the first kind.
    (9 * g, if g < 3 { 9 } else { 7 })
}

impl Groups {
    /// Makes the entries valid for `calc`.
    fn prepare(&mut self, calc: &Calculator) {
        let variant = Some(calc.group_variant());
        if self.variant != variant {
            *self = Groups {
                variant,
                ..Groups::default()
            };
        }
    }

    /// `natural` followed by two zeros, so that every group's key is
    /// nine counts from `9 g` on.
    #[inline(always)]
    fn padded(natural: &Counts) -> [u8; 36] {
        let mut p = [0u8; 36];
        p[..KINDS].copy_from_slice(natural);
        p
    }

    /// [`group_key`] from [`Groups::padded`] counts, without a branch on
    /// the group (the honors are a group like the suits here).
    #[inline(always)]
    fn key_padded(padded: &[u8; 36], g: usize) -> [u8; 9] {
        let mut key = [0u8; 9];
        key.copy_from_slice(&padded[9 * g..9 * g + 9]);
        key
    }

    /// Makes the entries those of the natural counts `natural` and returns
    /// every group's needs (inlined: it is most of a base's work). Until
    /// the next call, [`Groups::after`] and [`Groups::swapped`] answer for
    /// `natural` only.
    #[inline(always)]
    fn sync(&mut self, calc: &Calculator, natural: &Counts) -> [Lanes; 4] {
        // The groups to look up again: those that changed since the last
        // sync, and those never synced (or cleared).
        let stale = changed_groups(&self.last, natural) | (!self.synced & 0xf);
        if stale != 0 {
            let padded = Groups::padded(natural);
            // Unrolled by group (a constant group makes the look-ups
            // cheaper than a loop over the stale bits).
            for (g, e) in self.entries.iter_mut().enumerate() {
                if stale >> g & 1 == 0 {
                    continue;
                }
                let key = Groups::key_padded(&padded, g);
                debug_assert_eq!(key, group_key(natural, g));
                self.halves_ok &= !(1 << (g >> 1));
                e.valid = true;
                e.counts = key;
                e.pos = group_pos(g, &key);
                e.lanes = calc.lanes_at(g, e.pos);
                // One-tile changes are looked up as they are asked for;
                // the others keep stale values, which callers mask out.
                e.rem_ok = 0;
                e.add_ok = 0;
                e.swap_ok = [0; 9];
            }
            self.last = *natural;
            self.synced = 0xf;
        }
        let e = &self.entries;
        let out = [e[0].lanes, e[1].lanes, e[2].lanes, e[3].lanes];
        #[cfg(debug_assertions)]
        for (g, e) in self.entries.iter().enumerate() {
            assert!(e.valid && e.counts == group_key(natural, g));
            assert_eq!(needs_of(&e.lanes), needs_of(&calc.group_lanes(natural, g)));
        }
        out
    }

    /// The products of groups 0 × 1 and 2 × 3 for the counts of the last
    /// [`Groups::sync`], as kept or computed afresh.
    #[inline(always)]
    fn halves(&mut self) -> [Lanes; 2] {
        for h in 0..2 {
            if self.halves_ok >> h & 1 == 0 {
                let e = &self.entries;
                self.halves[h] = combine(&e[2 * h].lanes, &e[2 * h + 1].lanes);
            }
        }
        self.halves_ok = 3;
        debug_assert!((0..2).all(|h| {
            let e = &self.entries;
            self.halves[h] == combine(&e[2 * h].lanes, &e[2 * h + 1].lanes)
        }));
        self.halves
    }

    /// The entry of group `g`, synchronized with `natural`.
    #[inline(always)]
    fn entry(&mut self, natural: &Counts, g: usize) -> &mut GroupEntry {
        let e = &mut self.entries[g];
        debug_assert!(e.valid && e.counts == group_key(natural, g));
        e
    }

    /// The needs of kind `k`'s group after removing one natural tile of
    /// kind `k` (held), for the counts of the last [`Groups::sync`].
    #[inline(always)]
    fn after(&mut self, calc: &Calculator, natural: &Counts, k: usize) -> Lanes {
        let g = group_of(k);
        let i = k - group_span(g).0;
        let e = self.entry(natural, g);
        if e.rem_ok >> i & 1 == 0 {
            e.fill_removal(calc, g, i);
            e.rem_ok |= 1 << i;
        }
        debug_assert_eq!(needs_of(&e.rem[i]), {
            let mut c = *natural;
            c[k] -= 1;
            needs_of(&calc.group_lanes(&c, g))
        });
        e.rem[i]
    }

    /// The lanes of group `g` that stay when one tile of each held kind
    /// (`held`: the kinds of `natural` held, as a mask) is removed (the
    /// other entries are stale), for the counts of the last
    /// [`Groups::sync`].
    #[inline(always)]
    fn removed(&mut self, calc: &Calculator, natural: &Counts, g: usize, held: u64) -> &Slots {
        let lo = group_span(g).0;
        let held = (held >> lo) as u16 & 0x1ff;
        let e = self.entry(natural, g);
        let mut missing = held & !e.rem_ok;
        e.rem_ok |= missing;
        while missing != 0 {
            let i = missing.trailing_zeros() as usize;
            missing &= missing - 1;
            e.fill_removal(calc, g, i);
        }
        #[cfg(debug_assertions)]
        for i in 0..group_span(g).1 {
            if held >> i & 1 == 1 {
                let mut c = *natural;
                c[lo + i] -= 1;
                assert_eq!(needs_of(&e.rem[i]), needs_of(&calc.group_lanes(&c, g)));
                let stay = ROW_LANE
                    .iter()
                    .fold(0u16, |m, &l| m | u16::from(e.rem[i][l] == e.lanes[l]) << l);
                assert_eq!(e.rem_kept.0[i], stay);
            }
        }
        &e.rem_kept
    }

    /// The lanes of group `g` that one natural tile of each kind of `need`
    /// (kinds of group `g`, held at most 3 times) added lowers (the other
    /// entries are stale), for the counts of the last [`Groups::sync`]
    /// (which must hold at most 13 tiles in the group: the tables stop at
    /// 14).
    #[inline(always)]
    fn added(&mut self, calc: &Calculator, natural: &Counts, g: usize, need: u64) -> &Slots {
        let lo = group_span(g).0;
        let e = self.entry(natural, g);
        let need = (need >> lo) as u16;
        let missing = need & !e.add_ok;
        // The look-ups apart: most calls find every slot kept.
        if missing != 0 {
            e.fill_added(calc, g, missing);
        }
        #[cfg(debug_assertions)]
        for i in (0..group_span(g).1).filter(|&i| need >> i & 1 == 1) {
            let mut c = *natural;
            c[lo + i] += 1;
            let add = lanes_of(&calc.group(&c, g));
            assert_eq!(e.add.0[i], lanes_below(&add, &e.lanes));
        }
        &e.add
    }

    /// The lanes of the needs of the group of kind `t` (held) without one
    /// tile of `t` that one tile of each kind of `need` (kinds of the
    /// group, held at most 3 times once `t` is removed) added lowers
    /// (entry `t`: the group as it is; the other entries are stale), for
    /// the counts of the last [`Groups::sync`]. The needs without `t`
    /// ([`Groups::after`]) must be kept.
    #[inline]
    fn swapped(&mut self, calc: &Calculator, natural: &Counts, t: usize, need: u64) -> &Slots {
        let g = group_of(t);
        let lo = group_span(g).0;
        let i = t - lo;
        let e = self.entry(natural, g);
        debug_assert!(e.rem_ok >> i & 1 == 1);
        let need = (need >> lo) as u16;
        let missing = need & !e.swap_ok[i];
        if missing != 0 {
            e.swap_ok[i] |= missing;
            let pos = e.pos - pos_step(g, i);
            let rem = e.rem[i];
            let slots = &mut e.swap[i];
            // Drawing the discarded tile back restores the group.
            if missing >> i & 1 == 1 {
                debug_one_step(&rem, &e.lanes, true);
                slots.0[i] = lanes_moved(&e.lanes, &rem);
            }
            calc.lanes_added(g, pos, missing & !(1 << i), |j, add| {
                debug_one_step(&rem, &add, true);
                slots.0[j & 15] = lanes_moved(&add, &rem);
            });
        }
        #[cfg(debug_assertions)]
        for j in (0..group_span(g).1).filter(|&j| need >> j & 1 == 1) {
            let mut c = *natural;
            c[t] -= 1;
            let rem = lanes_of(&calc.group(&c, g));
            c[lo + j] += 1;
            let add = lanes_of(&calc.group(&c, g));
            assert_eq!(e.swap[i].0[j], lanes_below(&add, &rem));
        }
        &e.swap[i]
    }
}

// ---------------------------------------------------------------------------
// One decision.

/// Allowed shanten cost of a safe discard over the best unsafe one while
/// the agent is still close to ready.
const SAFE_ALLOWANCE: i8 = 1;
/// From this shanten on, the agent folds: safe tiles at any cost.
const FOLD_SHANTEN: i8 = 2;
/// Highest shanten at which ties are split by counting improving tiles.
const UKEIRE_SHANTEN: i8 = 1;

/// Ranks ting discards (smaller is better): wild, live, value, keep, index.
type TingKey = (bool, u32, u32, u32, usize);

/// A discard candidate's sort key: smaller is a better discard. The
/// order of the tuple (wild, shanten, not junk, fewer improving tiles,
/// keep value, tile index), each field in its own bits of one integer (so
/// that the best candidate is a branch-free minimum). The improving tiles
/// start at 0 and are counted in later ([`with_quality`]).
#[inline(always)]
fn cand_key(wild: bool, sh: i8, junk: bool, keep: u32, k: usize) -> u64 {
    // Bit 63 stays free (the pick of a safe tile uses it); the tile index
    // is the low 6 bits.
    debug_assert!(keep < 1 << 15 && k < 64);
    u64::from(wild) << 62
        | ((i16::from(sh) + 128) as u64) << 54
        | u64::from(!junk) << 53
        | u64::from(u32::MAX) << 21
        | u64::from(keep) << 6
        | k as u64
}

/// [`cand_key`] with `quality` improving tiles (the key had none).
#[inline(always)]
fn with_quality(key: u64, quality: u32) -> u64 {
    debug_assert_eq!(key >> 21 & u64::from(u32::MAX), u64::from(u32::MAX));
    key - (u64::from(quality) << 21)
}

/// The shanten field of a [`cand_key`].
#[inline(always)]
fn key_shanten(key: u64) -> i8 {
    ((key >> 54 & 0xff) as i16 - 128) as i8
}

/// The deficiencies after discarding one natural tile of each kind
/// ([`Ctx::removal_deficiencies`]).
struct Removal {
    /// The standard shape's deficiency of the hand.
    standard: u8,
    /// The kinds whose removal raises it (by one).
    raises: u64,
    /// Seven pairs' and thirteen orphans' (the smaller) after removing
    /// from a count of `n`: `special[5 * orphan + n]` (`orphan`: 1 for
    /// the thirteen-orphans kinds).
    special: [u8; 10],
}

impl Removal {
    /// The deficiency after discarding one of kind `k`, held `n > 0`
    /// times.
    #[inline(always)]
    fn of(&self, k: usize, n: u8) -> u8 {
        let i = 5 * (ORPHANS >> k & 1) as usize + n as usize;
        (self.standard + (self.raises >> k & 1) as u8).min(self.special[i.min(9)])
    }
}

/// `ORPHAN_FIVE[k]`: 5 for the thirteen-orphans kinds, else 0 (the
/// class offset of [`Removal::special`]), padded to 48 bytes.
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
const ORPHAN_FIVE: [u8; 48] = {
    let mut t = [0u8; 48];
    let mut k = 0;
    while k < KINDS {
        if ORPHANS >> k & 1 == 1 {
            t[k] = 5;
        }
        k += 1;
    }
    t
};

/// The shanten level (`shanten + 1`, a ready hand that cannot declare
/// counting as one step from ready) after discarding one natural tile
/// of each kind, by kind ([`Removal::of`] with the count held, then the
/// wild tiles `w`); meaningless for the kinds not held, 0 past the last
/// kind.
#[inline(always)]
fn removal_levels(r: &Removal, natural: &Counts, w: u8, ting_required: bool) -> [u8; 48] {
    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
    let lv = removal_levels_ssse3(r, natural, w, ting_required);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "ssse3")))]
    let lv = removal_levels_portable(r, natural, w, ting_required);
    debug_assert_eq!(lv, removal_levels_portable(r, natural, w, ting_required));
    lv
}

/// [`removal_levels`] kind by kind (builds without SSSE3, and the check
/// of the vector form).
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "ssse3"),
    allow(dead_code)
)]
fn removal_levels_portable(r: &Removal, natural: &Counts, w: u8, ting_required: bool) -> [u8; 48] {
    let mut lv = [0u8; 48];
    for (k, (l, &n)) in lv.iter_mut().zip(natural.iter()).enumerate() {
        let q = r.of(k, n).saturating_sub(w);
        *l = q + u8::from(ting_required & (q == 1));
    }
    lv
}

/// [`removal_levels`] 16 kinds at a time: the raising kinds' bits spread
/// to bytes, the seven-pairs and orphans class looked up by one byte
/// shuffle (SSSE3, part of the x86-64-v2 level the release builds
/// target).
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
#[inline(always)]
fn removal_levels_ssse3(r: &Removal, natural: &Counts, w: u8, ting_required: bool) -> [u8; 48] {
    use std::arch::x86_64::*;
    let mut padded = [0u8; 48];
    padded[..KINDS].copy_from_slice(natural);
    let mut special = [0u8; 16];
    special[..10].copy_from_slice(&r.special);
    let mut out = [0u8; 48];
    // SAFETY: SSSE3 (and so SSE2) is enabled at compile time (the cfg
    // above); the loads and stores are of 16-byte chunks within 16- and
    // 48-byte arrays.
    unsafe {
        let table = _mm_loadu_si128(special.as_ptr().cast());
        let standard = _mm_set1_epi8(r.standard as i8);
        let wv = _mm_set1_epi8(w as i8);
        let one = _mm_set1_epi8(1);
        let tr = _mm_set1_epi8(i8::from(ting_required));
        let bit_of = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
        let spread = _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
        for c in 0..3 {
            let n = _mm_loadu_si128(padded[16 * c..].as_ptr().cast());
            let idx = _mm_add_epi8(n, _mm_loadu_si128(ORPHAN_FIVE[16 * c..].as_ptr().cast()));
            let special = _mm_shuffle_epi8(table, idx);
            let bits = _mm_set1_epi16((r.raises >> (16 * c)) as u16 as i16);
            let bits = _mm_and_si128(_mm_shuffle_epi8(bits, spread), bit_of);
            let raised = _mm_and_si128(_mm_cmpeq_epi8(bits, bit_of), one);
            let d = _mm_min_epu8(_mm_add_epi8(standard, raised), special);
            let q = _mm_subs_epu8(d, wv);
            let lv = _mm_add_epi8(q, _mm_and_si128(_mm_cmpeq_epi8(q, one), tr));
            _mm_storeu_si128(out[16 * c..].as_mut_ptr().cast(), lv);
        }
    }
    out[KINDS..].fill(0);
    out
}

/// The kinds whose byte in `lv` ([`removal_levels`]) is `level`, as a
/// mask.
#[inline(always)]
fn kinds_at_level(lv: &[u8; 48], level: u8) -> u64 {
    #[cfg(target_arch = "x86_64")]
    let m = kinds_at_level_sse2(lv, level);
    #[cfg(not(target_arch = "x86_64"))]
    let m = kinds_at_level_portable(lv, level);
    debug_assert_eq!(m, kinds_at_level_portable(lv, level));
    m
}

/// [`kinds_at_level`] kind by kind (other targets, and the check of the
/// SSE2 form).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn kinds_at_level_portable(lv: &[u8; 48], level: u8) -> u64 {
    let mut m = 0u64;
    for (k, &l) in lv.iter().enumerate().take(KINDS) {
        m |= u64::from(l == level) << k;
    }
    m
}

/// [`kinds_at_level`] with SSE2: one compare and byte mask per 16 kinds.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn kinds_at_level_sse2(lv: &[u8; 48], level: u8) -> u64 {
    use std::arch::x86_64::*;
    let mut m = 0u64;
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // always available; the loads are of 16-byte chunks of `lv`.
    unsafe {
        let l = _mm_set1_epi8(level as i8);
        for c in 0..3 {
            let x = _mm_loadu_si128(lv[16 * c..].as_ptr().cast());
            m |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(x, l)) as u16) << (16 * c);
        }
    }
    m & ((1u64 << KINDS) - 1)
}

/// Public facts about the declared opponents, for the 包胡 defence.
#[derive(Clone, Copy)]
#[cfg_attr(any(test, debug_assertions), derive(Debug, PartialEq))]
struct Threat {
    /// Declared opponents (never the agent itself).
    ting: [bool; 4],
    /// Kinds each declared opponent has let pass since declaring.
    passed: [u64; 4],
    /// Kinds each opponent holds a visible kong of.
    kongs: [u64; 4],
    /// Opponents with at least one meld (no thirteen orphans).
    melded: [bool; 4],
}

struct Ctx<'a> {
    game: &'a Game,
    groups: &'a mut Groups,
    seat: u8,
    hand: &'a Hand,
    wilds: Wildcards,
    shape: ShapeRules,
    calc: &'a Calculator,
    /// The wild kinds as a mask.
    wild_mask: u64,
    /// The void suit's kinds as a mask (0 outside Sichuan).
    void_mask: u64,
    family: Family,
    ting_required: bool,
    min_self: u8,
    min_discard: u8,
    /// Sichuan: the suit to clear (缺一门).
    void: Option<usize>,
    unseen: Option<Counts>,
}

/// The kinds of the legal actions of one per-kind family (discards,
/// tings, concealed or added kongs), whose dense indices start at `base`.
#[inline(always)]
fn kinds_from(legal: &ActionMask, base: usize) -> u64 {
    let i = base / 64;
    let next = legal.0.get(i + 1).copied().unwrap_or(0);
    let w = u128::from(legal.0[i]) | u128::from(next) << 64;
    (w >> (base % 64)) as u64 & ((1u64 << KINDS) - 1)
}

/// 缺一门: the suit with the fewest tiles among those without a meld
/// (ties: the lower suit).
fn void_suit(hand: &Hand) -> Option<usize> {
    let mut best: Option<(u8, usize)> = None;
    for s in 0..3 {
        if hand.melds().iter().any(|m| m.tile.index() / 9 == s) {
            continue;
        }
        let n: u8 = hand.concealed[9 * s..9 * s + 9].iter().sum();
        if best.is_none_or(|(b, _)| n < b) {
            best = Some((n, s));
        }
    }
    best.map(|(_, s)| s)
}

#[inline]
fn bit(k: usize) -> u64 {
    1u64 << k
}

impl<'a> Ctx<'a> {
    #[inline(always)]
    fn new(
        game: &'a Game,
        seat: u8,
        groups: &'a mut Groups,
        setup: &'a mut Option<Box<Setup>>,
    ) -> Ctx<'a> {
        let rules = game.rules();
        let wilds = game.wilds();
        let shape = ShapeRules::from(rules);
        let hand = game.hand(seat);
        let (min_self, min_discard) = rules.point_rule.minimums();
        let setup = Setup::refresh(setup, wilds, shape);
        let calc = &setup.calc;
        groups.prepare(calc);
        let void = if rules.family == Family::Sichuan {
            void_suit(hand)
        } else {
            None
        };
        Ctx {
            game,
            groups,
            seat,
            hand,
            wilds,
            shape,
            calc,
            wild_mask: setup.wild_mask,
            void_mask: void.map_or(0, |s| GROUP_KINDS[s]),
            family: rules.family,
            ting_required: rules.ting_required,
            min_self,
            min_discard,
            void,
            unseen: None,
        }
    }

    #[inline]
    fn is_void(&self, k: usize) -> bool {
        debug_assert_eq!(
            self.void_mask >> k & 1 == 1,
            self.void == Some(k / 9) && k < 27
        );
        self.void_mask >> k & 1 == 1
    }

    /// The counts the shape analysis sees: void-suit tiles left out.
    fn eff(&self, c: &Counts) -> Counts {
        let mut e = *c;
        if let Some(s) = self.void {
            e[9 * s..9 * s + 9].fill(0);
        }
        e
    }

    /// The natural counts and the number of wild tiles that the shape
    /// analysis sees in `c` ([`Wildcards::split`] of [`Ctx::eff`]), on
    /// one copy of the counts, the wild kinds read from their mask.
    #[inline(always)]
    fn split(&self, c: &Counts) -> (Counts, u8) {
        let mut natural = *c;
        if let Some(s) = self.void {
            natural[9 * s..9 * s + 9].fill(0);
        }
        let mut w = 0;
        let mut m = self.wild_mask;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            w += natural[k];
            natural[k] = 0;
        }
        debug_assert_eq!((natural, w), self.wilds.split(&self.eff(c)));
        (natural, w)
    }

    /// The shanten of the hand `c` with `melds` melds, from the kept group
    /// needs and two products (the shanten module's own formula).
    fn shanten(&mut self, c: &Counts, melds: usize) -> i8 {
        let (natural, w) = self.split(c);
        let g = self.groups.sync(self.calc, &natural);
        let halves = self.groups.halves();
        // A base's deficiency (the vector form of the standard shape's
        // and the special shapes' from the bit planes), of which only
        // the shanten is kept: the rest is never stored.
        let s = Base::with_halves(natural, w, melds, g, halves, &self.shape).shanten();
        debug_assert_eq!(
            s,
            self.calc
                .of_halves(&natural, &halves[0], &halves[1], w, melds)
        );
        s
    }

    fn base(&mut self, c: &Counts, melds: usize) -> Base {
        let mut b = self.base_without_partners(c, melds);
        b.fill_partners(false);
        b
    }

    /// [`Ctx::base`] with no partner computed yet ([`Base::fill_partner`]
    /// computes them as they are asked for).
    #[inline(always)]
    fn base_without_partners(&mut self, c: &Counts, melds: usize) -> Base {
        let (natural, w) = self.split(c);
        let groups = self.groups.sync(self.calc, &natural);
        let halves = self.groups.halves();
        Base::with_halves(natural, w, melds, groups, halves, &self.shape)
    }

    /// [`Base::shanten_without`] through the kept group needs.
    fn shanten_without(&mut self, b: &Base, k: usize) -> i8 {
        if self.is_wild(k) || b.natural[k] == 0 {
            b.shanten_without(self.calc, &self.wilds, k)
        } else {
            let x = self.groups.after(self.calc, &b.natural, k);
            b.shanten_with(k, false, &x)
        }
    }

    #[inline]
    fn is_wild(&self, k: usize) -> bool {
        debug_assert_eq!(
            self.wild_mask >> k & 1 == 1,
            self.wilds.is_wild(Tile::from_index_unchecked(k as u8))
        );
        self.wild_mask >> k & 1 == 1
    }

    /// The wild kinds as a mask.
    #[inline]
    fn wild_mask(&self) -> u64 {
        self.wild_mask
    }

    /// Copies of each kind the agent cannot see (its own tiles, face-up
    /// discards, visible melds and face-up wall tiles are seen); 0 for
    /// kinds not in play.
    fn unseen(&mut self) -> Counts {
        if let Some(u) = self.unseen {
            return u;
        }
        let g = self.game;
        let me = self.seat;
        // Its own tiles, the face-up discards and the melds all see.
        let mut vis = self.hand.concealed;
        for ((v, &p), &m) in vis.iter_mut().zip(g.pond()).zip(g.meld_counts()) {
            *v += p + m;
        }
        // Its own concealed kongs, where the others cannot see them.
        if g.rules().hide_concealed_kong {
            for m in self.hand.melds() {
                if m.kind == MeldKind::ConcealedKong {
                    vis[m.tile.index()] += 4;
                }
            }
        }
        // Its own ting discard, face down (it opens no responses, so it
        // is never claimed).
        if g.is_ting(me) {
            if let Some(d) = g.discards().iter().find(|d| d.face_down && d.seat == me) {
                vis[d.tile.index()] += 1;
            }
        }
        let u = self.unseen_of(vis);
        #[cfg(debug_assertions)]
        assert_eq!(u, self.unseen_plain());
        self.unseen = Some(u);
        u
    }

    /// [`Ctx::unseen`] with every discard counted afresh: its check in
    /// debug builds and tests.
    #[cfg(any(test, debug_assertions))]
    fn unseen_plain(&self) -> Counts {
        let g = self.game;
        let me = self.seat;
        let mut vis = self.hand.all_counts();
        for d in g.discards() {
            vis[d.tile.index()] += u8::from(!d.claimed & (!d.face_down | (d.seat == me)));
        }
        self.unseen_from(vis)
    }

    /// The unseen counts from the copies seen in the agent's hand and the
    /// discards (`vis`), adding the other seats' visible melds and the
    /// face-up wall tiles: [`Ctx::unseen`] from the discards and melds
    /// counted afresh, its check in debug builds and tests.
    #[cfg(any(test, debug_assertions))]
    fn unseen_from(&self, mut vis: Counts) -> Counts {
        let g = self.game;
        let me = self.seat;
        let hide = g.rules().hide_concealed_kong;
        for s in (0..4u8).filter(|&s| s != me) {
            for tm in g.table_melds(s) {
                if hide && tm.meld.kind == MeldKind::ConcealedKong {
                    continue;
                }
                vis[tm.meld.tile.index()] += tm.meld.kind.size();
            }
        }
        self.unseen_of(vis)
    }

    /// The unseen counts from the copies seen in hands, discards and
    /// melds (`vis`), adding the face-up wall tiles.
    #[inline]
    fn unseen_of(&self, mut vis: Counts) -> Counts {
        let g = self.game;
        let revealed = g.deal().revealed as usize;
        if revealed > 0 {
            let tiles = g.deal().wall.tiles();
            let w = g.wall();
            // Once drawn, an indicator is in some hand, not face up.
            let first = (tiles.len() - revealed).max(w.head());
            for t in tiles.get(first..w.tail()).unwrap_or(&[]) {
                vis[t.index()] += 1;
            }
        }
        let kinds = g.rules().tile_total() / 4;
        // Every kind at once (a fixed-length loop the compiler vectorizes),
        // then the kinds not in play cleared.
        let mut u = [0u8; KINDS];
        for (u, &v) in u.iter_mut().zip(vis.iter()) {
            *u = 4u8.saturating_sub(v);
        }
        u[kinds.min(KINDS)..].fill(0);
        u
    }

    fn decide(&mut self, legal: ActionMask) -> Action {
        if legal.contains(Action::Win) {
            return Action::Win;
        }
        match self.game.phase() {
            Phase::Respond { tile, .. } => self.respond(legal, tile),
            _ => self.turn(legal),
        }
    }

    // -- Answering a discard or an added kong.

    fn respond(&mut self, legal: ActionMask, t: Tile) -> Action {
        let k = t.index();
        let ting = self.game.is_ting(self.seat);
        let c = self.hand.concealed;
        let n = self.hand.n_melds();
        if legal.contains(Action::Kong) && !self.is_void(k) {
            if ting {
                return Action::Kong;
            }
            let now = self.shanten(&c, n);
            let mut after = c;
            after[k] -= 3;
            if self.shanten(&after, n + 1) <= now {
                return Action::Kong;
            }
        }
        if legal.contains(Action::Pong) && !ting && !self.is_void(k) {
            let now = self.shanten(&c, n);
            let mut after = c;
            after[k] -= 2;
            if self.best_discard_shanten_below(&after, n + 1, now) {
                return Action::Pong;
            }
        }
        Action::Pass
    }

    /// Whether [`Ctx::best_discard_shanten`] is below `cut`: not when the
    /// 14-type hand itself is not (a discard never lowers the shanten: a
    /// tile less never lowers a need, a wild tile less is one wild fewer),
    /// which needs no discard analysis.
    fn best_discard_shanten_below(&mut self, c: &Counts, melds: usize, cut: i8) -> bool {
        // The partners only when the discards are analysed.
        let mut b = self.base_without_partners(c, melds);
        if b.shanten() >= cut {
            #[cfg(debug_assertions)]
            {
                let mut full = b;
                full.fill_partners(false);
                assert!(self.best_discard_shanten_of(&full, c) >= b.shanten());
            }
            return false;
        }
        b.fill_partners(false);
        self.best_discard_shanten_of(&b, c) < cut
    }

    /// Lowest shanten over the non-wild discards of a 14-type hand.
    fn best_discard_shanten(&mut self, c: &Counts, melds: usize) -> i8 {
        let b = self.base(c, melds);
        self.best_discard_shanten_of(&b, c)
    }

    /// [`Ctx::best_discard_shanten`] of the hand `c`, whose base is `b`.
    #[inline(always)]
    fn best_discard_shanten_of(&mut self, b: &Base, c: &Counts) -> i8 {
        // A local copy (fewer instructions than reading through the
        // reference across the `&mut self` calls below).
        let b = *b;
        // The natural discards all at once (the shanten grows with the
        // deficiency); a void-suit tile leaves the hand's deficiency, a
        // wild one also one wild fewer.
        let natural = b.held;
        let removal = self.removal_deficiencies(&b, natural);
        let mut d = u8::MAX;
        let mut m = natural;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            d = d.min(removal.of(k, b.natural[k]));
        }
        let mut held = natural;
        let mut m = self.wild_mask | self.void_mask;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            held |= u64::from(c[k] > 0) << k;
        }
        if held & !natural & !self.wild_mask != 0 {
            d = d.min(b.d);
        }
        let s = if d != u8::MAX {
            Base::to_shanten(d, b.w)
        } else if held & self.wild_mask != 0 {
            Base::to_shanten(b.d, b.w.saturating_sub(1))
        } else {
            i8::MAX
        };
        debug_assert_eq!(s, self.best_discard_shanten_plain(&b, c));
        s
    }

    /// [`Ctx::best_discard_shanten`] one discard at a time: its check in
    /// debug builds.
    fn best_discard_shanten_plain(&mut self, b: &Base, c: &Counts) -> i8 {
        let mut best = i8::MAX;
        let mut any_wild = i8::MAX;
        for (k, &n) in c.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let s = self.shanten_without(b, k);
            if self.is_wild(k) {
                any_wild = any_wild.min(s);
            } else {
                best = best.min(s);
            }
        }
        if best == i8::MAX {
            any_wild
        } else {
            best
        }
    }

    // -- The agent's own turn.

    fn turn(&mut self, legal: ActionMask) -> Action {
        let ting = self.game.is_ting(self.seat);
        // The legal actions read as per-kind masks: an iterator over the
        // action set costs hundreds of instructions and mispredicted
        // branches per turn.
        let discards = kinds_from(
            &legal,
            Action::Discard(Tile::from_index_unchecked(0)).index(),
        );
        let tings = kinds_from(&legal, Action::Ting(Tile::from_index_unchecked(0)).index());
        let mut kongs = [None::<Action>; 8];
        let mut n_kongs = 0;
        // Concealed kongs first, then added ones, each by kind (the order
        // of the action set).
        for (mut m, kong) in [
            (
                kinds_from(
                    &legal,
                    Action::ConcealedKong(Tile::from_index_unchecked(0)).index(),
                ),
                Action::ConcealedKong as fn(Tile) -> Action,
            ),
            (
                kinds_from(
                    &legal,
                    Action::AddedKong(Tile::from_index_unchecked(0)).index(),
                ),
                Action::AddedKong,
            ),
        ] {
            while m != 0 && n_kongs < kongs.len() {
                let k = m.trailing_zeros() as u8;
                m &= m - 1;
                kongs[n_kongs] = Some(kong(Tile::from_index_unchecked(k)));
                n_kongs += 1;
            }
        }
        let any_discard = discards != 0;
        let any_ting = tings != 0;
        if !any_discard && !any_ting {
            // The Linxian last live tile that does not win.
            if legal.contains(Action::Pass) {
                return Action::Pass;
            }
            return kongs[0].unwrap_or(Action::Pass);
        }
        if ting {
            if let Some(k) = kongs[0] {
                return k;
            }
            if discards == 0 {
                return Action::Pass;
            }
            return Action::Discard(Tile::from_index_unchecked(discards.trailing_zeros() as u8));
        }
        if n_kongs > 0 {
            if let Some(k) = self.good_kong(&kongs[..n_kongs]) {
                return k;
            }
        }
        if any_ting {
            if let Some(t) = self.best_ting(tings) {
                return Action::Ting(t);
            }
        }
        match self.best_discard(discards) {
            Some(t) => Action::Discard(t),
            None => legal
                .iter()
                .find(|&a| a != Action::Leave)
                .unwrap_or(Action::Pass),
        }
    }

    /// A kong that does not raise the shanten over the best discard (and,
    /// for an added kong, may not be robbed for 包胡).
    fn good_kong(&mut self, kongs: &[Option<Action>]) -> Option<Action> {
        let c = self.hand.concealed;
        let n = self.hand.n_melds();
        let best = self.best_discard_shanten(&c, n);
        let threat = self.threat();
        for a in kongs.iter().flatten() {
            let (k, after, melds) = match *a {
                Action::ConcealedKong(t) => {
                    let mut x = c;
                    x[t.index()] = 0;
                    (t.index(), x, n + 1)
                }
                Action::AddedKong(t) => {
                    let mut x = c;
                    x[t.index()] -= 1;
                    (t.index(), x, n)
                }
                _ => continue,
            };
            if self.is_void(k) {
                continue;
            }
            if matches!(a, Action::AddedKong(_)) {
                if let Some(th) = &threat {
                    if self.dangerous(th, k) {
                        continue;
                    }
                }
            }
            if self.shanten(&after, melds) <= best {
                return Some(*a);
            }
        }
        None
    }

    /// The best legal ting discard (`tings`: the kinds of the legal ting
    /// discards).
    fn best_ting(&mut self, tings: u64) -> Option<Tile> {
        let c = self.hand.concealed;
        let n = self.hand.n_melds();
        let unseen = self.unseen();
        let keep = Keep::new(&c, self.family);
        let mut best: Option<(TingKey, Tile)> = None;
        for k in 0..KINDS {
            let t = Tile::from_index_unchecked(k as u8);
            if c[k] == 0 || tings & bit(k) == 0 {
                continue;
            }
            let mut h = c;
            h[k] -= 1;
            let mut held = self.hand.all_counts();
            held[k] -= 1;
            let w = waits_counts(&h, &held, n, &self.wilds, &self.shape);
            let (live, value) = self.wait_quality(&w, &unseen);
            let key = (
                self.is_wild(k),
                u32::MAX - live,
                u32::MAX - value,
                keep.checked(&c, k, self.family),
                k,
            );
            if best.is_none_or(|(b, _)| key < b) {
                best = Some((key, t));
            }
        }
        best.map(|(_, t)| t)
    }

    /// Live winning copies, and their value, of a ready hand's waits.
    fn wait_quality(&self, w: &Waits, unseen: &Counts) -> (u32, u32) {
        let mut live = 0u32;
        let mut value = 0u32;
        for (t, p) in w.iter() {
            if self.is_void(t.index()) {
                continue;
            }
            let n = unseen[t.index()] as u32;
            if !self.ting_required {
                live += n;
                value += n;
                continue;
            }
            if p < self.min_self {
                continue;
            }
            live += n;
            let on_discard = p >= self.min_discard && !self.is_wild(t.index());
            value += n * p as u32 * if on_discard { 2 } else { 1 };
        }
        (live, value)
    }

    /// Kinds that may lower the shanten of a hand holding `natural`: the
    /// kinds within two ranks of a held suited tile, held honors (every
    /// honor of the subgroup with 风嘴子), the orphans when thirteen
    /// orphans is possible. A far tile can only start a new group, which
    /// never helps a hand that already has a spare tile.
    fn near(&self, natural: &Counts, orphans: bool) -> u64 {
        // On masks (which kinds are held is random data).
        let [p0, p1, p2] = Planes::new(natural).0;
        let held = p0 | p1 | p2;
        let mut near = 0u64;
        for kinds in &GROUP_KINDS[..3] {
            let h = held & kinds;
            near |= (h | h << 1 | h << 2 | h >> 1 | h >> 2) & kinds;
        }
        let honors = held & GROUP_KINDS[3];
        near |= if self.shape.wind_sets {
            let (winds, dragons) = (0xfu64 << 27, 0x7u64 << 31);
            (winds & (u64::from(honors & winds != 0)).wrapping_neg())
                | (dragons & (u64::from(honors & dragons != 0)).wrapping_neg())
        } else {
            honors
        };
        if orphans {
            near |= ORPHANS;
        }
        #[cfg(debug_assertions)]
        assert_eq!(near, self.near_plain(natural, orphans));
        near
    }

    /// [`Ctx::near`] kind by kind, its check in debug builds.
    #[cfg(debug_assertions)]
    fn near_plain(&self, natural: &Counts, orphans: bool) -> u64 {
        let mut near = 0u64;
        for (k, &n) in natural.iter().enumerate() {
            if n == 0 {
                continue;
            }
            if k < 27 {
                let r = k % 9;
                let lo = k - r.min(2);
                let hi = (k - r + 8).min(k + 2);
                for j in lo..=hi {
                    near |= bit(j);
                }
            } else if self.shape.wind_sets {
                near |= if k < 31 { 0xf << 27 } else { 0x7 << 31 };
            } else {
                near |= bit(k);
            }
        }
        if orphans {
            near |= ORPHANS;
        }
        near
    }

    /// Live copies of the tiles that lower the shanten of the 13-type hand
    /// left by discarding a tile of kind `t` (`wild` or not, leaving the
    /// deficiency `d`) from the hand of `b14` (`masks`
    /// its counts). `near` holds the natural kinds worth trying (live,
    /// outside the void suit, near the hand), `wild_copies` the live
    /// copies of the wild kinds, `planes` the unseen counts.
    ///
    /// Each group's candidates are tested at once: the lanes of the
    /// group's needs that one tile of each kind added (or, in the
    /// discarded tile's own group, swapped in for it) lowers are kept by
    /// [`Groups`], and [`hitting`] compares all of them with the lanes
    /// tight against the other groups' product, so there is no branch per
    /// kind on random data.
    #[inline(always)]
    fn ukeire(
        &mut self,
        b14: &Base,
        masks: &CountMasks,
        (t, wild, d): (usize, bool, u8),
        near: u64,
        wild_copies: u32,
        planes: &Planes,
    ) -> u32 {
        let gt = group_of(t);
        let natural_t = !wild && b14.natural[t] > 0;
        let mut b = *b14;
        let masks = if natural_t {
            let rem = self.groups.after(self.calc, &b14.natural, t);
            b.remove_counts(t, &rem, d);
            masks.without(t, b14.natural[t])
        } else {
            // A wild tile or a junk (void-suit) tile leaves the natural
            // analysis, hence the deficiency, unchanged.
            b.w -= u8::from(wild);
            *masks
        };
        let sh = b.shanten();
        if sh < 0 {
            // Nothing lowers a complete hand (a 13-type hand never is).
            return 0;
        }
        // With the shanten at least 0 and the wild count fixed, a tile
        // lowers the shanten exactly when it lowers the deficiency (so
        // `b.d` is at least 1).
        let special = b.special_improvers(&masks);
        let near = near & !masks.by_count[4];
        let mut improves = special;
        // The partners of the groups other than `gt` change with it; they
        // are computed as in [`Base::from_groups`], but only for halves
        // with kinds to try (not for a Sichuan hand's void suit and
        // honors, nor for a hand without honors); the others stay stale.
        if natural_t {
            let s = b.sets;
            let g = &b.groups;
            let p = &mut b.partner;
            // As in [`Base::remove`], constant indices per half.
            if gt < 2 {
                if near & GROUP_KINDS[1 - gt] != 0 {
                    p[1 - gt] = partner_lanes(&combine(&g[gt], &b14.halves[1]), s);
                }
                if near & (GROUP_KINDS[2] | GROUP_KINDS[3]) != 0 {
                    let ab = combine(&g[0], &g[1]);
                    p[2] = partner_lanes(&combine(&ab, &g[3]), s);
                    p[3] = partner_lanes(&combine(&ab, &g[2]), s);
                }
            } else {
                if near & (GROUP_KINDS[0] | GROUP_KINDS[1]) != 0 {
                    let cd = combine(&g[2], &g[3]);
                    p[0] = partner_lanes(&combine(&g[1], &cd), s);
                    p[1] = partner_lanes(&combine(&g[0], &cd), s);
                }
                if near & GROUP_KINDS[5 - gt] != 0 {
                    p[5 - gt] = partner_lanes(&combine(&b14.halves[0], &g[gt]), s);
                }
            }
            #[cfg(debug_assertions)]
            {
                let mut full = *b14;
                full.remove(t, &b.groups[gt], d);
                for (g, kinds) in GROUP_KINDS.iter().enumerate() {
                    if near & kinds != 0 {
                        assert_eq!(b.partner[g], full.partner[g]);
                    }
                }
            }
        }
        for (g, kinds) in GROUP_KINDS.iter().enumerate() {
            let want = near & kinds;
            if want == 0 {
                continue;
            }
            // A kind lowers the standard shape's deficiency exactly when
            // it lowers a tight lane of its group (which a zero need
            // cannot be): a group without one needs no look-ups.
            let x = &b.groups[g];
            let tight = tight_lanes(x, &b.partner[g], b.d) & !zero_lanes(x);
            if tight == 0 {
                continue;
            }
            // Outside the discarded tile's group a kind's change is that
            // of the 14-tile hand's group with it added (that group holds
            // at most 13 natural tiles then).
            let lo = group_span(g).0;
            let (m, want) = if natural_t && g == gt {
                let want = self.swap_candidates(b14, t, tight, want);
                (self.groups.swapped(self.calc, &b14.natural, t, want), want)
            } else {
                (self.groups.added(self.calc, &b14.natural, g, want), want)
            };
            improves |= (u64::from(hitting(m, tight)) << lo) & want;
        }
        // A wild tile improves any hand not yet complete.
        let total = wild_copies + planes.copies(near & improves);
        debug_assert!(!natural_t || needs_of(&b.groups[gt]) == self.calc.group(&b.natural, gt));
        debug_assert_eq!(total, {
            let wild_live = planes.0.iter().fold(0, |a, p| a | p) & self.wild_mask();
            self.ukeire_exact(&b, (near, wild_live), &self.unseen.unwrap_or([0; KINDS]))
        });
        total
    }

    /// The kinds of `near` that lower the standard shape's deficiency of
    /// the 14 tiles of `b14` (`masks` its counts) through their group's
    /// tight lanes, and whether that is exact: a group that holds every
    /// natural tile (the tables stop at 14 tiles a group) gives all its
    /// kinds of `near` instead.
    ///
    /// A kind outside the group of a discard that leaves the deficiency
    /// as it was improves the 13 tiles left only if it is one of these:
    /// the other groups' product only grows by the discard (by one at
    /// most, lane by lane), so a lane tight for the 13 tiles is tight for
    /// the 14 ([`Ctx::ukeire_bound`]).
    fn improvers_14(&mut self, b14: &Base, masks: &CountMasks, near: u64) -> (u64, bool) {
        let near = near & !masks.by_count[4];
        let (mut u, mut exact) = (0u64, true);
        for (g, kinds) in GROUP_KINDS.iter().enumerate() {
            let want = near & kinds;
            if want == 0 {
                continue;
            }
            if b14.held & !kinds == 0 {
                u |= want;
                exact = false;
                continue;
            }
            let x = &b14.groups[g];
            let tight = tight_lanes(x, &b14.partner[g], b14.d) & !zero_lanes(x);
            if tight == 0 {
                continue;
            }
            let m = self.groups.added(self.calc, &b14.natural, g, want);
            u |= (u64::from(hitting(m, tight)) << group_span(g).0) & want;
        }
        (u, exact)
    }

    /// An upper bound on [`Ctx::ukeire`] with the same arguments (`u14`:
    /// [`Ctx::improvers_14`] of `near`), and whether it is exact, without
    /// the other groups' products.
    ///
    /// When the discard leaves the deficiency as it was, the kinds that
    /// may improve are the special shapes' improvers, outside the
    /// discarded tile's group those that improve the 14 tiles, and in its
    /// group those of the swap candidates ([`Ctx::swap_candidates`]) that
    /// lower a tight lane of the group without the tile, exactly as
    /// [`Ctx::ukeire`] finds them (the group's partner, the product of
    /// the other groups, does not change); otherwise there is no bound
    /// (`u32::MAX`). So only the other groups' part may be too large (the
    /// swaps' look-ups, which the count would make too, narrow the bound
    /// enough to spare more counts than they cost), and the bound is the
    /// count itself when the discard keeps every lane of its group that
    /// is tight for the 14 tiles (or is a wild or junk tile: the natural
    /// tiles stay): every best allocation of the 14 tiles then survives,
    /// so the other groups' tight lanes are those of the 14 tiles.
    fn ukeire_bound(
        &mut self,
        b14: &Base,
        masks: &CountMasks,
        (t, wild, d): (usize, bool, u8),
        (near, (u14, u14_exact)): (u64, (u64, bool)),
        wild_copies: u32,
        planes: &Planes,
    ) -> (u32, bool) {
        if d != b14.d {
            return (u32::MAX, false);
        }
        if Base::to_shanten(d, b14.w - u8::from(wild)) < 0 {
            return (0, true);
        }
        let gt = group_of(t);
        let natural_t = !wild && b14.natural[t] > 0;
        let (masks, tallies) = if natural_t {
            (masks.without(t, b14.natural[t]), b14.tallies_with(t, false))
        } else {
            (*masks, b14.tallies())
        };
        let near = near & !masks.by_count[4];
        let mut cand = b14.special_improvers_with(tallies, d, &masks) | u14 & !GROUP_KINDS[gt];
        let want = near & GROUP_KINDS[gt];
        let exact = if natural_t {
            let rem = self.groups.after(self.calc, &b14.natural, t);
            let i = t - group_span(gt).0;
            let kept = self.groups.entry(&b14.natural, gt).rem_kept.0[i];
            let (x, p) = (&b14.groups[gt], &b14.partner[gt]);
            let exact = tight_lanes(x, p, d) & !kept == 0;
            let tight = tight_lanes(&rem, p, d) & !zero_lanes(&rem);
            if want != 0 && tight != 0 {
                let swaps = self.swap_candidates(b14, t, tight, want);
                let m = self.groups.swapped(self.calc, &b14.natural, t, swaps);
                cand |= swaps & u64::from(hitting(m, tight)) << group_span(gt).0;
            }
            exact
        } else {
            // The natural tiles are those of the 14.
            cand |= u14 & GROUP_KINDS[gt];
            u14_exact
        };
        (wild_copies + planes.copies(near & cand), exact)
    }

    /// The kinds of `want` (kinds of the group of `t`, held at most 3
    /// times once `t` is removed) that may lower a lane of `tight` (lanes
    /// of that group's needs without `t`) when swapped in for `t`, so that
    /// only they need a look-up ([`Groups::swapped`]).
    ///
    /// A tile added never raises a need and a tile removed never lowers
    /// one, by one at most. So when every tight lane is one that removing
    /// `t` left as it was (always so when the removal does not raise the
    /// deficiency: a raised lane cannot be tight then), a kind lowers a
    /// tight lane of the group without `t` only if it lowers that lane of
    /// the group as it is (its [`Groups::added`] lanes, which the other
    /// candidates of the group share), and `t` itself, which restores the
    /// group, lowers only raised lanes. Otherwise, or when the group holds
    /// every natural tile (the tables stop at 14 tiles a group), all of
    /// `want`.
    #[inline(always)]
    fn swap_candidates(&mut self, b14: &Base, t: usize, tight: u16, want: u64) -> u64 {
        let g = group_of(t);
        let (lo, i) = (group_span(g).0, t - group_span(g).0);
        let kept = self.groups.entry(&b14.natural, g).rem_kept.0[i];
        if tight & !kept != 0 || b14.held & !GROUP_KINDS[g] == 0 {
            return want;
        }
        let others = want & !bit(t);
        let add = self.groups.added(self.calc, &b14.natural, g, others);
        others & u64::from(hitting(add, tight)) << lo
    }

    /// [`Ctx::ukeire`] the plain way, each hand with one tile added
    /// analysed from scratch (group needs from the shanten module's table
    /// layout): the check of its shortcuts in debug builds.
    fn ukeire_exact(&self, b: &Base, (near, wild_live): (u64, u64), unseen: &Counts) -> u32 {
        let sh = b.shanten();
        let mut total = 0u32;
        for k in 0..KINDS {
            let u = unseen[k] as u32;
            if wild_live & bit(k) != 0 {
                total += u * u32::from(sh >= 0);
            } else if near & bit(k) != 0 && b.natural[k] < 4 {
                let mut nat = b.natural;
                nat[k] += 1;
                let groups = self.calc.groups(&nat).0.map(|n| lanes_of(&n));
                let fresh = Base::from_groups(nat, b.w, 4 - b.sets, groups, &self.shape);
                total += u * u32::from(fresh.shanten() < sh);
            }
        }
        total
    }

    /// The deficiency after discarding one copy of each natural kind held
    /// in `b` (`held`, as a mask; by kind; meaningless for the other
    /// kinds): the standard shape's rises by one exactly when the removal
    /// raises every tight lane of its group, found per group for all its
    /// kinds at once ([`hitting`] of the kept removal lanes); then seven
    /// pairs and thirteen orphans from the tallies, which a removal
    /// changes by the count's parity and for orphan kinds held once or
    /// twice only (no branch per kind).
    #[inline(always)]
    fn removal_deficiencies(&mut self, b: &Base, held: u64) -> Removal {
        debug_assert_eq!(held, Planes::new(&b.natural).held());
        let standard_d = b.standard;
        let mut raises = 0u64;
        for (g, partner) in b.partner.iter().enumerate() {
            let hg = held & GROUP_KINDS[g];
            if hg == 0 {
                continue;
            }
            debug_assert!(b.filled >> g & 1 == 1);
            let tight = tight_lanes(&b.groups[g], partner, standard_d);
            // A best allocation that leaves the group unused (lane 0,
            // need 0 with or without a tile) survives every removal: no
            // look-ups.
            if tight & 1 != 0 {
                continue;
            }
            let kept = self.groups.removed(self.calc, &b.natural, g, held);
            raises |= (u64::from(!hitting(kept, tight)) << group_span(g).0) & hg;
        }
        Removal {
            standard: standard_d,
            raises,
            special: Ctx::removal_special(b),
        }
    }

    /// [`Removal::special`] of `b`.
    #[inline(always)]
    fn removal_special(b: &Base) -> [u8; 10] {
        let seven = if b.seven {
            [
                Ctx::seven_after_removal(b, false),
                Ctx::seven_after_removal(b, true),
            ]
        } else {
            [u8::MAX; 2]
        };
        let orphans = if b.orphans {
            // By class ([`orphan_class`]): other kinds, an orphan held
            // once, an orphan held twice.
            [
                Ctx::orphans_after_removal(b, false, 0),
                Ctx::orphans_after_removal(b, true, 1),
                Ctx::orphans_after_removal(b, true, 2),
            ]
        } else {
            [u8::MAX; 3]
        };
        // By count: the parity for seven pairs, the class for thirteen
        // orphans.
        std::array::from_fn(|i| {
            let (orphan, n) = (i >= 5, (i % 5) as u8);
            seven[usize::from(n & 1)].min(orphans[orphan_class(orphan, n)])
        })
    }

    /// The entry of [`Ctx::removal_special`] for kind `k` held `n > 0`
    /// times (`special[5 * orphan + n]`, capped at 9), alone: the same
    /// cases without the other nine.
    #[inline(always)]
    fn removal_special_of(b: &Base, k: usize, n: u8) -> u8 {
        let orphan = ORPHANS >> k & 1 == 1;
        let seven = if b.seven {
            Ctx::seven_after_removal(b, n & 1 == 1)
        } else {
            u8::MAX
        };
        let orphans = if b.orphans {
            Ctx::orphans_after_removal(b, orphan, n)
        } else {
            u8::MAX
        };
        let d = seven.min(orphans);
        debug_assert_eq!(d, {
            let i = 5 * usize::from(orphan) + usize::from(n);
            Ctx::removal_special(b)[i.min(9)]
        });
        d
    }

    /// Seven pairs' deficiency (when the shape is possible) after one
    /// tile of a kind held an odd (`odd`) or even number of times is
    /// removed from `b`: an even count loses a pair and leaves a single,
    /// an odd one loses a single (each only asked for when such a count
    /// exists).
    #[inline(always)]
    fn seven_after_removal(b: &Base, odd: bool) -> u8 {
        let (p, sg) = (b.pairs, b.singles);
        if odd {
            seven_pairs_missing(p, sg.saturating_sub(1))
        } else {
            seven_pairs_missing(p.saturating_sub(1), sg + 1)
        }
    }

    /// Thirteen orphans' deficiency (when the shape is possible) after one
    /// tile of a kind held `n > 0` times, an orphan kind or not (`orphan`),
    /// is removed from `b`: an orphan held once loses a kind, one held
    /// twice its pair, any other tile is surplus.
    #[inline(always)]
    fn orphans_after_removal(b: &Base, orphan: bool, n: u8) -> u8 {
        let (ok, op) = (b.orphan_kinds, b.orphan_pairs);
        if orphan && n == 1 {
            (15 - ok).saturating_sub(u8::from(op > 0))
        } else if orphan && n == 2 {
            14u8.saturating_sub(ok + u8::from(op > 1))
        } else {
            14 - ok - u8::from(op > 0)
        }
    }

    /// The best discard among `cands` (natural or junk kinds held) of the
    /// hand of `b` (`keep` its keep values) when every discard is at
    /// least two from ready and there is no threat, so that no tiles are
    /// counted: the least key among the candidates at the lowest level
    /// (`shanten + 1`, `w` wild tiles).
    ///
    /// A discard never lowers the deficiency and raises it by one at most,
    /// so the levels are `lowest` (the hand's own) and the next one: the
    /// candidates are tried in the order of their keys within a level
    /// (junk first, then keep value and index), each removal worked out
    /// alone as in [`Ctx::removal_deficiencies`], and the first at
    /// `lowest` is the best; when none is, the first of all. Far from
    /// ready the first candidates are mostly loose tiles that do not raise
    /// the deficiency, so most of the hand needs no removal look-ups.
    fn first_at_lowest(
        &mut self,
        b: &mut Base,
        keep: &Keep,
        cands: u64,
        (lowest, w): (u8, u8),
    ) -> Tile {
        let standard_d = b.standard;
        // The order within a level: junk (bit 16 clear) first.
        let void = self.void_mask;
        let order = |k: usize| u32::from(void >> k & 1 == 0) << 16 | u32::from(keep.low[k & 63]);
        let mut first = None;
        let mut rest = cands;
        while rest != 0 {
            let k = if first.is_none() {
                // The first pick, which is mostly the answer, at once: the
                // least keep key among the junk candidates if any, else
                // among all.
                let junk = rest & void;
                keep.least(if junk != 0 { junk } else { rest })
            } else {
                let (mut k, mut o) = (0, u32::MAX);
                let mut m = rest;
                while m != 0 {
                    let j = m.trailing_zeros() as usize;
                    m &= m - 1;
                    if order(j) < o {
                        (k, o) = (j, order(j));
                    }
                }
                k
            };
            debug_assert_eq!(
                k,
                (0..KINDS)
                    .filter(|&j| rest >> j & 1 == 1)
                    .min_by_key(|&j| order(j))
                    .unwrap_or(0)
            );
            rest &= !bit(k);
            first = first.or(Some(k));
            let d = if b.held >> k & 1 == 1 {
                let g = group_of(k);
                b.fill_partner(g);
                let tight = tight_lanes(&b.groups[g], &b.partner[g], standard_d);
                // As in [`Ctx::removal_deficiencies`].
                let raises = tight & 1 == 0 && {
                    self.groups.after(self.calc, &b.natural, k);
                    let e = self.groups.entry(&b.natural, g);
                    e.rem_kept.0[k - group_span(g).0] & tight == 0
                };
                // [`Removal::of`] with only this kind's special entry
                // worked out (most decisions try one kind).
                let n = b.natural[k];
                let d = (standard_d + u8::from(raises)).min(Ctx::removal_special_of(b, k, n));
                debug_assert_eq!(d, {
                    let removal = Removal {
                        standard: standard_d,
                        raises: u64::from(raises) << k,
                        special: Ctx::removal_special(b),
                    };
                    removal.of(k, n)
                });
                d
            } else {
                // A junk tile leaves the analysis as it is.
                b.d
            };
            let q = d.saturating_sub(w);
            if q + u8::from(self.ting_required & (q == 1)) == lowest {
                return Tile::from_index_unchecked(k as u8);
            }
        }
        Tile::from_index_unchecked(first.unwrap_or(0) as u8)
    }

    /// The best face-up discard (`discards`: the kinds of the legal
    /// discards).
    fn best_discard(&mut self, discards: u64) -> Option<Tile> {
        self.best_discard_with(discards, true)
    }

    /// [`Ctx::best_discard`], with the shortcut far from ready
    /// ([`Ctx::first_at_lowest`]) or without it (its check in debug
    /// builds).
    fn best_discard_with(&mut self, discards: u64, shortcut: bool) -> Option<Tile> {
        let c = self.hand.concealed;
        let n = self.hand.n_melds();
        // The partners as they are asked for (far from ready, one or two).
        let mut b14 = self.base_without_partners(&c, n);
        let threat = self.threat();
        let danger = match &threat {
            Some(th) => self.danger_mask(th),
            None => 0,
        };
        // The candidates: the legal discards held, the wild tiles only
        // when nothing else may go (a wild key always loses to a natural
        // one, so the others never count).
        let natural = b14.held;
        debug_assert_eq!(natural, Planes::new(&b14.natural).held());
        // The kinds held: the natural ones, and the wild and void-suit
        // kinds that the analysis leaves out.
        let mut held = natural;
        let mut m = (self.wild_mask | self.void_mask) & discards;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            held |= u64::from(c[k] > 0) << k;
        }
        debug_assert_eq!(held, Planes::new(&c).held() & (natural | discards));
        let cands = discards & held;
        if cands == 0 {
            return None;
        }
        let all_wild = cands & !self.wild_mask == 0;
        let cands = if all_wild {
            cands
        } else {
            cands & !self.wild_mask
        };
        // Discarding a wild tile leaves one wild fewer and the natural
        // tiles as they are; so does a junk (void-suit) tile, with the wild
        // count unchanged.
        let w = if all_wild {
            b14.w.saturating_sub(1)
        } else {
            b14.w
        };
        let keep = Keep::new(&c, self.family);
        let ting_required = self.ting_required;
        let level_of = |d: u8| {
            let q = d.saturating_sub(w);
            // A ready hand that cannot declare cannot win: one step from
            // ready.
            q + u8::from(ting_required & (q == 1))
        };
        // Two or more from ready whatever goes: no tiles are counted, the
        // lowest level's least key is the answer, or with a threat, when
        // that is dangerous, the least safe key (folding: safe at any
        // cost). When nothing is safe, the full pass sheds the cheapest.
        let lowest = level_of(b14.d);
        if shortcut && !all_wild && lowest > UKEIRE_SHANTEN as u8 + 1 {
            let mut t = Some(self.first_at_lowest(&mut b14, &keep, cands, (lowest, w)));
            if t.is_some_and(|k| danger >> k.index() & 1 == 1) {
                debug_assert!(threat.is_some() && lowest > FOLD_SHANTEN as u8);
                let safe = cands & !danger;
                t = (safe != 0).then(|| self.first_at_lowest(&mut b14, &keep, safe, (lowest, w)));
            }
            if t.is_some() {
                debug_assert_eq!(t, self.best_discard_with(discards, false));
                return t;
            }
        }
        self.best_discard_full(
            &mut b14,
            &keep,
            (cands, natural),
            (all_wild, w, lowest),
            (threat, danger),
        )
    }

    /// The rest of [`Ctx::best_discard_with`] when the shortcut does not
    /// answer: every candidate's shanten, and the improving tiles of the
    /// ties that may change the choice. Not inlined, so that the frame
    /// and spills of this larger part do not weigh on the shortcut.
    #[inline(never)]
    fn best_discard_full(
        &mut self,
        b14: &mut Base,
        keep: &Keep,
        (cands, natural): (u64, u64),
        (all_wild, w, lowest): (bool, u8, u8),
        (threat, danger): (Option<Threat>, u64),
    ) -> Option<Tile> {
        let c = self.hand.concealed;
        let n = self.hand.n_melds();
        // By `shanten + 1`: the candidates' kinds, and bit `sh + 1`: some
        // candidate, some safe one, has that shanten (the decision below
        // works on these masks rather than on filtered passes).
        let mut by_sh = [0u64; 16];
        let (mut levels, mut safe_levels) = (0u16, 0u16);
        b14.fill_partners(false);
        let b14: &Base = b14;
        let removal = self.removal_deficiencies(b14, natural);
        // The candidates sorted into shanten levels (`shanten + 1`) by
        // masks, not kind by kind: the natural discards' levels as bytes
        // ([`removal_levels`]), gathered by one compare per level present;
        // a wild or void-suit discard leaves the hand's deficiency.
        let lv = removal_levels(&removal, &b14.natural, w, self.ting_required);
        let mut place = |m: u64, level: u8| {
            debug_assert!(level < 16);
            let level = usize::from(level & 15);
            by_sh[level] |= m;
            levels |= u16::from(m != 0) << level;
            safe_levels |= u16::from(m & !danger != 0) << level;
        };
        let mut rest = cands & natural;
        while rest != 0 {
            let level = lv[rest.trailing_zeros() as usize];
            let m = rest & kinds_at_level(&lv, level);
            rest &= !m;
            place(m, level);
        }
        place(cands & !natural, lowest);
        let min_sh = levels.trailing_zeros() as i8 - 1;
        let folding = threat.is_some() && min_sh >= FOLD_SHANTEN;
        let safe_min = (safe_levels != 0).then(|| safe_levels.trailing_zeros() as i8 - 1);
        // Keys by kind, and the best key, and the best safe one (bit 63
        // set when there is none), as branch-free minimums; only at the
        // lowest shanten and the lowest safe one, where the minimums and
        // the counted ties are (a higher shanten makes a larger key).
        let min_level = (min_sh + 1) as usize & 15;
        let safe_sh = safe_min.unwrap_or(min_sh);
        let at_min = by_sh[min_level];
        let (best, best_safe) = level_keys(
            keep,
            (at_min, by_sh[(safe_sh + 1) as usize & 15]),
            (min_sh, safe_sh),
            (all_wild, self.void_mask, danger),
        );
        // The key of kind `k` at shanten `sh` before counting (as
        // [`cand_key`]).
        let void = self.void_mask;
        let key_at = |sh: i8, k: usize| keep.key(cand_key(all_wild, sh, true, 0, 0), void, k);
        // The plain pass, kind by kind, in debug builds: the same levels
        // and keys.
        #[cfg(debug_assertions)]
        let mut plain_keys = {
            let mut plain = [0u64; KINDS];
            let (mut by, mut lvls, mut sl) = ([0u64; 16], 0u16, 0u16);
            let mut m = cands;
            while m != 0 {
                let k = m.trailing_zeros() as usize;
                m &= m - 1;
                let sh = if natural >> k & 1 == 1 {
                    let rem = self.groups.after(self.calc, &b14.natural, k);
                    let d = b14.deficiency_with(k, false, &rem);
                    assert_eq!(d, removal.of(k, b14.natural[k]));
                    Base::to_shanten(d, b14.w)
                } else {
                    b14.shanten_without(self.calc, &self.wilds, k)
                };
                let sh = sh + i8::from(self.ting_required & (sh == 0));
                let level = (sh + 1) as usize & 15;
                by[level] |= bit(k);
                lvls |= 1 << level;
                sl |= u16::from(danger >> k & 1 == 0) << level;
                let junk = self.void_mask >> k & 1 == 1;
                plain[k] = cand_key(all_wild, sh, junk, keep_value(&c, k, self.family), k);
                if (at_min | by_sh[(safe_sh + 1) as usize & 15]) >> k & 1 == 1 {
                    assert_eq!(plain[k], key_at(sh, k));
                }
            }
            assert_eq!((by, lvls, sl), (by_sh, levels, safe_levels));
            plain
        };
        // Which shanten level deserves the tile counting.
        let target = match (threat.is_some(), safe_min) {
            (true, Some(s)) if folding || s <= min_sh + SAFE_ALLOWANCE => s,
            _ => min_sh,
        };
        let mut tied = by_sh[(target + 1) as usize & 15];
        // A junk (void-suit) key beats every other of its shanten whatever
        // the counts: without a threat (only the best key matters then)
        // the others need no counting.
        if threat.is_none() && tied & self.void_mask != 0 {
            tied &= self.void_mask;
        }
        // Counting only splits ties: a lone candidate needs none.
        let counted = tied.count_ones() > 1 && (0..=UKEIRE_SHANTEN).contains(&target);
        let mut ranked = Ranked {
            best,
            best_safe,
            cheapest: None,
            danger,
            no_safe: threat.is_some() && safe_min.is_none(),
        };
        if counted {
            // The deficiency a candidate's discard leaves.
            let d_without = |k: usize| {
                if natural >> k & 1 == 1 {
                    removal.of(k, b14.natural[k])
                } else {
                    b14.d
                }
            };
            let unseen = self.unseen();
            let masks = CountMasks::new(&b14.natural);
            let planes = Planes::new(&unseen);
            // Kinds worth counting: unseen copies, outside the void suit;
            // the wild ones apart (they improve any incomplete hand).
            let wild = self.wild_mask();
            let live = (planes.0[0] | planes.0[1] | planes.0[2]) & !self.void_mask;
            let wild_copies = planes.copies(live & wild);
            let near = self.near(&b14.natural, b14.orphans) & live & !wild;
            // Only the best key, the best safe one and (when no candidate
            // is safe) the cheapest matter: candidates are taken in the
            // order of the best key their count could give
            // ([`Ctx::ukeire_bound`], which may be the count itself), and
            // counted only when that bound can still beat one of these
            // (which only decrease). Debug builds count every candidate,
            // and check that the bounds hold and that the results are the
            // same.
            let prune = target != 0;
            let mut m = if prune { 0 } else { tied };
            if prune {
                let u14 = self.improvers_14(b14, &masks, near);
                // At most 14 (the kinds of 14 tiles).
                let mut bounds = [u64::MAX; 16];
                let mut nb = 0;
                let mut t = tied;
                while t != 0 {
                    let k = t.trailing_zeros() as usize;
                    t &= t - 1;
                    let d = d_without(k);
                    let (ub, exact) = self.ukeire_bound(
                        b14,
                        &masks,
                        (k, all_wild, d),
                        (near, u14),
                        wild_copies,
                        &planes,
                    );
                    #[cfg(debug_assertions)]
                    {
                        let count =
                            self.ukeire(b14, &masks, (k, all_wild, d), near, wild_copies, &planes);
                        assert!(count <= ub, "bound {ub} < {count} for {k}");
                        assert!(!exact || count == ub, "inexact {ub} > {count} for {k}");
                    }
                    let key = with_quality(key_at(target, k), ub);
                    if exact {
                        // Counted already.
                        ranked.offer(key);
                    } else {
                        bounds[nb] = key;
                        nb += 1;
                    }
                }
                loop {
                    let (i, bound) = bounds[..nb]
                        .iter()
                        .enumerate()
                        .fold((0, u64::MAX), |a, (i, &b)| if b < a.1 { (i, b) } else { a });
                    if bound == u64::MAX {
                        break;
                    }
                    bounds[i] = u64::MAX;
                    if !ranked.may_change(bound) {
                        continue;
                    }
                    let k = (bound & 63) as usize;
                    let d = d_without(k);
                    let quality =
                        self.ukeire(b14, &masks, (k, all_wild, d), near, wild_copies, &planes);
                    ranked.offer(with_quality(key_at(target, k), quality));
                }
                // The full count, in debug builds (for the checks below).
                #[cfg(debug_assertions)]
                {
                    m = tied;
                }
            }
            while m != 0 {
                let k = m.trailing_zeros() as usize;
                m &= m - 1;
                // Every tied candidate has the shanten `target`.
                let quality = if target == 0 {
                    let mut h = c;
                    h[k] -= 1;
                    let mut held = self.hand.all_counts();
                    held[k] -= 1;
                    let w = waits_counts(&self.eff(&h), &held, n, &self.wilds, &self.shape);
                    self.wait_quality(&w, &unseen).0
                } else {
                    let d = d_without(k);
                    self.ukeire(b14, &masks, (k, all_wild, d), near, wild_copies, &planes)
                };
                // A key only decreases: the minimums stay minimums.
                let key = with_quality(key_at(target, k), quality);
                #[cfg(debug_assertions)]
                {
                    plain_keys[k] = with_quality(plain_keys[k], quality);
                    if prune {
                        // Counted above (or bounded away).
                        continue;
                    }
                }
                ranked.offer(key);
            }
        }
        let Ranked {
            best,
            best_safe,
            cheapest: cheapest_counted,
            ..
        } = ranked;
        #[cfg(debug_assertions)]
        {
            let mut m = cands;
            let (mut b, mut bs) = (u64::MAX, u64::MAX);
            while m != 0 {
                let k = m.trailing_zeros() as usize;
                m &= m - 1;
                b = b.min(plain_keys[k]);
                bs = bs.min(plain_keys[k] | (danger >> k & 1) << 63);
            }
            assert_eq!((b, bs), (best, best_safe));
        }
        let tile = |key: u64| Tile::from_index_unchecked((key & 63) as u8);
        if threat.is_none() || danger >> (best & 63) & 1 == 0 {
            return Some(tile(best));
        }
        if let Some(s) = safe_min {
            if (folding || s <= min_sh + SAFE_ALLOWANCE) && best_safe >> 63 == 0 {
                return Some(tile(best_safe));
            }
            return Some(tile(best));
        }
        // Everything is dangerous: shed the cheapest among the best shapes
        // (every candidate is as wild as the best).
        // (The best key has the lowest shanten: its kinds are keyed.)
        debug_assert_eq!(key_shanten(best), min_sh);
        // With a threat and no safe level the counted candidates (if any)
        // are those at the lowest shanten, already ranked above.
        if counted {
            debug_assert_eq!(tied, at_min);
            #[cfg(debug_assertions)]
            {
                let plain = (0..KINDS)
                    .filter(|&k| at_min >> k & 1 == 1)
                    .map(|k| (tile(plain_keys[k]).points(), plain_keys[k]))
                    .min();
                assert_eq!(plain, cheapest_counted);
            }
            return cheapest_counted.map(|(_, key)| tile(key));
        }
        let mut cheapest: Option<(u8, u64)> = None;
        let mut m = at_min;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            let key = key_at(min_sh, k);
            let x = (tile(key).points(), key);
            if cheapest.is_none_or(|c| x < c) {
                cheapest = Some(x);
            }
        }
        cheapest.map(|(_, key)| tile(key))
    }

    // -- 包胡 defence.

    /// Public facts about declared opponents, or `None` when no face-up
    /// discard of the agent can make it pay 包胡.
    fn threat(&mut self) -> Option<Threat> {
        if !self.ting_required || self.game.is_ting(self.seat) {
            return None;
        }
        let me = self.seat;
        let mut th = Threat {
            ting: [false; 4],
            passed: [0; 4],
            kongs: [0; 4],
            melded: [false; 4],
        };
        for s in 0..4u8 {
            th.ting[s as usize] = s != me && self.game.is_ting(s);
        }
        if !th.ting.iter().any(|&x| x) {
            return None;
        }
        let hide = self.game.rules().hide_concealed_kong;
        for s in 0..4u8 {
            for tm in self.game.table_melds(s) {
                th.melded[s as usize] = true;
                let hidden = hide && s != me && tm.meld.kind == MeldKind::ConcealedKong;
                if tm.meld.kind.is_kong() && !hidden {
                    th.kongs[s as usize] |= bit(tm.meld.tile.index());
                }
            }
        }
        for (o, p) in th.passed.iter_mut().enumerate() {
            *p = self.game.let_pass(o as u8);
        }
        #[cfg(debug_assertions)]
        assert_eq!(Some(&th), Ctx::threat_passes(self.game, th).as_ref());
        Some(th)
    }

    /// `th` with its passed kinds recomputed from every discard afresh:
    /// the check of [`Ctx::threat`] in debug builds and tests.
    #[cfg(any(test, debug_assertions))]
    fn threat_passes(game: &Game, mut th: Threat) -> Option<Threat> {
        let all = game.discards();
        for (o, p) in th.passed.iter_mut().enumerate() {
            // After its declaration (its one face-down discard), the
            // face-up discards of the other seats.
            let from = all
                .iter()
                .position(|d| d.face_down && usize::from(d.seat) == o);
            *p = all[from.map_or(all.len(), |i| i + 1)..]
                .iter()
                .filter(|d| !d.face_down && usize::from(d.seat) != o)
                .fold(0, |m, d| m | bit(d.tile.index()));
        }
        Some(th)
    }

    /// The kinds whose face-up discard may let a declared opponent win on
    /// it with the agent paying for everyone ([`Ctx::dangerous`] for every
    /// kind at once).
    fn danger_mask(&mut self, th: &Threat) -> u64 {
        // Tiles worth at least the discard-win minimum: honors (10 points)
        // and the suited ranks from the minimum up.
        let mut worth = 0u64;
        for (k, m) in GROUP_KINDS.iter().enumerate() {
            worth |= if k == 3 {
                if self.min_discard <= 10 {
                    *m
                } else {
                    0
                }
            } else {
                let from = self.min_discard.clamp(1, 10) - 1;
                (0x1ffu64 >> from << from) << (9 * k)
            };
        }
        let wild = self.wild_mask;
        let mut honor_dead = 0u64;
        if !self.shape.wind_sets && self.wilds.is_empty() {
            let u = self.unseen();
            // The honors' counts as one word (at most 4 each, so three
            // bits): bit 0 of each byte set when the count is not 0, then
            // gathered into one byte (the multiply moves byte `j`'s bit 0
            // to bit `56 + j`).
            let mut w = [0u8; 8];
            w[..7].copy_from_slice(&u[27..]);
            let x = u64::from_le_bytes(w);
            let live = ((x | x >> 1 | x >> 2) & LOW).wrapping_mul(0x0102_0408_1020_4080) >> 56;
            honor_dead = (!live & 0x7f) << 27;
            debug_assert_eq!(
                honor_dead,
                (27..KINDS)
                    .filter(|&k| u[k] == 0)
                    .fold(0, |m, k| m | bit(k))
            );
        }
        let mut danger = 0u64;
        for o in 0..4 {
            if th.ting[o] {
                let dead = if !self.shape.thirteen_orphans || th.melded[o] {
                    honor_dead
                } else {
                    0
                };
                danger |= !th.passed[o] & !th.kongs[o] & !dead;
            }
        }
        let m = danger & worth & !wild;
        debug_assert!((0..KINDS).all(|k| (m >> k & 1 == 1) == self.dangerous(th, k)));
        m
    }

    /// Whether discarding kind `k` face up may let a declared opponent win
    /// on it with the agent paying for everyone.
    fn dangerous(&mut self, th: &Threat, k: usize) -> bool {
        let t = Tile::from_index_unchecked(k as u8);
        if t.points() < self.min_discard || self.is_wild(k) {
            return false;
        }
        let honor_dead =
            k >= 27 && !self.shape.wind_sets && self.wilds.is_empty() && self.unseen()[k] == 0;
        (0..4).any(|o| {
            th.ting[o]
                && th.passed[o] & bit(k) == 0
                && th.kongs[o] & bit(k) == 0
                && !(honor_dead && (!self.shape.thirteen_orphans || th.melded[o]))
        })
    }
}

/// How much a hand wants to keep one tile of kind `k` (lower: discard
/// first): neighbours within two ranks and copies, then points in the
/// Koudian families (waits need points) or centrality in Sichuan. The
/// plain form of [`Keep::of`], its check in debug builds.
#[cfg(any(test, debug_assertions))]
fn keep_value(c: &Counts, k: usize, family: Family) -> u32 {
    let mut conn = 4 * (c[k] as u32 - 1);
    if k < 27 {
        let r = k % 9;
        let base = k - r;
        for (d, w) in [(1usize, 2u32), (2, 1)] {
            if r >= d {
                conn += w * c[base + r - d] as u32;
            }
            if r + d < 9 {
                conn += w * c[base + r + d] as u32;
            }
        }
    }
    let t = Tile::from_index_unchecked(k as u8);
    let tail = match family {
        Family::Sichuan => {
            if k < 27 {
                4 - (t.rank() as i32 - 5).unsigned_abs()
            } else {
                0
            }
        }
        _ => t.points() as u32,
    };
    conn * 16 + tail
}

/// The keys that decide a discard as candidates are counted: the least,
/// the least safe one (bit 63 set for the kinds of `danger`), and, when
/// no candidate is safe (`no_safe`: then the cheapest of the best is
/// shed), the least (points, key) counted. Keys only decrease as they
/// are counted, so these stay minimums.
#[derive(Clone, Copy)]
struct Ranked {
    best: u64,
    best_safe: u64,
    cheapest: Option<(u8, u64)>,
    danger: u64,
    no_safe: bool,
}

impl Ranked {
    /// The (points, key) of `key` (its kind in the low 6 bits).
    #[inline(always)]
    fn priced(key: u64) -> (u8, u64) {
        (Tile::from_index_unchecked((key & 63) as u8).points(), key)
    }

    /// Whether a candidate whose key is at least `bound` may still change
    /// one of the three.
    #[inline(always)]
    fn may_change(&self, bound: u64) -> bool {
        bound < self.best
            || bound | (self.danger >> (bound & 63) & 1) << 63 < self.best_safe
            || self.no_safe && self.cheapest.is_none_or(|c| Ranked::priced(bound) < c)
    }

    /// Takes a counted candidate's key.
    #[inline(always)]
    fn offer(&mut self, key: u64) {
        self.best = self.best.min(key);
        self.best_safe = self
            .best_safe
            .min(key | (self.danger >> (key & 63) & 1) << 63);
        if self.no_safe && self.cheapest.is_none_or(|c| Ranked::priced(key) < c) {
            self.cheapest = Some(Ranked::priced(key));
        }
    }
}

/// The keys ([`cand_key`]) of the candidates in `at_min` (shanten
/// `min_sh`) and `at_safe` (the others at `safe_sh`): the least key and
/// the least safe one (bit 63 set for the kinds of `danger`); the kinds
/// of `void` are junk. The same keys as [`cand_key`] kind by kind
/// (checked in debug builds and by `level_keys_match_the_plain_keys`),
/// with the bits of each level computed once and picked by a look-up,
/// and the low bits (keep value and tile index) read from [`Keep`].
#[inline(always)]
fn level_keys(
    keep: &Keep,
    (at_min, at_safe): (u64, u64),
    (min_sh, safe_sh): (i8, i8),
    (all_wild, void, danger): (bool, u64, u64),
) -> (u64, u64) {
    // The bits a key's shanten and wildness set, per level (a junk key
    // lacks bit 53, which `cand_key` sets for the others); indexed by "at
    // the lowest shanten".
    let high = |sh: i8| cand_key(all_wild, sh, true, 0, 0);
    let h = [high(safe_sh), high(min_sh)];
    let (mut best, mut best_safe) = (u64::MAX, u64::MAX);
    let mut m = at_min | at_safe;
    while m != 0 {
        let k = m.trailing_zeros() as usize;
        m &= m - 1;
        let key = keep.key(h[(at_min >> k & 1) as usize], void, k);
        best = best.min(key);
        best_safe = best_safe.min(key | (danger >> k & 1) << 63);
    }
    (best, best_safe)
}

/// `KEEP_TAIL[sichuan][k]`: the tie-break after connectedness in
/// [`keep_value`] (points, or centrality in Sichuan) shifted above the
/// tile index, with the index: the low bits of a [`cand_key`] but for
/// the connectedness (16-bit lanes for [`Keep::new`]).
const KEEP_TAIL: [[u16; 48]; 2] = {
    let mut t = [[0u16; 48]; 2];
    let mut k = 0;
    while k < KINDS {
        let tile = Tile::from_index_unchecked(k as u8);
        let points = tile.points() as u16;
        let centre = if k < 27 {
            let r = tile.rank() as i32;
            (4 - if r > 5 { r - 5 } else { 5 - r }) as u16
        } else {
            0
        };
        t[0][k] = points << 6 | k as u16;
        t[1][k] = centre << 6 | k as u16;
        k += 1;
    }
    t
};

/// `KEEP_NEAR[d]` (`d` = 0..4 for the offsets −2, −1, +1, +2): 0xff for
/// the kinds whose neighbour at that offset is in the same suit (honors
/// have none), so that shifted count vectors add up only same-suit
/// neighbours.
const KEEP_NEAR: [[u8; 48]; 4] = {
    let mut t = [[0u8; 48]; 4];
    let offsets = [-2i32, -1, 1, 2];
    let mut d = 0;
    while d < 4 {
        let mut k = 0;
        while k < 27 {
            let r = (k % 9) as i32 + offsets[d];
            if r >= 0 && r < 9 {
                t[d][k] = 0xff;
            }
            k += 1;
        }
        d += 1;
    }
    t
};

/// [`keep_value`] of every kind of one hand, computed for all kinds at
/// once (16 at a time with SSE2) and kept as the low 16 bits of a
/// [`cand_key`]: `keep << 6 | k`. (A keep value is at most 36 × 16 + 10,
/// so it fits 10 bits.)
struct Keep {
    /// `keep_value(k) << 6 | k` for the kinds held (meaningless for the
    /// others; 64 entries so that a 6-bit index needs no bounds check).
    low: [u16; 64],
}

impl Keep {
    #[inline(always)]
    fn new(c: &Counts, family: Family) -> Keep {
        let tail = &KEEP_TAIL[usize::from(family == Family::Sichuan)];
        #[cfg(target_arch = "x86_64")]
        let k = Keep::new_sse2(c, tail);
        #[cfg(not(target_arch = "x86_64"))]
        let k = Keep::new_portable(c, tail);
        #[cfg(debug_assertions)]
        {
            let plain = Keep::new_portable(c, tail);
            for k2 in (0..KINDS).filter(|&x| c[x] > 0) {
                assert_eq!(k.low[k2], plain.low[k2]);
                assert_eq!(u32::from(k.low[k2] >> 6), keep_value(c, k2, family));
            }
        }
        k
    }

    /// [`Keep::new`] kind by kind (other targets, and the check of the
    /// SSE2 form).
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn new_portable(c: &Counts, tail: &[u16; 48]) -> Keep {
        let mut low = [0u16; 64];
        for (k, l) in low.iter_mut().enumerate().take(KINDS) {
            let at = |d: usize, j: i32| {
                let j = k as i32 + j;
                if KEEP_NEAR[d][k] != 0 {
                    u16::from(c[j as usize])
                } else {
                    0
                }
            };
            let w = at(0, -2) + 2 * at(1, -1) + 4 * u16::from(c[k]) + 2 * at(2, 1) + at(3, 2);
            *l = (w.wrapping_sub(4) << 10).wrapping_add(tail[k]);
        }
        Keep { low }
    }

    /// [`Keep::new`] with SSE2: the counts and their same-suit neighbours
    /// as five shifted, masked byte vectors, weighted and summed (at most
    /// 40 per byte), then widened to 16 bits and put above the tails.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn new_sse2(c: &Counts, tail: &[u16; 48]) -> Keep {
        use std::arch::x86_64::*;
        // Two zeros before the counts and enough after them for the
        // loads at offsets 0..=4 of three 16-byte chunks.
        let mut buf = [0u8; 56];
        buf[2..2 + KINDS].copy_from_slice(c);
        let mut low = [0u16; 64];
        // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics
        // are always available; every load is of 16 bytes at offsets up
        // to 16 × 2 + 4 + 16 = 52 of the 56-byte `buf`, or within the
        // 48-byte mask rows and tails, and the stores are within the
        // 64-entry `low`.
        unsafe {
            let load = |p: *const u8| _mm_loadu_si128(p.cast());
            let four = _mm_set1_epi8(4);
            let zero = _mm_setzero_si128();
            for ch in 0..3 {
                let at = |o: usize| load(buf.as_ptr().add(16 * ch + o));
                let near = |d: usize, o: usize| {
                    _mm_and_si128(at(o), load(KEEP_NEAR[d].as_ptr().add(16 * ch)))
                };
                let outer = _mm_add_epi8(near(0, 0), near(3, 4));
                let inner = _mm_add_epi8(near(1, 1), near(2, 3));
                let own = at(2);
                let own2 = _mm_add_epi8(own, own);
                let w = _mm_add_epi8(
                    outer,
                    _mm_add_epi8(_mm_add_epi8(inner, own2), _mm_add_epi8(inner, own2)),
                );
                let conn = _mm_sub_epi8(w, four);
                for half in 0..2 {
                    let wide = if half == 0 {
                        _mm_unpacklo_epi8(conn, zero)
                    } else {
                        _mm_unpackhi_epi8(conn, zero)
                    };
                    let i = 16 * ch + 8 * half;
                    let t = _mm_loadu_si128(tail.as_ptr().add(i).cast());
                    let v = _mm_add_epi16(_mm_slli_epi16::<10>(wide), t);
                    _mm_storeu_si128(low.as_mut_ptr().add(i).cast(), v);
                }
            }
        }
        Keep { low }
    }

    /// The kind of `m` (kinds held, not empty) with the least keep key
    /// (keep value, then index).
    #[inline(always)]
    fn least(&self, m: u64) -> usize {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
        let k = self.least_sse41(m);
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse4.1")))]
        let k = self.least_portable(m);
        debug_assert_eq!(k, self.least_portable(m));
        k
    }

    /// [`Keep::least`] kind by kind (builds without SSE4.1, and the check
    /// of the vector form).
    #[cfg_attr(
        all(target_arch = "x86_64", target_feature = "sse4.1"),
        allow(dead_code)
    )]
    fn least_portable(&self, m: u64) -> usize {
        (0..KINDS)
            .filter(|&k| m >> k & 1 == 1)
            .map(|k| self.low[k])
            .min()
            .map_or(0, |l| usize::from(l & 63))
    }

    /// [`Keep::least`] eight kinds at a time: the kinds outside `m` made
    /// 0xffff by a mask spread from its bits, an unsigned minimum, and one
    /// horizontal minimum (SSE4.1, part of the x86-64-v2 level the
    /// release builds target); the index is the key's low 6 bits.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    #[inline(always)]
    fn least_sse41(&self, m: u64) -> usize {
        use std::arch::x86_64::*;
        // SAFETY: SSE4.1 (and so SSE2) is enabled at compile time (the
        // cfg above); the loads are of 16-byte chunks of the 128-byte
        // `low`.
        unsafe {
            let bit_of = _mm_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128);
            let mut acc = _mm_set1_epi16(-1);
            for c in 0..5 {
                let v = _mm_loadu_si128(self.low.as_ptr().add(8 * c).cast());
                let bits = _mm_set1_epi16((m >> (8 * c)) as u8 as i16);
                let sel = _mm_cmpeq_epi16(_mm_and_si128(bits, bit_of), bit_of);
                // Not selected: all ones.
                let v = _mm_or_si128(v, _mm_andnot_si128(sel, _mm_set1_epi16(-1)));
                acc = _mm_min_epu16(acc, v);
            }
            (_mm_cvtsi128_si32(_mm_minpos_epu16(acc)) & 63) as usize
        }
    }

    /// [`keep_value`] of kind `k` (held).
    #[inline(always)]
    fn of(&self, k: usize) -> u32 {
        u32::from(self.low[k & 63] >> 6)
    }

    /// The [`cand_key`] of kind `k` (held) from the bits its level sets
    /// for a junk key (`high`) and the junk kinds (`void`).
    #[inline(always)]
    fn key(&self, high: u64, void: u64, k: usize) -> u64 {
        // The non-junk kinds also have bit 53.
        high | (!void >> k & 1) << 53 | u64::from(self.low[k & 63])
    }

    /// [`Keep::of`] checked against [`keep_value`] in debug builds.
    #[inline(always)]
    fn checked(&self, c: &Counts, k: usize, family: Family) -> u32 {
        let v = self.of(k);
        #[cfg(debug_assertions)]
        assert_eq!(v, keep_value(c, k, family));
        let _ = (c, family);
        v
    }
}

#[cfg(test)]
#[path = "greedy_reference.rs"]
mod reference;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::RandomAgent;
    use crate::game::mix_seed;
    use crate::game::Prng;
    use crate::ruleset::Ruleset;
    use crate::shanten::shanten_counts;

    fn random_hand(rng: &mut Prng, size: usize, kinds: usize) -> Counts {
        let mut c = [0u8; KINDS];
        let mut n = 0;
        while n < size {
            let k = rng.below(kinds as u32) as usize;
            if c[k] < 4 {
                c[k] += 1;
                n += 1;
            }
        }
        c
    }

    /// The incremental shanten agrees with the crate's shanten on every
    /// one-tile change, with and without wildcards and melds.
    #[test]
    fn incremental_shanten_matches_the_shanten_module() {
        let mut rng = Prng::new(11);
        let cases = [
            (Wildcards::NONE, ShapeRules::ALL),
            (Wildcards::NONE, ShapeRules::STANDARD_ONLY),
            (Wildcards::new(&[Tile::RED]).unwrap(), ShapeRules::ALL),
            (
                Wildcards::new(&[Tile::M1, Tile::new(13).unwrap()]).unwrap(),
                ShapeRules {
                    seven_pairs: true,
                    thirteen_orphans: true,
                    wind_sets: true,
                },
            ),
        ];
        for (wilds, rules) in cases {
            let calc = Calculator::new(&wilds, &rules);
            for i in 0..3000 {
                let melds = i % 3;
                let c = random_hand(&mut rng, 13 - 3 * melds, if i % 2 == 0 { 34 } else { 12 });
                let b = Base::new(&calc, &wilds, &rules, &c, melds);
                assert_eq!(
                    b.shanten(),
                    shanten_counts(&c, melds, &wilds, &rules).unwrap()
                );
                for k in 0..KINDS {
                    let wild = wilds.is_wild(Tile::from_index_unchecked(k as u8));
                    if c[k] < 4 && !wild {
                        let mut d = c;
                        d[k] += 1;
                        let want = shanten_counts(&d, melds, &wilds, &rules).unwrap();
                        assert_eq!(b.shanten_natural(&calc, k, true), want, "{c:?} + {k}");
                        let b14 = Base::new(&calc, &wilds, &rules, &d, melds);
                        for j in 0..KINDS {
                            if d[j] > 0 {
                                let mut e = d;
                                e[j] -= 1;
                                let want = shanten_counts(&e, melds, &wilds, &rules).unwrap();
                                assert_eq!(b14.shanten_without(&calc, &wilds, j), want);
                                if wild
                                    || i % 10 != 0
                                    || wilds.is_wild(Tile::from_index_unchecked(j as u8))
                                {
                                    continue;
                                }
                                // The 13-tile base rebuilt from shared group
                                // needs, and additions in other groups.
                                let mut groups = b14.groups;
                                groups[group_of(j)] = b14.group_after(&calc, j, false);
                                let mut nat = b14.natural;
                                nat[j] -= 1;
                                let b13 = Base::from_groups(nat, b14.w, melds, groups, &rules);
                                assert_eq!(b13.shanten(), want);
                                for x in 0..KINDS {
                                    let xw = wilds.is_wild(Tile::from_index_unchecked(x as u8));
                                    if xw || group_of(x) == group_of(j) || e[x] >= 4 {
                                        continue;
                                    }
                                    let mut f = e;
                                    f[x] += 1;
                                    let want = shanten_counts(&f, melds, &wilds, &rules).unwrap();
                                    let nx = b14.group_after(&calc, x, true);
                                    assert_eq!(b13.shanten_with(x, true, &nx), want);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The four shape-table variants: without and with wildcards (a
    /// fifth copy allowed), each without and with 风嘴子 wind sets.
    fn table_variants() -> [(Wildcards, ShapeRules); 4] {
        let wind = ShapeRules {
            wind_sets: true,
            ..ShapeRules::ALL
        };
        let red = Wildcards::new(&[Tile::RED]).unwrap();
        [
            (Wildcards::NONE, ShapeRules::ALL),
            (Wildcards::NONE, wind),
            (red, ShapeRules::ALL),
            (red, wind),
        ]
    }

    /// A random group key of `len` kinds holding 0 to `most` tiles, at
    /// most four of a kind.
    fn random_group(rng: &mut Prng, len: usize, most: u32) -> [u8; 9] {
        let mut key = [0u8; 9];
        let size = rng.below(most + 1);
        let mut n = 0;
        while n < size {
            let j = rng.below(len as u32) as usize;
            if key[j] < 4 {
                key[j] += 1;
                n += 1;
            }
        }
        key
    }

    /// A group's needs with one tile added or removed move by at most
    /// one per lane, down or up (what the lane masks of [`GroupEntry`]
    /// rely on), for every table variant, on random groups of suits and
    /// honors of every size the agent looks up.
    #[test]
    fn one_tile_changes_move_needs_by_one() {
        let mut rng = Prng::new(23);
        for (wilds, rules) in table_variants() {
            let calc = Calculator::new(&wilds, &rules);
            for i in 0..20_000 {
                let g = i % 4;
                let (_, len) = group_span(g);
                let key = random_group(&mut rng, len, 13);
                let x = calc.group_lanes_of(g, &key);
                for j in 0..len {
                    let mut k = key;
                    if key[j] < 4 {
                        k[j] += 1;
                        let y = calc.group_lanes_of(g, &k);
                        for &l in &ROW_LANE {
                            assert!(y[l] <= x[l] && x[l] <= y[l] + 1, "{key:?} + {j}");
                        }
                        k[j] -= 1;
                    }
                    if key[j] > 0 {
                        k[j] -= 1;
                        let y = calc.group_lanes_of(g, &k);
                        for &l in &ROW_LANE {
                            assert!(x[l] <= y[l] && y[l] <= x[l] + 1, "{key:?} - {j}");
                        }
                    }
                }
            }
        }
    }

    /// Table positions: the needs at a group's position are its needs,
    /// and a one-tile change moves the position by its step, for every
    /// table variant, on random groups of suits and honors.
    #[test]
    fn table_positions_step_like_the_counts() {
        let mut rng = Prng::new(37);
        for (wilds, rules) in table_variants() {
            let calc = Calculator::new(&wilds, &rules);
            for i in 0..20_000 {
                let g = i % 4;
                let (_, len) = group_span(g);
                let key = random_group(&mut rng, len, 14);
                let pos = group_pos(g, &key);
                assert_eq!(calc.lanes_at(g, pos), calc.group_lanes_of(g, &key));
                // The additions read together, as the plain look-ups.
                let addable = (0..len)
                    .filter(|&j| key[j] < 4 && key.iter().sum::<u8>() < 14)
                    .fold(0u16, |m, j| m | 1 << j);
                let mut seen = 0u16;
                calc.lanes_added(g, pos, addable, |j, l| {
                    assert_eq!(l, calc.lanes_at(g, pos + pos_step(g, j)), "{key:?} + {j}");
                    seen |= 1 << j;
                });
                assert_eq!(seen, addable);
                for j in 0..len {
                    let mut k = key;
                    if key[j] < 4 && key.iter().sum::<u8>() < 14 {
                        k[j] += 1;
                        assert_eq!(pos + pos_step(g, j), group_pos(g, &k), "{key:?} + {j}");
                        k[j] -= 1;
                    }
                    if key[j] > 0 {
                        k[j] -= 1;
                        assert_eq!(pos - pos_step(g, j), group_pos(g, &k), "{key:?} - {j}");
                    }
                }
            }
        }
    }

    /// A base built with the partners of the held groups only has the
    /// deficiency and those partners of the full build (every partner
    /// when thirteen orphans is possible), and "impossible" lanes in the
    /// others, on hands missing whole groups.
    #[test]
    fn held_group_partners_match_the_full_build() {
        let mut rng = Prng::new(41);
        let calc = Calculator::new(&Wildcards::NONE, &ShapeRules::ALL);
        let mut skipped = 0;
        for i in 0..20_000 {
            let melds = i % 3;
            let rules = if i % 2 == 0 {
                ShapeRules::ALL
            } else {
                ShapeRules::STANDARD_ONLY
            };
            // Some hands in the first one, two or three groups only.
            let kinds = [34, 27, 18, 9, 12][i % 5];
            let c = random_hand(&mut rng, 14 - 3 * melds, kinds);
            let (natural, w) = Wildcards::NONE.split(&c);
            let g = calc.lanes(&natural).0;
            let full = Base::with_partners(natural, w, melds, g, &rules, true);
            let lazy = Base::with_partners(natural, w, melds, g, &rules, false);
            assert_eq!(lazy.d, full.d, "{c:?}");
            for (k, m) in GROUP_KINDS.iter().enumerate() {
                if full.orphans || full.held & m != 0 {
                    assert_eq!(lazy.partner[k], full.partner[k], "{c:?} {k}");
                } else if lazy.partner[k] != full.partner[k] {
                    assert_eq!(lazy.partner[k], [0xff; 16]);
                    skipped += 1;
                }
            }
        }
        assert!(skipped > 1000, "{skipped}");
    }

    /// The discard levels by kind (SSSE3 where built) equal the plain loop
    /// and [`Removal::of`] kind by kind, and the kinds at a level (SSE2)
    /// the plain loop, on random removal tallies and counts.
    #[test]
    fn level_kernels_match_the_plain_loops() {
        let mut rng = Prng::new(43);
        for i in 0..50_000 {
            let r = Removal {
                standard: rng.below(12) as u8,
                raises: u64::from(rng.below(u32::MAX)) << 32 | u64::from(rng.below(u32::MAX)),
                special: std::array::from_fn(|_| rng.below(16) as u8),
            };
            let c = random_hand(&mut rng, 14, 34);
            let (w, tr) = (rng.below(4) as u8, i % 2 == 0);
            let lv = removal_levels(&r, &c, w, tr);
            assert_eq!(lv, removal_levels_portable(&r, &c, w, tr));
            #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
            assert_eq!(removal_levels_ssse3(&r, &c, w, tr), lv);
            for k in 0..KINDS {
                let q = r.of(k, c[k]).saturating_sub(w);
                assert_eq!(lv[k], q + u8::from(tr && q == 1), "{k}");
            }
            assert!(lv[KINDS..].iter().all(|&x| x == 0));
            let level = lv[rng.below(KINDS as u32) as usize];
            let m = kinds_at_level(&lv, level);
            assert_eq!(m, kinds_at_level_portable(&lv, level));
            #[cfg(target_arch = "x86_64")]
            assert_eq!(kinds_at_level_sse2(&lv, level), m);
            for (k, &l) in lv.iter().enumerate().take(KINDS) {
                assert_eq!(m >> k & 1 == 1, l == level);
            }
        }
    }

    /// The agent's min-plus product (SSSE3 where built) equals the shanten
    /// module's, every lane, on the group needs of random hands and their
    /// products (as the agent chains them), and on arbitrary needs within
    /// its preconditions (`need[0][0]` 0, needs below 0x80, unused lanes
    /// at least 0x80).
    #[test]
    fn agent_products_match_the_shanten_module() {
        let mut rng = Prng::new(23);
        let check = |a: &Lanes, b: &Lanes| {
            let want = crate::shanten::combine(a, b);
            assert_eq!(combine(a, b), want, "{a:?} {b:?}");
            #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
            assert_eq!(combine_ssse3(a, b), want, "{a:?} {b:?}");
            want
        };
        let setups = [
            (Wildcards::NONE, ShapeRules::ALL),
            (Wildcards::new(&[Tile::RED]).unwrap(), ShapeRules::ALL),
            (Wildcards::NONE, ShapeRules::STANDARD_ONLY),
        ];
        for (wilds, shape) in setups {
            let calc = Calculator::new(&wilds, &shape);
            for _ in 0..4_000 {
                let size = [1, 4, 7, 10, 13, 14][rng.below(6) as usize];
                let c = random_hand(&mut rng, size, KINDS);
                let g = calc.lanes(&wilds.split(&c).0).0;
                for x in &g {
                    for y in &g {
                        let xy = check(x, y);
                        for z in &g {
                            check(&xy, z);
                            check(z, &xy);
                        }
                    }
                }
            }
        }
        for _ in 0..100_000 {
            let needs = |rng: &mut Prng| -> Lanes {
                std::array::from_fn(|i| match i {
                    0 => 0,
                    _ if i % P > 4 => 0x80 + rng.below(0x80) as u8,
                    _ => {
                        let top = if rng.below(4) == 0 { 0x80 } else { 12 };
                        rng.below(top) as u8
                    }
                })
            };
            check(&needs(&mut rng), &needs(&mut rng));
        }
    }

    /// The lane-mask kernels (SSE2 where built) equal their plain loops on
    /// arbitrary bytes.
    #[test]
    fn lane_kernels_match_the_plain_loops() {
        let mut rng = Prng::new(19);
        let bytes = |rng: &mut Prng| -> Lanes {
            std::array::from_fn(|_| match rng.below(3) {
                0 => rng.below(256) as u8,
                _ => rng.below(6) as u8,
            })
        };
        for _ in 0..50_000 {
            let (a, b) = (bytes(&mut rng), bytes(&mut rng));
            let d = rng.below(8) as u8;
            let m = Slots(std::array::from_fn(|_| rng.below(1 << 16) as u16));
            let t = rng.below(1 << 16) as u16;
            assert_eq!(lanes_moved_portable(&a, &b), lanes_moved_portable(&b, &a));
            // Ordered lanes (a one-tile change): the moved lanes are those
            // below.
            let lo: Lanes = std::array::from_fn(|i| a[i].min(b[i]));
            let hi: Lanes = std::array::from_fn(|i| a[i].max(b[i]));
            assert_eq!(lanes_moved(&lo, &hi), lanes_below(&lo, &hi));
            assert_eq!(tight_lanes(&a, &b, d), tight_lanes_portable(&a, &b, d));
            assert_eq!(zero_lanes(&a), zero_lanes_portable(&a));
            assert_eq!(hitting(&m, t), hitting_portable(&m, t));
            #[cfg(target_arch = "x86_64")]
            {
                assert_eq!(lanes_moved_sse2(&a, &b), lanes_moved_portable(&a, &b));
                assert_eq!(tight_lanes_sse2(&a, &b, d), tight_lanes_portable(&a, &b, d));
                assert_eq!(zero_lanes_sse2(&a), zero_lanes_portable(&a));
                assert_eq!(hitting_sse2(&m, t), hitting_portable(&m, t));
            }
            // The plain loops against their definitions.
            for i in 0..16 {
                let used = USED_LANES >> i & 1 == 1;
                assert_eq!(lanes_below(&a, &b) >> i & 1 == 1, used && a[i] < b[i]);
                assert_eq!(
                    lanes_moved_portable(&a, &b) >> i & 1 == 1,
                    used && a[i] != b[i]
                );
                let tight = a[i].saturating_add(b[i]) == d;
                assert_eq!(tight_lanes(&a, &b, d) >> i & 1 == 1, used && tight);
                assert_eq!(zero_lanes(&a) >> i & 1 == 1, used && a[i] == 0);
                assert_eq!(hitting(&m, t) >> i & 1 == 1, m.0[i] & t != 0);
            }
        }
    }

    /// The changed groups of two hands, by SSE2 and group by group, equal
    /// a kind-by-kind comparison, on hands that differ in a few kinds.
    #[test]
    fn changed_groups_match_the_plain_comparison() {
        let mut rng = Prng::new(29);
        for i in 0..20_000 {
            let a = random_hand(&mut rng, 1 + i % 14, 34);
            let mut b = a;
            for _ in 0..rng.below(4) {
                let k = rng.below(KINDS as u32) as usize;
                b[k] = rng.below(5) as u8;
            }
            let plain = (0..KINDS)
                .filter(|&k| a[k] != b[k])
                .fold(0u8, |m, k| m | 1 << group_of(k));
            assert_eq!(changed_groups(&a, &b), plain, "{a:?} {b:?}");
            assert_eq!(changed_groups_portable(&a, &b), plain, "{a:?} {b:?}");
            #[cfg(target_arch = "x86_64")]
            assert_eq!(changed_groups_sse2(&a, &b), plain, "{a:?} {b:?}");
        }
    }

    /// The tight-lane rules equal [`partner_missing`] on the changed group: on
    /// random hands, a kind lowers the standard deficiency of a 13-tile
    /// hand exactly when it lowers a tight nonzero lane of its group, and
    /// a removal from a 14-tile hand raises it (by one) exactly when it
    /// raises every tight lane.
    #[test]
    fn tight_lanes_decide_like_standard() {
        let mut rng = Prng::new(29);
        let (mut lowered, mut raised) = (0, 0);
        for (wilds, rules) in [table_variants()[0], table_variants()[3]] {
            let calc = Calculator::new(&wilds, &rules);
            for i in 0..6000 {
                let melds = i % 3;
                let size = 13 - 3 * melds + i % 2;
                let c = random_hand(&mut rng, size, if i % 4 < 2 { 34 } else { 12 });
                let b = Base::new(&calc, &wilds, &rules, &c, melds);
                let d = partner_missing(&b.partner[3], &b.groups[3]);
                for g in 0..4 {
                    assert_eq!(partner_missing(&b.partner[g], &b.groups[g]), d);
                    let x = &b.groups[g];
                    let (lo, len) = group_span(g);
                    for k in lo..lo + len {
                        if size % 3 == 1 && b.natural[k] < 4 && d > 0 {
                            let add = b.group_after(&calc, k, true);
                            let want = partner_missing(&b.partner[g], &add) < d;
                            let tight = tight_lanes(x, &b.partner[g], d) & !zero_lanes(x);
                            let m = Slots([lanes_below(&add, x); 16]);
                            assert_eq!(hitting(&m, tight) & 1 == 1, want, "{c:?} + {k}");
                            lowered += usize::from(want);
                        }
                        if size % 3 == 2 && b.natural[k] > 0 {
                            let rem = b.group_after(&calc, k, false);
                            let got = partner_missing(&b.partner[g], &rem);
                            let kept = USED_LANES & !lanes_below(x, &rem);
                            let tight = tight_lanes(x, &b.partner[g], d);
                            let up = hitting(&Slots([kept; 16]), tight) & 1 == 0;
                            assert_eq!(got, d + u8::from(up), "{c:?} - {k}");
                            raised += usize::from(up);
                        }
                    }
                }
            }
        }
        // Both answers occur (the test can fail both ways).
        assert!(lowered > 1000 && raised > 1000, "{lowered} {raised}");
    }

    /// The SSE2 bit planes equal the word-arithmetic ones and the counts'
    /// bits, on counts and on arbitrary bytes.
    #[test]
    fn bit_planes_match_the_counts() {
        let mut rng = Prng::new(31);
        for i in 0..20_000 {
            let c: Counts = if i % 2 == 0 {
                random_hand(&mut rng, 1 + i % 40, 34)
            } else {
                std::array::from_fn(|_| rng.below(256) as u8)
            };
            let p = Planes::new(&c);
            assert_eq!(p.0, Planes::new_portable(&c).0, "{c:?}");
            for k in 0..KINDS {
                for b in 0..3 {
                    assert_eq!((p.0[b] >> k & 1) as u8, c[k] >> b & 1, "{c:?} {k} {b}");
                }
                assert_eq!(p.held() >> k & 1 == 1, c[k] & 7 != 0, "{c:?} {k}");
            }
            assert_eq!(p.0.iter().fold(0, |a, x| a | x) >> KINDS, 0);
            if c.iter().all(|&n| n <= 4) {
                assert_eq!(p.tallies(), tallies(&c), "{c:?}");
            }
        }
    }

    /// The branch-free keep values equal the plain ones on random hands
    /// (every held kind, both tie-break families).
    #[test]
    fn keep_values_match_the_plain_form() {
        let mut rng = Prng::new(5);
        for i in 0..20_000 {
            let c = random_hand(&mut rng, 14, if i % 2 == 0 { 34 } else { 9 });
            for family in [Family::Shanxi, Family::Sichuan] {
                let keep = Keep::new(&c, family);
                for k in (0..KINDS).filter(|&k| c[k] > 0) {
                    assert_eq!(keep.of(k), keep_value(&c, k, family), "{c:?} {k}");
                }
                // The least keep key of a set of held kinds (value, then
                // index), vector and plain.
                let held = (0..KINDS)
                    .filter(|&k| c[k] > 0)
                    .fold(0u64, |m, k| m | bit(k));
                let m =
                    held & (u64::from(rng.below(u32::MAX)) << 32 | u64::from(rng.below(u32::MAX)));
                let m = if m == 0 { held } else { m };
                let want = (0..KINDS)
                    .filter(|&k| m >> k & 1 == 1)
                    .min_by_key(|&k| (keep_value(&c, k, family), k));
                assert_eq!(Some(keep.least(m)), want, "{c:?} {m:x}");
                assert_eq!(keep.least_portable(m), keep.least(m));
            }
        }
    }

    /// The keys of two shanten levels at once equal [`cand_key`] kind by
    /// kind with [`keep_value`], and so do their minimums (with and
    /// without the danger bit).
    #[test]
    fn level_keys_match_the_plain_keys() {
        let mut rng = Prng::new(41);
        let held_mask = |c: &Counts| {
            (0..KINDS)
                .filter(|&k| c[k] > 0)
                .fold(0u64, |m, k| m | bit(k))
        };
        for i in 0..20_000 {
            let c = random_hand(&mut rng, 14, if i % 2 == 0 { 34 } else { 18 });
            let held = held_mask(&c);
            let pick = |rng: &mut Prng| {
                held & (u64::from(rng.below(u32::MAX)) << 32 | u64::from(rng.below(u32::MAX)))
            };
            let at_min = pick(&mut rng);
            let at_safe = pick(&mut rng) & !at_min;
            let (void, danger) = (pick(&mut rng), pick(&mut rng));
            let min_sh = rng.below(4) as i8 - 1;
            let safe_sh = min_sh + rng.below(3) as i8;
            let all_wild = rng.below(4) == 0;
            for family in [Family::Shanxi, Family::Sichuan] {
                let keep = Keep::new(&c, family);
                let got = level_keys(
                    &keep,
                    (at_min, at_safe),
                    (min_sh, safe_sh),
                    (all_wild, void, danger),
                );
                let (mut best, mut best_safe) = (u64::MAX, u64::MAX);
                for k in (0..KINDS).filter(|&k| (at_min | at_safe) >> k & 1 == 1) {
                    let sh = if at_min >> k & 1 == 1 {
                        min_sh
                    } else {
                        safe_sh
                    };
                    let junk = void >> k & 1 == 1;
                    let want = cand_key(all_wild, sh, junk, keep_value(&c, k, family), k);
                    let key = keep.key(cand_key(all_wild, sh, true, 0, 0), void, k);
                    assert_eq!(key, want, "{c:?} {k}");
                    best = best.min(want);
                    best_safe = best_safe.min(want | (danger >> k & 1) << 63);
                }
                assert_eq!(got, (best, best_safe));
            }
        }
    }

    /// The kept setup is rebuilt exactly when the wildcards or the shape
    /// rules change, and always equals a fresh one (wild mask and
    /// calculator answers).
    #[test]
    fn kept_setup_follows_the_table_variant() {
        let mut rng = Prng::new(23);
        let wilds = [
            Wildcards::NONE,
            Wildcards::new(&[Tile::RED]).unwrap(),
            Wildcards::new(&[Tile::M1, Tile::new(13).unwrap()]).unwrap(),
        ];
        let shapes = [
            ShapeRules::ALL,
            ShapeRules::STANDARD_ONLY,
            ShapeRules {
                seven_pairs: true,
                thirteen_orphans: true,
                wind_sets: true,
            },
        ];
        let mut kept = None;
        for i in 0..300 {
            let w = wilds[rng.below(3) as usize];
            let sh = shapes[rng.below(3) as usize];
            let setup = Setup::refresh(&mut kept, w, sh);
            let fresh = Setup::new(w, sh);
            assert_eq!((setup.wilds, setup.shape), (w, sh), "{i}");
            assert_eq!(setup.wild_mask, fresh.wild_mask, "{i}");
            for k in 0..KINDS {
                let t = Tile::from_index_unchecked(k as u8);
                assert_eq!(setup.wild_mask >> k & 1 == 1, w.is_wild(t));
            }
            assert_eq!(setup.calc.group_variant(), fresh.calc.group_variant());
            let c = random_hand(&mut rng, 14, 34);
            assert_eq!(
                setup.calc.shanten(&c, 0),
                fresh.calc.shanten(&c, 0),
                "{c:?}"
            );
            assert_eq!(
                setup.calc.shanten(&c, 0),
                shanten_counts(&c, 0, &w, &sh).unwrap()
            );
        }
    }

    /// The unseen counts and the 包胡 pass state, read from the table's
    /// kept tallies, equal a fresh count over the discards at every step
    /// of seeded hands, for every seat, in every preset.
    #[test]
    fn table_tallies_give_the_unseen_counts_and_the_passes() {
        let (mut groups, mut setup) = (Groups::default(), None);
        let (mut checked, mut threats) = (0u64, 0u64);
        for (p, rules) in crate::testing::presets().iter().enumerate() {
            for i in 0..60u64 {
                let seed = mix_seed(p as u64 + 301, i);
                let mut g = Game::new(rules, seed, None).unwrap();
                let mut random = [0, 1, 2, 3].map(|s| RandomAgent::new(seed ^ s));
                while let Some(seat) = g.to_act() {
                    for s in 0..4u8 {
                        let mut ctx = Ctx::new(&g, s, &mut groups, &mut setup);
                        let (u, th) = (ctx.unseen(), ctx.threat());
                        assert_eq!(u, ctx.unseen_plain(), "preset {p} hand {i}");
                        let plain = th.and_then(|t| Ctx::threat_passes(&g, t));
                        assert_eq!(th, plain, "preset {p} hand {i}");
                        checked += 1;
                        threats += u64::from(th.is_some_and(|t| t.passed != [0; 4]));
                    }
                    let act = random[seat as usize].act(&SeatView::new(&g, seat));
                    g.step(act).unwrap();
                }
            }
        }
        assert!(checked > 50_000 && threats > 300, "{checked} {threats}");
    }

    /// The shanten from two products of the kept group needs equals the
    /// crate's shanten of the counts the agent analyses (void suit left
    /// out), for every seat's hand and its pong and kong remainders, at
    /// every step of seeded hands in every preset.
    #[test]
    fn two_product_shanten_matches_the_shanten_module() {
        let (mut groups, mut setup) = (Groups::default(), None);
        let mut checked = 0u64;
        for (p, rules) in crate::testing::presets().iter().enumerate() {
            for i in 0..40u64 {
                let seed = mix_seed(p as u64 + 401, i);
                let mut g = Game::new(rules, seed, None).unwrap();
                let mut random = RandomAgent::new(seed);
                while let Some(seat) = g.to_act() {
                    for s in 0..4u8 {
                        let mut ctx = Ctx::new(&g, s, &mut groups, &mut setup);
                        let c = ctx.hand.concealed;
                        let n = ctx.hand.n_melds();
                        for k in (0..KINDS).filter(|&k| c[k] >= 2) {
                            for (take, melds) in [(0, n), (2, n + 1), (3, n + 1)] {
                                if c[k] < take || melds > 4 {
                                    continue;
                                }
                                let mut h = c;
                                h[k] -= take;
                                let e = ctx.eff(&h);
                                let got = ctx.shanten(&h, melds);
                                // Fresh lookups, no kept needs.
                                let calc = Calculator::new(&ctx.wilds, &ctx.shape);
                                let fresh = Base::new(&calc, &ctx.wilds, &ctx.shape, &e, melds);
                                assert_eq!(got, fresh.shanten(), "{h:?} {melds}");
                                // The crate's shanten where the size is a hand's.
                                if let Ok(want) = shanten_counts(&e, melds, &ctx.wilds, &ctx.shape)
                                {
                                    assert_eq!(got, want, "{h:?} {melds}");
                                    checked += 1;
                                }
                            }
                        }
                    }
                    let act = random.act(&SeatView::new(&g, seat));
                    g.step(act).unwrap();
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// The optimized agent takes exactly the action of the reference (the
    /// agent before the speed work) at every decision of seeded hands, all
    /// greedy and greedy against random, in every family and with
    /// wildcards.
    #[test]
    fn optimized_agent_matches_the_reference_action_for_action() {
        // The four presets, then back to the first table variant with the
        // same agents.
        let [a, b, c, d] = crate::testing::presets();
        let presets = [a, b, c, d, Ruleset::shanxi()];
        // One set of optimized agents for every hand and preset, as in
        // `simulate`: what they keep between decisions must never leak
        // into another hand, game or table variant.
        let mut fast = [0, 1, 2, 3].map(GreedyAgent::new);
        for (p, rules) in presets.iter().enumerate() {
            let mut decisions = 0u64;
            for i in 0..400u64 {
                let seed = mix_seed(p as u64 + 101, i);
                let mut g = Game::new(rules, seed, Some((i % 4) as u8)).unwrap();
                let mut slow = [0, 1, 2, 3].map(reference::GreedyAgent::new);
                let mut random = [0, 1, 2, 3].map(|s| RandomAgent::new(seed ^ s));
                // Odd hands: seats 1-3 play at random, which reaches more
                // claim and kong decisions for seat 0.
                let greedy_seats = if i % 2 == 0 { 4 } else { 1 };
                while let Some(seat) = g.to_act() {
                    let s = seat as usize;
                    let view = SeatView::new(&g, seat);
                    let a = fast[s].act(&view);
                    let b = slow[s].act(&view);
                    assert_eq!(a, b, "preset {p} hand {i} seat {seat}: {:?}", g.log());
                    decisions += 1;
                    let act = if s < greedy_seats {
                        a
                    } else {
                        random[s].act(&view)
                    };
                    g.step(act).unwrap();
                }
            }
            assert!(decisions > 10_000, "preset {p}: {decisions} decisions");
        }
    }
}
