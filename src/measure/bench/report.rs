//! Bench summary and text tables.
//!
//! Summary definitions (pinned down here): a mesh is **rigged** when at least one run exited 0 and
//! wrote a readable rig.json; **low confidence** counts rigged meshes whose first successful rig says
//! `low_confidence`; **median / worst time** are over rigged meshes of their median whole-process
//! wall time; the CD-J2J medians are over rigged meshes with an artist rig in the category; the skin
//! deformation median is over meshes whose `attach` weights were scored (mean deformation error), and
//! so are the skin precision, recall and L1 medians.

use std::fmt::Write as _;

use serde::Serialize;

use super::{BenchReport, MeshResult};
use crate::measure::median;

/// The figures of the summary lines.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Meshes benchmarked.
    pub meshes_total: usize,
    /// Meshes with at least one successful run.
    pub meshes_rigged: usize,
    /// Rigged meshes with status `low_confidence`.
    pub low_confidence: usize,
    /// Median over rigged meshes of the median wall time (ms).
    pub median_wall_ms: Option<f64>,
    /// Largest median wall time over rigged meshes (ms), and which mesh.
    pub worst_wall_ms: Option<f64>,
    /// The mesh with the worst time.
    pub worst_mesh: Option<String>,
    /// Median CD-J2J (% of extent) over rigged bipeds with truth.
    pub median_cd_j2j_biped: Option<f64>,
    /// How many bipeds that median is over.
    pub bipeds_scored: usize,
    /// Median CD-J2J (% of extent) over rigged quadrupeds with truth.
    pub median_cd_j2j_quadruped: Option<f64>,
    /// How many quadrupeds that median is over.
    pub quadrupeds_scored: usize,
    /// Median over scored meshes of the mean skin deformation error (% of extent).
    pub median_skin_deform_pct: Option<f64>,
    /// How many meshes that median is over.
    pub skins_scored: usize,
    /// Largest mean skin deformation error over scored meshes (% of extent).
    pub worst_skin_deform_pct: Option<f64>,
    /// Median over scored meshes of the influence precision (weight ≥ 0.05, micro).
    pub median_skin_precision: Option<f64>,
    /// Median over scored meshes of the influence recall.
    pub median_skin_recall: Option<f64>,
    /// Median over scored meshes of the mean per-vertex L1 weight distance.
    pub median_skin_l1: Option<f64>,
}

/// Compute the summary (module docs).
pub fn summarize(meshes: &[MeshResult]) -> Summary {
    let rigged: Vec<&MeshResult> = meshes.iter().filter(|m| m.ok_runs > 0).collect();
    let walls: Vec<(f64, &str)> = rigged
        .iter()
        .filter_map(|m| m.wall_ms.map(|w| (w, m.name.as_str())))
        .collect();
    let worst = walls.iter().copied().max_by(|a, b| a.0.total_cmp(&b.0));
    let j2j = |cat: &str| -> Vec<f64> {
        rigged
            .iter()
            .filter(|m| m.category == cat)
            .filter_map(|m| m.joints.as_ref().map(|j| j.cd_j2j))
            .collect()
    };
    let (bip, quad) = (j2j("biped"), j2j("quadruped"));
    let skins: Vec<&crate::measure::skinscore::SkinMeasures> =
        meshes.iter().filter_map(|m| m.skin.as_ref()).collect();
    let deform: Vec<f64> = skins.iter().map(|s| s.deform_mean_pct).collect();
    let of = |f: fn(&crate::measure::skinscore::SkinMeasures) -> Option<f64>| {
        median(&skins.iter().filter_map(|s| f(s)).collect::<Vec<_>>())
    };
    Summary {
        meshes_total: meshes.len(),
        meshes_rigged: rigged.len(),
        low_confidence: rigged
            .iter()
            .filter(|m| m.status == "low_confidence")
            .count(),
        median_wall_ms: median(&walls.iter().map(|w| w.0).collect::<Vec<_>>()),
        worst_wall_ms: worst.map(|w| w.0),
        worst_mesh: worst.map(|w| w.1.to_string()),
        median_cd_j2j_biped: median(&bip),
        bipeds_scored: bip.len(),
        median_cd_j2j_quadruped: median(&quad),
        quadrupeds_scored: quad.len(),
        median_skin_deform_pct: median(&deform),
        skins_scored: deform.len(),
        worst_skin_deform_pct: deform.iter().copied().max_by(f64::total_cmp),
        median_skin_precision: of(|s| s.precision),
        median_skin_recall: of(|s| s.recall),
        median_skin_l1: of(|s| Some(s.l1_mean)),
    }
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.digits$}"))
}

/// The summary lines, as quoted in notes.
pub fn summary_lines(s: &Summary) -> String {
    let secs = |v: Option<f64>| opt(v.map(|ms| ms / 1e3), 2);
    format!(
        "meshes rigged: {} / {}\nlow confidence: {}\n\
         time (whole process, median of runs): median {} s, worst {} s ({})\n\
         median CD-J2J: bipeds {} % ({} scored), quadrupeds {} % ({} scored)\n\
         median skin deformation error (attach on artist skeleton): {} % of extent ({} scored), worst {} %\n\
         median skin influence precision {}, recall {} (weight >= 0.05), L1 {}\n",
        s.meshes_rigged,
        s.meshes_total,
        s.low_confidence,
        secs(s.median_wall_ms),
        secs(s.worst_wall_ms),
        s.worst_mesh.as_deref().unwrap_or("-"),
        opt(s.median_cd_j2j_biped, 2),
        s.bipeds_scored,
        opt(s.median_cd_j2j_quadruped, 2),
        s.quadrupeds_scored,
        opt(s.median_skin_deform_pct, 2),
        s.skins_scored,
        opt(s.worst_skin_deform_pct, 2),
        opt(s.median_skin_precision, 3),
        opt(s.median_skin_recall, 3),
        opt(s.median_skin_l1, 3),
    )
}

/// Sort stage names in pipeline order, then any others alphabetically, `total` last; deduplicated.
pub fn order_stages(mut stages: Vec<String>) -> Vec<String> {
    const ORDER: [&str; 9] = [
        "load", "prepare", "field", "medial", "spheres", "graph", "embed", "refine", "skin",
    ];
    let rank = |s: &str| match s {
        "total" => ORDER.len() + 1,
        s => ORDER.iter().position(|o| *o == s).unwrap_or(ORDER.len()),
    };
    stages.sort_by(|a, b| rank(a).cmp(&rank(b)).then(a.cmp(b)));
    stages.dedup();
    stages
}

fn stage_columns(meshes: &[MeshResult]) -> Vec<String> {
    order_stages(
        meshes
            .iter()
            .flat_map(|m| m.stage_ms.keys().cloned())
            .collect(),
    )
}

/// Per-mesh tables and the summary lines.
pub fn format(report: &BenchReport) -> String {
    let mut s = String::new();
    mesh_table(&mut s, &report.meshes);
    stage_table(&mut s, &report.meshes);
    problem_lines(&mut s, &report.meshes);
    s.push('\n');
    s.push_str(&summary_lines(&report.summary));
    if let Some(a) = &report.auto_cost {
        let _ = writeln!(
            s,
            "--skeleton auto on {}: {:.2} s vs {} (default orientation) {:.2} s = {:.2}x (chose {})",
            a.mesh,
            a.auto_ms / 1e3,
            a.single,
            a.single_ms / 1e3,
            a.auto_ms / a.single_ms,
            a.auto_chose
        );
    }
    s
}

/// The main table: one row per mesh with status, time, memory, joint and skin scores.
fn mesh_table(s: &mut String, meshes: &[MeshResult]) {
    let _ =
        writeln!(
        s,
        "{:<14} {:<15} {:<9} {:>6} {:<14} {:>4} {:>8} {:>7} {:>7} {:>7} {:>7} {:>7} {:>6} {:>7} {:>6} {:>6} {:>8}",
        "mesh", "category", "skeleton", "V", "status", "ok", "wall s", "RSS MB", "graph",
        "J2J %", "J2B %", "B2B %", "L1", "deform%", "prec", "recall", "skin ms"
    );
    for m in meshes {
        let graph = m.stats.get("graph_vertices").map(|v| format!("{v:.0}"));
        let _ = writeln!(
            s,
            "{:<14} {:<15} {:<9} {:>6} {:<14} {:>4} {:>8} {:>7} {:>7} {:>7} {:>7} {:>7} {:>6} {:>7} {:>6} {:>6} {:>8}",
            m.name,
            m.category,
            m.skeleton,
            m.vertices,
            m.status,
            format!("{}/{}", m.ok_runs, m.runs),
            opt(m.wall_ms.map(|w| w / 1e3), 2),
            opt(m.peak_rss_mb, 0),
            graph.unwrap_or("-".into()),
            opt(m.joints.as_ref().map(|j| j.cd_j2j), 2),
            opt(m.joints.as_ref().map(|j| j.cd_j2b), 2),
            opt(m.joints.as_ref().map(|j| j.cd_b2b), 2),
            opt(m.skin.as_ref().map(|k| k.l1_mean), 3),
            opt(m.skin.as_ref().map(|k| k.deform_mean_pct), 2),
            opt(m.skin.as_ref().and_then(|k| k.precision), 3),
            opt(m.skin.as_ref().and_then(|k| k.recall), 3),
            opt(m.attach_skin_ms, 1),
        );
    }
}

/// The per-stage median times, one column per stage seen (nothing when no stage was timed).
fn stage_table(s: &mut String, meshes: &[MeshResult]) {
    let cols = stage_columns(meshes);
    if cols.is_empty() {
        return;
    }
    let _ = write!(s, "\nper-stage median ms\n{:<14}", "mesh");
    for c in &cols {
        let _ = write!(s, " {c:>9}");
    }
    s.push('\n');
    for m in meshes.iter().filter(|m| !m.stage_ms.is_empty()) {
        let _ = write!(s, "{:<14}", m.name);
        for c in &cols {
            let _ = write!(s, " {:>9}", opt(m.stage_ms.get(c).copied(), 1));
        }
        s.push('\n');
    }
}

/// Each mesh's error, warnings and notes (nothing when there are none).
fn problem_lines(s: &mut String, meshes: &[MeshResult]) {
    let problems: Vec<&MeshResult> = meshes
        .iter()
        .filter(|m| m.error.is_some() || !m.notes.is_empty() || !m.warnings.is_empty())
        .collect();
    if problems.is_empty() {
        return;
    }
    s.push_str("\nfailures, warnings and notes\n");
    for m in problems {
        if let Some(e) = &m.error {
            let _ = writeln!(s, "  {}: error: {e}", m.name);
        }
        for w in &m.warnings {
            let _ = writeln!(s, "  {}: warning: {w}", m.name);
        }
        for n in &m.notes {
            let _ = writeln!(s, "  {}: note: {n}", m.name);
        }
    }
}
