//! Control joints of an artist's skeleton: joints that deform nothing (a ground-level root under
//! the feet, a camera or IK target parked outside the body), found from the geometry alone and
//! marked as end markers so that they own no vertices (docs/algorithms.md#skin-control-joints).
//!
//! Heat diffusion assumes the skeleton lies inside the surface (Baran & Popović 2007 §4). An
//! artist's skeleton often carries joints that do not: a root on the ground with a bone up into
//! the hips, or a lone node placed beside the character. Such a bone's inside stretch (the part
//! between the skin and the hips) is as near to the pelvis vertices as the pelvis bones are, so
//! heat diffusion gives it a share of them, while the artist weights it nothing: the hips then
//! follow the root's transform in part instead of the hip joint's. The rule is the geometric reading of "not part of the body": a joint
//! that lies outside the surface and whose own bones lie mostly outside it (more than half of
//! each bone's length, sampled along it) is a control. A joint outside with a bone mostly inside
//! (an arm cut off at the wrist whose root lies past the opening, a fish whose root sits on its
//! thin skin) deforms, and leaves keep their usual treatment (their virtual segment is empty when
//! they start outside). Measured on the corpus' and the held-out artist skeletons: every joint
//! this rule marks carries no artist weight (bench/results.md, "Skin weights on one-shell
//! characters").
//!
//! Exporters also name the marker at a chain's tip, which deforms nothing: 3ds Max's `…Nub`,
//! Mixamo's and Blender's leaf bones `…_End`, BVH's `End Site` ([`end_named`]). Such a leaf is an
//! end marker too (our own templates mark their `…_End` joints the same way). Without it, a nub
//! inside the head gets a virtual segment to the crown and owns the top of the skull, which the
//! artist gives to the skull bone.
//!
//! A rigged file says more than the geometry: its own binding leaves the bones with deforming off
//! (IK goals and poles inside the limbs, a root, finger nulls) unweighted. `attach --skeleton-from`
//! an artist's file with a skin marks those joints first ([`unbound`]); the geometric rules then
//! catch what a file without a skin cannot say. Only which joints the binding uses is read, never
//! a weight.

use rayon::prelude::*;

use super::bones::MARCH_STEP;
use super::heat::VISIBILITY_TOLERANCE;
use crate::geom::P3;
use crate::mesh::PreparedMesh;
use crate::skeleton::rigged::RigJoint;

/// Which joints of `joints` (`(position, parent, end)`, **normalized frame**) are controls (module
/// docs). Joints already marked as end markers are not reported. Marks nothing when no unmarked
/// joint lies inside: a skeleton wholly outside its mesh (a misplaced import) keeps its bones.
pub fn controls(
    joints: &[(P3, Option<usize>, bool)],
    sdf: &(dyn Fn(&P3) -> f64 + Sync),
) -> Vec<bool> {
    let n = joints.len();
    let mut children = vec![Vec::new(); n];
    for (c, j) in joints.iter().enumerate() {
        if let Some(p) = j.1.filter(|&p| p < n && p != c) {
            children[p].push(c);
        }
    }
    let outside = |p: &P3| sdf(p) > VISIBILITY_TOLERANCE;
    // Each joint's test reads the field at its own points only: on every core, in index order.
    let marked: Vec<bool> = (0..n)
        .into_par_iter()
        .map(|j| {
            let joint = &joints[j];
            // A leaf with a parent keeps its treatment; a lone joint is its own (point) bone.
            let lone = children[j].is_empty() && joint.1.is_none_or(|p| p >= n || p == j);
            if joint.2 || !outside(&joint.0) || (children[j].is_empty() && !lone) {
                return false;
            }
            children[j]
                .iter()
                .all(|&c| mostly_outside(&joint.0, &joints[c].0, &outside))
        })
        .collect();
    let inside_owner = (0..n).any(|j| !joints[j].2 && !marked[j] && !outside(&joints[j].0));
    if !inside_owner {
        return vec![false; n];
    }
    marked
}

/// True if more than half of the samples along `a → b` (every [`MARCH_STEP`], `a` excluded, `b`
/// included) are outside; a zero-length bone is its end point.
fn mostly_outside(a: &P3, b: &P3, outside: &dyn Fn(&P3) -> bool) -> bool {
    let len = (b - a).norm();
    let steps = (len / MARCH_STEP).ceil().max(1.0) as usize;
    let out = (1..=steps)
        .filter(|&i| outside(&(a + (b - a) * (i as f64 / steps as f64))))
        .count();
    2 * out > steps
}

/// `joints` with every control joint (see [`controls`]) marked as an end marker, and a warning
/// naming those newly marked (none if none). `sdf` is the signed distance in `mesh`'s normalized
/// frame.
pub fn mark_controls(
    joints: &[RigJoint],
    mesh: &PreparedMesh,
    sdf: &(dyn Fn(&P3) -> f64 + Sync),
) -> (Vec<RigJoint>, Option<String>) {
    let norm = &mesh.normalization;
    let tuples: Vec<(P3, Option<usize>, bool)> = joints
        .iter()
        .map(|j| (norm.to_normalized(&j.point()), j.parent, j.end))
        .collect();
    let marked = controls(&tuples, sdf);
    let mut has_child = vec![false; joints.len()];
    for (c, j) in joints.iter().enumerate() {
        if let Some(p) = j.parent.filter(|&p| p < joints.len() && p != c) {
            has_child[p] = true;
        }
    }
    let (mut outside, mut named) = (Vec::new(), Vec::new());
    let out = joints
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let mut j = j.clone();
            if !j.end && marked[i] {
                outside.push(j.name.clone());
                j.end = true;
            } else if !j.end && !has_child[i] && end_named(&j.name) {
                named.push(j.name.clone());
                j.end = true;
            }
            j
        })
        .collect();
    let mut warnings = Vec::new();
    if !outside.is_empty() {
        warnings.push(format!(
            "{} outside the mesh with bones mostly outside it, taken as controls owning no vertices: {}",
            crate::util::count(outside.len(), "joint lies", "joints lie"),
            super::shells::summarize(&outside)
        ));
    }
    if !named.is_empty() {
        warnings.push(format!(
            "{} named as chain-end markers, owning no vertices: {}",
            crate::util::count(named.len(), "leaf is", "leaves are"),
            super::shells::summarize(&named)
        ));
    }
    (out, (!warnings.is_empty()).then(|| warnings.join("; ")))
}

/// The joints a rigged file's own binding never uses: not an end marker, and no vertex of `skin`
/// (rows of `(joint, weight)`, the file's joint order) gives it a weight above zero. In the
/// artist's tool such a joint is a bone with deforming switched off (Blender's "Deform" box, an
/// FBX bone without a skin cluster: IK goals, poles, a root, finger nulls), so it is part of the
/// skeleton the file states, not of its weights (docs/algorithms.md#skin-control-joints). Marks
/// nothing when the binding uses no joint at all (an empty or broken skin states nothing).
pub fn unbound(joints: &[RigJoint], skin: &[Vec<(u32, f64)>]) -> Vec<bool> {
    let mut used = vec![false; joints.len()];
    for &(j, w) in skin.iter().flatten() {
        if w > 0.0 {
            if let Some(u) = used.get_mut(j as usize) {
                *u = true;
            }
        }
    }
    if !used.iter().any(|&u| u) {
        return vec![false; joints.len()];
    }
    joints
        .iter()
        .zip(&used)
        .map(|(j, &u)| !j.end && !u)
        .collect()
}

/// `joints` with every joint `marked` ([`unbound`] by the file's skin) made an end marker, and a
/// warning naming them (none if none).
pub fn mark_unbound(joints: &[RigJoint], marked: &[bool]) -> (Vec<RigJoint>, Option<String>) {
    let mut names = Vec::new();
    let out = joints
        .iter()
        .zip(marked)
        .map(|(j, &m)| {
            let mut j = j.clone();
            if m {
                names.push(j.name.clone());
                j.end = true;
            }
            j
        })
        .collect();
    let warning = (!names.is_empty()).then(|| {
        format!(
            "{} the skeleton file's own skin never uses (a bone with deforming off: IK goal, pole, \
             root, helper), taken as end markers owning no vertices (--weight-every-joint weights \
             them): {}",
            crate::util::count(names.len(), "joint", "joints"),
            super::shells::summarize(&names)
        )
    });
    (out, warning)
}

/// True for the names exporters give to a chain's tip marker (module docs): ending in `nub`,
/// `_end`, ` end` or `end site`, or `end` alone, in any case.
pub fn end_named(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    n == "end"
        || ["nub", "_end", " end", "end site"]
            .iter()
            .any(|s| n.ends_with(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ground_root_and_a_lone_outside_joint_are_controls() {
        let sdf = |p: &P3| p.coords.norm() - 1.0; // unit ball
        let joints = vec![
            (P3::new(0.0, -2.0, 0.0), None, false), // ground root, bone mostly outside
            (P3::new(0.0, -0.5, 0.0), Some(0), false), // hips
            (P3::new(0.0, 0.5, 0.0), Some(1), false), // chest (a leaf)
            (P3::new(3.0, 0.0, 0.0), None, false),  // a camera beside the body
            (P3::new(0.0, 1.2, 0.0), Some(2), false), // a head leaf poking out: kept
            (P3::new(0.0, 1.05, 0.0), None, false), // a root just outside, bone into the body
            (P3::new(0.0, 0.0, 0.5), Some(5), false),
        ];
        let c = controls(&joints, &sdf);
        assert_eq!(c, vec![true, false, false, true, false, false, false]);
    }

    #[test]
    fn tip_marker_names() {
        for n in [
            "Bone_skull_nub",
            "Bip01 L Toe0Nub",
            "HeadTop_End",
            "spine_end",
            "End Site",
        ] {
            assert!(end_named(n), "{n}");
        }
        for n in ["thm_end.L", "Bip01_Head", "endocrine", "Friend", "hand.R"] {
            assert!(!end_named(n), "{n}");
        }
    }

    #[test]
    fn joints_the_files_skin_never_uses_are_unbound() {
        let j = |name: &str, parent: Option<usize>, end: bool| RigJoint {
            name: name.into(),
            parent,
            position: [0.0; 3],
            end,
        };
        let joints = vec![
            j("Root", None, false),
            j("Hips", Some(0), false),
            j("IK_foot", Some(0), false),
            j("Head_End", Some(1), true),
        ];
        // Root only in a zero slot, IK_foot never: both unbound; the end marker is not reported.
        let skin = vec![vec![(1, 1.0), (0, 0.0)], vec![(1, 0.5)]];
        assert_eq!(unbound(&joints, &skin), vec![true, false, true, false]);
        let (out, warning) = mark_unbound(&joints, &unbound(&joints, &skin));
        assert!(out[0].end && !out[1].end && out[2].end && out[3].end);
        let w = warning.expect("a warning");
        assert!(
            w.starts_with("2 joints") && w.contains("Root, IK_foot"),
            "{w}"
        );
        // A skin that uses nothing states nothing.
        assert_eq!(unbound(&joints, &[vec![], vec![(2, 0.0)]]), vec![false; 4]);
        assert!(mark_unbound(&joints, &unbound(&joints, &[])).1.is_none());
    }

    #[test]
    fn a_skeleton_wholly_outside_keeps_its_bones() {
        let sdf = |p: &P3| p.coords.norm() - 1.0;
        let joints = vec![
            (P3::new(0.0, 3.0, 0.0), None, false),
            (P3::new(0.0, 4.0, 0.0), Some(0), false),
        ];
        assert_eq!(controls(&joints, &sdf), vec![false, false]);
    }
}
