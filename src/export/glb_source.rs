//! GLB export that keeps the artist's file: the input's [`SourceDocument`] with our skin added.
//!
//! Everything in the document survives (materials, textures, images, samplers, every vertex
//! attribute, morph targets, meshes and primitives, node names and hierarchy, extensions and
//! extras); vertices keep their order and count per primitive. What changes:
//! * an existing skin, its `JOINTS_n`/`WEIGHTS_n`, and (unless `keep_animations`) the animations
//!   and the old joint nodes that hold nothing else are removed;
//! * our joints are added as a new node hierarchy under the default scene (several roots are
//!   grouped under [`super::glb::GROUP_NODE`], as in [`super::glb`]), or with `keep_animations`
//!   the input's own joint nodes are reused, matched by name, so its animations still drive them;
//! * every node instancing a rigged primitive gets a skin over those joints whose inverse bind
//!   matrices are `inverse(W_joint) · W_node`: glTF ignores a skinned mesh node's own transform
//!   (spec §3.7.3.3), so this product is what places the vertices, and at the bind pose it is
//!   exactly the node's world transform — the mesh renders where it did;
//! * a mesh instanced by several nodes is copied per node (each instance has its own weights);
//! * accessors and buffer views nothing refers to any more are dropped (unless an extension this
//!   writer does not know might refer to them);
//! * `asset.generator` names us, then the source's writer.

use std::collections::{BTreeMap, BTreeSet};

use nalgebra::{Matrix4, Vector3};
use serde_json::{json, Value};

use super::glb::{check_skin, joint_translations, up_to_root, valid_parent, GlbError, GROUP_NODE};
use super::glb_bin::{container, influence_bytes};
use super::glb_gc::collect_garbage;
use super::glb_nodes::{indices, node_parents, node_worlds};
use super::glb_prune::prune_nodes;
use crate::mesh::load::ours::GENERATOR_PREFIX;
use crate::mesh::load::source::{SourceDocument, ARRAY_BUFFER, FLOAT, UNSIGNED_SHORT};
use crate::rig::{RigJoint, SkinTable};

/// The joints' nodes in the output document and their bind-pose world transforms.
struct JointNodes {
    nodes: Vec<usize>,
    world: Vec<Matrix4<f64>>,
    skeleton: Option<usize>,
}

/// The GLB of `src` rigged with `joints` (mesh frame) and per-mesh-vertex `skin`. Without a skin
/// the joints are added as a hierarchy and nothing is bound.
pub fn source_glb_bytes(
    src: &SourceDocument,
    joints: &[RigJoint],
    skin: Option<&SkinTable>,
    keep_animations: bool,
) -> Result<Vec<u8>, GlbError> {
    let vertices = src
        .primitives
        .iter()
        .flat_map(|p| p.vertices.iter())
        .map(|&v| v as usize + 1)
        .max()
        .unwrap_or(0);
    if let Some(s) = skin {
        if s.len() < vertices {
            return Err(GlbError::Mismatch(format!(
                "the skin has {} rows but the mesh has {vertices} vertices",
                s.len()
            )));
        }
        check_skin(s.len(), joints, skin)?;
    }
    let mut doc = src.clone();
    let mut worlds = node_worlds(&doc.json);
    let old_joints = remove_skins(&mut doc.json);
    let mut prims = src.primitives.clone();
    let joint_nodes = if keep_animations {
        existing_joints(&doc.json, &old_joints, joints, &worlds)?
    } else {
        doc.root_object().remove("animations");
        let all_old: BTreeSet<usize> = old_joints.iter().flatten().copied().collect();
        let remap = prune_nodes(&mut doc.json, &all_old);
        worlds = (0..remap.iter().flatten().count())
            .map(|new| {
                let old = remap.iter().position(|r| *r == Some(new)).unwrap_or(0);
                worlds.get(old).copied().unwrap_or_else(Matrix4::identity)
            })
            .collect();
        for p in &mut prims {
            p.node = remap.get(p.node).copied().flatten().unwrap_or(p.node);
        }
        add_joint_nodes(&mut doc, joints)
    };
    if let Some(skin) = skin {
        bind_meshes(&mut doc, &prims, &worlds, &joint_nodes, skin);
    }
    collect_garbage(&mut doc);
    sign(&mut doc.json);
    let len = doc.bin.len();
    doc.root_object()
        .insert("buffers".into(), json!([{ "byteLength": len }]));
    let js = serde_json::to_vec(&doc.json).map_err(|e| GlbError::Json(e.to_string()))?;
    container(js, doc.bin)
}

/// Name us as the file's writer in `asset.generator` (the glTF spec's "tool that generated this
/// model"), keeping the source's own writer in brackets: the watcher tells an earlier run's
/// outputs from source meshes by this mark ([`crate::mesh::load::ours`]).
fn sign(json: &mut Value) {
    let ours = format!("{GENERATOR_PREFIX}{}", env!("CARGO_PKG_VERSION"));
    let before = json["asset"]["generator"].as_str().unwrap_or_default();
    let generator = if before.is_empty() || before.starts_with(GENERATOR_PREFIX) {
        ours
    } else {
        format!("{ours} (from {before})")
    };
    if let Some(asset) = json.get_mut("asset").and_then(Value::as_object_mut) {
        asset.insert("generator".into(), json!(generator));
    }
}

/// Remove every skin, the nodes' references to them and every `JOINTS_n`/`WEIGHTS_n`
/// attribute. Returns each old skin's joint nodes.
fn remove_skins(json: &mut Value) -> Vec<Vec<usize>> {
    let old: Vec<Vec<usize>> = json["skins"]
        .as_array()
        .map(|skins| skins.iter().map(|s| indices(&s["joints"])).collect())
        .unwrap_or_default();
    if let Some(root) = json.as_object_mut() {
        root.remove("skins");
    }
    if let Some(nodes) = json.get_mut("nodes").and_then(Value::as_array_mut) {
        for n in nodes.iter_mut().filter_map(Value::as_object_mut) {
            n.remove("skin");
        }
    }
    if let Some(meshes) = json.get_mut("meshes").and_then(Value::as_array_mut) {
        for m in meshes {
            let Some(prims) = m.get_mut("primitives").and_then(Value::as_array_mut) else {
                continue;
            };
            for p in prims {
                if let Some(attrs) = p.get_mut("attributes").and_then(Value::as_object_mut) {
                    attrs.retain(|k, _| !k.starts_with("JOINTS_") && !k.starts_with("WEIGHTS_"));
                }
            }
        }
    }
    old
}

/// The default scene's index, creating a scene of every parentless node if there is none.
fn default_scene(json: &mut Value) -> usize {
    let n_scenes = json["scenes"].as_array().map_or(0, Vec::len);
    if n_scenes > 0 {
        return json["scene"]
            .as_u64()
            .map_or(0, |s| s as usize)
            .min(n_scenes - 1);
    }
    let roots: Vec<usize> = node_parents(json)
        .iter()
        .enumerate()
        .filter(|(_, p)| p.is_none())
        .map(|(i, _)| i)
        .collect();
    if let Some(root) = json.as_object_mut() {
        root.insert("scenes".into(), json!([{ "nodes": roots }]));
        root.insert("scene".into(), json!(0));
    }
    0
}

/// Add `joints` as translation-only nodes (as [`super::glb`] does) under the default scene.
fn add_joint_nodes(doc: &mut SourceDocument, joints: &[RigJoint]) -> JointNodes {
    let first = doc.array("nodes").len();
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); joints.len()];
    let mut roots = Vec::new();
    for (j, joint) in joints.iter().enumerate() {
        match valid_parent(joints, j, joint) {
            Some(p) => kids[p].push(first + j),
            None => roots.push(first + j),
        }
    }
    let local = joint_translations(joints);
    for (j, joint) in joints.iter().enumerate() {
        let mut node = json!({"name": joint.name, "translation": local[j]});
        if !kids[j].is_empty() {
            node["children"] = json!(kids[j]);
        }
        doc.push("nodes", node);
    }
    // World = the f32 translations summed up the chain, as an importer will compute it.
    let world = (0..joints.len())
        .map(|j| {
            let mut t = Vector3::zeros();
            for c in up_to_root(joints, j) {
                t += Vector3::from(local[c].map(f64::from));
            }
            Matrix4::new_translation(&t)
        })
        .collect();
    let skeleton = if roots.len() > 1 {
        Some(doc.push("nodes", json!({"name": GROUP_NODE, "children": roots})))
    } else {
        roots.first().copied()
    };
    let scene = default_scene(&mut doc.json);
    if let Some(top) = skeleton {
        if let Some(list) = doc.json["scenes"][scene]
            .get_mut("nodes")
            .and_then(Value::as_array_mut)
        {
            list.push(json!(top));
        } else {
            doc.json["scenes"][scene]["nodes"] = json!([top]);
        }
    }
    JointNodes {
        nodes: (first..first + joints.len()).collect(),
        world,
        skeleton,
    }
}

/// With `--keep-animations`: each joint is the input skin's joint node of the same name (the
/// name [`crate::mesh::load::load_rigged_gltf`] gives it), so the animations keep driving it.
fn existing_joints(
    json: &Value,
    old_skins: &[Vec<usize>],
    joints: &[RigJoint],
    worlds: &[Matrix4<f64>],
) -> Result<JointNodes, GlbError> {
    let slots = old_skins.first().ok_or_else(|| {
        GlbError::Mismatch("--keep-animations: the input has no skeleton to keep".into())
    })?;
    let name_of = |k: usize, node: usize| {
        json["nodes"][node]["name"]
            .as_str()
            .map_or_else(|| format!("joint_{k}"), str::to_owned)
    };
    let mut nodes = Vec::with_capacity(joints.len());
    for j in joints {
        let found = slots
            .iter()
            .enumerate()
            .find(|&(k, &n)| name_of(k, n) == j.name)
            .map(|(_, &n)| n);
        nodes.push(found.ok_or_else(|| {
            GlbError::Mismatch(format!(
                "--keep-animations: joint '{}' is not a joint of the input's skeleton; the \
                 animations can only be kept with the skeleton unchanged",
                j.name
            ))
        })?);
    }
    let world = nodes
        .iter()
        .map(|&n| worlds.get(n).copied().unwrap_or_else(Matrix4::identity))
        .collect();
    let skeleton = json["skins"][0]["skeleton"].as_u64().map(|s| s as usize);
    Ok(JointNodes {
        nodes,
        world,
        skeleton,
    })
}

/// Give every node instancing a rigged primitive its weights and a skin.
fn bind_meshes(
    doc: &mut SourceDocument,
    prims: &[crate::mesh::load::source::SourcePrimitive],
    worlds: &[Matrix4<f64>],
    joints: &JointNodes,
    skin: &SkinTable,
) {
    let mut by_node: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (k, p) in prims.iter().enumerate() {
        by_node.entry(p.node).or_default().push(k);
    }
    let mut claimed: BTreeSet<usize> = BTreeSet::new();
    for (node, list) in by_node {
        let Some(mut mesh) = prims.get(list[0]).map(|p| p.mesh) else {
            continue;
        };
        if !claimed.insert(mesh) {
            let copy = doc.json["meshes"][mesh].clone();
            mesh = doc.push("meshes", copy);
            doc.json["nodes"][node]["mesh"] = json!(mesh);
        }
        let n_prims = doc.json["meshes"][mesh]["primitives"]
            .as_array()
            .map_or(0, Vec::len);
        for pi in 0..n_prims {
            let rows: Vec<&[(u32, f64)]> = match list.iter().find(|&&k| prims[k].primitive == pi) {
                Some(&k) => prims[k]
                    .vertices
                    .iter()
                    .map(|&v| skin.get(v as usize).map_or(&[][..], Vec::as_slice))
                    .collect(),
                // Points and lines the engine did not read follow the first joint.
                None => vec![&[][..]; primitive_vertex_count(&doc.json, mesh, pi)],
            };
            add_weights(doc, mesh, pi, &rows);
        }
        let a = worlds.get(node).copied().unwrap_or_else(Matrix4::identity);
        let ibm: Vec<f32> = joints
            .world
            .iter()
            .flat_map(|w| {
                let m = w.try_inverse().unwrap_or_else(Matrix4::identity) * a;
                m.as_slice().iter().map(|&x| x as f32).collect::<Vec<_>>()
            })
            .collect();
        let bytes: Vec<u8> = ibm.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = doc.view(&bytes, None);
        let acc = doc.push(
            "accessors",
            json!({"bufferView": view, "componentType": FLOAT, "count": joints.nodes.len(), "type": "MAT4"}),
        );
        let mut s = json!({"joints": joints.nodes, "inverseBindMatrices": acc, "name": "geppetto"});
        if let Some(root) = joints.skeleton {
            s["skeleton"] = json!(root);
        }
        let k = doc.push("skins", s);
        doc.json["nodes"][node]["skin"] = json!(k);
    }
}

/// A primitive's vertex count (its POSITION accessor's count).
fn primitive_vertex_count(json: &Value, mesh: usize, prim: usize) -> usize {
    json["meshes"][mesh]["primitives"][prim]["attributes"]["POSITION"]
        .as_u64()
        .and_then(|a| json["accessors"][a as usize]["count"].as_u64())
        .unwrap_or(0) as usize
}

/// Add `JOINTS_0` (u16) and `WEIGHTS_0` (f32) from per-vertex weight rows.
fn add_weights(doc: &mut SourceDocument, mesh: usize, prim: usize, rows: &[&[(u32, f64)]]) {
    let (jb, wb) = influence_bytes(rows.iter().copied());
    let n = rows.len();
    let jv = doc.view(&jb, Some(ARRAY_BUFFER));
    let ja = doc.push(
        "accessors",
        json!({"bufferView": jv, "componentType": UNSIGNED_SHORT, "count": n, "type": "VEC4"}),
    );
    let wv = doc.view(&wb, Some(ARRAY_BUFFER));
    let wa = doc.push(
        "accessors",
        json!({"bufferView": wv, "componentType": FLOAT, "count": n, "type": "VEC4"}),
    );
    let attrs = &mut doc.json["meshes"][mesh]["primitives"][prim]["attributes"];
    attrs["JOINTS_0"] = json!(ja);
    attrs["WEIGHTS_0"] = json!(wa);
}

/// Set the root array `key`, or remove it when empty (glTF arrays must not be empty).
pub(super) fn set_or_remove(json: &mut Value, key: &str, list: Vec<Value>) {
    if let Some(root) = json.as_object_mut() {
        if list.is_empty() {
            root.remove(key);
        } else {
            root.insert(key.into(), Value::Array(list));
        }
    }
}
