//! Python agents in the core's one game loop: [`PyAgent`] implements the
//! core `Agent` trait by calling the Python object (`act(observation,
//! legal_actions)`, `reset(seed)` if it has one, `take_faults()` if it
//! reports faults of its own, as external `cmd:` bots do), taking the GIL
//! per call. Conversion only: the loop, the seeding rule and the
//! fallback are the core's (`koudian_core::simulate`).
//!
//! A Python exception (KeyboardInterrupt included) is stashed and the
//! core's run stopped; the binding function re-raises it unchanged once
//! the core returns ([`Sink::finish`]).

use crate::action::{action_obj, extract_action, PyAction};
use crate::arena::PyArenaLuck;
use crate::errors::to_py;
use crate::game::PyGame;
use crate::match_state::PyMatchState;
use crate::native_agent::PyNativeAgent;
use crate::observation::PyObservation;
use koudian_core::agent::{Agent, Answer, SeatView};
use koudian_core::game::{Action, ActionMask, Game};
use koudian_core::simulate::{
    play_match_hand as core_match_hand, play_out, play_run_game as core_run_game, reset_agents,
    Both, HandSummary, Recorder,
};
use koudian_core::Error;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::{Arc, Mutex, MutexGuard};

/// One fault of a run, as the core or the agent reported it.
enum Item {
    /// The core played `fallback` for `seat`'s answer that was not legal.
    Core {
        seat: u8,
        answer: Answer,
        fallback: Action,
    },
    /// A fault the agent reported itself (`take_faults()`), a Python
    /// `koudian.Fault`.
    Own(Py<PyAny>),
}

/// What a run's agents and its recorder share: the faults in the order
/// they happened (each with the id of the hand it happened in) and the
/// first Python exception raised.
#[derive(Default)]
struct Shared {
    hand: u64,
    items: Vec<(u64, Item)>,
    error: Option<PyErr>,
}

/// A run's faults as Python values, each with its hand id.
pub(crate) type Faults = Vec<(u64, Py<PyAny>)>;

/// The faults and error of one run, shared by its agents and recorder.
#[derive(Clone, Default)]
pub(crate) struct Sink(Arc<Mutex<Shared>>);

/// The core error standing for a Python exception, which the binding
/// re-raises in its place.
fn raised() -> Error {
    Error::InvalidArgument("a Python agent raised an exception".into())
}

impl Sink {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps the first exception; the core's run stops with [`raised`].
    fn stash(&self, e: PyErr) -> Error {
        self.lock().error.get_or_insert(e);
        raised()
    }

    /// The run's faults as Python values, each `(hand, fault)`: a
    /// `koudian.Fault` the agent reported, or `(seat, answer_repr,
    /// fallback)` for an answer the core replaced. Raises the stashed
    /// exception, unchanged, if an agent raised one, else the core's
    /// error if the run failed.
    pub fn finish<T>(&self, py: Python<'_>, result: Result<T, Error>) -> PyResult<(T, Faults)> {
        let mut shared = self.lock();
        if let Some(e) = shared.error.take() {
            return Err(e);
        }
        let value = result.map_err(to_py)?;
        let items = std::mem::take(&mut shared.items);
        drop(shared);
        let mut out = Vec::with_capacity(items.len());
        for (hand, item) in items {
            let value = match item {
                Item::Own(f) => f,
                Item::Core {
                    seat,
                    answer,
                    fallback,
                } => {
                    let answered = match answer {
                        Answer::Action(a) | Answer::Faulted(a) => {
                            action_obj(py, a)?.repr()?.to_string()
                        }
                        Answer::NotAnAction(repr) => repr,
                    };
                    let t = (seat, answered, action_obj(py, fallback)?);
                    t.into_pyobject(py)?.into_any().unbind()
                }
            };
            out.push((hand, value));
        }
        Ok((value, out))
    }

    /// The recorder telling this sink of the core's faults.
    pub fn recorder(&self) -> FaultRecorder {
        FaultRecorder(self.clone())
    }
}

/// Tells a [`Sink`] of the hand under way and of each answer the core
/// replaced with the fallback.
pub(crate) struct FaultRecorder(Sink);

impl Recorder for FaultRecorder {
    type Hand = ();
    fn start(&mut self, index: u64, _: &Game) {
        self.0.lock().hand = index;
    }
    fn fault(&mut self, seat: u8, answer: &Answer, fallback: Action) {
        let mut s = self.0.lock();
        let hand = s.hand;
        s.items.push((
            hand,
            Item::Core {
                seat,
                answer: answer.clone(),
                fallback,
            },
        ));
    }
    fn finish(&mut self, _: &Game, _: HandSummary) {}
}

/// The Python object behind a seat.
enum Who {
    /// A `koudian.NativeAgent`: its core agent plays the view directly
    /// (what its `act` would answer, without building an observation).
    Native(Py<PyNativeAgent>),
    /// Any object with `act(observation, legal_actions)`.
    Object(Py<PyAny>),
}

/// A Python agent as a core [`Agent`].
pub(crate) struct PyAgent {
    who: Arc<Who>,
    sink: Sink,
}

/// A line-up's Python agents, each shareable by several tables (the
/// arena seats one object at every table of its entry).
pub(crate) struct Lineup {
    who: Vec<Option<Arc<Who>>>,
    pub sink: Sink,
}

impl Lineup {
    /// The agents of `objects` (None: a seat played from outside).
    pub fn new(objects: &Bound<'_, PyAny>) -> PyResult<Lineup> {
        let mut who = Vec::new();
        for obj in objects.try_iter()? {
            let obj = obj?;
            who.push(if obj.is_none() {
                None
            } else if let Ok(n) = obj.cast::<PyNativeAgent>() {
                Some(Arc::new(Who::Native(n.clone().unbind())))
            } else {
                Some(Arc::new(Who::Object(obj.unbind())))
            });
        }
        Ok(Lineup {
            who,
            sink: Sink::default(),
        })
    }

    /// The number of agents (seats) given.
    pub fn len(&self) -> usize {
        self.who.len()
    }

    /// The core agent of entry `i` (None for a seat played from outside).
    pub fn agent(&self, i: usize) -> Option<Box<dyn Agent>> {
        let who = self.who.get(i)?.as_ref()?;
        Some(Box::new(PyAgent {
            who: who.clone(),
            sink: self.sink.clone(),
        }))
    }

    /// The four seats of a table.
    pub fn seats(&self) -> [Option<Box<dyn Agent>>; 4] {
        std::array::from_fn(|s| self.agent(s))
    }
}

impl PyAgent {
    fn call(&mut self, view: &SeatView<'_>) -> PyResult<Answer> {
        Python::attach(|py| {
            // Ctrl-C is honoured at every decision, the native ones too.
            py.check_signals()?;
            match &*self.who {
                Who::Native(n) => {
                    let mut n = n.bind(py).try_borrow_mut()?;
                    Ok(Answer::Action(n.agent().act(view)))
                }
                Who::Object(obj) => {
                    let obs = PyObservation::snapshot(py, view)?;
                    let legal = PyList::empty(py);
                    for a in view.legal().iter() {
                        legal.append(action_obj(py, a)?)?;
                    }
                    let obj = obj.bind(py);
                    let answer = obj.call_method1("act", (obs, legal))?;
                    // The agent's own faults come before the core's for
                    // this decision, as they happened.
                    let mut own = false;
                    if let Some(take) = obj.getattr_opt("take_faults")? {
                        let faults = take.call0()?;
                        let mut s = self.sink.lock();
                        let hand = s.hand;
                        for f in faults.try_iter()? {
                            s.items.push((hand, Item::Own(f?.unbind())));
                            own = true;
                        }
                    }
                    Ok(match answer.cast::<PyAction>() {
                        Ok(a) if own => Answer::Faulted(a.get().inner),
                        Ok(a) => Answer::Action(a.get().inner),
                        Err(_) => Answer::NotAnAction(answer.repr()?.to_string()),
                    })
                }
            }
        })
    }
}

impl Agent for PyAgent {
    fn act(&mut self, view: &SeatView<'_>) -> Action {
        match self.decide(view) {
            Ok(Answer::Action(a) | Answer::Faulted(a)) => a,
            _ => view.legal().fallback().unwrap_or(Action::Pass),
        }
    }

    fn decides(&self) -> bool {
        true
    }

    fn decide(&mut self, view: &SeatView<'_>) -> Result<Answer, Error> {
        if self.sink.lock().error.is_some() {
            return Err(raised());
        }
        self.call(view).map_err(|e| self.sink.stash(e))
    }

    fn reset(&mut self, seed: u64) {
        let r = Python::attach(|py| -> PyResult<()> {
            match &*self.who {
                Who::Native(n) => n.bind(py).try_borrow_mut()?.agent().reset(seed),
                Who::Object(obj) => {
                    if let Some(reset) = obj.bind(py).getattr_opt("reset")? {
                        if !reset.is_none() {
                            reset.call1((seed,))?;
                        }
                    }
                }
            }
            Ok(())
        });
        // The next decision stops the run with it.
        if let Err(e) = r {
            self.sink.stash(e);
        }
    }
}

/// `(hand, fault)` pairs as a Python list of tuples.
pub(crate) fn fault_list<'py>(
    py: Python<'py>,
    faults: Faults,
    with_hand: bool,
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for (hand, f) in faults {
        if with_hand {
            out.append(PyTuple::new(
                py,
                [hand.into_pyobject(py)?.into_any(), f.into_bound(py)],
            )?)?;
        } else {
            out.append(f)?;
        }
    }
    Ok(out)
}

/// The four seats of `agents` (a sequence of 4; None: a seat played from
/// outside, where the loop stops).
fn four(agents: &Bound<'_, PyAny>) -> PyResult<Lineup> {
    let line = Lineup::new(agents)?;
    if line.len() != 4 {
        return Err(crate::errors::RulesetError::new_err(format!(
            "give 4 agents, one per seat; got {}",
            line.len()
        )));
    }
    Ok(line)
}

/// `play_game(game, agents, *, reset=False, luck=None)`: plays `game`
/// with the core's game loop until it is over or the seat to act has no
/// agent (`agents[s]` None: a seat played from outside, such as a web
/// table's human). With `reset`, the agents are first reset from the
/// game's seed (the hand's seeding rule); `luck` (an `ArenaLuck`) is told
/// of every decision. Returns the faults in order, each the agent's own
/// `koudian.Fault` or `(seat, answer_repr, fallback)` for an answer the
/// core replaced with the fallback. An exception an agent raised is
/// raised unchanged (the table as it was before that decision).
#[pyfunction]
#[pyo3(signature = (game, agents, *, reset = false, luck = None))]
fn play_game<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyGame>,
    agents: &Bound<'py, PyAny>,
    reset: bool,
    luck: Option<&Bound<'py, PyArenaLuck>>,
) -> PyResult<Bound<'py, PyList>> {
    let line = four(agents)?;
    let mut seats = line.seats();
    let mut rec = line.sink.recorder();
    let mut g = game.try_borrow_mut()?;
    let mut luck = luck.map(|l| l.try_borrow_mut()).transpose()?;
    let table = &mut g.inner;
    let watch = luck.as_deref_mut().map(|l| &mut l.inner);
    let played = py.detach(|| {
        if reset {
            reset_agents(&mut seats, table.seed().unwrap_or(0));
        }
        match watch {
            Some(w) => play_out(table, &mut seats, &mut Both(w, &mut rec)),
            None => play_out(table, &mut seats, &mut rec),
        }
    });
    let (_, faults) = line.sink.finish(py, played)?;
    fault_list(py, faults, false)
}

/// `play_run_game(rules, agents, seed, index, *, record=False)`: game
/// `index` of the self-play run `seed` (its deal, dealer and agents'
/// resets the core's seeding rule) played to its end by `agents` with
/// the core's game loop. Returns `(game, faults)` as `play_game`.
#[pyfunction]
#[pyo3(signature = (rules, agents, seed, index, *, record = false))]
fn play_run_game<'py>(
    py: Python<'py>,
    rules: &Bound<'py, PyAny>,
    agents: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = crate::ints::seed)] seed: u64,
    #[pyo3(from_py_with = crate::ints::index)] index: u64,
    record: bool,
) -> PyResult<(PyGame, Bound<'py, PyList>)> {
    let r = crate::ruleset::resolve(py, Some(rules))?;
    let line = four(agents)?;
    let mut seats = line.seats();
    let mut rec = line.sink.recorder();
    let played = py.detach(|| core_run_game(&r, seed, index, &mut seats, record, &mut rec));
    let ((g, _, _), faults) = line.sink.finish(py, played)?;
    Ok((PyGame::wrap(g), fault_list(py, faults, false)?))
}

/// `play_match_hand(state, agents, *, record=True, seed=None)`: the next
/// hand of the `MatchState` (dealt from `seed` when given), its agents
/// reset from the hand's seed, played to its end by the core's game loop
/// and recorded in the state. Returns `(game, faults)` as `play_game`,
/// or None once the match is over.
#[pyfunction]
#[pyo3(signature = (state, agents, *, record = true, seed = None))]
fn play_match_hand<'py>(
    py: Python<'py>,
    state: &Bound<'py, PyMatchState>,
    agents: &Bound<'py, PyAny>,
    record: bool,
    #[pyo3(from_py_with = crate::ints::opt_seed)] seed: Option<u64>,
) -> PyResult<Option<(PyGame, Bound<'py, PyList>)>> {
    let line = four(agents)?;
    let mut seats = line.seats();
    let mut rec = line.sink.recorder();
    let mut st = state.try_borrow_mut()?;
    let m = &mut st.inner;
    let played = py.detach(|| core_match_hand(m, &mut seats, record, seed, &mut rec));
    let (hand, faults) = line.sink.finish(py, played)?;
    let Some((g, _, _)) = hand else {
        return Ok(None);
    };
    Ok(Some((PyGame::wrap(g), fault_list(py, faults, false)?)))
}

/// `fallback_action(legal_actions)`: the action played for an agent that
/// answered no legal action (the core's rule), None when there is none.
#[pyfunction]
fn fallback_action<'py>(
    py: Python<'py>,
    legal_actions: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyAction>>> {
    let mut mask = ActionMask::EMPTY;
    for a in legal_actions.try_iter()? {
        mask.insert(extract_action(&a?)?);
    }
    mask.fallback().map(|a| action_obj(py, a)).transpose()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(play_game, m)?)?;
    m.add_function(wrap_pyfunction!(play_run_game, m)?)?;
    m.add_function(wrap_pyfunction!(play_match_hand, m)?)?;
    m.add_function(wrap_pyfunction!(fallback_action, m)?)?;
    Ok(())
}
