//! After the joints: does every box of a figure built from boxes hold a bone?
//!
//! Box-built characters (Minecraft and Minetest skins and mobs, voxel games) are made of closed
//! convex pieces: a head box, a body box, an arm box per arm, a leg box per leg. Where the boxes
//! touch, the outline hides them (an arm box against the body box is one slab from the front, two
//! leg boxes side by side one column), so a skeleton read from the outline or embedded in the
//! union's spheres can leave a whole arm box without a bone and still look sound (a curve skeleton
//! down the middle of the held-out `blocky_touch`, 5 joints and `ok`). The mesh says more than
//! the outline: each box is a convex piece, closed on its own or welded to its neighbour along a
//! shared face. A convex piece cannot bend inside (nothing modelled there), so the rig poses it
//! only through a bone that runs into it; a piece as large as one the rig does pose, that no bone
//! enters, is a body part the rig cannot move.
//!
//! Pieces: the prepared mesh's closed shells, and in a shell that is not closed (boxes welded along
//! shared faces: non-manifold edges) each patch joined across manifold edges, closed by the planes
//! of its boundary loops (the shared faces). A piece counts when every one of its vertices lies on
//! or behind every one of its planes ([`CONVEX_TOLERANCE`] of its box diagonal: export rounding,
//! the skin's rigid-part test, [`crate::skin`]). Thin patches (a lone shared face) have no volume
//! and are not pieces.
//!
//! The rule compares pieces of one mesh with each other, so it has no size threshold: an unposed
//! piece counts when its volume is at least that of the smallest piece the rig poses. Only a
//! figure *built* from pieces is judged: together they hold at least half the surface
//! ([`BODY_AREA_SHARE`], the share that makes a shell the body). A body with convex props (the
//! corpus turtle's two eyeballs beside its non-convex body, a head bone through one of them) is
//! not; neither is the multi-component method, which binds pieces to its nodes by design.

use std::collections::{BTreeMap, HashMap};

use super::articulation::BODY_AREA_SHARE;
use crate::geom::{Aabb, P3, V3};
use crate::mesh::PreparedMesh;

/// Vertices may lie this far (fraction of the piece's box diagonal) in front of a plane and still
/// count as behind it: export rounding, as in the skin's convex-part test.
pub const CONVEX_TOLERANCE: f64 = 1e-3;

/// A closed convex piece: its bounding planes (outward unit normal, offset) and box.
#[derive(Clone, Debug)]
pub struct Piece {
    /// `(n, d)`: a point `p` is behind the plane when `n·p − d ≤ 0`.
    pub planes: Vec<(V3, f64)>,
    /// The piece's vertices' box, normalized frame.
    pub aabb: Aabb,
    /// Tolerance in normalized units ([`CONVEX_TOLERANCE`] of the box diagonal).
    pub tol: f64,
    /// Surface area of its triangles, normalized units².
    pub area: f64,
    /// The prepared mesh's shell it was cut from.
    pub shell: usize,
}

impl Piece {
    /// Box volume: the size the pieces are compared by.
    pub fn volume(&self) -> f64 {
        let e = self.aabb.extent();
        e.x * e.y * e.z
    }

    /// The box volume with each side short by twice the tolerance: the least this piece's size
    /// can be after export rounding, so that equal boxes (two arms, an arm and a leg of one
    /// design) compare as equal.
    fn least_volume(&self) -> f64 {
        let e = self.aabb.extent().map(|x| (x - 2.0 * self.tol).max(0.0));
        e.x * e.y * e.z
    }

    /// True if the segment `a`–`b` passes strictly inside (deeper than the tolerance): clipped
    /// against every plane shrunk by the tolerance (Cyrus–Beck).
    pub fn entered_by(&self, a: &P3, b: &P3) -> bool {
        let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
        let d = b - a;
        for (n, off) in &self.planes {
            let (ha, slope) = (n.dot(&a.coords) - off + self.tol, n.dot(&d));
            if slope.abs() < 1e-300 {
                if ha > 0.0 {
                    return false;
                }
                continue;
            }
            let t = -ha / slope;
            if slope > 0.0 {
                t1 = t1.min(t);
            } else {
                t0 = t0.max(t);
            }
            if t0 > t1 {
                return false;
            }
        }
        true
    }
}

/// The closed convex pieces of `mesh` (normalized frame), in shell order, when the figure is
/// built from them: together they hold at least [`BODY_AREA_SHARE`] of the surface, as a body
/// does (else empty: a body with convex props, such as eyeballs, is not a box figure).
pub fn box_figure(mesh: &PreparedMesh) -> Vec<Piece> {
    let ps = pieces(mesh);
    let total = surface_area(&mesh.triangles, &mesh.positions);
    let held: f64 = ps.iter().map(|p| p.area).sum();
    if held >= BODY_AREA_SHARE * total {
        ps
    } else {
        Vec::new()
    }
}

/// The closed convex pieces of `mesh` (normalized frame), in shell order.
pub fn pieces(mesh: &PreparedMesh) -> Vec<Piece> {
    let mut out = Vec::new();
    for (s, shell) in mesh.shells.iter().enumerate() {
        let at = |mut p: Piece| {
            p.shell = s;
            p
        };
        let tris: Vec<[u32; 3]> = shell
            .triangles
            .iter()
            .map(|&t| mesh.triangles[t as usize])
            .collect();
        if shell.closed {
            out.extend(convex_piece(&tris, &mesh.positions, false).map(at));
        } else {
            for patch in patches(&tris) {
                out.extend(convex_piece(&patch, &mesh.positions, true).map(at));
            }
        }
    }
    out
}

/// Total area of `tris` (indices into `positions`).
fn surface_area(tris: &[[u32; 3]], positions: &[P3]) -> f64 {
    tris.iter()
        .map(|t| {
            let [a, b, c] = t.map(|v| positions[v as usize]);
            0.5 * (b - a).cross(&(c - a)).norm()
        })
        .sum()
}

/// Undirected edge key.
fn key(a: u32, b: u32) -> (u32, u32) {
    (a.min(b), a.max(b))
}

/// The triangles of `tris` grouped by flooding across edges that exactly two of them share.
fn patches(tris: &[[u32; 3]]) -> Vec<Vec<[u32; 3]>> {
    let mut by_edge: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (i, t) in tris.iter().enumerate() {
        for k in 0..3 {
            by_edge
                .entry(key(t[k], t[(k + 1) % 3]))
                .or_default()
                .push(i);
        }
    }
    let mut parent: Vec<usize> = (0..tris.len()).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for users in by_edge.values().filter(|u| u.len() == 2) {
        let (a, b) = (find(&mut parent, users[0]), find(&mut parent, users[1]));
        parent[a.max(b)] = a.min(b);
    }
    let mut groups: BTreeMap<usize, Vec<[u32; 3]>> = BTreeMap::new();
    for (i, t) in tris.iter().enumerate() {
        let r = find(&mut parent, i);
        groups.entry(r).or_default().push(*t);
    }
    groups.into_values().collect()
}

/// `tris` as a convex piece, if it is one. An open patch (`open`) is closed by the plane of each
/// boundary loop, which must be flat.
fn convex_piece(tris: &[[u32; 3]], positions: &[P3], open: bool) -> Option<Piece> {
    let pts: Vec<P3> = tris
        .iter()
        .flatten()
        .filter_map(|&v| positions.get(v as usize).copied())
        .collect();
    let aabb = Aabb::of_points(&pts);
    let tol = CONVEX_TOLERANCE * aabb.extent().norm();
    let e = aabb.extent();
    if tris.len() < 4 || e.x.min(e.y).min(e.z) <= tol {
        return None;
    }
    let mut planes: Vec<(V3, f64)> = Vec::with_capacity(tris.len());
    for t in tris {
        let [a, b, c] = t.map(|v| positions[v as usize]);
        let n = (b - a).cross(&(c - a));
        let len = n.norm();
        if len > 0.0 {
            planes.push((n / len, (n / len).dot(&a.coords)));
        }
    }
    let mean = P3::from(pts.iter().fold(V3::zeros(), |s, p| s + p.coords) / pts.len() as f64);
    if open {
        for lp in boundary_loops(tris) {
            planes.push(loop_plane(&lp, positions, &mean, tol)?);
        }
    }
    // A convex body holds the mean of its corners: cheap rejection before the full test.
    let behind = |p: &P3| planes.iter().all(|(n, d)| n.dot(&p.coords) - d <= tol);
    if !behind(&mean) || !pts.iter().all(behind) {
        return None;
    }
    let area = surface_area(tris, positions);
    Some(Piece {
        planes,
        aabb,
        tol,
        area,
        shell: 0,
    })
}

/// The boundary loops of a patch (edges one of its triangles uses), as vertex lists.
fn boundary_loops(tris: &[[u32; 3]]) -> Vec<Vec<u32>> {
    let mut count: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for t in tris {
        for k in 0..3 {
            *count.entry(key(t[k], t[(k + 1) % 3])).or_default() += 1;
        }
    }
    let mut next: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (&(a, b), _) in count.iter().filter(|(_, &c)| c == 1) {
        next.entry(a).or_default().push(b);
        next.entry(b).or_default().push(a);
    }
    let mut loops = Vec::new();
    while let Some((&start, _)) = next.iter().find(|(_, v)| !v.is_empty()) {
        let mut lp = vec![start];
        let mut at = start;
        while let Some(n) = next.get_mut(&at).and_then(Vec::pop) {
            if let Some(back) = next.get_mut(&n) {
                back.retain(|&x| x != at);
            }
            if n == start {
                break;
            }
            lp.push(n);
            at = n;
        }
        loops.push(lp);
    }
    loops
}

/// The plane of a flat boundary loop (Newell's normal), facing away from `inside`; `None` if the
/// loop is not flat within `tol`.
fn loop_plane(lp: &[u32], positions: &[P3], inside: &P3, tol: f64) -> Option<(V3, f64)> {
    let pts: Vec<P3> = lp.iter().map(|&v| positions[v as usize]).collect();
    let mut n = V3::zeros();
    for (i, p) in pts.iter().enumerate() {
        let q = pts[(i + 1) % pts.len()];
        n += V3::new(
            (p.y - q.y) * (p.z + q.z),
            (p.z - q.z) * (p.x + q.x),
            (p.x - q.x) * (p.y + q.y),
        );
    }
    let len = n.norm();
    if pts.len() < 3 || len <= 0.0 {
        return None;
    }
    let mut n = n / len;
    let c = pts.iter().fold(V3::zeros(), |s, p| s + p.coords) / pts.len() as f64;
    if pts.iter().any(|p| n.dot(&(p.coords - c)).abs() > tol) {
        return None;
    }
    if n.dot(&(inside.coords - c)) > 0.0 {
        n = -n;
    }
    Some((n, n.dot(&c)))
}

/// The reason a rig leaves a box of a box-built figure without a bone, if it does: some convex
/// piece no bone enters while the rig poses a piece no larger (within rounding). `bones`: segments (parent joint,
/// child joint), normalized frame.
pub fn unposed(pieces: &[Piece], bones: &[(P3, P3)]) -> Option<String> {
    let posed: Vec<bool> = pieces
        .iter()
        .map(|p| bones.iter().any(|(a, b)| p.entered_by(a, b)))
        .collect();
    let smallest = pieces
        .iter()
        .zip(&posed)
        .filter(|(_, &b)| b)
        .map(|(p, _)| p.least_volume())
        .min_by(f64::total_cmp)?;
    let left = pieces
        .iter()
        .zip(&posed)
        .filter(|(p, &b)| !b && p.volume() >= smallest)
        .count();
    (left > 0).then(|| {
        format!(
            "the shape is built from closed convex pieces (boxes) and {left} of {} as large as \
             one the rig poses hold no bone: the rig cannot move them",
            pieces.len()
        )
    })
}

#[cfg(test)]
#[path = "pieces_tests.rs"]
mod tests;
