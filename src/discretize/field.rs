//! Adaptive octree signed distance field (Baran & Popović 2007 §3.1; docs/algorithms.md#distance-field), exact distances from a BVH
//! ([`super::bvh`]), sign from the generalized winding number (Jacobson et al. 2013) or, for a
//! single watertight outward shell, the equivalent closest-feature pseudo-normal
//! ([`super::winding`]), so open, multi-shell and self-intersecting meshes get a well-defined
//! interior.
//!
//! Layout for fast [`DistanceField::eval`] (called millions of times downstream): the octree is a
//! flat `u32` array (internal node = index of its first of 8 consecutive children, leaf = flag |
//! leaf index), leaves are `[f32; 8]` corner values, and a uniform top-level grid at level
//! `GRID_LEVEL` points straight at the node covering each grid cell, so a lookup is one grid read
//! plus at most `max_depth − GRID_LEVEL` child steps.

use std::collections::VecDeque;

use super::bvh::Bvh;
use super::octree::{self, BuildNode, Exact, Params};
use super::winding::{self, Sign, SignSetup};
use super::DiscretizeOptions;

mod probe;
use crate::geom::{P3, V3};
use crate::mesh::PreparedMesh;
pub use probe::LeafHints;

/// Level of the uniform top-level lookup grid (32³ cells, as the original's 2^15 table).
const GRID_LEVEL: u32 = 5;
/// Leaf flag in [`DistanceField`]'s node array.
const LEAF: u32 = 1 << 31;

/// Field value reported for non-finite query points (far outside, still finite arithmetic).
pub const FAR: f64 = 1e9;

/// Build statistics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FieldStats {
    /// Octree leaves.
    pub leaves: usize,
    /// Deepest leaf level.
    pub depth: u32,
    /// Exact closest-point queries run.
    pub exact_queries: usize,
    /// Winding-number evaluations (the rest of the signs were known or inherited).
    pub winding_queries: usize,
    /// Sign method: "pseudo-normal", "winding" or "none" (empty mesh).
    pub sign_method: &'static str,
    /// Triangles inside the volume enclosed by others, left out of the distance (not the sign).
    pub internal_triangles: usize,
    /// One watertight outward shell that intersects itself: winding sign instead of the
    /// pseudo-normal one ([`super::selfx`]).
    pub self_intersecting: bool,
}

/// Signed distance to the surface in the **normalized frame**: negative inside, positive outside,
/// trilinear inside each octree leaf.
#[derive(Clone, Debug, Default)]
pub struct DistanceField {
    /// Depth cap D: integer cell coordinates are in units of 2^−D.
    depth: u32,
    /// Flat octree: internal → first child index; `LEAF | i` → `leaves[i]`.
    nodes: Vec<u32>,
    /// Corner values per leaf (corner bit 0 = +x, 1 = +y, 2 = +z).
    leaves: Vec<[f32; 8]>,
    /// Per leaf: integer lower corner (units 2^−D) and level.
    leaf_cells: Vec<([u32; 3], u8)>,
    /// Top grid (level min(GRID_LEVEL, D)), x fastest: node index and its level.
    grid: Vec<(u32, u8)>,
    /// Build statistics.
    stats: FieldStats,
}

/// Where a point falls: leaf values, cell lower corner and side (normalized units).
#[derive(Clone, Copy)]
struct Located<'a> {
    c: &'a [f32; 8],
    lo: V3,
    size: f64,
}

impl DistanceField {
    /// Signed distance at `p` (normalized frame). Points outside \[0,1\]³ get their distance to
    /// the cube plus the (positive) field on its boundary: always positive, growing outward.
    /// Non-finite points are far outside ([`FAR`]).
    pub fn eval(&self, p: &P3) -> f64 {
        if !p.coords.iter().all(|c| c.is_finite()) {
            return FAR;
        }
        let q = clamp_unit(p);
        let out = (p - q).norm();
        let Some(l) = self.locate(&q) else {
            return 1.0 + out;
        };
        let u = (q.coords - l.lo) / l.size;
        let v = trilinear(
            l.c,
            u.x.clamp(0.0, 1.0),
            u.y.clamp(0.0, 1.0),
            u.z.clamp(0.0, 1.0),
        );
        if out > 0.0 {
            out + v.max(0.0)
        } else {
            v
        }
    }

    /// Gradient of the interpolated field at `p` (analytic derivative of the trilinear leaf).
    /// Outside \[0,1\]³ it points away from the cube.
    pub fn gradient(&self, p: &P3) -> V3 {
        self.gradient_hinted(p, &mut LeafHints::default())
    }

    /// True if both fields are the same bit for bit: tree, leaf cells, corner values, leaf count.
    pub fn same_bits(&self, other: &Self) -> bool {
        let bits =
            |f: &Self| -> Vec<[u32; 8]> { f.leaves.iter().map(|c| c.map(f32::to_bits)).collect() };
        self.nodes == other.nodes
            && self.leaf_cells == other.leaf_cells
            && self.grid == other.grid
            && bits(self) == bits(other)
    }

    /// True if `p` is inside (field < 0).
    pub fn inside(&self, p: &P3) -> bool {
        self.eval(p) < 0.0
    }

    /// Build statistics (leaf count, depth reached, exact queries, sign method).
    pub fn stats(&self) -> &FieldStats {
        &self.stats
    }

    /// Every leaf cell: lower corner (normalized frame) and side length.
    pub fn leaf_cells(&self) -> impl ExactSizeIterator<Item = (P3, f64)> + '_ {
        let unit = 1.0 / f64::from(1u32 << self.depth);
        self.leaf_cells.iter().map(move |(lo, level)| {
            let lo = P3::new(f64::from(lo[0]), f64::from(lo[1]), f64::from(lo[2])) * unit;
            (lo, 1.0 / f64::from(1u32 << level))
        })
    }

    /// Every leaf cell: lower corner, side length, and the smallest and largest corner values
    /// (the minimum and maximum of the trilinear field over the cell).
    pub fn leaf_cells_with_range(&self) -> impl Iterator<Item = (P3, f64, f64, f64)> + '_ {
        self.leaf_cells().zip(&self.leaves).map(|((lo, size), c)| {
            let m = c.iter().fold(f32::INFINITY, |a, &b| a.min(b));
            let x = c.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
            (lo, size, f64::from(m), f64::from(x))
        })
    }

    /// The leaf containing `q` (which must be in [0,1]³).
    #[inline]
    fn locate(&self, q: &P3) -> Option<Located<'_>> {
        self.locate_index(self.lattice_index(q)).map(|l| l.0)
    }

    /// Integer coordinates (units 2^−D) of the finest lattice cell containing `q` ∈ \[0,1\]³.
    #[inline]
    fn lattice_index(&self, q: &P3) -> [u32; 3] {
        let res = f64::from(1u32 << self.depth);
        let max = (1u32 << self.depth) - 1;
        [q.x, q.y, q.z].map(|c| ((c * res) as u32).min(max))
    }

    /// The leaf containing lattice cell `[ix, iy, iz]`, and D − its level (the shift that maps
    /// lattice coordinates to its cell coordinates).
    #[inline]
    fn locate_index(&self, [ix, iy, iz]: [u32; 3]) -> Option<(Located<'_>, u32)> {
        let d = self.depth;
        let res = f64::from(1u32 << d);
        let g = GRID_LEVEL.min(d);
        let gs = d - g;
        let gi = (ix >> gs) + ((iy >> gs) << g) + ((iz >> gs) << (2 * g));
        let &(mut node, level) = self.grid.get(gi as usize)?;
        let mut level = u32::from(level);
        loop {
            let v = *self.nodes.get(node as usize)?;
            if v & LEAF != 0 {
                let c = self.leaves.get((v & !LEAF) as usize)?;
                let s = d - level;
                let lo = V3::new(
                    f64::from((ix >> s) << s),
                    f64::from((iy >> s) << s),
                    f64::from((iz >> s) << s),
                ) / res;
                let size = 1.0 / f64::from(1u32 << level);
                return Some((Located { c, lo, size }, s));
            }
            level += 1;
            if level > d {
                return None;
            }
            let s = d - level;
            let child = ((ix >> s) & 1) | (((iy >> s) & 1) << 1) | (((iz >> s) & 1) << 2);
            node = v + child;
        }
    }

    /// Flatten a built tree (breadth first, 8 consecutive children per internal node) and index it.
    fn from_tree(root: BuildNode, depth: u32, stats: FieldStats) -> Self {
        let mut f = DistanceField {
            depth,
            stats,
            ..Default::default()
        };
        f.nodes.push(0);
        let mut queue = VecDeque::new();
        queue.push_back((root, 0usize, [0u32; 3], 0u32));
        while let Some((n, slot, lo, level)) = queue.pop_front() {
            match n {
                BuildNode::Leaf(c) => {
                    f.nodes[slot] = LEAF | f.leaves.len() as u32;
                    f.leaves.push(c);
                    f.leaf_cells.push((lo, level as u8));
                    f.stats.depth = f.stats.depth.max(level);
                }
                BuildNode::Split(children) => {
                    let first = f.nodes.len();
                    f.nodes[slot] = first as u32;
                    f.nodes.extend(std::iter::repeat_n(0, 8));
                    let h = 1u32 << (depth - level - 1);
                    for (c, child) in children.into_vec().into_iter().enumerate() {
                        let c32 = c as u32;
                        let clo = [
                            lo[0] + (c32 & 1) * h,
                            lo[1] + ((c32 >> 1) & 1) * h,
                            lo[2] + ((c32 >> 2) & 1) * h,
                        ];
                        queue.push_back((child, first + c, clo, level + 1));
                    }
                }
            }
        }
        f.stats.leaves = f.leaves.len();
        f.build_grid();
        f
    }

    /// Fill the top grid: for each grid cell, the deepest node at level ≤ GRID_LEVEL covering it.
    fn build_grid(&mut self) {
        let g = GRID_LEVEL.min(self.depth);
        let n = 1usize << g;
        self.grid = Vec::with_capacity(n * n * n);
        for gz in 0..n as u32 {
            for gy in 0..n as u32 {
                for gx in 0..n as u32 {
                    let (mut node, mut level) = (0u32, 0u32);
                    while level < g {
                        let v = self.nodes.get(node as usize).copied().unwrap_or(LEAF);
                        if v & LEAF != 0 {
                            break;
                        }
                        level += 1;
                        let s = g - level;
                        let child =
                            ((gx >> s) & 1) | (((gy >> s) & 1) << 1) | (((gz >> s) & 1) << 2);
                        node = v + child;
                    }
                    self.grid.push((node, level as u8));
                }
            }
        }
    }
}

/// Trilinear interpolation of corner values at local coordinates (x, y, z) ∈ \[0,1\]³.
#[inline]
pub fn trilinear(c: &[f32; 8], x: f64, y: f64, z: f64) -> f64 {
    let c = c.map(f64::from);
    let x00 = c[0] + (c[1] - c[0]) * x;
    let x10 = c[2] + (c[3] - c[2]) * x;
    let x01 = c[4] + (c[5] - c[4]) * x;
    let x11 = c[6] + (c[7] - c[6]) * x;
    let y0 = x00 + (x10 - x00) * y;
    let y1 = x01 + (x11 - x01) * y;
    y0 + (y1 - y0) * z
}

/// `p` clamped into the unit cube (the field's domain).
pub(super) fn clamp_unit(p: &P3) -> P3 {
    P3::new(
        p.x.clamp(0.0, 1.0),
        p.y.clamp(0.0, 1.0),
        p.z.clamp(0.0, 1.0),
    )
}

/// Build the octree field for a prepared mesh (normalized frame), τ = `opts.tolerance`, depth
/// cap `opts.max_depth` (at most 19).
pub fn build(mesh: &PreparedMesh, opts: &DiscretizeOptions) -> DistanceField {
    build_from(&mesh.positions, &mesh.triangles, opts)
}

/// [`build`] from raw welded positions and triangles (normalized frame).
pub fn build_from(
    positions: &[P3],
    triangles: &[[u32; 3]],
    opts: &DiscretizeOptions,
) -> DistanceField {
    build_with(positions, triangles, opts, true)
}

/// [`build_from`] evaluating every lattice point of every tested cell, as before the
/// Lipschitz skip (see `octree::lattice::Bounds`): the reference that tests hold the fast build to,
/// bit for bit.
pub fn build_reference(
    positions: &[P3],
    triangles: &[[u32; 3]],
    opts: &DiscretizeOptions,
) -> DistanceField {
    build_with(positions, triangles, opts, false)
}

/// The whole mesh's BVH and its sign. The sign's tree-free set-up (corner table, normals, volume,
/// or the winding shells) runs beside the tree's build: both used to be serial before the octree.
pub fn tree_and_sign(positions: &[P3], triangles: &[[u32; 3]]) -> (Bvh, Sign) {
    let (all, setup) = rayon::join(
        || Bvh::build(positions, triangles),
        || SignSetup::new(positions, triangles),
    );
    let sign = setup.finish(&all, positions, triangles);
    (all, sign)
}

fn build_with(
    positions: &[P3],
    triangles: &[[u32; 3]],
    opts: &DiscretizeOptions,
    lipschitz_skip: bool,
) -> DistanceField {
    let (all, sign) = tree_and_sign(positions, triangles);
    let buried = split_buried(&sign, positions, triangles);
    let (bvh, inner) = match (&buried.outer, &buried.inner) {
        (Some(o), Some(i)) => (o, Some(i)),
        _ => (&all, None),
    };
    let prm = Params::new(opts, lipschitz_skip);
    let depth = prm.max_depth;
    let full = 1u32 << (depth + 1);
    let windings = std::sync::atomic::AtomicUsize::new(0);
    let mut ex = Exact::new(bvh, inner, &all, &sign, prm.unit, &windings);
    let corners: [f64; 8] = std::array::from_fn(|m| {
        let b = |bit: usize| if m >> bit & 1 == 1 { full } else { 0 };
        ex.value([b(0), b(1), b(2)], Some(false), &[])
    });
    let q0 = ex.queries;
    let (root, q) = octree::build_tree(&mut ex, prm, corners);
    let stats = FieldStats {
        exact_queries: q + q0,
        winding_queries: windings.load(std::sync::atomic::Ordering::Relaxed),
        internal_triangles: buried.culled,
        self_intersecting: sign.self_intersecting(),
        sign_method: if bvh.is_empty() {
            "none"
        } else {
            sign.method()
        },
        ..Default::default()
    };
    DistanceField::from_tree(root, depth, stats)
}

/// The distance's surface and the buried triangles ([`winding::internal_triangles`]): their
/// trees when some but not all triangles are buried, else none (the distance then uses all).
pub(super) struct Buried {
    /// Tree of the triangles not buried inside the solid.
    pub outer: Option<Bvh>,
    /// Tree of the buried triangles.
    pub inner: Option<Bvh>,
    /// Number of buried triangles.
    pub culled: usize,
}

/// Find the buried triangles of a mesh (sign `sign`) and split them off (see [`Buried`]).
pub(super) fn split_buried(sign: &Sign, positions: &[P3], triangles: &[[u32; 3]]) -> Buried {
    let buried = winding::internal_triangles(sign, positions, triangles);
    let culled = buried.iter().filter(|&&b| b).count();
    if culled == 0 || culled == triangles.len() {
        return Buried {
            outer: None,
            inner: None,
            culled,
        };
    }
    let pick = |want: bool| -> Vec<[u32; 3]> {
        triangles
            .iter()
            .zip(&buried)
            .filter(|(_, &b)| b == want)
            .map(|(t, _)| *t)
            .collect()
    };
    // The two trees are independent: built side by side.
    let (outer, inner) = rayon::join(
        || Bvh::build(positions, &pick(false)),
        || Bvh::build(positions, &pick(true)),
    );
    Buried {
        outer: Some(outer),
        inner: Some(inner),
        culled,
    }
}
