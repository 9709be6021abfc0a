//! Cotangent stiffness matrix and lumped one-ring areas (Baran & Popović 2007 §4; docs/algorithms.md#skin-heat-diffusion).
//!
//! Per triangle with edge vectors `e_k` opposite vertex k and area A, the P1 finite-element
//! stiffness is `K_ij = e_i·e_j / (4A)` (= −½ cot of the angle opposite edge ij for i ≠ j). Each
//! triangle's K is a Gram matrix over 4A, so it is positive semidefinite for ANY positive A: we
//! floor A relative to the mesh's mean triangle area and the sum stays PSD with rows summing to
//! zero, even on slivers (the original's `1e-6` cotangent guard has no such guarantee).

use crate::geom::P3;

/// Marker in a vertex→row map for a vertex that is not part of the system.
pub const NOT_IN_SYSTEM: u32 = u32::MAX;

/// A symmetric sparse matrix in compressed sparse column form, **both triangles stored**, rows
/// sorted within each column. `n × n`; column c holds `row_idx[col_ptr[c]..col_ptr[c+1]]`.
#[derive(Clone, Debug, Default)]
pub struct SymCsc {
    /// Dimension.
    pub n: usize,
    /// Column starts, length n + 1.
    pub col_ptr: Vec<usize>,
    /// Row index of every stored entry.
    pub row_idx: Vec<usize>,
    /// Value of every stored entry.
    pub values: Vec<f64>,
    /// Position of the diagonal entry of every column in `values`.
    pub diag: Vec<usize>,
}

impl SymCsc {
    /// Entry (r, c), 0 if not stored.
    pub fn get(&self, r: usize, c: usize) -> f64 {
        let (lo, hi) = (self.col_ptr[c], self.col_ptr[c + 1]);
        match self.row_idx[lo..hi].binary_search(&r) {
            Ok(k) => self.values[lo + k],
            Err(_) => 0.0,
        }
    }
}

/// Relative floor on triangle areas (fraction of the mean triangle area).
const AREA_FLOOR: f64 = 1e-6;

/// The cotangent stiffness matrix over the vertices with `row[v] != NOT_IN_SYSTEM` (welded
/// vertex v → matrix row), from the triangles whose three vertices are all in the system.
/// Positions in the normalized frame. The diagonal is always stored (possibly 0).
pub fn stiffness(positions: &[P3], triangles: &[[u32; 3]], row: &[u32], n: usize) -> SymCsc {
    let (tris, areas): (Vec<[usize; 3]>, Vec<f64>) = triangles
        .iter()
        .filter_map(|t| {
            let r = t.map(|v| row.get(v as usize).copied().unwrap_or(NOT_IN_SYSTEM));
            let inside = r.iter().all(|&x| (x as usize) < n);
            let ok = inside && t.iter().all(|&v| (v as usize) < positions.len());
            ok.then(|| {
                let rows = [r[0] as usize, r[1] as usize, r[2] as usize];
                (rows, triangle_area(positions, t))
            })
        })
        .unzip();
    let mean = areas.iter().sum::<f64>() / areas.len().max(1) as f64;
    let floor = (mean * AREA_FLOOR).max(f64::MIN_POSITIVE);
    let pos_of_row = rows_to_positions(positions, row, n);

    // Per column: diagonal first, then up to two entries per incident triangle.
    let mut count = vec![1usize; n];
    for t in &tris {
        for &v in t {
            count[v] += 2;
        }
    }
    let mut start = vec![0usize; n + 1];
    for c in 0..n {
        start[c + 1] = start[c] + count[c];
    }
    let mut fill = start[..n].to_vec();
    let mut rows = vec![0usize; start[n]];
    let mut vals = vec![0.0; start[n]];
    for c in 0..n {
        rows[fill[c]] = c;
        fill[c] += 1;
    }
    for (t, area) in tris.iter().zip(&areas) {
        let p = t.map(|v| pos_of_row[v]);
        let e = [p[2] - p[1], p[0] - p[2], p[1] - p[0]];
        let inv4a = 1.0 / (4.0 * area.max(floor));
        for i in 0..3 {
            for j in 0..3 {
                if i == j {
                    continue;
                }
                let k = e[i].dot(&e[j]) * inv4a;
                let c = t[j];
                rows[fill[c]] = t[i];
                vals[fill[c]] = k;
                fill[c] += 1;
                // Rows sum to zero: the diagonal is minus the off-diagonals.
                vals[start[c]] -= k;
            }
        }
    }
    compress(n, &start, rows, vals)
}

/// Sort each column by row and merge duplicates.
fn compress(n: usize, start: &[usize], rows: Vec<usize>, vals: Vec<f64>) -> SymCsc {
    let mut out = SymCsc {
        n,
        col_ptr: Vec::with_capacity(n + 1),
        row_idx: Vec::with_capacity(rows.len() / 2 + n),
        values: Vec::with_capacity(rows.len() / 2 + n),
        diag: Vec::with_capacity(n),
    };
    out.col_ptr.push(0);
    let mut col: Vec<(usize, f64)> = Vec::new();
    for c in 0..n {
        col.clear();
        col.extend((start[c]..start[c + 1]).map(|k| (rows[k], vals[k])));
        col.sort_unstable_by_key(|e| e.0);
        let mut last = usize::MAX;
        for &(r, v) in &col {
            if r == last {
                if let Some(x) = out.values.last_mut() {
                    *x += v;
                }
            } else {
                if r == c {
                    out.diag.push(out.row_idx.len());
                }
                out.row_idx.push(r);
                out.values.push(v);
                last = r;
            }
        }
        out.col_ptr.push(out.row_idx.len());
    }
    out
}

fn rows_to_positions(positions: &[P3], row: &[u32], n: usize) -> Vec<P3> {
    let mut out = vec![P3::origin(); n];
    for (v, &r) in row.iter().enumerate() {
        if let (Some(slot), Some(p)) = (out.get_mut(r as usize), positions.get(v)) {
            *slot = *p;
        }
    }
    out
}

fn triangle_area(positions: &[P3], t: &[u32; 3]) -> f64 {
    let [a, b, c] = t.map(|v| positions[v as usize]);
    0.5 * (b - a).cross(&(c - a)).norm()
}

/// Lumped mass per matrix row: the sum of the areas of the triangles around the vertex (the
/// original's `M_ii`, not one third of it), floored at `1e-3` of the mean so zero-area one-rings
/// still feel their heat.
pub fn one_ring_areas(positions: &[P3], triangles: &[[u32; 3]], row: &[u32], n: usize) -> Vec<f64> {
    let mut m = vec![0.0; n];
    for t in triangles {
        if !t
            .iter()
            .all(|&v| (v as usize) < positions.len().min(row.len()))
        {
            continue;
        }
        let a = triangle_area(positions, t);
        for &v in t {
            if let Some(x) = m.get_mut(row[v as usize] as usize) {
                *x += a;
            }
        }
    }
    let mean = m.iter().sum::<f64>() / n.max(1) as f64;
    let floor = (mean * 1e-3).max(f64::MIN_POSITIVE);
    for x in &mut m {
        *x = x.max(floor);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tetra() -> (Vec<P3>, Vec<[u32; 3]>) {
        let p = vec![
            P3::new(0.0, 0.0, 0.0),
            P3::new(1.0, 0.0, 0.0),
            P3::new(0.0, 1.0, 0.0),
            P3::new(0.2, 0.3, 1.0),
        ];
        let t = vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]];
        (p, t)
    }

    #[test]
    fn rows_sum_to_zero_symmetric_and_psd_diagonal() {
        let (p, t) = tetra();
        let row: Vec<u32> = (0..4).collect();
        let l = stiffness(&p, &t, &row, 4);
        for c in 0..4 {
            let s: f64 = (l.col_ptr[c]..l.col_ptr[c + 1]).map(|k| l.values[k]).sum();
            assert!(s.abs() < 1e-12, "column {c} sums to {s}");
            assert!(l.get(c, c) > 0.0);
            for r in 0..4 {
                assert!((l.get(r, c) - l.get(c, r)).abs() < 1e-12);
            }
        }
        // Right triangle (0,1,2) at vertex 0: the edge 1-2 is opposite a 90° angle (cot 0), so
        // its only contributions come from triangle (1,2,3).
        let cot = |a: P3, o: P3, b: P3| {
            let (u, v) = (a - o, b - o);
            u.dot(&v) / u.cross(&v).norm()
        };
        let expect = -0.5 * cot(p[1], p[3], p[2]);
        assert!((l.get(1, 2) - expect).abs() < 1e-12);
    }

    #[test]
    fn masked_vertices_and_slivers() {
        let (mut p, t) = tetra();
        p[3] = P3::new(0.5, 0.5, 0.0); // flat: two slivers of zero area
        let row = vec![0, 1, 2, NOT_IN_SYSTEM];
        let l = stiffness(&p, &t, &row, 3);
        assert_eq!(l.n, 3);
        assert!(l.values.iter().all(|v| v.is_finite()));
        let m = one_ring_areas(&p, &t, &row, 3);
        assert!(m.iter().all(|&x| x > 0.0));
    }
}
