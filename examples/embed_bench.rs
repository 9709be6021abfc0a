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
    if std::env::var_os("MICRO").is_some() {
        let grid = geppetto::embed::nearest::PointIndex::new(&disc.medial.samples);
        let pts: Vec<geppetto::geom::P3> = (0..100_000)
            .map(|i| {
                let f = |k: u64| ((i as u64 * k) % 1000) as f64 / 1000.0;
                geppetto::geom::P3::new(
                    0.3 + 0.4 * f(7919),
                    0.1 + 0.8 * f(104_729),
                    0.3 + 0.4 * f(1_299_709),
                )
            })
            .collect();
        let t = std::time::Instant::now();
        let s: f64 = pts.iter().map(|p| disc.field.eval(p)).sum();
        println!(
            "100k field evals {:.1} ms ({s:.1})",
            t.elapsed().as_secs_f64() * 1e3
        );
        let t = std::time::Instant::now();
        let s: f64 = pts.iter().map(|p| disc.field.gradient(p).x).sum();
        println!(
            "100k field gradients {:.1} ms ({s:.1})",
            t.elapsed().as_secs_f64() * 1e3
        );
        let t = std::time::Instant::now();
        let n = pts
            .iter()
            .filter(|p| grid.nearest_within(p, 0.05).is_some())
            .count();
        println!(
            "100k nearest(0.05) {:.1} ms ({n})",
            t.elapsed().as_secs_f64() * 1e3
        );
    }
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
        let terms: Vec<String> = geppetto::embed::PENALTY_TERMS
            .iter()
            .zip(e.penalty.terms)
            .map(|(n, t)| format!("{n} {t:.3}"))
            .collect();
        println!("terms {}", terms.join(", "));
        println!("warnings {:?}", e.warnings);
        let conf = geppetto::confidence::assess(&prepared, &disc, &skel, &e);
        println!("confidence {:?} {:?}", conf.status, conf.reasons);
        for (j, p) in skel.joints.iter().zip(&e.joints) {
            let m = prepared.normalization.to_mesh(p);
            println!(
                "  {:18} norm ({:.3} {:.3} {:.3})  mesh ({:.4} {:.4} {:.4}) field {:.4}",
                j.name,
                p.x,
                p.y,
                p.z,
                m.x,
                m.y,
                m.z,
                disc.field.eval(p)
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
