//! `geppetto rig MESH...`: rig meshes in parallel, write outputs, one line per result.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use rayon::prelude::*;

use super::RigArgs;
use crate::batch::{self, Shard};
use crate::choose::Template;
use crate::embed::hints::Hints;
use crate::embed::OrientationMode;
use crate::export::{self, Format};
use crate::naming::{self, OutputBase};
use crate::pipeline::{Method, Pipeline, RigOutcome, RigRequest};
use crate::progress::Progress;
use crate::rig::Status;
use crate::{config::RigConfig, RigError};

/// Load the engine configuration: `--config FILE` or the built-in default. A bad file is a
/// usage error (exit 2).
pub fn load_config(path: Option<&std::path::Path>) -> anyhow::Result<RigConfig> {
    match path {
        Some(p) => RigConfig::load(p).map_err(super::errors::usage),
        None => Ok(RigConfig::default()),
    }
}

/// Run `geppetto rig`.
pub fn run(args: &RigArgs) -> anyhow::Result<ExitCode> {
    let Some(choices) = Choices::parse(args) else {
        return Ok(ExitCode::from(2));
    };
    let config = load_config(args.config.as_deref())?;
    let hints = match &args.hints {
        Some(p) => Some((Hints::load(p).map_err(super::errors::usage)?, p.clone())),
        None => None,
    };
    let mut formats = args.format.clone();
    if args.no_skin {
        formats.retain(|f| matches!(f, Format::Json | Format::Png));
    }
    let Some((meshes, root)) = inputs(args)? else {
        return Ok(ExitCode::from(2));
    };
    let batch = Batch {
        args,
        pipeline: Pipeline::one_shot(config),
        hints,
        choices,
        formats,
        root,
    };
    super::interrupt::install();
    let results = batch.rig_all(&meshes)?;
    Ok(print_results(&results))
}

/// The command's parsed `--orientation`, `--skeleton` (with `--curve-mode`) and `--method`.
struct Choices {
    orientation: OrientationMode,
    skeleton: Template,
    method: Method,
}

impl Choices {
    /// Parse the three choices in flag order; `None` after printing a usage error.
    fn parse(args: &RigArgs) -> Option<Self> {
        let Some(orientation) = OrientationMode::parse(&args.orientation) else {
            eprintln!(
                "error: --orientation '{}': expected default, auto, or up,forward axes like +z,-y",
                args.orientation
            );
            return None;
        };
        let skeleton = match Template::parse(&args.skeleton) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: --skeleton: {e}");
                return None;
            }
        };
        let Some(curve_mode) = crate::curveskel::CurveMode::parse(&args.curve_mode) else {
            eprintln!(
                "error: --curve-mode '{}': expected robust or faithful",
                args.curve_mode
            );
            return None;
        };
        let skeleton = match skeleton {
            Template::Curve(_) => Template::Curve(curve_mode),
            other => other,
        };
        let Some(method) = Method::parse(&args.method) else {
            eprintln!(
                "error: --method '{}': expected auto, embed or multi",
                args.method
            );
            return None;
        };
        Some(Self {
            orientation,
            skeleton,
            method,
        })
    }
}

/// Everything shared by the meshes of one `geppetto rig` run.
struct Batch<'a> {
    args: &'a RigArgs,
    pipeline: Pipeline,
    hints: Option<(Hints, PathBuf)>,
    choices: Choices,
    formats: Vec<Format>,
    root: PathBuf,
}

impl Batch<'_> {
    /// Rig every mesh on a `--jobs` pool; the summaries come back in input order.
    fn rig_all(&self, meshes: &[PathBuf]) -> anyhow::Result<Vec<Result<Summary, RigError>>> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.args.jobs.unwrap_or(0))
            .build()
            .context("thread pool")?;
        let bar = progress_bar(meshes.len());
        // Each rig is written and dropped as soon as it is done (a shard of a large library must
        // not hold every mesh in memory); only the summaries are kept, printed in input order.
        let results = pool.install(|| {
            meshes
                .par_iter()
                .map(|mesh| {
                    let out = self.rig_one(mesh);
                    if let Some(b) = &bar {
                        b.inc(1);
                    }
                    out
                })
                .collect()
        });
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        Ok(results)
    }

    /// Rig one mesh, write its outputs and keep only its summary.
    fn rig_one(&self, mesh: &Path) -> Result<Summary, RigError> {
        let (args, c) = (self.args, &self.choices);
        if super::interrupt::requested() {
            return Err(RigError::Cancelled);
        }
        request(
            args,
            mesh,
            &self.hints,
            &c.skeleton,
            c.orientation,
            c.method,
        )
        .and_then(|r| {
            let progress = &super::interrupt::UntilInterrupted as &dyn Progress;
            self.pipeline.rig(&r, progress)
        })
        .and_then(|mut o| {
            let summary = Summary::of(&o, naming::output_base(mesh, &self.root, &args.out));
            if args.no_timings {
                o.rig.timings_ms.clear();
            }
            let glb = export::GlbSource::of(&o);
            let (rig, input) = (&o.rig, &o.prepared.input);
            export::write_rig_to(rig, input, glb, &summary.base, &self.formats)?;
            Ok(summary)
        })
    }
}

/// Print each summary (or error) in input order; exit 1 if any mesh failed, 130 if Ctrl-C
/// stopped the run (the meshes it stopped are counted, their outputs not written).
fn print_results(results: &[Result<Summary, RigError>]) -> ExitCode {
    let mut failed = 0;
    let stopped = results
        .iter()
        .filter(|r| r.as_ref().is_err_and(RigError::is_cancelled))
        .count();
    for r in results {
        match r {
            Ok(summary) => summary.print(),
            Err(e) if e.is_cancelled() => {}
            Err(e) => {
                failed += 1;
                eprintln!("error: {e}");
            }
        }
    }
    if stopped > 0 {
        eprintln!(
            "interrupted: {} not rigged (nothing written for {})",
            crate::util::count(stopped, "mesh", "meshes"),
            if stopped == 1 { "it" } else { "them" }
        );
        return ExitCode::from(super::interrupt::EXIT_CODE);
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// This task's meshes and the root their output folders mirror: the MESH arguments then the
/// `--list` entries, de-duplicated, then `--shard`'s part. The root is taken over every input
/// (not the shard's), so each mesh's outputs land where one unsharded run would write them.
/// `None` after printing a usage error.
fn inputs(args: &RigArgs) -> anyhow::Result<Option<(Vec<PathBuf>, PathBuf)>> {
    let mut all = args.meshes.clone();
    if let Some(list) = &args.list {
        match batch::read_list(list) {
            Ok(listed) => all.extend(listed),
            Err(e) => {
                eprintln!("error: --list {e}");
                return Ok(None);
            }
        }
    }
    let all = distinct(&all);
    let root = naming::common_root(&all);
    let mine = match args.shard.as_deref().map(Shard::parse) {
        None => all,
        Some(Ok(shard)) => {
            let mine = shard.select(&all);
            if mine.is_empty() {
                // Not an error (a scheduler may run more tasks than there are meshes), but a
                // task that prints nothing looks like one that did not run.
                eprintln!(
                    "shard {}: none of the {} falls to this shard; nothing to rig",
                    args.shard.as_deref().unwrap_or_default(),
                    crate::util::count(all.len(), "input", "inputs")
                );
            }
            mine
        }
        Some(Err(e)) => {
            eprintln!("error: {e}");
            return Ok(None);
        }
    };
    Ok(Some((mine, root)))
}

/// The pipeline request for one mesh: `--hints` for every mesh, else each mesh's sidecar.
fn request(
    args: &RigArgs,
    mesh: &Path,
    hints: &Option<(Hints, PathBuf)>,
    skeleton: &Template,
    orientation: OrientationMode,
    method: Method,
) -> Result<RigRequest, RigError> {
    match hints {
        Some(h) => Ok(RigRequest {
            mesh_path: mesh.to_path_buf(),
            skeleton: skeleton.clone(),
            hints: Some(h.clone()),
            orientation,
            skin: !args.no_skin,
            method,
        }),
        None => RigRequest::with_sidecar(mesh, skeleton.clone()).and_then(|mut r| {
            r.orientation = orientation;
            r.skin = !args.no_skin;
            r.method = method;
            sidecar_template(&mut r, &args.skeleton)?;
            Ok(r)
        }),
    }
}

fn progress_bar(n: usize) -> Option<indicatif::ProgressBar> {
    if n < 2 || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(n as u64);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} meshes  {elapsed}")
    {
        bar.set_style(style);
    }
    Some(bar)
}

/// What is printed for one finished rig (the rig itself is dropped once written).
struct Summary {
    line: String,
    warnings: Vec<String>,
    base: OutputBase,
}

impl Summary {
    fn of(o: &RigOutcome, base: OutputBase) -> Self {
        let rig = &o.rig;
        let total = rig.timings_ms.get("total").copied().unwrap_or(0.0);
        let status = match rig.status {
            Status::Ok => "ok",
            Status::LowConfidence => "low confidence",
        };
        let penalty = if rig.has_penalty() {
            format!("penalty {:.3}", rig.penalty.total)
        } else {
            format!("no penalty ({} method)", rig.method)
        };
        let line = format!(
            "{status:>14}  {}  skeleton {}, {penalty}, {}, {:.0} ms -> {}",
            rig.mesh,
            rig.skeleton,
            rig.orientation,
            total,
            base.file("rig.json").display()
        );
        let warnings = rig
            .warnings
            .iter()
            .map(|w| format!("{}: {w}", rig.mesh))
            .collect();
        Self {
            line,
            warnings,
            base,
        }
    }

    fn print(&self) {
        println!("{}", self.line);
        for w in &self.warnings {
            eprintln!("warning: {w}");
        }
    }
}

/// The input meshes without repeats (the same file named twice would be rigged twice into the
/// same outputs); the first spelling of each file is kept, in order.
fn distinct(meshes: &[PathBuf]) -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    meshes
        .iter()
        .filter(|m| seen.insert(std::fs::canonicalize(m).unwrap_or_else(|_| m.to_path_buf())))
        .cloned()
        .collect()
}

/// A sidecar's `skeleton:` overrides `--skeleton` for its mesh (a per-asset choice beats the
/// command's); says so on stderr when they differ.
fn sidecar_template(req: &mut RigRequest, cli_choice: &str) -> Result<(), RigError> {
    let Some((hints, path)) = &req.hints else {
        return Ok(());
    };
    let Some(name) = hints.skeleton.clone() else {
        return Ok(());
    };
    if name.eq_ignore_ascii_case(cli_choice) {
        return Ok(());
    }
    let Some(template) = crate::choose::Template::from_hints(hints, path)? else {
        return Ok(());
    };
    req.skeleton = template;
    eprintln!(
        "note: {}: skeleton '{name}' from its hints file (instead of '{cli_choice}')",
        req.mesh_path.display()
    );
    Ok(())
}
