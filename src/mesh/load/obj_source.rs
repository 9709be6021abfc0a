//! An OBJ's texture coordinates, normals and `.mtl` materials as a [`SourceDocument`].
//!
//! Each `usemtl` material becomes one primitive. OBJ indexes positions, texture coordinates and
//! normals separately (face-varying), glTF one index for all: every distinct `(v, vt, vn)` corner
//! becomes one output vertex, which takes the weights of its position vertex `v`. The rig and
//! `rig.json` keep the file's `v` order; only the GLB splits.
//!
//! `.mtl` → glTF PBR (metallic-roughness, spec §3.9.2): `Kd` and `d` (or `1 − Tr`) are the base
//! colour, `map_Kd` its texture, `map_Bump`/`bump`/`norm` the normal texture, `d < 1` or `map_d`
//! blend mode; metallic is 0 (OBJ describes dielectrics) and roughness comes from the Phong
//! exponent `Ns` as `√(2 / (Ns + 2))`, the usual Blinn-Phong to microfacet correspondence.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::companion;
use super::obj::ObjExtras;
use super::source::{SourceDocument, SourcePrimitive};
use super::text::{logical_lines, tokens};
use crate::mesh::weld::FastBuild;
use crate::mesh::Mesh;

/// Roughness of a material without `Ns` (matte).
const DEFAULT_ROUGHNESS: f32 = 1.0;

/// One `newmtl` block.
#[derive(Clone, Debug, Default)]
struct MtlMaterial {
    name: String,
    kd: Option<[f32; 3]>,
    alpha: Option<f32>,
    ns: Option<f32>,
    map_kd: Option<String>,
    map_bump: Option<String>,
    map_d: Option<String>,
    /// The folder of the `.mtl` that defines it: its texture paths are relative to it.
    dir: PathBuf,
}

/// Parse `.mtl` text (unknown statements ignored, unreadable numbers skipped).
fn parse_mtl(bytes: &[u8]) -> Vec<MtlMaterial> {
    let mut out: Vec<MtlMaterial> = Vec::new();
    for (_, line) in logical_lines(bytes, true) {
        let body = line.split(|&b| b == b'#').next().unwrap_or(&[]);
        let mut toks = tokens(body);
        let Some(key) = toks.next() else { continue };
        let words: Vec<String> = toks
            .map(|t| String::from_utf8_lossy(t).into_owned())
            .collect();
        let num = |k: usize| words.get(k).and_then(|w| w.parse::<f32>().ok());
        if key == b"newmtl" {
            out.push(MtlMaterial {
                name: words.join(" "),
                ..MtlMaterial::default()
            });
            continue;
        }
        let Some(m) = out.last_mut() else { continue };
        match key.to_ascii_lowercase().as_slice() {
            b"kd" => {
                if let (Some(r), Some(g), Some(b)) = (num(0), num(1), num(2)) {
                    m.kd = Some([r, g, b]);
                }
            }
            b"d" => m.alpha = num(0).or(m.alpha),
            b"tr" => m.alpha = num(0).map(|t| 1.0 - t).or(m.alpha),
            b"ns" => m.ns = num(0),
            b"map_kd" => m.map_kd = map_file(&words),
            b"map_bump" | b"bump" | b"norm" => m.map_bump = map_file(&words),
            b"map_d" => m.map_d = map_file(&words),
            _ => {}
        }
    }
    out
}

/// The file name of a `map_*` statement: the words after its options (`-o u v w`, `-bm 1`, …).
fn map_file(words: &[String]) -> Option<String> {
    let mut i = 0;
    // The last word is always the file, even if it starts with '-'.
    while let Some(w) = words
        .get(i)
        .filter(|w| w.starts_with('-') && i + 1 < words.len())
    {
        i += 1;
        let max = match w.as_str() {
            "-o" | "-s" | "-t" => 3,
            "-mm" => 2,
            _ => 1,
        };
        let mut taken = 0;
        while taken < max && i + 1 < words.len() && words[i].parse::<f32>().is_ok() {
            i += 1;
            taken += 1;
        }
        // Options with a word value (`-clamp on`, `-imfchan r`).
        if taken == 0 && i + 1 < words.len() {
            i += 1;
        }
    }
    let rest = words.get(i..).unwrap_or(&[]).join(" ");
    (!rest.is_empty()).then_some(rest)
}

/// The document for an OBJ's extras, `None` if it has none. `base_dir` finds `.mtl` files and
/// textures; a missing one is a warning naming it.
pub(crate) fn obj_source(
    mesh: &Mesh,
    ex: &ObjExtras,
    base_dir: Option<&Path>,
) -> Option<SourceDocument> {
    if ex.is_empty() {
        return None;
    }
    let mut doc = SourceDocument::new_document();
    let dir = base_dir.unwrap_or_else(|| Path::new("."));
    let mut library: Vec<MtlMaterial> = Vec::new();
    for lib in ex.mtllibs.iter().flat_map(|line| library_names(dir, line)) {
        let path = dir.join(lib.replace('\\', "/"));
        match companion::read(&path, &mut doc.companions) {
            Ok(bytes) => library.extend(parse_mtl(&bytes).into_iter().map(|m| MtlMaterial {
                // Textures are relative to the .mtl file. The paths stay as written: joining
                // them here and again in the lookup read `sub/sub/skin.png` for `sub/hero.obj`.
                dir: path.parent().unwrap_or(dir).to_path_buf(),
                ..m
            })),
            Err(e) => doc.warnings.push(format!(
                "material library {} cannot be read ({e}); materials left plain",
                path.display()
            )),
        }
    }
    let mut textures: HashMap<PathBuf, Option<usize>> = HashMap::new();
    for name in &ex.material_names {
        let found = library.iter().find(|m| m.name == *name).cloned();
        let m = found.unwrap_or_else(|| MtlMaterial {
            name: name.clone(),
            dir: dir.to_path_buf(),
            ..MtlMaterial::default()
        });
        let value = material_json(&mut doc, &m, &mut textures);
        doc.push("materials", value);
    }
    let prims = primitives(&mut doc, mesh, ex);
    let mesh_index = doc.push("meshes", json!({"name": "mesh", "primitives": prims.iter().map(|p| p.1.clone()).collect::<Vec<_>>()}));
    let node = doc.push("nodes", json!({"name": "mesh", "mesh": mesh_index}));
    doc.push("scenes", json!({"nodes": [node]}));
    doc.root_object().insert("scene".into(), json!(0));
    doc.primitives = prims
        .into_iter()
        .enumerate()
        .map(|(k, (vertices, _))| SourcePrimitive {
            node,
            mesh: mesh_index,
            primitive: k,
            vertices,
        })
        .collect();
    Some(doc)
}

/// A glTF material for an `.mtl` material (see the module docs), textures loaded once each.
fn material_json(
    doc: &mut SourceDocument,
    m: &MtlMaterial,
    cache: &mut HashMap<PathBuf, Option<usize>>,
) -> Value {
    let mut tex = |file: &Option<String>, doc: &mut SourceDocument| {
        let f = file.as_ref()?;
        *cache
            .entry(m.dir.join(f))
            .or_insert_with(|| doc.texture_from_file(f, &[&m.dir]))
    };
    let kd = m.kd.unwrap_or([1.0; 3]);
    let alpha = m.alpha.unwrap_or(1.0).clamp(0.0, 1.0);
    let roughness =
        m.ns.map_or(DEFAULT_ROUGHNESS, |ns| (2.0 / (ns.max(0.0) + 2.0)).sqrt());
    let mut pbr = json!({
        "baseColorFactor": [kd[0].clamp(0.0, 1.0), kd[1].clamp(0.0, 1.0), kd[2].clamp(0.0, 1.0), alpha],
        "metallicFactor": 0.0,
        "roughnessFactor": roughness,
    });
    if let Some(t) = tex(&m.map_kd, doc) {
        pbr["baseColorTexture"] = json!({"index": t});
    }
    let mut out = json!({"name": m.name, "pbrMetallicRoughness": pbr});
    if let Some(t) = tex(&m.map_bump, doc) {
        out["normalTexture"] = json!({"index": t});
    }
    if alpha < 1.0 || m.map_d.is_some() {
        out["alphaMode"] = json!("BLEND");
    }
    out
}

/// One primitive per material (in order of first use; triangles without a material last):
/// per output vertex its mesh vertex, and the primitive's JSON.
fn primitives(doc: &mut SourceDocument, mesh: &Mesh, ex: &ObjExtras) -> Vec<(Vec<u32>, Value)> {
    let mut groups: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
    for (t, m) in ex.materials.iter().enumerate() {
        match groups.iter_mut().find(|g| g.0 == *m) {
            Some(g) => g.1.push(t),
            None => groups.push((*m, vec![t])),
        }
    }
    groups.sort_by_key(|g| g.0.map_or(usize::MAX, |m| m));
    groups
        .into_iter()
        .map(|(material, tris)| {
            let (vertices, value) = primitive(doc, mesh, ex, &tris);
            let mut value = value;
            if let Some(m) = material {
                value["material"] = json!(m);
            }
            (vertices, value)
        })
        .collect()
}

/// The output vertices and the glTF primitive of triangles `tris`.
fn primitive(
    doc: &mut SourceDocument,
    mesh: &Mesh,
    ex: &ObjExtras,
    tris: &[usize],
) -> (Vec<u32>, Value) {
    let (keys, indices) = corner_keys(mesh, ex, tris);
    let pos: Vec<f32> = keys
        .iter()
        .flat_map(|k| {
            mesh.positions[k.0 as usize]
                .coords
                .iter()
                .map(|&c| c as f32)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut attrs = json!({"POSITION": doc.f32_attribute(&pos, 3, "VEC3", true)});
    if keys.iter().any(|k| k.1.is_some()) {
        // OBJ's v runs up the image, glTF's down.
        let uv: Vec<f32> = keys
            .iter()
            .flat_map(|k| {
                let [u, v] = k.1.map_or([0.0; 2], |i| ex.uvs[i as usize]);
                [u, 1.0 - v]
            })
            .collect();
        attrs["TEXCOORD_0"] = json!(doc.f32_attribute(&uv, 2, "VEC2", false));
    }
    if keys.iter().all(|k| k.2.is_some()) {
        let n: Vec<f32> = keys
            .iter()
            .flat_map(|k| unit(ex.normals[k.2.unwrap_or(0) as usize]))
            .collect();
        attrs["NORMAL"] = json!(doc.f32_attribute(&n, 3, "VEC3", false));
    }
    let idx = doc.index_accessor(&indices);
    (
        keys.iter().map(|k| k.0).collect(),
        json!({"attributes": attrs, "indices": idx}),
    )
}

/// One output vertex: position, `vt` and `vn` index.
type Key = (u32, Option<u32>, Option<u32>);

/// The distinct corners of `tris` in order of first use, and per corner its output vertex.
/// A corner without `vt` and `vn` (every corner of an untextured OBJ) is found by its position
/// index in a table; the others through a hash map (the fast hasher, not SipHash: the map's
/// order is never read). Both number keys in the same first-use order.
fn corner_keys(mesh: &Mesh, ex: &ObjExtras, tris: &[usize]) -> (Vec<Key>, Vec<u32>) {
    const NONE: u32 = u32::MAX;
    let mut plain = vec![NONE; mesh.positions.len()];
    let textured = tris
        .iter()
        .flat_map(|&t| &ex.corners[t])
        .any(|c| *c != (None, None));
    let capacity = if textured { tris.len() } else { 0 };
    let mut index: HashMap<Key, u32, FastBuild> =
        HashMap::with_capacity_and_hasher(capacity, FastBuild::default());
    let mut keys: Vec<Key> = Vec::new();
    let mut indices = Vec::with_capacity(tris.len() * 3);
    for &t in tris {
        for k in 0..3 {
            let key = (mesh.triangles[t][k], ex.corners[t][k].0, ex.corners[t][k].1);
            let slot = match key {
                (v, None, None) => &mut plain[v as usize],
                _ => index.entry(key).or_insert(NONE),
            };
            if *slot == NONE {
                *slot = keys.len() as u32;
                keys.push(key);
            }
            indices.push(*slot);
        }
    }
    (keys, indices)
}

/// The file names on one `mtllib` line. The OBJ format separates several libraries by spaces,
/// but exporters write a file name that has spaces as it is (Blender: `mtllib hero skin.mtl`),
/// so the whole line wins when it names a file in `dir`; quotes around it are dropped.
fn library_names(dir: &Path, line: &str) -> Vec<String> {
    let whole = line.trim().trim_matches('"');
    if dir.join(whole.replace('\\', "/")).is_file() {
        return vec![whole.to_string()];
    }
    line.split_whitespace().map(str::to_string).collect()
}

/// A normal scaled to unit length (glTF requires unit normals); a zero normal becomes +Z.
pub(crate) fn unit(n: [f32; 3]) -> [f32; 3] {
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if len > 0.0 && len.is_finite() {
        n.map(|c| c / len)
    } else {
        [0.0, 0.0, 1.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_mtllib_name_with_spaces_is_one_file_when_it_exists() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("hero skin.mtl"), b"").unwrap();
        assert_eq!(library_names(d.path(), "hero skin.mtl"), ["hero skin.mtl"]);
        assert_eq!(
            library_names(d.path(), "\"hero skin.mtl\""),
            ["hero skin.mtl"]
        );
        assert_eq!(library_names(d.path(), "a.mtl b.mtl"), ["a.mtl", "b.mtl"]);
    }

    #[test]
    fn mtl_colours_maps_and_options() {
        let m = parse_mtl(b"newmtl skin tone\nKd 0.5 0.25 1\nd 0.5\nNs 98\nmap_Kd -s 1 1 1 tex/skin.png\nmap_Bump -bm 0.5 n.png\n");
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].name, "skin tone");
        assert_eq!(m[0].kd, Some([0.5, 0.25, 1.0]));
        assert_eq!(m[0].alpha, Some(0.5));
        assert_eq!(m[0].map_kd.as_deref(), Some("tex/skin.png"));
        assert_eq!(m[0].map_bump.as_deref(), Some("n.png"));
    }
}
