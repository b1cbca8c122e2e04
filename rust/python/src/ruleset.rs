//! `koudian.Ruleset`: the core's validated ruleset behind an immutable
//! Python object, plus the resolution of every `rules=` argument (a preset
//! name or a `Ruleset`) with a per-name cache so hot calls do no work.

use crate::errors::{to_py, RulesetError};
use crate::tiles::type_name;
use koudian_core::ruleset::{OptionValue, Ruleset, OPTIONS};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString, PyTuple};
use std::path::PathBuf;

/// A complete, validated ruleset (every option of docs/rules.md). Immutable and
/// hashable; `replace(**options)` makes a changed copy.
#[pyclass(name = "Ruleset", module = "koudian", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyRuleset {
    pub inner: Ruleset,
}

fn to_option_value(name: &str, v: &Bound<'_, PyAny>) -> PyResult<OptionValue> {
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(OptionValue::Bool(b.is_true()));
    }
    if v.cast::<PyInt>().is_ok() {
        return Ok(OptionValue::Int(v.extract::<i64>().map_err(|_| {
            RulesetError::new_err(format!("option {name}: integer {v} is out of range"))
        })?));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(OptionValue::Str(
            crate::seq::utf8(s)
                .map_err(|_| {
                    RulesetError::new_err(format!(
                        "option {name}: the value holds a lone surrogate"
                    ))
                })?
                .to_string(),
        ));
    }
    if v.cast::<PyTuple>().is_ok() || v.cast::<PyList>().is_ok() {
        if let Ok(v) = crate::seq::bounded_of::<i64>(v, 3, name) {
            if let [a, b] = v[..] {
                return Ok(OptionValue::Pair(a, b));
            }
        }
    }
    Err(RulesetError::new_err(format!(
        "option {name}: unsupported value {} of type {}",
        v.repr().map(|r| r.to_string()).unwrap_or_default(),
        type_name(v)
    )))
}

fn to_py_value<'py>(py: Python<'py>, v: OptionValue) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        OptionValue::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        OptionValue::Int(i) => i.into_pyobject(py)?.into_any(),
        OptionValue::Str(s) => PyString::new(py, &s).into_any(),
        OptionValue::Pair(a, b) => PyTuple::new(py, [a, b])?.into_any(),
    })
}

/// `base` with the options of a Python mapping (converted here; applied
/// by the core's `Ruleset::with_options`).
fn build(base: Option<Ruleset>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Ruleset> {
    let mut opts = Vec::new();
    if let Some(d) = options {
        for (k, v) in d.iter() {
            let name: String = match k.cast::<PyString>() {
                Ok(s) => crate::seq::utf8(s)
                    .map_err(|_| RulesetError::new_err("an option name holds a lone surrogate"))?
                    .into_owned(),
                Err(_) => {
                    return Err(RulesetError::new_err(format!(
                        "option names are strings, got {}",
                        type_name(&k)
                    )))
                }
            };
            let value = to_option_value(&name, &v)?;
            opts.push((name, value));
        }
    }
    Ruleset::with_options(base, &opts).map_err(to_py)
}

/// Preset `name` (the core's registry), or the error naming the closest
/// preset.
fn preset_ruleset(name: &Bound<'_, PyString>) -> PyResult<Ruleset> {
    Ruleset::preset(crate::seq::utf8(name)?.as_ref()).map_err(to_py)
}

#[pymethods]
impl PyRuleset {
    /// A ruleset from the family's defaults (`"shanxi"`, `"linxian"`,
    /// `"sichuan"`) changed by `options`; validated.
    #[new]
    #[pyo3(signature = (**options))]
    fn new(options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        Ok(PyRuleset {
            inner: build(None, options)?,
        })
    }

    /// A shipped preset (`shanxi`, `shanxi-haozi`, `shanxi-feng-haozi`,
    /// `shanxi-double-haozi`, `linxian`, `sichuan`), optionally changed.
    #[classmethod]
    #[pyo3(signature = (name, **overrides))]
    fn preset(
        _cls: &Bound<'_, pyo3::types::PyType>,
        name: &Bound<'_, PyString>,
        overrides: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let base = preset_ruleset(name)?;
        Ok(PyRuleset {
            inner: build(Some(base), overrides)?,
        })
    }

    /// A ruleset from a TOML file of options (as `to_toml` writes). A file
    /// that cannot be read raises the `OSError` subclass of the failure
    /// (e.g. `FileNotFoundError`), naming the path; one that is not a
    /// regular file, is larger than 1 MiB or is not UTF-8 raises
    /// `RulesetError` naming the path and the problem.
    #[classmethod]
    fn from_toml(cls: &Bound<'_, pyo3::types::PyType>, path: PathBuf) -> PyResult<Self> {
        let text = read_toml(cls.py(), &path)?;
        let inner = Ruleset::from_toml(&text)
            .map_err(|e| RulesetError::new_err(format!("{}: {e}", path.display())))?;
        Ok(PyRuleset { inner })
    }

    /// A ruleset from a mapping of options (`family` picks the defaults).
    #[classmethod]
    fn from_dict(
        _cls: &Bound<'_, pyo3::types::PyType>,
        options: &Bound<'_, PyDict>,
    ) -> PyResult<Self> {
        Ok(PyRuleset {
            inner: build(None, Some(options))?,
        })
    }

    /// A validated copy with some options changed.
    #[pyo3(signature = (**options))]
    fn replace(&self, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        Ok(PyRuleset {
            inner: build(Some(self.inner.clone()), options)?,
        })
    }

    /// Every option and its value, in docs/rules.md order.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, _) in OPTIONS {
            d.set_item(
                *name,
                to_py_value(py, self.inner.get(name).map_err(to_py)?)?,
            )?;
        }
        Ok(d)
    }

    /// The ruleset as TOML: every option with its documentation.
    fn to_toml(&self) -> String {
        self.inner.to_toml()
    }

    /// The value of option `name`.
    fn get<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = crate::seq::text)] name: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        to_py_value(py, self.inner.get(&name).map_err(to_py)?)
    }

    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.get(name) {
            Ok(v) => to_py_value(py, v),
            Err(e) => Err(pyo3::exceptions::PyAttributeError::new_err(e.to_string())),
        }
    }

    /// `(name, documentation)` of every option, in docs/rules.md order.
    #[staticmethod]
    fn options() -> Vec<(&'static str, &'static str)> {
        OPTIONS.to_vec()
    }

    /// Number of wild kinds a hand gets (0, 1 or 2).
    #[getter]
    fn wild_kinds(&self) -> usize {
        self.inner.wild_kinds()
    }

    /// Tiles in play: 136, or 108 without honors.
    #[getter]
    fn tile_total(&self) -> usize {
        self.inner.tile_total()
    }

    fn __repr__(&self) -> PyResult<String> {
        let defaults = Ruleset::for_family(self.inner.family);
        let mut parts = Vec::new();
        for (name, _) in OPTIONS {
            let v = self.inner.get(name).map_err(to_py)?;
            if *name == "family" || defaults.get(name).map_err(to_py)? != v {
                let text = match v {
                    OptionValue::Bool(b) => if b { "True" } else { "False" }.to_string(),
                    OptionValue::Str(s) => format!("{s:?}"),
                    OptionValue::Pair(a, b) => format!("({a}, {b})"),
                    OptionValue::Int(i) => i.to_string(),
                };
                parts.push(format!("{name}={text}"));
            }
        }
        Ok(format!("Ruleset({})", parts.join(", ")))
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyDict>,))> {
        let py = slf.py();
        let ctor = slf.get_type().getattr("from_dict")?;
        Ok((ctor, (slf.get().to_dict(py)?,)))
    }
}

static PRESET_CACHE: PyOnceLock<Py<PyDict>> = PyOnceLock::new();

/// The ruleset of a `rules=` argument: `None` (the `shanxi` preset), a
/// preset name (loaded once, then cached) or a `Ruleset`.
pub fn resolve(py: Python<'_>, rules: Option<&Bound<'_, PyAny>>) -> PyResult<Ruleset> {
    match rules {
        Some(r) => {
            if let Ok(rs) = r.cast::<PyRuleset>() {
                return Ok(rs.get().inner.clone());
            }
            if let Ok(name) = r.cast::<PyString>() {
                return resolve_name(py, name);
            }
            Err(RulesetError::new_err(format!(
                "rules must be a preset name or a Ruleset, got {}",
                type_name(r)
            )))
        }
        None => DEFAULT
            .get_or_try_init(py, || resolve_name(py, &PyString::new(py, "shanxi")))
            .cloned(),
    }
}

/// The `shanxi` preset, resolved once: the default of every `rules=`.
static DEFAULT: PyOnceLock<Ruleset> = PyOnceLock::new();

fn resolve_name(py: Python<'_>, name: &Bound<'_, PyString>) -> PyResult<Ruleset> {
    let cache = PRESET_CACHE.get_or_init(py, || PyDict::new(py).unbind());
    let cache = cache.bind(py);
    if let Some(hit) = cache.get_item(name)? {
        return Ok(hit.cast::<PyRuleset>()?.get().inner.clone());
    }
    let r = PyRuleset {
        inner: preset_ruleset(name)?,
    };
    let inner = r.inner.clone();
    cache.set_item(name, Bound::new(py, r)?)?;
    Ok(inner)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRuleset>()?;
    Ok(())
}

/// An I/O error on `path` as Python raises it for `open(path)`: the
/// `OSError` subclass of its kind, with `errno`, `strerror` and `filename`
/// set, so that its message names the path ("[Errno 2] No such file or
/// directory: 'x.toml'").
/// Largest ruleset file `Ruleset.from_toml` reads (a preset is about
/// 3 KiB).
const MAX_TOML_BYTES: u64 = 1 << 20;

/// The text of the ruleset file at `path`: a regular file (a FIFO or a
/// device could block or never end) of at most [`MAX_TOML_BYTES`], read
/// no further than that, in UTF-8. Those problems are `RulesetError`s
/// naming the path; failing to open or read is the `OSError` of the
/// failure.
fn read_toml(py: Python<'_>, path: &std::path::Path) -> PyResult<String> {
    use std::io::Read;
    let bad = |why: String| RulesetError::new_err(format!("{}: {why}", path.display()));
    let regular = |m: std::fs::Metadata| -> PyResult<()> {
        // A directory fails to read with the OS's own error
        // (`IsADirectoryError`), as `open` would.
        if m.is_dir() {
            return Ok(());
        }
        if !m.is_file() {
            return Err(bad("not a regular file".into()));
        }
        if m.len() > MAX_TOML_BYTES {
            return Err(bad(format!(
                "{} bytes, larger than the {MAX_TOML_BYTES}-byte limit for a ruleset file",
                m.len()
            )));
        }
        Ok(())
    };
    // Checked before opening too: opening a FIFO waits for a writer.
    regular(std::fs::metadata(path).map_err(|e| io_error(py, e, path))?)?;
    let f = std::fs::File::open(path).map_err(|e| io_error(py, e, path))?;
    regular(f.metadata().map_err(|e| io_error(py, e, path))?)?;
    let mut bytes = Vec::new();
    f.take(MAX_TOML_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(py, e, path))?;
    if bytes.len() as u64 > MAX_TOML_BYTES {
        return Err(bad(format!(
            "larger than the {MAX_TOML_BYTES}-byte limit for a ruleset file"
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        bad(format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

fn io_error(py: Python<'_>, e: std::io::Error, path: &std::path::Path) -> PyErr {
    let message = format!("{}: {e}", path.display());
    let Some(code) = e.raw_os_error() else {
        return pyo3::exceptions::PyOSError::new_err(message);
    };
    let ty = PyErr::from(e).get_type(py);
    let strerror = std::io::Error::from_raw_os_error(code)
        .to_string()
        .split(" (os error")
        .next()
        .unwrap_or_default()
        .to_string();
    match ty.call1((code, strerror, path.as_os_str())) {
        Ok(v) => PyErr::from_value(v),
        Err(_) => pyo3::exceptions::PyOSError::new_err(message),
    }
}
