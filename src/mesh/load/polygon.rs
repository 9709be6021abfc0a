//! Polygon triangulation shared by the OBJ, OFF and PLY loaders.
//!
//! Fan triangulation is only right for convex polygons; artists' n-gons are often concave (an
//! L-shaped cap, a notched sleeve end). Polygons are ear-clipped in their best-fit plane (Newell
//! normal) and fall back to a fan when the polygon is too large, degenerate, or self-intersecting
//! so that no ear can be found. Either way a polygon of `n` corners yields `n − 2` triangles, so
//! triangle counts match what other tools report.

use crate::geom::{P3, V3};

/// Polygons larger than this are fanned: ear clipping is O(n²)–O(n³) and huge n-gons (caps of
/// scanned meshes, malicious files) must not stall loading.
const MAX_EAR_CLIP: usize = 64;

/// Append the triangles of polygon `poly` (indices into `positions`, already range-checked by the
/// caller) to `out`. Polygons with fewer than 3 corners add nothing.
pub(crate) fn triangulate(positions: &[P3], poly: &[u32], out: &mut Vec<[u32; 3]>) {
    let start = out.len();
    triangulate_corners(positions, poly, out);
    for t in &mut out[start..] {
        *t = t.map(|k| poly[k as usize]);
    }
}

/// [`triangulate`], but the triangles index the polygon's corners (0..poly.len()), so that
/// per-corner data (OBJ texture coordinates and normals) can follow them.
pub(crate) fn triangulate_corners(positions: &[P3], poly: &[u32], out: &mut Vec<[u32; 3]>) {
    match poly.len() {
        0..=2 => {}
        3 => out.push([0, 1, 2]),
        n if n > MAX_EAR_CLIP => fan(n, out),
        n => {
            let before = out.len();
            if !ear_clip(positions, poly, out) {
                out.truncate(before);
                fan(n, out);
            }
        }
    }
}

/// Fan triangulation around the first of `n` corners.
fn fan(n: usize, out: &mut Vec<[u32; 3]>) {
    for k in 1..n.saturating_sub(1) {
        out.push([0, k as u32, k as u32 + 1]);
    }
}

/// Newell's normal of a polygon (robust best-fit plane normal, length = 2 × projected area).
fn newell_normal(pts: &[P3]) -> V3 {
    let mut n = V3::zeros();
    for (i, p) in pts.iter().enumerate() {
        let q = &pts[(i + 1) % pts.len()];
        n.x += (p.y - q.y) * (p.z + q.z);
        n.y += (p.z - q.z) * (p.x + q.x);
        n.z += (p.x - q.x) * (p.y + q.y);
    }
    n
}

/// 2D cross product of (b − a) × (c − a).
fn cross2(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> f64 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// True if `p` lies inside or on triangle (a, b, c), which is counter-clockwise.
fn in_triangle(p: [f64; 2], a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> bool {
    cross2(a, b, p) >= 0.0 && cross2(b, c, p) >= 0.0 && cross2(c, a, p) >= 0.0
}

/// Ear clipping in the polygon's best-fit plane, triangles as corner numbers. Returns false (leaving partial output for the
/// caller to discard) when the polygon is degenerate or no ear exists.
fn ear_clip(positions: &[P3], poly: &[u32], out: &mut Vec<[u32; 3]>) -> bool {
    let Some(pts) = poly
        .iter()
        .map(|&i| positions.get(i as usize).copied())
        .collect::<Option<Vec<P3>>>()
    else {
        return false;
    };
    let n = newell_normal(&pts);
    let len = n.norm();
    if len.is_nan() || len <= 0.0 || len.is_infinite() {
        return false;
    }
    let n = n / len;
    // An orthonormal basis (u, v) of the plane with u × v = n, so the polygon's winding about n is
    // counter-clockwise in 2D.
    let helper = if n.x.abs() < 0.9 { V3::x() } else { V3::y() };
    let u = n.cross(&helper).normalize();
    let v = n.cross(&u);
    let flat: Vec<[f64; 2]> = pts
        .iter()
        .map(|p| [p.coords.dot(&u), p.coords.dot(&v)])
        .collect();
    let mut ring: Vec<usize> = (0..poly.len()).collect();
    while ring.len() > 3 {
        let Some(k) = find_ear(&flat, &ring) else {
            return false;
        };
        let m = ring.len();
        let (a, b, c) = (ring[(k + m - 1) % m], ring[k], ring[(k + 1) % m]);
        out.push([a, b, c].map(|i| i as u32));
        ring.remove(k);
    }
    if let [a, b, c] = ring[..] {
        out.push([a, b, c].map(|i| i as u32));
    }
    true
}

/// Position in `ring` of a convex corner whose triangle contains no other ring corner.
fn find_ear(flat: &[[f64; 2]], ring: &[usize]) -> Option<usize> {
    let m = ring.len();
    (0..m).find(|&k| {
        let (ia, ib, ic) = (ring[(k + m - 1) % m], ring[k], ring[(k + 1) % m]);
        let (a, b, c) = (flat[ia], flat[ib], flat[ic]);
        if cross2(a, b, c) <= 0.0 {
            return false;
        }
        ring.iter()
            .filter(|&&j| j != ia && j != ib && j != ic)
            .all(|&j| {
                // Corners coinciding with an ear corner (repeated vertices) do not block it.
                let p = flat[j];
                p == a || p == b || p == c || !in_triangle(p, a, b, c)
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area_sum(positions: &[P3], tris: &[[u32; 3]]) -> f64 {
        tris.iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| positions[i as usize]);
                (b - a).cross(&(c - a)).norm() / 2.0
            })
            .sum()
    }

    #[test]
    fn concave_l_shape_is_ear_clipped_not_fanned() {
        // An L (area 3) whose first corner is the reflex one would fan outside the polygon.
        let pts = [
            (1.0, 1.0),
            (0.0, 1.0),
            (0.0, 0.0),
            (2.0, 0.0),
            (2.0, 2.0),
            (1.0, 2.0),
        ];
        let positions: Vec<P3> = pts.iter().map(|&(x, y)| P3::new(x, 0.0, -y)).collect();
        let poly: Vec<u32> = (0..6).collect();
        let mut out = Vec::new();
        triangulate(&positions, &poly, &mut out);
        assert_eq!(out.len(), 4);
        assert!((area_sum(&positions, &out) - 3.0).abs() < 1e-12);
        // The winding of every triangle agrees with the polygon's.
        let n = newell_normal(&positions);
        for t in &out {
            let [a, b, c] = t.map(|i| positions[i as usize]);
            assert!((b - a).cross(&(c - a)).dot(&n) > 0.0);
        }
    }

    #[test]
    fn degenerate_polygon_falls_back_to_fan() {
        let positions = vec![P3::origin(); 5];
        let mut out = Vec::new();
        triangulate(&positions, &[0, 1, 2, 3, 4], &mut out);
        assert_eq!(out, vec![[0, 1, 2], [0, 2, 3], [0, 3, 4]]);
    }
}
