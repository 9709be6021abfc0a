//! Release timing of the embedding stage: discretize a mesh once, then run embed + refine several
//! times and print the medians. `cargo run --release --example embed_bench -- MESH [SKELETON] [RUNS] [auto]`
use std::path::Path;

use geppetto::config::RigConfig;
use geppetto::embed::{embed, OrientationMode};
use geppetto::progress::NoProgress;
use geppetto::skeleton::load_template;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let mesh = args
        .get(1)
        .map_or("../shared/corpus/meshes/sveta.obj", String::as_str);
    let skel = load_template(args.get(2).map_or("human", String::as_str))?;
    let runs: usize = args.get(3).map_or(Ok(7), |s| s.parse())?;
    let cfg = RigConfig::default();
    let t = std::time::Instant::now();
    let prepared = geppetto::mesh::prepare(geppetto::mesh::load(Path::new(mesh))?)?;
    let disc = geppetto::discretize::discretize(&prepared, &cfg.discretize, &NoProgress)?;
    println!(
        "load+prepare+discretize {:.1} ms, {} spheres, {} medial samples",
        t.elapsed().as_secs_f64() * 1e3,
        disc.graph.len(),
        disc.medial.samples.len()
    );
    let mut opts = cfg.embed_options();
    if args.get(4).is_some_and(|a| a == "auto") {
        opts.orientation = OrientationMode::Auto;
    }
    let (mut e_ms, mut r_ms) = (Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..runs {
        let e = embed(&disc, &skel, &[], &opts, &NoProgress)?;
        for (name, ms) in &e.timings_ms {
            match *name {
                "embed" => e_ms.push(*ms),
                "refine" => r_ms.push(*ms),
                _ => {}
            }
        }
        last = Some(e);
    }
    if let Some(e) = last {
        println!(
            "orientation {} penalty {:.4} nodes {} budget_hit {} forced {}",
            e.orientation.label(),
            e.penalty.total,
            e.nodes_expanded,
            e.budget_hit,
            e.forced
        );
        println!("warnings {:?}", e.warnings);
        let conf = geppetto::rig::confidence::assess(&prepared, &disc, &skel, &e);
        println!("confidence {:?} {:?}", conf.status, conf.reasons);
        for (j, p) in skel.joints.iter().zip(&e.joints) {
            let m = prepared.normalization.to_mesh(p);
            println!(
                "  {:18} norm ({:.3} {:.3} {:.3})  mesh ({:.4} {:.4} {:.4})",
                j.name, p.x, p.y, p.z, m.x, m.y, m.z
            );
        }
    }
    println!(
        "median over {runs} runs: embed {:.1} ms, refine {:.1} ms",
        median(e_ms),
        median(r_ms)
    );
    Ok(())
}
