//! The plain-language findings of mesh preparation ([`super::RepairReport::notes`]): what was
//! cleaned up, then what the topology is and what was repaired.

use super::{RepairReport, Shell};
use crate::util::count;

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
            "{} ({closed} closed); the largest holds {pct:.0}% of the triangles",
            count(shells.len(), "shell", "shells")
        ));
    }
    if r.open_edges > 0 {
        n.push(format!(
            "{}: the mesh is not watertight, inside/outside uses the generalized winding number",
            count(r.open_edges, "open edge", "open edges")
        ));
    }
    if r.non_manifold_edges > 0 {
        n.push(format!(
            "{} (shared by more than two triangles)",
            count(
                r.non_manifold_edges,
                "non-manifold edge",
                "non-manifold edges"
            )
        ));
    }
    if r.inconsistent_edges > 0 {
        n.push(format!(
            "{} triangles of opposite orientation; {} re-oriented{}",
            count(r.inconsistent_edges, "edge joined", "edges joined"),
            count(reoriented, "triangle was", "triangles were"),
            if still_inconsistent > 0 {
                format!(
                    " ({} not be made consistent)",
                    count(still_inconsistent, "edge could", "edges could")
                )
            } else {
                String::new()
            }
        ));
    }
    if r.inward_shells_flipped > 0 {
        n.push(format!(
            "{} inward and {} flipped",
            count(r.inward_shells_flipped, "shell faced", "shells faced"),
            if r.inward_shells_flipped == 1 {
                "was"
            } else {
                "were"
            }
        ));
    }
    n
}
