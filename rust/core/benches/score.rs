//! Scoring throughput: `hand_value` per family and a full `settle` of a
//! won and of a drawn (查叫) hand. Run: `cargo bench -p koudian-core --bench score`.

use criterion::{criterion_group, criterion_main, Criterion};
use koudian_core::hand::{Hand, Meld, MeldKind};
use koudian_core::ruleset::Ruleset;
use koudian_core::score::{hand_value, settle, HandEnd, Kong, KongKind, Outcome, Win, WinContext};
use koudian_core::tile::{parse, Tile};
use std::hint::black_box;

fn t(s: &str) -> Tile {
    Tile::from_notation(s).unwrap()
}

fn hand(concealed: &str, melds: &[(MeldKind, &str)]) -> Hand {
    let melds: Vec<Meld> = melds.iter().map(|(k, s)| Meld::new(*k, t(s))).collect();
    Hand::from_tiles(&parse(concealed).unwrap(), &melds).unwrap()
}

fn bench(c: &mut Criterion) {
    let special = Ruleset {
        special_hands: true,
        ..Ruleset::shanxi()
    };
    let straight = hand("123m456m789m234p88s", &[]);
    c.bench_function("hand_value shanxi special_hands", |b| {
        b.iter(|| {
            hand_value(
                black_box(&straight),
                t("8s"),
                &WinContext::self_draw(),
                &special,
            )
        })
    });
    let flush = hand("123s567s678s888s77s", &[]);
    let sichuan = Ruleset::sichuan();
    c.bench_function("hand_value sichuan", |b| {
        b.iter(|| hand_value(black_box(&flush), t("7s"), &WinContext::discard(), &sichuan))
    });

    let mut won = Outcome::new(0, HandEnd::Discard { discarder: 1 });
    won.winners
        .push(Win::new(3, hand("123m456m88m234s678s", &[]), t("8m")));
    won.ting = [false, true, false, true];
    won.kongs.push(Kong::own(0, Tile::EAST, KongKind::Added));
    won.kongs.push(Kong::own(2, t("6p"), KongKind::Concealed));
    let linxian = Ruleset::linxian();
    c.bench_function("settle linxian seed example", |b| {
        b.iter(|| settle(black_box(&won), &linxian))
    });

    let mut drawn = Outcome::new(0, HandEnd::Drawn);
    drawn.hands = [
        Some(hand("11123m456m789m99p", &[])),
        Some(hand("123p456p789p111s5s", &[])),
        Some(hand("1357m2468p13579s", &[])),
        Some(hand("2468m2468p24689s", &[])),
    ];
    c.bench_function("settle sichuan drawn (chajiao)", |b| {
        b.iter(|| settle(black_box(&drawn), &sichuan))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
