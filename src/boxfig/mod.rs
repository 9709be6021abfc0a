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

use crate::confidence::pieces::{self, Piece};
use crate::embed::Orientation;
use crate::geom::{Aabb, P3, V3};
use crate::mesh::PreparedMesh;
use crate::skeleton::Skeleton;

pub use limbs::{TemplateLimbs, TrunkMap};

/// Pieces closer than this fraction of the figure's box diagonal touch: the multi-component
/// method's contact distance ([`crate::multipart::MultipartOptions::contact_fraction`]).
pub const CONTACT_FRACTION: f64 = 0.01;

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

impl PartTree {
    /// Group the pieces, pick the trunk, grow the tree.
    pub fn new(pieces: Vec<Piece>, figure: &Aabb) -> Self {
        let eps = CONTACT_FRACTION * figure.extent().norm();
        let groups = group(&pieces);
        let trunk = trunk(&groups, eps);
        let parent = grow(&groups, trunk, eps);
        Self {
            pieces,
            groups,
            trunk,
            parent,
            eps,
        }
    }

    /// The trunk's children: one branch each.
    pub fn branches(&self) -> Vec<usize> {
        (0..self.groups.len())
            .filter(|&g| self.parent[g] == Some(self.trunk))
            .collect()
    }

    fn children(&self, g: usize) -> Vec<usize> {
        (0..self.groups.len())
            .filter(|&c| self.parent[c] == Some(g))
            .collect()
    }

    /// Box volume of `g` and everything below it.
    pub fn subtree_volume(&self, g: usize) -> f64 {
        let e = self.groups[g].aabb.extent();
        e.x * e.y * e.z
            + self
                .children(g)
                .iter()
                .map(|&c| self.subtree_volume(c))
                .sum::<f64>()
    }

    /// From `g` down, each time into the child with the larger subtree (earlier on ties).
    pub fn path(&self, g: usize) -> Vec<usize> {
        let mut out = vec![g];
        let mut at = g;
        loop {
            let next = self.children(at).into_iter().fold(None, |best, c| {
                let v = self.subtree_volume(c);
                match best {
                    Some((_, bv)) if bv >= v => best,
                    _ => Some((c, v)),
                }
            });
            match next {
                Some((c, _)) => {
                    out.push(c);
                    at = c;
                }
                None => return out,
            }
        }
    }

    /// Groups parents first.
    fn order(&self) -> Vec<usize> {
        let mut out = vec![self.trunk];
        let mut k = 0;
        while k < out.len() {
            out.extend(self.children(out[k]));
            k += 1;
        }
        out
    }
}

/// Volume of the overlap of two boxes.
fn overlap(a: &Aabb, b: &Aabb) -> f64 {
    (0..3)
        .map(|k| (a.max[k].min(b.max[k]) - a.min[k].max(b.min[k])).max(0.0))
        .product()
}

fn volume(a: &Aabb) -> f64 {
    let e = a.extent();
    e.x * e.y * e.z
}

/// Pieces whose boxes overlap by at least half the smaller one are one group (a hat shell round
/// a head; welded neighbours only share a face, which has no volume).
fn group(pieces: &[Piece]) -> Vec<Group> {
    let n = pieces.len();
    let mut root: Vec<usize> = (0..n).collect();
    fn find(r: &mut [usize], mut i: usize) -> usize {
        while r[i] != i {
            i = r[i];
        }
        i
    }
    for a in 0..n {
        for b in a + 1..n {
            let (pa, pb) = (&pieces[a].aabb, &pieces[b].aabb);
            if overlap(pa, pb) >= 0.5 * volume(pa).min(volume(pb)) {
                let (ra, rb) = (find(&mut root, a), find(&mut root, b));
                root[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut slot: Vec<Option<usize>> = vec![None; n];
    for (i, piece) in pieces.iter().enumerate() {
        let r = find(&mut root, i);
        let g = *slot[r].get_or_insert_with(|| {
            groups.push(Group {
                pieces: Vec::new(),
                aabb: Aabb::empty(),
                area: 0.0,
            });
            groups.len() - 1
        });
        groups[g].pieces.push(i);
        groups[g].aabb.grow(&piece.aabb.min);
        groups[g].aabb.grow(&piece.aabb.max);
        groups[g].area += piece.area;
    }
    groups
}

/// Distance between two boxes (0 when they touch or overlap).
fn gap(a: &Aabb, b: &Aabb) -> f64 {
    V3::from_fn(|k, _| (a.min[k] - b.max[k]).max(b.min[k] - a.max[k]).max(0.0)).norm()
}

/// The trunk: the group that is the nearest neighbour (within `eps` of the nearest) of the most
/// groups, as the body is of the head and every limb (the paper roots its tree at the most central
/// node, §6); ties to the group nearest the area-weighted centre of all boxes (the body sits where
/// the mass is), then the larger.
fn trunk(groups: &[Group], eps: f64) -> usize {
    let n = groups.len();
    let mut hub = vec![0usize; n];
    for h in 0..n {
        let gaps: Vec<f64> = (0..n)
            .map(|k| {
                if k == h {
                    f64::INFINITY
                } else {
                    gap(&groups[h].aabb, &groups[k].aabb)
                }
            })
            .collect();
        let least = gaps.iter().copied().fold(f64::INFINITY, f64::min);
        for (k, g) in gaps.iter().enumerate() {
            if *g <= least + eps {
                hub[k] += 1;
            }
        }
    }
    let total: f64 = groups.iter().map(|g| g.area).sum();
    let c = groups
        .iter()
        .fold(V3::zeros(), |s, g| s + g.aabb.center().coords * g.area)
        / total.max(1e-300);
    let point = Aabb {
        min: P3::from(c),
        max: P3::from(c),
    };
    (0..n)
        .min_by(|&a, &b| {
            let (ga, gb) = (gap(&groups[a].aabb, &point), gap(&groups[b].aabb, &point));
            hub[b]
                .cmp(&hub[a])
                .then(ga.total_cmp(&gb))
                .then(volume(&groups[b].aabb).total_cmp(&volume(&groups[a].aabb)))
                .then(a.cmp(&b))
        })
        .unwrap_or(0)
}

/// Grow the tree from `trunk` (Prim): the next group is the one nearest a group already in the
/// tree, gaps under `eps` counting as contact; ties go to the group that joined earlier, so two
/// touching siblings both hang from the trunk rather than from each other. (Ties within a whole
/// contact distance were tried: a head 0.064 from its torso slab then hung from an arm 0.14
/// away, `mobs_stone_monster`.)
fn grow(groups: &[Group], trunk: usize, eps: f64) -> Vec<Option<usize>> {
    let n = groups.len();
    let mut parent = vec![None; n];
    let mut order = vec![trunk];
    let mut inside = vec![false; n];
    inside[trunk] = true;
    while order.len() < n {
        let mut cands: Vec<(f64, usize, usize)> = Vec::new();
        for (rank, &p) in order.iter().enumerate() {
            for c in (0..n).filter(|&c| !inside[c]) {
                cands.push((gap(&groups[p].aabb, &groups[c].aabb), rank, c));
            }
        }
        // Gaps under the contact distance are contact (all equal); others equal up to rounding
        // (a millionth of the contact distance). Among the least, the group that joined first
        // takes the new one.
        let key = |g: f64| if g <= eps { 0.0 } else { g };
        let least = cands.iter().map(|c| key(c.0)).fold(f64::INFINITY, f64::min);
        let Some(&(_, rank, c)) = cands
            .iter()
            .filter(|c| key(c.0) <= least + 1e-6 * eps)
            .min_by_key(|c| (c.1, c.2))
        else {
            break;
        };
        parent[c] = Some(order[rank]);
        inside[c] = true;
        order.push(c);
    }
    parent
}
