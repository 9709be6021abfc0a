//! Per-shell treatment in the skin: heat diffusion for shells that see a bone, rigid binding for
//! shells that see none or are tiny (Bharaj et al. 2012), and rigid parts that one joint carries
//! after the solve ([`super::parts`]).

use super::bones::Bone;
use super::heat::{self, Source};
use super::weights::Rows;
use super::{ShellBinding, Skin, SkinOptions};
use crate::mesh::PreparedMesh;
use crate::skeleton::rigged::RigJoint;

/// Shells with fewer welded vertices than this (a lone triangle or card) are bound rigidly: there
/// is no surface to diffuse over.
pub(super) const MIN_HEAT_SHELL: usize = 4;

/// Decide per shell: heat diffusion if any of its vertices sees a bone and it is not tiny, else
/// rigid binding to the nearest bone's joint (filled into `rows` here). Records the treatment in
/// `out.shells` and a warning summarizing the rigid ones. Returns the heat-diffused vertices.
pub(super) fn classify_shells(
    mesh: &PreparedMesh,
    sources: &[Option<Source>],
    bones: &[Bone],
    joints: &[RigJoint],
    rows: &mut Rows,
    out: &mut Skin,
) -> Vec<u32> {
    let shells = shell_vertex_lists(mesh);
    let mut heat_vertices = Vec::new();
    let mut rigid = Vec::new();
    for (s, verts) in shells.iter().enumerate() {
        let sees = verts
            .iter()
            .any(|&v| sources.get(v as usize).is_some_and(Option::is_some));
        if sees && verts.len() >= MIN_HEAT_SHELL {
            heat_vertices.extend_from_slice(verts);
            out.shells.push(ShellBinding::Heat {
                shell: s,
                vertices: verts.len(),
            });
        } else {
            let joint = bind_rigid(mesh, verts, bones, rows);
            let name = joint_name(joints, joint);
            rigid.push(format!("shell {s} ({} vertices) → {name}", verts.len()));
            out.shells.push(ShellBinding::Rigid {
                shell: s,
                vertices: verts.len(),
                joint: name,
            });
        }
    }
    if !rigid.is_empty() {
        out.warnings.push(format!(
            "{} of {} shells see no bone (or are tiny) and follow their nearest joint rigidly: {}",
            rigid.len(),
            shells.len(),
            summarize(&rigid)
        ));
    }
    heat_vertices
}

/// Bind the heat-diffused shells that one joint carries (share ≥ `opts.rigid_share`) rigidly to
/// it, and closed convex shells with no bending joint inside to the joint carrying most of them
/// ([`super::parts`]), recording them as [`ShellBinding::Part`] and in one warning per rule.
pub(super) fn bind_parts(
    mesh: &PreparedMesh,
    rows: &mut Rows,
    joints: &[RigJoint],
    opts: &SkinOptions,
    out: &mut Skin,
) {
    if opts.rigid_share > 1.0 {
        return;
    }
    let shells = shell_vertex_lists(mesh);
    let area = super::parts::vertex_areas(&mesh.positions, &mesh.triangles);
    let sides = joint_sides(mesh, joints);
    let (mut by_share, mut by_shape) = (Vec::new(), Vec::new());
    for binding in &mut out.shells {
        let ShellBinding::Heat { shell, vertices } = *binding else {
            continue;
        };
        let Some(verts) = shells.get(shell) else {
            continue;
        };
        if opts.many_parts && articulated(mesh, shell, &sides) {
            continue;
        }
        let part = (opts.rigid_share > 0.0)
            .then(|| convex_part(mesh, shell, &sides))
            .flatten();
        let convex = part.is_some();
        let threshold = if convex { 0.0 } else { opts.rigid_share };
        let Some((heat_j, share)) = super::parts::dominant_joint(verts, rows, &area, threshold)
        else {
            continue;
        };
        let j = part.and_then(|p| p.inside).unwrap_or(heat_j);
        let share = if j == heat_j {
            share
        } else {
            super::parts::joint_share(verts, rows, &area, j)
        };
        for &v in verts {
            rows[v as usize] = vec![(j, 1.0)];
        }
        let joint = joint_name(joints, j);
        let line = format!("shell {shell} → {joint}");
        if convex && (j != heat_j || share < opts.rigid_share) {
            by_shape.push(line);
        } else {
            by_share.push(line);
        }
        *binding = ShellBinding::Part {
            shell,
            vertices,
            joint,
            share,
        };
    }
    if !by_share.is_empty() {
        let w = parts_warning(by_share.len(), shells.len(), opts.rigid_share, &by_share);
        out.warnings.push(w);
    }
    if !by_shape.is_empty() {
        out.warnings.push(format!(
            "{} of {} shells are closed and convex with no bending joint inside: rigid parts that \
             follow the joint inside them, else the one carrying most of their weight: {}",
            by_shape.len(),
            shells.len(),
            summarize(&by_shape)
        ));
    }
}

/// The joints with their bone sides, normalized frame ([`super::parts::joint_sides`]).
fn joint_sides(mesh: &PreparedMesh, joints: &[RigJoint]) -> Vec<super::parts::JointSides> {
    let points: Vec<_> = joints
        .iter()
        .map(|j| mesh.normalization.to_normalized(&j.point()))
        .collect();
    let parents: Vec<Option<usize>> = joints.iter().map(|j| j.parent).collect();
    super::parts::joint_sides(&points, &parents)
}

/// True if prepared shell `shell` is a body part the skeleton bends inside
/// ([`super::parts::articulated`]): on a character built from parts it keeps its diffused weights.
fn articulated(mesh: &PreparedMesh, shell: usize, sides: &[super::parts::JointSides]) -> bool {
    mesh.shells.get(shell).is_some_and(|s| {
        super::parts::articulated(&shell_triangles(mesh, s), &mesh.positions, sides)
    })
}

/// The triangles of a prepared shell (welded indices).
fn shell_triangles(mesh: &PreparedMesh, s: &crate::mesh::Shell) -> Vec<[u32; 3]> {
    s.triangles
        .iter()
        .filter_map(|&t| mesh.triangles.get(t as usize).copied())
        .collect()
}

/// Prepared shell `shell` as a rigid part, if it is closed, convex and holds no bending joint
/// ([`super::parts::convex_part`]).
fn convex_part(
    mesh: &PreparedMesh,
    shell: usize,
    sides: &[super::parts::JointSides],
) -> Option<super::parts::ConvexPart> {
    let s = mesh.shells.get(shell).filter(|s| s.closed)?;
    let tris = shell_triangles(mesh, s);
    super::parts::convex_part(&tris, &mesh.positions, sides)
}

/// The warning for `count` of `total` shells bound as rigid parts. A share of 0 is the many-part
/// rule (`pipeline::attach::skin_options`: every shell follows the joint carrying most of it);
/// it read "one joint carries ≥ 0 % of the weight".
fn parts_warning(count: usize, total: usize, share: f64, bound: &[String]) -> String {
    let rule = if share <= 0.0 {
        "the character is made of many parts: each follows the joint carrying most of its weight"
            .to_owned()
    } else {
        format!("one joint carries ≥ {:.0} % of its weight", 100.0 * share)
    };
    format!(
        "{count} of {total} shells are rigid parts that follow one joint alone ({rule}): {}",
        summarize(bound)
    )
}

/// Bind every vertex of a shell to the joint of the bone that comes closest to the shell.
fn bind_rigid(mesh: &PreparedMesh, verts: &[u32], bones: &[Bone], rows: &mut Rows) -> u32 {
    let best = verts
        .iter()
        .filter_map(|&v| mesh.positions.get(v as usize))
        .filter_map(|p| heat::nearest_bone(p, bones))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(b, _)| bones[b].joint)
        .unwrap_or(bones[0].joint);
    for &v in verts {
        if let Some(r) = rows.get_mut(v as usize) {
            *r = vec![(best, 1.0)];
        }
    }
    best
}

/// Welded vertex lists of the shells: `mesh.shells` when present, else edge-connected
/// components of `mesh.triangles` computed here (the shell indices of [`super::ShellBinding`]).
pub fn shell_vertex_lists(mesh: &PreparedMesh) -> Vec<Vec<u32>> {
    if !mesh.shells.is_empty() {
        return mesh.shells.iter().map(|s| s.vertices.clone()).collect();
    }
    let n = mesh.positions.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut used = vec![false; n];
    for t in &mesh.triangles {
        if t.iter().any(|&v| v as usize >= n) {
            continue;
        }
        for k in 0..3 {
            used[t[k] as usize] = true;
            let (a, b) = (
                find(&mut parent, t[k] as usize),
                find(&mut parent, t[(k + 1) % 3] as usize),
            );
            parent[a] = b;
        }
    }
    let mut index = std::collections::HashMap::new();
    let mut out: Vec<Vec<u32>> = Vec::new();
    for v in (0..n).filter(|&v| used[v]) {
        let root = find(&mut parent, v);
        let s = *index.entry(root).or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[s].push(v as u32);
    }
    out
}

pub(super) fn joint_name(joints: &[RigJoint], j: u32) -> String {
    joints
        .get(j as usize)
        .map_or_else(|| format!("joint {j}"), |j| j.name.clone())
}

/// The first few items, then "and N more".
pub(super) fn summarize(items: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut s = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        s.push_str(&format!(" and {} more", items.len() - SHOWN));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::parts_warning;

    #[test]
    fn parts_warning_states_the_rule_used() {
        let bound = vec!["shell 0 → Hips".to_owned()];
        let many = parts_warning(1, 3, 0.0, &bound);
        assert!(
            !many.contains("0 %") && many.contains("many parts"),
            "{many}"
        );
        let share = parts_warning(1, 3, 0.9, &bound);
        assert!(share.contains("≥ 90 %"), "{share}");
    }
}
