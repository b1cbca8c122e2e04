//! A model file of random weights: what the tests, benchmarks and
//! examples run (a forward pass costs the same whatever the weights).
//! The trained models are written by the training pipeline
//! (`koudian.train`), to the same format.

use super::model::{family_name, FORMAT, FORMAT_VERSION};
use crate::game::encode::Encoding;
use crate::game::N_ACTIONS;
use crate::rng::Prng;
use crate::ruleset::Family;
use safetensors::tensor::TensorView;
use safetensors::Dtype;
use std::collections::HashMap;

/// The bytes of a model file (F32) with the family one-hot as its extra
/// inputs, `hidden` layer widths, trained (nominally) for `families`,
/// its weights uniform in ±1/√fan-in from `seed` and its input scale
/// 1/8 (the planes hold small integers).
///
/// ```
/// use koudian_core::agent::nn::{random_model, Model};
/// use koudian_core::ruleset::Family;
/// let bytes = random_model(&[32, 16], &[Family::Shanxi], 1);
/// let m = Model::from_bytes(&bytes, "<random>").unwrap();
/// assert_eq!(m.inputs(), 66 * 34 + 3);
/// ```
pub fn random_model(hidden: &[usize], families: &[Family], seed: u64) -> Vec<u8> {
    random_model_for(Encoding::V2, false, hidden, families, seed)
}

/// [`random_model`] over the planes of `encoding` (version 2 or 3), with
/// the per-kind head when `kind_head`.
///
/// ```
/// use koudian_core::agent::nn::{random_model_for, Model};
/// use koudian_core::game::encode::Encoding;
/// use koudian_core::ruleset::Family;
/// let bytes = random_model_for(Encoding::V3, true, &[16], &[Family::Sichuan], 2);
/// assert_eq!(Model::from_bytes(&bytes, "<random>").unwrap().inputs(), 79 * 34 + 3);
/// ```
pub fn random_model_for(
    encoding: Encoding,
    kind_head: bool,
    hidden: &[usize],
    families: &[Family],
    seed: u64,
) -> Vec<u8> {
    let inputs = encoding.len() + 3;
    let mut rng = Prng::new(seed);
    let mut uniform = |n: usize, bound: f32| -> Vec<u8> {
        (0..n)
            .flat_map(|_| {
                let u = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
                ((2.0 * u - 1.0) * bound).to_le_bytes()
            })
            .collect()
    };
    let mut tensors: Vec<(String, Vec<usize>, Vec<u8>)> = vec![(
        "input_scale".into(),
        vec![inputs],
        std::iter::repeat_n(0.125f32.to_le_bytes(), inputs)
            .flatten()
            .collect(),
    )];
    let mut width = inputs;
    for (i, &h) in hidden.iter().enumerate() {
        let bound = 1.0 / (width as f32).sqrt();
        tensors.push((
            format!("hidden.{i}.weight"),
            vec![h, width],
            uniform(h * width, bound),
        ));
        tensors.push((format!("hidden.{i}.bias"), vec![h], uniform(h, bound)));
        width = h;
    }
    let bound = 1.0 / (width as f32).sqrt();
    tensors.push((
        "policy.weight".into(),
        vec![N_ACTIONS, width],
        uniform(N_ACTIONS * width, bound),
    ));
    tensors.push((
        "policy.bias".into(),
        vec![N_ACTIONS],
        uniform(N_ACTIONS, bound),
    ));
    tensors.push(("value.weight".into(), vec![1, width], uniform(width, bound)));
    tensors.push(("value.bias".into(), vec![1], uniform(1, bound)));
    if kind_head {
        let planes = encoding.n_planes();
        tensors.push((
            "kinds.weight".into(),
            vec![4, planes],
            uniform(4 * planes, 0.5),
        ));
    }
    let families: Vec<_> = families.iter().map(|&f| family_name(f)).collect();
    let header = serde_json::json!({
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "arch": "mlp",
        "encoding_version": encoding.version(),
        "planes": encoding.n_planes(),
        "extra_inputs": ["family_shanxi", "family_linxian", "family_sichuan"],
        "hidden": hidden,
        "actions": N_ACTIONS,
        "families": families,
        "value_scale": 10.0,
        "kind_head": kind_head,
        "provenance": {"recipe": "random weights", "seed": seed},
    });
    let views: Vec<(String, TensorView<'_>)> = tensors
        .iter()
        .map(|(n, s, d)| {
            let v = TensorView::new(Dtype::F32, s.clone(), d).expect("sizes match");
            (n.clone(), v)
        })
        .collect();
    let meta = HashMap::from([("koudian".to_string(), header.to_string())]);
    safetensors::serialize(views, Some(meta)).expect("a well-formed model")
}
