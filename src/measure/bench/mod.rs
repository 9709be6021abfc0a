//! `geppetto bench`: rig every corpus mesh N times, each run a **child process** of the geppetto
//! executable (`rig MESH --skeleton S --out TMP --format json`), so wall time and peak RSS are
//! whole-process figures (process start, mesh load, every stage, writing rig.json). Per-stage times
//! are the medians of the rig.json `timings_ms` over successful runs. Where the corpus has an artist
//! rig, the first successful rig is scored against it ([`super::score`]), and
//! `attach MESH --skeleton-from <artist skeleton as rig.json>` is run once (child process) and its
//! weights scored against the artist weights (20 poses, seed 1, ≤ 30°).
//!
//! Runs are sequential: on the 2-core machine parallel runs would distort each other's times.

pub mod child;
pub mod edit;
pub mod manifest;
pub mod report;
pub mod rerun;
pub mod scaling;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::Serialize;

use super::joints::JointMeasures;
use super::score::{score_files, ScoreOptions};
use super::skinscore::SkinMeasures;
use super::{median, MeasureError};
use crate::rig::{Rig, Status};

pub use report::{summarize, Summary};

/// Bench settings.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// The geppetto executable to run as a child.
    pub exe: PathBuf,
    /// Corpus folder (MANIFEST.tsv, meshes/, truth/).
    pub corpus: PathBuf,
    /// Runs per mesh (≥ 1).
    pub runs: usize,
    /// Only meshes matching this glob ([`manifest::glob_match`]).
    pub filter: Option<String>,
    /// Engine configuration passed through to `rig`/`attach`.
    pub config: Option<PathBuf>,
    /// Per-run time limit.
    pub timeout: Duration,
    /// Print one progress line per mesh to stderr.
    pub verbose: bool,
}

/// Everything measured for one mesh.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MeshResult {
    /// Mesh name.
    pub name: String,
    /// Manifest category.
    pub category: String,
    /// Template used.
    pub skeleton: String,
    /// Vertices (manifest).
    pub vertices: usize,
    /// Runs attempted.
    pub runs: usize,
    /// Runs that exited 0 and wrote a readable rig.json.
    pub ok_runs: usize,
    /// `ok`, `low_confidence` (first successful run's status) or `failed`.
    pub status: String,
    /// First failure message, if any run failed.
    pub error: Option<String>,
    /// Confidence reasons and warnings of the first successful run.
    pub warnings: Vec<String>,
    /// Median whole-process wall time over all runs that exited (ms).
    pub wall_ms: Option<f64>,
    /// Median peak RSS over all runs that exited (MiB).
    pub peak_rss_mb: Option<f64>,
    /// Median per-stage milliseconds (rig.json `timings_ms`) over successful runs.
    pub stage_ms: BTreeMap<String, f64>,
    /// Graph size and other engine statistics (rig.json `stats`, first successful run).
    pub stats: BTreeMap<String, f64>,
    /// Joint measures of the rig against the artist rig.
    pub joints: Option<JointMeasures>,
    /// Skin measures of `attach` on the artist skeleton.
    pub skin: Option<SkinMeasures>,
    /// Whole-process wall time of the `attach` run (ms).
    pub attach_wall_ms: Option<f64>,
    /// The skin stage of the `attach` run (its rig.json `timings_ms.skin`, ms).
    pub attach_skin_ms: Option<f64>,
    /// Why a truth comparison was skipped or failed.
    pub notes: Vec<String>,
}

/// The whole bench: per-mesh results and the summary.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Corpus folder.
    pub corpus: String,
    /// Runs per mesh.
    pub runs: usize,
    /// Filter used.
    pub filter: Option<String>,
    /// One entry per benchmarked mesh, manifest order.
    pub meshes: Vec<MeshResult>,
    /// Summary lines' figures.
    pub summary: Summary,
    /// The cost of `--skeleton auto` on [`AUTO_COST_MESH`] (when benchmarked).
    pub auto_cost: Option<AutoCost>,
}

/// The mesh on which `--skeleton auto` is timed against one template with default orientation
/// (issue 15: auto must stay within 2x there).
pub const AUTO_COST_MESH: &str = "sveta";

/// Median whole-process wall times of `auto` and of the category's template (default orientation).
#[derive(Clone, Debug, Serialize)]
pub struct AutoCost {
    /// Mesh name.
    pub mesh: String,
    /// Template of the single-template run.
    pub single: String,
    /// Median wall time of the single-template runs (ms).
    pub single_ms: f64,
    /// Median wall time of the `auto` runs (ms).
    pub auto_ms: f64,
    /// Template `auto` chose.
    pub auto_chose: String,
}

/// Run the bench. Errors only when the corpus manifest cannot be read; individual failures are
/// recorded in the results.
pub fn run(opts: &BenchOptions) -> Result<BenchReport, MeasureError> {
    let entries = manifest::read(&opts.corpus)?;
    let selected: Vec<_> = entries
        .into_iter()
        .filter(|e| {
            opts.filter
                .as_deref()
                .is_none_or(|f| manifest::glob_match(f, &e.name))
        })
        .collect();
    let tmp = tempfile::tempdir().map_err(|e| MeasureError::Input {
        path: std::env::temp_dir().display().to_string(),
        message: format!("cannot create a temporary folder: {e}"),
    })?;
    let mut meshes = Vec::with_capacity(selected.len());
    for (i, e) in selected.iter().enumerate() {
        let r = bench_mesh(opts, e, &tmp.path().join(&e.name));
        if opts.verbose {
            eprintln!(
                "[{}/{}] {:<16} {:<14} {}",
                i + 1,
                selected.len(),
                e.name,
                r.status,
                r.wall_ms
                    .map_or("-".into(), |w| format!("{:.2} s", w / 1e3))
            );
        }
        meshes.push(r);
    }
    let summary = summarize(&meshes);
    let auto_cost = meshes
        .iter()
        .zip(&selected)
        .find(|(m, _)| m.name == AUTO_COST_MESH)
        .and_then(|(m, e)| {
            let mesh = manifest::mesh_path(&opts.corpus, &e.name);
            let auto = rig_runs(opts, &mesh, "auto", &tmp.path().join("auto-cost"));
            Some(AutoCost {
                mesh: m.name.clone(),
                single: m.skeleton.clone(),
                single_ms: m.wall_ms?,
                auto_ms: auto.wall_ms?,
                auto_chose: auto.first.map(|(r, _)| r.skeleton).unwrap_or_default(),
            })
        });
    Ok(BenchReport {
        corpus: opts.corpus.display().to_string(),
        runs: opts.runs,
        filter: opts.filter.clone(),
        meshes,
        summary,
        auto_cost,
    })
}

/// `geppetto SUBCOMMAND MESH FLAG VALUE --out OUT --format json`, with the config passed through.
fn geppetto(
    opts: &BenchOptions,
    subcommand: &str,
    mesh: &Path,
    (flag, value): (&str, &std::ffi::OsStr),
    out: &Path,
) -> Command {
    let mut cmd = Command::new(&opts.exe);
    cmd.arg(subcommand)
        .arg(mesh)
        .arg(flag)
        .arg(value)
        .arg("--out")
        .arg(out)
        .args(["--format", "json"]);
    if let Some(c) = &opts.config {
        cmd.arg("--config").arg(c);
    }
    cmd
}

/// The outcome of N rig runs of one mesh.
#[derive(Debug, Default)]
pub(crate) struct Runs {
    /// Runs that exited 0 with a readable rig.json.
    pub ok_runs: usize,
    /// First failure message.
    pub error: Option<String>,
    /// Median wall time over runs that exited (ms).
    pub wall_ms: Option<f64>,
    /// Median peak RSS over runs that exited (MiB).
    pub peak_rss_mb: Option<f64>,
    /// Median per-stage times over successful runs (ms).
    pub stage_ms: BTreeMap<String, f64>,
    /// The first successful rig and its file.
    pub first: Option<(Rig, PathBuf)>,
}

/// Run `rig MESH --skeleton S` `opts.runs` times as child processes, outputs under `work`.
pub(crate) fn rig_runs(opts: &BenchOptions, mesh: &Path, skeleton: &str, work: &Path) -> Runs {
    let stem = crate::pipeline::asset_name(mesh);
    let mut r = Runs::default();
    let (mut walls, mut rss, mut stages) = (Vec::new(), Vec::new(), BTreeMap::new());
    for k in 0..opts.runs {
        let out = work.join(format!("run{k}"));
        let cmd = geppetto(opts, "rig", mesh, ("--skeleton", skeleton.as_ref()), &out);
        let run = match child::run(cmd, &out, opts.timeout) {
            Ok(run) => run,
            Err(err) => {
                r.error
                    .get_or_insert(format!("cannot start {}: {err}", opts.exe.display()));
                continue;
            }
        };
        if run.exit_code.is_some() || run.signal.is_some() {
            walls.push(run.wall_ms);
            rss.push(run.peak_rss_mb);
        }
        let rig_path = out.join(format!("{stem}.rig.json"));
        match run.success().then(|| Rig::load(&rig_path)).transpose() {
            Ok(Some(rig)) => {
                r.ok_runs += 1;
                for (stage, ms) in &rig.timings_ms {
                    stages
                        .entry(stage.clone())
                        .or_insert_with(Vec::new)
                        .push(*ms);
                }
                r.first.get_or_insert((rig, rig_path));
            }
            Ok(None) => {
                r.error.get_or_insert(run.failure());
            }
            Err(err) => {
                r.error.get_or_insert(format!("{err:#}"));
            }
        }
    }
    r.wall_ms = median(&walls);
    r.peak_rss_mb = median(&rss);
    r.stage_ms = stages
        .iter()
        .filter_map(|(s, v)| median(v).map(|m| (s.clone(), m)))
        .collect();
    r
}

/// All runs of one mesh, then the truth comparisons.
fn bench_mesh(opts: &BenchOptions, e: &manifest::Entry, work: &Path) -> MeshResult {
    let mesh = manifest::mesh_path(&opts.corpus, &e.name);
    let runs = rig_runs(opts, &mesh, &e.skeleton, work);
    let mut r = MeshResult {
        name: e.name.clone(),
        category: e.category.clone(),
        skeleton: e.skeleton.clone(),
        vertices: e.vertices,
        runs: opts.runs,
        ok_runs: runs.ok_runs,
        error: runs.error,
        wall_ms: runs.wall_ms,
        peak_rss_mb: runs.peak_rss_mb,
        stage_ms: runs.stage_ms,
        ..MeshResult::default()
    };
    let first = runs.first;
    r.status = match &first {
        None => "failed".into(),
        Some((rig, _)) if rig.status == Status::LowConfidence => "low_confidence".into(),
        Some(_) => "ok".into(),
    };
    if let Some((rig, _)) = &first {
        r.warnings = rig.warnings.clone();
        r.stats = rig.stats.clone();
    }
    if let Some(truth) = manifest::truth_path(&opts.corpus, &e.name) {
        compare_with_truth(opts, &mut r, &mesh, &truth, first.as_ref(), work);
    }
    r
}

/// Joint measures of the rig, and skin measures of `attach` on the artist skeleton.
fn compare_with_truth(
    opts: &BenchOptions,
    r: &mut MeshResult,
    mesh: &Path,
    truth_path: &Path,
    rigged: Option<&(Rig, PathBuf)>,
    work: &Path,
) {
    let score_opts = ScoreOptions {
        mesh: Some(mesh.to_path_buf()),
        ..ScoreOptions::default()
    };
    if let Some((_, rig_path)) = rigged {
        match score_files(rig_path, truth_path, &score_opts) {
            Ok(s) => r.joints = Some(s.joints),
            Err(e) => r.notes.push(format!("joint score failed: {e}")),
        }
    }
    let truth = match crate::rig::read::read(truth_path) {
        Ok(t) => t,
        Err(e) => {
            r.notes.push(format!("truth unreadable: {e}"));
            return;
        }
    };
    if truth.skin.is_none() {
        r.notes.push("truth has no skin weights".into());
        return;
    }
    let bbox = rigged.map(|(rig, _)| crate::geom::Aabb {
        min: rig.bbox[0].into(),
        max: rig.bbox[1].into(),
    });
    let skel_path = work.join("artist-skeleton.rig.json");
    let text = truth.skeleton_rig(mesh, bbox).to_json();
    if let Err(e) = crate::util::write_atomic(&skel_path, text.as_bytes()) {
        r.notes
            .push(format!("cannot write {}: {e}", skel_path.display()));
        return;
    }
    attach_skin(opts, r, mesh, truth_path, &skel_path, work, &score_opts);
}

/// `geppetto attach` of the artist skeleton written at `skel_path`, in a child process (timed),
/// and its weights scored against the artist's in `truth_path`.
fn attach_skin(
    opts: &BenchOptions,
    r: &mut MeshResult,
    mesh: &Path,
    truth_path: &Path,
    skel_path: &Path,
    work: &Path,
    score_opts: &ScoreOptions,
) {
    let out = work.join("attach");
    let flag = ("--skeleton-from", skel_path.as_os_str());
    let cmd = geppetto(opts, "attach", mesh, flag, &out);
    let run = match child::run(cmd, &out, opts.timeout) {
        Ok(run) => run,
        Err(e) => {
            r.notes.push(format!("attach: cannot start: {e}"));
            return;
        }
    };
    r.attach_wall_ms = Some(run.wall_ms);
    if !run.success() {
        r.notes.push(format!("attach failed: {}", run.failure()));
        return;
    }
    let pred = out.join(format!("{}.rig.json", crate::pipeline::asset_name(mesh)));
    r.attach_skin_ms = Rig::load(&pred)
        .ok()
        .and_then(|rig| rig.timings_ms.get("skin").copied());
    match score_files(&pred, truth_path, score_opts) {
        Ok(s) => {
            r.skin = s.skin;
            r.notes
                .extend(s.notes.into_iter().map(|n| format!("attach: {n}")));
        }
        Err(e) => r.notes.push(format!("attach score failed: {e}")),
    }
}
