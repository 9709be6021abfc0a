//! After the skin: does the skeleton bend the body at all?
//!
//! A rig exists to deform its mesh. The skin binds a shell that one joint carries almost entirely
//! (`rigid_share`, [`crate::skin::parts`]) to that joint alone, which is right for a helmet or an
//! axe: a prop has no joint inside it. When the shell so bound is the *body* (the shell holding
//! most of the surface), the skeleton's other bones move nothing of it: the joints sit where the
//! shape has no articulation the skin can use (a curve skeleton drawn along a seat that leaves the
//! legs and back boneless, a few long bones through a sitting cat). Such a rig is not a success,
//! whatever its embedding looked like, so it is reported `low_confidence` with this reason.
//!
//! The rule uses only what the skin decided (no new threshold on weights): the dominant shell is
//! the one with at least [`BODY_AREA_SHARE`] of the surface, and it counts as unarticulated when
//! the skin bound it rigidly ([`ShellBinding::Part`] or [`ShellBinding::Rigid`]) although the
//! rig has more than one bone. Meshes of many parts with no dominant one (robots, assemblies) have
//! no body in this sense and are never judged by it; the multi-component method binds such
//! pieces rigidly on purpose and does not come here.

use crate::mesh::PreparedMesh;
use crate::skeleton::rigged::RigJoint;
use crate::skin::{self, ShellBinding, Skin};

/// A shell with at least this share of the mesh's surface area is the body. Half: at most one
/// shell can hold it, and a character's body (as opposed to its props, eyes or armour plates)
/// is that shell in every corpus mesh that has one.
pub const BODY_AREA_SHARE: f64 = 0.5;

/// The reason the rig does not articulate its body, if it does not: the body shell (at least
/// [`BODY_AREA_SHARE`] of the area) follows one joint rigidly while the rig has two or more bones.
pub fn rigid_body(mesh: &PreparedMesh, joints: &[RigJoint], skin: &Skin) -> Option<String> {
    // Most rigs bind no shell rigidly: settle that before measuring any area.
    let rigid: Vec<(usize, &str, Option<f64>)> = skin
        .shells
        .iter()
        .filter_map(|b| match b {
            ShellBinding::Part {
                shell,
                joint,
                share,
                ..
            } => Some((*shell, joint.as_str(), Some(*share))),
            ShellBinding::Rigid { shell, joint, .. } => Some((*shell, joint.as_str(), None)),
            _ => None,
        })
        .collect();
    if rigid.is_empty() || bone_count(joints) < 2 {
        return None;
    }
    let shells = skin::shell_vertex_lists(mesh);
    let area = skin::parts::vertex_areas(&mesh.positions, &mesh.triangles);
    let shell_area: Vec<f64> = shells
        .iter()
        .map(|s| s.iter().filter_map(|&v| area.get(v as usize)).sum())
        .collect();
    let total: f64 = shell_area.iter().sum();
    let (body, &body_area) = shell_area
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))?;
    if total <= 0.0 || body_area < BODY_AREA_SHARE * total {
        return None;
    }
    let &(_, joint, share) = rigid.iter().find(|r| r.0 == body)?;
    let carried = share.map_or(String::new(), |s| {
        format!(" ({:.0} % of its weight)", 100.0 * s)
    });
    Some(format!(
        "the body ({:.0} % of the surface) moves with one joint, {joint}{carried}: the skeleton's \
         other bones do not bend it",
        100.0 * body_area / total
    ))
}

/// Bones: joints with a parent (an end marker's bone counts: a root with two end children is a
/// two-bone rig whose only deforming joint is the root, which bends nothing).
fn bone_count(joints: &[RigJoint]) -> usize {
    joints.iter().filter(|j| j.parent.is_some()).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skin::ShellBinding;

    fn joint(name: &str, parent: Option<usize>) -> RigJoint {
        RigJoint {
            name: name.into(),
            parent,
            position: [0.0; 3],
            end: false,
        }
    }

    /// Two disjoint boxes (two shells, in this order): a big one (the body) and a small one
    /// (a prop).
    fn two_shells() -> PreparedMesh {
        use crate::geom::P3;
        use crate::mesh::{prepare, Mesh};
        let mut m = Mesh::default();
        for (lo, hi) in [
            (P3::new(0.0, 0.0, 0.0), P3::new(1.0, 2.0, 1.0)),
            (P3::new(3.0, 0.0, 0.0), P3::new(3.3, 0.3, 0.3)),
        ] {
            let b = m.positions.len() as u32;
            let (corners, triangles) = crate::geom::box_mesh(lo, hi);
            m.positions.extend(corners);
            m.triangles
                .extend(triangles.into_iter().map(|t| t.map(|i| b + i)));
        }
        prepare(m).expect("prepares")
    }

    fn skin_with(shells: Vec<ShellBinding>) -> Skin {
        Skin {
            shells,
            ..Skin::default()
        }
    }

    fn chain() -> Vec<RigJoint> {
        vec![
            joint("root", None),
            joint("a", Some(0)),
            joint("b", Some(1)),
        ]
    }

    #[test]
    fn a_rigid_body_is_reported_and_a_rigid_prop_is_not() {
        let mesh = two_shells();
        // Which shell is the big box (preparation numbers the shells).
        let area = skin::parts::vertex_areas(&mesh.positions, &mesh.triangles);
        let shell_area = |s: &Vec<u32>| s.iter().map(|&v| area[v as usize]).sum::<f64>();
        let lists = skin::shell_vertex_lists(&mesh);
        let (body, prop) = if shell_area(&lists[0]) > shell_area(&lists[1]) {
            (0, 1)
        } else {
            (1, 0)
        };
        let heat = |shell, vertices| ShellBinding::Heat { shell, vertices };
        let part = |shell, vertices| ShellBinding::Part {
            shell,
            vertices,
            joint: "root".into(),
            share: 0.97,
        };
        // The prop (shell 1) is rigid, the body diffused: fine.
        let ok = skin_with(vec![heat(body, 8), part(prop, 8)]);
        assert_eq!(rigid_body(&mesh, &chain(), &ok), None);
        // The body follows one joint: reported, naming the joint and the body's area share.
        let bad = skin_with(vec![part(body, 8), heat(prop, 8)]);
        let reason = rigid_body(&mesh, &chain(), &bad).expect("rigid body reported");
        assert!(
            reason.contains("root") && reason.contains("97 %"),
            "{reason}"
        );
        // A body bound rigidly because it saw no bone counts as well.
        let unseen = skin_with(vec![
            ShellBinding::Rigid {
                shell: body,
                vertices: 8,
                joint: "a".into(),
            },
            heat(prop, 8),
        ]);
        assert!(rigid_body(&mesh, &chain(), &unseen).is_some());
        // One bone cannot bend anything: a rigid body is all it can do.
        let one_bone = vec![joint("root", None), joint("tip", Some(0))];
        assert_eq!(rigid_body(&mesh, &one_bone, &bad), None);
    }
}
