//! Corpus walk: every `meshes/*.obj` (and `gltf/*.glb`) of `../shared/corpus` loads and prepares;
//! counts are compared with `MANIFEST.tsv`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use geppetto::mesh::{load, prepare};

/// The corpus folder: `GEPPETTO_CORPUS`, else `<crate>/../shared/corpus`.
fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("GEPPETTO_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    if dir.join("MANIFEST.tsv").is_file() {
        Some(dir)
    } else {
        println!("skipped: corpus not found at {}", dir.display());
        None
    }
}

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

#[test]
fn every_corpus_obj_loads_and_prepares() {
    let Some(dir) = corpus() else { return };
    let rows = manifest(&dir);
    let mut checked = 0;
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
        checked += 1;
    }
    assert_eq!(checked, rows.len());
}
