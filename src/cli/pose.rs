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
    let mesh_path = rig_mesh(&args.rig, &rig, args.mesh.as_deref())?;
    refuse_source(&args.out, &[args.rig.as_path(), mesh_path.as_path()])?;
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

/// The mesh of the rig read from `rig_path`: `given` (`--mesh`), else the one its recorded path
/// names ([`crate::rig::find_mesh`]); an error names the recorded path, the rig and `--mesh`.
pub(crate) fn rig_mesh(
    rig_path: &Path,
    rig: &Rig,
    given: Option<&Path>,
) -> anyhow::Result<PathBuf> {
    if let Some(m) = given {
        return Ok(m.to_path_buf());
    }
    crate::rig::find_mesh(rig_path, Path::new(&rig.mesh)).ok_or_else(|| {
        anyhow::anyhow!(
            "{}: the mesh it was made from, {}, is neither in the current folder nor beside the \
             rig or in a folder above it; pass --mesh",
            rig_path.display(),
            rig.mesh
        )
    })
}

/// Never overwrite the rig or its mesh (`pose RIG --out hero.obj` replaced the artist's mesh
/// with the posed one). Any spelling, hard link or symlink of them counts.
pub(crate) fn refuse_source(out: &Path, sources: &[&Path]) -> anyhow::Result<()> {
    if sources.iter().any(|s| crate::util::same_file(s, out)) {
        anyhow::bail!("{}: refusing to overwrite an input file", out.display());
    }
    Ok(())
}
