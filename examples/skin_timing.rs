//! Time the skin stage on a corpus mesh subdivided to ~110k vertices (issue 3: ≤ 2 s).
//!
//! ```text
//! cargo run --release --example skin_timing -- [MESH] [LEVELS] [RIG_JSON] [RUNS]
//! ```
//! Defaults: `$GEPPETTO_CORPUS/meshes/sveta.obj` (or `../shared/corpus/...`), 2 levels of midpoint
//! subdivision (×16 triangles), a synthetic star skeleton (20 bones from the centre to the
//! extremes) unless a `rig.json` is given, 3 runs. Prints the median of each part (heat sources and
//! visibility, assembly, symbolic, numeric, solve, post) and the whole stage, then VmHWM.
//! With `--no-field` (any argument position) visibility is "always inside": the field-independent
//! parts only. With `--exact` the visibility walk uses the exact field near the surface
//! (`skin.exact_visibility`).

use std::path::PathBuf;
use std::time::Instant;

use geppetto::discretize::{field, DiscretizeOptions};
use geppetto::geom::P3;
use geppetto::mesh::{self, Mesh};
use geppetto::rig::{Rig, RigJoint};
use geppetto::skin::{skin, skin_with_sdf, SkinOptions, SkinStats};

fn corpus() -> PathBuf {
    std::env::var_os("GEPPETTO_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"))
}

/// One level of midpoint subdivision: every triangle becomes four, shared edges share midpoints.
fn subdivide(m: &Mesh) -> Mesh {
    let mut positions = m.positions.clone();
    let mut mid = std::collections::HashMap::new();
    let mut midpoint = |a: u32, b: u32, positions: &mut Vec<P3>| -> u32 {
        *mid.entry((a.min(b), a.max(b))).or_insert_with(|| {
            let p = nalgebra::center(&positions[a as usize], &positions[b as usize]);
            positions.push(p);
            (positions.len() - 1) as u32
        })
    };
    let mut triangles = Vec::with_capacity(m.triangles.len() * 4);
    for &[a, b, c] in &m.triangles {
        let ab = midpoint(a, b, &mut positions);
        let bc = midpoint(b, c, &mut positions);
        let ca = midpoint(c, a, &mut positions);
        triangles.extend([[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]);
    }
    Mesh {
        positions,
        triangles,
    }
}

/// A star: root at the box centre, four 5-joint chains toward the extreme vertices along the two
/// longest axes (20 bones, each non-end joint owns one).
fn star(m: &Mesh) -> Vec<RigJoint> {
    let b = m.aabb();
    let c = b.center();
    let ext = b.extent();
    let mut axes = [0usize, 1, 2];
    axes.sort_by(|&x, &y| ext[y].total_cmp(&ext[x]));
    let mut joints = vec![RigJoint {
        name: "root".into(),
        parent: None,
        position: c.into(),
        end: false,
    }];
    for (k, (axis, sign)) in [
        (axes[0], 1.0),
        (axes[0], -1.0),
        (axes[1], 1.0),
        (axes[1], -1.0),
    ]
    .into_iter()
    .enumerate()
    {
        let tip = m
            .positions
            .iter()
            .max_by(|p, q| (sign * p[axis]).total_cmp(&(sign * q[axis])))
            .copied()
            .unwrap_or(c);
        for i in 1..=5 {
            let t = i as f64 / 5.0 * 0.95;
            joints.push(RigJoint {
                name: format!("arm{k}_{i}"),
                parent: Some(if i == 1 { 0 } else { joints.len() - 1 }),
                position: (c + (tip - c) * t).into(),
                end: i == 5,
            });
        }
    }
    joints
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn vm_hwm_mb() -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|k| k.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let no_field = args.iter().any(|a| a == "--no-field");
    let exact = args.iter().any(|a| a == "--exact");
    let pos: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let mesh_path = pos
        .first()
        .map_or_else(|| corpus().join("meshes/sveta.obj"), PathBuf::from);
    let levels: usize = pos.get(1).map_or(Ok(2), |s| s.parse())?;
    let runs: usize = pos.get(3).map_or(Ok(3), |s| s.parse())?;
    let mut m =
        mesh::load(&mesh_path).map_err(|e| anyhow::anyhow!("{}: {e}", mesh_path.display()))?;
    let joints = match pos.get(2) {
        Some(r) => Rig::load(std::path::Path::new(r.as_str()))?.joints,
        None => star(&m),
    };
    for _ in 0..levels {
        m = subdivide(&m);
    }
    let t = Instant::now();
    let prepared = mesh::prepare(m)?;
    println!(
        "{}: ×{} subdivision → {} vertices, {} triangles (prepare {:.0} ms)",
        mesh_path.display(),
        4usize.pow(levels as u32),
        prepared.positions.len(),
        prepared.triangles.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    let f = field::build(&prepared, &DiscretizeOptions::default());
    let field_ms = t.elapsed().as_secs_f64() * 1e3;
    // The stub field (before the discretize branch lands) says "outside" everywhere.
    let has_inside = prepared
        .positions
        .iter()
        .any(|p| f.eval(&(p + (P3::new(0.5, 0.5, 0.5) - p) * 0.05)) < 0.0);
    let use_field = has_inside && !no_field;
    println!(
        "field {field_ms:.0} ms ({})",
        if use_field {
            "real visibility"
        } else {
            "visibility = always inside"
        }
    );
    let opts = SkinOptions {
        exact_visibility: exact,
        ..SkinOptions::default()
    };
    let mut stats: Vec<SkinStats> = Vec::new();
    for _ in 0..runs {
        let s = if use_field {
            skin(&prepared, &f, &joints, &opts)?
        } else {
            skin_with_sdf(&prepared, &|_| -1.0, &joints, &opts)?
        };
        stats.push(s.stats);
    }
    let col = |g: fn(&SkinStats) -> f64| median(stats.iter().map(g).collect());
    let s0 = &stats[0];
    println!(
        "skin (median of {runs}): total {:.0} ms = heat {:.0} + assemble {:.0} + symbolic {:.0} + numeric {:.0} + solve {:.0} + post {:.0}",
        col(|s| s.total_ms),
        col(|s| s.heat_ms),
        col(|s| s.assemble_ms),
        col(|s| s.symbolic_ms),
        col(|s| s.numeric_ms),
        col(|s| s.solve_ms),
        col(|s| s.post_ms)
    );
    println!(
        "system: {} unknowns × {} right-hand sides, {} bones; peak memory (VmHWM) {:.0} MB",
        s0.unknowns,
        s0.columns,
        s0.bones,
        vm_hwm_mb()
    );
    Ok(())
}
