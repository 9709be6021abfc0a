//! Corpus walk: every corpus mesh discretizes (or fails with `NoInterior` and a clear message)
//! without panicking; the graph is connected and its spheres are inside. Prints the sizes.

mod discretize_support;

use geppetto::discretize::{discretize, DiscretizeError, DiscretizeOptions};
use geppetto::geom::NodeId;
use geppetto::{mesh, NoProgress};

#[test]
fn every_corpus_mesh_discretizes() {
    let Some(dir) = discretize_support::corpus_dir() else {
        return;
    };
    let mut paths: Vec<_> = std::fs::read_dir(dir.join("meshes"))
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p| p.extension().is_some_and(|e| e == "obj"));
    paths.sort();
    assert!(!paths.is_empty(), "no OBJ meshes in {}", dir.display());
    let opts = DiscretizeOptions::default();
    for path in &paths {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        let pm = match mesh::load(path)
            .map_err(|e| e.to_string())
            .and_then(|m| mesh::prepare(m).map_err(|e| e.to_string()))
        {
            Ok(pm) => pm,
            Err(e) => panic!("{name}: load/prepare failed: {e}"),
        };
        match discretize(&pm, &opts, &NoProgress) {
            Ok(d) => {
                let g = &d.graph;
                let s = d.field.stats();
                println!(
                    "{name:<14} leaves {:>6} depth {:>2} sign {:<13} internal {:>5} | samples {:>5} spheres {:>4} edges {:>5} bridges {:>3}",
                    s.leaves,
                    s.depth,
                    s.sign_method,
                    s.internal_triangles,
                    d.medial.samples.len(),
                    g.len(),
                    g.edges.iter().map(Vec::len).sum::<usize>() / 2,
                    g.bridges.len()
                );
                assert!(!g.is_empty() && g.len() <= opts.max_spheres, "{name}");
                for sp in &g.spheres {
                    assert!(
                        d.field.eval(&sp.center) < 0.0,
                        "{name}: sphere centre outside"
                    );
                }
                // Links that stay inside join components as ordinary edges; a bridge must
                // leave the solid (come within a tenth of the smaller radius of the surface).
                for &(a, b) in &g.bridges {
                    let (sa, sb) = (&g.spheres[a.idx()], &g.spheres[b.idx()]);
                    let depth = 0.1 * sa.radius.min(sb.radius);
                    let leaves = (0..=100).any(|k| {
                        let t = f64::from(k) / 100.0;
                        d.field.eval(&(sa.center + (sb.center - sa.center) * t)) >= -depth
                    });
                    assert!(
                        leaves,
                        "{name}: bridge {a:?}-{b:?} stays inside the surface"
                    );
                }
                let last = NodeId(g.len() as u32 - 1);
                for v in 0..g.len() as u32 {
                    assert!(
                        g.dist(NodeId(v), last).is_finite(),
                        "{name}: graph not connected"
                    );
                }
            }
            Err(e @ DiscretizeError::NoInterior { .. }) => {
                let msg = e.to_string();
                println!("{name:<14} NoInterior: {msg}");
                assert!(
                    msg.contains("thicker than"),
                    "{name}: unclear message {msg}"
                );
            }
            Err(e) => panic!("{name}: unexpected error {e}"),
        }
    }
}
