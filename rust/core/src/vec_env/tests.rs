//! The vectorized environment's unit tests.

use super::{Learners, VecEnv, MAX_ENVS};
use crate::error::Error;
use crate::game::encode::Encoding;
use crate::ruleset::Ruleset;

/// A count past the bound is refused before anything is allocated
/// (`usize::MAX` tables would be a capacity overflow, `10^7` an
/// abort); the bound itself is within reach.
#[test]
fn table_counts_past_the_bound_are_refused() {
    let r = Ruleset::shanxi();
    for n in [0, MAX_ENVS + 1, 10_000_000, 1 << 62, usize::MAX] {
        match VecEnv::new(&r, n, Learners::All, "greedy", 0, 1, Encoding::V2) {
            Err(Error::InvalidRuleset(m)) => assert!(m.contains("65536"), "{m}"),
            Err(e) => panic!("{n}: {e}"),
            Ok(_) => panic!("{n} tables accepted"),
        }
    }
    assert!(VecEnv::new(&r, 1, Learners::All, "greedy", 0, 1, Encoding::V2).is_ok());
}

/// The instruction-set paths of the row writer (`simd/obs.rs`): every path
/// this CPU has writes the scalar path's outputs, byte for byte, and the
/// plain reference encoder's rows (`encode/reference.rs`) and the legal
/// actions' bits, over many steps of every rule set the encoder tests
/// play, both learner modes, every encoding and both value types. A path
/// this CPU lacks is named on stderr and skipped.
mod paths {
    use super::super::{Learners, OnIllegal, Rows, VecEnv};
    use crate::game::encode::tests::rule_sets;
    use crate::game::encode::{reference, Cell, Encoding};
    use crate::game::view::GameView;
    use crate::game::N_ACTIONS;
    use crate::ruleset::Ruleset;
    use crate::simd::{with_isa, Isa};
    use std::fmt::Debug;

    /// The paths this CPU runs, each one it lacks named once on stderr.
    fn paths() -> Vec<Isa> {
        for i in Isa::ALL.into_iter().filter(|i| !i.available()) {
            eprintln!("this CPU lacks {i}: its row writer is not run here");
        }
        Isa::ALL.into_iter().filter(|i| i.available()).collect()
    }

    /// One env per path (the same seed), stepped `steps` times with the
    /// same varied legal actions (chosen from the scalar path's masks);
    /// after the reset and every step, every path's outputs equal the
    /// scalar path's, and its rows the reference's. The number of rows
    /// checked against the reference.
    fn check<T: Cell + PartialEq + Debug>(
        rules: &Ruleset,
        learners: Learners,
        enc: Encoding,
        dirt: T,
        (n, threads, steps): (usize, usize, usize),
    ) -> usize {
        let isas = paths();
        let mut envs: Vec<(Isa, VecEnv, Rows<T>)> = isas
            .iter()
            .map(|&isa| {
                let env = VecEnv::new(rules, n, learners, "greedy", 11, threads, enc).unwrap();
                let mut rows = Rows::new(n, enc);
                // Rows written over dirt: a cell a path skips shows.
                rows.obs.fill(dirt);
                rows.final_obs.fill(dirt);
                (isa, env, rows)
            })
            .collect();
        for (isa, env, rows) in &mut envs {
            with_isa(*isa, || env.reset(None, &mut rows.buffers()).unwrap()).unwrap();
        }
        let mut checked = 0;
        let mut actions = vec![0i64; n];
        for k in 0..=steps {
            let (_, env, first) = &envs[0];
            for (isa, _, rows) in &envs[1..] {
                assert!(rows.obs == first.obs, "obs, step {k}, {isa}");
                assert_eq!(rows.masks, first.masks, "masks, step {k}, {isa}");
                assert_eq!(rows.to_act, first.to_act);
                assert_eq!(rows.reward, first.reward);
                assert_eq!(rows.terminated, first.terminated);
                assert_eq!(rows.final_deltas, first.final_deltas);
                assert_eq!(rows.fault, first.fault);
                for (i, _) in rows.terminated.iter().enumerate().filter(|(_, &t)| t) {
                    let row = i * enc.len()..(i + 1) * enc.len();
                    assert!(
                        rows.final_obs[row.clone()] == first.final_obs[row],
                        "final_obs {i}"
                    );
                }
            }
            checked += against_reference(env, first, enc);
            if k == steps {
                break;
            }
            // A varied legal action of each table: passes, claims, wins.
            for (i, (a, m)) in actions
                .iter_mut()
                .zip(first.masks.chunks(N_ACTIONS))
                .enumerate()
            {
                let legal: Vec<usize> = (0..N_ACTIONS).filter(|&j| m[j]).collect();
                *a = legal[(i * 7 + k * 3) % legal.len()] as i64;
            }
            for (isa, env, rows) in &mut envs {
                let mut out = rows.buffers();
                with_isa(*isa, || {
                    env.step(&actions, OnIllegal::Error, &mut out).unwrap()
                })
                .unwrap();
            }
        }
        checked
    }

    /// Each table's row equals the reference encoder's for the seat to
    /// act (version 3: its first 66 planes, version 2's), and its mask
    /// the legal actions' bits; the number of rows.
    fn against_reference<T: Cell + PartialEq + Debug>(
        env: &VecEnv,
        rows: &Rows<T>,
        enc: Encoding,
    ) -> usize {
        let base = match enc {
            Encoding::V3 => Encoding::V2,
            e => e,
        };
        let mut want = vec![T::default(); base.len()];
        for i in 0..env.num_envs() {
            let g = env.game(i, false).unwrap().unwrap();
            let seat = rows.to_act[i] as u8;
            reference::write(&GameView::new(g, seat), base, &mut want);
            let row = &rows.obs[i * enc.len()..][..base.len()];
            assert_eq!(row, &want[..], "table {i} seat {seat} {enc:?}");
            let legal = g.legal_actions_for(seat);
            let mask = &rows.masks[i * N_ACTIONS..][..N_ACTIONS];
            for (a, &m) in mask.iter().enumerate() {
                assert_eq!(m, legal.contains_index(a), "table {i} action {a}");
            }
        }
        env.num_envs()
    }

    /// Every rule set, learner mode, encoding and value type, one thread,
    /// 13 tables (the masks' and rows' addresses at every alignment).
    #[test]
    fn every_path_writes_the_scalar_rows_and_the_reference() {
        let mut checked = 0;
        for rules in rule_sets() {
            for learners in [Learners::All, Learners::Seat(2)] {
                let size = (13, 1, 120);
                checked += check(&rules, learners, Encoding::V1, -1f32, size);
                checked += check(&rules, learners, Encoding::V2, 7u8, size);
                checked += check(&rules, learners, Encoding::V2, -3f32, size);
                checked += check(&rules, learners, Encoding::V3, 9u8, (13, 1, 40));
                checked += check(&rules, learners, Encoding::V3, -5f32, (13, 1, 40));
            }
        }
        assert!(checked > 50_000, "{checked} rows");
    }

    /// Two threads (the path is handed to the helper threads with the
    /// rows: 130 tables, enough to split).
    #[test]
    fn the_helper_threads_write_on_the_callers_path() {
        let rules = Ruleset::shanxi();
        let checked = check(&rules, Learners::Seat(0), Encoding::V2, 1f32, (130, 2, 60))
            + check(&rules, Learners::All, Encoding::V3, 3u8, (130, 2, 15));
        assert!(checked > 8_000, "{checked} rows");
    }
}
