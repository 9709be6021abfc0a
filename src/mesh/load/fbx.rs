//! FBX reader through `ufbx` (bindings of the single-file ufbx library: binary and ASCII FBX
//! 6.x–7.x, embedded and external textures).
//!
//! The file is converted to glTF's space on load (right-handed, +Y up, metres; ufbx modifies
//! the geometry itself, so no root transform is left over): this is the **mesh frame** of an FBX
//! input, and what rig.json and the GLB use. Vertices are every mesh node's control points in
//! node order, at the file's default pose (world space); faces are triangulated by ufbx. The
//! [`SourceDocument`] has one glTF node per FBX mesh node (its name kept), one primitive per
//! material, vertices split per distinct (control point, UV, normal).

use std::collections::HashMap;
use std::path::Path;

use serde_json::{json, Value};

use super::source::{SourceDocument, SourcePrimitive};
use super::{LoadError, RiggedMesh};
use crate::geom::P3;
use crate::mesh::Mesh;
use crate::skeleton::rigged::{RigJoint, SkinTable};

/// Load an FBX scene, converted to glTF's axes and units.
fn open(bytes: &[u8]) -> Result<ufbx::SceneRoot, LoadError> {
    let opts = ufbx::LoadOpts {
        target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
        target_unit_meters: 1.0,
        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
        ignore_animation: true,
        ..Default::default()
    };
    ufbx::load_memory(bytes, opts)
        .map_err(|e| LoadError::Invalid(format!("FBX: {}", e.description.to_string().trim())))
}

/// The mesh nodes of a scene, in node order.
fn mesh_nodes(scene: &ufbx::Scene) -> Vec<&ufbx::Node> {
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
fn det(m: &ufbx::Matrix) -> f64 {
    m.m00 * (m.m11 * m.m22 - m.m12 * m.m21) - m.m01 * (m.m10 * m.m22 - m.m12 * m.m20)
        + m.m02 * (m.m10 * m.m21 - m.m11 * m.m20)
}

/// Per triangle of a mesh: its three corner indices (into the mesh's index arrays), in the
/// order of `faces` given, and the winding flipped for mirrored instances.
fn corner_triangles(mesh: &ufbx::Mesh, faces: &[u32], mirrored: bool) -> Vec<[u32; 3]> {
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
fn assemble(scene: &ufbx::Scene) -> Result<(Mesh, Vec<usize>), LoadError> {
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

/// Parse FBX bytes into a mesh and its textured document; `base_dir` finds external textures.
pub(crate) fn parse_with_source(
    bytes: &[u8],
    base_dir: Option<&Path>,
) -> Result<(Mesh, SourceDocument), LoadError> {
    let scene = open(bytes)?;
    let (mesh, bases) = assemble(&scene)?;
    let mut doc = SourceDocument::new_document();
    let dir = base_dir.unwrap_or_else(|| Path::new("."));
    let mut materials: HashMap<u32, usize> = HashMap::new();
    let mut textures: HashMap<u32, Option<usize>> = HashMap::new();
    let mut roots = Vec::new();
    for (node, &base) in mesh_nodes(&scene).into_iter().zip(&bases) {
        let Some(m) = node.mesh.as_ref() else {
            continue;
        };
        let mut prims = Vec::new();
        let mut sources = Vec::new();
        for (faces, material) in parts(m) {
            let (vertices, mut prim) = primitive(&mut doc, node, m, &faces, base, &mesh);
            if vertices.is_empty() {
                continue;
            }
            if let Some(mat) = material {
                let id = mat.element.element_id;
                let index = match materials.get(&id) {
                    Some(&i) => i,
                    None => {
                        let value = material_json(&mut doc, mat, dir, &mut textures);
                        let i = doc.push("materials", value);
                        materials.insert(id, i);
                        i
                    }
                };
                prim["material"] = json!(index);
            }
            sources.push(vertices);
            prims.push(prim);
        }
        if prims.is_empty() {
            continue;
        }
        let name = node.element.name.to_string();
        let mesh_index = doc.push("meshes", json!({"name": name, "primitives": prims}));
        let n = doc.push("nodes", json!({"name": name, "mesh": mesh_index}));
        roots.push(n);
        for (k, vertices) in sources.into_iter().enumerate() {
            doc.primitives.push(SourcePrimitive {
                node: n,
                mesh: mesh_index,
                primitive: k,
                vertices,
            });
        }
    }
    doc.push("scenes", json!({ "nodes": roots }));
    doc.root_object().insert("scene".into(), json!(0));
    Ok((mesh, doc))
}

/// The faces of each material part with its material (one part of every face if the mesh has
/// no material parts).
fn parts(m: &ufbx::Mesh) -> Vec<(Vec<u32>, Option<&ufbx::Material>)> {
    if m.material_parts.is_empty() {
        return vec![((0..m.faces.len() as u32).collect(), None)];
    }
    m.material_parts
        .iter()
        .map(|p| {
            let mat = m.materials.get(p.index as usize).map(|r| &**r);
            (p.face_indices.to_vec(), mat)
        })
        .collect()
}

/// One primitive of a mesh node: output vertices (mesh vertex per output vertex) and its JSON.
fn primitive(
    doc: &mut SourceDocument,
    node: &ufbx::Node,
    m: &ufbx::Mesh,
    faces: &[u32],
    base: usize,
    mesh: &Mesh,
) -> (Vec<u32>, Value) {
    let g = &node.geometry_to_world;
    let tris = corner_triangles(m, faces, det(g) < 0.0);
    let normal_m = ufbx::matrix_for_normals(g);
    let has_uv = m.vertex_uv.exists;
    let has_normal = m.vertex_normal.exists;
    let has_color = m.vertex_color.exists;
    // Corners are merged by value: FBX files often store normals and UVs per corner ("Direct"),
    // which would otherwise give every corner its own vertex.
    type Key = (u32, Option<[u32; 2]>, Option<[u32; 3]>, Option<[u32; 4]>);
    let bits = |v: &[f64]| -> Vec<u32> { v.iter().map(|&x| (x as f32).to_bits()).collect() };
    let mut index: HashMap<Key, u32> = HashMap::new();
    let mut keys: Vec<(Key, u32)> = Vec::new();
    let mut indices = Vec::with_capacity(tris.len() * 3);
    for t in &tris {
        for &c in t {
            let c = c as usize;
            let key = (
                m.vertex_indices[c],
                has_uv.then(|| {
                    let t = m.vertex_uv[c];
                    let b = bits(&[t.x, t.y]);
                    [b[0], b[1]]
                }),
                has_normal.then(|| {
                    let n = m.vertex_normal[c];
                    let b = bits(&[n.x, n.y, n.z]);
                    [b[0], b[1], b[2]]
                }),
                has_color.then(|| {
                    let v = m.vertex_color[c];
                    let b = bits(&[v.x, v.y, v.z, v.w]);
                    [b[0], b[1], b[2], b[3]]
                }),
            );
            let i = *index.entry(key).or_insert_with(|| {
                keys.push((key, c as u32));
                (keys.len() - 1) as u32
            });
            indices.push(i);
        }
    }
    let vertices: Vec<u32> = keys.iter().map(|(k, _)| base as u32 + k.0).collect();
    let pos: Vec<f32> = vertices
        .iter()
        .flat_map(|&v| {
            let p = mesh.positions[v as usize];
            [p.x as f32, p.y as f32, p.z as f32]
        })
        .collect();
    let mut attrs = json!({"POSITION": doc.f32_attribute(&pos, 3, "VEC3", true)});
    if has_normal {
        let n: Vec<f32> = keys
            .iter()
            .flat_map(|&(_, c)| {
                let d = ufbx::transform_direction(&normal_m, m.vertex_normal[c as usize]);
                super::obj_source::unit([d.x as f32, d.y as f32, d.z as f32])
            })
            .collect();
        attrs["NORMAL"] = json!(doc.f32_attribute(&n, 3, "VEC3", false));
    }
    if has_uv {
        // FBX's v runs up the image, glTF's down.
        let uv: Vec<f32> = keys
            .iter()
            .flat_map(|&(_, c)| {
                let t = m.vertex_uv[c as usize];
                [t.x as f32, 1.0 - t.y as f32]
            })
            .collect();
        attrs["TEXCOORD_0"] = json!(doc.f32_attribute(&uv, 2, "VEC2", false));
    }
    if has_color {
        let col: Vec<f32> = keys
            .iter()
            .flat_map(|&(_, c)| {
                let v = m.vertex_color[c as usize];
                [v.x, v.y, v.z, v.w].map(|x| (x as f32).clamp(0.0, 1.0))
            })
            .collect();
        attrs["COLOR_0"] = json!(doc.f32_attribute(&col, 4, "VEC4", false));
    }
    let idx = doc.index_accessor(&indices);
    (vertices, json!({"attributes": attrs, "indices": idx}))
}

/// A glTF metallic-roughness material from ufbx's PBR view of the material (ufbx maps classic
/// Phong/Lambert materials onto it), with the base colour and normal textures embedded.
fn material_json(
    doc: &mut SourceDocument,
    mat: &ufbx::Material,
    dir: &Path,
    cache: &mut HashMap<u32, Option<usize>>,
) -> Value {
    let pbr = &mat.pbr;
    let c = pbr.base_color.value_vec4;
    let f = if pbr.base_factor.has_value {
        pbr.base_factor.value_vec4.x
    } else {
        1.0
    };
    let clamp = |x: f64| (x as f32).clamp(0.0, 1.0);
    let alpha = if pbr.opacity.has_value {
        clamp(pbr.opacity.value_vec4.x)
    } else {
        1.0
    };
    let mut out_pbr = json!({
        "baseColorFactor": [clamp(c.x * f), clamp(c.y * f), clamp(c.z * f), alpha],
        "metallicFactor": if pbr.metalness.has_value { clamp(pbr.metalness.value_vec4.x) } else { 0.0 },
        "roughnessFactor": if pbr.roughness.has_value { clamp(pbr.roughness.value_vec4.x) } else { 1.0 },
    });
    let base_tex = pbr
        .base_color
        .texture
        .as_ref()
        .or(mat.fbx.diffuse_color.texture.as_ref());
    if let Some(t) = base_tex.and_then(|t| texture(doc, t, dir, cache)) {
        out_pbr["baseColorTexture"] = json!({"index": t});
    }
    let mut out = json!({"name": mat.element.name.to_string(), "pbrMetallicRoughness": out_pbr});
    let normal_tex = pbr
        .normal_map
        .texture
        .as_ref()
        .or(mat.fbx.normal_map.texture.as_ref());
    if let Some(t) = normal_tex.and_then(|t| texture(doc, t, dir, cache)) {
        out["normalTexture"] = json!({"index": t});
    }
    if alpha < 1.0 {
        out["alphaMode"] = json!("BLEND");
    }
    out
}

/// A texture's glTF index: its embedded content, else its file (relative name first).
fn texture(
    doc: &mut SourceDocument,
    t: &ufbx::Texture,
    dir: &Path,
    cache: &mut HashMap<u32, Option<usize>>,
) -> Option<usize> {
    if let Some(found) = cache.get(&t.element.element_id) {
        return *found;
    }
    let found = if !t.content.is_empty() {
        doc.texture_from_bytes(&t.content, t.filename.as_ref())
    } else {
        let rel = t.relative_filename.to_string();
        let name = if rel.is_empty() {
            t.absolute_filename.to_string()
        } else {
            rel
        };
        doc.texture_from_file(&name, &[dir])
    };
    cache.insert(t.element.element_id, found);
    found
}

/// Read an FBX with a skeleton: the mesh, its bones as joints (parent-first, at their default
/// pose world positions, the pose the mesh is read in) and the skin weights if any.
pub(crate) fn parse_rigged(bytes: &[u8]) -> Result<RiggedMesh, LoadError> {
    let scene = open(bytes)?;
    let (mesh, bases) = assemble(&scene)?;
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
    // Parents before children.
    bones.sort_by_key(|b| b.node_depth);
    let slot: HashMap<u32, usize> = bones
        .iter()
        .enumerate()
        .map(|(k, b)| (b.element.element_id, k))
        .collect();
    let joints: Vec<RigJoint> = bones
        .iter()
        .enumerate()
        .map(|(k, b)| {
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
        })
        .collect();
    let skin = skin_table(&scene, &mesh, &bases, &slot);
    Ok(RiggedMesh { mesh, joints, skin })
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
