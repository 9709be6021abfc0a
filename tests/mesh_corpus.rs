//! Corpus walk: every `meshes/*.obj` (and `gltf/*.glb`) of `../shared/corpus` loads and prepares;
//! counts are compared with `MANIFEST.tsv`.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::corpus;
use geppetto::mesh::load::load_rigged_gltf;
use geppetto::mesh::{load, prepare};

/// One MANIFEST.tsv row, by column name.
type Row = BTreeMap<String, String>;

fn manifest(dir: &std::path::Path) -> BTreeMap<String, Row> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("MANIFEST.tsv readable");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let row: Row = header
                .iter()
                .zip(l.split('\t'))
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect();
            (row["name"].clone(), row)
        })
        .collect()
}

fn num(row: &Row, col: &str) -> usize {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("{col} not a number"))
}

/// Components of `tris` joined only through edges with exactly two triangles (the manifest's
/// `connected_components` definition, as trimesh's face adjacency computes it).
fn manifold_edge_components(tris: &[[u32; 3]]) -> usize {
    let mut edges: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
    for (t, tri) in tris.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            edges.entry((a.min(b), a.max(b))).or_default().push(t);
        }
    }
    let mut parent: Vec<usize> = (0..tris.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for faces in edges.values() {
        if let [a, b] = faces[..] {
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            parent[ra] = rb;
        }
    }
    (0..tris.len())
        .filter(|&t| find(&mut parent, t) == t)
        .count()
}

#[test]
fn every_corpus_obj_loads_and_prepares() {
    let Some(dir) = corpus() else { return };
    let rows = manifest(&dir);
    for (name, row) in &rows {
        let path = dir.join("meshes").join(format!("{name}.obj"));
        let mesh = load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            mesh.positions.len(),
            num(row, "vertices"),
            "{name}: vertices"
        );
        assert_eq!(
            mesh.triangles.len(),
            num(row, "triangles"),
            "{name}: triangles"
        );
        let manifold_cc = manifold_edge_components(&mesh.triangles);
        let p = prepare(mesh).unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = &p.report;
        let want_cc = num(row, "connected_components");
        let want_wt = row["watertight"] == "yes";
        println!(
            "{name:14} v={:6} t={:6} shells={:4} (manifest {want_cc:4}) watertight={} (manifest {want_wt}) \
             open={} nm={} incons={} flipped={} welded={} degen={} dup={} unref={}",
            r.input_vertices, r.input_triangles, r.shells, r.watertight, r.open_edges,
            r.non_manifold_edges, r.inconsistent_edges, r.inward_shells_flipped,
            r.welded_vertices, r.degenerate_triangles, r.duplicate_triangles,
            r.unreferenced_vertices
        );
        // Watertightness agrees with the manifest everywhere.
        assert_eq!(r.watertight, want_wt, "{name}: watertight");
        // Shells: ours are edge-connected components (any shared edge joins, as the brief
        // defines them); the manifest joins faces only across edges with exactly two faces. The
        // manifest's definition is reproduced exactly, and ours can only merge its components.
        assert_eq!(manifold_cc, want_cc, "{name}: manifold-edge components");
        assert!(r.shells <= want_cc, "{name}: shells");
        if r.shells != want_cc {
            println!(
                "    {name}: {} shells vs manifest {want_cc}: {} non-manifold edges (and {} duplicate / \
                 {} degenerate triangles, whose repeated edges are non-manifold in the raw file) join \
                 parts the manifest counts separately",
                r.shells, r.non_manifold_edges, r.duplicate_triangles, r.degenerate_triangles
            );
            assert!(
                r.non_manifold_edges + r.duplicate_triangles + r.degenerate_triangles > 0,
                "{name}: shell count differs without a non-manifold cause"
            );
        }
    }
}

#[test]
fn every_corpus_glb_loads_and_prepares() {
    let Some(dir) = corpus() else { return };
    let rows = manifest(&dir);
    let mut glbs: Vec<PathBuf> = std::fs::read_dir(dir.join("gltf"))
        .expect("gltf folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "glb"))
        .collect();
    glbs.sort();
    assert!(!glbs.is_empty());
    for path in glbs {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let row = &rows[&name];
        let mesh = load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The GLB keeps its seam-split vertices (the OBJ was welded) and may carry triangles
        // the OBJ export dropped as degenerate or duplicate.
        assert!(
            mesh.positions.len() >= num(row, "vertices"),
            "{name}: vertices"
        );
        assert!(
            mesh.triangles.len() >= num(row, "triangles"),
            "{name}: triangles"
        );
        let p = prepare(mesh).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            p.report.watertight,
            row["watertight"] == "yes",
            "{name}: watertight"
        );
        let rigged = load_rigged_gltf(&path);
        let has_truth = row["has_truth"] == "yes";
        if has_truth {
            let r = rigged.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(r.skin.is_some(), "{name}: weights");
        }
        println!(
            "{name:14} glb v={:6} t={:6} (manifest {} / {}) rigged: {}",
            p.report.input_vertices,
            p.report.input_triangles,
            row["vertices"],
            row["triangles"],
            if has_truth { "yes" } else { "n/a" }
        );
    }
}
