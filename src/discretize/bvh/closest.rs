//! Closest-point traversals of the [`Bvh`]'s 4-wide view: iterative, nearest lane first, boxes
//! and triangles pruned against the best distance so far.

use super::wide::{cut_of, Lane, Point};
use super::{box_dist2_parts, Bvh, Feature, Hit, Tri};
use crate::geom::V3;

/// Relative margin on the triangle-box skip: a triangle is skipped only when its box is farther
/// than the best distance by more than this, so no rounding of the box or of the triangle's
/// distance can make a skipped triangle one the full test would have kept (the full test keeps
/// only a strictly nearer one); which triangle wins is unchanged, ties included.
const TRI_BOX_SLACK: f64 = 1e-9;

impl Bvh {
    /// Exact closest surface point to `p`. `hint` is a triangle slot whose distance seeds the
    /// search bound (e.g. the previous query's answer for a nearby point); pass `None` otherwise.
    /// Returns `None` only for an empty tree.
    ///
    /// Visiting order, pruning and tie-breaking: nearest lane of a wide node first (lane order
    /// on equal bounds), a box pruned when its distance is not below the best, a triangle kept
    /// only when strictly nearer; the first triangle found among equally near ones wins. The
    /// distance is the minimum over all triangles, bit for bit (tests: brute force, and the
    /// binary traversal as written before the wide tree); which of exactly tied triangles wins
    /// may differ from the binary traversal's (see `bvh/wide.rs`).
    pub fn closest(&self, p: &V3, hint: Option<u32>) -> Option<Hit> {
        self.closest_with(p, hint, &mut Scratch::default())
    }

    /// [`Self::closest`] with a caller-held traversal stack (a query's own array would be
    /// zeroed on every call: a tenth of a short query's time).
    pub fn closest_with(&self, p: &V3, hint: Option<u32>, scratch: &mut Scratch) -> Option<Hit> {
        self.closest_below(p, hint, f64::INFINITY, scratch)
    }

    /// [`Self::closest_with`] among the triangles strictly nearer than `sqrt(bound2)`: None if
    /// there is none. The hit, when there is one, is the one [`Self::closest_with`] returns (a
    /// bound only prunes boxes and triangles that could not have won).
    pub fn closest_below(
        &self,
        p: &V3,
        hint: Option<u32>,
        bound2: f64,
        scratch: &mut Scratch,
    ) -> Option<Hit> {
        let mut best = self.seed(p, hint, bound2);
        if self.tris.is_empty() || self.wide.is_empty() {
            return best.hit;
        }
        let q = Point::new(p);
        let stack = &mut scratch.0;
        stack.clear();
        let mut cur = Lane { key: 0, bound: 0.0 };
        let mut cut = cut_of(best.dist2);
        loop {
            if cur.count() > 0 {
                if self.test_leaf(p, cur.child(), cur.count(), &mut best) {
                    cut = cut_of(best.dist2);
                }
            } else if let Some(next) = self.visit_wide(cur.child() as usize, &q, cut, stack) {
                cur = next;
                continue;
            }
            match pop_next(stack, cut) {
                Some(c) => cur = c,
                None => break,
            }
        }
        best.hit
    }

    /// The search state before the traversal: bounded by `bound2`, and by the hint triangle's
    /// distance when that is nearer.
    #[inline(always)]
    fn seed(&self, p: &V3, hint: Option<u32>, bound2: f64) -> Best {
        let mut best = Best {
            hit: None,
            dist2: bound2,
        };
        if let Some(t) = hint.and_then(|s| self.tris.get(s as usize)) {
            let (q, f) = closest_on_triangle(p, t);
            let d2 = (q - p).norm_squared();
            if d2 < best.dist2 {
                best.dist2 = d2;
                best.hit = hint.map(|slot| Hit {
                    dist2: d2,
                    point: q,
                    slot,
                    feature: f,
                });
            }
        }
        best
    }

    /// Test the `count` triangles from slot `first` in slot order (plane bound first); true if
    /// one was nearer than the best.
    #[inline(always)]
    fn test_leaf(&self, p: &V3, first: u32, count: u32, best: &mut Best) -> bool {
        let mut better = false;
        let first = first as usize;
        let end = (first + count as usize).min(self.tris.len());
        for slot in first..end {
            let pl = &self.planes[slot];
            let h = pl.n.dot(p) - pl.off;
            if h * h >= best.dist2
                || box_dist2_parts(p, &pl.lo, &pl.hi) >= best.dist2 * (1.0 + TRI_BOX_SLACK)
            {
                continue;
            }
            let (q, f) = closest_on_triangle(p, &self.tris[slot]);
            let d2 = (q - p).norm_squared();
            if d2 < best.dist2 {
                better = true;
                best.dist2 = d2;
                best.hit = Some(Hit {
                    dist2: d2,
                    point: q,
                    slot: slot as u32,
                    feature: f,
                });
            }
        }
        better
    }
}

/// The traversal stack of [`Bvh::closest_with`], kept by the caller across queries.
#[derive(Debug, Default)]
pub struct Scratch(Vec<Lane>);

/// The next pending lane still below `cut` (farther ones are dropped on the way).
#[inline(always)]
fn pop_next(stack: &mut Vec<Lane>, cut: f32) -> Option<Lane> {
    while let Some(lane) = stack.pop() {
        if lane.bound < cut {
            return Some(lane);
        }
    }
    None
}

/// The best hit so far and its squared distance (infinite before the first).
struct Best {
    hit: Option<Hit>,
    dist2: f64,
}

/// Closest point on a triangle and the feature it lies on (Ericson, *Real-Time Collision
/// Detection* §5.1.5: Voronoi regions tested with barycentric dot products).
#[inline]
pub fn closest_on_triangle(p: &V3, t: &Tri) -> (V3, Feature) {
    let [a, b, c] = t.v;
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(&ap);
    let d2 = ac.dot(&ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Feature::Vertex(0));
    }
    let bp = p - b;
    let d3 = ab.dot(&bp);
    let d4 = ac.dot(&bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Feature::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (a + ab * v, Feature::Edge(0));
    }
    let cp = p - c;
    let d5 = ab.dot(&cp);
    let d6 = ac.dot(&cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Feature::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return (a + ac * w, Feature::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * w, Feature::Edge(1));
    }
    let denom = va + vb + vc;
    if denom.abs() < f64::MIN_POSITIVE {
        // Degenerate (zero-area) triangle that slipped through: fall back to vertex a.
        return (a, Feature::Vertex(0));
    }
    let v = vb / denom;
    let w = vc / denom;
    (a + ab * v + ac * w, Feature::Face)
}
