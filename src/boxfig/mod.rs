//! Figures built from boxes (Minecraft and Minetest players and mobs): the multi-component idea
//! (Bharaj et al. 2012: rigid pieces, joints where pieces meet, a template limb per branch of the
//! part tree) on the mesh's closed convex pieces ([`crate::confidence::pieces`]) instead of its
//! shells.
//!
//! Why not the multi-component path as it is (measured in `bench/results.md`, "Box-built
//! characters"): boxes welded along a shared face are one shell there, not one component each;
//! sibling limbs that touch (two legs side by side, an arm's lower edge on a leg's top) make
//! cycles that the paper's edge collapse (its A.2) folds into a two-node tree; and a one-box limb's
//! joints follow the template's bone (T-pose: sideways) instead of the box. Here:
//! - pieces are the components (welded boxes split along their shared faces); a piece lying
//!   mostly inside another (a hat shell over the head) rides with it;
//! - the part tree is grown from the trunk, the piece nearest the area centroid (the paper roots at
//!   the most central node, §6), each piece joining the tree at its nearest piece already in it,
//!   ties to the earlier one: touching siblings both join the trunk, so no cycle forms;
//! - template limbs go to the trunk's branches by direction from the trunk (the paper's §8
//!   alignment: mesh and template upright and facing the same way), one each;
//! - a limb's joints run along its boxes' own axes from the contact with its parent, spaced by the
//!   template's bone lengths; the trunk's joints run along the trunk box.
//!
//! Entry: [`fit`]; [`detect`] says whether a mesh is such a figure.

mod limbs;
mod tree;

use tree::gap;

use crate::confidence::pieces::{self, Piece};
use crate::embed::Orientation;
use crate::geom::{Aabb, P3};
use crate::mesh::PreparedMesh;
use crate::skeleton::Skeleton;

pub use limbs::{TemplateLimbs, TrunkMap};

/// Pieces closer than this fraction of the figure's box diagonal touch: the multi-component
/// method's own contact distance.
pub use crate::multipart::CONTACT_FRACTION;

/// A limb leaving the trunk more than 60° away from its template limb's direction is not trusted
/// (cosine below this): halfway between the same direction and a right angle, where the next
/// template limb (an arm beside a leg, a leg beside the head) lies.
pub const MIN_LIMB_COSINE: f64 = 0.5;

/// Pieces that move together: one box, or a box and a shell around it (a hat).
#[derive(Clone, Debug)]
pub struct Group {
    /// Indices into the piece list.
    pub pieces: Vec<usize>,
    /// Union of their boxes (normalized frame).
    pub aabb: Aabb,
    /// Summed area.
    pub area: f64,
}

/// The part tree: groups, the trunk, and each group's parent (`None` for the trunk).
#[derive(Clone, Debug)]
pub struct PartTree {
    /// The pieces the figure is built from.
    pub pieces: Vec<Piece>,
    /// Groups of pieces.
    pub groups: Vec<Group>,
    /// The trunk group.
    pub trunk: usize,
    /// Parent group of each group.
    pub parent: Vec<Option<usize>>,
    /// Contact distance, normalized units.
    pub eps: f64,
}

/// The result: a position per template joint, a bone per shell, and why it may be wrong.
#[derive(Clone, Debug)]
pub struct BoxFit {
    /// One position per template joint, **normalized frame**, template order.
    pub joints: Vec<P3>,
    /// Owning joint per prepared-mesh shell (the joint of its largest piece).
    pub shell_bone: Vec<Option<usize>>,
    /// Owning joint per welded vertex of a shell holding several pieces (boxes welded along a
    /// shared face): the joint of the largest piece whose box holds it, so a shared face stays with
    /// the trunk (the welded corners are one vertex: the limb box hinges there rather than the
    /// trunk box tearing); `None` elsewhere (the shell's joint applies).
    pub vertex_bone: Vec<Option<usize>>,
    /// Why the fit may be wrong (empty when it looks sound).
    pub reasons: Vec<String>,
    /// Per template limb (its end joint's name): `1 − cos` of the angle between its direction
    /// from the trunk and its branch's; `None` when no branch took it.
    pub limb_costs: Vec<(String, Option<f64>)>,
    /// Groups in the part tree.
    pub groups: usize,
}

/// The part tree of `mesh` if it is built from closed convex pieces (they hold at least
/// [`crate::confidence::articulation::BODY_AREA_SHARE`] of the surface, the share that makes a shell the body) and has at least a
/// trunk and one branch; else `None`.
pub fn detect(mesh: &PreparedMesh) -> Option<PartTree> {
    let ps = pieces::box_figure(mesh);
    if ps.len() < 2 {
        return None;
    }
    let tree = PartTree::new(ps, &Aabb::of_points(&mesh.positions));
    (tree.groups.len() >= 2).then_some(tree)
}

/// Fit `template` placed in orientation `o` to the part tree of `mesh`.
pub fn fit(mesh: &PreparedMesh, tree: &PartTree, template: &Skeleton, o: Orientation) -> BoxFit {
    let tl = TemplateLimbs::new(template);
    let trunk_box = &tree.groups[tree.trunk].aabb;
    let map = TrunkMap::new(&tl, template, trunk_box, o);
    let mut joints = vec![P3::origin(); template.joints.len()];
    for &j in &tl.trunk {
        joints[j] = map.place(template, j);
    }
    let branches = tree.branches();
    let matched = limbs::assign(&tl, template, tree, &branches, o);
    let mut reasons = Vec::new();
    let mut limb_costs = Vec::new();
    let mut group_joint: Vec<Option<usize>> = vec![None; tree.groups.len()];
    for (li, chain) in tl.limbs.iter().enumerate() {
        let name = template.joints[*chain.last().unwrap_or(&0)].name.clone();
        let root = map.place(template, chain[0]);
        match matched[li] {
            Some((b, cos)) => {
                let path = tree.path(branches[b]);
                limbs::place_chain(template, chain, root, &path, tree, &mut joints);
                for &g in &path {
                    group_joint[g] =
                        Some(limbs::owner(template, chain, &joints, &tree.groups[g].aabb));
                }
                if cos < MIN_LIMB_COSINE {
                    reasons.push(format!(
                        "box figure: the {name} limb leaves the trunk {:.0}° away from its template direction",
                        cos.clamp(-1.0, 1.0).acos().to_degrees()
                    ));
                }
                limb_costs.push((name, Some(round(1.0 - cos))));
            }
            None => {
                for &j in chain {
                    joints[j] = root;
                }
                if !chain.iter().all(|&j| template.joints[j].optional) {
                    reasons.push(format!("box figure: no box for the {name} limb"));
                }
                limb_costs.push((name, None));
            }
        }
    }
    let trunk_joint = limbs::owner(template, &tl.trunk, &joints, &tree.groups[tree.trunk].aabb);
    group_joint[tree.trunk] = Some(trunk_joint);
    reasons.extend(unposed(tree, &branches, &matched, &mut group_joint));
    BoxFit {
        joints,
        shell_bone: shell_bones(mesh, tree, &group_joint, trunk_joint),
        vertex_bone: vertex_bones(mesh, tree, &group_joint),
        reasons,
        limb_costs,
        groups: tree.groups.len(),
    }
}

/// Round a cost so that mirror-image fits (equal up to float noise) tie exactly.
fn round(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}

/// Branches no template limb took: their groups ride with their parent; a branch as large as
/// the smallest one that took a limb is a body part the rig cannot move (a reason).
fn unposed(
    tree: &PartTree,
    branches: &[usize],
    matched: &[Option<(usize, f64)>],
    group_joint: &mut [Option<usize>],
) -> Option<String> {
    let taken: Vec<usize> = matched.iter().flatten().map(|m| m.0).collect();
    let least = taken
        .iter()
        .map(|&b| tree.subtree_volume(branches[b]))
        .fold(f64::INFINITY, f64::min);
    let mut big = 0;
    for (b, &g) in branches.iter().enumerate() {
        if taken.contains(&b) {
            continue;
        }
        if tree.subtree_volume(g) >= least * (1.0 - 1e-6) {
            big += 1;
        }
    }
    // Unposed groups (and groups off a limb's path) follow the nearest posed ancestor.
    for g in tree.order() {
        if group_joint[g].is_none() {
            group_joint[g] = tree.parent[g].and_then(|p| group_joint[p]);
        }
    }
    (big > 0).then(|| {
        format!(
            "box figure: {big} of {} branches of boxes as large as a posed one hold no bone",
            branches.len()
        )
    })
}

/// The joint of each shell: that of its largest piece's group (`trunk_joint` if none).
fn shell_bones(
    mesh: &PreparedMesh,
    tree: &PartTree,
    group_joint: &[Option<usize>],
    trunk_joint: usize,
) -> Vec<Option<usize>> {
    let mut best: Vec<(f64, Option<usize>)> = vec![(-1.0, None); mesh.shells.len()];
    for (g, group) in tree.groups.iter().enumerate() {
        for &p in &group.pieces {
            let piece = &tree.pieces[p];
            let j = group_joint[g].or(Some(trunk_joint));
            if piece.area > best[piece.shell].0 {
                best[piece.shell] = (piece.area, j);
            }
        }
    }
    best.into_iter()
        .map(|b| b.1.or(Some(trunk_joint)))
        .collect()
}

/// The joint of each welded vertex in a shell of several pieces: its largest piece's group's.
fn vertex_bones(
    mesh: &PreparedMesh,
    tree: &PartTree,
    group_joint: &[Option<usize>],
) -> Vec<Option<usize>> {
    let mut group_of = vec![0; tree.pieces.len()];
    for (g, group) in tree.groups.iter().enumerate() {
        for &p in &group.pieces {
            group_of[p] = g;
        }
    }
    let mut out = vec![None; mesh.positions.len()];
    for (s, shell) in mesh.shells.iter().enumerate() {
        let mine: Vec<usize> = (0..tree.pieces.len())
            .filter(|&p| tree.pieces[p].shell == s)
            .collect();
        if mine.len() < 2 {
            continue;
        }
        for &v in &shell.vertices {
            let at = &mesh.positions[v as usize];
            let holds = |p: &usize| {
                let pc = &tree.pieces[*p];
                (0..3).all(|k| at[k] >= pc.aabb.min[k] - pc.tol && at[k] <= pc.aabb.max[k] + pc.tol)
            };
            let best = mine
                .iter()
                .filter(|p| holds(p))
                .max_by(|&&a, &&b| tree.pieces[a].volume().total_cmp(&tree.pieces[b].volume()));
            out[v as usize] = best.and_then(|&p| group_joint[group_of[p]]);
        }
    }
    out
}
