//! Assembly of the local heat system (Bang et al. 2015 Eq. 2/3 in the area-weighted form; see
//! [`super::local`]): the stiffness block of a region and the right-hand sides with the frozen
//! weights' coupling.

use super::local::Region;
use super::Session;
use crate::skin::heat::Source;
use crate::skin::laplacian::SymCsc;

/// The stiffness part `a K_CC + b (K M⁻¹ K)_CC` of `A_CC` (a = 1 − b; the heat diagonal is added
/// per solve). The bi-Laplacian product runs over all middle vertices, including frozen ones: that
/// is the exact principal block of the global matrix. With b = 0 it is `K_CC` itself: `rows` is
/// sorted, so each column of K keeps its row order and is copied without sorting.
pub(super) fn stiffness_block(s: &Session, rows: &[usize], lidx: &[usize], b: f64) -> SymCsc {
    let a = 1.0 - b;
    let n = rows.len();
    let mut out = SymCsc {
        n,
        col_ptr: Vec::with_capacity(n + 1),
        diag: Vec::with_capacity(n),
        ..SymCsc::default()
    };
    out.col_ptr.push(0);
    let mut col: Vec<(usize, f64)> = Vec::new();
    for (l, &r) in rows.iter().enumerate() {
        col.clear();
        for (k, kv) in s.k_column(r) {
            if lidx[k] != usize::MAX {
                col.push((lidx[k], if b == 0.0 { kv } else { a * kv }));
            }
            if b > 0.0 {
                let scale = b * kv / s.mass[k];
                for (j, jv) in s.k_column(k) {
                    if lidx[j] != usize::MAX {
                        col.push((lidx[j], scale * jv));
                    }
                }
            }
        }
        if b > 0.0 {
            col.sort_unstable_by_key(|e| e.0);
        }
        push_column(&mut out, &col, l);
    }
    out
}

/// Append one sorted column (duplicates summed) to `out`, noting the diagonal position.
fn push_column(out: &mut SymCsc, col: &[(usize, f64)], l: usize) {
    let mut last = usize::MAX;
    for &(j, v) in col {
        if j == last {
            if let Some(x) = out.values.last_mut() {
                *x += v;
            }
        } else {
            if j == l {
                out.diag.push(out.values.len());
            }
            out.row_idx.push(j);
            out.values.push(v);
            last = j;
        }
    }
    out.col_ptr.push(out.values.len());
}

/// `(K_CF w_F)` of every solved column at every region row: the frozen one-ring coupling of the
/// Laplacian term, read once for all columns (column-major `n × columns`). Each entry sums its
/// frozen neighbours in stiffness-column order.
pub(super) fn frozen_coupling(s: &Session, sys: &Region, columns: &[u32]) -> Vec<f64> {
    let n = sys.rows.len();
    let mut col_of = vec![usize::MAX; s.joints.len()];
    for (ci, &j) in columns.iter().enumerate() {
        col_of[j as usize] = ci;
    }
    let mut out = vec![0.0; n * columns.len()];
    for (l, &r) in sys.rows.iter().enumerate() {
        for (k, kv) in s.k_column(r) {
            if sys.lidx[k] != usize::MAX {
                continue;
            }
            for &(j, w) in &s.raw[s.heat_verts[k] as usize] {
                if let Some(&ci) = col_of.get(j as usize).filter(|&&ci| ci != usize::MAX) {
                    out[ci * n + l] += kv * w;
                }
            }
        }
    }
    out
}

/// Right-hand side of column `col` with b = 0: `M H p` (every tied source joint gets the full term,
/// as in the plain solver) minus the frozen coupling.
pub(super) fn heat_rhs(
    mh: &[f64],
    sources: &[Option<&Source>],
    col: u32,
    coupling: &[f64],
    out: &mut [f64],
) {
    for (l, o) in out.iter_mut().enumerate() {
        let v = match &sources[l] {
            Some(src) if src.joints.contains(&col) => mh[l],
            _ => 0.0,
        };
        *o = v - coupling[l];
    }
}

/// Right-hand side of column `col` with b > 0: `M H p` minus the frozen values' coupling
/// `(a K + b K M⁻¹ K)_CF w_F` (two frozen rings).
pub(super) fn fill_rhs(
    s: &Session,
    sys: &Region,
    mh: &[f64],
    sources: &[Option<&Source>],
    col: u32,
    b: f64,
    out: &mut [f64],
) {
    let (rows_c, lidx) = (&sys.rows, &sys.lidx);
    let a = 1.0 - b;
    let frozen = |k: usize| {
        if lidx[k] == usize::MAX {
            s.raw_weight(s.heat_verts[k] as usize, col)
        } else {
            0.0
        }
    };
    // (K w_F) at row k, w_F zero on the region.
    let k_wf = |k: usize| -> f64 { s.k_column(k).map(|(l, v)| v * frozen(l)).sum() };
    for (l, &r) in rows_c.iter().enumerate() {
        let mut v = match &sources[l] {
            Some(src) if src.joints.contains(&col) => mh[l],
            _ => 0.0,
        };
        let mut coupling = 0.0;
        for (k, kv) in s.k_column(r) {
            coupling += a * kv * frozen(k);
            if b > 0.0 {
                coupling += b * kv / s.mass[k] * k_wf(k);
            }
        }
        v -= coupling;
        out[l] = v;
    }
}
