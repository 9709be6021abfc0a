//! What an input file carries besides the positions and triangles the engine rigs: materials,
//! textures, UVs, normals, colours, morph targets, node names and hierarchy.
//!
//! Every format is kept as one glTF document ([`SourceDocument`]): a glTF input is its own
//! document (JSON kept as `serde_json::Value`, so properties and extensions this crate does not
//! model survive untouched), with every buffer merged into one binary and every image embedded;
//! OBJ, PLY, OFF and FBX inputs are converted into one. The GLB writer
//! (`export::glb_source`) then only adds a skin, so the artist's file comes back as it was.
//! [`SourcePrimitive::vertices`] ties each written vertex to the [`crate::mesh::Mesh`] vertex
//! whose weights it takes (face-varying UVs and normals split vertices in the output only).

use std::path::Path;

use serde_json::{json, Map, Value};

use super::companion::{self, Companion};

/// A glTF document that the rig is written into (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct SourceDocument {
    /// The glTF JSON. `buffers` is rewritten on export; every buffer view points into `bin`.
    pub json: Value,
    /// The single binary buffer (buffer 0).
    pub bin: Vec<u8>,
    /// The triangle primitives the engine read, in mesh vertex order.
    pub primitives: Vec<SourcePrimitive>,
    /// Non-fatal problems found while loading (missing textures or `.mtl` files), each naming
    /// the file.
    pub warnings: Vec<String>,
    /// The files besides the mesh file that the load read or looked for (buffers, images,
    /// `.mtl` libraries), each once, in the order first read.
    pub companions: Vec<Companion>,
}

/// One glTF primitive and where its vertices come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcePrimitive {
    /// The node instancing the mesh.
    pub node: usize,
    /// The mesh.
    pub mesh: usize,
    /// The primitive's index in the mesh.
    pub primitive: usize,
    /// Per primitive vertex: the index of the [`crate::mesh::Mesh`] vertex it is (same position
    /// in the mesh frame), whose skin weights it takes.
    pub vertices: Vec<u32>,
}

/// glTF `bufferView.target` for vertex attributes.
pub(crate) const ARRAY_BUFFER: u32 = 34962;
/// glTF `bufferView.target` for indices.
pub(crate) const ELEMENT_ARRAY_BUFFER: u32 = 34963;
/// glTF component types.
pub(crate) const UNSIGNED_SHORT: u32 = 5123;
/// glTF component types.
pub(crate) const UNSIGNED_INT: u32 = 5125;
/// glTF component types.
pub(crate) const FLOAT: u32 = 5126;

impl SourceDocument {
    /// An empty glTF 2.0 document.
    pub(crate) fn new_document() -> Self {
        Self {
            json: json!({
                "asset": {"version": "2.0", "generator": format!("{}{}", super::ours::GENERATOR_PREFIX, env!("CARGO_PKG_VERSION"))}
            }),
            ..Self::default()
        }
    }

    /// The array `key` of the JSON root, created if absent.
    pub(crate) fn array(&mut self, key: &str) -> &mut Vec<Value> {
        let root = self.root_object();
        let slot = root
            .entry(key.to_string())
            .or_insert_with(|| Value::Array(Vec::new()));
        if !slot.is_array() {
            *slot = Value::Array(Vec::new());
        }
        slot.as_array_mut().expect("made an array above")
    }

    /// The JSON root as an object (replaced by an empty object if it is not one).
    pub(crate) fn root_object(&mut self) -> &mut Map<String, Value> {
        if !self.json.is_object() {
            self.json = Value::Object(Map::new());
        }
        self.json.as_object_mut().expect("made an object above")
    }

    /// Append `value` to the root array `key`; returns its index.
    pub(crate) fn push(&mut self, key: &str, value: Value) -> usize {
        let a = self.array(key);
        a.push(value);
        a.len() - 1
    }

    /// Append `bytes` (4-byte aligned, as every component type needs) as a buffer view.
    pub(crate) fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        let mut v = json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()});
        if let Some(t) = target {
            v["target"] = json!(t);
        }
        self.push("bufferViews", v)
    }

    /// Append an `f32` vertex attribute of `dims` components per element (`type_` is the glTF
    /// type name, e.g. `"VEC3"`); `bounds` adds min/max (POSITION needs them).
    pub(crate) fn f32_attribute(
        &mut self,
        values: &[f32],
        dims: usize,
        type_: &str,
        bounds: bool,
    ) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes, Some(ARRAY_BUFFER));
        let count = values.len() / dims.max(1);
        let mut acc =
            json!({"bufferView": view, "componentType": FLOAT, "count": count, "type": type_});
        if bounds && count > 0 {
            let (mut lo, mut hi) = (vec![f32::MAX; dims], vec![f32::MIN; dims]);
            for e in values.chunks_exact(dims) {
                for k in 0..dims {
                    lo[k] = lo[k].min(e[k]);
                    hi[k] = hi[k].max(e[k]);
                }
            }
            acc["min"] = json!(lo);
            acc["max"] = json!(hi);
        }
        self.push("accessors", acc)
    }

    /// Append a `u32` index accessor.
    pub(crate) fn index_accessor(&mut self, indices: &[u32]) -> usize {
        let bytes: Vec<u8> = indices.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes, Some(ELEMENT_ARRAY_BUFFER));
        self.push(
            "accessors",
            json!({"bufferView": view, "componentType": UNSIGNED_INT, "count": indices.len(), "type": "SCALAR"}),
        )
    }

    /// Embed an image's bytes; returns the image index.
    pub(crate) fn image(&mut self, bytes: &[u8], mime: &str, name: &str) -> usize {
        let view = self.view(bytes, None);
        self.push(
            "images",
            json!({"bufferView": view, "mimeType": mime, "name": name}),
        )
    }
}

impl SourceDocument {
    /// A texture over embedded image `bytes` (from file `name`), with one shared default sampler
    /// (linear filtering, repeat). The image is named by the file's name alone: a path would carry
    /// the rigging machine's folders into the GLB. `None`, with a warning naming `name`, if the
    /// bytes are not a PNG or JPEG image (the formats glTF viewers must read).
    pub(crate) fn texture_from_bytes(&mut self, bytes: &[u8], name: &str) -> Option<usize> {
        let Some(mime) = sniff_mime(bytes) else {
            self.warnings.push(format!(
                "texture {name} is not a PNG or JPEG image; left out of the GLB"
            ));
            return None;
        };
        if self.json.get("samplers").is_none() {
            self.push("samplers", json!({"magFilter": 9729, "minFilter": 9987}));
        }
        let file = name.replace('\\', "/");
        let file = file.rsplit('/').next().unwrap_or(name);
        let image = self.image(bytes, mime, file);
        Some(self.push("textures", json!({"sampler": 0, "source": image})))
    }

    /// A texture from an image file, looked up as given, then by its file name in `dirs` (models
    /// often carry absolute paths from another machine, or Windows separators). `None`, with a
    /// warning naming the file, if it cannot be found or read.
    pub(crate) fn texture_from_file(&mut self, file: &str, dirs: &[&Path]) -> Option<usize> {
        let clean = file.replace('\\', "/");
        let given = Path::new(&clean);
        let name = given.file_name().map(Path::new);
        let candidates = dirs.iter().map(|d| d.join(given)).chain(
            name.into_iter()
                .flat_map(|n| dirs.iter().map(move |d| d.join(n))),
        );
        let mut tried = None;
        for path in candidates {
            // Every candidate is recorded: one appearing later would change what is found.
            if let Ok(bytes) = companion::read(&path, &mut self.companions) {
                return self.texture_from_bytes(&bytes, &path.display().to_string());
            }
            tried.get_or_insert(path);
        }
        let shown = tried.map_or_else(|| clean.clone(), |p| p.display().to_string());
        self.warnings.push(format!(
            "texture {shown} not found; the material keeps its colour without it"
        ));
        None
    }
}

/// The document of a mesh with per-vertex colours (PLY, OFF): one node, one primitive over all
/// vertices in file order, `COLOR_0` as RGBA floats.
pub(crate) fn colored_source(mesh: &crate::mesh::Mesh, colors: &[[f32; 4]]) -> SourceDocument {
    let mut doc = SourceDocument::new_document();
    let pos: Vec<f32> = mesh
        .positions
        .iter()
        .flat_map(|p| [p.x as f32, p.y as f32, p.z as f32])
        .collect();
    let p = doc.f32_attribute(&pos, 3, "VEC3", true);
    let flat: Vec<f32> = colors.iter().flatten().copied().collect();
    let c = doc.f32_attribute(&flat, 4, "VEC4", false);
    let idx: Vec<u32> = mesh.triangles.iter().flatten().copied().collect();
    let i = doc.index_accessor(&idx);
    let mesh_index = doc.push(
        "meshes",
        json!({"name": "mesh", "primitives": [{"attributes": {"POSITION": p, "COLOR_0": c}, "indices": i}]}),
    );
    let node = doc.push("nodes", json!({"name": "mesh", "mesh": mesh_index}));
    doc.push("scenes", json!({"nodes": [node]}));
    doc.root_object().insert("scene".into(), json!(0));
    doc.primitives.push(SourcePrimitive {
        node,
        mesh: mesh_index,
        primitive: 0,
        vertices: (0..mesh.positions.len() as u32).collect(),
    });
    doc
}

/// The glTF MIME type of an image file, from its extension (glTF core allows PNG and JPEG;
/// WebP and KTX2 are common extensions). `None` for anything else.
pub(crate) fn image_mime(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "ktx2" => "image/ktx2",
        _ => return None,
    })
}

/// The MIME type of image bytes by their signature (PNG, JPEG), if recognisable.
pub(crate) fn sniff_mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else {
        None
    }
}

/// A 1×1 white PNG, standing in for an image whose file is missing so that materials keep
/// their texture slots and the document stays valid.
pub(crate) fn placeholder_png() -> Vec<u8> {
    let mut out = Vec::new();
    let img = image::RgbaImage::from_pixel(1, 1, image::Rgba([255, 255, 255, 255]));
    // Encoding a 1×1 image into memory cannot fail.
    let _ = image::DynamicImage::ImageRgba8(img)
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_aligns_views_and_bounds_positions() {
        let mut d = SourceDocument::new_document();
        let img = d.image(&[1, 2, 3], "image/png", "x");
        let acc = d.f32_attribute(&[0.0, 1.0, 2.0, -1.0, 5.0, 0.5], 3, "VEC3", true);
        assert_eq!((img, acc), (0, 0));
        assert_eq!(d.json["bufferViews"][1]["byteOffset"], json!(4));
        assert_eq!(d.json["accessors"][0]["min"], json!([-1.0, 1.0, 0.5]));
        assert_eq!(d.json["accessors"][0]["count"], json!(2));
        assert_eq!(sniff_mime(&placeholder_png()), Some("image/png"));
    }
}
