//! A four-legged rig with its head in the tail (issue 12, joints).
//!
//! Turning a quadruped round swaps its head and tail, and the limb cost of the search (Baran &
//! Popović 2007 §4) does not always tell the two facings apart: the corpus fox turned to face −X
//! costs 0.195 embedded head-in-tail against 0.233 the right way (its bushy tail passes for a
//! head), and the corpus toy cow `spot` costs less head-in-tail in every turn about its up axis
//! (0.130–0.164 against 0.137–0.197). Both were `ok`.
//!
//! The cue is the body's silhouette, not the embedding: a standing four-legged animal holds its
//! head at or above its back, while a tail hangs, runs level or ends low. The measure
//! ([`tail_rise`]): along the embedding's forward direction, the highest point of the mesh in the
//! rear fifth of its length, minus the highest point in the front fifth, as a fraction of the
//! mesh's height (up direction). It uses only ratios of the model's own extents, so it is the same
//! for a model scaled, stretched or squashed along any axis and for any turn about the up axis.
//!
//! Measured on the right facings (bench/results.md, "Quadruped head and tail"): from −0.74
//! (frankie, a flying squirrel sitting up) to +0.067 (the held-out panda, whose rump stands as
//! high as its head) and +0.036 (the turtle, whose head hangs below its shell). Turned round the
//! measure changes sign exactly, so the head-in-tail rigs measure +0.07 to +0.74; those above
//! [`TAIL_RISE`] (fox 0.52, spot 0.41, monster 0.62, the RigNet cat 0.38, the horses 0.27) are
//! `low_confidence`. Lower ones (camel 0.19, sheep 0.14, cow 0.12, koala 0.10, triceratops 0.08)
//! are not told: the cue does not flip a rig, because on two right facings (panda, turtle) it
//! points, weakly, the wrong way.

use crate::embed::{Embedding, Orientation};
use crate::geom::{P3, V3};
use crate::skeleton::Skeleton;

/// The part of the model's length (along the facing) at each end that is measured: a fifth. A
/// tenth misses the head of a tailless fox (its snout, lower than the ears, is all of the front
/// tenth: −0.03, against +0.18 with a fifth).
pub const END_FRACTION: f64 = 0.2;

/// The rear fifth's top must stand this far above the front fifth's (a fraction of the model's
/// height) to say the head is in the tail: three times the worst right facing measured (the
/// panda, 0.067), and below every head-in-tail rig the limb cost let through (fox 0.52, spot 0.41).
pub const TAIL_RISE: f64 = 0.2;

/// A template with at least this many feet stands on all fours and has a head end and a tail end
/// along its facing (the quadruped, the horse); the human's head is above its feet.
pub const FOUR_FEET: usize = 4;

/// How far the top of the rear [`END_FRACTION`] of `positions` along `o`'s forward direction
/// stands above the top of the front one, divided by the height along `o`'s up direction;
/// `None` for a model with no length or height.
pub fn tail_rise(positions: &[P3], o: &Orientation) -> Option<f64> {
    let (up, fwd) = (o.unapply(&V3::y()), o.unapply(&V3::z()));
    let along = |p: &P3| p.coords.dot(&fwd);
    let height = |p: &P3| p.coords.dot(&up);
    let (lo, hi) = extent(positions.iter().map(along))?;
    let (bottom, top) = extent(positions.iter().map(height))?;
    let (length, tall) = (hi - lo, top - bottom);
    if length <= 0.0 || tall <= 0.0 {
        return None;
    }
    let top_where = |keep: &dyn Fn(f64) -> bool| {
        positions
            .iter()
            .filter(|p| keep(along(p)))
            .map(height)
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let front = top_where(&|s| s >= hi - END_FRACTION * length);
    let rear = top_where(&|s| s <= lo + END_FRACTION * length);
    Some((rear - front) / tall)
}

/// Smallest and largest of `values`, `None` when empty.
fn extent(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// The reason when a four-footed template's rig probably has its head in the tail (module docs),
/// or `None`. Not judged for other templates, nor when the user pinned a joint (a pin says where
/// the joints go).
pub fn head_in_tail(positions: &[P3], skel: &Skeleton, emb: &Embedding) -> Option<String> {
    if skel.joints.iter().filter(|j| j.foot).count() < FOUR_FEET || !emb.pinned.is_empty() {
        return None;
    }
    let rise = tail_rise(positions, &emb.orientation)?;
    (rise > TAIL_RISE).then(|| {
        format!(
            "head and tail may be swapped: the rear end of the model (where the rig puts the \
             tail) rises {:.0}% of the model's height above its front end (where the rig puts \
             the head), and a four-legged animal usually holds its head above its tail, so the \
             character probably faces the other way ({} rather than {}; pick --orientation to \
             say which)",
            100.0 * rise,
            super::feet::turned(&emb.orientation).label(),
            emb.orientation.label()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A box-shaped animal facing +Z: body, four legs, a head raised at the front, a tail hanging
    /// low at the back (vertices of axis-aligned boxes are enough: the measure reads only extents).
    fn animal() -> Vec<P3> {
        let mut v = Vec::new();
        let mut cuboid = |lo: [f64; 3], hi: [f64; 3]| {
            for i in 0..8 {
                let pick = |k: usize| if i >> k & 1 == 0 { lo[k] } else { hi[k] };
                v.push(P3::new(pick(0), pick(1), pick(2)));
            }
        };
        cuboid([-0.2, 0.5, -0.6], [0.2, 0.9, 0.6]); // body
        for (x, z) in [(-0.15, -0.5), (0.15, -0.5), (-0.15, 0.5), (0.15, 0.5)] {
            cuboid([x - 0.05, 0.0, z - 0.05], [x + 0.05, 0.5, z + 0.05]); // legs
        }
        cuboid([-0.1, 0.8, 0.6], [0.1, 1.3, 0.9]); // neck and head
        cuboid([-0.03, 0.3, -1.0], [0.03, 0.6, -0.6]); // tail
        v
    }

    #[test]
    fn the_rear_of_a_standing_animal_is_below_its_head() {
        let v = animal();
        let facing = Orientation::parse("+y,+z").unwrap();
        let right = tail_rise(&v, &facing).unwrap();
        let turned = tail_rise(&v, &super::super::feet::turned(&facing)).unwrap();
        assert!(right < -TAIL_RISE, "{right}");
        assert!(turned > TAIL_RISE, "{turned}");
        assert!((right + turned).abs() < 1e-12, "a half turn flips the sign");
    }

    #[test]
    fn the_measure_is_the_same_stretched_and_turned() {
        let v = animal();
        let o = Orientation::parse("+y,+z").unwrap();
        let base = tail_rise(&v, &o).unwrap();
        let long: Vec<P3> = v
            .iter()
            .map(|p| P3::new(p.x, 0.5 * p.y, 3.0 * p.z))
            .collect();
        assert!((tail_rise(&long, &o).unwrap() - base).abs() < 1e-12);
        // Turned 90° about +Y so that it faces −X, and measured in that frame.
        let turned: Vec<P3> = v.iter().map(|p| P3::new(-p.z, p.y, p.x)).collect();
        let o = Orientation::parse("+y,-x").unwrap();
        assert!((tail_rise(&turned, &o).unwrap() - base).abs() < 1e-12);
    }
}
