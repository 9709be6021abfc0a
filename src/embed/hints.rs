//! Joint hints: a sidecar `NAME.hints.yaml` next to the mesh pins joints to positions in the mesh's
//! own frame. A hint affects [`crate::Stage::Embed`] first, so a hint re-run reuses the cached
//! discretization.
//!
//! ```yaml
//! # positions in the mesh's own frame and units; radius optional (default: 4% of the largest extent)
//! skeleton: quadruped   # optional: the template for this mesh
//! hints:
//!   - joint: LeftHand
//!     position: [0.61, 1.02, 0.05]
//!     radius: 0.05
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::geom::{Aabb, JointId, P3};
use crate::mesh::Normalization;
use crate::skeleton::Skeleton;

/// Default hint radius, relative to the mesh's largest extent.
pub const DEFAULT_RADIUS_FRACTION: f64 = 0.04;

/// How far outside the mesh's bounding box a hint position may lie, relative to its largest
/// side: a pin on the surface of an extremity, placed by eye, may miss the box by a little.
pub const NEAR_FRACTION: f64 = 0.1;

/// The contents of a hints file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hints {
    /// One entry per pinned joint.
    #[serde(default)]
    pub hints: Vec<JointHint>,
    /// Skeleton template for this mesh (`auto`, `human`, `quadruped`, …, or a YAML path); it
    /// overrides the watcher's and the command line's choice for this one asset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skeleton: Option<String>,
    /// Curve-skeleton edits (`--skeleton curve`): branch ends to add or delete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curve: Option<CurveEdits>,
}

/// Branch-end edits for the curve-skeleton method (positions in the **mesh frame**).
///
/// ```yaml
/// curve:
///   add_ends: [[0.1, 1.2, 0.0]]     # a branch from the nearest skeleton node to this point
///   remove_ends: [[0.5, 0.3, 0.0]]  # delete the leaf branch whose end is nearest this point
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveEdits {
    /// Add a branch ending at each point.
    #[serde(default)]
    pub add_ends: Vec<[f64; 3]>,
    /// Delete the leaf branch nearest each point.
    #[serde(default)]
    pub remove_ends: Vec<[f64; 3]>,
}

/// One pinned joint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointHint {
    /// Template joint name, e.g. `LeftHand`.
    pub joint: String,
    /// Position in the **mesh frame** (the file's own units).
    pub position: [f64; 3],
    /// Radius in mesh units within which the joint must be embedded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
}

/// A hint checked against a skeleton and mapped to the normalized frame.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedHint {
    /// The pinned joint.
    pub joint: JointId,
    /// Target position, **normalized frame**.
    pub position: P3,
    /// Radius, normalized units.
    pub radius: f64,
}

/// A bad hints file.
#[derive(Debug, Error)]
pub enum HintsError {
    /// Could not read or write the file.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// Malformed YAML; the message carries line and column.
    #[error("{path}: {message}")]
    Parse {
        /// File.
        path: PathBuf,
        /// Parser message with line and column.
        message: String,
    },
    /// A hint names a joint the skeleton does not have.
    #[error("{path}: hint {index} names joint '{joint}', which the '{skeleton}' skeleton does not have (joints: {known})")]
    UnknownJoint {
        /// File.
        path: PathBuf,
        /// 0-based hint index.
        index: usize,
        /// The unknown name.
        joint: String,
        /// Skeleton name.
        skeleton: String,
        /// Comma-separated known joint names.
        known: String,
    },
    /// The file's `skeleton:` names no template (it said "unknown skeleton 'dragon'" without
    /// saying that the name came from this file rather than the command line).
    #[error("{path}: skeleton: {source}")]
    Template {
        /// File.
        path: PathBuf,
        /// Why the template could not be loaded.
        source: crate::skeleton::SkeletonError,
    },
    /// Non-finite position or non-positive radius, or a joint pinned twice.
    #[error("{path}: hint {index} ({joint}): {message}")]
    Invalid {
        /// File.
        path: PathBuf,
        /// 0-based hint index.
        index: usize,
        /// Joint name.
        joint: String,
        /// What is wrong.
        message: String,
    },
}

/// The sidecar hints path for a mesh: `dir/NAME.hints.yaml` for `dir/NAME.ext`, NAME by
/// [`crate::naming::asset_name`] (`NAME.ext` when another mesh in the folder shares the stem).
pub fn sidecar_path(mesh_path: &Path) -> PathBuf {
    let name = crate::naming::asset_name(mesh_path);
    mesh_path.with_file_name(format!("{name}.hints.yaml"))
}

impl Hints {
    /// Parse hints YAML; `path` is only used in error messages.
    pub fn parse(text: &str, path: &Path) -> Result<Self, HintsError> {
        if text.trim().is_empty() {
            return Ok(Self::default());
        }
        serde_saphyr::from_str::<Hints>(text).map_err(|e| HintsError::Parse {
            path: path.to_path_buf(),
            message: crate::util::yaml_message(&e),
        })
    }

    /// Read a hints file.
    pub fn load(path: &Path) -> Result<Self, HintsError> {
        let text = std::fs::read_to_string(path).map_err(|source| HintsError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Read the sidecar next to `mesh_path` if it exists (`Ok(None)` if it does not).
    pub fn load_sidecar(mesh_path: &Path) -> Result<Option<Self>, HintsError> {
        let path = sidecar_path(mesh_path);
        if !path.exists() {
            return Ok(None);
        }
        Self::load(&path).map(Some)
    }

    /// Serialize to YAML with a header comment.
    pub fn to_yaml(&self) -> String {
        let body = serde_saphyr::to_string(self).unwrap_or_else(|_| "hints: []\n".to_string());
        format!("# geppetto joint hints: positions in the mesh's own frame and units\n{body}")
    }

    /// Write atomically (temp file in the same folder, then rename).
    pub fn save(&self, path: &Path) -> Result<(), HintsError> {
        crate::util::write_atomic(path, self.to_yaml().as_bytes()).map_err(|source| {
            HintsError::Io {
                path: path.to_path_buf(),
                source,
            }
        })
    }

    /// Every hint names a joint of `skeleton` (a generated one, e.g. the curve skeleton, whose
    /// pins are applied by name: a name it lacks would otherwise be dropped without a word).
    pub fn check_joints(&self, skeleton: &Skeleton, path: &Path) -> Result<(), HintsError> {
        match self
            .hints
            .iter()
            .position(|h| skeleton.find(&h.joint).is_none())
        {
            Some(index) => Err(unknown_joint(
                skeleton,
                path,
                index,
                &self.hints[index].joint,
            )),
            None => Ok(()),
        }
    }

    /// The file's `skeleton:` as a template name for [`crate::skeleton::load_template`]: a
    /// relative `.yaml` path is taken relative to the hints file's folder (where the mesh is),
    /// not the working folder, so the watcher and `rig` from anywhere find the same file.
    pub fn template_name(&self, path: &Path) -> Option<String> {
        let name = self.skeleton.as_deref()?.trim();
        let lower = name.to_ascii_lowercase();
        let file = Path::new(name);
        let is_yaml = lower.ends_with(".yaml") || lower.ends_with(".yml");
        Some(match path.parent() {
            Some(dir) if is_yaml && file.is_relative() => dir.join(file).display().to_string(),
            _ => name.to_owned(),
        })
    }

    /// Every position of the file (pins and curve branch ends) lies near the mesh: within its
    /// bounding box `bbox` (mesh frame) grown by [`NEAR_FRACTION`] of its largest side. A pin far
    /// outside (a position in other units, or another file's frame) dragged its joint out of the
    /// body, and the rig came back as a forced fit whose warnings never named the hint.
    pub fn check_positions(&self, bbox: &Aabb, path: &Path) -> Result<(), HintsError> {
        let margin = NEAR_FRACTION * bbox.max_extent();
        let far = |p: &[f64; 3]| {
            (0..3).any(|k| {
                !p[k].is_finite() || p[k] < bbox.min[k] - margin || p[k] > bbox.max[k] + margin
            })
        };
        let describe = |p: &[f64; 3]| {
            format!(
                "position [{}, {}, {}] is {}outside the mesh, whose bounding box is [{:.4}, {:.4}, {:.4}] to [{:.4}, {:.4}, {:.4}] (positions are in the mesh's own frame and units)",
                p[0], p[1], p[2], if p.iter().all(|c| c.is_finite()) { "far " } else { "not finite, " },
                bbox.min.x, bbox.min.y, bbox.min.z, bbox.max.x, bbox.max.y, bbox.max.z
            )
        };
        if let Some((index, h)) = self
            .hints
            .iter()
            .enumerate()
            .find(|(_, h)| far(&h.position))
        {
            return Err(HintsError::Invalid {
                path: path.to_path_buf(),
                index,
                joint: h.joint.clone(),
                message: describe(&h.position),
            });
        }
        let ends = self.curve.iter().flat_map(|c| {
            let add = c.add_ends.iter().map(|p| ("add_ends", p));
            add.chain(c.remove_ends.iter().map(|p| ("remove_ends", p)))
        });
        for (list, p) in ends {
            if far(p) {
                return Err(HintsError::Parse {
                    path: path.to_path_buf(),
                    message: format!("curve.{list}: {}", describe(p)),
                });
            }
        }
        Ok(())
    }

    /// Check names against `skeleton`, positions against the mesh's bounding box `bbox` (mesh
    /// frame, [`Hints::check_positions`]; its largest side sets the default radius), and map
    /// positions to the normalized frame.
    pub fn resolve(
        &self,
        skeleton: &Skeleton,
        norm: &Normalization,
        bbox: &Aabb,
        path: &Path,
    ) -> Result<Vec<ResolvedHint>, HintsError> {
        let max_extent_mesh = bbox.max_extent();
        let mut out: Vec<ResolvedHint> = Vec::with_capacity(self.hints.len());
        for (index, h) in self.hints.iter().enumerate() {
            let invalid = |message: String| HintsError::Invalid {
                path: path.to_path_buf(),
                index,
                joint: h.joint.clone(),
                message,
            };
            let joint = skeleton
                .find(&h.joint)
                .ok_or_else(|| unknown_joint(skeleton, path, index, &h.joint))?;
            if !h.position.iter().all(|c| c.is_finite()) {
                return Err(invalid("position is not finite".into()));
            }
            let radius_mesh = h
                .radius
                .unwrap_or(DEFAULT_RADIUS_FRACTION * max_extent_mesh);
            if !(radius_mesh.is_finite() && radius_mesh > 0.0) {
                return Err(invalid(format!(
                    "radius must be positive, got {radius_mesh}"
                )));
            }
            if out.iter().any(|r| r.joint == joint) {
                return Err(invalid("this joint is pinned more than once".into()));
            }
            let p = P3::new(h.position[0], h.position[1], h.position[2]);
            out.push(ResolvedHint {
                joint,
                position: norm.to_normalized(&p),
                radius: norm.len_to_normalized(radius_mesh),
            });
        }
        self.check_positions(bbox, path)?;
        Ok(out)
    }

    /// Pin (or move) `joint` to `position` (mesh frame), keeping other hints.
    pub fn pin(&mut self, joint: &str, position: [f64; 3], radius: Option<f64>) {
        self.hints.retain(|h| h.joint != joint);
        self.hints.push(JointHint {
            joint: joint.to_string(),
            position,
            radius,
        });
    }

    /// Remove the hint for `joint`; true if there was one.
    pub fn unpin(&mut self, joint: &str) -> bool {
        let before = self.hints.len();
        self.hints.retain(|h| h.joint != joint);
        before != self.hints.len()
    }
}

/// Joint names listed in an unknown-joint error before "and N more" (a curve skeleton can have
/// a hundred joints; the message must stay one readable line).
const KNOWN_JOINTS_SHOWN: usize = 30;

fn unknown_joint(skeleton: &Skeleton, path: &Path, index: usize, joint: &str) -> HintsError {
    let names: Vec<&str> = skeleton.joints.iter().map(|j| j.name.as_str()).collect();
    let mut known = names
        .iter()
        .take(KNOWN_JOINTS_SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > KNOWN_JOINTS_SHOWN {
        known.push_str(&format!(" and {} more", names.len() - KNOWN_JOINTS_SHOWN));
    }
    HintsError::UnknownJoint {
        path: path.to_path_buf(),
        index,
        joint: joint.to_string(),
        skeleton: skeleton.name.clone(),
        known,
    }
}

#[cfg(test)]
#[path = "hints_tests.rs"]
mod tests;
