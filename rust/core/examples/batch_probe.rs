//! Runs one batch function for profiling (`valgrind --tool=callgrind`):
//! `batch_probe TASK HANDS WILD_KINDS [REPEAT]`, TASK `is_win`, `waits`
//! or `shanten`, on seeded hands drawn as `koudian bench` draws them
//! (half built complete or ready, half random draws from the wall), with
//! 0, 1 (白) or 2 (白, 中) wild kinds, one thread. The instruction set is
//! the process's choice (`KOUDIAN_SIMD=scalar|avx2|avx512|neon` forces one;
//! callgrind's CPU has no AVX-512). Instructions per hand: the difference
//! between two runs with different HANDS over the difference in hands, so
//! that the tables' set-up cancels out.

use koudian_core::shape::{is_win_batch, ShapeRules};
use koudian_core::tile::{Counts, Tile, KINDS};
use koudian_core::{shanten, simd, waits, Wildcards};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let task = args.get(1).map_or("is_win", String::as_str);
    let arg = |i: usize, d: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (n, wild, repeat) = (arg(2, 100_000), arg(3, 0), arg(4, 1));
    let kinds: Vec<Tile> = [31u8, 33]
        .iter()
        .take(wild)
        .map(|&k| Tile::new(k).expect("a kind"))
        .collect();
    let wilds = Wildcards::new(&kinds).expect("wild kinds");
    let rules = ShapeRules::ALL;
    let mut state = 0x2024_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let size = if task == "is_win" { 14 } else { 13 };
    let rows: Vec<Counts> = (0..n).map(|_| hand(&mut next, size)).collect();
    if args.get(5).map(String::as_str) == Some("compare") {
        compare(task, &rows, &wilds, &rules, repeat);
        return;
    }
    let isa = simd::isa().expect("instruction set");
    let t = Instant::now();
    let mut found = 0usize;
    for _ in 0..repeat {
        match task {
            "is_win" => {
                let mut out = vec![false; n];
                is_win_batch(&rows, &[0], &wilds, &rules, &mut out, 1).expect("batch");
                found += out.iter().filter(|&&x| x).count();
            }
            "waits" => {
                let mut out = vec![0u64; n];
                waits::waits_batch(&rows, &[0], &[], &wilds, &rules, &mut out, 1).expect("batch");
                found += out.iter().filter(|&&x| x != 0).count();
            }
            "shanten" => {
                let mut out = vec![0i8; n];
                shanten::shanten_batch(&rows, &[0], &wilds, &rules, &mut out, 1).expect("batch");
                found += out.iter().filter(|&&x| x <= 0).count();
            }
            _ => panic!("task must be is_win, waits or shanten"),
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "{task} {isa}: {n} hands x {repeat}, {wild} wild kinds, {found} hits, {:.1} M hands/s",
        (n * repeat) as f64 / s / 1e6
    );
}

/// `repeat` interleaved rounds of the batch on each instruction set this
/// CPU has (`batch_probe TASK HANDS WILD_KINDS REPEAT compare`): the
/// median over rounds of each path's rate over the scalar path's in the
/// same round, so that the load of a shared machine cancels out.
fn compare(task: &str, rows: &[Counts], wilds: &Wildcards, rules: &ShapeRules, repeat: usize) {
    let n = rows.len();
    let isas: Vec<simd::Isa> = simd::Isa::ALL
        .into_iter()
        .filter(|i| i.available())
        .collect();
    let mut rates = vec![Vec::new(); isas.len()];
    let mut cpu_rates = vec![Vec::new(); isas.len()];
    let (mut b, mut u, mut s) = (vec![false; n], vec![0u64; n], vec![0i8; n]);
    // Each path's answers, checked against the scalar path's (the first).
    let mut first: Option<(Vec<bool>, Vec<u64>, Vec<i8>)> = None;
    for _ in 0..repeat {
        for (k, &isa) in isas.iter().enumerate() {
            let t = Instant::now();
            let c = cpu_ns();
            simd::with_isa(isa, || match task {
                "is_win" => is_win_batch(rows, &[0], wilds, rules, &mut b, 1),
                "waits" => waits::waits_batch(rows, &[0], &[], wilds, rules, &mut u, 1),
                _ => shanten::shanten_batch(rows, &[0], wilds, rules, &mut s, 1),
            })
            .expect("instruction set")
            .expect("batch");
            rates[k].push(n as f64 / t.elapsed().as_secs_f64());
            if let (Some(c0), Some(c1)) = (c, cpu_ns()) {
                cpu_rates[k].push(n as f64 * 1e9 / (c1 - c0).max(1) as f64);
            }
            let got = (b.clone(), u.clone(), s.clone());
            match &first {
                None => first = Some(got),
                Some(want) => assert!(*want == got, "{task} {isa}: answers differ from scalar"),
            }
        }
    }
    for (k, isa) in isas.iter().enumerate() {
        let mut r: Vec<f64> = (0..repeat).map(|i| rates[k][i] / rates[0][i]).collect();
        r.sort_by(f64::total_cmp);
        let best = rates[k].iter().copied().fold(0.0, f64::max);
        println!(
            "{task} {isa}: best {:.1} M hands/s, {:.2}x scalar (median of {repeat} rounds)",
            best / 1e6,
            r[repeat / 2]
        );
        if cpu_rates[k].len() == repeat {
            let mut r: Vec<f64> = (0..repeat)
                .map(|i| cpu_rates[k][i] / cpu_rates[0][i])
                .collect();
            r.sort_by(f64::total_cmp);
            let best = cpu_rates[k].iter().copied().fold(0.0, f64::max);
            println!(
                "{task} {isa}: by CPU time: best {:.1} M hands/s, {:.2}x scalar (median)",
                best / 1e6,
                r[repeat / 2]
            );
        }
    }
}

/// The calling thread's time on a CPU so far, in nanoseconds
/// (`CLOCK_THREAD_CPUTIME_ID`; `None` off Linux): on a busy host the
/// rates by CPU time leave out the time the thread waited for a CPU.
#[cfg(target_os = "linux")]
fn cpu_ns() -> Option<u64> {
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut [i64; 2]) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = [0i64; 2];
    // SAFETY: libc's clock_gettime (std links libc on Linux) writes one
    // `timespec` (two 64-bit fields on 64-bit Linux) into `ts`.
    let ok = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
    ok.then(|| ts[0] as u64 * 1_000_000_000 + ts[1] as u64)
}

#[cfg(not(target_os = "linux"))]
fn cpu_ns() -> Option<u64> {
    None
}

/// A complete hand (4 sets and a pair) or 14 random tiles of the wall,
/// less one tile for a 13-tile hand.
fn hand(next: &mut impl FnMut() -> u64, size: usize) -> Counts {
    let mut c = [0u8; KINDS];
    if next().is_multiple_of(2) {
        loop {
            c = [0; KINDS];
            c[(next() % 34) as usize] += 2;
            for _ in 0..4 {
                if next() % 10 < 6 {
                    let (s, r) = ((next() % 3) as usize, (next() % 7) as usize);
                    for k in 0..3 {
                        c[9 * s + r + k] += 1;
                    }
                } else {
                    c[(next() % 34) as usize] += 3;
                }
            }
            if c.iter().all(|&x| x <= 4) {
                break;
            }
        }
    } else {
        let mut n = 0;
        while n < 14 {
            let k = (next() % 34) as usize;
            if c[k] < 4 {
                c[k] += 1;
                n += 1;
            }
        }
    }
    if size == 13 {
        let held: Vec<usize> = (0..KINDS).filter(|&k| c[k] > 0).collect();
        c[held[(next() % held.len() as u64) as usize]] -= 1;
    }
    c
}
