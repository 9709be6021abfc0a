//! Hand-built glTF documents: primitive modes, node transforms, embedded / external / GLB buffers,
//! a two-joint skin read by `load_rigged_gltf`, and the warnings for skinned primitives whose
//! positions the loader rewrites or whose default pose is not the bind pose.

use geppetto::geom::P3;
use geppetto::mesh::load::{
    load_bytes, load_bytes_with_source, load_rigged_gltf, LoadError, MeshFormat,
};
use serde_json::{json, Value};

fn b64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                s.push(A[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// Buffer: 4 quad positions (48 B) | u16 indices 0 1 2 0 2 3 (12 B) | pad (4 B) |
/// u8 joints (16 B) | f32 weights (64 B) | 2 mat4 IBMs (128 B).
fn buffer() -> Vec<u8> {
    let mut b = Vec::new();
    for p in [
        [0.0f32, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
    ] {
        p.iter().for_each(|c| b.extend(c.to_le_bytes()));
    }
    for i in [0u16, 1, 2, 0, 2, 3] {
        b.extend(i.to_le_bytes());
    }
    b.extend([0; 4]);
    for j in [[0u8, 1, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]] {
        b.extend(j);
    }
    for w in [
        [1.0f32, 0.0, 0.0, 0.0],
        [0.75, 0.25, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.5, 0.5, 0.0, 0.0],
    ] {
        w.iter().for_each(|c| b.extend(c.to_le_bytes()));
    }
    // IBMs: skin slot 0 at y = 1, slot 1 at the origin (column-major, translation last).
    for ty in [-1.0f32, 0.0] {
        let m = [
            1.0f32, 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., ty, 0., 1.,
        ];
        m.iter().for_each(|c| b.extend(c.to_le_bytes()));
    }
    b
}

fn doc(uri: Option<String>, prims: Value, nodes: Value, extra: Value) -> Value {
    let len = buffer().len();
    let mut buf = json!({ "byteLength": len });
    if let Some(u) = uri {
        buf["uri"] = json!(u);
    }
    let mut d = json!({
        "asset": { "version": "2.0" },
        "buffers": [buf],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": 48 },
            { "buffer": 0, "byteOffset": 48, "byteLength": 12 },
            { "buffer": 0, "byteOffset": 64, "byteLength": 16 },
            { "buffer": 0, "byteOffset": 80, "byteLength": 64 },
            { "buffer": 0, "byteOffset": 144, "byteLength": 128 }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
              "min": [0, 0, 0], "max": [1, 1, 0] },
            { "bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR" },
            { "bufferView": 2, "componentType": 5121, "count": 4, "type": "VEC4" },
            { "bufferView": 3, "componentType": 5126, "count": 4, "type": "VEC4" },
            { "bufferView": 4, "componentType": 5126, "count": 2, "type": "MAT4" }
        ],
        "meshes": [{ "primitives": prims }],
        "nodes": nodes,
        "scene": 0,
        "scenes": [{ "nodes": [0] }]
    });
    if let (Some(o), Some(e)) = (d.as_object_mut(), extra.as_object()) {
        o.extend(e.clone());
    }
    d
}

fn embedded(prims: Value, nodes: Value) -> Vec<u8> {
    let uri = format!("data:application/octet-stream;base64,{}", b64(&buffer()));
    serde_json::to_vec(&doc(Some(uri), prims, nodes, json!({}))).unwrap()
}

#[test]
fn modes_indexing_and_transforms() {
    let prims = json!([
        { "attributes": { "POSITION": 0 }, "indices": 1 },
        { "attributes": { "POSITION": 0 }, "mode": 5 },
        { "attributes": { "POSITION": 0 }, "mode": 6 },
        { "attributes": { "POSITION": 0 }, "mode": 0 },
        { "attributes": { "POSITION": 0 }, "mode": 1 }
    ]);
    // Parent translates by +10 x, child scales by 2: world = translate · scale.
    let nodes = json!([
        { "translation": [10.0, 0.0, 0.0], "children": [1] },
        { "scale": [2.0, 2.0, 2.0], "mesh": 0 }
    ]);
    let m = load_bytes(&embedded(prims, nodes), MeshFormat::Gltf, None).unwrap();
    // Triangles, strip and fan keep their vertices; points and lines are skipped entirely.
    assert_eq!(m.positions.len(), 12);
    assert_eq!(m.positions[2], P3::new(12.0, 2.0, 0.0));
    assert_eq!(m.triangles[..2], [[0, 1, 2], [0, 2, 3]]);
    // Strip 0 1 2 3 → (0 1 2), (2 1 3); fan → (0 1 2), (0 2 3).
    assert_eq!(m.triangles[2..4], [[4, 5, 6], [6, 5, 7]]);
    assert_eq!(m.triangles[4..6], [[8, 9, 10], [8, 10, 11]]);
    assert_eq!(m.triangles.len(), 6);
}

#[test]
fn mirroring_node_reverses_winding() {
    let prims = json!([{ "attributes": { "POSITION": 0 }, "indices": 1 }]);
    let nodes = json!([{ "scale": [-1.0, 1.0, 1.0], "mesh": 0 }]);
    let m = load_bytes(&embedded(prims, nodes), MeshFormat::Gltf, None).unwrap();
    assert_eq!(m.positions[1], P3::new(-1.0, 0.0, 0.0));
    // Seen from +z the mirrored quad would wind clockwise; the loader restores counter-clockwise.
    let [a, b, c] = m.triangles[0].map(|i| m.positions[i as usize]);
    assert!((b - a).cross(&(c - a)).z > 0.0);
}

#[test]
fn external_buffers_and_glb() {
    let dir = tempfile::tempdir().unwrap();
    let prims = json!([{ "attributes": { "POSITION": 0 }, "indices": 1 }]);
    let nodes = json!([{ "mesh": 0 }]);
    let text = serde_json::to_vec(&doc(
        Some("my%20data.bin".into()),
        prims.clone(),
        nodes.clone(),
        json!({}),
    ))
    .unwrap();
    match load_bytes(&text, MeshFormat::Gltf, Some(dir.path())) {
        Err(LoadError::MissingBuffer(p)) => assert!(p.ends_with("my data.bin")),
        other => panic!("{other:?}"),
    }
    std::fs::write(dir.path().join("my data.bin"), buffer()).unwrap();
    let m = load_bytes(&text, MeshFormat::Gltf, Some(dir.path())).unwrap();
    assert_eq!(m.triangles.len(), 2);
    // The same document as GLB with a BIN chunk.
    let json_bytes = serde_json::to_vec(&doc(None, prims, nodes, json!({}))).unwrap();
    let glb = gltf::binary::Glb {
        header: gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            length: 0,
        },
        json: json_bytes.into(),
        bin: Some(buffer().into()),
    };
    let bytes = glb.to_vec().unwrap();
    let g = load_bytes(&bytes, MeshFormat::Glb, None).unwrap();
    assert_eq!(g, m);
}

#[test]
fn bad_index_is_reported() {
    let prims = json!([{ "attributes": { "POSITION": 0 }, "indices": 1 }]);
    let nodes = json!([{ "mesh": 0 }]);
    let mut d = doc(
        Some(format!(
            "data:application/octet-stream;base64,{}",
            b64(&buffer())
        )),
        prims,
        nodes,
        json!({}),
    );
    d["accessors"][0]["count"] = json!(2);
    let bytes = serde_json::to_vec(&d).unwrap();
    assert!(matches!(
        load_bytes(&bytes, MeshFormat::Gltf, None),
        Err(LoadError::BadIndex {
            index: 2,
            count: 2,
            ..
        })
    ));
}

#[test]
fn two_joint_skin() {
    let prims =
        json!([{ "attributes": { "POSITION": 0, "JOINTS_0": 2, "WEIGHTS_0": 3 }, "indices": 1 }]);
    // Node 0: scene root holding the mesh; node 1 "Root" → node 2 (unnamed, y = 1), listed child-first.
    let nodes = json!([
        { "mesh": 0, "skin": 0, "children": [1] },
        { "name": "Root", "children": [2] },
        { "translation": [0.0, 1.0, 0.0] }
    ]);
    let extra = json!({ "skins": [{ "joints": [2, 1], "inverseBindMatrices": 4 }] });
    let uri = format!("data:application/octet-stream;base64,{}", b64(&buffer()));
    let bytes = serde_json::to_vec(&doc(Some(uri), prims, nodes, extra)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rig.gltf");
    std::fs::write(&path, bytes).unwrap();
    // The specification fixes a glTF's frame (+Y up, facing +Z): `attach --skeleton-from` it
    // records that frame, so its rig can be animated.
    let file = geppetto::rig::read::read(&path).unwrap();
    assert_eq!(file.orientation.as_deref(), Some("+Y up, +Z forward"));
    let r = load_rigged_gltf(&path).unwrap();
    let names: Vec<&str> = r.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(
        names,
        ["Root", "joint_0"],
        "parent-first; unnamed joint named by skin slot"
    );
    assert_eq!(r.joints[1].parent, Some(0));
    assert_eq!(r.joints[1].position, [0.0, 1.0, 0.0]);
    let skin = r.skin.unwrap();
    // Skin slot 0 (node 2) is joint 1 here; slot 1 (node 1) is joint 0.
    assert_eq!(skin[0], vec![(1, 1.0)]);
    assert_eq!(skin[1], vec![(1, 0.75), (0, 0.25)]);
    assert_eq!(skin[3], vec![(0, 0.5), (1, 0.5)]);
    // Default pose = bind pose, so skinning leaves the vertices where they are.
    assert_eq!(r.mesh.positions[2], P3::new(1.0, 1.0, 0.0));
    // Not skinned → an error for load_rigged_gltf, fine for load.
    let plain = dir.path().join("plain.gltf");
    let nodes = json!([{ "mesh": 0 }]);
    let prims = json!([{ "attributes": { "POSITION": 0 }, "indices": 1 }]);
    std::fs::write(&plain, embedded(prims, nodes)).unwrap();
    assert!(load_rigged_gltf(&plain).is_err());
    assert!(geppetto::mesh::load(&plain).is_ok());
}

/// The warnings of a document with the two-joint skin on two primitives, its mesh node `mesh_node`
/// (a scene root of its own, not the joints' parent) and its joint nodes `root` → `child`.
fn skinned_warnings(mesh_node: Value, child: Value) -> Vec<String> {
    skinned_warnings_under(mesh_node, json!({ "name": "Root", "children": [2] }), child)
}

/// [`skinned_warnings`] with the root joint node `root` (which must keep `"children": [2]`).
fn skinned_warnings_under(mesh_node: Value, root: Value, child: Value) -> Vec<String> {
    let prim =
        json!({ "attributes": { "POSITION": 0, "JOINTS_0": 2, "WEIGHTS_0": 3 }, "indices": 1 });
    let mut mesh_node = mesh_node;
    mesh_node["mesh"] = json!(0);
    mesh_node["skin"] = json!(0);
    let nodes = json!([mesh_node, root, child]);
    let extra = json!({
        "skins": [{ "joints": [2, 1], "inverseBindMatrices": 4 }],
        "scenes": [{ "nodes": [0, 1] }]
    });
    let uri = format!("data:application/octet-stream;base64,{}", b64(&buffer()));
    let bytes = serde_json::to_vec(&doc(Some(uri), json!([prim, prim]), nodes, extra)).unwrap();
    let loaded = load_bytes_with_source(&bytes, MeshFormat::Gltf, None).unwrap();
    loaded.source.unwrap().warnings
}

#[test]
fn a_skinned_mesh_node_transform_is_named_as_such_once() {
    // The joints sit at their bind pose (the child at y = 1, as its IBM says); only the mesh
    // node is moved, which glTF ignores for a skinned mesh: a Blender export of a mesh object
    // moved under its armature. The positions stay where the joints put them.
    let w = skinned_warnings(
        json!({ "translation": [5.0, 0.0, 0.0] }),
        json!({ "translation": [0.0, 1.0, 0.0] }),
    );
    assert_eq!(w.len(), 1, "one warning for both primitives: {w:?}");
    assert!(
        w[0].starts_with("2 skinned primitives (mesh 0 primitive 0, mesh 0 primitive 1):"),
        "{}",
        w[0]
    );
    assert!(w[0].contains("transform of its own"), "{}", w[0]);
    assert!(!w[0].contains("differs from the bind pose"), "{}", w[0]);
}

#[test]
fn a_default_pose_off_the_bind_pose_is_one_warning() {
    // The child joint is turned 90° about Z in the default pose, an animation frame: the file is
    // read at its bind pose instead (mesh::load::gltf_bind), and says so once for the file, not
    // per primitive.
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let w = skinned_warnings(
        json!({}),
        json!({ "translation": [0.0, 1.0, 0.0], "rotation": [0.0, 0.0, h, h] }),
    );
    assert_eq!(w.len(), 1, "one warning for the file: {w:?}");
    assert!(
        w[0].starts_with("the file's default pose is an animation frame, not the bind pose (1 of 2 joints moved)"),
        "{}",
        w[0]
    );
    assert!(w[0].contains("rigged at the bind pose"), "{}", w[0]);
}

#[test]
fn an_armature_turned_as_a_whole_is_not_called_an_animation_frame() {
    // The root joint is turned 90° about X (an armature turned Z-up to Y-up): every joint has
    // the same skin matrix W · IBM = R ≠ I, so the default pose is the bind pose placed as a
    // whole (the corpus monster.glb). The positions are rewritten where R puts them, and the
    // warning says so rather than "the default pose differs from the bind pose".
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let w = skinned_warnings_under(
        json!({}),
        json!({ "name": "Root", "children": [2], "rotation": [h, 0.0, 0.0, h] }),
        json!({ "translation": [0.0, 1.0, 0.0] }),
    );
    assert_eq!(w.len(), 1, "one warning for both primitives: {w:?}");
    assert!(w[0].contains("one transform of the whole mesh"), "{}", w[0]);
    assert!(w[0].contains("the pose is the bind pose"), "{}", w[0]);
    assert!(!w[0].contains("differs from the bind pose"), "{}", w[0]);
    assert!(!w[0].contains("animation frame"), "{}", w[0]);
}
