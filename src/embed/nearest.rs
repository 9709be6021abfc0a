//! Nearest medial sample queries for refinement (Baran & Popović 2007 §3.5; the original uses the nearest of *all* medial
//! samples): a static, balanced k-d tree over the sample centres (implicit layout: each subtree is a
//! slice whose middle element splits it on axis `depth % 3`), queried with a cap distance.

use crate::discretize::Sphere;
use crate::geom::{P3, V3};

/// A static k-d tree over points.
#[derive(Clone, Debug, Default)]
pub struct PointIndex {
    points: Vec<P3>,
}

impl PointIndex {
    /// Index the centres of `samples` (non-finite centres are skipped).
    pub fn new(samples: &[Sphere]) -> Self {
        let mut points: Vec<P3> = samples
            .iter()
            .map(|s| s.center)
            .filter(|p| p.coords.iter().all(|c| c.is_finite()))
            .collect();
        build(&mut points, 0);
        Self { points }
    }

    /// The nearest indexed point to `p` and its distance, if one lies within `cap`.
    pub fn nearest_within(&self, p: &P3, cap: f64) -> Option<(P3, f64)> {
        let mut best = (cap * cap, usize::MAX);
        query(&self.points, 0, p, 0, &mut best);
        self.points.get(best.1).map(|q| (*q, best.0.sqrt()))
    }
}

fn build(pts: &mut [P3], depth: usize) {
    if pts.len() <= 1 {
        return;
    }
    let axis = depth % 3;
    let mid = pts.len() / 2;
    pts.select_nth_unstable_by(mid, |a, b| a[axis].total_cmp(&b[axis]));
    let (lo, rest) = pts.split_at_mut(mid);
    build(lo, depth + 1);
    build(&mut rest[1..], depth + 1);
}

/// Search the subtree `pts` (whose first element has global index `offset`); `best` = (squared
/// distance, global index).
fn query(pts: &[P3], offset: usize, p: &P3, depth: usize, best: &mut (f64, usize)) {
    if pts.is_empty() {
        return;
    }
    let mid = pts.len() / 2;
    let d2 = (pts[mid] - p).norm_squared();
    if d2 <= best.0 {
        *best = (d2, offset + mid);
    }
    let axis = depth % 3;
    let diff = p[axis] - pts[mid][axis];
    let (lo, hi) = (&pts[..mid], &pts[mid + 1..]);
    let (near, near_off, far, far_off) = if diff < 0.0 {
        (lo, offset, hi, offset + mid + 1)
    } else {
        (hi, offset + mid + 1, lo, offset)
    };
    query(near, near_off, p, depth + 1, best);
    if diff * diff <= best.0 {
        query(far, far_off, p, depth + 1, best);
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
        let g = PointIndex::new(&s);
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
