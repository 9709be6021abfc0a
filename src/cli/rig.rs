//! `geppetto rig MESH...`: rig meshes in parallel, write outputs, one line per result.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use rayon::prelude::*;

use super::RigArgs;
use crate::choose::Template;
use crate::embed::hints::Hints;
use crate::embed::OrientationMode;
use crate::export::{self, Format};
use crate::naming::{self, OutputBase};
use crate::pipeline::{Method, Pipeline, RigOutcome, RigRequest};
use crate::progress::{NoProgress, Progress};
use crate::rig::Status;
use crate::{config::RigConfig, RigError};

/// Load the engine configuration: `--config FILE` or the built-in default.
pub fn load_config(path: Option<&std::path::Path>) -> anyhow::Result<RigConfig> {
    match path {
        Some(p) => Ok(RigConfig::load(p)?),
        None => Ok(RigConfig::default()),
    }
}

/// Run `geppetto rig`.
pub fn run(args: &RigArgs) -> anyhow::Result<ExitCode> {
    let Some(orientation) = OrientationMode::parse(&args.orientation) else {
        eprintln!(
            "error: --orientation '{}': expected default, auto, or up,forward axes like +z,-y",
            args.orientation
        );
        return Ok(ExitCode::from(2));
    };
    let skeleton = match Template::parse(&args.skeleton) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: --skeleton: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let Some(method) = Method::parse(&args.method) else {
        eprintln!(
            "error: --method '{}': expected auto, embed or multi",
            args.method
        );
        return Ok(ExitCode::from(2));
    };
    let config = load_config(args.config.as_deref())?;
    let hints = match &args.hints {
        Some(p) => Some((Hints::load(p)?, p.clone())),
        None => None,
    };
    let mut formats = args.format.clone();
    if args.no_skin {
        formats.retain(|f| matches!(f, Format::Json | Format::Png));
    }
    let meshes = distinct(&args.meshes);
    // Outputs mirror each mesh's folder below the inputs' common folder (export::naming).
    let root = naming::common_root(&meshes);
    let pipeline = Pipeline::new(config);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .build()
        .context("thread pool")?;
    let bar = progress_bar(meshes.len());
    let results: Vec<Result<(RigOutcome, OutputBase), RigError>> = pool.install(|| {
        meshes
            .par_iter()
            .map(|mesh| {
                let req = match &hints {
                    Some(h) => Ok(RigRequest {
                        mesh_path: mesh.clone(),
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
                };
                let out = req
                    .and_then(|r| pipeline.rig(&r, &NoProgress as &dyn Progress))
                    .and_then(|o| {
                        let base = naming::output_base(mesh, &root, &args.out);
                        let glb = export::GlbSource::of(&o);
                        export::write_rig_to(&o.rig, &o.prepared.input, glb, &base, &formats)?;
                        Ok((o, base))
                    });
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
    let mut failed = 0;
    for r in &results {
        match r {
            Ok((o, base)) => print_success(o, base),
            Err(e) => {
                failed += 1;
                eprintln!("error: {e}");
            }
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
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

fn print_success(o: &RigOutcome, base: &OutputBase) {
    let rig = &o.rig;
    let total = rig.timings_ms.get("total").copied().unwrap_or(0.0);
    let status = match rig.status {
        Status::Ok => "ok",
        Status::LowConfidence => "low confidence",
    };
    println!(
        "{status:>14}  {}  skeleton {}, penalty {:.3}, {}, {:.0} ms -> {}",
        rig.mesh,
        rig.skeleton,
        rig.penalty.total,
        rig.orientation,
        total,
        base.file("rig.json").display()
    );
    for w in &rig.warnings {
        eprintln!("warning: {}: {w}", rig.mesh);
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
    let Some(name) = req.hints.as_ref().and_then(|(h, _)| h.skeleton.clone()) else {
        return Ok(());
    };
    if name.eq_ignore_ascii_case(cli_choice) {
        return Ok(());
    }
    req.skeleton = crate::choose::Template::parse(&name)?;
    eprintln!(
        "note: {}: skeleton '{name}' from its hints file (instead of '{cli_choice}')",
        req.mesh_path.display()
    );
    Ok(())
}
