//! glTF 2.0 reader (`.glb` and `.gltf`): every triangle primitive of the default scene, in world
//! space, at the bind pose ([`super::gltf_bind`]: the document's default node pose, unless that
//! is an animation frame).
//!
//! Vertices are the primitives' vertices concatenated in scene order (depth-first from the scene's
//! roots, a node's primitives in order), one entry per primitive vertex: nothing is merged or
//! dropped, so per-vertex outputs line up with the file. Skinned primitives are placed by linear
//! blend skinning with the joints' world transforms (`Σ w · W(joint) · IBM · v`); at a file's
//! default pose that is what viewers show and how the corpus OBJ files were made, and for a file
//! saved in an animation frame the joints are at their bind pose, where this gives the stored
//! positions. Unskinned ones are placed by their node's world transform. TRIANGLES, TRIANGLE_STRIP and TRIANGLE_FAN are read; POINTS and LINES are skipped.

use std::path::Path;

use gltf::accessor::Dimensions;
use gltf::mesh::Mode;
use gltf::{Document, Gltf};
use nalgebra::Matrix4;

use super::companion::Companion;
use super::gltf_bind::{bind_pose, Rebound};
use super::gltf_data::{has_dims, read, Buffers};
use super::gltf_place::{prim_skin, Placement};
use super::LoadError;
use crate::mesh::Mesh;

/// An opened document with its buffers and node transforms.
pub(crate) struct Opened {
    /// The glTF document.
    pub doc: Document,
    /// Resolved buffers.
    pub buffers: Buffers,
    /// Per node: its parent node (first parent listing it as a child), if any.
    pub parent: Vec<Option<usize>>,
    /// Per node: world transform at the bind pose ([`super::gltf_bind`]): the default pose
    /// when that is a bind pose, else the joints at their inverse bind matrices' inverses.
    pub world: Vec<Matrix4<f64>>,
    /// Set when the default pose was an animation frame and the skins were put at their bind
    /// pose.
    pub rebound: Option<Rebound>,
}

/// Parse and validate a document and resolve its buffers (external buffer files recorded in
/// `seen`, found or not).
pub(crate) fn open(
    bytes: &[u8],
    base_dir: Option<&Path>,
    seen: &mut Vec<Companion>,
) -> Result<Opened, LoadError> {
    let (json, bin) = if bytes.starts_with(b"glTF") {
        split_glb(bytes)?
    } else {
        (bytes, None)
    };
    let root: gltf::json::Root = gltf::json::deserialize::from_slice(json)
        .map_err(|e| LoadError::Invalid(format!("glTF JSON: {e}")))?;
    let mut gltf = Gltf {
        document: validated(root)?,
        blob: bin.map(<[u8]>::to_vec),
    };
    let buffers = Buffers::resolve(&mut gltf, base_dir, seen)?;
    let doc = gltf.document;
    let n = doc.nodes().len();
    let mut parent = vec![None; n];
    for node in doc.nodes() {
        for child in node.children() {
            if let Some(slot) = parent.get_mut(child.index()) {
                slot.get_or_insert(node.index());
            }
        }
    }
    let local: Vec<Matrix4<f64>> = doc
        .nodes()
        .map(|nd| to_matrix(nd.transform().matrix()))
        .collect();
    let world: Vec<Matrix4<f64>> = (0..n).map(|i| world_of(i, &parent, &local)).collect();
    let (world, rebound) = match bind_pose(&doc, &buffers, &parent, &local, &world)? {
        Some((bind, why)) => (bind, Some(why)),
        None => (world, None),
    };
    Ok(Opened {
        doc,
        buffers,
        parent,
        world,
        rebound,
    })
}

/// Little-endian u32 at `at`, if in range.
fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The JSON and optional BIN chunks of a GLB. Written here because gltf 1.4.1's GLB splitter
/// underflows (panics in checked builds) on a header length below 12.
pub(crate) fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), LoadError> {
    let bad = |m: &str| LoadError::Invalid(format!("GLB: {m}"));
    match u32_at(bytes, 4) {
        Some(2) => {}
        Some(v) => return Err(bad(&format!("unsupported version {v}"))),
        None => return Err(bad("truncated header")),
    }
    let mut pos = 12;
    let (mut json, mut bin) = (None, None);
    while let (Some(len), Some(kind)) = (u32_at(bytes, pos), u32_at(bytes, pos + 4)) {
        let start = pos + 8;
        let data = start
            .checked_add(len as usize)
            .and_then(|end| bytes.get(start..end))
            .ok_or_else(|| bad("chunk runs past the end of the file"))?;
        match &kind.to_le_bytes() {
            b"JSON" if json.is_none() => json = Some(data),
            b"BIN\0" if bin.is_none() => bin = Some(data),
            _ => {}
        }
        // Chunks are 4-byte aligned.
        pos = start + (len as usize).next_multiple_of(4);
    }
    Ok((json.ok_or_else(|| bad("no JSON chunk"))?, bin))
}

/// Validate a parsed document. gltf-json 1.4.1's validation indexes `accessors` with a
/// primitive's POSITION index before checking it (a panic on a malformed file), so that index is
/// checked first; validation then runs behind `catch_unwind` as a safety net against any other
/// such bug in the dependency.
fn validated(root: gltf::json::Root) -> Result<Document, LoadError> {
    let n_acc = root.accessors.len();
    for m in &root.meshes {
        for p in &m.primitives {
            for (sem, idx) in &p.attributes {
                if idx.value() >= n_acc {
                    return Err(LoadError::Invalid(format!(
                        "glTF: attribute {sem:?} refers to accessor {} of {n_acc}",
                        idx.value()
                    )));
                }
            }
        }
    }
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| Document::from_json(root))) {
        Ok(Ok(doc)) => Ok(doc),
        Ok(Err(e)) => Err(LoadError::Invalid(format!("glTF: {e}"))),
        Err(_) => Err(LoadError::Invalid(
            "glTF: the document failed validation".into(),
        )),
    }
}

/// Column-major `[[f32; 4]; 4]` → `Matrix4<f64>`.
pub(crate) fn to_matrix(m: [[f32; 4]; 4]) -> Matrix4<f64> {
    Matrix4::from_fn(|r, c| f64::from(m[c][r]))
}

/// World transform of node `i`: the product of local transforms up its parent chain (a chain
/// longer than the node count is a cycle and is cut there).
fn world_of(i: usize, parent: &[Option<usize>], local: &[Matrix4<f64>]) -> Matrix4<f64> {
    let mut m = local.get(i).copied().unwrap_or_else(Matrix4::identity);
    let mut cur = i;
    for _ in 0..parent.len() {
        let Some(p) = parent.get(cur).copied().flatten() else {
            break;
        };
        m = local.get(p).copied().unwrap_or_else(Matrix4::identity) * m;
        cur = p;
    }
    m
}

/// Nodes of the default scene (or the first scene, or every parentless node if there is no
/// scene), depth-first pre-order, each node once.
pub(crate) fn scene_nodes(o: &Opened) -> Vec<usize> {
    let roots: Vec<usize> = match o.doc.default_scene().or_else(|| o.doc.scenes().next()) {
        Some(scene) => scene.nodes().map(|nd| nd.index()).collect(),
        None => (0..o.parent.len())
            .filter(|&i| o.parent[i].is_none())
            .collect(),
    };
    let nodes: Vec<gltf::Node> = o.doc.nodes().collect();
    let mut seen = vec![false; nodes.len()];
    let mut order = Vec::new();
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        if !seen.get(i).copied().unwrap_or(true) {
            seen[i] = true;
            order.push(i);
            if let Some(nd) = nodes.get(i) {
                let kids: Vec<usize> = nd.children().map(|c| c.index()).collect();
                stack.extend(kids.into_iter().rev());
            }
        }
    }
    order
}

/// Per vertex: `(node index, weight)` pairs saying which nodes move it (joint nodes for skinned
/// primitives, the mesh node itself otherwise).
pub(crate) type NodeInfluences = Vec<Vec<(usize, f64)>>;

/// Where one triangle primitive's vertices landed in the assembled [`Mesh`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct PrimRange {
    /// The node instancing the mesh.
    pub node: usize,
    /// The mesh.
    pub mesh: usize,
    /// The primitive's index in the mesh.
    pub primitive: usize,
    /// First mesh vertex of the primitive.
    pub start: usize,
    /// Vertex count.
    pub count: usize,
    /// True if the vertices were placed by linear blend skinning.
    pub skinned: bool,
}

/// Every triangle primitive of the scene as one mesh, which nodes move each vertex (if asked),
/// and where each primitive's vertices are.
pub(crate) struct Assembled {
    pub mesh: Mesh,
    pub influences: NodeInfluences,
    pub ranges: Vec<PrimRange>,
}

/// Read every triangle primitive of the scene. With `want_influences`, also report which nodes
/// move each vertex (for [`super::gltf_skin`]).
pub(crate) fn assemble(o: &Opened, want_influences: bool) -> Result<Assembled, LoadError> {
    let mut mesh = Mesh::default();
    let mut influences = Vec::new();
    let mut ranges = Vec::new();
    let mut face_base = 0usize;
    for node_index in scene_nodes(o) {
        let Some(node) = o.doc.nodes().nth(node_index) else {
            continue;
        };
        let Some(gmesh) = node.mesh() else { continue };
        for prim in gmesh.primitives() {
            let before = mesh.triangles.len();
            let start = mesh.positions.len();
            let infl = want_influences.then_some(&mut influences);
            let skinned = add_primitive(o, &node, &prim, &mut mesh, face_base, infl)?;
            face_base += mesh.triangles.len() - before;
            if mesh.positions.len() > start {
                ranges.push(PrimRange {
                    node: node_index,
                    mesh: gmesh.index(),
                    primitive: prim.index(),
                    start,
                    count: mesh.positions.len() - start,
                    skinned,
                });
            }
        }
    }
    if mesh.positions.is_empty() {
        return Err(LoadError::Invalid(
            "the glTF scene contains no triangle meshes".into(),
        ));
    }
    Ok(Assembled {
        mesh,
        influences,
        ranges,
    })
}

/// Triangles of a primitive's index list for its mode (`None` for points and lines).
fn triangles_of(mode: Mode, idx: &[u32]) -> Option<Vec<[u32; 3]>> {
    let n = idx.len();
    let at = |i: usize| idx.get(i).copied().unwrap_or(0);
    Some(match mode {
        Mode::Triangles => idx.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
        // Every other strip triangle is reversed to keep the winding (glTF spec §3.7.2.1).
        Mode::TriangleStrip => (0..n.saturating_sub(2))
            .map(|i| {
                if i % 2 == 0 {
                    [at(i), at(i + 1), at(i + 2)]
                } else {
                    [at(i + 1), at(i), at(i + 2)]
                }
            })
            .collect(),
        Mode::TriangleFan => (1..n.saturating_sub(1))
            .map(|i| [at(0), at(i), at(i + 1)])
            .collect(),
        Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip => return None,
    })
}

/// Append one primitive's vertices (world space) and triangles; returns true if they were placed
/// by skinning.
fn add_primitive(
    o: &Opened,
    node: &gltf::Node,
    prim: &gltf::Primitive,
    mesh: &mut Mesh,
    face_base: usize,
    mut influences: Option<&mut NodeInfluences>,
) -> Result<bool, LoadError> {
    let Some(pos_acc) = prim.get(&gltf::Semantic::Positions) else {
        return Ok(false);
    };
    if !has_dims(&pos_acc, Dimensions::Vec3) {
        return Err(LoadError::Invalid("POSITION accessor is not VEC3".into()));
    }
    let raw = read(&pos_acc, &o.buffers)?;
    let count = raw.len();
    let idx: Vec<u32> = match prim.indices() {
        Some(acc) => read(&acc, &o.buffers)?
            .data
            .iter()
            .map(|&v| v as u32)
            .collect(),
        None => (0..count as u32).collect(),
    };
    let Some(tris) = triangles_of(prim.mode(), &idx) else {
        return Ok(false);
    };
    let skin = prim_skin(o, node, prim, count)?;
    let node_world = o
        .world
        .get(node.index())
        .copied()
        .unwrap_or_else(Matrix4::identity);
    let mirrored = node_world.fixed_view::<3, 3>(0, 0).determinant() < 0.0 && skin.is_none();
    push_triangles(mesh, &tris, count, mirrored, face_base)?;
    let rebound = |k: usize| o.rebound.as_ref().is_some_and(|r| r.skins.contains(&k));
    let placement = Placement {
        skin: skin.as_ref(),
        node_world,
        unweighted: match node.skin() {
            Some(s) if rebound(s.index()) => Matrix4::identity(),
            _ => node_world,
        },
        node: node.index(),
    };
    for i in 0..count {
        let (p, infl) = placement.place(raw.get(i), i, influences.is_some());
        mesh.positions.push(p);
        if let Some(out) = influences.as_mut() {
            out.push(infl);
        }
    }
    Ok(skin.is_some())
}

/// Append a primitive's triangles (indices into its `count` vertices, appended next) to `mesh`;
/// `face_base` numbers its first face in errors.
fn push_triangles(
    mesh: &mut Mesh,
    tris: &[[u32; 3]],
    count: usize,
    mirrored: bool,
    face_base: usize,
) -> Result<(), LoadError> {
    let base = mesh.positions.len() as u32;
    for (f, t) in tris.iter().enumerate() {
        if let Some(&bad) = t.iter().find(|&&i| i as usize >= count) {
            return Err(LoadError::BadIndex {
                face: face_base + f,
                index: i64::from(bad),
                count,
                line: None,
            });
        }
        let t = t.map(|i| i + base);
        // A mirroring transform reverses the winding (glTF spec §3.7.4).
        mesh.triangles
            .push(if mirrored { [t[0], t[2], t[1]] } else { t });
    }
    Ok(())
}
