//! Built-in cycles that need no file: walk in place, wave, squat (human roles) and trot
//! (quadruped roles). Each is a list of joint roles (template joint names) with a local rotation
//! per phase, written in the **character frame** (+X toward the template's `Left*` joints: the character's left, +Y up,
//! +Z forward), so the same cycle plays on any rig of the template whatever its mesh axes. Roles a
//! rig lacks are skipped. After posing, each frame is planted: the lowest joint rests on the rest
//! pose's floor, so feet neither sink nor float.

use std::f64::consts::TAU;

use nalgebra::UnitQuaternion;

use super::names::normalize;
use super::retarget::lowest_joint_height;
use super::{CharacterFrame, Motion, MotionError, MotionFrame};
use crate::geom::V3;
use crate::rig::RigJoint;
use crate::skin::pose::Pose;

/// Frames per second of the built-in cycles.
pub const FPS: f64 = 30.0;

/// A built-in clip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Clip {
    /// Walk in place (on a quadruped rig: the trot).
    Walk,
    /// Raise the right arm and wave.
    Wave,
    /// Squat down and up.
    Squat,
    /// Quadruped trot (diagonal leg pairs).
    Trot,
}

impl Clip {
    /// Cycle length, seconds.
    fn period_s(self) -> f64 {
        match self {
            Clip::Walk => 1.1,
            Clip::Wave | Clip::Squat => 2.0,
            Clip::Trot => 0.6,
        }
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Clip::Walk => "walk",
            Clip::Wave => "wave",
            Clip::Squat => "squat",
            Clip::Trot => "trot",
        }
    }
}

/// Rotation about the character frame's right axis (+X). For a bone pointing down, a negative
/// angle swings it forward; for a bone pointing up, a positive one leans it forward.
fn pitch(deg: f64) -> UnitQuaternion<f64> {
    UnitQuaternion::from_axis_angle(&V3::x_axis(), deg.to_radians())
}

/// Rotation about the forward axis (+Z): a positive angle raises a bone on the +X side.
fn roll(deg: f64) -> UnitQuaternion<f64> {
    UnitQuaternion::from_axis_angle(&V3::z_axis(), deg.to_radians())
}

/// Rotation about the up axis (+Y): a positive angle turns a bone's front towards +X.
fn yaw(deg: f64) -> UnitQuaternion<f64> {
    UnitQuaternion::from_axis_angle(&V3::y_axis(), deg.to_radians())
}

/// Local rotations (character frame) by role at phase `phi` (radians).
fn rotations(clip: Clip, phi: f64) -> Vec<(&'static str, UnitQuaternion<f64>)> {
    match clip {
        Clip::Walk => walk(phi),
        Clip::Wave => wave(phi),
        Clip::Squat => squat(phi),
        Clip::Trot => trot(phi),
    }
}

/// Knees bend only one way: the positive part of a swing.
fn bend(x: f64) -> f64 {
    x.max(0.0)
}

/// Legs swing in opposition, each knee bending over half the cycle; arms counter-swing.
fn walk(phi: f64) -> Vec<(&'static str, UnitQuaternion<f64>)> {
    let s = phi.sin();
    vec![
        ("LeftUpLeg", pitch(-25.0 * s)),
        ("RightUpLeg", pitch(25.0 * s)),
        ("LeftLeg", pitch(45.0 * bend(s))),
        ("RightLeg", pitch(45.0 * bend(-s))),
        ("LeftArm", pitch(20.0 * s)),
        ("RightArm", pitch(-20.0 * s)),
        ("LeftForeArm", pitch(-15.0)),
        ("RightForeArm", pitch(-15.0)),
        ("Spine", yaw(4.0 * s)),
    ]
}

/// The right arm raised, waving from the elbow.
fn wave(phi: f64) -> Vec<(&'static str, UnitQuaternion<f64>)> {
    // Ease the arm up over the first quarter, wave, lower it over the last quarter.
    let lift = (phi / TAU * 4.0)
        .min(1.0)
        .min(4.0 - phi / TAU * 4.0)
        .max(0.0);
    vec![
        // The right arm is on −X: a negative roll raises it.
        ("RightArm", roll(-110.0 * lift)),
        (
            "RightForeArm",
            roll(-lift * (20.0 + 30.0 * (3.0 * phi).sin())),
        ),
        ("Head", roll(5.0 * lift)),
    ]
}

/// Hips down and up: thighs forward, knees twice as much, feet flat, arms forward for balance.
fn squat(phi: f64) -> Vec<(&'static str, UnitQuaternion<f64>)> {
    let a = 45.0 * (1.0 - phi.cos()) / 2.0;
    vec![
        ("LeftUpLeg", pitch(-a)),
        ("RightUpLeg", pitch(-a)),
        ("LeftLeg", pitch(2.0 * a)),
        ("RightLeg", pitch(2.0 * a)),
        ("LeftFoot", pitch(-a)),
        ("RightFoot", pitch(-a)),
        ("Spine", pitch(0.5 * a)),
        ("LeftArm", pitch(-1.2 * a)),
        ("RightArm", pitch(-1.2 * a)),
    ]
}

/// Diagonal leg pairs in phase (left front with right hind), the tail swinging.
fn trot(phi: f64) -> Vec<(&'static str, UnitQuaternion<f64>)> {
    let s = phi.sin();
    vec![
        ("LeftFrontUpLeg", pitch(-20.0 * s)),
        ("RightHindUpLeg", pitch(-20.0 * s)),
        ("RightFrontUpLeg", pitch(20.0 * s)),
        ("LeftHindUpLeg", pitch(20.0 * s)),
        ("LeftFrontLeg", pitch(35.0 * bend(s))),
        ("RightHindLeg", pitch(35.0 * bend(s))),
        ("RightFrontLeg", pitch(35.0 * bend(-s))),
        ("LeftHindLeg", pitch(35.0 * bend(-s))),
        ("Neck", pitch(4.0 * (2.0 * phi).sin())),
        ("Tail", yaw(15.0 * s)),
    ]
}

/// Whether the rig looks like a quadruped (has front legs).
pub(crate) fn is_quadruped(joints: &[RigJoint]) -> bool {
    joints
        .iter()
        .any(|j| normalize(&j.name).contains("frontupleg"))
}

/// One cycle of `clip` on `joints` (mesh frame) whose character frame is `frame`. `walk` on a
/// quadruped plays the trot.
pub fn generate(
    clip: Clip,
    joints: &[RigJoint],
    frame: &CharacterFrame,
) -> Result<Motion, MotionError> {
    let clip = match clip {
        Clip::Walk if is_quadruped(joints) => Clip::Trot,
        c => c,
    };
    let index: Vec<String> = joints.iter().map(|j| normalize(&j.name)).collect();
    let find = |role: &str| index.iter().position(|n| *n == normalize(role));
    let used = rotations(clip, 1.0)
        .iter()
        .filter(|(r, _)| find(r).is_some())
        .count();
    if used < 2 {
        return Err(MotionError::NoMatch(format!(
            "the built-in `{}` clip needs a rig with the {} template's joint names",
            clip.name(),
            if clip == Clip::Trot {
                "quadruped"
            } else {
                "human"
            }
        )));
    }
    let frame_count = (clip.period_s() * FPS).round().max(2.0) as usize;
    let floor = lowest_joint_height(&rest_frame(joints.len()), joints, frame);
    let frames = (0..frame_count)
        .map(|f| {
            let phi = TAU * f as f64 / frame_count as f64;
            let mut pose = Pose::identity(joints.len());
            for (role, r) in rotations(clip, phi) {
                if let Some(j) = find(role) {
                    pose.rotations[j] = frame.rotation_to_mesh(&r);
                }
            }
            let mut out = MotionFrame {
                pose,
                root_offset_mesh: V3::zeros(),
            };
            let low = lowest_joint_height(&out, joints, frame);
            out.root_offset_mesh = frame.up_mesh() * (floor - low);
            out
        })
        .collect();
    Ok(Motion {
        name: clip.name().to_owned(),
        frame_time_s: 1.0 / FPS,
        frames,
    })
}

fn rest_frame(n: usize) -> MotionFrame {
    MotionFrame {
        pose: Pose::identity(n),
        root_offset_mesh: V3::zeros(),
    }
}
