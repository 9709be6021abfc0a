//! glTF 2.0 binary export (gltf-json types): the input mesh (input vertex order, mesh frame and
//! units), the joint hierarchy as nodes, inverse bind matrices, `JOINTS_0`/`WEIGHTS_0` and a skin.
//!
//! Layout choices, all for the Khronos glTF-Validator (0 errors) and common importers:
//! * joint nodes carry only a translation (position minus parent position), so a joint's bind
//!   world matrix is a translation and its inverse bind matrix is the negated translation;
//! * the skinned mesh node is a scene root (else `NODE_SKINNED_MESH_NON_ROOT`);
//! * each vertex keeps its 4 heaviest influences, renormalized in `f32` with the heaviest slot
//!   absorbing the rounding so the sum is 1 to `f32` precision; unused slots are joint 0, weight 0;
//! * several root joints are grouped under one identity node ([`GROUP_NODE`]), since a skin's
//!   joints need a common root (`SKIN_NO_COMMON_ROOT`);
//! * a rig without skin weights becomes a mesh plus a joint hierarchy **without** a skin object
//!   (a skeleton preview: nothing is bound, so nothing can be wrong).

use std::collections::BTreeMap;

use gltf_json as json;
use json::validation::Checked::Valid;
use json::validation::USize64;

use super::glb_bin::{container, f32_bytes, influence_bytes, push_accessor, View};
use crate::mesh::Mesh;
use crate::rig::{RigJoint, SkinTable};

/// Name of the identity node that groups several root joints.
pub const GROUP_NODE: &str = "geppetto_roots";

/// Influences per vertex in `JOINTS_0`/`WEIGHTS_0`.
pub const MAX_INFLUENCES: usize = 4;

/// Why a GLB could not be built.
#[derive(Debug, thiserror::Error)]
pub enum GlbError {
    /// The skin table does not match the mesh or skeleton.
    #[error("{0}")]
    Mismatch(String),
    /// The binary would exceed glTF's 4 GiB limit.
    #[error("the mesh is too large for a GLB file")]
    TooLarge,
    /// JSON serialization failed.
    #[error("cannot serialize glTF JSON: {0}")]
    Json(String),
}

/// Top `MAX_INFLUENCES` of a weight list as `(joints, weights)`, weights renormalized in `f32` so
/// they sum to 1 (the heaviest absorbs the rounding), unused slots `(0, 0.0)`.
pub fn top_influences(row: &[(u32, f64)]) -> ([u16; 4], [f32; 4]) {
    let mut w: Vec<(u32, f64)> = row
        .iter()
        .copied()
        .filter(|e| e.1.is_finite() && e.1 > 0.0)
        .collect();
    w.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    w.truncate(MAX_INFLUENCES);
    let sum: f64 = w.iter().map(|e| e.1).sum();
    let (mut joints, mut weights) = ([0u16; 4], [0f32; 4]);
    if sum <= 0.0 {
        weights[0] = 1.0;
        return (joints, weights);
    }
    for (k, &(j, v)) in w.iter().enumerate() {
        joints[k] = u16::try_from(j).unwrap_or(0);
        weights[k] = (v / sum) as f32;
    }
    let rest: f32 = weights[1..].iter().sum();
    weights[0] = 1.0 - rest;
    (joints, weights)
}

/// Check that `skin` has one row per vertex and refers only to existing joints.
pub(crate) fn check_skin(
    vertices: usize,
    joints: &[RigJoint],
    skin: Option<&SkinTable>,
) -> Result<(), GlbError> {
    let Some(s) = skin else { return Ok(()) };
    if s.len() != vertices {
        return Err(GlbError::Mismatch(format!(
            "the skin has {} rows but the mesh has {vertices} vertices",
            s.len()
        )));
    }
    if let Some(bad) = s.iter().flatten().find(|e| e.0 as usize >= joints.len()) {
        return Err(GlbError::Mismatch(format!(
            "the skin refers to joint {} but the rig has {} joints",
            bad.0,
            joints.len()
        )));
    }
    if joints.len() > usize::from(u16::MAX) {
        return Err(GlbError::Mismatch("more than 65535 joints".into()));
    }
    Ok(())
}

/// A little-endian binary buffer that records accessors as it grows.
struct Builder {
    root: json::Root,
    bin: Vec<u8>,
    buffer: json::Index<json::Buffer>,
}

impl Builder {
    fn new() -> Self {
        let mut root = json::Root {
            asset: json::Asset {
                generator: Some(format!(
                    "{}{}",
                    crate::mesh::load::ours::GENERATOR_PREFIX,
                    env!("CARGO_PKG_VERSION")
                )),
                version: "2.0".into(),
                ..Default::default()
            },
            ..Default::default()
        };
        let buffer = root.push(json::Buffer {
            byte_length: USize64(0),
            extensions: None,
            extras: Default::default(),
            name: None,
            uri: None,
        });
        Self {
            root,
            bin: Vec::new(),
            buffer,
        }
    }

    /// Append `bytes` as a buffer view and one accessor over it.
    fn accessor(
        &mut self,
        bytes: &[u8],
        count: usize,
        component: json::accessor::ComponentType,
        type_: json::accessor::Type,
        target: Option<json::buffer::Target>,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> json::Index<json::Accessor> {
        let view = View {
            buffer: self.buffer,
            target,
        };
        push_accessor(
            &mut self.root,
            &mut self.bin,
            view,
            bytes,
            count,
            component,
            type_,
            bounds,
        )
    }
}

/// The GLB file for `mesh` (input vertices, mesh frame), `joints` (mesh frame, parent-first or
/// not) and optional per-input-vertex `skin`.
pub fn glb_bytes(
    mesh: &Mesh,
    joints: &[RigJoint],
    skin: Option<&SkinTable>,
) -> Result<Vec<u8>, GlbError> {
    check_skin(mesh.positions.len(), joints, skin)?;
    let mut b = Builder::new();
    let primitive = add_primitive(&mut b, mesh, skin);
    let gmesh = b.root.push(json::Mesh {
        extensions: None,
        extras: Default::default(),
        name: Some("mesh".into()),
        primitives: vec![primitive],
        weights: None,
    });
    let joint_nodes = add_joint_nodes(&mut b, joints);
    let skin_index = match (skin, joints.is_empty()) {
        (Some(_), false) => Some(add_skin(&mut b, joints, &joint_nodes)),
        _ => None,
    };
    let mesh_node = b.root.push(json::Node {
        mesh: Some(gmesh),
        skin: skin_index,
        name: Some("mesh".into()),
        ..Default::default()
    });
    let roots: Vec<json::Index<json::Node>> = joints
        .iter()
        .enumerate()
        .filter(|(j, joint)| valid_parent(joints, *j, joint).is_none())
        .map(|(j, _)| joint_nodes[j])
        .collect();
    let mut scene_nodes = vec![mesh_node];
    if roots.len() > 1 {
        // glTF needs one common root for a skin's joints: group several roots under an identity
        // node (it moves nothing, so the inverse bind matrices stay as they are).
        let group = b.root.push(json::Node {
            name: Some(GROUP_NODE.into()),
            children: Some(roots),
            ..Default::default()
        });
        if let Some(s) = skin_index.and_then(|s| b.root.skins.get_mut(s.value())) {
            s.skeleton = Some(group);
        }
        scene_nodes.push(group);
    } else {
        scene_nodes.extend(roots);
    }
    let scene = b.root.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name: Some("scene".into()),
        nodes: scene_nodes,
    });
    b.root.scene = Some(scene);
    finish(b)
}

/// The primitive of `mesh`: positions, the skin's `JOINTS_0`/`WEIGHTS_0` when there is one, and
/// the triangles whose indices are in range.
fn add_primitive(b: &mut Builder, mesh: &Mesh, skin: Option<&SkinTable>) -> json::mesh::Primitive {
    use json::accessor::{ComponentType as C, Type as T};
    use json::buffer::Target;
    let n = mesh.positions.len();
    let mut attributes = BTreeMap::new();
    let positions = add_positions(b, mesh);
    attributes.insert(Valid(json::mesh::Semantic::Positions), positions);
    if let Some(skin) = skin {
        let (jb, wb) = influence_bytes(skin.iter().map(Vec::as_slice));
        let ja = b.accessor(&jb, n, C::U16, T::Vec4, Some(Target::ArrayBuffer), None);
        let wa = b.accessor(&wb, n, C::F32, T::Vec4, Some(Target::ArrayBuffer), None);
        attributes.insert(Valid(json::mesh::Semantic::Joints(0)), ja);
        attributes.insert(Valid(json::mesh::Semantic::Weights(0)), wa);
    }
    let idx: Vec<u8> = mesh
        .triangles
        .iter()
        .filter(|t| t.iter().all(|&v| (v as usize) < n))
        .flat_map(|t| t.iter().flat_map(|v| v.to_le_bytes()))
        .collect();
    let count = idx.len() / 4;
    let indices = b.accessor(
        &idx,
        count,
        C::U32,
        T::Scalar,
        Some(Target::ElementArrayBuffer),
        None,
    );
    json::mesh::Primitive {
        attributes,
        extensions: None,
        extras: Default::default(),
        indices: Some(indices),
        material: None,
        mode: Valid(json::mesh::Mode::Triangles),
        targets: None,
    }
}

/// The `POSITION` accessor of `mesh` in `f32`, with the min/max bounds glTF requires of it
/// (taken from the `f32` values written, so they bound them exactly).
fn add_positions(b: &mut Builder, mesh: &Mesh) -> json::Index<json::Accessor> {
    use json::accessor::{ComponentType as C, Type as T};
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    let pos: Vec<f32> = mesh
        .positions
        .iter()
        .flat_map(|p| [p.x as f32, p.y as f32, p.z as f32])
        .collect();
    for c in pos.chunks_exact(3) {
        for k in 0..3 {
            lo[k] = lo[k].min(c[k]);
            hi[k] = hi[k].max(c[k]);
        }
    }
    let bounds = Some((lo.to_vec(), hi.to_vec()));
    let target = Some(json::buffer::Target::ArrayBuffer);
    let n = mesh.positions.len();
    b.accessor(&f32_bytes(pos), n, C::F32, T::Vec3, target, bounds)
}

/// The parent of joint j if it is a usable one (in range, not itself, and not creating a cycle).
pub(crate) fn valid_parent(joints: &[RigJoint], j: usize, joint: &RigJoint) -> Option<usize> {
    let p = joint.parent.filter(|&p| p < joints.len() && p != j)?;
    // Walk up from p; reaching j means a cycle.
    let mut cur = Some(p);
    for _ in 0..joints.len() {
        match cur {
            Some(c) if c == j => return None,
            Some(c) => cur = joints[c].parent.filter(|&q| q < joints.len() && q != c),
            None => break,
        }
    }
    Some(p)
}

/// Joint `j`, its valid parent, that one's, … up to its root (no cycles: [`valid_parent`]
/// refuses the link that would close one).
pub(crate) fn up_to_root(joints: &[RigJoint], j: usize) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors(Some(j), move |&c| valid_parent(joints, c, &joints[c]))
}

/// Each joint's node translation, `f32` as the node stores it: its position minus its valid
/// parent's (its own for a root). Both GLB writers place joint nodes and derive bind matrices
/// from these same values, so the two agree to the bit.
pub(crate) fn joint_translations(joints: &[RigJoint]) -> Vec<[f32; 3]> {
    joints
        .iter()
        .enumerate()
        .map(|(j, joint)| {
            let origin = valid_parent(joints, j, joint).map_or([0.0; 3], |p| joints[p].position);
            [0, 1, 2].map(|k| (joint.position[k] - origin[k]) as f32)
        })
        .collect()
}

fn add_joint_nodes(b: &mut Builder, joints: &[RigJoint]) -> Vec<json::Index<json::Node>> {
    let first = b.root.nodes.len() as u32;
    let index = |j: usize| json::Index::new(first + j as u32);
    let mut children: Vec<Vec<json::Index<json::Node>>> = vec![Vec::new(); joints.len()];
    for (j, joint) in joints.iter().enumerate() {
        if let Some(p) = valid_parent(joints, j, joint) {
            children[p].push(index(j));
        }
    }
    let local = joint_translations(joints);
    joints
        .iter()
        .enumerate()
        .map(|(j, joint)| {
            b.root.push(json::Node {
                name: Some(joint.name.clone()),
                translation: Some(local[j]),
                children: (!children[j].is_empty()).then(|| std::mem::take(&mut children[j])),
                ..Default::default()
            })
        })
        .collect()
}

fn add_skin(
    b: &mut Builder,
    joints: &[RigJoint],
    nodes: &[json::Index<json::Node>],
) -> json::Index<json::Skin> {
    use json::accessor::{ComponentType as C, Type as T};
    // Bind world matrix of a joint = translation by the sum of the node translations up the chain;
    // summing the f32 translations as the importer will keeps the IBM consistent with the nodes.
    let local = joint_translations(joints);
    let world: Vec<[f32; 3]> = (0..joints.len())
        .map(|j| {
            let mut acc = [0f32; 3];
            for c in up_to_root(joints, j) {
                for k in 0..3 {
                    acc[k] += local[c][k];
                }
            }
            acc
        })
        .collect();
    let ibm: Vec<f32> = world
        .iter()
        .flat_map(|t| {
            [
                1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., -t[0], -t[1], -t[2], 1.,
            ]
        })
        .collect();
    let acc = b.accessor(&f32_bytes(ibm), joints.len(), C::F32, T::Mat4, None, None);
    let roots: Vec<usize> = (0..joints.len())
        .filter(|&j| valid_parent(joints, j, &joints[j]).is_none())
        .collect();
    b.root.push(json::Skin {
        extensions: None,
        extras: Default::default(),
        inverse_bind_matrices: Some(acc),
        joints: nodes.to_vec(),
        name: Some("skin".into()),
        // With several roots the caller sets the grouping node.
        skeleton: match roots.as_slice() {
            [r] => Some(nodes[*r]),
            _ => None,
        },
    })
}

/// Serialize JSON + BIN into the GLB container (header, JSON chunk padded with spaces, BIN chunk
/// padded with zeros; lengths computed here, per the glTF 2.0 "Binary glTF Layout").
fn finish(mut b: Builder) -> Result<Vec<u8>, GlbError> {
    while !b.bin.len().is_multiple_of(4) {
        b.bin.push(0);
    }
    if let Some(buf) = b.root.buffers.first_mut() {
        buf.byte_length = USize64::from(b.bin.len());
    }
    let js = json::serialize::to_vec(&b.root).map_err(|e| GlbError::Json(e.to_string()))?;
    container(js, b.bin)
}
