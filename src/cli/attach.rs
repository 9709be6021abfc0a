//! `geppetto attach MESH --skeleton-from FILE`: weights for an existing skeleton.

use std::process::ExitCode;

use super::rig::load_config;
use super::AttachArgs;
use crate::embed::Orientation;
use crate::export::{write_rig_with, GlbSource};
use crate::pipeline::{AttachRequest, Pipeline};
use crate::progress::NoProgress;

/// Run `geppetto attach`.
pub fn run(args: &AttachArgs) -> anyhow::Result<ExitCode> {
    let config = load_config(args.config.as_deref())?;
    let orientation = match args.orientation.as_deref().map(Orientation::parse) {
        Some(None) => {
            eprintln!(
                "error: --orientation '{}': expected up,forward axes like +z,-y",
                args.orientation.as_deref().unwrap_or_default()
            );
            return Ok(ExitCode::from(2));
        }
        Some(Some(o)) => Some(o.label()),
        None => None,
    };
    let mut req = match AttachRequest::from_file_with(
        &args.mesh,
        &args.skeleton_from,
        !args.weight_every_joint,
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: --skeleton-from: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    if orientation.is_some() {
        req.orientation = orientation;
    }
    let done = match Pipeline::new(config).attach(&req, &NoProgress) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    if args.keep_animations && done.source.is_none() {
        eprintln!(
            "error: --keep-animations: {} has no animations to keep (only glTF input does)",
            args.mesh.display()
        );
        return Ok(ExitCode::from(2));
    }
    let glb = GlbSource {
        source: done.source.as_deref(),
        keep_animations: args.keep_animations,
    };
    let written = write_rig_with(
        &done.rig,
        &done.prepared.input,
        glb,
        &args.out,
        &args.format,
    )?;
    let s = &done.skin.stats;
    println!(
        "{}: {} joints, {} vertices, skin {:.0} ms ({} unknowns × {} joints)",
        args.mesh.display(),
        done.rig.joints.len(),
        done.rig.vertex_count,
        s.total_ms,
        s.unknowns,
        s.columns
    );
    for w in &done.rig.warnings {
        println!("  warning: {w}");
    }
    for p in written {
        println!("  wrote {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}
