//! The model file reader: a safetensors file whose `__metadata__` holds
//! one key, `"koudian"`, a JSON header (docs/models.md and NN.md state the
//! contract). Everything the forward pass relies on is checked here, once,
//! so that a file this build cannot use is refused with its name and what
//! is wrong ([`Error::InvalidModel`]), never half-used.

use crate::error::{Error, ModelFault};
use crate::game::encode::Encoding;
use crate::game::N_ACTIONS;
use crate::ruleset::Family;
use crate::tile::KINDS;
use safetensors::{Dtype, SafeTensors};
use serde_json::Value;

/// The `format` of the header.
pub const FORMAT: &str = "koudian-nn";
/// The `format_version` this build reads.
pub const FORMAT_VERSION: u64 = 1;
/// The largest model file read (a bound on memory; the models
/// are a few MB).
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// The most hidden layers and the widest one accepted (bounds on memory
/// and on a decision's time).
pub const MAX_LAYERS: usize = 8;
/// See [`MAX_LAYERS`].
pub const MAX_WIDTH: usize = 4096;

/// The extra inputs this build computes, by name: the ruleset's family
/// one-hot.
const EXTRA_INPUTS: [(&str, Family); 3] = [
    ("family_shanxi", Family::Shanxi),
    ("family_linxian", Family::Linxian),
    ("family_sichuan", Family::Sichuan),
];

/// A family's name in the header.
pub fn family_name(f: Family) -> &'static str {
    match f {
        Family::Shanxi => "shanxi",
        Family::Linxian => "linxian",
        Family::Sichuan => "sichuan",
    }
}

/// The header of a model file, as read.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The metadata JSON as stored (for the binding's `header` dict).
    pub json: String,
    /// The observation encoding of its input planes (version 2, or 3 with
    /// the look-ahead planes).
    pub encoding: Encoding,
    /// The extra inputs after the planes, each the family it is 1.0 for.
    pub extra_inputs: Vec<Family>,
    /// The hidden layers' widths.
    pub hidden: Vec<usize>,
    /// The families the model was trained for.
    pub families: Vec<Family>,
    /// Expected points of a hand = value × `value_scale`.
    pub value_scale: f32,
    /// Whether the model has the per-kind head (`"kind_head": true`, the
    /// tensor `kinds.weight`): see [`Model`].
    pub kind_head: bool,
}

impl Header {
    /// Values per input row: the planes then the extra inputs.
    pub fn inputs(&self) -> usize {
        self.encoding.len() + self.extra_inputs.len()
    }
}

/// One dense layer: `y = W x + b`, `W` row-major `[out, in]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    /// Output width.
    pub out: usize,
    /// Input width.
    pub inp: usize,
    /// `[out, in]`, row-major.
    pub weight: Vec<f32>,
    /// `[out]`.
    pub bias: Vec<f32>,
}

/// A loaded model: its header and its weights, converted to f32, with
/// the input scale folded into the first layer.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Where it came from (errors name it).
    pub(super) file: String,
    /// The header.
    pub(super) header: Header,
    /// `input_scale`, as stored.
    pub(super) input_scale: Vec<f32>,
    /// The hidden layers.
    pub(super) hidden: Vec<Dense>,
    /// The first hidden layer transposed, `[inputs, h0]`, each input's
    /// column scaled by its `input_scale`: the forward pass adds the
    /// columns of the nonzero inputs (most of a row is zero).
    pub(super) first_t: Vec<f32>,
    /// Per plane, the sum of its 34 rows of `first_t` `[planes, h0]`: a
    /// plane whose 34 values are all `c` adds `c` times it (the "all
    /// ones" planes, the counts).
    pub(super) plane_sums: Vec<f32>,
    /// The policy and value heads as one layer: rows 0-140 the policy,
    /// row 141 the value.
    pub(super) head: Dense,
    /// The per-kind head, when the model has one: `kinds.weight`
    /// `[4, planes]` read as a 1×1 convolution from the planes' column of
    /// each kind to the logits of the four per-kind action groups
    /// (discard, ting, concealed kong, added kong of that kind): logit
    /// `34 g + k` gains `Σ_p W[g, p] · x[34 p + k]` (scaled inputs). It
    /// lets a small net compare the look-ahead planes' numbers kind by
    /// kind, which a dense layer learns poorly. Stored per input,
    /// `[planes × 34][4]`, each scaled by its `input_scale`.
    pub(super) kinds: Option<Vec<f32>>,
}

/// The per-kind action groups (discard, ting, concealed kong, added kong:
/// dense indices `34 g + k`).
pub const KIND_GROUPS: usize = 4;

/// The error naming `file`.
fn bad(file: &str, fault: ModelFault, detail: impl Into<String>) -> Error {
    Error::model(file, fault, detail)
}

impl Model {
    /// Reads the model file at `path` (see the [module docs](self)).
    pub fn from_file(path: &std::path::Path) -> Result<Model, Error> {
        let file = path.display().to_string();
        let unreadable = |e: std::io::Error| bad(&file, ModelFault::Unreadable, e.to_string());
        let len = std::fs::metadata(path).map_err(unreadable)?.len();
        if len > MAX_FILE_BYTES {
            return Err(bad(
                &file,
                ModelFault::Unreadable,
                format!("{len} bytes, more than the {MAX_FILE_BYTES} a model file may hold"),
            ));
        }
        let bytes = std::fs::read(path).map_err(unreadable)?;
        Model::from_bytes(&bytes, &file)
    }

    /// Reads a model file's bytes; `file` names it in errors.
    pub fn from_bytes(bytes: &[u8], file: &str) -> Result<Model, Error> {
        let st = SafeTensors::deserialize(bytes).map_err(|e| {
            bad(
                file,
                ModelFault::NotSafetensors,
                format!("not a safetensors file, or one cut short ({e})"),
            )
        })?;
        let (_, meta) = SafeTensors::read_metadata(bytes)
            .map_err(|e| bad(file, ModelFault::NotSafetensors, e.to_string()))?;
        let json = meta
            .metadata()
            .as_ref()
            .and_then(|m| m.get("koudian"))
            .ok_or_else(|| {
                bad(
                    file,
                    ModelFault::Metadata,
                    "no \"koudian\" key in the safetensors __metadata__ (not a koudian model)",
                )
            })?;
        let header = parse_header(json, file)?;
        let inputs = header.inputs();
        // Every tensor is named by the header: the list, in order.
        let mut expected: Vec<(String, Vec<usize>)> = vec![("input_scale".into(), vec![inputs])];
        let mut width = inputs;
        for (i, &h) in header.hidden.iter().enumerate() {
            expected.push((format!("hidden.{i}.weight"), vec![h, width]));
            expected.push((format!("hidden.{i}.bias"), vec![h]));
            width = h;
        }
        expected.push(("policy.weight".into(), vec![N_ACTIONS, width]));
        expected.push(("policy.bias".into(), vec![N_ACTIONS]));
        expected.push(("value.weight".into(), vec![1, width]));
        expected.push(("value.bias".into(), vec![1]));
        let planes = header.encoding.n_planes();
        if header.kind_head {
            expected.push(("kinds.weight".into(), vec![KIND_GROUPS, planes]));
        }
        let mut extra: Vec<&str> = st
            .names()
            .into_iter()
            .filter(|n| !expected.iter().any(|(e, _)| e == n))
            .collect();
        if !extra.is_empty() {
            extra.sort_unstable();
            return Err(bad(
                file,
                ModelFault::Tensor,
                format!(
                    "unexpected tensor(s) {extra:?} for an mlp of hidden {:?}",
                    header.hidden
                ),
            ));
        }
        let read = |name: &str, shape: &[usize]| -> Result<Vec<f32>, Error> {
            let t = st.tensor(name).map_err(|_| {
                bad(
                    file,
                    ModelFault::Tensor,
                    format!("missing tensor {name:?} (shape {shape:?})"),
                )
            })?;
            if t.shape() != shape {
                return Err(bad(
                    file,
                    ModelFault::Tensor,
                    format!(
                        "tensor {name:?} has shape {:?}, the header says {shape:?}",
                        t.shape()
                    ),
                ));
            }
            let v = to_f32(t.dtype(), t.data()).ok_or_else(|| {
                bad(
                    file,
                    ModelFault::Dtype,
                    format!(
                        "tensor {name:?} is {:?}; a model's tensors are F32, F16 or BF16",
                        t.dtype()
                    ),
                )
            })?;
            if let Some(i) = v.iter().position(|x| !x.is_finite()) {
                return Err(bad(
                    file,
                    ModelFault::NonFinite,
                    format!("tensor {name:?} holds {} at flat index {i}", v[i]),
                ));
            }
            Ok(v)
        };
        let input_scale = read("input_scale", &[inputs])?;
        let mut hidden = Vec::with_capacity(header.hidden.len());
        let mut width = inputs;
        for (i, &h) in header.hidden.iter().enumerate() {
            hidden.push(Dense {
                out: h,
                inp: width,
                weight: read(&format!("hidden.{i}.weight"), &[h, width])?,
                bias: read(&format!("hidden.{i}.bias"), &[h])?,
            });
            width = h;
        }
        let mut head_w = read("policy.weight", &[N_ACTIONS, width])?;
        let mut head_b = read("policy.bias", &[N_ACTIONS])?;
        head_w.extend(read("value.weight", &[1, width])?);
        head_b.extend(read("value.bias", &[1])?);
        let head = Dense {
            out: N_ACTIONS + 1,
            inp: width,
            weight: head_w,
            bias: head_b,
        };
        let (first_t, plane_sums) = fold_first(&hidden[0], &input_scale, planes);
        let kinds = match header.kind_head {
            true => Some(fold_kinds(
                &read("kinds.weight", &[KIND_GROUPS, planes])?,
                &input_scale,
                planes,
            )),
            false => None,
        };
        Ok(Model {
            file: file.to_string(),
            header,
            input_scale,
            hidden,
            first_t,
            plane_sums,
            head,
            kinds,
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file it was read from.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Values per input row (2247 with the family one-hot).
    pub fn inputs(&self) -> usize {
        self.header.inputs()
    }

    /// Number of parameters.
    pub fn parameters(&self) -> usize {
        self.input_scale.len()
            + self
                .hidden
                .iter()
                .chain([&self.head])
                .map(|d| d.weight.len() + d.bias.len())
                .sum::<usize>()
    }

    /// Whether the model was trained for `family`.
    pub fn covers(&self, family: Family) -> bool {
        self.header.families.contains(&family)
    }

    /// Refuses a ruleset family the model was not trained for.
    pub fn check_family(&self, family: Family) -> Result<(), Error> {
        if self.covers(family) {
            return Ok(());
        }
        let names: Vec<_> = self
            .header
            .families
            .iter()
            .map(|&f| family_name(f))
            .collect();
        Err(bad(
            &self.file,
            ModelFault::Family,
            format!(
                "trained for {names:?}, not for the ruleset's family {:?}",
                family_name(family)
            ),
        ))
    }
}

/// The per-kind head `w` (`[4, planes]`) per input (`[planes × 34][4]`),
/// scaled by each input's `input_scale`.
fn fold_kinds(w: &[f32], scale: &[f32], planes: usize) -> Vec<f32> {
    let mut out = vec![0f32; planes * KINDS * KIND_GROUPS];
    for (i, o) in out.chunks_exact_mut(KIND_GROUPS).enumerate() {
        for (g, v) in o.iter_mut().enumerate() {
            *v = w[g * planes + i / KINDS] * scale[i];
        }
    }
    out
}

/// The first layer transposed and scaled, and its plane sums.
fn fold_first(first: &Dense, scale: &[f32], planes: usize) -> (Vec<f32>, Vec<f32>) {
    let (h, n) = (first.out, first.inp);
    let mut t = vec![0f32; n * h];
    for (o, w_row) in first.weight.chunks_exact(n).enumerate() {
        for (i, (w, s)) in w_row.iter().zip(scale).enumerate() {
            t[i * h + o] = w * s;
        }
    }
    let mut sums = vec![0f32; planes * h];
    for p in 0..planes {
        let sum = &mut sums[p * h..(p + 1) * h];
        for row in t[p * KINDS * h..(p + 1) * KINDS * h].chunks_exact(h) {
            sum.iter_mut().zip(row).for_each(|(s, w)| *s += w);
        }
    }
    (t, sums)
}

/// A tensor's little-endian bytes as f32 (None for another dtype).
fn to_f32(dtype: Dtype, data: &[u8]) -> Option<Vec<f32>> {
    Some(match dtype {
        Dtype::F32 => data
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
        Dtype::F16 => data
            .chunks_exact(2)
            .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect(),
        Dtype::BF16 => data
            .chunks_exact(2)
            .map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect(),
        _ => return None,
    })
}

/// Parses and checks the `koudian` metadata JSON.
fn parse_header(json: &str, file: &str) -> Result<Header, Error> {
    let meta = |d: String| bad(file, ModelFault::Metadata, d);
    let v: Value = serde_json::from_str(json)
        .map_err(|e| meta(format!("the \"koudian\" metadata is not JSON ({e})")))?;
    let obj = v
        .as_object()
        .ok_or_else(|| meta("the \"koudian\" metadata is not a JSON object".into()))?;
    let field = |k: &str| {
        obj.get(k)
            .ok_or_else(|| meta(format!("the \"koudian\" metadata has no {k:?}")))
    };
    let uint = |k: &str| -> Result<u64, Error> {
        field(k)?
            .as_u64()
            .ok_or_else(|| meta(format!("{k:?} must be a non-negative integer")))
    };
    let strings = |k: &str| -> Result<Vec<&str>, Error> {
        field(k)?
            .as_array()
            .and_then(|a| a.iter().map(Value::as_str).collect::<Option<Vec<_>>>())
            .ok_or_else(|| meta(format!("{k:?} must be a list of strings")))
    };
    let format = field("format")?.as_str().unwrap_or("");
    if format != FORMAT {
        return Err(bad(
            file,
            ModelFault::Format,
            format!("format {:?} is not {FORMAT:?}", field("format")?),
        ));
    }
    let version = uint("format_version")?;
    if version != FORMAT_VERSION {
        return Err(bad(
            file,
            ModelFault::Format,
            format!("format_version {version}; this build reads {FORMAT_VERSION}"),
        ));
    }
    let arch = field("arch")?;
    if arch.as_str() != Some("mlp") {
        return Err(bad(
            file,
            ModelFault::Format,
            format!("arch {arch}; this build runs \"mlp\""),
        ));
    }
    let enc = |d: String| bad(file, ModelFault::Encoding, d);
    let ev = uint("encoding_version")?;
    let encoding = match ev {
        2 | 3 => Encoding::from_version(ev as u32).map_err(|e| enc(e.to_string()))?,
        _ => {
            return Err(enc(format!(
                "observation encoding version {ev}; this build runs models on versions 2 and 3 \
                 (it encodes up to version {})",
                Encoding::V3.version()
            )))
        }
    };
    let planes = uint("planes")?;
    if planes != encoding.n_planes() as u64 {
        return Err(enc(format!(
            "{planes} planes; encoding version {ev} has {}",
            encoding.n_planes()
        )));
    }
    let actions = uint("actions")?;
    if actions != N_ACTIONS as u64 {
        return Err(enc(format!(
            "{actions} actions; this build has {N_ACTIONS}"
        )));
    }
    let mut extra_inputs = Vec::new();
    for name in strings("extra_inputs")? {
        let f = EXTRA_INPUTS
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| {
                let known: Vec<_> = EXTRA_INPUTS.iter().map(|(n, _)| *n).collect();
                enc(format!("unknown extra input {name:?} (known: {known:?})"))
            })?;
        if extra_inputs.contains(&f.1) {
            return Err(enc(format!("extra input {name:?} listed twice")));
        }
        extra_inputs.push(f.1);
    }
    let hidden = field("hidden")?
        .as_array()
        .and_then(|a| {
            a.iter()
                .map(|x| x.as_u64().filter(|&w| (1..=MAX_WIDTH as u64).contains(&w)))
                .collect::<Option<Vec<_>>>()
        })
        .filter(|h| (1..=MAX_LAYERS).contains(&h.len()))
        .ok_or_else(|| {
            meta(format!(
                "\"hidden\" must list 1 to {MAX_LAYERS} layer widths, each 1 to {MAX_WIDTH}"
            ))
        })?
        .into_iter()
        .map(|w| w as usize)
        .collect();
    let mut families = Vec::new();
    for name in strings("families")? {
        let f = [Family::Shanxi, Family::Linxian, Family::Sichuan]
            .into_iter()
            .find(|&f| family_name(f) == name)
            .ok_or_else(|| {
                meta(format!(
                    "unknown family {name:?} (known: \"shanxi\", \"linxian\", \"sichuan\")"
                ))
            })?;
        families.push(f);
    }
    if families.is_empty() {
        return Err(meta("\"families\" is empty".into()));
    }
    let value_scale = field("value_scale")?
        .as_f64()
        .map(|x| x as f32)
        .filter(|x| x.is_finite())
        .ok_or_else(|| meta("\"value_scale\" must be a finite number".into()))?;
    let kind_head = match obj.get("kind_head") {
        None => false,
        Some(v) => v
            .as_bool()
            .ok_or_else(|| meta("\"kind_head\" must be true or false".into()))?,
    };
    Ok(Header {
        json: json.to_string(),
        kind_head,
        encoding,
        extra_inputs,
        hidden,
        families,
        value_scale,
    })
}
