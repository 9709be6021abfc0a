//! Where a glTF primitive's vertices go in world space ([`super::gltf`]): skinned primitives by
//! linear blend skinning with the joints' world transforms at the pose the file is read in
//! ([`super::gltf_bind`]; `Σ w · W(joint) · IBM · v`), the others by their node's world transform.

use nalgebra::{Matrix4, Vector4};

use super::gltf::Opened;
use super::gltf_data::read;
use super::LoadError;
use crate::geom::P3;

/// A skinned primitive's joints: per skin slot the joint node and its skinning matrix
/// `W(joint) · IBM`, and per vertex `(slot, weight)` pairs with positive weight.
pub(super) struct PrimSkin {
    joint_nodes: Vec<usize>,
    mats: Vec<Matrix4<f64>>,
    per_vertex: Vec<Vec<(usize, f64)>>,
}

/// At most this many JOINTS_n/WEIGHTS_n sets are read.
const MAX_WEIGHT_SETS: u32 = 8;

/// The skin data of a primitive whose node has a skin and which has JOINTS_0/WEIGHTS_0.
pub(super) fn prim_skin(
    o: &Opened,
    node: &gltf::Node,
    prim: &gltf::Primitive,
    count: usize,
) -> Result<Option<PrimSkin>, LoadError> {
    let Some(skin) = node.skin() else {
        return Ok(None);
    };
    let joint_nodes: Vec<usize> = skin.joints().map(|j| j.index()).collect();
    let ibm = match skin.inverse_bind_matrices() {
        Some(acc) => Some(read(&acc, &o.buffers)?),
        None => None,
    };
    let mats = joint_nodes
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            let w = o.world.get(n).copied().unwrap_or_else(Matrix4::identity);
            let ib = ibm
                .as_ref()
                .map(|e| e.get(k))
                .filter(|m| m.len() == 16)
                .map_or_else(Matrix4::identity, Matrix4::from_column_slice);
            w * ib
        })
        .collect();
    let mut per_vertex = vec![Vec::new(); count];
    let mut any = false;
    for set in 0..MAX_WEIGHT_SETS {
        let (Some(ja), Some(wa)) = (
            prim.get(&gltf::Semantic::Joints(set)),
            prim.get(&gltf::Semantic::Weights(set)),
        ) else {
            break;
        };
        let (js, ws) = (read(&ja, &o.buffers)?, read(&wa, &o.buffers)?);
        any = true;
        for (i, list) in per_vertex.iter_mut().enumerate() {
            for (&j, &w) in js.get(i).iter().zip(ws.get(i)) {
                if w > 0.0 && (j as usize) < joint_nodes.len() {
                    list.push((j as usize, w));
                }
            }
        }
    }
    Ok(any.then_some(PrimSkin {
        joint_nodes,
        mats,
        per_vertex,
    }))
}

/// How a primitive's vertices are placed in world space.
pub(super) struct Placement<'a> {
    /// The primitive's skin, if it is skinned.
    pub skin: Option<&'a PrimSkin>,
    /// Its node's world transform.
    pub node_world: Matrix4<f64>,
    /// Where a vertex of a skinned primitive without any weight goes: the node's world
    /// transform, or for a skin read at its bind pose ([`super::gltf_bind`]) the identity, since
    /// skinning at the bind pose leaves every vertex at its stored position whatever its weights.
    pub unweighted: Matrix4<f64>,
    /// Its node.
    pub node: usize,
}

impl Placement<'_> {
    /// World position of vertex `i` with stored position `v`, and (if `want_influences`) the
    /// nodes moving it: linear blend skinning when it has weights, else the node transform.
    pub(super) fn place(
        &self,
        v: &[f64],
        i: usize,
        want_influences: bool,
    ) -> (P3, Vec<(usize, f64)>) {
        let c = |k: usize| v.get(k).copied().unwrap_or(0.0);
        let p = Vector4::new(c(0), c(1), c(2), 1.0);
        let infl: &[(usize, f64)] = self
            .skin
            .and_then(|s| s.per_vertex.get(i))
            .map_or(&[], Vec::as_slice);
        let total: f64 = infl.iter().map(|&(_, w)| w).sum();
        let (q, nodes) = match self.skin {
            Some(s) if total > 0.0 => {
                let q = infl
                    .iter()
                    .map(|&(j, w)| s.mats.get(j).map_or(p, |m| m * p) * w)
                    .sum::<Vector4<f64>>()
                    / total;
                let nodes = if want_influences {
                    infl.iter()
                        .map(|&(j, w)| (s.joint_nodes.get(j).copied().unwrap_or(self.node), w))
                        .collect()
                } else {
                    Vec::new()
                };
                (q, nodes)
            }
            Some(_) => (self.unweighted * p, vec![(self.node, 1.0)]),
            None => (self.node_world * p, vec![(self.node, 1.0)]),
        };
        (P3::new(q.x, q.y, q.z), nodes)
    }
}
