//! Checks of the embedded skeleton against the shape's parts (normalized frame; every tolerance is
//! relative to the model or to the template's own proportions):
//!
//! * **plate limbs**: a limb chain that runs through a thin, flat plate (an ear, a wing, a fin) rather
//!   than a tube. At points along the chain, the cross-section across the chain's direction is probed
//!   with the distance field along several lines: a plate is [`PLATE_ASPECT`] times wider than thick
//!   *and* stays thin across its whole width (a limb pressed against the torso is wide in one
//!   direction too, but it gets deep where the torso begins);
//! * **feet not at the bottom**: in the template's up direction after orientation, the lowest foot must
//!   be within [`FOOT_BAND`] of the shape's height from its bottom, and no foot above the middle.
//!
//! * **coincident limbs**: two limbs that end in the same place ([`coincident_limbs`]).
//!
//! Chains holding a user's pin are the user's call and are not judged.

use crate::discretize::{Field, SphereGraph};
use crate::embed::reduced::{RJoint, Reduced};
use crate::embed::Orientation;
use crate::geom::{JointId, P3, V3};
use crate::skeleton::Skeleton;

/// A cross-section this many times wider than thick is a plate, not a tube. Limb cross-sections
/// (arms, legs, necks, tails) stay below ~2, a mitten hand or a foot below ~3.
pub const PLATE_ASPECT: f64 = 4.0;
/// Across a plate the depth stays within a factor 1 + this of the depth at the chain (an ellipsoidal
/// ear keeps within a factor 2 over ~85% of its width); a limb lying against the torso, or a head
/// between two ears, gets much deeper or thinner beside the chain.
pub const PLATE_DEPTH_GROWTH: f64 = 1.0;
/// The lowest foot must be within this fraction of the shape's height above its bottom (an ankle is
/// at ~4% of a standing human's height; a raised foot in a walk or a thick sole stays well below).
pub const FOOT_BAND: f64 = 0.15;
/// No foot may be above this fraction of the shape's height.
pub const FOOT_CEILING: f64 = 0.5;

/// A limb is called a plate limb only if more than this share of its chain (and more than its last
/// bone) is plate: low-poly paws and flat feet pass through short plate-like stretches.
pub const PLATE_SHARE: f64 = 0.25;
/// Samples along a chain for the plate test.
const PLATE_SAMPLES: usize = 24;
/// Directions probed across a chain (lines through the point, 180° / 8 apart).
const CROSS_LINES: usize = 8;
/// Smallest sphere-tracing step and longest probe, normalized units.
const MIN_STEP: f64 = 0.002;
const MAX_PROBE: f64 = 1.0;

/// Whether a reduced chain holds a pinned joint (its end included).
pub fn pinned_chain(r: &RJoint, pinned: &[JointId]) -> bool {
    r.chain.iter().skip(1).any(|j| pinned.contains(j))
}

/// Distance from `p` along unit `w` to where the shape ends (sphere tracing on the field).
fn exit(field: &dyn Field, p: &P3, w: &V3) -> f64 {
    let mut s = 0.0;
    while s < MAX_PROBE {
        let f = field.eval(&(p + w * s));
        if f > 0.0 {
            return s;
        }
        s += (-f).max(MIN_STEP);
    }
    MAX_PROBE
}

/// True if the shape across `d` at `p` is a plate (module docs): along the widest line across the
/// chain, the stretch around `p` whose depth stays within a factor [`PLATE_DEPTH_GROWTH`] of the depth
/// at `p` is at least [`PLATE_ASPECT`] times the thickness (the narrowest line).
fn is_plate(field: &dyn Field, p: &P3, d: &V3) -> bool {
    let depth = -field.eval(p);
    if depth <= 0.0 {
        return false;
    }
    let d = d.normalize();
    let helper = if d.x.abs() < 0.9 { V3::x() } else { V3::y() };
    let u = d.cross(&helper).normalize();
    let v = d.cross(&u);
    let mut lines: Vec<(f64, V3)> = (0..CROSS_LINES)
        .map(|k| {
            let a = std::f64::consts::PI * k as f64 / CROSS_LINES as f64;
            let w = u * a.cos() + v * a.sin();
            (exit(field, p, &w) + exit(field, p, &-w), w)
        })
        .collect();
    lines.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (thin, (wide, w)) = (lines[0].0, lines[CROSS_LINES - 1]);
    if thin <= 0.0 || wide < PLATE_ASPECT * thin {
        return false;
    }
    // The stretch of similar depth: a thick body part (a head between two ears, a torso beside an
    // arm) is not part of a plate, nor are the thinning rims.
    let similar = |s: f64| {
        let f = -field.eval(&(p + w * s));
        f > depth / (1.0 + PLATE_DEPTH_GROWTH) && f < depth * (1.0 + PLATE_DEPTH_GROWTH)
    };
    let step = (thin / 4.0).max(MIN_STEP);
    let run = |sign: f64| {
        let mut s = 0.0;
        while s < MAX_PROBE && similar(sign * (s + step)) {
            s += step;
        }
        s
    };
    run(1.0) + run(-1.0) >= PLATE_ASPECT * thin
}

/// Embedded polyline of a chain and its arc-length samples with their local directions.
fn chain_samples(r: &RJoint, q: &[P3], n: usize) -> Vec<(P3, V3)> {
    let pts: Vec<P3> = r.chain.iter().map(|j| q[j.0]).collect();
    let seg: Vec<f64> = pts.windows(2).map(|w| (w[1] - w[0]).norm()).collect();
    let total: f64 = seg.iter().sum();
    if total <= 1e-9 {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let mut s = total * (i as f64 + 0.5) / n as f64;
        for (k, l) in seg.iter().enumerate() {
            if s <= *l || k + 1 == seg.len() {
                if *l > 1e-12 {
                    let d = (pts[k + 1] - pts[k]) / *l;
                    out.push((pts[k] + d * s.min(*l), d));
                }
                break;
            }
            s -= l;
        }
    }
    out
}

/// Limb chains whose plate part is longer than their last bone (a hand, a foot, a head may be flat)
/// and than [`PLATE_SHARE`].
pub fn plate_limbs(
    field: &dyn Field,
    skel: &Skeleton,
    red: &Reduced,
    q: &[P3],
    pinned: &[JointId],
) -> Vec<String> {
    let mut names = Vec::new();
    for r in red
        .joints
        .iter()
        .filter(|r| r.leaf && !pinned_chain(r, pinned))
    {
        let samples = chain_samples(r, q, PLATE_SAMPLES);
        if samples.is_empty() {
            continue;
        }
        let plate = samples
            .iter()
            .filter(|(p, d)| is_plate(field, p, d))
            .count();
        let share = plate as f64 / samples.len() as f64;
        let last = r.fractions.len().saturating_sub(2);
        let last_bone = 1.0 - r.fractions.get(last).copied().unwrap_or(0.0);
        if share > last_bone.max(PLATE_SHARE) {
            names.push(skel.joints[r.full.0].name.clone());
        }
    }
    names
}

/// Feet that are not at the bottom: `(reason)` if the lowest foot is above [`FOOT_BAND`] or any
/// foot above [`FOOT_CEILING`] of the height, in the template's up direction.
pub fn feet_off_ground(
    graph: &SphereGraph,
    skel: &Skeleton,
    q: &[P3],
    o: &Orientation,
    pinned: &[JointId],
) -> Option<String> {
    let half = V3::new(0.5, 0.5, 0.5);
    let up = |p: &P3| o.apply(&(p.coords - half)).y;
    let lo = graph
        .spheres
        .iter()
        .map(|s| up(&s.center) - s.radius)
        .fold(f64::INFINITY, f64::min);
    let hi = graph
        .spheres
        .iter()
        .map(|s| up(&s.center) + s.radius)
        .fold(f64::NEG_INFINITY, f64::max);
    let height = hi - lo;
    if height.is_nan() || height <= 0.0 {
        return None;
    }
    let feet: Vec<(&str, f64)> = skel
        .joints
        .iter()
        .enumerate()
        .filter(|(i, j)| j.foot && !pinned.contains(&JointId(*i)))
        .map(|(i, j)| (j.name.as_str(), (up(&q[i]) - lo) / height))
        .collect();
    let lowest = feet.iter().map(|f| f.1).fold(f64::INFINITY, f64::min);
    let high: Vec<&str> = feet
        .iter()
        .filter(|f| f.1 > FOOT_CEILING)
        .map(|f| f.0)
        .collect();
    if lowest.is_finite() && lowest > FOOT_BAND {
        Some(format!(
            "the feet are not at the bottom of the shape (the lowest is {:.0}% of its height up)",
            100.0 * lowest
        ))
    } else if !high.is_empty() {
        Some(format!(
            "{} not at the bottom of the shape (above its middle)",
            high.join(", ")
        ))
    } else {
        None
    }
}

/// Pairs of limbs (leaf chains, optional ones left out) that end in the same place: each one's
/// distal point (70 % along its chain) lies inside the largest ball around the other's (radius:
/// the distance to the surface there). The shape then has one limb where the template needs two —
/// the two legs of a blocky figure whose leg boxes touch, embedded down one column — and the rig
/// cannot bend them apart. No tolerance: two separate limbs, however close, are at least one limb's
/// thickness apart (two radii), so neither end is inside the other's ball. Returns the limbs' names.
pub fn coincident_limbs(
    field: &dyn Field,
    skel: &Skeleton,
    red: &Reduced,
    q: &[P3],
    pinned: &[JointId],
) -> Vec<(String, String)> {
    let limbs: Vec<(&RJoint, P3, f64)> = red
        .joints
        .iter()
        .filter(|r| r.leaf && !super::optional(skel, r) && !pinned_chain(r, pinned))
        .map(|r| {
            let p = super::distal_point(r, q);
            (r, p, -field.eval(&p))
        })
        .collect();
    let name = |r: &RJoint| skel.joints[r.full.0].name.clone();
    let mut out = Vec::new();
    for (i, (ra, pa, da)) in limbs.iter().enumerate() {
        for (rb, pb, db) in &limbs[i + 1..] {
            if (pa - pb).norm() < da.min(*db) {
                out.push((name(ra), name(rb)));
            }
        }
    }
    out
}
