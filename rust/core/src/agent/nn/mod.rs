//! The learned agent `nn`: a policy (and value) network read from a model
//! file ([`model`]: safetensors with a `koudian` JSON header), evaluated
//! here ([`forward`]) over the observation's planes (encoding version 2,
//! or 3 with the look-ahead planes, as the model's header says) and the
//! action mask.
//!
//! Specs ([`NnConfig::parse`]): `nn` (the default model embedded in the
//! build, the first one trained for the ruleset's family), `nn:PATH` (a
//! file), and the option `temp=T` (`nn:temp=0.5`, `nn:PATH:temp=0.5`):
//! greedy decoding by default (the legal action of the highest logit, ties
//! to the lowest action index), else a sample of softmax(logits / T) over
//! the legal actions with the agent's seeded random stream. A model is
//! loaded once per process and file and shared (`Arc`) by every agent
//! using it; the embedded ones are parsed on first use.

pub mod forward;
pub mod model;
#[cfg(test)]
mod tests;
mod write;

pub use forward::Scratch;
pub use model::{family_name, Header, Model};
pub use write::{random_model, random_model_for};

use crate::agent::{Agent, Answer, RankedAction, SeatView, SplitMix};
use crate::error::{Error, ModelFault};
use crate::game::encode;
use crate::game::view::GameView;
use crate::game::{Action, ActionMask, Game, N_ACTIONS};
use crate::ruleset::Family;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

// The default models: every `rust/core/models/*.safetensors` at build
// time (`EMBEDDED: &[(&str, &[u8])]`, by file name), written by build.rs.
include!(concat!(env!("OUT_DIR"), "/embedded_models.rs"));

/// The file names of the models embedded in this build (the default
/// models of the spec `nn`), in the order `nn` tries them.
pub fn embedded_names() -> Vec<&'static str> {
    EMBEDDED.iter().map(|(n, _)| *n).collect()
}

/// The embedded models, parsed once per process on first use.
fn embedded() -> Result<Vec<Arc<Model>>, Error> {
    static PARSED: OnceLock<Result<Vec<Arc<Model>>, Error>> = OnceLock::new();
    PARSED
        .get_or_init(|| {
            if EMBEDDED.is_empty() {
                return Err(Error::model(
                    "embedded:",
                    ModelFault::Unreadable,
                    "this build embeds no default nn model (rust/core/models/ held none when \
                     it was built); name a model file with \"nn:PATH\"",
                ));
            }
            EMBEDDED
                .iter()
                .map(|(name, bytes)| {
                    Model::from_bytes(bytes, &format!("embedded:{name}")).map(Arc::new)
                })
                .collect()
        })
        .clone()
}

/// The model file at `path`, loaded once per process while any agent
/// holds it (keyed by the canonical path, its length and modification
/// time, so that a rewritten file is read again).
pub fn load_shared(path: &Path) -> Result<Arc<Model>, Error> {
    type Key = (PathBuf, u64, Option<std::time::SystemTime>);
    static FILES: OnceLock<Mutex<HashMap<Key, Weak<Model>>>> = OnceLock::new();
    let file = path.display().to_string();
    let unreadable = |e: std::io::Error| Error::model(&file, ModelFault::Unreadable, e.to_string());
    let canonical = std::fs::canonicalize(path).map_err(unreadable)?;
    let meta = std::fs::metadata(&canonical).map_err(unreadable)?;
    let key = (canonical, meta.len(), meta.modified().ok());
    let files = FILES.get_or_init(Default::default);
    let mut files = files.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(m) = files.get(&key).and_then(Weak::upgrade) {
        return Ok(m);
    }
    // Loaded under the lock: the seats of a run being built on several
    // threads wait for the one load rather than each reading the file.
    let m = Arc::new(Model::from_file(path)?);
    files.retain(|_, w| w.strong_count() > 0);
    files.insert(key, Arc::downgrade(&m));
    Ok(m)
}

/// The options of an `nn` spec (what follows `"nn:"`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NnConfig {
    /// The model file; `None` for the embedded default.
    pub path: Option<PathBuf>,
    /// The sampling temperature; `None` (or 0) for greedy decoding.
    pub temp: Option<f32>,
}

/// The largest temperature accepted.
pub const MAX_TEMP: f32 = 1000.0;

impl NnConfig {
    /// Parses the options of a spec `nn:OPTIONS`: `""`, `"PATH"`,
    /// `"temp=T"`, `"PATH:temp=T"` (options are the trailing
    /// `key=value` parts, so a path may hold `:`).
    ///
    /// ```
    /// use koudian_core::agent::nn::NnConfig;
    /// let c = NnConfig::parse("models/a.safetensors:temp=0.5").unwrap();
    /// assert_eq!(c.path.unwrap().to_str(), Some("models/a.safetensors"));
    /// assert_eq!(c.temp, Some(0.5));
    /// assert_eq!(NnConfig::parse("").unwrap(), NnConfig::default());
    /// assert!(NnConfig::parse("temp=-1").is_err());
    /// assert!(NnConfig::parse("rollouts=3").is_err());
    /// ```
    pub fn parse(options: &str) -> Result<NnConfig, Error> {
        let bad = Error::InvalidRuleset;
        let mut parts: Vec<&str> = if options.is_empty() {
            vec![]
        } else {
            options.split(':').collect()
        };
        let mut cfg = NnConfig::default();
        let mut temp_given = false;
        while let Some(last) = parts.last() {
            let Some((key, value)) = last.split_once('=') else {
                break;
            };
            if key.is_empty() || !key.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                break;
            }
            if key != "temp" {
                return Err(bad(format!(
                    "unknown nn option {key:?} in {options:?} (available: \"temp=T\"; a model \
                     file is \"nn:PATH\")"
                )));
            }
            let t: f32 = value
                .parse()
                .map_err(|_| bad(format!("nn option temp={value:?}: not a number")))?;
            if !(0.0..=MAX_TEMP).contains(&t) || temp_given {
                return Err(bad(format!(
                    "nn option temp={value}: a temperature is given once, 0 to {MAX_TEMP}"
                )));
            }
            temp_given = true;
            // temp=0 is greedy decoding.
            cfg.temp = Some(t).filter(|&t| t > 0.0);
            parts.pop();
        }
        let path = parts.join(":");
        if !path.is_empty() {
            cfg.path = Some(PathBuf::from(path));
        }
        Ok(cfg)
    }
}

/// The agent `nn` (see the [module docs](self)).
pub struct NnAgent {
    /// The models it may use: one file, or the embedded ones.
    models: Vec<Arc<Model>>,
    /// The model chosen for the family last played.
    current: Option<(Family, usize)>,
    temp: Option<f32>,
    rng: SplitMix,
    row: Vec<f32>,
    logits: Vec<f32>,
    scratch: Scratch,
}

impl std::fmt::Debug for NnAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let files: Vec<_> = self.models.iter().map(|m| m.file()).collect();
        f.debug_struct("NnAgent")
            .field("models", &files)
            .field("temp", &self.temp)
            .finish()
    }
}

impl NnAgent {
    /// The agent of the spec options `cfg` (see [`NnConfig::parse`]),
    /// seeded with `seed`: the model file is read now (or found among the
    /// loaded ones), an error naming it if it cannot be used.
    pub fn new(cfg: &NnConfig, seed: u64) -> Result<NnAgent, Error> {
        let models = match &cfg.path {
            Some(p) => vec![load_shared(p)?],
            None => embedded()?,
        };
        Ok(NnAgent::with_models(models, cfg.temp, seed))
    }

    /// The agent of a loaded model (greedy when `temp` is `None`).
    pub fn with_model(model: Arc<Model>, temp: Option<f32>, seed: u64) -> NnAgent {
        NnAgent::with_models(vec![model], temp, seed)
    }

    fn with_models(models: Vec<Arc<Model>>, temp: Option<f32>, seed: u64) -> NnAgent {
        NnAgent {
            models,
            current: None,
            temp: temp.filter(|&t| t > 0.0),
            rng: SplitMix(seed),
            row: Vec::new(),
            logits: vec![0.0; N_ACTIONS],
            scratch: Scratch::default(),
        }
    }

    /// The model for `family`: the first of the agent's trained for it.
    fn model_for(&mut self, family: Family) -> Result<&Arc<Model>, Error> {
        let i = match self.current {
            Some((f, i)) if f == family => i,
            _ => {
                let Some(i) = self.models.iter().position(|m| m.covers(family)) else {
                    let mut err = self.models[0].check_family(family).unwrap_err();
                    if let Error::InvalidModel(e) = &mut err {
                        let files: Vec<_> = self.models.iter().map(|m| m.file()).collect();
                        e.file = files.join(", ");
                    }
                    return Err(err);
                };
                self.current = Some((family, i));
                i
            }
        };
        Ok(&self.models[i])
    }

    /// The model for the table `g` (the first half of a batched
    /// decision: the runner encodes the row, [`encode_row`], and
    /// evaluates it with others).
    pub(crate) fn model_for_game(&mut self, g: &Game) -> Result<Arc<Model>, Error> {
        self.model_for(g.rules().family).map(Arc::clone)
    }

    /// The decision from its row's logits (the second half of a batched
    /// decision): what [`Agent::decide`] plays.
    pub(crate) fn choose_from(&mut self, logits: &[f32], legal: ActionMask) -> Action {
        pick(logits, legal, self.temp, &mut self.rng)
    }

    /// The logits of the seat's decision into `self.logits`; returns the
    /// model's value in points.
    fn evaluate(&mut self, g: &Game, seat: u8) -> Result<f32, Error> {
        let model = self.model_for_game(g)?;
        self.row.resize(model.inputs(), 0.0);
        encode_row(&model, g, seat, &mut self.row);
        let mut value = [0f32];
        model.forward(&self.row, &mut self.logits, &mut value, &mut self.scratch)?;
        Ok(value[0] * model.header().value_scale)
    }

    /// Every legal action of the view's seat, best first by its logit
    /// (`value`; ties to the lowest action index, so the first is what
    /// greedy decoding plays), with the numbers `logit` and `probability`
    /// (softmax over the legal actions at the agent's temperature, 1 when
    /// greedy) and the position's `value` in expected points.
    pub fn rank(&mut self, view: &SeatView<'_>) -> Result<Vec<RankedAction>, Error> {
        let legal = view.legal();
        if legal.is_empty() {
            return Ok(vec![]);
        }
        let value = self.evaluate(view.game(), view.seat())?;
        let probs = softmax(&self.logits, legal, self.temp.unwrap_or(1.0));
        let mut ranked: Vec<RankedAction> = legal
            .iter()
            .zip(probs)
            .map(|(a, p)| {
                let l = f64::from(self.logits[a.index()]);
                RankedAction {
                    action: a,
                    value: l,
                    numbers: vec![
                        ("logit", l),
                        ("probability", p),
                        ("value", f64::from(value)),
                    ],
                }
            })
            .collect();
        // Stable: equal logits keep the index order.
        ranked.sort_by(|a, b| b.value.total_cmp(&a.value));
        Ok(ranked)
    }

    /// The decision from the logits in `self.logits`.
    fn choose(&mut self, legal: ActionMask) -> Action {
        let logits = std::mem::take(&mut self.logits);
        let a = self.choose_from(&logits, legal);
        self.logits = logits;
        a
    }
}

/// Writes the model's input row for `seat` of `g` into `row` (of the
/// model's [`Model::inputs`] values).
pub(crate) fn encode_row(model: &Model, g: &Game, seat: u8, row: &mut [f32]) {
    let enc = model.header().encoding;
    let planes = enc.len();
    encode::write(&GameView::new(g, seat), enc, &mut row[..planes]);
    let family = g.rules().family;
    for (x, &f) in row[planes..].iter_mut().zip(&model.header().extra_inputs) {
        *x = if f == family { 1.0 } else { 0.0 };
    }
}

/// Softmax of the legal actions' logits at temperature `t`, in the mask's
/// order (f64: the sum is taken once, in a fixed order).
fn softmax(logits: &[f32], legal: ActionMask, t: f32) -> Vec<f64> {
    let t = f64::from(t);
    let max = legal
        .iter()
        .map(|a| f64::from(logits[a.index()]))
        .fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = legal
        .iter()
        .map(|a| ((f64::from(logits[a.index()]) - max) / t).exp())
        .collect();
    let sum: f64 = e.iter().sum();
    e.into_iter().map(|x| x / sum).collect()
}

/// Greedy decoding (the highest legal logit, ties to the lowest index), or
/// a sample at temperature `temp` with one draw from `rng`. An empty mask
/// gets `Pass` (the game loop judges it).
pub(crate) fn pick(
    logits: &[f32],
    legal: ActionMask,
    temp: Option<f32>,
    rng: &mut SplitMix,
) -> Action {
    let Some(t) = temp else {
        let mut best: Option<(Action, f32)> = None;
        for a in legal.iter() {
            let l = logits[a.index()];
            if best.is_none_or(|(_, b)| l > b) {
                best = Some((a, l));
            }
        }
        return best.map_or(Action::Pass, |(a, _)| a);
    };
    let probs = softmax(logits, legal, t);
    // 53 random bits from two draws: a uniform in [0, 1).
    let u = ((u64::from(rng.next_u32()) << 21) ^ u64::from(rng.next_u32() >> 11)) as f64
        / (1u64 << 53) as f64;
    let mut acc = 0.0;
    let mut last = Action::Pass;
    for (a, p) in legal.iter().zip(probs) {
        acc += p;
        last = a;
        if u < acc {
            return a;
        }
    }
    last
}

impl Agent for NnAgent {
    /// [`Agent::decide`]'s action; a model that cannot play the table
    /// (its family) gets the fallback here, which is why the game loop
    /// asks `decide` (it stops the run with the error).
    fn act(&mut self, view: &SeatView<'_>) -> Action {
        match self.decide(view) {
            Ok(Answer::Action(a) | Answer::Faulted(a)) => a,
            _ => view.legal().fallback().unwrap_or(Action::Pass),
        }
    }

    fn decide(&mut self, view: &SeatView<'_>) -> Result<Answer, Error> {
        let legal = view.legal();
        if legal.is_empty() {
            return Ok(Answer::Action(Action::Pass));
        }
        self.evaluate(view.game(), view.seat())?;
        Ok(Answer::Action(self.choose(legal)))
    }

    fn decides(&self) -> bool {
        true
    }

    fn reset(&mut self, seed: u64) {
        self.rng = SplitMix(seed);
    }

    fn as_nn(&mut self) -> Option<&mut NnAgent> {
        Some(self)
    }
}
