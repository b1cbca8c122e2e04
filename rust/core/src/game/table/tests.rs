use super::*;
use crate::kind_sets::KindSets;

/// A legal action that claims or kongs whenever it may (so that melds
/// happen often), else a random one other than leaving.
fn meld_seeking_pick(g: &Game, next: &mut impl FnMut() -> u64) -> Action {
    let mut legal: Vec<Action> = g.legal_actions().iter().collect();
    if legal.len() > 1 {
        legal.retain(|&a| a != Action::Leave);
    }
    let claim = legal.iter().copied().find(|a| {
        matches!(
            a,
            Action::Pong | Action::Kong | Action::ConcealedKong(_) | Action::AddedKong(_)
        )
    });
    claim.unwrap_or_else(|| legal[(next() % legal.len() as u64) as usize])
}

/// A table redealt after a finished hand is the table `Game::new`
/// deals for the same seed (every field, through `Debug`), and plays
/// the same hand.
#[test]
fn redeal_equals_a_new_game() {
    let presets = crate::testing::presets();
    for rules in &presets {
        let mut g = Game::new(rules, 0, None).unwrap();
        for seed in 1..200u64 {
            // Play with the first non-leaving legal action, so that
            // claims and kongs happen, then redeal.
            while !g.is_over() {
                let a = g
                    .legal_actions()
                    .iter()
                    .find(|&a| a != Action::Leave)
                    .unwrap();
                g.step(a).unwrap();
            }
            let dealer = (seed % 5 < 4).then_some((seed % 4) as u8);
            g.redeal(seed, dealer).unwrap();
            let mut fresh = Game::new(rules, seed, dealer).unwrap();
            assert_eq!(format!("{g:?}"), format!("{fresh:?}"), "seed {seed}");
            let mut other = g.clone();
            while !other.is_over() {
                let a = other.legal_actions().iter().last().unwrap();
                other.step(a).unwrap();
                fresh.step(a).unwrap();
            }
            assert_eq!(other.log(), fresh.log());
        }
    }
}

/// 地胡 by self-draw is a non-dealer's win on its first ordinary draw,
/// before any discard of its own and any claim: the table reads it
/// off "has not discarded yet" (its only ordinary draw before a first
/// discard is the first). Checked on an arranged hand, then against
/// the draws counted in the log on every self-drawn win of many
/// random hands.
#[test]
fn earthly_self_draw_is_a_first_draw_before_any_discard() {
    let rules = Ruleset::sichuan();
    let deal = Deal::arranged(
        &rules,
        [
            "123456789p12345s",
            "1112223334445m",
            "666777888p9996s",
            "66677788899m12s",
        ],
        "5m",
        "",
        0,
        None,
    )
    .unwrap();
    let mut g = Game::from_deal(&rules, deal).unwrap();
    g.step(Action::Discard(Tile::new(17).unwrap())).unwrap();
    assert!(g.legal_actions().contains(Action::Win), "{:?}", g.phase());
    g.step(Action::Win).unwrap();
    let r = *g.result().unwrap();
    assert!(r.self_draw && r.winners[1] && r.earthly, "{r:?}");

    let mut next = crate::testing::xorshift(0x5DEE_CE66_D1CE_4E5B);
    let (mut wins, mut earthly) = (0, 0);
    for rules in &crate::testing::presets() {
        for seed in 0..6000 {
            let mut g = Game::new(rules, seed, None).unwrap();
            while !g.is_over() {
                g.step(meld_seeking_pick(&g, &mut next)).unwrap();
            }
            let r = *g.result().unwrap();
            if !(r.kind == EndKind::Win && r.self_draw) {
                continue;
            }
            let w = r.winners.iter().position(|&x| x).unwrap() as u8;
            let mut draws = 0;
            let mut discarded = false;
            for e in g.events() {
                match *e {
                    Event::Draw {
                        seat,
                        replacement: false,
                        ..
                    } if seat == w => draws += 1,
                    Event::Act {
                        seat,
                        action: Action::Discard(_) | Action::Ting(_),
                        ..
                    } if seat == w => discarded = true,
                    _ => {}
                }
            }
            let plain = w != r.dealer
                && !g.tallies.any_claim()
                && r.replacement.is_none()
                && draws == 1
                && !discarded;
            assert_eq!(r.earthly, plain, "{r:?}");
            wins += 1;
            earthly += usize::from(plain);
        }
    }
    assert!(wins > 300, "{wins} {earthly}");
}

/// `step`'s one-bit test of a discard accepts exactly the discards of
/// the legal mask, in every phase (turns, answers, the finished hand),
/// and what it accepts plays as `apply` would.
#[test]
fn step_accepts_exactly_the_legal_discards() {
    for rules in &crate::testing::presets() {
        for seed in 0..10 {
            let mut g = Game::new(rules, seed, None).unwrap();
            for i in 0usize.. {
                for t in Tile::all() {
                    let a = Action::Discard(t);
                    let mut h = g.clone();
                    assert_eq!(h.step(a).is_ok(), g.legal_actions().contains(a), "{a}");
                    if g.legal_actions().contains(a) {
                        let mut plain = g.clone();
                        plain.apply(a, false);
                        plain.advance();
                        // `step` counts the move (`Game::moves`); `apply`
                        // is only its body.
                        plain.moves += 1;
                        assert_eq!(format!("{h:?}"), format!("{plain:?}"));
                    }
                }
                let legal: Vec<Action> = g
                    .legal_actions()
                    .iter()
                    .filter(|&a| a != Action::Leave)
                    .collect();
                if legal.is_empty() {
                    break;
                }
                g.step(legal[i * 7 % legal.len()]).unwrap();
            }
            assert!(g.is_over());
        }
    }
}

/// Sichuan's shortcut for a discard nobody may answer agrees with the
/// seat-by-seat options: whenever it says nobody, every other seat's
/// options are empty, on every tile at every step of many hands
/// (melds, kongs and declined wins included); and it does say so on
/// most discards, while some other discards do have answers.
#[test]
fn sichuan_nobody_answers_only_when_no_seat_has_an_option() {
    let rules = Ruleset::sichuan();
    let mut next = crate::testing::xorshift(0x2545_F491_4F6C_DD1D);
    let (mut nobody, mut answered) = (0usize, 0usize);
    for seed in 0..300 {
        let mut g = Game::new(&rules, seed, None).unwrap();
        while !g.is_over() {
            if let Phase::Turn { seat: from, .. } = g.phase {
                for t in Tile::all().take(27) {
                    let quiet = g.nobody_answers(from, t);
                    let any = (1..4).any(|i| !g.options((from + i) & 3, t, false).is_empty());
                    assert!(!(quiet && any), "seed {seed}: {t} from seat {from}");
                    nobody += usize::from(quiet);
                    answered += usize::from(any);
                }
            }
            g.step(meld_seeking_pick(&g, &mut next)).unwrap();
        }
    }
    assert!(nobody > 100_000 && answered > 10_000, "{nobody} {answered}");
}

/// The pond, the let-pass masks and the meld counts kept with the
/// discards, claims and melds equal a fresh count over the discard
/// list and the melds after every step of many hands of every preset
/// (claims and kongs made whenever possible).
#[test]
fn pond_and_let_pass_stay_in_step_with_the_discards() {
    let mut next = crate::testing::xorshift(0x2545_F491_4F6C_DD1D);
    let (mut claimed, mut passed, mut kongs) = (0, 0, 0);
    for rules in &crate::testing::presets() {
        for seed in 0..200 {
            let mut g = Game::new(rules, seed, None).unwrap();
            loop {
                let mut pond = [0u8; KINDS];
                for d in g.discards().iter().filter(|d| !d.face_down && !d.claimed) {
                    pond[d.tile.index()] += 1;
                }
                assert_eq!(g.pond(), &pond);
                let mut melded = [0u8; KINDS];
                for h in &g.hands {
                    for m in h.melds() {
                        if !(m.kind == MeldKind::ConcealedKong && rules.hide_concealed_kong) {
                            melded[m.tile.index()] += m.kind.size();
                        }
                    }
                }
                assert_eq!(g.meld_counts(), &melded);
                kongs += melded.iter().filter(|&&n| n == 4).count();
                claimed += g.discards().iter().filter(|d| d.claimed).count();
                for o in 0..4u8 {
                    let all = g.discards();
                    let mut m = 0;
                    let mut declared = false;
                    for d in all {
                        if d.face_down && d.seat == o {
                            declared = true;
                        } else if declared && !d.face_down && d.seat != o {
                            m |= bit(d.tile);
                        }
                    }
                    assert_eq!(g.let_pass(o), m, "seat {o}");
                    passed += usize::from(m != 0);
                }
                if g.is_over() {
                    break;
                }
                let a = meld_seeking_pick(&g, &mut next);
                g.step(a).unwrap();
            }
        }
    }
    assert!(
        claimed > 1_000 && passed > 1_000 && kongs > 1_000,
        "{claimed} {passed} {kongs}"
    );
}

/// The kind sets kept in step by every count change equal the sets
/// recomputed from the hands, after every step of many random hands
/// (kongs, pongs, robbed kongs and the Linxian kong draw included).
#[test]
fn kind_sets_stay_in_step_with_the_hands() {
    let presets = crate::testing::presets();
    let mut next = crate::testing::xorshift(0x9E37_79B9_7F4A_7C15);
    // Turns on which some discard declares ting, so that the
    // comparison below is not only over empty sets.
    let mut declaring = 0;
    for rules in &presets {
        for seed in 0..300 {
            let mut g = Game::new(rules, seed, None).unwrap();
            while !g.is_over() {
                // Sichuan's kept mask of the seats holding every suit
                // never holds a seat that lacks one.
                assert_eq!(g.tallies.suited() & !g.suited_seats(), 0, "{:?}", g.phase);
                for s in 0..4 {
                    assert_eq!(*g.tallies.sets(s), KindSets::of(&g.hands[s].concealed));
                    let pongs = g.hands[s]
                        .melds()
                        .iter()
                        .filter(|m| m.kind == MeldKind::Pong)
                        .fold(0, |p, m| p | bit(m.tile));
                    assert_eq!(g.tallies.pongs(s), pongs);
                    let melded = g.hands[s].melds().iter().fold(0, |k, m| k | bit(m.tile));
                    assert_eq!(g.tallies.meld_kinds(s), melded);
                    // 缺一门 from the kept sets, against the hand's
                    // kinds counted afresh, with and without a tile.
                    for extra in [0, 1 << (seed % 34)] {
                        let kinds = Tile::all()
                            .filter(|t| g.hands[s].all_counts()[t.index()] > 0)
                            .fold(extra, |k, t| k | bit(t));
                        let lacks = (0..3).any(|suit| kinds >> (9 * suit) & 0x1FF == 0);
                        assert_eq!(g.lacks_a_suit(s, extra), lacks);
                    }
                }
                if let (Phase::Turn { seat, .. }, true) = (g.phase, seed < 40) {
                    // The judge's unchecked ting question agrees with
                    // the checked one on every kind of the table's hands.
                    let hand = g.hands[seat as usize];
                    let mut kinds = 0u64;
                    for t in Tile::all() {
                        if g.judge.can_declare(&hand, t) {
                            kinds |= bit(t);
                        }
                    }
                    assert_eq!(
                        g.judge.declarable(&hand, g.tallies.sets(seat as usize)),
                        kinds,
                        "{hand:?}"
                    );
                    declaring += usize::from(kinds != 0);
                    for t in Tile::all() {
                        assert_eq!(
                            g.judge.can_declare(&hand, t),
                            crate::ting::can_declare_ting(&hand, t, &g.judge.wilds, rules)
                                .unwrap_or(false),
                            "{hand:?} {t}"
                        );
                    }
                }
                g.step(meld_seeking_pick(&g, &mut next)).unwrap();
            }
            for s in 0..4 {
                assert_eq!(*g.tallies.sets(s), KindSets::of(&g.hands[s].concealed));
            }
        }
    }
    assert!(declaring > 20, "only {declaring} turns could declare ting");
}

/// The declared seats' kept winning kinds equal the judge's from
/// their hands after every step of many hands whose players declare
/// ting whenever they may (and claim and kong whenever they may, so
/// that declared seats hold melds and kong too); debug builds also compare every
/// answer read from them with the judge's own.
#[test]
fn kept_winning_kinds_follow_the_declared_hands() {
    let mut next = crate::testing::xorshift(0x2545_F491_4F6C_DD1D);
    let (mut declared, mut melded) = (0, 0);
    for rules in crate::testing::presets() {
        for seed in 0..300 {
            let mut g = Game::new(&rules, seed, None).unwrap();
            while !g.is_over() {
                for s in 0..4 {
                    let h = &g.hands[s];
                    let size = h.concealed.iter().map(|&n| usize::from(n)).sum::<usize>()
                        + 3 * h.n_melds();
                    if g.ting[s] && g.keeps_wins() && size == 13 {
                        let wins = g.judge.declared_wins(h);
                        assert_eq!(g.tallies.wins(s), wins, "{h:?}");
                        declared += 1;
                        melded += usize::from(h.n_melds() > 0);
                    } else if !g.ting[s] {
                        assert_eq!(g.tallies.win_on(s), 0);
                    }
                }
                let ting = g
                    .legal_actions()
                    .iter()
                    .find(|a| matches!(a, Action::Ting(_) | Action::Win));
                let a = ting.unwrap_or_else(|| meld_seeking_pick(&g, &mut next));
                g.step(a).unwrap();
            }
        }
    }
    assert!(declared > 1000 && melded > 10, "{declared} {melded}");
}
