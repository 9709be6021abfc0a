//! Prepare a loaded mesh for rigging: weld coincident vertices for topology, find shells, open and
//! non-manifold edges, degenerate faces, inward-facing shells; normalize into the unit cube.
//! Nothing here is fatal except an empty, non-finite or zero-volume mesh.
//!
//! Every tolerance is relative to the largest bounding-box side `L` of the referenced vertices:
//! vertices within `1e-9·L` are welded (hash grid, `weld.rs`), triangles with a repeated
//! welded vertex or area below `1e-14·L²` are degenerate, and a box whose smallest side is below
//! `1e-6·L` is flat (fatal). Topology work (shells, edges, orientation) is in `topology.rs`, each
//! shell's vertices, volume and outward flip in `shell.rs`.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use std::collections::HashSet;

use super::shell::make_shells;
pub use super::shell::OPEN_SHELL_VOLUME_FRACTION;
use super::topology::{orient_and_split, EdgeCounts};
use super::weld::{weld, FastBuild};
use super::{Mesh, Normalization};
use crate::geom::{Aabb, P3};

/// Vertices closer than this × the largest bbox side are one vertex for topology.
pub const WELD_TOLERANCE: f64 = 1e-9;
/// Triangles with area below this × (largest bbox side)² are degenerate.
pub const DEGENERATE_AREA: f64 = 1e-14;
/// A mesh whose smallest bbox side is below this × its largest side is flat (fatal).
pub const FLAT_RATIO: f64 = 1e-6;

/// What preparation found and did. Shown in the UI and written to `rig.json` under `"repair"`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RepairReport {
    /// Vertices in the input file.
    pub input_vertices: usize,
    /// Triangles in the input file (after triangulation).
    pub input_triangles: usize,
    /// Input vertices merged into another coincident vertex (topology only; outputs stay per input vertex).
    pub welded_vertices: usize,
    /// Input vertices no triangle uses (kept in outputs, bound to their nearest bone).
    pub unreferenced_vertices: usize,
    /// Triangles dropped for topology because they have (near-)zero area or repeated vertices.
    pub degenerate_triangles: usize,
    /// Triangles that repeat another triangle's vertex set (dropped for topology).
    pub duplicate_triangles: usize,
    /// Connected shells (edge-connected components after welding).
    pub shells: usize,
    /// Edges with exactly one incident triangle.
    pub open_edges: usize,
    /// Edges with more than two incident triangles.
    pub non_manifold_edges: usize,
    /// Edges whose two triangles disagree on orientation.
    pub inconsistent_edges: usize,
    /// Shells found facing inward (negative signed volume; for open shells, clearly negative about
    /// their centroid) and flipped for the engine.
    pub inward_shells_flipped: usize,
    /// True if every edge has exactly two consistently oriented triangles.
    pub watertight: bool,
    /// Plain-language notes for the user (one per finding worth telling).
    pub notes: Vec<String>,
}

/// One edge-connected shell of the welded mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct Shell {
    /// Indices into [`PreparedMesh::triangles`].
    pub triangles: Vec<u32>,
    /// Welded vertex indices used by the shell.
    pub vertices: Vec<u32>,
    /// True if the shell has no open or non-manifold edges.
    pub closed: bool,
    /// Signed volume about the shell's centroid, normalized units³ (after flipping inward shells:
    /// ≥ 0 for closed shells; exact only for closed shells).
    pub volume: f64,
}

/// A mesh ready for the engine. Two vertex index spaces exist, and names say which:
/// *input* vertices (`input.positions`, file order) and *welded* vertices (`positions`).
#[derive(Clone, Debug)]
pub struct PreparedMesh {
    /// The mesh as loaded (mesh frame, input order).
    pub input: Mesh,
    /// Mesh frame ↔ normalized frame.
    pub normalization: Normalization,
    /// Welded vertex positions, **normalized frame**; one entry per welded vertex.
    pub positions: Vec<P3>,
    /// One entry per input vertex: its welded vertex.
    pub weld: Vec<u32>,
    /// Welded triangles, degenerate and duplicate ones removed, inward shells flipped outward.
    pub triangles: Vec<[u32; 3]>,
    /// Edge-connected shells of `triangles`.
    pub shells: Vec<Shell>,
    /// What was found and done.
    pub report: RepairReport,
}

/// The only fatal preparation failures.
#[derive(Debug, Error)]
pub enum PrepareError {
    /// No vertices or no triangles.
    #[error("the mesh is empty ({vertices} vertices, {triangles} triangles)")]
    Empty {
        /// Vertex count.
        vertices: usize,
        /// Triangle count.
        triangles: usize,
    },
    /// All triangles are degenerate, or the mesh is flat / has no volume.
    #[error("the mesh is degenerate: {0}")]
    Degenerate(String),
    /// Non-finite coordinates.
    #[error("vertex {0} has a non-finite coordinate")]
    NonFinite(usize),
}

/// Weld, analyse, repair for topology, and normalize. See [`RepairReport`] for what is detected.
///
/// Shells are listed largest first. Unreferenced input vertices still get a welded vertex (so
/// `weld` covers every input vertex), but the normalization uses the referenced vertices only.
pub fn prepare(mesh: Mesh) -> Result<PreparedMesh, PrepareError> {
    let (nv, nt) = (mesh.positions.len(), mesh.triangles.len());
    let bbox = check_input(&mesh)?;
    let extent = bbox.max_extent();
    let welded = weld(&mesh.positions, WELD_TOLERANCE * extent, &bbox.min);
    let filtered = filter_triangles(&mesh, &welded.weld, &welded.positions, extent);
    if filtered.kept.is_empty() {
        return Err(PrepareError::Degenerate(
            "every triangle has zero area".into(),
        ));
    }
    let normalization = Normalization::from_aabb(&bbox);
    let positions: Vec<P3> = welded
        .positions
        .iter()
        .map(|p| normalization.to_normalized(p))
        .collect();
    let mut triangles = filtered.kept;
    let split = orient_and_split(&mut triangles);
    let (found, after) = (split.found, split.after);
    let (shells, inward) = make_shells(&split, &positions, &mut triangles);
    let unreferenced = count_unreferenced(&welded.weld, positions.len(), &triangles);
    let mut report = RepairReport {
        input_vertices: nv,
        input_triangles: nt,
        welded_vertices: nv - positions.len(),
        unreferenced_vertices: unreferenced,
        degenerate_triangles: filtered.degenerate,
        duplicate_triangles: filtered.duplicate,
        shells: shells.len(),
        open_edges: found.open,
        non_manifold_edges: found.non_manifold,
        inconsistent_edges: found.inconsistent,
        inward_shells_flipped: inward,
        watertight: after == EdgeCounts::default(),
        notes: Vec::new(),
    };
    report.notes = super::notes::notes(
        &report,
        &shells,
        triangles.len(),
        split.reoriented,
        after.inconsistent,
    );
    Ok(PreparedMesh {
        input: mesh,
        normalization,
        positions,
        weld: welded.weld,
        triangles,
        shells,
        report,
    })
}

/// The fatal checks: empty, non-finite, coincident or flat. Returns the bounding box of the
/// referenced vertices (mesh frame), whose largest side is positive.
fn check_input(mesh: &Mesh) -> Result<Aabb, PrepareError> {
    let (nv, nt) = (mesh.positions.len(), mesh.triangles.len());
    if nv == 0 || nt == 0 {
        return Err(PrepareError::Empty {
            vertices: nv,
            triangles: nt,
        });
    }
    if let Some(i) = mesh
        .positions
        .iter()
        .position(|p| !p.iter().all(|c| c.is_finite()))
    {
        return Err(PrepareError::NonFinite(i));
    }
    let bbox = referenced_bbox(mesh);
    let extent = bbox.max_extent();
    if bbox.is_empty() || extent.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return Err(PrepareError::Degenerate(
            "all triangle vertices coincide".into(),
        ));
    }
    let e = bbox.extent();
    if e.min() < FLAT_RATIO * extent {
        return Err(PrepareError::Degenerate(format!(
            "the mesh is flat (bounding box {:.3e} × {:.3e} × {:.3e}); it has no volume to rig",
            e.x, e.y, e.z
        )));
    }
    Ok(bbox)
}

/// Bounding box of the vertices used by triangles with in-range indices (mesh frame).
fn referenced_bbox(mesh: &Mesh) -> Aabb {
    let mut b = Aabb::empty();
    for t in &mesh.triangles {
        for &i in t {
            if let Some(p) = mesh.positions.get(i as usize) {
                b.grow(p);
            }
        }
    }
    b
}

/// Welded triangles that survive the degenerate and duplicate filters.
struct Filtered {
    kept: Vec<[u32; 3]>,
    degenerate: usize,
    duplicate: usize,
}

/// Map triangles through the weld and drop degenerate ones (repeated welded vertex, out-of-range
/// index, area < [`DEGENERATE_AREA`]·L²) and repeats of an earlier triangle's vertex set.
fn filter_triangles(mesh: &Mesh, weld: &[u32], welded: &[P3], extent: f64) -> Filtered {
    let min_double_area = 2.0 * DEGENERATE_AREA * extent * extent;
    let mut seen: HashSet<(u32, u32, u32), FastBuild> =
        HashSet::with_capacity_and_hasher(mesh.triangles.len(), FastBuild::default());
    let mut out = Filtered {
        kept: Vec::with_capacity(mesh.triangles.len()),
        degenerate: 0,
        duplicate: 0,
    };
    for t in &mesh.triangles {
        let Some(w) = map3(t, weld) else {
            out.degenerate += 1;
            continue;
        };
        let Some([a, b, c]) = map3(&w, welded) else {
            out.degenerate += 1;
            continue;
        };
        if w[0] == w[1]
            || w[1] == w[2]
            || w[0] == w[2]
            || (b - a).cross(&(c - a)).norm() < min_double_area
        {
            out.degenerate += 1;
            continue;
        }
        let mut key = w;
        key.sort_unstable();
        if seen.insert((key[0], key[1], key[2])) {
            out.kept.push(w);
        } else {
            out.duplicate += 1;
        }
    }
    out
}

/// `[v[t0], v[t1], v[t2]]`, or `None` if an index is out of range.
pub(super) fn map3<T: Copy>(t: &[u32; 3], v: &[T]) -> Option<[T; 3]> {
    Some([
        *v.get(t[0] as usize)?,
        *v.get(t[1] as usize)?,
        *v.get(t[2] as usize)?,
    ])
}

/// Input vertices whose welded vertex no kept triangle uses.
fn count_unreferenced(weld: &[u32], welded_count: usize, triangles: &[[u32; 3]]) -> usize {
    let mut used = vec![false; welded_count];
    for &i in triangles.iter().flatten() {
        if let Some(u) = used.get_mut(i as usize) {
            *u = true;
        }
    }
    weld.iter()
        .filter(|&&w| !used.get(w as usize).copied().unwrap_or(false))
        .count()
}

#[cfg(test)]
#[path = "prepare_tests.rs"]
mod tests;
