//! The plain-language findings of mesh preparation ([`super::RepairReport::notes`]): what was
//! cleaned up, then what the topology is and what was repaired.

use super::{RepairReport, Shell};

/// Plain-language findings for the user: the clean-up first, then the topology.
pub(super) fn notes(
    r: &RepairReport,
    shells: &[Shell],
    kept: usize,
    reoriented: usize,
    still_inconsistent: usize,
) -> Vec<String> {
    let mut n = cleanup(r);
    n.extend(topology(r, shells, kept, reoriented, still_inconsistent));
    n
}

/// Welded, unreferenced, degenerate and duplicate input, each counted.
fn cleanup(r: &RepairReport) -> Vec<String> {
    let mut n = Vec::new();
    if r.welded_vertices > 0 {
        n.push(format!(
            "{} coincident vertices welded for topology (outputs keep all {} input vertices)",
            r.welded_vertices, r.input_vertices
        ));
    }
    if r.unreferenced_vertices > 0 {
        n.push(format!(
            "{} vertices are not used by any triangle; they are kept and bound to the nearest bone",
            r.unreferenced_vertices
        ));
    }
    if r.degenerate_triangles > 0 {
        n.push(format!(
            "{} degenerate triangles (zero area or a repeated vertex) ignored",
            r.degenerate_triangles
        ));
    }
    if r.duplicate_triangles > 0 {
        n.push(format!(
            "{} duplicate triangles ignored",
            r.duplicate_triangles
        ));
    }
    n
}

/// Shells, open and non-manifold edges, re-oriented triangles and flipped shells.
fn topology(
    r: &RepairReport,
    shells: &[Shell],
    kept: usize,
    reoriented: usize,
    still_inconsistent: usize,
) -> Vec<String> {
    let mut n = Vec::new();
    if let (true, Some(largest)) = (shells.len() > 1, shells.first()) {
        let pct = 100.0 * largest.triangles.len() as f64 / kept.max(1) as f64;
        let closed = shells.iter().filter(|s| s.closed).count();
        n.push(format!(
            "{} shells ({closed} closed); the largest holds {pct:.0}% of the triangles",
            shells.len()
        ));
    }
    if r.open_edges > 0 {
        n.push(format!(
            "{} open edges: the mesh is not watertight, inside/outside uses the generalized winding number",
            r.open_edges
        ));
    }
    if r.non_manifold_edges > 0 {
        n.push(format!(
            "{} non-manifold edges (shared by more than two triangles)",
            r.non_manifold_edges
        ));
    }
    if r.inconsistent_edges > 0 {
        n.push(format!(
            "{} edges joined triangles of opposite orientation; {reoriented} triangles were re-oriented{}",
            r.inconsistent_edges,
            if still_inconsistent > 0 {
                format!(" ({still_inconsistent} edges could not be made consistent)")
            } else {
                String::new()
            }
        ));
    }
    if r.inward_shells_flipped > 0 {
        n.push(format!(
            "{} shells faced inward and were flipped",
            r.inward_shells_flipped
        ));
    }
    n
}
