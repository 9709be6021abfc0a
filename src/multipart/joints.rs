//! Template joint positions and the rigid binding from a mapping (§9, and our drop-in rules for a
//! template-ordered skeleton): a mapped joint sits at its node's pivot (the contact region with the
//! parent node's pieces; the node centres' midpoint without contacts); an unmapped joint between
//! mapped ones is spread along the segment at the template's bone-length fraction; an unmapped
//! joint past the last mapped one, and every end joint, follows the template bone direction to the
//! farthest sample of the pieces its parent moves.

use super::contacts::Contact;
use super::mapping::{Mapping, Target};
use super::samples::Component;
use super::tree::Tree;
use crate::geom::{P3, V3};
use crate::skeleton::Skeleton;

/// Joint per high-resolution node after §8.8 (nearest mapped ancestor; the root is forced onto the
/// template root), and the primary node per joint.
pub fn bind(
    tree: &Tree,
    mapping: &Mapping,
    skeleton: &Skeleton,
) -> (Vec<usize>, Vec<Option<usize>>) {
    let mut joint_node = vec![None; skeleton.joints.len()];
    for k in mapping.kept.iter().filter(|k| k.primary) {
        for &(n, j) in &k.pairs {
            if mapping.node_joint[n] == Some(j) && joint_node[j].is_none() {
                joint_node[j] = Some(n);
            }
        }
    }
    let root_joint = skeleton
        .joints
        .iter()
        .position(|j| j.parent.is_none())
        .unwrap_or(0);
    let mut node_bone = vec![root_joint; tree.len()];
    for n in 0..tree.len() {
        // Parents come first, so the parent's bone is final.
        let own = mapping.node_joint[n].map(|j| owning_joint(skeleton, j));
        node_bone[n] = match (own, tree.parent[n]) {
            (Some(j), _) => j,
            (None, Some(p)) => node_bone[p],
            (None, None) => root_joint,
        };
    }
    if joint_node[root_joint].is_none() {
        joint_node[root_joint] = Some(0);
    }
    (node_bone, joint_node)
}

/// End joints own no vertices: their parent's bone moves them.
fn owning_joint(skeleton: &Skeleton, j: usize) -> usize {
    let joint = &skeleton.joints[j];
    match (joint.end, joint.parent) {
        (true, Some(p)) => p.0,
        _ => j,
    }
}

/// Pivot of node `n`: centroid of the contacts between its pieces and its parent's (§9 suggestion).
fn pivot(tree: &Tree, contacts: &[Contact], owner: &[usize], n: usize) -> P3 {
    let Some(p) = tree.parent[n] else {
        return tree.centre[n];
    };
    let (mut sum, mut count) = (V3::zeros(), 0);
    for c in contacts {
        let (na, nb) = (owner[c.a], owner[c.b]);
        if (na == n && nb == p) || (na == p && nb == n) {
            sum += c.centroid.coords;
            count += 1;
        }
    }
    if count == 0 {
        P3::from((tree.centre[n].coords + tree.centre[p].coords) * 0.5)
    } else {
        P3::from(sum / count as f64)
    }
}

/// Fill `tree.pivot` from the contacts. The mapping compares template joints with pivots, not
/// centres: a node's joint is placed at its pivot, so matching by centre shifts the names one
/// node down a limb (a thigh's centre is as near the knee as the hip, and the knee joint then
/// lands at the hip).
pub fn set_pivots(tree: &mut Tree, contacts: &[Contact], owner: &[usize]) {
    tree.pivot = (0..tree.len())
        .map(|n| pivot(tree, contacts, owner, n))
        .collect();
}

/// Everything joint placement reads.
pub struct Placement<'a> {
    /// The high-resolution tree.
    pub tree: &'a Tree,
    /// Contact edges.
    pub contacts: &'a [Contact],
    /// High-resolution node per component.
    pub owner: &'a [usize],
    /// Components.
    pub parts: &'a [Component],
    /// Bone (owning joint) per component.
    pub part_bone: &'a [usize],
    /// The placed template.
    pub target: &'a Target,
}

/// One position per template joint (normalized frame), parents first.
pub fn positions(pl: &Placement, skeleton: &Skeleton, joint_node: &[Option<usize>]) -> Vec<P3> {
    let n = skeleton.joints.len();
    let mut out: Vec<Option<P3>> = vec![None; n];
    for j in 0..n {
        if skeleton.joints[j].end {
            continue;
        }
        if let Some(p) = pl.target.pin[j] {
            out[j] = Some(p);
        } else if skeleton.joints[j].parent.is_none() {
            continue; // placed from its children below
        } else if let Some(node) = joint_node[j] {
            out[j] = Some(pl.tree.pivot[node]);
        }
    }
    for j in 0..n {
        if out[j].is_some() {
            continue;
        }
        let Some(parent) = skeleton.joints[j].parent.map(|p| p.0) else {
            out[j] = Some(root_position(pl, skeleton, &out, j));
            continue;
        };
        let from = out[parent].unwrap_or(pl.tree.centre[0]);
        out[j] = Some(match mapped_descendant(skeleton, &out, j) {
            Some((d, frac)) if !skeleton.joints[j].end => {
                let to = out[d].unwrap_or(from);
                from + (to - from) * frac
            }
            _ => extend(pl, parent, j, from),
        });
    }
    out.into_iter().map(|p| p.unwrap_or(P3::origin())).collect()
}

/// The nearest placed descendant of `j` (fewest bones, then lowest index) and `j`'s fraction of the
/// template bone length from `j`'s parent to it.
fn mapped_descendant(skeleton: &Skeleton, placed: &[Option<P3>], j: usize) -> Option<(usize, f64)> {
    let parent = skeleton.joints[j].parent?.0;
    let chain_to = |d: usize| -> Option<Vec<usize>> {
        let mut path = vec![d];
        while let Some(p) = skeleton.joints[*path.last()?].parent.map(|p| p.0) {
            if p == parent {
                path.reverse();
                return Some(path);
            }
            path.push(p);
        }
        None
    };
    let d = (0..skeleton.joints.len())
        .filter(|&d| placed[d].is_some() && d != j)
        .filter_map(|d| {
            chain_to(d)
                .filter(|c| c.first() == Some(&j))
                .map(|c| (c.len(), d, c))
        })
        .min_by_key(|(len, d, _)| (*len, *d))?;
    let rest = |k: usize| skeleton.joints[k].rest;
    let mut lens = vec![(rest(d.2[0]) - rest(parent)).norm()];
    for w in d.2.windows(2) {
        lens.push((rest(w[1]) - rest(w[0])).norm());
    }
    let total: f64 = lens.iter().sum();
    Some((d.1, if total > 0.0 { lens[0] / total } else { 0.5 }))
}

/// The template bone `parent → j`, scaled to the mesh, from `from`; its length is clamped to the
/// farthest sample along it of the pieces that `parent` moves.
fn extend(pl: &Placement, parent: usize, j: usize, from: P3) -> P3 {
    let bone = pl.target.position[j] - pl.target.position[parent];
    let len = bone.norm();
    if len < 1e-12 {
        return from;
    }
    let dir = bone / len;
    let reach = pl
        .parts
        .iter()
        .zip(pl.part_bone)
        .filter(|(_, &b)| b == parent)
        .flat_map(|(c, _)| c.samples.iter())
        .map(|s| (s - from).dot(&dir))
        .fold(f64::NEG_INFINITY, f64::max);
    let length = if reach.is_finite() && reach > 0.0 {
        reach
    } else {
        len
    };
    from + dir * length
}

/// The root joint has no parent to pivot about, and the root cluster's centre (the midpoint rule
/// over the many pieces of a body) says little about where the hips are. So the root goes where
/// its placed children put it: the mean of each child's position minus its scaled template offset;
/// the root cluster's centre when no child is placed.
fn root_position(pl: &Placement, skeleton: &Skeleton, placed: &[Option<P3>], root: usize) -> P3 {
    let (mut sum, mut count) = (V3::zeros(), 0);
    for (c, joint) in skeleton.joints.iter().enumerate() {
        if joint.parent.map(|p| p.0) != Some(root) {
            continue;
        }
        if let Some(p) = placed[c] {
            sum += p.coords - (pl.target.position[c] - pl.target.position[root]);
            count += 1;
        }
    }
    if count == 0 {
        pl.tree.centre[0]
    } else {
        P3::from(sum / count as f64)
    }
}
