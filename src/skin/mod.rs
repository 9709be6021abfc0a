//! Skin weights by heat diffusion (Baran & Popović 2007 §4; pinocchio-facts §10), robust to
//! multi-shell, open and flipped meshes; linear blend skinning for posing.
//! OWNER: skin helper. (Stub until implemented.)

pub mod pose;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::discretize::DistanceField;
use crate::mesh::PreparedMesh;
use crate::rig::{RigJoint, SkinTable};

/// Tunables.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SkinOptions {
    /// Heat constant c in H = c/d² (1.0).
    pub heat: f64,
    /// Weights below this are dropped before renormalizing.
    pub prune: f64,
}

impl Default for SkinOptions {
    fn default() -> Self {
        Self {
            heat: 1.0,
            prune: 1e-4,
        }
    }
}

/// How one shell was bound.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "treatment")]
pub enum ShellBinding {
    /// Heat diffusion over the shell.
    Heat {
        /// Shell index.
        shell: usize,
        /// Welded vertices in the shell.
        vertices: usize,
    },
    /// No bone visible from the shell: bound rigidly to its nearest bone's joint.
    Rigid {
        /// Shell index.
        shell: usize,
        /// Welded vertices in the shell.
        vertices: usize,
        /// Joint the shell follows.
        joint: String,
    },
}

/// Skin weights plus a report of how each shell was treated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Skin {
    /// One list per **input** vertex: `(joint index, weight)`, weights > 0 summing to 1.
    pub weights: SkinTable,
    /// Per-shell treatment.
    pub shells: Vec<ShellBinding>,
    /// Plain-language warnings.
    pub warnings: Vec<String>,
}

/// Why skinning failed.
#[derive(Debug, Error)]
pub enum SkinError {
    /// The skeleton has no bone that can own vertices.
    #[error("the skeleton has no bone that can own vertices")]
    NoBones,
    /// The sparse factorization failed even after regularization.
    #[error("the heat system could not be factored: {0}")]
    Factorization(String),
}

/// Compute skin weights for `joints` (**mesh frame**, as in `rig.json`) on `mesh`. `field` is the
/// distance field used for the visibility test (normalized frame).
pub fn skin(
    mesh: &PreparedMesh,
    field: &DistanceField,
    joints: &[RigJoint],
    opts: &SkinOptions,
) -> Result<Skin, SkinError> {
    let _ = (mesh, field, joints, opts);
    Err(SkinError::NoBones)
}
