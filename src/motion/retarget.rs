//! Retargeting a BVH clip onto a rig by joint names.
//!
//! Frame-explicit recipe, per frame `f`:
//! 1. both skeletons are expressed in their **character frame** (right, up, forward): the rig's
//!    from its recorded orientation, the clip's from BVH's +Y up and its feet's toe direction;
//! 2. the clip's rest pose is all channels zero, so a clip joint's world rotation `D_s(f)` is its
//!    rotation *relative to rest*;
//! 3. rest poses are aligned per joint: `O_j` is the rotation that best takes our rest bone
//!    directions (joint to its next matched descendants) onto the clip's (Kabsch fit; one bone
//!    gives the minimal rotation), so a T-pose clip drives an A-pose rig correctly;
//! 4. a matched joint's world rotation relative to rest is `Q_j = D_s · O_j`; an unmatched joint
//!    keeps its rest rotation relative to its parent (`Q_j = Q_parent`); the local rotation is
//!    `Q_parent⁻¹ · Q_j`, so every bone keeps its length exactly;
//! 5. the root translation is the clip's hips motion scaled by the leg-length ratio, its height
//!    measured from the clip's floor (lowest joint over the clip) and placed on our floor (lowest
//!    rest joint); a frame whose lowest joint would go below our floor is lifted onto it.
//!
//! If the clip's `Left*` joints sit on the other side of the character from ours (an artist rig or
//! clip named from the viewer's side, as Pinocchio's own skeletons are), the sides are swapped so each mesh leg gets the motion
//! of the leg on the same side. Step 5 (the root and the floor) is in `root.rs`.

use std::collections::HashMap;

use nalgebra::{Matrix3, UnitQuaternion};

use super::bvh::Bvh;
use super::names::{match_roles, mirror_role};
use super::root::RootMotion;
pub use super::root::{lift_onto_floor, lowest_joint_height};
use super::{CharacterFrame, Motion, MotionError, MotionFrame};
use crate::geom::V3;
use crate::rig::RigJoint;
use crate::skin::pose::Pose;

/// Fewest matched joints for a clip to drive a rig (hips plus a limb chain).
pub const MIN_MATCHED: usize = 4;

/// Retarget `clip` (named `name`) onto `joints` (mesh frame) whose character frame is `frame`.
pub fn retarget(
    clip: &Bvh,
    name: &str,
    joints: &[RigJoint],
    frame: &CharacterFrame,
) -> Result<Motion, MotionError> {
    let rest_rig: Vec<V3> = joints
        .iter()
        .map(|j| frame.mesh_to_character * V3::from(j.position))
        .collect();
    let rest_clip_file: Vec<V3> = clip
        .world(None)
        .iter()
        .map(|t| t.translation.vector)
        .collect();
    let clip_frame = clip_character_frame(clip, name, &rest_clip_file)?;
    let c_src = UnitQuaternion::from_rotation_matrix(&clip_frame.mesh_to_character);
    let rest_clip: Vec<V3> = rest_clip_file.iter().map(|p| c_src * p).collect();

    let matched = match_joints(clip, joints, &rest_clip, &rest_rig);
    check_coverage(clip, name, joints, &matched)?;
    let offsets = rest_offsets(joints, &matched, &rest_rig, &rest_clip);
    let order = parent_first(joints);
    let worlds: Vec<Vec<nalgebra::Isometry3<f64>>> = (0..clip.frames.len())
        .map(|f| clip.world(Some(f)))
        .collect();
    let root_motion = RootMotion::new(joints, &matched, &rest_rig, &rest_clip, &worlds, c_src);

    let frames = worlds
        .iter()
        .map(|world| {
            let q = world_rotations(joints, &order, &matched, &offsets, world, c_src);
            let rotations = (0..joints.len())
                .map(|j| {
                    let parent = joints[j].parent.filter(|&p| p < joints.len());
                    let qp = parent.map_or(UnitQuaternion::identity(), |p| q[p]);
                    frame.rotation_to_mesh(&(qp.inverse() * q[j]))
                })
                .collect();
            let hips = world
                .first()
                .map_or(V3::zeros(), |t| c_src * t.translation.vector);
            let mut out = MotionFrame {
                pose: Pose { rotations },
                root_offset_mesh: frame.mesh_to_character.inverse() * root_motion.offset(hips),
            };
            lift_onto_floor(&mut out, joints, frame, root_motion.floor_rig);
            out
        })
        .collect();
    Ok(Motion {
        name: name.to_owned(),
        frame_time_s: clip.frame_time_s,
        frames,
    })
}

/// The clip drives the rig only if at least two legs and [`MIN_MATCHED`] joints matched.
fn check_coverage(
    clip: &Bvh,
    name: &str,
    joints: &[RigJoint],
    matched: &[Option<usize>],
) -> Result<(), MotionError> {
    let count = matched.iter().flatten().count();
    // A clip drives the body through its legs; without matched legs (a quadruped rig under a
    // human clip) only the spine would move, which is not the clip.
    let rig_names: Vec<String> = joints.iter().map(|j| j.name.clone()).collect();
    let legs = match_roles(&rig_names)
        .iter()
        .filter(|(role, j)| role.ends_with("Leg") && matched[*j].is_some())
        .count();
    if legs < 2 {
        // Only a quadruped rig has a clip to suggest; the hint misled on a curve skeleton.
        let hint = if super::procedural::is_quadruped(joints) {
            "quadruped rigs play the built-in `--clip trot`"
        } else {
            "clips play on rigs with the human or quadruped template's joint names"
        };
        return Err(MotionError::NoMatch(format!(
            "clip `{name}` has no legs matching the rig's ({hint})"
        )));
    }
    if count < MIN_MATCHED {
        return Err(MotionError::NoMatch(format!(
            "clip `{name}` and the rig share only {count} joints by name (need {MIN_MATCHED}); \
             clip joints: {}",
            clip_joint_list(clip)
        )));
    }
    Ok(())
}

/// The clip's character frame: BVH's +Y up; forward along its feet (foot to toe), else derived
/// from the side names assuming the anatomical convention (left = up × forward).
fn clip_character_frame(
    clip: &Bvh,
    name: &str,
    rest: &[V3],
) -> Result<CharacterFrame, MotionError> {
    let names: Vec<String> = clip.joints.iter().map(|j| j.name.clone()).collect();
    let roles: HashMap<String, usize> = match_roles(&names).into_iter().collect();
    let up = V3::y();
    let mut forward = V3::zeros();
    for side in ["Left", "Right"] {
        if let (Some(f), Some(t)) = (
            roles.get(&format!("{side}Foot")),
            roles.get(&format!("{side}ToeBase")),
        ) {
            forward += rest[*t] - rest[*f];
        }
    }
    if (forward - up * up.dot(&forward)).norm() < 1e-9 {
        if let (Some(l), Some(r)) = (roles.get("LeftUpLeg"), roles.get("RightUpLeg")) {
            forward = (rest[*l] - rest[*r]).cross(&up);
        }
    }
    // Without named feet or hips the clip's joints share no names with any rig either: say so,
    // with the names it has (the bare "cannot tell which way it faces" sent users to the axes).
    CharacterFrame::from_up_forward(up, forward).ok_or_else(|| {
        MotionError::NoMatch(format!(
            "clip `{name}` has no joints named like feet and toes or upper legs (e.g. LeftFoot, \
             LeftToeBase, LeftUpLeg), so neither which way its character faces nor which rig \
             joints it drives can be told; clip joints: {}",
            clip_joint_list(clip)
        ))
    })
}

/// The clip's first joint names, for error messages.
fn clip_joint_list(clip: &Bvh) -> String {
    let names: Vec<&str> = clip.joints.iter().map(|j| j.name.as_str()).collect();
    let more = names.len().saturating_sub(12);
    let mut list = names[..names.len().min(12)].join(", ");
    if more > 0 {
        list.push_str(&format!(" and {more} more"));
    }
    list
}

/// Which side (+1: +X of the character frame) the `Left*` legs (else arms) are on.
fn left_side(roles: &HashMap<String, usize>, rest: &[V3]) -> f64 {
    for (l, r) in [("LeftUpLeg", "RightUpLeg"), ("LeftArm", "RightArm")] {
        if let (Some(a), Some(b)) = (roles.get(l), roles.get(r)) {
            let d = rest[*a].x - rest[*b].x;
            if d.abs() > 1e-12 {
                return d.signum();
            }
        }
    }
    0.0
}

/// True when the rig's `Left*` joints are on the character's anatomical right (left = up ×
/// forward, i.e. the character frame's −X).
pub fn labels_mirrored(joints: &[RigJoint], frame: &CharacterFrame) -> bool {
    let names: Vec<String> = joints.iter().map(|j| j.name.clone()).collect();
    let roles: HashMap<String, usize> = match_roles(&names).into_iter().collect();
    let rest: Vec<V3> = joints
        .iter()
        .map(|j| frame.mesh_to_character * V3::from(j.position))
        .collect();
    left_side(&roles, &rest) > 0.0
}

/// For each rig joint, the clip joint driving it (sides swapped when the two disagree).
fn match_joints(
    clip: &Bvh,
    joints: &[RigJoint],
    rest_clip: &[V3],
    rest_rig: &[V3],
) -> Vec<Option<usize>> {
    let clip_names: Vec<String> = clip.joints.iter().map(|j| j.name.clone()).collect();
    let rig_names: Vec<String> = joints.iter().map(|j| j.name.clone()).collect();
    let clip_roles: HashMap<String, usize> = match_roles(&clip_names).into_iter().collect();
    let rig_roles = match_roles(&rig_names);
    let rig_map: HashMap<String, usize> = rig_roles.iter().cloned().collect();
    let swap = left_side(&clip_roles, rest_clip) * left_side(&rig_map, rest_rig) < 0.0;
    let mut out = vec![None; joints.len()];
    for (role, j) in rig_roles {
        let key = if swap { mirror_role(&role) } else { role };
        out[j] = clip_roles.get(&key).copied();
    }
    out
}

/// Per-joint rest alignment `O_j` (character frame): our rest bone directions onto the clip's.
fn rest_offsets(
    joints: &[RigJoint],
    matched: &[Option<usize>],
    rest_rig: &[V3],
    rest_clip: &[V3],
) -> Vec<UnitQuaternion<f64>> {
    let children = children_of(joints);
    (0..joints.len())
        .map(|j| {
            let Some(s) = matched[j] else {
                return UnitQuaternion::identity();
            };
            let pairs: Vec<(V3, V3)> = next_matched(j, &children, matched)
                .into_iter()
                .filter_map(|t| {
                    let ours = (rest_rig[t] - rest_rig[j]).try_normalize(1e-12)?;
                    let theirs = (rest_clip[matched[t]?] - rest_clip[s]).try_normalize(1e-12)?;
                    Some((ours, theirs))
                })
                .collect();
            fit_rotation(&pairs)
        })
        .collect()
}

/// The rotation taking each `a` closest to its `b` (Kabsch, Arun et al. 1987); one pair (or
/// parallel pairs) gives the minimal rotation of their sum; none gives the identity.
fn fit_rotation(pairs: &[(V3, V3)]) -> UnitQuaternion<f64> {
    let mut h = Matrix3::zeros();
    for (a, b) in pairs {
        h += b * a.transpose();
    }
    let svd = h.svd(true, true);
    let planar = svd.singular_values[1] > 1e-6 * svd.singular_values[0].max(1e-300);
    if let (true, Some(u), Some(vt)) = (planar, svd.u, svd.v_t) {
        let d = (u * vt).determinant().signum();
        let r = u * Matrix3::from_diagonal(&V3::new(1.0, 1.0, d)) * vt;
        return UnitQuaternion::from_matrix(&r);
    }
    let a: V3 = pairs.iter().map(|p| p.0).sum();
    let b: V3 = pairs.iter().map(|p| p.1).sum();
    minimal_rotation(&a, &b)
}

/// Smallest rotation taking direction `a` to `b` (a half turn about any perpendicular axis when
/// they are opposite).
fn minimal_rotation(a: &V3, b: &V3) -> UnitQuaternion<f64> {
    UnitQuaternion::rotation_between(a, b).unwrap_or_else(|| {
        if a.norm() < 1e-12 || b.norm() < 1e-12 {
            return UnitQuaternion::identity();
        }
        let perp = a
            .cross(&V3::x())
            .try_normalize(1e-6)
            .unwrap_or_else(|| a.cross(&V3::y()).normalize());
        UnitQuaternion::from_axis_angle(&nalgebra::Unit::new_normalize(perp), std::f64::consts::PI)
    })
}

fn children_of(joints: &[RigJoint]) -> Vec<Vec<usize>> {
    let mut children = vec![Vec::new(); joints.len()];
    for (j, joint) in joints.iter().enumerate() {
        if let Some(p) = joint.parent.filter(|&p| p < joints.len() && p != j) {
            children[p].push(j);
        }
    }
    children
}

/// The first matched joints below `j` on every branch.
fn next_matched(j: usize, children: &[Vec<usize>], matched: &[Option<usize>]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut stack = children[j].clone();
    let mut guard = 0;
    while let Some(c) = stack.pop() {
        guard += 1;
        if guard > children.len() {
            break;
        }
        if matched[c].is_some() {
            out.push(c);
        } else {
            stack.extend(&children[c]);
        }
    }
    out.sort_unstable();
    out
}

/// Joint indices with every parent before its children (cycles broken; never panics).
pub(super) fn parent_first(joints: &[RigJoint]) -> Vec<usize> {
    let depth = |mut j: usize| {
        let mut d = 0;
        while let Some(p) = joints[j].parent.filter(|&p| p < joints.len()) {
            d += 1;
            if d > joints.len() {
                break;
            }
            j = p;
        }
        d
    };
    let mut order: Vec<usize> = (0..joints.len()).collect();
    order.sort_by_key(|&j| (depth(j), j));
    order
}

/// World rotation relative to rest of every rig joint (character frame) for one clip frame.
fn world_rotations(
    joints: &[RigJoint],
    order: &[usize],
    matched: &[Option<usize>],
    offsets: &[UnitQuaternion<f64>],
    clip_world: &[nalgebra::Isometry3<f64>],
    c_src: UnitQuaternion<f64>,
) -> Vec<UnitQuaternion<f64>> {
    let mut q = vec![UnitQuaternion::identity(); joints.len()];
    for &j in order {
        q[j] = match matched[j].and_then(|s| clip_world.get(s)) {
            Some(w) => c_src * w.rotation * c_src.inverse() * offsets[j],
            None => joints[j]
                .parent
                .filter(|&p| p < joints.len())
                .map_or(UnitQuaternion::identity(), |p| q[p]),
        };
    }
    q
}
