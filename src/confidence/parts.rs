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
pub fn direction_words(d: &V3) -> String {
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
    /// The template's length of the chain, scaled like the embedding (total embedded over total
    /// template length of the core chains).
    want: f64,
    /// Template direction from the chain's start to its end (template frame, unit).
    dir: V3,
    /// Side of the body for a mirrored chain (template-frame sign of x, the character's left at
    /// −X); `None` for a chain without a mirror (head, tail).
    side: Option<f64>,
}

impl Chain {
    /// Arc length along the embedded chain to its point nearest `p`, and that point.
    fn nearest(&self, q: &[P3], p: &P3) -> (f64, P3) {
        let mut best = (f64::INFINITY, 0.0, q[self.joints[0]]);
        let mut walked = 0.0;
        for w in self.joints.windows(2) {
            let (a, b) = (q[w[0]], q[w[1]]);
            let ab = b - a;
            let t = ((p - a).dot(&ab) / ab.norm_squared().max(1e-300)).clamp(0.0, 1.0);
            let at = a + ab * t;
            let d = (p - at).norm();
            if d < best.0 {
                best = (d, walked + t * ab.norm(), at);
            }
            walked += ab.norm();
        }
        (best.1, best.2)
    }
}

fn leaf_chains(skel: &Skeleton, q: &[P3], pinned: &[JointId]) -> Vec<Chain> {
    let red = Reduced::new(skel);
    let got = super::chain_lengths(&red, q);
    let core = |k: &usize| !super::optional(skel, &red.joints[*k]);
    let total = |f: &dyn Fn(usize) -> f64| (0..red.len()).filter(core).map(f).sum::<f64>();
    let fit = total(&|k| got[k]) / total(&|k| red.joints[k].chain_len).max(1e-12);
    (0..red.len())
        .filter(|k| core(k) && red.joints[*k].leaf && !pinned_chain(&red.joints[*k], pinned))
        .filter_map(|k| {
            let r = &red.joints[k];
            let dir = r.rest - red.joints[r.parent?].rest;
            let mirrored = r.sym.is_some() || red.joints.iter().any(|o| o.sym == Some(k));
            let side = r.rest.x - red.joints[0].rest.x;
            (dir.norm() > 0.0).then(|| Chain {
                end: skel.joints[r.full.0].name.clone(),
                joints: r.chain.iter().map(|j| j.0).collect(),
                got: got[k],
                want: r.chain_len * fit,
                dir: dir.normalize(),
                side: (mirrored && side != 0.0).then(|| side.signum()),
            })
        })
        .collect()
}

/// Which spheres of `graph` the embedded skeleton `q` (normalized frame; `discrete`: the graph
/// vertex of each reduced joint) reaches (module docs, step 1).
pub fn reached(graph: &SphereGraph, skel: &Skeleton, q: &[P3], discrete: &[NodeId]) -> Vec<bool> {
    if q.len() != skel.joints.len() {
        return vec![false; graph.len()];
    }
    reached_spheres(graph, skel, q, &bones(skel), discrete)
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
    /// The leaf chain whose bone passes nearest to `p`, if the nearest bone belongs to one.
    fn chain_at(&self, p: &P3) -> Option<&Chain> {
        let q = self.q;
        let bone = |x: &(usize, usize)| seg_dist(p, &q[x.0], &q[x.1]);
        let &(pa, ch) = self
            .segs
            .iter()
            .min_by(|x, y| bone(x).total_cmp(&bone(y)))?;
        self.chains
            .iter()
            .find(|c| c.joints[1..].contains(&ch) && c.joints.contains(&pa))
    }

    /// The empty part `group` judged against the skeleton (steps 3–5 of the module docs).
    fn judge(&self, group: &[usize]) -> Option<EmptyPart> {
        self.stopped_short(group)
            .or_else(|| self.went_elsewhere(group))
    }

    /// Steps 3 and 4 of the module docs for one group of unreached spheres.
    fn stopped_short(&self, group: &[usize]) -> Option<EmptyPart> {
        let (g, q, dist) = (self.graph, self.q, &self.dist);
        // The far end (graph distance out of the reached volume plus the sphere's radius) and the
        // sphere where the part hangs on the reached volume.
        let reach = |i: &usize| dist[*i] + g.spheres[*i].radius;
        let tip = *group.iter().max_by(|a, b| reach(a).total_cmp(&reach(b)))?;
        let base = *group
            .iter()
            .min_by(|a, b| dist[**a].total_cmp(&dist[**b]))?;
        let (bc, tc) = (g.spheres[base].center, g.spheres[tip].center);
        let chain = self.chain_at(&bc)?;
        let out = self.o.apply(&(tc - q[*chain.joints.last()?]));
        // How far the part reaches beyond the chain's end, straight (graph paths wind).
        let missing = out.norm() + g.spheres[tip].radius;
        let continues = out.norm() > 0.0 && out.normalize().dot(&chain.dir) >= CONTINUE_COS;
        let share = missing / (chain.got + missing);
        (continues && share > EMPTY_SHARE).then(|| self.part(chain, &tc, share, false))
    }

    fn part(&self, chain: &Chain, tip: &P3, share: f64, passed_by: bool) -> EmptyPart {
        EmptyPart {
            direction: direction_words(&self.o.apply(&(tip - self.q[self.root]))),
            chain: chain.end.clone(),
            share,
            passed_by,
        }
    }

    /// Step 5 of the module docs. A part may touch the reached volume in several places (a hand
    /// resting on the thigh as well as the shoulder): a limb joins the body at its root, its
    /// thickest end, so the attachment is the thickest sphere of `group` bordering the reached
    /// volume, and the part's far end is the sphere farthest from it, straight.
    fn went_elsewhere(&self, group: &[usize]) -> Option<EmptyPart> {
        let g = self.graph;
        let radius = |i: &usize| g.spheres[*i].radius;
        let b = group
            .iter()
            .filter(|i| {
                g.edges[**i]
                    .iter()
                    .any(|(n, _)| self.dist[n.0 as usize] == 0.0)
            })
            .max_by(|x, y| radius(x).total_cmp(&radius(y)).then(y.cmp(x)))?;
        let base = g.spheres[*b].center;
        let reach = |i: &usize| (g.spheres[*i].center - base).norm() + radius(i);
        let tip = group.iter().max_by(|x, y| reach(x).total_cmp(&reach(y)))?;
        let tc = g.spheres[*tip].center;
        let chain = self.chain_at(&base)?;
        let share = self.side_share(chain, base, tc, radius(tip))?;
        Some(self.part(chain, &tc, share, true))
    }

    /// The share of the limb route (chain start → attachment `base` → the part's far end `tip`,
    /// radius `tip_r`) without a bone, when the mirrored `chain` has the part on its own side of
    /// the body, the share exceeds [`EMPTY_SHARE`] and the part is limb-sized ([`LIMB_SHARE`]).
    fn side_share(&self, chain: &Chain, base: P3, tip: P3, tip_r: f64) -> Option<f64> {
        let side = chain.side?;
        let q = self.q;
        let lateral = |p: &P3| side * self.o.apply(&(p - q[self.root])).x;
        let first = *chain.joints.get(1)?;
        if lateral(&tip) < lateral(&q[first]).max(0.0) {
            return None;
        }
        let (along, at) = chain.nearest(q, &base);
        let out = self.o.apply(&(tip - at));
        if out.norm() == 0.0 || out.normalize().dot(&chain.dir) < SIDE_CONTINUE_COS {
            return None;
        }
        let missing = (tip - at).norm() + tip_r;
        let share = missing / (along + missing);
        (share > EMPTY_SHARE && missing >= LIMB_SHARE * chain.want).then_some(share)
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
