//! Helpers for the source-preserving export tests: reading GLB/glTF JSON and accessor bytes,
//! and writing synthetic inputs (PNG textures, a two-primitive glTF with a morph target).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub mod fbx;

use serde_json::{json, Value};

/// The JSON and BIN chunks of a GLB.
pub fn split_glb(bytes: &[u8]) -> (Value, Vec<u8>) {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let json_len = u32_at(12);
    let json: Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    let bin = if bytes.len() > bin_at + 8 {
        let n = u32_at(bin_at);
        bytes[bin_at + 8..bin_at + 8 + n].to_vec()
    } else {
        Vec::new()
    };
    (json, bin)
}

/// A `.gltf` with one external buffer: its JSON and that buffer.
pub fn read_gltf(path: &Path) -> (Value, Vec<u8>) {
    let json: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let uri = json["buffers"][0]["uri"].as_str().unwrap();
    let bin = std::fs::read(path.parent().unwrap().join(uri)).unwrap();
    (json, bin)
}

/// A buffer view's bytes.
pub fn view_bytes<'a>(json: &Value, bin: &'a [u8], view: u64) -> &'a [u8] {
    let v = &json["bufferViews"][view as usize];
    let off = v["byteOffset"].as_u64().unwrap_or(0) as usize;
    let len = v["byteLength"].as_u64().unwrap() as usize;
    &bin[off..off + len]
}

/// The embedded image bytes of material `m`'s base colour texture (panics if it has none).
pub fn base_color_image<'a>(json: &Value, bin: &'a [u8], m: &Value) -> &'a [u8] {
    let t = m["pbrMetallicRoughness"]["baseColorTexture"]["index"]
        .as_u64()
        .expect("textured material");
    let img = json["textures"][t as usize]["source"].as_u64().unwrap();
    let view = json["images"][img as usize]["bufferView"].as_u64().unwrap();
    view_bytes(json, bin, view)
}

/// Bytes per element of an accessor.
fn element_size(acc: &Value) -> usize {
    let comp = match acc["componentType"].as_u64().unwrap() {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        _ => 4,
    };
    let dims = match acc["type"].as_str().unwrap() {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" | "MAT2" => 4,
        "MAT3" => 9,
        _ => 16,
    };
    comp * dims
}

/// An accessor's elements, tightly packed (strides removed), for byte-exact comparisons.
pub fn accessor_bytes(json: &Value, bin: &[u8], index: u64) -> Vec<u8> {
    let acc = &json["accessors"][index as usize];
    let size = element_size(acc);
    let count = acc["count"].as_u64().unwrap() as usize;
    let view = acc["bufferView"].as_u64().unwrap();
    let stride = json["bufferViews"][view as usize]["byteStride"]
        .as_u64()
        .map_or(size, |s| s as usize);
    let data = view_bytes(json, bin, view);
    let off = acc["byteOffset"].as_u64().unwrap_or(0) as usize;
    (0..count)
        .flat_map(|i| data[off + i * stride..off + i * stride + size].to_vec())
        .collect()
}

/// A float accessor's values.
pub fn accessor_f32(json: &Value, bin: &[u8], index: u64) -> Vec<f32> {
    accessor_bytes(json, bin, index)
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A `w × h` PNG of one colour.
pub fn png(w: u32, h: u32, rgba: [u8; 4]) -> Vec<u8> {
    let img = image::RgbaImage::from_pixel(w, h, image::Rgba(rgba));
    let mut out = Vec::new();
    image::DynamicImage::ImageRgba8(img)
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

/// Write a GLB from JSON and BIN.
pub fn write_glb(path: &Path, json: &Value, bin: &[u8]) {
    let mut js = serde_json::to_vec(json).unwrap();
    while !js.len().is_multiple_of(4) {
        js.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let mut out = b"glTF".to_vec();
    out.extend(2u32.to_le_bytes());
    out.extend(((28 + js.len() + bin.len()) as u32).to_le_bytes());
    out.extend((js.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(&js);
    out.extend((bin.len() as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(&bin);
    std::fs::write(path, out).unwrap();
}

/// Appends typed data to a buffer and records views/accessors in `json`.
struct Bin<'a> {
    json: &'a mut Value,
    bin: Vec<u8>,
}

impl Bin<'_> {
    fn floats(&mut self, v: &[f32], type_: &str, dims: usize, bounds: bool) -> usize {
        let off = self.bin.len();
        self.bin.extend(v.iter().flat_map(|x| x.to_le_bytes()));
        let views = self.json["bufferViews"].as_array_mut().unwrap();
        views.push(
            json!({"buffer": 0, "byteOffset": off, "byteLength": v.len() * 4, "target": 34962}),
        );
        let mut acc = json!({"bufferView": views.len() - 1, "componentType": 5126, "count": v.len() / dims, "type": type_});
        if bounds {
            let (mut lo, mut hi) = (vec![f32::MAX; dims], vec![f32::MIN; dims]);
            for e in v.chunks(dims) {
                for k in 0..dims {
                    lo[k] = lo[k].min(e[k]);
                    hi[k] = hi[k].max(e[k]);
                }
            }
            acc["min"] = json!(lo);
            acc["max"] = json!(hi);
        }
        let accs = self.json["accessors"].as_array_mut().unwrap();
        accs.push(acc);
        accs.len() - 1
    }

    fn indices(&mut self, v: &[u16]) -> usize {
        let off = self.bin.len();
        self.bin.extend(v.iter().flat_map(|x| x.to_le_bytes()));
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let views = self.json["bufferViews"].as_array_mut().unwrap();
        views.push(
            json!({"buffer": 0, "byteOffset": off, "byteLength": v.len() * 2, "target": 34963}),
        );
        let accs_view = views.len() - 1;
        let accs = self.json["accessors"].as_array_mut().unwrap();
        accs.push(json!({"bufferView": accs_view, "componentType": 5123, "count": v.len(), "type": "SCALAR"}));
        accs.len() - 1
    }
}

/// A tetrahedron around `c`: positions, unit normals (from the centre), UVs, indices.
fn tetra(c: [f32; 3], r: f32) -> (Vec<f32>, Vec<f32>, Vec<f32>, Vec<u16>) {
    let dirs = [
        [1.0, 1.0, 1.0],
        [1.0, -1.0, -1.0],
        [-1.0, 1.0, -1.0],
        [-1.0, -1.0, 1.0f32],
    ];
    let s = 1.0 / 3f32.sqrt();
    let pos = dirs
        .iter()
        .flat_map(|d| (0..3).map(move |k| c[k] + r * d[k] * s))
        .collect();
    let nor = dirs.iter().flat_map(|d| d.map(|x| x * s)).collect();
    let uv = vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
    (pos, nor, uv, vec![0, 1, 2, 0, 3, 1, 0, 2, 3, 1, 3, 2])
}

/// A `.gltf` (external `data.bin` and `tex.png`) with a parent node (translated, rotated,
/// scaled) over a mesh node whose mesh has two primitives with two materials, the first with a
/// morph target. Returns its path.
pub fn two_primitive_gltf(dir: &Path) -> PathBuf {
    let mut json = json!({
        "asset": {"version": "2.0", "generator": "a test exporter 1.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "parent", "translation": [1.0, 2.0, 3.0],
             "rotation": [0.0, 0.6, 0.0, 0.8], "scale": [2.0, 2.0, 2.0], "children": [1]},
            {"name": "body", "translation": [0.0, 1.0, 0.0], "mesh": 0}
        ],
        "materials": [
            {"name": "skin", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}, "metallicFactor": 0.0}},
            {"name": "metal", "pbrMetallicRoughness": {"baseColorFactor": [0.5, 0.5, 0.6, 1.0], "metallicFactor": 1.0}}
        ],
        "textures": [{"source": 0, "sampler": 0}],
        "samplers": [{"magFilter": 9729}],
        "images": [{"uri": "tex.png"}],
        "bufferViews": [], "accessors": [],
        "meshes": [{"name": "body", "primitives": [], "weights": [0.0]}]
    });
    let mut b = Bin {
        json: &mut json,
        bin: Vec::new(),
    };
    let mut prims = Vec::new();
    for (k, c) in [[0.0, 0.0, 0.0], [0.0, 1.5, 0.0f32]]
        .into_iter()
        .enumerate()
    {
        let (pos, nor, uv, idx) = tetra(c, 1.0);
        let p = b.floats(&pos, "VEC3", 3, true);
        let n = b.floats(&nor, "VEC3", 3, false);
        let t = b.floats(&uv, "VEC2", 2, false);
        let i = b.indices(&idx);
        let mut prim = json!({"attributes": {"POSITION": p, "NORMAL": n, "TEXCOORD_0": t}, "indices": i, "material": k});
        let delta: Vec<f32> = (0..12)
            .map(|x| if x % 3 == 1 { 0.25 } else { 0.0 })
            .collect();
        let d = b.floats(&delta, "VEC3", 3, true);
        prim["targets"] = json!([{ "POSITION": d }]);
        prims.push(prim);
    }
    let bin = std::mem::take(&mut b.bin);
    json["meshes"][0]["primitives"] = json!(prims);
    json["buffers"] = json!([{ "uri": "data.bin", "byteLength": bin.len() }]);
    std::fs::write(dir.join("data.bin"), &bin).unwrap();
    std::fs::write(dir.join("tex.png"), png(2, 2, [10, 200, 30, 255])).unwrap();
    let path = dir.join("two.gltf");
    std::fs::write(&path, serde_json::to_vec_pretty(&json).unwrap()).unwrap();
    path
}
