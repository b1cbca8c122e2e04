//! The forward pass of a [`Model`]: `x * input_scale`, the hidden layers
//! `relu(W x + b)`, then the policy logits and the value.
//!
//! The first layer exploits the input: most of an observation's 2247
//! values are zero, and many planes hold one value in all 34 columns (the
//! "all ones" flags, the counts). Its pre-activation is the bias plus, per
//! nonzero input, that input's column of the (input-scaled, transposed)
//! weights, and per constant plane its value times the plane's column
//! sum. The later layers are dense matrix products over the whole batch
//! (`matrixmultiply`'s sgemm). Every row is computed by the same steps in
//! the same order whatever the batch holds (sgemm's sum over `k` for one
//! output does not depend on the other rows), so a row's logits are the
//! same bits alone or in any batch: a test holds the kernel to it, and the
//! runners' logs do not depend on how decisions were batched.

use super::model::{Dense, Model, KIND_GROUPS};
use crate::error::Error;
use crate::game::N_ACTIONS;
use crate::tile::KINDS;

/// Reusable buffers of the forward pass (one per thread or agent): the
/// activations of the batch, kept between calls so that a decision
/// allocates nothing once they have grown.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    a: Vec<f32>,
    b: Vec<f32>,
}

/// `out += c * col`.
#[inline(always)]
fn axpy(out: &mut [f32], c: f32, col: &[f32]) {
    for (o, w) in out.iter_mut().zip(col) {
        *o += c * w;
    }
}

/// `y = x Wᵀ + b` for the `n` rows of `x` (`[n, d.inp]`) into `y`
/// (`[n, d.out]`), then `relu` when asked.
fn dense(d: &Dense, x: &[f32], n: usize, y: &mut [f32], relu: bool) {
    debug_assert!(x.len() == n * d.inp && y.len() == n * d.out);
    for row in y.chunks_exact_mut(d.out) {
        row.copy_from_slice(&d.bias);
    }
    // SAFETY: `x` is `n × inp` row-major (row stride `inp`), the weight is
    // `out × inp` row-major, read as its transpose `inp × out` (row
    // stride 1, column stride `inp`), `y` is `n × out` row-major; the
    // lengths are asserted above and by the callers' slicing.
    unsafe {
        matrixmultiply::sgemm(
            n,
            d.inp,
            d.out,
            1.0,
            x.as_ptr(),
            d.inp as isize,
            1,
            d.weight.as_ptr(),
            1,
            d.inp as isize,
            1.0,
            y.as_mut_ptr(),
            d.out as isize,
            1,
        );
    }
    if relu {
        y.iter_mut().for_each(|v| *v = v.max(0.0));
    }
}

impl Model {
    /// The first hidden layer of one input row, after relu, into `out`
    /// (its width), by the nonzero inputs (see the [module docs](self)).
    fn first_layer(&self, x: &[f32], out: &mut [f32]) {
        let h = out.len();
        out.copy_from_slice(&self.hidden[0].bias);
        let planes = self.header().encoding.n_planes();
        let (plane_values, extra) = x.split_at(planes * KINDS);
        for (p, row) in plane_values.chunks_exact(KINDS).enumerate() {
            let c = row[0];
            if row.iter().all(|&v| v == c) {
                if c != 0.0 {
                    axpy(out, c, &self.plane_sums[p * h..(p + 1) * h]);
                }
                continue;
            }
            for (j, &v) in row.iter().enumerate() {
                if v != 0.0 {
                    let i = p * KINDS + j;
                    axpy(out, v, &self.first_t[i * h..(i + 1) * h]);
                }
            }
        }
        for (j, &v) in extra.iter().enumerate() {
            if v != 0.0 {
                let i = planes * KINDS + j;
                axpy(out, v, &self.first_t[i * h..(i + 1) * h]);
            }
        }
        out.iter_mut().for_each(|v| *v = v.max(0.0));
    }

    /// The forward pass of a batch: `x` holds `n` rows of
    /// [`Model::inputs`] values; writes each row's 141 logits (in the
    /// core's dense action order) into `logits` (`[n, 141]`) and its raw
    /// value (expected points / `value_scale`) into `values` (`[n]`).
    /// A row's results do not depend on the other rows.
    ///
    /// Errors when the lengths disagree.
    pub fn forward(
        &self,
        x: &[f32],
        logits: &mut [f32],
        values: &mut [f32],
        scratch: &mut Scratch,
    ) -> Result<(), Error> {
        let inputs = self.inputs();
        let n = values.len();
        if x.len() != n * inputs || logits.len() != n * N_ACTIONS {
            return Err(Error::InvalidArgument(format!(
                "a forward pass of {n} rows takes {} inputs and {} logits, not {} and {}",
                n * inputs,
                n * N_ACTIONS,
                x.len(),
                logits.len()
            )));
        }
        self.forward_rows(x, n, logits, values, scratch, false);
        Ok(())
    }

    /// [`Model::forward`] with the first layer as a dense product too
    /// (`dense`), the reference its sparse first layer is tested against.
    pub(super) fn forward_rows(
        &self,
        x: &[f32],
        n: usize,
        logits: &mut [f32],
        values: &mut [f32],
        scratch: &mut Scratch,
        dense_first: bool,
    ) {
        let Scratch { a, b } = scratch;
        let h0 = self.hidden[0].out;
        a.clear();
        a.resize(n * h0, 0.0);
        if dense_first {
            let scaled: Vec<f32> = x
                .chunks_exact(self.inputs())
                .flat_map(|r| r.iter().zip(&self.input_scale).map(|(v, s)| v * s))
                .collect();
            dense(&self.hidden[0], &scaled, n, a, true);
        } else {
            for (row, out) in x.chunks_exact(self.inputs()).zip(a.chunks_exact_mut(h0)) {
                self.first_layer(row, out);
            }
        }
        for d in &self.hidden[1..] {
            b.clear();
            b.resize(n * d.out, 0.0);
            dense(d, a, n, b, true);
            std::mem::swap(a, b);
        }
        b.clear();
        b.resize(n * self.head.out, 0.0);
        dense(&self.head, a, n, b, false);
        for ((row, l), v) in b
            .chunks_exact(self.head.out)
            .zip(logits.chunks_exact_mut(N_ACTIONS))
            .zip(values.iter_mut())
        {
            l.copy_from_slice(&row[..N_ACTIONS]);
            *v = row[N_ACTIONS];
        }
        if let Some(kw) = &self.kinds {
            let planes = self.header().encoding.n_planes() * KINDS;
            for (row, l) in x
                .chunks_exact(self.inputs())
                .zip(logits.chunks_exact_mut(N_ACTIONS))
            {
                // By the nonzero inputs (most are zero), each feeding the
                // four groups' logits of its kind.
                for (i, (&v, w)) in row[..planes]
                    .iter()
                    .zip(kw.chunks_exact(KIND_GROUPS))
                    .enumerate()
                {
                    if v != 0.0 {
                        let k = i % KINDS;
                        for (g, &wg) in w.iter().enumerate() {
                            l[g * KINDS + k] += wg * v;
                        }
                    }
                }
            }
        }
    }
}
