//! The zero-sum ledger every family settles into: [`Payment`]s with
//! their [`PaymentReason`], collected by [`Ledger`] in base-stake units
//! and totalled into a [`Settlement`] ([`settle`](super::settle) picks the
//! family).

use super::outcome::Seat;
use super::KongKind;
use crate::error::Error;
use crate::tile::Tile;
use std::fmt;

/// Why a payment is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PaymentReason {
    /// 胡牌: the payer's own share of the win value.
    Win,
    /// 包胡 / 一包三: the discarder (or konger) pays `share_of`'s share.
    WinCovered {
        /// Whose share is covered.
        share_of: Seat,
    },
    /// 引杠 + 杠上花 (Sichuan): the player who discarded the kong tile pays
    /// as if he had dealt in.
    KongGiverPaysBloom,
    /// 带庄: the dealer bonus on a win share.
    DealerBonus,
    /// 杠分 / 刮风下雨: the payer's own share of a kong's value.
    Kong {
        /// The kong's tile.
        tile: Tile,
        /// Its kind.
        kind: KongKind,
    },
    /// 点杠包杠 / 点炮包杠: the payer covers `share_of`'s kong share.
    KongCovered {
        /// The kong's tile.
        tile: Tile,
        /// Its kind.
        kind: KongKind,
        /// Whose share is covered.
        share_of: Seat,
    },
    /// 查叫: a non-ready player pays a ready one at a drawn hand.
    Chajiao,
    /// 逃跑: the leaver's penalty.
    LeavePenalty,
}

impl PaymentReason {
    /// Its code in the Python API (`Payment.kind`): `win`,
    /// `win_covered`, `kong_giver_pays_bloom`, `dealer_bonus`, `kong`,
    /// `kong_covered`, `chajiao`, `leave_penalty`.
    pub const fn code(self) -> &'static str {
        match self {
            PaymentReason::Win => "win",
            PaymentReason::WinCovered { .. } => "win_covered",
            PaymentReason::KongGiverPaysBloom => "kong_giver_pays_bloom",
            PaymentReason::DealerBonus => "dealer_bonus",
            PaymentReason::Kong { .. } => "kong",
            PaymentReason::KongCovered { .. } => "kong_covered",
            PaymentReason::Chajiao => "chajiao",
            PaymentReason::LeavePenalty => "leave_penalty",
        }
    }
}

impl fmt::Display for PaymentReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PaymentReason::Win => f.write_str("胡牌 win"),
            PaymentReason::WinCovered { share_of } => {
                write!(f, "包胡 win, covering seat {share_of}'s share")
            }
            PaymentReason::KongGiverPaysBloom => f.write_str("引杠 kong giver pays the 杠上花 win"),
            PaymentReason::DealerBonus => f.write_str("带庄 dealer bonus"),
            PaymentReason::Kong { tile, kind } => write!(f, "杠 {tile} {kind}"),
            PaymentReason::KongCovered {
                tile,
                kind,
                share_of,
            } => write!(f, "包杠 {tile} {kind}, covering seat {share_of}'s share"),
            PaymentReason::Chajiao => f.write_str("查叫 not ready at a drawn hand"),
            PaymentReason::LeavePenalty => f.write_str("逃跑 leaving penalty"),
        }
    }
}

/// One payment: `payer` gives `amount` (already times the base stake) to
/// `payee`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Payment {
    /// Who pays.
    pub payer: Seat,
    /// Who receives.
    pub payee: Seat,
    /// How much, always positive.
    pub amount: i64,
    /// Why.
    pub reason: PaymentReason,
}

/// The money of a finished hand: per-seat totals and the itemized
/// payments they sum from. `deltas` always sum to zero.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Settlement {
    /// Net gain (+) or loss (−) of each seat.
    pub deltas: [i64; 4],
    /// Every payment, in the order the rules produce them.
    pub payments: Vec<Payment>,
}

impl Settlement {
    /// What each seat paid for 包胡 (covering a win for everyone,
    /// [`PaymentReason::WinCovered`]).
    ///
    /// ```
    /// use koudian_core::score::Settlement;
    /// assert_eq!(Settlement::default().baohu_paid(), [0; 4]);
    /// ```
    pub fn baohu_paid(&self) -> [i64; 4] {
        let mut paid = [0i64; 4];
        for p in &self.payments {
            if matches!(p.reason, PaymentReason::WinCovered { .. }) {
                paid[p.payer as usize] += p.amount;
            }
        }
        paid
    }
}

impl fmt::Display for Settlement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "seat   delta")?;
        for (s, d) in self.deltas.iter().enumerate() {
            writeln!(f, "{s:>4}  {d:>+6}")?;
        }
        if self.payments.is_empty() {
            return writeln!(f, "no payments");
        }
        writeln!(f, "payer → payee  amount  reason")?;
        for p in &self.payments {
            writeln!(
                f,
                "{:>5} → {:<5}  {:>6}  {}",
                p.payer, p.payee, p.amount, p.reason
            )?;
        }
        Ok(())
    }
}

/// Collects payments in base-stake units and scales them.
pub(super) struct Ledger {
    base: u64,
    payments: Vec<Payment>,
}

impl Ledger {
    pub(super) fn new(base: u32) -> Ledger {
        Ledger {
            base: base as u64,
            payments: Vec::new(),
        }
    }

    /// Records `units` × base stake from `payer` to `payee`; nothing for
    /// a zero amount or a payment to oneself.
    pub(super) fn pay(
        &mut self,
        payer: Seat,
        payee: Seat,
        units: u64,
        reason: PaymentReason,
    ) -> Result<(), Error> {
        if units == 0 || payer == payee {
            return Ok(());
        }
        let amount = units
            .checked_mul(self.base)
            .and_then(|a| i64::try_from(a).ok())
            .filter(|a| *a <= i64::MAX / 16)
            .ok_or_else(|| {
                Error::InvalidRuleset(format!(
                    "a payment of {units} × base stake {} overflows",
                    self.base
                ))
            })?;
        self.payments.push(Payment {
            payer,
            payee,
            amount,
            reason,
        });
        Ok(())
    }

    pub(super) fn finish(self) -> Result<Settlement, Error> {
        let mut deltas = [0i64; 4];
        for p in &self.payments {
            let overflow = || Error::InvalidRuleset("settlement totals overflow".into());
            let (a, b) = (p.payer as usize, p.payee as usize);
            deltas[a] = deltas[a].checked_sub(p.amount).ok_or_else(overflow)?;
            deltas[b] = deltas[b].checked_add(p.amount).ok_or_else(overflow)?;
        }
        Ok(Settlement {
            deltas,
            payments: self.payments,
        })
    }
}
