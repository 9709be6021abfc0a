//! Hint re-run latency (`geppetto bench --rerun MESH`): what the watcher's job does when a hints
//! sidecar changes, timed in-process and repeatable. The mesh is copied into a temporary folder
//! and rigged once (cold: this fills the pipeline's discretization cache, as the watcher's first
//! rig of an asset does); then each run rewrites `NAME.hints.yaml` (one joint pinned, moved by a
//! small step each time so every run is a real change), reads it back and re-rigs with the same
//! pipeline, writing the watcher's outputs (rig.json, GLB) and the thumbnail — from the request
//! to the new thumbnail on disk. File-watcher debounce and settle windows are not included: they
//! are configured waits, not work.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use super::super::{median, MeasureError};
use crate::choose::Template;
use crate::config::RigConfig;
use crate::export::{write_rig_to, Format, GlbSource};
use crate::naming::output_base;
use crate::pipeline::{Pipeline, RigRequest};
use crate::progress::NoProgress;
use crate::util::ms_since;

/// Each run moves the pinned joint by this fraction of the rig's bounding-box diagonal (about
/// 1 cm on a 1.7 m character: a small correction, like dragging a hint in a viewer).
const STEP_OF_DIAGONAL: f64 = 0.005;

/// The hint re-run bench.
#[derive(Clone, Debug, Serialize)]
pub struct RerunReport {
    /// Input mesh.
    pub mesh: String,
    /// Template used.
    pub skeleton: String,
    /// The pinned joint.
    pub joint: String,
    /// The cold rig (load to thumbnail), ms.
    pub cold_ms: f64,
    /// Each re-run, request to thumbnail, ms.
    pub rerun_ms: Vec<f64>,
    /// Each re-run's pipeline part (`timings_ms.total`), ms.
    pub pipeline_ms: Vec<f64>,
    /// Every re-run reused the cached discretization.
    pub reused: bool,
    /// Median of `rerun_ms`.
    pub median_ms: f64,
}

/// Rig `mesh_path` with `skeleton` once, then re-run it `runs` times after hint edits.
pub fn run(
    config: RigConfig,
    mesh_path: &Path,
    skeleton: &str,
    runs: usize,
) -> Result<RerunReport, MeasureError> {
    let input = |path: &Path, message: String| MeasureError::Input {
        path: path.display().to_string(),
        message,
    };
    let template = Template::parse(skeleton).map_err(|e| input(mesh_path, e.to_string()))?;
    let tmp = tempfile::tempdir().map_err(|e| input(&std::env::temp_dir(), e.to_string()))?;
    let name = mesh_path
        .file_name()
        .ok_or_else(|| input(mesh_path, "not a file".into()))?;
    let file = tmp.path().join(name);
    std::fs::copy(mesh_path, &file).map_err(|e| input(mesh_path, e.to_string()))?;
    let out_dir = tmp.path().join("rigged");
    let pipeline = Pipeline::new(config);
    let job = |pipeline: &Pipeline| rig_once(pipeline, &file, &template, tmp.path(), &out_dir);
    let (rig, cold_ms, _) = job(&pipeline).map_err(|e| input(&file, e))?;
    let (joint, start) = pinned_joint(&rig).ok_or_else(|| input(&file, "no joints".into()))?;
    let step = STEP_OF_DIAGONAL * diagonal(&rig.bbox);
    let mut report = RerunReport {
        mesh: mesh_path.display().to_string(),
        skeleton: skeleton.to_string(),
        joint: joint.clone(),
        cold_ms,
        rerun_ms: Vec::new(),
        pipeline_ms: Vec::new(),
        reused: true,
        median_ms: 0.0,
    };
    for i in 0..runs {
        // Alternate sides so the pin stays near the fitted joint.
        let dx = if i % 2 == 0 { step } else { -step };
        let p = [start[0] + dx, start[1], start[2]];
        write_hint(&file, &joint, p).map_err(|e| input(&file, e))?;
        let (rig, ms, reused) = job(&pipeline).map_err(|e| input(&file, e))?;
        report.rerun_ms.push(ms);
        report
            .pipeline_ms
            .push(rig.timings_ms.get("total").copied().unwrap_or(f64::NAN));
        report.reused &= reused;
    }
    report.median_ms = median(&report.rerun_ms).unwrap_or(f64::NAN);
    Ok(report)
}

/// One re-run as the watcher does it, request to thumbnail: rig `file` (with its hints sidecar)
/// and write the outputs of the watched folder `root` into `out_dir`. Returns the rig, the time
/// taken (ms) and whether the cached discretization was reused.
fn rig_once(
    pipeline: &Pipeline,
    file: &Path,
    template: &Template,
    root: &Path,
    out_dir: &Path,
) -> Result<(crate::rig::Rig, f64, bool), String> {
    let t = Instant::now();
    let req = RigRequest::with_sidecar(file, template.clone()).map_err(|e| e.to_string())?;
    let o = pipeline.rig(&req, &NoProgress).map_err(|e| e.to_string())?;
    let base = output_base(file, root, out_dir);
    let formats = [Format::Json, Format::Glb, Format::Png];
    write_rig_to(
        &o.rig,
        &o.prepared.input,
        GlbSource::of(&o),
        &base,
        &formats,
    )
    .map_err(|e| e.to_string())?;
    Ok((o.rig, ms_since(t), o.reused_discretization))
}

/// The joint to pin: the first forearm or elbow (a joint users often correct), else the middle
/// joint; with its fitted position (mesh frame).
fn pinned_joint(rig: &crate::rig::Rig) -> Option<(String, [f64; 3])> {
    let joints = &rig.joints;
    let like = |n: &str| {
        let l = n.to_lowercase();
        l.contains("forearm") || l.contains("elbow")
    };
    let j = joints
        .iter()
        .find(|j| like(&j.name))
        .or_else(|| joints.get(joints.len() / 2))?;
    Some((j.name.clone(), j.position))
}

fn diagonal(bbox: &[[f64; 3]; 2]) -> f64 {
    (0..3)
        .map(|k| (bbox[1][k] - bbox[0][k]).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// Write `NAME.hints.yaml` beside `mesh` pinning `joint` at `p` (mesh frame).
fn write_hint(mesh: &Path, joint: &str, p: [f64; 3]) -> Result<(), String> {
    let path: PathBuf = crate::embed::hints::sidecar_path(mesh);
    let text = format!(
        "hints:\n  - joint: {joint}\n    position: [{:?}, {:?}, {:?}]\n",
        p[0], p[1], p[2]
    );
    crate::util::write_atomic(&path, text.as_bytes()).map_err(|e| e.to_string())
}

/// The report as text.
pub fn format(r: &RerunReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "hint re-run latency: {} ({}), joint {} pinned",
        r.mesh, r.skeleton, r.joint
    );
    let _ = writeln!(s, "cold rig (load to thumbnail): {:.1} ms", r.cold_ms);
    let list = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.1}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = writeln!(
        s,
        "re-runs, request to thumbnail (ms): {}",
        list(&r.rerun_ms)
    );
    let _ = writeln!(
        s,
        "  of which the pipeline (ms):       {}",
        list(&r.pipeline_ms)
    );
    let _ = writeln!(
        s,
        "median re-run: {:.1} ms; cached discretization reused: {}",
        r.median_ms,
        if r.reused { "yes" } else { "NO" }
    );
    s
}
