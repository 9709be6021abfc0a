//! Skeleton templates (YAML in `skeletons/`, built-ins compiled in) and the reduced skeleton.
//! OWNER: embed helper. (Stub until implemented.)

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::geom::{JointId, P3};

/// A skeleton template. Joints are stored parent-first (`parent < index`).
///
/// Rest positions are in the **template frame**: +Y up, facing +Z, the character's left at −X
/// (Pinocchio's convention). Only bone vectors matter to the embedding, not absolute position or scale.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skeleton {
    /// Template name (`human`, `quadruped`, … or the file stem).
    pub name: String,
    /// Joints, parent-first.
    pub joints: Vec<Joint>,
}

/// One template joint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Joint {
    /// Unique name, e.g. `LeftForeArm` (Mixamo style for the human).
    pub name: String,
    /// Parent joint; `None` for the root.
    pub parent: Option<JointId>,
    /// Rest position, template frame.
    pub rest: P3,
    /// Mirror partner (e.g. `RightArm` for `LeftArm`), for the symmetry penalties.
    pub symmetric: Option<JointId>,
    /// Foot joint: should touch the lowest part of the model (FootPF).
    pub foot: bool,
    /// Fat joint: embedded only at the thickest spheres (hips, chest, head).
    pub fat: bool,
    /// End marker (`HeadTop_End`, `LeftToe_End`, …): its bone's parent joint owns the vertices
    /// beyond it; the end joint itself owns no vertices.
    pub end: bool,
}

impl Skeleton {
    /// Index of the joint called `name`.
    pub fn find(&self, name: &str) -> Option<JointId> {
        self.joints.iter().position(|j| j.name == name).map(JointId)
    }
}

/// Why a template could not be loaded.
#[derive(Debug, Error)]
pub enum SkeletonError {
    /// Neither a built-in name nor a readable file.
    #[error("unknown skeleton '{0}' (built-in: human, quadruped, horse, centaur; or a path to a .yaml file)")]
    Unknown(String),
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// YAML syntax or schema error, with line and column in the message.
    #[error("{path}: {message}")]
    Parse {
        /// File.
        path: PathBuf,
        /// Message including line/column.
        message: String,
    },
    /// Structural problem (unknown parent, cycle, duplicate name, …).
    #[error("{path}: {message}")]
    Invalid {
        /// File.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Load a built-in template by name (`human`, `quadruped`, `horse`, `centaur`) or a YAML file by path.
pub fn load_template(name_or_path: &str) -> Result<Skeleton, SkeletonError> {
    let _ = Path::new(name_or_path);
    Err(SkeletonError::Unknown(name_or_path.to_string()))
}
