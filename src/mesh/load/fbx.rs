//! FBX reader through `ufbx` (bindings of the single-file ufbx library: binary and ASCII FBX
//! 6.x–7.x, embedded and external textures).
//!
//! The file is converted to glTF's space on load (right-handed, +Y up, metres; ufbx modifies
//! the geometry itself, so no root transform is left over): this is the **mesh frame** of an FBX
//! input, and what rig.json and the GLB use. Vertices are every mesh node's control points in
//! node order, at the file's default pose (world space); faces are triangulated by ufbx. The
//! file as a glTF document (materials, textures) is built in [`super::fbx_source`].

use std::collections::HashMap;

use super::{LoadError, RiggedMesh};
use crate::geom::P3;
use crate::mesh::Mesh;
use crate::skeleton::rigged::{RigJoint, SkinTable};

/// Load an FBX scene, converted to glTF's axes and units.
pub(super) fn open(bytes: &[u8]) -> Result<ufbx::SceneRoot, LoadError> {
    let opts = ufbx::LoadOpts {
        target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
        target_unit_meters: 1.0,
        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
        ignore_animation: true,
        ..Default::default()
    };
    ufbx::load_memory(bytes, opts).map_err(|e| LoadError::Invalid(fbx_message(&e)))
}

/// ufbx's description, with its detail (e.g. the version found) and, where the description is
/// the generic "Failed to load", the kind of failure: a cut-off file read only "FBX: Failed to
/// load".
fn fbx_message(e: &ufbx::Error) -> String {
    let mut text = format!("FBX: {}", e.description.to_string().trim());
    let info = e.info().trim();
    if !info.is_empty() {
        text.push_str(&format!(" ({info})"));
    }
    let kind = match e.type_ {
        ufbx::ErrorType::TruncatedFile => Some("the file is cut off before its end"),
        ufbx::ErrorType::UnrecognizedFileFormat => Some("not an FBX file"),
        ufbx::ErrorType::BadIndex => Some("a face uses a vertex index out of range"),
        _ => None,
    };
    if let Some(kind) = kind {
        text.push_str(&format!(": {kind}"));
    }
    text
}

/// The mesh nodes of a scene, in node order.
pub(super) fn mesh_nodes(scene: &ufbx::Scene) -> Vec<&ufbx::Node> {
    scene
        .nodes
        .iter()
        .filter(|n| n.mesh.is_some())
        .map(|n| &**n)
        .collect()
}

/// A point as `P3` after a transform.
fn world(m: &ufbx::Matrix, v: ufbx::Vec3) -> P3 {
    let p = ufbx::transform_position(m, v);
    P3::new(p.x, p.y, p.z)
}

/// Determinant of a ufbx affine matrix's linear part (negative: mirrored).
pub(super) fn det(m: &ufbx::Matrix) -> f64 {
    m.m00 * (m.m11 * m.m22 - m.m12 * m.m21) - m.m01 * (m.m10 * m.m22 - m.m12 * m.m20)
        + m.m02 * (m.m10 * m.m21 - m.m11 * m.m20)
}

/// Per triangle of a mesh: its three corner indices (into the mesh's index arrays), in the
/// order of `faces` given, and the winding flipped for mirrored instances.
pub(super) fn corner_triangles(mesh: &ufbx::Mesh, faces: &[u32], mirrored: bool) -> Vec<[u32; 3]> {
    let mut buf = vec![0u32; mesh.max_face_triangles.max(1) * 3];
    let mut out = Vec::new();
    for &f in faces {
        let Some(face) = mesh.faces.get(f as usize) else {
            continue;
        };
        let face = ufbx::Face {
            index_begin: face.index_begin,
            num_indices: face.num_indices,
        };
        if face.num_indices < 3 {
            continue;
        }
        let n = ufbx::triangulate_face(&mut buf, mesh, face) as usize;
        for t in buf.chunks_exact(3).take(n) {
            out.push(if mirrored {
                [t[0], t[2], t[1]]
            } else {
                [t[0], t[1], t[2]]
            });
        }
    }
    out
}

/// Every mesh node's control points (world space) and triangles, as one mesh; per mesh node the
/// index of its first vertex.
pub(super) fn assemble(scene: &ufbx::Scene) -> Result<(Mesh, Vec<usize>), LoadError> {
    let mut mesh = Mesh::default();
    let mut bases = Vec::new();
    for node in mesh_nodes(scene) {
        let Some(m) = node.mesh.as_ref() else {
            continue;
        };
        let base = mesh.positions.len();
        bases.push(base);
        let g = &node.geometry_to_world;
        mesh.positions
            .extend(m.vertices.iter().map(|v| world(g, *v)));
        let all: Vec<u32> = (0..m.faces.len() as u32).collect();
        for t in corner_triangles(m, &all, det(g) < 0.0) {
            mesh.triangles
                .push(t.map(|c| base as u32 + m.vertex_indices[c as usize]));
        }
    }
    if mesh.triangles.is_empty() {
        return Err(LoadError::Invalid(
            "the FBX file contains no polygon meshes".into(),
        ));
    }
    Ok((mesh, bases))
}

/// Parse FBX bytes into a mesh.
pub(crate) fn parse(bytes: &[u8]) -> Result<Mesh, LoadError> {
    let scene = open(bytes)?;
    assemble(&scene).map(|(m, _)| m)
}

/// Read an FBX with a skeleton: the mesh, its bones as joints (parent-first, at their default
/// pose world positions, the pose the mesh is read in) and the skin weights if any.
pub(crate) fn parse_rigged(bytes: &[u8]) -> Result<RiggedMesh, LoadError> {
    let scene = open(bytes)?;
    let (mesh, bases) = assemble(&scene)?;
    let bones = bone_nodes(&scene)?;
    let slot: HashMap<u32, usize> = bones
        .iter()
        .enumerate()
        .map(|(k, b)| (b.element.element_id, k))
        .collect();
    let joints: Vec<RigJoint> = bones
        .iter()
        .enumerate()
        .map(|(k, b)| joint(k, b, &slot))
        .collect();
    let skin = skin_table(&scene, &mesh, &bases, &slot);
    Ok(RiggedMesh { mesh, joints, skin })
}

/// The skeleton's nodes, parents before children: every bone node and every node a skin cluster
/// binds (some exporters bind plain nodes).
fn bone_nodes(scene: &ufbx::Scene) -> Result<Vec<&ufbx::Node>, LoadError> {
    let mut bones: Vec<&ufbx::Node> = scene
        .nodes
        .iter()
        .filter(|n| n.bone.is_some())
        .map(|n| &**n)
        .collect();
    for cluster in scene.skin_clusters.iter() {
        if let Some(b) = cluster.bone_node.as_ref() {
            if !bones
                .iter()
                .any(|x| x.element.element_id == b.element.element_id)
            {
                bones.push(b);
            }
        }
    }
    if bones.is_empty() {
        return Err(LoadError::Invalid(
            "the FBX file has no skeleton (no bones)".into(),
        ));
    }
    bones.sort_by_key(|b| b.node_depth);
    Ok(bones)
}

/// Joint `k` of the skeleton: bone node `b` at its default pose world position, its parent the
/// nearest ancestor that is a joint (`slot`: node id → joint), unnamed bones named by index.
fn joint(k: usize, b: &ufbx::Node, slot: &HashMap<u32, usize>) -> RigJoint {
    let mut parent = None;
    let mut cur = b.parent.as_ref();
    while let Some(p) = cur {
        if let Some(&s) = slot.get(&p.element.element_id) {
            parent = Some(s);
            break;
        }
        cur = p.parent.as_ref();
    }
    let t = &b.node_to_world;
    let name = b.element.name.to_string();
    RigJoint {
        name: if name.is_empty() {
            format!("joint_{k}")
        } else {
            name
        },
        parent,
        position: [t.m03, t.m13, t.m23],
        end: false,
    }
}

/// Per mesh vertex its weights from the mesh nodes' first skin deformers (normalized, heaviest
/// first), `None` if no mesh is skinned.
fn skin_table(
    scene: &ufbx::Scene,
    mesh: &Mesh,
    bases: &[usize],
    slot: &HashMap<u32, usize>,
) -> Option<SkinTable> {
    let mut table: SkinTable = vec![Vec::new(); mesh.positions.len()];
    let mut any = false;
    for (node, &base) in mesh_nodes(scene).into_iter().zip(bases) {
        let Some(m) = node.mesh.as_ref() else {
            continue;
        };
        let Some(skin) = m.skin_deformers.first() else {
            continue;
        };
        any = true;
        for (v, sv) in skin.vertices.iter().enumerate() {
            let row = &mut table[base + v];
            let start = sv.weight_begin as usize;
            for w in skin
                .weights
                .iter()
                .skip(start)
                .take(sv.num_weights as usize)
            {
                let joint = skin
                    .clusters
                    .get(w.cluster_index as usize)
                    .and_then(|c| c.bone_node.as_ref())
                    .and_then(|b| slot.get(&b.element.element_id));
                if let (Some(&j), true) = (joint, w.weight > 0.0) {
                    row.push((j as u32, w.weight));
                }
            }
            let total: f64 = row.iter().map(|e| e.1).sum();
            row.iter_mut().for_each(|e| e.1 /= total);
            row.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        }
    }
    any.then_some(table)
}
