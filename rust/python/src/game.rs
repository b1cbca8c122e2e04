//! The table (`koudian.Game`) and how a hand ended (`GameResult`):
//! conversion only, every rule lives in `koudian_core::game`.

use crate::action::{action_list, mask_array};
use crate::errors::{to_py, IllegalActionError};
use crate::hand::{PyHand, PyMeldKind};
use crate::ruleset::{resolve, PyRuleset};
use crate::score::PySettlement;
use crate::tiles::{extract_tiles, tile_list, tile_obj, type_name};
use koudian_core::game::{
    replay as core_replay, replay_each as core_replay_each, ActionMask, Deal, Game, HandResult,
};
use koudian_core::score::Settlement;
use koudian_core::simulate::win_patterns;
use koudian_core::tile::Tile;
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyTuple};

// Where these lived before game.rs was split by concern; kept so that a
// `use crate::game::…` elsewhere still finds them.
pub use crate::action::{action_obj, extract_action, PyAction};
pub use crate::observation::PyObservation;
pub(crate) use crate::simulate::{check_agents, summary_dict};

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
}

impl PyGame {
    /// The scorer's objection to the finished hand, as its exception.
    fn settled(&self) -> PyResult<()> {
        match self.inner.settlement_error() {
            Some(e) => Err(to_py(e.clone())),
            None => Ok(()),
        }
    }

    pub(crate) fn wrap(inner: Game) -> PyGame {
        PyGame { inner }
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

    /// Actions played so far at this table (steps and leaves).
    #[getter]
    fn moves(&self) -> u64 {
        self.inner.moves()
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
            moves: g.inner.moves(),
        })
    }

    /// Plays `action` (an `Action`, a dense index or text like
    /// `"discard 5m"`) for the seat to act. Raises `IllegalActionError`
    /// naming the reason, and changes nothing, if it is not legal.
    fn step(&mut self, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let a = extract_action(action)?;
        self.inner.step(a).map_err(to_py)
    }

    /// Linxian 逃跑: `seat` abandons the hand, at any moment.
    fn leave(&mut self, #[pyo3(from_py_with = crate::ints::seat)] seat: i64) -> PyResult<()> {
        self.inner.leave(seat_arg(seat)?).map_err(to_py)
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
fn replay(
    py: Python<'_>,
    #[pyo3(from_py_with = crate::seq::text)] log: String,
) -> PyResult<PyGame> {
    let log = log.as_str();
    let hands = koudian_core::game::log_hands(log);
    if hands > 1 {
        return Err(crate::errors::InvalidLogError::new_err(format!(
            "this log holds {hands} hands; use koudian.read_logs(path) to read a \
             multi-hand log (a koudian simulate --log file) hand by hand, and replay \
             one hand's log at a time"
        )));
    }
    let g = py.detach(|| core_replay(log)).map_err(to_py)?;
    Ok(PyGame::wrap(g))
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGameResult>()?;
    m.add_class::<PyGame>()?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(replay_steps, m)?)?;
    m.add_function(wrap_pyfunction!(mix_seed, m)?)?;
    Ok(())
}
