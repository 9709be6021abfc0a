//! Scaling study (`geppetto bench --scaling MESH`): the mesh midpoint-subdivided to about 1×, 4×
//! and 16× its vertex count ([`crate::measure::subdivide`]), each rigged `runs` times as a child
//! process; every stage's median time is fitted against the vertex count on log-log axes
//! (least squares), and the slope is the stage's empirical exponent: time ∝ V^exponent.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use super::{rig_runs, BenchOptions};
use crate::measure::{subdivide, MeasureError};

/// One subdivision level.
#[derive(Clone, Debug, Serialize)]
pub struct ScalingPoint {
    /// Midpoint subdivision levels applied.
    pub levels: u32,
    /// Vertices.
    pub vertices: usize,
    /// Triangles.
    pub triangles: usize,
    /// Successful runs.
    pub ok_runs: usize,
    /// First failure, if any.
    pub error: Option<String>,
    /// Median whole-process wall time (ms).
    pub wall_ms: Option<f64>,
    /// Median peak RSS (MiB).
    pub peak_rss_mb: Option<f64>,
    /// Median per-stage times (ms).
    pub stage_ms: BTreeMap<String, f64>,
}

/// The scaling study.
#[derive(Clone, Debug, Serialize)]
pub struct ScalingReport {
    /// Input mesh.
    pub mesh: String,
    /// Template used.
    pub skeleton: String,
    /// One point per factor (1×, 4×, 16×).
    pub points: Vec<ScalingPoint>,
    /// Fitted exponent per stage (and `wall` for the whole process); stages with fewer than two
    /// positive times are left out.
    pub exponents: BTreeMap<String, f64>,
}

/// Least-squares slope of `ln y` against `ln x` over the pairs with `x, y > 0`; `None` with fewer
/// than two such pairs or no spread in `x`.
pub fn fit_exponent(points: &[(f64, f64)]) -> Option<f64> {
    let logs: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    if logs.len() < 2 {
        return None;
    }
    let n = logs.len() as f64;
    let mx = logs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = logs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = logs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = logs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// Run the study on `mesh` with `skeleton`.
pub fn run(
    opts: &BenchOptions,
    mesh_path: &Path,
    skeleton: &str,
) -> Result<ScalingReport, MeasureError> {
    let mesh = crate::mesh::load(mesh_path).map_err(|e| MeasureError::Input {
        path: mesh_path.display().to_string(),
        message: e.to_string(),
    })?;
    let tmp = tempfile::tempdir().map_err(|e| MeasureError::Input {
        path: std::env::temp_dir().display().to_string(),
        message: format!("cannot create a temporary folder: {e}"),
    })?;
    let stem = crate::pipeline::asset_name(mesh_path);
    let mut points = Vec::new();
    for factor in [1.0, 4.0, 16.0] {
        let (m, levels) = subdivide::to_factor(&mesh, factor);
        let dir = tmp.path().join(format!("x{factor}"));
        let file = dir.join(format!("{stem}.obj"));
        let written = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&file, subdivide::to_obj(&m)));
        if let Err(e) = written {
            return Err(MeasureError::Input {
                path: file.display().to_string(),
                message: e.to_string(),
            });
        }
        if opts.verbose {
            eprintln!("scaling: {} vertices ({levels} levels)", m.positions.len());
        }
        let runs = rig_runs(opts, &file, skeleton, &dir);
        points.push(ScalingPoint {
            levels,
            vertices: m.positions.len(),
            triangles: m.triangles.len(),
            ok_runs: runs.ok_runs,
            error: runs.error,
            wall_ms: runs.wall_ms,
            peak_rss_mb: runs.peak_rss_mb,
            stage_ms: runs.stage_ms,
        });
    }
    let exponents = exponents(&points);
    Ok(ScalingReport {
        mesh: mesh_path.display().to_string(),
        skeleton: skeleton.to_string(),
        points,
        exponents,
    })
}

/// The fitted exponent of each stage's time and of the wall time against the vertex count
/// ([`ScalingReport::exponents`]).
fn exponents(points: &[ScalingPoint]) -> BTreeMap<String, f64> {
    let mut stages: Vec<String> = points
        .iter()
        .flat_map(|p| p.stage_ms.keys().cloned())
        .collect();
    stages.sort();
    stages.dedup();
    let mut exponents = BTreeMap::new();
    for s in stages {
        let pts: Vec<(f64, f64)> = points
            .iter()
            .filter_map(|p| p.stage_ms.get(&s).map(|t| (p.vertices as f64, *t)))
            .collect();
        if let Some(e) = fit_exponent(&pts) {
            exponents.insert(s, e);
        }
    }
    let walls: Vec<(f64, f64)> = points
        .iter()
        .filter_map(|p| p.wall_ms.map(|w| (p.vertices as f64, w)))
        .collect();
    if let Some(e) = fit_exponent(&walls) {
        exponents.insert("wall".into(), e);
    }
    exponents
}

/// The study as a table: one row per stage, one column per vertex count, then the exponent.
pub fn format(r: &ScalingReport) -> String {
    let mut s = format!("scaling of {} (skeleton {})\n", r.mesh, r.skeleton);
    // The name column fits the longest stage name (`curve_silhouette ms`), at least 12 wide.
    let width = r.exponents.keys().map(|k| k.len() + 3).fold(12, usize::max);
    let _ = write!(s, "{:<width$}", "V");
    for p in &r.points {
        let _ = write!(s, " {:>10}", p.vertices);
    }
    let _ = writeln!(s, " {:>9}", "exponent");
    let cell = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.1}"));
    let mut row = |name: &str, vals: Vec<Option<f64>>, key: &str| {
        let _ = write!(s, "{name:<width$}");
        for v in vals {
            let _ = write!(s, " {:>10}", cell(v));
        }
        let e = r
            .exponents
            .get(key)
            .map_or("-".into(), |e| format!("{e:.2}"));
        let _ = writeln!(s, " {e:>9}");
    };
    let names = super::report::order_stages(
        r.exponents
            .keys()
            .filter(|k| *k != "wall")
            .cloned()
            .collect(),
    );
    for n in &names {
        let vals = r
            .points
            .iter()
            .map(|p| p.stage_ms.get(n).copied())
            .collect();
        row(&format!("{n} ms"), vals, n);
    }
    row(
        "wall ms",
        r.points.iter().map(|p| p.wall_ms).collect(),
        "wall",
    );
    row(
        "RSS MB",
        r.points.iter().map(|p| p.peak_rss_mb).collect(),
        "-",
    );
    for p in r.points.iter().filter(|p| p.error.is_some()) {
        let _ = writeln!(
            s,
            "note: {} vertices: {}",
            p.vertices,
            p.error.as_deref().unwrap_or("")
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponent_of_a_power_law() {
        let pts: Vec<(f64, f64)> = [100.0, 400.0, 1600.0]
            .iter()
            .map(|&v: &f64| (v, 3.0 * v.powf(1.5)))
            .collect();
        assert!((fit_exponent(&pts).unwrap_or(0.0) - 1.5).abs() < 1e-12);
        assert_eq!(fit_exponent(&[(1.0, 1.0)]), None);
        assert_eq!(fit_exponent(&[(1.0, 0.0), (2.0, 5.0)]), None);
    }
}
