//! Reading an artist rig from a skinned glTF: the first skin's joints and per-vertex weights.
//!
//! Joint positions are the joint nodes' world translations at the bind pose, the same pose the
//! mesh is read in ([`super::gltf`], [`super::gltf_bind`]), so joints and vertices always agree.
//! That is the translation of `inverse(IBM)`, up to one placement of the whole skin when the
//! file's default pose is its bind pose (an armature node turning Z-up to Y-up); a file saved in
//! an animation frame is read at `inverse(IBM)` itself, not in the frame.

use std::path::Path;

use super::gltf::{assemble, open, Opened};
use super::{LoadError, RiggedMesh};
use crate::skeleton::rigged::{RigJoint, SkinTable};

/// The first skin's joints: skin slots (joint node per slot, duplicates dropped), the slot of
/// each node, and the parent-first order with each slot's new index.
struct SkinJoints {
    slots: Vec<usize>,
    slot_of: Vec<Option<usize>>,
    slot_parent: Vec<Option<usize>>,
    order: Vec<usize>,
    new_index: Vec<usize>,
}

impl SkinJoints {
    fn new(o: &Opened, skin: &gltf::Skin) -> Self {
        let mut slots: Vec<usize> = Vec::new();
        for j in skin.joints() {
            if !slots.contains(&j.index()) {
                slots.push(j.index());
            }
        }
        let mut slot_of = vec![None; o.parent.len()];
        for (k, &n) in slots.iter().enumerate() {
            if let Some(s) = slot_of.get_mut(n) {
                *s = Some(k);
            }
        }
        let slot_parent: Vec<Option<usize>> = slots
            .iter()
            .map(|&n| nearest_joint(o, o.parent.get(n).copied().flatten(), &slot_of))
            .collect();
        let order = parent_first(&slot_parent);
        let mut new_index = vec![0usize; slots.len()];
        for (i, &k) in order.iter().enumerate() {
            new_index[k] = i;
        }
        Self {
            slots,
            slot_of,
            slot_parent,
            order,
            new_index,
        }
    }

    /// The joints in parent-first order, at their nodes' world positions (bind pose).
    fn rig_joints(&self, o: &Opened) -> Vec<RigJoint> {
        let names: Vec<Option<String>> = o
            .doc
            .nodes()
            .map(|nd| nd.name().map(str::to_owned))
            .collect();
        self.order
            .iter()
            .map(|&k| {
                let node = self.slots[k];
                let w = o
                    .world
                    .get(node)
                    .copied()
                    .unwrap_or_else(nalgebra::Matrix4::identity);
                RigJoint {
                    name: names
                        .get(node)
                        .cloned()
                        .flatten()
                        .unwrap_or_else(|| format!("joint_{k}")),
                    parent: self.slot_parent[k].map(|p| self.new_index[p]),
                    position: [w[(0, 3)], w[(1, 3)], w[(2, 3)]],
                    end: false,
                }
            })
            .collect()
    }
}

/// Parse a skinned glTF into mesh, joints (parent-first) and weights.
pub(crate) fn parse_rigged(bytes: &[u8], base_dir: Option<&Path>) -> Result<RiggedMesh, LoadError> {
    let o = open(bytes, base_dir, &mut Vec::new())?;
    let skin = o
        .doc
        .skins()
        .next()
        .ok_or_else(|| LoadError::Invalid("the file has no skin (no artist rig)".into()))?;
    let sj = SkinJoints::new(&o, &skin);
    let joints = sj.rig_joints(&o);
    let super::gltf::Assembled {
        mesh, influences, ..
    } = assemble(&o, true)?;
    let has_weights = o.doc.meshes().any(|m| {
        m.primitives()
            .any(|p| p.get(&gltf::Semantic::Joints(0)).is_some())
    });
    let skin = has_weights.then(|| {
        let joint_of =
            |node: usize| nearest_joint(&o, Some(node), &sj.slot_of).map(|k| sj.new_index[k]);
        skin_table(&influences, joint_of)
    });
    Ok(RiggedMesh { mesh, joints, skin })
}

/// The skin slot of `start` or of its nearest ancestor that is a joint (chains longer than the
/// node count are cycles and are cut).
fn nearest_joint(o: &Opened, start: Option<usize>, slot_of: &[Option<usize>]) -> Option<usize> {
    let mut cur = start;
    for _ in 0..=o.parent.len() {
        let n = cur?;
        if let Some(k) = slot_of.get(n).copied().flatten() {
            return Some(k);
        }
        cur = o.parent.get(n).copied().flatten();
    }
    None
}

/// Slots in parent-first order: depth-first from the roots, children in skin order. Slots caught
/// in a parent cycle (malformed files) are appended at the end.
fn parent_first(parent: &[Option<usize>]) -> Vec<usize> {
    let n = parent.len();
    let mut children = vec![Vec::new(); n];
    for (k, p) in parent.iter().enumerate() {
        if let Some(p) = p.filter(|&p| p < n && p != k) {
            children[p].push(k);
        }
    }
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let roots = (0..n).filter(|&k| parent[k].is_none_or(|p| p >= n || p == k));
    for root in roots {
        let mut stack = vec![root];
        while let Some(k) = stack.pop() {
            if std::mem::replace(&mut done[k], true) {
                continue;
            }
            order.push(k);
            stack.extend(children[k].iter().rev());
        }
    }
    order.extend((0..n).filter(|&k| !done[k]));
    order
}

/// Per vertex: node influences mapped to joints, merged, zero weights dropped, normalized to sum
/// 1, heaviest first (ties: lower joint first).
fn skin_table(
    influences: &[Vec<(usize, f64)>],
    joint_of: impl Fn(usize) -> Option<usize>,
) -> SkinTable {
    influences
        .iter()
        .map(|list| {
            let mut acc: Vec<(u32, f64)> = Vec::with_capacity(list.len());
            for &(node, w) in list {
                let Some(j) = joint_of(node) else { continue };
                if !(w > 0.0 && w.is_finite()) {
                    continue;
                }
                match acc.iter_mut().find(|(k, _)| *k as usize == j) {
                    Some(e) => e.1 += w,
                    None => acc.push((j as u32, w)),
                }
            }
            let total: f64 = acc.iter().map(|e| e.1).sum();
            for e in &mut acc {
                e.1 /= total;
            }
            acc.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            acc
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parent_first_orders_children_after_parents() {
        // 0's parent is 2, 2's parent is 1, 1 is a root; 3 is a second root.
        let order = parent_first(&[Some(2), None, Some(1), None]);
        assert_eq!(order, vec![1, 2, 0, 3]);
        // A 2-cycle is still emitted.
        assert_eq!(parent_first(&[Some(1), Some(0)]).len(), 2);
    }

    #[test]
    fn weights_merged_normalized_sorted() {
        let t = skin_table(
            &[vec![(5, 0.2), (6, 0.6), (7, 0.2), (9, 0.0)]],
            |n| match n {
                5 | 7 => Some(0),
                6 => Some(1),
                _ => None,
            },
        );
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].iter().map(|e| e.0).collect::<Vec<_>>(), vec![1, 0]);
        assert!((t[0][0].1 - 0.6).abs() < 1e-12 && (t[0][1].1 - 0.4).abs() < 1e-12);
    }
}
