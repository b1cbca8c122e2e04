//! `koudian.Action`: one decision, and the conversion of an action
//! argument (an `Action`, a dense index or text) into the core's
//! [`Action`]. Names and indices are the core's (`Action::name`,
//! `Action::from_name`, `Action::index`).

use crate::errors::{to_py, IllegalActionError};
use crate::tiles::{extract_tile, tile_obj, type_name};
use koudian_core::game::{Action, ActionMask, N_ACTIONS};
use koudian_core::tile::Tile;
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyInt, PyList, PyString};

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

pub(crate) fn action_list<'py>(py: Python<'py>, m: ActionMask) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for a in m.iter() {
        list.append(action_obj(py, a)?)?;
    }
    Ok(list)
}

pub(crate) fn mask_array<'py>(py: Python<'py>, m: ActionMask) -> Bound<'py, PyArray1<bool>> {
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyAction>()?;
    m.add("N_ACTIONS", N_ACTIONS)?;
    Ok(())
}
