//! Seeded random poses, forward kinematics and linear blend skinning for the deformation error.
//!
//! A pose gives every joint a local rotation about its own **bind position** (mesh frame). Forward
//! kinematics composes them root to leaf: `G_j = G_parent(j) ∘ A_j` with
//! `A_j(x) = b_j + R_j (x − b_j)`, `G_root = A_root`. Because rotations are about bind positions,
//! `G_j` maps bind-pose points directly to posed points (no inverse bind matrix needed), and linear
//! blend skinning is `v' = Σ_k w_k G_{j_k}(v)` (a vertex bound to joint J follows J's transform,
//! the glTF convention of the corpus README).
//!
//! The random generator is SplitMix64 (no dependency); poses are reproducible from the seed. The
//! skin helper's `crate::skin::pose` did not exist when this was written, so `score` uses this
//! implementation (see bench/results.md).

use nalgebra::{Matrix3, Rotation3, Unit};
use serde::{Deserialize, Serialize};

use super::MeasureError;
use crate::geom::{P3, V3};

/// One pose: a local rotation matrix per joint (row index = joint index), rotating about that
/// joint's bind position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    /// One rotation per joint.
    pub rotations: Vec<Matrix3<f64>>,
}

/// A rigid transform `x ↦ r·x + t` (mesh frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rigid {
    /// Rotation.
    pub r: Matrix3<f64>,
    /// Translation.
    pub t: V3,
}

impl Rigid {
    /// Apply to a point.
    pub fn apply(&self, p: &P3) -> P3 {
        P3::from(self.r * p.coords + self.t)
    }
}

/// SplitMix64: a tiny, well-mixed 64-bit generator (Steele et al. 2014).
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `count` random poses of a `joints`-joint skeleton from `seed`: each joint rotated by an angle
/// uniform in [0, `max_degrees`] about an axis uniform on the unit sphere.
pub fn random_poses(joints: usize, count: usize, seed: u64, max_degrees: f64) -> Vec<Pose> {
    let mut rng = SplitMix64::new(seed);
    (0..count)
        .map(|_| Pose {
            rotations: (0..joints)
                .map(|_| {
                    let z = 2.0 * rng.next_f64() - 1.0;
                    let phi = std::f64::consts::TAU * rng.next_f64();
                    let s = (1.0 - z * z).max(0.0).sqrt();
                    let axis = Unit::new_normalize(V3::new(s * phi.cos(), s * phi.sin(), z));
                    let angle = rng.next_f64() * max_degrees.to_radians();
                    *Rotation3::from_axis_angle(&axis, angle).matrix()
                })
                .collect(),
        })
        .collect()
}

/// Joint indices ordered so that every parent comes before its children. Errors on an
/// out-of-range parent or a cycle.
pub fn topo_order(parents: &[Option<usize>]) -> Result<Vec<usize>, MeasureError> {
    let n = parents.len();
    let mut children = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (j, p) in parents.iter().enumerate() {
        match p {
            None => roots.push(j),
            Some(p) if *p < n && *p != j => children[*p].push(j),
            Some(p) => {
                return Err(MeasureError::Hierarchy(format!(
                    "joint {j} has invalid parent {p} ({n} joints)"
                )))
            }
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut stack = roots;
    while let Some(j) = stack.pop() {
        order.push(j);
        stack.extend(children[j].iter().rev().copied());
    }
    if order.len() != n {
        return Err(MeasureError::Hierarchy(format!(
            "{} of {n} joints are on a parent cycle",
            n - order.len()
        )));
    }
    Ok(order)
}

/// Global transform of every joint under `pose` (forward kinematics; module docs). `bind`: bind
/// positions, mesh frame. Joints beyond `pose.rotations` keep the identity rotation.
pub fn forward_kinematics(
    bind: &[P3],
    parents: &[Option<usize>],
    pose: &Pose,
) -> Result<Vec<Rigid>, MeasureError> {
    let order = topo_order(parents)?;
    let identity = Rigid {
        r: Matrix3::identity(),
        t: V3::zeros(),
    };
    let mut global = vec![identity; bind.len().min(parents.len())];
    for j in order {
        let (Some(b), Some(p)) = (bind.get(j), parents.get(j)) else {
            continue;
        };
        let r = pose
            .rotations
            .get(j)
            .copied()
            .unwrap_or_else(Matrix3::identity);
        let local = Rigid {
            r,
            t: b.coords - r * b.coords,
        };
        let parent = p.and_then(|p| global.get(p).copied()).unwrap_or(identity);
        global[j] = Rigid {
            r: parent.r * local.r,
            t: parent.r * local.t + parent.t,
        };
    }
    Ok(global)
}

/// Linear blend skinning: `weights[v]` lists `(joint, weight)` for vertex `v` (joints out of range
/// are ignored). Returns one posed point per vertex of `positions`.
pub fn blend(positions: &[P3], weights: &[Vec<(usize, f64)>], transforms: &[Rigid]) -> Vec<P3> {
    positions
        .iter()
        .enumerate()
        .map(|(v, p)| {
            let mut acc = V3::zeros();
            for (j, w) in weights.get(v).map(Vec::as_slice).unwrap_or(&[]) {
                if let Some(g) = transforms.get(*j) {
                    acc += g.apply(p).coords * *w;
                }
            }
            P3::from(acc)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poses_are_seeded_and_bounded() {
        let a = random_poses(5, 3, 7, 30.0);
        assert_eq!(a, random_poses(5, 3, 7, 30.0));
        assert_ne!(a, random_poses(5, 3, 8, 30.0));
        for r in a.iter().flat_map(|p| &p.rotations) {
            let rot = Rotation3::from_matrix_unchecked(*r);
            assert!(rot.angle() <= 30f64.to_radians() + 1e-12);
            assert!((r.determinant() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn fk_rotates_child_about_parent() {
        // Chain 0 (origin) → 1 at (1,0,0); rotate joint 0 by 90° about Z: joint 1's bind point
        // goes to (0,1,0), and a vertex bound to 1 at (2,0,0) goes to (0,2,0).
        let bind = [P3::origin(), P3::new(1.0, 0.0, 0.0)];
        let parents = [None, Some(0)];
        let rz = *Rotation3::from_axis_angle(&V3::z_axis(), std::f64::consts::FRAC_PI_2).matrix();
        let pose = Pose {
            rotations: vec![rz, Matrix3::identity()],
        };
        let g = forward_kinematics(&bind, &parents, &pose).unwrap_or_default();
        let moved = blend(&[P3::new(2.0, 0.0, 0.0)], &[vec![(1, 1.0)]], &g);
        assert!((moved[0] - P3::new(0.0, 2.0, 0.0)).norm() < 1e-12);
        assert!((g[1].apply(&bind[1]) - P3::new(0.0, 1.0, 0.0)).norm() < 1e-12);
    }

    #[test]
    fn cycles_are_errors() {
        assert!(topo_order(&[Some(1), Some(0)]).is_err());
        assert!(topo_order(&[None, Some(5)]).is_err());
        assert_eq!(
            topo_order(&[None, Some(0), Some(1)]).ok(),
            Some(vec![0, 1, 2])
        );
    }
}
