//! Nearest medial sample queries for refinement (pinocchio-facts §9 uses the nearest of *all* medial
//! samples): a uniform grid over the samples, searched in growing rings up to a cap distance.

use crate::discretize::Sphere;
use crate::geom::{P3, V3};

/// Grid cell size, normalized units (the S term only cares about distances below ~0.05).
const CELL: f64 = 0.02;

/// A bucket grid over points.
#[derive(Clone, Debug, Default)]
pub struct PointGrid {
    origin: P3,
    dims: [usize; 3],
    starts: Vec<u32>,
    points: Vec<P3>,
}

impl PointGrid {
    /// Index the centres of `samples`.
    pub fn new(samples: &[Sphere]) -> Self {
        let pts: Vec<P3> = samples
            .iter()
            .map(|s| s.center)
            .filter(|p| p.coords.iter().all(|c| c.is_finite()))
            .collect();
        if pts.is_empty() {
            return Self::default();
        }
        let bb = crate::geom::Aabb::of_points(pts.iter());
        let dims =
            [0, 1, 2].map(|a| (((bb.max[a] - bb.min[a]) / CELL).floor() as usize + 1).min(512));
        let mut g = Self {
            origin: bb.min,
            dims,
            starts: Vec::new(),
            points: Vec::new(),
        };
        let ncell = dims[0] * dims[1] * dims[2];
        let mut counts = vec![0u32; ncell + 1];
        let keys: Vec<usize> = pts.iter().map(|p| g.key(&g.cell_of(p))).collect();
        for k in &keys {
            counts[*k + 1] += 1;
        }
        for i in 0..ncell {
            counts[i + 1] += counts[i];
        }
        let mut fill = counts.clone();
        let mut sorted = vec![P3::origin(); pts.len()];
        for (p, k) in pts.iter().zip(&keys) {
            sorted[fill[*k] as usize] = *p;
            fill[*k] += 1;
        }
        g.starts = counts;
        g.points = sorted;
        g
    }

    fn cell_of(&self, p: &P3) -> [i64; 3] {
        [0, 1, 2].map(|a| {
            let c = ((p[a] - self.origin[a]) / CELL).floor();
            (c.max(-1.0e6).min(1.0e6)) as i64
        })
    }

    fn key(&self, c: &[i64; 3]) -> usize {
        let cl = |v: i64, d: usize| v.clamp(0, d as i64 - 1) as usize;
        (cl(c[2], self.dims[2]) * self.dims[1] + cl(c[1], self.dims[1])) * self.dims[0]
            + cl(c[0], self.dims[0])
    }

    /// The nearest indexed point to `p` if one lies within `cap`, else `None`.
    pub fn nearest_within(&self, p: &P3, cap: f64) -> Option<(P3, f64)> {
        if self.points.is_empty() {
            return None;
        }
        let c = self.cell_of(p);
        let mut best: Option<(P3, f64)> = None;
        let max_ring = (cap / CELL).ceil() as i64 + 1;
        for ring in 0..=max_ring {
            for dz in -ring..=ring {
                for dy in -ring..=ring {
                    for dx in -ring..=ring {
                        if dx.abs().max(dy.abs()).max(dz.abs()) != ring {
                            continue;
                        }
                        let q = [c[0] + dx, c[1] + dy, c[2] + dz];
                        if (0..3).any(|a| q[a] < 0 || q[a] >= self.dims[a] as i64) {
                            continue;
                        }
                        let k = self.key(&q);
                        for m in &self.points[self.starts[k] as usize..self.starts[k + 1] as usize]
                        {
                            let d = (m - p).norm();
                            if d <= cap && best.is_none_or(|b| d < b.1) {
                                best = Some((*m, d));
                            }
                        }
                    }
                }
            }
            // Every point within ring·CELL of p has been seen once this ring is done.
            if best.is_some_and(|b| b.1 <= ring as f64 * CELL) {
                break;
            }
        }
        best
    }
}

/// Direction helper: unit vector or zero.
pub fn unit(v: V3) -> V3 {
    let n = v.norm();
    if n > 1e-300 {
        v / n
    } else {
        V3::zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_brute_force() {
        let mut s = Vec::new();
        let mut x = 0.123_f64;
        for _ in 0..500 {
            let mut r = || {
                x = (x * 9301.0 + 0.4927).fract();
                0.2 + 0.6 * x
            };
            s.push(Sphere {
                center: P3::new(r(), r(), r()),
                radius: 0.01,
            });
        }
        let g = PointGrid::new(&s);
        for q in [
            P3::new(0.5, 0.5, 0.5),
            P3::new(0.21, 0.79, 0.3),
            P3::new(0.0, 0.0, 0.0),
        ] {
            let bf = s
                .iter()
                .map(|t| (t.center - q).norm())
                .fold(f64::INFINITY, f64::min);
            match g.nearest_within(&q, 0.08) {
                Some((_, d)) => assert!((d - bf).abs() < 1e-12),
                None => assert!(bf > 0.08),
            }
        }
    }
}
