//! The bind pose of a skinned glTF, for files saved with an animation frame as their default pose.
//!
//! Why the bind pose: it is the pose the artist skinned the mesh in, and the pose importers show
//! as the rest pose (Blender's glTF importer builds the armature's rest from the inverse bind
//! matrices). Blender's exporter writes the nodes at the current frame, so a file's default pose
//! can be any frame of any clip (mid-run, aiming, falling): arbitrary for rigging. In glTF (2.0
//! §3.7.3, skins) a vertex is placed at `Σ w · W(joint) · IBM(joint) · v` and the skinned mesh
//! node's own transform is ignored; at the bind pose each joint's world matrix is
//! `inverse(IBM)`, so the skinned positions are the stored POSITIONs.
//!
//! Rules (`docs/algorithms.md`, "glTF: the bind pose"):
//! * **When the default pose already is a bind pose, nothing changes.** That holds when every
//!   joint of a skin has the same `W · IBM` (one placement `C` of the whole skin: an armature
//!   node turned Z-up to Y-up, a scale), compared in linear part and at the joint's bind
//!   position relative to the skeleton's size. The file is then read exactly as before.
//! * Otherwise the joints of each such skin are put at `inverse(IBM)` (`C` = identity: a frame
//!   may move and turn the root, so no placement can be recovered from it).
//! * Nodes under a moved joint that are not joints themselves (a sword, a helmet: unskinned
//!   props) keep their local transforms below their joint's *bind* world, so they stay in the hand.
//!   Nodes under no moved joint keep their default world.
//! * Several skins: each is tested on its own; a joint listed by several posed skins takes the
//!   first one's inverse bind matrix (document order).
//! * A skin without `inverseBindMatrices` (identity per the spec: "pre-applied") records no bind
//!   pose of its own (every joint would sit at the origin), so it is left at the default pose.

use nalgebra::{Matrix4, Vector4};

use super::gltf_data::{read, Buffers};
use super::LoadError;

/// Largest difference between two skin matrices' linear parts (dimensionless) still taken as
/// the same placement. f32 storage rounds at ~1e-7; the corpus's bind-pose files differ by at
/// most 7e-5 (monster), posed frames by 0.1–2.
const LINEAR_TOLERANCE: f64 = 1e-3;
/// The same for positions, as a fraction of the skeleton's size (corpus bind-pose files: at most
/// 1e-5; posed frames: 0.3–1.2).
const POSITION_TOLERANCE: f64 = 1e-3;

/// What [`bind_pose`] found: which skins were off their bind pose and how many of their joints
/// moved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Rebound {
    /// Skins whose default pose is not a bind pose (document order).
    pub skins: Vec<usize>,
    /// Joints of those skins that the default pose moves off their bind place.
    pub moved: usize,
    /// Joints of those skins.
    pub joints: usize,
    /// The joint nodes put at their bind world (ascending).
    pub nodes: Vec<usize>,
}

/// A skin joint: its node and its inverse bind matrix.
type SkinJoint = (usize, Matrix4<f64>);

/// Per node its world transform at the bind pose, and what was re-placed.
pub(crate) type BindWorlds = (Vec<Matrix4<f64>>, Rebound);

/// The node world transforms at the bind pose, or `None` when the default pose already is one.
/// `world` is the default pose; `parent` and `local` describe the node tree.
pub(crate) fn bind_pose(
    doc: &gltf::Document,
    buffers: &Buffers,
    parent: &[Option<usize>],
    local: &[Matrix4<f64>],
    world: &[Matrix4<f64>],
) -> Result<Option<BindWorlds>, LoadError> {
    let mut bind: Vec<Option<Matrix4<f64>>> = vec![None; world.len()];
    let mut rebound = Rebound::default();
    for skin in doc.skins() {
        let Some(joints) = skin_joints(&skin, buffers, world.len())? else {
            continue;
        };
        let Some(first) = joints.first().map(|&(node, ibm)| world[node] * ibm) else {
            continue;
        };
        if off_placement(&joints, world, &first) == 0 {
            continue;
        }
        rebound.skins.push(skin.index());
        rebound.moved += off_placement(&joints, world, &Matrix4::identity());
        rebound.joints += joints.len();
        for (node, ibm) in joints {
            if bind[node].is_none() {
                bind[node] = ibm
                    .try_inverse()
                    .filter(|b| b.iter().all(|x| x.is_finite()));
            }
        }
    }
    if rebound.skins.is_empty() {
        return Ok(None);
    }
    rebound.nodes = (0..bind.len()).filter(|&i| bind[i].is_some()).collect();
    Ok(Some((place_below(&bind, parent, local, world), rebound)))
}

/// A skin's joints as (node, inverse bind matrix), nodes within `nodes`; `None` for a skin
/// without inverse bind matrices.
fn skin_joints(
    skin: &gltf::Skin,
    buffers: &Buffers,
    nodes: usize,
) -> Result<Option<Vec<SkinJoint>>, LoadError> {
    let Some(acc) = skin.inverse_bind_matrices() else {
        return Ok(None);
    };
    let ibm = read(&acc, buffers)?;
    Ok(Some(
        skin.joints()
            .enumerate()
            .filter_map(|(k, j)| {
                let m = Some(ibm.get(k)).filter(|m| m.len() == 16)?;
                let m = Matrix4::from_column_slice(m);
                Some((j.index(), m)).filter(|_| j.index() < nodes)
            })
            .collect(),
    ))
}

/// Whether every joint of `skin` has one skin matrix `W · IBM` other than the identity at the
/// default pose `world`: the whole skin placed by one transform (an armature turned Z-up to Y-up,
/// or scaled), so skinning moves every vertex by it and the pose itself is the bind pose.
pub(crate) fn one_placement(
    skin: &gltf::Skin,
    buffers: &Buffers,
    world: &[Matrix4<f64>],
) -> Result<bool, LoadError> {
    let Some(joints) = skin_joints(skin, buffers, world.len())? else {
        return Ok(false);
    };
    let Some(first) = joints.first().map(|&(node, ibm)| world[node] * ibm) else {
        return Ok(false);
    };
    Ok(off_placement(&joints, world, &first) == 0
        && off_placement(&joints, world, &Matrix4::identity()) > 0)
}

/// How many joints of a skin have a skin matrix `W · IBM` other than `placement`: with the first
/// joint's, 0 when the whole skin is one placement of its bind pose (the default pose is a bind
/// pose); with the identity, the joints away from where the bind pose puts them.
fn off_placement(
    joints: &[(usize, Matrix4<f64>)],
    world: &[Matrix4<f64>],
    placement: &Matrix4<f64>,
) -> usize {
    // The skeleton's size: the largest side of its bind joints' bounding box.
    let at: Vec<Vector4<f64>> = joints
        .iter()
        .map(|(_, ibm)| {
            let b = ibm.try_inverse().unwrap_or_else(Matrix4::identity);
            b.column(3).into_owned()
        })
        .collect();
    let size = (0..3)
        .map(|r| {
            let (lo, hi) = at.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
                (lo.min(p[r]), hi.max(p[r]))
            });
            hi - lo
        })
        .fold(0.0, f64::max);
    joints
        .iter()
        .zip(&at)
        .filter(|(&(node, ibm), p)| {
            let m = world[node] * ibm;
            let linear = (m - placement).fixed_view::<3, 3>(0, 0).amax();
            // Where the joint's bind position lands under its own matrix and under `placement`.
            let shift = (m * *p - placement * *p).xyz().norm();
            !(linear <= LINEAR_TOLERANCE && shift <= POSITION_TOLERANCE * size)
        })
        .count()
}

/// World transforms with the joints of `bind` at their bind world and every node below them
/// re-placed through its local transforms; nodes under no such joint keep `world` exactly.
/// Nodes caught in a parent cycle (malformed files) keep `world`.
fn place_below(
    bind: &[Option<Matrix4<f64>>],
    parent: &[Option<usize>],
    local: &[Matrix4<f64>],
    world: &[Matrix4<f64>],
) -> Vec<Matrix4<f64>> {
    let n = world.len();
    let mut children = vec![Vec::new(); n];
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = p.filter(|&p| p < n) {
            children[p].push(i);
        }
    }
    let mut out = world.to_vec();
    // Depth-first from the roots, with whether the node hangs below a re-placed joint.
    let mut stack: Vec<(usize, bool)> = (0..n)
        .filter(|&i| parent.get(i).copied().flatten().is_none())
        .map(|i| (i, false))
        .collect();
    while let Some((i, below)) = stack.pop() {
        let below = match (bind[i], below, parent.get(i).copied().flatten()) {
            (Some(b), _, _) => {
                out[i] = b;
                true
            }
            (None, true, Some(p)) => {
                out[i] = out[p] * local[i];
                true
            }
            _ => false,
        };
        stack.extend(children[i].iter().map(|&c| (c, below)));
    }
    out
}

/// The local transform that puts node `i` at `world[i]` under its parent's `world`.
pub(crate) fn local_at(world: &[Matrix4<f64>], parent: &[Option<usize>], i: usize) -> Matrix4<f64> {
    match parent.get(i).copied().flatten() {
        Some(p) => world[p].try_inverse().unwrap_or_else(Matrix4::identity) * world[i],
        None => world[i],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: f64, y: f64, z: f64) -> Matrix4<f64> {
        Matrix4::new_translation(&nalgebra::Vector3::new(x, y, z))
    }

    #[test]
    fn one_placement_of_the_whole_skin_is_a_bind_pose() {
        // Two joints at (0,0,0) and (0,1,0) at bind; the file places both turned 90° and moved.
        let ibm = [at(0.0, 0.0, 0.0), at(0.0, -1.0, 0.0)];
        let c = at(3.0, 0.0, 0.0)
            * Matrix4::from_axis_angle(&nalgebra::Vector3::x_axis(), std::f64::consts::FRAC_PI_2);
        let world = [c, c * at(0.0, 1.0, 0.0)];
        let joints = [(0, ibm[0]), (1, ibm[1])];
        assert_eq!(off_placement(&joints, &world, &c), 0);
        assert_eq!(off_placement(&joints, &world, &Matrix4::identity()), 2);
        // Bend the second joint: it alone moves.
        let bent = [c, c * at(0.0, 0.0, 1.0)];
        assert_eq!(off_placement(&joints, &bent, &c), 1);
    }

    #[test]
    fn a_prop_under_a_moved_joint_follows_it_and_others_stay() {
        // 0: root (not a joint), 1: joint under it, 2: prop under the joint, 3: lone node.
        let parent = [None, Some(0), Some(1), None];
        let local = [
            at(1.0, 0.0, 0.0),
            at(0.0, 2.0, 0.0),
            at(0.0, 0.0, 1.0),
            at(5.0, 0.0, 0.0),
        ];
        let world = [
            local[0],
            local[0] * local[1],
            local[0] * local[1] * local[2],
            local[3],
        ];
        let bind = [None, Some(at(0.0, 7.0, 0.0)), None, None];
        let out = place_below(&bind, &parent, &local, &world);
        assert_eq!(out[0], world[0]);
        assert_eq!(out[1], at(0.0, 7.0, 0.0));
        assert_eq!(out[2], at(0.0, 7.0, 1.0));
        assert_eq!(out[3], world[3]);
        assert!((local_at(&out, &parent, 1) - at(-1.0, 7.0, 0.0)).amax() < 1e-12);
    }
}
