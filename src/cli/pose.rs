//! `geppetto pose RIG.json --random SEED --out posed.obj`: deform the rig's mesh by linear blend
//! skinning under a pose, so users (and tests) can see the rig move.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use super::PoseArgs;
use crate::mesh::{write_obj, Mesh};
use crate::rig::Rig;
use crate::skin::pose::{pose_mesh, Pose};

/// Run `geppetto pose`.
pub fn run(args: &PoseArgs) -> anyhow::Result<ExitCode> {
    let rig = Rig::load(&args.rig)?;
    let Some(skin) = &rig.skin else {
        eprintln!("error: {}: the rig has no skin weights", args.rig.display());
        return Ok(ExitCode::from(2));
    };
    let mesh_path = args
        .mesh
        .clone()
        .unwrap_or_else(|| resolve(&args.rig, &rig.mesh));
    let mesh = crate::mesh::load(&mesh_path)
        .map_err(|e| anyhow::anyhow!("{}: {e}", mesh_path.display()))?;
    if mesh.positions.len() != skin.len() {
        eprintln!(
            "error: {} has {} vertices but the rig's skin has {} rows",
            mesh_path.display(),
            mesh.positions.len(),
            skin.len()
        );
        return Ok(ExitCode::from(2));
    }
    let pose = match args.random {
        Some(seed) => Pose::random(rig.joints.len(), seed, args.max_degrees),
        None => Pose::identity(rig.joints.len()),
    };
    let posed = pose_mesh(&mesh.positions, &rig.joints, skin, &pose);
    let posed = Mesh {
        positions: posed,
        triangles: mesh.triangles.clone(),
    };
    write_obj(&posed, &args.out)
        .with_context(|| format!("{}: cannot write", args.out.display()))?;
    println!("wrote {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}

/// The rig's `mesh` path, relative paths taken from the current folder if the file exists there,
/// else from the rig's folder.
pub(crate) fn resolve(rig_path: &Path, mesh: &str) -> PathBuf {
    let p = PathBuf::from(mesh);
    if p.is_absolute() || p.exists() {
        return p;
    }
    rig_path.parent().map_or(p.clone(), |d| d.join(&p))
}
