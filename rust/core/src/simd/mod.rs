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
//! On aarch64 the batch kernels are compiled for NEON, 4 hands per vector
//! (`simd/ops/neon.rs`), which every aarch64 CPU has: the path taken
//! there unless forced (the row writer has no NEON path: it runs its
//! scalar code there, and [`kernel_isa`] says so).
//! The scalar code is the fallback and stays the reference the kernels are
//! tested against.
//!
//! * `KOUDIAN_SIMD=scalar|avx2|avx512|neon|auto` (read once, at the first
//!   batch call or env) forces a path; a path this CPU lacks (an x86-64
//!   CPU has no NEON, an aarch64 CPU no AVX), or another value, makes
//!   every batch call and every `VecEnv` construction, reset and step
//!   fail with [`Error::InvalidArgument`] naming it (never a silent
//!   fallback, never an illegal instruction).
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
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) mod ops;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) mod shanten;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) mod waits;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
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
    /// NEON (aarch64, where every CPU has it): 4 hands per vector.
    Neon,
}

impl Isa {
    /// Every path: the scalar one, then x86-64's, slowest first, then
    /// aarch64's (a CPU has the scalar path and its own architecture's at
    /// most, so the paths it has are slowest first too).
    pub const ALL: [Isa; 4] = [Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Neon];

    /// The name `KOUDIAN_SIMD` and `koudian bench` use.
    pub const fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
            Isa::Neon => "neon",
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
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => std::arch::is_aarch64_feature_detected!("neon"),
            // Another architecture's instructions.
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
            "{ENV}={v:?}: expected one of {}, auto",
            Isa::ALL.map(Isa::name).join(", ")
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
/// (`"vec_env"`), and the paths beyond the scalar one each has kernels
/// for (on the others it runs its scalar code).
pub const KERNELS: [(&str, &[Isa]); 4] = [
    ("is_win", &[Isa::Avx2, Isa::Avx512, Isa::Neon]),
    ("waits", &[Isa::Avx2, Isa::Avx512, Isa::Neon]),
    ("shanten", &[Isa::Avx2, Isa::Avx512, Isa::Neon]),
    ("vec_env", &[Isa::Avx2, Isa::Avx512]),
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
    Ok(KERNELS.iter().find(|(t, _)| *t == task).map(|&(_, paths)| {
        if paths.contains(&now) {
            now
        } else {
            Isa::Scalar
        }
    }))
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
        assert!(e.contains("scalar, avx2, avx512, neon, auto"), "{e}");
    }

    /// NEON is the path of every aarch64 CPU, and of no other.
    #[test]
    fn neon_is_the_path_of_aarch64() {
        assert_eq!(Isa::from_name("neon"), Some(Isa::Neon));
        assert_eq!(Isa::Neon.available(), cfg!(target_arch = "aarch64"));
        if cfg!(target_arch = "aarch64") {
            assert_eq!(Isa::detected(), Isa::Neon);
            assert!(!Isa::Avx2.available() && !Isa::Avx512.available());
            // The batch kernels run on it, the env's row writer (no NEON
            // path) on its scalar code.
            with_isa(Isa::Neon, || {
                assert_eq!(kernel_isa("is_win").unwrap(), Some(Isa::Neon));
                assert_eq!(kernel_isa("vec_env").unwrap(), Some(Isa::Scalar));
            })
            .unwrap();
        }
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
            for i in [Isa::Avx2, Isa::Neon] {
                if i.available() {
                    with_isa(i, || assert_eq!(isa().unwrap(), i)).unwrap();
                }
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
