//! Rigs to score, in one shape ([`ScoredRig`], **mesh frame**): any file [`crate::rig::read`]
//! accepts (rig.json, corpus truth JSON, rigged glTF), split into the per-joint columns the
//! measures use.

use std::path::{Path, PathBuf};

use super::MeasureError;
use crate::geom::{Aabb, P3};
use crate::mesh::Mesh;
use crate::rig::read::{self, RigFile};

pub use crate::rig::read::RigFileKind as RigKind;

/// Skin weights indexed by this rig's joints: one list of `(joint index, weight)` per vertex.
pub type Weights = Vec<Vec<(usize, f64)>>;

/// A rig reduced to what scoring needs. All positions are in the **mesh frame**.
#[derive(Clone, Debug)]
pub struct ScoredRig {
    /// The file it was read from.
    pub source: PathBuf,
    /// Its format.
    pub kind: RigKind,
    /// Joint names (one per joint).
    pub names: Vec<String>,
    /// Parent joint index per joint, `None` for a root.
    pub parents: Vec<Option<usize>>,
    /// Joint positions (one per joint).
    pub positions: Vec<P3>,
    /// Skin weights per vertex, if the file has them.
    pub skin: Option<Weights>,
    /// The mesh bounding box recorded in a rig.json (`None` for other files or an empty box).
    pub bbox: Option<Aabb>,
    /// The mesh inside a rigged glTF.
    pub mesh: Option<Mesh>,
    /// Mesh file the rig refers to (see [`RigFile::mesh_path`]).
    pub mesh_path: Option<PathBuf>,
}

impl From<RigFile> for ScoredRig {
    fn from(f: RigFile) -> Self {
        let skin = f.skin.map(|table| {
            table
                .into_iter()
                .map(|row| row.into_iter().map(|(j, w)| (j as usize, w)).collect())
                .collect()
        });
        Self {
            source: f.source,
            kind: f.kind,
            names: f.joints.iter().map(|j| j.name.clone()).collect(),
            parents: f.joints.iter().map(|j| j.parent).collect(),
            positions: f.joints.iter().map(|j| j.point()).collect(),
            skin,
            bbox: f.bbox,
            mesh: f.mesh,
            mesh_path: f.mesh_path,
        }
    }
}

/// Read a rig.json, corpus truth JSON or rigged glTF ([`read::read`]).
pub fn load(path: &Path) -> Result<ScoredRig, MeasureError> {
    Ok(read::read(path)?.into())
}
