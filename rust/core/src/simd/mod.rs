//! Which instruction set the batch kernels run on, chosen once per process.
//!
//! The build targets x86-64-v2 (SSE4.2, `.cargo/config.toml`), so that one
//! wheel serves every x86-64 CPU since about 2009. The batch loops of
//! `is_win` (`simd/win.rs`), `waits` (`simd/waits.rs`) and `shanten`
//! (`simd/shanten.rs`) also have kernels compiled for AVX2 (x86-64-v3)
//! and for AVX-512 (F, BW, VL) with `#[target_feature]`, that take 8 or
//! 16 hands per vector (their lane operations: `simd/ops.rs`). The
//! vectorized environment's row writer (`simd/obs.rs`: each table's
//! observation row and legal-action mask, [`crate::vec_env`]) has an
//! AVX2 path too, which AVX-512 reuses: the encoder compiled again with
//! AVX2 and the mask expanded 32 actions a vector. The first batch call
//! (or env) picks the best path the CPU has
//! (`is_x86_feature_detected!`), and every later call reuses that choice.
//! The scalar code is the fallback and stays the reference the kernels are
//! tested against.
//!
//! * `KOUDIAN_SIMD=scalar|avx2|avx512|auto` (read once, at the first
//!   batch call or env) forces a path; a path this CPU lacks, or another
//!   value, makes every batch call and every `VecEnv` construction, reset
//!   and step fail with [`Error::InvalidArgument`] naming it (never a
//!   silent fallback, never an illegal instruction).
//! * [`with_isa`] forces a path for the calls made inside it on the
//!   calling thread (the tests run each path explicitly, side by side).
//!
//! The batch functions and [`VecEnv`](crate::vec_env::VecEnv)'s `reset`
//! and `step` resolve the path once per call on the calling thread
//! ([`isa`]) and hand it to their helper threads with the rows.

use crate::error::Error;
use std::cell::Cell;
use std::fmt;
use std::sync::OnceLock;

pub(crate) mod obs;
#[cfg(target_arch = "x86_64")]
pub(crate) mod ops;
#[cfg(target_arch = "x86_64")]
pub(crate) mod shanten;
#[cfg(target_arch = "x86_64")]
pub(crate) mod waits;
#[cfg(target_arch = "x86_64")]
pub(crate) mod win;

/// An instruction set a batch kernel can run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// The portable code (x86-64-v2 on x86-64): every CPU.
    Scalar,
    /// AVX2 (with the rest of x86-64-v3): 8 hands per vector.
    Avx2,
    /// AVX-512 F, BW and VL: 16 hands per vector.
    Avx512,
}

impl Isa {
    /// Every path, slowest first.
    pub const ALL: [Isa; 3] = [Isa::Scalar, Isa::Avx2, Isa::Avx512];

    /// The name `KOUDIAN_SIMD` and `koudian bench` use.
    pub const fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// The path named `name` (as [`Isa::name`] spells it).
    pub fn from_name(name: &str) -> Option<Isa> {
        Isa::ALL.into_iter().find(|i| i.name() == name)
    }

    /// Whether this CPU can run the path.
    pub fn available(self) -> bool {
        match self {
            Isa::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx2")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The best path this CPU has.
    pub fn detected() -> Isa {
        Isa::ALL
            .into_iter()
            .rev()
            .find(|i| i.available())
            .unwrap_or(Isa::Scalar)
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The environment variable that forces a path.
pub const ENV: &str = "KOUDIAN_SIMD";

/// The process's choice: from [`ENV`] or the CPU, made once.
static CHOSEN: OnceLock<Result<Isa, String>> = OnceLock::new();

thread_local! {
    /// A path forced on this thread by [`with_isa`].
    static FORCED: Cell<Option<Isa>> = const { Cell::new(None) };
}

/// The path `value` (the variable's value, if set) asks for on this CPU,
/// or why it cannot be had.
fn choose(value: Option<&str>) -> Result<Isa, String> {
    let v = match value.map(str::trim) {
        None | Some("") | Some("auto") => return Ok(Isa::detected()),
        Some(v) => v,
    };
    match Isa::from_name(v) {
        Some(i) if i.available() => Ok(i),
        Some(i) => Err(format!(
            "{ENV}={v}: this CPU lacks the {} instructions (it has: {})",
            i.name(),
            available_names()
        )),
        None => Err(format!(
            "{ENV}={v:?}: expected one of scalar, avx2, avx512, auto"
        )),
    }
}

/// The paths this CPU can run, as a list of names.
fn available_names() -> String {
    Isa::ALL
        .into_iter()
        .filter(|i| i.available())
        .map(Isa::name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The path the batch kernels take on this thread now: the one
/// [`with_isa`] forces, else the process's choice ([`ENV`], else the best
/// this CPU has). An unusable [`ENV`] is an [`Error::InvalidArgument`].
pub fn isa() -> Result<Isa, Error> {
    if let Some(i) = FORCED.with(Cell::get) {
        return Ok(i);
    }
    CHOSEN
        .get_or_init(|| choose(std::env::var(ENV).ok().as_deref()))
        .clone()
        .map_err(Error::InvalidArgument)
}

/// Runs `f` with the batch kernels of this thread forced onto `isa` (the
/// tests' hook; batches started inside `f` hand it to their helper
/// threads). A path this CPU lacks is an [`Error::InvalidArgument`] and
/// `f` does not run.
///
/// ```
/// use koudian_core::simd::{with_isa, isa, Isa};
/// assert_eq!(with_isa(Isa::Scalar, || isa().unwrap()).unwrap(), Isa::Scalar);
/// ```
pub fn with_isa<R>(isa: Isa, f: impl FnOnce() -> R) -> Result<R, Error> {
    if !isa.available() {
        return Err(Error::InvalidArgument(format!(
            "this CPU lacks the {} instructions (it has: {})",
            isa.name(),
            available_names()
        )));
    }
    struct Restore(Option<Isa>);
    impl Drop for Restore {
        fn drop(&mut self) {
            FORCED.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(FORCED.with(|c| c.replace(Some(isa))));
    Ok(f())
}

/// The batch questions and the vectorized environment's row writer
/// (`"vec_env"`), and whether each has a kernel for the paths beyond the
/// scalar one (the others run their scalar code whatever the path).
pub const KERNELS: [(&str, bool); 4] = [
    ("is_win", true),
    ("waits", true),
    ("shanten", true),
    ("vec_env", true),
];

/// The instruction set the batch `task` (`"is_win"`, `"waits"`,
/// `"shanten"`) or the env's row writer (`"vec_env"`) runs on now on
/// this thread (see [`isa`]): the path, when the task has kernels for it,
/// else [`Isa::Scalar`]; `None` for another task. An unusable [`ENV`] is
/// an [`Error::InvalidArgument`].
///
/// ```
/// use koudian_core::simd::{kernel_isa, with_isa, Isa};
/// let s = with_isa(Isa::Scalar, || kernel_isa("is_win")).unwrap().unwrap();
/// assert_eq!(s, Some(Isa::Scalar));
/// assert_eq!(kernel_isa("riichi").unwrap(), None);
/// ```
pub fn kernel_isa(task: &str) -> Result<Option<Isa>, Error> {
    let now = isa()?;
    Ok(KERNELS
        .iter()
        .find(|(t, _)| *t == task)
        .map(|&(_, has)| if has { now } else { Isa::Scalar }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The variable's values: auto and unset take the best path, a name
    /// takes that path when the CPU has it, anything else is refused with
    /// a message naming the variable.
    #[test]
    fn the_variable_chooses_or_is_refused() {
        assert_eq!(choose(None), Ok(Isa::detected()));
        assert_eq!(choose(Some("auto")), Ok(Isa::detected()));
        assert_eq!(choose(Some("scalar")), Ok(Isa::Scalar));
        for i in Isa::ALL {
            match choose(Some(i.name())) {
                Ok(got) => assert!(i.available() && got == i),
                Err(m) => assert!(!i.available() && m.contains("lacks"), "{m}"),
            }
        }
        let e = choose(Some("sse9")).unwrap_err();
        assert!(e.contains("KOUDIAN_SIMD") && e.contains("avx512"), "{e}");
    }

    /// The hook forces a path on its thread only, and restores the one
    /// before it, even nested.
    #[test]
    fn the_hook_forces_this_thread_only() {
        let outer = isa().unwrap();
        with_isa(Isa::Scalar, || {
            assert_eq!(isa().unwrap(), Isa::Scalar);
            std::thread::scope(|s| {
                s.spawn(|| assert_eq!(isa().unwrap(), outer));
            });
            if Isa::Avx2.available() {
                with_isa(Isa::Avx2, || assert_eq!(isa().unwrap(), Isa::Avx2)).unwrap();
            }
            assert_eq!(isa().unwrap(), Isa::Scalar);
        })
        .unwrap();
        assert_eq!(isa().unwrap(), outer);
        for i in Isa::ALL {
            assert_eq!(with_isa(i, || ()).is_ok(), i.available());
        }
    }
}
