//! Scoring (docs/rules.md §3-§5): `hand_value`, and `settle` over a typed
//! `Outcome` (`Win`, `Kong`) giving a `Settlement` of `Payment`s.

use crate::errors::{to_py, InconsistentOutcomeError};
use crate::hand::{extract_hand, extract_tile_arg, PyMeldKind};
use crate::ruleset::resolve;
use crate::tiles::{tile_obj, type_name};
use crate::wildcards::extract_wilds;
use koudian_core::score::{
    self as core_score, HandEnd, HandValue, KongKind, Outcome, Pattern, Payment, PaymentReason,
    Settlement, WinContext,
};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

fn kong_kind(obj: &Bound<'_, PyAny>) -> PyResult<KongKind> {
    if let Ok(k) = obj.cast::<PyMeldKind>() {
        if let Some(kk) = KongKind::from_meld((*k.get()).into()) {
            return Ok(kk);
        }
    }
    if let Ok(s) = obj.cast::<PyString>() {
        if let Some(k) = KongKind::from_name(&crate::seq::utf8(s)?) {
            return Ok(k);
        }
    }
    Err(InconsistentOutcomeError::new_err(format!(
        "a kong kind is MeldKind.EXPOSED_KONG / ADDED_KONG / CONCEALED_KONG or \
         \"exposed\" / \"added\" / \"concealed\", got {}",
        obj.repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| type_name(obj))
    )))
}

fn seat(v: i64, what: &str) -> PyResult<u8> {
    u8::try_from(v).ok().filter(|&s| s < 4).ok_or_else(|| {
        InconsistentOutcomeError::new_err(format!("{what} is seat {v}; seats are 0-3"))
    })
}

/// A named pattern that contributed to a hand's value.
#[pyclass(name = "Pattern", module = "koudian", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyPattern {
    inner: Pattern,
}

#[pymethods]
impl PyPattern {
    /// Snake-case identifier: `"self_draw"`, `"full_flush"`, `"root"` …
    #[getter]
    fn code(&self) -> &'static str {
        self.inner.code()
    }

    /// Chinese name (自摸, 清一色, 根 …).
    #[getter]
    fn chinese(&self) -> &'static str {
        self.inner.chinese()
    }

    /// English name.
    #[getter]
    fn english(&self) -> &'static str {
        self.inner.english()
    }

    /// The kind of a 根 (root), else `None`.
    #[getter]
    fn tile<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.inner {
            Pattern::Root(t) => Ok(Some(tile_obj(py, t)?)),
            _ => Ok(None),
        }
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("<Pattern {}>", self.inner)
    }
}

/// What a winning hand is worth: `total = base × multiplier + bonus`.
#[pyclass(name = "HandValue", module = "koudian", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyHandValue {
    inner: HandValue,
}

#[pymethods]
impl PyHandValue {
    /// What each payer owes (before the base stake and 带庄).
    #[getter]
    fn total(&self) -> u32 {
        self.inner.total
    }

    /// Winning tile points (Koudian) or the pattern value (Sichuan).
    #[getter]
    fn base(&self) -> u32 {
        self.inner.base
    }

    /// Product of the multipliers applied to `base`.
    #[getter]
    fn multiplier(&self) -> u32 {
        self.inner.multiplier
    }

    /// Additive extras (Sichuan 根, 杠上花, 抢杠).
    #[getter]
    fn bonus(&self) -> u32 {
        self.inner.bonus
    }

    /// The patterns that gave the value, largest first.
    #[getter]
    fn patterns(&self) -> Vec<PyPattern> {
        self.inner
            .patterns
            .iter()
            .map(|&p| PyPattern { inner: p })
            .collect()
    }

    fn __int__(&self) -> u32 {
        self.inner.total
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("<HandValue {}>", self.inner)
    }
}

/// The value of a complete, winning hand (the winning tile among its
/// concealed tiles) under the ruleset.
#[pyfunction]
#[pyo3(signature = (hand, win_tile, *, self_draw, melds = None, wildcards = None, rules = None,
    kong_replacement = None, robbed_kong = false, heavenly = false, earthly = false))]
#[allow(clippy::too_many_arguments)]
fn hand_value(
    py: Python<'_>,
    hand: &Bound<'_, PyAny>,
    win_tile: &Bound<'_, PyAny>,
    self_draw: bool,
    melds: Option<&Bound<'_, PyAny>>,
    wildcards: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
    kong_replacement: Option<&Bound<'_, PyAny>>,
    robbed_kong: bool,
    heavenly: bool,
    earthly: bool,
) -> PyResult<PyHandValue> {
    let h = extract_hand(hand, melds)?;
    let t = extract_tile_arg(win_tile, "win_tile")?;
    let ctx = WinContext {
        self_draw,
        kong_replacement: kong_replacement.map(kong_kind).transpose()?,
        robbed_kong,
        heavenly,
        earthly,
        wilds: extract_wilds(wildcards)?,
    };
    let r = resolve(py, rules)?;
    Ok(PyHandValue {
        inner: core_score::hand_value(&h, t, &ctx, &r).map_err(to_py)?,
    })
}

/// The Sichuan 查叫 value of a hand one tile short: `None` when it is not
/// ready, else the smallest (`chajiao = "min"`) or largest value its waits
/// would win with, valued as a win on a discard.
#[pyfunction]
#[pyo3(signature = (hand, *, melds = None, rules = None))]
fn chajiao_value(
    py: Python<'_>,
    hand: &Bound<'_, PyAny>,
    melds: Option<&Bound<'_, PyAny>>,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<u32>> {
    let h = extract_hand(hand, melds)?;
    let r = match rules {
        Some(_) => resolve(py, rules)?,
        None => resolve(py, Some(pyo3::types::PyString::new(py, "sichuan").as_any()))?,
    };
    core_score::chajiao_value(&h, &r).map_err(to_py)
}

/// One winner of a finished hand.
#[pyclass(name = "Win", module = "koudian", frozen, from_py_object)]
#[derive(Clone)]
pub struct PyWin {
    inner: core_score::Win,
}

#[pymethods]
impl PyWin {
    #[new]
    #[pyo3(signature = (seat, hand, win_tile, *, melds = None, kong_bloom = None, heavenly = false, earthly = false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        #[pyo3(from_py_with = crate::ints::seat)] seat: i64,
        hand: &Bound<'_, PyAny>,
        win_tile: &Bound<'_, PyAny>,
        melds: Option<&Bound<'_, PyAny>>,
        #[pyo3(from_py_with = crate::ints::kong_bloom)] kong_bloom: Option<usize>,
        heavenly: bool,
        earthly: bool,
    ) -> PyResult<Self> {
        let mut w = core_score::Win::new(
            self::seat(seat, "the winner")?,
            extract_hand(hand, melds)?,
            extract_tile_arg(win_tile, "win_tile")?,
        );
        w.kong_bloom = kong_bloom;
        w.heavenly = heavenly;
        w.earthly = earthly;
        Ok(PyWin { inner: w })
    }

    /// The winner's seat.
    #[getter]
    fn seat(&self) -> u8 {
        self.inner.seat
    }

    /// The winning tile.
    #[getter]
    fn win_tile<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        tile_obj(py, self.inner.win_tile)
    }

    /// The complete hand.
    #[getter]
    fn hand(&self) -> crate::hand::PyHand {
        crate::hand::PyHand {
            inner: self.inner.hand,
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Win(seat={}, hand={:?}, win_tile={:?})",
            self.inner.seat,
            koudian_core::tile::format_counts(&self.inner.hand.concealed),
            self.inner.win_tile.to_string()
        )
    }
}

/// One kong made during the hand (a robbed kong is not one).
#[pyclass(name = "Kong", module = "koudian", frozen, from_py_object)]
#[derive(Clone)]
pub struct PyKong {
    inner: core_score::Kong,
}

#[pymethods]
impl PyKong {
    #[new]
    #[pyo3(signature = (owner, tile, kind, *, giver = None, giver_ting = false))]
    fn new(
        #[pyo3(from_py_with = crate::ints::owner)] owner: i64,
        tile: &Bound<'_, PyAny>,
        kind: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = crate::ints::giver)] giver: Option<i64>,
        giver_ting: bool,
    ) -> PyResult<Self> {
        Ok(PyKong {
            inner: core_score::Kong {
                owner: seat(owner, "the kong's owner")?,
                tile: extract_tile_arg(tile, "kong tile")?,
                kind: kong_kind(kind)?,
                giver: giver.map(|g| seat(g, "the kong's giver")).transpose()?,
                giver_ting,
            },
        })
    }

    /// Whose kong.
    #[getter]
    fn owner(&self) -> u8 {
        self.inner.owner
    }

    /// Its tile kind.
    #[getter]
    fn tile<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        tile_obj(py, self.inner.tile)
    }

    /// `MeldKind.EXPOSED_KONG`, `ADDED_KONG` or `CONCEALED_KONG`.
    #[getter]
    fn kind(&self) -> PyMeldKind {
        self.inner.kind.meld_kind().into()
    }

    /// Who discarded the 4th tile of an exposed kong.
    #[getter]
    fn giver(&self) -> Option<u8> {
        self.inner.giver
    }

    fn __repr__(&self) -> String {
        format!(
            "Kong(owner={}, tile={:?}, kind={:?}, giver={:?})",
            self.inner.owner,
            self.inner.tile.to_string(),
            self.inner.kind.english(),
            self.inner.giver
        )
    }
}

/// A finished hand: how it ended, the winners, ting declarations, kongs.
#[pyclass(name = "Outcome", module = "koudian", frozen)]
#[derive(Clone)]
pub struct PyOutcome {
    inner: Outcome,
}

#[pymethods]
impl PyOutcome {
    #[new]
    #[pyo3(signature = (dealer, end, *, by = None, winners = None, ting = None,
        kongs = None, hands = None, wildcards = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        #[pyo3(from_py_with = crate::ints::dealer)] dealer: i64,
        #[pyo3(from_py_with = crate::seq::text)] end: String,
        #[pyo3(from_py_with = crate::ints::by)] by: Option<i64>,
        winners: Option<&Bound<'_, PyAny>>,
        ting: Option<&Bound<'_, PyAny>>,
        kongs: Option<&Bound<'_, PyAny>>,
        hands: Option<&Bound<'_, PyAny>>,
        wildcards: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut o = Outcome::new(
            seat(dealer, "the dealer")?,
            HandEnd::from_name(&end, by).map_err(to_py)?,
        );
        // A hand has at most 3 winners (一炮多响) and 16 kongs (4 melds a
        // seat); `ting` and `hands` give 4 entries (one more is read to
        // tell a longer sequence).
        if let Some(w) = winners {
            o.winners = crate::seq::bounded_of::<PyWin>(w, 4, "winners")?
                .into_iter()
                .map(|w| w.inner)
                .collect();
        }
        let ting = ting
            .map(|t| crate::seq::bounded(t, 5, "ting"))
            .transpose()?;
        let kongs = match kongs {
            Some(k) => crate::seq::bounded_of::<PyKong>(k, 16, "kongs")?,
            None => Vec::new(),
        };
        let hands = hands
            .map(|h| crate::seq::bounded(h, 5, "hands"))
            .transpose()?;
        if let Some(ting) = ting {
            if ting.len() != 4 {
                return Err(InconsistentOutcomeError::new_err(format!(
                    "ting must give 4 flags, one per seat, got {}",
                    ting.len()
                )));
            }
            for (slot, t) in o.ting.iter_mut().zip(&ting) {
                *slot = t.is_truthy()?;
            }
        }
        o.kongs = kongs.into_iter().map(|k| k.inner).collect();
        if let Some(hs) = hands {
            if hs.len() != 4 {
                return Err(InconsistentOutcomeError::new_err(format!(
                    "hands must give 4 entries (None where unknown), got {}",
                    hs.len()
                )));
            }
            for (slot, h) in o.hands.iter_mut().zip(hs) {
                *slot = if h.is_none() {
                    None
                } else {
                    Some(extract_hand(&h, None)?)
                };
            }
        }
        o.wilds = extract_wilds(wildcards)?;
        Ok(PyOutcome { inner: o })
    }

    /// The dealer's seat.
    #[getter]
    fn dealer(&self) -> u8 {
        self.inner.dealer
    }

    /// Which seats had declared ting.
    #[getter]
    fn ting(&self) -> [bool; 4] {
        self.inner.ting
    }

    /// The winners.
    #[getter]
    fn winners(&self) -> Vec<PyWin> {
        self.inner
            .winners
            .iter()
            .map(|w| PyWin { inner: w.clone() })
            .collect()
    }

    /// The kongs made during the hand.
    #[getter]
    fn kongs(&self) -> Vec<PyKong> {
        self.inner
            .kongs
            .iter()
            .map(|&k| PyKong { inner: k })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "<Outcome dealer={} end={:?} winners={} kongs={}>",
            self.inner.dealer,
            self.inner.end,
            self.inner.winners.len(),
            self.inner.kongs.len()
        )
    }
}

/// One payment: `payer` gives `amount` to `payee`, for `reason`.
#[pyclass(name = "Payment", module = "koudian", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyPayment {
    inner: Payment,
}

#[pymethods]
impl PyPayment {
    /// Who pays.
    #[getter]
    fn payer(&self) -> u8 {
        self.inner.payer
    }

    /// Who receives.
    #[getter]
    fn payee(&self) -> u8 {
        self.inner.payee
    }

    /// How much (base stake included), always positive.
    #[getter]
    fn amount(&self) -> i64 {
        self.inner.amount
    }

    /// Why, readable (Chinese term and English).
    #[getter]
    fn reason(&self) -> String {
        self.inner.reason.to_string()
    }

    /// Why, as a code: `"win"`, `"win_covered"`, `"kong_giver_pays_bloom"`,
    /// `"dealer_bonus"`, `"kong"`, `"kong_covered"`, `"chajiao"`,
    /// `"leave_penalty"`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.reason.code()
    }

    /// Whose share a covering payment (包胡, 包杠) pays, else `None`.
    #[getter]
    fn share_of(&self) -> Option<u8> {
        match self.inner.reason {
            PaymentReason::WinCovered { share_of }
            | PaymentReason::KongCovered { share_of, .. } => Some(share_of),
            _ => None,
        }
    }

    /// The kong's tile for a kong payment, else `None`.
    #[getter]
    fn tile<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.inner.reason {
            PaymentReason::Kong { tile, .. } | PaymentReason::KongCovered { tile, .. } => {
                Ok(Some(tile_obj(py, tile)?))
            }
            _ => Ok(None),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "<Payment {} → {} {} ({})>",
            self.inner.payer, self.inner.payee, self.inner.amount, self.inner.reason
        )
    }
}

/// The money of a finished hand: per-seat deltas and itemized payments.
#[pyclass(name = "Settlement", module = "koudian", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PySettlement {
    pub inner: Settlement,
}

#[pymethods]
impl PySettlement {
    /// Net gain (+) or loss (−) of each seat; they sum to zero.
    #[getter]
    fn deltas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.deltas)
    }

    /// Every payment, in the order the rules produce them.
    #[getter]
    fn payments(&self) -> Vec<PyPayment> {
        self.inner
            .payments
            .iter()
            .map(|&p| PyPayment { inner: p })
            .collect()
    }

    /// What each seat paid for 包胡 (covering a win for everyone).
    #[getter]
    fn baohu_paid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.baohu_paid())
    }

    fn __str__(&self) -> String {
        self.inner.to_string().trim_end().to_string()
    }

    fn __repr__(&self) -> String {
        format!("<Settlement deltas={:?}>", self.inner.deltas)
    }
}

/// Settles a finished hand: checks it is consistent, values the wins and
/// returns every payment and the per-seat deltas.
#[pyfunction]
#[pyo3(signature = (outcome, rules = None))]
fn settle(
    py: Python<'_>,
    outcome: &Bound<'_, PyOutcome>,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<PySettlement> {
    let r = resolve(py, rules)?;
    Ok(PySettlement {
        inner: core_score::settle(&outcome.get().inner, &r).map_err(to_py)?,
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPattern>()?;
    m.add_class::<PyHandValue>()?;
    m.add_class::<PyWin>()?;
    m.add_class::<PyKong>()?;
    m.add_class::<PyOutcome>()?;
    m.add_class::<PyPayment>()?;
    m.add_class::<PySettlement>()?;
    m.add_function(wrap_pyfunction!(hand_value, m)?)?;
    m.add_function(wrap_pyfunction!(settle, m)?)?;
    m.add_function(wrap_pyfunction!(chajiao_value, m)?)?;
    Ok(())
}
