//! A skinned glTF saved with an animation frame as its default pose is read at its bind pose
//! (`mesh::load::gltf_bind`): the mesh, the artist's joints, a prop parented to a joint, and the
//! rigged GLB written from it all agree on the bind pose.
//!
//! The document: a strip of three rows (y = 0, 1, 2) bound rigidly row by row to the joints Hip,
//! Knee and Tip, straight up at bind (inverse bind matrices at y = 0, 1, 2). The default pose
//! bends the Knee 90° about Z, so the Tip sits at (−1, 1, 0). A "Sword" triangle, not skinned,
//! hangs under the Tip 0.5 along its x axis.

use geppetto::export::glb_source::source_glb_bytes;
use geppetto::geom::P3;
use geppetto::mesh::load::{load_bytes, load_rigged_gltf, load_with_source, MeshFormat};
use serde_json::json;

fn b64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            s.push(if k <= c.len() {
                A[((n >> (18 - 6 * k)) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    s
}

/// Buffer: strip positions (72 B) | u16 indices (24 B) | u8 joints (24 B) | f32 weights (96 B) |
/// 3 IBMs (192 B) | sword positions (36 B).
fn buffer() -> Vec<u8> {
    let mut b = Vec::new();
    let f = |b: &mut Vec<u8>, v: &[f32]| v.iter().for_each(|c| b.extend(c.to_le_bytes()));
    for y in [0.0f32, 1.0, 2.0] {
        f(&mut b, &[-0.1, y, 0.0, 0.1, y, 0.0]);
    }
    for i in [0u16, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4] {
        b.extend(i.to_le_bytes());
    }
    for row in [0u8, 0, 1, 1, 2, 2] {
        b.extend([row, 0, 0, 0]);
    }
    for _ in 0..6 {
        f(&mut b, &[1.0, 0.0, 0.0, 0.0]);
    }
    for y in [0.0f32, 1.0, 2.0] {
        f(
            &mut b,
            &[
                1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., -y, 0., 1.,
            ],
        );
    }
    f(&mut b, &[0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.0, 0.1, 0.0]);
    b
}

/// The document, written as `bent.gltf` in `dir`.
fn write_bent(dir: &std::path::Path) -> std::path::PathBuf {
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let buf = buffer();
    let view =
        |off: usize, len: usize| json!({ "buffer": 0, "byteOffset": off, "byteLength": len });
    let doc = json!({
        "asset": { "version": "2.0" },
        "buffers": [{ "byteLength": buf.len(),
            "uri": format!("data:application/octet-stream;base64,{}", b64(&buf)) }],
        "bufferViews": [view(0, 72), view(72, 24), view(96, 24), view(120, 96), view(216, 192),
            view(408, 36)],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 6, "type": "VEC3",
              "min": [-0.1, 0, 0], "max": [0.1, 2, 0] },
            { "bufferView": 1, "componentType": 5123, "count": 12, "type": "SCALAR" },
            { "bufferView": 2, "componentType": 5121, "count": 6, "type": "VEC4" },
            { "bufferView": 3, "componentType": 5126, "count": 6, "type": "VEC4" },
            { "bufferView": 4, "componentType": 5126, "count": 3, "type": "MAT4" },
            { "bufferView": 5, "componentType": 5126, "count": 3, "type": "VEC3",
              "min": [0, 0, 0], "max": [0.1, 0.1, 0] }
        ],
        "meshes": [
            { "primitives": [{ "attributes": { "POSITION": 0, "JOINTS_0": 2, "WEIGHTS_0": 3 },
                "indices": 1 }] },
            { "primitives": [{ "attributes": { "POSITION": 5 } }] }
        ],
        "nodes": [
            { "name": "Armature", "children": [1, 4] },
            { "name": "Hip", "children": [2] },
            { "name": "Knee", "translation": [0, 1, 0], "rotation": [0, 0, h, h], "children": [3] },
            { "name": "Tip", "translation": [0, 1, 0], "children": [5] },
            { "name": "Body", "mesh": 0, "skin": 0 },
            { "name": "Sword", "mesh": 1, "translation": [0.5, 0, 0] }
        ],
        "skins": [{ "joints": [1, 2, 3], "inverseBindMatrices": 4 }],
        "scene": 0,
        "scenes": [{ "nodes": [0] }]
    });
    let path = dir.join("bent.gltf");
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    path
}

fn near(a: P3, b: [f64; 3]) -> bool {
    (a - P3::from(b)).norm() < 1e-5
}

/// Bind-pose places: the strip straight up, the sword 0.5 to the right of the Tip at y = 2.
const STRIP: [[f64; 3]; 6] = [
    [-0.1, 0.0, 0.0],
    [0.1, 0.0, 0.0],
    [-0.1, 1.0, 0.0],
    [0.1, 1.0, 0.0],
    [-0.1, 2.0, 0.0],
    [0.1, 2.0, 0.0],
];
const SWORD: [[f64; 3]; 3] = [[0.5, 2.0, 0.0], [0.6, 2.0, 0.0], [0.5, 2.1, 0.0]];

#[test]
fn a_bent_default_pose_is_read_at_the_straight_bind_pose() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_bent(dir.path());
    // The artist's joints (score's truth, attach's skeleton): straight, at inverse(IBM).
    let r = load_rigged_gltf(&path).unwrap();
    let at: Vec<([f64; 3], &str)> = r
        .joints
        .iter()
        .map(|j| (j.position, j.name.as_str()))
        .collect();
    for (k, (p, name)) in at.iter().enumerate() {
        assert!(
            near(P3::from(*p), [0.0, k as f64, 0.0]),
            "{name} at {p:?}, not at its bind place (0, {k}, 0): {at:?}"
        );
    }
    // The mesh rig reads: the stored positions, and the sword in the Tip's bind-pose hand.
    let loaded = load_with_source(&path).unwrap();
    let m = &loaded.mesh;
    // Scene order, depth-first: the sword (under the Tip) comes before the body.
    let all: Vec<[f64; 3]> = SWORD.iter().chain(&STRIP).copied().collect();
    for (i, want) in all.iter().enumerate() {
        assert!(
            near(m.positions[i], *want),
            "vertex {i} at {:?}, want {want:?}",
            m.positions[i]
        );
    }
    assert_eq!(r.mesh.positions, m.positions, "truth and rig read one pose");
    // One plain warning.
    let w = &loaded.source.as_ref().unwrap().warnings;
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("animation frame") && w[0].contains("2 of 3 joints moved"),
        "{}",
        w[0]
    );
}

#[test]
fn the_rigged_glb_of_a_bent_file_stands_at_the_bind_pose() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_bent(dir.path());
    let r = load_rigged_gltf(&path).unwrap();
    let loaded = load_with_source(&path).unwrap();
    let src = loaded.source.as_ref().unwrap();
    let skin = r.skin.clone().unwrap();
    // A new skeleton (the artist's joints as nodes of our own), and the file's own joint nodes
    // kept for its animations: both GLBs show the bind pose, sword in hand.
    for keep in [false, true] {
        let bytes = source_glb_bytes(src, &r.joints, Some(&skin), keep).unwrap();
        let back = load_bytes(&bytes, MeshFormat::Glb, None).unwrap();
        let bind = SWORD.iter().chain(&STRIP);
        for (i, (got, want)) in back.positions.iter().zip(bind).enumerate() {
            assert!(
                near(*got, *want),
                "keep_animations {keep}: vertex {i} at {got:?}, the bind pose has {want:?}"
            );
        }
        assert_eq!(back.positions.len(), loaded.mesh.positions.len());
    }
}
