//! Where the embedding put each joint, stage by stage (developer tool): the sphere graph, the
//! discrete match (graph vertex per reduced joint), the split with end extension before
//! refinement, and the final joints, all in the mesh frame, as one JSON file.
//! `cargo run --release --example embed_dump -- MESH ORIENTATION TEMPLATE OUT.json`
//! (ORIENTATION as `rig --orientation`, e.g. `+z,-y` for +Z up facing -Y; TEMPLATE e.g. `human`).
//! bench/results.md ("Joint placement on the held-out characters") reads abbot's arm with it.
use std::collections::HashMap;
use std::path::Path;

use geppetto::config::RigConfig;
use geppetto::embed::{embed, Orientation, OrientationMode};
use geppetto::progress::NoProgress;
use geppetto::skeleton::load_template;

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 5 {
        anyhow::bail!("usage: embed_dump MESH ORIENTATION TEMPLATE OUT.json");
    }
    let cfg = RigConfig::default();
    let prepared = geppetto::mesh::prepare(geppetto::mesh::load(Path::new(&a[1]))?)?;
    let disc = geppetto::discretize::discretize(&prepared, &cfg.discretize, &NoProgress)?;
    let skel = load_template(&a[3])?;
    let mut opts = cfg.embed_options();
    opts.orientation = OrientationMode::Fixed(
        Orientation::parse(&a[2]).ok_or_else(|| anyhow::anyhow!("bad orientation {}", a[2]))?,
    );
    let e = embed(&disc, &skel, &[], &opts, &NoProgress)?;
    let nz = &prepared.normalization;
    let m = |p: &geppetto::geom::P3| {
        let q = nz.to_mesh(p);
        [q.x, q.y, q.z]
    };
    let red = geppetto::embed::reduced::Reduced::new(&skel);
    let paths = disc.graph.paths();
    let tdir = vec![geppetto::geom::V3::zeros(); skel.joints.len()];
    let ends = geppetto::embed::split::Ends {
        skel: &skel,
        field: &disc.field,
        template_dir: &tdir,
    };
    let matched: Vec<u32> = e.discrete.iter().map(|n| n.0).collect();
    let (sp, ext) =
        geppetto::embed::split::split(&disc.graph, paths, &red, &ends, &matched, &HashMap::new());
    let spheres: Vec<_> = disc
        .graph
        .spheres
        .iter()
        .map(|s| (m(&s.center), nz.len_to_mesh(s.radius)))
        .collect();
    let edges: Vec<(usize, usize)> = disc
        .graph
        .edges
        .iter()
        .enumerate()
        .flat_map(|(i, v)| {
            v.iter()
                .filter(move |(j, _)| j.0 as usize > i)
                .map(move |(j, _)| (i, j.0 as usize))
        })
        .collect();
    let out = serde_json::json!({
        "spheres": spheres, "edges": edges,
        "matched": red.joints.iter().zip(&matched).map(|(r, v)| (skel.joints[r.full.0].name.clone(), *v)).collect::<Vec<_>>(),
        "split": skel.joints.iter().zip(&sp).map(|(j, p)| (j.name.clone(), m(p))).collect::<Vec<_>>(),
        "extended": ext.iter().map(|j| skel.joints[*j].name.clone()).collect::<Vec<_>>(),
        "final": skel.joints.iter().zip(&e.joints).map(|(j, p)| (j.name.clone(), m(p))).collect::<Vec<_>>(),
        "penalty": e.penalty.total, "terms": e.penalty.terms,
    });
    std::fs::write(&a[4], serde_json::to_string(&out)?)?;
    Ok(())
}
