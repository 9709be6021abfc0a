//! The reduced skeleton (Baran & Popović 2007 §3.2; docs/algorithms.md#reduced-skeleton): joints of degree ≠ 2 (plus the root and any fat or foot
//! joint), connected by chains of full-skeleton bones.
//!
//! Unlike the original, the reduced tree is **re-rooted for the search** at the joint with the most
//! reduced neighbours (the chest for the human, like Pinocchio's `shoulders` root), and the search
//! order places fat joints first, then feet, then the other limbs: few candidates and strong
//! constraints early prune the best-first search hardest. Template bone vectors are scaled so the rest
//! pose's largest side is [`TEMPLATE_EXTENT`] (the original's human: 1.5 · 0.5 · 0.7 ≈ 0.53 unit).

use crate::geom::{JointId, V3};
use crate::skeleton::Skeleton;

/// Size of the scaled template (largest rest-pose side), normalized units.
pub const TEMPLATE_EXTENT: f64 = 0.56;

/// One reduced joint, in search order.
#[derive(Clone, Debug)]
pub struct RJoint {
    /// The full-skeleton joint.
    pub full: JointId,
    /// Reduced parent (search order index, always smaller); `None` for the search root.
    pub parent: Option<usize>,
    /// Full joints from the parent's joint to this one, both included, oriented parent → child.
    pub chain: Vec<JointId>,
    /// Sum of the scaled template bone lengths along the chain (`cLength`).
    pub chain_len: f64,
    /// Scaled template bone vectors along the chain, parent → child (one per bone).
    pub bones: Vec<V3>,
    /// Per bone, what DotPF reads of it: its unit direction and 50 × its squared length
    /// (`crate::embed::penalty`), computed once here rather than for every pair scored.
    pub bone_dots: Vec<(V3, f64)>,
    /// Cumulative length fraction of each chain joint (`0` … `1`, one per chain entry).
    pub fractions: Vec<f64>,
    /// Scaled template position (only differences are used).
    pub rest: V3,
    /// Degree 1 in the reduced tree (and not the root).
    pub leaf: bool,
    /// Fat: candidates restricted to the thickest spheres.
    pub fat: bool,
    /// Foot: pulled to the ground by FootPF.
    pub foot: bool,
    /// Symmetric partner placed earlier in search order (SymPF compares with it).
    pub sym: Option<usize>,
}

/// The reduced skeleton in search order.
#[derive(Clone, Debug)]
pub struct Reduced {
    /// Reduced joints, search order (root first, parents before children).
    pub joints: Vec<RJoint>,
    /// Template scale factor applied to rest positions.
    pub scale: f64,
}

impl Reduced {
    /// Number of reduced joints.
    pub fn len(&self) -> usize {
        self.joints.len()
    }

    /// True if empty (never for a loaded template).
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    /// Search index of a full joint, if it is reduced.
    pub fn index_of(&self, j: JointId) -> Option<usize> {
        self.joints.iter().position(|r| r.full == j)
    }

    /// Build the reduced, re-rooted skeleton of `skel`.
    pub fn new(skel: &Skeleton) -> Self {
        let n = skel.joints.len();
        let children = skel.children();
        let scale = TEMPLATE_EXTENT / skel.rest_extent().max(1e-9);
        let keep: Vec<bool> = (0..n)
            .map(|i| {
                let j = &skel.joints[i];
                let deg = children[i].len() + usize::from(j.parent.is_some());
                j.parent.is_none() || deg != 2 || j.fat || j.foot
            })
            .collect();
        // Undirected reduced edges with their chains (template ancestor → descendant).
        let mut adj: Vec<Vec<(usize, Vec<JointId>)>> = vec![Vec::new(); n];
        for r in (0..n).filter(|i| keep[*i]) {
            let mut chain = vec![JointId(r)];
            let mut cur = skel.joints[r].parent;
            while let Some(p) = cur {
                chain.push(p);
                if keep[p.0] {
                    break;
                }
                cur = skel.joints[p.0].parent;
            }
            let Some(&anc) = chain.last() else { continue };
            if anc.0 == r {
                continue;
            }
            chain.reverse();
            adj[anc.0].push((r, chain.clone()));
            chain.reverse();
            adj[r].push((anc.0, chain));
        }
        let root = choose_root(skel, &keep, &adj);
        let order = search_order(skel, root, &adj);
        let mut joints: Vec<RJoint> = Vec::with_capacity(order.len());
        for (full, parent_full, chain) in order {
            let parent = parent_full.and_then(|p| joints.iter().position(|r| r.full.0 == p));
            joints.push(make_joint(skel, scale, full, parent, chain));
        }
        for k in 0..joints.len() {
            let partner = skel.joints[joints[k].full.0].symmetric;
            joints[k].sym = partner.and_then(|p| (0..k).find(|i| joints[*i].full == p));
        }
        let degree: Vec<usize> = (0..joints.len())
            .map(|k| {
                usize::from(joints[k].parent.is_some())
                    + joints.iter().filter(|c| c.parent == Some(k)).count()
            })
            .collect();
        for (k, j) in joints.iter_mut().enumerate() {
            j.leaf = j.parent.is_some() && degree[k] == 1;
        }
        Self { joints, scale }
    }
}

/// Most reduced neighbours wins; ties prefer fat, then the template's own root.
fn choose_root(skel: &Skeleton, keep: &[bool], adj: &[Vec<(usize, Vec<JointId>)>]) -> usize {
    let key = |i: usize| {
        let j = &skel.joints[i];
        (adj[i].len(), j.fat, j.parent.is_none())
    };
    let mut best = 0;
    for i in (0..keep.len()).filter(|i| keep[*i]) {
        if key(i) > key(best) {
            best = i;
        }
    }
    best
}

type Placed = (usize, Option<usize>, Vec<JointId>);

/// Root first; then repeatedly the frontier joint that is fat, else a foot, else the lowest index.
fn search_order(skel: &Skeleton, root: usize, adj: &[Vec<(usize, Vec<JointId>)>]) -> Vec<Placed> {
    let mut placed: Vec<Placed> = vec![(root, None, vec![JointId(root)])];
    let mut done = vec![false; adj.len()];
    done[root] = true;
    loop {
        let mut best: Option<(usize, usize, &Vec<JointId>)> = None;
        for (p, _, _) in &placed {
            for (c, chain) in &adj[*p] {
                if done[*c] {
                    continue;
                }
                let rank = |i: usize| {
                    let j = &skel.joints[i];
                    (!j.fat, !j.foot, i)
                };
                if best.is_none_or(|(b, _, _)| rank(*c) < rank(b)) {
                    best = Some((*c, *p, chain));
                }
            }
        }
        let Some((c, p, chain)) = best else { break };
        done[c] = true;
        placed.push((c, Some(p), chain.clone()));
    }
    placed
}

fn make_joint(
    skel: &Skeleton,
    scale: f64,
    full: usize,
    parent: Option<usize>,
    chain: Vec<JointId>,
) -> RJoint {
    let rest = |j: JointId| skel.joints[j.0].rest.coords * scale;
    let bones: Vec<V3> = chain.windows(2).map(|w| rest(w[1]) - rest(w[0])).collect();
    let chain_len: f64 = bones.iter().map(|b| b.norm()).sum();
    let mut fractions = Vec::with_capacity(chain.len());
    let mut acc = 0.0;
    fractions.push(0.0);
    for b in &bones {
        acc += b.norm();
        fractions.push(if chain_len > 0.0 {
            acc / chain_len
        } else {
            1.0
        });
    }
    let j = &skel.joints[full];
    let bone_dots = bones.iter().map(crate::embed::penalty::bone_dot).collect();
    RJoint {
        full: JointId(full),
        parent,
        chain,
        chain_len,
        bones,
        bone_dots,
        fractions,
        rest: rest(JointId(full)),
        leaf: false,
        fat: j.fat,
        foot: j.foot,
        sym: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::load_template;

    #[test]
    fn human_reduces_to_seven_rooted_at_the_chest() {
        let s = load_template("human").unwrap();
        let r = Reduced::new(&s);
        let names: Vec<&str> = r
            .joints
            .iter()
            .map(|j| s.joints[j.full.0].name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "Spine2",
                "Hips",
                "HeadTop_End",
                "RightToe_End",
                "LeftToe_End",
                "RightHand_End",
                "LeftHand_End"
            ]
        );
        // Hips hangs below the chest: chain Spine2 → Spine1 → Spine → Hips.
        let hips = &r.joints[1];
        assert_eq!(hips.parent, Some(0));
        assert_eq!(hips.chain.len(), 4);
        assert!(hips.bones.iter().all(|b| b.y < 0.0));
        assert!((hips.fractions[3] - 1.0).abs() < 1e-12);
        assert!(r.joints[2].fat && r.joints[2].leaf && r.joints[3].foot);
        assert_eq!(r.joints[4].sym, Some(3));
        assert_eq!(r.joints[6].sym, Some(5));
        assert!(!r.joints[0].leaf && !r.joints[1].leaf);
    }

    #[test]
    fn every_builtin_reduces_with_parents_first() {
        for name in ["quadruped", "horse", "centaur"] {
            let s = load_template(name).unwrap();
            let r = Reduced::new(&s);
            for (k, j) in r.joints.iter().enumerate() {
                assert!(j.parent.is_none_or(|p| p < k));
                assert_eq!(j.chain.last(), Some(&j.full));
            }
            let covered: usize = r
                .joints
                .iter()
                .map(|j| j.chain.len().saturating_sub(1))
                .sum();
            assert_eq!(
                covered,
                s.joints.len() - 1,
                "{name}: every bone in exactly one chain"
            );
        }
    }
}
