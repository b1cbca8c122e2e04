//! What one seat may see (`koudian.Observation`, with its `SeenMeld`s
//! and `SeenDiscard`s): conversion only; the wire format of `to_json` is
//! the core's `Observation::to_json`.
//!
//! An `Observation` keeps a private link to its game and the game's move
//! count (`Game::moves`), so that a `NativeAgent` can act on it through
//! the core's `SeatView` (which shows only that seat's information)
//! exactly as in native self-play. The link is not reachable from Python.

use crate::action::{action_list, mask_array};
use crate::errors::KoudianError;
use crate::game::PyGame;
use crate::hand::PyMeldKind;
use crate::tiles::{tile_list, tile_obj};
use koudian_core::game::{encode, Observation};
use koudian_core::tile::{self, Tile};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyTuple};

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

/// What one seat may see: its own tiles and everything public; never
/// another seat's concealed tiles, face-down ting discard or (where the
/// ruleset hides it) concealed kong kind.
#[pyclass(name = "Observation", module = "koudian", frozen)]
pub struct PyObservation {
    pub(crate) inner: Observation,
    pub(crate) game: Option<Py<PyGame>>,
    pub(crate) moves: u64,
}

impl PyObservation {
    /// The observation of `view`'s seat for an agent played by the core's
    /// game loop: its game is a snapshot of the table (a `NativeAgent`
    /// acts on it), the live table being the loop's.
    pub(crate) fn snapshot(
        py: Python<'_>,
        view: &koudian_core::agent::SeatView<'_>,
    ) -> PyResult<PyObservation> {
        let game = view.game().clone();
        Ok(PyObservation {
            inner: view.observation(),
            moves: game.moves(),
            game: Some(Py::new(py, PyGame::wrap(game))?),
        })
    }

    fn pending_parts(&self) -> (Option<u8>, Option<Tile>) {
        self.inner.pending.answered()
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
        self.inner.pending.name()
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
        tile_list(py, self.inner.locked_kind_tiles())
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
    /// or uint8; 3: 79, version 2's and the look-ahead planes, written
    /// from the table, so only for an observation of a game that has not
    /// moved since), as `dtype`.
    #[pyo3(signature = (version = 1, dtype = "float32"))]
    fn planes<'py>(
        &self,
        py: Python<'py>,
        version: u32,
        dtype: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        if version != 3 {
            return crate::vec_env::planes_array(py, &self.inner, version, dtype);
        }
        let table = self.game.as_ref().map(|g| g.borrow(py));
        match table {
            Some(g) if g.inner.moves() == self.moves => {
                crate::vec_env::seat_planes_array(py, &g.inner, self.inner.seat, version, dtype)
            }
            _ => Err(KoudianError::new_err(
                "encoding version 3 (the look-ahead planes) is written from the table: this \
                 observation's game is gone or has moved on since it was observed",
            )),
        }
    }
    /// The observation as plain JSON-ready data (the external-bot
    /// protocol's `observation`): the core's wire format
    /// (`Observation::to_json`), parsed by Python's `json`.
    fn to_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let loads = LOADS.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            Ok(py.import("json")?.getattr("loads")?.unbind())
        })?;
        loads.bind(py).call1((self.inner.to_json(),))
    }
    /// The table as this seat sees it, as text (the core's rendering).
    fn __str__(&self) -> String {
        self.inner.to_string()
    }
    fn __repr__(&self) -> String {
        format!("<Observation {}>", self.inner.summary())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySeenMeld>()?;
    m.add_class::<PySeenDiscard>()?;
    m.add_class::<PyObservation>()?;
    m.add("N_PLANES", N_PLANES)?;
    m.add("ENCODING_VERSION", encode::ENCODING_VERSION)?;
    Ok(())
}
