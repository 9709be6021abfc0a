//! Rig outputs: `NAME.rig.json`, glTF 2.0 binary `NAME.glb`, and the original Pinocchio text files
//! (`skeleton.out` / `attachment.out`). Every file is written atomically.
//! GLB and Pinocchio writers: OWNER skin helper.

pub mod anim;
pub mod glb;
pub mod pinocchio;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::RigError;
use crate::mesh::Mesh;
use crate::pipeline::{asset_name, RigOutcome};
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
}

/// Write the requested outputs for one rig into `out_dir`; returns the paths written.
pub fn write_outputs(
    outcome: &RigOutcome,
    out_dir: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, RigError> {
    write_rig(&outcome.rig, &outcome.prepared.input, out_dir, formats)
}

/// Write `rig` (with `mesh`, the input mesh it was made from, mesh frame) in each of `formats`
/// into `out_dir` as `NAME.*`, NAME from the rig's mesh path. A rig without skin weights writes a
/// GLB with the mesh and the joint hierarchy but no skin, and `attachment.out` is skipped.
pub fn write_rig(
    rig: &Rig,
    mesh: &Mesh,
    out_dir: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, RigError> {
    let name = asset_name(Path::new(&rig.mesh));
    let mut written = Vec::new();
    let mut put = |file: String, bytes: &[u8]| -> Result<(), RigError> {
        let path = out_dir.join(file);
        write_atomic(&path, bytes).map_err(|source| RigError::Write {
            path: path.clone(),
            source,
        })?;
        written.push(path);
        Ok(())
    };
    for format in formats {
        match format {
            Format::Json => put(format!("{name}.rig.json"), rig.to_json().as_bytes())?,
            Format::Glb => {
                let bytes = glb::glb_bytes(mesh, &rig.joints, rig.skin.as_ref()).map_err(|e| {
                    RigError::Export {
                        path: out_dir.join(format!("{name}.glb")),
                        message: e.to_string(),
                    }
                })?;
                put(format!("{name}.glb"), &bytes)?;
            }
            Format::Pinocchio => {
                put(
                    format!("{name}.skeleton.out"),
                    pinocchio::skeleton_out(&rig.joints).as_bytes(),
                )?;
                if let Some(skin) = &rig.skin {
                    let text = pinocchio::attachment_out(&rig.joints, skin);
                    put(format!("{name}.attachment.out"), text.as_bytes())?;
                }
            }
        }
    }
    Ok(written)
}
