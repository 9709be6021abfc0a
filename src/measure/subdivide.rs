//! Midpoint subdivision: every triangle is split into four at its edge midpoints; the new vertex of
//! an edge is shared by both triangles on it. The surface is unchanged (every new vertex lies on an
//! original triangle), and a closed mesh's vertex count grows from V to V + E ≈ 4V per level.
//! Used by the scaling study (`geppetto bench --scaling`); any module may reuse it.

use std::collections::HashMap;

use crate::mesh::Mesh;

/// One level of midpoint subdivision. Input vertices keep their indices (0..V); new vertices follow
/// in order of first use. Triangles with an out-of-range index are dropped.
pub fn midpoint(mesh: &Mesh) -> Mesh {
    let n = mesh.positions.len();
    let mut positions = mesh.positions.clone();
    let mut mid: HashMap<(u32, u32), u32> = HashMap::new();
    let mut triangles = Vec::with_capacity(mesh.triangles.len() * 4);
    let mut midpoint_of = |a: u32, b: u32, positions: &mut Vec<crate::geom::P3>| -> Option<u32> {
        let key = (a.min(b), a.max(b));
        if let Some(&m) = mid.get(&key) {
            return Some(m);
        }
        let (pa, pb) = (*positions.get(a as usize)?, *positions.get(b as usize)?);
        let m = u32::try_from(positions.len()).ok()?;
        positions.push(nalgebra::center(&pa, &pb));
        mid.insert(key, m);
        Some(m)
    };
    for &[a, b, c] in &mesh.triangles {
        if [a, b, c].iter().any(|&i| i as usize >= n) {
            continue;
        }
        let (Some(ab), Some(bc), Some(ca)) = (
            midpoint_of(a, b, &mut positions),
            midpoint_of(b, c, &mut positions),
            midpoint_of(c, a, &mut positions),
        ) else {
            continue;
        };
        triangles.extend_from_slice(&[[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]);
    }
    Mesh {
        positions,
        triangles,
    }
}

/// Subdivide until the vertex count reaches at least `factor` × the original (at most 6 levels).
/// Returns the mesh and the levels applied.
pub fn to_factor(mesh: &Mesh, factor: f64) -> (Mesh, u32) {
    let target = mesh.positions.len() as f64 * factor;
    let mut m = mesh.clone();
    let mut levels = 0;
    // Each level multiplies V by ~4; stop one level early if that lands closer to the target.
    while (m.positions.len() as f64) < target && levels < 6 {
        let next = midpoint(&m);
        let (now, then) = (m.positions.len() as f64, next.positions.len() as f64);
        if then > target && (then / target) > (target / now) {
            break;
        }
        m = next;
        levels += 1;
    }
    (m, levels)
}

/// Write a mesh as OBJ text (`v` and `f` lines only, 1-based indices).
pub fn to_obj(mesh: &Mesh) -> String {
    let mut s = String::with_capacity(mesh.positions.len() * 40 + mesh.triangles.len() * 24);
    for p in &mesh.positions {
        s.push_str(&format!("v {} {} {}\n", p.x, p.y, p.z));
    }
    for t in &mesh.triangles {
        s.push_str(&format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::P3;

    fn tetrahedron() -> Mesh {
        Mesh {
            positions: vec![
                P3::new(0.0, 0.0, 0.0),
                P3::new(1.0, 0.0, 0.0),
                P3::new(0.0, 1.0, 0.0),
                P3::new(0.0, 0.0, 1.0),
            ],
            triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        }
    }

    /// Barycentric containment of `p` in triangle `t` (within `eps`).
    fn on_triangle(p: &P3, t: [P3; 3], eps: f64) -> bool {
        let (e0, e1, d) = (t[1] - t[0], t[2] - t[0], p - t[0]);
        let n = e0.cross(&e1);
        if n.norm() == 0.0 || (d.dot(&n) / n.norm()).abs() > eps {
            return false;
        }
        let (d00, d01, d11) = (e0.dot(&e0), e0.dot(&e1), e1.dot(&e1));
        let (d20, d21) = (d.dot(&e0), d.dot(&e1));
        let den = d00 * d11 - d01 * d01;
        let v = (d11 * d20 - d01 * d21) / den;
        let w = (d00 * d21 - d01 * d20) / den;
        v >= -eps && w >= -eps && v + w <= 1.0 + eps
    }

    #[test]
    fn counts_grow_as_expected() {
        let t = tetrahedron();
        let s = midpoint(&t);
        // V + E = 4 + 6; 4 triangles each.
        assert_eq!(s.positions.len(), 10);
        assert_eq!(s.triangles.len(), 16);
        let s2 = midpoint(&s);
        // V' = 10, E' = 3·16/2 = 24 → 34.
        assert_eq!(s2.positions.len(), 34);
        assert_eq!(s2.triangles.len(), 64);
        let (m, levels) = to_factor(&t, 16.0);
        // 130 would overshoot 64 by more than 34 undershoots it.
        assert_eq!((m.positions.len(), levels), (34, 2));
    }

    #[test]
    fn surface_is_unchanged() {
        let t = tetrahedron();
        let s = midpoint(&midpoint(&t));
        assert_eq!(&s.positions[..4], &t.positions[..]);
        for p in &s.positions {
            let on = t.triangles.iter().any(|tri| {
                let corners = tri.map(|i| t.positions[i as usize]);
                on_triangle(p, corners, 1e-12)
            });
            assert!(on, "{p:?} left the surface");
        }
        // Total area is preserved.
        let area = |m: &Mesh| -> f64 {
            m.triangles
                .iter()
                .map(|tr| {
                    let [a, b, c] = tr.map(|i| m.positions[i as usize]);
                    0.5 * (b - a).cross(&(c - a)).norm()
                })
                .sum()
        };
        assert!((area(&s) - area(&t)).abs() < 1e-12);
    }
}
