//! Angle-weighted pseudo-normals of one watertight outward shell (Bærentzen & Aanæs 2005), the
//! sign of [`super::winding::Sign::PseudoNormal`].
//!
//! Built from a per-vertex corner table (compressed rows, corners in triangle order) instead of a
//! hash map of directed edges: on a 922k-triangle mesh the map's inserts and lookups (random
//! access, nine per triangle) took about a second on one core, the largest serial step of the
//! field. The table gives every vertex its corners in triangle order, so the vertex normals sum in
//! exactly the order of a loop over the triangles (bit for bit, and in parallel over vertices);
//! each vertex's outgoing edges, sorted by their far end, find an edge's twin by binary search.

use rayon::prelude::*;

use super::bvh::Bvh;
use super::winding::{find, union, SlotNormals};
use crate::geom::{P3, V3};

/// Fewest items per rayon task in the per-vertex and per-triangle passes.
const MIN_LEN: usize = 4096;

/// Angle-weighted pseudo-normals per slot of `bvh` (built from `triangles` over `positions`), or
/// `None` unless the mesh is one watertight shell (every undirected edge used exactly once in
/// each direction) with positive signed volume.
#[cfg(test)]
pub(super) fn pseudo_normals(
    bvh: &Bvh,
    positions: &[P3],
    triangles: &[[u32; 3]],
) -> Option<Vec<SlotNormals>> {
    Shell::new(positions, triangles)?.slot_normals(bvh, triangles)
}

/// The part of the pseudo-normals that does not need the tree (corner table, twins, face and
/// vertex normals, signed volume): the field computes it beside [`Bvh::build`] (`rayon::join`),
/// so only the per-slot gather ([`Shell::slot_normals`]) waits for the tree.
pub(super) struct Shell {
    face: Vec<V3>,
    twins: Vec<[u32; 3]>,
    vertex: Vec<V3>,
}

impl Shell {
    /// The normals of `triangles` over `positions`, or `None` unless they form one watertight
    /// shell (every undirected edge used exactly once in each direction) with positive signed
    /// volume, every index in range.
    pub(super) fn new(positions: &[P3], triangles: &[[u32; 3]]) -> Option<Self> {
        let n = positions.len();
        // An index out of range: the tree skips the triangle, so no slot table covers the mesh.
        if triangles.is_empty() || triangles.iter().flatten().any(|&v| v as usize >= n) {
            return None;
        }
        let corners = Corners::new(n, triangles)?;
        let face = unit_face_normals(positions, triangles);
        let twins = corners.twins(triangles)?;
        if signed_volume(positions, triangles) <= 0.0 || !connected(&twins) {
            return None;
        }
        let vertex = corners.vertex_normals(positions, triangles, &face);
        Some(Self {
            face,
            twins,
            vertex,
        })
    }

    /// The pseudo-normals per slot of `bvh`, built from the same `triangles`; `None` when the
    /// tree does not hold every triangle.
    pub(super) fn slot_normals(
        &self,
        bvh: &Bvh,
        triangles: &[[u32; 3]],
    ) -> Option<Vec<SlotNormals>> {
        if bvh.tris.len() != triangles.len() || self.face.len() != triangles.len() {
            return None;
        }
        let (face, twins, vertex) = (&self.face, &self.twins, &self.vertex);
        Some(
            bvh.tri_ids
                .par_iter()
                .with_min_len(MIN_LEN)
                .map(|&ti| {
                    let (t, f) = (triangles[ti as usize], face[ti as usize]);
                    let tw = twins[ti as usize];
                    SlotNormals::new(
                        f,
                        [0, 1, 2].map(|k| f + face[tw[k] as usize]),
                        [0, 1, 2].map(|k| vertex[t[k] as usize]),
                    )
                })
                .collect(),
        )
    }
}

/// Each vertex's corners: `corner[start[v]..start[v + 1]]`, as corner ids `3·triangle + k`
/// in increasing order, and the same corners' outgoing edges `(far end << 32) | corner id`,
/// sorted, in `out`.
struct Corners {
    start: Vec<u32>,
    corner: Vec<u32>,
    out: Vec<u64>,
}

impl Corners {
    /// The table of `triangles` over `n` vertices, or `None` when a directed edge repeats (then
    /// no shell through it is closed and consistently oriented).
    fn new(n: usize, triangles: &[[u32; 3]]) -> Option<Self> {
        let mut start = vec![0u32; n + 1];
        for t in triangles {
            for &v in t {
                start[v as usize + 1] += 1;
            }
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut corner = vec![0u32; triangles.len() * 3];
        let mut out = vec![0u64; triangles.len() * 3];
        for (ti, t) in triangles.iter().enumerate() {
            for k in 0..3 {
                let slot = &mut fill[t[k] as usize];
                let c = (3 * ti + k) as u32;
                corner[*slot as usize] = c;
                out[*slot as usize] = (u64::from(t[(k + 1) % 3]) << 32) | u64::from(c);
                *slot += 1;
            }
        }
        let mut rows = Vec::with_capacity(n);
        let mut rest = out.as_mut_slice();
        for v in 0..n {
            let (row, tail) = rest.split_at_mut((start[v + 1] - start[v]) as usize);
            rows.push(row);
            rest = tail;
        }
        let repeated = rows.par_iter_mut().with_min_len(MIN_LEN).any(|row| {
            row.sort_unstable();
            row.windows(2).any(|w| w[0] >> 32 == w[1] >> 32)
        });
        drop(rows);
        (!repeated).then_some(Self { start, corner, out })
    }

    /// The triangle with the directed edge `a → b`, if any.
    fn edge(&self, a: u32, b: u32) -> Option<u32> {
        let row = &self.out[self.start[a as usize] as usize..self.start[a as usize + 1] as usize];
        let i = row.partition_point(|&e| (e >> 32) < u64::from(b));
        row.get(i)
            .filter(|&&e| e >> 32 == u64::from(b))
            .map(|&e| (e as u32) / 3)
    }

    /// For each triangle and edge `k` (`t[k] → t[k + 1]`), the triangle across it (the one with
    /// the reverse edge), or `None` when some edge has no reverse (the shell is open).
    fn twins(&self, triangles: &[[u32; 3]]) -> Option<Vec<[u32; 3]>> {
        let twins: Vec<[u32; 3]> = triangles
            .par_iter()
            .with_min_len(MIN_LEN)
            .map(|t| [0, 1, 2].map(|k| self.edge(t[(k + 1) % 3], t[k]).unwrap_or(u32::MAX)))
            .collect();
        twins
            .par_iter()
            .all(|tw| tw.iter().all(|&x| x != u32::MAX))
            .then_some(twins)
    }

    /// Each vertex's angle-weighted normal: the sum over its corners, in triangle order, of the
    /// face normal times the corner's angle (a corner with a zero-length edge adds nothing).
    fn vertex_normals(&self, positions: &[P3], triangles: &[[u32; 3]], face: &[V3]) -> Vec<V3> {
        (0..positions.len())
            .into_par_iter()
            .with_min_len(MIN_LEN)
            .map(|v| {
                let mut sum = V3::zeros();
                for &c in &self.corner[self.start[v] as usize..self.start[v + 1] as usize] {
                    let (ti, k) = (c as usize / 3, c as usize % 3);
                    let t = triangles[ti];
                    let p = |k: usize| positions[t[k] as usize].coords;
                    let e1 = (p((k + 1) % 3) - p(k)).try_normalize(0.0);
                    let e2 = (p((k + 2) % 3) - p(k)).try_normalize(0.0);
                    if let (Some(e1), Some(e2)) = (e1, e2) {
                        sum += face[ti] * e1.dot(&e2).clamp(-1.0, 1.0).acos();
                    }
                }
                sum
            })
            .collect()
    }
}

/// Signed volume of the closed surface, summed in triangle order.
fn signed_volume(positions: &[P3], triangles: &[[u32; 3]]) -> f64 {
    let mut volume = 0.0;
    for t in triangles {
        let p = |k: usize| positions[t[k] as usize].coords;
        volume += p(0).dot(&p(1).cross(&p(2))) / 6.0;
    }
    volume
}

/// True if every triangle is reached from the first across shared edges (`twins`).
fn connected(twins: &[[u32; 3]]) -> bool {
    let mut parent: Vec<u32> = (0..twins.len() as u32).collect();
    for (ti, tw) in twins.iter().enumerate() {
        for &other in tw {
            union(&mut parent, ti as u32, other);
        }
    }
    let root = find(&mut parent, 0);
    (0..twins.len() as u32).all(|i| find(&mut parent, i) == root)
}

/// Each triangle's unit normal (zero for a degenerate one, which then weighs nothing).
pub(super) fn unit_face_normals(positions: &[P3], triangles: &[[u32; 3]]) -> Vec<V3> {
    triangles
        .par_iter()
        .with_min_len(MIN_LEN)
        .map(|t| {
            let p = |k: usize| positions[t[k] as usize].coords;
            (p(1) - p(0))
                .cross(&(p(2) - p(0)))
                .try_normalize(0.0)
                .unwrap_or_else(V3::zeros)
        })
        .collect()
}

#[cfg(test)]
#[path = "pseudo_tests.rs"]
mod tests;
