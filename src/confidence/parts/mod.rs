//! Parts of the shape that hold no joint (issue: wrong rigs reported as ok): a chain that stops at
//! the shoulder leaves the arm without joints; a head chain that ends in the neck leaves a big head
//! empty. The check compares the volume the bones reach with the shape's parts, on the sphere graph
//! the embedding searched (normalized frame; every tolerance is relative to the model's own
//! thicknesses or to the chain's own length):
//!
//! 1. a sphere is **reached** when some bone passes through it (within [`REACH`] of its radius of
//!    its centre), or when the discrete embedding's graph path between two joints runs through it;
//! 2. connected groups of unreached spheres are the empty parts; a part counts only when it is thick
//!    like a limb or a head: its thickest sphere at least [`PART_THICKNESS`] of the thickest reached
//!    sphere (ears, fingers, hair strands and fins are thinner);
//! 3. the part must hang off the end of a leaf chain (the bone nearest to where it attaches belongs
//!    to that chain) and continue it: from the chain's end joint, its far end lies within ~60° of the
//!    template's direction for that chain ([`CONTINUE_COS`]);
//! 4. the chain **stopped short** when the part beyond its end is more than [`EMPTY_SHARE`] of the
//!    limb the shape has there (the chain's embedded length plus the part).
//! 5. a mirrored limb chain (an arm, a leg) **went elsewhere** when a thick part hangs off it
//!    anywhere along its length, lies on its side of the body (at least as far from the midplane as
//!    the chain's first joint: a limb, not a tail or a skirt), and more than [`EMPTY_SHARE`] of the
//!    route from the chain's start through the attachment to the part's far end holds no bone, and
//!    the part is at least [`LIMB_SHARE`] of the limb the template expects there (the part hangs
//!    off where it is thickest: a limb's root, not a hand resting on a thigh) and leads on within
//!    90° of the chain's template direction ([`SIDE_CONTINUE_COS`]). This is steps 3–4 with a
//!    looser direction test, measured from where the part hangs rather than from the chain's end:
//!    an arm chain that ran up into a big ear, or ended in a shoulder pad, leaves the arm held down
//!    beside the body empty, and that arm is not within 60° of the chain's direction seen from the
//!    ear or the pad.
//!
//! Extra parts no template chain continues (a tail on a human, a held prop, a dress, hair) are not
//! judged here, nor is a chain that covers most of a longer-than-template limb (a camel's neck).
//! Chains holding a user's pin are the user's call and are not judged.

mod geometry;
mod judge;

use crate::discretize::SphereGraph;
use crate::embed::Orientation;
use crate::geom::{JointId, NodeId, P3, V3};
use crate::skeleton::Skeleton;
use geometry::{bones, distance_to_reached, reached_spheres, unreached_groups};
use judge::{leaf_chains, Scene};

/// A sphere is reached when a bone passes within this fraction of its radius of its centre: the bone
/// runs through the sphere, not past it.
pub const REACH: f64 = 1.0;
/// A substantial part is at least this fraction as thick as the thickest sphere the skeleton's
/// bones pass through (a limb is about a third of a torso; ears, fingers and fins are thinner).
pub const PART_THICKNESS: f64 = 0.3;
/// A part continues a chain when its far end is within ~60° (cos 0.5) of the template's direction
/// of that chain, seen from the chain's end: a limb goes on the way its chain was heading, while a
/// tail, a prop or a skirt hanging off a leg or a hand points elsewhere.
pub const CONTINUE_COS: f64 = 0.5;
/// A chain stopped short when more than this share of the limb (its embedded length plus the empty
/// part beyond it) holds no bone: then most of the limb cannot be posed.
pub const EMPTY_SHARE: f64 = 0.5;
/// A part hanging off the side of a mirrored chain (step 5) must lead on within 90° (cos 0) of the
/// template's direction for the chain, from where it hangs: an arm held down beside the body still
/// heads down and out like the template's A-pose arm, while a prop held at the side and resting on
/// a thigh reaches back up against the leg's direction.
pub const SIDE_CONTINUE_COS: f64 = 0.0;
/// A part hanging off the side of a mirrored chain (step 5) counts only when it is at least this
/// fraction of the limb the template expects there (the chain's template length scaled to the
/// embedding): a hanging arm, not a shoulder pad, a pouch or a bump.
pub const LIMB_SHARE: f64 = 0.5;

/// One part of the shape that no bone reaches.
#[derive(Clone, Debug, PartialEq)]
pub struct EmptyPart {
    /// Where it points from the skeleton's root, in plain words ("upper left").
    pub direction: String,
    /// The end joint of the chain that stops short of it.
    pub chain: String,
    /// The share of the limb (the chain's embedded length plus the part beyond it) left empty.
    pub share: f64,
    /// The chain does not end at the part but passes it by (step 5 of the module docs): it ran
    /// into another part (an ear, a shoulder pad) and the limb hangs off its side.
    pub passed_by: bool,
}

impl EmptyPart {
    /// The plain-language reason.
    pub fn reason(&self) -> String {
        if self.passed_by {
            return format!(
                "the limb of the shape reaching to the {} holds no joint: the chain to {} runs into another part beside it ({:.0}% of that limb has no bone)",
                self.direction,
                self.chain,
                100.0 * self.share
            );
        }
        format!(
            "the part of the shape reaching to the {} holds no joint: the chain to {} stops short of it ({:.0}% of that limb has no bone)",
            self.direction,
            self.chain,
            100.0 * self.share
        )
    }
}

/// Plain words for a template-frame direction (+Y up, +Z front, the character's left at +X),
/// read after "reaching to the": "top", "lower back", "upper left (the character's left)". An
/// up or down alone is a noun ("top", not "upper", which read as a word missing), and a side
/// says whose it is: the viewer facing the character sees it on the other hand.
pub fn direction_words(d: &V3) -> String {
    let d = d.normalize();
    // A component counts when the direction leans at least ~35° toward that axis.
    const LEAN: f64 = 0.57;
    let word = |c: f64, pos: &'static str, neg: &'static str| {
        (c.abs() > LEAN).then_some(if c > 0.0 { pos } else { neg })
    };
    let (vertical, depth, side) = (
        word(d.y, "upper", "lower"),
        word(d.z, "front", "back"),
        word(d.x, "left", "right"),
    );
    let words: Vec<&str> = [vertical, depth, side].into_iter().flatten().collect();
    match (words.as_slice(), side) {
        ([], _) => "side".into(),
        (["upper"], _) => "top".into(),
        (["lower"], _) => "bottom".into(),
        (_, Some(s)) => format!("{} (the character's {s})", words.join(" ")),
        (_, None) => words.join(" "),
    }
}
/// Which spheres of `graph` the embedded skeleton `q` (normalized frame; `discrete`: the graph
/// vertex of each reduced joint) reaches (module docs, step 1).
pub fn reached(graph: &SphereGraph, skel: &Skeleton, q: &[P3], discrete: &[NodeId]) -> Vec<bool> {
    if q.len() != skel.joints.len() {
        return vec![false; graph.len()];
    }
    reached_spheres(graph, skel, q, &bones(skel), discrete)
}
/// The parts of the shape that a leaf chain of the embedded skeleton `q` (normalized frame;
/// `discrete`: the graph vertex of each reduced joint) stopped short of (module docs).
pub fn empty_parts(
    graph: &SphereGraph,
    skel: &Skeleton,
    q: &[P3],
    discrete: &[NodeId],
    o: &Orientation,
    pinned: &[JointId],
) -> Vec<EmptyPart> {
    if graph.is_empty() || q.len() != skel.joints.len() {
        return Vec::new();
    }
    let segs = bones(skel);
    let reached = reached_spheres(graph, skel, q, &segs, discrete);
    let core = graph
        .spheres
        .iter()
        .zip(&reached)
        .filter(|(_, r)| **r)
        .map(|(s, _)| s.radius)
        .fold(0.0, f64::max);
    let scene = Scene {
        graph,
        q,
        segs,
        chains: leaf_chains(skel, q, pinned),
        dist: distance_to_reached(graph, &reached),
        o,
        root: skel
            .joints
            .iter()
            .position(|j| j.parent.is_none())
            .unwrap_or(0),
    };
    unreached_groups(graph, &reached)
        .iter()
        .filter(|group| {
            let thickness = group
                .iter()
                .map(|i| graph.spheres[*i].radius)
                .fold(0.0, f64::max);
            core > 0.0 && thickness >= PART_THICKNESS * core
        })
        .filter_map(|group| scene.judge(group))
        .collect()
}
