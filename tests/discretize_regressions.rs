//! Regressions of the sphere graph on corpus meshes.

mod discretize_support;

use geppetto::discretize::{discretize, DiscretizeOptions};
use geppetto::geom::NodeId;
use geppetto::{mesh, NoProgress};

/// fox.obj is one closed watertight shell whose thin hind legs come out of the sphere packing as
/// separate components. They used to be joined by the shortest centre-to-centre "bridges", which
/// linked the left hind foot to the right hind foot across the gap (the embedding then put
/// LeftHindToe_End in the tail). Every component of a single closed shell can be joined by a link
/// that stays inside, so the graph must have no bridges at all, and the graph is connected.
#[test]
fn fox_closed_shell_has_no_bridges() {
    let Some(path) = discretize_support::corpus_mesh("fox") else {
        return;
    };
    let pm = match mesh::load(&path)
        .map_err(|e| e.to_string())
        .and_then(|m| mesh::prepare(m).map_err(|e| e.to_string()))
    {
        Ok(pm) => pm,
        Err(e) => panic!("fox: load/prepare failed: {e}"),
    };
    assert_eq!(pm.shells.len(), 1, "fox is expected to be one shell");
    let d = match discretize(&pm, &DiscretizeOptions::default(), &NoProgress) {
        Ok(d) => d,
        Err(e) => panic!("fox: discretize failed: {e}"),
    };
    let g = &d.graph;
    assert!(g.bridges.is_empty(), "fox bridges: {:?}", g.bridges);
    for a in 0..g.len() {
        for b in 0..g.len() {
            assert!(
                g.dist(NodeId(a as u32), NodeId(b as u32)).is_finite(),
                "fox graph not connected"
            );
        }
    }
}
