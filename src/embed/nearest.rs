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
        query(&self.points, p, &mut best);
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

/// A subtree waiting in [`query`]'s stack: its index range, depth, and for a far side the
/// squared distance to the splitting plane that must not exceed the best distance when it
/// comes up.
#[derive(Clone, Copy)]
struct Pending {
    start: usize,
    end: usize,
    depth: usize,
    far: Option<f64>,
}

/// Subtrees [`query`] can hold at once: one far side per level plus the current one, far more
/// than any tree of `usize` points is deep.
const STACK: usize = 66;

/// Nearest-first descent over `pts`; `best` = (squared distance, index). Iterative (refinement
/// runs it tens of thousands of times), visiting the subtrees in the order of the recursive
/// search: a node, its near side, then its far side if the plane is within the best distance
/// by then. Ties go to the last point visited, as always.
fn query(pts: &[P3], p: &P3, best: &mut (f64, usize)) {
    let root = Pending {
        start: 0,
        end: pts.len(),
        depth: 0,
        far: None,
    };
    let mut stack = [root; STACK];
    let mut top = 1;
    while top > 0 {
        top -= 1;
        let Pending {
            start,
            end,
            depth,
            far,
        } = stack[top];
        let beyond = |plane: f64| plane.is_nan() || best.0.is_nan() || plane > best.0;
        if far.is_some_and(beyond) || start >= end {
            continue;
        }
        let mid = start + (end - start) / 2;
        let d2 = (pts[mid] - p).norm_squared();
        if d2 <= best.0 {
            *best = (d2, mid);
        }
        let axis = depth % 3;
        let diff = p[axis] - pts[mid][axis];
        let (lo, hi) = ((start, mid), (mid + 1, end));
        let (near, away) = if diff < 0.0 { (lo, hi) } else { (hi, lo) };
        let depth = depth + 1;
        stack[top] = Pending {
            start: away.0,
            end: away.1,
            depth,
            far: Some(diff * diff),
        };
        stack[top + 1] = Pending {
            start: near.0,
            end: near.1,
            depth,
            far: None,
        };
        top += 2;
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

    /// The recursive search the iterative one replaced (same visiting order, same ties).
    fn recursive(pts: &[P3], offset: usize, p: &P3, depth: usize, best: &mut (f64, usize)) {
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
        recursive(near, near_off, p, depth + 1, best);
        if diff * diff <= best.0 {
            recursive(far, far_off, p, depth + 1, best);
        }
    }

    #[test]
    fn iterative_search_picks_the_recursive_searchs_point_among_ties() {
        // A lattice: many points at exactly equal distances from lattice-aligned queries.
        let s: Vec<Sphere> = (0..1000)
            .map(|i| Sphere {
                center: P3::new(
                    f64::from(i % 10) * 0.125,
                    f64::from(i / 10 % 10) * 0.125,
                    f64::from(i / 100) * 0.125,
                ),
                radius: 0.01,
            })
            .collect();
        let g = PointIndex::new(&s);
        let mut ties = 0;
        for i in 0..300 {
            let q = P3::new(
                f64::from(i % 7) * 0.0625 + 0.1,
                f64::from(i % 11) * 0.0625,
                f64::from(i % 13) * 0.0625,
            );
            for cap in [0.05, 0.1, 0.2, 1.0] {
                let mut want = (cap * cap, usize::MAX);
                recursive(&g.points, 0, &q, 0, &mut want);
                let mut got = (cap * cap, usize::MAX);
                query(&g.points, &q, &mut got);
                assert_eq!(got, want, "at {q:?}, cap {cap}");
                let at_best = g
                    .points
                    .iter()
                    .filter(|t| (*t - q).norm_squared() == want.0);
                ties += usize::from(want.1 != usize::MAX && at_best.count() > 1);
            }
        }
        assert!(ties > 100, "{ties} queries with tied nearest points");
    }

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
