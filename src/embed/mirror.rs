//! Mirror symmetry of the placed joints (docs/algorithms.md#mirror-symmetry). A character modelled
//! left–right symmetric (a T- or A-pose made with a mirror modifier, most game figures) has an
//! artist skeleton that is symmetric too, but the discrete embedding is not: the medial samples
//! and the sphere graph built from them are not mirror images of themselves (their grid follows
//! each octree leaf's faces, BP07 §3.1), so a left chain can start from a graph vertex a side chain
//! away from its mirror's and refinement (§3.5, whose Y term compares only bone *lengths*) keeps it
//! there. On such a shape the two placements of a mirrored pair are two estimates of one joint, so
//! they are averaged (one reflected), and the unpaired joints are put on the mirror plane.
//!
//! The shape is called symmetric when the distance field agrees with its own reflection at the
//! medial samples: the depth of nearly every interior sample is found again at its mirror point.
//! The mirror plane is the bounding box's mid-plane across the template's left–right axis (the
//! normalized frame centres the box at 0.5), which is where a symmetric shape's plane lies.

use crate::discretize::{Field, Sphere};
use crate::geom::P3;
use crate::skeleton::Skeleton;

use super::Orientation;

/// A medial sample agrees with its mirror when their depths differ by at most this (normalized
/// units, ~0.5 % of the model's largest side): field and samples are both approximations.
pub const DEPTH_TOLERANCE: f64 = 0.005;
/// The shape is symmetric when at least this share of the medial samples agrees with its mirror.
pub const AGREEING_SHARE: f64 = 0.95;
/// Centre of the normalized bounding box on every axis (`mesh::normalize`).
const MID: f64 = 0.5;

/// The template's left–right axis as a normalized-frame axis (template X under `o`).
pub fn lateral_axis(o: &Orientation) -> usize {
    usize::from(o.rows[0].0)
}

/// `p` reflected across the mid-plane perpendicular to `axis`.
pub fn reflect(p: &P3, axis: usize) -> P3 {
    let mut q = *p;
    q[axis] = 2.0 * MID - q[axis];
    q
}

/// Share of medial samples whose depth is found again at the mirror point across `axis`.
pub fn agreeing_share(field: &dyn Field, medial: &[Sphere], axis: usize) -> f64 {
    if medial.is_empty() {
        return 0.0;
    }
    let agree = medial
        .iter()
        .filter(|s| {
            let d = field.eval(&s.center) - field.eval(&reflect(&s.center, axis));
            d.abs() <= DEPTH_TOLERANCE
        })
        .count();
    agree as f64 / medial.len() as f64
}

/// Whether the shape is mirror-symmetric across `axis` (see the module notes).
pub fn is_symmetric(field: &dyn Field, medial: &[Sphere], axis: usize) -> bool {
    agreeing_share(field, medial, axis) >= AGREEING_SHARE
}

/// Make `joints` (full skeleton, normalized frame) mirror-symmetric across `axis`: each mirrored
/// pair becomes the mean of its two placements (one reflected), every other joint moves onto the
/// plane. Joints in `keep` (the user's pins) and their mirrors are left where they are, and so is a
/// joint whose symmetric place is further outside the surface than it and the surface itself (a
/// hip off the plane of a figure lying down would land between the legs): the embedding keeps
/// joints inside.
pub fn symmetrize(
    joints: &mut [P3],
    skel: &Skeleton,
    field: &dyn Field,
    axis: usize,
    keep: &[usize],
) {
    let kept = |i: usize| keep.contains(&i);
    let no_worse = |q: &P3, olds: &[P3]| {
        let bound = olds.iter().map(|p| field.eval(p)).fold(0.0, f64::max);
        field.eval(q) <= bound
    };
    for (i, j) in skel.joints.iter().enumerate() {
        if kept(i) || i >= joints.len() {
            continue;
        }
        match j.symmetric.map(|s| s.0) {
            Some(s) if s < joints.len() && !kept(s) => {
                if s < i {
                    continue; // the pair was done at its first joint
                }
                let mean = P3::from((joints[i].coords + reflect(&joints[s], axis).coords) / 2.0);
                let mirrored = reflect(&mean, axis);
                let olds = [joints[i], joints[s]];
                if no_worse(&mean, &olds) && no_worse(&mirrored, &olds) {
                    joints[s] = mirrored;
                    joints[i] = mean;
                }
            }
            Some(_) => {}
            None => {
                let mut q = joints[i];
                q[axis] = MID;
                if no_worse(&q, &[joints[i]]) {
                    joints[i] = q;
                }
            }
        }
    }
}
