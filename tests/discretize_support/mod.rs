//! Meshes built in code for the discretize tests, and a minimal `PreparedMesh` wrapper that does
//! not depend on the mesh helper's `prepare()` (it only normalizes).
#![allow(dead_code)]

use geppetto::geom::{Aabb, P3, V3};
use geppetto::mesh::{Mesh, Normalization, PreparedMesh, RepairReport};

/// A mesh as positions + triangles (any frame).
#[derive(Clone, Debug, Default)]
pub struct Tris {
    pub pos: Vec<P3>,
    pub tri: Vec<[u32; 3]>,
}

impl Tris {
    /// Append another mesh.
    pub fn add(&mut self, o: &Tris) {
        let base = self.pos.len() as u32;
        self.pos.extend(o.pos.iter().copied());
        self.tri.extend(o.tri.iter().map(|t| t.map(|i| i + base)));
    }

    /// Apply `p ↦ s·p + t`.
    pub fn affine(&self, s: f64, t: V3) -> Tris {
        Tris {
            pos: self
                .pos
                .iter()
                .map(|p| P3::from(p.coords * s + t))
                .collect(),
            tri: self.tri.clone(),
        }
    }

    /// Reverse every triangle.
    pub fn flipped(&self) -> Tris {
        Tris {
            pos: self.pos.clone(),
            tri: self.tri.iter().map(|t| [t[0], t[2], t[1]]).collect(),
        }
    }
}

/// Unit-radius icosphere at the origin, outward CCW, `sub` subdivisions.
pub fn icosphere(sub: u32) -> Tris {
    let t = (1.0 + 5f64.sqrt()) / 2.0;
    let mut pos: Vec<P3> = [
        (-1.0, t, 0.0),
        (1.0, t, 0.0),
        (-1.0, -t, 0.0),
        (1.0, -t, 0.0),
        (0.0, -1.0, t),
        (0.0, 1.0, t),
        (0.0, -1.0, -t),
        (0.0, 1.0, -t),
        (t, 0.0, -1.0),
        (t, 0.0, 1.0),
        (-t, 0.0, -1.0),
        (-t, 0.0, 1.0),
    ]
    .iter()
    .map(|&(x, y, z)| P3::from(V3::new(x, y, z).normalize()))
    .collect();
    let mut tri: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..sub {
        let mut mid = std::collections::HashMap::new();
        let mut next = Vec::new();
        let mut m = |a: u32, b: u32, pos: &mut Vec<P3>| -> u32 {
            *mid.entry((a.min(b), a.max(b))).or_insert_with(|| {
                let p = nalgebra::center(&pos[a as usize], &pos[b as usize]);
                pos.push(P3::from(p.coords.normalize()));
                pos.len() as u32 - 1
            })
        };
        for [a, b, c] in tri {
            let ab = m(a, b, &mut pos);
            let bc = m(b, c, &mut pos);
            let ca = m(c, a, &mut pos);
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        tri = next;
    }
    Tris { pos, tri }
}

/// Axis-aligned box [lo, hi], outward CCW; `skip_top` removes the +y face (an open box).
pub fn boxed(lo: V3, hi: V3, skip_top: bool) -> Tris {
    let c = |i: usize| {
        P3::new(
            if i & 1 == 0 { lo.x } else { hi.x },
            if i & 2 == 0 { lo.y } else { hi.y },
            if i & 4 == 0 { lo.z } else { hi.z },
        )
    };
    let pos = (0..8).map(c).collect();
    // Quads (outward CCW): -x, +x, -y, +y, -z, +z.
    let quads: [([u32; 4], bool); 6] = [
        ([0, 4, 6, 2], false),
        ([1, 3, 7, 5], false),
        ([0, 1, 5, 4], false),
        ([2, 6, 7, 3], true),
        ([0, 2, 3, 1], false),
        ([4, 5, 7, 6], false),
    ];
    let mut tri = Vec::new();
    for (q, top) in quads {
        if top && skip_top {
            continue;
        }
        tri.push([q[0], q[1], q[2]]);
        tri.push([q[0], q[2], q[3]]);
    }
    Tris { pos, tri }
}

/// A capsule-ish chain: spheres of radius `r` along the segment a–b (overlapping closed shells).
pub fn sphere_chain(a: V3, b: V3, r: f64, count: usize) -> Tris {
    let mut out = Tris::default();
    let ico = icosphere(2);
    for k in 0..count {
        let t = k as f64 / (count.max(2) - 1) as f64;
        out.add(&ico.affine(r, a + (b - a) * t));
    }
    out
}

/// A `PreparedMesh` for `m`: normalized, not welded (positions used as given), shells and report
/// left minimal. Enough for the discretize stages, which only read positions and triangles.
pub fn prepared(m: &Tris) -> PreparedMesh {
    let aabb = Aabb::of_points(&m.pos);
    let normalization = Normalization::from_aabb(&aabb);
    let positions: Vec<P3> = m
        .pos
        .iter()
        .map(|p| normalization.to_normalized(p))
        .collect();
    PreparedMesh {
        input: Mesh {
            positions: m.pos.clone(),
            triangles: m.tri.clone(),
        },
        normalization,
        weld: (0..m.pos.len() as u32).collect(),
        positions,
        triangles: m.tri.clone(),
        shells: Vec::new(),
        report: RepairReport::default(),
    }
}

#[path = "../common/mod.rs"]
mod common;
#[allow(unused_imports)]
pub use common::{corpus as corpus_dir, corpus_mesh};

/// Axis-aligned box [lo, hi] with each face split into an n×n grid of quads (2 triangles each),
/// outward CCW. Faces do not share vertices (not welded), like many exported meshes.
pub fn boxed_fine(lo: V3, hi: V3, n: usize) -> Tris {
    let mut out = Tris::default();
    // For each axis and side: the face spanned by the two other axes, ordered so that
    // (u × v) points outward.
    for axis in 0..3 {
        for side in [false, true] {
            let (mut u, mut v) = ((axis + 1) % 3, (axis + 2) % 3);
            if !side {
                std::mem::swap(&mut u, &mut v);
            }
            let base = out.pos.len() as u32;
            for j in 0..=n {
                for i in 0..=n {
                    let mut p = V3::zeros();
                    p[axis] = if side { hi[axis] } else { lo[axis] };
                    p[u] = lo[u] + (hi[u] - lo[u]) * i as f64 / n as f64;
                    p[v] = lo[v] + (hi[v] - lo[v]) * j as f64 / n as f64;
                    out.pos.push(P3::from(p));
                }
            }
            let id = |i: usize, j: usize| base + (j * (n + 1) + i) as u32;
            for j in 0..n {
                for i in 0..n {
                    out.tri.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                    out.tri.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
                }
            }
        }
    }
    out
}

/// Deterministic uniform numbers in [0, 1) (a 64-bit LCG: tests need reproducible randomness, not
/// quality).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }

    /// A point of the unit cube [0, 1)³.
    pub fn point(&mut self) -> P3 {
        P3::new(self.next(), self.next(), self.next())
    }

    /// A uniformly random unit direction (rejection sampling in the unit ball).
    pub fn unit(&mut self) -> V3 {
        loop {
            let v = V3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            if let Some(u) = v.try_normalize(1e-3).filter(|_| v.norm() <= 1.0) {
                return u;
            }
        }
    }
}
