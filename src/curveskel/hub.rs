//! Tentacles hang from their hub (robust mode). Tentacles radiate from one body, but two of them
//! touching in the primary view merge into one outline stretch, so the chordal axis gives them a
//! junction of their own away from the hub, reached by a chain that is no part (the paper's
//! occlusion limit, §12). A junction reached from a joint that carries tentacles itself, whose
//! every child chain is a tentacle, is such a meeting point: its tentacles hang from that hub, and
//! the junction and the bare chain to it go (the two tentacles' bones run side by side along the
//! stretch the view merged).

use super::joints::Built;

/// Re-hang every tentacle pair (or more) that meets at a side junction from the hub; returns how
/// many junctions went.
pub fn rehang_tentacles(built: &mut Built) -> usize {
    let n = built.joints.len();
    let children = |j: usize| -> Vec<usize> {
        (0..n)
            .filter(|&c| built.joints[c].parent == Some(j))
            .collect()
    };
    let is_tentacle = |c: usize| built.joints[c].name.starts_with("tentacle");
    let mut drop = vec![false; n];
    let mut new_parent: Vec<Option<usize>> = built.joints.iter().map(|j| j.parent).collect();
    let mut gone = 0;
    for j in (0..n).filter(|&j| built.joints[j].name.starts_with("junction_")) {
        let kids = children(j);
        if kids.is_empty() || !kids.iter().all(|&c| is_tentacle(c)) {
            continue;
        }
        // Up a bare chain (one child each, no tentacle) to a joint that carries tentacles.
        let mut chain = vec![j];
        let mut up = built.joints[j].parent;
        while let Some(a) = up {
            if children(a).iter().any(|&c| is_tentacle(c)) || children(a).len() != 1 {
                break;
            }
            chain.push(a);
            up = built.joints[a].parent;
        }
        let Some(hub) = up.filter(|&a| children(a).iter().any(|&c| is_tentacle(c))) else {
            continue;
        };
        for &c in &kids {
            new_parent[c] = Some(hub);
        }
        chain.iter().for_each(|&c| drop[c] = true);
        gone += 1;
    }
    if gone == 0 {
        return 0;
    }
    let mut index = vec![usize::MAX; n];
    let mut kept = Vec::with_capacity(n);
    for (i, mut j) in built.joints.drain(..).enumerate() {
        if drop[i] {
            continue;
        }
        j.parent = new_parent[i];
        index[i] = kept.len();
        kept.push(j);
    }
    // Parents precede children still: a re-hung tentacle's hub is an ancestor of its old junction.
    for j in &mut kept {
        j.parent = j.parent.map(|p| index[p]);
    }
    built.key_count = kept.iter().filter(|j| j.key).count();
    built.branch_count = built.branch_count.saturating_sub(gone);
    built.joints = kept;
    built.pinned.clear();
    gone
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curveskel::joints::BJoint;
    use crate::geom::P3;

    fn j(name: &str, parent: Option<usize>, x: f64, end: bool) -> BJoint {
        BJoint {
            name: name.into(),
            parent,
            pos: P3::new(x, 0.0, 0.0),
            end,
            key: parent.is_none() || end || name.starts_with("junction"),
            r: 0.02,
        }
    }

    #[test]
    fn tentacles_meeting_at_a_side_junction_hang_from_the_hub() {
        let mut built = Built {
            joints: vec![
                j("root", None, 0.0, false),
                j("tentacle_0_0", Some(0), 0.1, true),
                j("branch_1_0", Some(0), -0.1, false),
                j("junction_0", Some(2), -0.2, false),
                j("tentacle_2_0", Some(3), -0.3, true),
                j("tentacle_3_0", Some(3), -0.35, true),
            ],
            key_count: 5,
            branch_count: 4,
            ..Built::default()
        };
        assert_eq!(rehang_tentacles(&mut built), 1);
        let names: Vec<&str> = built.joints.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(
            names,
            ["root", "tentacle_0_0", "tentacle_2_0", "tentacle_3_0"]
        );
        assert!(built.joints[1..].iter().all(|j| j.parent == Some(0)));
        assert_eq!(built.branch_count, 3);
    }

    #[test]
    fn a_junction_with_other_limbs_stays() {
        let mut built = Built {
            joints: vec![
                j("root", None, 0.0, false),
                j("tentacle_0_0", Some(0), 0.1, true),
                j("junction_0", Some(0), -0.2, false),
                j("tentacle_1_0", Some(2), -0.3, true),
                j("branch_2_0", Some(2), -0.35, true),
            ],
            ..Built::default()
        };
        assert_eq!(rehang_tentacles(&mut built), 0);
        assert_eq!(built.joints.len(), 5);
    }
}
