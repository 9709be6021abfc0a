//! Per-stage timing of the discretization on real meshes (release build):
//! `cargo run --release --example discretize_timing -- [--runs N] MESH...`
//! `--reference` builds the field without the Lipschitz skip (every lattice point evaluated).
//! Prints the median over N runs (default 7) of each stage's wall time and of the process CPU
//! time it used (user + system, all threads: on a shared machine CPU time is the steadier
//! figure; wall ≈ CPU / 2 on an idle 2-core machine for the parallel stages), and the sizes.
//! Uses the crate's loader and `prepare()`; if they fail (e.g. not implemented yet), falls back to
//! a minimal OBJ reader (v / f lines only, no welding).

#[path = "support/cpu.rs"]
mod cpu;
use cpu::cpu_ms;

use std::path::Path;
use std::time::Instant;

use geppetto::discretize::{field, graph, medial, spheres, Discretization, DiscretizeOptions};
use geppetto::geom::{Aabb, P3};
use geppetto::mesh::{self, Mesh, Normalization, PreparedMesh, RepairReport};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 7usize;
    if let Some(i) = args.iter().position(|a| a == "--runs") {
        runs = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(7);
        args.drain(i..(i + 2).min(args.len()));
    }
    let reference = args.iter().any(|a| a == "--reference");
    args.retain(|a| a != "--reference");
    let opts = DiscretizeOptions::default();
    for path in &args {
        let Some(pm) = load(Path::new(path)) else {
            println!("{path}: could not load");
            continue;
        };
        let mut per_stage: Vec<Vec<f64>> = vec![Vec::new(); 5];
        let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); 5];
        let mut summary = String::new();
        let mut eval_ns = f64::NAN;
        for _ in 0..runs {
            let t = Instant::now();
            let c0 = cpu_ms();
            let mut stage_cpu = [0.0; 4];
            let mut last = c0;
            let res = staged(&pm, &opts, reference, &mut |k| {
                let now = cpu_ms();
                stage_cpu[k] = now - last;
                last = now;
            });
            for (k, v) in stage_cpu.iter().enumerate() {
                cpu[k].push(*v);
            }
            cpu[4].push(cpu_ms() - c0);
            per_stage[4].push(t.elapsed().as_secs_f64() * 1e3);
            match res {
                Ok(d) => {
                    eval_ns = eval_throughput(&d.field);
                    for (k, (_, ms)) in d.timings_ms.iter().enumerate().take(4) {
                        per_stage[k].push(*ms);
                    }
                    let s = d.field.stats();
                    summary = format!(
                        "leaves {} depth {} queries {} windings {} sign {} self-intersecting {} internal {} | samples {} spheres {} edges {} bridges {}",
                        s.leaves,
                        s.depth,
                        s.exact_queries,
                        s.winding_queries,
                        s.sign_method,
                        s.self_intersecting,
                        s.internal_triangles,
                        d.medial.samples.len(),
                        d.graph.len(),
                        d.graph.edges.iter().map(Vec::len).sum::<usize>() / 2,
                        d.graph.bridges.len()
                    );
                }
                Err(e) => summary = format!("error: {e}"),
            }
        }
        // The self-intersection test alone (discretize::selfx, on a prebuilt tree): its share of
        // the field's time.
        let tree = geppetto::discretize::bvh::Bvh::build(&pm.positions, &pm.triangles);
        let mut selfx_ms: Vec<f64> = (0..runs)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(geppetto::discretize::selfx::self_intersects(
                    &tree,
                    &pm.triangles,
                ));
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        selfx_ms.sort_by(f64::total_cmp);
        summary = format!(
            "{summary} | selfx test {:.2} ms",
            selfx_ms[selfx_ms.len() / 2]
        );
        let name = Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().to_string());
        let med = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
        };
        let m: Vec<f64> = per_stage.iter_mut().map(med).collect();
        let c: Vec<f64> = cpu.iter_mut().map(med).collect();
        println!(
            "{:<14} V {:>6} T {:>6} | wall ms: field {:6.1} medial {:5.1} spheres {:4.1} graph {:5.1} total {:6.1} | cpu ms: {:6.1} {:5.1} {:4.1} {:5.1} total {:6.1}\n    {} | eval {:.0} ns/call",
            name.unwrap_or_default(),
            pm.positions.len(),
            pm.triangles.len(),
            m[0],
            m[1],
            m[2],
            m[3],
            m[4],
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            summary,
            eval_ns
        );
    }
}

/// The four stages as `discretize()` runs them, calling `mark(k)` after stage k.
fn staged(
    pm: &PreparedMesh,
    opts: &DiscretizeOptions,
    reference: bool,
    mark: &mut dyn FnMut(usize),
) -> Result<Discretization, geppetto::discretize::DiscretizeError> {
    let mut timings_ms = Vec::new();
    let t = Instant::now();
    let field = if reference {
        field::build_reference(&pm.positions, &pm.triangles, opts)
    } else {
        field::build(pm, opts)
    };
    timings_ms.push(("field", t.elapsed().as_secs_f64() * 1e3));
    mark(0);
    let t = Instant::now();
    let medial = medial::sample(&field, opts);
    timings_ms.push(("medial", t.elapsed().as_secs_f64() * 1e3));
    mark(1);
    let t = Instant::now();
    let packed = spheres::pack(&medial, opts)?;
    timings_ms.push(("spheres", t.elapsed().as_secs_f64() * 1e3));
    mark(2);
    let t = Instant::now();
    let graph = graph::connect(packed, &field);
    timings_ms.push(("graph", t.elapsed().as_secs_f64() * 1e3));
    mark(3);
    Ok(Discretization {
        field,
        medial,
        graph,
        timings_ms,
    })
}

/// Mean single-thread cost of `DistanceField::eval` at 10⁶ pseudo-random points of the unit
/// cube, in ns.
fn eval_throughput(f: &geppetto::discretize::DistanceField) -> f64 {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let n = 1_000_000;
    let pts: Vec<P3> = (0..n).map(|_| P3::new(rnd(), rnd(), rnd())).collect();
    let t = Instant::now();
    let sum: f64 = pts.iter().map(|p| f.eval(p)).sum();
    let ns = t.elapsed().as_secs_f64() * 1e9 / n as f64;
    std::hint::black_box(sum);
    ns
}

fn load(path: &Path) -> Option<PreparedMesh> {
    if let Ok(m) = mesh::load(path) {
        if let Ok(pm) = mesh::prepare(m) {
            return Some(pm);
        }
    }
    let text = std::fs::read_to_string(path).ok()?;
    let mut m = Mesh::default();
    for line in text.lines() {
        let mut w = line.split_whitespace();
        match w.next() {
            Some("v") => {
                let c: Vec<f64> = w.take(3).filter_map(|x| x.parse().ok()).collect();
                m.positions.push(P3::new(c[0], c[1], c[2]));
            }
            Some("f") => {
                let n = m.positions.len() as i64;
                let idx: Vec<u32> = w
                    .filter_map(|x| x.split('/').next()?.parse::<i64>().ok())
                    .map(|i| if i < 0 { n + i } else { i - 1 } as u32)
                    .collect();
                for k in 1..idx.len().saturating_sub(1) {
                    m.triangles.push([idx[0], idx[k], idx[k + 1]]);
                }
            }
            _ => {}
        }
    }
    let normalization = Normalization::from_aabb(&Aabb::of_points(&m.positions));
    Some(PreparedMesh {
        positions: m
            .positions
            .iter()
            .map(|p| normalization.to_normalized(p))
            .collect(),
        weld: (0..m.positions.len() as u32).collect(),
        triangles: m.triangles.clone(),
        input: m,
        normalization,
        shells: Vec::new(),
        report: RepairReport::default(),
    })
}
