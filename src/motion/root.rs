//! The root under a retargeted clip (step 5 of [`super::retarget`]): the clip's hips motion
//! scaled by the leg-length ratio, its height measured from the clip's floor and placed on the
//! rig's, and frames lifted so no joint goes below the floor.

use nalgebra::{Point3, UnitQuaternion};

use super::retarget::parent_first;
use super::{CharacterFrame, MotionFrame};
use crate::geom::V3;
use crate::rig::RigJoint;

/// Root translation: the clip's hips motion scaled by the leg-length ratio (character frame).
pub(super) struct RootMotion {
    scale: f64,
    start: V3,
    floor_clip: f64,
    hips_rig: V3,
    pub(super) floor_rig: f64,
}

impl RootMotion {
    pub(super) fn new(
        joints: &[RigJoint],
        matched: &[Option<usize>],
        rest_rig: &[V3],
        rest_clip: &[V3],
        worlds: &[Vec<nalgebra::Isometry3<f64>>],
        c_src: UnitQuaternion<f64>,
    ) -> Self {
        let lowest = |ps: &mut dyn Iterator<Item = f64>| ps.fold(f64::INFINITY, f64::min);
        let floor_rig = lowest(&mut rest_rig.iter().map(|p| p.y));
        let floor_clip = lowest(
            &mut worlds
                .iter()
                .flatten()
                .map(|t| (c_src * t.translation.vector).y),
        );
        let root = parent_first(joints).first().copied().unwrap_or(0);
        let hips_rig = rest_rig.get(root).copied().unwrap_or_else(V3::zeros);
        let clip_root = matched.get(root).copied().flatten().unwrap_or(0);
        let clip_hips_rest = rest_clip.get(clip_root).copied().unwrap_or_else(V3::zeros);
        let clip_floor_rest = lowest(&mut rest_clip.iter().map(|p| p.y));
        // Leg length stands for body size (the rule): hips height above the floor, rest.
        let leg_rig = hips_rig.y - floor_rig;
        let leg_clip = clip_hips_rest.y - clip_floor_rest;
        let scale = if leg_clip > 1e-12 && leg_rig > 0.0 {
            leg_rig / leg_clip
        } else {
            1.0
        };
        let start = worlds
            .first()
            .and_then(|w| w.first())
            .map_or(V3::zeros(), |t| c_src * t.translation.vector);
        Self {
            scale,
            start,
            floor_clip: if floor_clip.is_finite() {
                floor_clip
            } else {
                0.0
            },
            hips_rig,
            floor_rig: if floor_rig.is_finite() {
                floor_rig
            } else {
                0.0
            },
        }
    }

    /// Root offset (character frame, rig units) for the clip's hips at `hips` (character frame).
    pub(super) fn offset(&self, hips: V3) -> V3 {
        let d = (hips - self.start) * self.scale;
        let height = (hips.y - self.floor_clip) * self.scale;
        V3::new(d.x, height - (self.hips_rig.y - self.floor_rig), d.z)
    }
}

/// Lift the frame so its lowest joint is not below `floor` (character-frame height).
pub fn lift_onto_floor(
    frame: &mut MotionFrame,
    joints: &[RigJoint],
    cf: &CharacterFrame,
    floor: f64,
) {
    let low = lowest_joint_height(frame, joints, cf);
    if low < floor {
        frame.root_offset_mesh += cf.up_mesh() * (floor - low);
    }
}

/// Height (character-frame up coordinate) of the lowest posed joint.
pub fn lowest_joint_height(frame: &MotionFrame, joints: &[RigJoint], cf: &CharacterFrame) -> f64 {
    let up = cf.up_mesh();
    frame
        .transforms(joints)
        .iter()
        .zip(joints)
        .map(|(t, j)| (t * Point3::from(j.position)).coords.dot(&up))
        .fold(f64::INFINITY, f64::min)
}
