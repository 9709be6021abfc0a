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
//!
//! Extra parts no template chain continues (a tail on a human, a held prop, a dress, hair) are not
//! judged here, nor is a chain that covers most of a longer-than-template limb (a camel's neck).
//! Chains holding a user's pin are the user's call and are not judged.

use super::shape::pinned_chain;
use crate::discretize::SphereGraph;
use crate::embed::reduced::Reduced;
use crate::embed::Orientation;
use crate::geom::{JointId, NodeId, P3, V3};
use crate::skeleton::Skeleton;

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

/// One part of the shape that no bone reaches.
#[derive(Clone, Debug, PartialEq)]
pub struct EmptyPart {
    /// Where it points from the skeleton's root, in plain words ("upper left").
    pub direction: String,
    /// The end joint of the chain that stops short of it.
    pub chain: String,
    /// The share of the limb (the chain's embedded length plus the part beyond it) left empty.
    pub share: f64,
}

impl EmptyPart {
    /// The plain-language reason.
    pub fn reason(&self) -> String {
        format!(
            "the part of the shape reaching to the {} holds no joint: the chain to {} stops short of it ({:.0}% of that limb has no bone)",
            self.direction,
            self.chain,
            100.0 * self.share
        )
    }
}

/// Distance from `p` to the segment `a`–`b`.
fn seg_dist(p: &P3, a: &P3, b: &P3) -> f64 {
    let ab = b - a;
    let t = ((p - a).dot(&ab) / ab.norm_squared().max(1e-300)).clamp(0.0, 1.0);
    (p - (a + ab * t)).norm()
}

/// Bones as segments `(parent, child)` of the embedded joints.
fn bones(skel: &Skeleton) -> Vec<(usize, usize)> {
    skel.joints
        .iter()
        .enumerate()
        .filter_map(|(i, j)| j.parent.map(|p| (p.0, i)))
        .collect()
}

/// Graph distance of every sphere to the nearest reached one (0 for reached spheres).
fn distance_to_reached(graph: &SphereGraph, reached: &[bool]) -> Vec<f64> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut dist: Vec<f64> = reached
        .iter()
        .map(|r| if *r { 0.0 } else { f64::INFINITY })
        .collect();
    // Keys are non-negative finite floats, so their bit patterns order like the values.
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> = (0..dist.len())
        .filter(|i| reached[*i])
        .map(|i| Reverse((0f64.to_bits(), i)))
        .collect();
    while let Some(Reverse((d, i))) = heap.pop() {
        let d = f64::from_bits(d);
        if d > dist[i] {
            continue;
        }
        for (n, w) in &graph.edges[i] {
            let nd = d + w;
            if nd < dist[n.0 as usize] {
                dist[n.0 as usize] = nd;
                heap.push(Reverse((nd.to_bits(), n.0 as usize)));
            }
        }
    }
    dist
}

/// Connected groups of unreached spheres (graph edges), each sorted.
fn unreached_groups(graph: &SphereGraph, reached: &[bool]) -> Vec<Vec<usize>> {
    let mut seen = reached.to_vec();
    let mut groups = Vec::new();
    for s in 0..graph.len() {
        if seen[s] {
            continue;
        }
        seen[s] = true;
        let (mut group, mut stack) = (Vec::new(), vec![s]);
        while let Some(i) = stack.pop() {
            group.push(i);
            for (n, _) in &graph.edges[i] {
                if !seen[n.0 as usize] {
                    seen[n.0 as usize] = true;
                    stack.push(n.0 as usize);
                }
            }
        }
        group.sort_unstable();
        groups.push(group);
    }
    groups
}

/// Plain words for a template-frame direction (+Y up, +Z front, the character's left at −X).
fn direction_words(d: &V3) -> String {
    let d = d.normalize();
    let mut words = Vec::new();
    // A component counts when the direction leans at least ~35° toward that axis.
    const LEAN: f64 = 0.57;
    for (c, pos, neg) in [
        (d.y, "upper", "lower"),
        (d.z, "front", "back"),
        (-d.x, "left", "right"),
    ] {
        if c > LEAN {
            words.push(pos);
        } else if c < -LEAN {
            words.push(neg);
        }
    }
    if words.is_empty() {
        words.push("side");
    }
    words.join(" ")
}

/// A leaf chain of the skeleton as the check sees it.
struct Chain {
    /// Name of the chain's end joint.
    end: String,
    /// Full joints along it, parent's joint first.
    joints: Vec<usize>,
    /// Embedded length.
    got: f64,
    /// Template direction from the chain's start to its end (template frame, unit).
    dir: V3,
}

fn leaf_chains(skel: &Skeleton, q: &[P3], pinned: &[JointId]) -> Vec<Chain> {
    let red = Reduced::new(skel);
    let got = super::chain_lengths(&red, q);
    let core = |k: &usize| !super::optional(skel, &red.joints[*k]);
    (0..red.len())
        .filter(|k| core(k) && red.joints[*k].leaf && !pinned_chain(&red.joints[*k], pinned))
        .filter_map(|k| {
            let r = &red.joints[k];
            let dir = r.rest - red.joints[r.parent?].rest;
            (dir.norm() > 0.0).then(|| Chain {
                end: skel.joints[r.full.0].name.clone(),
                joints: r.chain.iter().map(|j| j.0).collect(),
                got: got[k],
                dir: dir.normalize(),
            })
        })
        .collect()
}

/// Which spheres the skeleton reaches (module docs, step 1).
fn reached_spheres(
    graph: &SphereGraph,
    skel: &Skeleton,
    q: &[P3],
    segs: &[(usize, usize)],
    discrete: &[NodeId],
) -> Vec<bool> {
    let bone_dist = |p: &P3| {
        segs.iter()
            .map(|(a, b)| seg_dist(p, &q[*a], &q[*b]))
            .fold(f64::INFINITY, f64::min)
    };
    let mut reached: Vec<bool> = graph
        .spheres
        .iter()
        .map(|s| bone_dist(&s.center) <= REACH * s.radius)
        .collect();
    // The graph paths the discrete embedding chose are reached too: refined bones are straight and
    // cut the corners of a curved neck or tail whose spheres their chain did follow.
    let red = Reduced::new(skel);
    if discrete.len() == red.len() {
        for (k, r) in red.joints.iter().enumerate() {
            if let Some(p) = r.parent {
                for n in graph.path(discrete[p], discrete[k]) {
                    reached[n.0 as usize] = true;
                }
            }
        }
    }
    reached
}

/// What one empty part is judged against.
struct Scene<'a> {
    graph: &'a SphereGraph,
    q: &'a [P3],
    segs: Vec<(usize, usize)>,
    chains: Vec<Chain>,
    /// Graph distance to the nearest reached sphere.
    dist: Vec<f64>,
    o: &'a Orientation,
    root: usize,
}

impl Scene<'_> {
    /// Steps 3 and 4 of the module docs for one group of unreached spheres.
    fn judge(&self, group: &[usize]) -> Option<EmptyPart> {
        let (g, q, dist) = (self.graph, self.q, &self.dist);
        // The far end (graph distance out of the reached volume plus the sphere's radius) and the
        // sphere where the part hangs on the reached volume.
        let reach = |i: &usize| dist[*i] + g.spheres[*i].radius;
        let tip = *group.iter().max_by(|a, b| reach(a).total_cmp(&reach(b)))?;
        let base = *group
            .iter()
            .min_by(|a, b| dist[**a].total_cmp(&dist[**b]))?;
        let (bc, tc) = (g.spheres[base].center, g.spheres[tip].center);
        let bone = |x: &(usize, usize)| seg_dist(&bc, &q[x.0], &q[x.1]);
        let &(pa, ch) = self
            .segs
            .iter()
            .min_by(|x, y| bone(x).total_cmp(&bone(y)))?;
        let chain = self
            .chains
            .iter()
            .find(|c| c.joints[1..].contains(&ch) && c.joints.contains(&pa))?;
        let out = self.o.apply(&(tc - q[*chain.joints.last()?]));
        // How far the part reaches beyond the chain's end, straight (graph paths wind).
        let missing = out.norm() + g.spheres[tip].radius;
        let continues = out.norm() > 0.0 && out.normalize().dot(&chain.dir) >= CONTINUE_COS;
        let share = missing / (chain.got + missing);
        (continues && share > EMPTY_SHARE).then(|| EmptyPart {
            direction: direction_words(&self.o.apply(&(tc - q[self.root]))),
            chain: chain.end.clone(),
            share,
        })
    }
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
