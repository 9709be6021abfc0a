//! Confidence: never report nonsense as success. The original "rigs" a tetrahedron and an armless
//! torso with a human skeleton (docs/algorithms.md#confidence); here such results are `low_confidence` with
//! plain-language reasons. Every check works in the normalized frame (tolerances relative to size):
//!
//! * the search hit its budget, or no placement passed the penalty cutoff (a forced fit);
//! * the discrete penalty is high (the original's residual on an armless torso was 0.279);
//! * joints or bone midpoints outside the surface;
//! * a limb chain embedded with almost no length, or chains far from the template's proportions;
//! * strong left/right asymmetry between mirrored limbs;
//! * limbs that are not separate from the rest of the body (a convex blob: tetrahedron, sphere, box):
//!   for at least half of the limbs (and two), the straight segment from the limb's distal part to
//!   every other limb's stays inside the volume;
//! * bones whose graph path jumps between separate parts of the mesh;
//! * too few interior spheres for the skeleton;
//! * limbs in thin plates, feet off the ground ([`shape`]);
//! * a limb or head of the shape that holds no joint because its chain stopped short ([`parts`]);
//! * a figure built from boxes whose rig leaves a box as large as a posed one without a bone
//!   ([`pieces`], judged on the final rig by [`crate::pipeline`]);
//! * a biped's feet pointing backwards: the character embedded facing the wrong way ([`feet`]);
//! * a four-legged rig whose tail end stands higher than its head end: head and tail swapped
//!   ([`ends`], judged on the chosen fit by [`crate::pipeline`]).
//!
//! The user's pins are evidence: a chain holding a pinned joint is not judged for its length, its
//! symmetry with its mirror, for standing apart from the body, or by the shape checks.

pub mod articulation;
pub mod ends;
pub mod feet;
pub mod parts;
pub mod pieces;
pub mod shape;

use crate::discretize::Discretization;
use crate::discretize::Field;
use crate::embed::reduced::Reduced;
use crate::embed::Embedding;
use crate::geom::{JointId, P3};
use crate::mesh::PreparedMesh;
use crate::rig::Status;
use crate::skeleton::Skeleton;

/// Joints or bone midpoints further outside than this (normalized units, ~1.1% of the size) count
/// as outside the surface.
pub const OUTSIDE_TOLERANCE: f64 = 0.01;
/// Discrete penalty above which the fit is called poor.
pub const MAX_PENALTY: f64 = 0.25;
/// A limb chain shorter than this fraction of its expected length is "collapsed".
pub const COLLAPSED_RATIO: f64 = 0.35;
/// A chain longer/shorter than this factor of its expected length is "far from the template".
pub const PROPORTION_FACTOR: f64 = 3.0;
/// Mirrored limbs whose lengths differ by more than this factor are "asymmetric".
pub const ASYMMETRY_FACTOR: f64 = 1.6;

/// Status plus the reasons behind it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Confidence {
    /// `Ok` or `LowConfidence`.
    pub status: Status,
    /// Plain-language reasons (empty when `Ok`).
    pub reasons: Vec<String>,
}

impl Confidence {
    /// Mark the fit `LowConfidence` for `reason` (a check run after [`assess`]).
    pub fn lower(&mut self, reason: String) {
        self.status = Status::LowConfidence;
        self.reasons.push(reason);
    }
}

/// Judge an embedding: limb chains with almost no length, joints outside the surface, proportions far
/// from the template, search budget hit, ….
pub fn assess(
    mesh: &PreparedMesh,
    disc: &Discretization,
    skeleton: &Skeleton,
    emb: &Embedding,
) -> Confidence {
    let mut conf = assess_with(&disc.field, disc.graph.len(), skeleton, emb);
    if emb.joints.len() == skeleton.joints.len() {
        conf.reasons
            .extend(shape_reasons(&disc.field, &disc.graph, skeleton, emb));
        conf.reasons
            .extend(feet::backwards(&mesh.positions, skeleton, emb));
        for name in feet::toeless(skeleton, emb) {
            conf.reasons.push(format!(
                "the chain to {name} does not reach forward of its ankle: the foot holds no toe \
                 joint (the sole is probably too thin for the joint search to enter it)"
            ));
        }
    }
    finish(conf.reasons)
}

/// The [`shape`] checks, as plain reasons.
pub fn shape_reasons(
    field: &dyn Field,
    graph: &crate::discretize::SphereGraph,
    skel: &Skeleton,
    emb: &Embedding,
) -> Vec<String> {
    let red = Reduced::new(skel);
    let q = &emb.joints;
    let mut reasons = Vec::new();
    for name in shape::plate_limbs(field, skel, &red, q, &emb.pinned) {
        reasons.push(format!(
            "the limb ending at {name} runs through a thin, flat plate (an ear, a wing, a fin?) rather than a limb"
        ));
    }
    reasons.extend(shape::feet_off_ground(
        graph,
        skel,
        q,
        &emb.orientation,
        &emb.pinned,
    ));
    reasons.extend(
        parts::empty_parts(graph, skel, q, &emb.discrete, &emb.orientation, &emb.pinned)
            .iter()
            .map(parts::EmptyPart::reason),
    );
    reasons
}

/// [`assess`] on explicit inputs: the field and the number of graph spheres.
pub fn assess_with(
    field: &dyn Field,
    spheres: usize,
    skel: &Skeleton,
    emb: &Embedding,
) -> Confidence {
    let mut reasons = Vec::new();
    let q = &emb.joints;
    if q.len() != skel.joints.len() {
        reasons.push("the embedding does not match the skeleton".to_string());
        return finish(reasons);
    }
    let red = Reduced::new(skel);
    if emb.budget_hit {
        reasons.push("the joint search hit its budget; a better fit may exist".into());
    }
    if emb.forced {
        reasons.push(
            "no placement of the skeleton passed the shape tests; this is a forced fit".into(),
        );
    } else if emb.penalty.total > MAX_PENALTY {
        reasons.push(format!(
            "the skeleton fits the shape poorly (penalty {:.3}, good fits are below {MAX_PENALTY})",
            emb.penalty.total
        ));
    }
    if spheres < 2 * red.len() {
        reasons.push(format!(
            "too little interior detail for the skeleton ({spheres} spheres for {} key joints)",
            red.len()
        ));
    }
    let pinned = &emb.pinned;
    outside(field, skel, q, pinned, &mut reasons);
    proportions(skel, &red, q, pinned, &mut reasons);
    merged_limbs(field, skel, &red, q, pinned, &mut reasons);
    for (a, b) in shape::coincident_limbs(field, skel, &red, q, pinned) {
        reasons.push(format!(
            "{a} and {b} end in the same place: the shape has one limb there where the skeleton \
             needs two, so the rig cannot bend them apart"
        ));
    }
    for j in &emb.bridged {
        reasons.push(format!(
            "the bones leading to {} cross between separate parts of the mesh",
            skel.joints[j.0].name
        ));
    }
    finish(reasons)
}

fn finish(reasons: Vec<String>) -> Confidence {
    Confidence {
        status: if reasons.is_empty() {
            Status::Ok
        } else {
            Status::LowConfidence
        },
        reasons,
    }
}

fn outside(
    field: &dyn Field,
    skel: &Skeleton,
    q: &[P3],
    pinned: &[JointId],
    reasons: &mut Vec<String>,
) {
    let mut names = Vec::new();
    for (i, j) in skel.joints.iter().enumerate() {
        let mid = j
            .parent
            .map(|p| P3::from((q[i].coords + q[p.0].coords) * 0.5));
        // A pinned joint is where the user put it.
        let joint_out =
            !j.end && !pinned.contains(&JointId(i)) && field.eval(&q[i]) > OUTSIDE_TOLERANCE;
        let bone_out = mid.is_some_and(|m| field.eval(&m) > OUTSIDE_TOLERANCE);
        if joint_out || bone_out {
            names.push(j.name.as_str());
        }
    }
    if !names.is_empty() {
        reasons.push(format!(
            "{} outside the surface: {}",
            crate::util::count(names.len(), "joint or bone lies", "joints or bones lie"),
            names.join(", ")
        ));
    }
}

/// Embedded length of each reduced chain (sum over its full bones).
pub(crate) fn chain_lengths(red: &Reduced, q: &[P3]) -> Vec<f64> {
    red.joints
        .iter()
        .map(|rj| {
            rj.chain
                .windows(2)
                .map(|w| (q[w[1].0] - q[w[0].0]).norm())
                .sum()
        })
        .collect()
}

fn proportions(
    skel: &Skeleton,
    red: &Reduced,
    q: &[P3],
    pinned: &[JointId],
    reasons: &mut Vec<String>,
) {
    let got = chain_lengths(red, q);
    let want: Vec<f64> = red.joints.iter().map(|r| r.chain_len).collect();
    let core = |k: &usize| !optional(skel, &red.joints[*k]);
    let sg: f64 = (0..red.len()).filter(core).map(|k| got[k]).sum();
    let sw: f64 = (0..red.len()).filter(core).map(|k| want[k]).sum();
    if sw <= 0.0 {
        return;
    }
    if sg <= 1e-9 {
        reasons.push("the whole skeleton collapsed to a point".into());
        return;
    }
    // Compare shapes, not sizes: scale the template to the embedding's total length.
    let fit = sg / sw;
    let name = |k: usize| skel.joints[red.joints[k].full.0].name.as_str();
    for k in 1..red.len() {
        if optional(skel, &red.joints[k]) {
            continue;
        }
        let ratio = got[k] / (want[k] * fit).max(1e-12);
        // A pinned chain's length is what the pins imply: not a defect.
        let pins = |i: usize| shape::pinned_chain(&red.joints[i], pinned);
        if pins(k) {
            continue;
        }
        if red.joints[k].leaf && ratio < COLLAPSED_RATIO {
            reasons.push(format!(
                "the limb ending at {} is almost collapsed ({:.0}% of its expected length)",
                name(k),
                100.0 * ratio
            ));
        } else if !(1.0 / PROPORTION_FACTOR..=PROPORTION_FACTOR).contains(&ratio) {
            reasons.push(format!(
                "proportions far from the template: the chain to {} is {:.1}x its expected length",
                name(k),
                ratio
            ));
        }
        if let Some(s) = red.joints[k].sym.filter(|s| !pins(*s)) {
            let (a, b) = (got[k], got[s]);
            if a.min(b) <= 0.0 || a.max(b) / a.min(b) > ASYMMETRY_FACTOR {
                reasons.push(format!(
                    "strong left/right asymmetry: {} and {} chains differ {:.1}x in length",
                    name(s),
                    name(k),
                    a.max(b) / a.min(b).max(1e-12)
                ));
            }
        }
    }
}

/// A limb is merged if the segment from its distal part to every other limb's distal part stays
/// inside: the limbs do not stick out of one blob.
fn merged_limbs(
    field: &dyn Field,
    skel: &Skeleton,
    red: &Reduced,
    q: &[P3],
    pinned: &[JointId],
    reasons: &mut Vec<String>,
) {
    let limbs: Vec<(usize, P3)> = red
        .joints
        .iter()
        .enumerate()
        .filter(|(_, r)| r.leaf && !optional(skel, r))
        .map(|(k, r)| (k, distal_point(r, q)))
        .collect();
    if limbs.len() < 2 {
        return;
    }
    let leaves = |a: &P3, b: &P3| {
        (0..=40).any(|s| field.eval(&P3::from(a.coords + (b - a) * (f64::from(s) / 40.0))) > 0.0)
    };
    // A pinned limb is one the user says is there.
    let merged: Vec<&str> = limbs
        .iter()
        .filter(|(k, _)| !shape::pinned_chain(&red.joints[*k], pinned))
        .filter(|(k, p)| !limbs.iter().any(|(o, po)| o != k && leaves(p, po)))
        .map(|(k, _)| skel.joints[red.joints[*k].full.0].name.as_str())
        .collect();
    // One merged limb happens on real characters (a head on a thick neck); half of them does not.
    if merged.len() >= 2 && 2 * merged.len() >= limbs.len() {
        reasons.push(format!(
            "the shape has no separate limbs for {} (the body looks like one solid blob)",
            merged.join(", ")
        ));
    }
}

/// A chain through an optional joint (a tail) may be absent from the shape.
pub(crate) fn optional(skel: &Skeleton, r: &crate::embed::reduced::RJoint) -> bool {
    r.chain.iter().skip(1).any(|j| skel.joints[j.0].optional)
}

/// The point 70% of the way along a chain's embedded polyline.
fn distal_point(r: &crate::embed::reduced::RJoint, q: &[P3]) -> P3 {
    let pts: Vec<P3> = r.chain.iter().map(|j| q[j.0]).collect();
    let total: f64 = pts.windows(2).map(|w| (w[1] - w[0]).norm()).sum();
    let mut left = 0.7 * total;
    for w in pts.windows(2) {
        let l = (w[1] - w[0]).norm();
        if l >= left && l > 0.0 {
            return w[0] + (w[1] - w[0]) * (left / l);
        }
        left -= l;
    }
    pts.last().copied().unwrap_or_else(P3::origin)
}

/// The reason for a rig whose template is beaten by far by another (issue: wrong rigs reported as
/// ok): `other` fits with `other_per_chain` penalty per chain, the rig's template with `mine`. Two
/// templates disagreeing that much means the chosen fit cannot be trusted (e.g. a many-legged
/// vehicle that half-fits a human lying along its body).
pub fn template_fits_far_better(other: &str, other_per_chain: f64, mine: f64) -> String {
    format!(
        "the {other} template fits this shape far better (penalty {other_per_chain:.3} vs {mine:.3} per chain), so this skeleton may be the wrong kind"
    )
}
