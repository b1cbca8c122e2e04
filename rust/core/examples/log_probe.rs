//! Compact-log driver for profiling (`valgrind --tool=callgrind`).
//!
//! `cargo run --release --example log_probe -- text N [preset]` plays N
//! greedy hands with their event records kept, then writes their logs
//! with [`LogWriter`] 20 times and prints the writing's time per hand and
//! bytes per hand; `... -- pack N [preset] [none|gzip|zstd]` times
//! [`LogCompression::compress`] of those logs on one thread;
//! `... -- sim N [preset] [off|none|gzip|zstd]` runs the native logged
//! self-play of `koudian simulate --log` (`simulate_dataset` with logs,
//! then their compression) on one thread, or unlogged (`off`), for
//! instruction counts of the whole path.

use koudian_core::agent::builtin;
use koudian_core::game::{mix_seed, Game, LogWriter};
use koudian_core::log_compress::LogCompression;
use koudian_core::record::{simulate_dataset, RecordOptions};
use koudian_core::simulate::{play_hand, HandRow};
use koudian_core::Ruleset;
use std::time::Instant;

fn games(rules: &Ruleset, n: u64) -> Vec<Game> {
    let mut agents = std::array::from_fn(|_| builtin("greedy", 0).unwrap());
    (0..n)
        .map(|i| {
            play_hand(
                rules,
                mix_seed(1, i),
                Some((i % 4) as u8),
                &mut agents,
                true,
            )
            .unwrap()
            .0
        })
        .collect()
}

fn text(games: &[Game]) -> Vec<u8> {
    let mut w = LogWriter::default();
    let mut out = Vec::new();
    for g in games {
        w.write(g, &mut out);
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map_or("text", String::as_str);
    let n: u64 = args.get(1).map_or(2000, |s| s.parse().unwrap());
    let rules = match args.get(2).map(String::as_str) {
        Some("linxian") => Ruleset::linxian(),
        Some("sichuan") => Ruleset::sichuan(),
        _ => Ruleset::shanxi(),
    };
    let gs = if args.first().map(String::as_str) == Some("sim") {
        Vec::new()
    } else {
        games(&rules, n)
    };
    let rounds = 20;
    match mode {
        "text" => {
            let t = Instant::now();
            let mut bytes = 0;
            for _ in 0..rounds {
                bytes = text(&gs).len();
            }
            let us = t.elapsed().as_secs_f64() * 1e6 / (rounds * n) as f64;
            println!("text: {us:.2} us a hand, {} bytes a hand", bytes as u64 / n);
        }
        "pack" => {
            let c = LogCompression::from_name(args.get(3).map_or("zstd", String::as_str)).unwrap();
            let t0 = text(&gs);
            let t = Instant::now();
            let mut bytes = 0;
            for _ in 0..rounds {
                bytes = c.compress(t0.clone(), 1).unwrap().len();
            }
            let us = t.elapsed().as_secs_f64() * 1e6 / (rounds * n) as f64;
            println!(
                "pack {}: {us:.2} us a hand, {} bytes a hand",
                c.name(),
                bytes as u64 / n
            );
        }
        "sim" => {
            let which = args.get(3).map_or("zstd", String::as_str);
            let options = RecordOptions {
                logs: which != "off",
                log_compression: match which {
                    "off" => LogCompression::None,
                    c => LogCompression::from_name(c).unwrap(),
                },
                ..RecordOptions::default()
            };
            let t = Instant::now();
            let r = simulate_dataset(
                &rules,
                0..n,
                1,
                1,
                |_| builtin("greedy", 0),
                options,
                HandRow::of,
            )
            .unwrap();
            let bytes = r.log.len();
            let us = t.elapsed().as_secs_f64() * 1e6 / n as f64;
            println!(
                "sim {which}: {us:.2} us a hand, {} bytes a hand",
                bytes as u64 / n
            );
        }
        _ => panic!("mode: text, pack or sim"),
    }
}
