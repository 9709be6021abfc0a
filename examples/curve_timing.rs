//! Per-stage timing of the curve skeleton's silhouette stage at 1×, 4× and 16× the vertices
//! (midpoint subdivision, as `geppetto bench --scaling`):
//! `cargo run --example curve_timing -- [--runs N] MESH...`
//! Prints the median over N runs (default 7) of wall and process CPU time (user + system, all
//! threads; on a shared machine CPU time is the steadier figure) of the view choice, the primary
//! raster and the outline loops, and the fitted exponent of the stage total in the face count.

#[path = "support/cpu.rs"]
mod cpu;
use cpu::cpu_ms;

use std::path::Path;
use std::time::Instant;

use geppetto::curveskel::{outline, raster, view, CurveMode};
use geppetto::measure::bench::scaling::fit_exponent;
use geppetto::measure::subdivide;
use geppetto::mesh::{self, PreparedMesh};

const STAGES: [&str; 3] = ["view", "primary", "loops"];

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 7usize;
    if let Some(i) = args.iter().position(|a| a == "--runs") {
        runs = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(7);
        args.drain(i..(i + 2).min(args.len()));
    }
    for path in &args {
        let Ok(m) = mesh::load(Path::new(path)) else {
            println!("{path}: could not load");
            continue;
        };
        println!("{path}");
        let mut totals = Vec::new();
        for factor in [1.0, 4.0, 16.0] {
            let (sub, _) = subdivide::to_factor(&m, factor);
            let Ok(pm) = mesh::prepare(sub) else {
                println!("  could not prepare at {factor}x");
                continue;
            };
            let (wall, cpu) = time_stages(&pm, runs);
            let faces = pm.triangles.len();
            let line: Vec<String> = STAGES
                .iter()
                .enumerate()
                .map(|(k, s)| format!("{s} {:.1}/{:.1}", wall[k], cpu[k]))
                .collect();
            let total: f64 = wall.iter().sum();
            println!(
                "  {faces:>7} faces  wall/cpu ms: {}  total wall {total:.1}",
                line.join("  ")
            );
            totals.push((faces as f64, total));
        }
        if let Some(e) = fit_exponent(&totals) {
            println!("  exponent (wall total vs faces): {e:.2}");
        }
    }
}

/// Median wall and CPU ms per stage over `runs` runs.
fn time_stages(pm: &PreparedMesh, runs: usize) -> ([f64; 3], [f64; 3]) {
    let mut wall: Vec<Vec<f64>> = vec![Vec::new(); 3];
    let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); 3];
    for _ in 0..runs {
        let mut mark = |k: usize, t: Instant, c: f64| {
            wall[k].push(t.elapsed().as_secs_f64() * 1e3);
            cpu[k].push(cpu_ms() - c);
        };
        let (t, c) = (Instant::now(), cpu_ms());
        let frame = view::choose(pm, None).expect("view");
        mark(0, t, c);
        let (t, c) = (Instant::now(), cpu_ms());
        let primary = raster::Raster::primary(pm, &frame);
        mark(1, t, c);
        let (t, c) = (Instant::now(), cpu_ms());
        let loops = outline::loops(&primary, CurveMode::Robust).expect("loops");
        mark(2, t, c);
        std::hint::black_box(loops);
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (
        [0, 1, 2].map(|k| med(&mut wall[k])),
        [0, 1, 2].map(|k| med(&mut cpu[k])),
    )
}
