use super::*;
use crate::error::ModelFault;
use crate::game::encode::Encoding;
use crate::ruleset::Ruleset;
use crate::simulate::simulate_with;
use proptest::prelude::*;
use safetensors::tensor::TensorView;
use safetensors::Dtype;
use serde_json::Value;

const ALL: [Family; 3] = [Family::Shanxi, Family::Linxian, Family::Sichuan];

/// A model file taken apart: its header and its tensors (name, dtype,
/// shape, bytes), to be edited and put back together.
type Parts = (Value, Vec<(String, Dtype, Vec<usize>, Vec<u8>)>);

fn parts(hidden: &[usize], seed: u64) -> Parts {
    let bytes = random_model(hidden, &ALL, seed);
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let (_, meta) = safetensors::SafeTensors::read_metadata(&bytes).unwrap();
    let header = serde_json::from_str(&meta.metadata().as_ref().unwrap()["koudian"]).unwrap();
    let mut tensors: Vec<_> = st
        .tensors()
        .into_iter()
        .map(|(n, t)| (n, t.dtype(), t.shape().to_vec(), t.data().to_vec()))
        .collect();
    tensors.sort_by(|a, b| a.0.cmp(&b.0));
    (header, tensors)
}

fn build((header, tensors): &Parts) -> Vec<u8> {
    let views: Vec<_> = tensors
        .iter()
        .map(|(n, d, s, b)| (n.clone(), TensorView::new(*d, s.clone(), b).unwrap()))
        .collect();
    let meta = HashMap::from([("koudian".to_string(), header.to_string())]);
    safetensors::serialize(views, Some(meta)).unwrap()
}

fn fault_of(bytes: &[u8]) -> (ModelFault, String) {
    match Model::from_bytes(bytes, "test.safetensors") {
        Err(Error::InvalidModel(e)) => {
            assert_eq!(e.file, "test.safetensors");
            let shown = Error::InvalidModel(e.clone()).to_string();
            assert!(shown.contains("test.safetensors"), "{shown}");
            (e.fault, e.detail)
        }
        other => panic!("not refused: {other:?}"),
    }
}

fn model(hidden: &[usize], seed: u64) -> Model {
    Model::from_bytes(&random_model(hidden, &ALL, seed), "<random>").unwrap()
}

/// NN.md's arithmetic, deliberately plain (f64, loops over the tensors
/// as stored, no transposition, no sparsity): the reference of the
/// forward pass.
fn reference(m: &Model, x: &[f32]) -> (Vec<f64>, f64) {
    let mut a: Vec<f64> = x
        .iter()
        .zip(&m.input_scale)
        .map(|(&v, &s)| f64::from(v) * f64::from(s))
        .collect();
    for d in m.hidden.iter().chain([&m.head]) {
        let is_head = std::ptr::eq(d, &m.head);
        let mut y = vec![0f64; d.out];
        for (o, yo) in y.iter_mut().enumerate() {
            let mut s = f64::from(d.bias[o]);
            for (i, ai) in a.iter().enumerate() {
                s += f64::from(d.weight[o * d.inp + i]) * ai;
            }
            *yo = if is_head { s } else { s.max(0.0) };
        }
        a = y;
    }
    let value = a.pop().unwrap();
    if let Some(kw) = &m.kinds {
        // The per-kind head, kind by kind over every input (zeros too).
        let planes = m.header.encoding.n_planes();
        for (g, group) in a.chunks_exact_mut(34).take(4).enumerate() {
            for (k, logit) in group.iter_mut().enumerate() {
                for p in 0..planes {
                    let i = p * 34 + k;
                    *logit += f64::from(kw[i * 4 + g]) * f64::from(x[i]);
                }
            }
        }
    }
    (a, value)
}

/// An input row like an observation's: small integers, mostly zero, some
/// planes constant, the family one-hot.
fn row_from(seed: u64, inputs: usize) -> Vec<f32> {
    let mut rng = crate::rng::Prng::new(seed);
    let mut x = vec![0f32; inputs];
    let planes = Encoding::V2.n_planes();
    for p in 0..planes {
        match rng.below(6) {
            0 => x[p * 34..(p + 1) * 34].fill(rng.below(140) as f32),
            1 | 2 => {
                for _ in 0..rng.below(5) {
                    x[p * 34 + rng.below(34) as usize] = 1.0 + rng.below(4) as f32;
                }
            }
            _ => {}
        }
    }
    x[planes * 34 + rng.below(3) as usize] = 1.0;
    x
}

fn forward_one(m: &Model, x: &[f32], dense: bool) -> (Vec<f32>, f32) {
    let mut logits = vec![0f32; N_ACTIONS];
    let mut v = [0f32];
    m.forward_rows(x, 1, &mut logits, &mut v, &mut Scratch::default(), dense);
    (logits, v[0])
}

fn close(a: f32, b: f64, what: &str) {
    assert!(
        (f64::from(a) - b).abs() <= 1e-4 * (1.0 + b.abs()),
        "{what}: {a} vs {b}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The forward pass (sparse first layer, and the dense one) equals the
    /// plain reference on random weights and observation-like inputs.
    #[test]
    fn forward_equals_the_plain_reference(wseed in any::<u64>(), xseed in any::<u64>(), h0 in 1usize..40, h1 in 1usize..20) {
        let m = model(&[h0, h1], wseed);
        let x = row_from(xseed, m.inputs());
        let (want, want_v) = reference(&m, &x);
        for dense in [false, true] {
            let (l, v) = forward_one(&m, &x, dense);
            for (i, (&a, &b)) in l.iter().zip(&want).enumerate() {
                close(a, b, &format!("logit {i} dense={dense}"));
            }
            close(v, want_v, "value");
        }
    }

    /// A row's results are the same bits alone and in any batch, at any
    /// position.
    #[test]
    fn a_batch_equals_its_rows_alone(wseed in any::<u64>(), n in 1usize..40, xseed in any::<u64>()) {
        let m = model(&[48, 24], wseed);
        let inputs = m.inputs();
        let x: Vec<f32> = (0..n as u64).flat_map(|i| row_from(xseed ^ i, inputs)).collect();
        let mut logits = vec![0f32; n * N_ACTIONS];
        let mut values = vec![0f32; n];
        let mut scratch = Scratch::default();
        m.forward(&x, &mut logits, &mut values, &mut scratch).unwrap();
        for i in 0..n {
            let (l, v) = forward_one(&m, &x[i * inputs..(i + 1) * inputs], false);
            prop_assert_eq!(&logits[i * N_ACTIONS..(i + 1) * N_ACTIONS], &l[..]);
            prop_assert_eq!(values[i].to_bits(), v.to_bits());
        }
    }
}

/// F16 and BF16 tensors are read as f32.
#[test]
fn half_precision_tensors_are_read() {
    for dtype in [Dtype::F16, Dtype::BF16] {
        let mut p = parts(&[8], 3);
        for t in &mut p.1 {
            let vals: Vec<f32> =
                t.3.chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                    .collect();
            t.1 = dtype;
            t.3 = vals
                .iter()
                .flat_map(|&v| match dtype {
                    Dtype::F16 => half::f16::from_f32(v).to_le_bytes(),
                    _ => half::bf16::from_f32(v).to_le_bytes(),
                })
                .collect();
        }
        let m = Model::from_bytes(&build(&p), "h").unwrap();
        let f32_model = model(&[8], 3);
        let tol = if dtype == Dtype::F16 { 1e-3 } else { 1e-2 };
        for (a, b) in m.hidden[0].weight.iter().zip(&f32_model.hidden[0].weight) {
            assert!((a - b).abs() <= tol * (1.0 + b.abs()), "{dtype:?} {a} {b}");
        }
    }
}

/// Every refusal of the contract, each with its fault and a detail that
/// says what is wrong.
#[test]
fn bad_model_files_are_refused_with_what_is_wrong() {
    let good = build(&parts(&[8, 4], 1));
    assert!(Model::from_bytes(&good, "ok").is_ok());
    let cases: Vec<(&str, Vec<u8>, ModelFault, &str)> = {
        let mut v = vec![
            ("empty", vec![], ModelFault::NotSafetensors, "safetensors"),
            (
                "text",
                b"hello, world, this is not a model".to_vec(),
                ModelFault::NotSafetensors,
                "safetensors",
            ),
            (
                "truncated",
                good[..good.len() - 5].to_vec(),
                ModelFault::NotSafetensors,
                "cut short",
            ),
            (
                "truncated header",
                good[..40].to_vec(),
                ModelFault::NotSafetensors,
                "safetensors",
            ),
        ];
        let mut corrupted = good.clone();
        corrupted[10] ^= 0x55;
        v.push((
            "corrupted header",
            corrupted,
            ModelFault::NotSafetensors,
            "safetensors",
        ));
        let edit = |f: &dyn Fn(&mut Parts)| {
            let mut p = parts(&[8, 4], 1);
            f(&mut p);
            build(&p)
        };
        let set = |k: &'static str, val: Value| edit(&move |p: &mut Parts| p.0[k] = val.clone());
        v.push((
            "no metadata",
            {
                let p = parts(&[8, 4], 1);
                let views: Vec<_> =
                    p.1.iter()
                        .map(|(n, d, s, b)| (n.clone(), TensorView::new(*d, s.clone(), b).unwrap()))
                        .collect();
                safetensors::serialize(views, None).unwrap()
            },
            ModelFault::Metadata,
            "koudian",
        ));
        v.push((
            "not json",
            edit(&|p| p.0 = Value::String("x".into())),
            ModelFault::Metadata,
            "object",
        ));
        v.push((
            "format",
            set("format", "onnx".into()),
            ModelFault::Format,
            "onnx",
        ));
        v.push((
            "format_version",
            set("format_version", 2.into()),
            ModelFault::Format,
            "format_version 2",
        ));
        v.push(("arch", set("arch", "cnn".into()), ModelFault::Format, "cnn"));
        v.push((
            "encoding",
            set("encoding_version", 1.into()),
            ModelFault::Encoding,
            "encoding version 1",
        ));
        v.push((
            "planes",
            set("planes", 29.into()),
            ModelFault::Encoding,
            "29 planes",
        ));
        v.push((
            "actions",
            set("actions", 140.into()),
            ModelFault::Encoding,
            "140 actions",
        ));
        v.push((
            "extra input",
            set("extra_inputs", serde_json::json!(["seat_wind"])),
            ModelFault::Encoding,
            "seat_wind",
        ));
        v.push((
            "no hidden",
            edit(&|p| {
                p.0.as_object_mut().unwrap().remove("hidden");
            }),
            ModelFault::Metadata,
            "hidden",
        ));
        v.push((
            "family name",
            set("families", serde_json::json!(["riichi"])),
            ModelFault::Metadata,
            "riichi",
        ));
        v.push((
            "value_scale",
            set("value_scale", "big".into()),
            ModelFault::Metadata,
            "value_scale",
        ));
        v.push((
            "hidden vs shapes",
            set("hidden", serde_json::json!([8, 5])),
            ModelFault::Tensor,
            "hidden.1.weight",
        ));
        v.push((
            "missing",
            edit(&|p| p.1.retain(|t| t.0 != "value.bias")),
            ModelFault::Tensor,
            "missing tensor \"value.bias\"",
        ));
        v.push((
            "extra",
            edit(&|p| {
                p.1.push(("hidden.9.weight".into(), Dtype::F32, vec![1], vec![0; 4]))
            }),
            ModelFault::Tensor,
            "hidden.9.weight",
        ));
        v.push((
            "shape",
            edit(&|p| {
                let t = p.1.iter_mut().find(|t| t.0 == "policy.bias").unwrap();
                t.2 = vec![140];
                t.3.truncate(140 * 4);
            }),
            ModelFault::Tensor,
            "policy.bias",
        ));
        v.push((
            "dtype",
            edit(&|p| {
                let t = p.1.iter_mut().find(|t| t.0 == "value.bias").unwrap();
                t.1 = Dtype::I32;
            }),
            ModelFault::Dtype,
            "I32",
        ));
        v.push((
            "f64",
            edit(&|p| {
                let t = p.1.iter_mut().find(|t| t.0 == "value.bias").unwrap();
                t.1 = Dtype::F64;
                t.3 = 0.5f64.to_le_bytes().to_vec();
            }),
            ModelFault::Dtype,
            "F64",
        ));
        v.push((
            "nan",
            edit(&|p| {
                let t = p.1.iter_mut().find(|t| t.0 == "hidden.1.weight").unwrap();
                t.3[8..12].copy_from_slice(&f32::NAN.to_le_bytes());
            }),
            ModelFault::NonFinite,
            "hidden.1.weight",
        ));
        v.push((
            "inf",
            edit(&|p| {
                let t = p.1.iter_mut().find(|t| t.0 == "input_scale").unwrap();
                t.3[0..4].copy_from_slice(&f32::INFINITY.to_le_bytes());
            }),
            ModelFault::NonFinite,
            "input_scale",
        ));
        v
    };
    for (what, bytes, fault, says) in cases {
        let (got, detail) = fault_of(&bytes);
        assert_eq!(got, fault, "{what}: {detail}");
        assert!(detail.contains(says), "{what}: {detail:?} lacks {says:?}");
    }
}

/// A family the model was not trained for is refused at its first
/// decision, the run stopping with the error naming the file.
#[test]
fn a_family_not_covered_is_refused() {
    let bytes = random_model(&[8], &[Family::Shanxi], 2);
    let m = Arc::new(Model::from_bytes(&bytes, "shanxi-only.safetensors").unwrap());
    let r = simulate_with(
        &Ruleset::sichuan(),
        0..2,
        1,
        1,
        |_| -> Result<Box<dyn Agent>, Error> {
            Ok(Box::new(NnAgent::with_model(Arc::clone(&m), None, 0)))
        },
        |_, s| s,
    );
    match r {
        Err(Error::InvalidModel(e)) => {
            assert_eq!(
                (e.file.as_str(), e.fault),
                ("shanxi-only.safetensors", ModelFault::Family)
            );
            assert!(e.detail.contains("sichuan"), "{}", e.detail);
        }
        other => panic!("{other:?}"),
    }
    let ok = simulate_with(
        &Ruleset::shanxi(),
        0..2,
        1,
        1,
        |_| -> Result<Box<dyn Agent>, Error> {
            Ok(Box::new(NnAgent::with_model(Arc::clone(&m), None, 0)))
        },
        |_, s| s,
    );
    assert!(ok.is_ok());
}

/// The spec: a model file by path (shared by every agent that loads it),
/// options, refusals naming the file.
#[test]
fn specs_load_files_once_and_refuse_bad_ones() {
    let dir = std::env::temp_dir().join(format!("koudian-nn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.safetensors");
    std::fs::write(&path, random_model(&[16], &ALL, 5)).unwrap();
    let spec = format!("nn:{}", path.display());
    let a = load_shared(&path).unwrap();
    let b = load_shared(&path).unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    assert!(crate::agent::builtin(&spec, 1).is_ok());
    assert!(crate::agent::builtin(&format!("{spec}:temp=0.7"), 1).is_ok());
    assert!(crate::agent::builtin(&format!("{spec}:temp=x"), 1).is_err());
    assert!(crate::agent::builtin(&format!("{spec}:depth=3"), 1).is_err());
    let missing = dir.join("none.safetensors");
    match crate::agent::builtin(&format!("nn:{}", missing.display()), 1) {
        Err(Error::InvalidModel(e)) => {
            assert_eq!(e.fault, ModelFault::Unreadable);
            assert!(e.file.contains("none.safetensors"));
        }
        Err(e) => panic!("{e:?}"),
        Ok(_) => panic!("loaded a missing file"),
    }
    let broken = dir.join("broken.safetensors");
    std::fs::write(&broken, b"not a model").unwrap();
    let err = crate::agent::builtin(&format!("nn:{}", broken.display()), 1)
        .err()
        .unwrap();
    assert!(err.to_string().contains("broken.safetensors"), "{err}");
    if EMBEDDED.is_empty() {
        let err = crate::agent::builtin("nn", 1).err().unwrap();
        assert!(err.to_string().contains("nn:PATH"), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// On every preset, a random-weight model plays legal actions only (no
/// fault in thousands of decisions), the same hands from the same seed,
/// and sampling at a temperature plays other hands, also reproducibly.
#[test]
fn decisions_are_legal_and_deterministic_on_every_preset() {
    let m = Arc::new(Model::from_bytes(&random_model(&[32, 16], &ALL, 9), "r").unwrap());
    for name in Ruleset::preset_names() {
        let rules = Ruleset::preset(name).unwrap();
        let run = |temp: Option<f32>, threads: usize| {
            simulate_with(
                &rules,
                0..48,
                7,
                threads,
                |_| -> Result<Box<dyn Agent>, Error> {
                    Ok(Box::new(NnAgent::with_model(Arc::clone(&m), temp, 0)))
                },
                |_, s| s,
            )
            .unwrap()
        };
        let greedy = run(None, 1);
        let decisions: u32 = greedy.iter().map(|s| s.decisions).sum();
        assert!(decisions > 400, "{name}: {decisions}");
        assert!(greedy.iter().all(|s| !s.agent_fault), "{name}");
        assert_eq!(greedy, run(None, 2), "{name}");
        let hot = run(Some(2.0), 1);
        assert!(hot.iter().all(|s| !s.agent_fault), "{name}");
        assert_eq!(hot, run(Some(2.0), 2), "{name}");
        assert_ne!(hot, greedy, "{name}");
    }
}

/// The ranking's first action is greedy decoding's; probabilities sum to 1.
#[test]
fn the_ranking_leads_with_the_greedy_choice() {
    let m = Arc::new(Model::from_bytes(&random_model(&[32], &ALL, 4), "r").unwrap());
    let mut g = Game::new(&Ruleset::shanxi(), 3, None).unwrap();
    let mut agent = NnAgent::with_model(Arc::clone(&m), None, 0);
    for _ in 0..60 {
        let Some(seat) = g.to_act() else { break };
        let view = SeatView::new(&g, seat);
        let ranked = agent.rank(&view).unwrap();
        assert_eq!(ranked.len(), view.legal().len());
        let total: f64 = ranked
            .iter()
            .map(|r| r.number("probability").unwrap())
            .sum();
        assert!((total - 1.0).abs() < 1e-9);
        let a = agent.act(&view);
        assert_eq!(ranked[0].action, a);
        g.step(a).unwrap();
    }
}

/// A version 3 model (the look-ahead planes in its input) reads rows whose
/// planes are version 2's followed by the seat's look-ahead planes, plays
/// legal actions only on every preset, and the lockstep batched self-play
/// gives the hands one-at-a-time play gives.
#[test]
fn a_version_3_model_reads_the_look_ahead_planes() {
    use crate::agent::greedy::lookahead::{lookahead, LOOKAHEAD_PLANES};
    let bytes = random_model_for(Encoding::V3, true, &[24], &ALL, 5);
    let m = Arc::new(Model::from_bytes(&bytes, "v3").unwrap());
    assert_eq!(m.header().encoding, Encoding::V3);
    assert_eq!(m.inputs(), 79 * 34 + 3);
    for seed in 0..20 {
        let x = row_from(seed, m.inputs());
        let (want, wv) = reference(&m, &x);
        for dense in [false, true] {
            let (got, v) = forward_one(&m, &x, dense);
            close(v, wv, "value");
            for (a, (&g, &w)) in got.iter().zip(&want).enumerate() {
                close(g, w, &format!("logit {a}"));
            }
        }
    }
    let mut g = Game::new(&Ruleset::linxian(), 11, None).unwrap();
    let mut row = vec![0f32; m.inputs()];
    let mut rows = 0;
    while let Some(seat) = g.to_act() {
        encode_row(&m, &g, seat, &mut row);
        let mut la = [[0u8; crate::tile::KINDS]; LOOKAHEAD_PLANES];
        lookahead(&g, seat, &mut la);
        let at = Encoding::V2.len();
        let want: Vec<f32> = la.as_flattened().iter().map(|&v| f32::from(v)).collect();
        assert_eq!(&row[at..at + want.len()], &want[..]);
        assert_eq!(row[Encoding::V3.len() + 1], 1.0, "the linxian one-hot");
        rows += 1;
        let a = NnAgent::with_model(Arc::clone(&m), None, 0).act(&SeatView::new(&g, seat));
        g.step(a).unwrap();
    }
    assert!(rows > 20);
    for name in Ruleset::preset_names() {
        let rules = Ruleset::preset(name).unwrap();
        let run = |threads: usize| {
            simulate_with(
                &rules,
                0..24,
                3,
                threads,
                |_| -> Result<Box<dyn Agent>, Error> {
                    Ok(Box::new(NnAgent::with_model(Arc::clone(&m), None, 0)))
                },
                |_, s| s,
            )
            .unwrap()
        };
        let one = run(1);
        assert!(one.iter().all(|s| !s.agent_fault), "{name}");
        assert_eq!(one, run(2), "{name}");
    }
}
