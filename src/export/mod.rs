//! Rig outputs: `NAME.rig.json`, glTF 2.0 binary `NAME.glb`, and the original Pinocchio text files
//! (`skeleton.out` / `attachment.out`). Every file is written atomically.
//! GLB and Pinocchio writers: OWNER skin helper.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::RigError;
use crate::pipeline::{asset_name, RigOutcome};
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
    let name = asset_name(Path::new(&outcome.rig.mesh));
    let mut written = Vec::new();
    for format in formats {
        match format {
            Format::Json => {
                let path = out_dir.join(format!("{name}.rig.json"));
                write_atomic(&path, outcome.rig.to_json().as_bytes()).map_err(|source| {
                    RigError::Write {
                        path: path.clone(),
                        source,
                    }
                })?;
                written.push(path);
            }
            Format::Glb | Format::Pinocchio => {
                return Err(RigError::Export {
                    path: out_dir.join(&name),
                    message: format!("{format:?} export is not implemented yet"),
                });
            }
        }
    }
    Ok(written)
}
