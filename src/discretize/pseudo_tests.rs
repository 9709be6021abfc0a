//! The corner-table pseudo-normals against the hash-map construction they replaced, bit for bit,
//! and the same refusals (open, repeated edge, two shells, inward).

use super::*;
use crate::discretize::winding::{directed_edges, edge};

/// The previous construction (one loop over the triangles with a hash map of directed edges),
/// kept as the reference.
fn reference(bvh: &Bvh, positions: &[P3], triangles: &[[u32; 3]]) -> Option<Vec<SlotNormals>> {
    if bvh.tris.len() != triangles.len() || triangles.is_empty() {
        return None;
    }
    let directed = directed_edges(triangles)?;
    let face: Vec<V3> = triangles
        .iter()
        .map(|t| {
            let p = |k: usize| positions[t[k] as usize].coords;
            (p(1) - p(0))
                .cross(&(p(2) - p(0)))
                .try_normalize(0.0)
                .unwrap_or_else(V3::zeros)
        })
        .collect();
    let mut vertex = vec![V3::zeros(); positions.len()];
    let mut volume = 0.0;
    let mut parent: Vec<u32> = (0..triangles.len() as u32).collect();
    for (ti, t) in triangles.iter().enumerate() {
        let p = |k: usize| positions[t[k] as usize].coords;
        volume += p(0).dot(&p(1).cross(&p(2))) / 6.0;
        for k in 0..3 {
            let e1 = (p((k + 1) % 3) - p(k)).try_normalize(0.0);
            let e2 = (p((k + 2) % 3) - p(k)).try_normalize(0.0);
            if let (Some(e1), Some(e2)) = (e1, e2) {
                vertex[t[k] as usize] += face[ti] * e1.dot(&e2).clamp(-1.0, 1.0).acos();
            }
            let twin = *directed.get(&edge(t[(k + 1) % 3], t[k]))?;
            union(&mut parent, ti as u32, twin);
        }
    }
    let root = find(&mut parent, 0);
    if volume <= 0.0 || (0..triangles.len() as u32).any(|i| find(&mut parent, i) != root) {
        return None;
    }
    Some(
        bvh.tri_ids
            .iter()
            .map(|&ti| {
                let t = triangles[ti as usize];
                let f = face[ti as usize];
                let edge = [0, 1, 2].map(|k| {
                    let twin = directed
                        .get(&edge(t[(k + 1) % 3], t[k]))
                        .copied()
                        .unwrap_or(ti);
                    f + face[twin as usize]
                });
                SlotNormals::new(f, edge, [0, 1, 2].map(|k| vertex[t[k] as usize]))
            })
            .collect(),
    )
}

/// A closed, outward latitude–longitude sphere: `seg` triangles meet at each pole (a vertex of
/// high valence), positions jittered by a fixed generator; one equator vertex is moved onto its
/// neighbour, so two corners have a zero-length edge (they must add nothing).
fn sphere(rings: usize, seg: usize, offset: f64) -> (Vec<P3>, Vec<[u32; 3]>) {
    let mut u = crate::util::test_rng::lcg(0x9e37_79b9_7f4a_7c15);
    let mut jitter = || (u() - 0.5) * 1e-3;
    let mut p = vec![P3::new(offset, 0.0, -1.0)];
    for r in 1..rings {
        let th = std::f64::consts::PI * r as f64 / rings as f64;
        for s in 0..seg {
            let ph = 2.0 * std::f64::consts::PI * s as f64 / seg as f64;
            let q = P3::new(th.sin() * ph.cos(), th.sin() * ph.sin(), -th.cos());
            p.push(P3::new(
                q.x + jitter() + offset,
                q.y + jitter(),
                q.z + jitter(),
            ));
        }
    }
    p.push(P3::new(offset, 0.0, 1.0));
    let top = (p.len() - 1) as u32;
    let at = |r: usize, s: usize| (1 + (r - 1) * seg + s % seg) as u32;
    let mut t = Vec::new();
    for s in 0..seg {
        t.push([0, at(1, s + 1), at(1, s)]);
        t.push([top, at(rings - 1, s), at(rings - 1, s + 1)]);
    }
    for r in 1..rings - 1 {
        for s in 0..seg {
            t.push([at(r, s), at(r, s + 1), at(r + 1, s + 1)]);
            t.push([at(r, s), at(r + 1, s + 1), at(r + 1, s)]);
        }
    }
    let e = at(rings / 2, 0) as usize;
    p[e] = p[e + 1];
    (p, t)
}

fn bits(n: &Option<Vec<SlotNormals>>) -> Option<Vec<u64>> {
    n.as_ref()
        .map(|v| v.iter().flat_map(SlotNormals::bits).collect())
}

fn both(p: &[P3], t: &[[u32; 3]]) -> (Option<Vec<u64>>, Option<Vec<u64>>) {
    let bvh = Bvh::build(p, t);
    (
        bits(&pseudo_normals(&bvh, p, t)),
        bits(&reference(&bvh, p, t)),
    )
}

#[test]
fn corner_table_normals_equal_the_hash_map_construction_bit_for_bit() {
    for (rings, seg) in [(3, 4), (40, 300), (120, 90)] {
        let (p, t) = sphere(rings, seg, 0.0);
        let (new, old) = both(&p, &t);
        assert!(
            old.is_some(),
            "{rings}×{seg}: the reference accepts the sphere"
        );
        assert_eq!(new, old, "{rings}×{seg}");
    }
}

#[test]
fn the_same_meshes_are_refused() {
    let (p, t) = sphere(30, 40, 0.0);
    // Open: one triangle removed.
    let open = &t[1..];
    // A repeated directed edge: one triangle twice.
    let mut twice = t.clone();
    twice.push(t[5]);
    // Inward: every triangle flipped.
    let flipped: Vec<[u32; 3]> = t.iter().map(|x| [x[0], x[2], x[1]]).collect();
    // Two shells: a second sphere beside the first.
    let (q, u) = sphere(30, 40, 5.0);
    let mut pp = p.clone();
    pp.extend(q);
    let base = p.len() as u32;
    let mut tt = t.clone();
    tt.extend(u.iter().map(|x| x.map(|i| i + base)));
    // An index out of range (the tree skips that triangle): refused before any table is built.
    let mut bad = t.clone();
    bad[7][1] = p.len() as u32;
    for (name, pos, tris) in [
        ("bad index", &p, bad),
        ("open", &p, open.to_vec()),
        ("twice", &p, twice),
        ("flipped", &p, flipped),
        ("two shells", &pp, tt),
    ] {
        let (new, old) = both(pos, &tris);
        assert!(old.is_none(), "{name}: the reference refuses it");
        assert!(new.is_none(), "{name}");
    }
}
