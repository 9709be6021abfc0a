//! Rig outputs: `NAME.rig.json`, glTF 2.0 binary `NAME.glb`, the original Pinocchio text files
//! (`skeleton.out` / `attachment.out`) and the thumbnail `NAME.png`. Every file is written
//! atomically; [`crate::naming`] decides where (one rule for every command).
//! GLB and Pinocchio writers: OWNER skin helper.

pub mod glb;
pub mod pinocchio;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::RigError;
use crate::mesh::Mesh;
use crate::naming::{output_base, OutputBase};
use crate::pipeline::RigOutcome;
use crate::rig::Rig;
use crate::util::write_atomic;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// `NAME.rig.json` (always useful; the UI and `score` read it).
    Json,
    /// `NAME.glb`: mesh, joint nodes, inverse bind matrices, JOINTS_0/WEIGHTS_0.
    Glb,
    /// `NAME.skeleton.out` and `NAME.attachment.out`, the original's text formats.
    Pinocchio,
    /// `NAME.png`: front and side views of the mesh with the skeleton drawn over it.
    Png,
}

/// Write the requested outputs for one rig into `out_dir` (named by [`output_base`] with
/// the mesh's own folder as root, i.e. flat); returns the paths written.
pub fn write_outputs(
    outcome: &RigOutcome,
    out_dir: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, RigError> {
    write_rig(&outcome.rig, &outcome.prepared.input, out_dir, formats)
}

/// [`write_rig_to`] into `out_dir`, named by [`output_base`] with the mesh's own folder as
/// root (flat: `out_dir/NAME.*`).
pub fn write_rig(
    rig: &Rig,
    mesh: &Mesh,
    out_dir: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, RigError> {
    let mesh_path = Path::new(&rig.mesh);
    let root = mesh_path.parent().unwrap_or(Path::new(""));
    write_rig_to(rig, mesh, &output_base(mesh_path, root, out_dir), formats)
}

/// Write `rig` (with `mesh`, the input mesh it was made from, mesh frame) in each of `formats`
/// as `base.dir/base.name.*`. A rig without skin weights writes a GLB with the mesh and the joint
/// hierarchy but no skin, and `attachment.out` is skipped.
pub fn write_rig_to(
    rig: &Rig,
    mesh: &Mesh,
    base: &OutputBase,
    formats: &[Format],
) -> Result<Vec<PathBuf>, RigError> {
    let mut written = Vec::new();
    let mut put = |suffix: &str, bytes: &[u8]| -> Result<(), RigError> {
        let path = base.file(suffix);
        write_atomic(&path, bytes).map_err(|source| RigError::Write {
            path: path.clone(),
            source,
        })?;
        written.push(path);
        Ok(())
    };
    for format in formats {
        match format {
            Format::Json => put("rig.json", rig.to_json().as_bytes())?,
            Format::Glb => {
                let bytes = glb::glb_bytes(mesh, &rig.joints, rig.skin.as_ref()).map_err(|e| {
                    RigError::Export {
                        path: base.file("glb"),
                        message: e.to_string(),
                    }
                })?;
                put("glb", &bytes)?;
            }
            Format::Pinocchio => {
                put(
                    "skeleton.out",
                    pinocchio::skeleton_out(&rig.joints).as_bytes(),
                )?;
                if let Some(skin) = &rig.skin {
                    let text = pinocchio::attachment_out(&rig.joints, skin);
                    put("attachment.out", text.as_bytes())?;
                }
            }
            Format::Png => {
                let view = crate::raster::ThumbnailView::default();
                let (img, _) = crate::raster::render_rig(mesh, rig, &view);
                let bytes = crate::raster::png_bytes(&img).map_err(|e| RigError::Export {
                    path: base.file("png"),
                    message: e.to_string(),
                })?;
                put("png", &bytes)?;
            }
        }
    }
    Ok(written)
}
