//! Prepare a loaded mesh for rigging: weld coincident vertices for topology, find shells, open and
//! non-manifold edges, degenerate faces, inward-facing shells; normalize into the unit cube.
//! Nothing here is fatal except an empty or zero-volume mesh.
//! OWNER: mesh helper. (Stub until implemented.)

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::{Mesh, Normalization};
use crate::geom::P3;

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
    /// Closed shells found facing inward (negative volume) and flipped for the engine.
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
    /// Signed volume in normalized units³ (after flipping inward shells: ≥ 0 for closed shells).
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
pub fn prepare(mesh: Mesh) -> Result<PreparedMesh, PrepareError> {
    Err(PrepareError::Empty {
        vertices: mesh.positions.len(),
        triangles: mesh.triangles.len(),
    })
}
