//! The FBX input as a glTF document for the GLB writer ([`SourceDocument`]): one glTF node per
//! FBX mesh node (its name kept), one primitive per material, vertices split per distinct
//! (control point, UV, normal, colour), materials from ufbx's PBR view with their textures.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{json, Value};

use super::fbx::{assemble, corner_triangles, det, mesh_nodes, open};
use super::source::{SourceDocument, SourcePrimitive};
use super::LoadError;
use crate::mesh::Mesh;

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
    let (keys, indices) = merge_corners(m, &tris);
    let vertices: Vec<u32> = keys.iter().map(|(k, _)| base as u32 + k.0).collect();
    let normal_m = ufbx::matrix_for_normals(g);
    let attrs = attributes(doc, m, &normal_m, &keys, &vertices, mesh);
    let idx = doc.index_accessor(&indices);
    (vertices, json!({"attributes": attrs, "indices": idx}))
}

/// A corner by value: mesh vertex, then the f32 bits of its UV, normal and colour when the mesh
/// has them.
type CornerKey = (u32, Option<[u32; 2]>, Option<[u32; 3]>, Option<[u32; 4]>);

/// The distinct corners of `tris` (each with its first corner index) and the triangles' indices
/// into them. Corners are merged by value: FBX files often store normals and UVs per corner
/// ("Direct"), which would otherwise give every corner its own vertex.
fn merge_corners(m: &ufbx::Mesh, tris: &[[u32; 3]]) -> (Vec<(CornerKey, u32)>, Vec<u32>) {
    let has_uv = m.vertex_uv.exists;
    let has_normal = m.vertex_normal.exists;
    let has_color = m.vertex_color.exists;
    let bits = |v: &[f64]| -> Vec<u32> { v.iter().map(|&x| (x as f32).to_bits()).collect() };
    let mut index: HashMap<CornerKey, u32> = HashMap::new();
    let mut keys: Vec<(CornerKey, u32)> = Vec::new();
    let mut indices = Vec::with_capacity(tris.len() * 3);
    for t in tris {
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
    (keys, indices)
}

/// The primitive's attribute accessors (position, and normal, UV and colour when the mesh has
/// them) over the merged corners `keys`, whose mesh vertices are `vertices`.
fn attributes(
    doc: &mut SourceDocument,
    m: &ufbx::Mesh,
    normal_m: &ufbx::Matrix,
    keys: &[(CornerKey, u32)],
    vertices: &[u32],
    mesh: &Mesh,
) -> Value {
    let pos: Vec<f32> = vertices
        .iter()
        .flat_map(|&v| {
            let p = mesh.positions[v as usize];
            [p.x as f32, p.y as f32, p.z as f32]
        })
        .collect();
    let mut attrs = json!({"POSITION": doc.f32_attribute(&pos, 3, "VEC3", true)});
    if m.vertex_normal.exists {
        let n: Vec<f32> = keys
            .iter()
            .flat_map(|&(_, c)| {
                let d = ufbx::transform_direction(normal_m, m.vertex_normal[c as usize]);
                super::obj_source::unit([d.x as f32, d.y as f32, d.z as f32])
            })
            .collect();
        attrs["NORMAL"] = json!(doc.f32_attribute(&n, 3, "VEC3", false));
    }
    if m.vertex_uv.exists {
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
    if m.vertex_color.exists {
        let col: Vec<f32> = keys
            .iter()
            .flat_map(|&(_, c)| {
                let v = m.vertex_color[c as usize];
                [v.x, v.y, v.z, v.w].map(|x| (x as f32).clamp(0.0, 1.0))
            })
            .collect();
        attrs["COLOR_0"] = json!(doc.f32_attribute(&col, 4, "VEC4", false));
    }
    attrs
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
