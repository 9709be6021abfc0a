//! Nearest medial sample queries for refinement (Baran & Popović 2007 §3.5; the original uses the nearest of *all* medial
//! samples): a static, balanced k-d tree over the sample centres (implicit layout: each subtree is a
//! slice whose middle element splits it on axis `depth % 3`), queried with a cap distance.

use std::cell::RefCell;

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

/// A far side waiting in [`query`]'s stack: its index range, split axis, and the squared distance
/// from the query to its splitting plane (a lower bound on the squared distance of its points).
#[derive(Clone, Copy)]
struct Pending {
    start: usize,
    end: usize,
    axis: usize,
    plane: f64,
}

std::thread_local! {
    /// [`query`]'s stack of waiting far sides, kept between queries: a fresh array per query was
    /// cleared on every call, and that was a third of a query's instructions.
    static STACK: RefCell<Vec<Pending>> = const { RefCell::new(Vec::new()) };
}

/// Subtrees of at most this many points are scanned whole (a subtree is a contiguous slice of the
/// implicit layout) instead of descended node by node (measured on the refinement's queries:
/// 8 takes fewest instructions, 4 and 16 a few per cent more).
const BUCKET: usize = 8;

/// Nearest-first descent over `pts`; `best` = (squared distance, index), starting at the cap.
/// Iterative (refinement runs it tens of thousands of times). Returns the point the recursive
/// search (a node, its near side, then its far side if the plane is within the best distance by
/// then; ties to the last point visited) returns, bit for bit, though it visits fewer nodes:
/// - every point at the smallest squared distance is reached: a subtree is dropped only when the
///   squared distance to its plane is strictly above the best so far, and a point beyond a plane
///   is, coordinate by coordinate and in rounded arithmetic, at least that far from the query;
/// - among those, [`visited_later`] keeps the one the recursive search visits last.
fn query(pts: &[P3], p: &P3, best: &mut (f64, usize)) {
    if best.0.is_nan() {
        return;
    }
    STACK.with_borrow_mut(|stack| {
        stack.clear();
        descend(pts, p, best, stack);
    });
}

/// [`query`]'s descent with its stack (empty on entry).
fn descend(pts: &[P3], p: &P3, best: &mut (f64, usize), stack: &mut Vec<Pending>) {
    let offer = |i: usize, d2: f64, best: &mut (f64, usize)| {
        let tie = d2 == best.0 && (best.1 == usize::MAX || visited_later(pts, p, i, best.1));
        if d2 < best.0 || tie {
            *best = (d2, i);
        }
    };
    let (mut start, mut end, mut axis) = (0, pts.len(), 0);
    loop {
        if end - start <= BUCKET {
            for (i, q) in pts[start..end].iter().enumerate() {
                offer(start + i, (q - p).norm_squared(), best);
            }
            // The next waiting far side still within reach.
            loop {
                let Some(e) = stack.pop() else { return };
                if e.plane <= best.0 {
                    (start, end, axis) = (e.start, e.end, e.axis);
                    break;
                }
            }
            continue;
        }
        let mid = start + (end - start) / 2;
        offer(mid, (pts[mid] - p).norm_squared(), best);
        let diff = p[axis] - pts[mid][axis];
        let next = (axis + 1) % 3;
        let ((near_lo, near_hi), (far_lo, far_hi)) = if diff < 0.0 {
            ((start, mid), (mid + 1, end))
        } else {
            ((mid + 1, end), (start, mid))
        };
        // Best only shrinks, so a far side beyond it now stays beyond it (NaN never enters).
        let plane = diff * diff;
        if plane <= best.0 {
            stack.push(Pending {
                start: far_lo,
                end: far_hi,
                axis: next,
                plane,
            });
        }
        (start, end, axis) = (near_lo, near_hi, next);
    }
}

/// True if the recursive search for `p` visits point `a` after point `b` (indices into the
/// implicit tree `pts`): a node before its subtrees, the side of `p` (by the same comparison as
/// the search) before the other.
fn visited_later(pts: &[P3], p: &P3, a: usize, b: usize) -> bool {
    let (mut start, mut end, mut depth) = (0, pts.len(), 0);
    loop {
        let mid = start + (end - start) / 2;
        if a == mid || b == mid || start >= end {
            return b == mid;
        }
        let (a_lo, b_lo) = (a < mid, b < mid);
        if a_lo != b_lo {
            let near_is_lo = p[depth % 3] - pts[mid][depth % 3] < 0.0;
            return a_lo != near_is_lo;
        }
        if a_lo {
            end = mid;
        } else {
            start = mid + 1;
        }
        depth += 1;
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

    /// The recursive search the iterative one replaced: the reference for which point wins, ties
    /// included.
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

    /// The query's answer within `cap` equals the plain recursive search's (asserted, `what` in
    /// the message); true when that answer is one of several points at the same distance.
    fn tied_as_recursive(g: &PointIndex, q: &P3, cap: f64, what: &str) -> bool {
        let mut want = (cap * cap, usize::MAX);
        recursive(&g.points, 0, q, 0, &mut want);
        let mut got = (cap * cap, usize::MAX);
        query(&g.points, q, &mut got);
        assert_eq!(got, want, "{what}");
        let at_best = g
            .points
            .iter()
            .filter(|t| (*t - q).norm_squared() == want.0);
        want.1 != usize::MAX && at_best.count() > 1
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
                ties += usize::from(tied_as_recursive(
                    &g,
                    &q,
                    cap,
                    &format!("at {q:?}, cap {cap}"),
                ));
            }
        }
        assert!(ties > 100, "{ties} queries with tied nearest points");
    }

    #[test]
    fn bucketed_search_equals_the_recursive_search_on_ties_duplicates_and_every_size() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = move |k: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % k
        };
        // A coordinate on the lattice (mode 1), on its half steps (on splitting planes, mode 0)
        // or off it.
        let mut coord = move |mode: u64| match mode {
            0 => rnd(12) as f64 * 0.0625,
            1 => rnd(6) as f64 * 0.125,
            3 => rnd(3) as f64,
            _ => rnd(1000) as f64 * 0.000_7,
        };
        let (mut ties, mut cases) = (0, 0);
        for n in (0..40).chain([255, 256, 257, 1000]) {
            // Points on a coarse lattice (many exact ties), some repeated outright.
            let s: Vec<Sphere> = (0..n)
                .map(|_| Sphere {
                    center: P3::new(coord(1), coord(1), coord(1)),
                    radius: 0.01,
                })
                .collect();
            let g = PointIndex::new(&s);
            for _ in 0..200 {
                let mode = coord(3) as u64;
                let last = coord(3) as u64;
                let q = P3::new(coord(mode), coord(mode), coord(last));
                for cap in [0.0, 0.0625, 0.125, 0.3, f64::INFINITY] {
                    let what = format!("n {n}, at {q:?}, cap {cap}");
                    ties += usize::from(tied_as_recursive(&g, &q, cap, &what));
                    cases += 1;
                }
            }
        }
        assert!(
            ties > 2000,
            "{ties} of {cases} queries with tied nearest points"
        );
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
