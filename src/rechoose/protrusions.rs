//! Limb-like protrusions of the shape that hold no joint, and the limb chain each one belongs to
//! (normalized frame; every tolerance is relative to the model's own thicknesses or to the
//! template's lengths, which the search already compares with graph distances):
//!
//! 1. The **core** is the thickest sphere of the graph (the torso). A **tip** is a sphere at least
//!    as far from the core (graph distance) as each of its neighbours: the end of a protrusion.
//! 2. A tip's **protrusion** is the outer half of its graph path to the core. It is **limb-like**
//!    when it is as thick as a limb (its thickest sphere at least [`PART_THICKNESS`] of the core:
//!    ears, fingers, fins and hair strands are thinner) and the tip lies at least [`MIN_REACH`] of
//!    the template's shortest limb chain from the core (a bump is not a limb).
//! 3. It is **unclaimed** when no sphere of it is reached by a bone (the reach rule of
//!    [`crate::confidence::parts`]): a limb with no joint in it.
//! 4. Each unclaimed limb-like tip goes to the leaf chain whose template direction (from the
//!    template's centre to the chain's end) is closest to the tip's direction from the shape's
//!    centre (the spheres' volume-weighted centroid), within [`ASSIGN_COS`], and on the same side of
//!    the body for a mirrored chain; each chain takes at most one tip, best match first.

use crate::confidence::parts::{reached, PART_THICKNESS};
use crate::discretize::SphereGraph;
use crate::embed::reduced::Reduced;
use crate::embed::Embedding;
use crate::geom::{JointId, P3, V3};
use crate::skeleton::Skeleton;

/// A limb-like protrusion reaches at least this fraction of the template's shortest limb chain
/// from the core. Half: a cartoon's short arm still qualifies, a shoulder pad or a belly does not.
pub const MIN_REACH: f64 = 0.5;
/// A tip belongs to a chain whose template direction is within 90° (cos 0) of the tip's, the rule
/// `confidence::parts` uses for a limb hanging off a chain's side: the shape's centre and the
/// template's are only roughly the same point, and a cartoon's short arm held forward sits much
/// higher relative to the centre than the template's long A-pose arm. Best match first keeps the
/// head's tip for the head chain and each arm's for the arm on its side.
pub const ASSIGN_COS: f64 = 0.0;

/// An unclaimed limb-like protrusion and the chain it is given to.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// Reduced joint (search order) of the chain's end.
    pub chain: usize,
    /// The chain's end joint.
    pub end: JointId,
    /// The protrusion's tip sphere centre, normalized frame.
    pub tip: P3,
    /// The tip sphere's radius.
    pub radius: f64,
    /// Direction of the tip from the shape's centre, template frame (unit).
    pub direction: V3,
}

/// The shape's centre: the volume-weighted centroid of the graph's spheres.
fn centroid(graph: &SphereGraph) -> P3 {
    let (mut sum, mut w) = (V3::zeros(), 0.0);
    for s in &graph.spheres {
        let v = s.radius.powi(3);
        sum += s.center.coords * v;
        w += v;
    }
    P3::from(sum / w.max(1e-300))
}

/// Tips (module docs, step 1) with the outer half of their path to `core`.
fn tips(graph: &SphereGraph, core: u32) -> Vec<(u32, Vec<u32>)> {
    let paths = graph.paths();
    let dist = |v: u32| paths.dist(core, v);
    (0..graph.len() as u32)
        .filter(|v| *v != core && dist(*v).is_finite())
        .filter(|v| {
            graph.edges[*v as usize]
                .iter()
                .all(|(n, _)| dist(n.0) <= dist(*v))
        })
        .map(|v| {
            let half = dist(v) / 2.0;
            let outer = paths
                .path(v, core)
                .into_iter()
                .filter(|p| dist(*p) >= half)
                .collect();
            (v, outer)
        })
        .collect()
}

/// The unclaimed limb-like protrusions of the shape under embedding `emb` of `skel`, each with the
/// chain it belongs to (module docs). Chains holding a user's pin are never given a tip.
pub fn unclaimed(graph: &SphereGraph, skel: &Skeleton, emb: &Embedding) -> Vec<Target> {
    let Some(core) = (0..graph.len() as u32).max_by(|a, b| {
        let r = |v: &u32| graph.spheres[*v as usize].radius;
        r(a).total_cmp(&r(b)).then(b.cmp(a))
    }) else {
        return Vec::new();
    };
    let red = Reduced::new(skel);
    let limbs: Vec<usize> = (1..red.len())
        .filter(|k| red.joints[*k].leaf && !crate::confidence::optional(skel, &red.joints[*k]))
        .filter(|k| !crate::confidence::shape::pinned_chain(&red.joints[*k], &emb.pinned))
        .collect();
    let shortest = limbs
        .iter()
        .map(|k| red.joints[*k].chain_len)
        .fold(f64::INFINITY, f64::min);
    let core_r = graph.spheres[core as usize].radius;
    let is_reached = reached(graph, skel, &emb.joints, &emb.discrete);
    let paths = graph.paths();
    let centre = centroid(graph);
    let o = &emb.orientation;
    let free: Vec<Tip> = tips(graph, core)
        .into_iter()
        .filter_map(|(v, outer)| {
            let thick = outer
                .iter()
                .map(|p| graph.spheres[*p as usize].radius)
                .fold(0.0, f64::max);
            let reach = paths.dist(core, v) + graph.spheres[v as usize].radius;
            let limb = thick >= PART_THICKNESS * core_r && reach >= MIN_REACH * shortest;
            let d = o.apply(&(graph.spheres[v as usize].center - centre));
            let claimed = outer.iter().any(|p| is_reached[*p as usize]);
            (limb && !claimed && d.norm() > 0.0).then(|| Tip {
                vertex: v,
                dir: d.normalize(),
                midplane: d.x.abs() <= thick,
            })
        })
        .collect();
    assign(&red, &limbs, &free)
        .into_iter()
        .map(|(k, i)| {
            let (v, d) = (free[i].vertex, free[i].dir);
            let s = &graph.spheres[v as usize];
            Target {
                chain: k,
                end: red.joints[k].full,
                tip: s.center,
                radius: s.radius,
                direction: d,
            }
        })
        .collect()
}

/// A free tip as step 4 sees it.
struct Tip {
    vertex: u32,
    /// Direction from the shape's centre, template frame (unit).
    dir: V3,
    /// The body's midplane (through the shape's centre) crosses the protrusion: its lateral
    /// offset is within its thickness.
    midplane: bool,
}

/// Step 4 of the module docs: `(chain, index into tips)` pairs, best direction match first. A
/// chain without a mirror (a head, a tail) lies on the body's midplane, so it only takes a
/// protrusion the midplane crosses; a mirrored one only a protrusion on its own side.
fn assign(red: &Reduced, limbs: &[usize], tips: &[Tip]) -> Vec<(usize, usize)> {
    let n = red.len().max(1) as f64;
    let centre = red.joints.iter().map(|r| r.rest).sum::<V3>() / n;
    let root_x = red.joints.first().map_or(0.0, |r| r.rest.x);
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for &k in limbs {
        let r = &red.joints[k];
        let dir = r.rest - centre;
        if dir.norm() == 0.0 {
            continue;
        }
        let mirrored = r.sym.is_some() || red.joints.iter().any(|o| o.sym == Some(k));
        let side = r.rest.x - root_x;
        for (i, t) in tips.iter().enumerate() {
            let cos = dir.normalize().dot(&t.dir);
            let placed = if mirrored {
                side * t.dir.x > 0.0
            } else {
                t.midplane
            };
            if cos >= ASSIGN_COS && placed {
                pairs.push((cos, k, i));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (_, k, i) in pairs {
        if !out.iter().any(|(ok, oi)| *ok == k || *oi == i) {
            out.push((k, i));
        }
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::load_template;

    fn tip(dir: V3, midplane: bool) -> Tip {
        Tip {
            vertex: 0,
            dir: dir.normalize(),
            midplane,
        }
    }

    fn end_of(red: &Reduced, skel: &Skeleton, k: usize) -> String {
        skel.joints[red.joints[k].full.0].name.clone()
    }

    #[test]
    fn tips_go_to_the_chain_on_their_side_and_the_head_takes_only_a_midplane_tip() {
        let skel = load_template("human").unwrap();
        let red = Reduced::new(&skel);
        let limbs: Vec<usize> = (1..red.len()).filter(|k| red.joints[*k].leaf).collect();
        // A short arm held forward on the character's right (template −X), high up: its direction
        // is closer to the head's than to the template's sideways arm, but it is off the midplane.
        let right_arm = tip(V3::new(-0.52, 0.82, 0.23), false);
        let left_arm = tip(V3::new(0.52, 0.80, 0.30), false);
        let got = assign(&red, &limbs, &[right_arm, left_arm]);
        let names: Vec<(String, usize)> = got
            .iter()
            .map(|(k, i)| (end_of(&red, &skel, *k), *i))
            .collect();
        assert!(names.contains(&("RightHand_End".into(), 0)), "{names:?}");
        assert!(names.contains(&("LeftHand_End".into(), 1)), "{names:?}");
        assert_eq!(names.len(), 2, "{names:?}");
        // A tip on the midplane above the body is the head's; one straight down on the right a leg's.
        let got = assign(
            &red,
            &limbs,
            &[tip(V3::y(), true), tip(V3::new(-0.1, -1.0, 0.0), false)],
        );
        let names: Vec<String> = got.iter().map(|(k, _)| end_of(&red, &skel, *k)).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names.iter().any(|n| n.starts_with("HeadTop")), "{names:?}");
        assert!(names.iter().any(|n| n == "RightToe_End"), "{names:?}");
        // Nothing points backwards and up in the human template within 90°… except the head;
        // a tip pointing straight back on the left side is not a right limb's.
        let got = assign(&red, &limbs, &[tip(V3::new(0.3, 0.0, -1.0), false)]);
        assert!(
            got.iter()
                .all(|(k, _)| !end_of(&red, &skel, *k).starts_with("Right")),
            "{got:?}"
        );
    }
}
