//! Robustness: arbitrary and mutated bytes never panic (any result is fine, errors included), and
//! valid random meshes round-trip through each text/binary format.

mod common;

use geppetto::export::glb_source::source_glb_bytes;
use geppetto::geom::P3;
use geppetto::mesh::load::{load_bytes, load_bytes_with_source, MeshFormat};
use geppetto::mesh::{prepare, write::obj_string, Mesh};
use proptest::prelude::*;

const FORMATS: [MeshFormat; 6] = [
    MeshFormat::Obj,
    MeshFormat::Off,
    MeshFormat::Ply,
    MeshFormat::Glb,
    MeshFormat::Gltf,
    MeshFormat::Fbx,
];

fn tet() -> Mesh {
    Mesh {
        positions: vec![
            P3::new(0.0, 0.0, 0.0),
            P3::new(1.0, 0.0, 0.0),
            P3::new(0.0, 1.0, 0.0),
            P3::new(0.0, 0.0, 1.0),
        ],
        triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    }
}

fn off_string(m: &Mesh) -> String {
    let mut s = format!("OFF\n{} {} 0\n", m.positions.len(), m.triangles.len());
    for p in &m.positions {
        s += &format!("{} {} {}\n", p.x, p.y, p.z);
    }
    for t in &m.triangles {
        s += &format!("3 {} {} {}\n", t[0], t[1], t[2]);
    }
    s
}

fn ply_binary(m: &Mesh, big: bool) -> Vec<u8> {
    let fmt = if big {
        "binary_big_endian"
    } else {
        "binary_little_endian"
    };
    let mut b = format!(
        "ply\nformat {fmt} 1.0\nelement vertex {}\nproperty float64 x\nproperty float64 y\n\
property float64 z\nelement face {}\nproperty list uint8 int32 vertex_indices\nend_header\n",
        m.positions.len(),
        m.triangles.len()
    )
    .into_bytes();
    for p in &m.positions {
        for c in [p.x, p.y, p.z] {
            b.extend(if big {
                c.to_be_bytes()
            } else {
                c.to_le_bytes()
            });
        }
    }
    for t in &m.triangles {
        b.push(3);
        for i in t {
            let i = *i as i32;
            b.extend(if big {
                i.to_be_bytes()
            } else {
                i.to_le_bytes()
            });
        }
    }
    b
}

fn glb(m: &Mesh) -> Vec<u8> {
    glb_claiming(m, m.positions.len() as u64)
}

/// A GLB of `m` whose POSITION accessor claims `count` elements.
fn glb_claiming(m: &Mesh, count: u64) -> Vec<u8> {
    let mut bin = Vec::new();
    for p in &m.positions {
        for c in [p.x, p.y, p.z] {
            bin.extend((c as f32).to_le_bytes());
        }
    }
    let pos_len = bin.len();
    for i in m.triangles.iter().flatten() {
        bin.extend(i.to_le_bytes());
    }
    let json = serde_json::json!({
        "asset": { "version": "2.0" },
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": pos_len },
            { "buffer": 0, "byteOffset": pos_len, "byteLength": bin.len() - pos_len }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": count, "type": "VEC3",
              "min": [0, 0, 0], "max": [1, 1, 1] },
            { "bufferView": 1, "componentType": 5125, "count": m.triangles.len() * 3, "type": "SCALAR" }
        ],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 }, "indices": 1 }] }],
        "nodes": [{ "mesh": 0, "children": [1] }, { "translation": [1.0, 2.0, 3.0] }],
        "scenes": [{ "nodes": [0] }],
        "scene": 0
    });
    gltf::binary::Glb {
        header: gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            length: 0,
        },
        json: serde_json::to_vec(&json).unwrap().into(),
        bin: Some(bin.into()),
    }
    .to_vec()
    .unwrap()
}

/// One valid sample per format.
fn samples() -> Vec<(MeshFormat, Vec<u8>)> {
    let m = tet();
    vec![
        (MeshFormat::Obj, obj_string(&m).into_bytes()),
        (
            MeshFormat::Obj,
            b"v 0 0 0 1 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\ng a\nf 1/1/1 2/2/2 3/3/3 -1//4\n".to_vec(),
        ),
        (MeshFormat::Off, off_string(&m).into_bytes()),
        (MeshFormat::Ply, common::ply_ascii(&m).into_bytes()),
        (MeshFormat::Ply, ply_binary(&m, false)),
        (MeshFormat::Ply, ply_binary(&m, true)),
        (MeshFormat::Glb, glb(&m)),
        (
            MeshFormat::Obj,
            b"mtllib a.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\n\
usemtl skin\nf 1/1/1 3/3/1 2/2/1\nusemtl other\nf 1/1 2/2 4/3\nf 1//1 4//1 3//1\nf -3/-2/-1 -2/-1/-1 -1/-3/-1\n"
                .to_vec(),
        ),
        (
            MeshFormat::Ply,
            b"ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n\
property float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\n\
element face 2\nproperty list uchar int vertex_indices\nend_header\n0 0 0 255 0 0\n\
1 0 0 0 255 0\n0 1 0 0 0 255\n0 0 1 9 9 9\n3 0 1 2\n3 0 1 3\n"
                .to_vec(),
        ),
    ]
}

/// Loading must return (Ok or Err) without panicking; a loaded mesh must prepare without
/// panicking and have every triangle index in range.
fn survive(bytes: &[u8], format: MeshFormat) {
    if let Ok(m) = load_bytes(bytes, format, None) {
        let n = m.positions.len();
        assert!(m.triangles.iter().flatten().all(|&i| (i as usize) < n));
        let _ = prepare(m);
    }
    // The textured path: same mesh, every source vertex a mesh vertex, and the GLB writer
    // survives whatever document came out.
    if let Ok(loaded) = load_bytes_with_source(bytes, format, None) {
        let n = loaded.mesh.positions.len();
        if let Some(src) = &loaded.source {
            assert!(src
                .primitives
                .iter()
                .flat_map(|p| &p.vertices)
                .all(|&v| (v as usize) < n));
            let joint = geppetto::rig::RigJoint {
                name: "root".into(),
                parent: None,
                position: [0.0; 3],
                end: false,
            };
            let skin = vec![vec![(0u32, 1.0)]; n];
            let _ = source_glb_bytes(src, &[joint], Some(&skin), false);
        }
    }
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<usize>(), 1usize..16).prop_map(|(i, n)| Mutation::Delete(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(mut b: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let len = b.len().max(1);
        match m {
            Mutation::Flip(i, v) => {
                if let Some(x) = b.get_mut(i % len) {
                    *x ^= v | 1;
                }
            }
            Mutation::Insert(i, v) => {
                let at = i % (b.len() + 1);
                b.splice(at..at, v.iter().copied());
            }
            Mutation::Delete(i, n) => {
                let at = i % len;
                let end = (at + n).min(b.len());
                if at < end {
                    b.drain(at..end);
                }
            }
            Mutation::Truncate(i) => b.truncate(i % len),
        }
    }
    b
}

/// Digits and punctuation that text formats care about, so random input reaches deep code.
fn texty() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop::sample::select(b"vf 0123456789-./\\\n\r#e+OFplyformatcendhrxztnusmlib".to_vec()),
        0..600,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..1500)) {
        for f in FORMATS {
            survive(&bytes, f);
        }
    }

    #[test]
    fn random_text_never_panics(bytes in texty()) {
        for f in [MeshFormat::Obj, MeshFormat::Off, MeshFormat::Ply] {
            survive(&bytes, f);
        }
    }

    #[test]
    fn mutated_valid_files_never_panic(which in 0usize..9, muts in prop::collection::vec(mutation(), 1..6)) {
        let all = samples();
        let (format, bytes) = &all[which % all.len()];
        survive(&apply(bytes.clone(), &muts), *format);
    }

    #[test]
    fn random_meshes_round_trip(
        pts in prop::collection::vec((-1e3f64..1e3, -1e3f64..1e3, -1e3f64..1e3), 3..40),
        tris in prop::collection::vec((any::<u32>(), any::<u32>(), any::<u32>()), 1..60),
    ) {
        let n = pts.len() as u32;
        let m = Mesh {
            positions: pts.iter().map(|&(x, y, z)| P3::new(x, y, z)).collect(),
            triangles: tris.iter().map(|&(a, b, c)| [a % n, b % n, c % n]).collect(),
        };
        let as_obj = load_bytes(obj_string(&m).as_bytes(), MeshFormat::Obj, None).unwrap();
        prop_assert_eq!(&as_obj, &m);
        // Texture coordinates and normals on every corner change nothing in the mesh.
        let textured = obj_string(&m).replace("\nf ", "\nvt 0.5 0.5\nvn 0 0 1\nf ");
        let textured = textured
            .lines()
            .map(|l| match l.strip_prefix("f ") {
                Some(rest) => format!("f {}", rest.split(' ').map(|v| format!("{v}/-1/-1")).collect::<Vec<_>>().join(" ")),
                None => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        let loaded = load_bytes_with_source(textured.as_bytes(), MeshFormat::Obj, None).unwrap();
        prop_assert_eq!(&loaded.mesh, &m);
        prop_assert!(loaded.source.is_some());
        let as_off = load_bytes(off_string(&m).as_bytes(), MeshFormat::Off, None).unwrap();
        prop_assert_eq!(&as_off, &m);
        let as_ply = load_bytes(common::ply_ascii(&m).as_bytes(), MeshFormat::Ply, None).unwrap();
        prop_assert_eq!(&as_ply, &m);
        for big in [false, true] {
            let b = load_bytes(&ply_binary(&m, big), MeshFormat::Ply, None).unwrap();
            prop_assert_eq!(&b, &m);
        }
        let g = load_bytes(&glb(&m), MeshFormat::Glb, None).unwrap();
        prop_assert_eq!(&g.triangles, &m.triangles);
        for (a, b) in g.positions.iter().zip(&m.positions) {
            prop_assert!((a - b).norm() <= 1e-3 * (1.0 + b.coords.norm()));
        }
    }
}

#[test]
fn samples_are_valid() {
    for (f, b) in samples() {
        let m = load_bytes(&b, f, None).unwrap_or_else(|e| panic!("{f:?}: {e}"));
        assert!(m.triangles.len() >= 2, "{f:?}");
    }
}

#[test]
fn forged_counts_fail_fast() {
    let t = std::time::Instant::now();
    let off = b"OFF\n1000000000000 1000000000000 0\n0 0 0\n";
    assert!(load_bytes(off, MeshFormat::Off, None).is_err());
    let ply = b"ply\nformat binary_little_endian 1.0\nelement vertex 1000000000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n";
    assert!(load_bytes(ply, MeshFormat::Ply, None).is_err());
    let ply_list = b"ply\nformat binary_little_endian 1.0\nelement vertex 0\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uint int vertex_indices\nend_header\n\xff\xff\xff\xff";
    assert!(load_bytes(ply_list, MeshFormat::Ply, None).is_err());
    // A glTF whose accessor claims 10^12 positions.
    let gl = glb_claiming(&tet(), 1_000_000_000_000);
    match load_bytes(&gl, MeshFormat::Glb, None) {
        Err(e) => assert!(e.to_string().contains("past the end"), "{e}"),
        Ok(_) => panic!("accepted a forged count"),
    }
    assert!(
        t.elapsed().as_secs_f64() < 5.0,
        "forged counts must fail fast"
    );
}

/// A skinned glTF (JSON, embedded buffer) exercising accessors, node hierarchy and skin.
fn gltf_doc() -> serde_json::Value {
    let m = tet();
    let mut bin = Vec::new();
    for p in &m.positions {
        for c in [p.x, p.y, p.z] {
            bin.extend((c as f32).to_le_bytes());
        }
    }
    for i in m.triangles.iter().flatten() {
        bin.extend((*i as u16).to_le_bytes());
    }
    for _ in 0..4 {
        bin.extend([0u8, 1, 0, 0]);
    }
    for _ in 0..4 {
        for w in [0.5f32, 0.5, 0.0, 0.0] {
            bin.extend(w.to_le_bytes());
        }
    }
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut uri = String::from("data:application/octet-stream;base64,");
    for c in bin.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            uri.push(if k <= c.len() {
                A[((n >> (18 - 6 * k)) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    serde_json::json!({
        "asset": { "version": "2.0" },
        "buffers": [{ "byteLength": bin.len(), "uri": uri }],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": 48 },
            { "buffer": 0, "byteOffset": 48, "byteLength": 24 },
            { "buffer": 0, "byteOffset": 72, "byteLength": 16 },
            { "buffer": 0, "byteOffset": 88, "byteLength": 64 }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 1] },
            { "bufferView": 1, "componentType": 5123, "count": 12, "type": "SCALAR" },
            { "bufferView": 2, "componentType": 5121, "count": 4, "type": "VEC4" },
            { "bufferView": 3, "componentType": 5126, "count": 4, "type": "VEC4" }
        ],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0, "JOINTS_0": 2, "WEIGHTS_0": 3 }, "indices": 1, "mode": 4 }] }],
        "skins": [{ "joints": [1, 2] }],
        "nodes": [
            { "mesh": 0, "skin": 0, "children": [1] },
            { "children": [2], "translation": [0.0, 1.0, 0.0] },
            { "translation": [0.0, 1.0, 0.0] }
        ],
        "scenes": [{ "nodes": [0] }],
        "scene": 0
    })
}

/// Number of numbers in a JSON value.
fn count_numbers(v: &serde_json::Value) -> usize {
    match v {
        serde_json::Value::Number(_) => 1,
        serde_json::Value::Array(a) => a.iter().map(count_numbers).sum(),
        serde_json::Value::Object(o) => o.values().map(count_numbers).sum(),
        _ => 0,
    }
}

/// Replace the `n`-th number (depth-first) with `value`; `n` counts down as numbers are passed.
fn set_nth_number(v: &mut serde_json::Value, n: &mut usize, value: i64) -> bool {
    match v {
        serde_json::Value::Number(_) if *n == 0 => {
            *v = serde_json::json!(value);
            true
        }
        serde_json::Value::Number(_) => {
            *n -= 1;
            false
        }
        serde_json::Value::Array(a) => a.iter_mut().any(|x| set_nth_number(x, n, value)),
        serde_json::Value::Object(o) => o.values_mut().any(|x| set_nth_number(x, n, value)),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    /// Structural mutations of a valid skinned glTF: random numbers in random fields (indices,
    /// counts, offsets, component types, modes) reach the accessor, node and skin code.
    #[test]
    fn mutated_gltf_fields_never_panic(
        edits in prop::collection::vec((any::<usize>(), prop::sample::select(vec![
            0i64, 1, 2, 3, 4, 5, 6, 7, 13, 64, -1, 5120, 5121, 5122, 5123, 5125, 5126,
            4_294_967_295, 1_000_000_000_000,
        ])), 1..4),
    ) {
        let mut d = gltf_doc();
        for (which, value) in edits {
            let mut n = which % count_numbers(&d).max(1);
            set_nth_number(&mut d, &mut n, value);
        }
        let bytes = serde_json::to_vec(&d).unwrap();
        survive(&bytes, MeshFormat::Gltf);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.gltf");
        std::fs::write(&path, &bytes).unwrap();
        let _ = geppetto::mesh::load::load_rigged_gltf(&path);
    }
}

#[test]
fn gltf_fuzz_seed_is_valid() {
    let bytes = serde_json::to_vec(&gltf_doc()).unwrap();
    let m = load_bytes(&bytes, MeshFormat::Gltf, None).unwrap();
    assert_eq!(m.triangles.len(), 4);
}
