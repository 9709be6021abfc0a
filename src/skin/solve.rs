//! The one sparse SPD factorization and multi-RHS solve (faer's supernodal LLᵀ
//! with AMD ordering, `Par::Seq` measured best on 2 cores). Every faer call lives here.
//!
//! The heat system `L_c + M·H` is SPD on every shell that received heat; a tiny diagonal shift
//! (relative to the mean diagonal) guards against round-off on slivers and isolated vertices. If
//! the numeric factorization still fails, the shift grows ×10³ per attempt before giving up.

use std::time::Instant;

use std::cell::RefCell;
use std::mem::MaybeUninit;
use std::sync::Arc;

use faer::dyn_stack::{MemStack, StackReq};
use faer::sparse::linalg::cholesky::{factorize_symbolic_cholesky, LltRef, SymbolicCholesky};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side};

use super::laplacian::SymCsc;
use crate::util::ms_since;

/// Timings and the regularization that was needed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolveStats {
    /// Symbolic analysis (AMD ordering, elimination tree), ms.
    pub symbolic_ms: f64,
    /// Numeric factorization (all attempts), ms.
    pub numeric_ms: f64,
    /// Forward/back substitution for all right-hand sides, ms.
    pub solve_ms: f64,
    /// Diagonal shift finally used, relative to the mean diagonal.
    pub shift: f64,
    /// Numeric factorizations tried.
    pub attempts: u32,
}

/// First relative diagonal shift, and the number of ×10³ escalations.
const FIRST_SHIFT: f64 = 1e-10;
const MAX_ATTEMPTS: u32 = 4;

/// Solve `A X = B` in place for an SPD `a` (both triangles stored; only the lower one is read).
/// `rhs` is column-major `a.n × k` (one column per right-hand side) and holds X on success.
pub fn solve_spd(a: &SymCsc, rhs: &mut [f64], k: usize) -> Result<SolveStats, String> {
    let n = a.n;
    if n == 0 || k == 0 {
        return Ok(SolveStats::default());
    }
    check_shape(a, rhs.len(), k)?;
    let t = Instant::now();
    let pattern = SpdPattern::analyze(a)?;
    let symbolic_ms = ms_since(t);
    let mut stats = solve_spd_with(&pattern, a, rhs, k)?;
    stats.symbolic_ms = symbolic_ms;
    Ok(stats)
}

/// [`solve_spd`] with the symbolic analysis of `a`'s pattern already done (the same factor and
/// solution, bit for bit). The columns are solved in one call: splitting them over two threads
/// was measured to change the last bit of some weights on a 115k-vertex mesh (faer's dense
/// kernels round differently for another column count), for about 6 % of the skin's time.
pub fn solve_spd_with(
    pattern: &SpdPattern,
    a: &SymCsc,
    rhs: &mut [f64],
    k: usize,
) -> Result<SolveStats, String> {
    let mut stats = SolveStats::default();
    if a.n == 0 || k == 0 {
        return Ok(stats);
    }
    check_shape(a, rhs.len(), k)?;
    let factor = pattern.factor(a, &mut stats)?;
    let t = Instant::now();
    factor.solve_in_place(rhs, k)?;
    stats.solve_ms = ms_since(t);
    Ok(stats)
}

fn check_shape(a: &SymCsc, len: usize, k: usize) -> Result<(), String> {
    let n = a.n;
    if len != n * k || a.col_ptr.len() != n + 1 || a.diag.len() != n {
        return Err(format!("bad system shape: n = {n}, k = {k}, rhs = {len}"));
    }
    Ok(())
}

/// The symbolic analysis (AMD ordering, elimination tree, supernodes) of one sparsity pattern:
/// reusable for every matrix with exactly that pattern (same `n`, `col_ptr`, `row_idx`), which
/// then gets the same ordering and so the same factor, bit for bit, as a fresh [`solve_spd`].
#[derive(Clone, Debug)]
pub struct SpdPattern {
    symbolic: Arc<SymbolicCholesky<usize>>,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
}

/// A numeric LLᵀ factorization, ready for any number of right-hand sides.
///
/// faer's own calls, minus its wrapper's allocations: `faer::sparse::linalg::solvers::Llt`
/// allocates and zeroes a new value array per factorization and a scratch buffer per call; here
/// the values can be handed back for the next factorization of the same pattern
/// ([`SpdPattern::factor_reusing`]), which a drag does once per step. The numeric calls, their
/// arguments (default regularization and parameters, `Par::Seq`) and the zeroed value array they
/// start from are the wrapper's, so the factor is the same bit for bit.
#[derive(Clone, Debug)]
pub struct SpdFactor {
    symbolic: Arc<SymbolicCholesky<usize>>,
    values: Vec<f64>,
    n: usize,
}

impl SpdPattern {
    /// Analyze the pattern of `a`.
    pub fn analyze(a: &SymCsc) -> Result<Self, String> {
        check_shape(a, 0, 0)?;
        let sym = SymbolicSparseColMatRef::new_checked(a.n, a.n, &a.col_ptr, None, &a.row_idx);
        // `SymbolicLlt::try_new`'s call: default ordering (AMD) and parameters.
        let symbolic =
            factorize_symbolic_cholesky(sym, Side::Lower, Default::default(), Default::default())
                .map_err(|e| format!("{e:?}"))?;
        Ok(Self {
            symbolic: Arc::new(symbolic),
            col_ptr: a.col_ptr.clone(),
            row_idx: a.row_idx.clone(),
        })
    }

    /// True if `a` has exactly this pattern.
    pub fn matches(&self, a: &SymCsc) -> bool {
        a.col_ptr == self.col_ptr && a.row_idx == self.row_idx
    }

    /// Numeric factorization of `a` (which must have this pattern), with the diagonal shift
    /// escalation of the module comment; adds its time and shift to `stats`.
    pub fn factor(&self, a: &SymCsc, stats: &mut SolveStats) -> Result<SpdFactor, String> {
        self.factor_reusing(a, &[], stats, Vec::new())
    }

    /// [`Self::factor`] of `a + diag(extra)` (`extra` empty, or one value per row added to the
    /// diagonal exactly as `a.values[a.diag[l]] += extra[l]` would), storing the factor in
    /// `spare` (the values of an earlier factor of this pattern, or empty) instead of a new array.
    /// The result does not depend on `spare`'s contents.
    pub fn factor_reusing(
        &self,
        a: &SymCsc,
        extra: &[f64],
        stats: &mut SolveStats,
        spare: Vec<f64>,
    ) -> Result<SpdFactor, String> {
        if !self.matches(a) || !(extra.is_empty() || extra.len() == a.n) {
            return Err("the matrix does not have the analyzed pattern".into());
        }
        faer::set_global_parallelism(Par::Seq);
        let mut values = a.values.clone();
        for (&k, &e) in a.diag.iter().zip(extra) {
            values[k] += e;
        }
        let base: Vec<f64> = a.diag.iter().map(|&k| values[k]).collect();
        let mut l_values = spare;
        let t = Instant::now();
        let (attempts, shift) = self.escalate(a, &mut values, &base, &mut l_values)?;
        stats.numeric_ms += ms_since(t);
        stats.attempts += attempts;
        stats.shift = stats.shift.max(shift);
        Ok(SpdFactor {
            symbolic: self.symbolic.clone(),
            values: l_values,
            n: a.n,
        })
    }

    /// The numeric factorization of `values` (`a`'s pattern) into `l_values`, with the diagonal
    /// `base` shifted by [`FIRST_SHIFT`] of its mean, ×10³ per failed attempt (module comment).
    /// Returns the attempts made and the shift that succeeded.
    fn escalate(
        &self,
        a: &SymCsc,
        values: &mut [f64],
        base: &[f64],
        l_values: &mut Vec<f64>,
    ) -> Result<(u32, f64), String> {
        let n = a.n;
        let mean_diag = base.iter().map(|d| d.abs()).sum::<f64>() / n.max(1) as f64;
        let scale = if mean_diag > 0.0 && mean_diag.is_finite() {
            mean_diag
        } else {
            1.0
        };
        let sym = SymbolicSparseColMatRef::new_checked(n, n, &a.col_ptr, None, &a.row_idx);
        let symbolic = &self.symbolic;
        let req = symbolic.factorize_numeric_llt_scratch::<f64>(Par::Seq, Default::default());
        let mut shift = FIRST_SHIFT;
        for attempts in 1.. {
            for (&k, &d) in a.diag.iter().zip(base) {
                values[k] = d + shift * scale;
            }
            // The wrapper's fresh array: every value zero.
            l_values.clear();
            l_values.resize(symbolic.len_val(), 0.0);
            let mat = SparseColMatRef::new(sym, values);
            let res = with_scratch(req, |stack| {
                symbolic
                    .factorize_numeric_llt::<f64>(
                        l_values,
                        mat,
                        Side::Lower,
                        Default::default(),
                        Par::Seq,
                        stack,
                        Default::default(),
                    )
                    .map(|_| ())
            });
            match res {
                Ok(()) => return Ok((attempts, shift)),
                Err(e) if attempts >= MAX_ATTEMPTS => {
                    return Err(format!("{e:?} (diagonal shift {shift:e})"));
                }
                Err(_) => shift *= 1e3,
            }
        }
        unreachable!("the attempts above end in a return")
    }
}

impl SpdFactor {
    /// Solve in place for `k` right-hand sides (`rhs` column-major `n × k`), sequentially.
    pub fn solve_in_place(&self, rhs: &mut [f64], k: usize) -> Result<(), String> {
        if rhs.len() != self.n * k {
            return Err(format!(
                "bad right-hand side: n = {}, k = {k}, len = {}",
                self.n,
                rhs.len()
            ));
        }
        if k > 0 && self.n > 0 {
            // `Llt::solve_in_place`'s call, sequential.
            let req = self.symbolic.solve_in_place_scratch::<f64>(k, Par::Seq);
            with_scratch(req, |stack| {
                LltRef::new(&self.symbolic, &self.values).solve_in_place_with_conj(
                    Conj::No,
                    MatMut::from_column_major_slice_mut(rhs, self.n, k),
                    Par::Seq,
                    stack,
                )
            });
        }
        Ok(())
    }

    /// The value array, for [`SpdPattern::factor_reusing`].
    pub fn into_values(self) -> Vec<f64> {
        self.values
    }
}

thread_local! {
    /// Scratch memory of faer's factorizations and solves on this thread, kept between calls
    /// (faer's wrappers allocate a fresh buffer per call; the buffer is uninitialized working
    /// space either way, so results never depend on what it held).
    static SCRATCH: RefCell<Vec<MaybeUninit<u8>>> = const { RefCell::new(Vec::new()) };
}

/// Largest scratch kept between calls: an edit's local systems fit; a big mesh's global solve
/// (hundreds of MB for all its columns) allocates its own, so no memory stays held after it.
const KEEP_SCRATCH_BYTES: usize = 64 << 20;

/// Run `f` on this thread's scratch, grown to hold `req` (with room to align it).
fn with_scratch<R>(req: StackReq, f: impl FnOnce(&mut MemStack) -> R) -> R {
    let need = req.unaligned_bytes_required();
    if need > KEEP_SCRATCH_BYTES {
        let mut own = vec![MaybeUninit::<u8>::uninit(); need];
        return f(MemStack::new(&mut own));
    }
    SCRATCH.with(|cell| {
        let mut buf = cell.borrow_mut();
        if buf.len() < need {
            buf.resize(need, MaybeUninit::uninit());
        }
        f(MemStack::new(&mut buf[..need]))
    })
}

#[cfg(test)]
#[path = "solve_tests.rs"]
mod tests;
