//! The multi-component method on the corpus: `--method auto` sends exactly the manifest's
//! multi-component meshes down that path (bodies with props, eyes, fins stay on the embedding), and
//! brainstem rigs with it against its artist skeleton.

mod common;

use geppetto::measure::bench::manifest;
use geppetto::mesh;
use geppetto::multipart;

#[test]
fn auto_detection_follows_the_manifest_categories() {
    let Some(corpus) = common::corpus() else {
        return common::skip("corpus not found");
    };
    let entries = manifest::read(&corpus).expect("manifest");
    let mut wrong = Vec::new();
    for e in &entries {
        let path = manifest::mesh_path(&corpus, &e.name);
        let loaded = mesh::load::load(&path).expect("loads");
        let prepared = mesh::prepare(loaded).expect("prepares");
        let d = multipart::detect(&prepared);
        let expected = e.category == "multi-component";
        println!(
            "{:<14} {:<16} shells {:>4}  d_V {:>6}  d_A {:.3}  multipart {}",
            e.name,
            e.category,
            d.shells,
            d.volume_dominance.map_or("-".into(), |v| format!("{v:.3}")),
            d.area_dominance,
            d.multipart
        );
        if d.multipart != expected {
            wrong.push(e.name.clone());
        }
    }
    assert!(
        wrong.is_empty(),
        "path choice disagrees with the manifest: {wrong:?}"
    );
}
