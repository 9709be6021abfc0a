//! Poses for the deformation error, on the skin helper's implementation ([`crate::skin::pose`]),
//! so there is one forward-kinematics / linear-blend-skinning code path in the crate.
//!
//! Convention (see `crate::skin::pose`): every joint is rotated about its own **bind position**
//! (mesh frame); `G_j = G_parent(j) · T(b_j) · R_j · T(−b_j)`; LBS `v' = Σ_j w_j G_j(v)`, plus
//! `(1 − Σ_j w_j)·v` when the weights sum to less than 1 (so a vertex keeps its bind position for the
//! missing weight), and `v' = v` for an unweighted vertex.
//!
//! A set of `count` poses from one `seed` (pinned down here): a SplitMix64 stream seeded with `seed`
//! gives one 64-bit pose seed per pose, in order, and pose i is
//! `Pose::random(joints, pose_seed_i, max_degrees)` (each joint: axis uniform on the sphere, angle
//! uniform in [0, max_degrees]).

use super::MeasureError;
pub use crate::skin::pose::Pose;
use crate::skin::pose::SplitMix64;

/// `count` seeded random poses of a `joints`-joint skeleton (module docs).
pub fn random_poses(joints: usize, count: usize, seed: u64, max_degrees: f64) -> Vec<Pose> {
    let mut rng = SplitMix64::new(seed);
    (0..count)
        .map(|_| Pose::random(joints, rng.next_u64(), max_degrees))
        .collect()
}

/// Joint indices ordered so that every parent comes before its children. Errors on an
/// out-of-range parent or a cycle (the deformation error refuses such a hierarchy rather than
/// posing part of it arbitrarily).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poses_are_seeded_and_bounded() {
        let a = random_poses(5, 3, 7, 30.0);
        assert_eq!(a, random_poses(5, 3, 7, 30.0));
        assert_ne!(a, random_poses(5, 3, 8, 30.0));
        assert_ne!(a[0], a[1]);
        for r in a.iter().flat_map(|p| &p.rotations) {
            assert!(r.angle() <= 30f64.to_radians() + 1e-12);
        }
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
