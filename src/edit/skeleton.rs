//! Skeleton edits on the rig's joint list (mesh frame): move, insert, delete, align, re-root
//! (Bang et al. 2015 §4; docs/algorithms.md#rig-editing). Pure functions: they change the joints
//! and report which joints moved and how indices were renumbered, so the caller can re-index
//! weight columns and pick the re-solve region.
//!
//! Joints stay parent-first (every parent before its children), as rig.json and the GLB writer
//! expect; names are the stable identities (the paper's positional indices are not, §4.2–4.3).

use crate::geom::{P3, V3};
use crate::skeleton::rigged::RigJoint;

use super::EditError;

/// How joint indices changed: `map[old] = Some(new)`, `None` for a deleted joint.
pub type Renumbering = Vec<Option<usize>>;

/// Index of the joint called `name`.
pub fn find(joints: &[RigJoint], name: &str) -> Result<usize, EditError> {
    joints
        .iter()
        .position(|j| j.name == name)
        .ok_or_else(|| EditError::NoJoint(name.to_string()))
}

/// Children of `j`.
pub fn children(joints: &[RigJoint], j: usize) -> Vec<usize> {
    (0..joints.len())
        .filter(|&c| joints[c].parent == Some(j))
        .collect()
}

/// `j` and all its descendants (parent-first order makes one forward pass enough).
pub fn subtree(joints: &[RigJoint], j: usize) -> Vec<usize> {
    let mut inside = vec![false; joints.len()];
    inside[j] = true;
    for c in j + 1..joints.len() {
        if let Some(p) = joints[c].parent {
            inside[c] = inside[p];
        }
    }
    (0..joints.len()).filter(|&c| inside[c]).collect()
}

/// Move joint `j` to `to` (mesh frame). With `with_descendants` its subtree is translated by the
/// same offset (Maya's behaviour); otherwise descendants stay put in world space (the default the
/// locality of the re-solve assumes, facts §9.9). Returns the joints that moved.
pub fn move_joint(
    joints: &mut [RigJoint],
    j: usize,
    to: [f64; 3],
    with_descendants: bool,
) -> Vec<usize> {
    let delta = P3::from(to) - joints[j].point();
    let moved = if with_descendants {
        subtree(joints, j)
    } else {
        vec![j]
    };
    for &m in &moved {
        joints[m].position = (joints[m].point() + delta).into();
    }
    moved
}

/// Split the bone parent(k) → k at fraction `at` ∈ (0, 1) from the parent with a new joint called
/// `name` (§4.2). The new joint is placed just before `k` in the list so parent-first order holds.
/// Returns the new joint's index and the renumbering of the old joints.
pub fn insert(
    joints: &mut Vec<RigJoint>,
    k: usize,
    at: f64,
    name: &str,
) -> Result<(usize, Renumbering), EditError> {
    let parent = joints[k].parent.ok_or_else(|| EditError::Refused {
        op: "insert",
        reason: format!("{} is a root: there is no bone to split", joints[k].name),
    })?;
    if !(at > 0.0 && at < 1.0) {
        return Err(EditError::Refused {
            op: "insert",
            reason: format!("the split fraction must lie in (0, 1), got {at}"),
        });
    }
    if joints.iter().any(|j| j.name == name) || name.is_empty() {
        return Err(EditError::Refused {
            op: "insert",
            reason: format!("a joint needs a new, non-empty name (\"{name}\" is taken or empty)"),
        });
    }
    let (a, b) = (joints[parent].point(), joints[k].point());
    let renumber: Renumbering = (0..joints.len())
        .map(|i| Some(if i >= k { i + 1 } else { i }))
        .collect();
    let shift = |p: usize| if p >= k { p + 1 } else { p };
    for j in joints.iter_mut() {
        j.parent = j.parent.map(shift);
    }
    joints.insert(
        k,
        RigJoint {
            name: name.to_string(),
            parent: Some(parent),
            position: (a + (b - a) * at).into(),
            end: false,
        },
    );
    joints[k + 1].parent = Some(k);
    Ok((k, renumber))
}

/// Delete joint `k` (never a root, §4.3); its children are re-parented to its parent.
pub fn delete(joints: &mut Vec<RigJoint>, k: usize) -> Result<(usize, Renumbering), EditError> {
    let parent = joints[k].parent.ok_or_else(|| EditError::Refused {
        op: "delete",
        reason: format!("{} is a root and cannot be deleted", joints[k].name),
    })?;
    for j in joints.iter_mut() {
        if j.parent == Some(k) {
            j.parent = Some(parent);
        }
    }
    joints.remove(k);
    let shift = |p: usize| if p > k { p - 1 } else { p };
    for j in joints.iter_mut() {
        j.parent = j.parent.map(shift);
    }
    let renumber = (0..=joints.len())
        .map(|i| (i != k).then(|| shift(i)))
        .collect();
    Ok((parent, renumber))
}

/// Chains shorter than this cannot define a bending plane (one triple gives one up-vector).
const MIN_ALIGN: usize = 3;
/// `|U_avg|` or `|e × U_avg|` below this (relative) means no well-defined plane: refuse (facts §4.4).
const DEGENERATE: f64 = 1e-6;

/// Project the contiguous chain `chain` (any order) onto the plane through its highest and lowest
/// joints spanned by their chord and the mean up-vector of its consecutive triples (§2.4, §4.4).
/// The end joints do not move. Returns the chain in root-to-leaf order and the shared up-vector.
pub fn align(
    joints: &mut [RigJoint],
    chain: &[usize],
) -> Result<(Vec<usize>, [f64; 3]), EditError> {
    let refuse = |reason: String| EditError::Refused {
        op: "align",
        reason,
    };
    if chain.len() < MIN_ALIGN {
        return Err(refuse(format!(
            "needs at least {MIN_ALIGN} joints, got {}",
            chain.len()
        )));
    }
    let order = chain_order(joints, chain).ok_or_else(|| {
        refuse("the joints must form one contiguous parent-child chain".to_string())
    })?;
    let pos = |j: usize| joints[j].point();
    let mut sum = V3::zeros();
    for w in order.windows(3) {
        if let Some(u) = up_vector(&pos(w[0]), &pos(w[1]), &pos(w[2])) {
            sum += u;
        }
    }
    let (h, l) = (pos(order[0]), pos(*order.last().unwrap_or(&order[0])));
    let e = l - h;
    let u_avg = sum / (order.len() - 2) as f64;
    let nrm = e.cross(&u_avg);
    if u_avg.norm() < DEGENERATE || nrm.norm() < DEGENERATE * e.norm().max(f64::MIN_POSITIVE) {
        return Err(refuse(
            "the chain is straight or zig-zags: no bending plane".to_string(),
        ));
    }
    let nrm = nrm.normalize();
    let inner: Vec<(usize, P3)> = order[1..order.len() - 1]
        .iter()
        .map(|&j| (j, pos(j)))
        .collect();
    for (j, p) in inner {
        joints[j].position = (p - nrm * (p - h).dot(&nrm)).into();
    }
    let u = u_avg.normalize();
    Ok((order, [u.x, u.y, u.z]))
}

/// The §2.4 three-joint up-vector: from the chord a→c out to b; `None` when b is on the chord.
pub fn up_vector(a: &P3, b: &P3, c: &P3) -> Option<V3> {
    let chord = c - a;
    let len = chord.norm();
    if len <= f64::MIN_POSITIVE {
        return None;
    }
    let ch = chord / len;
    let q = a + ch * (b - a).dot(&ch);
    let up = b - q;
    (up.norm() > DEGENERATE * len).then(|| up.normalize())
}

/// `chain` ordered root to leaf if it is one contiguous parent-child path.
fn chain_order(joints: &[RigJoint], chain: &[usize]) -> Option<Vec<usize>> {
    let mut set: Vec<usize> = chain.to_vec();
    set.sort_unstable();
    set.dedup();
    if set.len() != chain.len() {
        return None;
    }
    let top = *set
        .iter()
        .find(|&&j| joints[j].parent.is_none_or(|p| !set.contains(&p)))?;
    let mut order = vec![top];
    while order.len() < set.len() {
        let last = *order.last()?;
        let next: Vec<usize> = set
            .iter()
            .copied()
            .filter(|&c| joints[c].parent == Some(last))
            .collect();
        if next.len() != 1 {
            return None;
        }
        order.push(next[0]);
    }
    Some(order)
}

/// Make `r` the root: the parent links on the path from the old root to `r` are reversed and the
/// list is re-ordered depth-first from `r` (parent-first). End markers cannot become roots.
pub fn reroot(joints: &mut Vec<RigJoint>, r: usize) -> Result<Renumbering, EditError> {
    if joints[r].end {
        return Err(EditError::Refused {
            op: "reroot",
            reason: format!("{} is an end marker", joints[r].name),
        });
    }
    let mut path = vec![r];
    while let Some(p) = joints[*path.last().unwrap_or(&r)].parent {
        path.push(p);
    }
    let mut parent: Vec<Option<usize>> = joints.iter().map(|j| j.parent).collect();
    parent[r] = None;
    for w in path.windows(2) {
        parent[w[1]] = Some(w[0]);
    }
    // Depth-first from r over the new parent links, children in old index order.
    let mut order = Vec::with_capacity(joints.len());
    let mut stack = vec![r];
    while let Some(j) = stack.pop() {
        order.push(j);
        let mut kids: Vec<usize> = (0..joints.len())
            .filter(|&c| parent[c] == Some(j))
            .collect();
        kids.reverse();
        stack.extend(kids);
    }
    // Joints of other trees (several roots) keep their relative order after r's tree.
    for (j, p) in parent.iter().enumerate() {
        if !order.contains(&j) && p.is_none() {
            order.extend(subtree_with(&parent, j));
        }
    }
    let mut renumber = vec![None; joints.len()];
    for (new, &old) in order.iter().enumerate() {
        renumber[old] = Some(new);
    }
    let old = std::mem::take(joints);
    *joints = order
        .iter()
        .map(|&o| RigJoint {
            parent: parent[o].and_then(|p| renumber[p]),
            ..old[o].clone()
        })
        .collect();
    Ok(renumber)
}

fn subtree_with(parent: &[Option<usize>], j: usize) -> Vec<usize> {
    let mut out = vec![j];
    let mut i = 0;
    while i < out.len() {
        let cur = out[i];
        out.extend((0..parent.len()).filter(|&c| parent[c] == Some(cur)));
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joint(name: &str, parent: Option<usize>, p: [f64; 3]) -> RigJoint {
        RigJoint {
            name: name.into(),
            parent,
            position: p,
            end: false,
        }
    }

    fn chain() -> Vec<RigJoint> {
        vec![
            joint("root", None, [0.0, 0.0, 0.0]),
            joint("a", Some(0), [0.0, 1.0, 0.0]),
            joint("b", Some(1), [0.1, 2.0, 0.05]),
            joint("c", Some(2), [0.3, 3.0, -0.02]),
            joint("d", Some(3), [0.2, 4.0, 0.0]),
        ]
    }

    #[test]
    fn insert_and_delete_keep_parent_first_and_renumber() {
        let mut j = chain();
        let (n, map) = insert(&mut j, 2, 0.25, "mid").expect("insert");
        assert_eq!((n, j.len()), (2, 6));
        assert_eq!(j[2].parent, Some(1));
        assert_eq!(j[3].name, "b");
        assert_eq!(j[3].parent, Some(2));
        assert_eq!(map[2], Some(3));
        assert!((j[2].position[1] - 1.25).abs() < 1e-12);
        for (i, jt) in j.iter().enumerate() {
            assert!(jt.parent.is_none_or(|p| p < i));
        }
        let (parent, map) = delete(&mut j, 2).expect("delete");
        assert_eq!(parent, 1);
        assert_eq!(map[2], None);
        assert_eq!(j, chain());
        assert!(matches!(delete(&mut j, 0), Err(EditError::Refused { .. })));
    }

    #[test]
    fn align_puts_the_chain_on_one_plane_and_keeps_the_ends() {
        let mut j = chain();
        let before = j.clone();
        let (order, up) = align(&mut j, &[3, 1, 2, 4]).expect("align");
        assert_eq!(order, vec![1, 2, 3, 4]);
        assert_eq!(j[1].position, before[1].position);
        assert_eq!(j[4].position, before[4].position);
        let (h, l) = (j[1].point(), j[4].point());
        let n = (l - h).cross(&V3::from(up)).normalize();
        for &k in &order {
            let d = (j[k].point() - h).dot(&n);
            assert!(d.abs() < 1e-9 * 4.0, "joint {k} off the plane by {d}");
        }
        assert!(align(&mut j, &[1, 3, 4]).is_err(), "not contiguous");
    }

    #[test]
    fn up_vector_points_from_chord_to_middle_joint() {
        let u = up_vector(
            &P3::new(0.0, 0.0, 0.0),
            &P3::new(0.3, 1.0, 0.0),
            &P3::new(0.0, 2.0, 0.0),
        )
        .expect("bent");
        assert!((u - V3::new(1.0, 0.0, 0.0)).norm() < 1e-12);
        assert!(up_vector(
            &P3::origin(),
            &P3::new(0.0, 1.0, 0.0),
            &P3::new(0.0, 2.0, 0.0)
        )
        .is_none());
    }

    #[test]
    fn reroot_reverses_the_path() {
        let mut j = chain();
        let map = reroot(&mut j, 2).expect("reroot");
        assert_eq!(j[0].name, "b");
        assert_eq!(map[2], Some(0));
        for (i, jt) in j.iter().enumerate() {
            assert!(jt.parent.is_none_or(|p| p < i));
        }
        let a = find(&j, "a").expect("a");
        let root = find(&j, "root").expect("root");
        assert_eq!(j[a].parent, Some(0));
        assert_eq!(j[root].parent, Some(a));
    }
}
