//! The observation encodings as numpy arrays (`Observation.planes`,
//! `encoding_planes`) and `koudian.VecEnv`: conversion and GIL release
//! only; the encoder is `koudian_core::game::encode`, the tables
//! `koudian_core::vec_env`.

use crate::errors::{to_py, IllegalActionError, KoudianError, RulesetError};
use crate::ruleset::resolve;
use koudian_core::game::encode::{encode_into, encode_seat, Cell, Encoding, ENCODING_VERSION};
use koudian_core::game::{Game, Observation, N_ACTIONS};
use koudian_core::tile::KINDS;
use koudian_core::vec_env::{
    bad_num_envs, Buffers, Learners, OnIllegal, Shaping, VecEnv, MAX_ENVS,
};
use numpy::ndarray::Dimension;
use numpy::{Element, PyArray, PyArray1, PyArray2, PyArray3, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyTuple};
use std::sync::Mutex;

/// The array dtypes of the encodings.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    U8,
    F32,
}

/// `"uint8"` or `"float32"`.
pub fn dtype_of(name: &str) -> PyResult<Dtype> {
    match name {
        "uint8" => Ok(Dtype::U8),
        "float32" => Ok(Dtype::F32),
        _ => Err(KoudianError::new_err(format!(
            "dtype must be \"uint8\" or \"float32\", not {name:?}"
        ))),
    }
}

fn encoded<'py, T: Cell + Element>(
    py: Python<'py>,
    o: &Observation,
    enc: Encoding,
) -> PyResult<Bound<'py, PyAny>> {
    let a = PyArray2::<T>::zeros(py, [enc.n_planes(), KINDS], false);
    {
        let mut rw = a.readwrite();
        encode_into(o, enc, rw.as_slice_mut()?).map_err(to_py)?;
    }
    Ok(a.into_any())
}

/// `o` in encoding `version` as a `(P, 34)` array of `dtype`.
pub fn planes_array<'py>(
    py: Python<'py>,
    o: &Observation,
    version: u32,
    dtype: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let enc = Encoding::from_version(version).map_err(to_py)?;
    match dtype_of(dtype)? {
        Dtype::U8 => encoded::<u8>(py, o, enc),
        Dtype::F32 => encoded::<f32>(py, o, enc),
    }
}

fn encoded_seat<'py, T: Cell + Element>(
    py: Python<'py>,
    g: &Game,
    seat: u8,
    enc: Encoding,
) -> PyResult<Bound<'py, PyAny>> {
    let a = PyArray2::<T>::zeros(py, [enc.n_planes(), KINDS], false);
    {
        let mut rw = a.readwrite();
        encode_seat(g, seat, enc, rw.as_slice_mut()?).map_err(to_py)?;
    }
    Ok(a.into_any())
}

/// `seat`'s view of `g` in encoding `version` (3 included) as a `(P, 34)`
/// array of `dtype`.
pub fn seat_planes_array<'py>(
    py: Python<'py>,
    g: &Game,
    seat: u8,
    version: u32,
    dtype: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let enc = Encoding::from_version(version).map_err(to_py)?;
    match dtype_of(dtype)? {
        Dtype::U8 => encoded_seat::<u8>(py, g, seat, enc),
        Dtype::F32 => encoded_seat::<f32>(py, g, seat, enc),
    }
}

/// Number of planes of observation encoding `version` (1: 29, 2: 66, 3: 79).
#[pyfunction]
fn encoding_planes(version: u32) -> PyResult<usize> {
    Ok(Encoding::from_version(version).map_err(to_py)?.n_planes())
}

// ---------------------------------------------------------------- VecEnv

/// The observation arrays of one dtype, allocated once.
struct Arrays<T> {
    obs: Py<PyArray3<T>>,
    final_obs: Py<PyArray3<T>>,
}

impl<T: Cell + Element> Arrays<T> {
    fn new(py: Python<'_>, n: usize, planes: usize) -> PyResult<Arrays<T>> {
        Ok(Arrays {
            obs: zeros(py, &[n, planes, KINDS])?,
            final_obs: zeros(py, &[n, planes, KINDS])?,
        })
    }
}

/// A zeroed array of `shape` by `numpy.zeros`, so that an allocation that
/// fails is numpy's `MemoryError` (rust-numpy's `zeros` panics on it).
fn zeros<T: Element, D: Dimension>(py: Python<'_>, shape: &[usize]) -> PyResult<Py<PyArray<T, D>>> {
    let a = py
        .import("numpy")?
        .call_method1("zeros", (PyTuple::new(py, shape)?, T::get_dtype(py)))?;
    Ok(a.cast_into::<PyArray<T, D>>()?.unbind())
}

enum Obs {
    U8(Arrays<u8>),
    F32(Arrays<f32>),
}

/// The other output arrays, allocated once.
struct Common {
    masks: Py<PyArray2<bool>>,
    to_act: Py<PyArray1<i64>>,
    reward: Py<PyArray1<f32>>,
    terminated: Py<PyArray1<bool>>,
    truncated: Py<PyArray1<bool>>,
    final_deltas: Py<PyArray2<i64>>,
    fault: Py<PyArray1<bool>>,
}

/// What a call asks of the core.
enum Op<'a> {
    Reset(Option<u64>),
    Step(Actions<'a>, OnIllegal),
}

/// The actions of a step, as the caller's integer array holds them.
enum Actions<'a> {
    I64(&'a [i64]),
    I32(&'a [i32]),
}

/// Runs `op` on `env` with its buffers borrowed from the arrays and the
/// GIL released.
fn run<T: Cell + Element>(
    py: Python<'_>,
    env: &mut VecEnv,
    arrays: &Arrays<T>,
    c: &Common,
    op: Op<'_>,
) -> PyResult<()> {
    let mut obs = arrays.obs.bind(py).readwrite();
    let mut final_obs = arrays.final_obs.bind(py).readwrite();
    let mut masks = c.masks.bind(py).readwrite();
    let mut to_act = c.to_act.bind(py).readwrite();
    let mut reward = c.reward.bind(py).readwrite();
    let mut terminated = c.terminated.bind(py).readwrite();
    let mut final_deltas = c.final_deltas.bind(py).readwrite();
    let mut fault = c.fault.bind(py).readwrite();
    let mut out = Buffers {
        obs: obs.as_slice_mut()?,
        masks: masks.as_slice_mut()?,
        to_act: to_act.as_slice_mut()?,
        reward: reward.as_slice_mut()?,
        terminated: terminated.as_slice_mut()?,
        final_obs: final_obs.as_slice_mut()?,
        final_deltas: final_deltas.as_slice_mut()?,
        fault: fault.as_slice_mut()?,
    };
    py.detach(|| match op {
        Op::Reset(seed) => env.reset(seed, &mut out),
        Op::Step(Actions::I64(a), on) => env.step(a, on, &mut out),
        Op::Step(Actions::I32(a), on) => env.step(a, on, &mut out),
    })
    .map_err(to_py)
}

/// `N` tables stepped together in Rust (`koudian_core::vec_env`): the
/// arrays are allocated once and rewritten in place by every call.
#[pyclass(name = "VecEnv", module = "koudian")]
pub struct PyVecEnv {
    // A Mutex only to make the class Sync; `&mut self` methods use
    // `get_mut`, which never locks.
    inner: Mutex<VecEnv>,
    obs: Obs,
    c: Common,
    info: Py<PyDict>,
    on_illegal: OnIllegal,
    dtype: &'static str,
    opponents: String,
}

/// `num_envs`: an integer in `1..=MAX_ENVS` (the core's bound; a bool,
/// though an int to Python, is a mistake here). Values past a `u64` get
/// the core's message too, rather than pyo3's `OverflowError`.
fn num_envs_of(obj: &Bound<'_, PyAny>) -> PyResult<usize> {
    if is_bool(obj) {
        return Err(RulesetError::new_err(format!(
            "num_envs must be an integer from 1 to {MAX_ENVS}, got a bool ({})",
            show(obj)
        )));
    }
    match obj.extract::<u64>() {
        Ok(n) => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(obj.py()) => {
            Err(to_py(bad_num_envs(show(obj))))
        }
        Err(e) => Err(e),
    }
}

/// A Python or numpy bool (`numpy.bool`, `numpy.bool_` before numpy 2).
fn is_bool(obj: &Bound<'_, PyAny>) -> bool {
    obj.cast::<PyBool>().is_ok()
        || obj
            .get_type()
            .name()
            .is_ok_and(|n| n.to_str().is_ok_and(|n| n == "bool" || n == "bool_"))
}

/// `repr(obj)`, for the messages.
fn show(obj: &Bound<'_, PyAny>) -> String {
    obj.repr().map(|r| r.to_string()).unwrap_or_default()
}

/// `learners`: `"all"` or a seat number (not a bool).
fn learners_of(obj: &Bound<'_, PyAny>) -> PyResult<Learners> {
    if is_bool(obj) {
        return Err(RulesetError::new_err(format!(
            "learners must be \"all\" or a seat 0-3, got a bool ({})",
            show(obj)
        )));
    }
    if let Ok(s) = obj.extract::<String>() {
        if s == "all" {
            return Ok(Learners::All);
        }
    } else if let Ok(seat) = obj.extract::<i64>() {
        if let Ok(seat @ 0..=3) = u8::try_from(seat) {
            return Ok(Learners::Seat(seat));
        }
    }
    Err(RulesetError::new_err(format!(
        "learners must be \"all\" or a seat 0-3, got {}",
        show(obj)
    )))
}

/// `on_illegal`: `"raise"` or `"fallback"`.
fn on_illegal_of(name: &str) -> PyResult<OnIllegal> {
    match name {
        "raise" => Ok(OnIllegal::Error),
        "fallback" => Ok(OnIllegal::Fallback),
        _ => Err(KoudianError::new_err(format!(
            "on_illegal must be \"raise\" or \"fallback\", not {name:?}"
        ))),
    }
}

impl PyVecEnv {
    fn env_ref(&self) -> std::sync::MutexGuard<'_, VecEnv> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn call(&mut self, py: Python<'_>, op: Op<'_>) -> PyResult<()> {
        let env = match self.inner.get_mut() {
            Ok(e) => e,
            Err(poisoned) => poisoned.into_inner(),
        };
        match &self.obs {
            Obs::U8(a) => run(py, env, a, &self.c, op),
            Obs::F32(a) => run(py, env, a, &self.c, op),
        }
    }

    fn obs_array<'py>(&self, py: Python<'py>, last: bool) -> Bound<'py, PyAny> {
        match (&self.obs, last) {
            (Obs::U8(a), false) => a.obs.bind(py).clone().into_any(),
            (Obs::U8(a), true) => a.final_obs.bind(py).clone().into_any(),
            (Obs::F32(a), false) => a.obs.bind(py).clone().into_any(),
            (Obs::F32(a), true) => a.final_obs.bind(py).clone().into_any(),
        }
    }
}

#[pymethods]
impl PyVecEnv {
    /// The most tables one env holds (about 64 KiB each once playing, so
    /// at most about 4 GiB); more is refused. Make several envs for more.
    #[classattr]
    const MAX_ENVS: usize = MAX_ENVS;

    #[new]
    #[pyo3(signature = (
        rules, num_envs, *, learners = Learners::All, opponents = "greedy", seed = 0, threads = 0,
        obs_dtype = "uint8", encoding = ENCODING_VERSION, on_illegal = "raise",
        reward_shaping = None, shaping_scale = 1.0
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        rules: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = num_envs_of)] num_envs: usize,
        #[pyo3(from_py_with = learners_of)] learners: Learners,
        opponents: &str,
        #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
        #[pyo3(from_py_with = crate::ints::threads)] threads: usize,
        obs_dtype: &str,
        encoding: u32,
        on_illegal: &str,
        reward_shaping: Option<&str>,
        shaping_scale: f64,
    ) -> PyResult<Self> {
        let r = resolve(py, Some(rules))?;
        // The core refuses a count outside 1..=MAX_ENVS before anything
        // is allocated (the arrays below come after it).
        let n = num_envs;
        let enc = Encoding::from_version(encoding).map_err(to_py)?;
        let dtype = dtype_of(obs_dtype)?;
        if enc == Encoding::V1 && dtype == Dtype::U8 {
            return Err(KoudianError::new_err(
                "encoding version 1 is float32 only (plane 24 is a fraction)",
            ));
        }
        let on_illegal = on_illegal_of(on_illegal)?;
        let shaping = match reward_shaping {
            None => Shaping::Off,
            Some("shanten") => Shaping::Shanten(shaping_scale as f32),
            Some(other) => {
                return Err(KoudianError::new_err(format!(
                    "reward_shaping must be None or \"shanten\", not {other:?}"
                )))
            }
        };
        crate::numpy_ready(py)?;
        let mut env = py
            .detach(|| VecEnv::new(&r, n, learners, opponents, seed, threads, enc))
            .map_err(to_py)?;
        env.set_shaping(shaping).map_err(to_py)?;
        let p = enc.n_planes();
        let obs = match dtype {
            Dtype::U8 => Obs::U8(Arrays::new(py, n, p)?),
            Dtype::F32 => Obs::F32(Arrays::new(py, n, p)?),
        };
        let c = Common {
            masks: zeros(py, &[n, N_ACTIONS])?,
            to_act: zeros(py, &[n])?,
            reward: zeros(py, &[n])?,
            terminated: zeros(py, &[n])?,
            truncated: zeros(py, &[n])?,
            final_deltas: zeros(py, &[n, 4])?,
            fault: zeros(py, &[n])?,
        };
        let me = PyVecEnv {
            inner: Mutex::new(env),
            obs,
            c,
            info: PyDict::new(py).unbind(),
            on_illegal,
            dtype: if dtype == Dtype::U8 {
                "uint8"
            } else {
                "float32"
            },
            opponents: opponents.to_string(),
        };
        let info = me.info.bind(py);
        info.set_item("final_obs", me.obs_array(py, true))?;
        info.set_item("_final_obs", me.c.terminated.bind(py))?;
        info.set_item("final_deltas", me.c.final_deltas.bind(py))?;
        info.set_item("to_act", me.c.to_act.bind(py))?;
        info.set_item("fault", me.c.fault.bind(py))?;
        Ok(me)
    }

    /// Deals every table a new hand (`seed`: hand 0 of that master seed;
    /// `None`: each table's next hand) and returns `(obs, info)`.
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let seed = seed.map(crate::ints::seed).transpose()?;
        self.call(py, Op::Reset(seed))?;
        PyTuple::new(
            py,
            [
                self.obs_array(py, false),
                self.info.bind(py).clone().into_any(),
            ],
        )
    }

    /// Plays `actions` (an `(N,)` int64 or int32 array of dense action
    /// indices) and returns `(obs, reward, terminated, truncated, info)`.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let on = self.on_illegal;
        let strided = |_| {
            IllegalActionError::new_err("actions must be a contiguous array (np.ascontiguousarray)")
        };
        if let Ok(a) = actions.cast::<PyArray1<i64>>() {
            let a = a.readonly();
            let a = a.as_slice().map_err(strided)?;
            self.call(py, Op::Step(Actions::I64(a), on))?;
        } else if let Ok(a) = actions.cast::<PyArray1<i32>>() {
            let a = a.readonly();
            let a = a.as_slice().map_err(strided)?;
            self.call(py, Op::Step(Actions::I32(a), on))?;
        } else {
            return Err(IllegalActionError::new_err(format!(
                "actions must be a contiguous (N,) int64 or int32 numpy array, got {}",
                crate::tiles::type_name(actions)
            )));
        }
        PyTuple::new(
            py,
            [
                self.obs_array(py, false),
                self.c.reward.bind(py).clone().into_any(),
                self.c.terminated.bind(py).clone().into_any(),
                self.c.truncated.bind(py).clone().into_any(),
                self.info.bind(py).clone().into_any(),
            ],
        )
    }

    /// The legal-action masks `(N, 141)` of the seats to act.
    fn action_masks<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<bool>> {
        self.c.masks.bind(py).clone()
    }

    /// The observations `(N, P, 34)` of the last call.
    #[getter]
    fn obs<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.obs_array(py, false)
    }

    /// The seats to act `(N,)`.
    #[getter]
    fn to_act<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.c.to_act.bind(py).clone()
    }

    /// The rewards `(N,)` of the last step.
    #[getter]
    fn reward<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        self.c.reward.bind(py).clone()
    }

    /// Which tables' hands ended in the last step `(N,)`.
    #[getter]
    fn terminated<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.c.terminated.bind(py).clone()
    }

    /// Always false `(N,)`: a hand always ends.
    #[getter]
    fn truncated<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.c.truncated.bind(py).clone()
    }

    /// The final observations `(N, P, 34)` of the hands that ended
    /// (valid where `terminated`).
    #[getter]
    fn final_obs<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.obs_array(py, true)
    }

    /// The settlement deltas `(N, 4)` of the hands that ended (valid
    /// where `terminated`).
    #[getter]
    fn final_deltas<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i64>> {
        self.c.final_deltas.bind(py).clone()
    }

    /// Which tables played their fallback for an illegal action `(N,)`.
    #[getter]
    fn fault<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.c.fault.bind(py).clone()
    }

    /// Number of tables.
    #[getter]
    fn num_envs(&self) -> usize {
        self.env_ref().num_envs()
    }

    /// Number of observation planes.
    #[getter]
    fn n_planes(&self) -> usize {
        self.env_ref().encoding().n_planes()
    }

    /// The observation encoding's version.
    #[getter]
    fn encoding(&self) -> u32 {
        self.env_ref().encoding().version()
    }

    /// `"uint8"` or `"float32"`.
    #[getter]
    fn obs_dtype(&self) -> &'static str {
        self.dtype
    }

    /// `"all"` or the learner seat.
    #[getter]
    fn learners<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self.env_ref().learners() {
            Learners::All => "all".into_pyobject(py)?.into_any(),
            Learners::Seat(s) => s.into_pyobject(py)?.into_any(),
        })
    }

    /// The built-in agent of the other seats.
    #[getter]
    fn opponents(&self) -> &str {
        &self.opponents
    }

    /// Hands finished since construction (skipped ones included).
    #[getter]
    fn hands_finished(&self) -> u64 {
        self.env_ref().hands_finished()
    }

    /// The JSON Lines log of table `i`'s hand in play, or (`finished`) of
    /// the last hand that ended there; `koudian.replay` accepts both.
    #[pyo3(signature = (i, finished = false))]
    fn log(&self, i: usize, finished: bool) -> PyResult<String> {
        let env = self.env_ref();
        match env.game(i, finished).map_err(to_py)? {
            Some(g) => Ok(g.log()),
            None => Err(KoudianError::new_err(format!(
                "table {i} has not finished a hand yet"
            ))),
        }
    }

    fn __repr__(&self) -> String {
        let env = self.env_ref();
        format!(
            "VecEnv(num_envs={}, encoding={}, obs_dtype={:?})",
            env.num_envs(),
            env.encoding().version(),
            self.dtype
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(encoding_planes, m)?)?;
    m.add_class::<PyVecEnv>()?;
    Ok(())
}
