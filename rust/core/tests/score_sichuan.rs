//! Sichuan basic-points scoring (docs/rules.md §5): every pattern, 根, 杠上花,
//! 抢杠, 缺一门, the seed's examples, payments, 查叫, 刮风下雨, and the
//! pattern value against a brute-force reference over random hands.

use koudian_core::hand::{Hand, Meld, MeldKind};
use koudian_core::ruleset::{Chajiao, Ruleset};
use koudian_core::score::{
    chajiao_value, hand_value, settle, HandEnd, Kong, KongKind, Outcome, Pattern, PaymentReason,
    Win, WinContext,
};
use koudian_core::tile::{parse, Tile};
use koudian_core::Error;

fn t(s: &str) -> Tile {
    Tile::from_notation(s).unwrap()
}

fn hand(concealed: &str, melds: &[(MeldKind, &str)]) -> Hand {
    let melds: Vec<Meld> = melds.iter().map(|(k, s)| Meld::new(*k, t(s))).collect();
    Hand::from_tiles(&parse(concealed).unwrap(), &melds).unwrap()
}

fn rules() -> Ruleset {
    Ruleset::sichuan()
}

fn value_ctx(h: &Hand, win: &str, ctx: &WinContext) -> Result<u32, Error> {
    hand_value(h, t(win), ctx, &rules()).map(|v| v.total)
}

fn value(concealed: &str, win: &str) -> Result<u32, Error> {
    value_ctx(&hand(concealed, &[]), win, &WinContext::discard())
}

// ------------------------------------------------------ seed examples

#[test]
fn seed_example_basic_hand_with_kong_is_two() {
    let h = hand("123m345m999p66p", &[(MeldKind::ConcealedKong, "2p")]);
    assert_eq!(value_ctx(&h, "6p", &WinContext::discard()), Ok(2));
}

#[test]
fn seed_example_all_triplets_with_kong_is_three() {
    let h = hand("111m444m999p66p", &[(MeldKind::ExposedKong, "2p")]);
    assert_eq!(value_ctx(&h, "6p", &WinContext::discard()), Ok(3));
}

#[test]
fn seed_example_full_flush_with_kong_is_four() {
    let h = hand("123s567s234s77s", &[(MeldKind::AddedKong, "8s")]);
    assert_eq!(value_ctx(&h, "7s", &WinContext::discard()), Ok(4));
}

#[test]
fn seed_example_full_flush_with_two_roots_is_five() {
    let v = hand_value(
        &hand("123s567s678s888s77s", &[]),
        t("7s"),
        &WinContext::discard(),
        &rules(),
    )
    .unwrap();
    assert_eq!(v.total, 5);
    assert_eq!(
        v.patterns,
        vec![
            Pattern::FullFlush,
            Pattern::Root(t("7s")),
            Pattern::Root(t("8s"))
        ]
    );
}

#[test]
fn seed_two_five_eight_example_cannot_win_lacking_no_suit() {
    let e = value("222m555m888m222s55p", "5p").unwrap_err();
    assert!(e.to_string().contains("缺一门"), "{e}");
}

// ------------------------------------------------------ patterns

#[test]
fn basic_hand_is_one() {
    assert_eq!(value("123m456m789m234p55p", "5p"), Ok(1));
}

#[test]
fn all_triplets_is_two() {
    assert_eq!(value("111m444m999p222p55p", "5p"), Ok(2));
}

#[test]
fn full_flush_is_three() {
    assert_eq!(value("123m456m789m234m55m", "5m"), Ok(3));
}

#[test]
fn terminals_in_every_set_is_three() {
    assert_eq!(value("123m789m123p789p99p", "9p"), Ok(3));
}

#[test]
fn seven_pairs_is_three() {
    assert_eq!(value("11m22m99m44p66p88p99p", "9p"), Ok(3));
}

#[test]
fn seven_pairs_with_a_four_of_a_kind_is_three_plus_a_root() {
    assert_eq!(value("1111m99m44p66p88p99p", "9p"), Ok(4));
}

#[test]
fn flush_triplets_is_four() {
    assert_eq!(value("111m444m999m222m55m", "5m"), Ok(4));
}

#[test]
fn two_five_eight_triplets_is_four() {
    assert_eq!(value("222m555m888m222p55p", "5p"), Ok(4));
    // A pair outside 2-5-8 is only 对对胡.
    assert_eq!(value("222m555m888m222p66p", "6p"), Ok(2));
}

#[test]
fn flush_seven_pairs_is_eight() {
    assert_eq!(value("11m22m44m55m77m88m99m", "9m"), Ok(8));
}

#[test]
fn heavenly_hand_is_eight() {
    let ctx = WinContext {
        heavenly: true,
        ..WinContext::self_draw()
    };
    let h = hand("123m456m789m234p55p", &[]);
    assert_eq!(value_ctx(&h, "5p", &ctx), Ok(8));
}

#[test]
fn earthly_hand_is_eight() {
    let ctx = WinContext {
        earthly: true,
        ..WinContext::discard()
    };
    let h = hand("123m456m789m234p55p", &[]);
    assert_eq!(value_ctx(&h, "5p", &ctx), Ok(8));
}

#[test]
fn kong_bloom_adds_two() {
    let h = hand("123m345m999p66p", &[(MeldKind::ConcealedKong, "2p")]);
    let ctx = WinContext {
        kong_replacement: Some(KongKind::Concealed),
        ..WinContext::self_draw()
    };
    assert_eq!(value_ctx(&h, "6p", &ctx), Ok(4));
}

#[test]
fn robbing_a_kong_adds_one() {
    let ctx = WinContext {
        robbed_kong: true,
        ..WinContext::discard()
    };
    let h = hand("123m456m789m234p55p", &[]);
    assert_eq!(value_ctx(&h, "5p", &ctx), Ok(2));
}

#[test]
fn root_counts_four_tiles_in_hand_kong_or_not() {
    // 123m 345m: no; 2222p: not a kong but all four in hand (2p 22p 234p).
    assert_eq!(value("22p234p123m345m99p", "9p").ok(), None);
    assert_eq!(value("222p234p123m345m99p", "9p"), Ok(2));
}

#[test]
fn value_is_the_best_over_all_decompositions() {
    // 111222333m = 123m ×3 (幺九 with 789p 99p) beats the triplet reading.
    assert_eq!(value("111m222m333m789p99p", "9p"), Ok(3));
    // Triplets (对对胡) beat sequences (平胡).
    assert_eq!(value("111m222m333m777p99p", "9p"), Ok(2));
}

#[test]
fn lacking_a_suit_counts_melds() {
    let h = hand("123m456m234p55p", &[(MeldKind::Pong, "9s")]);
    assert!(value_ctx(&h, "5p", &WinContext::discard()).is_err());
}

#[test]
fn honors_are_not_in_play() {
    assert!(value("123m456m789m55m111z", "5m").is_err());
}

// ------------------------------------------------------ settlement

fn deltas(o: &Outcome, r: &Ruleset) -> [i64; 4] {
    let s = settle(o, r).unwrap();
    assert_eq!(s.deltas.iter().sum::<i64>(), 0);
    s.deltas
}

fn flush_win(seat: u8) -> Win {
    // 清一色 3.
    Win::new(seat, hand("123m456m789m234m55m", &[]), t("5m"))
}

#[test]
fn self_draw_each_other_player_pays() {
    let mut o = Outcome::new(0, HandEnd::SelfDraw);
    o.winners.push(flush_win(2));
    assert_eq!(deltas(&o, &rules()), [-3, -3, 9, -3]);
}

#[test]
fn discarder_alone_pays_the_winner() {
    let mut o = Outcome::new(0, HandEnd::Discard { discarder: 1 });
    o.winners.push(flush_win(2));
    assert_eq!(deltas(&o, &rules()), [0, -3, 3, 0]);
}

#[test]
fn one_discard_several_winners_yipao_duoxiang() {
    let mut o = Outcome::new(0, HandEnd::Discard { discarder: 1 });
    o.winners.push(flush_win(2));
    o.winners
        .push(Win::new(3, hand("123p456p789p234p55p", &[]), t("5p")));
    o.winners[0].win_tile = t("5m");
    // Different tiles for one discard are inconsistent.
    assert!(settle(&o, &rules()).is_err());
    o.winners[1] = Win::new(3, hand("123p456p789p55p345m", &[]), t("5m"));
    assert_eq!(deltas(&o, &rules()), [0, -4, 3, 1]);
}

#[test]
fn robbed_added_kong_several_winners_each_paid_by_the_konger() {
    let mut o = Outcome::new(0, HandEnd::RobbedKong { konger: 1 });
    o.winners.push(flush_win(2));
    o.winners
        .push(Win::new(0, hand("123p456p789p55p345m", &[]), t("5m")));
    // 清一色 3 + 抢杠 1; 平胡 1 + 抢杠 1.
    assert_eq!(deltas(&o, &rules()), [2, -6, 4, 0]);
}

#[test]
fn kong_giver_pays_bloom_yingang_gang_shang_hua() {
    let mut o = Outcome::new(0, HandEnd::SelfDraw);
    let mut w = Win::new(
        2,
        hand("123m345m999p66p", &[(MeldKind::ExposedKong, "2p")]),
        t("6p"),
    );
    w.kong_bloom = Some(0);
    o.winners.push(w);
    o.kongs.push(Kong::exposed(2, t("2p"), 3, false));
    // 平胡 1 + 根 1 + 杠上花 2 = 4, paid by the kong tile's discarder alone.
    let s = settle(&o, &rules()).unwrap();
    assert_eq!(s.deltas, [0, 0, 4, -4]);
    assert_eq!(s.payments[0].reason, PaymentReason::KongGiverPaysBloom);
    // A concealed kong's bloom: everyone pays.
    o.winners[0].hand = hand("123m345m999p66p", &[(MeldKind::ConcealedKong, "2p")]);
    o.kongs[0] = Kong::own(2, t("2p"), KongKind::Concealed);
    assert_eq!(deltas(&o, &rules()), [-4, -4, 12, -4]);
}

fn drawn_hands() -> Outcome {
    let mut o = Outcome::new(0, HandEnd::Drawn);
    // Seat 0 waits on 1m (平胡 + 根 = 2) or 4m (平胡 = 1); seat 1 on 5s
    // (平胡 = 1); seats 2 and 3 are not ready.
    o.hands = [
        Some(hand("11123m456m789m99p", &[])),
        Some(hand("123p456p789p111s5s", &[])),
        Some(hand("1357m2468p13579s", &[])),
        Some(hand("2468m2468p24689s", &[])),
    ];
    o
}

#[test]
fn chajiao_min_non_ready_pay_ready_the_smallest_value() {
    assert_eq!(
        chajiao_value(o_hand(&drawn_hands(), 0), &rules()).unwrap(),
        Some(1)
    );
    assert_eq!(
        chajiao_value(o_hand(&drawn_hands(), 2), &rules()).unwrap(),
        None
    );
    assert_eq!(deltas(&drawn_hands(), &rules()), [2, 2, -2, -2]);
}

fn o_hand(o: &Outcome, s: usize) -> &Hand {
    o.hands[s].as_ref().unwrap()
}

#[test]
fn chajiao_max_non_ready_pay_ready_the_largest_value() {
    let r = Ruleset {
        chajiao: Chajiao::Max,
        ..rules()
    };
    assert_eq!(
        chajiao_value(o_hand(&drawn_hands(), 0), &r).unwrap(),
        Some(2)
    );
    assert_eq!(deltas(&drawn_hands(), &r), [4, 2, -3, -3]);
}

#[test]
fn chajiao_a_hand_that_would_hold_three_suits_is_not_ready() {
    // Waits on 5s only, but the hand holds m, p and s.
    let h = hand("123m456p789p111s5s", &[]);
    assert_eq!(chajiao_value(&h, &rules()).unwrap(), None);
}

#[test]
fn chajiao_needs_every_final_hand() {
    let mut o = drawn_hands();
    o.hands[3] = None;
    assert!(settle(&o, &rules())
        .unwrap_err()
        .to_string()
        .contains("查叫"));
}

#[test]
fn kong_payments_guafeng_xiayu() {
    let mut o = Outcome::new(0, HandEnd::Discard { discarder: 1 });
    o.winners.push(flush_win(2));
    o.kongs.push(Kong::own(0, t("9p"), KongKind::Concealed));
    o.kongs.push(Kong::own(3, t("1s"), KongKind::Added));
    o.kongs.push(Kong::exposed(1, t("5s"), 3, false));
    assert_eq!(deltas(&o, &rules()), [0, -3, 3, 0]);
    let on = Ruleset {
        kong_payments: true,
        ..rules()
    };
    // 9p concealed: 2 from each; 1s added: 1 from each; 5s exposed: 2 from
    // seat 3.
    assert_eq!(
        deltas(&o, &on),
        [6 - 1, -3 - 2 - 1 + 2, 3 - 2 - 1, -2 + 3 - 2]
    );
    // Also at a drawn hand.
    let mut d = drawn_hands();
    d.kongs.push(Kong::own(1, t("8s"), KongKind::Concealed));
    d.hands[1] = Some(hand("123p456p789p5s", &[(MeldKind::ConcealedKong, "8s")]));
    d.hands[3] = Some(hand("2468m2468p24679s", &[]));
    // Seat 1 now waits on 5s: 平胡 1 + 根 (the 8s kong) 1 = 2 from each
    // non-ready player.
    assert_eq!(deltas(&d, &on), [2 - 2, 4 + 6, -1 - 2 - 2, -1 - 2 - 2]);
}

/// `kongs_need_win` is honoured (issue 21): off in the preset, so a drawn
/// hand pays 刮风下雨 (above); on, a drawn hand settles 查叫 only, and a
/// won hand still pays its kongs.
#[test]
fn kongs_need_win_keeps_a_drawn_hand_from_paying_kongs() {
    assert!(!Ruleset::sichuan().kongs_need_win);
    let on = Ruleset {
        kong_payments: true,
        kongs_need_win: true,
        ..rules()
    };
    let mut d = drawn_hands();
    d.kongs.push(Kong::own(1, t("8s"), KongKind::Concealed));
    d.hands[1] = Some(hand("123p456p789p5s", &[(MeldKind::ConcealedKong, "8s")]));
    d.hands[3] = Some(hand("2468m2468p24679s", &[]));
    let s = settle(&d, &on).unwrap();
    assert!(s
        .payments
        .iter()
        .all(|p| !matches!(p.reason, PaymentReason::Kong { .. })));
    assert_eq!(s.deltas, [2, 4, -3, -3]);
    let mut won = Outcome::new(0, HandEnd::SelfDraw);
    won.winners.push(flush_win(2));
    won.kongs.push(Kong::own(1, t("9p"), KongKind::Concealed));
    let s = settle(&won, &on).unwrap();
    assert!(s
        .payments
        .iter()
        .any(|p| matches!(p.reason, PaymentReason::Kong { .. })));
}

#[test]
fn base_stake_multiplies_every_payment() {
    let mut o = Outcome::new(0, HandEnd::SelfDraw);
    o.winners.push(flush_win(2));
    let r = Ruleset {
        base_stake: 5,
        ..rules()
    };
    assert_eq!(deltas(&o, &r), [-15, -15, 45, -15]);
}

#[test]
fn heavenly_needs_the_dealer_and_earthly_a_non_dealer() {
    let mut o = Outcome::new(0, HandEnd::SelfDraw);
    o.winners.push(flush_win(2));
    o.winners[0].heavenly = true;
    assert!(settle(&o, &rules()).is_err());
    o.dealer = 2;
    assert_eq!(deltas(&o, &rules()), [-8, -8, 24, -8]);
    o.winners[0].heavenly = false;
    o.winners[0].earthly = true;
    assert!(settle(&o, &rules()).is_err());
}

/// 天胡/地胡 come before any claim (docs/rules.md §5): a concealed kong does not
/// end them; a pong, or a kong of another's tile, does.
#[test]
fn earthly_hand_stands_after_a_concealed_kong_not_after_a_claim() {
    let mut o = Outcome::new(0, HandEnd::Discard { discarder: 0 });
    o.winners.push(flush_win(2));
    o.winners[0].earthly = true;
    o.kongs.push(Kong::own(0, t("1s"), KongKind::Concealed));
    assert!(settle(&o, &rules()).is_ok(), "{:?}", settle(&o, &rules()));
    o.kongs[0].kind = KongKind::Exposed;
    o.kongs[0].giver = Some(3);
    assert!(settle(&o, &rules()).is_err());
}

#[test]
fn no_ting_needed_in_sichuan() {
    let mut o = Outcome::new(0, HandEnd::SelfDraw);
    o.winners.push(flush_win(2));
    assert!(o.ting.iter().all(|t| !t));
    assert!(settle(&o, &rules()).is_ok());
}

// ------------------------------------------------ brute-force reference

/// A deliberately simple reference: every way to split the concealed
/// tiles into one pair and sets (lowest tile first), each scored straight
/// from the docs/rules.md §5 table.
mod reference {
    use super::*;

    /// A set: whether it is a triplet, and its three kinds.
    type RefSet = (bool, [usize; 3]);

    pub fn value(h: &Hand, ctx: &WinContext) -> Option<u32> {
        let all = h.all_counts();
        let suits = (0..3)
            .filter(|s| (0..9).any(|r| all[s * 9 + r] > 0))
            .count();
        if suits == 3 || (27..34).any(|i| all[i] > 0) {
            return None;
        }
        let flush = suits == 1;
        let mut best: Option<u32> = None;
        let mut c = h.concealed;
        // Standard shape: melds are triplets.
        let meld_sets: Vec<RefSet> = h
            .melds()
            .iter()
            .map(|m| (true, [m.tile.index(); 3]))
            .collect();
        for p in 0..27 {
            if c[p] >= 2 {
                c[p] -= 2;
                let mut sets = meld_sets.clone();
                split(&mut c, &mut sets, &mut |sets| {
                    let v = score_standard(sets, p, flush);
                    best = Some(best.map_or(v, |b: u32| b.max(v)));
                });
                c[p] += 2;
            }
        }
        if h.n_melds() == 0 && c.iter().all(|&n| n % 2 == 0) {
            let v = if flush { 8 } else { 3 };
            best = Some(best.map_or(v, |b| b.max(v)));
        }
        let mut v = best?;
        if ctx.heavenly || ctx.earthly {
            v = v.max(8);
        }
        v += all.iter().filter(|&&n| n == 4).count() as u32;
        if ctx.kong_replacement.is_some() {
            v += 2;
        }
        if ctx.robbed_kong {
            v += 1;
        }
        Some(v)
    }

    fn split(c: &mut [u8; 34], sets: &mut Vec<RefSet>, emit: &mut dyn FnMut(&[RefSet])) {
        let Some(i) = c.iter().position(|&n| n > 0) else {
            emit(sets);
            return;
        };
        if c[i] >= 3 {
            c[i] -= 3;
            sets.push((true, [i; 3]));
            split(c, sets, emit);
            sets.pop();
            c[i] += 3;
        }
        if i % 9 <= 6 && i < 27 && c[i + 1] > 0 && c[i + 2] > 0 {
            c[i] -= 1;
            c[i + 1] -= 1;
            c[i + 2] -= 1;
            sets.push((false, [i, i + 1, i + 2]));
            split(c, sets, emit);
            sets.pop();
            c[i] += 1;
            c[i + 1] += 1;
            c[i + 2] += 1;
        }
    }

    fn score_standard(sets: &[RefSet], pair: usize, flush: bool) -> u32 {
        let rank = |i: usize| i % 9 + 1;
        let triplets = sets.iter().all(|s| s.0);
        let yaojiu = sets
            .iter()
            .all(|s| s.1.iter().any(|&i| rank(i) == 1 || rank(i) == 9))
            && (rank(pair) == 1 || rank(pair) == 9);
        let jiang = triplets
            && sets.iter().all(|s| [2, 5, 8].contains(&rank(s.1[0])))
            && [2, 5, 8].contains(&rank(pair));
        let mut v = 1;
        if triplets {
            v = v.max(2);
        }
        if flush || yaojiu {
            v = v.max(3);
        }
        if (flush && triplets) || jiang {
            v = v.max(4);
        }
        v
    }
}

/// A small seeded generator (xorshift), so the test needs no extra crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random hand of 14 tiles (melds as 3) drawn mostly from one or two
/// suits, often complete: sets and a pair, or pairs, some sets as melds.
fn random_hand(rng: &mut Rng) -> Option<(Hand, Tile, WinContext)> {
    let n_suits = 1 + rng.below(3);
    let suits: Vec<usize> = (0..n_suits).map(|_| rng.below(3) as usize).collect();
    let pick = |rng: &mut Rng| suits[rng.below(suits.len() as u64) as usize] * 9;
    let mut c = [0u8; 34];
    let mut melds = Vec::new();
    if rng.below(5) == 0 {
        for _ in 0..7 {
            let k = pick(rng) + rng.below(9) as usize;
            c[k] += 2;
        }
    } else {
        for _ in 0..4 {
            let base = pick(rng);
            let r = rng.below(9) as usize;
            if rng.below(2) == 0 && r <= 6 {
                for d in 0..3 {
                    c[base + r + d] += 1;
                }
            } else if rng.below(4) == 0 && melds.len() < 4 {
                let kind = [
                    MeldKind::Pong,
                    MeldKind::ExposedKong,
                    MeldKind::AddedKong,
                    MeldKind::ConcealedKong,
                ][rng.below(4) as usize];
                melds.push(Meld::new(kind, Tile::new((base + r) as u8).ok()?));
            } else {
                c[base + r] += 3;
            }
        }
        let p = pick(rng) + rng.below(9) as usize;
        c[p] += 2;
    }
    // Perturb some hands so they are usually not wins.
    if rng.below(4) == 0 {
        let from = (0..34).find(|&i| c[i] > 0)?;
        c[from] -= 1;
        c[pick(rng) + rng.below(9) as usize] += 1;
    }
    let hand = Hand::new(c, &melds).ok()?;
    let tiles: Vec<usize> = (0..34).filter(|&i| c[i] > 0).collect();
    let win = Tile::new(tiles[rng.below(tiles.len() as u64) as usize] as u8).ok()?;
    let has_kong = melds.iter().any(|m| m.kind.is_kong());
    let ctx = match rng.below(5) {
        0 if has_kong => WinContext {
            kong_replacement: Some(KongKind::Concealed),
            ..WinContext::self_draw()
        },
        1 => WinContext {
            robbed_kong: true,
            ..WinContext::discard()
        },
        2 if melds.is_empty() => WinContext {
            earthly: true,
            ..WinContext::discard()
        },
        3 => WinContext::self_draw(),
        _ => WinContext::discard(),
    };
    Some((hand, win, ctx))
}

#[test]
fn pattern_value_matches_brute_force_reference_on_random_hands() {
    let mut rng = Rng(0x5eed_cafe_f00d_1234);
    let (mut wins, mut checked) = (0, 0);
    while checked < 100_000 {
        let Some((h, win, ctx)) = random_hand(&mut rng) else {
            continue;
        };
        checked += 1;
        let got = hand_value(&h, win, &ctx, &rules()).ok().map(|v| v.total);
        let want = reference::value(&h, &ctx);
        assert_eq!(got, want, "hand {h:?} win {win} ctx {ctx:?}");
        wins += usize::from(want.is_some());
    }
    assert!(wins > 30_000, "only {wins} wins generated");
}

#[test]
fn chajiao_value_matches_brute_force_reference_on_random_hands() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let (mut ready, mut total) = (0, 0);
    while total < 20_000 {
        let Some((h, _, _)) = random_hand(&mut rng) else {
            continue;
        };
        // Drop one concealed tile: a hand one short, often ready.
        let Some(drop) = (0..27).find(|&i| h.concealed[i] > 0 && rng.below(3) == 0) else {
            continue;
        };
        let mut short = h;
        short.concealed[drop] -= 1;
        total += 1;
        let all = short.all_counts();
        for chajiao in [Chajiao::Min, Chajiao::Max] {
            let r = Ruleset { chajiao, ..rules() };
            let values: Vec<u32> = (0..27)
                .filter(|&i| all[i] < 4)
                .filter_map(|i| {
                    let mut w = short;
                    w.concealed[i] += 1;
                    reference::value(&w, &WinContext::discard())
                })
                .collect();
            let want = match chajiao {
                Chajiao::Min => values.iter().min(),
                Chajiao::Max => values.iter().max(),
            };
            assert_eq!(
                chajiao_value(&short, &r).unwrap(),
                want.copied(),
                "{short:?}"
            );
            ready += usize::from(want.is_some());
        }
    }
    assert!(ready > 5_000, "only {ready} ready hands");
}
