//! `geppetto pose RIG.json --random SEED --out posed.obj`: deform the rig's mesh by linear blend
//! skinning under a pose, so users (and tests) can see the rig move.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use super::PoseArgs;
use crate::mesh::Mesh;
use crate::rig::Rig;
use crate::skin::pose::{pose_mesh, Pose};
use crate::util::write_atomic;

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
    let text = obj_text(&Mesh {
        positions: posed,
        triangles: mesh.triangles.clone(),
    });
    write_atomic(&args.out, text.as_bytes())
        .with_context(|| format!("{}: cannot write", args.out.display()))?;
    println!("wrote {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}

/// The rig's `mesh` path, relative paths taken from the current folder if the file exists there,
/// else from the rig's folder.
fn resolve(rig_path: &Path, mesh: &str) -> PathBuf {
    let p = PathBuf::from(mesh);
    if p.is_absolute() || p.exists() {
        return p;
    }
    rig_path.parent().map_or(p.clone(), |d| d.join(&p))
}

/// A minimal OBJ (`v` and `f` lines, 1-based), full f64 precision.
fn obj_text(mesh: &Mesh) -> String {
    let mut s = String::with_capacity(mesh.positions.len() * 40 + mesh.triangles.len() * 24);
    for p in &mesh.positions {
        let _ = writeln!(s, "v {} {} {}", p.x, p.y, p.z);
    }
    for t in &mesh.triangles {
        let _ = writeln!(s, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    s
}
