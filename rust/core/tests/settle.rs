//! Settlement across the families: consistency checks on `Outcome`s
//! (each naming what is inconsistent), zero-sum over random consistent
//! outcomes, and no panic on arbitrary input.

use koudian_core::hand::{Hand, Meld, MeldKind};
use koudian_core::ruleset::{Chajiao, DealerRotation, Family, Haozi, PointRule, Ruleset};
use koudian_core::score::{
    hand_value, settle, HandEnd, Kong, KongKind, Outcome, Settlement, Win, WinContext,
};
use koudian_core::tile::{parse, Tile};
use koudian_core::{Error, Wildcards};
use proptest::prelude::*;

fn t(s: &str) -> Tile {
    Tile::from_notation(s).unwrap()
}

fn hand(concealed: &str, melds: &[(MeldKind, &str)]) -> Hand {
    let melds: Vec<Meld> = melds.iter().map(|(k, s)| Meld::new(*k, t(s))).collect();
    Hand::from_tiles(&parse(concealed).unwrap(), &melds).unwrap()
}

fn shanxi_win(end: HandEnd) -> Outcome {
    let mut o = Outcome::new(0, end);
    o.winners
        .push(Win::new(2, hand("123m456m789m234p88s", &[]), t("8s")));
    o.ting[2] = true;
    o
}

fn inconsistent(o: &Outcome, r: &Ruleset, needle: &str) {
    match settle(o, r) {
        Err(Error::InconsistentOutcome(m)) => {
            assert!(m.contains(needle), "message {m:?} lacks {needle:?}")
        }
        other => panic!("expected InconsistentOutcome containing {needle:?}, got {other:?}"),
    }
}

// ------------------------------------------------- inconsistent outcomes

#[test]
fn inconsistent_winner_who_holds_no_win() {
    let mut o = shanxi_win(HandEnd::SelfDraw);
    o.winners[0].hand = hand("123m456m789m235p88s", &[]);
    inconsistent(&o, &Ruleset::shanxi(), "holds no win");
}

#[test]
fn inconsistent_fifth_copy_between_hand_and_kong() {
    let mut o = shanxi_win(HandEnd::SelfDraw);
    o.kongs.push(Kong::own(1, t("8s"), KongKind::Concealed));
    inconsistent(&o, &Ruleset::shanxi(), "6 copies of 8s");
}

#[test]
fn inconsistent_two_kongs_of_one_kind() {
    let mut o = shanxi_win(HandEnd::SelfDraw);
    o.kongs.push(Kong::own(1, t("9p"), KongKind::Concealed));
    o.kongs.push(Kong::own(3, t("9p"), KongKind::Added));
    inconsistent(&o, &Ruleset::shanxi(), "more than 4 copies");
}

#[test]
fn inconsistent_discarder_is_the_winner() {
    let o = shanxi_win(HandEnd::Discard { discarder: 2 });
    inconsistent(&o, &Ruleset::shanxi(), "own discard");
}

#[test]
fn inconsistent_winner_listed_twice() {
    let mut o = Outcome::new(0, HandEnd::Discard { discarder: 1 });
    let w = Win::new(2, hand("123m456m789m234m55m", &[]), t("5m"));
    o.winners.push(w.clone());
    o.winners.push(w);
    inconsistent(&o, &Ruleset::sichuan(), "twice");
}

#[test]
fn inconsistent_several_winners_outside_sichuan() {
    let mut o = shanxi_win(HandEnd::Discard { discarder: 1 });
    o.winners
        .push(Win::new(3, hand("123m456m789m345p88s", &[]), t("8s")));
    o.ting[3] = true;
    inconsistent(&o, &Ruleset::shanxi(), "only Sichuan");
    inconsistent(&o, &Ruleset::linxian(), "only Sichuan");
}

#[test]
fn inconsistent_self_draw_with_two_winners_or_none() {
    let mut o = shanxi_win(HandEnd::SelfDraw);
    o.winners.push(o.winners[0].clone());
    inconsistent(&o, &Ruleset::shanxi(), "exactly one winner");
    o.winners.clear();
    inconsistent(&o, &Ruleset::shanxi(), "exactly one winner");
    let o = Outcome::new(0, HandEnd::Discard { discarder: 1 });
    inconsistent(&o, &Ruleset::shanxi(), "needs a winner");
}

#[test]
fn inconsistent_drawn_hand_with_a_winner() {
    let o = shanxi_win(HandEnd::Drawn);
    inconsistent(&o, &Ruleset::shanxi(), "no winner");
}

#[test]
fn inconsistent_seat_out_of_range() {
    let mut o = shanxi_win(HandEnd::SelfDraw);
    o.dealer = 4;
    inconsistent(&o, &Ruleset::shanxi(), "seats are 0-3");
    let mut o = shanxi_win(HandEnd::Discard { discarder: 9 });
    o.ting[1] = true;
    inconsistent(&o, &Ruleset::shanxi(), "seats are 0-3");
    let mut o = shanxi_win(HandEnd::SelfDraw);
    o.winners[0].seat = 200;
    inconsistent(&o, &Ruleset::shanxi(), "seats are 0-3");
    let mut o = shanxi_win(HandEnd::SelfDraw);
    o.kongs.push(Kong::exposed(1, t("9p"), 7, false));
    inconsistent(&o, &Ruleset::shanxi(), "seats are 0-3");
}

#[test]
fn inconsistent_kong_givers() {
    let mut o = shanxi_win(HandEnd::SelfDraw);
    o.kongs.push(Kong {
        giver: None,
        ..Kong::exposed(1, t("9p"), 0, false)
    });
    inconsistent(&o, &Ruleset::shanxi(), "no giver");
    o.kongs[0] = Kong {
        giver: Some(0),
        ..Kong::own(1, t("9p"), KongKind::Added)
    };
    inconsistent(&o, &Ruleset::shanxi(), "only an exposed kong");
    o.kongs[0] = Kong::exposed(1, t("9p"), 1, false);
    inconsistent(&o, &Ruleset::shanxi(), "cannot give himself");
    o.kongs[0] = Kong::exposed(1, t("9p"), 0, true);
    inconsistent(&o, &Ruleset::shanxi(), "had declared ting");
}

#[test]
fn inconsistent_winner_kongs_differ_from_the_kong_list() {
    let mut o = Outcome::new(0, HandEnd::SelfDraw);
    o.winners.push(Win::new(
        2,
        hand("123m456m789m88s", &[(MeldKind::ConcealedKong, "9p")]),
        t("8s"),
    ));
    o.ting[2] = true;
    inconsistent(&o, &Ruleset::shanxi(), "kong list");
    o.kongs.push(Kong::own(2, t("9p"), KongKind::Added));
    inconsistent(&o, &Ruleset::shanxi(), "kong list");
    o.kongs[0] = Kong::own(2, t("9p"), KongKind::Concealed);
    assert!(settle(&o, &Ruleset::shanxi()).is_ok());
}

#[test]
fn inconsistent_kong_bloom() {
    let mut o = Outcome::new(0, HandEnd::SelfDraw);
    let mut w = Win::new(
        2,
        hand("123m456m789m88s", &[(MeldKind::ConcealedKong, "9p")]),
        t("8s"),
    );
    w.kong_bloom = Some(3);
    o.winners.push(w);
    o.ting = [true; 4];
    o.kongs.push(Kong::own(2, t("9p"), KongKind::Concealed));
    inconsistent(&o, &Ruleset::shanxi(), "kong #3");
    o.kongs.push(Kong::own(1, t("1z"), KongKind::Concealed));
    o.winners[0].kong_bloom = Some(1);
    inconsistent(&o, &Ruleset::shanxi(), "seat 1's kong");
    o.winners[0].kong_bloom = Some(0);
    o.end = HandEnd::Discard { discarder: 1 };
    inconsistent(&o, &Ruleset::shanxi(), "self-draw");
}

#[test]
fn inconsistent_left_outside_linxian_or_with_a_winner() {
    let o = Outcome::new(0, HandEnd::Left { leaver: 1 });
    inconsistent(&o, &Ruleset::shanxi(), "linxian");
    inconsistent(&o, &Ruleset::sichuan(), "linxian");
    assert!(settle(&o, &Ruleset::linxian()).is_ok());
    let mut o = shanxi_win(HandEnd::Left { leaver: 1 });
    o.ting[2] = true;
    inconsistent(&o, &Ruleset::linxian(), "no winner");
}

#[test]
fn inconsistent_wild_kinds_for_the_ruleset() {
    let o = shanxi_win(HandEnd::SelfDraw);
    let haozi = Ruleset {
        haozi: Haozi::Single,
        ..Ruleset::shanxi()
    };
    inconsistent(&o, &haozi, "wild kind");
}

#[test]
fn inconsistent_robbed_kong_konger_without_the_pong() {
    let mut o = shanxi_win(HandEnd::RobbedKong { konger: 1 });
    o.winners[0].hand = hand("123m456m789m678s99s", &[]);
    o.hands[1] = Some(hand("123m456m789p1z", &[(MeldKind::Pong, "7p")]));
    inconsistent(&o, &Ruleset::shanxi(), "pong of 8s");
    o.hands[1] = Some(hand("123m456m789p1z", &[(MeldKind::Pong, "8s")]));
    assert!(settle(&o, &Ruleset::shanxi()).is_ok());
    // The robbed tile cannot also be in the winner's pair.
    o.winners[0].hand = hand("123m456m789m234p88s", &[]);
    inconsistent(&o, &Ruleset::shanxi(), "5 copies of 8s");
}

#[test]
fn inconsistent_ruleset_is_refused() {
    let o = shanxi_win(HandEnd::SelfDraw);
    let r = Ruleset {
        dealer_bonus: true,
        ..Ruleset::shanxi()
    };
    assert!(matches!(settle(&o, &r), Err(Error::InvalidRuleset(_))));
}

#[test]
fn settlement_display_lists_deltas_and_reasons() {
    let mut o = shanxi_win(HandEnd::Discard { discarder: 1 });
    o.kongs.push(Kong::exposed(3, t("9p"), 0, false));
    let s = settle(&o, &Ruleset::shanxi()).unwrap();
    let text = s.to_string();
    for needle in ["seat", "delta", "payer", "包胡", "点杠", "9p"] {
        assert!(text.contains(needle), "{needle:?} missing from\n{text}");
    }
    assert_eq!(text.lines().count(), 1 + 4 + 1 + s.payments.len());
    assert!(Settlement::default().to_string().contains("no payments"));
}

// ------------------------------------------------- random consistent outcomes

struct Gen {
    rng: u64,
    pool: [u8; 34],
}

impl Gen {
    fn new(seed: u64, honors: bool) -> Gen {
        let mut pool = [4u8; 34];
        if !honors {
            pool[27..].fill(0);
        }
        Gen {
            rng: seed | 1,
            pool,
        }
    }
    fn next(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
    fn take(&mut self, c: &mut [u8; 34], k: usize, n: u8) -> bool {
        if self.pool[k] < n {
            return false;
        }
        self.pool[k] -= n;
        c[k] += n;
        true
    }
    fn kind(&mut self, suits: &[usize], honors: bool) -> usize {
        let n = suits.len() as u64 + u64::from(honors);
        let g = self.below(n) as usize;
        if g < suits.len() {
            suits[g] * 9 + self.below(9) as usize
        } else {
            27 + self.below(7) as usize
        }
    }

    /// A complete hand taken from the pool, or `None` (pool unchanged).
    fn win_hand(
        &mut self,
        suits: &[usize],
        honors: bool,
        seven_pairs: bool,
        must_hold: Option<usize>,
    ) -> Option<Hand> {
        for _ in 0..30 {
            let saved = self.pool;
            let mut c = [0u8; 34];
            let mut melds = Vec::new();
            let mut ok = true;
            if let Some(k) = must_hold {
                // The shared winning tile: one copy is not a new tile.
                self.pool[k] += 1;
            }
            if seven_pairs && self.chance(6) {
                for _ in 0..7 {
                    let k = self.kind(suits, honors);
                    ok &= self.take(&mut c, k, 2);
                }
            } else {
                let n_melds = self.below(3);
                for i in 0..4 {
                    let k = self.kind(suits, honors);
                    if i < n_melds {
                        let kind = [
                            MeldKind::Pong,
                            MeldKind::ExposedKong,
                            MeldKind::AddedKong,
                            MeldKind::ConcealedKong,
                        ][self.below(4) as usize];
                        let mut m = [0u8; 34];
                        ok &= self.take(&mut m, k, kind.size());
                        melds.push(Meld::new(kind, Tile::new(k as u8).ok()?));
                    } else if k < 27 && k % 9 <= 6 && self.chance(2) {
                        for d in 0..3 {
                            ok &= self.take(&mut c, k + d, 1);
                        }
                    } else {
                        ok &= self.take(&mut c, k, 3);
                    }
                }
                let p = self.kind(suits, honors);
                ok &= self.take(&mut c, p, 2);
            }
            if let Some(k) = must_hold {
                ok &= c[k] > 0;
            }
            let hand = Hand::new(c, &melds).ok();
            match (ok, hand) {
                (true, Some(h)) => return Some(h),
                _ => self.pool = saved,
            }
        }
        None
    }

    /// A 13-tile (melds as 3) hand of random tiles from the pool.
    fn short_hand(&mut self, melds: &[Meld]) -> Option<Hand> {
        let mut c = [0u8; 34];
        let need = 13 - 3 * melds.len();
        let mut got = 0;
        for _ in 0..2000 {
            if got == need {
                break;
            }
            let k = self.below(34) as usize;
            if self.take(&mut c, k, 1) {
                got += 1;
            }
        }
        (got == need).then(|| Hand::new(c, melds).ok())?
    }
}

fn random_rules(g: &mut Gen, family: Family) -> Ruleset {
    let mut r = Ruleset::for_family(family);
    r.base_stake = 1 + g.below(100) as u32;
    match family {
        Family::Shanxi => {
            r.kong_giver_pays = g.chance(2);
            r.discarder_pays_kongs = g.chance(2);
            r.kongs_need_win = g.chance(2);
            r.special_hands = g.chance(2);
            r.point_rule = if g.chance(2) {
                PointRule::Standard
            } else {
                PointRule::Strict
            };
            if g.chance(2) {
                r.dealer_bonus = true;
                r.dealer_rotation = DealerRotation::Round;
                r.dealer_self_draw_double = g.chance(2);
            }
        }
        Family::Linxian => r.leave_penalty = g.below(20) as u32,
        Family::Sichuan => {
            r.kong_payments = g.chance(2);
            r.chajiao = if g.chance(2) {
                Chajiao::Min
            } else {
                Chajiao::Max
            };
        }
    }
    r
}

/// A random outcome built from one physical set of tiles (so the copies
/// add up), mostly consistent; `None` when the dice made no hand.
fn random_outcome(seed: u64) -> Option<(Outcome, Ruleset)> {
    let mut g = Gen::new(seed, true);
    let family = [Family::Shanxi, Family::Linxian, Family::Sichuan][g.below(3) as usize];
    let rules = random_rules(&mut g, family);
    let honors = !rules.no_honors;
    if !honors {
        g.pool[27..].fill(0);
    }
    let sichuan = family == Family::Sichuan;
    let dealer = g.below(4) as u8;
    let other = |g: &mut Gen, s: u8| (s + 1 + g.below(3) as u8) % 4;
    let winner = g.below(4) as u8;
    let end = match g.below(if family == Family::Linxian { 5 } else { 4 }) {
        0 | 1 => HandEnd::SelfDraw,
        2 => HandEnd::Discard {
            discarder: other(&mut g, winner),
        },
        3 if g.chance(2) => HandEnd::RobbedKong {
            konger: other(&mut g, winner),
        },
        3 => HandEnd::Drawn,
        _ => HandEnd::Left {
            leaver: g.below(4) as u8,
        },
    };
    let mut o = Outcome::new(dealer, end);
    for s in 0..4 {
        o.ting[s] = g.chance(2);
    }
    let suits: Vec<usize> = if sichuan {
        let a = g.below(3) as usize;
        vec![a, (a + 1 + g.below(2) as usize) % 3]
    } else {
        vec![0, 1, 2]
    };
    let won = matches!(
        end,
        HandEnd::SelfDraw | HandEnd::Discard { .. } | HandEnd::RobbedKong { .. }
    );
    if won {
        let h = g.win_hand(&suits, honors && !sichuan, rules.seven_pairs, None)?;
        // Prefer a tile the point rule lets win.
        let tiles: Vec<usize> = (0..34).filter(|&i| h.concealed[i] > 0).collect();
        let best = *tiles.iter().max_by_key(|&&i| (i % 9, i))?;
        let pick = if g.chance(3) {
            tiles[g.below(tiles.len() as u64) as usize]
        } else {
            best
        };
        let win_tile = Tile::new(pick as u8).ok()?;
        let mut w = Win::new(winner, h, win_tile);
        o.ting[winner as usize] = true;
        for m in h.melds() {
            if let Some(kind) = KongKind::from_meld(m.kind) {
                o.kongs.push(match kind {
                    KongKind::Exposed => {
                        Kong::exposed(winner, m.tile, other(&mut g, winner), false)
                    }
                    _ => Kong::own(winner, m.tile, kind),
                });
            }
        }
        if end == HandEnd::SelfDraw && !o.kongs.is_empty() && g.chance(3) {
            w.kong_bloom = Some(0);
        }
        if sichuan && h.n_melds() == 0 && g.chance(10) {
            if winner == dealer && end == HandEnd::SelfDraw {
                w.heavenly = true;
            } else if winner != dealer {
                w.earthly = true;
            }
        }
        o.winners.push(w);
        if sichuan && end != HandEnd::SelfDraw {
            let culprit = match end {
                HandEnd::Discard { discarder } => discarder,
                HandEnd::RobbedKong { konger } => konger,
                _ => unreachable!(),
            };
            for s in 0..4u8 {
                if s != winner && s != culprit && g.chance(3) {
                    if let Some(h) = g.win_hand(&suits, false, rules.seven_pairs, Some(pick)) {
                        o.winners.push(Win::new(s, h, win_tile));
                    }
                }
            }
        }
    }
    // Kongs of the other seats, from tiles nobody holds.
    for _ in 0..g.below(4) {
        let s = g.below(4) as u8;
        if o.winners.iter().any(|w| w.seat == s) {
            continue;
        }
        let mut k = None;
        for _ in 0..34 {
            let c = g.below(34) as usize;
            if g.pool[c] == 4 {
                k = Some(c);
                break;
            }
        }
        let k = k?;
        g.pool[k] = 0;
        let tile = Tile::new(k as u8).ok()?;
        let kind = [KongKind::Exposed, KongKind::Added, KongKind::Concealed][g.below(3) as usize];
        o.kongs.push(match kind {
            KongKind::Exposed => {
                let giver = other(&mut g, s);
                let giver_ting = o.ting[giver as usize] && g.chance(2);
                Kong::exposed(s, tile, giver, giver_ting)
            }
            _ => Kong::own(s, tile, kind),
        });
    }
    if sichuan && end == HandEnd::Drawn {
        for s in 0..4u8 {
            let melds: Vec<Meld> = o
                .kongs
                .iter()
                .filter(|k| k.owner == s)
                .map(|k| Meld::new(k.kind.meld_kind(), k.tile))
                .collect();
            o.hands[s as usize] = Some(g.short_hand(&melds)?);
        }
    }
    Some((o, rules))
}

fn check_zero_sum(s: &Settlement) {
    assert_eq!(s.deltas.iter().sum::<i64>(), 0, "{s}");
    let mut from_payments = [0i64; 4];
    for p in &s.payments {
        assert!(p.amount > 0, "{s}");
        assert_ne!(p.payer, p.payee, "{s}");
        from_payments[p.payer as usize] -= p.amount;
        from_payments[p.payee as usize] += p.amount;
    }
    assert_eq!(from_payments, s.deltas, "{s}");
}

#[test]
fn zero_sum_over_many_seeded_random_outcomes() {
    let mut settled = [0usize; 3];
    for seed in 1..20_000u64 {
        let Some((o, rules)) = random_outcome(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15)) else {
            continue;
        };
        if let Ok(s) = settle(&o, &rules) {
            check_zero_sum(&s);
            settled[rules.family as usize] += 1;
        }
    }
    // The generator must mostly produce consistent outcomes, or the
    // property says little.
    for (family, n) in settled.iter().enumerate() {
        assert!(*n > 2_000, "family {family}: only {n} outcomes settled");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn settlements_are_zero_sum(seed in any::<u64>()) {
        if let Some((o, rules)) = random_outcome(seed) {
            if let Ok(s) = settle(&o, &rules) {
                check_zero_sum(&s);
            }
        }
    }

    #[test]
    fn settle_never_panics_on_arbitrary_outcomes(
        seed in any::<u64>(),
        dealer in 0u8..6,
        end in 0u8..5,
        culprit in 0u8..6,
        ting in any::<[bool; 4]>(),
        kongs in prop::collection::vec((0u8..6, 0u8..34, 0u8..3, 0u8..6, any::<bool>()), 0..6),
        family in 0u8..3,
        bloom in prop::option::of(0usize..8),
    ) {
        let mut g = Gen::new(seed, true);
        let family = [Family::Shanxi, Family::Linxian, Family::Sichuan][family as usize];
        let rules = Ruleset::for_family(family);
        let end = match end {
            0 => HandEnd::SelfDraw,
            1 => HandEnd::Discard { discarder: culprit },
            2 => HandEnd::RobbedKong { konger: culprit },
            3 => HandEnd::Drawn,
            _ => HandEnd::Left { leaver: culprit },
        };
        let mut o = Outcome::new(dealer, end);
        o.ting = ting;
        for (owner, tile, kind, giver, giver_ting) in kongs {
            o.kongs.push(Kong {
                owner,
                tile: Tile::new(tile).unwrap(),
                kind: [KongKind::Exposed, KongKind::Added, KongKind::Concealed][kind as usize],
                giver: (giver < 4 || giver == 5).then_some(giver),
                giver_ting,
            });
        }
        for _ in 0..g.below(3) {
            let h = if g.chance(2) {
                g.win_hand(&[0, 1, 2], true, true, None)
            } else {
                g.short_hand(&[])
            };
            if let Some(h) = h {
                let tiles: Vec<usize> = (0..34).filter(|&i| h.concealed[i] > 0).collect();
                let tile = Tile::new(tiles[g.below(tiles.len() as u64) as usize] as u8).unwrap();
                let mut w = Win::new(g.below(5) as u8, h, tile);
                w.kong_bloom = bloom;
                w.heavenly = g.chance(4);
                w.earthly = g.chance(4);
                o.winners.push(w);
            }
        }
        if g.chance(2) {
            o.hands[g.below(4) as usize] = g.short_hand(&[]);
        }
        if let Ok(s) = settle(&o, &rules) {
            check_zero_sum(&s);
        }
    }

    #[test]
    fn hand_value_never_panics(
        counts in prop::collection::vec(0u8..5, 34),
        melds in prop::collection::vec((0u8..4, 0u8..34), 0..5),
        win in 0u8..34,
        flags in any::<[bool; 5]>(),
        kong in prop::option::of(0u8..3),
        wild in prop::option::of(0u8..34),
        family in 0u8..3,
    ) {
        let mut c = [0u8; 34];
        c.copy_from_slice(&counts);
        let melds: Vec<Meld> = melds
            .iter()
            .map(|&(k, t)| {
                let kind = [MeldKind::Pong, MeldKind::ExposedKong, MeldKind::AddedKong, MeldKind::ConcealedKong][k as usize];
                Meld::new(kind, Tile::new(t).unwrap())
            })
            .collect();
        let Ok(h) = Hand::new(c, &melds) else { return Ok(()) };
        let mut rules = Ruleset::for_family([Family::Shanxi, Family::Linxian, Family::Sichuan][family as usize]);
        let wilds = match wild {
            Some(w) if family == 0 => {
                rules.haozi = Haozi::Single;
                Wildcards::new(&[Tile::new(w).unwrap()]).unwrap()
            }
            _ => Wildcards::NONE,
        };
        let ctx = WinContext {
            self_draw: flags[0],
            kong_replacement: kong.map(|k| [KongKind::Exposed, KongKind::Added, KongKind::Concealed][k as usize]),
            robbed_kong: flags[1],
            heavenly: flags[2],
            earthly: flags[3],
            wilds,
        };
        let _ = hand_value(&h, Tile::new(win).unwrap(), &ctx, &rules);
    }
}
