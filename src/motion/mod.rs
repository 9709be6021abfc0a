//! Motion on a finished rig: BVH clips ([`bvh`]), retargeting them by joint names
//! ([`retarget`]), built-in procedural cycles ([`procedural`]), export naming profiles
//! ([`names`]) and animated previews ([`preview`]). This module never touches the geometry stages:
//! it reads a [`Rig`](crate::rig::Rig) (joints in the mesh frame) and produces a [`Motion`].
//!
//! Frames: the **mesh frame** is the rig's (rig.json); the **character frame** is the template's
//! (+X the side of the template's `Left*` joints, the character's left = up × forward; +Y up,
//! +Z forward; right-handed). A
//! [`CharacterFrame`] maps one onto the other; clips are converted through it so that neither the
//! mesh's axes nor the clip's matter.

pub mod bvh;
pub mod names;
pub mod preview;
pub mod procedural;
pub mod retarget;
mod root;

use nalgebra::{Isometry3, Rotation3, Translation3, UnitQuaternion};

use crate::geom::V3;
use crate::rig::RigJoint;
use crate::skin::pose::{joint_transforms, Pose};

/// Why a motion could not be made.
#[derive(Debug, thiserror::Error)]
pub enum MotionError {
    /// The BVH file is invalid.
    #[error(transparent)]
    Bvh(#[from] bvh::BvhError),
    /// The clip and the rig have too little in common.
    #[error("{0}")]
    NoMatch(String),
    /// The rig's recorded orientation cannot be read.
    #[error("cannot read the rig's orientation `{0}` (expected e.g. `+Y up, +Z forward`)")]
    Orientation(String),
}

/// One frame of a motion on a rig.
#[derive(Clone, Debug, PartialEq)]
pub struct MotionFrame {
    /// Local joint rotations about the bind positions (see [`Pose`]), mesh-frame axes.
    pub pose: Pose,
    /// Translation applied to the whole skeleton after the pose (mesh frame and units).
    pub root_offset_mesh: V3,
}

/// A clip retargeted onto one rig: one pose per frame, sampled every `frame_time_s`.
#[derive(Clone, Debug, PartialEq)]
pub struct Motion {
    /// Clip name (file stem or built-in name).
    pub name: String,
    /// Seconds per frame.
    pub frame_time_s: f64,
    /// Frames in play order.
    pub frames: Vec<MotionFrame>,
}

impl MotionFrame {
    /// World transform of every joint (mesh frame): the pose's forward kinematics, then the root
    /// offset.
    pub fn transforms(&self, joints: &[RigJoint]) -> Vec<Isometry3<f64>> {
        let shift = Isometry3::from_parts(
            Translation3::from(self.root_offset_mesh),
            UnitQuaternion::identity(),
        );
        joint_transforms(joints, &self.pose)
            .into_iter()
            .map(|t| shift * t)
            .collect()
    }

    /// Posed joint positions (mesh frame).
    pub fn joint_positions(&self, joints: &[RigJoint]) -> Vec<V3> {
        self.transforms(joints)
            .iter()
            .zip(joints)
            .map(|(t, j)| (t * nalgebra::Point3::from(j.position)).coords)
            .collect()
    }
}

/// The rig's character frame: which mesh axes point up and forward.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterFrame {
    /// Rotation taking mesh-frame vectors to character-frame vectors (rows: right, up, forward).
    pub mesh_to_character: Rotation3<f64>,
}

impl CharacterFrame {
    /// From `up` and `forward` (any frame; they are orthonormalized, `up` kept).
    pub fn from_up_forward(up: V3, forward: V3) -> Option<Self> {
        let up = up.try_normalize(1e-12)?;
        let forward = (forward - up * up.dot(&forward)).try_normalize(1e-12)?;
        let right = up.cross(&forward);
        let m =
            nalgebra::Matrix3::from_rows(&[right.transpose(), up.transpose(), forward.transpose()]);
        Some(Self {
            mesh_to_character: Rotation3::from_matrix_unchecked(m),
        })
    }

    /// Parse a rig's `orientation` label (`+Y up, +Z forward`: mesh axes of the template's up and
    /// forward, as written by `embed::Orientation::label`).
    pub fn from_label(label: &str) -> Result<Self, MotionError> {
        let bad = || MotionError::Orientation(label.to_owned());
        let o = crate::embed::Orientation::from_label(label).ok_or_else(bad)?;
        Self::from_up_forward(o.unapply(&V3::y()), o.unapply(&V3::z())).ok_or_else(bad)
    }

    /// The mesh frame's up direction.
    pub fn up_mesh(&self) -> V3 {
        self.mesh_to_character.inverse() * V3::y()
    }

    /// A character-frame rotation expressed in mesh axes.
    pub fn rotation_to_mesh(&self, r_character: &UnitQuaternion<f64>) -> UnitQuaternion<f64> {
        let c = UnitQuaternion::from_rotation_matrix(&self.mesh_to_character);
        c.inverse() * r_character * c
    }
}

/// Where a motion comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum MotionSource {
    /// A BVH file, retargeted by joint names.
    Bvh(std::path::PathBuf),
    /// A built-in procedural cycle.
    Clip(procedural::Clip),
}

/// The one entry point: the motion `source` on `rig` (its joints and recorded orientation).
pub fn motion_for(rig: &crate::rig::Rig, source: &MotionSource) -> Result<Motion, MotionError> {
    let frame = CharacterFrame::from_label(&rig.orientation)?;
    match source {
        MotionSource::Bvh(path) => {
            let clip = bvh::read(path)?;
            let name = path
                .file_stem()
                .map_or_else(|| "clip".to_owned(), |s| s.to_string_lossy().into_owned());
            retarget::retarget(&clip, &name, &rig.joints, &frame)
        }
        MotionSource::Clip(c) => procedural::generate(*c, &rig.joints, &frame),
    }
}

/// Bone lengths (joint to parent, mesh units) of posed joint positions, one per joint (0 for roots).
pub fn bone_lengths(joints: &[RigJoint], positions: &[V3]) -> Vec<f64> {
    joints
        .iter()
        .enumerate()
        .map(
            |(j, joint)| match joint.parent.filter(|&p| p < positions.len()) {
                Some(p) => (positions[j] - positions[p]).norm(),
                None => 0.0,
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orientation_labels_parse_to_proper_rotations() {
        let f = CharacterFrame::from_label("+Y up, +Z forward").unwrap();
        assert!((f.mesh_to_character.matrix() - nalgebra::Matrix3::identity()).norm() < 1e-12);
        let g = CharacterFrame::from_label("+Z up, -Y forward").unwrap();
        assert!((g.mesh_to_character.matrix().determinant() - 1.0).abs() < 1e-12);
        assert!((g.up_mesh() - V3::z()).norm() < 1e-12);
        assert!((g.mesh_to_character * -V3::y() - V3::z()).norm() < 1e-12);
        assert!(CharacterFrame::from_label("+Y up, +Y forward").is_err());
        assert!(CharacterFrame::from_label("sideways").is_err());
    }
}
