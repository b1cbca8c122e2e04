//! The table (`koudian.Game`), its actions, observations and results, the
//! native agents and matches: conversion only, every rule lives in
//! `koudian_core::game`.
//!
//! An `Observation` keeps a private link to its game and the game's move
//! count, so that a `NativeAgent` can act on it through the core's
//! `SeatView` (which shows only that seat's information) exactly as in
//! native self-play. The link is not reachable from Python.

use crate::errors::{to_py, IllegalActionError};
use crate::hand::{PyHand, PyMeldKind};
use crate::ruleset::{resolve, PyRuleset};
use crate::score::PySettlement;
use crate::tiles::{extract_tile, extract_tiles, tile_list, tile_obj, type_name};
use koudian_core::agent::{builtin, Agent, SeatView};
use koudian_core::game::{
    encode, replay as core_replay, replay_each as core_replay_each, Action, ActionMask, Deal,
    EndKind, Game, HandResult, Match, MatchLength, Observation, Pending, N_ACTIONS,
};
use koudian_core::score::Settlement;
use koudian_core::simulate::{pattern_tally, play_hand, simulate_with, win_patterns, HandRow};
use koudian_core::tile::{self, Tile};
use koudian_core::Error;
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyInt, PyList, PyString, PyTuple};

// ---------------------------------------------------------------- actions

/// One decision: `Action("discard", "5m")`, `Action("pass")`. The dense
/// index (`.index`, `Action.from_index`) is the RL action space.
#[pyclass(name = "Action", module = "koudian", frozen, eq, hash, from_py_object)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyAction {
    pub inner: Action,
}

static ACTIONS: PyOnceLock<Vec<Py<PyAction>>> = PyOnceLock::new();

/// The shared `Action` object of `a` (the 141 are built once).
pub fn action_obj<'py>(py: Python<'py>, a: Action) -> PyResult<Bound<'py, PyAction>> {
    let all = ACTIONS.get_or_try_init(py, || -> PyResult<Vec<Py<PyAction>>> {
        (0..N_ACTIONS)
            .map(|i| {
                let inner = Action::from_index(i).map_err(to_py)?;
                Py::new(py, PyAction { inner })
            })
            .collect()
    })?;
    Ok(all[a.index()].bind(py).clone())
}

fn action_list<'py>(py: Python<'py>, m: ActionMask) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for a in m.iter() {
        list.append(action_obj(py, a)?)?;
    }
    Ok(list)
}

fn mask_array<'py>(py: Python<'py>, m: ActionMask) -> Bound<'py, PyArray1<bool>> {
    PyArray1::from_slice(py, &m.to_bools())
}

fn parse_action(s: &str) -> PyResult<Action> {
    let mut parts = s.split_whitespace();
    let name = parts.next().unwrap_or("");
    let tile = parts
        .next()
        .map(|t| Tile::from_notation(t).map_err(to_py))
        .transpose()?;
    if parts.next().is_some() {
        return Err(IllegalActionError::new_err(format!(
            "action {s:?}: expected a name and at most one tile, e.g. \"discard 5m\""
        )));
    }
    Action::from_name(name, tile).map_err(to_py)
}

/// An action from an `Action`, a dense index, or text (`"discard 5m"`).
pub fn extract_action(obj: &Bound<'_, PyAny>) -> PyResult<Action> {
    if let Ok(a) = obj.cast::<PyAction>() {
        return Ok(a.get().inner);
    }
    if obj.cast::<pyo3::types::PyBool>().is_ok() {
        // `True` is an int to Python; as an action it is a mistake.
        return Err(IllegalActionError::new_err(
            "expected an Action, a dense index or text like \"discard 5m\", got a bool",
        ));
    }
    if obj.cast::<PyInt>().is_ok() {
        let i = crate::ints::action(obj)?;
        return usize::try_from(i)
            .map_err(|_| {
                IllegalActionError::new_err(format!(
                    "action index {i} is out of range 0..{N_ACTIONS}"
                ))
            })
            .and_then(|i| Action::from_index(i).map_err(to_py));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return parse_action(&crate::seq::utf8(s)?);
    }
    Err(IllegalActionError::new_err(format!(
        "expected an Action, a dense index or text like \"discard 5m\", got {}",
        type_name(obj)
    )))
}

#[pymethods]
impl PyAction {
    /// `Action(kind, tile=None)`: kind is `discard`, `ting`,
    /// `concealed_kong`, `added_kong` (these need a tile), `win`, `pong`,
    /// `kong`, `pass` or `leave`.
    #[new]
    #[pyo3(signature = (kind, tile = None))]
    fn new(
        #[pyo3(from_py_with = crate::seq::text)] kind: String,
        tile: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let t = tile.map(extract_tile).transpose()?;
        let inner = Action::from_name(&kind, t).map_err(to_py)?;
        if t.is_some() && inner.tile().is_none() {
            return Err(IllegalActionError::new_err(format!(
                "action {kind:?} takes no tile"
            )));
        }
        Ok(PyAction { inner })
    }

    /// The action of dense index `i` (`0..141`).
    #[staticmethod]
    fn from_index(
        py: Python<'_>,
        #[pyo3(from_py_with = crate::ints::action_index)] i: i64,
    ) -> PyResult<Bound<'_, PyAction>> {
        let i = usize::try_from(i).map_err(|_| {
            IllegalActionError::new_err(format!("action index {i} is out of range 0..{N_ACTIONS}"))
        })?;
        action_obj(py, Action::from_index(i).map_err(to_py)?)
    }

    /// An action from text: `"discard 5m"`, `"ting 7z"`, `"pass"`.
    #[staticmethod]
    fn parse<'py>(
        py: Python<'py>,
        #[pyo3(from_py_with = crate::seq::text)] s: String,
    ) -> PyResult<Bound<'py, PyAction>> {
        let s = s.as_str();
        action_obj(py, parse_action(s)?)
    }

    /// The action's type name (`discard`, `ting`, …).
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.name()
    }

    /// The tile it names, or None.
    #[getter]
    fn tile<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner.tile().map(|t| tile_obj(py, t)).transpose()
    }

    /// The dense index, `0..141`.
    #[getter]
    fn index(&self) -> usize {
        self.inner.index()
    }

    /// `{"action": kind, "tile": "5m"}` (no tile key when none), the
    /// external-bot protocol's form.
    #[pyo3(name = "to_json")]
    fn json_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("action", self.inner.name())?;
        if let Some(t) = self.inner.tile() {
            d.set_item("tile", t.to_string())?;
        }
        d.set_item("index", self.inner.index())?;
        Ok(d)
    }

    fn __int__(&self) -> usize {
        self.inner.index()
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        match self.inner.tile() {
            Some(t) => format!("Action({:?}, {:?})", self.inner.name(), t.to_string()),
            None => format!("Action({:?})", self.inner.name()),
        }
    }
}

// ---------------------------------------------------------- observations

/// A meld as an observer sees it.
#[pyclass(name = "SeenMeld", module = "koudian", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PySeenMeld {
    kind: PyMeldKind,
    tile: Option<Tile>,
    from_seat: Option<u8>,
}

#[pymethods]
impl PySeenMeld {
    /// Pong or which kong.
    #[getter]
    fn kind(&self) -> PyMeldKind {
        self.kind
    }
    /// The kind; None for another seat's concealed kong the ruleset hides.
    #[getter]
    fn tile<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.tile.map(|t| tile_obj(py, t)).transpose()
    }
    /// The seat whose discard was claimed, or None.
    #[getter(from_seat)]
    fn claimed_from(&self) -> Option<u8> {
        self.from_seat
    }
    fn __repr__(&self) -> String {
        format!(
            "SeenMeld({:?}, {}, from_seat={:?})",
            koudian_core::hand::MeldKind::from(self.kind),
            self.tile.map_or("hidden".to_string(), |t| t.to_string()),
            self.from_seat
        )
    }
}

/// A discard as an observer sees it.
#[pyclass(name = "SeenDiscard", module = "koudian", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PySeenDiscard {
    seat: u8,
    tile: Option<Tile>,
    face_down: bool,
    claimed: bool,
}

#[pymethods]
impl PySeenDiscard {
    /// Who discarded.
    #[getter]
    fn seat(&self) -> u8 {
        self.seat
    }
    /// The tile; None for another seat's face-down ting discard.
    #[getter]
    fn tile<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.tile.map(|t| tile_obj(py, t)).transpose()
    }
    /// A ting declaration's face-down discard.
    #[getter]
    fn face_down(&self) -> bool {
        self.face_down
    }
    /// Claimed into a meld.
    #[getter]
    fn claimed(&self) -> bool {
        self.claimed
    }
    fn __repr__(&self) -> String {
        format!(
            "SeenDiscard(seat={}, tile={}, face_down={}, claimed={})",
            self.seat,
            self.tile.map_or("hidden".to_string(), |t| t.to_string()),
            self.face_down,
            self.claimed
        )
    }
}

/// Number of observation planes (see `koudian.env` for the layout).
pub const N_PLANES: usize = encode::N_PLANES;

fn pending_name(p: Pending) -> &'static str {
    match p {
        Pending::None => "none",
        Pending::Turn => "turn",
        Pending::Discard { .. } => "discard",
        Pending::AddedKong { .. } => "added_kong",
    }
}

fn meld_kind_name(k: koudian_core::hand::MeldKind) -> &'static str {
    k.name()
}

/// What one seat may see: its own tiles and everything public; never
/// another seat's concealed tiles, face-down ting discard or (where the
/// ruleset hides it) concealed kong kind.
#[pyclass(name = "Observation", module = "koudian", frozen)]
pub struct PyObservation {
    pub(crate) inner: Observation,
    game: Option<Py<PyGame>>,
    moves: u64,
}

impl PyObservation {
    fn pending_parts(&self) -> (Option<u8>, Option<Tile>) {
        match self.inner.pending {
            Pending::Discard { from, tile } | Pending::AddedKong { from, tile } => {
                (Some(from), Some(tile))
            }
            _ => (None, None),
        }
    }
}

#[pymethods]
impl PyObservation {
    /// The observer.
    #[getter]
    fn seat(&self) -> u8 {
        self.inner.seat
    }
    /// The dealer.
    #[getter]
    fn dealer(&self) -> u8 {
        self.inner.dealer
    }
    /// The seat to act, None once the hand is over.
    #[getter]
    fn to_act(&self) -> Option<u8> {
        self.inner.to_act
    }
    /// What the observer is asked: `none`, `turn`, `discard` (answer a
    /// discard) or `added_kong` (rob it or pass).
    #[getter]
    fn pending(&self) -> &'static str {
        pending_name(self.inner.pending)
    }
    /// The discarder or konger the observer answers, or None.
    #[getter]
    fn pending_from(&self) -> Option<u8> {
        self.pending_parts().0
    }
    /// The tile the observer answers, or None.
    #[getter]
    fn pending_tile<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.pending_parts().1.map(|t| tile_obj(py, t)).transpose()
    }
    /// The observer's concealed tiles, sorted.
    #[getter]
    fn hand<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tile_list(py, tile::tiles_of(&self.inner.concealed))
    }
    /// The observer's concealed tiles as 34 counts (uint8).
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        PyArray1::from_slice(py, &self.inner.concealed)
    }
    /// The tile the observer just drew, on its turn.
    #[getter]
    fn drawn<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner.drawn.map(|t| tile_obj(py, t)).transpose()
    }
    /// Concealed tile count of every seat.
    #[getter]
    fn concealed_count<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.concealed_count)
    }
    /// Melds of every seat (a list per seat).
    #[getter]
    fn melds(&self) -> Vec<Vec<PySeenMeld>> {
        self.inner
            .melds
            .iter()
            .map(|seat| {
                seat.iter()
                    .flatten()
                    .map(|m| PySeenMeld {
                        kind: m.kind.into(),
                        tile: m.tile,
                        from_seat: m.from,
                    })
                    .collect()
            })
            .collect()
    }
    /// Who has declared ting.
    #[getter]
    fn ting<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.ting)
    }
    /// Every discard so far, in order.
    #[getter]
    fn discards(&self) -> Vec<PySeenDiscard> {
        self.inner
            .discards()
            .iter()
            .map(|d| PySeenDiscard {
                seat: d.seat,
                tile: d.tile,
                face_down: d.face_down,
                claimed: d.claimed,
            })
            .collect()
    }
    /// Tiles left in the wall, reserved ones included.
    #[getter]
    fn wall_remaining(&self) -> u8 {
        self.inner.wall_remaining
    }
    /// Tiles that may still be drawn.
    #[getter]
    fn live_remaining(&self) -> u8 {
        self.inner.live_remaining
    }
    /// Kongs made so far.
    #[getter]
    fn kongs(&self) -> u8 {
        self.inner.kongs
    }
    /// The wild kinds (耗子).
    #[getter]
    fn wilds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tile_list(py, self.inner.wilds.kinds())
    }
    /// Face-up tiles still in the wall (wildcard indicators), 34 counts.
    #[getter]
    fn face_up_in_wall<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        PyArray1::from_slice(py, &self.inner.face_up_in_wall)
    }
    /// Every tile the observer can see, 34 counts.
    #[getter]
    fn visible_counts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        PyArray1::from_slice(py, &self.inner.visible_counts())
    }
    /// False once a declined win (过胡) forbids winning on discards.
    #[getter]
    fn may_win_discards(&self) -> bool {
        self.inner.may_win_discards
    }
    /// The kinds a `pass_scope = "tile"` 过胡 lock forbids winning on.
    #[getter]
    fn locked_kinds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tile_list(
            py,
            Tile::all().filter(|t| self.inner.locked_kinds & (1 << t.index()) != 0),
        )
    }
    /// Running scores of the match.
    #[getter]
    fn scores<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.scores)
    }
    /// The observer's legal actions (empty unless it is to act).
    #[getter]
    fn legal_actions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        action_list(py, self.inner.legal)
    }
    /// The legal actions as a bool mask over the 141 dense indices.
    #[getter]
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        mask_array(py, self.inner.legal)
    }
    /// The observation as planes of shape `(P, 34)`: encoding `version`
    /// (1: the 29 float32 planes of `koudian.env`; 2: 66 planes, float32
    /// or uint8), as `dtype`.
    #[pyo3(signature = (version = 1, dtype = "float32"))]
    fn planes<'py>(
        &self,
        py: Python<'py>,
        version: u32,
        dtype: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::vec_env::planes_array(py, &self.inner, version, dtype)
    }
    /// The observation as plain JSON-ready data (the external-bot
    /// protocol's `observation`).
    fn to_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let o = &self.inner;
        let d = PyDict::new(py);
        let ts = |t: Option<Tile>| t.map(|t| t.to_string());
        d.set_item("seat", o.seat)?;
        d.set_item("dealer", o.dealer)?;
        d.set_item("to_act", o.to_act)?;
        let p = PyDict::new(py);
        let (from, tile) = self.pending_parts();
        p.set_item("kind", pending_name(o.pending))?;
        p.set_item("from", from)?;
        p.set_item("tile", ts(tile))?;
        d.set_item("pending", p)?;
        d.set_item("hand", tile::format_counts(&o.concealed))?;
        d.set_item("drawn", ts(o.drawn))?;
        d.set_item("concealed_count", o.concealed_count.map(u32::from).to_vec())?;
        let melds = PyList::empty(py);
        for seat in &o.melds {
            let l = PyList::empty(py);
            for m in seat.iter().flatten() {
                let md = PyDict::new(py);
                md.set_item("kind", meld_kind_name(m.kind))?;
                md.set_item("tile", ts(m.tile))?;
                md.set_item("from", m.from)?;
                l.append(md)?;
            }
            melds.append(l)?;
        }
        d.set_item("melds", melds)?;
        d.set_item("ting", o.ting.to_vec())?;
        let discards = PyList::empty(py);
        for x in o.discards() {
            let xd = PyDict::new(py);
            xd.set_item("seat", x.seat)?;
            xd.set_item("tile", ts(x.tile))?;
            xd.set_item("face_down", x.face_down)?;
            xd.set_item("claimed", x.claimed)?;
            discards.append(xd)?;
        }
        d.set_item("discards", discards)?;
        d.set_item("wall_remaining", o.wall_remaining)?;
        d.set_item("live_remaining", o.live_remaining)?;
        d.set_item("kongs", o.kongs)?;
        let wilds: Vec<String> = o.wilds.kinds().map(|t| t.to_string()).collect();
        d.set_item("wilds", wilds)?;
        d.set_item("face_up_in_wall", tile::format_counts(&o.face_up_in_wall))?;
        d.set_item("may_win_discards", o.may_win_discards)?;
        let locked: Vec<String> = Tile::all()
            .filter(|t| o.locked_kinds & (1 << t.index()) != 0)
            .map(|t| t.to_string())
            .collect();
        d.set_item("locked_kinds", locked)?;
        d.set_item("scores", o.scores.to_vec())?;
        Ok(d)
    }
    /// The table as this seat sees it, as text (the core's rendering).
    fn __str__(&self) -> String {
        self.inner.to_string()
    }
    fn __repr__(&self) -> String {
        format!("<Observation {}>", self.inner.summary())
    }
}

// ---------------------------------------------------------------- results

/// How a hand ended, and its settlement.
#[pyclass(name = "GameResult", module = "koudian", frozen)]
pub struct PyGameResult {
    inner: HandResult,
    settlement: Option<Settlement>,
}

#[pymethods]
impl PyGameResult {
    /// `win`, `exhausted` (荒庄), `kong_draw` (Linxian) or `left` (逃跑).
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind.name()
    }
    /// The winning seats (several only in Sichuan).
    #[getter]
    fn winners(&self) -> Vec<u32> {
        // Not `Vec<u8>`: pyo3 turns that into `bytes`.
        self.inner.winner_seats().map(u32::from).collect()
    }
    /// The winning tile (None for 天胡 and hands without a winner).
    #[getter]
    fn tile<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner.tile.map(|t| tile_obj(py, t)).transpose()
    }
    /// The discarder (or robbed konger) who dealt in, None on a self-draw.
    #[getter(from_seat)]
    fn claimed_from(&self) -> Option<u8> {
        self.inner.from
    }
    /// Won by self-draw (杠上开花 included).
    #[getter]
    fn self_draw(&self) -> bool {
        self.inner.self_draw
    }
    /// Won by robbing an added kong (抢杠).
    #[getter]
    fn robbed_kong(&self) -> bool {
        self.inner.robbed_kong
    }
    /// Won on the replacement tile of this kind of kong (杠上开花).
    #[getter]
    fn replacement(&self) -> Option<PyMeldKind> {
        self.inner.replacement.map(Into::into)
    }
    /// 天胡.
    #[getter]
    fn heavenly(&self) -> bool {
        self.inner.heavenly
    }
    /// 地胡.
    #[getter]
    fn earthly(&self) -> bool {
        self.inner.earthly
    }
    /// Who left (逃跑), or None.
    #[getter]
    fn leaver(&self) -> Option<u8> {
        self.inner.leaver
    }
    /// Who had declared ting at the end.
    #[getter]
    fn ting<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.ting)
    }
    /// The dealer of the hand.
    #[getter]
    fn dealer(&self) -> u8 {
        self.inner.dealer
    }
    /// Whether any kong was made.
    #[getter]
    fn any_kong(&self) -> bool {
        self.inner.any_kong
    }
    /// Score change of each seat (zero-sum).
    #[getter]
    fn deltas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.deltas)
    }
    /// The itemized settlement (None only if the scorer objected, which
    /// the core's soak test rules out).
    #[getter]
    fn settlement(&self) -> Option<PySettlement> {
        self.settlement.clone().map(|inner| PySettlement { inner })
    }
    fn __repr__(&self) -> String {
        let w: Vec<u8> = self.inner.winner_seats().collect();
        format!(
            "<GameResult {} winners={:?} deltas={:?}>",
            self.inner.kind.name(),
            w,
            self.inner.deltas
        )
    }
}

// ------------------------------------------------------------------- game

/// The `scores` argument of `set_scores`: 4 integers that fit 64 bits.
fn scores_arg(obj: &Bound<'_, PyAny>) -> PyResult<[i64; 4]> {
    let bad = || {
        crate::errors::KoudianError::new_err(
            "scores must be 4 integers in -2**63..2**63, one per seat",
        )
    };
    let items = crate::seq::bounded(obj, 5, "scores")?;
    if items.len() != 4 {
        return Err(bad());
    }
    let mut out = [0i64; 4];
    for (slot, x) in out.iter_mut().zip(&items) {
        if x.cast::<PyInt>().is_err() {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "scores must be integers, got {}",
                type_name(x)
            )));
        }
        *slot = x.extract().map_err(|_| bad())?;
    }
    Ok(out)
}

pub(crate) fn seat_arg(seat: i64) -> PyResult<u8> {
    // A bad argument, not an illegal move: KoudianError (a ValueError).
    u8::try_from(seat).ok().filter(|&s| s < 4).ok_or_else(|| {
        crate::errors::KoudianError::new_err(format!("seat {seat} does not exist (seats are 0-3)"))
    })
}

fn wilds_arg(wilds: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<Tile>>> {
    wilds.map(extract_tiles).transpose()
}

/// One hand at the table, from the deal to the settlement.
///
/// `Game(rules, seed=0, dealer=None, wall=None, wilds=None)`: dealt from
/// the seeded RNG, or from a prepared `wall` (all tiles in drawing order;
/// `wilds` names the wild kinds of a wildcard ruleset).
#[pyclass(name = "Game", module = "koudian")]
pub struct PyGame {
    pub inner: Game,
    moves: u64,
}

impl PyGame {
    /// The scorer's objection to the finished hand, as its exception.
    fn settled(&self) -> PyResult<()> {
        match self.inner.settlement_error() {
            Some(e) => Err(to_py(e.clone())),
            None => Ok(()),
        }
    }

    fn wrap(inner: Game) -> PyGame {
        PyGame { inner, moves: 0 }
    }

    fn seat_or_to_act(&self, seat: Option<i64>) -> PyResult<Option<u8>> {
        match seat {
            Some(s) => seat_arg(s).map(Some),
            None => Ok(self.inner.to_act()),
        }
    }

    fn legal_for(&self, seat: Option<i64>) -> PyResult<ActionMask> {
        Ok(match self.seat_or_to_act(seat)? {
            Some(s) => self.inner.legal_actions_for(s),
            None => ActionMask::EMPTY,
        })
    }
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (rules = None, *, seed = 0, dealer = None, wall = None, wilds = None, record = true))]
    fn new(
        py: Python<'_>,
        rules: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
        #[pyo3(from_py_with = crate::ints::opt_dealer)] dealer: Option<i64>,
        wall: Option<&Bound<'_, PyAny>>,
        wilds: Option<&Bound<'_, PyAny>>,
        record: bool,
    ) -> PyResult<Self> {
        let r = resolve(py, rules)?;
        let dealer = dealer.map(seat_arg).transpose()?;
        let mut g = match wall {
            None => {
                if wilds.is_some() {
                    return Err(IllegalActionError::new_err(
                        "wilds= is for a prepared wall; a seeded deal chooses its own",
                    ));
                }
                Game::new(&r, seed, dealer).map_err(to_py)?
            }
            Some(w) => {
                let tiles = extract_tiles(w)?;
                let wl = wilds_arg(wilds)?;
                let deal = Deal::prepared(&r, &tiles, dealer.unwrap_or(0), wl.as_deref())
                    .map_err(to_py)?;
                Game::from_deal(&r, deal).map_err(to_py)?
            }
        };
        g.set_recording(record);
        Ok(PyGame::wrap(g))
    }

    /// A game from the tiles that matter in a test or puzzle: each seat's
    /// starting tiles (14 for the dealer, 13 for the others), the tiles
    /// drawn from the front after the deal and from the back (kong
    /// replacements), in order; the rest of the wall in kind order.
    #[staticmethod]
    #[pyo3(signature = (hands, front = String::new(), back = String::new(), *, dealer = 0, rules = None, wilds = None))]
    fn arranged(
        py: Python<'_>,
        hands: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = crate::seq::text)] front: String,
        #[pyo3(from_py_with = crate::seq::text)] back: String,
        #[pyo3(from_py_with = crate::ints::dealer)] dealer: i64,
        rules: Option<&Bound<'_, PyAny>>,
        wilds: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let r = resolve(py, rules)?;
        let hands = crate::seq::bounded(hands, 5, "hands")?
            .iter()
            .map(crate::seq::text)
            .collect::<PyResult<Vec<String>>>()?;
        let h: [&str; 4] = match hands.as_slice() {
            [a, b, c, d] => [a, b, c, d],
            _ => {
                return Err(crate::errors::InvalidHandError::new_err(format!(
                    "hands must list 4 seats' tiles, got {}",
                    hands.len()
                )))
            }
        };
        let wl = wilds_arg(wilds)?;
        let deal = Deal::arranged(&r, h, &front, &back, seat_arg(dealer)?, wl.as_deref())
            .map_err(to_py)?;
        Ok(PyGame::wrap(Game::from_deal(&r, deal).map_err(to_py)?))
    }

    /// The seat to act, None once the hand is over.
    #[getter]
    fn to_act(&self) -> Option<u8> {
        self.inner.to_act()
    }

    /// Whether the hand is over.
    #[getter]
    fn done(&self) -> bool {
        self.inner.is_over()
    }

    /// The seed, or None for a prepared wall.
    #[getter]
    fn seed(&self) -> Option<u64> {
        self.inner.seed()
    }

    /// The dealer.
    #[getter]
    fn dealer(&self) -> u8 {
        self.inner.dealer()
    }

    /// The wild kinds of the hand.
    #[getter]
    fn wilds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tile_list(py, self.inner.wilds().kinds())
    }

    /// The ruleset.
    #[getter]
    fn rules(&self) -> PyRuleset {
        PyRuleset {
            inner: self.inner.rules().clone(),
        }
    }

    /// Running totals shown in observations.
    #[getter]
    fn scores<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.scores())
    }

    /// Sets the running totals shown in observations.
    fn set_scores(&mut self, #[pyo3(from_py_with = scores_arg)] scores: [i64; 4]) {
        self.inner.set_scores(scores);
    }

    /// Tiles left in the wall, reserved ones included.
    #[getter]
    fn wall_remaining(&self) -> usize {
        self.inner.wall().remaining()
    }

    /// Tiles that may still be drawn.
    #[getter]
    fn live_remaining(&self) -> usize {
        self.inner.live_tiles()
    }

    /// Actions played so far by this object (steps and leaves).
    #[getter]
    fn moves(&self) -> u64 {
        self.moves
    }

    /// The legal actions of `seat` (default: the seat to act), in dense
    /// index order; empty for a seat that is not to act.
    #[pyo3(signature = (seat = None))]
    fn legal_actions<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = crate::ints::opt_seat)] seat: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        action_list(py, self.legal_for(seat)?)
    }

    /// The legal actions of `seat` as a bool mask over the 141 indices.
    #[pyo3(signature = (seat = None))]
    fn legal_mask<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = crate::ints::opt_seat)] seat: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        Ok(mask_array(py, self.legal_for(seat)?))
    }

    /// The table of `observation` (the seat to act's) with `hidden`
    /// filling in what that seat cannot see, checked for consistency.
    #[staticmethod]
    #[pyo3(signature = (observation, hidden, *, rules = None, seed = None))]
    fn from_observation(
        py: Python<'_>,
        observation: PyRef<'_, PyObservation>,
        hidden: PyRef<'_, crate::position::PyHidden>,
        rules: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::ints::opt_seed)] seed: Option<u64>,
    ) -> PyResult<PyGame> {
        let g = crate::position::rebuild(py, rules, &observation.inner, &hidden.inner, seed)?;
        Ok(PyGame::wrap(g))
    }

    /// The true completion of what `seat` cannot see at this table.
    fn hidden(
        &self,
        #[pyo3(from_py_with = crate::ints::seat)] seat: i64,
    ) -> PyResult<crate::position::PyHidden> {
        Ok(crate::position::PyHidden {
            inner: self.inner.hidden(seat_arg(seat)?),
        })
    }

    /// What `seat` may see.
    fn observe(
        slf: &Bound<'_, Self>,
        #[pyo3(from_py_with = crate::ints::seat)] seat: i64,
    ) -> PyResult<PyObservation> {
        let s = seat_arg(seat)?;
        let g = slf.borrow();
        Ok(PyObservation {
            inner: g.inner.observe(s),
            game: Some(slf.clone().unbind()),
            moves: g.moves,
        })
    }

    /// Plays `action` (an `Action`, a dense index or text like
    /// `"discard 5m"`) for the seat to act. Raises `IllegalActionError`
    /// naming the reason, and changes nothing, if it is not legal.
    fn step(&mut self, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let a = extract_action(action)?;
        self.inner.step(a).map_err(to_py)?;
        self.moves += 1;
        Ok(())
    }

    /// Linxian 逃跑: `seat` abandons the hand, at any moment.
    fn leave(&mut self, #[pyo3(from_py_with = crate::ints::seat)] seat: i64) -> PyResult<()> {
        self.inner.leave(seat_arg(seat)?).map_err(to_py)?;
        self.moves += 1;
        Ok(())
    }

    /// The result with its settlement, once the hand is over, else None.
    /// Raises the scorer's error if the finished hand could not be
    /// settled (never zero deltas in silence).
    #[getter]
    fn result(&self) -> PyResult<Option<PyGameResult>> {
        self.settled()?;
        Ok(self.inner.result().map(|r| PyGameResult {
            inner: *r,
            settlement: self.inner.settlement().cloned(),
        }))
    }

    /// The distinct patterns (`"中文 english"`) of each winner's hand,
    /// as `(seat, names)` pairs; empty unless the hand was won.
    fn win_patterns(&self) -> Vec<(u8, Vec<String>)> {
        win_patterns(&self.inner)
    }

    /// The settlement, once the hand is over (raises as `result` does).
    #[getter]
    fn settlement(&self) -> PyResult<Option<PySettlement>> {
        self.settled()?;
        Ok(self
            .inner
            .settlement()
            .cloned()
            .map(|inner| PySettlement { inner }))
    }

    /// The event log as JSON Lines (holds hidden information: it is the
    /// referee's record).
    #[getter]
    fn log(&self) -> String {
        self.inner.log()
    }

    /// A seat's full hand (hidden information: for logging and debugging,
    /// never for agents).
    fn hand(&self, #[pyo3(from_py_with = crate::ints::seat)] seat: i64) -> PyResult<PyHand> {
        Ok(PyHand {
            inner: *self.inner.hand(seat_arg(seat)?),
        })
    }

    /// Every tile's whereabouts by kind (always 4 per kind in play).
    fn tile_census<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        PyArray1::from_slice(py, &self.inner.tile_census())
    }

    /// An independent copy of the game.
    fn copy(&self) -> PyGame {
        PyGame {
            inner: self.inner.clone(),
            moves: self.moves,
        }
    }

    fn __copy__(&self) -> PyGame {
        self.copy()
    }

    fn __repr__(&self) -> String {
        format!(
            "<Game seed={} dealer={} to_act={} done={}>",
            self.inner
                .seed()
                .map_or("None".to_string(), |s| s.to_string()),
            self.inner.dealer(),
            self.inner
                .to_act()
                .map_or("None".to_string(), |s| s.to_string()),
            self.inner.is_over()
        )
    }
}

/// Rebuilds a game from its log, checking every line comes out identical.
#[pyfunction]
fn replay(#[pyo3(from_py_with = crate::seq::text)] log: String) -> PyResult<PyGame> {
    let log = log.as_str();
    let hands = koudian_core::game::log_hands(log);
    if hands > 1 {
        return Err(crate::errors::InvalidLogError::new_err(format!(
            "this log holds {hands} hands; use koudian.read_logs(path) to read a \
             multi-hand log (a koudian simulate --log file) hand by hand, and replay \
             one hand's log at a time"
        )));
    }
    Ok(PyGame::wrap(core_replay(log).map_err(to_py)?))
}

/// Replays a log like `replay`, returning the game after the deal and
/// after every chosen action (independent copies, in order): the states a
/// viewer steps through.
#[pyfunction]
fn replay_steps(py: Python<'_>, log: &str) -> PyResult<Vec<PyGame>> {
    let mut states = Vec::new();
    py.detach(|| core_replay_each(log, |g| states.push(g.clone())))
        .map_err(to_py)?;
    Ok(states.into_iter().map(PyGame::wrap).collect())
}

/// The seed derivation of matches and self-play: SplitMix64 of
/// `(seed, index)`.
#[pyfunction]
fn mix_seed(
    #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
    #[pyo3(from_py_with = crate::ints::index)] index: u64,
) -> u64 {
    koudian_core::game::mix_seed(seed, index)
}

// ----------------------------------------------------------------- agents

/// A built-in agent of the Rust core (`"random"`, `"greedy"`, …), usable
/// from Python: `act(observation)` plays what native self-play would.
#[pyclass(name = "NativeAgent", module = "koudian")]
pub struct PyNativeAgent {
    // A Mutex only to make the class Sync; `&mut self` methods use
    // `get_mut`, which never locks.
    inner: std::sync::Mutex<Box<dyn Agent>>,
    name: String,
}

impl PyNativeAgent {
    fn agent(&mut self) -> &mut Box<dyn Agent> {
        match self.inner.get_mut() {
            Ok(a) => a,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

#[pymethods]
impl PyNativeAgent {
    #[new]
    #[pyo3(signature = (name, seed = 0))]
    fn new(
        #[pyo3(from_py_with = crate::seq::text)] name: String,
        #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
    ) -> PyResult<Self> {
        let name = name.as_str();
        Ok(PyNativeAgent {
            inner: std::sync::Mutex::new(builtin(name, seed).map_err(to_py)?),
            name: name.to_string(),
        })
    }

    /// The built-in name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// Reseeds the agent (native self-play does this before every hand).
    fn reset(&mut self, #[pyo3(from_py_with = crate::ints::seed)] seed: u64) {
        self.agent().reset(seed);
    }

    /// The action for an observation taken from a `Game` that has not
    /// moved since. `legal_actions` is accepted so that a `NativeAgent`
    /// is an `Agent` (`act(observation, legal_actions)`); the core agent
    /// reads the legal actions from the game itself.
    #[pyo3(signature = (observation, legal_actions = None))]
    fn act<'py>(
        &mut self,
        py: Python<'py>,
        observation: &Bound<'py, PyObservation>,
        legal_actions: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAction>> {
        let _ = legal_actions;
        let o = observation.get();
        let game = o.game.as_ref().ok_or_else(|| {
            IllegalActionError::new_err("native agents act on observations taken from a Game")
        })?;
        let g = game
            .bind(py)
            .try_borrow()
            .map_err(|_| IllegalActionError::new_err("the observation's game is being changed"))?;
        if g.moves != o.moves {
            return Err(IllegalActionError::new_err(
                "the observation is stale: its game has moved on since it was taken",
            ));
        }
        if g.inner.legal_actions_for(o.inner.seat).is_empty() {
            return Err(IllegalActionError::new_err(format!(
                "seat {} has no legal action now (it is not to act, or the hand is over)",
                o.inner.seat
            )));
        }
        let a = self.agent().act(&SeatView::new(&g.inner, o.inner.seat));
        action_obj(py, a)
    }

    fn __repr__(&self) -> String {
        format!("NativeAgent({:?})", self.name)
    }
}

// ----------------------------------------------------------------- matches

/// The core's match bookkeeping (hand seeds, dealer rotation, totals);
/// `koudian.Match` drives it with agents.
#[pyclass(name = "MatchState", module = "koudian")]
pub struct PyMatchState {
    inner: Match,
}

#[pymethods]
impl PyMatchState {
    #[new]
    #[pyo3(signature = (rules = None, *, seed = 0, hands = None, rounds = None))]
    fn new(
        py: Python<'_>,
        rules: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
        #[pyo3(from_py_with = crate::ints::hands_u32)] hands: Option<u32>,
        #[pyo3(from_py_with = crate::ints::rounds)] rounds: Option<u32>,
    ) -> PyResult<Self> {
        let length = match (hands, rounds) {
            (Some(h), None) => MatchLength::Hands(h),
            (None, Some(r)) => MatchLength::Rounds(r),
            (None, None) => MatchLength::Hands(1),
            (Some(_), Some(_)) => {
                return Err(crate::errors::RulesetError::new_err(
                    "give hands= or rounds=, not both",
                ))
            }
        };
        Ok(PyMatchState {
            inner: Match::new(&resolve(py, rules)?, seed, length).map_err(to_py)?,
        })
    }

    /// Whether the match is over.
    #[getter]
    fn done(&self) -> bool {
        self.inner.is_over()
    }

    /// The next hand (running totals set), or None when the match is over;
    /// dealt from `seed` when one is given (a server's keyed hand seed:
    /// the match's own hand seeds give each other away), else from the
    /// match's own hand seed.
    #[pyo3(signature = (record = true, *, seed = None))]
    fn next_game(
        &mut self,
        record: bool,
        #[pyo3(from_py_with = crate::ints::opt_seed)] seed: Option<u64>,
    ) -> PyResult<Option<PyGame>> {
        let next = match seed {
            Some(s) => self.inner.next_game_from(s),
            None => self.inner.next_game(),
        };
        Ok(next.map_err(to_py)?.map(|mut g| {
            g.set_recording(record);
            PyGame::wrap(g)
        }))
    }

    /// Records a finished hand: totals, hand count, next dealer.
    fn record(&mut self, game: &PyGame) -> PyResult<()> {
        self.inner.record(&game.inner).map_err(to_py)
    }

    /// Running totals.
    #[getter]
    fn totals<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.totals())
    }

    /// Hands played.
    #[getter]
    fn hands_played(&self) -> u32 {
        self.inner.hands_played()
    }

    /// The dealer of the next hand (None before the first).
    #[getter]
    fn dealer(&self) -> Option<u8> {
        self.inner.dealer()
    }
}

// --------------------------------------------------------------- simulate

/// The `agents` argument: a sequence of names (4 are required; one more
/// is read to tell a longer sequence).
fn agent_names(obj: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    crate::seq::bounded(obj, 5, "agents")?
        .iter()
        .map(crate::seq::text)
        .collect()
}

fn agents_of(names: &[String], seed: u64) -> Result<[Box<dyn Agent>; 4], Error> {
    Ok([
        builtin(&names[0], seed)?,
        builtin(&names[1], seed)?,
        builtin(&names[2], seed)?,
        builtin(&names[3], seed)?,
    ])
}

pub(crate) fn check_agents(names: &[String]) -> PyResult<()> {
    if names.len() != 4 {
        return Err(crate::errors::RulesetError::new_err(format!(
            "give 4 agents, one per seat; got {}",
            names.len()
        )));
    }
    agents_of(names, 0).map(|_| ()).map_err(to_py)
}

fn end_code(k: EndKind) -> u8 {
    koudian_core::record::end_code(k)
}

fn arr2<'py, T: numpy::Element + Copy>(
    py: Python<'py>,
    v: Vec<T>,
    n: usize,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    PyArray1::from_vec(py, v).reshape([n, 4])
}

/// Native self-play of games `start .. start + hands` of the run with
/// master seed `seed` (game `i`: seed `mix_seed(seed, i)`, dealer `i % 4`,
/// agents reset with `mix_seed(game seed, 1 + seat)`), on `threads`
/// threads (0: all cores) with the GIL released: the core's
/// `simulate_with`, whose threads take games as they become free and
/// whose results come back in game order, so the result never depends on
/// `threads`. Returns a dict of numpy arrays, one row per game.
#[pyfunction]
#[pyo3(signature = (rules, agents, hands, *, seed = 0, threads = 0, start = 0))]
fn simulate_native<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = agent_names)] agents: Vec<String>,
    #[pyo3(from_py_with = crate::ints::hands_u64)] hands: u64,
    #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
    #[pyo3(from_py_with = crate::ints::threads)] threads: usize,
    #[pyo3(from_py_with = crate::ints::start)] start: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let r = resolve(py, Some(rules))?;
    check_agents(&agents)?;
    let end = start
        .checked_add(hands)
        .ok_or_else(|| crate::errors::RulesetError::new_err("start + hands overflows"))?;
    crate::numpy_ready(py)?;
    let rows = py
        .detach(|| {
            simulate_with(
                &r,
                start..end,
                seed,
                threads,
                |s| builtin(&agents[s], 0),
                HandRow::of,
            )
        })
        .map_err(to_py)?;
    summary_dict(py, &rows)
}

/// The dict of numpy arrays `simulate_native` returns for `rows`.
pub(crate) fn summary_dict<'py>(py: Python<'py>, rows: &[HandRow]) -> PyResult<Bound<'py, PyDict>> {
    let n = rows.len();
    let sums = || rows.iter().map(|x| &x.summary);
    let kind: Vec<u8> = sums().map(|s| end_code(s.kind)).collect();
    let winners: Vec<bool> = sums().flat_map(|s| s.winners).collect();
    let self_draw: Vec<bool> = sums().map(|s| s.self_draw).collect();
    let from: Vec<i8> = sums().map(|s| s.from.map_or(-1, |f| f as i8)).collect();
    let dealer: Vec<u8> = sums().map(|s| s.dealer).collect();
    let ting: Vec<bool> = sums().flat_map(|s| s.ting).collect();
    let deltas: Vec<i64> = sums().flat_map(|s| s.deltas).collect();
    let baohu: Vec<i64> = rows.iter().flat_map(|x| x.baohu).collect();
    let decisions: Vec<u32> = sums().map(|s| s.decisions).collect();
    let faults: Vec<bool> = sums().map(|s| s.agent_fault).collect();
    let patterns = pattern_tally(rows);
    let d = PyDict::new(py);
    d.set_item("kind", PyArray1::from_vec(py, kind))?;
    d.set_item("winners", arr2(py, winners, n)?)?;
    d.set_item("self_draw", PyArray1::from_vec(py, self_draw))?;
    d.set_item("from_seat", PyArray1::from_vec(py, from))?;
    d.set_item("dealer", PyArray1::from_vec(py, dealer))?;
    d.set_item("ting", arr2(py, ting, n)?)?;
    d.set_item("deltas", arr2(py, deltas, n)?)?;
    d.set_item("baohu", arr2(py, baohu, n)?)?;
    d.set_item("decisions", PyArray1::from_vec(py, decisions))?;
    d.set_item("faults", PyArray1::from_vec(py, faults))?;
    d.set_item("patterns", patterns)?;
    Ok(d)
}

/// The logs of native self-play of games `start .. start + hands` (same
/// seeds as `simulate_native`), played one after another with recording
/// on.
#[pyfunction]
#[pyo3(signature = (rules, agents, hands, *, seed = 0, start = 0))]
fn simulate_logs(
    py: Python<'_>,
    rules: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = agent_names)] agents: Vec<String>,
    #[pyo3(from_py_with = crate::ints::hands_u64)] hands: u64,
    #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
    #[pyo3(from_py_with = crate::ints::start)] start: u64,
) -> PyResult<Vec<String>> {
    let r = resolve(py, Some(rules))?;
    check_agents(&agents)?;
    let end = start
        .checked_add(hands)
        .ok_or_else(|| crate::errors::RulesetError::new_err("start + hands overflows"))?;
    py.detach(|| {
        let mut a = agents_of(&agents, 0)?;
        (start..end)
            .map(|i| {
                play_hand(
                    &r,
                    koudian_core::game::mix_seed(seed, i),
                    Some((i % 4) as u8),
                    &mut a,
                    true,
                )
                .map(|(g, _, _)| g.log())
            })
            .collect::<Result<Vec<String>, Error>>()
    })
    .map_err(to_py)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyAction>()?;
    m.add_class::<PySeenMeld>()?;
    m.add_class::<PySeenDiscard>()?;
    m.add_class::<PyObservation>()?;
    m.add_class::<PyGameResult>()?;
    m.add_class::<PyGame>()?;
    m.add_class::<PyNativeAgent>()?;
    m.add_class::<PyMatchState>()?;
    m.add("N_ACTIONS", N_ACTIONS)?;
    m.add("N_PLANES", N_PLANES)?;
    m.add("ENCODING_VERSION", encode::ENCODING_VERSION)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(replay_steps, m)?)?;
    m.add_function(wrap_pyfunction!(mix_seed, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_native, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_logs, m)?)?;
    Ok(())
}
