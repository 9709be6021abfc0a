//! Linear blend skinning (LBS) under a pose, and seeded random poses.
//!
//! A [`Pose`] gives every joint a local rotation about its own **bind position** (mesh frame).
//! Forward kinematics composes them down the hierarchy: the world transform of joint j is
//! `G_j = G_parent(j) · T(b_j) · R_j · T(−b_j)`, where `b_j` is j's bind position. `G_j` maps a
//! bind-pose point that follows j to its posed position, so LBS is `v' = Σ_j w_j · G_j(v)` with the
//! glTF convention of the skin table (a vertex bound to joint J follows J's transform).
//!
//! The random poses are the ones the corpus scorer uses for the deformation error
//! (`../shared/corpus/README.md`: "each joint rotated up to 30° about a random axis through its
//! bind position"): joint by joint in index order, three draws of a [`SplitMix64`] seeded with the
//! pose seed: axis = uniform on the sphere (z = 2u₁−1, φ = 2πu₂), angle = max·u₃.

use nalgebra::{Isometry3, Translation3, Unit, UnitQuaternion};

use crate::geom::{P3, V3};
use crate::skeleton::rigged::{RigJoint, SkinTable};

/// Largest angle accepted for [`Pose::random`]'s `max_degrees`: a full turn.
pub const MAX_DEGREES_LIMIT: f64 = 360.0;

/// A largest random rotation that is no angle: NaN turned every posed vertex into NaN (the OBJ
/// was written all the same), infinity likewise.
#[derive(Clone, Copy, Debug, thiserror::Error)]
#[error("{0} is not a rotation angle: give degrees from 0 to {MAX_DEGREES_LIMIT}")]
pub struct MaxDegreesError(pub f64);

/// `max_degrees` if [`Pose::random`] can use it (finite, from 0 to [`MAX_DEGREES_LIMIT`]).
pub fn check_max_degrees(max_degrees: f64) -> Result<f64, MaxDegreesError> {
    if (0.0..=MAX_DEGREES_LIMIT).contains(&max_degrees) {
        Ok(max_degrees)
    } else {
        Err(MaxDegreesError(max_degrees))
    }
}

/// A rotation per joint, about the joint's bind position, in the joint's parent's posed frame
/// (mesh frame axes). One entry per joint of the rig, same order.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    /// Local rotation of each joint.
    pub rotations: Vec<UnitQuaternion<f64>>,
}

impl Pose {
    /// The bind pose: every rotation is the identity.
    pub fn identity(joint_count: usize) -> Self {
        Self {
            rotations: vec![UnitQuaternion::identity(); joint_count],
        }
    }

    /// A seeded random pose: joint by joint (index order), a uniformly random axis and an angle
    /// uniform in `[0, max_degrees]`. The same `(joint_count, seed, max_degrees)` always gives the
    /// same pose on every platform.
    pub fn random(joint_count: usize, seed: u64, max_degrees: f64) -> Self {
        let mut rng = SplitMix64::new(seed);
        let max = max_degrees.to_radians();
        let rotations = (0..joint_count)
            .map(|_| {
                let z = 2.0 * rng.next_f64() - 1.0;
                let phi = std::f64::consts::TAU * rng.next_f64();
                let angle = max * rng.next_f64();
                let r = (1.0 - z * z).max(0.0).sqrt();
                let axis = Unit::new_normalize(V3::new(r * phi.cos(), r * phi.sin(), z));
                UnitQuaternion::from_axis_angle(&axis, angle)
            })
            .collect();
        Self { rotations }
    }
}

/// The splitmix64 generator (Steele et al. 2014): tiny, seedable, identical on every platform.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform float in `[0, 1)` (53 random bits).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Forward kinematics: the world transform of every joint (mesh frame), mapping bind-pose points
/// that follow the joint to their posed positions. `joints` may list parents after children;
/// a parent index out of range or a cycle makes the joint a root (never panics). Joints without
/// an entry in `pose` keep the identity rotation.
pub fn joint_transforms(joints: &[RigJoint], pose: &Pose) -> Vec<Isometry3<f64>> {
    let n = joints.len();
    let mut world: Vec<Option<Isometry3<f64>>> = vec![None; n];
    for start in 0..n {
        // Walk up to the first joint with a known transform (or a root), then come back down.
        let mut chain = vec![start];
        while let Some(&j) = chain.last() {
            if world[j].is_some() {
                break;
            }
            match joints[j].parent.filter(|&p| p < n && !chain.contains(&p)) {
                Some(p) => chain.push(p),
                None => break,
            }
        }
        for &j in chain.iter().rev() {
            if world[j].is_some() {
                continue;
            }
            let parent = joints[j]
                .parent
                .and_then(|p| world.get(p).copied().flatten())
                .unwrap_or_else(Isometry3::identity);
            world[j] = Some(parent * local_transform(&joints[j], pose.rotations.get(j)));
        }
    }
    world
        .into_iter()
        .map(|t| t.unwrap_or_else(Isometry3::identity))
        .collect()
}

/// `T(b) · R · T(−b)`: rotation `r` about the joint's bind position `b`.
fn local_transform(joint: &RigJoint, r: Option<&UnitQuaternion<f64>>) -> Isometry3<f64> {
    let b = V3::from(joint.position);
    let r = r.copied().unwrap_or_else(UnitQuaternion::identity);
    Isometry3::from_parts(Translation3::from(b - r * b), r)
}

/// Linear blend skinning: one posed position per entry of `positions` (mesh frame). Vertex i
/// blends `transforms[j]` with the weights `skin[i]`; a vertex with no (valid) weights, or beyond
/// the end of `skin`, stays where it is. Weights are used as given (not renormalized).
pub fn deform(positions: &[P3], skin: &SkinTable, transforms: &[Isometry3<f64>]) -> Vec<P3> {
    positions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let influences = skin.get(i).map(Vec::as_slice).unwrap_or(&[]);
            let mut acc = V3::zeros();
            let mut total = 0.0;
            for &(j, w) in influences {
                if let Some(t) = transforms.get(j as usize) {
                    acc += (t * p).coords * w;
                    total += w;
                }
            }
            if total > 0.0 {
                P3::from(acc + p.coords * (1.0 - total).max(0.0))
            } else {
                *p
            }
        })
        .collect()
}

/// Pose a skinned mesh: forward kinematics then LBS (mesh frame).
pub fn pose_mesh(positions: &[P3], joints: &[RigJoint], skin: &SkinTable, pose: &Pose) -> Vec<P3> {
    deform(positions, skin, &joint_transforms(joints, pose))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain() -> Vec<RigJoint> {
        let j = |name: &str, parent, y| RigJoint {
            name: name.into(),
            parent,
            position: [0.0, y, 0.0],
            end: false,
        };
        vec![
            j("root", None, 0.0),
            j("mid", Some(0), 1.0),
            j("tip", Some(1), 2.0),
        ]
    }

    #[test]
    fn max_degrees_must_be_an_angle() {
        for bad in [f64::NAN, f64::INFINITY, -30.0, 361.0] {
            assert!(check_max_degrees(bad).is_err(), "{bad}");
        }
        for ok in [0.0, 30.0, 360.0] {
            assert_eq!(check_max_degrees(ok).unwrap(), ok);
        }
    }

    #[test]
    fn identity_pose_returns_bind_mesh() {
        let joints = chain();
        let pts = vec![P3::new(0.1, 0.5, 0.0), P3::new(-0.2, 1.5, 0.3)];
        let skin: SkinTable = vec![vec![(0, 0.5), (1, 0.5)], vec![(1, 0.3), (2, 0.7)]];
        let out = pose_mesh(&pts, &joints, &skin, &Pose::identity(3));
        for (a, b) in pts.iter().zip(&out) {
            assert!((a - b).norm() < 1e-12);
        }
    }

    #[test]
    fn rotating_root_rotates_everything_rigidly() {
        let joints = chain();
        let pts = vec![
            P3::new(0.1, 0.5, 0.0),
            P3::new(-0.2, 1.5, 0.3),
            P3::new(0.0, 2.5, 1.0),
        ];
        let skin: SkinTable = vec![vec![(0, 1.0)], vec![(1, 0.4), (2, 0.6)], vec![(2, 1.0)]];
        let mut pose = Pose::identity(3);
        let r = UnitQuaternion::from_euler_angles(0.3, -0.2, 0.7);
        pose.rotations[0] = r;
        let out = pose_mesh(&pts, &joints, &skin, &pose);
        for (a, b) in pts.iter().zip(&out) {
            // Root at the origin: every point is rotated by r.
            assert!((r * a - b).norm() < 1e-12);
        }
    }

    #[test]
    fn child_rotation_pivots_about_its_bind_position() {
        let joints = chain();
        let mut pose = Pose::identity(3);
        pose.rotations[1] =
            UnitQuaternion::from_axis_angle(&V3::z_axis(), std::f64::consts::FRAC_PI_2);
        let t = joint_transforms(&joints, &pose);
        // The tip (0,2,0) rotates 90° about z around (0,1,0) → (-1,1,0); the root does not move.
        assert!((t[2] * P3::new(0.0, 2.0, 0.0) - P3::new(-1.0, 1.0, 0.0)).norm() < 1e-12);
        assert!((t[1] * P3::new(0.0, 1.0, 0.0) - P3::new(0.0, 1.0, 0.0)).norm() < 1e-12);
        assert!((t[0] * P3::new(5.0, 5.0, 5.0) - P3::new(5.0, 5.0, 5.0)).norm() < 1e-12);
    }

    #[test]
    fn random_pose_is_seeded_and_bounded() {
        let a = Pose::random(20, 7, 30.0);
        let b = Pose::random(20, 7, 30.0);
        let c = Pose::random(20, 8, 30.0);
        assert_eq!(a, b);
        assert_ne!(a, c);
        for q in &a.rotations {
            assert!(q.angle() <= 30f64.to_radians() + 1e-12);
        }
        assert!(a.rotations.iter().any(|q| q.angle() > 5f64.to_radians()));
    }

    #[test]
    fn cycles_and_bad_parents_do_not_panic() {
        let mut joints = chain();
        joints[0].parent = Some(2);
        joints[1].parent = Some(99);
        let t = joint_transforms(&joints, &Pose::random(3, 1, 30.0));
        assert_eq!(t.len(), 3);
    }
}
