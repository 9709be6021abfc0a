//! Does a watertight shell intersect itself? The pseudo-normal sign ([`super::winding`]) is the
//! inside/outside sign only on a closed surface that does not (Bærentzen & Aanæs 2005 assume it):
//! where an arm passes into the torso, the closest feature's pseudo-normal says "outside" at
//! points inside the torso, and the signed distance flips sign in free space (fake surface inside
//! the body, and a field that is not 1-Lipschitz, which the octree's skip assumes). Such a shell
//! gets the winding sign instead (docs/algorithms.md#distance-field).
//!
//! Test: every triangle's box against the tree (pairs once, by slot), then an exact
//! triangle–triangle test built only from Shewchuk's adaptive orientation predicates (`robust`),
//! so the answer does not depend on rounding. Triangles are closed sets: touching counts.
//! Adjacent pairs (sharing mesh vertices) always meet there, so:
//! * sharing an edge: they intersect only if coplanar and folded onto each other (apexes on the
//!   same side of the edge); otherwise they meet exactly along the edge;
//! * sharing one vertex `v`: they intersect if their intersection holds a point other than `v`:
//!   an edge opposite `v` meets the other triangle, or an edge at `v` lies in the other's plane
//!   inside its angle at `v` (the farthest point of the convex intersection lies on one of them);
//! * sharing three vertices (the same face twice): they intersect.
//!
//! Triangles of zero area (exactly collinear corners) are skipped: they bound no solid.

use rayon::prelude::*;
use robust::{orient2d, orient3d, Coord, Coord3D};

use super::bvh::{Bvh, Node};
use crate::geom::V3;

/// Fewest leaves per rayon task.
const MIN_LEN: usize = 256;
/// Traversal stack (the tree is far shallower).
const STACK: usize = 128;

/// True if two triangles of `bvh` (built from `triangles`, whose vertex indices say which pairs
/// are adjacent) intersect other than along the edges and vertices they share (module docs).
/// One traversal per leaf (its box against the tree), then its triangles against the slots
/// found, each pair once (`j > i`), own boxes before the exact test.
pub fn self_intersects(bvh: &Bvh, triangles: &[[u32; 3]]) -> bool {
    let ids = |slot: usize| {
        bvh.tri_ids
            .get(slot)
            .and_then(|&t| triangles.get(t as usize))
    };
    let leaves: Vec<&Node> = bvh.nodes.iter().filter(|n| n.count > 0).collect();
    let boxes: Vec<(V3, V3)> = bvh.tris.iter().map(|t| corners_box(&t.v)).collect();
    leaves
        .par_iter()
        .with_min_len(MIN_LEN)
        .map_init(Vec::new, |found, leaf| {
            let (lo, hi) = leaf.bounds();
            let first = leaf.first as usize;
            let end = (first + leaf.count as usize).min(bvh.tris.len());
            found.clear();
            overlapping_slots(bvh, &lo, &hi, first, found);
            (first..end).any(|i| {
                let (Some(ti), Some(a), Some((alo, ahi))) = (ids(i), bvh.tris.get(i), boxes.get(i))
                else {
                    return false;
                };
                found.iter().filter(|&&j| j > i).any(|&j| {
                    let (Some(tj), Some(b), Some((blo, bhi))) =
                        (ids(j), bvh.tris.get(j), boxes.get(j))
                    else {
                        return false;
                    };
                    // Degeneracy only for the rare hits.
                    (0..3).all(|k| blo[k] <= ahi[k] && bhi[k] >= alo[k])
                        && pair_intersects(ti, &a.v, tj, &b.v)
                        && !degenerate(&a.v)
                        && !degenerate(&b.v)
                })
            })
        })
        .any(|hit| hit)
}

/// The box of a triangle's corners.
fn corners_box(v: &[V3; 3]) -> (V3, V3) {
    (v[0].inf(&v[1]).inf(&v[2]), v[0].sup(&v[1]).sup(&v[2]))
}

/// Push every slot `j >= from` of the leaves whose box overlaps `lo..hi` onto `found`.
fn overlapping_slots(bvh: &Bvh, lo: &V3, hi: &V3, from: usize, found: &mut Vec<usize>) {
    let mut stack = [0u32; STACK];
    let mut top = usize::from(!bvh.nodes.is_empty());
    while top > 0 {
        top -= 1;
        let Some(n) = bvh.nodes.get(stack[top] as usize) else {
            continue;
        };
        let (nlo, nhi) = n.bounds();
        if (0..3).any(|k| nlo[k] > hi[k] || nhi[k] < lo[k]) {
            continue;
        }
        if n.count > 0 {
            let first = n.first as usize;
            found.extend(first.max(from)..first + n.count as usize);
        } else if top + 2 <= stack.len() {
            stack[top] = n.first;
            stack[top + 1] = n.first + 1;
            top += 2;
        }
    }
}

/// Exact test of two triangles with vertex indices `ia`, `ib` and corners `a`, `b`, with the
/// adjacency rules of the module docs.
pub fn pair_intersects(ia: &[u32; 3], a: &[V3; 3], ib: &[u32; 3], b: &[V3; 3]) -> bool {
    // shared[k] = the corner of `b` equal (by index) to corner k of `a`.
    let shared: [Option<usize>; 3] = std::array::from_fn(|k| ib.iter().position(|&x| x == ia[k]));
    match shared.iter().flatten().count() {
        0 => triangles_intersect(a, b),
        1 => {
            let k = shared.iter().position(Option::is_some).unwrap_or(0);
            let m = shared[k].unwrap_or(0);
            share_vertex(&rotate(a, k), &rotate(b, m))
        }
        2 => {
            let k = shared.iter().position(Option::is_none).unwrap_or(0);
            let m = (0..3).find(|&m| !shared.contains(&Some(m))).unwrap_or(0);
            share_edge(&a[(k + 1) % 3], &a[(k + 2) % 3], &a[k], &b[m])
        }
        _ => true,
    }
}

/// `v` rotated so that corner `k` comes first (orientation kept).
fn rotate(v: &[V3; 3], k: usize) -> [V3; 3] {
    [v[k], v[(k + 1) % 3], v[(k + 2) % 3]]
}

/// Two triangles sharing the edge `u`–`w`, apexes `a` and `b`: they meet beyond the edge only
/// when coplanar with both apexes on the same side of it.
fn share_edge(u: &V3, w: &V3, a: &V3, b: &V3) -> bool {
    // Apexes strictly on opposite sides of the plane through the edge parallel to an axis: that
    // plane separates the two triangles but for the edge, coplanar or not. Decided without an
    // exact zero from `o3`, which costs the predicate's slowest path on flat (subdivided) regions.
    let quick = dominant_axis(&[*u, *w, *a]);
    if o2(quick, u, w, a) * o2(quick, u, w, b) < 0 {
        return false;
    }
    if o3(u, w, a, b) != 0 {
        return false;
    }
    let Some(axis) = projection_axis(&[*u, *w, *a]) else {
        return false;
    };
    o2(axis, u, w, a) == o2(axis, u, w, b)
}

/// Two triangles sharing their first corner `a[0] == b[0]` (and no other): see the module docs.
fn share_vertex(a: &[V3; 3], b: &[V3; 3]) -> bool {
    !split_at_vertex(a, b) && meet_beyond_vertex(a, b)
}

/// [`share_vertex`] without the 2-D split first: the exact rules of the module docs.
fn meet_beyond_vertex(a: &[V3; 3], b: &[V3; 3]) -> bool {
    // The usual case, decided by two orientations: one triangle's other corners strictly on one
    // side of the other's plane, so that plane meets it only at the shared vertex.
    let side = |t: &[V3; 3], p: &V3| o3(&t[0], &t[1], &t[2], p);
    let (b1, b2) = (side(a, &b[1]), side(a, &b[2]));
    if b1 != 0 && b1 == b2 {
        return false;
    }
    // Coplanar (flat regions, subdivided faces): they overlap beyond `v` iff their angles at `v`
    // share a ray, i.e. a side of one lies in the other's angle.
    if b1 == 0 && b2 == 0 {
        let Some(axis) = projection_axis(a) else {
            return false;
        };
        let in_angle = |p: &V3, t: &[V3; 3]| {
            let s = o2(axis, &t[0], &t[1], &t[2]);
            o2(axis, &t[0], &t[1], p) * s >= 0 && o2(axis, &t[0], p, &t[2]) * s >= 0
        };
        return [a[1], a[2]].iter().any(|p| in_angle(p, b))
            || [b[1], b[2]].iter().any(|p| in_angle(p, a));
    }
    let (a1, a2) = (side(b, &a[1]), side(b, &a[2]));
    if a1 != 0 && a1 == a2 {
        return false;
    }
    segment_meets_triangle(&a[1], &a[2], b)
        || segment_meets_triangle(&b[1], &b[2], a)
        || [a[1], a[2]].iter().any(|p| ray_in_angle(p, b))
        || [b[1], b[2]].iter().any(|p| ray_in_angle(p, a))
}

/// Triangles sharing their first corner `v`, seen along the axis that keeps `a`'s area: true if
/// the plane through `v` and one of the four sides at `v`, parallel to that axis, has one
/// triangle's third corner strictly on one side and both free corners of the other strictly on
/// the other. The triangles then meet only at `v` (coplanar or not), with 2-D orientations only:
/// no exact zero from `o3` on flat regions, where angles at a shared vertex are side by side.
fn split_at_vertex(a: &[V3; 3], b: &[V3; 3]) -> bool {
    let axis = dominant_axis(a);
    let v = &a[0];
    let splits = |own: &[V3; 3], other: &[V3; 3]| {
        [(1, 2), (2, 1)].iter().any(|&(k, m)| {
            let s = o2(axis, v, &own[k], &own[m]);
            s != 0 && o2(axis, v, &own[k], &other[1]) == -s && o2(axis, v, &own[k], &other[2]) == -s
        })
    };
    splits(a, b) || splits(b, a)
}

/// True if the ray from `t[0]` through `p` starts inside `t`: `p` lies in `t`'s plane, inside
/// the (closed) angle of `t` at `t[0]`.
fn ray_in_angle(p: &V3, t: &[V3; 3]) -> bool {
    if o3(&t[0], &t[1], &t[2], p) != 0 {
        return false;
    }
    let Some(axis) = projection_axis(t) else {
        return false;
    };
    let s = o2(axis, &t[0], &t[1], &t[2]);
    o2(axis, &t[0], &t[1], p) * s >= 0 && o2(axis, &t[0], p, &t[2]) * s >= 0
}

/// Exact intersection test of two closed, non-degenerate triangles: they meet iff an edge of
/// one meets the other (an endpoint of their convex intersection lies on an edge of one).
pub fn triangles_intersect(a: &[V3; 3], b: &[V3; 3]) -> bool {
    // A side of either triangle whose vertical plane (along the axis that keeps `a`'s area)
    // leaves the other strictly outside separates them in 3-D: decided by 2-D orientations,
    // before `o3`'s exact zeros on coplanar (flat, subdivided) neighbourhoods.
    let axis = dominant_axis(a);
    if separated_2d(axis, a, b) || separated_2d(axis, b, a) {
        return false;
    }
    let sb = b.map(|p| o3(&a[0], &a[1], &a[2], &p));
    if one_side(sb) {
        return false;
    }
    if sb == [0; 3] {
        // Coplanar: a 2-D separating side or an overlap.
        let Some(axis) = projection_axis(a) else {
            return false;
        };
        return !separated_2d(axis, a, b) && !separated_2d(axis, b, a);
    }
    if one_side(a.map(|p| o3(&b[0], &b[1], &b[2], &p))) {
        return false;
    }
    (0..3).any(|k| segment_meets_triangle(&a[k], &a[(k + 1) % 3], b))
        || (0..3).any(|k| segment_meets_triangle(&b[k], &b[(k + 1) % 3], a))
}

/// True if three orientations are all strictly positive or all strictly negative.
fn one_side(s: [i32; 3]) -> bool {
    (s[0] > 0 && s[1] > 0 && s[2] > 0) || (s[0] < 0 && s[1] < 0 && s[2] < 0)
}

/// Coplanar triangles, projected by dropping `axis`: true if a side line of `a` has all of `b`
/// strictly outside (two closed convex polygons are disjoint iff a side of one separates them).
fn separated_2d(axis: usize, a: &[V3; 3], b: &[V3; 3]) -> bool {
    let s = o2(axis, &a[0], &a[1], &a[2]);
    (0..3).any(|k| {
        b.iter()
            .all(|p| o2(axis, &a[k], &a[(k + 1) % 3], p) * s < 0)
    })
}

/// Exact test of the closed segment `p`–`q` against the closed, non-degenerate triangle `t`.
fn segment_meets_triangle(p: &V3, q: &V3, t: &[V3; 3]) -> bool {
    let (op, oq) = (o3(&t[0], &t[1], &t[2], p), o3(&t[0], &t[1], &t[2], q));
    if (op > 0 && oq > 0) || (op < 0 && oq < 0) {
        return false;
    }
    if op == 0 && oq == 0 {
        return coplanar_segment_meets_triangle(p, q, t);
    }
    // The segment crosses the plane: its line must pass inside the triangle (Plücker signs).
    let s = [0, 1, 2].map(|k| o3(p, q, &t[k], &t[(k + 1) % 3]));
    s.iter().all(|&x| x >= 0) || s.iter().all(|&x| x <= 0)
}

/// The segment lies in the triangle's plane: test in the projection that keeps its area.
fn coplanar_segment_meets_triangle(p: &V3, q: &V3, t: &[V3; 3]) -> bool {
    let Some(axis) = projection_axis(t) else {
        return false;
    };
    let inside = |x: &V3| {
        let s = [0, 1, 2].map(|k| o2(axis, &t[k], &t[(k + 1) % 3], x));
        s.iter().all(|&v| v >= 0) || s.iter().all(|&v| v <= 0)
    };
    inside(p) || inside(q) || (0..3).any(|k| segments_meet_2d(axis, p, q, &t[k], &t[(k + 1) % 3]))
}

/// Closed segments `p`–`q` and `r`–`s` meet, in the projection dropping `axis`.
fn segments_meet_2d(axis: usize, p: &V3, q: &V3, r: &V3, s: &V3) -> bool {
    let (d1, d2) = (o2(axis, p, q, r), o2(axis, p, q, s));
    let (d3, d4) = (o2(axis, r, s, p), o2(axis, r, s, q));
    if d1 * d2 < 0 && d3 * d4 < 0 {
        return true;
    }
    // Collinear touching: an endpoint on the other segment.
    let within =
        |a: &V3, b: &V3, x: &V3| (0..3).all(|k| x[k] >= a[k].min(b[k]) && x[k] <= a[k].max(b[k]));
    (d1 == 0 && within(p, q, r))
        || (d2 == 0 && within(p, q, s))
        || (d3 == 0 && within(r, s, p))
        || (d4 == 0 && within(r, s, q))
}

/// The coordinate to drop so that `t`'s projection keeps a non-zero area, exactly (the largest
/// normal component first), or `None` for a degenerate triangle.
fn projection_axis(t: &[V3; 3]) -> Option<usize> {
    let n = (t[1] - t[0]).cross(&(t[2] - t[0])).abs();
    let mut order = [0, 1, 2];
    order.sort_by(|&i, &j| n[j].total_cmp(&n[i]));
    order
        .into_iter()
        .find(|&axis| o2(axis, &t[0], &t[1], &t[2]) != 0)
}

/// The coordinate along which `t`'s normal is largest in floating point: a cheap axis for the
/// 2-D separation filters, which stay exact along any axis (a degenerate projection only makes
/// them undecided).
fn dominant_axis(t: &[V3; 3]) -> usize {
    let n = (t[1] - t[0]).cross(&(t[2] - t[0])).abs();
    if n.x >= n.y && n.x >= n.z {
        0
    } else if n.y >= n.z {
        1
    } else {
        2
    }
}

/// True if the corners are exactly collinear (no projection has area).
fn degenerate(t: &[V3; 3]) -> bool {
    (0..3).all(|axis| o2(axis, &t[0], &t[1], &t[2]) == 0)
}

/// −1, 0 or 1: the sign of `x` (products of signs cannot underflow, as products of the
/// predicates' tiny values could).
fn sign(x: f64) -> i32 {
    i32::from(x > 0.0) - i32::from(x < 0.0)
}

/// Exact orientation of `d` against the plane `a b c`: −1, 0 or 1.
fn o3(a: &V3, b: &V3, c: &V3, d: &V3) -> i32 {
    let c3 = |p: &V3| Coord3D {
        x: p.x,
        y: p.y,
        z: p.z,
    };
    sign(orient3d(c3(a), c3(b), c3(c), c3(d)))
}

/// Exact 2-D orientation of `a b c` projected by dropping coordinate `axis`: −1, 0 or 1.
fn o2(axis: usize, a: &V3, b: &V3, c: &V3) -> i32 {
    let (i, j) = ((axis + 1) % 3, (axis + 2) % 3);
    let c2 = |p: &V3| Coord { x: p[i], y: p[j] };
    sign(orient2d(c2(a), c2(b), c2(c)))
}

#[cfg(test)]
#[path = "selfx_tests.rs"]
mod tests;
