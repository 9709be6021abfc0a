//! A glTF input as its own [`SourceDocument`]: the JSON as written, every buffer merged into
//! one binary, every image embedded (external files and `data:` URIs alike), and each triangle
//! primitive tied to its range of mesh vertices.

use std::path::Path;

use gltf::accessor::Dimensions;
use nalgebra::{Matrix3, Matrix4, UnitQuaternion, Vector3, Vector4};
use serde_json::{json, Value};

use super::companion::{self, Companion};
use super::gltf::{split_glb, Opened, PrimRange};
use super::gltf_bind::{local_at, one_placement, Rebound};
use super::gltf_data::{base64_decode, has_dims, percent_decode, read, Elements};
use super::source::{image_mime, placeholder_png, sniff_mime, SourceDocument, SourcePrimitive};
use super::LoadError;
use crate::mesh::Mesh;

/// A skinned primitive whose default pose differs from `node world · stored position` by more
/// than this fraction of the model's size gets its positions baked (see [`bake_positions`]).
const POSE_TOLERANCE: f64 = 1e-5;

/// Build the source document of a glTF input (`bytes` as read, `o` opened from them).
pub(crate) fn source_document(
    bytes: &[u8],
    base_dir: Option<&Path>,
    o: &Opened,
    mesh: &Mesh,
    ranges: &[PrimRange],
) -> Result<SourceDocument, LoadError> {
    let json_bytes = if bytes.starts_with(b"glTF") {
        split_glb(bytes)?.0
    } else {
        bytes
    };
    let json: Value = serde_json::from_slice(json_bytes)
        .map_err(|e| LoadError::Invalid(format!("glTF JSON: {e}")))?;
    let mut doc = SourceDocument {
        json,
        ..SourceDocument::default()
    };
    merge_buffers(&mut doc, o);
    embed_images(&mut doc, base_dir);
    let extent = mesh.aabb().max_extent();
    let mut baked: Vec<(Baked, &PrimRange)> = Vec::new();
    for r in ranges {
        if r.skinned {
            if let Some(why) = bake_positions(&mut doc, o, mesh, r, extent)? {
                baked.push((why, r));
            }
        }
        doc.primitives.push(SourcePrimitive {
            node: r.node,
            mesh: r.mesh,
            primitive: r.primitive,
            vertices: (r.start as u32..(r.start + r.count) as u32).collect(),
        });
    }
    if let Some(rebound) = &o.rebound {
        // The bind pose warning says it all: the mesh was read at its stored positions, and any
        // node transform of a skinned mesh is ignored then as always.
        baked.retain(|(why, _)| *why != Baked::NodeTransform);
        doc.warnings.push(rebound_warning(rebound));
        set_bind_pose(&mut doc, o, &rebound.nodes);
    }
    for why in [Baked::Pose, Baked::Placement, Baked::NodeTransform] {
        let prims: Vec<&PrimRange> = baked
            .iter()
            .filter(|(w, _)| *w == why)
            .map(|(_, r)| *r)
            .collect();
        if !prims.is_empty() {
            doc.warnings.push(why.warning(&prims));
        }
    }
    Ok(doc)
}

/// The one warning of a file read at its bind pose instead of its default pose.
fn rebound_warning(r: &Rebound) -> String {
    format!(
        "the file's default pose is an animation frame, not the bind pose ({} of {} joints \
         moved); it was rigged at the bind pose, the pose the mesh was skinned in and importers \
         show as rest, and that is the output's default pose",
        r.moved, r.joints
    )
}

/// Write the joints' bind pose into the document as their local transforms, so its default pose
/// is the pose the mesh was rigged in: the export's inverse bind matrices
/// ([`crate::export::glb_source`]) are then taken at that pose, and the input's animations, when
/// kept, drive the mesh from it as the artist's skin did.
fn set_bind_pose(doc: &mut SourceDocument, o: &Opened, nodes: &[usize]) {
    for &i in nodes {
        let m = local_at(&o.world, &o.parent, i);
        let Some(node) = doc.json["nodes"].get_mut(i).and_then(Value::as_object_mut) else {
            continue;
        };
        for key in ["matrix", "translation", "rotation", "scale"] {
            node.remove(key);
        }
        match trs(&m) {
            Some((t, r, s)) => {
                node.insert("translation".into(), json!(t));
                node.insert("rotation".into(), json!(r));
                node.insert("scale".into(), json!(s));
            }
            // A shear no translation-rotation-scale reproduces: the matrix itself.
            None => {
                let cols: Vec<f32> = m.as_slice().iter().map(|&x| x as f32).collect();
                node.insert("matrix".into(), json!(cols));
            }
        }
    }
}

/// Translation, rotation (x, y, z, w) and scale reproducing the affine `m` (to 1e-5 of its
/// largest entry), if it has no shear. A mirror goes into a negative x scale.
#[allow(clippy::type_complexity)]
fn trs(m: &Matrix4<f64>) -> Option<([f32; 3], [f32; 4], [f32; 3])> {
    let l = m.fixed_view::<3, 3>(0, 0).into_owned();
    let mut s = Vector3::new(l.column(0).norm(), l.column(1).norm(), l.column(2).norm());
    if s.iter().any(|&x| !(x > 0.0 && x.is_finite())) {
        return None;
    }
    let mut r = Matrix3::from_columns(&[l.column(0) / s.x, l.column(1) / s.y, l.column(2) / s.z]);
    if r.determinant() < 0.0 {
        s.x = -s.x;
        r.set_column(0, &(-r.column(0)));
    }
    let q = UnitQuaternion::from_matrix(&r);
    let back = q.to_rotation_matrix().matrix() * Matrix3::from_diagonal(&s);
    if (back - l).amax() > 1e-5 * l.amax() {
        return None;
    }
    let f = |x: f64| x as f32;
    Some((
        [f(m[(0, 3)]), f(m[(1, 3)]), f(m[(2, 3)])],
        [f(q.i), f(q.j), f(q.k), f(q.w)],
        [f(s.x), f(s.y), f(s.z)],
    ))
}

/// Why [`bake_positions`] rewrote a skinned primitive's positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Baked {
    /// Skinning moves the stored positions at a pose that is not one placement of the bind
    /// pose: a skin without inverse bind matrices (no bind pose of its own,
    /// [`super::gltf_bind`]) read in its default pose.
    Pose,
    /// Every joint of the skin has the same skin matrix `W · IBM` ≠ I: the default pose is the
    /// bind pose placed elsewhere as a whole (an armature node turned Z-up to Y-up, a scale), so
    /// skinning moves every vertex by that one transform.
    Placement,
    /// The joints are at their bind pose, and only the mesh node has a transform of its own,
    /// which glTF ignores for a skinned mesh (glTF 2.0 §3.7, skins): a Blender export of a mesh
    /// object that was moved or turned under its armature.
    NodeTransform,
}

impl Baked {
    /// One warning for every primitive baked for this reason (a figure built of 19 skinned
    /// parts gets one line, not 19).
    fn warning(self, prims: &[&PrimRange]) -> String {
        const NAMED: usize = 3;
        let mut which: Vec<String> = prims
            .iter()
            .take(NAMED)
            .map(|r| format!("mesh {} primitive {}", r.mesh, r.primitive))
            .collect();
        if prims.len() > NAMED {
            which.push(format!("{} more", prims.len() - NAMED));
        }
        let which = match prims.len() {
            1 => which.join(""),
            n => format!("{n} skinned primitives ({})", which.join(", ")),
        };
        match self {
            Baked::Pose => format!(
                "{which}: the default pose differs from the bind pose; positions were baked at \
                 the default pose (normals kept)"
            ),
            Baked::Placement => format!(
                "{which}: every joint of its skin carries one transform of the whole mesh (an \
                 armature turned or scaled, e.g. Z-up to Y-up), which skinning applies; the \
                 pose is the bind pose, and the positions were rewritten in the node's space \
                 where that transform puts them"
            ),
            Baked::NodeTransform => format!(
                "{which}: the skinned mesh's node carries a transform of its own, which glTF \
                 ignores for skinned meshes (the joints are at their bind pose); the mesh was \
                 read where its joints place it and its positions were rewritten in the node's \
                 space"
            ),
        }
    }
}

/// Concatenate every buffer into `doc.bin` (each starting 16-byte aligned, which keeps every
/// accessor's alignment) and point the buffer views at it.
fn merge_buffers(doc: &mut SourceDocument, o: &Opened) {
    let mut starts = Vec::with_capacity(o.buffers.count());
    for b in 0..o.buffers.count() {
        while !doc.bin.len().is_multiple_of(16) {
            doc.bin.push(0);
        }
        starts.push(doc.bin.len());
        doc.bin.extend_from_slice(o.buffers.get(b).unwrap_or(&[]));
    }
    for view in doc.array("bufferViews").iter_mut() {
        let b = view["buffer"].as_u64().unwrap_or(0) as usize;
        let off = view["byteOffset"].as_u64().unwrap_or(0) as usize;
        view["buffer"] = json!(0);
        view["byteOffset"] = json!(off + starts.get(b).copied().unwrap_or(0));
    }
    let len = doc.bin.len();
    doc.root_object()
        .insert("buffers".into(), json!([{ "byteLength": len }]));
}

/// Replace every image URI by an embedded buffer view. A missing or unreadable file becomes a
/// warning naming it and a 1×1 white placeholder, so materials and the document stay valid.
fn embed_images(doc: &mut SourceDocument, base_dir: Option<&Path>) {
    let images: Vec<Value> = doc.array("images").clone();
    for (i, image) in images.iter().enumerate() {
        let Some(uri) = image.get("uri").and_then(Value::as_str) else {
            continue;
        };
        let (bytes, mime) = match image_bytes(uri, base_dir, &mut doc.companions) {
            Ok(found) => found,
            Err(problem) => {
                doc.warnings.push(problem);
                (placeholder_png(), "image/png")
            }
        };
        let view = doc.view(&bytes, None);
        if let Some(img) = doc
            .array("images")
            .get_mut(i)
            .and_then(Value::as_object_mut)
        {
            img.remove("uri");
            img.insert("bufferView".into(), json!(view));
            img.insert("mimeType".into(), json!(mime));
        }
    }
}

/// The bytes and MIME type of an image URI, or a message naming what is missing.
fn image_bytes(
    uri: &str,
    base_dir: Option<&Path>,
    seen: &mut Vec<Companion>,
) -> Result<(Vec<u8>, &'static str), String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (_, data) = rest
            .split_once(',')
            .ok_or("an image data: URI is malformed (no comma)")?;
        let bytes = base64_decode(data).ok_or("an image data: URI is not valid base64")?;
        let mime = sniff_mime(&bytes).unwrap_or("image/png");
        return Ok((bytes, mime));
    }
    let path = base_dir
        .unwrap_or_else(|| Path::new(""))
        .join(percent_decode(uri));
    let bytes = companion::read(&path, seen).map_err(|e| {
        format!(
            "texture {} cannot be read ({e}); kept as a blank image",
            path.display()
        )
    })?;
    let mime = sniff_mime(&bytes)
        .or_else(|| image_mime(&path))
        .unwrap_or("image/png");
    Ok((bytes, mime))
}

/// For a skinned primitive: if its stored positions, moved by its node's world transform, are
/// not where skinning at the default pose put them, write the default-pose positions in the
/// node's space as a new POSITION accessor, so the new skin's bind pose is exactly what was
/// rigged. Normals are kept. Returns why it baked ([`Baked`]): the skinned positions differ from
/// the stored ones (the default pose is not the bind pose), or only the node's transform, which
/// skinning ignores, moved them.
fn bake_positions(
    doc: &mut SourceDocument,
    o: &Opened,
    mesh: &Mesh,
    r: &PrimRange,
    extent: f64,
) -> Result<Option<Baked>, LoadError> {
    let Some(stored) = stored_positions(o, r)? else {
        return Ok(None);
    };
    let a = o
        .world
        .get(r.node)
        .copied()
        .unwrap_or_else(Matrix4::identity);
    let world = mesh
        .positions
        .get(r.start..r.start + r.count)
        .unwrap_or(&[]);
    let tol = POSE_TOLERANCE * extent;
    let off = (0..r.count).any(|i| {
        let v = stored.get(i);
        let q = a * Vector4::new(v[0], v[1], v[2], 1.0);
        (q.xyz() - world[i].coords).norm() > tol
    });
    if !off {
        return Ok(None);
    }
    // Skinning at the bind pose returns the stored positions unchanged (Σ w · W · IBM · v = v
    // when every W · IBM = I), so stored = skinned means only the node's transform differs.
    let at_bind = (0..r.count).all(|i| {
        let v = stored.get(i);
        (nalgebra::Vector3::new(v[0], v[1], v[2]) - world[i].coords).norm() <= tol
    });
    let inv = a.try_inverse().unwrap_or_else(Matrix4::identity);
    let baked: Vec<f32> = world
        .iter()
        .flat_map(|p| {
            let q = inv * Vector4::new(p.x, p.y, p.z, 1.0);
            [q.x as f32, q.y as f32, q.z as f32]
        })
        .collect();
    let new_acc = doc.f32_attribute(&baked, 3, "VEC3", true);
    doc.json["meshes"][r.mesh]["primitives"][r.primitive]["attributes"]["POSITION"] =
        json!(new_acc);
    Ok(Some(if at_bind {
        Baked::NodeTransform
    } else if placed(o, r)? {
        Baked::Placement
    } else {
        Baked::Pose
    }))
}

/// The primitive's stored POSITION values (a 3-vector accessor), if it has them.
fn stored_positions(o: &Opened, r: &PrimRange) -> Result<Option<Elements>, LoadError> {
    let acc = o
        .doc
        .meshes()
        .nth(r.mesh)
        .and_then(|m| m.primitives().nth(r.primitive))
        .and_then(|prim| prim.get(&gltf::Semantic::Positions))
        .filter(|a| has_dims(a, Dimensions::Vec3));
    acc.map(|acc| read(&acc, &o.buffers)).transpose()
}

/// Whether the primitive's node has a skin placed whole by one transform ([`one_placement`]).
fn placed(o: &Opened, r: &PrimRange) -> Result<bool, LoadError> {
    match o.doc.nodes().nth(r.node).and_then(|n| n.skin()) {
        Some(skin) => one_placement(&skin, &o.buffers, &o.world),
        None => Ok(false),
    }
}
