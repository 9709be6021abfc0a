//! Marching tetrahedra: a closed, manifold triangle mesh of an implicit surface.
//!
//! Each grid cube is split into 6 tetrahedra around its main diagonal; neighbouring cubes then cut
//! shared faces along the same diagonal, so the piecewise-linear level set is continuous. Grid
//! values are never exactly zero (zero is nudged outside), so the level set of the interpolant is
//! a 2-manifold without boundary as long as the surface stays inside the grid (the grid is padded).
//! Vertices are shared per grid edge; crossing parameters are clamped away from the corners so no
//! two vertices coincide and no triangle is (near-)degenerate. This is why marching tetrahedra and
//! not marching cubes: no ambiguous cases to resolve.

use std::collections::HashMap;

use crate::geom::{Aabb, P3};
use crate::mesh::weld::FastBuild;
use crate::mesh::Mesh;

/// The 6 tetrahedra of a cube (corner bit 0 = +x, bit 1 = +y, bit 2 = +z) around diagonal 0–7.
const TETS: [[usize; 4]; 6] = [
    [0, 1, 3, 7],
    [0, 1, 5, 7],
    [0, 2, 3, 7],
    [0, 2, 6, 7],
    [0, 4, 5, 7],
    [0, 4, 6, 7],
];

/// Crossing parameters are clamped to `[CLAMP, 1 − CLAMP]` along each grid edge.
const CLAMP: f64 = 0.02;

/// A sampled grid: `n` points per axis from `origin` with spacing `h`.
struct Grid {
    origin: P3,
    h: f64,
    n: [usize; 3],
    values: Vec<f64>,
}

impl Grid {
    fn id(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.n[0] * (j + self.n[1] * k)
    }
    fn point(&self, id: usize) -> P3 {
        let i = id % self.n[0];
        let j = (id / self.n[0]) % self.n[1];
        let k = id / (self.n[0] * self.n[1]);
        self.origin + nalgebra::Vector3::new(i as f64, j as f64, k as f64) * self.h
    }
}

/// Polygonize `{p : f(p) < 0}` inside `bounds` with grid spacing `h`. Triangles face outward
/// (towards increasing `f`).
pub fn polygonize(f: impl Fn(&P3) -> f64, bounds: &Aabb, h: f64) -> Mesh {
    let origin = bounds.min - nalgebra::Vector3::new(2.0 * h, 2.0 * h, 2.0 * h);
    let n = [0, 1, 2].map(|a| ((bounds.max[a] - bounds.min[a]) / h).ceil() as usize + 5);
    let mut values = Vec::with_capacity(n[0] * n[1] * n[2]);
    for k in 0..n[2] {
        for j in 0..n[1] {
            for i in 0..n[0] {
                let p = origin + nalgebra::Vector3::new(i as f64, j as f64, k as f64) * h;
                let v = f(&p);
                // Zero would put a vertex on a grid point; the grid border is forced outside.
                let border =
                    i == 0 || j == 0 || k == 0 || i + 1 == n[0] || j + 1 == n[1] || k + 1 == n[2];
                values.push(if border || v == 0.0 || v.is_nan() {
                    v.abs().max(1e-12)
                } else {
                    v
                });
            }
        }
    }
    let grid = Grid {
        origin,
        h,
        n,
        values,
    };
    let mut out = Builder {
        grid: &grid,
        mesh: Mesh::default(),
        edge_vertex: HashMap::with_hasher(FastBuild::default()),
    };
    for k in 0..n[2] - 1 {
        for j in 0..n[1] - 1 {
            for i in 0..n[0] - 1 {
                let corners: [usize; 8] = std::array::from_fn(|c| {
                    grid.id(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1))
                });
                let inside = corners.iter().filter(|&&c| grid.values[c] < 0.0).count();
                if inside == 0 || inside == 8 {
                    continue;
                }
                for tet in TETS {
                    out.tet(tet.map(|c| corners[c]));
                }
            }
        }
    }
    out.mesh
}

/// Accumulates the mesh, sharing one vertex per crossed grid edge.
struct Builder<'a> {
    grid: &'a Grid,
    mesh: Mesh,
    edge_vertex: HashMap<(usize, usize), u32, FastBuild>,
}

impl Builder<'_> {
    /// The vertex where the level set crosses grid edge `a`–`b` (signs differ).
    fn vertex(&mut self, a: usize, b: usize) -> u32 {
        let key = (a.min(b), a.max(b));
        if let Some(&v) = self.edge_vertex.get(&key) {
            return v;
        }
        let (lo, hi) = key;
        let (va, vb) = (self.grid.values[lo], self.grid.values[hi]);
        let t = (va / (va - vb)).clamp(CLAMP, 1.0 - CLAMP);
        let (pa, pb) = (self.grid.point(lo), self.grid.point(hi));
        let id = self.mesh.positions.len() as u32;
        self.mesh.positions.push(pa + (pb - pa) * t);
        self.edge_vertex.insert(key, id);
        id
    }

    /// Emit the level-set patch of one tetrahedron.
    fn tet(&mut self, c: [usize; 4]) {
        let inside: Vec<usize> = c
            .iter()
            .copied()
            .filter(|&v| self.grid.values[v] < 0.0)
            .collect();
        let outside: Vec<usize> = c
            .iter()
            .copied()
            .filter(|&v| self.grid.values[v] >= 0.0)
            .collect();
        match (inside.as_slice(), outside.as_slice()) {
            ([a], [p, q, r]) | ([p, q, r], [a]) => {
                let t = [
                    self.vertex(*a, *p),
                    self.vertex(*a, *q),
                    self.vertex(*a, *r),
                ];
                self.push(t, &inside, &outside);
            }
            ([a, b], [p, q]) => {
                let (ap, aq, bq, bp) = (
                    self.vertex(*a, *p),
                    self.vertex(*a, *q),
                    self.vertex(*b, *q),
                    self.vertex(*b, *p),
                );
                self.push([ap, aq, bq], &inside, &outside);
                self.push([ap, bq, bp], &inside, &outside);
            }
            _ => {}
        }
    }

    /// Push a triangle, oriented so its normal points from the inside corners to the outside ones.
    fn push(&mut self, t: [u32; 3], inside: &[usize], outside: &[usize]) {
        let centroid = |ids: &[usize]| {
            ids.iter()
                .map(|&i| self.grid.point(i).coords)
                .sum::<nalgebra::Vector3<f64>>()
                / ids.len() as f64
        };
        let dir = centroid(outside) - centroid(inside);
        let [a, b, c] = t.map(|i| self.mesh.positions[i as usize]);
        let n = (b - a).cross(&(c - a));
        self.mesh.triangles.push(if n.dot(&dir) >= 0.0 {
            t
        } else {
            [t[0], t[2], t[1]]
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sphere_is_closed_manifold_and_outward() {
        let b = Aabb {
            min: P3::new(-1.0, -1.0, -1.0),
            max: P3::new(1.0, 1.0, 1.0),
        };
        let m = polygonize(|p| p.coords.norm() - 0.8, &b, 0.1);
        let p = crate::mesh::prepare(m).unwrap();
        let r = &p.report;
        assert!(r.watertight, "{r:?}");
        assert_eq!(
            (r.shells, r.welded_vertices, r.degenerate_triangles),
            (1, 0, 0)
        );
        assert_eq!((r.inward_shells_flipped, r.inconsistent_edges), (0, 0));
        // Volume close to the sphere's (normalized frame: radius 0.8 → 0.45).
        let v = 4.0 / 3.0 * std::f64::consts::PI * 0.45f64.powi(3);
        assert!((p.shells[0].volume - v).abs() < 0.05 * v);
    }
}
