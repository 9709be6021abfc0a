//! The one sparse SPD factorization and multi-RHS solve (faer's supernodal LLᵀ
//! with AMD ordering, `Par::Seq` measured best on 2 cores). Every faer call lives here.
//!
//! The heat system `L_c + M·H` is SPD on every shell that received heat; a tiny diagonal shift
//! (relative to the mean diagonal) guards against round-off on slivers and isolated vertices. If
//! the numeric factorization still fails, the shift grows ×10³ per attempt before giving up.

use std::time::Instant;

use faer::linalg::solvers::Solve;
use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{MatMut, Par, Side};

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
    symbolic: SymbolicLlt<usize>,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
}

/// A numeric LLᵀ factorization, ready for any number of right-hand sides.
#[derive(Clone, Debug)]
pub struct SpdFactor {
    llt: Llt<usize, f64>,
    n: usize,
}

impl SpdPattern {
    /// Analyze the pattern of `a`.
    pub fn analyze(a: &SymCsc) -> Result<Self, String> {
        check_shape(a, 0, 0)?;
        let sym = SymbolicSparseColMatRef::new_checked(a.n, a.n, &a.col_ptr, None, &a.row_idx);
        let symbolic = SymbolicLlt::try_new(sym, Side::Lower).map_err(|e| format!("{e:?}"))?;
        Ok(Self {
            symbolic,
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
        if !self.matches(a) {
            return Err("the matrix does not have the analyzed pattern".into());
        }
        faer::set_global_parallelism(Par::Seq);
        let n = a.n;
        let mean_diag = a.diag.iter().map(|&k| a.values[k].abs()).sum::<f64>() / n.max(1) as f64;
        let scale = if mean_diag > 0.0 && mean_diag.is_finite() {
            mean_diag
        } else {
            1.0
        };
        let sym = SymbolicSparseColMatRef::new_checked(n, n, &a.col_ptr, None, &a.row_idx);
        let mut shift = FIRST_SHIFT;
        let mut values = a.values.clone();
        let t = Instant::now();
        let mut attempts = 0;
        let llt = loop {
            attempts += 1;
            for (&k, v) in a.diag.iter().zip(a.diag.iter().map(|&k| a.values[k])) {
                values[k] = v + shift * scale;
            }
            let mat = SparseColMatRef::new(sym, &values);
            match Llt::try_new_with_symbolic(self.symbolic.clone(), mat, Side::Lower) {
                Ok(llt) => break llt,
                Err(e) if attempts >= MAX_ATTEMPTS => {
                    return Err(format!("{e:?} (diagonal shift {shift:e})"));
                }
                Err(_) => shift *= 1e3,
            }
        };
        stats.numeric_ms += ms_since(t);
        stats.attempts += attempts;
        stats.shift = stats.shift.max(shift);
        Ok(SpdFactor { llt, n })
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
            faer::set_global_parallelism(Par::Seq);
            self.llt
                .solve_in_place(MatMut::from_column_major_slice_mut(rhs, self.n, k));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::P3;
    use crate::skin::laplacian::stiffness;

    #[test]
    fn solves_laplacian_plus_diagonal() {
        // Octahedron: L + I is SPD; check the residual for two right-hand sides.
        let p = vec![
            P3::new(1.0, 0.0, 0.0),
            P3::new(-1.0, 0.0, 0.0),
            P3::new(0.0, 1.0, 0.0),
            P3::new(0.0, -1.0, 0.0),
            P3::new(0.0, 0.0, 1.0),
            P3::new(0.0, 0.0, -1.0),
        ];
        let t = vec![
            [0, 2, 4],
            [2, 1, 4],
            [1, 3, 4],
            [3, 0, 4],
            [2, 0, 5],
            [1, 2, 5],
            [3, 1, 5],
            [0, 3, 5],
        ];
        let row: Vec<u32> = (0..6).collect();
        let mut a = stiffness(&p, &t, &row, 6);
        for &k in &a.diag.clone() {
            a.values[k] += 1.0;
        }
        let b: Vec<f64> = (0..12).map(|i| (i as f64).sin()).collect();
        let mut x = b.clone();
        let stats = solve_spd(&a, &mut x, 2).expect("SPD system");
        assert_eq!(stats.attempts, 1);
        for col in 0..2 {
            for r in 0..6 {
                let ax: f64 = (0..6).map(|c| a.get(r, c) * x[col * 6 + c]).sum();
                assert!((ax - b[col * 6 + r]).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn singular_system_is_regularized_not_fatal() {
        // A pure Laplacian is singular (constants in the null space): the shift rescues it.
        let p = vec![
            P3::new(0.0, 0.0, 0.0),
            P3::new(1.0, 0.0, 0.0),
            P3::new(0.0, 1.0, 0.0),
        ];
        let a = stiffness(&p, &[[0, 1, 2]], &[0, 1, 2], 3);
        // A right-hand side in the range of L (sums to zero): the shifted solve must still solve
        // L x = b, with no constant component (the null space is damped by the shift).
        let b = [1.0, -0.25, -0.75];
        let mut x = b.to_vec();
        let stats = solve_spd(&a, &mut x, 1).expect("regularized");
        assert!(stats.shift >= FIRST_SHIFT && stats.attempts <= MAX_ATTEMPTS);
        for (r, want) in b.iter().enumerate() {
            let lx: f64 = (0..3).map(|c| a.get(r, c) * x[c]).sum();
            assert!(
                (lx - want).abs() < 1e-6,
                "row {r}: (L x) = {lx}, b = {want}"
            );
        }
        // Round-off along the null space is amplified by 1/shift: a loose bound suffices.
        assert!(
            x.iter().sum::<f64>().abs() < 1e-4,
            "constant component in {x:?}"
        );
    }

    /// A `side × side` grid of squares (two triangles each), z a gentle bump: big enough for the
    /// supernodal factorization.
    fn grid(side: usize) -> (Vec<P3>, Vec<[u32; 3]>) {
        let mut p = Vec::new();
        for i in 0..side {
            for j in 0..side {
                let (x, y) = (i as f64 / side as f64, j as f64 / side as f64);
                p.push(P3::new(x, y, 0.1 * (3.0 * x).sin() * (2.0 * y).cos()));
            }
        }
        let id = |i: usize, j: usize| (i * side + j) as u32;
        let mut t = Vec::new();
        for i in 0..side - 1 {
            for j in 0..side - 1 {
                t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        (p, t)
    }

    #[test]
    fn a_pattern_analyzed_before_the_heat_term_gives_the_fresh_solution_bit_for_bit() {
        // `skin::system` analyzes L_c alone, then factors L_c + M·H with that analysis: the
        // ordering must not depend on the values, so the solution equals a fresh solve's.
        let (p, t) = grid(120);
        let n = p.len();
        let row: Vec<u32> = (0..n as u32).collect();
        let l = stiffness(&p, &t, &row, n);
        let pattern = SpdPattern::analyze(&l).expect("pattern");
        let mut a = l.clone();
        for (r, &k) in a.diag.clone().iter().enumerate() {
            a.values[k] += 1e-3 * (1.0 + (r % 7) as f64);
        }
        let k = 13;
        let b: Vec<f64> = (0..n * k)
            .map(|i| ((i * 7919) % 1000) as f64 * 1e-3)
            .collect();
        let mut fresh = b.clone();
        solve_spd(&a, &mut fresh, k).expect("fresh");
        let mut reused = b;
        solve_spd_with(&pattern, &a, &mut reused, k).expect("reused");
        assert!(fresh
            .iter()
            .zip(&reused)
            .all(|(x, y)| x.to_bits() == y.to_bits()));
    }
}
