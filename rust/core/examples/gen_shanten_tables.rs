//! Generates `src/shanten/suit_tables.bin`, the per-suit shanten table.
//!
//! Run from `rust/core`: `cargo run --release --example gen_shanten_tables`.
//! `tests/shanten.rs` regenerates the table and checks that the committed
//! file is byte-identical, so the blob can never drift from this program.
//!
//! # Format
//!
//! Keys are the suits' 9 counts (rank 1 first) read as a base-5 number,
//! keeping only keys whose counts sum to at most 14, in increasing order
//! (405,350 keys). For each key, `need[m][p]` is the fewest tiles to add
//! so that the suit holds `m` sets (`m = 0..=4`) plus `p` pairs
//! (`p = 0, 1`) as a sub-multiset; surplus tiles are discarded. One
//! little-endian `u32` per key: bits `2m..2m+2` (m = 0..4) hold
//! `need[m+1][0] - need[m][0]` (0..=3), bits `8+2m..10+2m` (m = 0..=4)
//! hold `need[m][1] - need[m][0]` (0..=2); `need[0][0]` is always 0.
//!
//! The file holds two such arrays back to back: first with targets capped
//! at 4 copies of a kind (no wildcards in the game: a 5th copy cannot be
//! drawn), then uncapped (wildcard games: a wild tile may stand for a 5th
//! copy).

/// Number of kept keys (9 digits 0..=4 summing to at most 14).
pub const N_KEYS: usize = 405_350;

const INF: u8 = u8::MAX;
// State (a, b, m, p): a = sequences started two ranks back (they need
// this rank), b = started one rank back (need this and the next rank),
// m = sets so far, p = pair placed.
const N_STATES: usize = 5 * 5 * 5 * 2;

fn st(a: usize, b: usize, m: usize, p: usize) -> usize {
    ((a * 5 + b) * 5 + m) * 2 + p
}

fn step(states: &[u8; N_STATES], rank: usize, c: u8, cap: bool) -> [u8; N_STATES] {
    let mut out = [INF; N_STATES];
    for a in 0..5 {
        for b in 0..5 {
            for m in 0..5 {
                for p in 0..2 {
                    let v = states[st(a, b, m, p)];
                    if v == INF {
                        continue;
                    }
                    let max_x = if rank <= 6 { 4 - m } else { 0 };
                    for x in 0..=max_x {
                        for t in 0..=(4 - m - x) {
                            for q in 0..=(1 - p) {
                                let target = a + b + x + 3 * t + 2 * q;
                                if cap && target > 4 {
                                    continue;
                                }
                                let cost = v + (target as u8).saturating_sub(c);
                                let i = st(b, x, m + x + t, p + q);
                                if cost < out[i] {
                                    out[i] = cost;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

fn pack(states: &[u8; N_STATES]) -> u32 {
    let mut need = [[INF; 2]; 5];
    for (m, row) in need.iter_mut().enumerate() {
        for (p, v) in row.iter_mut().enumerate() {
            *v = states[st(0, 0, m, p)];
            assert!(*v != INF, "every target is reachable");
        }
    }
    assert_eq!(need[0][0], 0);
    let mut e = 0u32;
    for m in 0..4 {
        let d = need[m + 1][0] - need[m][0];
        assert!(need[m + 1][0] >= need[m][0] && d <= 3);
        e |= (d as u32) << (2 * m);
    }
    for (m, row) in need.iter().enumerate() {
        assert!(row[1] >= row[0] && row[1] - row[0] <= 2);
        e |= ((row[1] - row[0]) as u32) << (8 + 2 * m);
    }
    e
}

fn dfs(rank: usize, sum: u8, states: &[u8; N_STATES], cap: bool, out: &mut Vec<u32>) {
    if rank == 9 {
        out.push(pack(states));
        return;
    }
    for c in 0..=4u8.min(14 - sum) {
        let next = step(states, rank, c, cap);
        dfs(rank + 1, sum + c, &next, cap, out);
    }
}

/// The table file's bytes.
pub fn generate() -> Vec<u8> {
    let mut bytes = Vec::with_capacity(2 * 4 * N_KEYS);
    for cap in [true, false] {
        let mut start = [INF; N_STATES];
        start[st(0, 0, 0, 0)] = 0;
        let mut entries = Vec::with_capacity(N_KEYS);
        dfs(0, 0, &start, cap, &mut entries);
        assert_eq!(entries.len(), N_KEYS);
        for e in entries {
            bytes.extend_from_slice(&e.to_le_bytes());
        }
    }
    bytes
}

#[allow(dead_code)]
fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/shanten/suit_tables.bin");
    let bytes = generate();
    std::fs::write(path, &bytes).expect("write the table");
    println!("wrote {} bytes to {path}", bytes.len());
}
