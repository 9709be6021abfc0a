//! Bounding-volume hierarchy over the triangles of a prepared mesh, for exact closest-point queries
//! (the exact distances of the octree field, docs/algorithms.md#distance-field) and, through its per-node
//! dipoles, for fast generalized winding numbers ([`super::winding`]).
//!
//! Layout: one flat node array, the two children of an internal node stored next to each other,
//! triangles copied into leaf order so a leaf's triangles are contiguous in memory; beside it a
//! 4-wide collapse of the same tree (f32 boxes lane by lane) for the closest-point queries.
//! Traversal is iterative, visiting the nearest box first and pruning every box farther than
//! the best distance found so far.

use crate::geom::V3;

mod build;
mod closest;
mod wide;

#[cfg(test)]
use crate::geom::P3;
#[cfg(test)]
use build::{LEAF_SIZE, PAR_BUILD};
/// Stack size of the binary reference traversal in the tests.
#[cfg(test)]
const STACK: usize = 96;
pub use closest::{closest_on_triangle, Scratch};

/// One triangle, vertices in the normalized frame.
#[derive(Clone, Copy, Debug)]
pub struct Tri {
    /// Vertices, in the mesh's winding order (counter-clockwise seen from outside when oriented).
    pub v: [V3; 3],
}

/// Supporting plane of a triangle slot: unit normal and offset (`n·x = off` on the plane); the
/// squared plane distance is a cheap lower bound that rejects most triangles of a visited leaf
/// before the full closest-point test. Zero normal for degenerate triangles (never rejects).
/// Also the triangle's own f32 box (rounded outward): a second lower bound, tighter than the
/// leaf's box, tried before the full closest-point test.
#[derive(Clone, Copy, Debug)]
struct Plane {
    n: V3,
    off: f64,
    lo: [f32; 3],
    hi: [f32; 3],
}

/// A BVH node: `count > 0` is a leaf over `tris[first..first + count]`; otherwise its children
/// are nodes `first` and `first + 1`.
/// Boxes are f32, rounded outward, so a node is 32 bytes (two per cache line) and box distances
/// stay conservative lower bounds.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// Box lower corner (rounded down).
    pub lo: [f32; 3],
    /// Box upper corner (rounded up).
    pub hi: [f32; 3],
    /// First triangle slot (leaf) or left child (internal).
    pub first: u32,
    /// Triangle count (leaf) or 0 (internal).
    pub count: u32,
}

/// Which feature of a triangle the closest point lies on (Ericson's Voronoi regions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// Interior of the face.
    Face,
    /// Vertex `k` (0, 1, 2).
    Vertex(u8),
    /// Edge from vertex `k` to vertex `(k + 1) % 3`.
    Edge(u8),
}

/// Result of a closest-point query.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    /// Squared distance to the surface.
    pub dist2: f64,
    /// The closest surface point.
    pub point: V3,
    /// Triangle slot (index into [`Bvh::tris`]; [`Bvh::tri_ids`] maps it back).
    pub slot: u32,
    /// Feature of that triangle the point lies on.
    pub feature: Feature,
}

/// The hierarchy.
#[derive(Clone, Debug)]
pub struct Bvh {
    /// Flat node array; node 0 is the root.
    pub nodes: Vec<Node>,
    /// Triangles in leaf order.
    pub tris: Vec<Tri>,
    /// For each slot, the index of the triangle in the input triangle list.
    pub tri_ids: Vec<u32>,
    /// Per slot: supporting plane.
    planes: Vec<Plane>,
    /// The 4-wide view of `nodes` the closest-point queries traverse (empty for an empty tree).
    wide: Vec<wide::Wide>,
}

impl Bvh {
    /// True if there are no triangles.
    pub fn is_empty(&self) -> bool {
        self.tris.is_empty()
    }
}

fn empty_node() -> Node {
    Node {
        lo: [f32::INFINITY; 3],
        hi: [f32::NEG_INFINITY; 3],
        first: 0,
        count: 0,
    }
}

/// f32 box enclosing the f64 box [lo, hi].
fn outward(lo: &V3, hi: &V3) -> ([f32; 3], [f32; 3]) {
    let down = |x: f64| {
        let f = x as f32;
        if f64::from(f) > x {
            f.next_down()
        } else {
            f
        }
    };
    let up = |x: f64| {
        let f = x as f32;
        if f64::from(f) < x {
            f.next_up()
        } else {
            f
        }
    };
    (
        [down(lo.x), down(lo.y), down(lo.z)],
        [up(hi.x), up(hi.y), up(hi.z)],
    )
}

impl Node {
    /// Box corners as f64 vectors.
    pub fn bounds(&self) -> (V3, V3) {
        let v = |a: [f32; 3]| V3::new(f64::from(a[0]), f64::from(a[1]), f64::from(a[2]));
        (v(self.lo), v(self.hi))
    }
}

/// Squared distance from `p` to a node's box (0 inside).
#[inline]
pub fn box_dist2(p: &V3, n: &Node) -> f64 {
    box_dist2_parts(p, &n.lo, &n.hi)
}

/// Squared distance from `p` to the f32 box `[lo, hi]` (0 inside).
#[inline(always)]
fn box_dist2_parts(p: &V3, lo: &[f32; 3], hi: &[f32; 3]) -> f64 {
    let d = |k: usize, x: f64| (f64::from(lo[k]) - x).max(0.0).max(x - f64::from(hi[k]));
    let (dx, dy, dz) = (d(0, p.x), d(1, p.y), d(2, p.z));
    dx * dx + dy * dy + dz * dz
}

/// Every node's box bits, first slot and count: two trees compare equal bit for bit (tests).
#[cfg(test)]
fn node_bits(nodes: &[Node]) -> Vec<([u32; 3], [u32; 3], u32, u32)> {
    nodes
        .iter()
        .map(|n| {
            (
                n.lo.map(f32::to_bits),
                n.hi.map(f32::to_bits),
                n.first,
                n.count,
            )
        })
        .collect()
}

#[cfg(test)]
#[path = "bvh_tests.rs"]
mod tests;
