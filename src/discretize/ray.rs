//! The winding number of a closed shell by signed ray crossings (issue 16; used by
//! [`super::shells`]).
//!
//! A closed, consistently oriented surface's winding number at `p` is the number of times a ray
//! from `p` leaves through a face (along its normal) minus the times it enters: exact, an integer,
//! and right where the surface passes through itself (winding number 2 inside the overlap), which
//! a closest-point pseudo-normal is not. Only a ray through an edge or a vertex, lying in a face's
//! plane, or starting on the surface is ambiguous: the next of a few fixed directions is tried,
//! and when every one is ambiguous the caller sums exact solid angles instead.

use super::bvh::{Bvh, Node, Tri};
use crate::geom::V3;

/// Ray directions: near +x, −x, +y, −y, +z, −z (a short way out of the shell's box crosses few
/// boxes of its tree), each tilted by small unequal amounts so that no axis- or
/// diagonal-aligned face or edge of a modelled mesh lies along it.
const DIRECTIONS: [[f64; 3]; 6] = [
    [1.0, 0.131, 0.087],
    [-1.0, -0.093, 0.121],
    [0.107, 1.0, -0.139],
    [-0.127, -1.0, 0.071],
    [0.083, -0.117, 1.0],
    [-0.141, 0.097, -1.0],
];

/// A hit whose barycentric coordinates come within this of an edge is ambiguous (the ray may
/// cross the neighbour instead, or both): far above the rounding of the coordinates, far below
/// any chance of a generic ray meeting it.
const EDGE_MARGIN: f64 = 1e-9;
/// A hit nearer than this along the ray (normalized units) means `p` lies on the surface.
const ON_SURFACE: f64 = 1e-12;
/// |det| below this share of |e1|·|e2|: the ray is parallel to the face and crosses it nowhere
/// (where it runs along a flat region, the crossing shows at that region's rim as an edge hit).
const PARALLEL: f64 = 1e-14;
/// Slack on the slab test (normalized units): a ray grazing a box is kept.
const BOX_SLACK: f64 = 1e-12;
/// Traversal stack; the tree's depth is far below it (an overflow counts as ambiguous).
const STACK: usize = 128;

/// Signed crossings of a ray from `p` with the triangles of `bvh` (a closed shell inside the box
/// `lo`..`hi`): its winding number at `p`, or None when every direction is ambiguous. The
/// directions are tried nearest box face first (ties in table order: deterministic).
pub fn crossings(bvh: &Bvh, p: &V3, lo: &V3, hi: &V3) -> Option<i64> {
    let exit = |k: usize| {
        let a = k / 2;
        if k.is_multiple_of(2) {
            hi[a] - p[a]
        } else {
            p[a] - lo[a]
        }
    };
    let mut order: [usize; 6] = std::array::from_fn(|k| k);
    order.sort_by(|&a, &b| exit(a).total_cmp(&exit(b)).then(a.cmp(&b)));
    order
        .iter()
        .find_map(|&k| cast(bvh, p, &V3::from(DIRECTIONS[k]).normalize()))
}

/// Signed crossings along direction `d` (unit), or None if ambiguous.
fn cast(bvh: &Bvh, p: &V3, d: &V3) -> Option<i64> {
    let inv = d.map(|c| 1.0 / c);
    let mut stack = [0u32; STACK];
    let mut top = 1usize;
    let mut count = 0i64;
    while top > 0 {
        top -= 1;
        let Some(n) = bvh.nodes.get(stack[top] as usize) else {
            continue;
        };
        if !hits_box(p, &inv, n) {
            continue;
        }
        if n.count > 0 {
            let first = n.first as usize;
            let end = (first + n.count as usize).min(bvh.tris.len());
            for t in &bvh.tris[first.min(end)..end] {
                count += crossing(p, d, t)?;
            }
        } else if top + 2 <= STACK {
            stack[top] = n.first;
            stack[top + 1] = n.first + 1;
            top += 2;
        } else {
            return None;
        }
    }
    Some(count)
}

/// Slab test: the ray `p + t·d`, t ≥ 0, meets the node's box (`inv` = 1/d per axis).
#[inline]
fn hits_box(p: &V3, inv: &V3, n: &Node) -> bool {
    let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
    for a in 0..3 {
        let lo = (f64::from(n.lo[a]) - p[a]) * inv[a];
        let hi = (f64::from(n.hi[a]) - p[a]) * inv[a];
        t0 = t0.max(lo.min(hi));
        t1 = t1.min(lo.max(hi));
    }
    t0 <= t1 + BOX_SLACK
}

/// Where a ray `p + t·d` meets the plane of a triangle (Möller & Trumbore 1997): barycentric
/// `u`, `v` (the third is `1 − u − v`), the distance `along` the ray in units of |d|, and the
/// determinant, whose sign tells the side (`det = −d·(e1×e2)`).
#[derive(Clone, Copy, Debug)]
pub struct PlaneHit {
    /// Weight of the triangle's second vertex.
    pub u: f64,
    /// Weight of its third vertex.
    pub v: f64,
    /// Ray parameter of the hit.
    pub along: f64,
    /// e1·(d×e2): negative when the ray runs along the counter-clockwise normal.
    pub det: f64,
}

/// The ray `p + t·d` against the plane of triangle `v`, or None when the ray is parallel to it
/// (|det| at most `PARALLEL`·|e1|·|e2|). Shared by the winding crossings here and the skin's
/// leaf segments (`skin::bones::Surface::first_hit`).
#[inline]
pub fn plane_hit(p: &V3, d: &V3, v: &[V3; 3]) -> Option<PlaneHit> {
    let e1 = v[1] - v[0];
    let e2 = v[2] - v[0];
    let h = d.cross(&e2);
    let det = e1.dot(&h);
    if det.abs() <= PARALLEL * e1.norm() * e2.norm() {
        return None;
    }
    let inv = 1.0 / det;
    let s = p - v[0];
    let u = s.dot(&h) * inv;
    let q = s.cross(&e1);
    let v = d.dot(&q) * inv;
    let along = e2.dot(&q) * inv;
    Some(PlaneHit { u, v, along, det })
}

/// +1 if the ray leaves through `t` (along its counter-clockwise normal), −1 if it enters, 0 if
/// it misses ([`plane_hit`]), None if the hit is ambiguous.
#[inline]
fn crossing(p: &V3, d: &V3, t: &Tri) -> Option<i64> {
    let Some(PlaneHit { u, v, along, det }) = plane_hit(p, d, &t.v) else {
        return Some(0);
    };
    let w = 1.0 - u - v;
    if u < -EDGE_MARGIN || v < -EDGE_MARGIN || w < -EDGE_MARGIN {
        return Some(0);
    }
    if along < -ON_SURFACE {
        return Some(0);
    }
    if u < EDGE_MARGIN || v < EDGE_MARGIN || w < EDGE_MARGIN || along < ON_SURFACE {
        return None;
    }
    // det = e1·(d×e2) = −d·(e1×e2): negative when the ray runs along the normal.
    Some(if det < 0.0 { 1 } else { -1 })
}
